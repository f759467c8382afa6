"""The neighbourhood of a type as an interactive vis-network graph, built through pyvis, offline.

Pure functions (no Streamlit). Two views of [knockout]: types only (Fig. 1, one arrow per
merge part, :func:`core.bpe.graph.type_graph`) and types and merges alternating (Fig. 11, merge nodes
labelled with rank and parts, :func:`core.bpe.graph.merge_graph`). Roles come from core.bpe.graph
(center, ancestor, descendant, half-sibling); parts of a shown merge that are outside the
neighbourhood are drawn as grey "other part" nodes so every merge is complete. Tuple merges and
merges absent from a comparison tokeniser (knocked out, or new after an edit) are marked.

When a type is formed by several merges (tiktoken and SentencePiece conversions), its *primary*
merge (the one that fires on its own string) is drawn like any merge and the *alternatives* are
dashed grey and labelled "alt"; tooltips list every merge of a type, primary first, with how
often each fires on the reference and the corpus (``fire_counts``, from :mod:`core.analysis.merge_usage`).
With one merge per type nothing of this appears and the figures are the paper's.

pyvis assembles the vis-network node, edge and option data; the page HTML comes from this module's
own template because pyvis 0.3.2's templates load vis-network and Bootstrap from CDNs. The
embedded HTML loads vis-network from Streamlit's static serving (``/app/static/``, see
``static/README.md``) and contains no http(s) address at all; :func:`standalone_html` inlines the
library for a download that works anywhere. Every token string reaches the HTML either through
:func:`viz.escaping.script_json` (node and edge data: vis-network draws labels on its canvas and
shows string tooltips as text) or through :func:`viz.escaping.html_escape` (the legend, the notes).

Clicking a node recentres the graph: inside the explorer the iframe's host element carries a
``__mergeGraphClick`` hook (set by the page's ``st.components.v2`` component); without it (a
plain ``st.iframe``) the click loads ``?type=...`` in the top window.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pyvis.network import Network

from core.bpe.graph import (
    ANCESTOR,
    CENTER,
    DESCENDANT,
    HALF_SIBLING,
    Neighbourhood,
    is_primary,
    merge_graph,
    merge_node_ids,
    type_graph,
    type_node,
)
from core.bpe.model import BTETokeniser, Merge
from core.errors import InputError
from viz.escaping import html_escape, script_json
from viz.ranks import rank_help, rank_text
from viz.tokens import code_points
from viz.tokens import drawn as shown

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
VIS_JS, VIS_CSS = "vis-network.min.js", "vis-network.css"
STATIC_URL = "/app/static/"  # where Streamlit serves STATIC_DIR (server.enableStaticServing)

TYPES_VIEW, MERGES_VIEW = "types only", "types and merges"
VIEWS = (TYPES_VIEW, MERGES_VIEW)
OTHER = "other part"  # a part of a shown merge that is outside the neighbourhood
DEFAULT_TYPES = ("Ġbruids", "_bruids", "▁bruids")  # the paper's case ([knockout Fig. 1])

#: Role -> (background, border, corner radius). Light fills with dark text read well on a
#: projector; the roles also differ in shape (half-siblings are pills, the other parts have thin
#: borders and small grey text) so the legend works without colour.
ROLE_STYLE = {
    CENTER: ("#fde047", "#854d0e", 4),
    ANCESTOR: ("#bfdbfe", "#1e40af", 4),
    DESCENDANT: ("#bbf7d0", "#166534", 4),
    HALF_SIBLING: ("#f5d0fe", "#86198f", 20),
    OTHER: ("#f5f5f4", "#a8a29e", 4),
}
ROLE_TEXT = {
    CENTER: "the selected type",
    ANCESTOR: "ancestor (its merge tree)",
    DESCENDANT: "descendant (built on it)",
    HALF_SIBLING: "half-sibling (shares a parent)",
    OTHER: "other part of a shown merge",
}
MERGE_STYLE = ("#ffffff", "#44403c")
TUPLE_STYLE = ("#fed7aa", "#c2410c")  # tuple merges (3+ parts, [knockout §3.2])
EDGE_COLOUR, TUPLE_EDGE, ABSENT_COLOUR = "#57534e", "#ea580c", "#dc2626"
# Words, not symbols: a dingbat such as a ballot X or a star is an empty box on a machine without the font.
ABSENT_MARK = "out: "  # knocked out: a merge (or type) the tokeniser after the edit does not have
NEW_MARK = "new: "  # new: a merge (or type) the tokeniser before the edit did not have
REFORMED_MARK = "re-formed: "  # a type both have, formed by different merges (e.g. a knockout's tuple merge)
ALT_MARK = " alt"  # after the rank of an alternative merge (not the one forming the type from its string)
ALT_STYLE = ("#fafaf9", "#78716c")
ALT_EDGE = "#a8a29e"
GONE, NEW, REFORMED = "knocked out", "new", "re-formed"
TYPE_FONT, SMALL_FONT = 22, 16


# --- choosing the type --------------------------------------------------------------------------------
def default_type(tokeniser: BTETokeniser) -> str | None:
    """The paper's ``Ġbruids`` / ``_bruids`` if present, else the longest type containing "ids"
    (lowest rank among equals), else the last merge's result, else the first alphabet symbol."""
    types = tokeniser.types
    for candidate in DEFAULT_TYPES:
        if candidate in types:
            return candidate
    rank = {m.result: i for i, m in enumerate(tokeniser.merges)}
    with_ids = [t for t in types if "ids" in t]
    if with_ids:
        return min(with_ids, key=lambda t: (-len(t), rank.get(t, -1), t))
    if tokeniser.merges:
        return tokeniser.merges[-1].result
    return tokeniser.alphabet[0] if tokeniser.alphabet else None


