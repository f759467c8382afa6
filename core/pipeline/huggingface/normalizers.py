"""HF ``tokenizers`` normalizers (the ``normalizer`` field of a tokenizer.json), with sources.

Implements the semantics of ``tokenizers`` 0.23 (Rust ``src/normalizers``,
``NormalizedString``): Sequence, NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace
(``{"String": s}`` is literal, ``{"Regex": r}`` a regex), Prepend, BertNormalizer, Nmt, ByteLevel
and Precompiled (SentencePiece charsmap, via :mod:`core.pipeline.sentencepiece.charsmap`).

Every normaliser maps a string to ``(new string, sources)`` where ``sources[j]`` is the index in
its input of the character that produced output character ``j``; ``-1`` marks an inserted
character (Prepend, the spaces BertNormalizer puts around CJK characters, Replace content for an
empty match). Replace content takes the source of the first matched character; a character that
a normal form composes or decomposes takes the first index of its normalisation segment (a
starter and its combining marks; adjacent segments that compose together, e.g. Hangul jamo,
form one segment).

Semantic details that follow HF rather than Python: Lowercase maps each character on its own
(Rust ``char::to_lowercase``: no final-sigma rule), whitespace is Unicode ``White_Space`` (Rust
``char::is_whitespace``, ``\\s`` of the ``regex`` module; not ``str.isspace``), numbers are
``\\p{N}``. Regexes run with the ``regex`` module; HF runs them with Oniguruma, whose handling of
empty matches (none right after a previous match; the search then moves on one character) is
reproduced by :func:`find_matches`, and its Ruby-syntax ``^``/``$`` (line anchors) by compiling in
multiline mode; a regex that is not a known tokeniser's pattern runs with a time limit
(:mod:`core.pipeline.limited_regex`). Known engine difference: Oniguruma's ``\\w`` also
matches six No characters (e.g. ``¼``) and not ZWJ/ZWNJ.

Precompiled delegates to :class:`core.pipeline.sentencepiece.charsmap.Charsmap`, which follows
SentencePiece (longest match at each position); HF additionally looks whole grapheme clusters
shorter than 6 bytes up first (shortest key that prefixes the cluster), which is not reproduced.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import regex

from core.errors import InputError, excerpt
from core.pipeline.byte_level import text_to_byte_chars
from core.pipeline.limited_regex import LimitedPattern
from core.pipeline.normalisation import NORMAL_FORMS, NormalForm, lowercase
from core.pipeline.patterns import compile_regex

#: ``(text, sources or None)``: None means "one output character per input character".
Mapped = tuple[str, "list[int] | None"]
#: A normaliser may make a text at most this many times longer, plus EXPANSION_SLACK characters (NFKC's
#: largest expansion is 18 characters; a file of 30 ``Replace a -> aa`` steps would make "a" 2**30 long).
MAX_EXPANSION = 64
EXPANSION_SLACK = 1024


def check_growth(before: int, after: int, step: str) -> None:
    """InputError when normalising makes ``before`` characters into more than the expansion limit."""
    if after > MAX_EXPANSION * before + EXPANSION_SLACK:
        raise InputError(
            f"the normaliser ({step}) would make {before:,} characters into {after:,}; the limit is "
            f"{MAX_EXPANSION} times the text plus {EXPANSION_SLACK:,} characters"
        )


# --------------------------------------------------------------------------- shared helpers


def describe_value(value: Any) -> str:
    """How a message quotes a value of the file: a short excerpt (an object is "an object")."""
    return excerpt(value) if not isinstance(value, dict) else "an object"


def fail(path: str, message: str) -> InputError:
    return InputError(f"{path}: {message}")


def field(obj: dict, name: str, path: str, kind: type | tuple, default: Any = ...) -> Any:
    """``obj[name]`` checked to be of ``kind``; InputError naming ``path.name`` otherwise."""
    if name not in obj or (obj[name] is None and default is None):
        if default is ...:
            raise fail(f"{path}.{name}", "missing")
        return default
    value = obj[name]
    ok = isinstance(value, kind) and not (isinstance(value, bool) and bool not in _kinds(kind))
    if not ok:
        names = " or ".join(k.__name__ for k in _kinds(kind))
        raise fail(f"{path}.{name}", f"expected {names}, got {describe_value(value)}")
    return value


def _kinds(kind: type | tuple) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def check_keys(obj: dict, path: str, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(obj) - set(allowed) - {"type"})
    if unknown:
        raise fail(
            path,
            f"unknown field(s) {', '.join(map(describe_value, unknown[:5]))} for type "
            f"{describe_value(obj.get('type'))}; allowed: {', '.join(allowed) or 'none'}",
        )


def single_char(obj: dict, name: str, path: str, default: Any = ...) -> str:
    value = field(obj, name, path, str, default)
    if len(value) != 1:
        raise fail(f"{path}.{name}", f"must be exactly one character, got {describe_value(value)}")
    return value


@lru_cache(maxsize=256)
def _compile_literal(text: str) -> regex.Pattern:
    return regex.compile(regex.escape(text)) if text else regex.compile("")


def compile_hf_pattern(obj: Any, path: str) -> tuple[regex.Pattern | LimitedPattern, dict]:
    """A compiled regex for an HF pattern ``{"String": s}`` (literal) or ``{"Regex": r}`` (a
    LimitedPattern naming ``path`` unless it is a known pattern)."""
    if not isinstance(obj, dict) or len(obj) != 1 or not set(obj) <= {"String", "Regex"}:
        raise fail(path, f'must be {{"String": ...}} or {{"Regex": ...}}, got {describe_value(obj)}')
    ((kind, text),) = obj.items()
    if not isinstance(text, str):
        raise fail(f"{path}.{kind}", f"expected a string, got {describe_value(text)}")
    if kind == "String":
        return _compile_literal(text), obj
    if text == "":
        return _compile_literal(""), obj
    # Oniguruma (Ruby syntax) reads ^ and $ as line anchors: multiline mode.
    return compile_regex(text, "(?m)", f"{path}.Regex"), obj


def find_matches(pattern: regex.Pattern | LimitedPattern, text: str) -> list[tuple[int, int]]:
    """Match spans as Oniguruma's ``find_iter`` gives them (as HF sees them): leftmost matches
    left to right; an empty match right at the end of the previous match is skipped and the
    search resumes one character further."""
    if not text:
        return []  # HF: an empty string has no matches, not even an empty one
    spans = [m.span() for m in pattern.finditer(text)]
    if all(s != e for s, e in spans):
        return spans  # without empty matches both engines proceed identically
    spans, pos, last_end, n = [], 0, None, len(text)
    while pos <= n:
        m = pattern.search(text, pos)
        if m is None:
            break
        s, e = m.span()
        if s == e and last_end == e:
            pos += 1
            continue
        spans.append((s, e))
        pos = last_end = e
    return spans


def compose(outer: list[int] | None, local: list[int] | None) -> list[int] | None:
    """Sources through two steps: ``local`` indexes the step's input whose sources are
    ``outer`` (None = identity)."""
    if local is None:
        return outer
    if outer is None:
        return local
    return [outer[i] if i >= 0 else -1 for i in local]


def _removing(text: str, spans: list[tuple[int, int]]) -> Mapped:
    """``text`` without the characters in ``spans`` (sorted, disjoint)."""
    if not spans:
        return text, None
    parts: list[str] = []
    sources: list[int] = []
    done = 0
    for s, e in spans:
        parts.append(text[done:s])
        sources.extend(range(done, s))
        done = e
    parts.append(text[done:])
    sources.extend(range(done, len(text)))
    return "".join(parts), sources


def _per_char(text: str, fn: Callable[[str], str]) -> Mapped:
    """Each character replaced by ``fn(c)`` (any length), sources per character."""
    parts, sources = [], []
    for i, c in enumerate(text):
        out = fn(c)
        parts.append(out)
        sources.extend([i] * len(out))
    result = "".join(parts)
    return result, (None if len(result) == len(text) else sources)


# --------------------------------------------------------------------------- normalisers


class HFNormalizer(ABC):
    """One HF normalizer."""

    #: the HF type name
    type_name = ""

    @abstractmethod
    def apply(self, text: str) -> Mapped:
        """``(normalised, sources)``; sources None when output char j comes from input char j."""

    def normalize_str(self, text: str) -> str:
        return self.apply(text)[0]

    def normalise_with_sources(self, text: str) -> tuple[str, list[int]]:
        out, sources = self.apply(text)
        return out, list(range(len(text))) if sources is None else sources

    def steps(self) -> list[HFNormalizer]:
        """The leaf normalisers, in order."""
        return [self]

    def describe(self) -> str:
        return self.type_name


class Sequence(HFNormalizer):
    type_name = "Sequence"

    def __init__(self, normalizers: list[HFNormalizer]):
        self.normalizers = normalizers

    def apply(self, text: str) -> Mapped:
        sources, size = None, len(text)
        for n in self.normalizers:
            text, local = n.apply(text)
            check_growth(size, len(text), n.describe())
            sources = compose(sources, local)
        return text, sources

    def normalize_str(self, text: str) -> str:
        size = len(text)
        for n in self.normalizers:
            text = n.normalize_str(text)
            check_growth(size, len(text), n.describe())
        return text

    def steps(self) -> list[HFNormalizer]:
        return [s for n in self.normalizers for s in n.steps()]

    def describe(self) -> str:
        return " + ".join(s.describe() for s in self.steps()) or "none"


_SEGMENT = regex.compile(r"\p{ccc=0}\P{ccc=0}*|\P{ccc=0}+")


class UnicodeForm(HFNormalizer):
    """NFC / NFD / NFKC / NFKD."""

    def __init__(self, form: NormalForm):
        self.form: NormalForm = form
        self.type_name = form

    def normalize_str(self, text: str) -> str:
        return text if text.isascii() else unicodedata.normalize(self.form, text)

    def apply(self, text: str) -> Mapped:
        if text.isascii() or unicodedata.is_normalized(self.form, text):
            return text, None
        form = self.form
        whole = unicodedata.normalize(form, text)
        groups = [
            (s, e, unicodedata.normalize(form, text[s:e])) for s, e in (m.span() for m in _SEGMENT.finditer(text))
        ]
        if "".join(g[2] for g in groups) != whole:
            merged = [groups[0]]
            for s, e, out in groups[1:]:
                ps, _, pout = merged[-1]
                joined = unicodedata.normalize(form, text[ps:e])
                if joined == pout + out:
                    merged.append((s, e, out))
                else:
                    merged[-1] = (ps, e, joined)
            groups = merged if "".join(g[2] for g in merged) == whole else [(0, len(text), whole)]
        sources: list[int] = []
        for s, e, out in groups:
            if len(out) == e - s:
                sources.extend(range(s, e))
            else:
                sources.extend([s] * len(out))
        return whole, sources


def _lower_char(c: str) -> str:
    return c.lower()  # per character: no final-sigma context, like Rust's char::to_lowercase


class Lowercase(HFNormalizer):
    type_name = "Lowercase"

    def normalize_str(self, text: str) -> str:
        return self.apply(text)[0]

    def apply(self, text: str) -> Mapped:
        out = lowercase(text)
        if len(out) == len(text):
            return out, None
        return _per_char(text, _lower_char)


_LEADING_WS = regex.compile(r"\A\s+")
_TRAILING_WS = regex.compile(r"\s+\Z")


class Strip(HFNormalizer):
    type_name = "Strip"

    def __init__(self, left: bool, right: bool):
        self.left, self.right = left, right

    def apply(self, text: str) -> Mapped:
        start, end = 0, len(text)
        if self.left and (m := _LEADING_WS.match(text)):
            start = m.end()
        if self.right and start < end and (m := _TRAILING_WS.search(text, start)):
            end = m.start()
        if (start, end) == (0, len(text)):
            return text, None
        return text[start:end], list(range(start, end))

    def describe(self) -> str:
        sides = "both" if self.left and self.right else "left" if self.left else "right" if self.right else "none"
        return f"Strip({sides})"


_MARK = regex.compile(r"\p{M}+")
_NONSPACING = regex.compile(r"\p{Mn}+")


class StripAccents(HFNormalizer):
    """Removes every combining mark (General_Category M)."""

    type_name = "StripAccents"

    def apply(self, text: str) -> Mapped:
        if text.isascii():
            return text, None
        return _removing(text, [m.span() for m in _MARK.finditer(text)])


class Replace(HFNormalizer):
    type_name = "Replace"

    def __init__(self, pattern: regex.Pattern | LimitedPattern, pattern_json: dict, content: str):
        self.pattern, self.pattern_json, self.content = pattern, pattern_json, content

    def normalize_str(self, text: str) -> str:
        literal = self.pattern_json.get("String")
        if literal:
            check_growth(
                len(text), len(text) + text.count(literal) * (len(self.content) - len(literal)), self.describe()
            )
            return text.replace(literal, self.content)
        return self.apply(text)[0]

    def apply(self, text: str) -> Mapped:
        spans = find_matches(self.pattern, text)
        if not spans:
            return text, None
        content, n = self.content, len(self.content)
        check_growth(len(text), len(text) + sum(n - (e - s) for s, e in spans), self.describe())
        if all(e - s == n for s, e in spans) and "String" in self.pattern_json:
            # equal-length literal replacement: characters map one to one
            return self.normalize_str(text), None
        parts: list[str] = []
        sources: list[int] = []
        done = 0
        for s, e in spans:
            parts.append(text[done:s])
            sources.extend(range(done, s))
            parts.append(content)
            if e - s == n:
                sources.extend(range(s, e))
            else:
                sources.extend([s if e > s else -1] * n)
            done = e
        parts.append(text[done:])
        sources.extend(range(done, len(text)))
        return "".join(parts), sources

    def describe(self) -> str:
        ((_, pat),) = self.pattern_json.items()
        return f"Replace({pat!r}->{self.content!r})"


class Prepend(HFNormalizer):
    type_name = "Prepend"

    def __init__(self, prepend: str):
        self.prepend = prepend

    def normalize_str(self, text: str) -> str:
        return self.prepend + text if text else text

    def apply(self, text: str) -> Mapped:
        if not text or not self.prepend:
            return text, None
        return self.prepend + text, [-1] * len(self.prepend) + list(range(len(text)))

    def describe(self) -> str:
        return f"Prepend({self.prepend!r})"


_BERT_DROP = regex.compile(r"[\x00\ufffd[^\P{C}\t\n\r]]+", flags=regex.V1)
_WS_CHAR = regex.compile(r"\s")
_CJK = regex.compile(
    "[\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f"
    "\U0002b740-\U0002b81f\U0002b920-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f]"
)


class BertNormalizer(HFNormalizer):
    type_name = "BertNormalizer"

    def __init__(self, clean_text: bool, handle_chinese_chars: bool, strip_accents: bool | None, lowercase: bool):
        self.clean_text = clean_text
        self.handle_chinese_chars = handle_chinese_chars
        self.strip_accents = strip_accents
        self.lowercase = lowercase
        steps: list[HFNormalizer] = []
        if clean_text:
            steps.append(_BertClean())
        if handle_chinese_chars:
            steps.append(_BertChinese())
        if lowercase if strip_accents is None else strip_accents:
            steps += [UnicodeForm("NFD"), _StripNonspacing()]
        if lowercase:
            steps.append(Lowercase())
        self._sequence = Sequence(steps)

    def apply(self, text: str) -> Mapped:
        return self._sequence.apply(text)

    def normalize_str(self, text: str) -> str:
        return self._sequence.normalize_str(text)


class _BertClean(HFNormalizer):
    """Drops NUL, U+FFFD and control/format/unassigned characters (but not tab, LF, CR); every
    whitespace character becomes a space."""

    type_name = "clean_text"

    def apply(self, text: str) -> Mapped:
        text, sources = _removing(text, [m.span() for m in _BERT_DROP.finditer(text)])
        return _WS_CHAR.sub(" ", text), sources


class _BertChinese(HFNormalizer):
    type_name = "handle_chinese_chars"

    def apply(self, text: str) -> Mapped:
        if text.isascii() or not _CJK.search(text):
            return text, None
        parts, sources = [], []
        for i, c in enumerate(text):
            if _CJK.match(c):
                parts.append(f" {c} ")
                sources += [-1, i, -1]
            else:
                parts.append(c)
                sources.append(i)
        return "".join(parts), sources


class _StripNonspacing(HFNormalizer):
    type_name = "strip_accents"

    def apply(self, text: str) -> Mapped:
        if text.isascii():
            return text, None
        return _removing(text, [m.span() for m in _NONSPACING.finditer(text)])


_NMT_DROP = regex.compile("[\x01-\x08\x0b\x0e-\x1f\x7f\x8f\x9f]+")
_NMT_SPACE = regex.compile("[\t\n\x0c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]")


class Nmt(HFNormalizer):
    type_name = "Nmt"

    def apply(self, text: str) -> Mapped:
        text, sources = _removing(text, [m.span() for m in _NMT_DROP.finditer(text)])
        return _NMT_SPACE.sub(" ", text), sources


class ByteLevelNormalizer(HFNormalizer):
    """Every UTF-8 byte written as its GPT-2 byte character."""

    type_name = "ByteLevel"

    def normalize_str(self, text: str) -> str:
        return text_to_byte_chars(text)

    def apply(self, text: str) -> Mapped:
        out = text_to_byte_chars(text)
        if len(out) == len(text):
            return out, None
        sources = []
        for i, c in enumerate(text):
            sources.extend([i] * len(c.encode("utf-8", "surrogatepass")))
        return out, sources


class Precompiled(HFNormalizer):
    """SentencePiece's precompiled charsmap (``core.pipeline.sentencepiece.charsmap.Charsmap``)."""

    type_name = "Precompiled"

    def __init__(self, charsmap: Any, blob_text: str):
        self.charsmap, self.blob_text = charsmap, blob_text

    def normalize_str(self, text: str) -> str:
        return self.charsmap.normalise(text)

    def apply(self, text: str) -> Mapped:
        for name in ("normalise_with_sources", "normalise_with_offsets"):
            method = getattr(self.charsmap, name, None)
            if method is not None:
                out, sources = method(text)
                return out, list(sources)
        out = self.charsmap.normalise(text)
        if out == text:
            return out, None
        pieces = [self.charsmap.normalise(c) for c in text]
        if "".join(pieces) == out:
            return out, [i for i, p in enumerate(pieces) for _ in p]
        return out, [0 if out else -1] * len(out)


