"""Word debugger: why does a word segment as it does, and how does running text segment?

For the loaded tokeniser (Workspace page) and each typed word: the tokens with whitespace and
bytes visible; the segmentation tree with a slider through the merges as they fired; every
character boundary against the reference (blame view); a plain-words explanation (first merge
that crossed a reference boundary, trapped tokens as in [knockout App. A.4]); and, when asked
for (a toggle, so the first view never waits on knockout), the word under BPE, knockout, ReBPE,
TrimmedBPE and BPE-dropout side by side (runs shared with the other pages through
``ui.rebpe_runs.cached_run``). For every token, the merges of its type: the one that fired in this
word, the primary merge (forming the type from its own string) and the alternatives (files
converted from tiktoken or SentencePiece form a type by several merges), with how often each fires
on the reference and the corpus.

Running text (the "Input" switch, or ``?text=``), as tiktokenizer shows it: token, character and
byte counts, and a chip per token with its id, linking to its type on the Merge graph page and to
the tree of its word on this page (``viz/running_text.py``). Presentation mode (``ui/presentation``)
puts Prev/Next beside the tree (the arrow keys step) and leaves out the secondary tables.

Thin on purpose: tracing and explanations are core's (``core.analysis.explain``), knockout/ReBPE/TrimmedBPE/
dropout too; every piece of HTML comes from viz/. The input, the words, the word in focus, the step
and the text (up to ``MAX_URL_TEXT`` characters) are in the URL (``?word=masterthesis&step=6``), so
a link reproduces the view.

Every family shows its tokens, its running text and its own trace; the tree, the blame view and the
comparison rows need a merge graph (``ui.workspace.Workspace.with_merge_graph``): Scaffold-BPE,
PickyBPE and BoundlessBPE use their merge lists (said in a caption), a family without one gets a
one-line notice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

import streamlit as st

from core.analysis.explain import (
    WordTrace,
    agreement,
    emitted_whole,
    explain_word,
    reference_splits,
    token_merges,
    trace_word,
)
from core.counting.token_frequencies import token_frequencies
from core.edits.rebpe import KnockoutConfig, ReBPEConfig
from core.errors import InputError
from core.families.dropout import dropout_samples
from core.families.trimmed import TrimmedBPE
from ui.downloads import figure_downloads
from ui.error_boundary import boundary
from ui.merge_usage import counters as fire_counters
from ui.presentation import NEXT_KEY, PREV_KEY, apply_presentation, presentation_toggle
from ui.presentation import PARAM as PRESENT_PARAM
from ui.rebpe_runs import cached_run, references_for, workspace_keys
from ui.token_ids import id_lookup, id_table
from ui.tokeniser_loading import tokeniser_label
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import DEBUGGED_WORD, current, ensure_app_navigation
from ui.workspace_choices import choices
from ui.workspace_links import page_link
from viz.escaping import code_span, md_escape
from viz.ranks import id_rank_text, is_between, rank_help, rank_text
from viz.running_text import RUNNING_TEXT_CSS, running_text_html, text_tokens
from viz.tables import merge_rows
from viz.tokeniser_info import marker_legend, markers
from viz.tokens import (
    PAGE_CSS,
    boundary_strip_html,
    comparison_html,
    facts_html,
    segmentation_html,
    shown,
    split_words,
    token_chips_html,
    visible,
    words_html,
)
from viz.trace_views import kind_counts, trace_html
from viz.trees import LEGIBLE_SCALE, TREE_LEGEND, inline_tree_html, merge_tree_forest, merge_tree_svg

ensure_app_navigation()

MAX_WORDS = 12
MAX_WORD_CHARS = 200  # characters of one debugged word (a link may carry any length; the trace grows with it)
DROPOUT_SAMPLES = 4
TRIM_THRESHOLDS = [0, 1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]
KNOCKOUT = ReBPEConfig(knockout=KnockoutConfig(), reify=False, max_iterations=1)  # as core.edits.rebpe.run_knockout
REBPE = ReBPEConfig()
WORDS, RUNNING = "Words", "Running text"
MODES = {"words": WORDS, "text": RUNNING}  # URL value -> input mode
MAX_TEXT = 5_000  # characters of running text
MAX_URL_TEXT = 2_000  # characters of running text a link carries
LINK_PARAMS = ("tokeniser", "reference", "corpus")  # the workspace, carried by the chips' links
GRAPH_PAGE = "pages/merge_graph.py"
PRESENT_TREE_HEIGHT = "calc(100vh - 330px)"  # presenting: the rows above the tree take about 330 px of 720
BESIDE_CHARACTERS = 16  # presenting, the explanation goes beside the tree of a word up to this long (else below)


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


def write_mode(mode: str) -> None:
    """The input mode in the URL, left out when the URL implies it (running text when it has a text)."""
    code = next(code for code, name in MODES.items() if name == mode)
    write_to_url("input", code, default="text" if st.query_params.get("text") else "words")


def running_text_view(input_col, option_col, workspace, chip_markers, graph_links: bool, present: bool) -> None:
    """Running text as tiktokenizer shows it: counts, and a chip per token with its id, linking to
    the token's type in the merge graph (``graph_links``) and to the tree of its word on this page."""
    loaded = workspace.tokeniser
    cut = "text" not in st.session_state and len(st.query_params.get("text", "")) > MAX_TEXT
    seed_from_url("text", "text", lambda raw: raw[:MAX_TEXT])
    st.session_state.setdefault("text", default_words(workspace.metadata))
    text = input_col.text_area(
        "Running text",
        key="text",
        max_chars=MAX_TEXT,
        height=110,
        placeholder="A sentence or a paragraph",
        help=f"Tokenised as a whole, as the tokeniser sees text. Links carry texts of up to "
        f"{MAX_URL_TEXT:,} characters.",
    )
    show_ids = option_col.toggle("Ids instead of text", key="ids", bind="query-params")
    write_to_url("text", text if 0 < len(text) <= MAX_URL_TEXT else None)
    write_mode(RUNNING)
    if cut:
        st.caption(f"The text in the link was cut to its first {MAX_TEXT:,} characters.")
    if len(text) > MAX_URL_TEXT:
        st.caption(
            f"This text ({len(text):,} characters) is too long for a link (at most {MAX_URL_TEXT:,}): "
            "the address bar leaves it out, so a copied link opens without it."
        )
    if not text:
        st.info("Type a sentence or a paragraph above.")
        return
    try:
        tokens = loaded.tokenise(text)
        pieces = text_tokens(loaded.pretokeniser, text, tokens, id_lookup(loaded, workspace.tokeniser_key))
    except InputError as err:
        st.error(f"Cannot tokenise this text: {md_escape(err)}")
        return
    st.html(
        facts_html(
            [
                ("tokens", f"{len(tokens):,}"),
                ("characters", f"{len(text):,}"),
                ("bytes (UTF-8)", f"{len(text.encode('utf-8', 'replace')):,}"),
                ("characters per token", f"{len(text) / len(tokens):.2f}" if tokens else "-"),
                ("|V|", f"{loaded.vocab_size:,}"),
            ]
        )
    )
    in_workspace = {k: st.query_params[k] for k in LINK_PARAMS if k in st.query_params}
    tree_link = {**in_workspace, "input": "words", **({PRESENT_PARAM: "1"} if present else {})}
    st.html(
        running_text_html(
            pieces,
            loaded.pretokeniser.display,
            show_ids=show_ids,
            types=loaded.vocabulary,
            markers=chip_markers,
            tree_link=tree_link,
            graph_link={**in_workspace, **({PRESENT_PARAM: "1"} if present else {})} if graph_links else None,
        )
    )
    st.caption(
        "Hover over a token, or tab to it, for links to "
        + ("its type in the merge graph and " if graph_links else "")
        + "the tree of its word. A dotted border marks bytes: part of a character split across tokens, or "
        + "a byte-fallback token "
        + code_span("<0xNN>")
        + ". "
        + marker_legend(loaded.pretokeniser)
    )
    if not present:
        with st.expander("The token ids as a list"):
            st.code(", ".join("?" if p.id is None else str(p.id) for p in pieces), language=None, wrap_lines=True)


