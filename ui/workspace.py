"""What the user has loaded, shared by every page: tokeniser, reference segmentations, corpus.

Streamlit glue (the only UI module pages share). Heavy engine objects are loaded through
``st.cache_resource`` and never mutated; uploads are kept as bytes in ``st.session_state`` so
they survive page switches, and a bad upload never replaces what was loaded before.
The current choices live in the URL (``?tokeniser=…&reference=…&corpus=…``) so a link reproduces
a view; values read from the URL are validated and fall back to the defaults.

It also keeps ``app.py``'s navigation in charge (:func:`ensure_app_navigation`): on a freshly
started server Streamlit treats ``pages/`` as a legacy multipage folder until ``st.navigation`` has
run once, so a first request to ``/merge_graph`` would run that page file alone. Importing this
module (every page does) or calling :func:`current` reroutes such a run through ``app.py``.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core.errors import InputError
from core.formats.corpora import load_word_counts, parse_word_count_bytes, word_counts_from_text
from core.formats.references import ReferenceSet, load_references, parse_reference_bytes
from core.formats.tokeniser_files import load_tokeniser, parse_merges_vocab_bytes, parse_tokeniser_bytes
from core.model import BTETokeniser
from core.samples import count_paths, reference_paths, running_text, tokeniser_paths
from viz.tokeniser_info import choice_label, tokeniser_choices

SAMPLE_TOKENISERS = tokeniser_choices(tokeniser_paths())      # short name -> path
SAMPLE_REFERENCES = {name: str(path) for name, path in reference_paths().items()}
SAMPLE_CORPORA = ("python-docs (English, stdlib pydoc_data)",)
DEFAULT_TOKENISER = next(iter(SAMPLE_TOKENISERS))
DEFAULT_REFERENCE = "nl_morph"
DEFAULT_CORPUS = SAMPLE_CORPORA[0]
SAMPLE_COUNTS = {name: str(path) for name, path in count_paths().items()}  # nl_wordfreq, en_wordfreq
UPLOAD_PREFIX = "upload: "
MAX_UPLOAD_BYTES = 200 * 1024 * 1024


def ensure_app_navigation() -> None:
    """Reroute a legacy multipage run through ``app.py``.

    Until ``st.navigation`` has run once in a server process, Streamlit treats ``pages/`` as a v1
    multipage folder: the first request to ``/<file stem>`` runs ``pages/<file stem>.py`` on its
    own, without ``app.py``'s page config and navigation. Switching the legacy mode off and
    rerunning makes the same request go through ``app.py``, whose ``st.navigation`` then picks the
    page by its ``url_path`` (which therefore equals the file stem, see ``app.py``).
    """
    if PagesManager.uses_pages_directory and get_script_run_ctx() is not None:
        PagesManager.uses_pages_directory = False
        st.rerun()


@dataclass(frozen=True)
class Workspace:
    tokeniser_name: str
    tokeniser: BTETokeniser
    reference_name: str
    references: ReferenceSet
    corpus_name: str
    tokeniser_key: str = ""   # identifies the tokeniser's content (name, plus a digest for uploads)
    reference_key: str = ""

    def corpus_lines(self, limit: int | None = None) -> list[str]:
        return corpus_lines(self.corpus_name, limit)

    @property
    def counts_name(self) -> str | None:
        """The shipped word counts in the tokeniser's language (None for an upload)."""
        return counts_for(self.tokeniser_name)


# --- cached loaders ---------------------------------------------------------------------------------
@st.cache_resource(show_spinner="Loading tokeniser…", max_entries=16)
def sample_tokeniser(path: str) -> BTETokeniser:
    return load_tokeniser(path)


@st.cache_resource(show_spinner="Reading the uploaded tokeniser…", max_entries=8)
def uploaded_tokeniser(data: bytes, filename: str, vocab: bytes | None = None,
                       vocab_name: str = "vocab.json") -> BTETokeniser:
    """An uploaded tokenizer.json, project JSON or merges.txt (with ``vocab``: its vocab.json)."""
    if vocab is not None:
        return parse_merges_vocab_bytes(data, filename, vocab, vocab_name, name=filename)
    return parse_tokeniser_bytes(data, filename, name=filename)


@st.cache_resource(show_spinner="Loading reference segmentations…", max_entries=16)
def sample_references(path: str) -> ReferenceSet:
    return load_references(path)


@st.cache_resource(show_spinner="Reading the uploaded references…", max_entries=8)
def uploaded_references(data: bytes, filename: str) -> ReferenceSet:
    return parse_reference_bytes(data, filename, max_bytes=MAX_UPLOAD_BYTES)


def corpus_lines(name: str, limit: int | None = None) -> list[str]:
    """Lines of a corpus: the shipped running text, or an uploaded plain-text file."""
    if name.startswith(UPLOAD_PREFIX):
        return _text_lines(st.session_state.get("uploads", {}).get(("corpus", name), b""), limit)
    return _sample_lines(limit)


