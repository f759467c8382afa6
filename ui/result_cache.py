"""Results kept on disk across server restarts, and shipped precomputed for the samples.

A result (a knockout / ReBPE run, a blocked-merge scan, a reparation) is found by a key over the
*content* of its inputs (``core.edits.archive.content_key``: tokeniser and reference digests, the
frozen configuration, the archive format version), never by their names. :func:`through` looks in
``sample_data/precomputed/`` (made by ``scripts/precompute_samples.py``, checked into git), then in
the server's folder ``ui.storage.storage_dir("results")``, and computes only when neither has it,
writing what it computed there. A missing, unreadable, corrupt or outdated file is skipped (and
logged): the result is computed again, never a traceback. The folder is kept under a size budget,
``$EXPLORER_RESULTS_MB`` megabytes (default 512), by deleting the files used least recently.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

from core.edits.archive import archive_text, parse_archive, read_archive, write_archive
from core.formats.samples import SAMPLE_DIR
from core.gc_pause import cyclic_gc_paused
from ui.storage import env_megabytes, storage_dir
from ui.worker_process import Send, in_worker

PRECOMPUTED_DIR = SAMPLE_DIR / "precomputed"
BUDGET_ENV = "EXPLORER_RESULTS_MB"
DEFAULT_BUDGET_MB = 512
SUFFIX = ".json.gz"

log = logging.getLogger(__name__)
T = TypeVar("T")


def file_name(key: str) -> str:
    return key + SUFFIX


def results_dir() -> Path | None:
    """The server's result folder (None when it cannot be made: then nothing is kept on disk)."""
    try:
        return storage_dir("results")
    except OSError as err:
        log.warning("no result cache on disk: %s", err)
        return None


def _folders() -> list[tuple[Path, bool]]:
    """(folder, whether it is the disk cache) in the order they are searched."""
    folders = [(PRECOMPUTED_DIR, False)]
    disk = results_dir()
    return [*folders, (disk, True)] if disk is not None else folders


def found(kind: str, key: str, decode: Callable[[dict], T]) -> T | None:
    """The result of ``kind`` for ``key`` decoded from a precomputed or cached archive, else None."""
    for folder, is_cache in _folders():
        path = folder / file_name(key)
        if not path.is_file():
            continue
        try:
            with cyclic_gc_paused():
                value = decode(read_archive(path, kind, key))
        except Exception as err:
            log.warning("ignoring result file %s: %s: %s", path, type(err).__name__, err)
            continue
        if is_cache:
            _touch(path)
        return value
    return None


def through(
    kind: str, key: str, compute: Callable[[], T], encode: Callable[[T], Mapping], decode: Callable[[dict], T]
) -> T:
    """The result of ``kind`` for ``key``: decoded from a precomputed or cached archive, else
    ``compute()``'s, which is then written to the disk cache (when ``encode`` can represent it)."""
    value = found(kind, key, decode)
    if value is None:
        value = compute()
        store(kind, key, lambda: encode(value))
    return value


def through_worker(
    kind: str,
    key: str,
    compute: Callable[[Send], T],
    encode: Callable[[T], Mapping],
    decode: Callable[[dict], T],
    shown: Callable[[], AbstractContextManager[Mapping[str, Callable[..., None]]]] = lambda: contextlib.nullcontext({}),
) -> T:
    """:func:`through` with ``compute(send)`` in a worker process (``ui.worker_process``), which also
    encodes and stores the result. Only then is ``shown()`` entered around it: its value handles the
    messages ``send`` passes on (a page's progress box). What comes back is the archive's text, decoded
    here as a stored archive is (a fraction of the cost of unpickling the result itself)."""
    value = found(kind, key, decode)
    if value is not None:
        return value

    def work(send: Send) -> tuple[bool, object]:
        value = compute(send)
        try:
            text = archive_text(kind, key, encode(value))
        except Exception as err:
            log.warning("result %s %s… not kept on disk: %s: %s", kind, key[:12], type(err).__name__, err)
            return False, value
        store(kind, key, lambda: text)
        return True, text

    with shown() as handlers:
        archived, result = in_worker(work, handlers)
    return decode(parse_archive(result, kind, key)) if archived else result


def store(kind: str, key: str, body: Callable[[], Mapping | str]) -> None:
    """Write ``body()`` to the disk cache and keep the folder within its budget; a result that cannot
    be encoded, or a disk that refuses, is logged and skipped."""
    folder = results_dir()
    if folder is None:
        return
    try:
        write_archive(folder / file_name(key), kind, key, body())
        prune(folder, env_megabytes(BUDGET_ENV, DEFAULT_BUDGET_MB))
    except Exception as err:
        log.warning("result %s %s… not kept on disk: %s: %s", kind, key[:12], type(err).__name__, err)


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):  # best effort: an archive that vanished meanwhile needs no touch
        os.utime(path)


def prune(folder: Path, budget: int) -> None:
    """Delete the least recently used archives until the folder holds at most ``budget`` bytes."""
    files = []
    for path in folder.glob("*" + SUFFIX):
        try:
            stat = path.stat()
        except OSError:
            continue
        files.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):
        if total <= budget:
            break
        path.unlink(missing_ok=True)
        total -= size