# --- the page -----------------------------------------------------------------------------------------
st.html(PAGE_CSS)
st.html(RUNNING_TEXT_CSS)
head, mode_col, switch = st.columns([5, 4, 3], vertical_alignment="bottom")
head.title("Word debugger")
with switch:
    present = presentation_toggle()
apply_presentation()
workspace = current()
loaded = workspace.tokeniser  # any family
try:
    graph_workspace = workspace.with_merge_graph("Debugging a word step by step (tree, blame, comparison)")
    graph_notice = None
except InputError as err:  # CapabilityError: tokens and the family's own trace only
    graph_workspace, graph_notice = None, str(err)
own_graph = graph_workspace is not None and not graph_workspace.merge_graph_of
tokeniser = graph_workspace.tokeniser if graph_workspace is not None else None  # the merge graph (BPE)
display = loaded.pretokeniser.display
chip_options = dict(
    types=tokeniser.types if own_graph else loaded.vocabulary,
    ids=id_table(loaded, workspace.tokeniser_key),
    markers=markers(loaded.pretokeniser),
)


def fmt(token: str, display: Callable[[str], str]) -> str:
    return code_span(shown(token, display))


def word_fmt(text: str) -> str:
    return code_span(visible(text))


seed_from_url("input_mode", "input", MODES.get)
st.session_state.setdefault("input_mode", RUNNING if st.query_params.get("text") else WORDS)
input_col, tokeniser_col, option_col = st.columns([5, 4, 3])  # the tokeniser's label uncut
mode = mode_col.segmented_control(
    "Input",
    list(MODES.values()),
    key="input_mode",
    required=True,
    help="Words: each word debugged on its own (tree, blame, comparison). Running "
    "text: a sentence or paragraph as the tokeniser sees it, with token ids.",
    label_visibility="collapsed" if present else "visible",  # presenting: the title row stays one line high
)
tokeniser_col.selectbox("Tokeniser", choices("tokeniser"), key="ws_tokeniser", format_func=tokeniser_label)
if mode == RUNNING:
    running_text_view(input_col, option_col, workspace, chip_options["markers"], graph_workspace is not None, present)
    st.stop()
