"""Knockout: remove types from the merge graph without losing their descendants.

bpe-knockout.txt Alg. 1 (lines 1-16): the merge m_old forming type t is removed, t leaves V, and
every merge that used t absorbs m_old's parts in t's place — becoming a tuple merge that keeps its
own rank. Knocking out several types is done one after the other with the parts as they are at
that moment, which makes the result independent of the order (footnote 5).
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Iterable

from core.errors import InputError
from core.model import BTETokeniser, Merge, Rank


@dataclass(frozen=True)
class KnockoutEdit:
    """What knocking out a set of types did to the merge list."""

    removed: tuple[Merge, ...]                 # the merges of the knocked-out types, as they were before
    rewired: tuple[tuple[Merge, Merge], ...]   # (merge before, merge after) for every merge that absorbed parts


def knock_out(tokeniser: BTETokeniser, types: Iterable[str], *, cascade: bool = False) -> tuple[BTETokeniser, KnockoutEdit]:
    """Alg. 1 applied to each type in turn; alphabet types (no forming merge) are left alone.

    With ``cascade`` (the authors' NONE_CASCADE mode, the naive removal §3.3 warns about) no
    tuple merges are made: every type built on a removed type is removed with it.
    """
    types = list(dict.fromkeys(types))
    if not types:
        return tokeniser, KnockoutEdit((), ())
    if cascade:
        return _knock_out_cascading(tokeniser, types)
    parts_of: dict[str, tuple[str, ...]] = {m.result: m.parts for m in tokeniser.merges}
    rank_of: dict[str, Rank] = {m.result: m.rank for m in tokeniser.merges}
    if len(parts_of) != len(tokeniser.merges):
        raise InputError("knockout needs every type formed by exactly one merge; see check_invariants()")
    users: dict[str, set[str]] = {t: set() for t in types}  # only the knocked-out types' users are asked for
    for result, parts in parts_of.items():
        for part in parts:
            if part in users:
                users[part].add(result)
    original = {m.result: m for m in tokeniser.merges}
    removed = []
    for type_ in types:
        if type_ not in parts_of:
            continue
        old_parts = parts_of.pop(type_)  # Alg. 1 line 4-7 (parts as rewired by earlier knockouts)
        rank_of.pop(type_)
        removed.append(original[type_])
        for part in old_parts:
            if part in users:
                users[part].discard(type_)
        for child in users.pop(type_):  # lines 8-12
            expanded = []
            for part in parts_of[child]:
                expanded.extend(old_parts if part == type_ else (part,))
            parts_of[child] = tuple(expanded)
            for part in old_parts:
                if part in users:
                    users[part].add(child)
    if not removed:
        return tokeniser, KnockoutEdit((), ())
    new_merges = [original[t] if original[t].parts == parts else Merge(rank_of[t], parts) for t, parts in parts_of.items()]
    rewired = tuple((original[m.result], m) for m in sorted((m for m in new_merges if original[m.result] is not m),
                                                              key=attrgetter("rank")))
    return tokeniser.with_merges(new_merges), KnockoutEdit(tuple(removed), rewired)


def _knock_out_cascading(tokeniser: BTETokeniser, types: Iterable[str]) -> tuple[BTETokeniser, KnockoutEdit]:
    doomed: set[str] = set()
    stack = [t for t in types if tokeniser.merge_of(t) is not None]
    while stack:
        type_ = stack.pop()
        if type_ in doomed:
            continue
        doomed.add(type_)
        stack.extend(m.result for m in tokeniser.used_by.get(type_, ()))
    removed = tuple(m for m in tokeniser.merges if m.result in doomed)
    if not removed:
        return tokeniser, KnockoutEdit((), ())
    return tokeniser.with_merges([m for m in tokeniser.merges if m.result not in doomed]), KnockoutEdit(removed, ())
