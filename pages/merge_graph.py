"""Merge graph: the neighbourhood of a type, in the two views of [knockout] (Fig. 1, Fig. 11).

Thin on purpose: the neighbourhood and the graphs are core.bpe.graph's, the type search, the HTML and
the table rows come from viz/ (graph_search.py, graph_html.py, graph_tables.py). The graph is
vis-network (through pyvis) in an iframe hosted by a small ``st.components.v2`` component, loading
the library from this server's ``/app/static/`` (no CDN); clicking a node sends its type back to
Python, which recentres. The view is in the URL:
``?tokeniser=nl-40k&type=Ġgids&view=types+and+merges&depth=3&compare=BPE-knockout``.

Where a type is formed by several merges (tiktoken and SentencePiece conversions) the graph marks
the primary merge (the one forming the type from its own string) and the alternatives, follows
primary merges unless asked to follow all, and says how often each merge fires on the reference
and, when asked (a pass over all its lines), the corpus (core.analysis.merge_usage, counted once per
tokeniser and text, cached for everyone).

At the bottom, chosen types (a list, or the least frequent on word counts) can be removed from the
whole tokeniser and the result downloaded as project JSON or an HF folder (``ui.type_removal``).
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Collection, Mapping
from contextlib import nullcontext
from functools import partial

import streamlit as st

from core.bpe.graph import ALL, PRIMARY, neighbourhood
from core.bpe.model import BTETokeniser, Merge
from core.edits.rebpe import run_knockout, run_rebpe
from core.errors import InputError
from core.references.files import ReferenceSet
from ui.downloads import figure_downloads
from ui.merge_usage import counters as fire_counters
from ui.presentation import PARAM as PRESENT_PARAM
from ui.presentation import apply_presentation, presentation_toggle
from ui.token_ids import id_table
from ui.type_removal import REQUEST, removal_section
from ui.url_state import write_to_url
from ui.workspace import DEBUGGED_WORD, current
from ui.workspace_links import page_link
from viz.escaping import code_span, md_escape
from viz.graph_html import STATIC_DIR, VIS_JS, graph_html, html_key, standalone_html
from viz.graph_search import default_type, resolve_type, similar_types, type_labels, word_type
from viz.graph_style import TYPES_VIEW, VIEWS
from viz.graph_svg import graph_svg
from viz.graph_tables import mio_rows, type_merge_rows
from viz.ranks import COLUMN_HELP as RANK_COLUMN_HELP
from viz.tokeniser_info import tokeniser_note
from viz.tokens import PAGE_CSS, visible
from viz.tokens import drawn as shown

NOTHING, KNOCKOUT, REBPE, PAPER = "nothing", "BPE-knockout", "ReBPE", "the paper's knockout"
WORD_PAGE = "pages/word_debugger.py"
AUTO, SHOWN, HIDDEN = "auto", "on", "off"
OTHER_PARTS = (AUTO, SHOWN, HIDDEN)
AUTO_PARTS = 15  # "auto" draws the other parts of a graph of at most this many types
MAX_WORD = 100  # characters of the word a link may name
BEFORE, AFTER = "before", "after"
GRAPH_HEIGHT = 680  # the iframe: legend, note and the graph canvas
PRESENT_GRAPH_HEIGHT = 455  # presenting on 1280x720: the type row above it, nothing below
COMPONENT_JS = """
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let frame = parentElement.querySelector("iframe.merge-graph");
  if (!frame) {
    frame = document.createElement("iframe");
    frame.className = "merge-graph";
    frame.title = "Merge graph";
    frame.style.cssText = "box-sizing:border-box;width:100%;border:1px solid #d6d3d1;border-radius:8px;"
      + "display:block;background:#fff";
    parentElement.appendChild(frame);
  }
  frame.style.height = data.height + "px";
  frame.__mergeGraphClick = (type) => setTriggerValue("clicked", type);
  if (frame.dataset.key !== data.key) {
    frame.dataset.key = data.key;
    frame.srcdoc = data.html;
  }
}
"""
graph_component = st.components.v2.component("merge_graph_view", js=COMPONENT_JS)


def fingerprint(tokeniser: BTETokeniser) -> str:
    """Cheap identity of a tokeniser for cache keys when the workspace gives none."""
    last = tokeniser.merges[-1] if tokeniser.merges else None
    return f"{len(tokeniser.alphabet)}:{len(tokeniser.merges)}:{last}"


@st.cache_resource(show_spinner=False, max_entries=8)
def labels_and_default(name: str, key: str, _tokeniser: BTETokeniser) -> tuple[dict[str, str], str | None]:
    return type_labels(_tokeniser), default_type(_tokeniser)


@st.cache_resource(show_spinner="Running it on the loaded reference (once; cached for everyone)…", max_entries=8)
def comparison(
    kind: str,
    name: str,
    key: str,
    reference_name: str,
    reference_key: str,
    _tokeniser: BTETokeniser,
    _references: ReferenceSet,
) -> BTETokeniser:
    if kind == PAPER:
        merges = [Merge(rank, tuple(parts)) for rank, parts in _tokeniser.metadata["after_knockout_merges"]]
        return _tokeniser.with_merges(merges, name=f"{name} after the paper's knockout")
    if kind == KNOCKOUT:
        return run_knockout(_tokeniser, _references.entries).tokeniser
    return run_rebpe(_tokeniser, _references.entries).tokeniser


def debugged_word(tokeniser_name: str) -> str | None:
    """The word to centre on: a link's ``?word=`` (its first word: the Word debugger's words), else the
    word the Word debugger last showed in this session for this tokeniser."""
    linked = (st.query_params.get("word") or "").split()
    if linked:
        return linked[0][:MAX_WORD]
    debugged_in, debugged = st.session_state.get(DEBUGGED_WORD) or (None, None)
    return debugged if debugged_in == tokeniser_name else None


def centre_of(tokeniser: BTETokeniser, word: str | None) -> str | None:
    """:func:`viz.graph_search.word_type`, None for a word the tokeniser cannot segment."""
    try:
        return word_type(tokeniser, word)
    except InputError:
        return None


def word_link(word: str, present: bool) -> None:
    """Back to ``word`` in the Word debugger (a page switch: the session and what it loaded stay)."""
    page_link(
        WORD_PAGE,
        f"{md_escape(visible(word))} in the Word debugger",
        {"word": word, **({PRESENT_PARAM: "1"} if present else {})},
        icon=":material/search:",
    )


def table_csv(rows: list[dict]) -> str:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out.getvalue()


st.html(PAGE_CSS)
title_column, toggle_column = st.columns([4, 1.4], vertical_alignment="bottom")
with toggle_column:
    present = presentation_toggle()
apply_presentation()
if not present:
    title_column.title("Merge graph")
    st.caption(
        "The types around one type, read from the tokeniser's merge graph ([knockout §3.1]): its "
        "**ancestors** (the merge tree that builds it), its **descendants** (types built on it) and its "
        "**half-siblings** (other types built from its parents, like `Ġgids` next to `Ġbruids`). "
        "*Types only* is the paper's Figure 1; *types and merges* is Figure 11, with every merge as a node "
        "labelled by its rank and parts. **Click a node to centre the graph on it**; the address bar "
        "keeps the view, so a link reproduces it."
    )

try:  # every family with merges has a graph (Scaffold-BPE, PickyBPE, BoundlessBPE: their merge lists)
    ws = current().with_merge_graph("The merge graph")
except InputError as err:  # CapabilityError: one line, and nothing to draw
    st.info(md_escape(err))
    st.stop()
if ws.graph_note():
    st.caption(md_escape(ws.graph_note()))
tokeniser = ws.tokeniser
display = tokeniser.pretokeniser.display
tokeniser_key = getattr(ws, "tokeniser_key", "") or fingerprint(tokeniser)
labels, default = labels_and_default(ws.tokeniser_name, tokeniser_key, tokeniser)
ids = id_table(tokeniser, tokeniser_key)
if default is None:
    st.info("This tokeniser has no types, so there is no graph to draw.")
    st.stop()
note = tokeniser_note(ws.tokeniser_name, tokeniser.metadata) if tokeniser.metadata.get("title") else None
if note:  # a teaching scenario: its explanation next to its graph
    st.info(note[1])
(st.caption if present else st.markdown)(
    f"Tokeniser **{md_escape(ws.tokeniser_name)}** ({len(tokeniser.types):,} types, "
    f"{len(tokeniser.merges):,} merges, {len(tokeniser.tuple_merges):,} tuple merges) · reference "
    f"**{md_escape(ws.reference_name)}** ({len(ws.references):,} words). Choose them on the Workspace page."
)

# --- the type: typed, clicked or from the URL; always validated (a URL may say anything) ---------------
# A text box, not a selectbox: 40,000 options would be resent to the browser on every rerun (seconds).
debugged = debugged_word(ws.tokeniser_name)
write_to_url("word", debugged)  # a copied link centres on it too, and the way back keeps it
word_centre = centre_of(tokeniser, debugged)
if word_centre is not None:
    default = word_centre  # the word the Word debugger shows: its longest token formed by a merge
if st.session_state.get("graph_tokeniser") not in (None, tokeniser_key):
    st.session_state["type"] = labels[default]  # another tokeniser was chosen: start at its default
elif "type" not in st.session_state and not st.query_params.get("type"):
    st.session_state["type"] = labels[default]
elif word_centre is not None and st.session_state.get("graph_word") != debugged and not st.query_params.get("type"):
    st.session_state["type"] = labels[default]  # another word is being debugged since: centre on it
st.session_state["graph_tokeniser"] = tokeniser_key
if word_centre is not None:
    st.session_state["graph_word"] = debugged
if debugged:  # the way back to the word, and (not presenting) why the graph centres where it does
    note_column, link_column = (None, title_column) if present else st.columns([2, 1], vertical_alignment="center")
    if word_centre is not None and note_column is not None:
        note_column.caption(
            f"The default centre is {code_span(labels[word_centre])}, the longest token of "
            f"{code_span(debugged)} (the word in the Word debugger) that a merge forms."
        )
    with link_column:
        word_link(debugged, present)


def recentre(types: Collection[str], labels: Mapping[str, str]) -> None:
    """The component's click callback: the clicked type becomes the centre (and goes to the URL)."""
    clicked = st.session_state["merge_graph_view"].clicked
    if clicked in types:
        st.session_state["type"] = labels[clicked]
    elif isinstance(clicked, str):
        st.session_state["graph_click_note"] = clicked


