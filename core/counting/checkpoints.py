"""Resumable counting: every counted chunk is kept in a parts folder beside the output
(``counts.parquet.parts/``), so a run stopped by Ctrl-C or a killed worker resumes where it was.

No paper section: plumbing. The folder holds ``manifest.json`` (what is counted: the files'
fingerprint, the pre-tokeniser, whether runs are counted, the chunk size and the chunks) and one
counts file per finished chunk (``part-000012.parquet``, written atomically as the chunk's
result arrives). A rerun with the same manifest counts only the missing chunks; a different one is
refused, naming what changed. Dask runs combine their results on the cluster and keep no parts.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool

from core.counting.chunks import Chunk, fingerprint
from core.counting.count_files import read_counts, write_counts
from core.counting.engines import map_reduce
from core.counting.pretoken_counts import ChunkCounts, combine_counts
from core.errors import InputError
from core.pipeline.base import Pretokeniser

MANIFEST = "manifest.json"
FORMAT = "count-parts"
VERSION = 1
#: manifest field -> what it means to the user when it changed
FIELDS = {
    "files": "the corpus files (a file was added, removed or changed)",
    "pretokeniser": "the pretokeniser",
    "sequences": "whether supermerge runs are counted (--sequences)",
    "chunk_bytes": "the chunk size (--chunk-mb)",
    "chunks": "the chunks of the corpus",
}


class CountInterrupted(Exception):
    """Counting stopped (Ctrl-C, a killed worker); the message says what was kept and how to resume."""


def parts_folder(out: str | os.PathLike) -> str:
    """The parts folder of the counts file ``out``."""
    return os.fspath(out) + ".parts"


def part_path(folder: str, chunk: Chunk) -> str:
    return os.path.join(folder, f"part-{chunk.index:06d}.parquet")


def _manifest(files: list[str], spec: dict, sequences: bool, chunk_bytes: int, chunks: list[Chunk]) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "files": fingerprint(files),
        "pretokeniser": spec,
        "sequences": sequences,
        "chunk_bytes": chunk_bytes,
        "chunks": [[c.path, c.start, c.end] for c in chunks],
    }


def _check_manifest(folder: str, manifest: dict) -> None:
    """Start a new parts folder, or check that the one there counts the same thing."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        with open(path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(manifest, handle)
        os.replace(path + ".tmp", path)
        return
    advice = f"delete the folder {folder} to count afresh"
    try:
        with open(path, encoding="utf-8") as handle:
            found = json.load(handle)
    except (OSError, ValueError) as err:
        raise InputError(f"not a manifest of counted chunks ({err}); {advice}", path) from None
    if not isinstance(found, dict) or (found.get("format"), found.get("version")) != (FORMAT, VERSION):
        raise InputError(f"not a manifest of counted chunks of this version; {advice}", path)
    changed = [meaning for field, meaning in FIELDS.items() if found.get(field) != manifest[field]]
    if changed:
        raise InputError(f"these chunks were counted for another run: {'; '.join(changed)} changed; {advice}", path)


def _saved(folder: str, chunks: list[Chunk]) -> list[Chunk]:
    """The chunks whose part is in the folder."""
    return [c for c in chunks if os.path.exists(part_path(folder, c))]


def resumable_counts(
    folder: str | os.PathLike,
    files: list[str],
    pretokeniser: Pretokeniser,
    sequences: bool,
    chunk_bytes: int,
    chunks: list[Chunk],
    task: Callable[[Chunk], ChunkCounts],
    *,
    workers: int | None,
    progress: Callable[[int, int], None] | None,
    notice: Callable[[str], None] | None = None,
) -> ChunkCounts:
    """:func:`core.counting.engines.map_reduce` of ``task`` over the chunks not yet in ``folder``,
    with the parts there; each new result is saved as it arrives. CountInterrupted on Ctrl-C or
    when a worker process dies; ``notice`` hears that a run resumes."""
    folder = os.fspath(folder)
    spec = pretokeniser.to_spec()
    _check_manifest(folder, _manifest(files, spec, sequences, chunk_bytes, chunks))
    done = _saved(folder, chunks)
    parts = [read_counts(part_path(folder, c))[0] for c in done]
    if done and notice is not None:
        notice(f"resuming: {len(done)} of {len(chunks)} chunks already counted (in {folder})")
    finished = {c.index for c in done}
    todo = [c for c in chunks if c.index not in finished]
    already, total = sum(c.size for c in done), sum(c.size for c in chunks)

    def save(chunk: Chunk, result: ChunkCounts) -> None:
        write_counts(part_path(folder, chunk), result, {"pretokeniser": spec, "files": [], "chunk": chunk.index})

    def shifted(bytes_done: int, _: int) -> None:
        if progress is not None:
            progress(already + bytes_done, total)

    try:
        return map_reduce(
            task,
            todo,
            combine_counts,
            workers=workers,
            progress=shifted,
            done=[combine_counts(parts)] if parts else [],
            on_result=save,
        )
    except (KeyboardInterrupt, BrokenProcessPool) as err:
        saved = len(_saved(folder, chunks))
        cause = "interrupted" if isinstance(err, KeyboardInterrupt) else "interrupted (a worker process ended)"
        raise CountInterrupted(
            f"{cause}: {saved} of {len(chunks)} chunks saved in {folder}; run the same command again to resume"
        ) from None


def remove_parts(folder: str | os.PathLike) -> None:
    """Delete a parts folder once the counts file it was for is written."""
    shutil.rmtree(folder, ignore_errors=True)
