"""Remove chosen types from the loaded tokeniser and export the result, keeping the merge graph consistent.

The types come as a list (one a line, spelled as the vocabulary spells them: ``Ġthe``, ``▁the``) or
as the least frequent on word counts until |V| falls to a size (TrimmedBPE's criterion,
``core.edits.removal``); they go by ``core.edits.knockout.knock_out``: the merges using them become
tuple merges ([knockout Alg. 1]) or, with the cascade, every type built on them goes too. A removal
runs when asked and is kept for every session (by tokeniser, request and word counts). The request
is session state, not a widget's, so it survives page switches; a request that fails shows its
message and the last removal that worked stays on the page. The result downloads as project JSON and
as an HF export (``ui.hf_export``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import streamlit as st

from core.bpe.model import BTETokeniser
from core.edits.knockout import KnockoutEdit, knock_out
from core.edits.removal import check_removable, least_frequent_types
from core.errors import InputError
from ui.downloads import file_stem
from ui.error_boundary import guarded
from ui.hf_export import Scoring, export_section
from ui.tokeniser_loading import source_folder_of
from viz.escaping import md_escape
from viz.tokens import shown

LISTED, LEAST = "listed types", "the least frequent"
SOURCE = "types to remove"
REQUEST, DONE = "removal_request", "removal_done"  # session state: the request shown, the last that worked
MODE, TYPES, COUNTS, SIZE, CASCADE = (
    "removal_mode",
    "removal_types",
    "removal_counts",
    "removal_size",
    "removal_cascade",
)
MAX_ROWS = 2_000  # removed types listed on the page


@dataclass(frozen=True)
class Request:
    """What the user asked to remove (the fields of the other mode left empty)."""

    tokeniser_key: str
    mode: str
    text: str = ""
    counts: str = ""  # a source of ``Workspace.counts_sources``
    size: int = 0
    cascade: bool = False


@dataclass(frozen=True)
class Removal:
    chosen: tuple[str, ...]
    tokeniser: BTETokeniser
    edit: KnockoutEdit


def listed_types(tokeniser: BTETokeniser, text: str) -> list[str]:
    """The types of ``text``, one a line as the CLI's ``--types`` file (blank lines skipped), each
    one merges form; InputError naming the line of the first that is not."""
    numbered = [(n, line.rstrip("\r")) for n, line in enumerate(text.split("\n"), 1) if line.rstrip("\r")]
    if not numbered:
        raise InputError("no types listed (expected one type per line)", SOURCE)
    try:
        return check_removable(tokeniser, [line for _, line in numbered], SOURCE)
    except InputError as err:
        raise InputError(err.message, SOURCE, numbered[err.line - 1][0] if err.line else None) from None


@st.cache_resource(show_spinner="Removing the types…", max_entries=2)
def removal(
    request: Request, counts_key: str, _tokeniser: BTETokeniser, _counts: Callable[[], Mapping[str, int]]
) -> Removal:
    """The removal ``request`` asks for (``counts_key``: the content of the word counts ``_counts()``)."""
    if request.mode == LISTED:
        chosen = listed_types(_tokeniser, request.text)
    else:
        chosen = least_frequent_types(_tokeniser, _counts(), request.size)
        if not chosen:
            raise InputError(f"nothing to remove: |V| is {_tokeniser.vocab_size:,}, not above {request.size:,}")
    edited, edit = knock_out(_tokeniser, chosen, cascade=request.cascade)
    return Removal(tuple(chosen), edited, edit)


@guarded
def _ask(tokeniser_key: str) -> None:
    state = st.session_state
    mode = state.get(MODE, LISTED)
    fields = (
        {"text": state.get(TYPES) or ""}
        if mode == LISTED
        else {"counts": state.get(COUNTS) or "", "size": int(state.get(SIZE) or 0)}
    )
    state[REQUEST] = Request(tokeniser_key, mode, cascade=bool(state.get(CASCADE)), **fields)


def controls(workspace) -> None:
    """What to remove: a list, or the least frequent types down to a size; the cascade; Remove."""
    tokeniser = workspace.tokeniser
    mode = st.radio("Remove", (LISTED, LEAST), key=MODE, horizontal=True)
    if mode == LISTED:
        st.text_area(
            "Types to remove, one per line",
            key=TYPES,
            placeholder="\n".join(m.result for m in tokeniser.merges[-2:]),  # two types, as this tokeniser spells them
            help="Spelled as the tokeniser's vocabulary spells them (tokenizer.json, project JSON): Ġthe for "
            "byte-level BPE, ▁the for SentencePiece. Alphabet types and special tokens cannot be removed.",
        )
    else:
        sources, default = workspace.counts_sources()
        left, right = st.columns(2)
        left.selectbox(
            "Token frequencies from",
            sources,
            index=sources.index(default),
            key=COUNTS,
            help="The word counts tokenised by this tokeniser ([rebpe §2.1]); a type that never surfaces has "
            "frequency 0. The lowest go first, the latest merge first among equals.",
        )
        right.number_input(
            "|V| wanted (specials included)",
            min_value=1,
            value=max(1, tokeniser.vocab_size * 9 // 10),
            step=100,
            key=SIZE,
        )
    st.checkbox(
        "Cascade: remove every type built on a removed type too",
        key=CASCADE,
        help="Off: the merges using a removed type absorb its parts and become tuple merges ([knockout Alg. 1]), "
        "which an HF export then settles. On: no tuple merge is made, but |V| falls further ([knockout §3.3]).",
    )
    st.button("Remove", key="removal_run", type="primary", on_click=_ask, args=(workspace.tokeniser_key,))


def removed_rows(tokeniser: BTETokeniser, removal: Removal) -> list[dict]:
    ids, chosen, display = tokeniser.token_ids(), set(removal.chosen), tokeniser.pretokeniser.display
    return [
        {"type": shown(t, display), "id": ids.get(t), "why": "chosen" if t in chosen else "built on a chosen type"}
        for t in removal.edit.types_removed[:MAX_ROWS]
    ]


def show_removal(workspace, request: Request, counts_key: str, done: Removal) -> None:
    """What the removal did, and its downloads."""
    tokeniser, edited, edit = workspace.tokeniser, done.tokeniser, done.edit
    columns = st.columns(4)
    columns[0].metric(
        "|V| after", f"{edited.vocab_size:,}", delta=f"{edited.vocab_size - tokeniser.vocab_size:+,}", delta_color="off"
    )
    columns[1].metric("Types chosen", f"{len(done.chosen):,}")
    columns[2].metric(
        "Types removed", f"{len(edit.types_removed):,}", help="With the cascade, those built on them too."
    )
    columns[3].metric("Tuple merges left", f"{len(edited.tuple_merges):,}")
    st.caption(
        md_escape(
            f"|V| {tokeniser.vocab_size:,} → {edited.vocab_size:,}: {len(edit.types_removed):,} types removed, "
            f"{len(edited.tuple_merges):,} tuple merges left. Every kept token keeps its id."
        )
    )
    with st.expander(f"The types removed ({len(edit.types_removed):,})"):
        if len(edit.types_removed) > MAX_ROWS:
            st.caption(f"The first {MAX_ROWS:,}.")
        st.dataframe(removed_rows(tokeniser, done), hide_index=True, width="stretch")
    stem = f"{file_stem(workspace.tokeniser_name)}-removed{len(edit.types_removed)}"
    metadata = {"derived_from": workspace.tokeniser_name, "removed": list(done.chosen), "cascade": request.cascade}
    st.download_button(
        "Tokeniser after the removal (project JSON)",
        key="removal_dl_project",
        on_click="ignore",
        data=lambda: json.dumps(edited.to_json(metadata), ensure_ascii=False),
        file_name=f"{stem}.json",
        mime="application/json",
    )
    export_section(
        edited,
        tokeniser,
        key="removal_hf",
        cache_key=f"{workspace.tokeniser_key}|{request!r}|{counts_key}",
        stem=stem,
        what="Tokeniser after the removal",
        scoring=Scoring(
            workspace.references, workspace.reference_name, workspace.reference_key or workspace.reference_name
        ),
        source_folder=source_folder_of(workspace.tokeniser_name),
    )


def removal_of(workspace, request: Request) -> tuple[str, Removal]:
    """The content key of the request's word counts, and the removal (cached)."""
    counts_key, counts = workspace.word_counts(request.counts) if request.mode == LEAST else ("", dict)
    return counts_key, removal(request, counts_key, workspace.tokeniser, counts)


def removal_section(workspace) -> None:
    """The controls, then the removal asked for last on this tokeniser (a failed request: its
    message, and the last removal that worked)."""
    controls(workspace)
    request = st.session_state.get(REQUEST)
    if request is None or request.tokeniser_key != workspace.tokeniser_key:
        return
    try:
        counts_key, done = removal_of(workspace, request)
    except InputError as err:
        st.error(md_escape(err), icon=":material/block:")
        request = st.session_state[REQUEST] = st.session_state.get(DONE)
        if request is None or request.tokeniser_key != workspace.tokeniser_key:
            return
        st.caption("Below: the last removal that worked.")
        counts_key, done = removal_of(workspace, request)
    st.session_state[DONE] = request
    show_removal(workspace, request, counts_key, done)
