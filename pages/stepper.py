"""Knockout & ReBPE stepper: run ReBPE once, then step forward and back through its phases.

Thin: the run is core's (``core.edits.rebpe.run_rebpe``, computed once per tokeniser, reference and
configuration in ``ui.rebpe_runs``); tables, figures and trees come from ``viz/``. Only the step
panel (an ``st.fragment``) reruns when stepping. The configuration and the step live in the URL
(``?tokeniser=a1_scenario2a&step=3&threshold=0.5``), so a link reproduces the view.

Prev and Next sit beside the before/after trees (the ← and → keys press them), so stepping never
scrolls; presentation mode (``?present=1``, ``ui.presentation``) leaves out the sidebar, the charts
and the tables so that the controls and both trees fit a 1280×720 projector. Step 0 is drawn from
the loaded tokeniser before the run is asked for, so a run that is not cached yet computes (with
its progress box, naming the phase it is in) above a page that is already there. The chosen word
stays through every step unless "Follow word" is turned off; its trees draw the reference
boundaries as the Word debugger does (``viz.step_views.reference_marks``).

The Download tab gives the tokeniser after the step as project JSON and as an HF folder (zip) with
every id kept or compacted; tuple merges left are first settled as the user chooses, only when asked,
with what that costs (``ui.hf_export``).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Mapping

import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.analysis.explain import trace_word
from core.edits import step_changes
from core.edits.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig
from core.errors import InputError
from core.formats.samples import scenario_paths
from core.references.files import ReferenceSet
from ui.error_boundary import boundary, guarded
from ui.hf_export import Scoring, export_section
from ui.presentation import NEXT_KEY, PREV_KEY
from ui.rebpe_runs import ComputedRun, cached_run, references_for, workspace_keys
from ui.token_ids import id_table
from ui.tokeniser_loading import source_folder_of
from ui.tree_block import page_header, scenario_buttons, show_tree
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import chosen, current, select
from viz import step_views as sv
from viz.escaping import code_span, md_escape
from viz.ranks import COLUMN_HELP
from viz.tables import scenario_rows
from viz.tokeniser_info import tokeniser_note
from viz.tokens import shown
from viz.trees import tree_legend_html

SCENARIOS = [name for name in scenario_paths() if name.startswith("a1_")]
MAX_WORD_OPTIONS = 2000
MAX_ITERATIONS = 100  # ReBPE iterations a run may take (it stops earlier when one changes nothing)


def parse_iterations(raw: str) -> int | None:
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 3 and 1 <= int(raw) <= MAX_ITERATIONS else None


DIAGNOSTICS = {  # the right-hand chart ([rebpe Fig. 3-4]) of a run up to a step
    "Changes by origin": lambda run, index: sv.origins_figure(run.steps, index),
    "|V| (Fig. 3)": lambda run, index: sv.vocab_figure(run.steps, run.start, index),
    "Knockouts (Fig. 4)": lambda run, index: sv.knocked_out_figure(run.steps, index),
}
GRAPH_PAGE = "pages/merge_graph.py"


# --- callbacks (run before the rerun, so buttons and the slider never disagree) -----------------
# The step, the chosen word and whether to follow it are plain session state (no widget owns them, so no
# change of a widget's options or layout, as presentation mode makes, resets them); WORD, FOLLOW_TOGGLE and
# TYPE are widget keys. The URL parameters are "step", "word" and "type" (ui.url_state keeps them in sync).
STEP, WORD, TYPE = "stepper_step", "stepper_word", "stepper_type"
CHOSEN, FOLLOW, FOLLOW_TOGGLE = "stepper_chosen_word", "stepper_follow_word", "stepper_follow"


def slider_key(index: int, last: int) -> str:
    """A new slider per step (see :func:`slide`)."""
    return f"stepper_slider_{last}_{index}"


def choose_scenario(name: str) -> None:
    select("tokeniser", name)
    st.session_state[STEP] = 0
    for key in (WORD, CHOSEN, TYPE, "stepper_workspace_reference"):
        st.session_state.pop(key, None)


@guarded
def move(delta: int, computed: ComputedRun) -> None:
    st.session_state[STEP] = max(0, min(len(computed.steps), int(st.session_state.get(STEP, 0)) + delta))
    suggest_word(computed)


@guarded
def slide(index: int, computed: ComputedRun) -> None:
    """The slider drawn at step ``index`` moved. When the step has changed since (Prev or Next pressed while
    the panel redraws), the browser may still send that old slider's value: it is ignored, or the step
    would jump back."""
    if int(st.session_state.get(STEP, 0)) != index:
        return
    st.session_state[STEP] = int(st.session_state[slider_key(index, len(computed.steps))])
    suggest_word(computed)


@guarded
def suggest_word(computed: ComputedRun) -> None:
    """After a step change, select the new step's first affected word, unless the user follows the
    chosen word (the default)."""
    st.session_state.pop(TYPE, None)
    if st.session_state.get(FOLLOW, True):
        return
    options = word_options(int(st.session_state.get(STEP, 0)), computed)[0]
    if options:
        st.session_state[CHOSEN] = options[0]


def word_chosen() -> None:
    st.session_state[CHOSEN] = st.session_state[WORD]


def follow_toggled() -> None:
    st.session_state[FOLLOW] = bool(st.session_state[FOLLOW_TOGGLE])


# --- page -----------------------------------------------------------------------------------------
present = page_header("Knockout & ReBPE stepper")
if not present:
    st.caption(
        "ReBPE (Bauwens & de Lhoneux, Alg. 1) alternates BPE-knockout, reparation and reification until "
        "nothing changes. The whole run is computed once; then step forward and back through its phases "
        "(Prev and Next, or the ← and → keys) and see what each one did to the merges, the metrics and the "
        "segmentation of the reference words. The address bar keeps the tokeniser, the configuration and "
        "the step."
    )
    st.markdown(
        "**Teaching scenarios** ([rebpe App. A.1]): one click loads the scenario's tokeniser and a "
        "two-word reference built from its words."
    )
# Presenting another tokeniser than a scenario: the buttons' room goes to the trees.
if not present or (st.query_params.get("tokeniser") or chosen("tokeniser")) in SCENARIOS:
    scenario_buttons(SCENARIOS, "stepper_scenario", choose_scenario)

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
if present and "stepper_workspace_reference" in st.session_state:  # its toggle is not drawn: keep its value
    st.session_state["stepper_workspace_reference"] = st.session_state["stepper_workspace_reference"]
use_workspace = bool(st.session_state.get("stepper_workspace_reference"))
references, reference_name, scenario_refs = references_for(workspace, use_workspace)
if scenario_refs is not None and not present:
    note = tokeniser_note(workspace.tokeniser_name, tokeniser.metadata)
    explanation, words_column = st.columns([3, 2])
    with explanation:
        st.info(note[1] if note else workspace.tokeniser_name)
    with words_column:
        st.markdown(
            "**Reference for this scenario:** "
            + ", ".join(f"{code_span(e.word)} → {code_span(' '.join(e.morphs))}" for e in scenario_refs.entries)
        )
        st.caption("Each word is split where the parts of the merge the paper knocks out join.")
        with st.expander("The paper's segmentations"):
            st.table(
                scenario_rows(tokeniser.metadata, tokeniser.tokenise_word, display, fmt=code_span), hide_index=True
            )
        st.toggle(
            f"Use {md_escape(workspace.reference_name)} instead",
            key="stepper_workspace_reference",
            help="Run ReBPE with the workspace's reference segmentations instead of the scenario's words.",
        )

# --- configuration (sidebar; every widget is bound to the URL) -------------------------------------------
with st.sidebar:
    st.subheader("Run configuration")
    threshold = st.slider(
        "Knockout threshold (blame ratio)",
        0.05,
        1.0,
        0.5,
        0.05,
        key="threshold",
        bind="query-params",
        help="Knock out every merge that merged across a reference boundary in at least "
        "this fraction of its applications ([knockout §3.4]; the paper uses ½).",
    )
    knockout_unit = st.radio(
        "Knockout unit",
        ["type", "merge"],
        key="knockout_unit",
        bind="query-params",
        horizontal=True,
        help="Where a type is formed by several merges (files converted from tiktoken or "
        "SentencePiece). type: the type leaves V when blame and applications summed over "
        "its merges reach the threshold. merge: only the blamed merge goes; the type stays "
        "while another merge forms it. The same with one merge per type.",
    )
    blame_mode = st.radio(
        "Blame of whole words",
        ["tree", "applied"],
        key="blame",
        bind="query-params",
        horizontal=True,
        help="With ignore_merges a reference word that is a type is emitted whole. tree: it "
        "blames the merges of its own tree (what would apply if it were not whole). "
        "applied: only applied merges are blamed, so such words escape blame.",
    )
    anneal = st.toggle(
        "Annealing first",
        key="anneal",
        bind="query-params",
        help="[rebpe §3.4]: before the first knockout, add merges for token pairs the reference never wants split.",
    )
    reify = st.toggle(
        "Reify between knockouts",
        value=True,
        key="reify",
        bind="query-params",
        help="[rebpe Alg. 1]: after each knockout, repair and reify. Off: iterated knockout.",
    )
    fix = st.toggle(
        "Repair blocked tuple merges (fix)",
        value=True,
        key="fix",
        bind="query-params",
        disabled=not reify,
        help="[rebpe Alg. 2 lines 2-15] (reparation).",
    )
    link = st.toggle(
        "Link existing submerges (link)",
        value=True,
        key="link",
        bind="query-params",
        disabled=not reify,
        help="[rebpe Alg. 2]: reuse an existing binary merge inside a tuple.",
    )
    expand = st.toggle(
        "Create new submerges (expand)",
        value=True,
        key="expand",
        bind="query-params",
        disabled=not reify,
        help="[rebpe Alg. 2]: add a binary merge just before the tuple.",
    )
    reparation_mode = st.radio(
        "Reparation mode",
        ["limited", "undo"],
        key="reparation",
        bind="query-params",
        horizontal=True,
        disabled=not (reify and fix),
        help="limited: LIMITEDBPE as Alg. 2 is written. undo: the authors' code "
        "(segment with every merge, then undo those ranked at or after the tuple).",
    )
    # Not bound to the URL by Streamlit (it fails converting a link's "-1e309" for an int): seeded and written here.
    bad_iterations = seed_from_url("iterations", "iterations", parse_iterations)
    if bad_iterations is not None:
        st.warning(
            f"The link's iterations {code_span(bad_iterations[:40])} is not a whole number from 1 to "
            f"{MAX_ITERATIONS}; using {MAX_ITERATIONS}."
        )
    max_iterations = st.number_input(
        "Maximum iterations",
        1,
        MAX_ITERATIONS,
        MAX_ITERATIONS,
        key="iterations",
        help="ReBPE stops earlier when an iteration changes nothing.",
    )
    write_to_url("iterations", max_iterations, default=MAX_ITERATIONS)
    st.caption(
        f"Tokeniser **{md_escape(workspace.tokeniser_name)}**, reference **{md_escape(reference_name)}** "
        f"({len(references.entries):,} words). Change them on the Workspace page."
    )

config = ReBPEConfig(
    knockout=KnockoutConfig(threshold=float(threshold), unit=knockout_unit or "type", blame=blame_mode or "tree"),
    anneal=AnnealConfig(when="before" if anneal else "none"),
    reify=bool(reify),
    fix=bool(fix),
    reparation=reparation_mode or "limited",
    link=bool(link),
    expand=bool(expand),
    max_iterations=int(max_iterations or 100),
)


@st.cache_data(show_spinner=False, max_entries=256)
def affected_words(run_id: str, index: int, _computed: ComputedRun) -> list[str]:
    """Every reference word whose tree step ``index`` changed (token changes first; the first
    ``core.edits.step_changes.MAX_SCAN`` words are traced): the one meaning of "changed" on this page."""
    step = _computed.steps[index - 1]
    return step_changes.affected_words(
        _computed.tokeniser_at(index - 1),
        step.tokeniser,
        _computed.words,
        step.changed_words,
        touched=step_changes.touched_types(step),
        limit=None,
    )


@st.cache_data(show_spinner=False, max_entries=256)
def merge_rows_of(run_id: str, index: int, _computed: ComputedRun) -> list[dict]:
    return sv.merge_change_rows(
        _computed.steps[index - 1], _computed.origins_before(index), _computed.start.pretokeniser.display
    )


def word_options(index: int, computed: ComputedRun) -> tuple[list[str], list[str]]:
    """The word choices at step ``index`` (the words it changed first, then the reference) and the
    words it changed."""
    affected = affected_words(repr(computed.key), index, computed) if index else []
    skipped = set(computed.unaligned)
    words = [w for w in computed.words if w not in skipped]
    return list(dict.fromkeys([*affected, *words]))[:MAX_WORD_OPTIONS], affected


def morphs_of(references: ReferenceSet, word: str) -> tuple[str, ...] | None:
    return next((entry.morphs for entry in references.entries if entry.word == word), None)


def word_trees(tok, word: str, morphs: tuple[str, ...] | None) -> tuple[list, set[tuple[int, int]]]:
    """The word's final merge trees under ``tok`` (as in running text) and its reference boundaries, drawn
    as the word debugger draws them (red dashed lines; merges across them bordered red)."""
    traced = trace_word(tok, word)
    return [tree for trace in traced.traces for tree in trace.trees], sv.reference_marks(traced, morphs)


def step_buttons(prev_column, next_column, index: int, computed: ComputedRun | None) -> None:
    """Prev and Next (the ← and → keys press them); ``computed`` None: disabled while the run computes."""
    waiting = computed is None
    prev_column.button(
        "Prev",
        icon=":material/chevron_left:",
        key="stepper_prev_wait" if waiting else "stepper_prev",
        on_click=None if waiting else move,
        args=None if waiting else (-1, computed),
        disabled=waiting or index <= 0,
        width="stretch",
        shortcut=None if waiting else PREV_KEY,
        help="The run is computing" if waiting else "One step back (← key)",
    )
    next_column.button(
        "Next",
        icon=":material/chevron_right:",
        icon_position="right",
        key="stepper_next_wait" if waiting else "stepper_next",
        on_click=None if waiting else move,
        args=None if waiting else (1, computed),
        disabled=computed is None or index >= len(computed.steps),
        width="stretch",
        shortcut=None if waiting else NEXT_KEY,
        help="The run is computing" if waiting else "One step forward (→ key)",
    )


def tree_ids(tok, computed: ComputedRun | None, index: int) -> Mapping[str, int]:
    """The token ids of ``tok``: the tokeniser as loaded (``computed`` None) or after step ``index`` of the run
    (index 0: as loaded), built once per step and shared by the steps on either side."""
    return id_table(tok, workspace.tokeniser_key if computed is None else f"{computed.key}#{index}")


def tree_row(
    word: str,
    morphs: tuple[str, ...] | None,
    before,
    after,
    step,
    index: int,
    computed: ComputedRun | None,
    name: str,
    display,
    present: bool,
) -> bool:
    """Prev | the tree before the step | the tree after it | Next, in one row (one tree at step 0), so
    the buttons stay beside the trees (``computed`` None: the run is computing); ``morphs`` are the
    word's reference segmentation. Returns whether a character is spelled by several leaves."""
    side = 1.6 if present else 2.4  # room for "Prev ←" beside the trees, with or without the sidebar
    columns = st.columns([side, 12, side] if step is None else [side, 6, 6, side], vertical_alignment="top")
    step_buttons(columns[0], columns[-1], index, computed)
    stem = f"{name}-step{index}-{word}"
    floor = sv.PRESENT_MIN_SCALE if present else 0.0
    key = "stepper_tree" if computed is not None else "stepper_preview_tree"
    try:
        if step is None:
            with columns[1]:
                st.markdown(f"**As loaded:** {sv.tokens_markdown(after.tokenise_word(word), display)}")
                trees, reference = word_trees(after, word, morphs)
                return show_tree(
                    trees,
                    display,
                    stem=stem,
                    key=key,
                    downloads=not present,
                    reference=reference,
                    floor=floor,
                    ids=tree_ids(after, None, 0),
                )
        spelled = False
        removed = set(step.removed) | {old for old, _ in step.rewired}
        added = set(step.added) | {new for _, new in step.rewired}
        for column, tok, highlight, when, at in (
            (columns[1], before, removed, "Before", index - 1),
            (columns[2], after, added, "After", index),
        ):
            with column:
                st.markdown(f"**{when} this step:** {sv.tokens_markdown(tok.tokenise_word(word), display)}")
                trees, reference = word_trees(tok, word, morphs)
                spelled |= show_tree(
                    trees,
                    display,
                    highlight,
                    stem=f"{stem}-{when.lower()}",
                    key=f"{key}_{when.lower()}",
                    downloads=not present,
                    reference=reference,
                    floor=floor,
                    ids=tree_ids(tok, computed, at),
                )
        return spelled
    except InputError as err:
        columns[1].warning(f"Cannot segment {code_span(word)}: {md_escape(err)}")
        return False