def _load_precompiled(obj: dict, path: str) -> Precompiled:
    import base64
    import binascii

    blob_text = field(obj, "precompiled_charsmap", path, str)
    try:
        from core.pipeline.sentencepiece.charsmap import Charsmap
    except ImportError:
        raise fail(
            f"{path}.Precompiled",
            "normalizer.Precompiled (SentencePiece charsmap) is not "
            "supported yet: core.pipeline.sentencepiece.charsmap is missing",
        ) from None
    try:
        blob = base64.b64decode(blob_text, validate=True)
    except (binascii.Error, ValueError) as err:
        raise fail(f"{path}.precompiled_charsmap", f"not valid base64: {err}") from None
    return Precompiled(Charsmap.from_bytes(blob), blob_text)


# --------------------------------------------------------------------------- JSON

NORMALIZER_TYPES = (
    "Sequence",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Lowercase",
    "Strip",
    "StripAccents",
    "Replace",
    "Prepend",
    "BertNormalizer",
    "Nmt",
    "ByteLevel",
    "Precompiled",
)


#: the normalizers that take no options, by type
_WITHOUT_OPTIONS: dict[str, Callable[[], HFNormalizer]] = {
    "Lowercase": Lowercase,
    "StripAccents": StripAccents,
    "Nmt": Nmt,
    "ByteLevel": ByteLevelNormalizer,
}


