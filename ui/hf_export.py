"""The HF export of an edited tokeniser, as the stepper and the type removal offer it.

A zip of the folder ``transformers`` saves (``core.formats.hf_folder``: tokenizer.json with
tokenizer_config.json and special_tokens_map.json carried over from the loaded tokeniser's folder),
with every id kept or compacted (``core.edits.id_compaction``; the map goes in as ``id_map.json``).
Tuple merges, which no tokenizer.json holds, are first settled by ``core.edits.finishing`` as the
user chooses. Finishing takes seconds on a 128k tokeniser, so it runs only when asked, once per
edited tokeniser and method (kept for every session, never mutated), and what it cost (|V|, and F1
on the reference) is shown beside the download. Files are built only when downloaded.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from core.bpe.model import BTETokeniser
from core.edits.finishing import FINISH_METHODS, Finishing, finish
from core.edits.id_compaction import IdMap, compact_ids
from core.errors import InputError
from core.formats.hf_folder import hf_folder_files
from core.formats.hf_json import hf_json_problem, tokeniser_to_hf_json
from core.references.evaluation import evaluate_morphology
from core.references.files import ReferenceSet
from ui.error_boundary import guarded
from viz.escaping import md_escape


@dataclass(frozen=True)
class Scoring:
    """The reference the cost of finishing is measured on: its segmentations, name and content key."""

    references: ReferenceSet
    name: str
    key: str


KEEP, COMPACT = "keep", "compact"
ID_CHOICES = (KEEP, COMPACT)
ID_MAP = "id_map.json"
FINISH_HELP = (
    "A tokenizer.json holds binary merges only. Tuple merges that can never fire are dropped first (exact). "
    "cascade: the others go with every type built on them (|V| falls). intermediates: reification splits "
    "them into binary merges, re-adding the intermediate types with their old ids (F1 usually falls)."
)
FOLDER_HELP = (
    "tokenizer.json and tokenizer_config.json (carried over from the loaded tokeniser's folder, when it has "
    "one), special_tokens_map.json when that folder has one, and id_map.json with compacted ids: unzipped, a "
    "folder transformers' from_pretrained loads."
)
IDS_HELP = (
    "keep: every kept token keeps its id, so the model's embeddings still fit (removed types leave gaps). "
    "compact: ids 0..n-1 in the old order, with id_map.json (old id → new id or null) to take the "
    "matching rows of the model's embedding matrix."
)


def zip_folder(files: Mapping[str, str], folder: str) -> bytes:
    """``files`` (name → text) zipped inside ``folder/``, so that unzipping gives the folder."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(f"{folder}/{name}", text)
    return buffer.getvalue()


def export_zip(tokeniser: BTETokeniser, source_folder: Path | None, id_map: IdMap | None, folder: str) -> bytes:
    """The HF folder of ``tokeniser`` (configuration from ``source_folder``; ``id_map.json`` with
    compacted ids), zipped."""
    files = hf_folder_files(tokeniser, source_folder)
    if id_map is not None:
        files[ID_MAP] = json.dumps(id_map.to_json(), ensure_ascii=False) + "\n"
    return zip_folder(files, folder)


@st.cache_data(show_spinner=False, max_entries=64)
def export_problem(key: str, _tokeniser: BTETokeniser) -> str | None:
    """Why no tokenizer.json can hold the tokeniser under ``key``, tuple merges apart (finishing
    settles those, so then only its pipeline is checked here); None when it can."""
    return hf_json_problem(_tokeniser, tuples_allowed=True)


@st.cache_resource(show_spinner="Finishing: making every merge binary…", max_entries=2)
def finished(key: str, method: str, _tokeniser: BTETokeniser) -> tuple[BTETokeniser, Finishing]:
    """:func:`core.edits.finishing.finish` of the tokeniser under ``key``."""
    return finish(_tokeniser, method)


@st.cache_resource(show_spinner="Renumbering the ids…", max_entries=2)
def compacted(key: str, _tokeniser: BTETokeniser, _source: BTETokeniser) -> tuple[BTETokeniser, IdMap]:
    """:func:`core.edits.id_compaction.compact_ids` of the tokeniser under ``key``."""
    return compact_ids(_tokeniser, _source)


@st.cache_data(show_spinner="Scoring the reference before and after finishing…", max_entries=64)
def f1_before_after(key: str, _before: BTETokeniser, _after: BTETokeniser, _references: ReferenceSet) -> tuple:
    """Morphological F1 on the reference of the tokeniser under ``key``, before and after finishing."""
    return tuple(evaluate_morphology(tok, _references.entries).f1 for tok in (_before, _after))


