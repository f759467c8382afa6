"""Segmentation trees as inline SVG: characters at the leaves, one box per merge with its rank.

Pure builder (no Streamlit): :func:`merge_tree_svg` takes the merge trees of a word's pretokens
(:class:`core.segmentation.MergeTree`, or anything with ``token``, ``start``, ``merge``, ``step``
and ``children``) and returns an SVG document; :func:`svg_html` wraps it for ``st.html``. Every text goes through
:func:`viz.escaping.html_escape`; tokens are shown in their readable form (:func:`viz.tokens.shown`).

Reading the picture:

- a node sits above the characters it covers, at the height of its subtree; a tuple merge
  (three or more parts, bpe-knockout.txt §3.2) is drawn in violet with all its edges;
- ``done`` (per pretoken: how many of its merges have fired) turns the tree into a step view:
  merges not fired yet are dashed ghosts, the merge that fired last has a thick orange border,
  and the tokens at that step (the roots of what has formed) are filled with the chip colours;
- ``reference`` (pairs ``(pretoken index, boundary offset)``) draws the reference's split
  positions as red dashed lines; a merge that removed such a boundary gets a red border (blame).
"""
from __future__ import annotations

from typing import Callable, Collection, Sequence

from viz.escaping import html_escape
from viz.tokens import CHIP_COLOURS, shown

FONT = "ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"
CHAR_PX = 11.4         # width of one monospace character at TOKEN_PX
TOKEN_PX = 19
RANK_PX = 12.5
MIN_CELL = 40
ROW = 74               # vertical distance between tree levels
LEAF_H = 34
NODE_H = 48
MARGIN = 12
GAP_CELLS = 1          # empty cells between two pretokens

INK = "#1c1917"
GHOST = "#a8a29e"
TUPLE_FILL = "#ede9fe"
TUPLE_STROKE = "#6d28d9"
BLAME = "#dc2626"
LAST = "#ea580c"
HIGHLIGHT = "#2563eb"
HIGHLIGHT = "#2563eb"   # nodes a caller asks to highlight (e.g. the merges a ReBPE step changed)


def _rank(rank) -> str:
    return str(int(rank)) if isinstance(rank, float) and rank.is_integer() else str(rank)


def _height(node) -> int:
    return 0 if not node.children else 1 + max(_height(c) for c in node.children)


def _label_width(text: str, px: float = TOKEN_PX) -> float:
    return len(text) * CHAR_PX * px / TOKEN_PX