def type_labels(tokeniser: BTETokeniser, display: Callable[[str], str] | None = None) -> dict[str, str]:
    """type -> the label people see (and the URL carries): the readable form of
    :func:`viz.tokens.shown`, made unique with the code points where two types read alike."""
    display = display or tokeniser.pretokeniser.display
    labels = {t: shown(t, display) for t in tokeniser.types}
    seen: dict[str, int] = defaultdict(int)
    for label in labels.values():
        seen[label] += 1
    return {t: (label if seen[label] == 1 else f"{label} [{code_points(t)}]") for t, label in labels.items()}


def similar_types(labels: Mapping[str, str], text: str, limit: int = 8) -> list[str]:
    """Up to ``limit`` types whose label contains ``text`` (case-insensitive), shortest first: the
    suggestions next to "not a type"."""
    needle = (text or "").strip().casefold()
    if not needle:
        return []
    found = [t for t, label in labels.items() if needle in label.casefold()]
    return sorted(found, key=lambda t: (len(labels[t]), labels[t]))[:limit]


def resolve_type(tokeniser: BTETokeniser, text: str | None, labels: Mapping[str, str]) -> tuple[str | None, str]:
    """The type a (URL) value names and how: ``"label"`` (its readable form as the type selector
    shows it and the URL carries it, e.g. ``é`` for the byte-level ``Ã©``), ``"exact"`` (the raw
    type string), ``"word start"`` (``bruids`` -> ``Ġbruids``, through the tokeniser's own
    pre-tokeniser), or ``(None, "")``."""
    if not isinstance(text, str) or not text or len(text) > 200:
        return None, ""
    by_label = {label: t for t, label in labels.items()}
    if text in by_label:  # first: the URL carries what the type selector shows
        return by_label[text], "label"
    if text in tokeniser.types:
        return text, "exact"
    try:
        pretokens = tokeniser.pretokeniser.pretokenise(" " + text)
    except InputError:  # a string the pre-tokeniser refuses names no type
        pretokens = []
    if len(pretokens) == 1 and pretokens[0] in tokeniser.types:
        return pretokens[0], "word start"
    return None, ""


# --- comparing with another tokeniser -------------------------------------------------------------------
def absent_merges(merges: Sequence[Merge], other: BTETokeniser | None) -> set[Merge]:
    """The merges (by parts) that ``other`` does not have; nothing without ``other``."""
    if other is None:
        return set()
    theirs = {m.parts for m in other.merges}
    return {m for m in merges if m.parts not in theirs}


