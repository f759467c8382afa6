"""Merges: the vertices (i, (x_1, ..., x_n)) of the merge graph.

[knockout §3.1-3.2]: a merge has a priority (its rank) and two *or more* parts (a tuple merge when
n > 2). Ranks may be fractional (ReBPE reification inserts merges at rank r - ε, [rebpe §3.2,
Alg. 2]). Several merges may share a rank when they form the same type: tiktoken and
SentencePiece-BPE rank a pair by the type it forms, so every split of a type into two types fires
at that type's rank, leftmost first.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Collection, Iterable
from itertools import repeat
from operator import attrgetter

from core.errors import InputError

Rank = int | float
#: the most merges a loaded tokeniser may have: Gemma 3 has 514,906 and o200k's ranks give 446,189;
#: each costs a few hundred bytes (``bench/bench_loader_memory.py``)
MAX_MERGES = 2_000_000


class Merge(namedtuple("_MergeFields", "rank parts result is_tuple")):
    """A merge (rank, (p_1, ..., p_n)) -> p_1 ... p_n; a *tuple merge* when n > 2 (§3.2).

    ``shared`` (loaders of large files): a table of strings whose equal entries the parts and the
    result become (added when absent), so a file's merges hold one copy of each token instead of
    one per mention.

    A named tuple (rank, parts, result, is_tuple), immutable: a real tokeniser has up to half a
    million merges, and a tuple is built, hashed and compared in C (:func:`binary_merges` makes
    a file's merges without a Python call each). ``result`` and ``is_tuple`` follow from
    ``parts``, so two merges are equal exactly when their ranks and parts are.
    """

    __slots__ = ()

    def __new__(cls, rank: Rank, parts: tuple[str, ...], shared: dict[str, str] | None = None) -> Merge:
        result = "".join(parts)
        if shared is not None:
            keep = shared.setdefault
            parts = tuple(map(keep, parts, parts))
            result = keep(result, result)
        return _new_tuple(cls, (rank, parts, result, len(parts) > 2))

    def __reduce__(self):
        return (Merge, (self.rank, self.parts))

    def __repr__(self) -> str:
        return f"Merge(rank={self.rank!r}, parts={self.parts!r})"

    def __str__(self) -> str:
        return " ".join(self.parts)


_new_tuple = tuple.__new__


def binary_merges(ranks: Iterable[Rank], pairs: Iterable[tuple[str, str]], results: Iterable[str]) -> list[Merge]:
    """Binary merges from parallel ranks, pairs and results (each result the pair joined, as the
    caller guarantees), built in C: loading a file's hundreds of thousands of merges."""
    return list(map(_new_tuple, repeat(Merge), zip(ranks, pairs, results, repeat(False))))


def check_merge_count(count: int, source: str | None = None, line: int | None = None) -> None:
    """InputError when a tokeniser would have more than :data:`MAX_MERGES` merges."""
    if count > MAX_MERGES:
        raise InputError(
            f"more than {MAX_MERGES:,} merges, the limit (the largest real tokenisers have about "
            "500,000; each merge costs memory)",
            source,
            line,
        )


def merges_of_splits(ranked: Iterable[tuple[str, Rank]], parts: Collection[str]) -> list[Merge]:
    """Every split of each ranked token into two strings of ``parts``, as a merge at the token's
    rank, in rank order: tiktoken and SentencePiece-BPE join an adjacent pair when its
    concatenation is a token, ranked by that token. InputError beyond :data:`MAX_MERGES`.

    The merges hold the strings of ``parts`` (one copy of each token, see :class:`Merge`) and are
    made without joining each pair again: each result is the token split."""
    shared = dict(zip(parts, parts, strict=True))
    canonical = shared.get
    ranks: list[Rank] = []
    pairs: list[tuple[str, str]] = []
    results: list[str] = []
    for token, rank in ranked:
        result = canonical(token, token)
        for k in range(1, len(token)):
            left = canonical(token[:k])
            if left is not None:
                right = canonical(token[k:])
                if right is not None:
                    ranks.append(rank)
                    pairs.append((left, right))
                    results.append(result)
        if len(pairs) > MAX_MERGES:
            check_merge_count(len(pairs))
    merges = binary_merges(ranks, pairs, results)
    merges.sort(key=attrgetter("rank"))  # a no-op pass when the tokens came in rank order
    return merges
