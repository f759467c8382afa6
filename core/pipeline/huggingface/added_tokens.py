"""HF ``added_tokens`` matching for encoding (``AddedVocabulary::extract_and_normalize``).

Semantics of ``tokenizers`` 0.23 (Rust ``src/tokenizer/added_vocabulary.rs``):

1. tokens with ``normalized: false`` are matched in the raw text;
2. every stretch of text between those matches is normalised on its own;
3. tokens with ``normalized: true`` are matched in each normalised stretch, looking for the
   token's content *as the normalizer rewrites it*.

Matching is leftmost-longest over all tokens of the pass and non-overlapping: the search resumes
at the end of every match found, even when the match is then discarded. ``single_word`` discards a
match with a word character (Rust ``\\w``) right before or after it in the stretch; ``lstrip``
moves the match start back over the whitespace before it (not past the previous match),
``rstrip`` moves its end over the whitespace after it. The whitespace taken in is absorbed by the
added token (the model never sees it); HF's ``Encoding.tokens`` shows it as part of the token
string. An ``rstrip`` that runs into the next match makes HF's two slices overlap, which is
reproduced; a match whose ``lstrip``-moved start is clamped past its end (the previous token's
``rstrip`` swallowed it) yields an empty slice, which HF drops, token and all. Tokens with empty
content are ignored; when two ``normalized`` tokens normalise to the same string, HF's choice
depends on its hash map's order, here the later token wins. ``special`` only matters for decoding
with ``skip_special_tokens``.

Lookup is a dict per (first character, length), so thousands of added tokens (Gemma 3 has 6,415)
cost one regex scan for candidate first characters plus a few dict probes per candidate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import regex

from core.pipeline.huggingface.normalizers import describe_value, fail
from core.pipeline.patterns import _WORD_CLASS

_WORD_CHAR = regex.compile(rf"[{_WORD_CLASS}]")
_SPACE_CHAR = regex.compile(r"\s")
T = TypeVar("T")


@dataclass(frozen=True)
class AddedToken:
    content: str
    id: int | None = None
    special: bool = False
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False
    normalized: bool = True


_FLAGS = ("special", "lstrip", "rstrip", "single_word", "normalized")


def added_tokens_from_json(obj: Any, path: str = "added_tokens") -> list[AddedToken]:
    if obj is None:
        return []
    if not isinstance(obj, list):
        raise fail(path, f"expected a list, got {describe_value(obj)}")
    tokens = []
    for i, item in enumerate(obj):
        where = f"{path}[{i}]"
        if not isinstance(item, dict):
            raise fail(where, f"expected an object, got {describe_value(item)}")
        unknown = sorted(set(item) - {"id", "content", *_FLAGS})
        if unknown:
            raise fail(
                where,
                f"unknown field(s) {', '.join(map(describe_value, unknown[:5]))}; allowed: id, content, "
                f"{', '.join(_FLAGS)}",
            )
        content = item.get("content")
        if not isinstance(content, str):
            raise fail(f"{where}.content", f"expected a string, got {describe_value(content)}")
        token_id = item.get("id")
        if token_id is not None and (isinstance(token_id, bool) or not isinstance(token_id, int)):
            raise fail(f"{where}.id", f"expected an integer, got {describe_value(token_id)}")
        flags = {}
        for name in _FLAGS:
            value = item.get(name, False if name != "normalized" else not item.get("special", False))
            if not isinstance(value, bool):
                raise fail(f"{where}.{name}", f"expected true or false, got {describe_value(value)}")
            flags[name] = value
        tokens.append(AddedToken(content, token_id, **flags))
    return tokens


class StringMatcher(Generic[T]):
    """Leftmost-longest, non-overlapping search for a set of strings, each with a value."""

    def __init__(self, patterns: dict[str, T]):
        self.table: dict[tuple[str, int], dict[str, T]] = {}
        lengths: dict[str, set[int]] = {}
        for text, token in patterns.items():
            self.table.setdefault((text[0], len(text)), {})[text] = token
            lengths.setdefault(text[0], set()).add(len(text))
        self.lengths = {c: sorted(ls, reverse=True) for c, ls in lengths.items()}
        firsts = "".join(sorted(self.lengths))
        self.first = regex.compile("[" + "".join(regex.escape(c) for c in firsts) + "]")

    def find(self, text: str) -> Iterator[tuple[int, int, T]]:
        """Yield ``(start, end, value)``."""
        pos, search, lengths, table = 0, self.first.search, self.lengths, self.table
        while True:
            m = search(text, pos)
            if m is None:
                return
            p = m.start()
            c = text[p]
            for n in lengths[c]:
                token = table[(c, n)].get(text[p : p + n])
                if token is not None:
                    yield p, p + n, token
                    pos = p + n
                    break
            else:
                pos = p + 1


def _matches(
    text: str, matcher: StringMatcher[AddedToken] | None
) -> list[tuple[int, int, AddedToken | None, int, int]]:
    """HF ``find_matches``: ``(start, end, token or None, match_start, match_end)`` covering the
    text (stretches may overlap after an rstrip); ``match_*`` is the token content's span."""
    if matcher is None or not text:
        return [(0, len(text), None, 0, 0)] if text else []
    out: list[tuple[int, int, AddedToken | None, int, int]] = []
    done, n = 0, len(text)
    for start, stop, token in matcher.find(text):
        m_start, m_stop = start, stop
        if token.single_word:
            if start > 0 and _WORD_CHAR.match(text[start - 1]):
                continue
            if stop < n and _WORD_CHAR.match(text[stop]):
                continue
        if token.lstrip:
            s = start
            while s > 0 and _SPACE_CHAR.match(text[s - 1]):
                s -= 1
            start = max(s, done)
        if token.rstrip:
            while stop < n and _SPACE_CHAR.match(text[stop]):
                stop += 1
        if done < start:
            out.append((done, start, None, 0, 0))
        out.append((start, stop, token, m_start, m_stop))
        done = stop
    if done != n:
        out.append((done, n, None, 0, 0))
    return out


