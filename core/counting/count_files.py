"""Counts files: pretoken counts in Parquet, with the candidate runs of supermerges
([boundless App. B]) in a sibling file, as ``count`` writes them and ``train --counts`` reads them.

No paper section: plumbing. ``counts.parquet`` has the columns ``pretoken`` (string) and ``count``
(int64), sorted by count (highest first) then pretoken; its schema metadata under
:data:`METADATA_KEY` is JSON: ``{"format": "pretoken-counts", "version": 1, "pretokeniser": spec,
"files": fingerprint, "bytes", "lines", "pretokens" (sum of counts), "sequences": file name or
null}``. The runs, when counted, are in ``counts.sequences.parquet``: ``sequence`` (a run's
pretokens joined by ``"\\x00"``) and ``count``. Files are written to a temporary name and moved
into place, so a file that exists is whole.
"""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from core.counting.chunks import fingerprint
from core.counting.corpus import TrainingCorpus
from core.counting.pretoken_counts import PRETOKEN_SCHEMA, SEQUENCE_SCHEMA, ChunkCounts, corpus_from_counts
from core.errors import InputError
from core.limits import MAX_COUNT, MAX_TABLE_BYTES
from core.pipeline import pretokeniser_from_spec
from core.pipeline.base import Pretokeniser

METADATA_KEY = b"structured_tokenisers"
FORMAT = "pretoken-counts"
SEQUENCES_FORMAT = "pretoken-sequences"
VERSION = 1
WRITTEN_BY = "expected a counts file written by the count command"


def sequences_path(path: str | os.PathLike) -> str:
    """``counts.parquet`` -> ``counts.sequences.parquet`` (the runs' file beside the counts)."""
    name = os.fspath(path)
    stem = name[: -len(".parquet")] if name.endswith(".parquet") else name
    return stem + ".sequences.parquet"


def write_table(path: str | os.PathLike, table: pa.Table, metadata: dict) -> None:
    """``table`` with ``metadata`` as Parquet at ``path``, atomically (temporary file, then replace)."""
    target = os.fspath(path)
    temporary = f"{target}.{os.getpid()}.tmp"
    table = table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata, ensure_ascii=False)})
    try:
        pq.write_table(table, temporary)
        os.replace(temporary, target)
    except OSError as err:
        raise InputError(f"cannot write the counts: {err.strerror or err}", target) from None
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_counts(path: str | os.PathLike, counts: ChunkCounts, metadata: dict) -> None:
    """The counts file (and its runs file first, if runs were counted), ``metadata`` extended by
    the format, the totals and the runs file's name."""
    runs_name = None
    if counts.sequences is not None:
        runs_path = sequences_path(path)
        runs_name = os.path.basename(runs_path)
        write_table(runs_path, counts.sequences.sort_by("sequence"), {"format": SEQUENCES_FORMAT, "version": VERSION})
    pretokens = counts.pretokens.sort_by([("count", "descending"), ("pretoken", "ascending")])
    total = pc.sum(pretokens.column("count")).as_py() or 0
    header = {"format": FORMAT, "version": VERSION, **metadata}
    header |= {"bytes": counts.bytes, "lines": counts.lines, "pretokens": total, "sequences": runs_name}
    write_table(path, pretokens, header)


def save_counts(path: str | os.PathLike, counts: ChunkCounts, pretokeniser: Pretokeniser, files: list[str]) -> None:
    """What ``count`` writes: ``counts`` of ``files`` pre-tokenised by ``pretokeniser``."""
    write_counts(path, counts, {"pretokeniser": pretokeniser.to_spec(), "files": fingerprint(files)})


def _read_parquet(path: str) -> pa.Table:
    """The table of a Parquet file, read whole: InputError when it is missing, no Parquet file, or
    larger than :data:`~core.limits.MAX_TABLE_BYTES`."""
    if not os.path.isfile(path):
        raise InputError(f"no such file; {WRITTEN_BY}", path)
    size = os.path.getsize(path)
    if size > MAX_TABLE_BYTES:
        raise InputError(
            f"file is {size:,} bytes, more than {MAX_TABLE_BYTES:,}, the limit of a file read whole (MAX_TABLE_BYTES)",
            path,
        )
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as err:
        raise InputError(f"not a Parquet file ({err}); {WRITTEN_BY}", path) from None


