"""Merges: the vertices (i, (x_1, ..., x_n)) of the merge graph.

[knockout §3.1-3.2]: a merge has a priority (its rank) and two *or more* parts (a tuple merge when
n > 2). Ranks may be fractional (ReBPE reification inserts merges at rank r - ε, [rebpe §3.2,
Alg. 2]). Several merges may share a rank when they form the same type: tiktoken and
SentencePiece-BPE rank a pair by the type it forms, so every split of a type into two types fires
at that type's rank, leftmost first.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from operator import attrgetter

from core.errors import InputError

Rank = int | float
#: the most merges a loaded tokeniser may have: Gemma 3 has 514,906 and o200k's ranks give 446,189;
#: each costs a few hundred bytes (``bench/bench_loader_memory.py``)
MAX_MERGES = 2_000_000


@dataclass(frozen=True, slots=True, init=False)
class Merge:
    """A merge (rank, (p_1, ..., p_n)) -> p_1 ... p_n; a *tuple merge* when n > 2 (§3.2).

    ``shared`` (loaders of large files): a table of strings whose equal entries the parts and the
    result become (added when absent), so a file's merges hold one copy of each token instead of
    one per mention. Slots, not a ``__dict__``: a real tokeniser has up to half a million merges.
    """

    rank: Rank
    parts: tuple[str, ...]
    # Derived once: read millions of times on hot paths (tracing, blame, engine tables).
    result: str = field(init=False, repr=False, compare=False)
    is_tuple: bool = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)  # set on first use

    def __init__(self, rank: Rank, parts: tuple[str, ...], shared: dict[str, str] | None = None) -> None:
        result = "".join(parts)
        if shared is not None:
            keep = shared.setdefault
            parts = tuple(map(keep, parts, parts))
            result = keep(result, result)
        _set_rank(self, rank)
        _set_parts(self, parts)
        _set_result(self, result)
        _set_is_tuple(self, len(parts) > 2)

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


# The slots' own setters: a frozen class refuses ``self.x = ...``, and these are quicker than
# ``object.__setattr__`` (a tokeniser file makes hundreds of thousands of merges).
_set_rank, _set_parts, _set_result, _set_is_tuple = (
    getattr(Merge, name).__set__ for name in ("rank", "parts", "result", "is_tuple")
)


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
    made without :meth:`Merge.__init__`'s joining: each result is the token split."""
    shared = dict(zip(parts, parts, strict=True))
    canonical = shared.get
    merges: list[Merge] = []
    add, new = merges.append, Merge.__new__
    for token, rank in ranked:
        result = canonical(token, token)
        for k in range(1, len(token)):
            left = canonical(token[:k])
            if left is not None:
                right = canonical(token[k:])
                if right is not None:
                    merge = new(Merge)
                    _set_rank(merge, rank)
                    _set_parts(merge, (left, right))
                    _set_result(merge, result)
                    _set_is_tuple(merge, False)
                    add(merge)
        if len(merges) > MAX_MERGES:
            check_merge_count(len(merges))
    merges.sort(key=attrgetter("rank"))  # a no-op pass when the tokens came in rank order
    return merges