top = st.columns([3, 3, 3])
asked = top[0].text_input(
    "Type at the centre",
    value=None,
    key="type",
    bind="query-params",
    max_chars=200,
    placeholder=labels[default],
    help="A type as the graph shows it (Ġbruids, ids, é …) or a plain word: bruids finds "
    "the word-start type Ġbruids. Clicking a node in the graph also moves the centre.",
)
text = (asked or "").strip() or (asked or "")
center, how = resolve_type(tokeniser, text, labels) if text else (default, "")
if center is None:
    similar = similar_types(labels, text)
    st.warning(
        f"{code_span(text[:80])} is not a type of {md_escape(ws.tokeniser_name)}; showing "
        f"{code_span(labels[default])} instead."
        + (" Types containing it: " + ", ".join(code_span(labels[t]) for t in similar) + "." if similar else "")
    )
    center = default
elif how == "word start":
    st.info(
        f"{code_span(text[:80])} is not a type of {md_escape(ws.tokeniser_name)}; showing the word-start type "
        f"{code_span(labels[center])}, as the word is tokenised in running text."
    )
clicked_elsewhere = st.session_state.pop("graph_click_note", None)
if clicked_elsewhere:
    st.info(
        f"{code_span(shown(clicked_elsewhere, display))} exists only in the comparison tokeniser; the centre "
        "stays where it is."
    )