def show_preview(tokeniser, references, name: str, present: bool) -> None:
    """Step 0 before the run is there: the loaded tokeniser's tree of the chosen word (no widgets:
    the panel's come with the run)."""
    st.subheader("Step 0 · the tokeniser as loaded")
    st.markdown(sv.START_TEXT)
    st.caption(
        f"|V| {tokeniser.vocab_size:,} · tuple merges {len(tokeniser.tuple_merges):,} · the run with this "
        "configuration is being computed; Prev, Next and the metrics come with it."
    )
    words = [e.word for e in references.entries]
    if words:
        wanted = st.session_state.get(CHOSEN) or st.query_params.get("word")
        word = wanted if wanted in words else words[0]
        morphs = morphs_of(references, word)
        tree_row(word, morphs, tokeniser, tokeniser, None, 0, None, name, tokeniser.pretokeniser.display, present)


def show_neighbourhood(index: int, step, computed: ComputedRun, tokeniser, display) -> None:
    types = step_changes.touched_types(step)
    if not types:
        st.caption("This step changed no merge.")
        write_to_url("type", None)
        return
    if st.session_state.get(TYPE) not in types:
        st.session_state[TYPE] = types[0]
    type_ = st.selectbox(
        f"Type ({len(types):,} touched by this step)", types, key=TYPE, format_func=lambda t: shown(t, display)
    )
    write_to_url("type", type_)
    before, after = computed.tokeniser_at(index - 1), computed.tokeniser_at(index)
    left, right = st.columns(2)
    left.markdown(f"**Before** — M_i / M_o of {code_span(shown(type_, display))}")
    left.dataframe(
        sv.neighbourhood_rows(before, type_, display), hide_index=True, width="stretch", column_config=RANK_COLUMN
    )
    right.markdown(f"**After** — M_i / M_o of {code_span(shown(type_, display))}")
    right.dataframe(
        sv.neighbourhood_rows(after, type_, display), hide_index=True, width="stretch", column_config=RANK_COLUMN
    )
    if type_ in tokeniser.types:
        # Suppressed: the graph page is not in this app's navigation (the page run alone).
        with contextlib.suppress(StreamlitAPIException):
            st.page_link(
                GRAPH_PAGE,
                icon=":material/hub:",
                query_params={"type": shown(type_, display)},
                label=f"Open {md_escape(shown(type_, display))} in the merge graph (the loaded tokeniser, "
                "before any step)",
            )


