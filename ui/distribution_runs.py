"""The computations of the Blame & distributions page, cached: the traced reference and its blame,
knockout and ReBPE (through ``ui.rebpe_runs.cached_run``, shared, with progress), the threshold
sweep, and corpus statistics per segmenter. Heavy results are cached by the names of what is loaded
plus the parameters (``st.cache_resource`` for traced references, shared by every session and so
frozen; ``st.cache_data`` for rows and counts), and the threshold sweep and the corpus statistics
also on disk by the content of their inputs (``ui.result_cache``), across server restarts."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import streamlit as st

from core.analysis import corpus_metrics as cm
from core.bpe.model import BTETokeniser, Merge
from core.edits.archive import content_key, tokeniser_digest, words_digest
from core.edits.blame import MergeBlame, compute_blame
from core.edits.diagnostics import tokens_per_word_change
from core.edits.rebpe import KnockoutConfig, ReBPEConfig
from core.edits.reference_state import TokenisedReference
from core.errors import InputError
from core.references.evaluation import MorphScores
from ui import result_cache
from ui.rebpe_runs import cached_run, knockout_config
from ui.sweeps import THRESHOLDS, sweep_rows
from ui.tokeniser_loading import sample_tokeniser
from ui.workspace_choices import SAMPLE_TOKENISERS, is_session_choice
from viz.escaping import md_escape

ALPHAS = tuple(round(0.25 * i, 2) for i in range(41))  # the Rényi curve: α = 0 … 10


@dataclass(frozen=True)
class Knockout:
    tokeniser: BTETokeniser
    removed: tuple[Merge, ...]
    before: MorphScores
    after: MorphScores


def cache_key(name: str, obj: object, content_key: str = "") -> str:
    """A cache key for a loaded object: the workspace's content key (name, plus a digest for
    uploads); failing that, shipped samples by name and uploads also by identity."""
    if content_key:
        return content_key
    return f"{name}#{id(obj)}" if is_session_choice(name) else name


def cache_keys(ws) -> tuple[str, str]:
    return (
        cache_key(ws.tokeniser_name, ws.tokeniser, getattr(ws, "tokeniser_key", "")),
        cache_key(ws.reference_name, ws.references, getattr(ws, "reference_key", "")),
    )


def run_on(ws, config: ReBPEConfig, label: str):
    tok_key, ref_key = cache_keys(ws)
    return cached_run(
        ws.tokeniser_name,
        ws.tokeniser,
        ws.reference_name,
        ws.references,
        config,
        label,
        tokeniser_key=tok_key,
        reference_key=ref_key,
    )


def knockout(ws, threshold: float) -> Knockout:
    run = run_on(ws, knockout_config(threshold), "knockout")
    removed = tuple(m for step in run.steps for m in step.removed)
    return Knockout(run.tokeniser, removed, run.initial, run.steps[-1].metrics if run.steps else run.initial)


@st.cache_resource(show_spinner="Tracing the reference words…", max_entries=8)
def traced(
    tok_key: str, ref_key: str, _tokeniser, _references
) -> tuple[TokenisedReference, Mapping[Merge, MergeBlame]]:
    """The traced reference, frozen (every session reads the same one), and its blame."""
    reference = TokenisedReference(_tokeniser, _references.entries).freeze()
    return reference, MappingProxyType(compute_blame(reference))


def stored_sweep(tokeniser, references, reference: TokenisedReference) -> list[dict]:
    """The threshold sweep (``ui.sweeps``), computed with a progress bar when it is not on disk."""

    @contextlib.contextmanager
    def shown() -> Iterator[dict[str, Callable[[int, float], None]]]:
        progress = st.empty()

        def tell(i: int, t: float) -> None:
            progress.progress(
                i / len(THRESHOLDS), text=f"Knocking out at threshold {t:.2f} ({i + 1} of {len(THRESHOLDS)})…"
            )

        yield {"progress": tell}
        progress.empty()

    return sweep_rows(tokeniser, references, reference, shown)


def stored_stats(segmenter, text_digest: str, compute) -> cm.CorpusStats:
    """Corpus statistics kept on disk by the content of the segmenter and the text (computed in a worker process)."""
    key = content_key("corpus-stats", tokeniser_digest(segmenter), text_digest)
    return result_cache.through_worker(
        "corpus-stats", key, lambda send: compute(), cm.CorpusStats.to_json, cm.CorpusStats.from_json
    )


@st.cache_resource(show_spinner=False, max_entries=4)
def counts_digest(counts_key: str, _counts: Mapping[str, int]) -> str:
    """A digest of the word counts whose key is ``counts_key`` (shipped ones by name, the corpus by its content key)."""
    return words_digest(f"{word}\t{count}" for word, count in _counts.items())


@st.cache_data(show_spinner=False, max_entries=16)
def word_changes(tok_key: str, ref_key: str, threshold: float, _before, _after, _words) -> dict[int, int]:
    return dict(tokens_per_word_change(_before, _after, _words))


@st.cache_data(show_spinner=False, max_entries=32)
def corpus_stats(segmenter_key: str, corpus_key: str, _segmenter, _lines) -> cm.CorpusStats:
    return stored_stats(_segmenter, corpus_key, lambda: cm.token_counts(_segmenter, _lines))


@st.cache_data(show_spinner=False, max_entries=32)
def count_stats(segmenter_key: str, counts_key: str, _segmenter, _counts: Mapping[str, int]) -> cm.CorpusStats:
    return stored_stats(
        _segmenter, counts_digest(counts_key, _counts), lambda: cm.word_count_stats(_segmenter, _counts)
    )


@st.cache_data(show_spinner=False, max_entries=32)
def renyi_curve(segmenter_key: str, corpus_key: str, _stats) -> list[tuple[float, float]]:
    return [(a, cm.renyi_efficiency(_stats, a)) for a in ALPHAS]


def merge_graph_or_notice(ws, needed_for: str):
    """The workspace on the tokeniser's merge graph (with its caption), or None after a notice."""
    try:  # blame is a property of merges: families without a merge graph get a one-line notice
        graph_ws = ws.with_merge_graph(needed_for)
    except InputError as err:
        st.info(md_escape(err))
        return None
    if graph_ws.graph_note():
        st.caption(md_escape(graph_ws.graph_note()))
    return graph_ws