view = top[1].segmented_control(
    "View",
    VIEWS,
    default=TYPES_VIEW,
    key="view",
    bind="query-params",
    required=True,
    help="Types only: an arrow from each part to the type it forms (Fig. 1). Types and "
    "merges: every merge is a node between its parts and its result (Fig. 11).",
)
compare_options = [NOTHING, KNOCKOUT, REBPE] + ([PAPER] if tokeniser.metadata.get("after_knockout_merges") else [])
compare = top[2].selectbox(
    "Compare with",
    compare_options,
    key="compare",
    bind="query-params",
    help=f"Mark the merges that BPE-knockout or ReBPE (run on the reference "
    f"{md_escape(ws.reference_name)}) removes from this tokeniser, or draw the tokeniser they "
    f"produce. Computed once, then cached.",
)
settings = st.expander("Depth, limits and what to follow") if present else st.container()
controls = settings.columns([2, 2, 3, 4, 3, 4])
depth = controls[0].slider(
    "Depth",
    1,
    5,
    2,
    key="depth",
    bind="query-params",
    help="How many merge steps away from the centre to look (up and down).",
)
max_nodes = controls[1].slider(
    "Max. types",
    5,
    200,
    40,
    step=5,
    key="nodes",
    bind="query-params",
    help="At most this many types are drawn. The centre and its ancestors come first, "
    "then the nearest descendants and "
    "half-siblings, lowest ranks (most frequent merges) first.",
)
siblings = controls[2].slider(
    "Half-siblings per parent",
    0,
    50,
    4,
    key="siblings",
    bind="query-params",
    help="Types that share a parent with the centre, at most this many per parent.",
)
follow = controls[4].segmented_control(
    "Follow",
    (PRIMARY, ALL),
    default=PRIMARY,
    key="follow",
    bind="query-params",
    required=True,
    format_func=lambda v: {PRIMARY: "primary", ALL: "all"}[v],
    help="Primary: the neighbourhood walks the merge that forms each type from its own string (the centre's "
    "other merges are drawn too, dashed, marked alt). All: it walks every merge of every type. The same "
    "when each type has one merge; files converted from tiktoken or SentencePiece form a type by several.",
)
others = controls[3].segmented_control(
    "Other parts",
    OTHER_PARTS,
    default=AUTO,
    key="others",
    bind="query-params",
    required=True,
    help="The other part of each merge as a grey box: the parts of the shown merges that are outside the "
    f"neighbourhood (the g of Ġbru + g). *auto*: shown while the graph has at most {AUTO_PARTS} types, so a "
    "big one stays readable (a merge node still names its parts).",
)
draw = BEFORE
if compare != NOTHING:
    draw = controls[5].segmented_control(
        f"Draw the tokeniser before or after {compare}",
        (BEFORE, AFTER),
        default=BEFORE,
        key="draw",
        bind="query-params",
        required=True,
        help="Before: this tokeniser, with what the edit removes marked *out* and types it forms another way "
        "marked *re-formed*. After: the tokeniser the edit produces (tuple merges in orange), with what is "
        "new marked *new*.",
    )

