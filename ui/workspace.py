"""What the user has loaded, shared by every page: tokeniser, reference segmentations, corpus.

Streamlit glue (the only UI module pages share). Heavy engine objects are loaded through
``st.cache_resource`` and never mutated; uploads are kept as bytes in ``st.session_state`` so
they survive page switches, and a bad upload never replaces what was loaded before.
The current choices live in the URL (``?tokeniser=…&reference=…&corpus=…``) so a link reproduces
a view; values read from the URL are validated and fall back to the defaults.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import streamlit as st

from core.errors import InputError
from core.formats.corpora import parse_word_count_bytes
from core.formats.references import ReferenceSet, load_references, parse_reference_bytes
from core.formats.tokeniser_files import load_tokeniser, parse_tokeniser_bytes
from core.model import BTETokeniser
from core.samples import count_paths, reference_paths, running_text, tokeniser_paths
from viz.tokeniser_info import tokeniser_choices

SAMPLE_TOKENISERS = tokeniser_choices(tokeniser_paths())      # short name -> path
SAMPLE_REFERENCES = {name: str(path) for name, path in reference_paths().items()}
SAMPLE_CORPORA = ("python-docs (English, stdlib pydoc_data)",)
DEFAULT_TOKENISER = next(iter(SAMPLE_TOKENISERS))
DEFAULT_REFERENCE = "nl_morph"
DEFAULT_CORPUS = SAMPLE_CORPORA[0]
UPLOAD_PREFIX = "upload: "
MAX_UPLOAD_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class Workspace:
    tokeniser_name: str
    tokeniser: BTETokeniser
    reference_name: str
    references: ReferenceSet
    corpus_name: str

    def corpus_lines(self, limit: int | None = None) -> list[str]:
        return corpus_lines(self.corpus_name, limit)


# --- cached loaders ---------------------------------------------------------------------------------
@st.cache_resource(show_spinner="Loading tokeniser…", max_entries=16)
def sample_tokeniser(path: str) -> BTETokeniser:
    return load_tokeniser(path)


@st.cache_resource(show_spinner="Reading the uploaded tokeniser…", max_entries=8)
def uploaded_tokeniser(data: bytes, filename: str) -> BTETokeniser:
    return parse_tokeniser_bytes(data, filename, name=filename)


@st.cache_resource(show_spinner="Loading reference segmentations…", max_entries=16)
def sample_references(path: str) -> ReferenceSet:
    return load_references(path)


@st.cache_resource(show_spinner="Reading the uploaded references…", max_entries=8)
def uploaded_references(data: bytes, filename: str) -> ReferenceSet:
    return parse_reference_bytes(data, filename, max_bytes=MAX_UPLOAD_BYTES)


@st.cache_data(show_spinner=False, max_entries=8)
def corpus_lines(name: str, limit: int | None = None) -> list[str]:
    """Lines of a corpus: the shipped running text, or an uploaded plain-text file."""
    if name.startswith(UPLOAD_PREFIX):
        data = st.session_state.get("uploads", {}).get(("corpus", name), b"")
        lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    else:
        lines = list(running_text())
    return lines if limit is None else lines[:limit]


# --- uploads ----------------------------------------------------------------------------------------
def uploads() -> dict[tuple[str, str], bytes]:
    return st.session_state.setdefault("uploads", {})


def add_upload(kind: str, filename: str, data: bytes, check: Callable[[bytes, str], object]) -> str:
    """Validate and keep an upload; returns its choice name. InputError leaves everything as it was."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise InputError(f"file is {len(data):,} bytes; the limit is {MAX_UPLOAD_BYTES:,}", filename)
    check(data, filename)
    name = UPLOAD_PREFIX + filename
    uploads()[(kind, name)] = data
    return name


def check_tokeniser_upload(data: bytes, filename: str) -> None:
    uploaded_tokeniser(data, filename)


def check_reference_upload(data: bytes, filename: str) -> None:
    uploaded_references(data, filename)


def check_corpus_upload(data: bytes, filename: str) -> None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", filename,
                         data[: err.start].count(b"\n") + 1) from None
    if not text.strip():
        raise InputError("the corpus is empty", filename)
    if "\t" in text.splitlines()[0]:
        parse_word_count_bytes(data, filename)  # a word<TAB>count list: validate it as one


# --- the current choices ----------------------------------------------------------------------------
def choices(kind: str) -> list[str]:
    samples = {"tokeniser": list(SAMPLE_TOKENISERS), "reference": list(SAMPLE_REFERENCES),
               "corpus": list(SAMPLE_CORPORA)}[kind]
    return samples + [name for (k, name) in uploads() if k == kind]


def selected(kind: str, default: str) -> str:
    """The current choice: session state, else the URL, else the default (validated)."""
    key = f"ws_{kind}"
    value = st.session_state.get(key) or st.query_params.get(kind)
    if value not in choices(kind):
        value = default
    st.session_state[key] = value
    return value


def select(kind: str, name: str) -> None:
    st.session_state[f"ws_{kind}"] = name


def current() -> Workspace:
    """The loaded workspace; writes the choices into the URL. Shows st.error and stops on failure."""
    tokeniser_name = selected("tokeniser", DEFAULT_TOKENISER)
    reference_name = selected("reference", DEFAULT_REFERENCE)
    corpus_name = selected("corpus", DEFAULT_CORPUS)
    try:
        if tokeniser_name.startswith(UPLOAD_PREFIX):
            tokeniser = uploaded_tokeniser(uploads()[("tokeniser", tokeniser_name)], tokeniser_name[len(UPLOAD_PREFIX):])
        else:
            tokeniser = sample_tokeniser(SAMPLE_TOKENISERS[tokeniser_name])
        if reference_name.startswith(UPLOAD_PREFIX):
            references = uploaded_references(uploads()[("reference", reference_name)], reference_name[len(UPLOAD_PREFIX):])
        else:
            references = sample_references(SAMPLE_REFERENCES[reference_name])
    except InputError as err:
        st.error(str(err))
        st.stop()
    for kind, value in (("tokeniser", tokeniser_name), ("reference", reference_name)):
        if not value.startswith(UPLOAD_PREFIX):
            st.query_params[kind] = value
    return Workspace(tokeniser_name, tokeniser, reference_name, references, corpus_name)
