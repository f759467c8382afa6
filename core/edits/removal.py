"""Remove chosen types from a tokeniser: a list, or the least frequent on a corpus.

The types then go by :func:`core.edits.knockout.knock_out` ([knockout Alg. 1]: their merges go
and the merges using them absorb their parts, as tuple merges) or, with ``cascade``, together
with every type built on them ([knockout §3.3], the naive removal). :func:`least_frequent_types`
is TrimmedBPE's criterion ([rebpe §2.1]: a type's token frequency in the segmented corpus, types
that never surface at 0) with the threshold set by the size wanted; unlike TrimmedBPE, which
keeps the merges and decomposes trimmed tokens at run time (no tokenizer.json can do that), the
merges themselves go, so the result is a BPE tokeniser HF can load (after
:mod:`core.edits.finishing`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from core.bpe.model import BTETokeniser
from core.counting.token_frequencies import token_frequencies
from core.errors import InputError, excerpt


def removable(tokeniser: BTETokeniser) -> list[str]:
    """The types a removal may take: those merges form (the alphabet and specials stay)."""
    alphabet = set(tokeniser.alphabet)
    return [t for t in tokeniser.produced_by if t not in alphabet]


def check_removable(tokeniser: BTETokeniser, types: Iterable[str], source: str = "<types>") -> list[str]:
    """``types`` (duplicates dropped) when every one is a type merges form; InputError naming the
    first that is not, and its line in ``source``."""
    formed = tokeniser.produced_by
    types = list(types)
    alphabet = set(tokeniser.alphabet)
    for line, type_ in enumerate(types, 1):
        if type_ not in tokeniser.types:
            raise InputError(f"{excerpt(type_, 40)} is not a type of {tokeniser.name!r}", source, line)
        if type_ not in formed or type_ in alphabet:
            raise InputError(
                f"{excerpt(type_, 40)} is an alphabet type (no merge forms it); only types merges form can be removed",
                source,
                line,
            )
    return list(dict.fromkeys(types))


def least_frequent_types(tokeniser: BTETokeniser, word_counts: Mapping[str, int], size: int) -> list[str]:
    """The types to remove so that |V| (specials included) falls to ``size``: the formed types of
    lowest token frequency on ``word_counts``, ties broken by latest merge first."""
    if size < 0:
        raise InputError(f"the size must be >= 0, got {size}")
    counts = token_frequencies(tokeniser, word_counts)
    candidates = removable(tokeniser)
    rank = {t: tokeniser.produced_by[t][0].rank for t in candidates}
    candidates.sort(key=lambda t: (counts.get(t, 0), -rank[t]))
    return candidates[: max(0, tokeniser.vocab_size - size)]