def _metadata(table: pa.Table, expected_format: str, path: str) -> dict:
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise InputError(f"no {expected_format} metadata in this Parquet file; {WRITTEN_BY}", path)
    try:
        metadata = json.loads(raw)
    except ValueError:
        raise InputError(f"its {expected_format} metadata is not JSON; {WRITTEN_BY}", path) from None
    if not isinstance(metadata, dict) or metadata.get("format") != expected_format:
        found = metadata.get("format") if isinstance(metadata, dict) else metadata
        raise InputError(f'expected "format": "{expected_format}", found {found!r}', path)
    if metadata.get("version") != VERSION:
        raise InputError(f"unsupported version {metadata.get('version')!r} (expected {VERSION})", path)
    return metadata


def _check_columns(table: pa.Table, schema: pa.Schema, path: str) -> None:
    """The columns of ``schema``, with no missing values and counts of at least 1."""
    if table.schema.remove_metadata() != schema:
        found = ", ".join(f"{f.name} ({f.type})" for f in table.schema) or "none"
        wanted = " and ".join(f"{f.name} ({f.type})" for f in schema)
        raise InputError(f"expected the columns {wanted}, found {found}", path)
    for column in schema.names:
        missing = table.column(column).null_count
        if missing:
            raise InputError(f"{missing} missing value(s) in column {column!r}", path)
    counts = table.column("count")
    if len(counts) and pc.min(counts).as_py() < 1:
        row = pc.index(pc.less(counts, 1), True).as_py()
        key = table.column(schema.names[0])[row].as_py()
        found = counts[row].as_py()
        raise InputError(f"count {found} for {key!r} (row {row + 1}); expected counts of at least 1", path)
    key_column = table.column(schema.names[0])
    if pc.count_distinct(key_column).as_py() != len(key_column):
        raise InputError(f"a {schema.names[0]} appears in more than one row; expected each once", path)
    _check_total(table, path)


def _check_total(table: pa.Table, path: str) -> None:
    """InputError when the counts describe a text of more than :data:`~core.limits.MAX_COUNT`
    characters, each count times its key's length + 1 (as for a word-count file; a count itself is
    an int64, so at most that)."""
    lengths = pc.add(pc.utf8_length(table.column(0)).cast(pa.int64()), 1)
    try:
        sizes = pc.multiply_checked(table.column("count"), lengths).to_numpy()
    except pa.ArrowInvalid:  # one product beyond int64
        total = MAX_COUNT + 1
    else:  # exact: the high and low 32 bits of each (non-negative) product summed apart
        total = (int((sizes >> 32).sum()) << 32) + int((sizes & 0xFFFFFFFF).sum())
    if total > MAX_COUNT:
        raise InputError(f"the counts describe a text of more than {MAX_COUNT:,} characters (2**63-1), the limit", path)


def read_counts(path: str | os.PathLike) -> tuple[ChunkCounts, dict]:
    """The counts (and runs) of a counts file, with its metadata; InputError naming the file that
    is not such a file (not Parquet, other columns, other format, bad counts, no rows)."""
    name = os.fspath(path)
    table = _read_parquet(name)
    metadata = _metadata(table, FORMAT, name)
    _check_columns(table, PRETOKEN_SCHEMA, name)
    if table.num_rows == 0:
        raise InputError("no pretokens in this counts file; expected at least one row", name)
    runs = None
    if metadata.get("sequences") is not None:
        runs_name = os.path.join(os.path.dirname(name), str(metadata["sequences"]))
        runs = _read_parquet(runs_name)
        _metadata(runs, SEQUENCES_FORMAT, runs_name)
        _check_columns(runs, SEQUENCE_SCHEMA, runs_name)
        runs = runs.replace_schema_metadata(None)
    counts = ChunkCounts(
        table.replace_schema_metadata(None), runs, int(metadata.get("bytes", 0)), int(metadata.get("lines", 0))
    )
    return counts, metadata


def load_counts(path: str | os.PathLike, expected_pretokeniser: Pretokeniser | None = None) -> TrainingCorpus:
    """The training corpus of a counts file (with its runs when counted); InputError naming the
    file when it is not a counts file, or was counted with another pre-tokeniser than
    ``expected_pretokeniser``."""
    name = os.fspath(path)
    counts, metadata = read_counts(name)
    try:
        pretokeniser = pretokeniser_from_spec(metadata.get("pretokeniser"))
    except InputError as err:
        raise InputError(f"field 'pretokeniser' of its metadata: {err.message}", name) from None
    if expected_pretokeniser is not None and expected_pretokeniser != pretokeniser:
        raise InputError(
            f"counted with the pretokeniser {pretokeniser!r}, not the requested {expected_pretokeniser!r}; "
            "count the corpus again with that pretokeniser, or leave the pretokeniser out",
            name,
        )
    corpus = corpus_from_counts(counts, pretokeniser, name)
    del counts
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed tables' memory otherwise
    return corpus