def type_status(
    tokeniser: BTETokeniser, type_: str, other: BTETokeniser | None, absent: set[Merge], other_is_before: bool = False
) -> str:
    """How ``type_`` differs in ``other``: GONE (not a type of ``other``, which comes after an edit),
    NEW (not a type of ``other``, which comes before), REFORMED (a type of both, but the merge
    forming it here is absent there), or "" (the same)."""
    if other is None:
        return ""
    if type_ not in other.types:
        return NEW if other_is_before else GONE
    merge = tokeniser.primary_merge(type_)
    return REFORMED if merge is not None and merge in absent else ""


# --- node and edge data ---------------------------------------------------------------------------
def merge_text(merge: Merge, display: Callable[[str], str]) -> str:
    return " + ".join(shown(p, display) for p in merge.parts)


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


def fires_text(merge: Merge, fire_counts: Mapping[str, Mapping[Merge, int]] | None) -> str:
    """``fires 12× on the reference, 3× on the corpus`` (empty without counts)."""
    if not fire_counts:
        return ""
    return "fires " + ", ".join(f"{counts.get(merge, 0):,}× on the {name}" for name, counts in fire_counts.items())


def merges_lines(
    tokeniser: BTETokeniser,
    type_: str,
    display: Callable[[str], str],
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
) -> list[str]:
    """Tooltip lines: the merge forming ``type_`` (its primary one) and its alternatives, with counts."""
    merges = tokeniser.produced_by.get(type_, ())
    if not merges:
        return []
    primary = tokeniser.primary_merge(type_)
    lines = []
    for merge in sorted(merges, key=lambda m: (m != primary, m.rank)):
        kind = "tuple merge" if merge.is_tuple else "merge"
        fires = fires_text(merge, fire_counts)
        fires = f" ({fires})" if fires else ""
        if len(merges) == 1:
            lines.append(f"formed by {kind} {rank_text(merge.rank)}: {merge_text(merge, display)}{fires}")
        elif merge == primary:
            lines.append(
                f"formed by {kind} {rank_text(merge.rank)}: {merge_text(merge, display)} — primary: fires on "
                f"its own string{fires}"
            )
            lines.append(f"{len(merges) - 1} alternative{'s' if len(merges) > 2 else ''}:")
        else:
            lines.append(f"  alt {rank_text(merge.rank)}: {merge_text(merge, display)}{fires}")
    return lines


def _type_title(
    type_: str,
    role: str,
    tokeniser: BTETokeniser,
    hood: Neighbourhood,
    display: Callable[[str], str],
    status: str,
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
) -> str:
    lines = [shown(type_, display)]
    if role == OTHER:
        lines.append("outside the neighbourhood: a part of a merge shown here")
    else:
        lines.append(f"{ROLE_TEXT[role]} · distance {hood.distances.get(type_, 0)}")
    formed = merges_lines(tokeniser, type_, display, fire_counts)
    if formed:
        lines.extend(formed)
    elif type_ in tokeniser.alphabet:
        lines.append("an alphabet symbol (no merge forms it)")
    used = len(tokeniser.used_by.get(type_, ()))
    lines.append(f"used by {used:,} merge{'' if used == 1 else 's'}")
    if status:
        lines.append(status)
    lines.append(code_points(type_))
    lines.append("click: centre the graph on this type")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class _Drawing:
    """What every node and edge of one :func:`graph_elements` call needs."""

    tokeniser: BTETokeniser
    hood: Neighbourhood
    display: Callable[[str], str]
    other: BTETokeniser | None
    other_label: str
    other_is_before: bool
    fire_counts: Mapping[str, Mapping[Merge, int]] | None
    absent: set[Merge]
    levels: dict[str, int]
    scale: int

    @property
    def absent_text(self) -> str:
        if self.other_is_before:
            return f"new: not in {self.other_label}"
        return f"knocked out: absent from {self.other_label}"


STATUS_MARK = {GONE: ABSENT_MARK, NEW: NEW_MARK, REFORMED: REFORMED_MARK}


