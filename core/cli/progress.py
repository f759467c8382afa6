"""Progress on stderr while a command works, as tqdm's ``delay=`` has it: nothing for work that ends
within :data:`DELAY` seconds, then one line, redrawn every :data:`TICK` seconds, saying what is
being done and for how long; counted work (``(done, total)`` reports) shows a bar with done/total,
the ETA from the mean rate so far and the rate (the unit "byte" with SI prefixes, e.g. MB/s).

``main`` opens a :class:`ProgressBar` for the whole command; the ones opened inside it (loading a
tokeniser, ReBPE's phases, training, counting) take over its line until they end, so a command has
one line at most, whatever it is doing. The line is drawn on a terminal only (tqdm's
``disable=None``): redirected stderr gets the command's messages and nothing else. While the line
exists, whatever the command prints to the terminal clears it first (it is drawn again once the
text has ended its line).

No paper section (plumbing).
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field

#: seconds of work before the line is drawn (tqdm's ``delay=``)
DELAY = 1.0
#: seconds between redraws (the elapsed time moves while no progress is reported)
TICK = 0.25
#: a bar: done/total ({size}: "B" for bytes), elapsed time, the ETA from the mean rate so far, and the rate
BAR_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}{size}/{total_fmt}{size} [{elapsed} elapsed, ETA {remaining}, {rate_fmt}]"
)


@dataclass
class _Work:
    """What one :class:`ProgressBar` reports: its description, and how far along it is (total 0: not counted)."""

    description: str
    unit: str
    total: int = 0
    done: int = 0
    started: float = field(default_factory=time.perf_counter)


def render(work: _Work, width: int = 100, ascii: bool = False) -> str:
    """The line for ``work``, at most ``width - 1`` characters: a bar once a total is known, else
    what is being done and for how long."""
    from tqdm import tqdm

    elapsed = time.perf_counter() - work.started
    if work.total <= 0:
        text = f"{work.description} [{tqdm.format_interval(elapsed)} elapsed]"
    else:
        in_bytes = work.unit == "byte"
        text = tqdm.format_meter(
            min(work.done, work.total),
            work.total,
            elapsed,
            ncols=width - 1,
            prefix=work.description,
            ascii=ascii,
            unit="B" if in_bytes else work.unit,
            unit_scale=in_bytes,
            unit_divisor=1000,
            bar_format=BAR_FORMAT.replace("{size}", "B" if in_bytes else ""),
        )
    return text[: width - 1]


class _Line:
    """The progress line of a terminal: a stack of work (the innermost is drawn), a thread that
    draws it from ``delay`` seconds on, and the terminal's streams, guarded so that text written
    to them clears the line first."""

    def __init__(self, stream, delay: float):
        self.stream, self.delay = stream, delay
        self.work: list[_Work] = []
        self.lock = threading.RLock()
        self.shown = delay <= 0  # drawn once ``delay`` has passed
        self.drawn = 0  # width of the text on the line now
        self.at_line_start = True  # the last text written ended its line: the line may be drawn
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        self.ascii = encoding != "utf8"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._tick, name="progress line", daemon=True)
        self.guarded = [(name, getattr(sys, name)) for name in ("stdout", "stderr") if _is_terminal(getattr(sys, name))]

    def open(self) -> None:
        for name, stream in self.guarded:
            setattr(sys, name, _Guarded(stream, self))
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        with self.lock:
            self.clear()
        for name, stream in self.guarded:
            setattr(sys, name, stream)

    def _tick(self) -> None:
        if self.stop.wait(self.delay):
            return
        self.shown = True
        while not self.stop.is_set():
            self.draw()
            self.stop.wait(TICK)

    def draw(self) -> None:
        with self.lock:
            if not self.shown or not self.work or not self.at_line_start:
                return
            text = render(self.work[-1], _width(self.stream), self.ascii)
            self.stream.write("\r" + text + " " * max(0, self.drawn - len(text)))
            self.stream.flush()
            self.drawn = len(text)

    def clear(self) -> None:
        """Empty the line (the caller holds the lock)."""
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0

    def written(self, stream, text: str) -> int:
        """Write ``text`` to one of the terminal's streams, on an empty line."""
        with self.lock:
            self.clear()
            count = stream.write(text)
            if text:
                self.at_line_start = text.endswith("\n")
                if self.at_line_start:
                    stream.flush()
            return count


class _Guarded:
    """stdout or stderr on the terminal of a progress line: every write clears the line first. A
    process forked meanwhile (counting workers) writes directly (the line is its parent's)."""

    def __init__(self, stream, line: _Line):
        self._stream, self._line, self._pid = stream, line, os.getpid()

    def write(self, text: str) -> int:
        if os.getpid() != self._pid:
            return self._stream.write(text)
        return self._line.written(self._stream, text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _width(stream) -> int:
    """The terminal's width in columns (stderr's own, even when stdout is redirected)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = 0
    return columns or shutil.get_terminal_size().columns  # 0: a terminal that does not say


def _is_terminal(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


_line: _Line | None = None  # the line of the command running (the command line runs one at a time)


class ProgressBar:
    """A piece of work, on the command's progress line while it runs (see the module): used as
    ``with ProgressBar("loading x"):``, it says what is being done; as a progress callback
    ``(done, total)`` it shows a bar from the first report with a total (0: not known yet), whose
    total then never changes. With ``total``, :meth:`advance` counts steps itself;
    :meth:`describe` says what is being done now (e.g. ReBPE's phases). The first one opened makes
    the line, drawn once it has been open ``delay`` seconds."""

    def __init__(self, description: str, unit: str = "", *, total: int = 0, delay: float | None = None):
        self.work = _Work(description, unit, total)
        self.delay = DELAY if delay is None else delay
        self.line: _Line | None = None
        self.own = False  # this bar made the line

    @property
    def total(self) -> int:
        return self.work.total

    def advance(self, steps: int = 1) -> None:
        self(self.work.done + steps, self.work.total)

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        work = self.work
        if work.total <= 0:
            work.total = total
        work.done = done

    def describe(self, description: str) -> None:
        """Say what is being done now; the line shows it at once (if it shows)."""
        self.work.description = description
        if self.line is not None:
            self.line.draw()

    def __enter__(self) -> ProgressBar:
        global _line
        if _line is None and _is_terminal(sys.stderr):
            _line, self.own = _Line(sys.stderr, self.delay), True
            _line.open()
        self.line = _line
        if self.line is not None:
            self.work.started = time.perf_counter()
            with self.line.lock:
                self.line.work.append(self.work)
            self.line.draw()
        return self

    def __exit__(self, *exc) -> None:
        global _line
        line, self.line = self.line, None
        if line is None:
            return
        with line.lock:
            line.work.remove(self.work)
        if self.own:
            line.close()
            _line = None
