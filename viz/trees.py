"""Segmentation trees as inline SVG: characters at the leaves, one box per merge with its rank.

Pure builder (no Streamlit): :func:`merge_tree_svg` takes the merge trees of a word's pretokens
(:class:`core.bpe.segmentation.MergeTree`, or anything with ``token``, ``start``, ``merge``, ``step``
and ``children``) and returns an SVG document; :func:`svg_html` wraps it for ``st.html`` (as an image)
and :func:`inline_tree_html` for ``st.markdown`` (inline: the nodes' tooltips show);
:func:`merge_tree_forest` (:mod:`viz.tree_tikz`) writes the same tree as LaTeX for papers. Every
text goes through :func:`viz.escaping.html_escape`; tokens are shown in their readable form
(:func:`viz.tokens.drawn`); ranks through :func:`viz.ranks.rank_text`.

Reading the picture (:mod:`viz.tree_states` decides, :func:`tree_legend_html` explains):

- a node sits above the symbols it covers, at the height of its subtree; a tuple merge (three or
  more parts, [knockout §3.2]) has a violet inner border and "tuple" after its rank;
- ``done`` (per pretoken: how many of its merges have fired) turns the tree into a step view:
  merges not fired yet are dashed ghosts, the merge that fired last has a thick orange border,
  and the tokens at that step are filled with the chip colours (a tree without ``done`` fills its
  final tokens);
- ``reference`` (pairs ``(pretoken index, boundary offset)``) draws the reference's split
  positions as red dashed lines; a merge that removed such a boundary gets a red border (blame);
- when a character is spelled by several leaves (the bytes of ``é`` in a byte-level tokeniser, the
  code points of a ZWJ sequence), a grey box under those leaves shows the character.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from viz.escaping import html_escape
from viz.ranks import id_rank_text, rank_help, rank_text
from viz.tokens import columns, drawn
from viz.tree_states import (
    BLAME,
    CHARACTER_FILL,
    CHARACTER_STROKE,
    INK,
    TUPLE,
    NodeState,
    height,
    node_states,
    spelled_characters,
    tree_legend_html,
)
from viz.tree_tikz import merge_tree_forest

FONT = "DejaVu Sans Mono,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"
CHAR_PX = 11.4  # width of one monospace character at TOKEN_PX
TOKEN_PX = 19
RANK_PX = 15  # a 7-digit rank still fits the box of a two-character merge
#: The smallest scale at which every label of a tree stays 14 px or more (presentation mode).
LEGIBLE_SCALE = 14 / min(TOKEN_PX, RANK_PX)
MIN_CELL = 40
ROW = 74  # vertical distance between tree levels
LEAF_H = 34
NODE_H = 54  # room above the token for the dot of Ġ, clear of the box's border
CHARACTER_H = 30  # the row of characters under their bytes
MARGIN = 12
GAP_CELLS = 1  # empty cells between two pretokens
RANK_INK = "#57534e"

#: The legend of the word debugger's step view (pages pass other flags to :func:`tree_legend_html`).
TREE_LEGEND = tree_legend_html()

__all__ = [
    "LEGIBLE_SCALE",
    "TREE_LEGEND",
    "inline_tree_html",
    "merge_tree_forest",
    "merge_tree_svg",
    "svg_from_html",
    "svg_html",
    "tree_legend_html",
    "tree_svg",
    "word_pretokens",
]


def _label_width(text: str, px: float = TOKEN_PX) -> float:
    return columns(text) * CHAR_PX * px / TOKEN_PX


def _node_title(node, display: Callable[[str], str], ids: Mapping[str, int]) -> str:
    """The tooltip: the token, its parts, its id and the rank of the merge forming it (both labelled)."""
    title = drawn(node.token, display)
    if node.merge is not None:
        parts = " + ".join(drawn(p, display) for p in node.merge.parts)
        title += f" = {parts} · {id_rank_text(ids.get(node.token), node.merge.rank)}"
        if rank_help(node.merge.rank):
            title += f". {rank_help(node.merge.rank)}"
    elif node.token in ids:
        title += f" · id {ids[node.token]}"
    return title


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where one picture's pieces go: one ``cell`` per leaf column, pretoken i from column
    ``starts[i]``, the leaves' centres at ``bottom`` and each tree level ``ROW`` higher."""

    cell: float
    starts: list[int]
    top: float
    bottom: float
    width: float
    height: float

    def column_x(self, pretoken: int, column: float) -> float:
        return MARGIN + (self.starts[pretoken] + column) * self.cell

    def node_x(self, pretoken: int, node) -> float:
        return MARGIN + (self.starts[pretoken] + node.start + len(node.token) / 2) * self.cell

    def row_y(self, level: int) -> float:
        """The centre of the nodes whose subtree is ``level`` merges high (0: the leaves)."""
        return self.bottom - level * ROW


