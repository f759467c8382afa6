"""Landing page: choose the tokeniser, the reference segmentations and the corpus every page uses.

Thin on purpose: loading and validation are core's (through the cached loaders of
``ui/tokeniser_loading.py`` and ``ui/references_corpora.py``), facts and tables come from viz/. The
choices are kept by ``ui.workspace`` (session state + URL), so every other page sees them. An upload
is validated before it becomes a choice: a bad file is labelled rejected under its uploader and
leaves the current choice as it was. The tokeniser section says how much memory the tokeniser takes
and the server's budget for them.

A tokeniser may be of any family and come as an upload (any supported file, recognised by its
content whatever its name) or as a path / ``hf:ORG/NAME`` on the machine that runs the app. What
the loader found and inferred (``core.analysis.summary``) is shown as plain text.

Near the top, a "Teach" card opens each teaching scenario of [rebpe App. A] in the stepper in
presentation mode (``?tokeniser=<scenario>&present=1``, ``ui.presentation``), one click each.
"""

from __future__ import annotations

import contextlib
from itertools import cycle
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.analysis.summary import summarise, summary_lines
from core.errors import InputError
from core.formats.tokeniser_files import sniff
from core.tokeniser import CapabilityError
from ui.error_boundary import guarded
from ui.path_policy import HOW_TO_ALLOW, allowed_folders, path_loading_on
from ui.tokeniser_loading import INFERRED, PRETOKENISER_CHOICES, sample_metadata, tokeniser_label
from ui.tokeniser_store import BUDGET_ENV, MB, footprint
from ui.tokeniser_store import store as tokeniser_store
from ui.workspace import current, ensure_app_navigation, select
from ui.workspace_choices import SCENARIOS, choices
from ui.workspace_uploads import (
    add_merges_upload,
    add_path,
    add_tokeniser_upload,
    add_upload,
    pretokeniser_of,
    set_pretokeniser,
)
from viz.escaping import code_span, md_escape
from viz.tables import reference_rows, rejection_rows
from viz.tokeniser_info import marker_legend, tokeniser_note
from viz.tokens import PAGE_CSS, alphabet_html, facts_html

ensure_app_navigation()

ROOT = Path(__file__).resolve().parent.parent
STEPPER = "pages/stepper.py"
ERROR_KEY = "workspace_upload_error_{}"
PRETOKENISER_KEY = "ws_pretokeniser_override"
MAX_SUMMARY_LINE = 240  # a SentencePiece pre-tokeniser's description carries its whole charsmap
CHOOSER_CHARS = 38  # about what a chooser's box shows at 1280 px before it cuts the label


# --- upload callbacks (run before the page; an InputError only becomes a message) ----------------------
# Each marks the file "not loaded" before reading it and clears the mark once it is loaded, so a file
# that fails in any way (a bug too: ui.error_boundary.guarded shows its error id) is labelled rejected.
UNEXPECTED = "Reading it failed or was stopped: the message at the top says why."


def _failed(kind: str, what: str, reason: object = UNEXPECTED) -> None:
    st.session_state[ERROR_KEY.format(kind)] = (what, str(reason))


def _loaded(kind: str, name: str) -> None:
    st.session_state.pop(ERROR_KEY.format(kind), None)
    select(kind, name)


def _override() -> str:
    value = st.session_state.get(PRETOKENISER_KEY, INFERRED)
    return value if value in PRETOKENISER_CHOICES else INFERRED


@guarded
def _upload_tokeniser() -> None:
    main = st.session_state.get("upload_tokeniser")
    vocab = st.session_state.get("upload_vocab")
    if main is None:  # the file was removed from the uploader: nothing rejected is shown any more
        st.session_state.pop(ERROR_KEY.format("tokeniser"), None)
        return
    _failed("tokeniser", main.name)
    try:
        data = main.getvalue()
        if vocab is not None and sniff(data) == "merges":  # by content: any file name
            name = add_merges_upload(main.name, data, vocab.name, vocab.getvalue(), _override())
        else:
            name = add_tokeniser_upload(main.name, data, _override())
    except InputError as err:
        _failed("tokeniser", main.name, err)
    else:
        _loaded("tokeniser", name)


