"""The merge-graph neighbourhood of a type as a standalone SVG figure ([knockout Fig. 1 and
Fig. 11] views), for papers and slides.

It draws exactly what the interactive view shows: the nodes and edges of
:func:`viz.graph_elements.graph_elements`, at the positions :func:`viz.graph_layout.place` computed,
with the same colours, borders, dashes and labels, and the same legend. The document is
standalone: ``xmlns``, a white background, system monospace fonts, no CSS or links, and every text
through :func:`viz.escaping.html_escape`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from core.bpe.graph import Neighbourhood
from core.bpe.model import BTETokeniser
from viz.escaping import html_escape
from viz.graph_elements import graph_figure
from viz.graph_layout import node_width
from viz.graph_style import TYPE_FONT, TYPES_VIEW

FONT = "DejaVu Sans Mono,monospace"
LEGEND_FONT = "DejaVu Sans,sans-serif"
LINE = 1.25  # line height, in em
PAD = 24  # px around the drawing
LEGEND_PX = 15
LEGEND_ROW = 24
LEGEND_ADVANCE = 0.55  # average advance of the legend's proportional font, in em


def node_box(node: Mapping) -> tuple[float, float, float, float]:
    """(left, top, width, height) of a node as vis-network draws a box around its label."""
    size = node.get("font", {}).get("size", TYPE_FONT)
    lines = str(node["label"]).count("\n") + 1
    width = node_width(node)
    height = lines * size * LINE + 2 * node.get("margin", 10)
    return node["x"] - width / 2, node["y"] - height / 2, width, height


def _clip(box: tuple[float, float, float, float], towards: tuple[float, float]) -> tuple[float, float]:
    """Where the segment from the box's centre to ``towards`` leaves the box."""
    left, top, width, height = box
    cx, cy = left + width / 2, top + height / 2
    dx, dy = towards[0] - cx, towards[1] - cy
    if dx == dy == 0:
        return cx, cy
    scale = min(width / 2 / abs(dx) if dx else float("inf"), height / 2 / abs(dy) if dy else float("inf"))
    return cx + dx * scale, cy + dy * scale


def _dashes(value) -> str:
    if value is True:
        return ' stroke-dasharray="8 5"'
    if isinstance(value, (list, tuple)) and value:
        return f' stroke-dasharray="{" ".join(str(v) for v in value)}"'
    return ""


def _marker_id(colour: str) -> str:
    return "arrow-" + re.sub(r"[^0-9a-zA-Z]", "", colour)


def _centre(box: tuple) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _edge(edge: Mapping, boxes: Mapping[str, tuple]) -> str:
    source, target = boxes[edge["from"]], boxes[edge["to"]]
    x1, y1 = _clip(source, _centre(target))
    x2, y2 = _clip(target, _centre(source))
    colour = edge.get("color", "#57534e")
    out = (
        f'<line class="edge" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{html_escape(colour)}" '
        f'stroke-width="{edge.get("width", 1.5)}"{_dashes(edge.get("dashes"))} '
        f'marker-end="url(#{_marker_id(colour)})">'
        + (f"<title>{html_escape(edge['title'])}</title>" if edge.get("title") else "")
        + "</line>"
    )
    if edge.get("label"):
        out += (
            f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 + 5:.1f}" text-anchor="middle" font-size="16" '
            f'stroke="#ffffff" stroke-width="4" paint-order="stroke" fill="#1c1917">'
            f"{html_escape(edge['label'])}</text>"
        )
    return out


