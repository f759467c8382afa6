"""The neighbourhood of a type as vis-network nodes and edges (plain dicts), placed.

Two views of [knockout]: types only (Fig. 1, one arrow per merge part,
:func:`core.bpe.graph.type_graph`) and types and merges alternating (Fig. 11, merge nodes labelled
with rank and parts, :func:`core.bpe.graph.merge_graph`). Roles come from core.bpe.graph (center,
ancestor, descendant, half-sibling); parts of a shown merge that are outside the neighbourhood are
drawn as grey "other part" nodes so every merge is complete. Tuple merges and merges absent from a
comparison tokeniser (knocked out, or new after an edit) are marked.

When a type is formed by several merges (tiktoken and SentencePiece conversions), its *primary*
merge (the one that fires on its own string) is drawn like any merge and the *alternatives* are
dashed grey and labelled "alt". With one merge per type nothing of this appears and the figures
are the paper's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from core.bpe.graph import CENTER, Neighbourhood, merge_graph, merge_node_ids, type_graph, type_node
from core.bpe.model import BTETokeniser, Merge
from viz.graph_drawing import Drawing, absent_merges, type_status
from viz.graph_layout import graph_levels, place
from viz.graph_style import (
    ABSENT_COLOUR,
    ABSENT_MARK,
    ALT_MARK,
    ALT_STYLE,
    GONE,
    MERGE_STYLE,
    MERGES_VIEW,
    NEW,
    NEW_MARK,
    OTHER,
    ROLE_STYLE,
    SMALL_FONT,
    STATUS_MARK,
    TUPLE_STYLE,
    TYPE_FONT,
    TYPES_VIEW,
    edge_style,
    legend_items,
    node_colour,
)
from viz.graph_tooltips import merge_text, merge_title, status_text, type_edge_title, type_title
from viz.ranks import rank_text
from viz.tokens import drawn as shown


def _type_node(drawing: Drawing, type_: str) -> dict:
    """The box of a type, styled by its role and marked if it differs in the comparison tokeniser."""
    role = drawing.hood.roles.get(type_, OTHER)
    background, border, radius = ROLE_STYLE[role]
    status = type_status(drawing.tokeniser, type_, drawing.other, drawing.absent, drawing.other_is_before)
    title = type_title(
        type_,
        role,
        drawing.tokeniser,
        drawing.hood,
        drawing.display,
        status_text(drawing, type_, status),
        drawing.fire_counts,
        drawing.ids,
    )
    other = role == OTHER
    text = shown(type_, drawing.display)
    node = {
        "id": type_node(type_),
        "label": STATUS_MARK.get(status, "") + text,
        "focus": type_,
        "shown": text,
        "role": role,
        "shape": "box",
        "level": drawing.levels.get(type_, 0) * drawing.scale,
        "title": title,
        "color": node_colour(background, ABSENT_COLOUR if status else border),
        "borderWidth": 4 if role == CENTER else (1 if other else 2),
        "shapeProperties": {"borderRadius": radius},
        "margin": 7 if other else 10,
        "font": {
            "size": SMALL_FONT if other else TYPE_FONT,
            "color": "#57534e" if other else "#1c1917",
            "face": "DejaVu Sans Mono, monospace",
            "bold": role == CENTER,
        },
    }
    if status:
        node["shapeProperties"]["borderDashes"] = [8, 5] if status in (GONE, NEW) else [2, 4]
        node["borderWidth"] = 4
        node["status"] = status
    return node


def _merge_node(drawing: Drawing, node_id: str, merge: Merge) -> dict:
    """The box of a merge (types and merges view): rank and parts, tuple, alternative or absent."""
    gone = merge in drawing.absent
    alternative = merge in drawing.hood.alternatives
    background, border = TUPLE_STYLE if merge.is_tuple else (ALT_STYLE if alternative else MERGE_STYLE)
    head = rank_text(merge.rank) + (" tuple" if merge.is_tuple else "") + (ALT_MARK if alternative else "")
    mark = (NEW_MARK if drawing.other_is_before else ABSENT_MARK) if gone else ""
    node = {
        "id": node_id,
        "label": f"{mark}{head}\n{merge_text(merge, drawing.display)}",
        "focus": merge.result,
        "shown": shown(merge.result, drawing.display),
        "role": "merge",
        "tuple": merge.is_tuple,
        "rank": merge.rank,
        "shape": "box",
        "level": drawing.levels.get(merge.result, 0) * 2 - 1,
        "title": merge_title(drawing, merge, alternative, gone),
        "color": node_colour(background, ABSENT_COLOUR if gone else border),
        "borderWidth": 3 if (merge.is_tuple or gone) else 1,
        "shapeProperties": {
            "borderRadius": 0,
            **({"borderDashes": [8, 5]} if gone else {"borderDashes": [3, 3]} if alternative else {}),
        },
        "font": {
            "size": SMALL_FONT,
            "face": "DejaVu Sans Mono, monospace",
            "color": "#57534e" if alternative else "#1c1917",
        },
        "margin": 6,
    }
    if gone:
        node["status"] = NEW if drawing.other_is_before else GONE
    if alternative:
        node["alternative"] = True
    return node


def _merges_view(drawing: Drawing, other_parts: bool) -> tuple[list[dict], list[dict]]:
    """Types and merges alternating ([knockout Fig. 11]): an arrow from each part to its merge and
    from the merge to its result."""
    hood = drawing.hood
    by_id = {node_id: m for m, node_id in merge_node_ids(hood.merges).items()}
    graph = merge_graph(drawing.tokeniser, hood.merges)
    graph.add_node(type_node(hood.center), kind="type", label=hood.center)
    nodes: list[dict] = []
    for node_id, data in graph.nodes(data=True):
        if data["kind"] != "type":
            nodes.append(_merge_node(drawing, node_id, by_id[node_id]))
        elif other_parts or data["label"] in hood.roles:
            nodes.append(_type_node(drawing, data["label"]))
    edges: list[dict] = []
    for source, target, data in graph.edges(data=True):
        if not other_parts and source.startswith("t:") and source[2:] not in hood.roles:
            continue
        merge = by_id[target if target.startswith("m:") else source]
        style = edge_style(merge.is_tuple, merge in drawing.absent, merge in hood.alternatives)
        edge = {"from": source, "to": target, **style}
        positions = data.get("positions")
        if positions and len(positions) > 1:
            edge["label"] = f"×{len(positions)}"
        edges.append(edge)
    return nodes, edges


def _type_edge(drawing: Drawing, part: str, result: str, datas: Sequence[dict], merges: Sequence[Merge]) -> dict:
    """One arrow from ``part`` to ``result`` for all the shown ``merges`` that use it (``datas``:
    the type graph's edge data, one per merge part)."""
    merge = merges[0] if merges else drawing.tokeniser.primary_merge(result)
    is_tuple = any(d["tuple"] for d in datas)
    gone = merge is not None and merge in drawing.absent
    alternative = bool(merges) and all(m in drawing.hood.alternatives for m in merges)
    title = type_edge_title(
        drawing, result, datas[0]["rank"], merge, merges[1:], is_tuple=is_tuple, alternative=alternative, gone=gone
    )
    edge = {
        "from": type_node(part),
        "to": type_node(result),
        **edge_style(is_tuple, gone, alternative),
        "title": title,
    }
    if alternative:
        edge["alternative"] = True
    if len(datas) > 1:
        edge["label"] = f"×{len(datas)}"
    return edge


def _types_view(drawing: Drawing, other_parts: bool) -> tuple[list[dict], list[dict]]:
    """Types only ([knockout Fig. 1]): one arrow from each part to the result, for all merges using it."""
    hood = drawing.hood
    graph = type_graph(drawing.tokeniser, hood.merges)
    nodes = [
        _type_node(drawing, type_)
        for type_ in dict.fromkeys([hood.center, *graph.nodes])
        if other_parts or type_ in hood.roles
    ]
    by_rank: dict[tuple[float, str], list[Merge]] = defaultdict(list)
    for m in hood.merges:
        by_rank[(m.rank, m.result)].append(m)
    grouped: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for part, result, data in graph.edges(data=True):
        if other_parts or part in hood.roles:
            grouped[(part, result)].append(data)
    edges = []
    for (part, result), datas in grouped.items():
        merges = list(dict.fromkeys(m for d in datas for m in by_rank[(d["rank"], result)] if part in m.parts))
        edges.append(_type_edge(drawing, part, result, datas, merges))
    return nodes, edges


def graph_elements(
    tokeniser: BTETokeniser,
    hood: Neighbourhood,
    view: str = TYPES_VIEW,
    *,
    display: Callable[[str], str] | None = None,
    other: BTETokeniser | None = None,
    other_label: str = "",
    other_is_before: bool = False,
    other_parts: bool = True,
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
    ids: Mapping[str, int] | None = None,
) -> tuple[list[dict], list[dict]]:
    """vis-network nodes and edges (plain dicts) for ``hood`` in ``view``, placed (:func:`viz.graph_layout.place`).

    Alternative merges (``hood.alternatives``: not the merge that forms their result from its own
    string) are dashed grey and labelled ``alt``; ``fire_counts`` (name -> merge -> applications)
    go into the tooltips, and so do the token ``ids`` (token -> id) beside the merge ranks.

    ``other_parts=False`` leaves out the parts of shown merges that are outside the neighbourhood
    (a merge node still names them in its label).

    Every node carries ``focus``: the type a click recentres on (a merge node: its result). With
    ``other``, merges absent from it are marked: as knocked out (``out:``, red, dashed) when ``other``
    is the tokeniser after an edit, as new (``new:``, red, dashed) when ``other_is_before``.
    """
    drawing = Drawing(
        tokeniser,
        hood,
        display or tokeniser.pretokeniser.display,
        other,
        other_label,
        other_is_before,
        fire_counts,
        absent_merges(hood.merges, other),
        graph_levels(hood, [(part, merge.result) for merge in hood.merges for part in merge.parts]),
        2 if view == MERGES_VIEW else 1,
        ids or {},
    )
    nodes, edges = (_merges_view if view == MERGES_VIEW else _types_view)(drawing, other_parts)
    place(nodes, edges, row_gap=110 if view == TYPES_VIEW else 80)
    return nodes, edges


def graph_figure(
    tokeniser: BTETokeniser,
    hood: Neighbourhood,
    view: str = TYPES_VIEW,
    *,
    display: Callable[[str], str] | None = None,
    other: BTETokeniser | None = None,
    other_label: str = "",
    other_is_before: bool = False,
    other_parts: bool = True,
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
    ids: Mapping[str, int] | None = None,
) -> tuple[list[dict], list[dict], list[tuple[str, str]], str]:
    """What the interactive view and the SVG figure (:mod:`viz.graph_svg`) both draw: placed nodes
    and edges, legend items, and a one-line description."""
    display = display or tokeniser.pretokeniser.display
    nodes, edges = graph_elements(
        tokeniser,
        hood,
        view,
        display=display,
        other=other,
        other_label=other_label,
        other_is_before=other_is_before,
        other_parts=other_parts,
        fire_counts=fire_counts,
        ids=ids,
    )
    legend = legend_items(view, other is not None, other_is_before, bool(hood.alternatives))
    caption = f"{view} graph around {shown(hood.center, display)}: {len(hood.roles)} types, {len(hood.merges)} merges"
    return nodes, edges, legend, caption