text = input_col.text_input(
    "Words (separated by spaces)",
    value=default_words(workspace.metadata),
    key="word",
    bind="query-params",
    on_change=_words_changed,
    placeholder="e.g. masterthesis bruidsjurk",
    help=f"At most {MAX_WORDS} words of up to {MAX_WORD_CHARS} characters; the first (or the one picked below) "
    "is debugged in detail.",
)
compare_with = option_col.radio(
    "Reference boundaries",
    ["morphs", "compound parts"],
    horizontal=True,
    key="refmode",
    help="Morphs: every morpheme boundary (as BPE-knockout's blame uses). Compound "
    "parts: only the boundaries between the free parts of a compound.",
)
write_mode(WORDS)
if not present:
    st.caption(
        f"Reference **{md_escape(workspace.reference_name)}** ({len(workspace.references.entries):,} words); "
        "uploads and other references are on the Workspace page. Each word is tokenised as in running text "
        "(a space, then the word, through the tokeniser's own pre-tokeniser)."
    )
words, total = split_words(text, MAX_WORDS)
too_long = [w for w in words if len(w) > MAX_WORD_CHARS]
if too_long:
    st.warning(
        f"Left out {len(too_long)} word{'s' if len(too_long) > 1 else ''} longer than {MAX_WORD_CHARS} characters "
        f"(the limit of one debugged word; {len(too_long[0]):,} characters given). Running text takes up to "
        f"{MAX_TEXT:,} characters."
    )
    words = [w for w in words if len(w) <= MAX_WORD_CHARS]
if not words:
    st.info("Type one or more words above, for example `masterthesis bruidsjurk`.")
    st.stop()
if total > len(words):
    st.caption(f"Showing the first {len(words)} of {total} words.")

index = reference_index(workspace.references, workspace.reference_key)


