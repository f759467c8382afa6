"""Where chunks are counted and how partial counts are combined: in this process, in a pool of
worker processes, or on a Dask cluster.

No paper section: plumbing. :func:`map_reduce` applies ``task`` to every chunk and folds the
results with ``combine``; the caller's task and combine decide what is counted. Local runs use
:class:`concurrent.futures.ProcessPoolExecutor`; Dask runs use Dask's own reduction (Dask is an
optional extra: ``pip install structured-tokenisers[dask]``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from core.counting.chunks import Chunk
from core.errors import InputError

T = TypeVar("T")
#: Partial results kept before they are combined into one (bounds the memory of a long run).
COMBINE_EVERY = 8


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class _Folder:
    """Combines results as they come, at most COMBINE_EVERY held at a time, and reports bytes done."""

    def __init__(self, combine: Callable[[list[T]], T], total: int, progress: Callable[[int, int], None] | None):
        self.combine, self.total, self.progress = combine, total, progress
        self.held: list = []
        self.done = 0

    def add(self, result, chunk: Chunk, on_result: Callable[[Chunk, Any], None] | None) -> None:
        if on_result is not None:
            on_result(chunk, result)
        self.held.append(result)
        if len(self.held) >= COMBINE_EVERY:
            self.held = [self.combine(self.held)]
        self.done += chunk.size
        if self.progress is not None:
            self.progress(self.done, self.total)

    def result(self):
        return self.combine(self.held)


def map_reduce(
    task: Callable[[Chunk], T],
    chunks: Sequence[Chunk],
    combine: Callable[[list[T]], T],
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    done: Sequence[T] = (),
    on_result: Callable[[Chunk, T], None] | None = None,
) -> T:
    """``combine`` of ``task(chunk)`` for every chunk, together with the results ``done`` before
    (a resumed run). ``workers``: processes (default :func:`default_workers`; 1 counts in this
    process); ``dask``: ``"local"`` or a scheduler address instead; ``progress(bytes done, bytes
    in all)`` after each chunk; ``on_result(chunk, result)`` as each chunk's result arrives (not
    with Dask, whose results are combined on the cluster). ``task`` and ``combine`` must be
    picklable (module-level functions, or :func:`functools.partial` of them)."""
    total = sum(c.size for c in chunks)
    if dask is not None:
        from core.counting.dask_engine import dask_map_reduce

        return dask_map_reduce(
            task, chunks, combine, address=dask, local_workers=default_workers(), progress=progress, done=done
        )
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    folder = _Folder(combine, total, progress)
    folder.held.extend(done)
    if workers == 1 or len(chunks) <= 1:
        for chunk in chunks:
            folder.add(task(chunk), chunk, on_result)
        return folder.result()
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
        pending = {pool.submit(task, chunk): chunk for chunk in chunks}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    folder.add(future.result(), pending.pop(future), on_result)
        except BaseException:  # Ctrl-C or a failed chunk: stop the others at once
            for future in pending:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return folder.result()