def show_downloads(
    index: int, computed: ComputedRun, name: str, references: ReferenceSet, reference_name: str, config: ReBPEConfig
) -> None:
    """The tokeniser after the step as project JSON, and its HF export (finished when tuple merges remain)."""
    steps = computed.steps
    tok = computed.tokeniser_at(index)
    stem = f"{re.sub(r'[^A-Za-z0-9._-]+', '_', name)[:60] or 'tokeniser'}-step{index}"
    metadata = {
        "derived_from": name,
        "reference": reference_name,
        "step": index,
        "phase": steps[index - 1].phase if index else "start",
        "config": {
            "threshold": config.knockout.threshold,
            "knockout_unit": config.knockout.unit,
            "blame": config.knockout.blame,
            "anneal": config.anneal.when,
            "reify": config.reify,
            "fix": config.fix,
            "reparation": config.reparation,
            "link": config.link,
            "expand": config.expand,
        },
    }
    st.download_button(
        "Tokeniser after this step (project JSON)",
        key="stepper_dl_project",
        on_click="ignore",
        data=lambda: json.dumps(tok.to_json(metadata), ensure_ascii=False),
        file_name=f"{stem}.json",
        mime="application/json",
    )
    export_section(
        tok,
        computed.start,
        key="stepper_hf",
        cache_key=f"{computed.key!r}|step{index}",
        stem=stem,
        what="Tokeniser after this step",
        scoring=Scoring(references, reference_name, repr(computed.key)),
        source_folder=source_folder_of(name),
    )


