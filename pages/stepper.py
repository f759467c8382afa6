"""Knockout & ReBPE stepper: run ReBPE once, then step forward and back through its phases.

Thin: the run is core's (``core.rebpe.run_rebpe``, computed once per tokeniser, reference and
configuration in ``ui.rebpe_runs``); tables, figures and trees come from ``viz/``. Only the step
panel (an ``st.fragment``) reruns when stepping. The configuration and the step live in the URL
(``?tokeniser=a1_scenario2a&step=3&threshold=0.5``), so a link reproduces the view.
"""
from __future__ import annotations

import json
import re

import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.errors import InputError
from core.formats.hf_json import hf_json_problem, tokeniser_to_hf_json
from core.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig
from core.samples import scenario_paths
from ui.rebpe_runs import ComputedRun, cached_run, references_for, workspace_keys
from ui.url_state import seed_from_url, write_to_url
from ui.error_boundary import boundary, guarded
from ui.workspace import chosen, current, select
from viz import step_views as sv
from viz.escaping import code_span, md_escape
from viz.tables import scenario_rows
from viz.tokeniser_info import tokeniser_note
from viz.tokens import PAGE_CSS, shown
from viz.trees import tree_svg

SCENARIOS = [name for name in scenario_paths() if name.startswith("a1_")]
MAX_WORD_OPTIONS = 2000
DIAGNOSTICS = {  # the right-hand chart (rebpe.txt Fig. 3-4)
    "Changes by origin": lambda steps, index: sv.origins_figure(steps, index),
    "|V| (Fig. 3)": lambda steps, index: sv.vocab_figure(steps, computed.start, index),
    "Knockouts (Fig. 4)": lambda steps, index: sv.knocked_out_figure(steps, index),
}
GRAPH_PAGE = "pages/merge_graph.py"


# --- callbacks (run before the rerun, so buttons and the slider never disagree) -----------------
# Widget keys; the URL parameters are "step", "word" and "type" (ui.url_state keeps them in sync).
STEP, WORD, TYPE = "stepper_step", "stepper_word", "stepper_type"


def choose_scenario(name: str) -> None:
    select("tokeniser", name)
    st.session_state[STEP] = 0
    for key in (WORD, TYPE, "stepper_workspace_reference"):
        st.session_state.pop(key, None)


@guarded
def move(delta: int, last: int) -> None:
    st.session_state[STEP] = max(0, min(last, int(st.session_state.get(STEP, 0)) + delta))
    suggest_word()


@guarded
def suggest_word() -> None:
    """After a step change, select the new step's first affected word (unless the user follows a word)."""
    st.session_state.pop(TYPE, None)
    if st.session_state.get("stepper_follow"):
        return
    options = word_options(int(st.session_state.get(STEP, 0)))[0]
    if options:
        st.session_state[WORD] = options[0]


# --- page -----------------------------------------------------------------------------------------
st.html(PAGE_CSS)
st.html(sv.TREE_CSS)
st.title("Knockout & ReBPE stepper")
st.caption("ReBPE (Bauwens & de Lhoneux, Alg. 1) alternates BPE-knockout, reparation and reification until "
           "nothing changes. The whole run is computed once; then step forward and back through its phases "
           "and see what each one did to the merges, the metrics and the segmentation of the reference words. "
           "The address bar keeps the tokeniser, the configuration and the step.")

st.markdown("**Teaching scenarios** (rebpe.txt App. A.1): one click loads the scenario's tokeniser and a "
            "two-word reference built from its words.")
loaded = chosen("tokeniser") or st.query_params.get("tokeniser")
for column, name in zip(st.columns(len(SCENARIOS)), SCENARIOS):
    column.button(sv.scenario_label(name), key=f"stepper_scenario_{name}", on_click=choose_scenario, args=(name,),
                  type="primary" if name == loaded else "secondary", width="stretch",
                  help=f"Load {name}")

try:  # knockout and ReBPE edit a merge graph; families without one get a one-line notice
    workspace = current().with_merge_graph("The knockout & ReBPE stepper")
except InputError as err:
    st.info(md_escape(err))
    st.stop()
if workspace.graph_note():
    st.caption(md_escape(workspace.graph_note()))
tokeniser = workspace.tokeniser
display = tokeniser.pretokeniser.display

