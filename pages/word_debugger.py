"""Word debugger: why does a word segment as it does?

For the loaded tokeniser (Workspace page) and each typed word: the tokens with whitespace and
bytes visible; the segmentation tree with a slider through the merges as they fired; every
character boundary against the reference (blame view); a plain-words explanation (first merge
that crossed a reference boundary, trapped tokens as in bpe-knockout.txt App. A.4); and the word
under BPE, knockout, ReBPE, TrimmedBPE and BPE-dropout side by side. For every token, the merges
of its type: the one that fired in this word, the primary merge (forming the type from its own
string) and the alternatives (files converted from tiktoken or SentencePiece form a type by several
merges), with how often each fires on the reference and the corpus.

Thin on purpose: tracing and explanations are core's (``core.explain``), knockout/ReBPE/TrimmedBPE/
dropout too; every piece of HTML comes from viz/. The words, the word in focus and the step are in
the URL (``?word=masterthesis&step=6``), so a link reproduces the view.

Every family shows its tokens and its own trace; the tree, the blame view and the comparison rows
need a merge graph (``ui.workspace.Workspace.with_merge_graph``): Scaffold-BPE, PickyBPE and
BoundlessBPE use their merge lists (said in a caption), a family without one gets a one-line notice.
"""
from __future__ import annotations

import streamlit as st

from core.dropout import dropout_samples
from core.errors import InputError
from core.explain import WordTrace, agreement, explain_word, reference_splits, token_merges, trace_word
from core.rebpe import run_knockout, run_rebpe
from core.trimmed import TrimmedBPE, token_frequencies
from ui import workspace as ws
from ui.error_boundary import boundary
from ui.merge_usage import counters as fire_counters
from viz.escaping import code_span, md_escape
from viz.tables import merge_rows
from viz.tokeniser_info import marker_legend, markers
from viz.tokens import (
    PAGE_CSS,
    boundary_strip_html,
    comparison_html,
    rank_text,
    segmentation_html,
    shown,
    split_words,
    token_chips_html,
    visible,
    words_html,
)
from viz.trace_views import kind_counts, trace_html
from viz.trees import TREE_LEGEND, merge_tree_svg, svg_html

ws.ensure_app_navigation()

MAX_WORDS = 12
DROPOUT_SAMPLES = 4
TRIM_THRESHOLDS = [0, 1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]


# --- cached engine work (keyed by content keys; the objects themselves are not hashed) --------------
@st.cache_resource(show_spinner=False, max_entries=8)
def reference_index(_references, reference_key: str) -> dict:
    return _references.by_word()


@st.cache_resource(show_spinner=False, max_entries=1024)
def explanation(_tokeniser, tokeniser_key: str, word: str, morphs: tuple[str, ...] | None):
    return explain_word(_tokeniser, word, morphs, counterfactual=True)


@st.cache_resource(show_spinner=False, max_entries=1024)
def traced_word(_tokeniser, tokeniser_key: str, word: str) -> WordTrace:
    return trace_word(_tokeniser, word)


@st.cache_resource(show_spinner=False, max_entries=1024)
def own_tokens(_tokeniser, tokeniser_key: str, word: str) -> tuple[str, ...]:
    """The word through the tokeniser itself (any family), as in running text."""
    return tuple(_tokeniser.tokenise_word(word))


@st.cache_resource(show_spinner="Running BPE-knockout on the reference (once per tokeniser and reference)…",
                   max_entries=8)
def knockout_result(_tokeniser, tokeniser_key: str, _references, reference_key: str):
    run = run_knockout(_tokeniser, _references.entries)
    return run.tokeniser, len(_tokeniser.merges) - len(run.tokeniser.merges)


@st.cache_resource(show_spinner="Running ReBPE on the reference: knockout, reparation and reification until "
                                "stable (about 10 s for the Dutch 40k, once)…", max_entries=8)
def rebpe_result(_tokeniser, tokeniser_key: str, _references, reference_key: str):
    run = run_rebpe(_tokeniser, _references.entries)
    iterations = len({step.iteration for step in run.steps})
    return run.tokeniser, iterations


@st.cache_resource(show_spinner="Counting token frequencies for TrimmedBPE…", max_entries=8)
def trim_frequencies(_tokeniser, tokeniser_key: str, counts_key: str, _counts) -> dict[str, int]:
    """Token frequencies of the word counts ``_counts()`` (``counts_key``: their content key)."""
    return dict(token_frequencies(_tokeniser, _counts()))