def changed_count(changed: list[str], computed: ComputedRun) -> str:
    """How many reference words the step changed ("+": only the first ``MAX_SCAN`` words were traced)."""
    return f"{len(changed):,}" + ("+" if len(computed.words) > step_changes.MAX_SCAN else "")


def counts_row(step, index: int, changed: list[str], after, computed: ComputedRun, present: bool) -> None:
    """F1 and what the step changed (at step 0: |V| and tuple merges): metric cards, or one line when
    presenting."""
    steps = computed.steps
    metrics = step.metrics if step else computed.initial
    previous = (steps[index - 2].metrics if index >= 2 else computed.initial) if step else None
    change = None if previous is None else 100 * (metrics.f1 - previous.f1)
    words_help = sv.words_changed_help(len(changed), len(step.changed_words)) if step else None
    counts = [
        (label, changed_count(changed, computed) if label == sv.WORDS_CHANGED else f"{value:,}")
        for label, value in (
            sv.step_counts(step, len(changed))
            if step
            else [("|V|", after.vocab_size), ("Tuple merges", len(after.tuple_merges))]
        )
    ]
    if present:
        shown_counts = [f"{label} **{value}**" for label, value in counts if value != "0" or label == sv.WORDS_CHANGED]
        delta = "" if change is None else f" ({change:+.2f} points)"
        st.markdown(" · ".join([f"F1 **{100 * metrics.f1:.2f} %**{delta}", *shown_counts]), help=words_help)
        return
    columns = st.columns([1.2, 1, 1, 1, 1, 1, 1.35])  # room for "Words changed" and its help icon
    columns[0].metric(
        "F1 (%)",
        f"{100 * metrics.f1:.2f}",
        delta=None if change is None else f"{change:+.2f} points",
        delta_color="off" if change is not None and abs(change) < 0.005 else "normal",
    )
    for column, (label, value) in zip(columns[1:], counts, strict=False):  # step 0 has fewer counts
        column.metric(label, value, help=words_help if label == sv.WORDS_CHANGED else None)