def _colour(background: str, border: str) -> dict:
    """A node's vis-network colour: its fill and border, a dark border when highlighted or hovered."""
    return {
        "background": background,
        "border": border,
        "highlight": {"background": background, "border": "#0f172a"},
        "hover": {"background": background, "border": "#0f172a"},
    }


def _edge_style(is_tuple: bool, gone: bool, alternative: bool) -> dict:
    """Colour, width and dashes of an arrow of a tuple, absent, alternative or plain merge."""
    colour = TUPLE_EDGE if is_tuple else (ABSENT_COLOUR if gone else ALT_EDGE if alternative else EDGE_COLOUR)
    return {"color": colour, "width": 3 if is_tuple else 1.5, "dashes": gone or ([3, 4] if alternative else False)}


def _alternative_text(tokeniser: BTETokeniser, result: str, display: Callable[[str], str]) -> str:
    primary = tokeniser.primary_merge(result)
    return f"an alternative: {shown(result, display)}'s own string is formed by {merge_text(primary, display)}"


def _status_text(drawing: _Drawing, type_: str, status: str) -> str:
    """The tooltip line saying how ``type_`` differs in the comparison tokeniser."""
    if status == GONE:
        return f"knocked out: not a type of {drawing.other_label}"
    if status == NEW:
        return f"new: not a type of {drawing.other_label}"
    if status == REFORMED:
        theirs = drawing.other.primary_merge(type_) if drawing.other is not None else None
        their_merge = f" ({merge_text(theirs, drawing.display)})" if theirs is not None else ""
        return f"re-formed: {drawing.other_label} forms this type with another merge{their_merge}"
    return ""


