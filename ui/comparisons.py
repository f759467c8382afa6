"""Two tokenisers to compare, shared by the Compare and Blame & distributions pages.

Streamlit glue around :mod:`core.analysis.compare` (no algorithm here): the choices (every workspace
tokeniser and, derived from each, "<name> after knockout" and "<name> after ReBPE", run by
``ui.rebpe_runs.cached_run`` on the workspace's reference, or a scenario's own words), the word
sources (the reference words, the shipped word counts, the workspace corpus), and comparisons
computed once per (A, B, words) with a progress bar, kept in a small process-wide store shared by
every session (immutable results; each tokeniser's per-word segmentations are kept beside them,
so comparing A with another B segments A's words again only after it left the store).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import streamlit as st

from core.analysis.compare import Comparison, Segmentations, compare_tokenisers, token_frequency_differences
from core.edits.rebpe import ReBPEConfig
from core.errors import InputError
from core.tokeniser import Tokeniser
from ui.rebpe_runs import KNOCKOUT_ONLY, LRUStore, cached_run, scenario_references
from ui.references_corpora import sample_counts
from ui.tokeniser_loading import load_tokeniser_choice, merge_graph_view, tokeniser_label
from ui.workspace import Workspace
from ui.workspace_choices import SAMPLE_COUNTS, choices
from ui.workspace_links import follow, link_value

KNOCKOUT, REBPE = " after knockout", " after ReBPE"
#: suffix of a derived choice -> (what runs, its configuration)
DERIVED = {KNOCKOUT: ("Knockout", KNOCKOUT_ONLY), REBPE: ("ReBPE", ReBPEConfig())}
REFERENCE, CORPUS = "reference", "corpus"  # word sources besides the shipped counts (by name)
MAX_COMPARISONS = 6
MAX_SEGMENTATIONS = 4


@dataclass(frozen=True)
class Chosen:
    """A loaded choice: its name, the tokeniser, and a key identifying its content (for caches)."""

    name: str
    tokeniser: Tokeniser
    key: str


def tokeniser_options() -> list[str]:
    """Every workspace tokeniser, each followed by its "after knockout" and "after ReBPE"."""
    return [name + suffix for name in choices("tokeniser") for suffix in ("", *DERIVED)]


def split_choice(choice: str) -> tuple[str, str | None]:
    """(workspace tokeniser, derived suffix or None)."""
    for suffix in DERIVED:
        if choice.endswith(suffix):
            return choice[: -len(suffix)], suffix
    return choice, None


def choice_link(choice: str) -> tuple[str | None, str | None]:
    """How a link names ``choice`` (None: it cannot) and what it cannot carry (None: all), as
    ``ui.workspace_links.link_value`` says for its workspace tokeniser (an upload as ``upload:<id>``)."""
    base, suffix = split_choice(choice)
    value, lost = link_value("tokeniser", base)
    return (None if value is None else value + (suffix or "")), lost


def choice_from_link(raw: str) -> str | None:
    """The choice a link's value names (an upload found in the server's store joins this session),
    None when it names nothing available."""
    base, suffix = split_choice(raw)
    try:
        return follow("tokeniser", base) + (suffix or "")
    except InputError:
        return None


def option_label(choice: str) -> str:
    """A workspace tokeniser reads as in the Workspace's chooser; a derived one as its name."""
    return choice if split_choice(choice)[1] else tokeniser_label(choice)


