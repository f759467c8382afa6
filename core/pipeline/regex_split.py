"""Splitting with a pre-tokenisation regex ([boundless App. A], Listing 3), optionally
followed by the GPT-2 byte mapping.

Pretokens are the non-empty matches of the pattern, left to right (``regex.findall``
semantics; HF ``Split`` with behaviour ``Removed`` and ``invert=True``). Characters that no
match covers are dropped (``unmatched="drop"``, the default): they end up in no pretoken and
leave a gap in the sources. With ``unmatched="keep"`` every maximal unmatched stretch becomes a
pretoken of its own instead (HF ``Split`` with behaviour ``Isolated``). The four paper patterns
(gpt2, gpt4, punct, boundless) cover every character, so with them both settings give a
partition of the text; the ``whitespace`` pattern drops whitespace by design. A raw pattern that
is not a known one runs with a time limit (:mod:`core.pipeline.limited_regex`).
"""

from __future__ import annotations

from core.options import check_bool, check_choice
from core.pipeline.base import Pretoken
from core.pipeline.byte_level import BYTE_SPACE, byte_chars_to_text, display_byte_chars, text_to_byte_chars
from core.pipeline.limited_regex import LimitedPattern
from core.pipeline.normalisation import NormalisedPretokeniser, check_normaliser
from core.pipeline.patterns import COVERING_PATTERNS, compile_pattern, pattern_name
from core.pipeline.spec_checks import check_text, spec_arguments
from core.pipeline.visible import escape_controls

UNMATCHED_MODES = ("drop", "keep")


class RegexSplit(NormalisedPretokeniser):
    """Split with a named pattern (gpt2, gpt4, punct, boundless, whitespace) or a raw regex.

    A raw pattern whose text equals a named one is stored under its name. With ``byte_level``
    each pretoken is written in the GPT-2 byte alphabet (marker ``Ġ``); otherwise pretokens are
    plain text and the word-start marker of the paper patterns is the space itself.
    """

    kind = "regex"

    def __init__(
        self, pattern: str = "gpt2", byte_level: bool = False, normaliser: tuple[str, ...] = (), unmatched: str = "drop"
    ):
        self._regex = compile_pattern(pattern)
        self.limited_patterns = (self._regex,) if isinstance(self._regex, LimitedPattern) else ()
        self.pattern = pattern_name(pattern) or pattern
        self.byte_level = check_bool("byte_level", byte_level)
        self.unmatched = check_choice("unmatched", unmatched, UNMATCHED_MODES)
        self.normaliser = check_normaliser(normaliser)
        if self.byte_level:
            self.marker = BYTE_SPACE
        elif self.pattern in COVERING_PATTERNS:
            self.marker = " "
        else:
            self.marker = None

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        text = self.normalise(check_text(text))
        pretokens = []
        for start, end in self._spans(text):
            if not self.byte_level:
                pretokens.append(Pretoken(text[start:end], tuple(range(start, end))))
                continue
            chars, sources = [], []
            for i in range(start, end):
                encoded = text_to_byte_chars(text[i])
                chars.append(encoded)
                sources.extend([i] * len(encoded))
            pretokens.append(Pretoken("".join(chars), tuple(sources)))
        return pretokens

    def pretokenise(self, text: str) -> list[str]:
        """The pretoken strings alone (no per-character sources: the hot path of segmentation)."""
        pieces = self.pieces(text)
        return [text_to_byte_chars(p) for p in pieces] if self.byte_level else pieces

    def pieces(self, text: str) -> list[str]:
        text = self.normalise(check_text(text))
        if self.unmatched == "drop" and self._regex.groups == 0:
            return [p for p in self._regex.findall(text) if p]
        return [text[a:b] for a, b in self._spans(text)]

    def encode_piece(self, piece: str) -> str:
        return text_to_byte_chars(piece) if self.byte_level else piece

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans, done = [], 0
        for match in self._regex.finditer(text):
            start, end = match.span()
            if start == end:
                continue
            if self.unmatched == "keep" and start > done:
                spans.append((done, start))
            spans.append((start, end))
            done = end
        if self.unmatched == "keep" and done < len(text):
            spans.append((done, len(text)))
        return spans

    def decode(self, tokens: list[str]) -> str:
        """Concatenation (bytes decoded when ``byte_level``); dropped characters stay lost."""
        joined = "".join(tokens)
        return byte_chars_to_text(joined) if self.byte_level else joined

    def display(self, token: str) -> str:
        return display_byte_chars(token) if self.byte_level else escape_controls(token)

    def to_spec(self) -> dict:
        return {
            "kind": self.kind,
            "pattern": self.pattern,
            "byte_level": self.byte_level,
            "unmatched": self.unmatched,
            "normaliser": list(self.normaliser),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> RegexSplit:
        return cls(**spec_arguments(spec, cls.kind, ("pattern", "byte_level", "unmatched", "normaliser")))