# --- the comparison tokeniser ----------------------------------------------------------------------
other = None
if compare != NOTHING:
    try:
        other = comparison(
            compare,
            ws.tokeniser_name,
            tokeniser_key,
            ws.reference_name,
            getattr(ws, "reference_key", "") or str(len(ws.references)),
            tokeniser,
            ws.references,
        )
    except InputError as err:
        st.error(f"Could not compute {compare} on {md_escape(ws.reference_name)}: {md_escape(err)}")
label = f"{compare} on {ws.reference_name}" if compare in (KNOCKOUT, REBPE) else compare
drawn, other_is_before = tokeniser, False
if other is not None and draw == AFTER:
    if center in other.types:
        drawn, other, other_is_before = other, tokeniser, True
        label = "this tokeniser before " + label
    else:
        st.warning(
            f"{code_span(labels[center])} is not a type after {md_escape(label)} (it was knocked out), so "
            "the graph shows the tokeniser before, with the knocked-out merges marked *out*."
        )

# --- the graph -------------------------------------------------------------------------------------
started = time.perf_counter()
hood = neighbourhood(drawn, center, depth, max_nodes, siblings, follow=follow if follow in (PRIMARY, ALL) else PRIMARY)
show_parts = others == SHOWN or (others != HIDDEN and len(hood.roles) <= AUTO_PARTS)
drawn_key = (
    tokeniser_key if drawn is tokeniser else f"{tokeniser_key}|{compare}|{ws.reference_key or ws.reference_name}"
)
# The toggle sits under the graph, but the graph's hover texts show the counts: read its state first.
if "corpus_counts" not in st.session_state:
    st.session_state["corpus_counts"] = st.query_params.get("corpus_counts") == "true"
count_corpus = bool(st.session_state["corpus_counts"])
counters, fire_counts = {}, None
with (
    st.spinner(
        f"Counting merge applications on {md_escape(ws.corpus_name)} (once; cached for everyone)…", show_time=True
    )
    if count_corpus
    else nullcontext()
):
    try:
        counters = fire_counters(ws, drawn, drawn_key, corpus=count_corpus)
        shown_merges = hood.shown_merges()
        fire_counts = {name: counter.counts(shown_merges) for name, counter in counters.items()} or None
    except InputError as err:  # counting is extra information: a file it cannot be done on says so
        st.caption(f"Merge counts are not available: {md_escape(err)}")
shown_note = ""
if hood.truncated:
    shown_note = (
        f"Showing {len(hood.roles)} of {hood.found:,}{'+' if hood.more else ''} types within "
        f"{depth} step{'s' if depth != 1 else ''}; raise the limits above to see more."
    )
if others == AUTO and not show_parts:
    shown_note += f" The other parts of the merges are left out above {AUTO_PARTS} types (Other parts: on)."
document = graph_html(
    drawn,
    hood,
    view,
    display=display,
    other=other,
    other_label=label,
    other_is_before=other_is_before,
    note=shown_note,
    other_parts=show_parts,
    fire_counts=fire_counts,
    ids=ids,
)
seconds = time.perf_counter() - started
if not (STATIC_DIR / VIS_JS).is_file():
    st.error(f"static/{VIS_JS} is missing, so the graph cannot be drawn (see static/README.md).")
