"""The merge graph and the neighbourhood of a type.

bpe-knockout.txt §3.1: a BPE tokeniser as a digraph whose vertices alternate between types of V
and merges of M (Figure 11): every type points to the merges it is a part of (M_o), every merge
points to the type it produces (M_i). Figure 1's simpler view keeps only the types, with an arc
from each part to the result. The neighbourhood of a type collects its ancestors (the types its
merge tree is built from), its descendants (types built on it) and its half-siblings (other
children of its parents, e.g. ``Ġbruids`` and ``Ġgids`` sharing ``id`` in the paper's case).
"""
from __future__ import annotations

from collections import deque
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


@dataclass
class Neighbourhood:
    """The types and merges around ``center`` up to ``depth`` steps, at most ``max_nodes`` types."""

    center: str
    depth: int
    roles: dict[str, str] = field(default_factory=dict)  # type -> role
    distances: dict[str, int] = field(default_factory=dict)
    merges: list[Merge] = field(default_factory=list)
    truncated: bool = False

    def to_json(self) -> dict:
        return {
            "center": self.center,
            "depth": self.depth,
            "truncated": self.truncated,
            "types": [{"type": t, "role": r, "distance": self.distances[t]} for t, r in self.roles.items()],
            "merges": [{"rank": m.rank, "parts": list(m.parts), "result": m.result, "tuple": m.is_tuple}
                       for m in sorted(self.merges, key=lambda m: m.rank)],
        }


def neighbourhood(tokeniser: BTETokeniser, center: str, depth: int = 2, max_nodes: int = 60) -> Neighbourhood:
    """Breadth-first: ancestors via M_i, descendants via M_o, half-siblings via the parents' M_o.

    Nearer types come first; once ``max_nodes`` types are collected the rest is cut off and
    ``truncated`` is set. Every merge between two collected types is included.
    """
    if center not in tokeniser.types:
        raise KeyError(center)
    hood = Neighbourhood(center, depth)
    hood.roles[center] = CENTER
    hood.distances[center] = 0
    queue = deque([(center, 0, CENTER)])

    def add(type_: str, distance: int, role: str) -> None:
        if type_ in hood.roles:
            return
        if len(hood.roles) >= max_nodes:
            hood.truncated = True
            return
        hood.roles[type_] = role
        hood.distances[type_] = distance
        queue.append((type_, distance, role))

    while queue:
        type_, distance, role = queue.popleft()
        if distance >= depth:
            continue
        merge = tokeniser.merge_of(type_)
        if role in (CENTER, ANCESTOR) and merge is not None:
            for part in merge.parts:
                add(part, distance + 1, ANCESTOR)
        if role in (CENTER, DESCENDANT):
            for child_merge in tokeniser.used_by.get(type_, ()):
                add(child_merge.result, distance + 1, DESCENDANT)
        if role == CENTER and merge is not None:
            for part in merge.parts:
                for sibling_merge in tokeniser.used_by.get(part, ()):
                    add(sibling_merge.result, distance + 1, HALF_SIBLING)
    collected = set(hood.roles)
    hood.merges = [m for m in tokeniser.merges
                   if m.result in collected and any(p in collected for p in m.parts)]
    return hood
