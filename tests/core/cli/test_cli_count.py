"""``count`` end to end: it writes what ``train --counts`` reads (training on it gives what training
on the text gives), resumes an interrupted run from its parts folder, and refuses a parts folder
of another run."""

from __future__ import annotations

import itertools
import json
import os

import pyarrow.parquet as pq
import pytest

from core.cli import main
from core.counting import corpus_counts
from core.counting.chunks import plan_chunks
from core.counting.corpus import TrainingCorpus
from core.counting.count_files import load_counts, sequences_path
from core.errors import InputError
from core.formats.samples import running_text
from core.pipeline.named import PRETOKENISERS

LINES = list(itertools.islice(running_text(), 300))
CHUNK_MB = "0.002"
CHUNK_BYTES = round(0.002 * (1 << 20))
#: the real count_chunk, which the tests below wrap
COUNT_CHUNK = corpus_counts.count_chunk


@pytest.fixture
def text(tmp_path) -> str:
    path = tmp_path / "text.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return str(path)


def count_args(text: str, out, *extra: str) -> list[str]:
    return ["count", "--corpus", text, "--chunk-mb", CHUNK_MB, "--out", str(out), *extra]


def test_count_writes_the_counts_of_the_text_and_says_what_it_did(tmp_path, text, capsys):
    out = tmp_path / "out" / "counts.parquet"
    assert main(count_args(text, out, "--pretokeniser", "boundless", "--workers", "2")) == 0
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    size = os.path.getsize(text)
    assert summary.startswith(f"{size:,} bytes, {len(LINES):,} lines: ") and summary.endswith(f"-> {out}")
    for part in ("distinct pretokens", "pretokens,", "distinct runs", "MB/s"):
        assert part in summary
    loaded = load_counts(out)
    whole = TrainingCorpus.from_texts(LINES, PRETOKENISERS["boundless"]())
    assert loaded.pretoken_counts == whole.pretoken_counts
    assert loaded.supermerge_sequences.as_dict() == whole.supermerge_sequences.as_dict()
    assert not os.path.exists(f"{out}.parts")


@pytest.mark.parametrize(
    ("extra", "runs"),
    [((), False), (("--sequences",), True), (("--pretokeniser", "boundless"), True),
     (("--pretokeniser", "boundless", "--no-sequences"), False)],
)  # fmt: skip
def test_runs_are_written_for_boundless_or_when_asked(tmp_path, text, extra, runs):
    out = tmp_path / "c.parquet"
    assert main(count_args(text, out, "--workers", "1", *extra)) == 0
    assert os.path.exists(sequences_path(out)) == runs
    assert (load_counts(out).sequences is not None) == runs


def interrupt_after(monkeypatch, chunks: int) -> None:
    """Make counting stop with Ctrl-C when the chunk after ``chunks`` counted ones starts."""
    calls = []

    def counting(chunk, spec, sequences):
        calls.append(chunk.index)
        if len(calls) > chunks:
            raise KeyboardInterrupt
        return COUNT_CHUNK(chunk, spec, sequences)

    monkeypatch.setattr(corpus_counts, "count_chunk", counting)


def record_chunks(monkeypatch) -> list[int]:
    calls = []

    def recording(chunk, spec, sequences):
        calls.append(chunk.index)
        return COUNT_CHUNK(chunk, spec, sequences)

    monkeypatch.setattr(corpus_counts, "count_chunk", recording)
    return calls


def uninterrupted(tmp_path, text, *extra: str):
    out = tmp_path / "reference" / "counts.parquet"
    assert main(count_args(text, out, "--workers", "1", *extra)) == 0
    return out


def test_an_interrupted_count_resumes_and_ends_as_an_uninterrupted_one(tmp_path, text, monkeypatch, capsys):
    reference = uninterrupted(tmp_path, text, "--sequences")
    chunks = len(plan_chunks([text], CHUNK_BYTES))
    assert chunks > 4
    out = tmp_path / "resumed" / "counts.parquet"
    args = count_args(text, out, "--workers", "1", "--sequences")
    interrupt_after(monkeypatch, 3)
    assert main(args) == 130
    parts = f"{out}.parts"
    message = f"interrupted: 3 of {chunks} chunks saved in {parts}; run the same command again to resume"
    assert message in capsys.readouterr().err
    assert not out.exists() and len([n for n in os.listdir(parts) if n.startswith("part-")]) == 6  # counts + runs
    counted = record_chunks(monkeypatch)
    assert main(args) == 0
    assert f"resuming: 3 of {chunks} chunks already counted" in capsys.readouterr().err
    assert sorted(counted) == list(range(3, chunks))
    assert not os.path.exists(parts)
    for made, expected in ((out, reference), (sequences_path(out), sequences_path(reference))):
        assert pq.read_table(made).equals(pq.read_table(expected), check_metadata=True)


