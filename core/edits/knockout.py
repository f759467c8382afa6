"""Knockout: remove types (or single merges) from the merge graph without losing their descendants.

[knockout Alg. 1] (lines 1-16): the merge m_old forming type t is removed, t leaves V, and
every merge that used t absorbs m_old's parts in t's place — becoming a tuple merge that keeps its
own rank. Knocking out several types is done one after the other with the parts as they are at
that moment, which makes the result independent of the order (footnote 5).

Generalisation to several merges per type (tiktoken / SentencePiece conversions, where every
split of a type into two types is a merge):

- knocking out a *type* removes all of its merges, and the merges using it absorb the parts of
  its *primary* merge (the one that fires on the type's own string, ``BTETokeniser.primary_merge``;
  as rewired by earlier knockouts of the batch);
- knocking out a single *merge* (``knock_out_merges``) removes only that merge; its type stays in V
  while another of its merges remains, and leaves V (as above) when none does;
- two merges of a type rewired to the same parts collapse into the lower-ranked one
  (``KnockoutEdit.collapsed``).

With one merge per type the primary merge is m_old, no merge is ever collapsed and both kinds of
knockout are Alg. 1 exactly (tests/core/edits/test_knockout_multi_merge.py checks this on the Dutch 40k
tokeniser and the App. A scenarios).

Surviving types keep their ids (``type_ids``); the ids of types that left V are dropped (and given
back if an edit re-creates the type), and types that edits add (reification, annealing) get fresh
ids after the largest id the tokeniser ever had (:func:`derive`), so an edited tokeniser stays
backwards compatible with the model's embeddings.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from core.bpe.model import BTETokeniser, Merge
from core.options import check_bool, check_instances
from core.tokeniser import require

# The largest id a tokeniser (or any tokeniser it was derived from) ever gave: fresh ids go after it.
# Shared by every thread; each entry is written once, by the derive() that made its key.
_ID_CEILING: weakref.WeakKeyDictionary[BTETokeniser, int] = weakref.WeakKeyDictionary()
# The ids of the types that left V on the way to a tokeniser (derive() gives a returning type its
# old id back); written once per key, like _ID_CEILING.
_RETIRED: weakref.WeakKeyDictionary[BTETokeniser, dict[str, int]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class KnockoutEdit:
    """What knocking out a set of types did to the merge list."""

    removed: tuple[Merge, ...]  # the merges knocked out, as they were before
    rewired: tuple[tuple[Merge, Merge], ...]  # (merge before, merge after) for every merge that absorbed parts
    collapsed: tuple[Merge, ...] = ()  # merges (before) whose rewired parts equalled a lower-ranked merge's
    types_removed: tuple[str, ...] = ()  # types that left V


def retired_ids(tokeniser: BTETokeniser) -> dict[str, int]:
    """The types that left V on the way to ``tokeniser`` (through :func:`derive`), with their ids."""
    return dict(_RETIRED.get(tokeniser, {}))


def id_lineage(tokeniser: BTETokeniser) -> dict[str, Any] | None:
    """What :func:`derive` remembers about ``tokeniser``'s ids (the largest id ever given, the ids
    of the types that left V) as JSON, for a run archive; None for a tokeniser no edit made."""
    if tokeniser not in _ID_CEILING:
        return None
    return {"id_ceiling": _ID_CEILING[tokeniser], "retired": dict(_RETIRED.get(tokeniser, {}))}


def restore_id_lineage(before: BTETokeniser, after: BTETokeniser, saved: Mapping[str, Any] | None = None) -> None:
    """Remember ``after`` (rebuilt from ``before`` some other way than :func:`derive`, e.g. read
    back from an archive) as derive() would have: ``saved`` (:func:`id_lineage`) when given, else
    what ``before``'s lineage and the two tokenisers' ids imply."""
    if after is before or after in _ID_CEILING:
        return
    if saved is not None:
        _ID_CEILING[after] = int(saved["id_ceiling"])
        _RETIRED[after] = {str(t): int(i) for t, i in saved["retired"].items()}
        return
    old = before.type_ids if before.type_ids is not None else before.token_ids()
    new = after.type_ids if after.type_ids is not None else after.token_ids()
    ceiling = _ID_CEILING.get(before, max(old.values(), default=-1))
    _ID_CEILING[after] = max(ceiling, max(new.values(), default=-1))
    retired = {**_RETIRED.get(before, {}), **{t: i for t, i in old.items() if t not in new}}
    _RETIRED[after] = {t: i for t, i in retired.items() if t not in new}


def derive(
    tokeniser: BTETokeniser,
    merges: Iterable[Merge],
    *,
    alphabet: Iterable[str] | None = None,
) -> BTETokeniser:
    """``tokeniser.with_merges(merges)`` with ids carried through the edit: surviving types keep
    theirs, types that left V lose theirs, a type that left V on the way here and comes back gets
    its old id again, and new types get fresh ids after the largest id ever used.
    A tokeniser without loaded ids has the ids ``token_ids()`` implies; they are kept the same way."""
    merges = sorted(merges, key=attrgetter("rank"))  # the order of new.merges: fresh ids follow it
    ids = tokeniser.type_ids if tokeniser.type_ids is not None else tokeniser.token_ids()  # the implied ids
    ceiling = _ID_CEILING.get(tokeniser)
    if ceiling is None:
        ceiling = max(ids.values(), default=-1)
    old_types = tokeniser.types
    alphabet = tokeniser.alphabet if alphabet is None else tuple(alphabet)
    new_types = frozenset(alphabet).union(m.result for m in merges)
    carried = {t: i for t, i in ids.items() if t in new_types or t not in old_types}
    retired = {**_RETIRED.get(tokeniser, {}), **{t: i for t, i in ids.items() if t not in carried}}
    taken = set(carried.values())
    fresh = [m.result for m in merges if m.result not in carried]
    for type_ in dict.fromkeys(fresh):
        if type_ in retired and retired[type_] not in taken:
            carried[type_] = retired.pop(type_)
        else:
            ceiling += 1
            carried[type_] = ceiling
        taken.add(carried[type_])
    new = tokeniser.with_merges(merges, alphabet=alphabet, type_ids=carried)
    _ID_CEILING[new] = ceiling
    _RETIRED[new] = retired
    return new


def knock_out(
    tokeniser: BTETokeniser, types: Iterable[str], *, cascade: bool = False
) -> tuple[BTETokeniser, KnockoutEdit]:
    """Alg. 1 applied to each type in turn (all merges of the type go); alphabet types (no forming
    merge) are left alone.

    With ``cascade`` (the authors' NONE_CASCADE mode, the naive removal §3.3 warns about) no
    tuple merges are made: every type built on a removed type is removed with it. ``types`` is
    an iterable of types (a list; one string is refused, not read as its characters).
    """
    tokeniser = require(tokeniser, "merge_graph", "knock_out")
    check_bool("cascade", cascade)
    types = check_instances(types, str, "types", "types (str)")
    types = [t for t in dict.fromkeys(types) if tokeniser.produced_by.get(t) and t not in tokeniser.alphabet]
    if not types:
        return tokeniser, KnockoutEdit((), ())
    if cascade:
        return _knock_out_cascading(tokeniser, types)
    return _remove(tokeniser, types, ())


def knock_out_merges(
    tokeniser: BTETokeniser, merges: Iterable[Merge], *, cascade: bool = False
) -> tuple[BTETokeniser, KnockoutEdit]:
    """Remove single merges: a type leaves V (Alg. 1) only when all of its merges are removed;
    otherwise the type stays, formed by its remaining merges."""
    merges = list(dict.fromkeys(merges))
    produced_by = tokeniser.produced_by
    chosen: dict[str, set[Merge]] = {}
    for merge in merges:
        chosen.setdefault(merge.result, set()).add(merge)
    alphabet = set(tokeniser.alphabet)
    leaving = [t for t, ms in chosen.items() if t not in alphabet and set(produced_by.get(t, ())) <= ms]
    leaving_set = set(leaving)
    dropped = [m for m in merges if m.result not in leaving_set]
    if cascade:
        new, edit = _knock_out_cascading(tokeniser, leaving) if leaving else (tokeniser, KnockoutEdit((), ()))
        if not dropped:
            return new, edit
        gone, remaining = set(dropped), set(new.merges)
        kept = [m for m in new.merges if m not in gone]
        return derive(tokeniser, kept), KnockoutEdit(
            tuple(sorted([*edit.removed, *(m for m in dropped if m in remaining)], key=attrgetter("rank"))),
            (),
            (),
            edit.types_removed,
        )
    return _remove(tokeniser, leaving, dropped)


def _remove(tokeniser: BTETokeniser, types: list[str], dropped: Iterable[Merge]) -> tuple[BTETokeniser, KnockoutEdit]:
    """Remove the single merges ``dropped`` (their types stay) and knock out ``types`` (Alg. 1)."""
    originals = tokeniser.merges
    parts = [m.parts for m in originals]  # current parts, by position
    alive = [True] * len(originals)
    removed = _drop_merges(tokeniser, dropped, alive)
    removed += _absorb(tokeniser, types, parts, alive)
    if not removed:
        return tokeniser, KnockoutEdit((), ())
    new_merges, rewired, collapsed = _rebuild(originals, parts, alive)
    new = derive(tokeniser, new_merges)
    gone = tuple(t for t in dict.fromkeys(m.result for m in removed) if t not in new.types)
    return new, KnockoutEdit(tuple(removed), tuple(rewired), tuple(collapsed), gone)


def _drop_merges(tokeniser: BTETokeniser, dropped: Iterable[Merge], alive: list[bool]) -> list[Merge]:
    """Mark single merges whose type stays as removed; the ones that were alive, in order."""
    position = tokeniser.merge_index
    removed: list[Merge] = []
    for merge in dropped:
        i = position.get(merge)
        if i is not None and alive[i]:
            alive[i] = False
            removed.append(merge)
    return removed


def _absorb(tokeniser: BTETokeniser, types: list[str], parts: list[tuple[str, ...]], alive: list[bool]) -> list[Merge]:
    """Alg. 1, one type after the other: remove every merge of the type (lines 4-7) and let each
    merge using it absorb the parts of its primary merge as they are at that moment (lines 8-12).
    Edits ``parts`` and ``alive`` in place; returns the merges removed."""
    originals, position = tokeniser.merges, tokeniser.merge_index
    removed: list[Merge] = []
    users = _users(types, parts)
    for type_ in types:
        own = [position[m] for m in tokeniser.produced_by[type_]]
        primary = tokeniser.primary_merge(type_)
        assert primary is not None, type_  # the callers pass only types that merges form
        old_parts = parts[position[primary]]  # as rewired by earlier knockouts of the batch
        for i in own:
            if alive[i]:
                alive[i] = False
                removed.append(originals[i])
            for part in parts[i]:
                if part in users:
                    users[part].discard(i)
        for child in sorted(users.pop(type_)):
            if not alive[child]:
                continue
            expanded: list[str] = []
            for part in parts[child]:
                expanded.extend(old_parts if part == type_ else (part,))
            parts[child] = tuple(expanded)
            for part in old_parts:
                if part in users:
                    users[part].add(child)
    return removed


def _users(types: list[str], parts: list[tuple[str, ...]]) -> dict[str, set[int]]:
    """Knocked-out type -> positions of the merges using it (only these types are asked for)."""
    leaving = set(types)
    users: dict[str, set[int]] = {t: set() for t in types}
    for i, merge_parts in enumerate(parts):
        for part in merge_parts:
            if part in leaving:
                users[part].add(i)
    return users


def _rebuild(
    originals: tuple[Merge, ...], parts: list[tuple[str, ...]], alive: list[bool]
) -> tuple[list[Merge], list[tuple[Merge, Merge]], list[Merge]]:
    """The surviving merges with their new parts (rank order), the (before, after) rewirings, and
    the merges collapsed into a lower-ranked merge with the same parts."""
    new_merges: list[Merge] = []
    rewired: list[tuple[Merge, Merge]] = []
    collapsed: list[Merge] = []
    seen_parts: set[tuple[str, ...]] = set()
    unchanged_repeats = False  # an unchanged merge whose parts a lower-ranked rewired merge now has
    for i, merge in enumerate(originals):  # rank order: the lower-ranked of two equal merges stays
        if not alive[i]:
            continue
        if parts[i] is merge.parts:
            unchanged_repeats = unchanged_repeats or merge.parts in seen_parts
            new_merges.append(merge)
            seen_parts.add(merge.parts)
            continue
        if parts[i] in seen_parts:
            collapsed.append(merge)
            continue
        after = Merge(merge.rank, parts[i])
        seen_parts.add(after.parts)
        new_merges.append(after)
        rewired.append((merge, after))
    if unchanged_repeats or (collapsed and len({m.parts for m in new_merges}) != len(new_merges)):
        # a rewired or collapsed merge may have come before an unchanged one with the same parts
        first: dict[tuple[str, ...], Merge] = {}
        for merge in new_merges:
            if merge.parts not in first:
                first[merge.parts] = merge
            else:
                collapsed.append(merge)
        new_merges = list(first.values())
        rewired = [(a, b) for a, b in rewired if first.get(b.parts) is b]
    return new_merges, rewired, collapsed


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
    new = derive(tokeniser, [m for m in tokeniser.merges if m.result not in doomed])
    return new, KnockoutEdit(removed, (), (), tuple(sorted(doomed)))