def word_label(step, changed: list[str], computed: ComputedRun) -> str:
    if not step:
        return "Word"
    if changed:
        return f"Word ({changed_count(changed, computed)} changed by this step, marked •, listed first)"
    return "Word (this step changes no word; any reference word)"


def word_and_trees(
    columns,
    options: list[str],
    changed: list[str],
    before,
    after,
    step,
    index: int,
    computed: ComputedRun,
    references: ReferenceSet,
    name: str,
    display,
    present: bool,
) -> bool:
    """The word chooser and the word's trees before and after the step (whether a character is
    spelled by several symbols); without words, a notice and the step buttons."""
    word_column, follow_column = columns
    if not options:
        word_column.caption("The reference has no word this tokeniser can segment.")
        step_buttons(*st.columns([1, 1]), index, computed)
        return False
    marked = set(changed)
    chosen = st.session_state.get(CHOSEN)
    if chosen not in options:
        if chosen in computed.words and chosen not in computed.unaligned:  # past the list's cap: still offered
            options = [chosen, *options]
        else:
            chosen = st.session_state[CHOSEN] = options[0]
    st.session_state[WORD] = chosen
    word = word_column.selectbox(
        word_label(step, changed, computed),
        options,
        key=WORD,
        on_change=word_chosen,
        format_func=lambda w: f"• {w}" if w in marked else w,
        label_visibility="collapsed" if present else "visible",
    )
    write_to_url("word", word)
    follow_column.toggle(
        "Follow word",
        value=st.session_state.get(FOLLOW, True),
        key=FOLLOW_TOGGLE,
        on_change=follow_toggled,
        help="On (the default): keep this word when stepping. Off: every step selects the first word it changed.",
    )
    morphs = morphs_of(references, word)
    return tree_row(word, morphs, before, after, step, index, computed, name, display, present)