@st.cache_resource(show_spinner=False, max_entries=32)
def trimmed_tokeniser(_tokeniser, tokeniser_key: str, counts_key: str, threshold: int, _counts) -> TrimmedBPE:
    return TrimmedBPE(_tokeniser, trim_frequencies(_tokeniser, tokeniser_key, counts_key, _counts), threshold)


# --- URL state ----------------------------------------------------------------------------------------
def _words_changed() -> None:
    """A new word list starts every word at its final segmentation."""
    st.query_params.pop("step", None)
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith("step::")]:
        del st.session_state[key]


def _focus_changed() -> None:
    st.query_params.pop("step", None)


def step_from_url(n_steps: int) -> int:
    """The ``step`` URL parameter if it is a whole number in 0..n_steps, else n_steps (the end)."""
    raw = st.query_params.get("step")
    if isinstance(raw, str) and raw.strip().isdigit() and int(raw) <= n_steps:
        return int(raw)
    return n_steps


def _step_changed(key: str, n_steps: int) -> None:
    value = st.session_state[key]
    if value == n_steps:
        st.query_params.pop("step", None)
    else:
        st.query_params["step"] = str(value)


def _nudge(key: str, n_steps: int, delta: int) -> None:
    st.session_state[key] = max(0, min(n_steps, st.session_state[key] + delta))
    _step_changed(key, n_steps)


def default_words(metadata: dict) -> str:
    words = [str(w.get("word", "")) for w in metadata.get("words", ()) if isinstance(w, dict) and w.get("word")]
    return " ".join(words) if words else "bruidsjurk masterthesis"


# --- the page -----------------------------------------------------------------------------------------
st.html(PAGE_CSS)
st.title("Word debugger")
workspace = ws.current()
loaded = workspace.tokeniser  # any family
try:
    graph_workspace = workspace.with_merge_graph("Debugging a word step by step (tree, blame, comparison)")
    graph_notice = None
except InputError as err:  # CapabilityError: tokens and the family's own trace only
    graph_workspace, graph_notice = None, str(err)
own_graph = graph_workspace is not None and not graph_workspace.merge_graph_of
tokeniser = graph_workspace.tokeniser if graph_workspace is not None else None  # the merge graph (BPE)
display = loaded.pretokeniser.display
chip_options = dict(types=tokeniser.types if own_graph else loaded.vocabulary, markers=markers(loaded.pretokeniser))
fmt = lambda token: code_span(shown(token, display))  # noqa: E731
word_fmt = lambda text: code_span(visible(text))  # noqa: E731

st.caption(f"Reference **{md_escape(workspace.reference_name)}** ({len(workspace.references.entries):,} words); "
           "uploads and other references are on the Workspace page. Each word is tokenised as in running text "
           "(a space, then the word, through the tokeniser's own pre-tokeniser).")

left, middle, right = st.columns([5, 4, 3])
middle.selectbox("Tokeniser", ws.choices("tokeniser"), key="ws_tokeniser", format_func=ws.tokeniser_label)
text = left.text_input("Words (separated by spaces)", value=default_words(workspace.metadata), key="word",
                       bind="query-params", on_change=_words_changed, placeholder="e.g. masterthesis bruidsjurk",
                       help=f"At most {MAX_WORDS} words; the first (or the one picked below) is debugged in detail.")
compare_with = right.radio("Reference boundaries", ["morphs", "compound parts"], horizontal=True, key="refmode",
                           help="Morphs: every morpheme boundary (as BPE-knockout's blame uses). Compound parts: "
                                "only the boundaries between the free parts of a compound.")
words, total = split_words(text, MAX_WORDS)
if not words:
    st.info("Type one or more words above, for example `masterthesis bruidsjurk`.")
    st.stop()
if total > len(words):
    st.caption(f"Showing the first {len(words)} of {total} words.")

index = reference_index(workspace.references, workspace.reference_key)


def reference_of(word: str) -> tuple[str, ...] | None:
    entry = index.get(word) or index.get(word.lower())
    if entry is None:
        return None
    morphs = entry.free_morphs if compare_with == "compound parts" else entry.morphs
    if morphs is None or len(morphs) and "".join(morphs).lower() != word.lower():
        return None
    # The entry may be lower-cased; cut the typed word at the same places.
    out, offset = [], 0
    for morph in morphs:
        out.append(word[offset:offset + len(morph)])
        offset += len(morph)
    return tuple(out)