def _layout(pretokens: Sequence[tuple[str, Sequence]], display: Callable[[str], str], spelled: bool) -> _Layout:
    """Cells wide enough for the widest leaf label, pretokens ``GAP_CELLS`` apart, rows for the
    tallest tree (and for the characters' row when ``spelled``)."""
    leaf_labels = [drawn(ch, display) for text, _ in pretokens for ch in text]
    cell = max([MIN_CELL, *(_label_width(label) + 20 for label in leaf_labels)])  # 14 px of box padding, 6 apart
    starts: list[int] = []  # first column of each pretoken
    col = 0
    for text, _ in pretokens:
        starts.append(col)
        col += len(text) + GAP_CELLS
    total_cols = max(col - GAP_CELLS, 1)
    levels = max((height(t) for _, trees in pretokens for t in trees), default=0)
    top = MARGIN + 6
    bottom = top + levels * ROW + LEAF_H / 2
    below = bottom + LEAF_H / 2 + (CHARACTER_H + 6 if spelled else 0)
    return _Layout(cell, starts, top, bottom, total_cols * cell + 2 * MARGIN, below + MARGIN)


def _child_lines(layout: _Layout, state: NodeState, x: float, y: float) -> list[str]:
    """A line from a merge node (drawn at ``x``, ``y``) down to each of its children: solid once
    fired, dashed before."""
    node, i = state.node, state.pretoken
    style = (
        f'stroke="{INK}" stroke-width="1.6"'
        if state.formed
        else f'stroke="{state.outline[0]}" stroke-width="1.2" stroke-dasharray="4 4"'
    )
    lines = []
    for child in node.children:
        cx, cy = layout.node_x(i, child), layout.row_y(height(child))
        child_h = LEAF_H if child.merge is None else NODE_H
        lines.append(
            f'<line x1="{x:.1f}" y1="{y + NODE_H / 2:.1f}" x2="{cx:.1f}" y2="{cy - child_h / 2:.1f}" {style}/>'
        )
    return lines


def _node_box(state: NodeState, x: float, y: float, display: Callable[[str], str], ids: Mapping[str, int]) -> str:
    """A node's box centred at ``x``, ``y``: its token and, for a merge, its rank; styled by what it
    is at the step."""
    node = state.node
    label = drawn(node.token, display)
    box_h = LEAF_H if node.merge is None else NODE_H
    rank = "" if node.merge is None else rank_text(node.merge.rank) + (" tuple" if state.is_tuple else "")
    box_w = max(_label_width(label) + 14, _label_width(rank, RANK_PX) + 16, 26)
    stroke, stroke_w, dashed = state.outline
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    opacity = 1.0 if state.formed else 0.45
    inner = ""
    if state.is_tuple:  # inside the outline, so a filled, outlined tuple merge still shows it
        inset = stroke_w / 2 + 2.5
        inner = (
            f'<rect class="tuple-border" x="{x - box_w / 2 + inset:.1f}" y="{y - box_h / 2 + inset:.1f}" '
            f'width="{box_w - 2 * inset:.1f}" height="{box_h - 2 * inset:.1f}" rx="5" fill="none" '
            f'stroke="{TUPLE}" stroke-width="2"/>'
        )
    rank_colour = BLAME if state.crosses else (TUPLE if state.is_tuple else RANK_INK)
    rank_text_svg = (
        f'<text x="{x:.1f}" y="{y + 18:.1f}" text-anchor="middle" font-size="{RANK_PX}" '
        f'fill="{rank_colour}">{html_escape(rank)}</text>'
        if rank
        else ""
    )
    return (
        f'<g class="{" ".join(state.classes)}" data-token="{html_escape(node.token)}" opacity="{opacity}">'
        f"<title>{html_escape(_node_title(node, display, ids))}</title>"
        f'<rect x="{x - box_w / 2:.1f}" y="{y - box_h / 2:.1f}" width="{box_w:.1f}" height="{box_h}" rx="7" '
        f'fill="{state.fill}" stroke="{stroke}" stroke-width="{stroke_w}"{dash}/>{inner}'
        f'<text x="{x:.1f}" y="{y - (4 if rank else -6.5):.1f}" text-anchor="middle" font-size="{TOKEN_PX}" '
        f'fill="{INK}" style="white-space:pre">{html_escape(label)}</text>' + rank_text_svg + "</g>"
    )