def charts(index: int, computed: ComputedRun) -> None:
    """F1 over the steps, next to one chosen diagnostic."""
    chart_left, chart_right = st.columns(2)
    chart_left.plotly_chart(sv.f1_figure(computed.steps, computed.initial, index), key="stepper_f1")
    with chart_right:
        # One diagnostic at a time: every chart costs the browser a plotly render on each step.
        chart = st.segmented_control(
            "Diagnostics",
            list(DIAGNOSTICS),
            default=next(iter(DIAGNOSTICS)),
            key="stepper_chart",
            label_visibility="collapsed",
            required=True,
        )
        figure = DIAGNOSTICS.get(chart or "", DIAGNOSTICS["Changes by origin"])
        st.plotly_chart(figure(computed, index), key="stepper_diagnostic")


def csv_download(rows: list[dict], key: str, file_name: str) -> None:
    st.download_button(
        "Download as CSV",
        lambda rows=rows: sv.rows_to_csv(rows),
        on_click="ignore",
        key=key,
        file_name=file_name,
        mime="text/csv",
    )


def show_merges_changed(step, index: int, computed: ComputedRun) -> None:
    if step is None or not step.changed:
        st.caption("No merge changed in this step." if step else "Step 0 changes nothing.")
        return
    rows = merge_rows_of(repr(computed.key), index, computed)
    query = st.text_input("Search merges", key="stepper_merge_search", placeholder="e.g. ids")
    shown_rows = sv.filter_rows(rows, query, ["merge before", "merge after", "type", "origin", "change"])
    st.caption(f"{len(shown_rows):,} of {len(rows):,} merges")
    st.dataframe(
        shown_rows,
        hide_index=True,
        width="stretch",
        column_config=RANK_COLUMN,
        height="auto" if len(shown_rows) <= 10 else 360,
    )
    csv_download(rows, "stepper_dl_merges", f"step{index}-merges.csv")