@st.cache_data(show_spinner=False, max_entries=8)
def _text_lines(data: bytes, limit: int | None) -> list[str]:
    lines = [line for line in data.decode("utf-8-sig", "replace").splitlines() if line.strip()]
    return lines if limit is None else lines[:limit]


@st.cache_data(show_spinner=False, max_entries=4)
def _sample_lines(limit: int | None) -> list[str]:
    lines = list(running_text())
    return lines if limit is None else lines[:limit]


def counts_for(tokeniser_name: str) -> str | None:
    """The shipped word counts matching a shipped tokeniser's language: English for the ``en-``
    tokenisers, Dutch for the others (the Dutch 40k, the Dutch wordfreq BPE and the scenarios,
    whose words are Dutch); None for an upload."""
    if tokeniser_name.startswith(UPLOAD_PREFIX):
        return None
    return "en_wordfreq" if tokeniser_name.startswith("en") else "nl_wordfreq"


@st.cache_resource(show_spinner="Loading word counts…", max_entries=4)
def sample_counts(name: str) -> dict[str, int]:
    """Shipped word counts (``word<TAB>count``) by name, e.g. ``nl_wordfreq``."""
    return load_word_counts(SAMPLE_COUNTS[name])


@st.cache_resource(show_spinner="Counting the words of the corpus…", max_entries=4)
def corpus_counts(name: str, digest: str = "") -> dict[str, int]:
    """Whitespace-separated word counts of a corpus (``digest`` tells apart uploads of one name)."""
    return dict(word_counts_from_text(corpus_lines(name)))


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:12]


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
    uploads().pop(("tokeniser-vocab", name), None)
    return name


def add_merges_upload(filename: str, data: bytes, vocab_name: str, vocab: bytes) -> str:
    """Validate and keep a merges.txt together with its vocab.json (a tokeniser choice)."""
    for name, blob in ((filename, data), (vocab_name, vocab)):
        if len(blob) > MAX_UPLOAD_BYTES:
            raise InputError(f"file is {len(blob):,} bytes; the limit is {MAX_UPLOAD_BYTES:,}", name)
    uploaded_tokeniser(data, filename, vocab, vocab_name)
    name = UPLOAD_PREFIX + filename
    uploads()[("tokeniser", name)] = data
    uploads()[("tokeniser-vocab", name)] = (vocab_name, vocab)
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


def tokeniser_label(name: str) -> str:
    """How a tokeniser choice reads in a chooser: its name and what it is (a scenario's title)."""
    metadata = {}
    if name in SAMPLE_TOKENISERS and (name.startswith("a1_") or name.startswith("a3_")):
        try:
            metadata = sample_tokeniser(SAMPLE_TOKENISERS[name]).metadata
        except InputError:
            pass
    return choice_label(name, metadata)


def select(kind: str, name: str) -> None:
    st.session_state[f"ws_{kind}"] = name


def load_tokeniser_choice(name: str) -> tuple[BTETokeniser, str]:
    """The tokeniser of a choice and a key identifying its content; raises InputError."""
    if name.startswith(UPLOAD_PREFIX):
        data = uploads()[("tokeniser", name)]
        vocab_name, vocab = uploads().get(("tokeniser-vocab", name), ("vocab.json", None))
        key = name + "@" + digest(data + (vocab or b""))
        return uploaded_tokeniser(data, name[len(UPLOAD_PREFIX):], vocab, vocab_name), key
    return sample_tokeniser(SAMPLE_TOKENISERS[name]), name


def load_reference_choice(name: str) -> tuple[ReferenceSet, str]:
    """The reference segmentations of a choice and a key identifying their content; raises InputError."""
    if name.startswith(UPLOAD_PREFIX):
        data = uploads()[("reference", name)]
        return uploaded_references(data, name[len(UPLOAD_PREFIX):]), name + "@" + digest(data)
    return sample_references(SAMPLE_REFERENCES[name]), name


def current() -> Workspace:
    """The loaded workspace; writes the choices into the URL. Shows st.error and stops on failure."""
    ensure_app_navigation()
    tokeniser_name = selected("tokeniser", DEFAULT_TOKENISER)
    reference_name = selected("reference", DEFAULT_REFERENCE)
    corpus_name = selected("corpus", DEFAULT_CORPUS)
    try:
        tokeniser, tokeniser_key = load_tokeniser_choice(tokeniser_name)
        references, reference_key = load_reference_choice(reference_name)
    except InputError as err:
        st.error(str(err))
        st.stop()
    for kind, value in (("tokeniser", tokeniser_name), ("reference", reference_name), ("corpus", corpus_name)):
        if not value.startswith(UPLOAD_PREFIX) and st.query_params.get(kind) != value:
            st.query_params[kind] = value
    return Workspace(tokeniser_name, tokeniser, reference_name, references, corpus_name, tokeniser_key, reference_key)


ensure_app_navigation()  # a page importing this module on a fresh server goes through app.py
