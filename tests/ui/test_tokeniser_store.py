"""The process-wide tokeniser store (ui/tokeniser_store.py): a byte budget, not a count."""

from __future__ import annotations

import re
import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from core.edits.archive import _DIGESTS, tokeniser_digest
from core.errors import InputError
from core.formats.samples import scenario_paths, tokeniser_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import APP, clear_streamlit_caches
from ui.tokeniser_store import (
    BUDGET_ENV,
    DEFAULT_BUDGET_MB,
    MB,
    TokeniserStore,
    budget_bytes,
    footprint,
    measured_bytes,
    warm_up,
)

SCENARIOS = scenario_paths()


def scenario(name: str):
    return load_tokeniser(SCENARIOS[name])


@pytest.mark.parametrize("name", ["en-bpe-4k-wordfreq", "nl-bpe-4k-wordfreq"])
def test_the_estimate_is_near_the_measured_memory(name):
    path = tokeniser_paths()[name]
    load_tokeniser(path)  # imports what loading needs, so that the measurement counts the tokeniser only
    tokeniser, measured = measured_bytes(lambda: load_tokeniser(path))
    assert 0.75 <= footprint(tokeniser) / measured <= 1.5, (footprint(tokeniser), measured)


def test_the_budget_bounds_the_total_and_evicts_the_least_recently_used():
    first, second, third = (scenario(n) for n in ("a1_scenario1", "a1_scenario2a", "a1_scenario3a"))
    sizes = [footprint(t) for t in (first, second, third)]
    store = TokeniserStore(sizes[0] + sizes[1] + sizes[2] - 1)
    loads = []

    def loader(tokeniser):
        return lambda: loads.append(tokeniser) or tokeniser

    assert store.get("a", loader(first)) is first
    assert store.get("b", loader(second)) is second
    assert store.get("a", loader(first)) is first  # a hit: "a" is now the most recently used
    assert store.get("c", loader(third)) is third  # over budget: "b" goes
    assert list(store.items) == ["a", "c"] and store.total == sizes[0] + sizes[2] <= store.budget
    assert store.size_of("b") is None and store.size_of("c") == sizes[2]
    assert loads == [first, second, third]
    assert store.get("b", loader(second)) is second and loads[-1] is second  # read again on demand


def test_a_tokeniser_bigger_than_the_budget_is_refused():
    tokeniser = scenario("a1_scenario1")
    store = TokeniserStore(footprint(tokeniser) - 1)
    with pytest.raises(InputError, match=f"needs about .* MB in memory; the server keeps at most .*{BUDGET_ENV}"):
        store.get("a", lambda: tokeniser)
    assert not store.items and not store.loading


def test_a_failed_load_stores_nothing_and_can_be_retried():
    store = TokeniserStore(10 * MB)

    def broken():
        raise InputError("expected a merge", "merges.txt", 1)

    with pytest.raises(InputError):
        store.get("a", broken)
    assert not store.items and not store.loading
    tokeniser = scenario("a1_scenario1")
    assert store.get("a", lambda: tokeniser) is tokeniser


def test_sessions_asking_for_one_file_at_once_load_it_once():
    tokeniser = scenario("a1_scenario1")
    store = TokeniserStore(10 * MB)
    started, release, loads, results = threading.Event(), threading.Event(), [], []

    def slow_load():
        loads.append(1)
        started.set()
        release.wait(5)
        return tokeniser

    threads = [threading.Thread(target=lambda: results.append(store.get("a", slow_load))) for _ in range(2)]
    threads[0].start()
    started.wait(5)
    threads[1].start()
    time.sleep(0.2)  # lets the second session reach the store while the first is loading
    release.set()
    for thread in threads:
        thread.join(5)
    assert loads == [1] and results == [tokeniser, tokeniser]


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    assert budget_bytes() == DEFAULT_BUDGET_MB * MB
    monkeypatch.setenv(BUDGET_ENV, "512")
    assert budget_bytes() == 512 * MB
    for bad in ("0", "-5", "1.5", "lots", "１２"):
        monkeypatch.setenv(BUDGET_ENV, bad)
        with pytest.raises(InputError, match=BUDGET_ENV):
            budget_bytes()


@pytest.fixture
def budget_mb(monkeypatch):
    """Set the server's budget (MB) for one test: the store is made anew with it."""

    def set_budget(megabytes: int) -> None:
        monkeypatch.setenv(BUDGET_ENV, str(megabytes))
        clear_streamlit_caches()

    yield set_budget
    monkeypatch.undo()
    clear_streamlit_caches()


def test_the_workspace_states_the_budget_and_what_the_tokeniser_takes(budget_mb):
    budget_mb(2048)
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["tokeniser"] = "en-bpe-4k-wordfreq"
    at.run()
    assert not at.exception and not at.error
    expected = footprint(load_tokeniser(tokeniser_paths()["en-bpe-4k-wordfreq"])) / MB
    assert any(
        f"this tokeniser takes about {expected:,.1f} MB; the server keeps at most 2,048 MB" in c.value
        for c in at.caption
    )


def test_an_upload_over_the_budget_is_rejected_and_the_old_tokeniser_stays(budget_mb):
    budget_mb(1)
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["tokeniser"] = "a1_scenario1"
    at.run()
    data = tokeniser_paths()["en-bpe-4k-wordfreq"].read_bytes()
    at.file_uploader(key="upload_tokeniser").set_value(("big.json", data, "application/json")).run()
    assert not at.exception
    (error,) = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]
    assert "Rejected, not loaded:** `big.json`" in error and f"at most 1 MB of tokenisers ({BUDGET_ENV})" in error
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario1"


def test_a_stored_tokeniser_has_its_indexes_and_digest_built_in_the_background():
    tokeniser = scenario("a1_scenario1")
    assert "used_by" not in vars(tokeniser) and tokeniser not in _DIGESTS
    warm_up(tokeniser).join(timeout=60)
    assert {"types", "produced_by", "used_by", "merge_index", "engine"} <= set(vars(tokeniser))
    digest = _DIGESTS[tokeniser]
    _DIGESTS.pop(tokeniser)
    assert tokeniser_digest(tokeniser) == digest  # the same digest a page would compute