# --- reference: the scenario's own words, or the workspace's ----------------------------------------
use_workspace = bool(st.session_state.get("stepper_workspace_reference"))
references, reference_name, scenario_refs = references_for(workspace, use_workspace)
if scenario_refs is not None:
    note = tokeniser_note(workspace.tokeniser_name, tokeniser.metadata)
    explanation, words_column = st.columns([3, 2])
    with explanation:
        st.info(note[1] if note else workspace.tokeniser_name)
    with words_column:
        st.markdown("**Reference for this scenario:** " + ", ".join(
            f"{code_span(e.word)} → {code_span(' '.join(e.morphs))}" for e in scenario_refs.entries))
        st.caption("Each word is split where the parts of the merge the paper knocks out join.")
        with st.expander("The paper's segmentations"):
            st.table(scenario_rows(tokeniser.metadata, tokeniser.tokenise_word, display, fmt=code_span),
                     hide_index=True)
        st.toggle(f"Use {md_escape(workspace.reference_name)} instead", key="stepper_workspace_reference",
                  help="Run ReBPE with the workspace's reference segmentations instead of the scenario's words.")

# --- configuration (sidebar; every widget is bound to the URL) -------------------------------------------
with st.sidebar:
    st.subheader("Run configuration")
    threshold = st.slider("Knockout threshold (blame ratio)", 0.05, 1.0, 0.5, 0.05, key="threshold",
                          bind="query-params",
                          help="Knock out every merge that merged across a reference boundary in at least "
                               "this fraction of its applications (bpe-knockout.txt §3.4; the paper uses ½).")
    knockout_unit = st.radio("Knockout unit", ["type", "merge"], key="knockout_unit", bind="query-params",
                             horizontal=True,
                             help="Where a type is formed by several merges (files converted from tiktoken or "
                                  "SentencePiece). type: the type leaves V when blame and applications summed over "
                                  "its merges reach the threshold. merge: only the blamed merge goes; the type stays "
                                  "while another merge forms it. The same with one merge per type.")
    blame_mode = st.radio("Blame of whole words", ["tree", "applied"], key="blame", bind="query-params",
                          horizontal=True,
                          help="With ignore_merges a reference word that is a type is emitted whole. tree: it "
                               "blames the merges of its own tree (what would apply if it were not whole). "
                               "applied: only applied merges are blamed, so such words escape blame.")
    anneal = st.toggle("Annealing first", key="anneal", bind="query-params",
                       help="rebpe.txt §3.4: before the first knockout, add merges for token pairs the "
                            "reference never wants split.")
    reify = st.toggle("Reify between knockouts", value=True, key="reify", bind="query-params",
                      help="rebpe.txt Alg. 1: after each knockout, repair and reify. Off: iterated knockout.")
    fix = st.toggle("Repair blocked tuple merges (fix)", value=True, key="fix", bind="query-params",
                    disabled=not reify, help="rebpe.txt Alg. 2 lines 2-15 (reparation).")
    link = st.toggle("Link existing submerges (link)", value=True, key="link", bind="query-params",
                     disabled=not reify, help="rebpe.txt Alg. 2: reuse an existing binary merge inside a tuple.")
    expand = st.toggle("Create new submerges (expand)", value=True, key="expand", bind="query-params",
                       disabled=not reify, help="rebpe.txt Alg. 2: add a binary merge just before the tuple.")
    reparation_mode = st.radio("Reparation mode", ["limited", "undo"], key="reparation", bind="query-params",
                               horizontal=True, disabled=not (reify and fix),
                               help="limited: LIMITEDBPE as Alg. 2 is written. undo: the authors' code "
                                    "(segment with every merge, then undo those ranked at or after the tuple).")
    max_iterations = st.number_input("Maximum iterations", 1, 100, 100, key="iterations", bind="query-params",
                                     help="ReBPE stops earlier when an iteration changes nothing.")
    st.caption(f"Tokeniser **{md_escape(workspace.tokeniser_name)}**, reference **{md_escape(reference_name)}** "
               f"({len(references.entries):,} words). Change them on the Workspace page.")

config = ReBPEConfig(knockout=KnockoutConfig(threshold=float(threshold), unit=knockout_unit or "type",
                                             blame=blame_mode or "tree"),
                     anneal=AnnealConfig(when="before" if anneal else "none"),
                     reify=bool(reify), fix=bool(fix), reparation=reparation_mode or "limited",
                     link=bool(link), expand=bool(expand), max_iterations=int(max_iterations or 100))