def reference_of(word: str, index: Mapping, compare_with: str) -> tuple[str, ...] | None:
    entry = index.get(word) or index.get(word.lower())
    if entry is None:
        return None
    morphs = entry.free_morphs if compare_with == "compound parts" else entry.morphs
    if morphs is None or (len(morphs) and "".join(morphs).lower() != word.lower()):
        return None
    # The entry may be lower-cased; cut the typed word at the same places.
    out, offset = [], 0
    for morph in morphs:
        out.append(word[offset : offset + len(morph)])
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
if not present or len(segmented) > 1:  # presenting one word: the step view shows its tokens
    st.html(
        words_html(
            [segmentation_html(word, segmented[word], display, **chip_options) for word in words if word in segmented]
        )
    )
if not present:
    st.caption(marker_legend(loaded.pretokeniser))
if not segmented:
    st.stop()

focusable = list(dict.fromkeys(w for w in words if w in segmented))
focus = focusable[0]
if len(focusable) > 1:
    picked = st.segmented_control(
        "Word to debug",
        focusable,
        default=focusable[0],
        key="focus",
        bind="query-params",
        on_change=_focus_changed,
        format_func=lambda w: md_escape(visible(w)),
    )  # options are markdown
    focus = picked if picked in segmented else focusable[0]
st.session_state[DEBUGGED_WORD] = (workspace.tokeniser_name, focus)  # the merge graph centres on it

if not own_graph:  # the family's own account of the word (Scaffold demolitions, Picky splits, Viterbi …)
    try:
        own_trace = loaded.trace_text(" " + focus)
    except InputError as err:
        st.error(f"Cannot trace {word_fmt(focus)}: {md_escape(err)}")
    else:
        with st.expander(
            md_escape(f"How the {loaded.kind} tokeniser segments {visible(focus)}: {kind_counts(own_trace)}"),
            expanded=tokeniser is None,
        ):
            st.html(trace_html(own_trace, display, markers=chip_options["markers"]))
if tokeniser is None:
    st.info(md_escape(graph_notice))
    st.stop()
if not own_graph:
    st.caption(md_escape(graph_workspace.graph_note()))
if focus not in traces:
    st.stop()
traced = traces[focus]
morphs = reference_of(focus, index, compare_with)
try:
    explained = explanation(tokeniser, graph_workspace.tokeniser_key, focus, morphs)
except InputError as err:
    st.error(f"Cannot explain {word_fmt(focus)}: {md_escape(err)}")
    st.stop()


def merge_graph_link(word: str, present: bool) -> None:
    """A page switch to the merge graph centred on ``word`` (its longest token a merge forms): the session,
    and so what the user loaded and this word, stay; back here the word is still in the address bar."""
    page_link(
        GRAPH_PAGE,
        f"{md_escape(visible(word))} in the merge graph",
        {"word": word, **({PRESENT_PARAM: "1"} if present else {})},
        icon=":material/hub:",
        help="The merge graph around the longest token of this word that a merge forms.",
    )


if not present:  # presenting, the word is in the box above and the link beside the explanation
    heading, graph_link = st.columns([3, 2], vertical_alignment="center")
    heading.header(f"“{md_escape(visible(focus))}”", anchor=False)
    with graph_link:
        merge_graph_link(focus, present)


def with_ids(sentence: str, explained, display, ids: Mapping[str, int]) -> str:
    """A sentence of the explanation with the id of each merge's result beside that merge's rank:
    ``→ `ids` (rank 1234, step 5)`` becomes ``→ `ids` (id 1495 · rank 1234, step 5)``."""
    merges = [c[0] for b in explained.missed if (c := b.crossing()) is not None]
    merges += [m for trap in explained.traps for m in (trap.trapping, trap.blocked)]
    for token in {m.result for m in merges if m.result in ids}:
        written = f"→ {fmt(token, display)} (rank "
        sentence = sentence.replace(written, f"{written[:-5]}id {ids[token]} · rank ")
    return sentence


