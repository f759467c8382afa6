"""Pretoken counts of texts, as a tokeniser's pre-tokeniser cuts them: the one counter behind
training corpora (whole or chunk by chunk), word counts and how often merges fire on a text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from core.errors import InputError
from core.pipeline.base import Pretokeniser


class _Encoded(dict):
    """piece -> pretoken (:meth:`Pretokeniser.encode_piece` once per distinct piece)."""

    def __init__(self, encode: Callable[[str], str]):
        super().__init__()
        self.encode = encode

    def __missing__(self, piece: str) -> str:
        encoded = self[piece] = self.encode(piece)
        return encoded


class PretokenCounter:
    """Counts the pretokens of texts as ``pretokeniser.pretokenise`` gives them, empty ones left out.

    The pieces of a text (:meth:`Pretokeniser.pieces`) are counted, and each distinct piece is
    mapped to the tokeniser's alphabet once, when the counts are read: most pieces of running text
    repeat, so this is the hot path of counting a corpus. Counts are in order of first appearance.
    """

    def __init__(self, pretokeniser: Pretokeniser):
        self._split = pretokeniser.pieces
        self._pieces: Counter[str] = Counter()
        self._pretokens: Counter[str] = Counter()
        #: piece -> pretoken
        self.encoded = _Encoded(pretokeniser.encode_piece)

    def add(self, text: str, times: int = 1) -> list[str]:
        """Count the pretokens of ``text``, ``times`` times; returns its pieces."""
        found = self._split(text)
        if times == 1:
            self._pieces.update(found)
        else:
            pieces = self._pieces
            for piece in found:
                pieces[piece] += times
        return found

    def add_pretokens(self, pretokens: Iterable[str]) -> None:
        """Count pretokens already cut from a text (e.g. with its added tokens left out)."""
        self._pretokens.update(p for p in pretokens if p)

    def pretokens(self, pieces: Iterable[str]) -> tuple[str, ...]:
        """The pretokens of ``pieces`` (as :meth:`add` returns them), empty ones left out."""
        return tuple(filter(None, map(self.encoded.__getitem__, pieces)))

    def counts(self) -> Counter[str]:
        """pretoken -> how often it was counted."""
        counts: Counter[str] = Counter()
        encoded = self.encoded
        for piece, n in self._pieces.items():
            pretoken = encoded[piece]
            if pretoken:
                counts[pretoken] += n
        counts.update(self._pretokens)
        return counts


def count_pretokens(texts: Iterable[str] | str, pretokeniser: Pretokeniser) -> Counter[str]:
    """Pretoken counts over ``texts`` (one string counts as one text), empty pretokens left out."""
    if isinstance(texts, str):
        texts = (texts,)
    counter = PretokenCounter(pretokeniser)
    for text in texts:
        if not isinstance(text, str):
            raise InputError(f"texts must be strings, got {type(text).__name__}")
        counter.add(text)
    return counter.counts()