def corpus_segmenters(ws, threshold: float, extra: list[str]) -> dict[str, tuple[str, object]]:
    """label -> (cache key, segmenter): the workspace tokeniser, its knockout and ReBPE (when it has a
    merge graph) and the ``extra`` shipped tokenisers."""
    name = ws.tokeniser_name
    # every family tokenises; knockout and ReBPE need a merge graph
    segmenters = {name: (cache_keys(ws)[0], ws.tokeniser)}
    graph_ws = merge_graph_or_notice(ws, "Adding the “+ knockout” and “+ ReBPE” rows")
    if graph_ws is not None:
        graph_key, ref_key = cache_keys(graph_ws)
        ko = knockout(graph_ws, threshold)
        repaired = run_on(graph_ws, ReBPEConfig(knockout=KnockoutConfig(threshold=threshold)), "ReBPE").tokeniser
        if graph_ws.merge_graph_of:
            st.caption(
                f"“+ knockout” and “+ ReBPE” edit the merge graph of this {md_escape(graph_ws.merge_graph_of)} "
                "tokeniser and segment with it as BPE."
            )
        segmenters[f"{name} + knockout"] = (f"{graph_key}|{ref_key}|knockout|{threshold}", ko.tokeniser)
        segmenters[f"{name} + ReBPE"] = (f"{graph_key}|{ref_key}|rebpe|{threshold}", repaired)
    for other in extra:
        if other in SAMPLE_TOKENISERS:
            segmenters[other] = (other, sample_tokeniser(SAMPLE_TOKENISERS[other]))
    return segmenters


def tokenise_all(
    segmenters, what: str, corpus_key: str, lines: list[str] | None, counts: Mapping[str, int] | None
) -> dict[str, cm.CorpusStats]:
    """Every segmenter's statistics over the corpus ``lines`` (or, without lines, the word ``counts``),
    with a progress bar; ``corpus_key`` identifies the text's content."""
    progress = st.empty()
    stats: dict[str, cm.CorpusStats] = {}
    for i, (label, (key, segmenter)) in enumerate(segmenters.items()):
        progress.progress(
            i / len(segmenters), text=f"Tokenising {what} with {md_escape(label)} ({i + 1} of {len(segmenters)})…"
        )
        stats[label] = (
            corpus_stats(key, corpus_key, segmenter, lines)
            if lines is not None
            else count_stats(key, corpus_key, segmenter, counts or {})
        )
    progress.empty()
    return stats


def summaries_of(stats: Mapping[str, cm.CorpusStats], alpha: float) -> dict[str, dict]:
    """Each segmenter's summary metrics; those that cannot be summarised are named in a warning."""
    summaries, skipped = {}, []
    for label, s in stats.items():
        try:
            summaries[label] = cm.summary(s, alpha)
        except InputError as err:
            skipped.append(f"{label}: {err}")
    if skipped:
        st.warning("Left out: " + "; ".join(md_escape(s) for s in skipped))
    return summaries