def what_went_wrong(
    explained, morphs: tuple[str, ...] | None, compare_with: str, display, ids, link: Callable[[], None] | None = None
) -> None:
    """The plain-words explanation (core.analysis.explain), each merge's result with its id beside the rank;
    ``link`` (presenting: to the merge graph) beside the heading, and no secondary caption."""
    heading, link_column = st.columns([1, 1], vertical_alignment="center") if link else (st.container(), None)
    heading.subheader("What went wrong?", anchor=False)
    if link_column is not None:
        with link_column:
            link()
    if morphs is not None:
        entry_text = " · ".join(word_fmt(m) for m in morphs)
        st.markdown(f"**Reference ({md_escape(compare_with)}):** {entry_text}")
    sentences = explained.sentences(lambda token: fmt(token, display), word_fmt)
    box = st.success if explained.agrees else st.info if morphs is None else st.warning
    box("\n".join(f"- {with_ids(s, explained, display, ids)}" for s in sentences))
    if explained.standalone and len(explained.standalone) > 1 and link is None:
        alone = " · ".join(" ".join(fmt(t, display) for t in piece) for piece in explained.standalone)
        st.caption(f"Each reference piece segmented on its own: {alone}")


def present_aside(explained, morphs: tuple[str, ...] | None, compare_with: str, display, ids, word: str) -> None:
    """Presenting, beside the tree: the explanation and the link to the merge graph."""
    what_went_wrong(explained, morphs, compare_with, display, ids, link=partial(merge_graph_link, word, True))


if not present:  # presenting: the explanation goes beside the tree
    with st.container(border=True):
        what_went_wrong(explained, morphs, compare_with, display, chip_options["ids"])


# --- the tree and the merges, step by step ---
@st.fragment
@boundary()  # a fragment rerun does not pass through app.py's boundary
def step_view(
    word: str,
    traced: WordTrace,
    explained,
    tokeniser,
    display,
    chip_options: dict,
    present: bool,
    aside: Callable[[], None] | None = None,
) -> None:
    n_steps = traced.n_steps
    key = f"step::{word}"
    if key not in st.session_state or not 0 <= st.session_state[key] <= n_steps:
        st.session_state[key] = step_from_url(n_steps)
    if not present:
        st.subheader("Merges, one by one", anchor=False)
    # Prev and Next beside the slider, the tree below (presenting: the explanation beside the tree).
    back, middle, forward = st.columns(
        [1.5, 10, 1.5] if present else [1, 10, 1], vertical_alignment="center" if present else "bottom"
    )
    if n_steps:
        back.button(
            "Prev" if present else "",
            icon=":material/chevron_left:",
            key=f"back::{word}",
            on_click=_nudge,
            args=(key, n_steps, -1),
            shortcut=PREV_KEY if present else None,
            help="One merge back" + (" (←)" if present else ""),
            disabled=st.session_state[key] == 0,
            width="stretch" if present else "content",
        )
        forward.button(
            "Next" if present else "",
            icon=":material/chevron_right:",
            icon_position="right",
            key=f"forward::{word}",
            on_click=_nudge,
            args=(key, n_steps, 1),
            shortcut=NEXT_KEY if present else None,
            help="One merge forward" + (" (→)" if present else ""),
            disabled=st.session_state[key] == n_steps,
            width="stretch" if present else "content",
        )
        middle.slider(
            "Step (0 = characters only)",
            0,
            n_steps,
            key=key,
            on_change=_step_changed,
            args=(key, n_steps),
            help="Drag, or click the slider and use the arrow keys.",
            label_visibility="collapsed" if present else "visible",
        )
    step = st.session_state[key] if n_steps else 0
    if aside is None or sum(len(t.pretoken) for t in traced.traces) > BESIDE_CHARACTERS:  # a wide tree: stacked
        step_body(word, traced, n_steps, step, explained, display, chip_options, present, tokeniser.primary_merge)
        if aside is not None:
            aside()
    else:
        left, right = st.columns([1, 1.2], gap="medium")
        with left:
            step_body(word, traced, n_steps, step, explained, display, chip_options, present, tokeniser.primary_merge)
        with right:
            aside()
    rows = merge_rows(
        traced.traces, display, fmt=code_span, tuple_column=bool(tokeniser.tuple_merges), ids=chip_options["ids"]
    )
    if rows and not present:
        with st.expander(f"All {len(rows)} merges in the order they fired"):
            st.table(rows, hide_index=True)