def _reference_lines(layout: _Layout, i: int, text: str, reference: Collection[tuple[int, int]]) -> list[str]:
    """Red dashed lines at the reference's split positions inside pretoken ``i``."""
    lines = []
    for p, k in sorted(set(reference)):
        if p == i and 0 <= k < len(text) - 1:
            x = layout.column_x(i, k + 1)
            lines.append(
                f'<line class="reference-split" x1="{x:.1f}" y1="{layout.top - 6:.1f}" x2="{x:.1f}" '
                f'y2="{layout.bottom + LEAF_H / 2 + 4:.1f}" stroke="{BLAME}" stroke-width="2" '
                f'stroke-dasharray="6 4" opacity="0.8"/>'
            )
    return lines


def _character_box(layout: _Layout, i: int, text: str, character) -> str:
    """A grey box under the leaves that spell one character, showing that character."""
    left = layout.column_x(i, character.start) + 3
    span = character.symbols * layout.cell - 6
    symbols = text[character.start : character.end]
    row = layout.bottom + LEAF_H / 2 + 6
    return (
        f'<g class="character" data-symbols="{character.symbols}">'
        f"<title>{html_escape(f'{character.label}: one character spelled by {character.symbols} symbols ')}"
        f"{html_escape(' '.join(drawn(s) for s in symbols))}</title>"
        f'<rect x="{left:.1f}" y="{row:.1f}" width="{span:.1f}" height="{CHARACTER_H}" '
        f'rx="6" fill="{CHARACTER_FILL}" stroke="{CHARACTER_STROKE}" stroke-width="1"/>'
        f'<text x="{left + span / 2:.1f}" y="{row + CHARACTER_H / 2 + 6:.1f}" '
        f'text-anchor="middle" font-size="{TOKEN_PX}" fill="{INK}">{html_escape(character.label)}</text></g>'
    )


def merge_tree_svg(
    pretokens: Sequence[tuple[str, Sequence]],
    display: Callable[[str], str] = lambda t: t,
    *,
    done: Sequence[int] | None = None,
    last_step: tuple[int, int] | None = None,
    reference: Collection[tuple[int, int]] = (),
    caption: str = "",
    highlight: Collection = (),
    ids: Mapping[str, int] | None = None,
) -> str:
    """The merge trees of a word's pretokens, side by side, as one standalone ``<svg>`` document.

    ``pretokens`` holds ``(pretoken text, its final merge trees)``; ``done[i]`` is how many of
    pretoken i's merges have fired (default: all); ``last_step`` is ``(pretoken index, local
    step)`` of the merge that fired last (highlighted); ``reference`` the reference boundaries as
    ``(pretoken index, offset)``, offset k being the boundary after character k; ``highlight``
    merges (:class:`core.bpe.model.Merge`) and/or token strings whose nodes get a thick blue border;
    ``ids`` (token -> id) go into each node's tooltip beside its merge's rank.
    """
    spelled = spelled_characters(pretokens, display)
    layout = _layout(pretokens, display, any(spelled))
    edges: list[str] = []
    boxes: list[str] = []
    for state in node_states(pretokens, done=done, last_step=last_step, reference=reference, highlight=highlight):
        x, y = layout.node_x(state.pretoken, state.node), layout.row_y(state.height)
        edges.extend(_child_lines(layout, state, x, y))
        boxes.append(_node_box(state, x, y, display, ids or {}))
    lines: list[str] = []
    for i, (text, _) in enumerate(pretokens):
        lines.extend(_reference_lines(layout, i, text, reference))
        boxes.extend(_character_box(layout, i, text, character) for character in spelled[i])
    width, svg_height = layout.width, layout.height
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{svg_height:.0f}" '
        f'viewBox="0 0 {width:.0f} {svg_height:.0f}" font-family="{FONT}" role="img">'
        f"<title>{html_escape(caption or 'segmentation tree')}</title>"
        f'<rect width="100%" height="100%" fill="#ffffff"/>'
        + "".join(lines)
        + "".join(edges)
        + "".join(boxes)
        + "</svg>"
    )


