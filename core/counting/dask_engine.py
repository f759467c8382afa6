"""Counting on a Dask cluster: a ``LocalCluster`` on this machine, or a scheduler elsewhere.

No paper section: plumbing behind :func:`core.counting.engines.map_reduce`. The chunks become a
``dask.bag`` of one chunk per partition, mapped and combined by the bag's own tree ``reduction``
(``split_every`` partials at a time) in one graph, never by a scheduler of ours: Dask runs a
subtree's reductions as soon as its chunks are counted, so a worker holds a few partial counts
at a time, not one per chunk. Partial counts travel as single-chunk tables
(:class:`core.counting.pretoken_counts.ChunkCounts` pickles them so). Each counted chunk logs an
event on its worker, which the client follows for progress. Dask is an optional extra; the
workers read the corpus files themselves, so they must see them at the same paths as this
machine (shared storage on a real cluster).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import queue
import socket
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from core.counting.chunks import Chunk
from core.errors import InputError, excerpt, shorten

T = TypeVar("T")
INSTALL_HINT = "the Dask engine needs the optional extra: pip install 'structured-tokenisers[dask]'"
#: Seconds to wait for a scheduler before giving up on its address.
CONNECT_TIMEOUT = 10
#: Partial results combined at a time at each level of the reduction tree.
SPLIT_EVERY = 8
#: Seconds without a progress event before checking whether the reduction has ended (or failed).
POLL_SECONDS = 0.2


def _modules() -> tuple[Any, Any]:
    """``dask.bag`` and ``distributed``, or InputError with the install command."""
    try:
        import dask.bag
        import distributed
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    return dask.bag, distributed


def _on_worker(task: Callable[[Chunk], T], topic: str, chunk: Chunk) -> T:
    """``task(chunk)``, after checking that this worker can open the chunk's file; logs the
    chunk's index under ``topic`` when done."""
    if not os.access(chunk.path, os.R_OK):
        raise InputError(
            f"the Dask worker on {socket.gethostname()} cannot open this file: the corpus files must be "
            "readable by the workers at the same paths (shared storage on a cluster)",
            chunk.path,
        )
    result = task(chunk)
    _, distributed = _modules()
    distributed.get_worker().log_event(topic, chunk.index)
    return result


def _combine_listed(combine: Callable[[list[T]], T], partition: Iterable[T]) -> T:
    """``combine`` of a partition's results. Tables a worker receives are unpickled into buffers at
    any offset of its network frames; Arrow's grouping warns about each one unless told to copy
    them to aligned memory (its setting, read at first use in the worker process)."""
    os.environ.setdefault("ACERO_ALIGNMENT_HANDLING", "reallocate")
    return combine(list(partition))


def local_cluster(workers: int) -> Any:
    """A ``LocalCluster`` of ``workers`` single-threaded processes on this machine, listening on
    127.0.0.1 only, without a dashboard, logging warnings and errors only."""
    _, distributed = _modules()
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its health routes: any free local port
        silence_logs=logging.WARNING,
    )


@contextlib.contextmanager
def _client(address: str, local_workers: int) -> Iterator[Any]:
    """A client of a new ``LocalCluster`` of ``local_workers`` processes (``"local"``), or of the
    scheduler at ``address``; closed (with the cluster it started) on leaving."""
    _, distributed = _modules()
    if address == "local":
        with local_cluster(local_workers) as cluster, distributed.Client(cluster) as client:
            yield client
        return
    try:
        _check_scheduler(address, distributed)
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError) as err:
        raise InputError(
            f"cannot reach a Dask scheduler at {address!r}: {shorten(str(err) or type(err).__name__)}; expected "
            "'local' or the address of a running scheduler, such as tcp://scheduler:8786"
        ) from None
    with client:
        yield client


def _check_scheduler(address: str, distributed: Any) -> None:
    """OSError unless a Dask scheduler answers at ``address`` within :data:`CONNECT_TIMEOUT` seconds:
    the client itself would wait for ever on a server that says nothing, and try to allocate
    exabytes for the first "frame" of one that speaks another protocol."""

    async def identity() -> object:
        comm = await distributed.comm.connect(address, timeout=CONNECT_TIMEOUT)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(identity(), CONNECT_TIMEOUT))
    except Exception as err:  # what a foreign protocol makes of the client: timeouts, MemoryError, ...
        said = str(err) if isinstance(err, OSError) and str(err) else type(err).__name__
        raise OSError(f"no Dask scheduler answered within {CONNECT_TIMEOUT} s ({said})") from None
    if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
        raise OSError(f"the server there is no Dask scheduler (it answered {excerpt(reply, 60)})")


def dask_map_reduce(
    task: Callable[[Chunk], T],
    chunks: Sequence[Chunk],
    combine: Callable[[list[T]], T],
    *,
    address: str,
    local_workers: int,
    progress: Callable[[int, int], None] | None = None,
    done: Sequence[T] = (),
) -> T:
    """``combine`` of ``task(chunk)`` for every chunk, computed on the Dask cluster at ``address``
    (``"local"``: a new ``LocalCluster`` of ``local_workers`` worker processes), together with the
    results ``done`` before. ``progress(bytes done, bytes in all)`` as each chunk finishes."""
    _modules()
    if not chunks:
        return combine(list(done))
    with _client(address, local_workers) as client:
        result = _run(client, task, chunks, combine, progress)
    return combine([*done, result]) if done else result


def _run(
    client: Any,
    task: Callable[[Chunk], T],
    chunks: Sequence[Chunk],
    combine: Callable[[list[T]], T],
    progress: Callable[[int, int], None] | None,
) -> T:
    """Computes the reduction of the mapped bag, reporting each chunk's bytes as its event arrives."""
    bag, _ = _modules()
    topic = f"structok-count-{uuid.uuid4().hex}"
    counted: queue.SimpleQueue[int] = queue.SimpleQueue()
    client.subscribe_topic(topic, lambda event: counted.put(event[1]))
    try:
        mapped = bag.from_sequence(list(chunks), partition_size=1).map(functools.partial(_on_worker, task, topic))
        as_list = functools.partial(_combine_listed, combine)  # Dask passes iterators; combine takes a list
        reduced = client.compute(mapped.reduction(as_list, as_list, split_every=SPLIT_EVERY))
        size_of = {chunk.index: chunk.size for chunk in chunks}
        total, seen = sum(size_of.values()), set[int]()
        while True:  # short waits, so that Ctrl-C stops the run at once
            try:
                index = counted.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if reduced.done():
                    break  # finished, or failed (raised below, before the other chunks finish)
                continue
            if index not in seen:  # a chunk recounted after a lost worker reports once
                seen.add(index)
                if progress is not None:
                    progress(sum(size_of[i] for i in seen), total)
        return reduced.result()
    finally:
        client.unsubscribe_topic(topic)