def whole_note(tokens: list[str], primary_merge: Callable, display, ids: Mapping[str, int]) -> str:
    """Why a token of the word took no merge: its pretoken is a type, emitted whole (``ignore_merges``)."""
    notes = []
    for token in tokens:
        merge = primary_merge(token)
        own = (
            f" The merge forming it is {' + '.join(fmt(p, display) for p in merge.parts)} → {fmt(token, display)} "
            f"({md_escape(id_rank_text(ids.get(token), merge.rank))}), which this word never needs."
            if merge is not None
            else ""
        )
        notes.append(
            f"{fmt(token, display)} is one token, emitted whole: the pretoken is a whole-word type of the "
            f"vocabulary, and under the tokeniser's `ignore_merges` such a pretoken is not merged at all.{own}"
        )
    return "\n\n".join(notes)


def step_body(
    word: str,
    traced: WordTrace,
    n_steps: int,
    step: int,
    explained,
    display,
    chip_options: dict,
    present: bool,
    primary_merge: Callable,
) -> None:
    """What the word looks like after ``step`` merges: the merge, the tokens and the tree."""
    fired = traced.merge_at(step) if step else None
    whole = [t.tokens[0] for t in traced.traces if emitted_whole(t)]
    if whole:
        st.markdown(whole_note(whole, primary_merge, display, chip_options["ids"]))
    if not n_steps:
        if not whole:
            st.caption("No merge applies: every character stays a token of its own.")
    elif step == 0:
        st.markdown(f"**Step 0 of {n_steps}:** every character is a token of its own.")
    else:
        _, merge = fired
        tail = " — the final segmentation." if step == n_steps and not present else "."
        st.markdown(
            f"**Step {step} of {n_steps}:** {' + '.join(fmt(p, display) for p in merge.parts)} → "
            f"{fmt(merge.result, display)} "
            f"({md_escape(id_rank_text(chip_options['ids'].get(merge.result), merge.rank))}){tail}",
            help=rank_help(merge.rank),
        )
    st.html(token_chips_html(traced.tokens_at(step), display, **chip_options))
    done = [traced.steps_done(i, step) for i in range(len(traced.traces))]
    last = None if fired is None else (fired[0], traced.steps_done(fired[0], step) - 1)
    blamed = {(b.pretoken, b.offset) for b in explained.boundaries if b.reference}
    tree = dict(
        pretokens=[(t.pretoken, t.trees) for t in traced.traces],
        display=display,
        done=done,
        last_step=last,
        reference=blamed,
        caption=f"segmentation tree of {word} at step {step}",
    )
    svg = merge_tree_svg(**tree, ids=chip_options["ids"])
    st.markdown(
        inline_tree_html(svg, min_scale=LEGIBLE_SCALE, max_height=PRESENT_TREE_HEIGHT)
        if present
        else inline_tree_html(svg),
        unsafe_allow_html=True,
    )
    st.html(TREE_LEGEND)
    if not present:
        figure_downloads(f"merge-tree-{word}-step-{step}", svg, tikz=merge_tree_forest(**tree), key=f"tree::{word}")


explain_aside = partial(present_aside, explained, morphs, compare_with, display, chip_options["ids"], focus)
step_view(focus, traced, explained, tokeniser, display, chip_options, present, explain_aside if present else None)
if present:  # one screen: the tables, the blame strip (the tree's red lines show it), the comparison are for the desk
    st.stop()


# --- the merges of each token: primary, alternatives, what fired, how often each fires ---
def token_merge_rows(tokens, counts, display, ids: Mapping[str, int]) -> list[dict]:
    rows = []
    for item in tokens:
        if not item.merges:
            continue
        for merge in item.merges:
            kind = "its only merge" if len(item.merges) == 1 else "primary" if merge == item.primary else "alternative"
            row = {
                "token": fmt(item.token, display),
                "id": str(ids.get(item.token, "")),
                "merge": " + ".join(fmt(p, display) for p in merge.parts),  # cells are markdown
                "rank": md_escape(rank_text(merge.rank)),
                "kind": kind,
                "fired in this word": (
                    "yes"
                    if merge == item.fired
                    else "— (emitted whole)"
                    if item.whole and merge == item.primary
                    else ""
                ),
            }
            for name, values in counts.items():
                row[f"fires on the {name}"] = f"{values.get(merge, 0):,}"
            rows.append(row)
    return rows


