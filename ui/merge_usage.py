"""How often merges fire on the workspace's reference and corpus, for the pages (Streamlit glue).

One :class:`core.analysis.merge_usage.FireCounter` per (tokeniser, text), shared by every session through
``st.cache_resource``; each counts lazily (only the merges a page asks about) and keeps its counts,
so the merge graph and the word debugger pay for a pretoken's trace once.
"""

from __future__ import annotations

import streamlit as st

from core.analysis.merge_usage import FireCounter
from core.bpe.model import BTETokeniser
from ui.upload_store import digest
from ui.workspace import Workspace


@st.cache_resource(show_spinner=False, max_entries=8)
def reference_counter(key: str, reference_key: str, _tokeniser: BTETokeniser, _references) -> FireCounter:
    """Merge applications on the reference words (each as in running text)."""
    return FireCounter.from_words(_tokeniser, _references.words(), "reference")


@st.cache_resource(show_spinner=False, max_entries=8)
def corpus_counter(key: str, corpus_key: str, _tokeniser: BTETokeniser, _lines: list[str]) -> FireCounter:
    """Merge applications on the workspace's corpus (running text, line by line)."""
    return FireCounter.from_lines(_tokeniser, _lines, "corpus")


def counters(ws: Workspace, tokeniser: BTETokeniser, key: str, *, corpus: bool = True) -> dict[str, FireCounter]:
    """``{"reference": ..., "corpus": ...}`` for ``tokeniser`` (identified by ``key``) on ``ws``'s texts;
    ``corpus=False`` leaves the corpus (a pass over all its lines) out."""
    out = {"reference": reference_counter(key, ws.reference_key or ws.reference_name, tokeniser, ws.references)}
    if not corpus:
        return out
    lines = ws.corpus_lines()
    out["corpus"] = corpus_counter(key, ws.corpus_name + "@" + digest("\n".join(lines).encode()), tokeniser, lines)
    return out
