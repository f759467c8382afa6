"""Counts files: what count writes reads back as the same training corpus, carries its metadata,
and a file that is not one is refused naming the file and what was expected."""

from __future__ import annotations

import itertools
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import core
from core.counting.chunks import fingerprint
from core.counting.corpus import TrainingCorpus
from core.counting.corpus_counts import count_text
from core.counting.count_files import (
    METADATA_KEY,
    load_counts,
    read_counts,
    save_counts,
    sequences_path,
    write_table,
)
from core.counting.pretoken_counts import corpus_from_counts
from core.errors import InputError
from core.families.registry import training_corpus
from core.formats.samples import running_text
from core.pipeline.named import PRETOKENISERS

LINES = list(itertools.islice(running_text(), 200))


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    """(text file, counts, counts file) for the boundless pretokeniser, runs counted."""
    folder = tmp_path_factory.mktemp("counted")
    text = folder / "text.txt"
    text.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    counts = count_text([str(text)], PRETOKENISERS["boundless"](), sequences=True, workers=1, chunk_bytes=3000)
    out = folder / "counts.parquet"
    save_counts(out, counts, PRETOKENISERS["boundless"](), [str(text)])
    return str(text), counts, str(out)


def test_a_saved_file_loads_as_the_corpus_it_was_counted_from(counted):
    _, _, out = counted
    loaded = load_counts(out)
    whole = TrainingCorpus.from_texts(LINES, PRETOKENISERS["boundless"]())
    assert loaded.pretokeniser == whole.pretokeniser
    assert loaded.pretoken_counts == whole.pretoken_counts
    assert loaded.supermerge_sequences is not None and whole.supermerge_sequences is not None
    assert loaded.supermerge_sequences.as_dict() == whole.supermerge_sequences.as_dict()


def test_the_file_holds_sorted_counts_and_says_what_was_counted(counted):
    text, counts, out = counted
    table = pq.read_table(out)
    metadata = json.loads(table.schema.metadata[METADATA_KEY])
    assert table.column_names == ["pretoken", "count"]
    rows = list(zip(table.column("count").to_pylist(), table.column("pretoken").to_pylist(), strict=True))
    assert rows == sorted(rows, key=lambda r: (-r[0], r[1]))
    assert metadata == {
        "format": "pretoken-counts",
        "version": 1,
        "pretokeniser": PRETOKENISERS["boundless"]().to_spec(),
        "files": fingerprint([text]),
        "bytes": os.path.getsize(text),
        "lines": len(LINES),
        "pretokens": sum(counts.pretokens.column("count").to_pylist()),
        "sequences": "counts.sequences.parquet",
    }
    runs = pq.read_table(sequences_path(out))
    assert runs.column_names == ["sequence", "count"] and runs.num_rows == counts.sequences.num_rows
    assert not [name for name in os.listdir(os.path.dirname(out)) if name.endswith(".tmp")]


def test_counts_without_runs_have_no_runs_file(tmp_path, counted):
    _, counts, _ = counted
    out = tmp_path / "plain.parquet"
    save_counts(out, counts.__class__(counts.pretokens, None, 1, 1), PRETOKENISERS["boundless"](), [])
    assert json.loads(pq.read_table(out).schema.metadata[METADATA_KEY])["sequences"] is None
    assert not os.path.exists(sequences_path(out))
    assert load_counts(out).sequences is None


def test_the_python_api_trains_from_the_file_as_from_the_text(counted):
    _, _, out = counted
    from_file = core.train("bpe", out, 400)
    from_text = core.train("bpe", LINES, 400, pretokeniser="boundless")
    assert from_file.tokeniser.to_json()["merges"] == from_text.tokeniser.to_json()["merges"]
    assert training_corpus("bpe", out).pretoken_counts == load_counts(out).pretoken_counts


def test_a_different_pretokeniser_than_the_files_is_refused(counted):
    _, _, out = counted
    assert load_counts(out, PRETOKENISERS["boundless"]()).pretoken_counts
    with pytest.raises(InputError, match="counted with the pretokeniser") as err:
        load_counts(out, PRETOKENISERS["bytelevel"]())
    assert err.value.source == out
    with pytest.raises(InputError, match="counted with the pretokeniser"):
        core.train("bpe", out, 300, pretokeniser="metaspace")