def token_merges_view(graph_workspace, traced: WordTrace, display, ids: Mapping[str, int]) -> None:
    """Every merge forming each token's type (with the type's id), which one fired, and how often each fires."""
    tokeniser = graph_workspace.tokeniser
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
            rank = md_escape(id_rank_text(ids.get(item.token), item.fired.rank))
            notes.append(
                f"{fmt(item.token, display)} was formed here by the alternative "
                f"{' + '.join(fmt(p, display) for p in item.fired.parts)} ({rank}), not by "
                f"its primary merge {' + '.join(fmt(p, display) for p in item.primary.parts)}."
            )
        elif item.whole and item.merges:
            notes.append(
                f"{fmt(item.token, display)} is emitted whole (ignore_merges: the pretoken is a type), so no merge "
                "fired; the tree shows it as one piece."
            )
    st.caption(
        "For each token of the word, every merge forming its type: the **primary** one forms the type from "
        "its own string, **alternatives** only inside longer pretokens, if at all"
        + (f" ({len(several)} of the tokens here have alternatives)" if several else " (each type here has one merge)")
        + ". The tree above draws the merges that actually fired. Counts: merge applications while the "
        f"reference words (as in running text) and the corpus ({md_escape(graph_workspace.corpus_name)}) "
        "are segmented."
    )
    for note in notes:
        st.markdown("- " + note)
    rows = token_merge_rows(items, counts, display, ids)
    if rows:
        st.table(rows, hide_index=True)
        for explained_rank in dict.fromkeys(rank_help(m.rank) for m in wanted if is_between(m.rank)):
            st.caption(md_escape(explained_rank))
    else:
        st.caption("No token of this word is formed by a merge (every token is a single symbol).")


with st.container(border=True):
    token_merges_view(graph_workspace, traced, display, chip_options["ids"])

# --- blame view ---
with st.container(border=True):
    st.subheader("Every boundary against the reference", anchor=False)
    if morphs is None:
        st.caption(
            f"{word_fmt(focus)} is not in the reference {md_escape(workspace.reference_name)}: the markers "
            "only show where the tokens split (|) and which merge removed each other boundary (#rank)."
        )
    st.html(boundary_strip_html([t.pretoken for t in traced.traces], explained.boundaries, display))

# --- the same word under other tokenisers (computed only when asked for) ---
gold = None if morphs is None else reference_splits(morphs)


def note_for(tokens, traced: WordTrace, gold) -> str:
    if gold is None:
        return ""
    result = agreement(traced, tokens, gold)
    if result is None:
        return ""
    kept, wanted, extra = result
    if kept == wanted and not extra:
        return "matches the reference"
    parts = [f"keeps {kept} of {wanted} reference split{'s' if wanted != 1 else ''}"]
    if extra:
        parts.append(f"{extra} extra split{'s' if extra != 1 else ''}")
    return ", ".join(parts)


def edited_rows(graph_workspace, references, reference_name: str, word: str, traced: WordTrace, gold) -> list[tuple]:
    """``word`` after knockout and after ReBPE (runs shared with the other pages, kept on disk)."""
    tokeniser = graph_workspace.tokeniser
    rows = []
    keys = workspace_keys(graph_workspace, reference_name)
    for label, config in (("after knockout", KNOCKOUT), ("after ReBPE", REBPE)):
        try:
            run = cached_run(
                graph_workspace.tokeniser_name,
                tokeniser,
                reference_name,
                references,
                config,
                label="knockout" if config is KNOCKOUT else "ReBPE",
                **keys,
            )
            tokens = run.tokeniser.tokenise_word(word)
        except InputError as err:
            rows.append((label, None, f"not available: {err}"))
            continue
        summary = (
            f"{len(tokeniser.merges) - len(run.tokeniser.merges):,} merges knocked out"
            if config is KNOCKOUT
            else f"{len({step.iteration for step in run.steps})} iterations"
        )
        rows.append(
            (label, tokens, "; ".join(x for x in (note_for(tokens, traced, gold), summary) if x), run.tokeniser.types)
        )
    return rows


