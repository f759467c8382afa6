"""HF ``Metaspace`` pre-tokeniser: a visible word-start marker over a character alphabet.

This is the SentencePiece-style ``▁`` convention used by the BPE variants in the papers when they
work on characters rather than bytes; with ``replacement="Ġ"`` or ``"_"`` it also represents those
word-start markers (the ``_`` prefix of [rebpe App. B.1] step 6, without the rest of that
pipeline). Semantics follow HF ``tokenizers.pre_tokenizers.Metaspace``:

1. every space U+0020 (only that character) becomes ``replacement``;
2. ``prepend_scheme`` "always" or "first" puts ``replacement`` (source -1) in front of non-empty
   text that does not already start with it ("first" differs from "always" only for later
   splits inside an HF Sequence, which a stand-alone pre-tokeniser never sees); "never" does not;
3. with ``split`` the text is cut before every ``replacement`` (HF ``MergedWithNext``), so each
   pretoken starts with the marker except possibly the first; without it, one pretoken.
"""

from __future__ import annotations

from itertools import pairwise

from core.options import check_bool, check_choice
from core.pipeline.base import Pretoken
from core.pipeline.normalisation import NormalisedPretokeniser, check_normaliser
from core.pipeline.spec_checks import check_marker, check_text, spec_arguments
from core.pipeline.visible import escape_controls

PREPEND_SCHEMES = ("always", "first", "never")


class Metaspace(NormalisedPretokeniser):
    kind = "metaspace"

    def __init__(
        self,
        replacement: str = "▁",
        prepend_scheme: str = "always",
        split: bool = True,
        normaliser: tuple[str, ...] = (),
    ):
        self.replacement = check_marker("replacement", replacement, single_char=True)
        self.prepend_scheme = check_choice("prepend_scheme", prepend_scheme, PREPEND_SCHEMES)
        self.split = check_bool("split", split)
        self.normaliser = check_normaliser(normaliser)
        self.marker = self.replacement

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        text = self.normalise(check_text(text))
        if not text:
            return []
        r = self.replacement
        chars = [r if c == " " else c for c in text]
        sources = list(range(len(text)))
        if self.prepend_scheme != "never" and chars[0] != r:
            chars.insert(0, r)
            sources.insert(0, -1)
        if not self.split:
            return [Pretoken("".join(chars), tuple(sources))]
        cuts = [0] + [i for i in range(1, len(chars)) if chars[i] == r] + [len(chars)]
        return [Pretoken("".join(chars[a:b]), tuple(sources[a:b])) for a, b in pairwise(cuts)]

    def pretokenise(self, text: str) -> list[str]:
        """As :meth:`pretokenise_with_sources`, without the sources (a word at a time: the fast
        path of a pipeline such as Gemma 3's)."""
        if self.split:
            return super().pretokenise(text)
        text = self.normalise(check_text(text))
        if not text:
            return []
        r = self.replacement
        text = text.replace(" ", r)
        return [text if self.prepend_scheme == "never" or text[0] == r else r + text]

    def decode(self, tokens: list[str]) -> str:
        """HF Metaspace decoder: markers become spaces; unless the scheme is "never", a marker
        at the start of the first token is dropped."""
        parts = []
        for i, token in enumerate(tokens):
            if i == 0 and self.prepend_scheme != "never" and token.startswith(self.replacement):
                token = token[1:]
            parts.append(token.replace(self.replacement, " "))
        return "".join(parts)

    def display(self, token: str) -> str:
        return escape_controls(token)

    def to_spec(self) -> dict:
        return {
            "kind": self.kind,
            "replacement": self.replacement,
            "prepend_scheme": self.prepend_scheme,
            "split": self.split,
            "normaliser": list(self.normaliser),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> Metaspace:
        return cls(**spec_arguments(spec, cls.kind, ("replacement", "prepend_scheme", "split", "normaliser")))