try:
    computed = cached_run(workspace.tokeniser_name, tokeniser, reference_name, references, config,
                          **workspace_keys(workspace, reference_name))
except InputError as err:
    st.error(f"Could not run ReBPE: {md_escape(err)}")
    st.stop()

steps = computed.steps
last = len(steps)
final = steps[-1]
iterations = len({s.iteration for s in steps})
st.markdown(
    f"**The run:** {last} steps in {iterations} iteration{'s' if iterations != 1 else ''} · "
    f"F1 {100 * computed.initial.f1:.2f} % → {100 * final.metrics.f1:.2f} % · "
    f"|V| {tokeniser.vocab_size:,} → {final.vocab_size:,} · tuple merges {len(tokeniser.tuple_merges):,} → "
    f"{final.tuple_merges:,} · computed in {computed.seconds:.1f} s, kept for this tokeniser, reference and "
    "configuration.")
if computed.unaligned:
    st.warning(f"{len(computed.unaligned):,} of {len(references.entries):,} reference words could not be aligned "
               "with this tokeniser's pre-tokeniser and are left out.")

# A link's step, word and type seed the widgets on the first run; a step the run does not have is refused.
refused = seed_from_url(STEP, "step", lambda raw: int(raw) if raw.isdigit() and int(raw) <= last else None)
if refused is not None:
    st.warning(f"The link asks for step {md_escape(refused[:20])}, but this run has steps 0–{last}; "
               "showing step 0.")
seed_from_url(WORD, "word", lambda raw: raw)
seed_from_url(TYPE, "type", lambda raw: raw)
if int(st.session_state.get(STEP, 0) or 0) > last:  # a shorter run than before
    st.session_state[STEP] = last


@st.cache_data(show_spinner=False, max_entries=256)
def affected_words(run_id: str, index: int, _computed: ComputedRun) -> list[str]:
    step = _computed.steps[index - 1]
    return sv.affected_words(_computed.tokeniser_at(index - 1), step.tokeniser, _computed.words,
                             step.changed_words, touched=sv.touched_types(step))


@st.cache_data(show_spinner=False, max_entries=256)
def merge_rows_of(run_id: str, index: int, _computed: ComputedRun) -> list[dict]:
    return sv.merge_change_rows(_computed.steps[index - 1], _computed.origins_before(index),
                                _computed.start.pretokeniser.display)


def word_options(index: int) -> tuple[list[str], set[str]]:
    """The word choices at step ``index``: the words whose tree it changed first, then the reference."""
    affected = affected_words(repr(computed.key), index, computed) if index else []
    skipped = set(computed.unaligned)
    words = [w for w in computed.words if w not in skipped]
    return list(dict.fromkeys([*affected, *words]))[:MAX_WORD_OPTIONS], set(affected)


def word_trees(tok, word: str):
    return [tree for p in tok.pretokeniser.pretokenise(" " + word) for tree in tok.trace_pretoken(p).trees]


def show_svg(svg: str) -> None:
    # st.html's sanitiser drops inline <svg>; markdown keeps a raw HTML block that starts with <div> and has
    # no blank line as it is (no markdown inside). Every text in the SVG is escaped by viz.trees.
    st.markdown('<div class="merge-tree-block" style="overflow-x:auto;padding:4px 0">'
                + svg.replace("\n", " ") + "</div>", unsafe_allow_html=True)


def show_trees(word: str, before, after, step) -> None:
    if step is None:
        tokens = after.tokenise_word(word)
        st.markdown(f"**As loaded:** {sv.tokens_markdown(tokens, display)}")
        show_svg(tree_svg(word_trees(after, word), display))
        st.caption(sv.TREE_HELP)
        return
    removed = set(step.removed) | {old for old, _ in step.rewired}
    added = set(step.added) | {new for _, new in step.rewired}
    left, right = st.columns(2)
    for column, tok, highlight, when in ((left, before, removed, "Before"), (right, after, added, "After")):
        with column:
            tokens = tok.tokenise_word(word)
            st.markdown(f"**{when} this step:** {sv.tokens_markdown(tokens, display)}")
            show_svg(tree_svg(word_trees(tok, word), display, highlight))
    st.caption(sv.TREE_HELP)


