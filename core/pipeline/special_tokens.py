"""Special tokens matched in running text in front of another pre-tokeniser (tiktoken's
``encode(text, allowed_special="all")``).

No paper section. tiktoken (``CoreBPE::encode``) finds the next special token in the text, encodes
the ordinary text before it with the split regex, emits the special token's id, and goes on after
it; the regex therefore never sees across a special token. Here every special token found (the
leftmost, the longest of those starting there) becomes ``Pretoken(special, sources, added=True)``
and every stretch between them is pre-tokenised by ``inner`` on its own, its sources shifted to
positions in the whole text. ``inner`` must not normalise (sources must stay positions in the
text as given). The special tokens are looked up as strings (a dict per first character and
length), not as one alternation regex, which a file with many of them would make slow to compile
and to run.
"""

from __future__ import annotations

from core.errors import InputError
from core.pipeline.base import Pretoken, Pretokeniser
from core.pipeline.huggingface.added_tokens import StringMatcher
from core.pipeline.spec_checks import check_text, spec_arguments


class SpecialTokenSplit(Pretokeniser):
    kind = "special_tokens"

    def __init__(self, inner: Pretokeniser, specials: list[str] | tuple[str, ...] = ()):
        if not isinstance(inner, Pretokeniser):
            raise InputError(f"inner must be a pre-tokeniser, got {inner!r}")
        if getattr(inner, "normaliser", ()):
            raise InputError("the inner pre-tokeniser of special-token splitting must not normalise")
        if (
            isinstance(specials, str)
            or not isinstance(specials, (list, tuple))
            or not all(isinstance(s, str) and s for s in specials)
        ):
            raise InputError(f"specials must be a list of non-empty strings, got {specials!r}")
        self.inner = inner
        self.specials: tuple[str, ...] = tuple(dict.fromkeys(specials))
        self.marker = inner.marker
        # The inner pre-tokeniser does not normalise, so sources index the text as given.
        self.sources_in_original = True
        self.emits_added_tokens = bool(self.specials)
        self.limited_patterns = inner.limited_patterns
        self._matcher = StringMatcher({s: s for s in self.specials}) if self.specials else None

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        text = check_text(text)
        if self._matcher is None:
            return self.inner.pretokenise_with_sources(text)
        out: list[Pretoken] = []
        done = 0
        for start, end, special in self._matcher.find(text):
            out.extend(self._ordinary(text, done, start))
            out.append(Pretoken(special, tuple(range(start, end)), added=True))
            done = end
        out.extend(self._ordinary(text, done, len(text)))
        return out

    def _ordinary(self, text: str, start: int, end: int) -> list[Pretoken]:
        if start >= end:
            return []
        pretokens = self.inner.pretokenise_with_sources(text[start:end])
        if not start:
            return pretokens
        return [Pretoken(p.text, tuple(s + start if s >= 0 else s for s in p.sources), p.added) for p in pretokens]

    def may_hold_added_tokens(self, text: str) -> bool:
        # a character that starts a special token occurs: conservative, and as fast as one regex scan
        return self._matcher is not None and self._matcher.first.search(text) is not None

    def pretokenise(self, text: str) -> list[str]:
        if not self.may_hold_added_tokens(check_text(text)):
            return self.inner.pretokenise(text)
        return [p.text for p in self.pretokenise_with_sources(text)]

    def decode(self, tokens: list[str]) -> str:
        if not self.specials:
            return self.inner.decode(tokens)
        specials = set(self.specials)
        parts: list[str] = []
        run: list[str] = []
        for token in tokens:
            if token in specials:
                parts.append(self.inner.decode(run))
                parts.append(token)
                run = []
            else:
                run.append(token)
        parts.append(self.inner.decode(run))
        return "".join(parts)

    def display(self, token: str) -> str:
        return token if token in self.specials else self.inner.display(token)

    def to_spec(self) -> dict:
        return {"kind": self.kind, "inner": self.inner.to_spec(), "specials": list(self.specials)}

    @classmethod
    def from_spec(cls, spec: dict) -> SpecialTokenSplit:
        """``spec["inner"]`` is the inner pre-tokeniser itself: :func:`core.pipeline.specs.pretokeniser_from_spec`
        builds nested specs first."""
        args = spec_arguments(spec, cls.kind, ("inner", "specials"))
        inner = args.get("inner")
        if not isinstance(inner, Pretokeniser):
            raise InputError(f"the inner pre-tokeniser of {cls.kind!r} must be built first, got {type(inner).__name__}")
        return cls(inner, args.get("specials", []))

    def __hash__(self) -> int:
        return hash((self.inner, self.specials))

    def __repr__(self) -> str:
        return f"SpecialTokenSplit({self.inner!r}, {len(self.specials)} specials)"
