"""The merge graph and the neighbourhood of a type.

[knockout §3.1]: a BPE tokeniser as a digraph whose vertices alternate between types of V
and merges of M (Figure 11): every type points to the merges it is a part of (M_o), every merge
points to the type it produces (M_i). Figure 1's simpler view keeps only the types, with an arc
from each part to the result. The neighbourhood of a type collects its ancestors (the types its
merge tree is built from), its descendants (types built on it) and its half-siblings (other
children of its parents, e.g. ``Ġbruids`` and ``Ġgids`` sharing ``id`` in the paper's case).

Several merges per type (files converted from tiktoken ranks or SentencePiece list every split of
a type whose parts are types): the graph keeps them all, and a type's *primary* merge is the one
that fires when its own string is segmented (:meth:`core.bpe.model.BTETokeniser.primary_merge`); the
others are *alternatives*. A neighbourhood follows primary merges by default (``follow="primary"``:
ancestors are the parts of primary merges, descendants the types whose primary merge uses a type,
half-siblings the other types whose primary merge uses a parent) and shows every merge of the
center, alternatives included; ``follow="all"`` follows every merge, as §3.1's graph has them.
With one merge per type (the paper's setting) every merge is primary, there are no alternatives,
and both settings give exactly the paper's neighbourhood.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from core.bpe.model import BTETokeniser, Merge
from core.errors import InputError
from core.options import check_choice, check_int, described
from core.tokeniser import require

CENTER, ANCESTOR, DESCENDANT, HALF_SIBLING = "center", "ancestor", "descendant", "half-sibling"
PRIMARY, ALL = "primary", "all"
FOLLOW = (PRIMARY, ALL)


def type_node(type_: str) -> str:
    return "t:" + type_


def merge_node(merge: Merge, shared: bool = False) -> str:
    """``m:RANK``; a merge sharing its rank with another (tiktoken conversions) adds its parts."""
    return f"m:{merge.rank}" + ("".join("\u241f" + p for p in merge.parts) if shared else "")


def merge_node_ids(merges) -> dict[Merge, str]:
    """The node id of each merge among ``merges`` (unique even where merges share a rank)."""
    ranks = Counter(m.rank for m in merges)
    return {m: merge_node(m, ranks[m.rank] > 1) for m in merges}


def merge_graph(tokeniser: BTETokeniser, merges=None) -> nx.DiGraph:
    """The alternating type/merge digraph of Figure 11 (of all merges, or of ``merges``)."""
    graph = nx.DiGraph()
    merges = tokeniser.merges if merges is None else merges
    alphabet = set(tokeniser.alphabet)
    ids = merge_node_ids(merges)
    for merge in merges:
        graph.add_node(
            ids[merge], kind="merge", rank=merge.rank, parts=list(merge.parts), label=str(merge), tuple=merge.is_tuple
        )
        for type_ in (*merge.parts, merge.result):
            graph.add_node(
                type_node(type_),
                kind="type",
                label=type_,
                alphabet=type_ in alphabet,
                in_vocab=type_ in tokeniser.types,
            )
        for position, part in enumerate(merge.parts):
            key = (type_node(part), ids[merge])
            if graph.has_edge(*key):
                graph.edges[key]["positions"].append(position)
            else:
                graph.add_edge(*key, positions=[position])
        graph.add_edge(ids[merge], type_node(merge.result))
    return graph


def type_graph(tokeniser: BTETokeniser, merges=None) -> nx.MultiDiGraph:
    """Figure 1's view: types only, one arc part -> result per merge part."""
    graph = nx.MultiDiGraph()
    for merge in tokeniser.merges if merges is None else merges:
        for part in merge.parts:
            graph.add_edge(part, merge.result, rank=merge.rank, tuple=merge.is_tuple)
    return graph


#: Descendants collected before the enumeration stops (a frequent type can have thousands).
ENUMERATION_LIMIT = 5000


def is_primary(tokeniser: BTETokeniser, merge: Merge) -> bool:
    """Whether ``merge`` is its result's primary merge (always, with one merge per type)."""
    merges = tokeniser.produced_by.get(merge.result, ())
    return len(merges) == 1 or tokeniser.primary_merge(merge.result) == merge


def _merge_json(merge: Merge, primary: bool, fire_counts) -> dict:
    out: dict[str, Any] = {
        "rank": merge.rank,
        "parts": list(merge.parts),
        "result": merge.result,
        "tuple": merge.is_tuple,
        "primary": primary,
    }
    if fire_counts:
        out["fires"] = {name: counts.get(merge, 0) for name, counts in fire_counts.items()}
    return out


