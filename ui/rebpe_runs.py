"""Knockout / ReBPE runs and blocked-merge scans for the pages, computed once and shared.

Streamlit glue around core (no algorithm here). A run on the Dutch 40k tokeniser takes seconds,
so it is computed once per (tokeniser, reference, configuration) and kept in a small
process-wide LRU store (behind ``st.cache_resource``, so tests can clear it). Behind the memory,
runs, blocked-merge scans and reparations go through ``ui.result_cache``: precomputed for the
shipped samples, else kept on disk across server restarts, keyed by the content of their inputs
(``core.edits.archive``), and computed only when neither has them. ``cached_run`` is not a
``@st.cache_resource`` function itself because the first computation reports live progress
(one line per iteration) and a cached function would replay those elements on every hit.
Everything stored is shared by every browser session, so it is immutable: a finished run keeps
its step reports and tokenisers (frozen), never the live ``Run`` with its traced reference. Two
sessions asking for the same run at once compute it once (:meth:`LRUStore.get_or_compute`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from types import MappingProxyType

import streamlit as st

from core.bpe.model import BTETokeniser
from core.edits.archive import (
    ReparationParts,
    RunParts,
    blocked_from_json,
    content_key,
    derived_digest,
    references_digest,
    reparation_from_json,
    reparation_to_json,
    run_from_json,
    run_to_json,
    tokeniser_digest,
    words_digest,
)
from core.edits.blocked import BlockedReport, find_blocked_merges
from core.edits.rebpe import KnockoutConfig, ReBPEConfig, repair, run_rebpe
from core.edits.reference_state import TokenisedReference
from core.edits.scenarios import scenario_reference_tsv
from core.edits.step_changes import segmentation_changes
from core.edits.steps import StepReport
from core.references.evaluation import MorphScores
from core.references.files import ReferenceSet, parse_references
from ui import result_cache
from ui.worker_process import Send

MAX_RUNS = 3  # a ReBPE run on the Dutch 40k keeps ~21 tokenisers: about 300 MB


def knockout_config(threshold: float = 0.5) -> ReBPEConfig:
    """Plain BPE-knockout as a ReBPE configuration, as ``core.edits.rebpe.run_knockout`` runs it."""
    return ReBPEConfig(knockout=KnockoutConfig(threshold=threshold), reify=False, max_iterations=1)


KNOCKOUT_ONLY = knockout_config()


@dataclass(frozen=True)
class ComputedRun:
    """A finished run with what the pages need next to it (all immutable)."""

    key: tuple
    start: BTETokeniser  # the tokeniser as loaded (step 0)
    steps: tuple[StepReport, ...]
    tokeniser: BTETokeniser  # the tokeniser after the last step
    initial: MorphScores  # metrics before any phase
    seconds: float
    unaligned: tuple[str, ...]  # reference words the pre-tokeniser could not align (skipped)
    words: tuple[str, ...]  # the reference words, in order

    def tokeniser_at(self, index: int) -> BTETokeniser:
        """The tokeniser after step ``index`` (0: as loaded)."""
        return self.start if index <= 0 else self.steps[index - 1].tokeniser

    def origins_before(self, index: int) -> Mapping[str, str]:
        """Merge origins just before step ``index`` (>= 1)."""
        return self.steps[index - 2].origins if index >= 2 else MappingProxyType({})

    def parts(self) -> RunParts:
        """What an archive keeps of the run (``core.edits.archive``)."""
        return RunParts(self.steps, self.tokeniser, self.initial, self.seconds, self.unaligned, self.words)


def run_content_key(tokeniser: BTETokeniser, references: ReferenceSet, config: ReBPEConfig) -> str:
    """The key of a run on disk and among the precomputed results: the contents, not the names."""
    return content_key("run", tokeniser_digest(tokeniser), references_digest(references.entries), repr(config))


def run_codec(key: tuple, tokeniser: BTETokeniser) -> tuple[Callable, Callable]:
    """(encode, decode) of a run on ``tokeniser`` as an archive body."""
    return (
        lambda run: run_to_json(tokeniser, run.parts()),
        lambda obj: ComputedRun(key, tokeniser, *run_from_json(obj, tokeniser)),
    )


def stored_run(
    key: tuple,
    tokeniser: BTETokeniser,
    references: ReferenceSet,
    config: ReBPEConfig,
    compute: Callable[[], ComputedRun],
) -> ComputedRun:
    """The run from the precomputed results or the disk cache, else ``compute()``'s (then kept on
    disk). Its final tokeniser is digested by how it was made (blocked-merge scans are keyed by it)."""
    content = run_content_key(tokeniser, references, config)
    return marked(result_cache.through("run", content, compute, *run_codec(key, tokeniser)), content)


def stored_run_in_worker(
    key: tuple,
    tokeniser: BTETokeniser,
    references: ReferenceSet,
    config: ReBPEConfig,
    shown: Callable[[], AbstractContextManager[Mapping[str, Callable[..., None]]]],
) -> ComputedRun:
    """:func:`stored_run` computed in a worker process (``result_cache.through_worker``): ``shown()``
    handles its messages ``traced(words, f1)``, ``progress(iteration, merges removed)`` and
    ``on_phase(phase, iteration)``."""

    def compute(send: Send) -> ComputedRun:
        return compute_run(
            key,
            tokeniser,
            references,
            config,
            traced=lambda initial: send("traced", len(initial.words), initial.scores().f1),
            progress=lambda iteration, knocked: send("progress", iteration, len(knocked.removed)),
            on_phase=lambda phase, iteration: send("on_phase", phase, iteration),
        )

    content = run_content_key(tokeniser, references, config)
    encode, decode = run_codec(key, tokeniser)
    return marked(result_cache.through_worker("run", content, compute, encode, decode, shown), content)


def marked(computed: ComputedRun, content: str) -> ComputedRun:
    """``computed`` with its final tokeniser digested by how it was made (the run's content key), so
    blocked-merge scans and reparations of it are keyed without a digest of its whole content."""
    derived_digest(computed.tokeniser, "run", content)
    return computed


def compute_run(
    key: tuple,
    tokeniser: BTETokeniser,
    references: ReferenceSet,
    config: ReBPEConfig,
    *,
    traced: Callable[[TokenisedReference], None] | None = None,
    progress: Callable[[int, StepReport], None] | None = None,
    on_phase: Callable[[str, int], None] | None = None,
) -> ComputedRun:
    """The run itself, without Streamlit: ``traced`` is told the reference as traced before any
    phase, ``progress`` every iteration's knockout step, ``on_phase`` every phase as it starts (see
    ``core.edits.rebpe.run_rebpe``)."""
    started = time.perf_counter()
    entries = list(references.entries)
    initial = TokenisedReference(tokeniser, entries)
    if traced is not None:
        traced(initial)
    run = run_rebpe(tokeniser, entries, config, progress=progress, on_phase=on_phase)
    return ComputedRun(
        key,
        tokeniser,
        tuple(run.steps),
        run.tokeniser,
        initial.scores(),
        time.perf_counter() - started,
        tuple(initial.unaligned),
        tuple(e.word for e in entries),
    )


class _Flight:
    """One computation under way: the others asking for its key wait on ``done``."""

    def __init__(self):
        self.done = threading.Event()
        self.value = None


class LRUStore:
    """A small thread-safe LRU map, process-wide when kept behind ``st.cache_resource``, that
    computes a missing value once however many threads ask for it at the same time."""

    WAIT_TICK = 1.0  # seconds between two calls of a waiting thread's ``waiting``

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[tuple, object] = OrderedDict()
        self.lock = threading.Lock()
        self._flights: dict[tuple, _Flight] = {}

    def put(self, key, value) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def peek(self, key):
        """The value kept for ``key``, or None (nothing is computed)."""
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def get_or_compute(self, key, compute: Callable[[], object], waiting: Callable[[float], None] | None = None):
        """The value for ``key``; if missing, ``compute()`` runs in exactly one of the threads
        asking for it, and the others wait for its value, calling ``waiting(seconds waited)``
        now and then (to say so, and to let Streamlit stop a script whose user left). When the
        computation fails, its thread gets the error and each waiting thread tries itself."""
        while True:
            with self.lock:
                value = self.items.get(key)
                if value is not None:
                    self.items.move_to_end(key)
                    return value
                flight = self._flights.get(key)
                mine = flight is None
                if mine:
                    flight = self._flights[key] = _Flight()
            if mine:
                try:
                    flight.value = compute()
                    self.put(key, flight.value)
                    return flight.value
                finally:
                    with self.lock:
                        del self._flights[key]
                    flight.done.set()
            started = time.perf_counter()
            while True:
                if waiting is not None:
                    waiting(time.perf_counter() - started)
                if flight.done.wait(self.WAIT_TICK):
                    break
            if flight.value is not None:
                return flight.value


@st.cache_resource(show_spinner=False)
def _run_store() -> LRUStore:
    return LRUStore(MAX_RUNS)


def run_key(
    tokeniser_key: str, tokeniser: BTETokeniser, reference_key: str, references: ReferenceSet, config: ReBPEConfig
) -> tuple:
    """A cheap key: the workspace's content keys (names, plus a digest for uploads), sizes as a
    safety net, and the frozen configuration."""
    return (
        tokeniser_key,
        len(tokeniser.merges),
        len(tokeniser.alphabet),
        reference_key,
        len(references.entries),
        config,
    )


def cached_run(
    tokeniser_name: str,
    tokeniser: BTETokeniser,
    reference_name: str,
    references: ReferenceSet,
    config: ReBPEConfig,
    label: str = "ReBPE",
    *,
    tokeniser_key: str = "",
    reference_key: str = "",
) -> ComputedRun:
    """The run for these inputs; computed on first use with a live progress box. The keys default to
    the names (``ui.workspace.Workspace.tokeniser_key`` also tells uploads of the same name apart)."""
    key = run_key(tokeniser_key or tokeniser_name, tokeniser, reference_key or reference_name, references, config)
    kept = _run_store().peek(key)
    if kept is not None:  # the usual case: nothing to say, no placeholder to flash
        return kept
    holder = st.empty()
    # Reading a stored run first digests the tokeniser (a second or more for 200k types): say so at once.
    holder.caption(f"Looking for a stored {label} run on {tokeniser_name} with these settings…")

    @contextlib.contextmanager
    def shown() -> Iterator[dict[str, Callable[..., None]]]:
        with (
            holder.container(),
            st.status(
                f"Running {label} on {tokeniser_name} with {len(references.entries):,} reference words…", expanded=True
            ) as status,
        ):
            started = time.perf_counter()

            def traced(words: int, f1: float) -> None:
                st.write(f"Traced the reference ({words:,} words): F1 = {100 * f1:.2f} %")

            def progress(iteration: int, removed: int) -> None:
                st.write(
                    f"Iteration {iteration}: knockout removed {removed:,} merges "
                    f"({time.perf_counter() - started:.1f} s so far)"
                )

            def on_phase(phase: str, iteration: int) -> None:
                where = f"iteration {iteration} · " if iteration else ""
                status.update(
                    label=f"Running {label} on {tokeniser_name}: {where}{phase}… "
                    f"({time.perf_counter() - started:.0f} s so far)"
                )

            yield {"traced": traced, "progress": progress, "on_phase": on_phase}
            status.update(label=f"{label} done", state="complete")

    def load_or_compute() -> ComputedRun:
        return stored_run_in_worker(key, tokeniser, references, config, shown)

    def waiting(seconds: float) -> None:
        holder.info(
            f"Another session is running {label} on {tokeniser_name} with these settings; "
            f"this page shows it as soon as it is done ({seconds:.0f} s so far)…",
            icon=":material/group:",
        )

    try:
        return _run_store().get_or_compute(key, load_or_compute, waiting)
    finally:
        holder.empty()


@st.cache_resource(show_spinner=False, max_entries=8)
def _scenario_references(name: str, tsv: str) -> ReferenceSet:
    return parse_references(tsv, f"{name} (scenario words)", format="tsv")


def scenario_references(name: str, tokeniser: BTETokeniser) -> ReferenceSet | None:
    """The small reference of a teaching scenario (:func:`core.edits.scenarios.scenario_reference_tsv`)."""
    tsv = scenario_reference_tsv(tokeniser)
    return _scenario_references(name, tsv) if tsv else None


def blocked_content_key(tokeniser: BTETokeniser, words: Sequence[str]) -> str:
    return content_key("blocked", tokeniser_digest(tokeniser), words_digest(words))


def stored_blocked_report(tokeniser: BTETokeniser, words: Sequence[str]) -> BlockedReport:
    """:func:`core.edits.blocked.find_blocked_merges` through the precomputed results and the disk cache
    (computed in a worker process)."""
    return result_cache.through_worker(
        "blocked",
        blocked_content_key(tokeniser, words),
        lambda send: find_blocked_merges(tokeniser, list(words)),
        BlockedReport.to_json,
        blocked_from_json,
    )


@st.cache_resource(show_spinner="Looking for blocked merges (LIMITEDBPE on every merge)…", max_entries=8)
def blocked_report(key: tuple, _tokeniser: BTETokeniser, _words: Sequence[str]) -> BlockedReport:
    return stored_blocked_report(_tokeniser, _words)


#: (tokeniser, repaired: (merge before, merge after) pairs, changed_words: (word, before, after), blocked_after)
Reparation = ReparationParts


def compute_reparation(tokeniser: BTETokeniser, mode: str, words: Sequence[str]) -> Reparation:
    """[rebpe Alg. 2 lines 2-15] on ``tokeniser``, the words it re-segments and what stays blocked."""
    repaired_tokeniser, repaired = repair(tokeniser, mode)
    changed = segmentation_changes(tokeniser, repaired_tokeniser, words)
    return Reparation(
        repaired_tokeniser, tuple(repaired), tuple(changed), find_blocked_merges(repaired_tokeniser, list(words))
    )


def reparation_content_key(tokeniser: BTETokeniser, mode: str, words: Sequence[str]) -> str:
    return content_key("reparation", tokeniser_digest(tokeniser), words_digest(words), mode)


def stored_reparation(tokeniser: BTETokeniser, mode: str, words: Sequence[str]) -> Reparation:
    """:func:`compute_reparation` through the precomputed results and the disk cache (computed in a
    worker process)."""
    key = reparation_content_key(tokeniser, mode, words)
    result = result_cache.through_worker(
        "reparation",
        key,
        lambda send: compute_reparation(tokeniser, mode, words),
        lambda done: reparation_to_json(tokeniser, done),
        lambda obj: reparation_from_json(obj, tokeniser),
    )
    derived_digest(result.tokeniser, "reparation", key)
    return result


@st.cache_resource(show_spinner="Applying reparation and re-segmenting the reference…", max_entries=8)
def reparation(key: tuple, mode: str, _tokeniser: BTETokeniser, _words: Sequence[str]) -> Reparation:
    return stored_reparation(_tokeniser, mode, _words)


def references_for(workspace, prefer_workspace: bool = False) -> tuple[ReferenceSet, str, ReferenceSet | None]:
    """(references, their name, the scenario's own references or None) for a page's run: a teaching
    scenario uses its own two words unless ``prefer_workspace``; anything else the workspace's."""
    scenario = scenario_references(workspace.tokeniser_name, workspace.tokeniser)
    if scenario is not None and not prefer_workspace:
        return scenario, f"scenario:{workspace.tokeniser_name}", scenario
    return workspace.references, workspace.reference_name, scenario


def workspace_keys(workspace, reference_name: str) -> dict[str, str]:
    """``tokeniser_key`` / ``reference_key`` for :func:`cached_run` from the workspace (content keys
    when it has them) and the reference actually used."""
    tokeniser_key = getattr(workspace, "tokeniser_key", "") or workspace.tokeniser_name
    reference_key = (
        getattr(workspace, "reference_key", "") or workspace.reference_name
        if reference_name == workspace.reference_name
        else reference_name
    )
    return {"tokeniser_key": tokeniser_key, "reference_key": reference_key}
