"""Several browser sessions on one server share loaded tokenisers, traced references and finished
runs (``st.cache_resource``, the LRU stores of ``ui.rebpe_runs``): knockout, ReBPE, the stepper's
run and the blame page's reads, started together in six threads on ONE tokeniser and ONE frozen
reference, give exactly what they give one at a time; what is shared cannot be edited."""

from __future__ import annotations

import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import FrozenInstanceError

import pytest

from core.bpe.model import Merge
from core.edits.blame import compute_blame
from core.edits.diagnostics import threshold_sweep
from core.edits.knockout import knock_out
from core.edits.rebpe import ReBPEConfig, RepairEngine, run_knockout, run_rebpe
from core.edits.reference_state import TokenisedReference
from core.edits.scenarios import scenario_reference_tsv
from core.families.unigram.model import UnigramTokeniser
from core.formats.samples import DUTCH_40K, SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import WhitespaceSplit
from core.references.files import load_references, parse_references
from ui.rebpe_runs import LRUStore, compute_run

THREADS = 6
REBPE = ReBPEConfig(max_iterations=2)  # reparation "limited": a private engine
STEPPER = ReBPEConfig(max_iterations=2, reparation="undo")  # "undo" reads the shared tokeniser's engine
THRESHOLDS = (0.4, 0.5, 0.6)


@pytest.fixture(scope="module")
def references():
    return load_references(SAMPLE_DIR / "references" / "nl_morph.tsv")


def run_facts(steps, final) -> tuple:
    """Everything a run reports but its timings: every step, the final merges and ids."""
    return (
        tuple({k: v for k, v in step.to_json().items() if k != "seconds"} for step in steps),
        final.merges,
        dict(final.type_ids),
    )


def knockout_facts(tokeniser, references) -> tuple:
    run = run_knockout(tokeniser, references.entries)
    return run_facts(run.steps, run.tokeniser)


def rebpe_facts(tokeniser, references) -> tuple:
    run = run_rebpe(tokeniser, references.entries, REBPE)
    return run_facts(run.steps, run.tokeniser)


def stepper_facts(computed) -> tuple:
    return (run_facts(computed.steps, computed.tokeniser), computed.initial, computed.unaligned, computed.words)


def distribution_facts(reference) -> tuple:
    """What the blame page reads from its cached, frozen reference."""
    return (
        {once: dict(reference.blame_totals(once)) for once in (False, True)},
        compute_blame(reference),
        threshold_sweep(reference, THRESHOLDS),
        reference.scores(),
    )


@pytest.mark.slow
def test_sessions_at_once_match_one_at_a_time(references):
    alone = load_tokeniser(DUTCH_40K)
    expected = {
        "knockout": knockout_facts(alone, references),
        "rebpe": rebpe_facts(alone, references),
        "stepper": stepper_facts(compute_run(("run",), alone, references, STEPPER)),
        "distributions": distribution_facts(TokenisedReference(alone, references.entries).freeze()),
    }

    shared = load_tokeniser(DUTCH_40K)  # a fresh one: its lazy indexes and engine are filled concurrently
    frozen = TokenisedReference(shared, references.entries).freeze()
    store, computations = LRUStore(2), []
    start = threading.Barrier(THREADS)

    def stepper_run():
        computations.append(threading.get_ident())
        return compute_run(("run",), shared, references, STEPPER)

    tasks = {
        "knockout": lambda: knockout_facts(shared, references),
        "rebpe": lambda: rebpe_facts(shared, references),
        "stepper": lambda: stepper_facts(store.get_or_compute(("run",), stepper_run)),
        "distributions": lambda: distribution_facts(frozen),
    }
    plan = ["knockout", "knockout", "rebpe", "stepper", "stepper", "distributions"]

    def session(kind: str):
        start.wait(timeout=60)
        return kind, tasks[kind]()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # switch threads far more often than the default 5 ms
    try:
        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(session, plan))
    finally:
        sys.setswitchinterval(interval)

    assert [kind for kind, _ in results] == plan
    for kind, facts in results:
        assert facts == expected[kind], kind
    assert len(computations) == 1  # the two stepper sessions shared one computation
    assert frozen.blame_totals() == expected["distributions"][0][False]