@guarded
def _load_path() -> None:
    spec = st.session_state.get("ws_path") or ""
    _failed("tokeniser", spec)
    try:
        name = add_path(spec, _override())
    except InputError as err:
        _failed("tokeniser", spec, err)
    else:
        _loaded("tokeniser", name)


@guarded
def _pretokeniser_changed() -> None:
    """The override applies to the current upload or path at once (re-read; an error keeps it)."""
    name, wanted = st.session_state.get("ws_tokeniser", ""), _override()
    what = f"{name} with the pre-tokeniser {wanted}"
    st.session_state[PRETOKENISER_KEY] = pretokeniser_of(name)  # the chooser shows what is in use
    _failed("tokeniser", what)
    try:
        set_pretokeniser(name, wanted)
    except InputError as err:
        _failed("tokeniser", what, err)
    else:
        st.session_state[PRETOKENISER_KEY] = wanted
        st.session_state.pop(ERROR_KEY.format("tokeniser"), None)


@guarded
def _tokeniser_changed() -> None:
    st.session_state[PRETOKENISER_KEY] = pretokeniser_of(st.session_state.get("ws_tokeniser", ""))
    st.session_state.pop(ERROR_KEY.format("tokeniser"), None)  # another choice: the rejection is history


@st.cache_data(show_spinner=False, max_entries=16)
def summary_of(key: str, _tokeniser) -> dict:
    return summarise(_tokeniser)


def tokeniser_facts(summary: dict) -> list[tuple[str, str]]:
    """The facts row for any family: its kind, |V| (``vocab_size``: types plus specials, as HF counts),
    and the merge graph's types, merges and alphabet when it has one."""
    facts = [("Family", summary["family"]), ("|V|", f"{summary['vocab_size']:,}")]
    for key, label in (
        ("types", "Types"),
        ("merges", "Merges"),
        ("tuple_merges", "Tuple merges"),
        ("alphabet", "Alphabet"),
    ):
        if key in summary:
            facts.append((label, f"{summary[key]:,}"))
    if summary.get("specials"):
        facts.append(("Special tokens", f"{summary['specials']:,}"))
    return facts


def shorten(line: str, limit: int = MAX_SUMMARY_LINE) -> str:
    return line if len(line) <= limit else line[:limit] + f"… ({len(line) - limit:,} more characters)"


@guarded
def _upload(kind: str) -> None:
    uploaded = st.session_state.get(f"upload_{kind}")
    if uploaded is None:
        st.session_state.pop(ERROR_KEY.format(kind), None)
        return
    _failed(kind, uploaded.name)
    try:
        name = add_upload(kind, uploaded.name, uploaded.getvalue())
    except InputError as err:
        _failed(kind, uploaded.name, err)
    else:
        _loaded(kind, name)


def full_label(label: str) -> None:
    """Under a chooser: its choice in full where the box cuts it (a path, a long name)."""
    if len(label) > CHOOSER_CHARS:
        st.caption(md_escape(label))


def upload_error(kind: str, current: str) -> None:
    """Under an uploader: the file it shows was rejected, and what stays loaded instead."""
    rejected = st.session_state.get(ERROR_KEY.format(kind))
    if rejected:
        what, reason = rejected
        st.error(
            f"**Rejected, not loaded:** {code_span(what)}. The {kind} stays as it was: "
            f"{code_span(current)}.  \n{md_escape(reason)}",
            icon=":material/block:",
        )


@st.cache_data(show_spinner=False, max_entries=16)
def footprint_mb(key: str, _tokeniser) -> float:
    return footprint(_tokeniser) / MB


def teach_card() -> None:
    """The teaching scenarios of [rebpe App. A], one click each: the stepper in presentation mode."""
    with st.container(border=True):
        st.markdown(
            "**Teach** · the scenarios of the ReBPE paper (App. A), each in the Knockout & ReBPE stepper "
            "in presentation mode: the arrow keys step."
        )
        for column, name in zip(cycle(st.columns(2)), SCENARIOS):
            title = str(sample_metadata(name).get("title") or name)
            column.page_link(
                STEPPER,
                label=title,
                icon=":material/slideshow:",
                help=f"{title} ({name})",
                query_params={"tokeniser": name, "present": "1"},
            )