@dataclass
class Neighbourhood:
    """The types and merges around ``center`` up to ``depth`` steps, at most ``max_nodes`` types.

    ``found`` counts the types found before the cut (center included); ``more`` says that the
    enumeration of descendants stopped at ENUMERATION_LIMIT, so there are more still.
    ``type_merges`` holds every merge forming each collected type (rank order) and ``primary``
    each one's primary merge; ``alternatives`` are the shown merges that are not primary."""

    center: str
    depth: int
    roles: dict[str, str] = field(default_factory=dict)  # type -> role
    distances: dict[str, int] = field(default_factory=dict)
    merges: list[Merge] = field(default_factory=list)
    truncated: bool = False
    found: int = 0
    more: bool = False
    follow: str = PRIMARY
    type_merges: dict[str, tuple[Merge, ...]] = field(default_factory=dict)
    primary: dict[str, Merge | None] = field(default_factory=dict)
    alternatives: frozenset[Merge] = frozenset()

    def merges_of(self, type_: str) -> list[tuple[Merge, bool]]:
        """(merge, is primary) for every merge forming a collected type, the primary one first."""
        primary = self.primary.get(type_)
        merges = self.type_merges.get(type_, ())
        return [(m, m == primary) for m in sorted(merges, key=lambda m: (m != primary, m.rank))]

    def shown_merges(self) -> list[Merge]:
        """Every merge the neighbourhood names: the drawn ones and all merges of its types."""
        return list(dict.fromkeys([*self.merges, *(m for ms in self.type_merges.values() for m in ms)]))

    def to_json(self, fire_counts: Mapping[str, Mapping[Merge, int]] | None = None) -> dict:
        """The neighbourhood as JSON; ``fire_counts`` (name -> merge -> applications, e.g.
        ``{"reference": ..., "corpus": ...}``) adds ``fires`` to every merge."""
        types = []
        for t, r in self.roles.items():
            entry = {"type": t, "role": r, "distance": self.distances[t]}
            if t in self.type_merges:
                listed = self.merges_of(t)
                entry["merges"] = [_merge_json(m, p, fire_counts) for m, p in listed]
                entry["alternatives"] = len(listed) - 1 if listed else 0
            types.append(entry)
        return {
            "center": self.center,
            "depth": self.depth,
            "truncated": self.truncated,
            "found": self.found,
            "types": types,
            "merges": [
                _merge_json(m, m not in self.alternatives, fire_counts)
                for m in sorted(self.merges, key=lambda m: m.rank)
            ],
        }


def neighbourhood(
    tokeniser: BTETokeniser,
    center: str,
    depth: int = 2,
    max_nodes: int = 60,
    siblings_per_parent: int | None = None,
    follow: str = PRIMARY,
) -> Neighbourhood:
    """Ancestors via M_i (up to ``depth``), descendants via M_o (up to ``depth``) and half-siblings
    (the other children of the center's parents), cut to ``max_nodes`` types so that what explains
    the type comes first: the center, its ancestors (nearest first), then descendants and
    half-siblings by (distance, rank), at most ``siblings_per_parent`` half-siblings per parent
    (lowest ranks, i.e. the most frequent merges, first; None: no limit). ``truncated`` says
    whether anything was left out.

    ``follow="primary"`` (the default) walks primary merges only and draws, between the collected
    types, their primary merges plus every merge of the center; ``follow="all"`` walks and draws
    every merge between collected types. With one merge per type both are the paper's graph.
    The walk stops where the graph ends, so a huge ``depth`` costs no more than the whole graph.
    """
    tokeniser = require(tokeniser, "merge_graph", "neighbourhood")
    if not isinstance(center, str) or center not in tokeniser.types:
        raise InputError(f"center must be a type of the tokeniser, got {described(center)}")
    check_int("depth", depth, 0)
    check_int("max_nodes", max_nodes, 1)
    if siblings_per_parent is not None:
        check_int("siblings_per_parent", siblings_per_parent, 0)
    check_choice("follow", follow, FOLLOW)
    walk = _Walk(tokeniser, everything=follow == ALL)
    roles, distances = walk.ancestors(center, depth)
    ancestors = [t for t in roles if t != center]
    seen = set(roles)
    candidates, more = walk.descendants(center, depth, seen)
    extra_siblings = walk.half_siblings(center, seen, candidates, siblings_per_parent) if depth >= 1 else 0
    candidates.sort(key=lambda c: (c[0], c[1]))
    found = 1 + len(ancestors) + len(candidates) + extra_siblings
    keep = [center, *ancestors[: max(0, max_nodes - 1)]]
    room = max(0, max_nodes - len(keep))
    hood = Neighbourhood(center, depth, found=found, more=more, follow=follow)
    for type_ in keep:
        hood.roles[type_], hood.distances[type_] = roles[type_], distances[type_]
    for distance, _, type_, role in candidates[:room]:
        hood.roles[type_], hood.distances[type_] = role, distance
    hood.truncated = more or found > len(hood.roles)
    _add_merges(hood, tokeniser, walk.everything)
    return hood


