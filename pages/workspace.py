"""Landing page: choose the tokeniser, the reference segmentations and the corpus every page uses.

Thin on purpose: loading and validation are core's (through the cached loaders of
``ui/workspace.py``), facts and tables come from viz/. The choices are kept by ``ui.workspace``
(session state + URL), so every other page sees them. An upload is validated before it becomes a
choice: a bad file shows an error and leaves the current choice as it was.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.errors import InputError
from ui import workspace as ws
from viz.tables import reference_rows, rejection_rows
from viz.tokeniser_info import marker_legend, md_escape, tokeniser_facts, tokeniser_note
from viz.tokens import PAGE_CSS, alphabet_html, code_span, facts_html

ws.ensure_app_navigation()

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("tokeniser", "reference", "corpus")
ERROR_KEY = "workspace_upload_error_{}"


# --- upload callbacks (run before the page; an InputError only becomes a message) ----------------------
def _failed(kind: str, err: Exception) -> None:
    st.session_state[ERROR_KEY.format(kind)] = str(err)


def _loaded(kind: str, name: str) -> None:
    st.session_state.pop(ERROR_KEY.format(kind), None)
    ws.select(kind, name)


def _upload_tokeniser() -> None:
    main = st.session_state.get("upload_tokeniser")
    vocab = st.session_state.get("upload_vocab")
    if main is None:
        return
    try:
        data = main.getvalue()
        if main.name.lower().endswith(".txt") and vocab is not None:
            name = ws.add_merges_upload(main.name, data, vocab.name, vocab.getvalue())
        else:
            name = ws.add_upload("tokeniser", main.name, data, ws.check_tokeniser_upload)
    except InputError as err:
        _failed("tokeniser", err)
    else:
        _loaded("tokeniser", name)


def _upload(kind: str, check) -> None:
    uploaded = st.session_state.get(f"upload_{kind}")
    if uploaded is None:
        return
    try:
        name = ws.add_upload(kind, uploaded.name, uploaded.getvalue(), check)
    except InputError as err:
        _failed(kind, err)
    else:
        _loaded(kind, name)


def upload_error(kind: str) -> None:
    message = st.session_state.get(ERROR_KEY.format(kind))
    if message:
        st.error(f"That file was not loaded, so the {kind} stays as it was.  \n{md_escape(message)}", icon="🚫")


# --- the page ---------------------------------------------------------------------------------------
st.html(PAGE_CSS)
st.title("Workspace")
st.caption("Choose what every page works on: a tokeniser, reference segmentations and a corpus. Everything "
           "ships with the app and works offline; uploads are optional. The address bar keeps the choices, "
           "so a link reproduces them.")

asked = {kind: st.query_params.get(kind) for kind in KINDS}  # before current() rewrites the URL
workspace = ws.current()
for kind in KINDS:
    value = asked[kind]
    if value and value not in ws.choices(kind):
        st.warning(f"The link asks for the {kind} “{md_escape(value[:80])}”, which is not available; "
                   f"using {md_escape(getattr(workspace, kind + '_name'))} instead.")

tokeniser = workspace.tokeniser
references = workspace.references

# --- tokeniser ---
with st.container(border=True):
    st.subheader("1 · Tokeniser")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.selectbox("Tokeniser", ws.choices("tokeniser"), key="ws_tokeniser", format_func=ws.tokeniser_label,
                     help="The Dutch 40k tokeniser of the BPE-knockout paper, two small BPEs trained here, the "
                          "teaching scenarios of the ReBPE paper (App. A), and your uploads.")
        with st.expander("Upload a tokeniser"):
            st.file_uploader("tokenizer.json, project JSON or merges.txt", type=["json", "txt"],
                             key="upload_tokeniser", on_change=_upload_tokeniser)
            st.file_uploader("vocab.json (optional, goes with a merges.txt)", type=["json"], key="upload_vocab",
                             on_change=_upload_tokeniser)
        upload_error("tokeniser")
    with right:
        st.html(facts_html(tokeniser_facts(tokeniser)))
        st.caption(marker_legend(tokeniser.pretokeniser))
        note = tokeniser_note(workspace.tokeniser_name, tokeniser.metadata)
        if note:
            st.info(note[1])
    with st.expander(f"Alphabet ({len(tokeniser.alphabet):,} symbols)"):
        st.html(alphabet_html(tokeniser.alphabet, tokeniser.pretokeniser.display))

# --- reference segmentations ---
with st.container(border=True):
    st.subheader("2 · Reference segmentations")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.selectbox("Reference", ws.choices("reference"), key="ws_reference",
                     help="Morphological segmentations written by hand for this project (Dutch and English), or "
                          "your upload. The word debugger, blame and knockout compare against them.")
        st.file_uploader("Upload references (TSV, MorphyNet, CELEX or SIGMORPHON; detected automatically)",
                         type=["tsv", "txt", "csv", "segs", "seg"], key="upload_reference",
                         on_change=_upload, args=("reference", ws.check_reference_upload))
        upload_error("reference")
    with right:
        entries, rejected = len(references.entries), len(references.rejected)
        st.html(facts_html([("Words", f"{entries:,}"), ("Rejected lines", f"{rejected:,}"),
                            ("Format", references.format)]))
        compounds = sum(1 for e in references.entries if e.free_morphs is not None and len(e.free_morphs) > 1)
        st.caption(f"{md_escape(references.summary())}. {compounds:,} compounds.")
        language = {"nl_morph": ("nl", "Dutch"), "en_morph": ("en", "English")}.get(workspace.reference_name)
        counts = workspace.counts_name
        if language and counts and not counts.startswith(language[0]):
            st.warning(f"These references are {language[1]}, but the tokeniser is not: knockout and the word "
                       "debugger's comparison will find few words in common.")
    if references.entries:
        st.table(reference_rows(references.entries, 5), hide_index=True)
    if references.rejected:
        with st.expander(f"Rejected lines ({rejected:,}) and why"):
            st.dataframe(rejection_rows(references.rejected), hide_index=True, width="stretch")

# --- corpus ---
with st.container(border=True):
    st.subheader("3 · Corpus")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.selectbox("Corpus", ws.choices("corpus"), key="ws_corpus",
                     help="Running text for the distribution plots and TrimmedBPE frequencies. The shipped one is "
                          "the English reference-manual text that every Python installation carries.")
        st.file_uploader("Upload a corpus (UTF-8 plain text, or word<TAB>count lines)", type=["txt", "tsv"],
                         key="upload_corpus", on_change=_upload, args=("corpus", ws.check_corpus_upload))
        upload_error("corpus")
    with right:
        lines = workspace.corpus_lines()
        st.html(facts_html([("Lines", f"{len(lines):,}"),
                            ("Running words", f"{sum(len(line.split()) for line in lines):,}"),
                            ("Characters", f"{sum(len(line) for line in lines):,}")]))
        if lines:
            st.caption("First lines: " + " · ".join(code_span(line[:70]) for line in lines[:3]))

# --- where to go next ---
st.subheader("Explore")
links = [("pages/word_debugger.py", "Word debugger", ":material/search:", "why a word segments as it does"),
         ("pages/merge_graph.py", "Merge graph", ":material/hub:", "the neighbourhood of a type"),
         ("pages/stepper.py", "Knockout & ReBPE stepper", ":material/play_circle:", "step through the edits"),
         ("pages/blocked_merges.py", "Blocked merges", ":material/block:", "tuple merges that can never apply"),
         ("pages/distributions.py", "Blame & distributions", ":material/bar_chart:", "blame ratios, Zipf, Rényi")]
links = [link for link in links if (ROOT / link[0]).is_file()]  # pages being built may be absent
for column, (page, label, icon, what) in zip(st.columns(2) * len(links), links):
    try:
        column.page_link(page, label=f"{label} — {what}", icon=icon)
    except StreamlitAPIException:  # a page file that app.py does not list
        pass
