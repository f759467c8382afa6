"""Loaded tokenisers, shared by every session and bounded by an estimate of their memory.

One process-wide store (behind ``st.cache_resource``, so tests can clear it) keeps every tokeniser
read from a file (shipped samples, uploads, paths on the server, merge-graph views of other
families) under a content key, least recently used first out once the estimated total exceeds
the budget: :data:`DEFAULT_BUDGET_MB`, or the environment variable :data:`BUDGET_ENV` (whole MB).
A tokeniser larger than the whole budget is refused with an InputError. An evicted tokeniser is
read again when a session needs it (uploads are kept as bytes in the session).

:func:`footprint` estimates a tokeniser's memory once it is in use (merge-graph indexes and the
segmentation engine built) from its merges, types and characters; the constants are fitted to
tracemalloc measurements of real files (:func:`measured_bytes`; ``bench/bench_tokeniser_footprint.py``
prints both for every file at hand).
"""

from __future__ import annotations

import gc
import threading
import tracemalloc
from collections import OrderedDict
from collections.abc import Callable, Hashable

import streamlit as st

from core.bpe.model import BTETokeniser
from core.edits.archive import tokeniser_digest
from core.errors import InputError
from core.tokeniser import Tokeniser
from ui.storage import MB, env_megabytes

DEFAULT_BUDGET_MB = 1536
BUDGET_ENV = "EXPLORER_TOKENISER_CACHE_MB"
# Fitted to 20 real BPE files (GPT-2 to Gemma 3): the estimate is 1.05-1.3 times the measurement.
BYTES_PER_MERGE = 450
BYTES_PER_TYPE = 300  # also about what a Unigram piece takes (8k-piece SentencePiece models: 0.9x)
BYTES_PER_CHAR = 2  # long token strings: each is kept about twice (vocabulary, merge results)
BASE_BYTES = 64 * 1024
IN_USE = ("types", "produced_by", "used_by", "merge_index", "engine")  # built lazily, by the pages


def budget_bytes() -> int:
    """The budget: ``$EXPLORER_TOKENISER_CACHE_MB`` megabytes, else :data:`DEFAULT_BUDGET_MB`."""
    return env_megabytes(BUDGET_ENV, DEFAULT_BUDGET_MB)


def footprint(tokeniser: Tokeniser) -> int:
    """Estimated bytes of ``tokeniser`` in use, from its merges, types and their characters."""
    vocabulary = tokeniser.vocabulary
    merges = len(getattr(tokeniser, "merges", ()) or ())
    return (
        BASE_BYTES
        + BYTES_PER_MERGE * merges
        + BYTES_PER_TYPE * len(vocabulary)
        + BYTES_PER_CHAR * sum(map(len, vocabulary))
    )


def warm_up(tokeniser: Tokeniser) -> threading.Thread:
    """Build, in a background thread, the indexes the pages need first (merge-graph indexes, the
    segmentation engine, the content digest that keys stored results), so that a page opened after a
    large file was loaded finds them built. Each is computed once per object (a page asking for one
    meanwhile waits for it or builds an equal one)."""

    def build() -> None:
        for name in IN_USE:
            getattr(tokeniser, name, None)
        if isinstance(tokeniser, BTETokeniser):
            tokeniser_digest(tokeniser)

    thread = threading.Thread(target=build, name="tokeniser-warm-up", daemon=True)
    thread.start()
    return thread


def measured_bytes(load: Callable[[], Tokeniser]) -> tuple[Tokeniser, int]:
    """``load()`` and the bytes tracemalloc sees it keep once in use (what :func:`footprint`
    estimates). Slow (tracing): for calibration, tests and benchmarks. Call ``load()`` once before,
    so that the modules it imports are not counted."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tokeniser = load()
        tokeniser.tokenise_word("hello")
        for name in IN_USE:
            getattr(tokeniser, name, None)
        gc.collect()
        return tokeniser, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


class TokeniserStore:
    """A thread-safe LRU map of tokenisers whose estimated bytes stay within ``budget``. Each key
    is loaded once at a time (sessions asking for the same file wait for one load)."""

    def __init__(self, budget: int):
        self.budget = budget
        self.items: OrderedDict[Hashable, tuple[Tokeniser, int]] = OrderedDict()
        self.lock = threading.Lock()
        self.loading: dict[Hashable, threading.Lock] = {}

    @property
    def total(self) -> int:
        return sum(size for _, size in self.items.values())

    def size_of(self, key: Hashable) -> int | None:
        found = self.items.get(key)
        return None if found is None else found[1]

    def _hit(self, key: Hashable) -> Tokeniser | None:
        with self.lock:
            found = self.items.get(key)
            if found is None:
                return None
            self.items.move_to_end(key)
            return found[0]

    def get(self, key: Hashable, load: Callable[[], Tokeniser]) -> Tokeniser:
        """The tokeniser under ``key``, loaded by ``load()`` on a miss (its errors propagate).
        Raises InputError for one whose estimate exceeds the whole budget."""
        found = self._hit(key)
        if found is not None:
            return found
        with self.lock:
            key_lock = self.loading.setdefault(key, threading.Lock())
        with key_lock:
            found = self._hit(key)
            if found is not None:
                return found
            try:
                tokeniser = load()
                size = footprint(tokeniser)
                if size > self.budget:
                    raise InputError(
                        f"this tokeniser needs about {size / MB:,.1f} MB in memory; the server "
                        f"keeps at most {self.budget / MB:,.0f} MB of tokenisers ({BUDGET_ENV})"
                    )
                with self.lock:
                    self.items[key] = (tokeniser, size)
                    while self.total > self.budget:
                        self.items.popitem(last=False)
                warm_up(tokeniser)
            finally:
                with self.lock:
                    self.loading.pop(key, None)
            return tokeniser


@st.cache_resource(show_spinner=False)
def store() -> TokeniserStore:
    """The process-wide store (one per server; cleared with the Streamlit caches)."""
    return TokeniserStore(budget_bytes())