@guarded
def _ask(state_key: str, asked: tuple) -> None:
    st.session_state[state_key] = asked


def finishing_cost(
    key: str, edited: BTETokeniser, final: BTETokeniser, finishing: Finishing, source: BTETokeniser, scoring: Scoring
) -> None:
    """What finishing cost: |V| and F1 on the reference before → after, and what it did."""
    columns = st.columns(3)
    columns[0].metric(
        "|V| after finishing",
        f"{final.vocab_size:,}",
        delta=f"{final.vocab_size - edited.vocab_size:+,}",
        delta_color="off",
    )
    cost = [f"|V| {edited.vocab_size:,} → {final.vocab_size:,}"]
    if scoring.references.entries:
        try:
            before, after = f1_before_after(f"{key}|{scoring.key}", edited, final, scoring.references)
        except InputError as err:
            cost.append(f"no F1: {err}")
        else:
            columns[1].metric(
                "F1 after finishing (%)", f"{100 * after:.2f}", delta=f"{100 * (after - before):+.2f} points"
            )
            cost.append(f"F1 on {scoring.name} {100 * before:.2f} % → {100 * after:.2f} %")
    if finishing.method == "intermediates":
        returning = sum(1 for t in finishing.types_added if t in source.types)
        columns[2].metric(
            "Types back from the loaded tokeniser",
            f"{returning:,}",
            help="Intermediate types that the loaded tokeniser had: they come back with their old ids.",
        )
    st.caption(md_escape(f"Finishing cost: {', '.join(cost)}. {finishing.summary()}."))


def export_section(
    edited: BTETokeniser,
    source: BTETokeniser,
    *,
    key: str,
    cache_key: str,
    stem: str,
    what: str,
    scoring: Scoring,
    source_folder: Path | None,
) -> None:
    """The HF export of ``edited`` (derived from ``source``, the tokeniser as loaded): the finishing
    method when tuple merges remain, the ids, and the downloads (``what`` starts their labels).
    ``cache_key`` identifies ``edited``, ``key`` the widgets; ``scoring``: the reference F1 is measured on."""
    problem = export_problem(cache_key, edited)
    if problem:
        st.caption(md_escape(f"No HF tokenizer.json: {problem}. The project JSON keeps everything."))
        return
    tuples = len(edited.tuple_merges)
    left, right = st.columns(2)
    method = ""
    if tuples:
        method = (
            left.radio(
                "Tuple merges for HF",
                FINISH_METHODS,
                index=FINISH_METHODS.index("cascade"),
                key=f"{key}_finish",
                horizontal=True,
                help=FINISH_HELP,
            )
            or "cascade"
        )
    ids = right.radio("Ids", ID_CHOICES, key=f"{key}_ids", horizontal=True, help=IDS_HELP) or KEEP
    final = edited
    if tuples:
        asked, state_key = (cache_key, method), f"{key}_asked"
        if st.session_state.get(state_key) != asked:
            st.caption(
                f"{tuples:,} tuple merges remain, which an HF tokenizer.json cannot hold. Preparing the export "
                f"settles them ({method}) and shows what that costs; on a 128k tokeniser it takes seconds."
            )
            st.button("Prepare HF export", key=f"{key}_prepare", on_click=_ask, args=(state_key, asked))
            return
        final, finishing = finished(f"{cache_key}|{method}", method, edited)
        finishing_cost(f"{cache_key}|{method}", edited, final, finishing, source, scoring)
        problem = export_problem(f"{cache_key}|{method}", final)
        if problem:
            st.caption(
                md_escape(f"No HF tokenizer.json after finishing: {problem}. The project JSON keeps everything.")
            )
            return
    id_map = None
    if ids == COMPACT:
        final, id_map = compacted(f"{cache_key}|{method}", final, source)
        st.caption(
            f"Ids compacted: {id_map.size_before:,} → {id_map.size_after:,} ids ({len(id_map.added):,} new types); "
            f"the zip holds the map as {ID_MAP}."
        )
    with st.container(horizontal=True, gap="small"):
        st.download_button(
            f"{what} (HF folder, zip)",
            key=f"{key}_zip",
            on_click="ignore",
            data=lambda: export_zip(final, source_folder, id_map, stem),
            file_name=f"{stem}-hf.zip",
            mime="application/zip",
            help=FOLDER_HELP,
        )
        if not tuples and ids == KEEP:
            st.download_button(
                f"{what} (HF tokenizer.json)",
                key=f"{key}_json",
                on_click="ignore",
                data=lambda: json.dumps(tokeniser_to_hf_json(final), ensure_ascii=False),
                file_name=f"{stem}-tokenizer.json",
                mime="application/json",
            )
