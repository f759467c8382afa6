"""Long computations in a worker process (ui/worker_process.py, issue 32 point 3): the result and the
progress messages come back, errors keep their type, the child is killed when its run is stopped
(time budget, or a memory budget measured on the child) and when it is over, and a result stored
through ``result_cache.through_worker`` is the same as one computed in the server. Timings only
bound hangs."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from types import MappingProxyType

import pytest

from core.edits.archive import NotArchivable
from core.edits.rebpe import ReBPEConfig
from core.errors import InputError
from core.formats.samples import SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references
from ui import result_cache
from ui.rebpe_runs import ComputedRun, compute_run, knockout_config, stored_run_in_worker
from ui.request_budget import MB_ENV, WATCHDOG, Budget
from ui.worker_process import WORKERS_ENV, forking, in_worker

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="worker processes need fork (Linux)")
HANG = 60  # seconds: only a hang takes this long


@pytest.fixture(autouse=True)
def workers_on(monkeypatch):
    """Worker processes as shipped (tests/conftest.py turns them off for the other tests)."""
    monkeypatch.setenv(WORKERS_ENV, "")
    assert forking()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_work_runs_in_another_process_and_its_messages_arrive_in_order():
    heard = []

    def work(send):
        for i in range(5):
            send("step", i, f"#{i}")
        return {"pid": os.getpid(), "view": MappingProxyType({"a": 1})}

    result = in_worker(work, {"step": lambda i, label: heard.append((i, label))})
    assert result["pid"] != os.getpid()
    assert heard == [(i, f"#{i}") for i in range(5)]
    assert dict(result["view"]) == {"a": 1} and isinstance(result["view"], MappingProxyType)  # read-only views pickle


def test_an_input_error_comes_back_as_the_users_message():
    def work(send):
        raise InputError("no merges in this file", "merges.txt", 3)

    with pytest.raises(InputError, match=r"merges\.txt:3: no merges in this file"):
        in_worker(work)


def test_another_error_keeps_its_type_and_its_traceback_is_logged(caplog):
    def work(send):
        return {}["missing"]

    with caplog.at_level(logging.ERROR, logger="ui.worker_process"), pytest.raises(KeyError, match="missing"):
        in_worker(work)
    assert "in a worker process" in caplog.text and 'return {}["missing"]' in caplog.text


def test_a_child_that_dies_is_an_error_not_a_hang():
    with pytest.raises(RuntimeError, match="ended without a result"):
        in_worker(lambda send: os._exit(3))


def test_a_child_over_the_memory_budget_is_killed_and_the_message_names_the_budget(monkeypatch, tmp_path):
    monkeypatch.setenv(MB_ENV, "64")
    pid_file = tmp_path / "pid"

    def hoard(send):
        # A file, not a message: a child killed at once may leave its last messages unread.
        pid_file.write_text(str(os.getpid()))
        chunks = []
        while True:
            chunks.append(bytearray(4 << 20))

    started = time.monotonic()
    with pytest.raises(InputError, match=r"added [\d,]+ MB in its worker process, over .* 64 MB"):
        in_worker(hoard)
    assert time.monotonic() - started < HANG
    assert not alive(int(pid_file.read_text()))


def test_inside_a_run_the_memory_stop_is_the_runs_and_the_boundary_shows_its_reason():
    outcome: dict = {}

    def hoard(send):
        chunks = []
        while True:
            chunks.append(bytearray(4 << 20))

    def page() -> None:
        try:
            with WATCHDOG.limit(Budget(HANG, 64)) as run:
                in_worker(hoard)
            outcome["reason"] = run.reason
        except BaseException as escaped:  # whatever escapes is the failure
            outcome["escaped"] = repr(escaped)

    thread = threading.Thread(target=page, daemon=True)
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive() and "escaped" not in outcome, outcome
    assert "in its worker process, over the explorer's budget per request" in outcome["reason"]


def test_a_run_stopped_by_its_time_budget_kills_its_child(tmp_path):
    outcome: dict = {}
    pid_file = tmp_path / "pid"

    def forever(send):
        pid_file.write_text(str(os.getpid()))
        while True:
            time.sleep(0.01)

    def page() -> None:
        with WATCHDOG.limit(Budget(0.5, 1e9)) as run:
            in_worker(forever)
        outcome["reason"] = run.reason

    thread = threading.Thread(target=page, daemon=True)
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive()
    assert "ran for more than 0.5 s" in outcome["reason"]
    if pid_file.exists():  # else it was killed before its first line (a loaded machine): it never writes now
        assert not alive(int(pid_file.read_text()))


def test_without_fork_the_work_runs_here_with_the_same_messages(monkeypatch):
    monkeypatch.setenv("EXPLORER_WORKERS", "off")
    heard = []
    assert in_worker(lambda send: (send("x", 1), os.getpid())[1], {"x": heard.append}) == os.getpid()
    assert heard == [1]


@pytest.fixture(scope="module")
def nl4k():
    return load_tokeniser(SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json")


@pytest.fixture(scope="module")
def nl_morph():
    return load_references(SAMPLE_DIR / "references" / "nl_morph.tsv")


def same_run(a: ComputedRun, b: ComputedRun) -> bool:
    """Every step's phase, changes and tokeniser, the scores and words (not the seconds taken)."""
    steps = [(s.phase, s.iteration, s.removed, s.added, s.tokeniser.to_json()) for s in a.steps]
    return (
        steps == [(s.phase, s.iteration, s.removed, s.added, s.tokeniser.to_json()) for s in b.steps]
        and (a.initial, a.unaligned, a.words) == (b.initial, b.unaligned, b.words)
        and a.tokeniser.to_json() == b.tokeniser.to_json()
    )