def show_neighbourhood(index: int, step) -> None:
    types = sv.touched_types(step)
    if not types:
        st.caption("This step changed no merge.")
        write_to_url("type", None)
        return
    if st.session_state.get(TYPE) not in types:
        st.session_state[TYPE] = types[0]
    type_ = st.selectbox(f"Type ({len(types):,} touched by this step)", types, key=TYPE,
                         format_func=lambda t: shown(t, display))
    write_to_url("type", type_)
    before, after = computed.tokeniser_at(index - 1), computed.tokeniser_at(index)
    left, right = st.columns(2)
    left.markdown(f"**Before** — M_i / M_o of {code_span(shown(type_, display))}")
    left.dataframe(sv.neighbourhood_rows(before, type_, display), hide_index=True, width="stretch")
    right.markdown(f"**After** — M_i / M_o of {code_span(shown(type_, display))}")
    right.dataframe(sv.neighbourhood_rows(after, type_, display), hide_index=True, width="stretch")
    if type_ in tokeniser.types:
        try:
            st.page_link(GRAPH_PAGE, icon=":material/hub:", query_params={"type": shown(type_, display)},
                         label=f"Open {md_escape(shown(type_, display))} in the merge graph (the loaded tokeniser, "
                               "before any step)")
        except StreamlitAPIException:  # the graph page is not in this app's navigation (the page run alone)
            pass


def show_downloads(index: int) -> None:
    tok = computed.tokeniser_at(index)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", workspace.tokeniser_name)[:60] or "tokeniser"
    metadata = {"derived_from": workspace.tokeniser_name, "reference": reference_name, "step": index,
                "phase": steps[index - 1].phase if index else "start",
                "config": {"threshold": config.knockout.threshold, "knockout_unit": config.knockout.unit,
                           "blame": config.knockout.blame, "anneal": config.anneal.when,
                           "reify": config.reify, "fix": config.fix, "reparation": config.reparation,
                           "link": config.link, "expand": config.expand}}
    st.download_button("Tokeniser after this step (project JSON)", key="stepper_dl_project", on_click="ignore",
                       data=lambda: json.dumps(tok.to_json(metadata), ensure_ascii=False),
                       file_name=f"{stem}-step{index}.json", mime="application/json")
    tuple_count = steps[index - 1].tuple_merges if index else len(tokeniser.tuple_merges)
    problem = None if tuple_count else hf_json_problem(tok)
    if tuple_count:
        st.caption(f"No HF tokenizer.json: this tokeniser has {tuple_count:,} tuple merges, which "
                   "HF BPE cannot represent. The project JSON keeps them.")
    elif problem:
        st.caption(md_escape(f"No HF tokenizer.json: {problem}. The project JSON keeps everything."))
    else:
        st.download_button("Tokeniser after this step (HF tokenizer.json)", key="stepper_dl_hf", on_click="ignore",
                           data=lambda: json.dumps(tokeniser_to_hf_json(tok), ensure_ascii=False),
                           file_name=f"{stem}-step{index}-tokenizer.json", mime="application/json")


