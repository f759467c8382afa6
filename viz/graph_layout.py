"""Where the merge graph's nodes go: layers top-down (parts above results), ordered by barycentre
sweeps and packed by their estimated widths, so vis-network needs no physics."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from core.bpe.graph import CENTER, Neighbourhood
from viz.graph_style import TYPE_FONT

CHAR_WIDTH = 0.61  # advance width of DejaVu Sans Mono, in em
MAX_ROW = 1400  # a wider layer is split into staggered sub-rows (readable after fitting)


def graph_levels(hood: Neighbourhood, edges: Sequence[tuple[str, str]]) -> dict[str, int]:
    """Layers for a top-down drawing of the types view: longest path from the sources among the
    neighbourhood's types (parts above results), other parts one layer above their first result."""
    inside = set(hood.roles)
    parents: dict[str, set[str]] = defaultdict(set)
    for part, result in edges:
        if part in inside and result in inside and part != result:
            parents[result].add(part)
    level: dict[str, int] = {}

    def depth_of(type_: str, trail: frozenset = frozenset()) -> int:
        if type_ in level:
            return level[type_]
        if type_ in trail:  # a cycle cannot happen in a sound merge graph; be safe anyway
            return 0
        ps = parents.get(type_, ())
        value = 1 + max((depth_of(p, trail | {type_}) for p in ps), default=-1)
        level[type_] = value
        return value

    for type_ in inside:
        depth_of(type_)
    for part, result in edges:
        if part not in inside:
            level[part] = min(level.get(part, level[result] - 1), level[result] - 1)
    return level


def node_width(node: Mapping) -> float:
    """Estimated drawn width of a vis box node (monospace label, margins, border)."""
    size = node.get("font", {}).get("size", TYPE_FONT)
    longest = max((len(line) for line in str(node["label"]).split("\n")), default=1)
    return longest * size * CHAR_WIDTH + 2 * node.get("margin", 10) + 2 * node.get("borderWidth", 1)


def _pack(ids: Sequence[str], width: Mapping[str, float], gap: float, max_row: float) -> tuple[list[float], int]:
    """Centred x positions of one layer's nodes in this order, and into how many staggered sub-rows
    (1 to 4) it is split: node i sits in sub-row i mod k, so neighbours in a sub-row keep ``gap``."""
    total = sum(width[i] for i in ids) + gap * (len(ids) - 1)
    k = max(1, min(4, math.ceil(total / max_row)))
    positions: list[float] = []
    for i, node_id in enumerate(ids):
        if i == 0:
            value = 0.0
        else:
            value = positions[i - 1] + (width[ids[i - 1]] + width[node_id]) / (2 * k) + gap / k
            if i >= k:
                left = ids[i - k]
                value = max(value, positions[i - k] + (width[left] + width[node_id]) / 2 + gap)
        positions.append(value)
    middle = (positions[0] - width[ids[0]] / 2 + positions[-1] + width[ids[-1]] / 2) / 2
    return [p - middle for p in positions], k


def _middle(ids: list[str], centres: set[str]) -> None:
    """The selected type in the middle of its layer: its half-siblings on both sides, the view (which
    zooms in around it) shows as many as it can."""
    found = next((node_id for node_id in ids if node_id in centres), None)
    if found is not None:
        ids.remove(found)
        ids.insert(len(ids) // 2, found)


def place(
    nodes: Sequence[dict],
    edges: Sequence[Mapping],
    *,
    row_gap: float = 110,
    sub_gap: float = 50,
    gap: float = 22,
    max_row: float = MAX_ROW,
    sweeps: int = 6,
) -> None:
    """Precomputed positions (``x``, ``y`` on every node), so vis-network needs no physics.

    One layer per ``level`` (parts above results); within a layer, nodes are ordered by the mean
    position of their neighbours in the layer above, then below (barycentre sweeps; the selected
    type stays in the middle of its layer) and packed
    without overlap using their estimated widths; a layer wider than ``max_row`` is split into
    staggered sub-rows so the fitted graph stays readable.
    """
    if not nodes:
        return
    width = {n["id"]: node_width(n) for n in nodes}
    centres = {n["id"] for n in nodes if n.get("role") == CENTER}
    up: dict[str, list[str]] = defaultdict(list)
    down: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        down[edge["from"]].append(edge["to"])
        up[edge["to"]].append(edge["from"])
    rows: dict[int, list[str]] = defaultdict(list)
    for node in nodes:
        rows[node["level"]].append(node["id"])
    levels = sorted(rows)
    x: dict[str, float] = {}
    sub: dict[str, int] = {}
    depth: dict[int, int] = {}

    def pack(level: int) -> None:
        ids = rows[level]
        positions, k = _pack(ids, width, gap, max_row)
        shift = next((i for i, node_id in enumerate(ids) if node_id in centres), 0)  # the centre on top
        for i, node_id in enumerate(ids):
            x[node_id] = positions[i]
            sub[node_id] = (i - shift) % k
        depth[level] = k

    def centre(node_id: str, neighbours: Mapping[str, list[str]]) -> float:
        near = [x[n] for n in neighbours.get(node_id, ()) if n in x]
        return sum(near) / len(near) if near else x[node_id]

    for level in levels:
        _middle(rows[level], centres)
        pack(level)
    for sweep in range(sweeps):
        downward = sweep % 2 == 0
        neighbours = up if downward else down
        for level in levels if downward else reversed(levels):
            rows[level].sort(key=lambda node_id, near=neighbours: centre(node_id, near))
            _middle(rows[level], centres)
            pack(level)
    for node in nodes:
        node["x"] = round(x[node["id"]], 1)
    _set_y(nodes, rows, sub, depth, row_gap, sub_gap)


def _set_y(
    nodes: Sequence[dict],
    rows: Mapping[int, list[str]],
    sub: Mapping[str, int],
    depth: Mapping[int, int],
    row_gap: float,
    sub_gap: float,
) -> None:
    """``y`` on every node: layers ``row_gap`` apart, a layer's sub-rows ``sub_gap`` apart."""
    y = 0.0
    for level in sorted(rows):
        k = depth[level]
        offsets = {node_id: (sub[node_id] - (k - 1) / 2) * sub_gap for node_id in rows[level]}
        top = y + (k - 1) / 2 * sub_gap
        for node in nodes:
            if node["level"] == level:
                node["y"] = round(top + offsets[node["id"]], 1)
        y = top + (k - 1) / 2 * sub_gap + row_gap