def show_words_changed(step, index: int, changed: list[str], after, display) -> None:
    if step is None or not changed:
        st.caption("This step changed no reference word." if step else "Step 0 changes nothing.")
        return
    new_tokens = {w for w, *_ in step.changed_words}
    rows = sv.changed_word_rows(
        step.changed_words, display, [(w, after.tokenise_word(w)) for w in changed if w not in new_tokens]
    )
    st.caption(md_escape(sv.words_changed_help(len(changed), len(step.changed_words))))
    st.dataframe(rows, hide_index=True, width="stretch", height="auto" if len(rows) <= 10 else 360)
    csv_download(rows, "stepper_dl_words", f"step{index}-words.csv")


def show_metrics(index: int, computed: ComputedRun) -> None:
    st.caption(
        "The run so far as one row of [rebpe Table 4] (F1 of BPE, then the change each phase "
        "made, in percentage points), and every phase in detail."
    )
    st.dataframe([sv.table4_row(computed.steps, computed.initial, index)], hide_index=True)
    rows = sv.metrics_rows(computed.steps, computed.initial, index)
    st.dataframe(rows, hide_index=True, width="stretch")
    csv_download(rows, "stepper_dl_metrics", "metrics.csv")


def detail_tabs(
    step,
    index: int,
    changed: list[str],
    after,
    computed: ComputedRun,
    tokeniser,
    name: str,
    references: ReferenceSet,
    reference_name: str,
    config: ReBPEConfig,
) -> None:
    display = tokeniser.pretokeniser.display
    tabs = st.tabs(["Merges changed", "Words changed", "Merge neighbourhood", "Metrics (Table 4)", "Download"])
    with tabs[0]:
        show_merges_changed(step, index, computed)
    with tabs[1]:
        show_words_changed(step, index, changed, after, display)
    with tabs[2]:
        show_neighbourhood(index, step, computed, tokeniser, display)
    with tabs[3]:
        show_metrics(index, computed)
    with tabs[4]:
        show_downloads(index, computed, name, references, reference_name, config)