def comparison_view(
    workspace,
    graph_workspace,
    word: str,
    loaded_tokens: Sequence[str],
    traced: WordTrace,
    gold,
    *,
    compare_with: str,
    display,
    chip_markers,
) -> None:
    """``word`` (``loaded_tokens`` under the loaded tokeniser) beside its merge graph, knockout, ReBPE,
    TrimmedBPE and BPE-dropout."""
    loaded, tokeniser = workspace.tokeniser, graph_workspace.tokeniser
    controls = st.columns(4)
    sources, default_source = workspace.counts_sources()
    source = controls[0].selectbox(
        "TrimmedBPE frequencies from",
        sources,
        index=sources.index(default_source),
        key="trim_source",
        help="Token frequencies = the word counts tokenised by the loaded BPE "
        "(subword-nmt style); types that never surface as a token have frequency 0.",
    )
    threshold = controls[1].select_slider(
        "TrimmedBPE threshold",
        TRIM_THRESHOLDS,
        value=1_000,
        key="trim_threshold",
        format_func=lambda v: f"{v:,}",
        help="A type whose frequency is below the threshold is decomposed into the "
        "largest untrimmed types under it ([rebpe §2.1]).",
    )
    probability = controls[2].slider(
        "Dropout probability p",
        0.0,
        1.0,
        0.1,
        0.05,
        key="dropout_p",
        help="BPE-dropout skips each applicable merge with probability p.",
    )
    seed = controls[3].number_input("Dropout seed", 0, 10_000, 0, key="dropout_seed")

    rows: list[tuple] = [("BPE (loaded)", list(traced.tokens), note_for(traced.tokens, traced, gold), tokeniser.types)]
    if graph_workspace.merge_graph_of:
        rows = [
            (f"{loaded.kind} (loaded)", list(loaded_tokens), note_for(loaded_tokens, traced, gold), loaded.vocabulary),
            ("its merge graph as BPE", list(traced.tokens), note_for(traced.tokens, traced, gold), tokeniser.types),
        ]
    references, reference_name, _ = references_for(workspace)
    rows += edited_rows(graph_workspace, references, reference_name, word, traced, gold)
    try:
        counts_key, read_counts = workspace.word_counts(source)
        trimmed = trimmed_tokeniser(tokeniser, graph_workspace.tokeniser_key, counts_key, threshold, read_counts)
        tokens = trimmed.tokenise_word(word)
        rows.append(
            (
                f"TrimmedBPE (T = {threshold:,})",
                tokens,
                "; ".join(x for x in (note_for(tokens, traced, gold), f"{len(trimmed.trimmed):,} types trimmed") if x),
                trimmed.vocabulary,
            )
        )
    except InputError as err:
        rows.append(("TrimmedBPE", None, f"not available: {err}"))
    try:
        for n, sample in enumerate(dropout_samples(tokeniser, word, probability, DROPOUT_SAMPLES, seed=int(seed)), 1):
            rows.append(
                (
                    f"BPE-dropout p = {probability:g}, sample {n}",
                    sample,
                    note_for(sample, traced, gold),
                    tokeniser.types,
                )
            )
    except InputError as err:
        rows.append(("BPE-dropout", None, f"not available: {err}"))
    st.html(comparison_html(rows, display, markers=chip_markers))
    st.caption(
        f"Knockout and ReBPE ran on the reference {md_escape(reference_name)} "
        f"({md_escape(compare_with)} are compared above; the edits always use morph boundaries), with the "
        "papers' defaults (blame ratio at least ½; ReBPE with reparation and reification until nothing "
        "changes)."
    )


st.subheader("The same word under other tokenisers", anchor=False)
if st.toggle(
    "Compare with knockout, ReBPE, TrimmedBPE, dropout",
    key="variants",
    bind="query-params",
    help="Runs BPE-knockout and ReBPE on the reference (once per tokeniser and reference, kept on the "
    "server's disk) and trims the vocabulary by token frequency.",
):
    comparison_view(
        workspace,
        graph_workspace,
        focus,
        segmented[focus],
        traced,
        gold,
        compare_with=compare_with,
        display=display,
        chip_markers=chip_options["markers"],
    )
