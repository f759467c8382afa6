"""HF ``WhitespaceSplit`` pre-tokeniser: pretokens are the maximal runs of non-whitespace.

The word-level splitting that word-frequency based BPE training starts from (cf. [rebpe
App. B.1], "Split ... on whitespace without keeping the whitespace characters"). Whitespace is
the Unicode White_Space property, as Rust's ``char::is_whitespace`` used by HF (so U+001C..U+001F
and U+200B are *not* whitespace, unlike Python's ``str.split``). No marker: word boundaries are
not recoverable from the tokens, so :meth:`decode` just concatenates.
"""

from __future__ import annotations

import regex

from core.pipeline.base import Pretoken
from core.pipeline.normalisation import NormalisedPretokeniser, check_normaliser
from core.pipeline.spec_checks import check_text, spec_arguments
from core.pipeline.visible import escape_controls

#: One run of non-whitespace characters (Unicode White_Space property).
NON_WHITESPACE_RUN = regex.compile(r"\P{White_Space}+")


class WhitespaceSplit(NormalisedPretokeniser):
    kind = "whitespace_split"
    marker = None

    def __init__(self, normaliser: tuple[str, ...] = ()):
        self.normaliser = check_normaliser(normaliser)

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        text = self.normalise(check_text(text))
        return [Pretoken(m.group(), tuple(range(*m.span()))) for m in NON_WHITESPACE_RUN.finditer(text)]

    def display(self, token: str) -> str:
        return escape_controls(token)

    def to_spec(self) -> dict:
        return {"kind": self.kind, "normaliser": list(self.normaliser)}

    @classmethod
    def from_spec(cls, spec: dict) -> WhitespaceSplit:
        return cls(**spec_arguments(spec, cls.kind, ("normaliser",)))