def test_a_killed_worker_stops_the_count_resumably(tmp_path, text, monkeypatch, capsys):
    reference = uninterrupted(tmp_path, text)
    out = tmp_path / "killed" / "counts.parquet"
    args = count_args(text, out, "--workers", "2")
    monkeypatch.setattr(corpus_counts, "count_chunk", dying_count_chunk)
    assert main(args) == 130
    error = capsys.readouterr().err
    assert "interrupted (a worker process ended): " in error and "run the same command again to resume" in error
    monkeypatch.undo()
    assert main(args) == 0
    assert pq.read_table(out).equals(pq.read_table(reference), check_metadata=True)


def dying_count_chunk(chunk, spec, sequences):
    """count_chunk, except that the worker counting chunk 2 dies."""
    if chunk.index == 2:
        os._exit(1)
    return COUNT_CHUNK(chunk, spec, sequences)


@pytest.mark.parametrize(
    ("changed", "meaning"),
    [
        (("--chunk-mb", "0.003"), "the chunk size (--chunk-mb)"),
        (("--pretokeniser", "metaspace"), "the pretokeniser"),
        (("--sequences",), "whether supermerge runs are counted"),
        ((), "the corpus files"),
    ],
)
def test_a_parts_folder_of_another_run_is_refused(tmp_path, text, monkeypatch, capsys, changed, meaning):
    out = tmp_path / "counts.parquet"
    interrupt_after(monkeypatch, 1)
    assert main(count_args(text, out, "--workers", "1")) == 130
    monkeypatch.undo()
    if not changed:
        with open(text, "a", encoding="utf-8") as handle:
            handle.write("one more line\n")
    assert main([*count_args(text, out, "--workers", "1"), *changed]) == 2
    error = capsys.readouterr().err
    assert f"error: {out}.parts/manifest.json: " in error and meaning in error
    assert f"delete the folder {out}.parts to count afresh" in error


def test_a_dask_run_keeps_no_checkpoint(text):
    with pytest.raises(InputError, match="cannot be resumed"):
        corpus_counts.count_text([text], PRETOKENISERS["bytelevel"](), sequences=False, dask="local", checkpoint="x")


def train(tmp_path, folder: str, algorithm: str, source: list[str], vocab: int) -> tuple[dict, list]:
    out, report = tmp_path / folder / f"{algorithm}.json", tmp_path / folder / "report.json"
    command = ["train", "--algorithm", algorithm, *source, "--vocab-size", str(vocab), "--out", str(out)]
    assert main([*command, "--json-report", str(report)]) == 0
    return json.loads(out.read_text(encoding="utf-8")), json.loads(report.read_text(encoding="utf-8"))["events"]


@pytest.mark.parametrize(
    ("algorithm", "pretokeniser", "vocab"), [("bpe", "bytelevel", 600), ("boundless", "boundless", 800)]
)
def test_training_on_the_counts_is_training_on_the_text(tmp_path, text, algorithm, pretokeniser, vocab):
    counts = tmp_path / "counts.parquet"
    assert main(count_args(text, counts, "--workers", "2", "--pretokeniser", pretokeniser)) == 0
    from_counts = train(tmp_path, "from-counts", algorithm, ["--counts", str(counts)], vocab)
    from_text = train(tmp_path, "from-text", algorithm, ["--corpus", text, "--pretokeniser", pretokeniser], vocab)
    assert from_counts == from_text
    if algorithm == "boundless":
        assert any(event["kind"] == "supermerge" for event in from_text[1])


def test_train_refuses_counts_it_cannot_use(tmp_path, text, capsys):
    counts = tmp_path / "counts.parquet"
    assert main(count_args(text, counts, "--workers", "1")) == 0
    base = ["train", "--counts", str(counts), "--vocab-size", "300", "--out", str(tmp_path / "t.json")]
    assert main([*base, "--algorithm", "bpe", "--pretokeniser", "metaspace"]) == 2
    assert f"error: {counts}: counted with the pretokeniser ByteLevel" in capsys.readouterr().err
    assert main([*base, "--algorithm", "boundless"]) == 2
    error = capsys.readouterr().err
    assert f"error: {counts}: no supermerge runs" in error and "--sequences" in error
