"""Stopping long runs: progress reports that come regularly, and a wall-clock budget behind them.

No paper section: plumbing. Every trainer takes ``progress(done, total)``; it is called at the
trainer's own steps (every ``PROGRESS_EVERY`` merges, every EM round) and, through a
:class:`Heartbeat`, inside phases that make no step for a long time (counting pairs over a huge
pretoken, one merge with a million occurrences, a lattice pass): after every ``HEARTBEAT_WORK``
units of work (a unit is about one step of a Python loop) the last figures are reported again.
The callback is therefore the place to stop a run: the explorer passes a :class:`Deadline`,
which updates a Streamlit element (Streamlit stops a script run that the user re-ran or left at
its next Streamlit call) and then raises :class:`InputError` once the budget is spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from core.errors import InputError
from core.options import check_number

#: Units of work between two heartbeats (about 5-20 ms of Python).
HEARTBEAT_WORK = 1 << 15
#: The explorer's wall-clock budget for the training of one page run, in seconds.
EXPLORER_SECONDS = 120.0
#: Seconds between two reports a :class:`Deadline` passes on (an element need not redraw faster).
REPORT_EVERY = 0.1

Progress = Callable[[int, int], None]


class Deadline:
    """A progress callback that passes ``(done, total)`` on to ``progress`` (if any; at most
    every ``every`` seconds, and always when ``done`` reaches a known ``total``) and then raises
    InputError when ``seconds`` have passed since ``started`` (a ``clock()`` reading, so several
    runs can share one budget; default: when the Deadline was made)."""

    def __init__(
        self,
        seconds: float,
        progress: Progress | None = None,
        *,
        started: float | None = None,
        every: float = REPORT_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.seconds = check_number("seconds", seconds, 0.0)
        self.every = check_number("every", every, 0.0)
        self.progress = progress
        self._clock = clock
        self._next_report = clock()
        self._ends = (self._next_report if started is None else started) + seconds

    def __call__(self, done: int, total: int) -> None:
        now = self._clock()
        if self.progress is not None and (now >= self._next_report or done >= total > 0):
            self._next_report = now + self.every
            self.progress(done, total)
        if now >= self._ends:
            raise InputError(
                f"stopped after {self.seconds:g} s: the corpus is too large for the explorer; "
                "train it with the CLI (python -m core train)"
            )


class Heartbeat:
    """A trainer's progress reports: :meth:`report` at its steps, :meth:`work` inside long
    phases (which repeats the last report every ``HEARTBEAT_WORK`` units)."""

    __slots__ = ("done", "pending", "progress", "total")

    def __init__(self, progress: Progress | None, total: int = 0):
        self.progress = progress
        self.done, self.total = 0, total
        self.pending = 0

    def report(self, done: int, total: int | None = None) -> None:
        self.done = done
        if total is not None:
            self.total = total
        self.pending = 0
        if self.progress is not None:
            self.progress(done, self.total)

    def work(self, units: int = 1) -> None:
        self.pending += units
        if self.pending >= HEARTBEAT_WORK:
            self.pulse()

    def pulse(self) -> None:
        """Repeat the last report now."""
        self.pending = 0
        if self.progress is not None:
            self.progress(self.done, self.total)