def _type_node(drawing: _Drawing, type_: str) -> dict:
    """The box of a type, styled by its role and marked if it differs in the comparison tokeniser."""
    role = drawing.hood.roles.get(type_, OTHER)
    background, border, radius = ROLE_STYLE[role]
    status = type_status(drawing.tokeniser, type_, drawing.other, drawing.absent, drawing.other_is_before)
    title = _type_title(
        type_,
        role,
        drawing.tokeniser,
        drawing.hood,
        drawing.display,
        _status_text(drawing, type_, status),
        drawing.fire_counts,
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
        "color": _colour(background, ABSENT_COLOUR if status else border),
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


def _merge_title(drawing: _Drawing, merge: Merge, alternative: bool, gone: bool) -> str:
    """The tooltip of a merge node: rank, parts and result, primary or alternative, counts, absence."""
    display, result = drawing.display, merge.result
    title = [
        f"{'tuple merge' if merge.is_tuple else 'merge'} {rank_text(merge.rank)}",
        f"{merge_text(merge, display)} → {shown(result, display)}",
    ]
    if rank_help(merge.rank):  # placed by reification between two integer ranks
        title.append(rank_help(merge.rank))
    several = len(drawing.tokeniser.produced_by.get(result, ()))
    if alternative:
        title.append(_alternative_text(drawing.tokeniser, result, display))
    elif several > 1:
        title.append(
            f"primary: forms {shown(result, display)} from its own string "
            f"({several - 1} alternative{'s' if several > 2 else ''})"
        )
    if drawing.fire_counts:
        title.append(fires_text(merge, drawing.fire_counts))
    if gone:
        title.append(drawing.absent_text)
    title.append("click: centre the graph on its result")
    return "\n".join(title)


def _merge_node(drawing: _Drawing, node_id: str, merge: Merge) -> dict:
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
        "title": _merge_title(drawing, merge, alternative, gone),
        "color": _colour(background, ABSENT_COLOUR if gone else border),
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


def _merges_view(drawing: _Drawing, other_parts: bool) -> tuple[list[dict], list[dict]]:
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
        style = _edge_style(merge.is_tuple, merge in drawing.absent, merge in hood.alternatives)
        edge = {"from": source, "to": target, **style}
        positions = data.get("positions")
        if positions and len(positions) > 1:
            edge["label"] = f"×{len(positions)}"
        edges.append(edge)
    return nodes, edges


def _type_edge_title(
    drawing: _Drawing,
    result: str,
    rank: float,
    merge: Merge | None,
    extras: Sequence[Merge],
    *,
    is_tuple: bool,
    alternative: bool,
    gone: bool,
) -> str:
    """The tooltip of a part -> result arrow: ``merge`` and the ``extras`` it also stands for, an
    alternative's primary merge, counts, absence."""
    display = drawing.display
    title = f"{'tuple merge' if is_tuple else 'merge'} {rank_text(rank)}"
    if merge is not None:
        title += f": {merge_text(merge, display)} → {shown(result, display)}"
    for extra in extras:
        title += f"\nmerge {rank_text(extra.rank)}: {merge_text(extra, display)} → {shown(result, display)}"
    if alternative:
        title += "\n" + _alternative_text(drawing.tokeniser, result, display)
    if drawing.fire_counts and merge is not None:
        title += "\n" + fires_text(merge, drawing.fire_counts)
    if gone:
        title += f"\n{drawing.absent_text}"
    return title


def _type_edge(drawing: _Drawing, part: str, result: str, datas: Sequence[dict], merges: Sequence[Merge]) -> dict:
    """One arrow from ``part`` to ``result`` for all the shown ``merges`` that use it (``datas``:
    the type graph's edge data, one per merge part)."""
    merge = merges[0] if merges else drawing.tokeniser.primary_merge(result)
    is_tuple = any(d["tuple"] for d in datas)
    gone = merge is not None and merge in drawing.absent
    alternative = bool(merges) and all(m in drawing.hood.alternatives for m in merges)
    title = _type_edge_title(
        drawing, result, datas[0]["rank"], merge, merges[1:], is_tuple=is_tuple, alternative=alternative, gone=gone
    )
    edge = {
        "from": type_node(part),
        "to": type_node(result),
        **_edge_style(is_tuple, gone, alternative),
        "title": title,
    }
    if alternative:
        edge["alternative"] = True
    if len(datas) > 1:
        edge["label"] = f"×{len(datas)}"
    return edge


def _types_view(drawing: _Drawing, other_parts: bool) -> tuple[list[dict], list[dict]]:
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
) -> tuple[list[dict], list[dict]]:
    """vis-network nodes and edges (plain dicts) for ``hood`` in ``view``, placed (:func:`place`).

    Alternative merges (``hood.alternatives``: not the merge that forms their result from its own
    string) are dashed grey and labelled ``alt``; ``fire_counts`` (name -> merge -> applications)
    go into the tooltips.

    ``other_parts=False`` leaves out the parts of shown merges that are outside the neighbourhood
    (a merge node still names them in its label).

    Every node carries ``focus``: the type a click recentres on (a merge node: its result). With
    ``other``, merges absent from it are marked: as knocked out (``out:``, red, dashed) when ``other``
    is the tokeniser after an edit, as new (``new:``, red, dashed) when ``other_is_before``.
    """
    drawing = _Drawing(
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
    )
    nodes, edges = (_merges_view if view == MERGES_VIEW else _types_view)(drawing, other_parts)
    place(nodes, edges, row_gap=110 if view == TYPES_VIEW else 80)
    return nodes, edges


# --- layout -----------------------------------------------------------------------------------------
CHAR_WIDTH = 0.61  # advance width of DejaVu Sans Mono, in em
MAX_ROW = 800  # a wider layer is split into staggered sub-rows (readable after fitting)


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
    position of their neighbours in the layer above, then below (barycentre sweeps) and packed
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
        pack(level)
    for sweep in range(sweeps):
        downward = sweep % 2 == 0
        neighbours = up if downward else down
        for level in levels if downward else reversed(levels):
            rows[level].sort(key=lambda node_id, near=neighbours: centre(node_id, near))
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