def merge_tree_svg(
    pretokens: Sequence[tuple[str, Sequence]],
    display: Callable[[str], str] = lambda t: t,
    *,
    done: Sequence[int] | None = None,
    last_step: tuple[int, int] | None = None,
    reference: Collection[tuple[int, int]] = (),
    caption: str = "",
    highlight: Collection = (),
) -> str:
    """The merge trees of a word's pretokens, side by side, as one ``<svg>`` in a scrolling ``<div>``.

    ``pretokens`` holds ``(pretoken text, its final merge trees)``; ``done[i]`` is how many of
    pretoken i's merges have fired (default: all); ``last_step`` is ``(pretoken index, local
    step)`` of the merge that fired last (highlighted); ``reference`` the reference boundaries as
    ``(pretoken index, offset)``, offset k being the boundary after character k; ``highlight``
    merges (:class:`core.model.Merge`) and/or token strings whose nodes get a thick blue border.
    """
    reference = set(reference)
    leaf_labels = [shown(ch, display) for text, _ in pretokens for ch in text]
    cell = max([MIN_CELL, *(_label_width(label) + 12 for label in leaf_labels)])
    columns: list[int] = []  # first column of each pretoken
    col = 0
    for text, _ in pretokens:
        columns.append(col)
        col += len(text) + GAP_CELLS
    total_cols = max(col - GAP_CELLS, 1)
    levels = max((_height(t) for _, trees in pretokens for t in trees), default=0)
    width = total_cols * cell + 2 * MARGIN
    top = MARGIN + 6
    bottom = top + levels * ROW + LEAF_H / 2
    height = bottom + LEAF_H / 2 + MARGIN

    edges: list[str] = []
    boxes: list[str] = []
    lines: list[str] = []

    for i, (text, trees) in enumerate(pretokens):
        limit = len(text) if done is None else done[i]  # steps are < len(text)
        limit = 10**9 if done is None else limit
        roots = _roots(trees, limit)
        root_colour = {id(node): CHIP_COLOURS[n % len(CHIP_COLOURS)] for n, node in enumerate(roots)}

        def x_of(node) -> float:
            return MARGIN + (columns[i] + node.start + len(node.token) / 2) * cell

        def y_of(node) -> float:
            return bottom - _height(node) * ROW

        def draw(node) -> None:
            formed = node.merge is None or node.step < limit
            x, y = x_of(node), y_of(node)
            for child in node.children:
                child_formed = formed
                cx, cy = x_of(child), y_of(child)
                child_h = LEAF_H if child.merge is None else NODE_H
                style = (f'stroke="{INK}" stroke-width="1.6"' if child_formed
                         else f'stroke="{GHOST}" stroke-width="1.2" stroke-dasharray="4 4"')
                edges.append(f'<line x1="{x:.1f}" y1="{y + NODE_H / 2:.1f}" x2="{cx:.1f}" '
                             f'y2="{cy - child_h / 2:.1f}" {style}/>')
                draw(child)
            label = shown(node.token, display)
            is_tuple = len(node.children) > 2
            crosses = any((i, c.start - 1) in reference for c in node.children[1:])
            box_h = LEAF_H if node.merge is None else NODE_H
            rank_text = "" if node.merge is None else f"#{_rank(node.merge.rank)}" + (" tuple" if is_tuple else "")
            box_w = max(_label_width(label) + 14, _label_width(rank_text, RANK_PX) + 12, 26)
            fill = root_colour.get(id(node), TUPLE_FILL if is_tuple else "#ffffff")
            stroke, stroke_w, dash, opacity = INK, 1.4, "", 1.0
            if is_tuple:
                stroke = TUPLE_STROKE
            if crosses:
                stroke, stroke_w = BLAME, 2.6
            if node.merge is not None and node.merge in highlight:
                stroke, stroke_w = HIGHLIGHT, 3.4
            if last_step is not None and node.merge is not None and (i, node.step) == tuple(last_step) and formed:
                stroke, stroke_w = LAST, 3.4
            highlighted = bool(highlight) and ((node.merge is not None and node.merge in highlight)
                                               or node.token in highlight)
            if highlighted:
                stroke, stroke_w = HIGHLIGHT, 3.4
            if not formed:
                fill, stroke, stroke_w, dash, opacity = "#ffffff", BLAME if crosses else GHOST, 1.2, ' stroke-dasharray="4 3"', 0.45
            classes = ["tree-node", "leaf" if node.merge is None else "merge"]
            if not formed:
                classes.append("ghost")
            if id(node) in root_colour:
                classes.append("current")
            if is_tuple:
                classes.append("tuple")
            if crosses:
                classes.append("crosses-reference")
            if node.merge is not None and node.merge in highlight:
                classes.append("highlight")
            if highlighted:
                classes.append("highlight")
            title = f"{node.token!r}"
            if node.merge is not None:
                title += f" = {' + '.join(map(repr, node.merge.parts))}, rank {_rank(node.merge.rank)}"
            boxes.append(
                f'<g class="{" ".join(classes)}" data-token="{html_escape(node.token)}" opacity="{opacity}">'
                f"<title>{html_escape(title)}</title>"
                f'<rect x="{x - box_w / 2:.1f}" y="{y - box_h / 2:.1f}" width="{box_w:.1f}" height="{box_h}" rx="7" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="{stroke_w}"{dash}/>'
                f'<text x="{x:.1f}" y="{y - (6 if rank_text else -6.5):.1f}" text-anchor="middle" font-size="{TOKEN_PX}" '
                f'fill="{INK}" style="white-space:pre">{html_escape(label)}</text>'
                + (f'<text x="{x:.1f}" y="{y + 15:.1f}" text-anchor="middle" font-size="{RANK_PX}" '
                   f'fill="{BLAME if crosses else "#57534e"}">{html_escape(rank_text)}</text>' if rank_text else "")
                + "</g>"
            )

        for tree in trees:
            draw(tree)
        for (p, k) in sorted(reference):
            if p == i and 0 <= k < len(text) - 1:
                x = MARGIN + (columns[i] + k + 1) * cell
                lines.append(f'<line class="reference-split" x1="{x:.1f}" y1="{top - 6:.1f}" x2="{x:.1f}" '
                             f'y2="{bottom + LEAF_H / 2 + 4:.1f}" stroke="{BLAME}" stroke-width="2" '
                             f'stroke-dasharray="6 4" opacity="0.8"/>')

    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}" role="img">'
        f"<title>{html_escape(caption or 'segmentation tree')}</title>"
        f'<rect width="100%" height="100%" fill="#ffffff"/>'
        + "".join(lines) + "".join(edges) + "".join(boxes)
        + "</svg>"
    )


