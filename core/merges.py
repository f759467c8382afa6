"""Merges: the vertices (i, (x_1, ..., x_n)) of the merge graph.

bpe-knockout.txt §3.1-3.2: a merge has a priority (its rank) and two *or more* parts (a tuple merge when
n > 2). Ranks may be fractional (ReBPE reification inserts merges at rank r - ε, rebpe.txt §3.2,
Alg. 2). Several merges may share a rank when they form the same type: tiktoken and
SentencePiece-BPE rank a pair by the type it forms, so every split of a type into two types fires
at that type's rank, leftmost first.
"""
from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from operator import attrgetter

Rank = int | float


@dataclass(frozen=True)
class Merge:
    """A merge (rank, (p_1, ..., p_n)) -> p_1 ... p_n; a *tuple merge* when n > 2 (§3.2)."""

    rank: Rank
    parts: tuple[str, ...]
    # Derived once: read millions of times on hot paths (tracing, blame, engine tables).
    result: str = field(init=False, repr=False, compare=False)
    is_tuple: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "result", "".join(self.parts))
        object.__setattr__(self, "is_tuple", len(self.parts) > 2)

    def __hash__(self) -> int:
        # Merges are dictionary keys on hot paths (blame, indexes); hash the fields once.
        try:
            return self._hash
        except AttributeError:
            value = hash((self.rank, self.parts))
            object.__setattr__(self, "_hash", value)
            return value

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, Merge) and self.rank == other.rank and self.parts == other.parts

    def __reduce__(self):
        # The cached hash depends on the process's string-hash seed: never pickle it.
        return (Merge, (self.rank, self.parts))

    def __str__(self) -> str:
        return " ".join(self.parts)


def merges_of_splits(ranked: Iterable[tuple[str, Rank]], parts: Container[str]) -> list[Merge]:
    """Every split of each ranked token into two strings of ``parts``, as a merge at the token's
    rank, in rank order: tiktoken and SentencePiece-BPE join an adjacent pair when its
    concatenation is a token, ranked by that token."""
    ranks: list[Rank] = []
    pairs: list[tuple[str, str]] = []
    add_rank, add_pair = ranks.append, pairs.append
    for token, rank in ranked:
        for k in range(1, len(token)):
            left = token[:k]
            if left in parts:
                right = token[k:]
                if right in parts:
                    add_rank(rank)
                    add_pair((left, right))
    merges = list(map(Merge, ranks, pairs))
    merges.sort(key=attrgetter("rank"))  # a no-op pass when the tokens came in rank order
    return merges
