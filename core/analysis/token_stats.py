"""Corpus statistics of a tokeniser over a corpus of any size, counted chunk by chunk.

The token counts behind the distributions of [boundless §4, Figs. 4-7] (token frequency, Rényi
efficiency, bytes per token) and the Zipf view of [knockout §2], exactly as
:func:`core.analysis.corpus_metrics.token_counts` counts them, but streamed: each chunk of the corpus
(:mod:`core.counting.chunks`) is tokenised line by line in a worker
(:func:`core.analysis.corpus_metrics.tally_lines`), the partial tallies are summed by the engine
(:func:`core.counting.engines.map_reduce`), and the sum becomes one
:class:`~core.analysis.corpus_metrics.CorpusStats`. Summing is exact, so the result does not depend on the
chunk size, the number of workers or the engine.

A *stats file* (``structok stats --out stats.json``) is that CorpusStats as JSON with what it
was counted from: ``format``, ``version``, ``tokeniser`` (name and path), ``files`` (path, size
and modification time of each corpus file) and ``seconds``; :func:`read_stats_file` reads one back.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial

from core.analysis.corpus_metrics import CorpusStats, stats_of_tally, tally_lines
from core.counting.chunks import CHUNK_BYTES, Chunk, chunk_lines, corpus_files, plan_chunks
from core.counting.engines import map_reduce
from core.errors import InputError

FORMAT = "corpus-stats"
VERSION = 1


@lru_cache(maxsize=4)
def tokeniser_at(path: str, pretokeniser: str | None = None, pattern: str | None = None):
    """The tokeniser at ``path`` as ``structok segment --tokeniser`` loads it, loaded once per
    process (``pretokeniser``: a name of :data:`core.pipeline.named.CHOICES`)."""
    from core.formats.tokeniser_files import load_tokeniser
    from core.pipeline.named import PRETOKENISERS

    override = PRETOKENISERS[pretokeniser]() if pretokeniser else None
    return load_tokeniser(path, pretokeniser=override, pattern=pattern)


@dataclass(frozen=True)
class ChunkTokenStats:
    """The tally of some lines: token type -> count, and the lines' characters, bytes and number."""

    counts: Mapping[str, int] = field(default_factory=dict)
    characters: int = 0
    bytes: int = 0
    lines: int = 0


def stats_chunk(
    chunk: Chunk, tokeniser_path: str, pretokeniser: str | None = None, pattern: str | None = None
) -> ChunkTokenStats:
    """The tally of the lines of ``chunk``, tokenised with the tokeniser at ``tokeniser_path``."""
    tokeniser = tokeniser_at(tokeniser_path, pretokeniser, pattern)
    counts, characters, n_bytes, lines = tally_lines(tokeniser.tokenise, chunk_lines(chunk))
    return ChunkTokenStats(counts, characters, n_bytes, lines)


def combine_stats(parts: list[ChunkTokenStats]) -> ChunkTokenStats:
    """The sum of tallies (an empty list gives the tally of no lines)."""
    counts: Counter[str] = Counter()
    for part in parts:
        counts.update(part.counts)
    return ChunkTokenStats(
        counts,
        sum(part.characters for part in parts),
        sum(part.bytes for part in parts),
        sum(part.lines for part in parts),
    )


def corpus_stats(
    tokeniser_path: str,
    corpus: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    pretokeniser: str | None = None,
    pattern: str | None = None,
) -> CorpusStats:
    """:func:`core.analysis.corpus_metrics.token_counts` of the tokeniser at ``tokeniser_path`` over the
    lines of ``corpus`` (a file, folder, glob or list: :func:`core.counting.chunks.corpus_files`),
    counted in chunks of about ``chunk_bytes`` by ``workers`` processes or on the Dask cluster
    ``dask``; ``progress(bytes done, bytes in all)`` after each chunk."""
    tokeniser = tokeniser_at(tokeniser_path, pretokeniser, pattern)  # loaded here first: a bad file fails at once
    chunks = plan_chunks(corpus_files(corpus), chunk_bytes)
    task = partial(stats_chunk, tokeniser_path=tokeniser_path, pretokeniser=pretokeniser, pattern=pattern)
    total = map_reduce(task, chunks, combine_stats, workers=workers, dask=dask, progress=progress)
    return stats_of_tally(tokeniser, total.counts, total.characters, total.bytes)


# --- stats files ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class StatsFile:
    """A stats file read back: the statistics, the tokeniser's name and path, the corpus files
    (``path``, ``size``, ``mtime_ns`` each) and the seconds the count took."""

    stats: CorpusStats
    tokeniser: Mapping[str, str]
    files: tuple[Mapping, ...]
    seconds: float

    @property
    def corpus_bytes(self) -> int:
        """Total size of the corpus files, line breaks included."""
        return sum(f["size"] for f in self.files)


def stats_file_json(stats: CorpusStats, tokeniser: Mapping[str, str], files: list[dict], seconds: float) -> dict:
    """The JSON of a stats file (:func:`read_stats_file` reads it)."""
    head = {"format": FORMAT, "version": VERSION, "tokeniser": dict(tokeniser), "files": files, "seconds": seconds}
    return {**head, **stats.to_json()}


def _checked_files(files: object, source: str) -> tuple[Mapping, ...]:
    if not isinstance(files, list) or not files:
        raise InputError("'files' must be a non-empty list of {path, size, mtime_ns}", source)
    for item in files:
        if (
            not isinstance(item, Mapping)
            or not isinstance(item.get("path"), str)
            or isinstance(item.get("size"), bool)
            or not isinstance(item.get("size"), int)
            or item["size"] < 0
        ):
            raise InputError("each of 'files' must be {path: text, size: bytes >= 0, mtime_ns}", source)
    return tuple(files)


def _checked_tokeniser(tokeniser: object, source: str) -> Mapping[str, str]:
    if not isinstance(tokeniser, Mapping) or not all(isinstance(tokeniser.get(k), str) for k in ("name", "path")):
        raise InputError("'tokeniser' must be {name: text, path: text}", source)
    return {"name": tokeniser["name"], "path": tokeniser["path"]}


def read_stats_file(data: bytes | str, source: str) -> StatsFile:
    """A stats file from its bytes; ``source`` (its name) names it in every :class:`InputError`."""
    expected = f"expected a {FORMAT} JSON file as `structok stats` writes it"
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise InputError(f"not JSON ({err}); {expected}", source) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InputError(f'no "format": "{FORMAT}"; {expected}', source)
    if document.get("version") != VERSION:
        raise InputError(f"version {document.get('version')!r} is not {VERSION}; {expected}", source)
    seconds = document.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise InputError("'seconds' must be a number >= 0", source)
    try:
        stats = CorpusStats.from_json(document)
    except InputError as err:
        raise InputError(f"{err.message}; {expected}", source) from None
    return StatsFile(
        stats,
        _checked_tokeniser(document.get("tokeniser"), source),
        _checked_files(document.get("files"), source),
        seconds,
    )
