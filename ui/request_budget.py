"""A budget per request (issue 32, point 3): one script run may take at most ``REQUEST_SECONDS`` of
wall-clock time and grow the server's resident memory by at most ``REQUEST_MB``; a run over either
is stopped, its memory freed, and the other sessions go on.

``ui.error_boundary`` runs every page, fragment rerun and widget callback inside :func:`limited`,
which registers the script thread with the process's one :class:`Watchdog`. The watchdog's thread
looks at the registered runs every ``POLL_SECONDS``; in a run over budget it raises
:class:`RequestBudgetExceeded` (``PyThreadState_SetAsyncExc``), which :meth:`Watchdog.limit` catches:
it clears the locals of the finished frames, collects garbage, hands free heap pages back to the
system (glibc's ``malloc_trim``) and leaves the reason on the :class:`Run` for the boundary to show.
Session state is not touched.

Limits of the method:

- An asynchronous exception is delivered between two bytecodes: one long C call (a single regex
  search, ``json.loads`` of a huge file, one numpy operation) is stopped only once it returns.
- Memory is the whole process's RSS, which concurrent runs share. When a run is over, the stopped
  one is the run that started last among those that saw (all but ``SHARED_GROWTH`` of) the largest
  growth: the growth happened within its lifetime. Once it has left, the others are measured from
  the RSS after the clean-up, so its growth is not held against them.
- A run is unregistered under a lock, and a stop still pending then is withdrawn, so a finished run is
  never interrupted later. Should the exception land in the few bytecodes between the end of the
  page and that unregistering, it is a :class:`StopException`: Streamlit ends the run as after
  ``st.stop()``.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NoReturn

from streamlit.runtime.scriptrunner import StopException, get_script_run_ctx

from core.deadline import EXPLORER_SECONDS
from core.errors import InputError

LOG = logging.getLogger(__name__)
SECONDS_ENV = "EXPLORER_REQUEST_SECONDS"
MB_ENV = "EXPLORER_REQUEST_MB"
#: Wall-clock seconds per request: training's own budget (core.deadline, which stops with a more
#: specific message) plus a minute to draw its results.
REQUEST_SECONDS = EXPLORER_SECONDS + 60.0
#: Megabytes of RSS one request may add to the server.
REQUEST_MB = 1536.0
#: Of several runs, those that saw all but this share of the largest growth saw it all (see below).
SHARED_GROWTH = 0.1
#: Seconds between two looks of the watchdog at the runs.
POLL_SECONDS = 0.1
MB = 1 << 20

_set_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi)
)


class RequestBudgetExceeded(StopException):
    """Raised in a script thread over its budget; the reason is on its :class:`Run`."""


def _positive(env: str, default: float) -> float:
    """``$env`` as a number above 0, else ``default`` (a value that is not one is logged)."""
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        LOG.warning("%s=%r is not a number above 0: using %g", env, raw[:40], default)
        return default
    return value


@dataclass(frozen=True)
class Budget:
    seconds: float
    megabytes: float

    @classmethod
    def from_env(cls) -> Budget:
        """``$EXPLORER_REQUEST_SECONDS`` and ``$EXPLORER_REQUEST_MB``, each else its default."""
        return cls(_positive(SECONDS_ENV, REQUEST_SECONDS), _positive(MB_ENV, REQUEST_MB))

    def message(self, over: str) -> str:
        return (
            f"This view was stopped: it {over}, over the explorer's budget per request ({self.seconds:g} s, "
            f"{self.megabytes:,.0f} MB). What you loaded is kept; try a shorter text or a smaller file."
        )


@dataclass(eq=False)
class Run:
    """One registered run: its thread, budget, start (monotonic clock) and RSS then (bytes)."""

    thread_id: int
    budget: Budget
    started: float
    baseline: int
    reason: str = ""  # why it was stopped; empty while it was not


def resident_bytes() -> int:
    """This process's resident memory now (Linux); elsewhere its peak so far."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def free_memory() -> None:
    """Collect garbage and hand the heap's free pages back to the system (glibc only)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


class Watchdog:
    """Stops runs over their budget; one thread, started with the first run, watches them all."""

    def __init__(
        self,
        poll: float = POLL_SECONDS,
        resident: Callable[[], int] = resident_bytes,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.poll = poll
        self._resident = resident
        self._clock = clock
        self._lock = threading.Lock()
        self._runs: dict[int, Run] = {}
        self._settling = 0  # stopped runs not yet cleaned up: no memory verdicts meanwhile
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def limit(self, budget: Budget) -> Iterator[Run | None]:
        """Run the body under ``budget`` in this thread; a body over it is stopped and the Run says
        why. Nested in a limited body, it adds nothing and yields None (the outer one stops)."""
        run = self._enter(budget)
        if run is None:
            yield None
            return
        try:
            try:
                yield run
            except RequestBudgetExceeded as stopped:
                traceback.clear_frames(stopped.__traceback__)  # the run's locals: the memory to free
        finally:
            try:
                self._leave(run)
            except RequestBudgetExceeded:  # it landed while leaving; it is sent once, so not again
                self._leave(run)
            if run.reason:
                free_memory()
                self._rebase()

    def _enter(self, budget: Budget) -> Run | None:
        thread_id = threading.get_ident()
        with self._lock:
            if thread_id in self._runs:
                return None
            run = self._runs[thread_id] = Run(thread_id, budget, self._clock(), self._resident())
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="request-budget", daemon=True)
                self._thread.start()
            return run

    def _leave(self, run: Run) -> None:
        with self._lock:
            self._runs.pop(run.thread_id, None)
            if run.reason:  # a stop sent but maybe not delivered yet: withdraw it
                _set_async_exc(run.thread_id, ctypes.py_object())

    def _rebase(self) -> None:
        """After a stop's clean-up: the others are measured from the RSS now."""
        resident = self._resident()
        with self._lock:
            for run in self._runs.values():
                run.baseline = max(run.baseline, resident)
            self._settling -= 1

    def _watch(self) -> None:
        while True:
            time.sleep(self.poll)
            try:
                self.check()
            except Exception:  # the watchdog must outlive any one bad look
                LOG.exception("request budget watchdog")

    def check(self) -> None:
        """Stop every run over its time and, unless a stop is being cleaned up, one run for memory
        when any is over its memory budget."""
        with self._lock:
            live = [run for run in self._runs.values() if not run.reason]
            if not live:
                return
            now, resident = self._clock(), self._resident()
            for run in live:
                if now - run.started > run.budget.seconds:
                    self._stop(run, run.budget.message(f"ran for more than {run.budget.seconds:g} s"))
            live = [run for run in live if not run.reason]
            grown = {run: resident - run.baseline for run in live}
            if self._settling or not any(grown[run] > run.budget.megabytes * MB for run in live):
                return
            most = max(grown.values())
            run = max((r for r in live if grown[r] >= (1 - SHARED_GROWTH) * most), key=lambda r: r.started)
            self._stop(run, run.budget.message(f"added {grown[run] / MB:,.0f} MB to the server's memory"))

    def budget_here(self) -> Budget:
        """The budget of the calling thread's run; outside a run, the one a run would get."""
        with self._lock:
            run = self._runs.get(threading.get_ident())
        return run.budget if run is not None else Budget.from_env()

    def stop_this_run(self, over: str) -> NoReturn:
        """Stop the calling thread's run at once, as over its budget (``over`` says how: memory its
        worker process took, which the watchdog does not see); outside a run, an InputError says it."""
        with self._lock:
            run = self._runs.get(threading.get_ident())
            if run is None:
                raise InputError(Budget.from_env().message(over))
            if not run.reason:  # else the watchdog stopped it first, and said why
                run.reason = run.budget.message(over)
                self._settling += 1
        raise RequestBudgetExceeded

    def _stop(self, run: Run, reason: str) -> None:
        """Under the lock: mark ``run`` stopped and raise in its thread."""
        run.reason = reason
        self._settling += 1
        LOG.warning("request budget: stopping thread %s: %s", run.thread_id, reason)
        _set_async_exc(run.thread_id, RequestBudgetExceeded)


WATCHDOG = Watchdog()
stop_this_run = WATCHDOG.stop_this_run
budget_here = WATCHDOG.budget_here


@contextlib.contextmanager
def limited() -> Iterator[Run | None]:
    """The body under the budget of ``$EXPLORER_REQUEST_SECONDS``/``$EXPLORER_REQUEST_MB``, when
    this is a Streamlit script thread (elsewhere, and nested, it yields None and limits nothing)."""
    if get_script_run_ctx(suppress_warning=True) is None:
        yield None
        return
    with WATCHDOG.limit(Budget.from_env()) as run:
        yield run