# All words at a glance: the tokeniser's own tokens (for BPE its traces, which the views below reuse).
traces: dict[str, WordTrace] = {}
segmented: dict[str, tuple[str, ...]] = {}
for word in words:
    try:
        if own_graph:
            traces[word] = traced_word(tokeniser, workspace.tokeniser_key, word)
            segmented[word] = traces[word].tokens
        else:
            segmented[word] = own_tokens(loaded, workspace.tokeniser_key, word)
            if tokeniser is not None:
                traces[word] = traced_word(tokeniser, graph_workspace.tokeniser_key, word)
    except InputError as err:
        st.error(f"Cannot segment {word_fmt(word)}: {md_escape(err)}")
        segmented.pop(word, None)
        traces.pop(word, None)
st.html(words_html([segmentation_html(word, segmented[word], display, **chip_options)
                    for word in words if word in segmented]))
st.caption(marker_legend(loaded.pretokeniser))
if not segmented:
    st.stop()

focusable = list(dict.fromkeys(w for w in words if w in segmented))
focus = focusable[0]
if len(focusable) > 1:
    picked = st.segmented_control("Word to debug", focusable, default=focusable[0], key="focus",
                                  bind="query-params", on_change=_focus_changed,
                                  format_func=lambda w: md_escape(visible(w)))  # options are markdown
    focus = picked if picked in segmented else focusable[0]

if not own_graph:  # the family's own account of the word (Scaffold demolitions, Picky splits, Viterbi …)
    try:
        own_trace = loaded.trace_text(" " + focus)
    except InputError as err:
        st.error(f"Cannot trace {word_fmt(focus)}: {md_escape(err)}")
    else:
        with st.expander(md_escape(f"How the {loaded.kind} tokeniser segments {visible(focus)}: "
                                   f"{kind_counts(own_trace)}"),
                         expanded=tokeniser is None):
            st.html(trace_html(own_trace, display, markers=chip_options["markers"]))
if tokeniser is None:
    st.info(md_escape(graph_notice))
    st.stop()
if not own_graph:
    st.caption(md_escape(graph_workspace.graph_note()))
if focus not in traces:
    st.stop()
traced = traces[focus]
morphs = reference_of(focus)
try:
    explained = explanation(tokeniser, graph_workspace.tokeniser_key, focus, morphs)
except InputError as err:
    st.error(f"Cannot explain {word_fmt(focus)}: {md_escape(err)}")
    st.stop()

st.header(f"“{md_escape(visible(focus))}”", anchor=False)

# --- what went wrong ---
with st.container(border=True):
    st.subheader("What went wrong?", anchor=False)
    if morphs is not None:
        entry_text = " · ".join(word_fmt(m) for m in morphs)
        st.markdown(f"**Reference ({md_escape(compare_with)}):** {entry_text}")
    sentences = explained.sentences(fmt, word_fmt)
    box = st.success if explained.agrees else st.info if morphs is None else st.warning
    box("\n".join(f"- {s}" for s in sentences))
    if explained.standalone and len(explained.standalone) > 1:
        alone = " · ".join(" ".join(fmt(t) for t in piece) for piece in explained.standalone)
        st.caption(f"Each reference piece segmented on its own: {alone}")


