"""Loading reference segmentations, corpora and word counts: shipped or uploaded, cached by
``st.cache_resource`` / ``st.cache_data``; and the language of what was shipped (so that a page never
pairs a Dutch tokeniser with English text without saying so)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.errors import InputError
from core.formats.corpora import (
    decode_utf8,
    load_word_counts,
    parse_word_count_bytes,
    parse_word_counts,
    split_lines,
    word_counts_from_text,
)
from core.formats.samples import running_text
from core.references.files import ReferenceSet, load_references, parse_reference_bytes
from ui.workspace_choices import (
    MAX_UPLOAD_BYTES,
    SAMPLE_CORPORA,
    SAMPLE_COUNTS,
    SAMPLE_REFERENCES,
    UPLOAD_PREFIX,
    is_session_choice,
    uploads,
)


@st.cache_resource(show_spinner="Loading reference segmentations…", max_entries=16)
def sample_references(path: str) -> ReferenceSet:
    return load_references(path)


@st.cache_resource(show_spinner="Reading the uploaded references…", max_entries=8)
def uploaded_references(data: bytes, filename: str) -> ReferenceSet:
    return parse_reference_bytes(data, filename, max_bytes=MAX_UPLOAD_BYTES)


def corpus_lines(name: str, limit: int | None = None) -> list[str]:
    """Lines of a corpus: the shipped running text, or an uploaded plain-text file."""
    upload = st.session_state.get("uploads", {}).get(("corpus", name))
    if upload is not None:
        return _text_lines(upload.files[0][1], limit)
    return _sample_lines(limit)


@st.cache_data(show_spinner=False, max_entries=8)
def _text_lines(data: bytes, limit: int | None) -> list[str]:
    """The non-blank lines of an upload that :func:`check_corpus_upload` accepted (split as the CLI does)."""
    lines = [line for line in split_lines(decode_utf8(data, "corpus")) if line.strip()]
    return lines if limit is None else lines[:limit]


@st.cache_data(show_spinner=False, max_entries=4)
def _sample_lines(limit: int | None) -> list[str]:
    lines = list(running_text())
    return lines if limit is None else lines[:limit]


def is_count_list(name: str) -> bool:
    """Whether the corpus choice is an uploaded word<TAB>count list (not running text), as
    :func:`check_corpus_upload` recognises one: by a tab on its first line."""
    return ("corpus", name) in st.session_state.get("uploads", {}) and "\t" in next(iter(corpus_lines(name, 1)), "")


LANGUAGES = {"en": "English", "nl": "Dutch"}


def corpus_language(name: str) -> str | None:
    """The language code of a shipped corpus (the Python documentation is English); None for an upload."""
    return "en" if name in SAMPLE_CORPORA else None


def counts_language(name: str) -> str | None:
    """The language code of shipped word counts (``nl_wordfreq`` -> ``nl``); None for anything else."""
    return name[:2] if name in SAMPLE_COUNTS and name[:2] in LANGUAGES else None


def tokeniser_language(name: str) -> str | None:
    """The language code of a shipped tokeniser (see :func:`counts_for`); None for an upload or a path."""
    counts = counts_for(name)
    return counts[:2] if counts else None


def counts_for(tokeniser_name: str) -> str | None:
    """The shipped word counts matching a shipped tokeniser's language: English for the ``en-``
    tokenisers, Dutch for the others (the Dutch 40k, the Dutch wordfreq BPE and the scenarios,
    whose words are Dutch); None for an upload."""
    if is_session_choice(tokeniser_name):
        return None
    return "en_wordfreq" if tokeniser_name.startswith("en") else "nl_wordfreq"


@st.cache_resource(show_spinner="Loading word counts…", max_entries=4)
def sample_counts(name: str) -> dict[str, int]:
    """Shipped word counts (``word<TAB>count``) by name, e.g. ``nl_wordfreq``."""
    return load_word_counts(SAMPLE_COUNTS[name])


@st.cache_resource(show_spinner="Counting the words of the corpus…", max_entries=4)
def corpus_counts(corpus_key: str, _lines: Callable[[], list[str]]) -> dict[str, int]:
    """Whitespace-separated word counts of the corpus whose content key is ``corpus_key``
    (``Workspace.corpus_key``: uploads of one name differ by digest); ``_lines()`` reads it. A
    word<TAB>count list (:func:`check_corpus_upload` accepts one) gives its own counts."""
    lines = _lines()
    if lines and "\t" in lines[0]:
        return parse_word_counts("\n".join(lines), corpus_key)
    return dict(word_counts_from_text(lines))


def check_corpus_upload(data: bytes, filename: str) -> None:
    """Refuse what the CLI refuses in a corpus (``core.formats.corpora``: UTF-8 only, no NUL byte),
    an empty file, and a malformed word<TAB>count list."""
    lines = split_lines(decode_utf8(data, filename, MAX_UPLOAD_BYTES))
    if not any(line.strip() for line in lines):
        raise InputError("the corpus is empty", filename)
    if "\t" in lines[0]:
        parse_word_count_bytes(data, filename)  # a word<TAB>count list: validate it as one


def load_reference_choice(name: str) -> tuple[ReferenceSet, str]:
    """The reference segmentations of a choice and a key identifying their content; raises InputError."""
    if name.startswith(UPLOAD_PREFIX):
        upload = uploads()[("reference", name)]
        ((filename, data),) = upload.files
        return uploaded_references(data, filename), name + "@" + upload.id
    return sample_references(SAMPLE_REFERENCES[name]), name
