"""Counting a corpus in chunks, in this process or in a pool, gives exactly the training corpus of
reading it whole: the same pretoken counts and the same candidate runs of supermerges."""

from __future__ import annotations

import itertools
import os
import pickle
import tempfile
from collections import Counter

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.counting.chunks import Chunk, plan_chunks
from core.counting.corpus import TrainingCorpus
from core.counting.corpus_counts import count_corpus
from core.counting.pretoken_counter import PretokenCounter
from core.counting.pretoken_counts import (
    ChunkCounts,
    combine_counts,
    count_chunk,
    sequences_from_table,
    wants_sequences,
)
from core.counting.sequences import PretokenSequences
from core.errors import InputError
from core.formats.corpora import iter_text_lines
from core.formats.samples import running_text
from core.pipeline.named import PRETOKENISERS

LINES = list(itertools.islice(running_text(), 300))
#: what real files hold besides plain lines: a BOM, CRLF ends, blank lines, stray \r, non-ASCII
AWKWARD = "\ufeffFirst line\r\n\r\n  café naïve — 日本語 text\r\nemoji 🙂 here\n\n\rtrailing\r\r\nlast without end"


def written(folder, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as handle:
        handle.write(text.encode("utf-8"))
    return path


def reference(path: str, pretokeniser) -> TrainingCorpus:
    return TrainingCorpus.from_texts(iter_text_lines(path), pretokeniser)


def assert_same(counted: TrainingCorpus, whole: TrainingCorpus) -> None:
    assert counted.pretoken_counts == whole.pretoken_counts
    assert counted.documents is None
    assert counted.supermerge_sequences is not None and whole.supermerge_sequences is not None
    assert counted.supermerge_sequences.as_dict() == whole.supermerge_sequences.as_dict()


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("corpus")
    return written(folder, "text.txt", AWKWARD + "\n" + "\n".join(LINES) + "\n")


@pytest.mark.parametrize("name", ["boundless", "bytelevel", "metaspace", "whitespace", "sentencepiece"])
@pytest.mark.parametrize(("workers", "chunk_bytes"), [(1, 1 << 20), (1, 97), (2, 4000), (2, 1000)])
def test_counting_in_chunks_equals_reading_the_text_whole(corpus_file, name, workers, chunk_bytes):
    pretokeniser = PRETOKENISERS[name]()
    counted = count_corpus(corpus_file, pretokeniser, sequences=True, workers=workers, chunk_bytes=chunk_bytes)
    assert_same(counted, reference(corpus_file, pretokeniser))


def test_a_folder_of_files_counts_as_their_lines_together(tmp_path):
    pretokeniser = PRETOKENISERS["boundless"]()
    written(tmp_path, "a.txt", "\n".join(LINES[:100]))
    written(tmp_path, "b.txt", "\n".join(LINES[100:]) + "\n")
    counted = count_corpus(tmp_path, pretokeniser, workers=2, chunk_bytes=5000)
    assert_same(counted, TrainingCorpus.from_texts(LINES, pretokeniser))


def test_runs_are_counted_by_default_only_for_boundless_own_pretokeniser(corpus_file):
    assert wants_sequences(PRETOKENISERS["boundless"]())
    assert not any(wants_sequences(PRETOKENISERS[n]()) for n in PRETOKENISERS if n != "boundless")
    assert count_corpus(corpus_file, PRETOKENISERS["boundless"](), workers=1).sequences is not None
    plain = count_corpus(corpus_file, PRETOKENISERS["bytelevel"](), workers=1)
    assert plain.sequences is None and plain.supermerge_sequences is None


def test_progress_reports_bytes_up_to_the_corpus_size(corpus_file):
    reports: list[tuple[int, int]] = []
    count_corpus(
        corpus_file, PRETOKENISERS["bytelevel"](), workers=1, chunk_bytes=2000, progress=lambda *r: reports.append(r)
    )
    size = os.path.getsize(corpus_file)
    assert len(reports) == len(plan_chunks([corpus_file], 2000))
    assert {total for _, total in reports} == {size} and reports[-1][0] == size
    assert [done for done, _ in reports] == sorted(done for done, _ in reports)


def test_a_chunk_knows_its_bytes_and_lines_and_chunks_add_up(corpus_file):
    spec = PRETOKENISERS["bytelevel"]().to_spec()
    parts = [count_chunk(c, spec, True) for c in plan_chunks([corpus_file], 300)]
    whole = count_chunk(Chunk(corpus_file, 0, os.path.getsize(corpus_file), 0), spec, True)
    combined = combine_counts(parts)
    assert combined.bytes == whole.bytes == os.path.getsize(corpus_file)
    assert combined.lines == whole.lines == len(list(iter_text_lines(corpus_file)))
    assert combined.pretokens.sort_by("pretoken").equals(whole.pretokens.sort_by("pretoken"))
    assert combined.sequences is not None and whole.sequences is not None
    assert combined.sequences.sort_by("sequence").equals(whole.sequences.sort_by("sequence"))


def test_combining_keeps_runs_only_when_every_part_has_them():
    table = pa.table({"pretoken": ["a", "b"], "count": pa.array([2, 3], pa.int64())})
    runs = pa.table({"sequence": ["a\x00b"], "count": pa.array([1], pa.int64())})
    with_runs, without = ChunkCounts(table, runs, 5, 1), ChunkCounts(table, None, 5, 1)
    both = combine_counts([with_runs, with_runs])
    assert dict(zip(*both.pretokens.sort_by("pretoken").to_pydict().values(), strict=True)) == {"a": 4, "b": 6}
    assert both.sequences is not None and both.sequences.to_pydict() == {"sequence": ["a\x00b"], "count": [2]}
    assert (both.bytes, both.lines) == (10, 2)
    assert combine_counts([with_runs, without]).sequences is None
    with pytest.raises(InputError, match="no chunk"):
        combine_counts([])


def test_combined_counts_pickle_at_their_size_and_round_trip():
    """A Dask worker pickles partial counts; group_by's output is slices of shared buffers, which
    pickled as whole buffers per slice (k times the table) until ChunkCounts compacted them."""
    parts = [
        ChunkCounts(
            pa.table(
                {"pretoken": [f"w{part}-{i}" for i in range(40_000)], "count": pa.array([1] * 40_000, pa.int64())}
            ),
            None,
            1,
            1,
        )
        for part in range(4)
    ]
    combined = combine_counts(parts)
    assert combined.pretokens.column("pretoken").num_chunks > 1  # else this test shows nothing
    data = pickle.dumps(combined, protocol=5)
    assert len(data) < 1.5 * combined.pretokens.nbytes
    back = pickle.loads(data)
    assert back.pretokens.equals(combined.pretokens) and (back.bytes, back.lines) == (4, 4)


def test_runs_from_a_table_are_the_runs_from_counts_array_for_array():
    runs = {("Ġthe", "Ġcat"): 3, ("Ġa", "Ġcat", "Ġsat"): 1, ("b", "Ġthe"): 2}
    table = pa.table({"sequence": ["\x00".join(r) for r in runs], "count": pa.array(list(runs.values()), pa.int64())})
    built, expected = sequences_from_table(table), PretokenSequences.from_counts(runs)
    assert built.pretokens == expected.pretokens
    for field in ("ids", "offsets", "counts"):
        assert getattr(built, field).dtype == getattr(expected, field).dtype
        assert getattr(built, field).tolist() == getattr(expected, field).tolist()


def test_bad_text_and_empty_corpora_are_refused_with_the_file(tmp_path):
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"fine\nbad \x00 byte\n")
    with pytest.raises(InputError) as err:
        count_corpus(nul, PRETOKENISERS["bytelevel"](), workers=1)
    assert err.value.source == str(nul) and err.value.line == 2
    blank = written(tmp_path, "blank.txt", "\n \n")
    with pytest.raises(InputError, match="empty corpus") as err:
        count_corpus(blank, PRETOKENISERS["whitespace"](), workers=1)
    assert err.value.source == blank
    empty = written(tmp_path, "empty.txt", "")
    with pytest.raises(InputError, match="empty"):
        count_corpus(empty, PRETOKENISERS["bytelevel"](), workers=1)


