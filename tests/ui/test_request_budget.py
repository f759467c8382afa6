"""The budget per request (ui/request_budget.py): a run over its time or memory is stopped with a
reason and its memory freed; a finished run is never interrupted; a run beside it goes on; the
error boundary shows the reason and keeps what the user loaded. Timings only bound hangs."""

from __future__ import annotations

import random
import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from ui.request_budget import (
    MB,
    MB_ENV,
    REQUEST_MB,
    REQUEST_SECONDS,
    SECONDS_ENV,
    Budget,
    Watchdog,
    resident_bytes,
)

HANG = 60  # seconds: only a hang takes this long
ENDLESS = 1e9  # a budget never reached
POLL = 0.01


def busy(seconds: float) -> int:
    """A Python loop for ``seconds`` (no C call long enough to delay a stop)."""
    ends, n = time.monotonic() + seconds, 0
    while time.monotonic() < ends:
        n += 1
    return n


def endless_loop() -> None:
    n = 0
    while True:
        n += 1


def hoard() -> None:
    """Allocate in a Python loop until stopped (a local of this frame, as a page's would be)."""
    chunks = []
    while True:
        chunks.append(b"x" * (64 * 1024))


def in_thread(target) -> None:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive(), "the run was not stopped"


def limited_run(watchdog: Watchdog, budget: Budget, body, outcome: dict):
    """A thread body: ``body`` under ``budget``; ``outcome`` gets the run's reason, or what escaped."""

    def target() -> None:
        try:
            with watchdog.limit(budget) as run:
                body()
            outcome["reason"] = run.reason
        except BaseException as escaped:  # whatever escapes is the failure
            outcome["escaped"] = repr(escaped)

    return target


def test_a_python_loop_is_stopped_by_the_time_budget():
    outcome: dict = {}
    in_thread(limited_run(Watchdog(POLL), Budget(0.3, ENDLESS), endless_loop, outcome))
    assert "escaped" not in outcome
    assert "This view was stopped: it ran for more than 0.3 s" in outcome["reason"]


def test_a_loop_allocating_memory_is_stopped_and_its_memory_freed():
    before = resident_bytes()
    outcome: dict = {}
    in_thread(limited_run(Watchdog(POLL), Budget(ENDLESS, 64), hoard, outcome))
    assert "escaped" not in outcome
    assert "to the server's memory" in outcome["reason"] and "(1e+09 s, 64 MB)" in outcome["reason"]
    assert resident_bytes() - before < 64 * MB


def test_a_finished_run_is_never_interrupted_later():
    """Runs that end about when their budget does (some are stopped, some finish just in time),
    each followed by work outside any budget: nothing may ever land outside a run."""
    watchdog, seconds = Watchdog(0.002), 0.02
    outcome: dict = {"reasons": []}
    pace = random.Random(32)

    def target() -> None:
        try:
            for _ in range(60):
                with watchdog.limit(Budget(seconds, ENDLESS)) as run:
                    busy(seconds * pace.uniform(0.5, 1.5))
                outcome["reasons"].append(run.reason)
                busy(seconds)
            busy(5 * seconds)
        except BaseException as escaped:  # whatever escapes is the failure
            outcome["escaped"] = repr(escaped)

    in_thread(target)
    assert "escaped" not in outcome and len(outcome["reasons"]) == 60


def test_a_nested_limit_adds_nothing_and_the_outer_one_stops():
    watchdog = Watchdog(POLL)
    outcome: dict = {}

    def body() -> None:
        with watchdog.limit(Budget(ENDLESS, ENDLESS)) as inner:
            outcome["inner"] = inner
            endless_loop()

    in_thread(limited_run(watchdog, Budget(0.3, ENDLESS), body, outcome))
    assert outcome["inner"] is None and "ran for more than 0.3 s" in outcome["reason"]


