"""Pretoken counts of a corpus of any size, and the runs supermerges need ([boundless App. B]),
counted chunk by chunk and combined by an engine (:mod:`core.counting.engines`).

Every line is pre-tokenised exactly as :meth:`core.counting.corpus.TrainingCorpus.from_texts` does it
(``line.rstrip("\\r\\n")``, empty pretokens dropped) and its candidate runs are those of
:meth:`core.counting.sequences.PretokenSequences.from_documents`, so counting a corpus gives the
same training corpus as reading it whole. Partial counts are Arrow tables (``pretoken``/``count``,
``sequence``/``count``, a run's pretokens joined by ``"\\x00"``), summed with ``group_by``.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from core.counting.chunks import Chunk, chunk_lines
from core.counting.corpus import TrainingCorpus, initial_alphabet
from core.counting.pretoken_counter import PretokenCounter
from core.counting.sequences import CandidateTest, PretokenSequences, candidate_runs
from core.errors import InputError
from core.pipeline import pretokeniser_from_spec
from core.pipeline.base import Pretokeniser

#: separator of a run's pretokens in the ``sequence`` column (no corpus line holds a NUL byte)
SEPARATOR = "\x00"
PRETOKEN_SCHEMA = pa.schema([("pretoken", pa.string()), ("count", pa.int64())])
SEQUENCE_SCHEMA = pa.schema([("sequence", pa.string()), ("count", pa.int64())])


@dataclass(frozen=True)
class ChunkCounts:
    """What one chunk (or several, combined) holds: pretoken counts, candidate-run counts (None
    when runs are not counted), and the bytes and lines read."""

    pretokens: pa.Table
    sequences: pa.Table | None
    bytes: int
    lines: int

    def __reduce__(self):
        """Pickles the tables as single chunks: ``group_by`` returns slices of shared buffers, and
        pickling a slice writes its whole buffer, so a combined table of k chunks pickled to k times
        its size (a Dask worker sending partial counts on ran out of memory)."""
        tables = (_contiguous(self.pretokens), None if self.sequences is None else _contiguous(self.sequences))
        return ChunkCounts, (*tables, self.bytes, self.lines)


def _contiguous(table: pa.Table) -> pa.Table:
    """``table`` with one chunk per column (itself when it has one already)."""
    return table if all(column.num_chunks <= 1 for column in table.columns) else table.combine_chunks()


@functools.lru_cache(maxsize=8)
def _pretokeniser(spec_json: str) -> Pretokeniser:
    """One pre-tokeniser per spec and process (a worker counts many chunks)."""
    return pretokeniser_from_spec(json.loads(spec_json))


class _Candidates(dict):
    """pretoken -> whether it can join a supermerge: :class:`CandidateTest` asked once per
    pretoken, then answered by a plain dict lookup (the hot path of counting runs)."""

    def __init__(self, byte_level: bool):
        super().__init__()
        self.test = CandidateTest(byte_level)

    def __missing__(self, pretoken: str) -> bool:
        known = self[pretoken] = self.test(pretoken)
        return known


@functools.lru_cache(maxsize=8)
def _candidate_test(byte_level: bool) -> Callable[[str], bool]:
    """The letter test with its memory, kept across the chunks a process counts."""
    return _Candidates(byte_level).__getitem__


def _table(counter: Counter, schema: pa.Schema) -> pa.Table:
    return pa.table([pa.array(list(counter), pa.string()), pa.array(list(counter.values()), pa.int64())], schema=schema)


def count_chunk(chunk: Chunk, spec: dict, sequences: bool) -> ChunkCounts:
    """Pretoken counts (and candidate-run counts if ``sequences``) of the lines of ``chunk``,
    pre-tokenised by the pre-tokeniser ``spec`` describes (:class:`PretokenCounter`); equal lines
    are pre-tokenised once."""
    pretokeniser = _pretokeniser(json.dumps(spec, sort_keys=True))
    counter = PretokenCounter(pretokeniser)
    add, pretokens = counter.add, counter.pretokens
    runs: Counter[str] = Counter()
    is_candidate = _candidate_test(bool(initial_alphabet(pretokeniser)))
    lines = Counter(chunk_lines(chunk))
    for line, times in lines.items():
        found = add(line.rstrip("\r\n"), times)
        if sequences:
            for run in candidate_runs(pretokens(found), is_candidate):
                runs[SEPARATOR.join(run)] += times
    return ChunkCounts(
        _table(counter.counts(), PRETOKEN_SCHEMA),
        _table(runs, SEQUENCE_SCHEMA) if sequences else None,
        chunk.size,
        lines.total(),
    )


def _summed(tables: list[pa.Table], key: str) -> pa.Table:
    """One row per distinct ``key`` with the sum of its counts."""
    if len(tables) == 1:
        return tables[0]
    summed = pa.concat_tables(tables).group_by(key).aggregate([("count", "sum")])
    return summed.rename_columns({"count_sum": "count"}).select([key, "count"])


def combine_counts(parts: list[ChunkCounts]) -> ChunkCounts:
    """The counts of all ``parts`` together (runs only if every part has them)."""
    if not parts:
        raise InputError("nothing to combine: no chunk was counted")
    runs = [p.sequences for p in parts]
    combined = ChunkCounts(
        _summed([p.pretokens for p in parts], "pretoken"),
        None if any(r is None for r in runs) else _summed([r for r in runs if r is not None], "sequence"),
        sum(p.bytes for p in parts),
        sum(p.lines for p in parts),
    )
    # Arrow's allocator keeps what earlier inputs and the grouping freed; Dask workers holding it
    # between combines grew past their memory limit on 1 GB of text
    pa.default_memory_pool().release_unused()
    return combined


def sequences_from_table(table: pa.Table) -> PretokenSequences:
    """Candidate runs as :class:`PretokenSequences` (runs in sorted order, pretoken ids in order of
    first appearance, as :meth:`PretokenSequences.from_counts` makes them), built column-wise."""
    table = table.sort_by("sequence")
    split = pc.split_pattern(table.column("sequence").combine_chunks(), SEPARATOR)
    encoded = pc.list_flatten(split).dictionary_encode()
    return PretokenSequences(
        tuple(encoded.dictionary.to_pylist()),
        encoded.indices.to_numpy(zero_copy_only=False).astype("int32"),
        split.offsets.to_numpy().astype("int64"),
        table.column("count").to_numpy().astype("int64"),
    )


def corpus_from_counts(counts: ChunkCounts, pretokeniser: Pretokeniser, source: str = "<counts>") -> TrainingCorpus:
    """The training corpus of combined counts (InputError naming ``source`` when they are empty)."""
    table = counts.pretokens
    if table.num_rows == 0:
        raise InputError("empty corpus: no pretokens to train on", source)
    pretoken_counts = dict(zip(table.column("pretoken").to_pylist(), table.column("count").to_pylist(), strict=True))
    runs = None if counts.sequences is None else sequences_from_table(counts.sequences)
    return TrainingCorpus.from_pretoken_counts(pretoken_counts, pretokeniser, runs)


def wants_sequences(pretokeniser: Pretokeniser) -> bool:
    """Whether runs are counted by default: for BoundlessBPE's own byte-level pattern."""
    return pretokeniser.to_spec().get("pattern") == "boundless" and bool(initial_alphabet(pretokeniser))