def _node(node: Mapping, box: tuple[float, float, float, float]) -> str:
    left, top, width, height = box
    colour = node.get("color", {})
    font = node.get("font", {})
    size = font.get("size", TYPE_FONT)
    radius = min(node.get("shapeProperties", {}).get("borderRadius", 4), height / 2)
    lines = str(node["label"]).split("\n")
    first = node["y"] - (len(lines) - 1) * size * LINE / 2 + size * 0.36
    spans = "".join(
        f'<tspan x="{node["x"]:.1f}" y="{first + i * size * LINE:.1f}">{html_escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    weight = ' font-weight="bold"' if font.get("bold") else ""
    return (
        f'<g class="node" data-role="{html_escape(node.get("role", ""))}">'
        + (f"<title>{html_escape(node['title'])}</title>" if node.get("title") else "")
        + f'<rect x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height:.1f}" rx="{radius:.1f}" '
        f'fill="{html_escape(colour.get("background", "#ffffff"))}" '
        f'stroke="{html_escape(colour.get("border", "#1c1917"))}" stroke-width="{node.get("borderWidth", 1)}"'
        f"{_dashes(node.get('shapeProperties', {}).get('borderDashes'))}/>"
        f'<text text-anchor="middle" font-size="{size}" fill="{html_escape(font.get("color", "#1c1917"))}"'
        f'{weight} style="white-space:pre">{spans}</text></g>'
    )


def _css(style: str) -> dict[str, str]:
    return dict((k.strip(), v.strip()) for k, v in (part.split(":", 1) for part in style.split(";") if ":" in part))


def legend_swatch(style: str, x: float, y: float) -> str:
    """A legend swatch of :func:`viz.graph_style.legend_items` (CSS: background, border, radius,
    or a 4px-high bar for an arrow colour) as an SVG rectangle 22×15 at (x, y)."""
    css = _css(style)
    fill = css.get("background", "none")
    if css.get("height") == "4px":  # an arrow colour
        return f'<rect x="{x}" y="{y + 5.5}" width="22" height="4" fill="{html_escape(fill)}"/>'
    width, kind, colour = [*css.get("border", "1px solid #1c1917").split(), "solid", "#1c1917"][:3]
    dash = {"dashed": ' stroke-dasharray="5 3"', "dotted": ' stroke-dasharray="1.5 2.5"'}.get(kind, "")
    radius = min(float(css.get("border-radius", "0px").rstrip("px") or 0), 7.5)
    return (
        f'<rect x="{x}" y="{y}" width="22" height="15" rx="{radius}" fill="{html_escape(fill)}" '
        f'stroke="{html_escape(colour)}" stroke-width="{float(width.rstrip("px"))}"{dash}/>'
    )


def _legend(items: Sequence[tuple[str, str]], width: float) -> tuple[list[str], float]:
    """The legend items wrapped into lines of at most ``width`` px; its parts and its height."""
    parts, x, y = [], PAD, PAD
    for style, text in items:
        item_width = 30 + len(text) * LEGEND_PX * LEGEND_ADVANCE + 18
        if x > PAD and x + item_width > width - PAD:
            x, y = PAD, y + LEGEND_ROW
        parts.append(
            legend_swatch(style, x, y) + f'<text x="{x + 30}" y="{y + 12.5}" font-size="{LEGEND_PX}">'
            f"{html_escape(text)}</text>"
        )
        x += item_width
    return parts, (y + LEGEND_ROW - PAD if items else 0)


def elements_svg(
    nodes: Sequence[Mapping],
    edges: Sequence[Mapping],
    legend: Sequence[tuple[str, str]] = (),
    *,
    caption: str = "",
    note: str = "",
) -> str:
    """Placed nodes and edges (:func:`viz.graph_elements.graph_elements`) and legend items as an SVG."""
    boxes = {node["id"]: node_box(node) for node in nodes}
    if boxes:
        left = min(b[0] for b in boxes.values())
        right = max(b[0] + b[2] for b in boxes.values())
        top = min(b[1] for b in boxes.values())
        bottom = max(b[1] + b[3] for b in boxes.values())
    else:
        left = right = top = bottom = 0.0
    width = max(right - left + 2 * PAD, 640)
    legend, legend_height = _legend(legend, width)
    note_height = 26 if note else 0
    head = PAD + legend_height + note_height + (16 if legend_height else 0)
    height = head + bottom - top + PAD
    dx, dy = PAD - left + (width - 2 * PAD - (right - left)) / 2, head - top
    colours = sorted({edge.get("color", "#57534e") for edge in edges})
    markers = "".join(
        f'<marker id="{_marker_id(c)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{html_escape(c)}"/></marker>'
        for c in colours
    )
    known = [edge for edge in edges if edge["from"] in boxes and edge["to"] in boxes]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}" role="img">'
        f"<title>{html_escape(caption or 'merge graph')}</title><defs>{markers}</defs>"
        '<rect width="100%" height="100%" fill="#ffffff"/>'
        f'<g class="legend" font-family="{LEGEND_FONT}" fill="#1c1917">{"".join(legend)}</g>'
        + (
            f'<text class="note" x="{PAD}" y="{PAD + legend_height + 18}" font-family="{LEGEND_FONT}" '
            f'font-size="{LEGEND_PX}" fill="#44403c">{html_escape(note)}</text>'
            if note
            else ""
        )
        + f'<g transform="translate({dx:.1f},{dy:.1f})">'
        + "".join(_edge(edge, boxes) for edge in known)
        + "".join(_node(node, boxes[node["id"]]) for node in nodes)
        + "</g></svg>"
    )


def graph_svg(
    tokeniser: BTETokeniser, hood: Neighbourhood, view: str = TYPES_VIEW, *, note: str = "", **options
) -> str:
    """The figure of :func:`viz.graph_html.graph_html` (same arguments: ``options`` are the keywords
    of :func:`viz.graph_elements.graph_figure`) as a standalone SVG."""
    nodes, edges, legend, caption = graph_figure(tokeniser, hood, view, **options)
    return elements_svg(nodes, edges, legend, caption=caption, note=note)