# --- the page ---------------------------------------------------------------------------------------
st.html(PAGE_CSS)  # page links wrap instead of ending in "…" (the Teach card's scenario titles are long)
st.title("Workspace")
st.caption(
    "Choose what every page works on: a tokeniser, reference segmentations and a corpus. Everything "
    "ships with the app and works offline; uploads are optional. The address bar keeps the choices, "
    "so a link reproduces them; uploads too, on this server, which keeps a copy of each."
)

workspace = current()  # also warns about a link that names nothing available
st.session_state.setdefault(PRETOKENISER_KEY, pretokeniser_of(workspace.tokeniser_name))  # a link's, too
teach_card()

tokeniser = workspace.tokeniser
references = workspace.references

# --- tokeniser ---
summary = summary_of(workspace.tokeniser_key, tokeniser)
try:
    graph_workspace = workspace.with_merge_graph("The alphabet")
except CapabilityError:
    graph_workspace = None
with st.container(border=True):
    st.subheader("1 · Tokeniser")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.selectbox(
            "Tokeniser",
            choices("tokeniser"),
            key="ws_tokeniser",
            format_func=tokeniser_label,
            on_change=_tokeniser_changed,
            help="The Dutch 40k tokeniser of the BPE-knockout paper, two small BPEs trained here, the "
            "teaching scenarios of the ReBPE paper (App. A), your uploads and the files you named.",
        )
        full_label(tokeniser_label(workspace.tokeniser_name))
        with st.expander("Upload a tokeniser, or name one on this machine"):
            st.file_uploader(
                "tokenizer.json, project JSON (any family), merges.txt, SentencePiece .model or "
                "tiktoken rank file: recognised by content, whatever the file is called",
                type=None,
                key="upload_tokeniser",
                on_change=_upload_tokeniser,
            )
            st.file_uploader(
                "vocab.json (optional, goes with a merges.txt)",
                type=None,
                key="upload_vocab",
                on_change=_upload_tokeniser,
            )
            paths_on = path_loading_on()
            st.text_input(
                "Path or hf:ORG/NAME on the machine that runs this app",
                key="ws_path",
                placeholder="/data/models/llama/tokenizer.json or hf:openai-community/gpt2",
                help="A file, a folder as transformers saves it, or a model in the local Hugging "
                "Face cache (nothing is downloaded), inside the folders the server allows. Large files "
                "need no upload; a file that changes is read again. By default loading by path is off.",
                disabled=not paths_on,
            )
            if paths_on:
                st.caption("Folders this server may read: " + " · ".join(code_span(str(f)) for f in allowed_folders()))
            else:
                st.caption(f"Loading by path is off on this server: {HOW_TO_ALLOW}.")
            st.button(
                "Load", key="ws_path_load", on_click=_load_path, icon=":material/file_open:", disabled=not paths_on
            )
            st.selectbox(
                "Pre-tokeniser of a merges.txt",
                PRETOKENISER_CHOICES,
                key=PRETOKENISER_KEY,
                on_change=_pretokeniser_changed,
                help="A merges.txt does not say how text is cut into words: *inferred* guesses it from "
                "the vocabulary (and says so below). Changing it re-reads the current upload or "
                "path; other files state their own pipeline and ignore it.",
            )
        upload_error("tokeniser", workspace.tokeniser_name)
    with right:
        st.html(facts_html(tokeniser_facts(summary)))
        st.caption(
            f"**Pipeline:** normaliser {md_escape(shorten(summary['normaliser']))} · pre-tokeniser "
            f"{md_escape(shorten(summary['pretokeniser']))}"
        )
        st.caption(marker_legend(tokeniser.pretokeniser))
        note = tokeniser_note(workspace.tokeniser_name, workspace.metadata)
        if note:
            st.info(note[1])
        if summary["detected"]:
            st.markdown(
                "**Detected while loading** (settings the file does not state):\n"
                + "\n".join(f"- {md_escape(shorten(str(line)))}" for line in summary["detected"])
            )
        if graph_workspace is None:
            st.caption(
                f"A {md_escape(summary['family'])} tokeniser has no merge graph: the merge graph, the "
                "stepper, blocked merges and blame say so and show what works for every family."
            )
        st.caption(
            f"**Memory:** this tokeniser takes about {footprint_mb(workspace.tokeniser_key, tokeniser):,.1f} "
            f"MB; the server keeps at most {tokeniser_store().budget // MB:,} MB of tokenisers for all "
            f"sessions together, dropping the least recently used first (set by {BUDGET_ENV})."
        )
    with st.expander("Everything the loader found"):
        st.code("\n".join(shorten(line) for line in summary_lines(summary)), language=None, wrap_lines=True)
    if graph_workspace is not None:
        graph = graph_workspace.tokeniser
        with st.expander(f"Alphabet ({len(graph.alphabet):,} symbols)"):
            st.html(alphabet_html(graph.alphabet, tokeniser.pretokeniser.display))