@pytest.mark.parametrize("config", [knockout_config(), ReBPEConfig()], ids=["knockout", "rebpe"])
def test_a_run_computed_in_a_worker_is_the_run_computed_here_and_is_kept_on_disk(
    nl4k, nl_morph, config, tmp_path, monkeypatch
):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))  # an empty disk cache, no precomputed results
    monkeypatch.setattr(result_cache, "PRECOMPUTED_DIR", tmp_path / "no-precomputed")
    heard, shown = [], []

    @contextlib.contextmanager
    def progress_box():
        shown.append(True)
        yield {
            "traced": lambda words, f1: heard.append(("traced", words, f1)),
            "progress": lambda iteration, removed: heard.append(("progress", iteration, removed)),
            "on_phase": lambda phase, iteration: heard.append(("phase", phase, iteration)),
        }

    expected = compute_run(("here",), nl4k, nl_morph, config)
    run = stored_run_in_worker(("w",), nl4k, nl_morph, config, progress_box)
    assert run.start is nl4k and same_run(run, expected)
    assert shown == [True] and heard[0] == ("traced", len(expected.words), expected.initial.f1)
    knockouts = [(s.iteration, len(s.removed)) for s in expected.steps if s.phase == "knockout"]
    assert [(i, n) for kind, i, n in heard if kind == "progress"] == knockouts
    assert list((tmp_path / "results").glob("*.json.gz"))  # the worker kept it on disk

    def no_compute(*args, **kwargs):
        raise AssertionError("computed again")

    monkeypatch.setattr("ui.rebpe_runs.compute_run", no_compute)
    again = stored_run_in_worker(("w",), nl4k, nl_morph, config, progress_box)  # read from the disk cache
    assert same_run(again, expected) and shown == [True]


def test_a_result_the_archive_cannot_hold_comes_back_pickled_and_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))

    def refuse(value):
        raise NotArchivable("no")

    pid = result_cache.through_worker("run", "b" * 64, lambda send: os.getpid(), refuse, lambda obj: obj)
    assert pid != os.getpid()  # computed in the child, and its value came back
    assert not list((tmp_path / "results").glob("*" + result_cache.SUFFIX))