@st.fragment
@boundary()  # a fragment rerun does not pass through app.py's boundary
def stepper_panel() -> None:
    prev_column, slider_column, next_column = st.columns([1, 6, 1], vertical_alignment="bottom")
    with slider_column:
        index = int(st.slider("Step (0 = the tokeniser as loaded)", 0, last, key=STEP, on_change=suggest_word))
    write_to_url("step", index, default=0)
    prev_column.button("◀ Prev", key="stepper_prev", on_click=move, args=(-1, last), disabled=index <= 0,
                       width="stretch")
    next_column.button("Next ▶", key="stepper_next", on_click=move, args=(1, last), disabled=index >= last,
                       width="stretch")
    step = steps[index - 1] if index else None
    after = computed.tokeniser_at(index)
    before = computed.tokeniser_at(index - 1) if index else after

    st.subheader(sv.step_title(steps, index))
    st.markdown(sv.PHASE_TEXT.get(step.phase, "") if step else sv.START_TEXT)
    metrics = step.metrics if step else computed.initial
    previous = (steps[index - 2].metrics if index >= 2 else computed.initial) if step else None
    columns = st.columns([1.3, 1, 1, 1, 1, 1, 1])
    change = None if previous is None else 100 * (metrics.f1 - previous.f1)
    columns[0].metric("F1 (%)", f"{100 * metrics.f1:.2f}",
                      delta=None if change is None else f"{change:+.2f} points",
                      delta_color="off" if change is not None and abs(change) < 0.005 else "normal")
    for column, (label, value) in zip(columns[1:], sv.step_counts(step)):
        column.metric(label, f"{value:,}")
    if step is None:
        columns[1].metric("|V|", f"{after.vocab_size:,}")
        columns[2].metric("Tuple merges", f"{len(after.tuple_merges):,}")

    st.markdown("#### Segmentation trees")
    options, marked = word_options(index)
    if options:
        count = f"{len(marked):,}" + ("+" if len(marked) >= sv.AFFECTED_LIMIT else "")
        label = (f"Word ({count} whose tree this step changed, marked •, listed first)" if step and marked
                 else "Word (this step changes no tree; any reference word)" if step else "Word")
        word_column, follow_column = st.columns([4, 1], vertical_alignment="bottom")
        if st.session_state.get(WORD) not in options:
            st.session_state[WORD] = options[0]
        word = word_column.selectbox(label, options, key=WORD, format_func=lambda w: f"• {w}" if w in marked else w)
        write_to_url("word", word)
        follow_column.toggle("Follow word", key="stepper_follow",
                             help="On: keep this word when stepping. Off: every step selects the first word "
                                  "it changed.")
        try:
            show_trees(word, before, after, step)
        except InputError as err:
            st.warning(f"Cannot segment {code_span(word)}: {md_escape(err)}")
    else:
        st.caption("The reference has no word this tokeniser can segment.")

    chart_left, chart_right = st.columns(2)
    chart_left.plotly_chart(sv.f1_figure(steps, computed.initial, index), key="stepper_f1")
    with chart_right:
        # One diagnostic at a time: every chart costs the browser a plotly render on each step.
        chart = st.segmented_control("Diagnostics", list(DIAGNOSTICS), default=next(iter(DIAGNOSTICS)),
                                     key="stepper_chart", label_visibility="collapsed", required=True)
        figure = DIAGNOSTICS.get(chart or "", sv.origins_figure)
        st.plotly_chart(figure(steps, index), key="stepper_diagnostic")

    tabs = st.tabs(["Merges changed", "Words changed", "Merge neighbourhood", "Metrics (Table 4)", "Download"])
    with tabs[0]:
        if step is None or not step.changed:
            st.caption("No merge changed in this step." if step else "Step 0 changes nothing.")
        else:
            rows = merge_rows_of(repr(computed.key), index, computed)
            query = st.text_input("Search merges", key="stepper_merge_search", placeholder="e.g. ids")
            shown_rows = sv.filter_rows(rows, query, ["merge before", "merge after", "type", "origin", "change"])
            st.caption(f"{len(shown_rows):,} of {len(rows):,} merges")
            st.dataframe(shown_rows, hide_index=True, width="stretch",
                         height="auto" if len(shown_rows) <= 10 else 360)
            st.download_button("Download as CSV", lambda rows=rows: sv.rows_to_csv(rows), on_click="ignore",
                               key="stepper_dl_merges", file_name=f"step{index}-merges.csv", mime="text/csv")
    with tabs[1]:
        if step is None or not step.changed_words:
            st.caption("No reference word changed its tokens in this step.")
        else:
            rows = sv.changed_word_rows(step.changed_words, display)
            st.dataframe(rows, hide_index=True, width="stretch", height="auto" if len(rows) <= 10 else 360)
            st.download_button("Download as CSV", lambda rows=rows: sv.rows_to_csv(rows), on_click="ignore",
                               key="stepper_dl_words", file_name=f"step{index}-words.csv", mime="text/csv")
    with tabs[2]:
        show_neighbourhood(index, step)
    with tabs[3]:
        st.caption("The run so far as one row of rebpe.txt Table 4 (F1 of BPE, then the change each phase "
                   "made, in percentage points), and every phase in detail.")
        st.dataframe([sv.table4_row(steps, computed.initial, index)], hide_index=True)
        rows = sv.metrics_rows(steps, computed.initial, index)
        st.dataframe(rows, hide_index=True, width="stretch")
        st.download_button("Download as CSV", lambda rows=rows: sv.rows_to_csv(rows), on_click="ignore",
                           key="stepper_dl_metrics", file_name="metrics.csv", mime="text/csv")
    with tabs[4]:
        show_downloads(index)


stepper_panel()