def tree_svg(trees: Sequence, display: Callable[[str], str] = lambda t: t, highlight: Collection = ()) -> str:
    """The final merge trees of one word (its pretokens' trees one after the other, each root's
    ``start`` relative to its own pretoken) as a one-line SVG; ``highlight`` merges get a blue border.

    Shared with the stepper page, which shows before/after trees of an edit with ``st.markdown(...,
    unsafe_allow_html=True)``.
    """
    groups: list[list] = []
    end = None
    for tree in trees:
        if end is None or tree.start < end:  # a new pretoken starts over at 0
            groups.append([])
        groups[-1].append(tree)
        end = tree.start + len(tree.token)
    pretokens = [("".join(t.token for t in group), group) for group in groups]
    # Offsets inside a pretoken are relative to its first root (0 for a whole pretoken).
    pretokens = [(" " * group[0].start + text, group) for text, group in pretokens]
    return merge_tree_svg(pretokens, display, highlight=highlight)


def svg_html(svg: str, alt: str = "segmentation tree") -> str:
    """An SVG as an ``<img>`` with a ``data:`` URI, in a horizontally scrolling ``<div>``.

    ``st.html`` sanitises markup with an HTML-only profile that drops inline ``<svg>``; an image
    keeps it intact (and offline: the picture travels inside the page).
    """
    import base64

    import re

    encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    found = re.search(r'<svg[^>]* width="(\d+)"', svg)
    width = int(found.group(1)) if found else 0
    # A wide tree (a long word) shrinks to the page width, but never below 70% of its size, so
    # that a projector audience can still read it; beyond that the tree scrolls sideways.
    size = f"width:min({width}px, max(100%, {round(width * 0.7)}px));max-width:none" if width else "max-width:none"
    return ('<div class="merge-tree" style="overflow-x:auto;padding:4px 0">'
            f'<img alt="{html_escape(alt)}" src="data:image/svg+xml;base64,{encoded}" style="{size}"/></div>')


def svg_from_html(markup: str) -> str:
    """The SVG inside :func:`svg_html`'s markup (for tests and exports)."""
    import base64
    import re

    found = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', markup)
    return base64.b64decode(found.group(1)).decode("utf-8") if found else ""


def _roots(trees: Sequence, done: int) -> list:
    """The nodes that are tokens after ``done`` steps (nodes formed at a later step dissolve)."""
    out = []
    for tree in trees:
        if tree.merge is None or tree.step < done:
            out.append(tree)
        else:
            out.extend(_roots(tree.children, done))
    return out


TREE_LEGEND = (
    '<div class="tree-legend" style="font-size:0.95rem;line-height:1.9">'
    '<span style="display:inline-block;width:1.1em;height:0.9em;border:3px solid #ea580c;border-radius:4px;'
    'vertical-align:middle"></span> the merge that fired last &nbsp; '
    '<span style="display:inline-block;width:1.1em;height:0.9em;border:1.5px dashed #a8a29e;border-radius:4px;'
    'vertical-align:middle"></span> not fired yet &nbsp; '
    '<span style="display:inline-block;width:1.1em;height:0.9em;background:#ede9fe;border:1.5px solid #6d28d9;'
    'border-radius:4px;vertical-align:middle"></span> tuple merge &nbsp; '
    '<span style="display:inline-block;width:1.1em;height:0.9em;border:2.5px solid #dc2626;border-radius:4px;'
    'vertical-align:middle"></span> merge that crossed a reference boundary &nbsp; '
    '<span style="display:inline-block;width:0;height:1em;border-left:2px dashed #dc2626;vertical-align:middle;'
    'margin:0 4px"></span> reference split &nbsp; filled boxes = the tokens at this step'
    "</div>"
)