# --- HTML ---------------------------------------------------------------------------------------
def legend_items(
    view: str, comparing: bool, other_is_before: bool = False, alternatives: bool = False
) -> list[tuple[str, str]]:
    """(swatch style, text) pairs for the legend; the text is plain (escaped when rendered)."""
    items = []
    for role in (CENTER, ANCESTOR, DESCENDANT, HALF_SIBLING, OTHER):
        background, border, radius = ROLE_STYLE[role]
        items.append(
            (f"background:{background};border:2px solid {border};border-radius:{min(radius, 8)}px", ROLE_TEXT[role])
        )
    if view == MERGES_VIEW:
        items.append(
            (
                f"background:{MERGE_STYLE[0]};border:1px solid {MERGE_STYLE[1]};border-radius:0",
                "merge: #rank and its parts",
            )
        )
        items.append(
            (f"background:{TUPLE_STYLE[0]};border:3px solid {TUPLE_STYLE[1]};border-radius:0", "tuple merge (3+ parts)")
        )
    else:
        items.append((f"background:{TUPLE_EDGE};height:4px;border:0", "arrow of a tuple merge (3+ parts)"))
    if alternatives:
        items.append(
            (
                f"background:{ALT_STYLE[0]};border:2px dashed {ALT_STYLE[1]};border-radius:0",
                "alt: an alternative merge (the type's own string is formed by its primary merge)",
            )
        )
    if comparing:
        text = (
            "new: not in the tokeniser before (dashed)"
            if other_is_before
            else "out: knocked out, gone after the edit (dashed)"
        )
        items.append((f"background:#fff;border:3px dashed {ABSENT_COLOUR}", text))
        items.append(
            (f"background:#fff;border:3px dotted {ABSENT_COLOUR}", "re-formed: same type, other merge (dotted)")
        )
    return items


def legend_html(items: Sequence[tuple[str, str]]) -> str:
    return "".join(
        f'<span class="item"><span class="sw" style="{html_escape(style)}"></span>{html_escape(text)}</span>'
        for style, text in items
    )


def vis_options(node_count: int) -> dict:
    """vis-network options: positions come from :func:`place`, so no layout engine and no physics."""
    return {
        "layout": {"hierarchical": {"enabled": False}, "improvedLayout": False},
        "physics": {"enabled": False},
        "interaction": {
            "hover": True,
            "navigationButtons": True,
            "keyboard": False,
            "tooltipDelay": 120,
            "multiselect": False,
            "zoomSpeed": 0.6,
        },
        "edges": {
            "arrows": {"to": {"enabled": True, "scaleFactor": 0.7}},
            "smooth": False,
            "font": {"size": 16, "strokeWidth": 4, "align": "middle"},
            "selectionWidth": 1.5,
        },
        "nodes": {"margin": 10, "shadow": False},
    }


def build_network(nodes: Sequence[dict], edges: Sequence[dict], height: int = 560) -> Network:
    """A pyvis Network holding the nodes, edges and options (its CDN-loading templates unused)."""
    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="remote")
    for node in nodes:
        data = dict(node)
        net.add_node(data.pop("id"), label=data.pop("label"), shape=data.pop("shape"), color=data.pop("color"), **data)
    for edge in edges:
        data = {"arrows": {"to": {"enabled": True, "scaleFactor": 0.7}}, **edge}
        net.add_edge(data.pop("from"), data.pop("to"), **data)
    net.options = vis_options(len(nodes))
    return net


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Merge graph</title>
%(head)s
<style>
html, body { margin: 0; padding: 0; height: 100%%; background: #ffffff; color: #1c1917;
  font-family: "Source Sans Pro", "DejaVu Sans", system-ui, sans-serif; }