def test_boundless_needs_the_runs(tmp_path, counted):
    _, counts, _ = counted
    out = tmp_path / "plain.parquet"
    save_counts(out, counts.__class__(counts.pretokens, None, 1, 1), PRETOKENISERS["boundless"](), [])
    with pytest.raises(InputError, match="--sequences") as err:
        core.train("boundless", out, 300)
    assert err.value.source == str(out)


def pretokens(rows: dict) -> pa.Table:
    return pa.table({"pretoken": pa.array(list(rows), pa.string()), "count": pa.array(list(rows.values()), pa.int64())})


GOOD = {"format": "pretoken-counts", "version": 1, "pretokeniser": {"kind": "whitespace_split"}, "sequences": None}


@pytest.mark.parametrize(
    ("table", "metadata", "message"),
    [
        (pa.table({"word": ["a"], "count": pa.array([1], pa.int64())}), GOOD, "expected the columns pretoken"),
        (pa.table({"pretoken": ["a"], "count": pa.array([1.5])}), GOOD, r"count \(int64\), found"),
        (pretokens({"a": 3, "b": -2}), GOOD, "count -2 for 'b' .row 2.; expected counts of at least 1"),
        (pretokens({"a": 0}), GOOD, "count 0 for 'a'"),
        (pretokens({}), GOOD, "no pretokens"),
        (pa.table({"pretoken": ["a", None], "count": pa.array([1, 2], pa.int64())}), GOOD, "missing value"),
        (pa.table({"pretoken": ["a", "a"], "count": pa.array([1, 2], pa.int64())}), GOOD, "more than one row"),
        (pretokens({"a": 1}), None, "no pretoken-counts metadata"),
        (pretokens({"a": 1}), {**GOOD, "format": "corpus-stats"}, 'expected "format": "pretoken-counts"'),
        (pretokens({"a": 1}), {**GOOD, "version": 2}, "unsupported version 2"),
        (pretokens({"a": 1}), {**GOOD, "pretokeniser": {"kind": "nope"}}, "field 'pretokeniser'"),
        (pretokens({"a": 1}), {**GOOD, "sequences": "gone.parquet"}, "no such file"),
    ],
)
def test_bad_counts_files_are_refused_naming_the_file(tmp_path, table, metadata, message):
    path = tmp_path / "bad.parquet"
    if metadata is None:
        pq.write_table(table, path)
    else:
        write_table(path, table, metadata)
    with pytest.raises(InputError, match=message) as err:
        load_counts(path)
    assert err.value.source in (str(path), str(tmp_path / "gone.parquet"))


def test_a_file_that_is_not_parquet_is_refused(tmp_path):
    path = tmp_path / "counts.parquet"
    path.write_text("word\t3\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a Parquet file") as err:
        read_counts(path)
    assert err.value.source == str(path)
    with pytest.raises(InputError, match="no such file"):
        read_counts(tmp_path / "missing.parquet")


def test_a_bad_runs_file_is_refused_naming_it(tmp_path, counted):
    _, counts, _ = counted
    out = tmp_path / "c.parquet"
    save_counts(out, counts, PRETOKENISERS["boundless"](), [])
    write_table(sequences_path(out), pretokens({"a": 1}), {"format": "pretoken-sequences", "version": 1})
    with pytest.raises(InputError, match="expected the columns sequence") as err:
        load_counts(out)
    assert err.value.source == sequences_path(out)


def test_writing_where_it_cannot_leaves_nothing_behind(tmp_path, counted):
    _, counts, _ = counted
    with pytest.raises(InputError, match="cannot write"):
        write_table(tmp_path / "no" / "such" / "folder.parquet", counts.pretokens, GOOD)
    assert os.listdir(tmp_path) == []


def test_an_empty_count_is_an_empty_corpus(counted):
    _, counts, _ = counted
    empty = counts.__class__(counts.pretokens.slice(0, 0), None, 0, 0)
    with pytest.raises(InputError, match="empty corpus") as err:
        corpus_from_counts(empty, PRETOKENISERS["boundless"](), "x.parquet")
    assert err.value.source == "x.parquet"
