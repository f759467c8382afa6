"""The stepper's and blocked-merges page's common parts: their header with the presentation toggle, the
row of teaching-scenario buttons, and a merge tree with its downloads.

The SVG goes in through ``st.markdown`` (``st.html``'s sanitiser drops inline ``<svg>``; markdown keeps
a raw HTML block that starts with ``<div>`` and has no blank line as it is, with no markdown inside;
every text in the SVG is escaped by ``viz.trees``), in a ``merge-tree-block`` wrapper that
``viz.step_views.TREE_CSS`` / ``PRESENT_TREE_CSS`` size. Below it: SVG and LaTeX (forest) downloads
(``ui.downloads``), left out in presentation mode.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

import streamlit as st

from ui.downloads import figure_downloads
from ui.presentation import apply_presentation, presentation_toggle
from ui.workspace import chosen
from viz import step_views as sv
from viz.step_views import PRESENT_TREE_CSS, TREE_CSS
from viz.tokens import PAGE_CSS
from viz.tree_states import spelled_characters
from viz.trees import merge_tree_forest, merge_tree_svg, word_pretokens


def page_header(title: str) -> bool:
    """The page's styles, its title with the "Presentation mode" toggle beside it, and the projector styles
    when presenting (``ui.presentation``); returns whether the page is presenting."""
    st.html(PAGE_CSS)
    st.html(TREE_CSS)
    title_column, toggle_column = st.columns([3, 1], vertical_alignment="bottom")  # the toggle's label uncut
    title_column.title(title)
    with toggle_column:
        present = presentation_toggle()
    apply_presentation()
    if present:
        st.html(PRESENT_TREE_CSS)
    return present


def show_tree(
    trees: Sequence,
    display: Callable[[str], str],
    highlight: Collection = (),
    *,
    stem: str,
    key: str,
    downloads: bool = True,
    reference: Collection[tuple[int, int]] = (),
    floor: float = 0.0,
    ids: Mapping[str, int] | None = None,
) -> bool:
    """The final merge trees of one word (``viz.trees.word_pretokens``) with ``highlight`` merges bordered
    in blue and the ``reference`` boundaries (``(pretoken, offset)``) as red dashed lines; with
    ``downloads``, the figure as ``<stem>.svg`` and ``<stem>.tex`` (widget keys from ``key``). ``floor``:
    the smallest scale the page's styles may shrink the tree to (its height at least that share); ``ids``:
    token ids for the merges' tooltips. Returns whether a character is spelled by several leaves (for the
    legend's ``characters`` item)."""
    pretokens = word_pretokens(trees)
    svg = merge_tree_svg(pretokens, display, highlight=highlight, reference=reference, ids=ids)
    shown = svg.replace("\n", " ")
    height = re.search(r'<svg[^>]* height="(\d+)"', svg)
    if floor and height:
        shown = shown.replace("<svg ", f'<svg style="min-height:{int(height.group(1)) * floor:.0f}px" ', 1)
    st.markdown(
        '<div class="merge-tree-block" style="overflow-x:auto;padding:4px 0">' + shown + "</div>",
        unsafe_allow_html=True,
    )
    if downloads:
        tikz = merge_tree_forest(pretokens, display, highlight=highlight, reference=reference)
        figure_downloads(stem, svg, tikz=tikz, key=key)
    return any(spelled_characters(pretokens, display))


def scenario_buttons(names: Sequence[str], key_prefix: str, on_click: Callable[[str], None]) -> None:
    """One button per teaching scenario in a row; the loaded one is highlighted, a click calls
    ``on_click(name)``."""
    loaded = chosen("tokeniser") or st.query_params.get("tokeniser")
    for column, name in zip(st.columns(len(names)), names, strict=True):
        column.button(
            sv.scenario_label(name),
            key=f"{key_prefix}_{name}",
            on_click=on_click,
            args=(name,),
            type="primary" if name == loaded else "secondary",
            width="stretch",
            help=f"Load {name}",
        )
