"""Cached training of any tokeniser family on the workspace corpus, shared by the Train & compare
and Training dynamics pages (a run trained on one page is instant on the other)."""

from __future__ import annotations

import hashlib
import time

import streamlit as st

from core.analysis import corpus_metrics as cm
from core.deadline import EXPLORER_SECONDS, Deadline
from core.errors import InputError
from core.families import registry
from core.families.base import TrainingRun
from ui.rebpe_runs import LRUStore
from ui.worker_process import Send, in_worker
from ui.workspace import current


def training_lines() -> list[str]:
    """Every line of the workspace corpus; the page stops with a hint when there are none."""
    lines = current(notices=False).corpus_lines()  # the page called current() first
    if not lines:
        st.info("The corpus has no lines: choose another one on the Workspace page.")
        st.stop()
    return lines


def algorithms_help(names: list[str]) -> str:
    """A widget's help text: one line per tokeniser family."""
    return "\n".join(f"- **{a}**: {registry.ALGORITHMS[a][2]}" for a in names)


def corpus_key(corpus_name: str, lines: list[str]) -> str:
    return f"{corpus_name}@{hashlib.sha1(chr(10).join(lines).encode('utf-8', 'replace')).hexdigest()[:12]}"


MAX_RUNS = 48


@st.cache_resource(show_spinner=False)
def _run_store() -> LRUStore:
    return LRUStore(MAX_RUNS)


def trained(
    algorithm: str, key: str, vocab_size: int, lines: list[str], started: float, progress=None, waiting=None
) -> tuple[TrainingRun, float]:
    """(run, training seconds) of ``algorithm`` on ``lines`` (``key`` identifies them), computed
    once per process in a worker process (``ui.worker_process``), even when several sessions ask at
    once (``waiting(seconds)`` is called while another session trains it); the training stops with an
    InputError ``EXPLORER_SECONDS`` after ``started`` (``time.monotonic``), and ``progress(done, total)``
    hears of it meanwhile. Not an ``st.cache_resource`` function: ``progress`` draws live elements,
    which a cached function would have to replay on every hit."""

    def work(send: Send) -> tuple[TrainingRun, float]:
        corpus = registry.training_corpus(algorithm, lines)
        began = time.perf_counter()
        deadline = Deadline(EXPLORER_SECONDS, lambda done, total: send("progress", done, total), started=started)
        run = registry.train(algorithm, corpus, vocab_size, progress=deadline)
        return run, time.perf_counter() - began

    def compute() -> tuple[TrainingRun, float]:
        return in_worker(work, {"progress": progress or (lambda done, total: None)})

    return _run_store().get_or_compute((algorithm, key, vocab_size), compute, waiting)


@st.cache_resource(show_spinner=False, max_entries=48)
def corpus_stats(algorithm: str, key: str, vocab_size: int, _tokeniser, _lines: list[str]) -> cm.CorpusStats:
    return cm.token_counts(_tokeniser, _lines)


def train_with_progress(
    algorithms: list[str], key: str, size: int, lines: list[str]
) -> dict[str, tuple[TrainingRun, float]]:
    """Train each algorithm (cached) under one progress bar; a failure is a warning, not a traceback."""
    runs = {}
    bar = st.empty()
    started = time.monotonic()  # one budget for the whole page run
    for i, algorithm in enumerate(algorithms):

        def progress(done: int, total: int, i=i, algorithm=algorithm) -> None:
            share = min(1.0, done / total) if total else 0.0  # total 0: not known yet
            bar.progress(
                (i + share) / len(algorithms),
                text=f"Training {algorithm} ({i + 1} of {len(algorithms)}): {done:,} of {total:,}",
            )

        def waiting(seconds: float, i=i, algorithm=algorithm) -> None:
            bar.progress(
                i / len(algorithms),
                text=f"Another session is training {algorithm} on this corpus; "
                f"waiting for it ({seconds:.0f} s so far)…",
            )

        bar.progress(i / len(algorithms), text=f"Training {algorithm} ({i + 1} of {len(algorithms)})…")
        try:
            runs[algorithm] = trained(algorithm, key, size, lines, started, progress, waiting)
        except InputError as err:
            st.warning(f"{algorithm}: {err}")
    bar.empty()
    return runs
