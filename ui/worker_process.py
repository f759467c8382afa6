"""Long computations in a child process, so that one session cannot slow the others (issue 32, point 3).

A ReBPE run or a training takes from seconds to minutes of pure Python. In a script thread it holds
the interpreter lock the server's other threads need, and every other session's page waits on it.
:func:`in_worker` runs such a computation in a forked child instead: the child inherits the
tokeniser and its inputs without a copy (copy-on-write), reports progress as small messages over a
pipe, and sends its result back pickled. The page's thread waits without the interpreter lock,
passes each message to its handler (which draws the progress), and kills the child as soon as its
run ends otherwise: stopped over the request's time budget (``ui.request_budget``, whose exception
lands in the waiting loop), left by its user, or grown past the request's memory budget (measured
here, as the child's private memory: the watchdog sees only the server's).

The child never touches Streamlit and ends with ``os._exit`` (none of the server's exit handlers
runs in it). Where ``fork`` is missing or unsafe (Windows, macOS), the work runs in the calling
thread as before, with the same messages.
"""

from __future__ import annotations

import copyreg
import gc
import logging
import multiprocessing
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypeVar

from ui.request_budget import budget_here, stop_this_run

LOG = logging.getLogger(__name__)
T = TypeVar("T")
Send = Callable[..., None]
#: Seconds between two looks at the child (its messages, whether it lives, its memory).
POLL_SECONDS = 0.05
MB = 1 << 20
WORKERS_ENV = "EXPLORER_WORKERS"


def read_only(items: dict) -> MappingProxyType:
    return MappingProxyType(items)


# Results cross the pipe pickled; the read-only views core hands out pickle as views of a copy.
copyreg.pickle(MappingProxyType, lambda view: (read_only, (dict(view),)))


def forking() -> bool:
    """Whether computations go to a forked child: on Linux, unless ``$EXPLORER_WORKERS`` is ``off``."""
    return sys.platform.startswith("linux") and os.environ.get(WORKERS_ENV, "").strip().lower() != "off"


def private_bytes(pid: int) -> int:
    """The memory process ``pid`` holds on its own (pages shared with the server left out); 0 when unknown."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            lines = rollup.read().splitlines()
    except OSError:
        return 0
    kilobytes = sum(int(line.split()[1]) for line in lines if line.startswith((b"Private_Clean:", b"Private_Dirty:")))
    return kilobytes * 1024


def in_worker(work: Callable[[Send], T], handlers: Mapping[str, Callable[..., None]] | None = None) -> T:
    """``work(send)``'s result, computed in a child process; ``send(name, *args)`` there calls
    ``handlers[name](*args)`` here (args must pickle). An exception of the work is raised here
    (an InputError as it was; another one after its traceback is logged)."""
    handlers = handlers or {}
    if not forking():
        return work(lambda name, *args: handlers[name](*args))
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(work, sender), name="explorer-worker", daemon=True)
    child.start()
    sender.close()
    try:
        return _wait(child, receiver, handlers, budget_here().megabytes * MB)
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()


def _wait(child, receiver, handlers: Mapping[str, Callable[..., None]], limit: float):
    while True:
        if receiver.poll(POLL_SECONDS):
            try:
                kind, *payload = receiver.recv()
            except EOFError:  # the child ended without a word: killed (out of memory?) or crashed
                raise RuntimeError(f"the worker process ended without a result (exit code {child.exitcode})") from None
            if kind == "call":
                name, args = payload
                handlers[name](*args)
            elif kind == "result":
                return payload[0]
            else:
                error, trace = payload
                if not isinstance(error, ValueError):  # InputError and the like are the user's message
                    LOG.error("in a worker process:\n%s", trace)
                raise error
        grown = private_bytes(child.pid)
        if grown > limit:
            child.kill()
            stop_this_run(f"added {grown / MB:,.0f} MB in its worker process")


def _child(work: Callable[[Send], object], sender) -> None:
    """The child's whole life: run ``work``, send its result or its error, and leave at once."""
    code = 0
    gc.freeze()  # the inherited heap stays shared: a collection here would touch (and copy) all of it
    try:
        result = work(lambda name, *args: sender.send(("call", name, args)))
        sender.send(("result", result))
    except BaseException as err:  # everything goes back to the server's thread
        code = 1
        trace = traceback.format_exc()
        try:
            sender.send(("error", err, trace))
        except Exception:  # the error itself does not pickle: its text does
            sender.send(("error", RuntimeError(f"{type(err).__name__}: {err}"), trace))
    finally:
        sender.close()
        os._exit(code)