# --- reference segmentations ---
with st.container(border=True):
    st.subheader("2 · Reference segmentations")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.selectbox(
            "Reference",
            choices("reference"),
            key="ws_reference",
            help="Morphological segmentations written by hand for this project (Dutch and English), or "
            "your upload. The word debugger, blame and knockout compare against them.",
        )
        full_label(workspace.reference_name)
        st.file_uploader(
            "Upload references (TSV, MorphyNet, CELEX or SIGMORPHON; detected automatically)",
            type=["tsv", "txt", "csv", "segs", "seg"],
            key="upload_reference",
            on_change=_upload,
            args=("reference",),
        )
        upload_error("reference", workspace.reference_name)
    with right:
        entries, rejected = len(references.entries), len(references.rejected)
        st.html(
            facts_html([("Words", f"{entries:,}"), ("Rejected lines", f"{rejected:,}"), ("Format", references.format)])
        )
        compounds = sum(1 for e in references.entries if e.free_morphs is not None and len(e.free_morphs) > 1)
        st.caption(f"{md_escape(references.summary())}. {compounds:,} compounds.")
        language = {"nl_morph": ("nl", "Dutch"), "en_morph": ("en", "English")}.get(workspace.reference_name)
        counts = workspace.counts_name
        if language and counts and not counts.startswith(language[0]):
            st.warning(
                f"These references are {language[1]}, but the tokeniser is not: knockout and the word "
                "debugger's comparison will find few words in common."
            )
    if references.entries:
        st.table(reference_rows(references.entries, 5, fmt=code_span), hide_index=True)  # cells are markdown
    if references.rejected:
        with st.expander(f"Rejected lines ({rejected:,}) and why"):
            st.dataframe(rejection_rows(references.rejected), hide_index=True, width="stretch")

# --- corpus ---
with st.container(border=True):
    st.subheader("3 · Corpus")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.selectbox(
            "Corpus",
            choices("corpus"),
            key="ws_corpus",
            help="Running text for the distribution plots and TrimmedBPE frequencies. The shipped one is "
            "the English reference-manual text that every Python installation carries.",
        )
        full_label(workspace.corpus_name)
        st.file_uploader(
            "Upload a corpus (UTF-8 plain text, or word<TAB>count lines)",
            type=["txt", "tsv"],
            key="upload_corpus",
            on_change=_upload,
            args=("corpus",),
        )
        upload_error("corpus", workspace.corpus_name)
    with right:
        lines = workspace.corpus_lines()
        st.html(
            facts_html(
                [
                    ("Lines", f"{len(lines):,}"),
                    ("Running words", f"{sum(len(line.split()) for line in lines):,}"),
                    ("Characters", f"{sum(len(line) for line in lines):,}"),
                ]
            )
        )
        if lines:
            st.caption("First lines: " + " · ".join(code_span(line[:70]) for line in lines[:3]))

# --- where to go next ---
st.subheader("Explore")
links = [
    ("pages/word_debugger.py", "Word debugger", ":material/search:", "why a word segments as it does"),
    ("pages/merge_graph.py", "Merge graph", ":material/hub:", "the neighbourhood of a type"),
    ("pages/stepper.py", "Knockout & ReBPE stepper", ":material/play_circle:", "step through the edits"),
    ("pages/blocked_merges.py", "Blocked merges", ":material/block:", "tuple merges that can never apply"),
    ("pages/distributions.py", "Blame & distributions", ":material/bar_chart:", "blame ratios, Zipf, Rényi"),
]
links = [link for link in links if (ROOT / link[0]).is_file()]  # pages being built may be absent
for column, (page, label, icon, what) in zip(cycle(st.columns(2)), links):
    with contextlib.suppress(StreamlitAPIException):  # a page file that app.py does not list
        column.page_link(page, label=f"{label} — {what}", icon=icon)