@pytest.mark.parametrize("hostile", ["time", "memory"])
def test_of_two_concurrent_runs_only_the_offending_one_is_stopped(hostile):
    """The calm run starts first and lasts longer, so the hostile run's memory grows within both."""
    watchdog = Watchdog(POLL)
    calm: dict = {}
    wild: dict = {}
    wild_done = threading.Event()

    def calm_body() -> None:
        wild_thread.start()
        wild_done.wait(HANG)
        busy(0.3)  # after the clean-up: still measured from the RSS it left

    budget = Budget(0.3, ENDLESS) if hostile == "time" else Budget(ENDLESS, 64)
    wild_target = limited_run(watchdog, budget, endless_loop if hostile == "time" else hoard, wild)
    wild_thread = threading.Thread(target=lambda: (wild_target(), wild_done.set()), daemon=True)
    in_thread(limited_run(watchdog, Budget(ENDLESS, 64), calm_body, calm))
    wild_thread.join(HANG)
    assert "escaped" not in wild and wild["reason"], wild
    assert calm == {"reason": ""}


def test_memory_seen_by_two_runs_stops_the_later_one_even_when_the_earlier_crosses_first():
    """The calm run started 1 MB before the hostile one: it crosses 64 MB a little earlier."""
    rss = [100 * MB]
    watchdog = Watchdog(poll=HANG, resident=lambda: rss[0])  # this test makes every look itself
    calm: dict = {}
    wild: dict = {}
    release = threading.Event()
    calm_thread = threading.Thread(
        target=limited_run(watchdog, Budget(ENDLESS, 64), lambda: release.wait(HANG), calm), daemon=True
    )
    calm_thread.start()
    while not watchdog._runs:
        time.sleep(POLL)
    rss[0] += MB
    wild_thread = threading.Thread(target=limited_run(watchdog, Budget(ENDLESS, 64), endless_loop, wild), daemon=True)
    wild_thread.start()
    while len(watchdog._runs) < 2:
        time.sleep(POLL)
    rss[0] += 63 * MB + MB // 2  # calm: 64.5 MB, wild: 63.5 MB
    watchdog.check()
    wild_thread.join(HANG)
    release.set()
    calm_thread.join(HANG)
    assert "added 64 MB" in wild["reason"] and calm == {"reason": ""}


def test_the_budget_comes_from_the_environment(monkeypatch, caplog):
    assert Budget.from_env() == Budget(REQUEST_SECONDS, REQUEST_MB)
    monkeypatch.setenv(SECONDS_ENV, "2.5")
    monkeypatch.setenv(MB_ENV, "100")
    assert Budget.from_env() == Budget(2.5, 100)
    for wrong in ("0", "-1", "abc", "inf", "nan"):
        monkeypatch.setenv(SECONDS_ENV, wrong)
        assert Budget.from_env().seconds == REQUEST_SECONDS
    assert "EXPLORER_REQUEST_SECONDS='nan' is not a number above 0" in caplog.text


def test_outside_a_script_thread_nothing_is_limited():
    from ui.request_budget import limited

    with limited() as run:
        assert run is None


# --- through the error boundary, in a Streamlit script thread -------------------------------------------
def test_the_boundary_shows_the_reason_and_keeps_the_session(monkeypatch):
    monkeypatch.setenv(SECONDS_ENV, "0.5")

    def script():
        import streamlit as st

        from ui.error_boundary import boundary

        st.session_state["loaded"] = "mine.json"
        with boundary():
            st.markdown("before")
            n = 0
            while True:
                n += 1
        st.markdown("after the boundary")

    at = AppTest.from_function(script, default_timeout=HANG).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [m.value for m in at.markdown] == ["before", "after the boundary"]
    assert len(at.error) == 1 and "This view was stopped: it ran for more than 0.5 s" in at.error[0].value
    assert "Traceback" not in at.error[0].value and at.session_state["loaded"] == "mine.json"


def test_a_stopped_callback_is_a_message_of_the_next_run(monkeypatch):
    monkeypatch.setenv(SECONDS_ENV, "0.5")

    def script():
        import streamlit as st

        from ui.error_boundary import boundary, guarded

        @guarded
        def endless() -> None:
            n = 0
            while True:
                n += 1

        st.button("go", key="go", on_click=endless)
        with boundary():
            st.markdown("page")

    at = AppTest.from_function(script, default_timeout=HANG).run()
    at.button(key="go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and "This view was stopped" in at.error[0].value
    assert [m.value for m in at.markdown] == ["page"]