LINE_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\n"), max_size=30
) | st.sampled_from(["", " ", "\r", "the cat's 12 hats", "  naïve café", "日本語 と text", "x\ry"])


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(LINE_TEXT, min_size=1, max_size=12),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_newline=st.booleans(),
    chunk_bytes=st.integers(1, 64),
    name=st.sampled_from(["boundless", "bytelevel", "metaspace"]),
)
def test_any_text_counts_as_it_reads_whole(lines, crlf, bom, final_newline, chunk_bytes, name):
    text = ("\ufeff" if bom else "") + ("\r\n" if crlf else "\n").join(lines) + ("\n" if final_newline else "")
    pretokeniser = PRETOKENISERS[name]()
    with tempfile.TemporaryDirectory() as folder:
        path = written(folder, "t.txt", text)
        try:
            whole = reference(path, pretokeniser)
        except InputError:
            with pytest.raises(InputError):
                count_corpus(path, pretokeniser, sequences=True, workers=1, chunk_bytes=chunk_bytes)
            return
        assert_same(count_corpus(path, pretokeniser, sequences=True, workers=1, chunk_bytes=chunk_bytes), whole)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(st.sampled_from(list("ab Zé日'’-1 \t.,")) | st.characters(blacklist_categories=("Cs",)), max_size=40),
    name=st.sampled_from(sorted(PRETOKENISERS)),
)
def test_pretokens_are_the_encoded_pieces_counting_relies_on(text, name):
    """Counting counts pieces and encodes each distinct one once: that must give ``pretokenise``."""
    pretokeniser = PRETOKENISERS[name]()
    assert [pretokeniser.encode_piece(p) for p in pretokeniser.pieces(text)] == pretokeniser.pretokenise(text)


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.tuples(LINE_TEXT, st.integers(0, 3)), max_size=8),
    name=st.sampled_from(sorted(PRETOKENISERS)),
)
def test_the_pretoken_counter_counts_what_pretokenise_gives_in_order_of_first_appearance(texts, name):
    pretokeniser = PRETOKENISERS[name]()
    counter = PretokenCounter(pretokeniser)
    expected: Counter[str] = Counter()
    for text, times in texts:
        pretokens = tuple(p for p in pretokeniser.pretokenise(text) if p)
        assert counter.pretokens(counter.add(text, times)) == pretokens
        for pretoken in pretokens:
            expected[pretoken] += times
    counter.add_pretokens(["", "ab"])
    expected["ab"] += 1
    assert list(counter.counts().items()) == list(expected.items())
