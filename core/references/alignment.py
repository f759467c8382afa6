"""Mapping a word's character boundaries onto a tokeniser's pretoken characters.

A reference word is tokenised as in running text (the pre-tokeniser applied to ``" " + word``),
so its pretokens carry a word-start marker (``Ġ``, ``▁``, ``_``), possibly a capital marker
(``↑``), and in byte-level tokenisers several characters per non-ASCII letter. Morphological
evaluation ([knockout §4.1]) and blame (§3.4) need, for every boundary between two
pretoken characters, the split position in the word it stands for — or none, when the boundary
lies inside one letter's bytes or next to a marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from core.errors import InputError

WORD_OFFSET = 1  # the word starts after the space of " " + word


@dataclass(frozen=True)
class AlignedPretoken:
    """A pretoken and, for each internal boundary k (between characters k and k+1), the word
    split position it represents (1..len(word)-1) or None."""

    text: str
    boundary_positions: tuple[int | None, ...]


@dataclass(frozen=True)
class AlignedWord:
    word: str
    pretokens: tuple[AlignedPretoken, ...]
    pretoken_splits: frozenset[int]  # word positions where one pretoken ends and the next begins

    def predicted_splits(self, segmentations: Sequence[tuple[str, ...]]) -> set[int]:
        """Split positions of the word given one token sequence per pretoken.

        Tokens are placed on the pretoken's characters; one that does not continue the text (the
        characters before it were dropped as unknown) is placed where it next occurs, and a token
        that does not occur (an unk token or byte token standing for unknown characters) ends the
        pretoken's splits, as what follows it cannot be placed."""
        splits = set(self.pretoken_splits)
        for pretoken, tokens in zip(self.pretokens, segmentations, strict=True):
            text, offset = pretoken.text, 0
            for token in tokens[:-1]:
                if not text.startswith(token, offset):
                    offset = text.find(token, offset)
                    if offset < 0:
                        break
                offset += len(token)
                if offset >= len(text):
                    break
                position = pretoken.boundary_positions[offset - 1]
                if position is not None:
                    splits.add(position)
        return splits


def align_word(pretokeniser, word: str) -> AlignedWord:
    """Pre-tokenise ``" " + word`` and map every pretoken boundary back to the word."""
    text = " " + word
    if not pretokeniser.sources_in_original and len(pretokeniser.normalise(text)) != len(text):
        raise InputError(f"normalisation changes the length of {word!r}; its boundaries cannot be aligned")
    n = len(word)

    def position(source: int) -> int | None:
        p = source - WORD_OFFSET
        return p if 0 < p < n else None

    # the split each source character stands for when its pretoken's characters are its own
    # characters in a row (the usual case, read off by one slice): none before the word's first
    split_before: list[int | None] = [None] * (WORD_OFFSET + 1) + list(range(1, n))
    aligned: list[AlignedPretoken] = []
    splits: set[int] = set()
    last_source = -1
    for pretoken in pretokeniser.pretokenise_with_sources(text):
        sources = pretoken.sources
        if sources and sources[0] >= 0 and sources == tuple(range(sources[0], sources[-1] + 1)):
            first = sources[0]
            boundaries: tuple[int | None, ...] = tuple(split_before[first + 1 : sources[-1] + 1])
        else:
            first = next((s for s in sources if s >= 0), -1)
            # boundary k lies between characters k and k+1: a word position when both come from the
            # word and from different characters of it
            boundaries = tuple(
                b - WORD_OFFSET if a >= 0 and a != b and WORD_OFFSET < b < n + WORD_OFFSET else None
                for a, b in pairwise(sources)
            )
        if aligned and first >= 0 and first != last_source and (split := position(first)) is not None:
            splits.add(split)
        aligned.append(AlignedPretoken(pretoken.text, boundaries))
        last_source = next((s for s in reversed(sources) if s >= 0), last_source)
    return AlignedWord(word, tuple(aligned), frozenset(splits))
