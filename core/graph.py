"""The merge graph and the neighbourhood of a type.

bpe-knockout.txt §3.1: a BPE tokeniser as a digraph whose vertices alternate between types of V
and merges of M (Figure 11): every type points to the merges it is a part of (M_o), every merge
points to the type it produces (M_i). Figure 1's simpler view keeps only the types, with an arc
from each part to the result. The neighbourhood of a type collects its ancestors (the types its
merge tree is built from), its descendants (types built on it) and its half-siblings (other
children of its parents, e.g. ``Ġbruids`` and ``Ġgids`` sharing ``id`` in the paper's case).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from core.model import BTETokeniser, Merge

CENTER, ANCESTOR, DESCENDANT, HALF_SIBLING = "center", "ancestor", "descendant", "half-sibling"


def type_node(type_: str) -> str:
    return "t:" + type_


def merge_node(merge: Merge) -> str:
    return f"m:{merge.rank}"


def merge_graph(tokeniser: BTETokeniser, merges=None) -> nx.DiGraph:
    """The alternating type/merge digraph of Figure 11 (of all merges, or of ``merges``)."""
    graph = nx.DiGraph()
    merges = tokeniser.merges if merges is None else merges
    alphabet = set(tokeniser.alphabet)
    for merge in merges:
        graph.add_node(merge_node(merge), kind="merge", rank=merge.rank, parts=list(merge.parts),
                       label=str(merge), tuple=merge.is_tuple)
        for type_ in (*merge.parts, merge.result):
            graph.add_node(type_node(type_), kind="type", label=type_, alphabet=type_ in alphabet,
                           in_vocab=type_ in tokeniser.types)
        for position, part in enumerate(merge.parts):
            key = (type_node(part), merge_node(merge))
            if graph.has_edge(*key):
                graph.edges[key]["positions"].append(position)
            else:
                graph.add_edge(*key, positions=[position])
        graph.add_edge(merge_node(merge), type_node(merge.result))
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


@dataclass
class Neighbourhood:
    """The types and merges around ``center`` up to ``depth`` steps, at most ``max_nodes`` types.

    ``found`` counts the types found before the cut (center included); ``more`` says that the
    enumeration of descendants stopped at ENUMERATION_LIMIT, so there are more still."""

    center: str
    depth: int
    roles: dict[str, str] = field(default_factory=dict)  # type -> role
    distances: dict[str, int] = field(default_factory=dict)
    merges: list[Merge] = field(default_factory=list)
    truncated: bool = False
    found: int = 0
    more: bool = False

    def to_json(self) -> dict:
        return {
            "center": self.center,
            "depth": self.depth,
            "truncated": self.truncated,
            "found": self.found,
            "types": [{"type": t, "role": r, "distance": self.distances[t]} for t, r in self.roles.items()],
            "merges": [{"rank": m.rank, "parts": list(m.parts), "result": m.result, "tuple": m.is_tuple}
                       for m in sorted(self.merges, key=lambda m: m.rank)],
        }


def neighbourhood(tokeniser: BTETokeniser, center: str, depth: int = 2, max_nodes: int = 60,
                  siblings_per_parent: int | None = None) -> Neighbourhood:
    """Ancestors via M_i (up to ``depth``), descendants via M_o (up to ``depth``) and half-siblings
    (the other children of the center's parents), cut to ``max_nodes`` types so that what explains
    the type comes first: the center, its ancestors (nearest first), then descendants and
    half-siblings by (distance, rank), at most ``siblings_per_parent`` half-siblings per parent
    (lowest ranks, i.e. the most frequent merges, first; None: no limit). Every merge between two
    collected types is included; ``truncated`` says whether anything was left out.
    """
    if center not in tokeniser.types:
        raise KeyError(center)
    roles: dict[str, str] = {center: CENTER}
    distances: dict[str, int] = {center: 0}
    frontier = [center]
    for distance in range(1, depth + 1):  # ancestors: the center's merge tree
        following = []
        for type_ in frontier:
            merge = tokeniser.merge_of(type_)
            for part in dict.fromkeys(merge.parts if merge else ()):
                if part not in roles:
                    roles[part], distances[part] = ANCESTOR, distance
                    following.append(part)
        frontier = following
    ancestors = [t for t in roles if t != center]
    index = tokeniser.merge_index
    candidates: list[tuple[int, int, str, str]] = []  # (distance, rank position, type, role)
    seen = set(roles)
    more = False
    frontier = [center]
    for distance in range(1, depth + 1):  # descendants
        following = []
        for type_ in frontier:
            for merge in tokeniser.used_by.get(type_, ()):
                if merge.result in seen:
                    continue
                if len(candidates) >= ENUMERATION_LIMIT:
                    more = True
                    break
                seen.add(merge.result)
                candidates.append((distance, index[merge], merge.result, DESCENDANT))
                following.append(merge.result)
        frontier = following
    extra_siblings = 0  # half-siblings beyond siblings_per_parent (counted, not kept)
    own = tokeniser.merge_of(center)
    if own is not None and depth >= 1:
        for part in dict.fromkeys(own.parts):
            taken = 0
            for merge in tokeniser.used_by.get(part, ()):
                if merge.result in seen:
                    continue
                seen.add(merge.result)
                if siblings_per_parent is not None and taken >= siblings_per_parent:
                    extra_siblings += 1
                    continue
                candidates.append((1, index[merge], merge.result, HALF_SIBLING))
                taken += 1
    candidates.sort(key=lambda c: (c[0], c[1]))
    found = 1 + len(ancestors) + len(candidates) + extra_siblings
    keep = [center] + ancestors[: max(0, max_nodes - 1)]
    room = max(0, max_nodes - len(keep))
    hood = Neighbourhood(center, depth, found=found, more=more)
    for type_ in keep:
        hood.roles[type_], hood.distances[type_] = roles[type_], distances[type_]
    for distance, _, type_, role in candidates[:room]:
        hood.roles[type_], hood.distances[type_] = role, distance
    hood.truncated = more or found > len(hood.roles)
    collected = hood.roles
    merges = {m for t in collected for m in tokeniser.produced_by.get(t, ()) if any(p in collected for p in m.parts)}
    hood.merges = sorted(merges, key=lambda m: m.rank)
    return hood