@st.fragment
@boundary()  # a fragment rerun does not pass through app.py's boundary
def stepper_panel(
    computed: ComputedRun,
    tokeniser,
    name: str,
    references: ReferenceSet,
    reference_name: str,
    config: ReBPEConfig,
    present: bool,
) -> None:
    steps, last = computed.steps, len(computed.steps)
    display = tokeniser.pretokeniser.display
    index = int(st.session_state.get(STEP, 0))
    step = steps[index - 1] if index else None
    after = computed.tokeniser_at(index)
    before = computed.tokeniser_at(index - 1) if index else after

    if present:  # the heading shares its row with the word and the step: the trees need the height
        heading, word_column, slider_column, follow_column = st.columns([4.6, 3, 3, 1.9], vertical_alignment="center")
        heading.subheader(sv.step_title(steps, index))
    else:
        st.subheader(sv.step_title(steps, index))
    st.markdown(sv.PHASE_TEXT.get(step.phase, "") if step else sv.START_TEXT)
    if step is not None and step.annealing is not None:  # what annealing looked at, and why it added what it did
        summary = step.annealing.summary()
        st.caption(md_escape(summary[:1].upper() + summary[1:]) + ".")
    options, changed = word_options(index, computed)
    if present:
        counts_row(step, index, changed, after, computed, present)
    else:
        word_column, slider_column, follow_column = st.columns([3, 3, 1.3], vertical_alignment="bottom")
    with slider_column:
        st.slider(
            "Step (0 = the tokeniser as loaded)",
            0,
            last,
            value=index,
            key=slider_key(index, last),
            on_change=slide,
            args=(index, computed),
            label_visibility="collapsed" if present else "visible",
        )
    write_to_url("step", index, default=0)
    spelled = word_and_trees(
        (word_column, follow_column),
        options,
        changed,
        before,
        after,
        step,
        index,
        computed,
        references,
        name,
        display,
        present,
    )
    highlight = (sv.STEP_HIGHLIGHT_SHORT if present else sv.STEP_HIGHLIGHT) if step else ""
    # Presenting too: the class needs to know what the red and blue marks mean.
    st.html(tree_legend_html(step=False, reference=True, highlight=highlight, characters=spelled))
    if present:
        return
    st.caption(sv.TREE_HELP)
    counts_row(step, index, changed, after, computed, present)  # below the trees, so that stepping does not move them
    charts(index, computed)
    detail_tabs(step, index, changed, after, computed, tokeniser, name, references, reference_name, config)


RANK_COLUMN = {"rank": st.column_config.TextColumn("rank", help=COLUMN_HELP)}

# --- step 0 first, then the run (computed once per tokeniser, reference and configuration) ----------------
# The run's progress box, then its summary and notices; when there is nothing to say (as when presenting),
# the slot takes no room (an empty st.container would still take a gap).
run_slot = st.empty()
preview = st.empty()
if str(st.session_state.get(STEP, st.query_params.get("step", "0"))) == "0":
    with preview.container():
        show_preview(tokeniser, references, workspace.tokeniser_name, present)
with run_slot.container():
    try:
        computed = cached_run(
            workspace.tokeniser_name,
            tokeniser,
            reference_name,
            references,
            config,
            **workspace_keys(workspace, reference_name),
        )
    except InputError as err:
        preview.empty()
        st.error(f"Could not run ReBPE: {md_escape(err)}")
        st.stop()
run_slot.empty()
preview.empty()

steps = computed.steps
last = len(steps)
final = steps[-1]
iterations = len({s.iteration for s in steps})
notes: list[tuple[Callable, str]] = []
if not present:
    notes.append(
        (
            st.markdown,
            f"**The run:** {last} steps in {iterations} iteration{'s' if iterations != 1 else ''} · "
            f"F1 {100 * computed.initial.f1:.2f} % → {100 * final.metrics.f1:.2f} % · "
            f"|V| {tokeniser.vocab_size:,} → {final.vocab_size:,} · tuple merges {len(tokeniser.tuple_merges):,} → "
            f"{final.tuple_merges:,} · computed in {computed.seconds:.1f} s, kept for this tokeniser, reference and "
            "configuration.",
        )
    )
if computed.unaligned:
    notes.append(
        (
            st.warning,
            f"{len(computed.unaligned):,} of {len(references.entries):,} reference words could not be "
            "aligned with this tokeniser's pre-tokeniser and are left out.",
        )
    )

# A link's step, word and type seed the widgets on the first run; a step the run does not have is refused.
refused = seed_from_url(STEP, "step", lambda raw: int(raw) if raw.isdigit() and int(raw) <= last else None)
if refused is not None:
    notes.append(
        (
            st.warning,
            f"The link asks for step {md_escape(refused[:20])}, but this run has steps 0–{last}; showing step 0.",
        )
    )
if notes:
    with run_slot.container():
        for show, text in notes:
            show(text)
seed_from_url(CHOSEN, "word", lambda raw: raw)
seed_from_url(TYPE, "type", lambda raw: raw)
if int(st.session_state.get(STEP, 0) or 0) > last:  # a shorter run than before
    st.session_state[STEP] = last

stepper_panel(computed, tokeniser, workspace.tokeniser_name, references, reference_name, config, present)