def word_pretokens(trees: Sequence) -> list[tuple[str, list]]:
    """The final merge trees of one word (its pretokens' trees one after the other, each root's
    ``start`` relative to its own pretoken) regrouped as ``(pretoken text, trees)`` pairs for
    :func:`merge_tree_svg` and :func:`merge_tree_forest`."""
    groups: list[list] = []
    end = None
    for tree in trees:
        if end is None or tree.start < end:  # a new pretoken starts over at 0
            groups.append([])
        groups[-1].append(tree)
        end = tree.start + len(tree.token)
    # Offsets inside a pretoken are relative to its first root (0 for a whole pretoken).
    return [(" " * group[0].start + "".join(t.token for t in group), group) for group in groups]


def tree_svg(
    trees: Sequence,
    display: Callable[[str], str] = lambda t: t,
    highlight: Collection = (),
    ids: Mapping[str, int] | None = None,
) -> str:
    """The final merge trees of one word (see :func:`word_pretokens`) as a one-line SVG;
    ``highlight`` merges get a blue border, ``ids`` go into the tooltips.

    Shared with the stepper page, which shows before/after trees of an edit with ``st.markdown(...,
    unsafe_allow_html=True)``.
    """
    return merge_tree_svg(word_pretokens(trees), display, highlight=highlight, ids=ids)


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
    return (
        '<div class="merge-tree" style="overflow-x:auto;padding:4px 0">'
        f'<img alt="{html_escape(alt)}" src="data:image/svg+xml;base64,{encoded}" style="{size}"/></div>'
    )


def inline_tree_html(svg: str, *, min_scale: float = 0.7, max_height: str | None = None) -> str:
    """An SVG tree inline (so its nodes' tooltips show) for ``st.markdown(..., unsafe_allow_html=True)``:
    ``st.html``'s sanitiser drops inline ``<svg>``, markdown keeps a raw HTML block that starts with
    ``<div>`` and has no blank line (every text in the SVG is escaped). The tree shrinks to the
    column's width and, with ``max_height`` (a CSS length such as ``calc(100vh - 330px)``), to that
    height, but never below ``min_scale`` of its size: beyond that it scrolls sideways in its frame."""
    import re

    found = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg)
    width, height = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    style = (
        f"width:auto;height:auto;max-width:100%;min-width:{width * min_scale:.0f}px;"
        f"min-height:{height * min_scale:.0f}px"
    )
    if max_height:
        style += f";max-height:{max_height}"
    return (
        '<div class="merge-tree" style="overflow-x:auto;padding:4px 0">'
        + svg.replace("\n", " ").replace("<svg ", f'<svg style="{style}" ', 1)
        + "</div>"
    )


def svg_from_html(markup: str) -> str:
    """The SVG inside :func:`svg_html`'s markup (for tests and exports)."""
    import base64
    import re

    found = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', markup)
    if found:
        return base64.b64decode(found.group(1)).decode("utf-8")
    inline = re.search(r"<svg .*</svg>", markup, re.S)  # :func:`inline_tree_html`
    return inline.group(0) if inline else ""
