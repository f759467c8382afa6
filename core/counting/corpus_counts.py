"""Counting a whole corpus: its files cut into chunks (:mod:`core.counting.chunks`), each counted
by :func:`core.counting.pretoken_counts.count_chunk` on the chosen engine
(:mod:`core.counting.engines`), resumable through a parts folder (:mod:`core.counting.checkpoints`).
No paper section: plumbing for training at the papers' corpus scale."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable

from core.counting.checkpoints import remove_parts, resumable_counts
from core.counting.chunks import CHUNK_BYTES, corpus_files, plan_chunks
from core.counting.corpus import TrainingCorpus
from core.counting.engines import map_reduce
from core.counting.pretoken_counts import ChunkCounts, combine_counts, corpus_from_counts, count_chunk, wants_sequences
from core.errors import InputError
from core.pipeline.base import Pretokeniser


def count_text(
    files: list[str],
    pretokeniser: Pretokeniser,
    *,
    sequences: bool,
    workers: int | None = None,
    dask: str | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[int, int], None] | None = None,
    checkpoint: str | os.PathLike | None = None,
    notice: Callable[[str], None] | None = None,
) -> ChunkCounts:
    """The combined counts of ``files``, cut into chunks of about ``chunk_bytes``; with
    ``checkpoint`` (a parts folder, :mod:`core.counting.checkpoints`) every counted chunk is
    kept there and a rerun counts only the others (``notice`` hears that it resumes)."""
    task = functools.partial(count_chunk, spec=pretokeniser.to_spec(), sequences=sequences)
    chunks = plan_chunks(files, chunk_bytes)
    if not chunks:
        raise InputError("empty corpus: every file is empty", files[0] if len(files) == 1 else "<corpus>")
    if checkpoint is None:
        return map_reduce(task, chunks, combine_counts, workers=workers, dask=dask, progress=progress)
    if dask is not None:
        raise InputError("a Dask run writes no checkpoint and cannot be resumed: count without checkpoint")
    return resumable_counts(
        checkpoint,
        files,
        pretokeniser,
        sequences,
        chunk_bytes,
        chunks,
        task,
        workers=workers,
        progress=progress,
        notice=notice,
    )


def count_corpus(
    corpus: str | os.PathLike | Iterable[str | os.PathLike],
    pretokeniser: Pretokeniser,
    *,
    sequences: bool | None = None,
    workers: int | None = None,
    dask: str | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[int, int], None] | None = None,
    checkpoint: str | os.PathLike | None = None,
) -> TrainingCorpus:
    """The training corpus of a file, folder or glob (:func:`core.counting.chunks.corpus_files`),
    counted in chunks by ``workers`` processes (default all cores) or on a Dask cluster
    (``dask``: ``"local"`` or a scheduler address); equal to ``TrainingCorpus.from_texts`` of its
    lines, without the documents but with their candidate runs when ``sequences`` (default: for
    BoundlessBPE's own pre-tokeniser). ``progress(bytes done, bytes in all)``; ``checkpoint``: a
    parts folder to resume from (:mod:`core.counting.checkpoints`), removed once all is counted."""
    files = corpus_files(corpus)
    chosen = wants_sequences(pretokeniser) if sequences is None else sequences
    counts = count_text(
        files,
        pretokeniser,
        sequences=chosen,
        workers=workers,
        dask=dask,
        chunk_bytes=chunk_bytes,
        progress=progress,
        checkpoint=checkpoint,
    )
    if checkpoint is not None:
        remove_parts(checkpoint)
    return corpus_from_counts(counts, pretokeniser, files[0] if len(files) == 1 else "<corpus>")