body { display: flex; flex-direction: column; }
.legend { flex: none; display: flex; flex-wrap: wrap; gap: 2px 16px; padding: 5px 10px; font-size: 15px;
  border-bottom: 1px solid #e7e5e4; background: #fafaf9; }
.legend .item { white-space: nowrap; }
.legend .sw { display: inline-block; box-sizing: border-box; width: 22px; height: 15px;
  vertical-align: -2px; margin-right: 6px; }
.note { flex: none; padding: 3px 10px; font-size: 15px; color: #44403c; }
#graph { width: 100%%; flex: 1 1 auto; min-height: 300px; }
#graph.failed { display: flex; align-items: center; justify-content: center; font-size: 18px; color: #b91c1c; }
div.vis-tooltip { white-space: pre-line; font-family: "DejaVu Sans Mono", monospace; font-size: 15px;
  line-height: 1.35; max-width: 520px; }
</style></head>
<body>
<div class="legend" id="legend">%(legend)s</div>
%(note)s<div id="graph" aria-label="%(aria)s"></div>
<script>
(function () {
  var container = document.getElementById("graph");
  if (typeof vis === "undefined") {
    container.className = "failed";
    container.textContent = "The graph library (vis-network) did not load: static/vis-network.min.js must be "
      + "served at /app/static/ (server.enableStaticServing = true in .streamlit/config.toml).";
    return;
  }
  var nodes = new vis.DataSet(%(nodes)s);
  var edges = new vis.DataSet(%(edges)s);
  var center = %(center)s;
  var network = new vis.Network(container, {nodes: nodes, edges: edges}, %(options)s);
  window.network = network;
  network.on("afterDrawing", function () { container.setAttribute("data-drawn", "1"); });
  function frame() {
    network.fit({animation: false, maxZoomLevel: 1.1});
    network.moveTo({scale: network.getScale() * 0.92, animation: false});  // a margin for the buttons
    if (network.getScale() < 0.55) {  // too small to read on a projector: zoom in around the center,
      var positions = network.getPositions();  // keeping the top of the graph in view
      var ys = Object.keys(positions).map(function (id) { return positions[id].y; });
      var half = container.clientHeight / 2 / 0.55 - 30;
      var top = Math.min.apply(null, ys) + half, bottom = Math.max.apply(null, ys) - half;
      var y = Math.min(Math.max(positions[center].y, top), Math.max(top, bottom));
      network.moveTo({position: {x: positions[center].x, y: y}, scale: 0.55, animation: false});
    }
  }
  frame();
  network.on("hoverNode", function () { container.style.cursor = "pointer"; });
  network.on("blurNode", function () { container.style.cursor = "default"; });
  network.on("click", function (params) {
    if (!params.nodes.length) return;
    var node = nodes.get(params.nodes[0]);
    if (!node || typeof node.focus !== "string") return;
    var host = window.frameElement;
    if (host && typeof host.__mergeGraphClick === "function") {
      host.__mergeGraphClick(node.focus);
    } else if (window.top !== window) {
      var url = new URL(window.top.location.href);
      url.searchParams.set("type", node.shown || node.focus);  // the URL carries the readable form
      window.top.location.href = url.toString();
    }
  });
  window.addEventListener("resize", frame);
})();
</script>
</body></html>
"""


def render_html(
    net: Network,
    center: str,
    *,
    legend: str = "",
    note: str = "",
    aria: str = "",
    inline: Mapping[str, str] | None = None,
) -> str:
    """The document for the iframe (the graph fills the height the legend leaves). ``inline`` maps
    VIS_JS / VIS_CSS to their text to embed them (a standalone file); otherwise they are loaded from
    STATIC_URL."""
    nodes, edges, _heading, _height, _width, options = net.get_network_data()
    if inline:
        head = f"<style>{inline[VIS_CSS]}</style>\n<script>{inline[VIS_JS]}</script>"
    else:
        head = f'<link rel="stylesheet" href="{STATIC_URL}{VIS_CSS}">\n<script src="{STATIC_URL}{VIS_JS}"></script>'
    return _TEMPLATE % {
        "head": head,
        "legend": legend,
        "note": f'<div class="note">{html_escape(note)}</div>\n' if note else "",
        "aria": html_escape(aria),
        "nodes": script_json(nodes),
        "edges": script_json(edges),
        "center": script_json(type_node(center)),
        "options": script_json(json.loads(options)),
    }


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
    )
    legend = legend_items(view, other is not None, other_is_before, bool(hood.alternatives))
    caption = f"{view} graph around {shown(hood.center, display)}: {len(hood.roles)} types, {len(hood.merges)} merges"
    return nodes, edges, legend, caption


def graph_html(
    tokeniser: BTETokeniser, hood: Neighbourhood, view: str = TYPES_VIEW, *, note: str = "", **options
) -> str:
    """The whole pipeline: :func:`graph_figure` (``options`` are its keywords), a pyvis network, the
    offline HTML document."""
    nodes, edges, legend, aria = graph_figure(tokeniser, hood, view, **options)
    return render_html(build_network(nodes, edges), hood.center, legend=legend_html(legend), note=note, aria=aria)


@lru_cache(maxsize=2)
def _library(static_dir: Path) -> tuple[str, str]:
    return ((static_dir / VIS_JS).read_text(encoding="utf-8"), (static_dir / VIS_CSS).read_text(encoding="utf-8"))


def standalone_html(document: str, static_dir: Path = STATIC_DIR) -> str:
    """``document`` with vis-network embedded instead of loaded from the app (a download)."""
    js, css = _library(static_dir)
    if "</script" in js.lower() or "</style" in css.lower():
        raise ValueError("vis-network cannot be embedded safely")
    linked = f'<link rel="stylesheet" href="{STATIC_URL}{VIS_CSS}">\n<script src="{STATIC_URL}{VIS_JS}"></script>'
    return document.replace(linked, f"<style>{css}</style>\n<script>{js}</script>", 1)


def html_key(document: str) -> str:
    """A short content hash: the component reloads its iframe only when the graph changed."""
    return hashlib.sha1(document.encode("utf-8")).hexdigest()[:16]


# --- the M_i / M_o table ------------------------------------------------------------------------------
def mio_rows(
    tokeniser: BTETokeniser,
    type_: str,
    display: Callable[[str], str] | None = None,
    *,
    other: BTETokeniser | None = None,
    other_label: str = "",
    other_is_before: bool = False,
) -> list[dict]:
    """One row per merge forming ``type_`` (M_i) and per merge using it (M_o), by rank.

    With ``other`` a last column says whether ``other`` has the same merge (same parts). When the
    tokeniser forms some type by several merges, a column says whether each merge is its result's
    primary merge or an alternative (not there with one merge per type).
    """
    display = display or tokeniser.pretokeniser.display
    theirs = {m.parts: m for m in other.merges} if other is not None else {}
    several = bool(tokeniser.multi_merge_types)
    rows = []
    for kind, merges in (
        ("M_i: forms it", tokeniser.produced_by.get(type_, ())),
        ("M_o: uses it", tokeniser.used_by.get(type_, ())),
    ):
        for merge in merges:
            row = {
                "set": kind,
                "rank": rank_text(merge.rank),
                "merge": merge_text(merge, display),
                "result": shown(merge.result, display),
                "parts": len(merge.parts),
                "tuple merge": "yes" if merge.is_tuple else "",
            }
            if several:
                row["forms the result from its own string"] = (
                    "yes (primary)" if is_primary(tokeniser, merge) else "no (alternative)"
                )
            if other is not None:
                match = theirs.get(merge.parts)
                instead = other.primary_merge(merge.result)
                if match is None and other_is_before:
                    row[other_label] = "new (absent before)"
                elif match is None and instead is not None:
                    row[other_label] = f"replaced by {merge_text(instead, display)} ({rank_text(instead.rank)})"
                elif match is None:
                    row[other_label] = "knocked out"
                else:
                    row[other_label] = "same" if match.rank == merge.rank else f"rank {rank_text(match.rank)}"
            rows.append(row)
    return rows


def type_merge_rows(
    tokeniser: BTETokeniser,
    type_: str,
    display: Callable[[str], str] | None = None,
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
) -> list[dict]:
    """Every merge forming ``type_``, the primary one first: rank, parts, primary or alternative,
    and how often each fires (one column per ``fire_counts`` entry)."""
    display = display or tokeniser.pretokeniser.display
    merges = tokeniser.produced_by.get(type_, ())
    primary = tokeniser.primary_merge(type_)
    rows = []
    for merge in sorted(merges, key=lambda m: (m != primary, m.rank)):
        row = {
            "merge": merge_text(merge, display),
            "rank": rank_text(merge.rank),
            "kind": (
                "primary (forms it from its own string)"
                if len(merges) > 1 and merge == primary
                else "its only merge"
                if len(merges) == 1
                else "alternative"
            ),
        }
        if primary == merge and len(merges) > 1 and not tokeniser.self_formed(type_):
            row["kind"] = "lowest rank (its own string does not form it)"
        for name, counts in (fire_counts or {}).items():
            row[f"fires on the {name}"] = counts.get(merge, 0)
        rows.append(row)
    return rows
