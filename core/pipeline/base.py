"""The one interface every pre-tokeniser implements.

A pre-tokeniser turns running text into *pretokens*, strings over the tokeniser's own alphabet
(so a byte-level pre-tokeniser already returns GPT-2 byte characters such as ``Ġ``, a Metaspace
one already carries ``▁``). BPE then runs inside each pretoken independently.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True)
class Pretoken:
    """One pretoken and where each of its characters came from.

    ``sources[j]`` is the index, in the *normalised* input text, of the character that produced
    character ``j`` of ``text``; ``-1`` for characters the pre-tokeniser inserted (word-start
    markers, capital markers). Several pretoken characters may share one source (the UTF-8
    bytes of one character in a byte-level tokeniser).
    """

    text: str
    sources: tuple[int, ...]
    #: an added token (HF ``added_tokens``, SentencePiece user-defined/control pieces) matched in
    #: the text: the model emits it whole, as one token, and never segments it.
    added: bool = False


class Pretokeniser(ABC):
    """Normaliser + pre-tokeniser, as in the HF `tokenizers` pipeline."""

    #: Short stable identifier used in specs and the UI ("bytelevel", "metaspace", ...).
    kind: str = ""
    #: The word-start marker as it appears in pretokens ("Ġ", "▁", "_"), or None.
    marker: str | None = None
    #: True when ``Pretoken.sources`` index the text as given (before normalisation) rather than
    #: ``normalise(text)``; such pipelines may change the text's length.
    sources_in_original: bool = False
    #: True when some pretokens may be added tokens (``Pretoken.added``), which the model emits whole.
    emits_added_tokens: bool = False
    #: The regexes from a file or the command line that are not known patterns, and so run with a
    #: time limit (:class:`core.pipeline.limited_regex.LimitedPattern`).
    limited_patterns: tuple = ()

    def normalise(self, text: str) -> str:
        """Normalisation applied before splitting (identity unless overridden)."""
        return text

    @abstractmethod
    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        """Pretokens of ``normalise(text)`` with the source index of every character."""

    def pretokenise(self, text: str) -> list[str]:
        """Just the pretoken strings."""
        return [p.text for p in self.pretokenise_with_sources(text)]

    def may_hold_added_tokens(self, text: str) -> bool:
        """False when no added token can occur in ``text`` (then ``pretokenise`` says it all)."""
        return self.emits_added_tokens

    def pretokenise_marked(self, text: str) -> list[tuple[str, bool]]:
        """Pretoken strings, each with whether it is an added token (see ``emits_added_tokens``)."""
        if not self.emits_added_tokens:
            return [(p, False) for p in self.pretokenise(text)]
        return [(p.text, p.added) for p in self.pretokenise_with_sources(text)]

    def pieces(self, text: str) -> list[str]:
        """The pretokens of ``text`` before any mapping to the tokeniser's alphabet: ``pretokenise``
        is :meth:`encode_piece` of each. Counting a large corpus counts pieces and maps each
        distinct one once."""
        return self.pretokenise(text)

    def encode_piece(self, piece: str) -> str:
        """A piece of :meth:`pieces` in the tokeniser's alphabet (unchanged unless byte level)."""
        return piece

    def short_description(self) -> str:
        """A few words naming the pre-tokeniser (for legends and captions)."""
        return self.kind

    def decode(self, tokens: list[str]) -> str:
        """Surface text of a token sequence (inverse of the character mapping and markers)."""
        return "".join(tokens)

    def display(self, token: str) -> str:
        """A token as a person should read it (bytes decoded where possible, markers kept)."""
        return token

    @abstractmethod
    def to_spec(self) -> dict:
        """JSON-serialisable description; ``from_spec(to_spec())`` rebuilds an equal object."""

    @classmethod
    @abstractmethod
    def from_spec(cls, spec: dict) -> Pretokeniser:
        """The pre-tokeniser ``spec`` (from :meth:`to_spec`) describes; InputError for a bad one."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pretokeniser) and self.to_spec() == other.to_spec()

    def __hash__(self) -> int:
        return hash(repr(sorted(self.to_spec().items())))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_spec().items() if k != "kind")
        return f"{type(self).__name__}({args})"