graph_component(
    key="merge_graph_view",
    data={"html": document, "key": html_key(document), "height": PRESENT_GRAPH_HEIGHT if present else GRAPH_HEIGHT},
    on_clicked_change=partial(recentre, tokeniser.types, labels),  # v2 callbacks take no arguments
    height=(PRESENT_GRAPH_HEIGHT if present else GRAPH_HEIGHT) + 2,
)
if present:  # one screen: the graph is the view; tables and downloads are for the desk
    st.stop()
st.caption(
    f"{len(hood.roles)} types and {len(hood.merges)} merges around {code_span(labels[center])}, "
    f"built in {seconds:.2f} s. Drag to pan, scroll or use the buttons to zoom, hover a node for details."
)
with st.container(horizontal=True, vertical_alignment="center", gap="large"):
    figure_downloads(
        f"merge-graph-{labels[center]}-{view}",
        graph_svg(
            drawn,
            hood,
            view,
            display=display,
            other=other,
            other_label=label,
            other_is_before=other_is_before,
            note=shown_note,
            other_parts=show_parts,
            fire_counts=fire_counts,
            ids=ids,
        ),
        key="merge_graph_figure",
    )
    st.toggle(
        "Count merges on the corpus too",
        key="corpus_counts",
        bind="query-params",
        help=f"How often each merge fires on the workspace corpus ({md_escape(ws.corpus_name)}), next to the "
        "reference words: one pass over all its lines, then cached for everyone.",
    )

# --- the centre's merges: primary and alternatives, and how often they fire ---------------------------
own = type_merge_rows(drawn, center, display, fire_counts)
if own:
    st.subheader("How the centre is formed")
    several = len(own) > 1
    whole = ""
    if drawn.ignore_merges and counters:
        whole = (
            " With ignore_merges a pretoken that is a type is emitted whole and no merge fires: "
            + ", ".join(
                f"{code_span(labels.get(center, center))} is emitted whole {c.whole(center):,}× in the {name}"
                for name, c in counters.items()
            )
            + "."
        )
    named = code_span(labels.get(center, center)) + (f" (id {ids[center]})" if center in ids else "")
    st.caption(
        (
            f"{named} is formed by {len(own)} merges: the primary one fires when "
            "its own string is segmented; the alternatives fire only inside longer pretokens, if at all."
            if several
            else f"{named} is formed by one merge."
        )
        + (
            " Counts: merge applications while the reference words (each as in running text) and the corpus "
            f"({md_escape(ws.corpus_name)}) are segmented."
            if "corpus" in counters
            else " Counts: merge applications while the reference words (each as in running text) are segmented; "
            "switch on *Count merges on the corpus too* under the graph for the corpus."
        )
        + whole
    )
    st.table([{**row, "merge": code_span(row["merge"])} for row in own])  # cells are markdown

# --- M_i / M_o --------------------------------------------------------------------------------------
st.subheader("Merges forming and using the centre")
rows = mio_rows(drawn, center, display, other=other, other_label=label, other_is_before=other_is_before, ids=ids)
formed = sum(1 for row in rows if row["set"].startswith("M_i"))
st.caption(
    f"M_i({code_span(labels[center])}): the merge that forms it ({formed}); M_o: the merges that use it as "
    f"a part ({len(rows) - formed:,}), by rank. A tuple merge has three or more parts "
    "([knockout §3.2])."
)
if rows:
    st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        height=min(420, 38 + 35 * len(rows)),
        column_config={"rank": st.column_config.TextColumn(help=RANK_COLUMN_HELP)},
    )
else:
    st.caption("No merge forms or uses this type (an unused alphabet symbol).")
downloads = st.columns(2)
downloads[0].download_button(
    "Download this table (CSV)", table_csv(rows), file_name="merges.csv", mime="text/csv", on_click="ignore"
)
downloads[1].download_button(
    "Download this graph (HTML, works offline)",
    lambda: standalone_html(document),
    file_name=f"merge-graph-{html_key(document)}.html",
    mime="text/html",
    on_click="ignore",
    help="One file with vis-network inside (about 700 KB): opens in any browser, offline.",
)

# --- remove types (the whole tokeniser, not only this neighbourhood) ----------------------------------
st.subheader("Remove types")
st.caption(
    "Remove chosen types from this tokeniser, or the least frequent ones, keeping its merge graph consistent; "
    "download the result as project JSON or as an HF folder that keeps every id."
)
with st.expander("Remove types and export", expanded=REQUEST in st.session_state):
    removal_section(ws)