# --- the tree and the merges, step by step ---
@st.fragment
@boundary()  # a fragment rerun does not pass through app.py's boundary
def step_view(word: str, traced: WordTrace) -> None:
    n_steps = traced.n_steps
    key = f"step::{word}"
    if key not in st.session_state or not 0 <= st.session_state[key] <= n_steps:
        st.session_state[key] = step_from_url(n_steps)
    st.subheader("Merges, one by one", anchor=False)
    if n_steps:
        back, slider, forward = st.columns([1, 10, 1], vertical_alignment="bottom")
        back.button("◀", key=f"back::{word}", on_click=_nudge, args=(key, n_steps, -1),
                    help="One merge back", disabled=st.session_state[key] == 0)
        forward.button("▶", key=f"forward::{word}", on_click=_nudge, args=(key, n_steps, 1),
                       help="One merge forward", disabled=st.session_state[key] == n_steps)
        slider.slider("Step (0 = characters only)", 0, n_steps, key=key, on_change=_step_changed,
                      args=(key, n_steps), help="Drag, or click the slider and use the arrow keys.")
    step = st.session_state[key] if n_steps else 0
    fired = traced.merge_at(step) if step else None
    if not n_steps:
        st.caption("No merge applies: every character stays a token of its own.")
    elif step == 0:
        st.markdown(f"**Step 0 of {n_steps}:** every character is a token of its own.")
    else:
        pretoken, merge = fired
        tail = " — the final segmentation." if step == n_steps else "."
        st.markdown(f"**Step {step} of {n_steps}:** {' + '.join(fmt(p) for p in merge.parts)} → {fmt(merge.result)} "
                    f"(rank {rank_text(merge.rank)})"
                    f"{tail}")
    st.html(token_chips_html(traced.tokens_at(step), display, **chip_options))
    done = [traced.steps_done(i, step) for i in range(len(traced.traces))]
    last = None if fired is None else (fired[0], traced.steps_done(fired[0], step) - 1)
    blamed = {(b.pretoken, b.offset) for b in explained.boundaries if b.reference}
    svg = merge_tree_svg([(t.pretoken, t.trees) for t in traced.traces], display, done=done, last_step=last,
                         reference=blamed, caption=f"segmentation tree of {word} at step {step}")
    st.html(svg_html(svg, alt=f"segmentation tree of {word} at step {step}"))
    st.html(TREE_LEGEND)
    rows = merge_rows(traced.traces, display, fmt=code_span, tuple_column=bool(tokeniser.tuple_merges))
    if rows:
        with st.expander(f"All {len(rows)} merges in the order they fired"):
            st.table(rows, hide_index=True)


step_view(focus, traced)


# --- the merges of each token: primary, alternatives, what fired, how often each fires ---
def token_merge_rows(tokens, counts) -> list[dict]:
    rows = []
    for item in tokens:
        if not item.merges:
            continue
        for merge in item.merges:
            kind = ("its only merge" if len(item.merges) == 1 else
                    "primary" if merge == item.primary else "alternative")
            row = {"token": fmt(item.token), "merge": " + ".join(fmt(p) for p in merge.parts),  # cells are markdown
                   "rank": rank_text(merge.rank), "kind": kind,
                   "fired in this word": ("yes" if merge == item.fired else
                                          "— (emitted whole)" if item.whole and merge == item.primary else "")}
            for name, values in counts.items():
                row[f"fires on the {name}"] = f"{values.get(merge, 0):,}"
            rows.append(row)
    return rows


with st.container(border=True):
    st.subheader("The merges of each token", anchor=False)
    items = token_merges(tokeniser, traced)
    try:
        counters = fire_counters(graph_workspace, tokeniser, graph_workspace.tokeniser_key)
    except InputError as err:  # counts are extra information: a file they cannot be made from says so
        st.caption(f"Merge counts are not available: {md_escape(err)}")
        counters = {}
    wanted = [m for item in items for m in item.merges]
    counts = {name: counter.counts(wanted) for name, counter in counters.items()}
    several = [item for item in items if len(item.merges) > 1]
    notes = []
    for item in items:
        if item.fired_alternative:
            notes.append(f"{fmt(item.token)} was formed here by the alternative "
                         f"{' + '.join(fmt(p) for p in item.fired.parts)} (rank {rank_text(item.fired.rank)}), not by "
                         f"its primary merge {' + '.join(fmt(p) for p in item.primary.parts)}.")
        elif item.whole and item.merges:
            notes.append(f"{fmt(item.token)} is emitted whole (ignore_merges: the pretoken is a type), so no merge "
                         "fired; the tree shows it as one piece.")
    st.caption("For each token of the word, every merge forming its type: the **primary** one forms the type from "
               "its own string, **alternatives** only inside longer pretokens, if at all"
               + (f" ({len(several)} of the tokens here have alternatives)" if several else
                  " (each type here has one merge)")
               + ". The tree above draws the merges that actually fired. Counts: merge applications while the "
                 f"reference words (as in running text) and the corpus ({md_escape(graph_workspace.corpus_name)}) "
                 "are segmented.")
    for note in notes:
        st.markdown("- " + note)
    rows = token_merge_rows(items, counts)
    if rows:
        st.table(rows, hide_index=True)
    else:
        st.caption("No token of this word is formed by a merge (every token is a single symbol).")

# --- blame view ---
with st.container(border=True):
    st.subheader("Every boundary against the reference", anchor=False)
    if morphs is None:
        st.caption(f"{word_fmt(focus)} is not in the reference {md_escape(workspace.reference_name)}: the markers "
                   "only show where the tokens split (|) and which merge removed each other boundary (#rank).")
    st.html(boundary_strip_html([t.pretoken for t in traced.traces], explained.boundaries, display))