def test_simultaneous_requests_compute_once():
    store, calls, other_waits = LRUStore(2), [], threading.Event()

    def compute():
        calls.append(1)
        assert other_waits.wait(timeout=60)  # the value is stored only once the other thread waits for it
        return object()

    with ThreadPoolExecutor(2) as pool:
        futures = [
            pool.submit(store.get_or_compute, "key", compute, lambda seconds: other_waits.set()) for _ in range(2)
        ]
        first, second = (f.result(timeout=120) for f in futures)
    assert first is second and len(calls) == 1
    assert store.get_or_compute("key", compute) is first and len(calls) == 1


def test_a_failed_computation_lets_a_waiting_session_try_itself():
    store, calls, other_waits = LRUStore(2), [], threading.Event()

    def compute():
        calls.append(1)
        if len(calls) == 1:
            assert other_waits.wait(timeout=60)
            raise ValueError("the first attempt fails")
        return "second"

    with ThreadPoolExecutor(2) as pool:
        futures = [
            pool.submit(store.get_or_compute, "key", compute, lambda seconds: other_waits.set()) for _ in range(2)
        ]
        outcomes = []
        for future in futures:
            try:
                outcomes.append(future.result(timeout=120))
            except ValueError as err:
                outcomes.append(str(err))
    assert sorted(outcomes) == ["second", "the first attempt fails"] and len(calls) == 2


def test_shared_objects_refuse_edits(dutch40k, references):
    scenario = load_tokeniser(SAMPLE_DIR / "scenarios" / "a1_scenario2a.json")  # metadata, no ids
    unigram = UnigramTokeniser({"a": -1.0, "b": -2.0}, WhitespaceSplit(), type_ids={"a": 0, "b": 1}, metadata={"x": 1})
    for tokeniser in (dutch40k, scenario, unigram):
        with pytest.raises(TypeError):
            tokeniser.metadata["source"] = "elsewhere"
        saved = tokeniser.to_json()  # still plain JSON
        assert type(saved["metadata"]) is dict and json.dumps(saved)
    for tokeniser in (dutch40k, unigram):
        with pytest.raises(TypeError):
            tokeniser.type_ids["new"] = 1
        assert type(tokeniser.to_json()["type_ids"]) is dict
    with pytest.raises(TypeError):
        unigram.pieces["c"] = -3.0
    assert "source" not in scenario.metadata and scenario.metadata["knockout"] == "id s"

    assert not hasattr(dutch40k.engine, "replace_merge")  # only reparation's private engine edits itself
    assert isinstance(dutch40k.engine.merges, tuple) and hasattr(RepairEngine, "replace_merge")

    frozen = TokenisedReference(dutch40k, references.entries[:50]).freeze()
    knocked, _ = knock_out(dutch40k, [next(iter(compute_blame(frozen))).result])
    with pytest.raises(TypeError, match="frozen"):
        frozen.update(knocked)
    with pytest.raises(TypeError):
        frozen.blame_totals()[Merge(0, ("a", "b"))] = (1, 1, 1)
    with pytest.raises(TypeError):
        frozen.words[0] = frozen.words[1]
    with pytest.raises(AttributeError):
        next(iter(frozen.index.values())).add(0)
    assert frozen.tokeniser is dutch40k  # the refused update left it as it was

    step = run_knockout(scenario, parse_references(scenario_reference_tsv(scenario), "scenario").entries).steps[0]
    with pytest.raises(TypeError):
        step.origins["x"] = "reified"
    with pytest.raises(FrozenInstanceError):
        step.removed = ()