def normalizer_from_json(obj: Any, path: str = "normalizer") -> HFNormalizer | None:
    """The normaliser an HF ``normalizer`` JSON value describes (None for null)."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise fail(path, f"expected an object or null, got {describe_value(obj)}")
    kind = obj.get("type")
    if kind not in NORMALIZER_TYPES:
        raise fail(f"{path}.type", f"{describe_value(kind)} is not one of {', '.join(NORMALIZER_TYPES)}")
    if kind == "Sequence":
        check_keys(obj, path, ("normalizers",))
        inner = field(obj, "normalizers", path, list)
        return Sequence(
            [
                n
                for i, item in enumerate(inner)
                if (n := normalizer_from_json(item, f"{path}.normalizers[{i}]")) is not None
            ]
        )
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        check_keys(obj, path, ())
        return UnicodeForm(NORMAL_FORMS[kind.lower()])
    if kind in _WITHOUT_OPTIONS:
        check_keys(obj, path, ())
        return _WITHOUT_OPTIONS[kind]()
    if kind == "Strip":
        check_keys(obj, path, ("strip_left", "strip_right"))
        return Strip(field(obj, "strip_left", path, bool, True), field(obj, "strip_right", path, bool, True))
    if kind == "Replace":
        check_keys(obj, path, ("pattern", "content"))
        pattern, pattern_json = compile_hf_pattern(obj.get("pattern"), f"{path}.pattern")
        return Replace(pattern, pattern_json, field(obj, "content", path, str))
    if kind == "Prepend":
        check_keys(obj, path, ("prepend",))
        return Prepend(field(obj, "prepend", path, str))
    if kind == "BertNormalizer":
        check_keys(obj, path, ("clean_text", "handle_chinese_chars", "strip_accents", "lowercase"))
        return BertNormalizer(
            field(obj, "clean_text", path, bool, True),
            field(obj, "handle_chinese_chars", path, bool, True),
            field(obj, "strip_accents", path, bool, None),
            field(obj, "lowercase", path, bool, True),
        )
    check_keys(obj, path, ("precompiled_charsmap",))
    return _load_precompiled(obj, path)