#: one stretch of the pipeline's output: ``(text, sources, token)``; token None = plain text.
Stretch = tuple[str, "list[int] | None", "AddedToken | None"]


class AddedVocabulary:
    """The added tokens of a tokenizer.json and the two matching passes."""

    def __init__(self, tokens: list[AddedToken], normalize_str: Callable[[str], str] | None):
        by_content: dict[str, AddedToken] = {}
        for token in tokens:
            if token.content:
                by_content[token.content] = token
        self.tokens = list(by_content.values())
        raw = {t.content: t for t in self.tokens if not t.normalized}
        normalised: dict[str, AddedToken] = {}
        for t in self.tokens:
            if t.normalized:
                key = normalize_str(t.content) if normalize_str else t.content
                if key:
                    normalised[key] = t  # HF: whichever its hash map yields last; here the later one
        self.raw = StringMatcher(raw) if raw else None
        self.normalised = StringMatcher(normalised) if normalised else None

    def __len__(self) -> int:
        return len(self.tokens)

    def extract(
        self, text: str, normalise: Callable[[str, list[int] | None], tuple[str, list[int] | None]], with_sources: bool
    ) -> list[Stretch]:
        """Added tokens and normalised text stretches of ``text``, in order.

        ``normalise(text, sources)`` normalises one stretch (sources None on the fast path).
        Sources of added tokens are those of the content's matched characters."""
        out: list[Stretch] = []
        for start, stop, token, m_start, m_stop in _matches(text, self.raw):
            if stop <= start:
                continue  # HF drops empty slices, even a token's (lstrip clamped past an rstrip)
            if token is not None:
                out.append((token.content, list(range(m_start, m_stop)) if with_sources else None, token))
                continue
            piece, src = normalise(text[start:stop], list(range(start, stop)) if with_sources else None)
            for s, e, tok, ms, me in _matches(piece, self.normalised):
                if e <= s:
                    continue
                if tok is None:
                    out.append((piece[s:e], None if src is None else src[s:e], None))
                    continue
                sources = None
                if src is not None:
                    sources = src[ms:me]
                    if len(sources) != len(tok.content):
                        sources = sources[:1] * len(tok.content)
                out.append((tok.content, sources, tok))
        return out