# --- the same word under other tokenisers ---
st.subheader("The same word under other tokenisers", anchor=False)
controls = st.columns(4)
sources = [name for name in ws.SAMPLE_COUNTS] + [f"corpus: {workspace.corpus_name}"]
default_source = workspace.counts_name or sources[-1]
source = controls[0].selectbox("TrimmedBPE frequencies from", sources, index=sources.index(default_source)
                               if default_source in sources else 0, key="trim_source",
                               help="Token frequencies = the word counts tokenised by the loaded BPE (subword-nmt "
                                    "style); types that never surface as a token have frequency 0.")
threshold = controls[1].select_slider("TrimmedBPE threshold", TRIM_THRESHOLDS, value=1_000, key="trim_threshold",
                                      format_func=lambda v: f"{v:,}",
                                      help="A type whose frequency is below the threshold is decomposed into the "
                                           "largest untrimmed types under it (rebpe.txt §2.1).")
probability = controls[2].slider("Dropout probability p", 0.0, 1.0, 0.1, 0.05, key="dropout_p",
                                 help="BPE-dropout skips each applicable merge with probability p.")
seed = controls[3].number_input("Dropout seed", 0, 10_000, 0, key="dropout_seed")

gold = None if morphs is None else reference_splits(morphs)


def note_for(tokens) -> str:
    if gold is None:
        return ""
    result = agreement(traced, tokens, gold)
    if result is None:
        return ""
    kept, wanted, extra = result
    if kept == wanted and not extra:
        return "✓ matches the reference"
    parts = [f"keeps {kept} of {wanted} reference split{'s' if wanted != 1 else ''}"]
    if extra:
        parts.append(f"{extra} extra split{'s' if extra != 1 else ''}")
    return ", ".join(parts)


rows: list[tuple] = [("BPE (loaded)", list(traced.tokens), note_for(traced.tokens), tokeniser.types)]
if not own_graph:
    rows = [(f"{loaded.kind} (loaded)", list(segmented[focus]), note_for(segmented[focus]), loaded.vocabulary),
            ("its merge graph as BPE", list(traced.tokens), note_for(traced.tokens), tokeniser.types)]
edited = [("after knockout", knockout_result, "{} merges knocked out"),
          ("after ReBPE", rebpe_result, "{} iterations")]
for label, compute, summary in edited:
    try:
        edited_tokeniser, amount = compute(tokeniser, graph_workspace.tokeniser_key, workspace.references,
                                           workspace.reference_key)
        tokens = edited_tokeniser.tokenise_word(focus)
        rows.append((label, tokens, "; ".join(x for x in (note_for(tokens), summary.format(amount)) if x),
                     edited_tokeniser.types))
    except InputError as err:
        rows.append((label, None, f"not available: {err}"))
try:
    if source in ws.SAMPLE_COUNTS:
        counts_key, read_counts = source, lambda: ws.sample_counts(source)
    else:  # the workspace corpus: by its content key (two sessions' uploads of one name differ)
        counts_key, read_counts = f"corpus: {workspace.corpus_key}", workspace.corpus_counts
    trimmed = trimmed_tokeniser(tokeniser, graph_workspace.tokeniser_key, counts_key, threshold, read_counts)
    tokens = trimmed.tokenise_word(focus)
    rows.append((f"TrimmedBPE (T = {threshold:,})", tokens,
                 "; ".join(x for x in (note_for(tokens), f"{len(trimmed.trimmed):,} types trimmed") if x),
                 trimmed.vocabulary))
except InputError as err:
    rows.append(("TrimmedBPE", None, f"not available: {err}"))
try:
    for n, sample in enumerate(dropout_samples(tokeniser, focus, probability, DROPOUT_SAMPLES, seed=int(seed)), 1):
        rows.append((f"BPE-dropout p = {probability:g}, sample {n}", sample, note_for(sample), tokeniser.types))
except InputError as err:
    rows.append(("BPE-dropout", None, f"not available: {err}"))
st.html(comparison_html(rows, display, markers=chip_options["markers"]))
st.caption(f"Knockout and ReBPE ran on the reference {md_escape(workspace.reference_name)} "
           f"({md_escape(compare_with)} are compared above; the edits always use morph boundaries), with the "
           "papers' defaults (blame ratio ≥ ½; ReBPE with reparation and reification until nothing changes).")