def load_choice(ws: Workspace, choice: str) -> Chosen:
    """The tokeniser of ``choice``; a derived one is run (with progress) on the merge graph of its
    base, with the scenario's own words for a teaching scenario and the workspace's reference
    otherwise. Raises InputError (CapabilityError for a family without a merge graph)."""
    base, suffix = split_choice(choice)
    if base not in choices("tokeniser"):
        raise InputError(f"unknown tokeniser {base!r}")
    tokeniser, key = (
        (ws.tokeniser, ws.tokeniser_key or ws.tokeniser_name)
        if base == ws.tokeniser_name
        else load_tokeniser_choice(base)
    )
    if suffix is None:
        return Chosen(choice, tokeniser, key)
    label, config = DERIVED[suffix]
    graph = merge_graph_view(key, tokeniser, label)
    graph_key = key if graph is tokeniser else key + "#merge-graph"
    scenario = scenario_references(base, graph)
    if scenario is not None:
        references, reference_name = scenario, f"scenario:{base}"
        reference_key = reference_name
    else:
        references, reference_name = ws.references, ws.reference_name
        reference_key = ws.reference_key or ws.reference_name
    run = cached_run(
        base, graph, reference_name, references, config, label, tokeniser_key=graph_key, reference_key=reference_key
    )
    return Chosen(choice, run.tokeniser, f"{graph_key}|{reference_key}|{label}")


# --- word sources ------------------------------------------------------------------------------------
def source_options() -> list[str]:
    return [REFERENCE, *SAMPLE_COUNTS, CORPUS]


def source_label(ws: Workspace, source: str) -> str:
    if source == REFERENCE:
        return f"reference words ({ws.reference_name}, {len(ws.references.entries):,})"
    if source == CORPUS:
        return f"workspace corpus ({ws.corpus_name})"
    return f"word counts {source}"


def source_words(ws: Workspace, source: str) -> tuple[Mapping[str, int], str]:
    """(word counts, a key identifying them): the reference words count once each."""
    if source == REFERENCE:
        words = dict.fromkeys((entry.word for entry in ws.references.entries), 1)
        return words, f"reference:{ws.reference_key or ws.reference_name}"
    if source == CORPUS:
        return ws.corpus_counts(), f"corpus:{ws.corpus_key or ws.corpus_name}"
    if source in SAMPLE_COUNTS:
        return sample_counts(source), f"counts:{source}"
    raise InputError(f"unknown word source {source!r}; choose one of {', '.join(source_options())}")


# --- comparisons, computed once ------------------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _comparisons() -> LRUStore:
    return LRUStore(MAX_COMPARISONS)


@st.cache_resource(show_spinner=False)
def _segmentations() -> LRUStore:
    return LRUStore(MAX_SEGMENTATIONS)


def segmentations(chosen: Chosen) -> Segmentations:
    """The per-word segmentations of a choice (a memo filled as words are compared)."""
    return _segmentations().get_or_compute(chosen.key, lambda: Segmentations(chosen.tokeniser))


def comparison(a: Chosen, b: Chosen, words: Mapping[str, int], words_key: str) -> Comparison:
    """:func:`core.analysis.compare.compare_tokenisers` of A and B over ``words``, with a progress bar the
    first time."""
    holder = st.empty()

    def compute() -> Comparison:
        bar = holder.progress(0.0, text=f"Segmenting {len(words):,} words with both tokenisers…")

        def progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"Segmenting words with both tokenisers: {done:,} of {total:,}…")

        return compare_tokenisers(segmentations(a), segmentations(b), words, progress=progress)

    def waiting(seconds: float) -> None:
        holder.info(
            f"Another session is comparing these tokenisers; this page shows it as soon as it is done "
            f"({seconds:.0f} s so far)…",
            icon=":material/group:",
        )

    try:
        return _comparisons().get_or_compute(("words", a.key, b.key, words_key), compute, waiting)
    finally:
        holder.empty()


def frequency_differences(a: Chosen, b: Chosen, words: Mapping[str, int], words_key: str) -> tuple[Mapping, ...]:
    """Per-token frequency differences of A and B over ``words``, read-only rows (after
    :func:`comparison`, which segments every word with progress and leaves the memos full)."""
    comparison(a, b, words, words_key)
    return _comparisons().get_or_compute(
        ("tokens", a.key, b.key, words_key),
        lambda: tuple(map(MappingProxyType, token_frequency_differences(segmentations(a), segmentations(b), words))),
    )