#: (distance, rank, type, role) of a descendant or half-sibling: rank order is merge-list order,
#: and merges sharing a rank form one type
_Candidate = tuple[int, float, str, str]


class _Walk:
    """Steps through the merge graph: via every merge (``everything``) or via primary merges only."""

    def __init__(self, tokeniser: BTETokeniser, *, everything: bool):
        self.tokeniser, self.everything = tokeniser, everything
        self.produced_by, self.used_by = tokeniser.produced_by, tokeniser.used_by

    def forming(self, type_: str) -> tuple[Merge, ...]:
        if self.everything:
            return self.produced_by.get(type_, ())
        merge = self.tokeniser.primary_merge(type_)
        return (merge,) if merge is not None else ()

    def followed(self, merge: Merge) -> bool:
        return self.everything or is_primary(self.tokeniser, merge)

    def parents(self, type_: str) -> Iterable[str]:
        """The parts of the merges forming ``type_`` (each once, in order)."""
        return dict.fromkeys(p for merge in self.forming(type_) for p in merge.parts)

    def ancestors(self, center: str, depth: int) -> tuple[dict[str, str], dict[str, int]]:
        """Roles and distances of the center and its ancestors (its merge tree) up to ``depth``."""
        roles: dict[str, str] = {center: CENTER}
        distances: dict[str, int] = {center: 0}
        frontier = [center]
        for distance in range(1, depth + 1):
            if not frontier:  # nothing further up: deeper steps add nothing
                break
            following = []
            for type_ in frontier:
                for part in self.parents(type_):
                    if part not in roles:
                        roles[part], distances[part] = ANCESTOR, distance
                        following.append(part)
            frontier = following
        return roles, distances

    def descendants(self, center: str, depth: int, seen: set[str]) -> tuple[list[_Candidate], bool]:
        """Descendants up to ``depth`` not yet ``seen`` (added to it), and whether the enumeration
        stopped at ENUMERATION_LIMIT."""
        candidates: list[_Candidate] = []
        more = False
        frontier = [center]
        for distance in range(1, depth + 1):
            if not frontier:  # nothing further down: deeper steps add nothing
                break
            following = []
            for type_ in frontier:
                for merge in self.used_by.get(type_, ()):
                    if merge.result in seen or not self.followed(merge):
                        continue
                    if len(candidates) >= ENUMERATION_LIMIT:
                        more = True
                        break
                    seen.add(merge.result)
                    candidates.append((distance, merge.rank, merge.result, DESCENDANT))
                    following.append(merge.result)
            frontier = following
        return candidates, more

    def half_siblings(self, center: str, seen: set[str], candidates: list[_Candidate], per_parent: int | None) -> int:
        """Add the other children of the center's parents not yet ``seen`` to ``candidates``, at
        most ``per_parent`` per parent; returns how many more there were (counted, not kept)."""
        extra = 0
        for part in self.parents(center):
            taken = 0
            for merge in self.used_by.get(part, ()):
                if merge.result in seen or not self.followed(merge):
                    continue
                seen.add(merge.result)
                if per_parent is not None and taken >= per_parent:
                    extra += 1
                    continue
                candidates.append((1, merge.rank, merge.result, HALF_SIBLING))
                taken += 1
        return extra


def _add_merges(hood: Neighbourhood, tokeniser: BTETokeniser, everything: bool) -> None:
    """Every merge of the collected types, their primary merges, and the merges to draw: between
    collected types the followed ones, plus every merge of the center."""
    collected, center = hood.roles, hood.center
    hood.type_merges = {t: tokeniser.produced_by[t] for t in collected if t in tokeniser.produced_by}
    hood.primary = {t: tokeniser.primary_merge(t) for t in hood.type_merges}
    merges = {
        m
        for t, ms in hood.type_merges.items()
        for m in ms
        if ((everything or m == hood.primary[t]) and any(p in collected for p in m.parts))
        or (t == center and m != hood.primary[t])
    }
    hood.merges = sorted(merges, key=lambda m: m.rank)
    hood.alternatives = frozenset(m for m in hood.merges if m != hood.primary.get(m.result))
