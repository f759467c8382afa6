"""Hostile inputs on the command line (issue 32): FIFOs, devices, endless lines, names too long,
counts beyond 64 bits (in text and Parquet), a --chunk-mb of a byte, a server that is no Dask
scheduler, an output (or count's side files) naming an input, a merges.txt its vocab.json does not
cover, a word too long to trace or for a unigram lattice, and a rank file too costly to split. Each
run ends within seconds in a clean error (exit code 2, or argparse's usage error), naming the file
or option and the limit, never a traceback; no input is overwritten."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from core.cli import common, main
from core.counting import count_files
from core.counting.chunks import MAX_TEXT_LINE_BYTES
from core.counting.pretoken_counts import PRETOKEN_SCHEMA
from tests.fuzz_inputs import EXPANSION_CASES

ROOT = Path(__file__).resolve().parents[3]
TOKENISER = str(ROOT / "sample_data" / "tokenisers" / "en-bpe-4k-wordfreq.json")
REFERENCE = str(ROOT / "sample_data" / "references" / "en_morph.tsv")
COUNTS = str(ROOT / "sample_data" / "counts" / "en_wordfreq.tsv")
#: seconds a case may take before it counts as hanging
SECONDS = 10
TOO_LONG_NAME = "x" * 300


@pytest.fixture(scope="module")
def long_line(tmp_path_factory) -> str:
    """A text file whose one line is longer than MAX_TEXT_LINE_BYTES."""
    path = tmp_path_factory.mktemp("long") / "line.txt"
    path.write_bytes(b"a" * (MAX_TEXT_LINE_BYTES + 10) + b"\n")
    return str(path)


@pytest.fixture(scope="module")
def not_dask() -> Iterator[str]:
    """The address of a server that answers in another protocol (as an SSH server does)."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = server.accept()
                with connection:
                    connection.sendall(b"SSH-2.0-OpenSSH_9.6 not a dask scheduler\r\n" * 4)

    threading.Thread(target=serve, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    server.close()


def fifo(tmp: Path) -> str:
    path = tmp / "fifo"
    os.mkfifo(path)
    return str(path)


def text_file(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def merges_folder(tmp: Path) -> str:
    """A merges.txt whose second merge makes 'ab c' -> 'abc', a token its vocab.json lacks."""
    (tmp / "merges.txt").write_text("#version: 0.2\na b\nab c\n", encoding="utf-8")
    (tmp / "vocab.json").write_text(json.dumps({"a": 0, "b": 1, "c": 2, "ab": 3}), encoding="utf-8")
    return str(tmp)


def out(tmp: Path) -> str:
    return str(tmp / "out" / "result.json")


def expansion_file(tmp: Path, label: str) -> str:
    """The file of ``EXPANSION_CASES[label]`` in ``tmp``."""
    kind, make, _, _ = EXPANSION_CASES[label]
    (tmp / kind).write_bytes(make())
    return str(tmp / kind)


def counts_parquet(tmp: Path, rows: list[tuple[str, int]]) -> str:
    """A counts file as ``count`` writes it, of ``rows`` (pretoken, count)."""
    table = pa.table({"pretoken": [r[0] for r in rows], "count": [r[1] for r in rows]}, schema=PRETOKEN_SCHEMA)
    metadata = {"format": count_files.FORMAT, "version": count_files.VERSION, "pretokeniser": None, "sequences": None}
    count_files.write_table(tmp / "c.parquet", table, metadata)
    return str(tmp / "c.parquet")


def parts_corpus(tmp: Path) -> str:
    """A corpus folder that is the parts folder of ``count --out tmp/c.parquet``."""
    (tmp / "c.parquet.parts").mkdir()
    (tmp / "c.parquet.parts" / "text.txt").write_text("low lower\n", encoding="utf-8")
    return str(tmp / "c.parquet.parts")


#: (label, arguments given a fresh folder and the fixtures, what stderr must say)
Case = tuple[str, Callable[[Path, dict], list[str]], tuple[str, ...]]
CASES: list[Case] = [
    (
        "FIFO --words-file",
        lambda t, f: ["segment", "--tokeniser", TOKENISER, "--words-file", fifo(t)],
        ("fifo: is a FIFO, not a regular file", "(--words-file)"),
    ),
    (
        "FIFO --reference",
        lambda t, f: ["evaluate", "--tokeniser", TOKENISER, "--reference", fifo(t)],
        ("is a FIFO", "(--reference)"),
    ),
    (
        "FIFO --counts",
        lambda t, f: ["train-bpe", "--counts", fifo(t), "--vocab-size", "300", "--out", out(t)],
        ("is a FIFO", "(--counts)"),
    ),
    (
        "FIFO --corpus of train",
        lambda t, f: ["train", "--algorithm", "bpe", "--corpus", fifo(t), "--vocab-size", "300", "--out", out(t)],
        ("is a FIFO", "(--corpus)"),
    ),
    (
        "FIFO --corpus of count",
        lambda t, f: ["count", "--corpus", fifo(t), "--out", str(t / "c.parquet")],
        ("is a FIFO", "(--corpus)"),
    ),
    ("FIFO --tokeniser", lambda t, f: ["inspect", "--tokeniser", fifo(t)], ("is a FIFO", "(--tokeniser)")),
    (
        "/dev/zero --corpus of stats",
        lambda t, f: ["stats", "--tokeniser", TOKENISER, "--corpus", "/dev/zero", "--out", out(t)],
        ("/dev/zero: is a device", "(--corpus)"),
    ),
    (
        "/dev/urandom --counts",
        lambda t, f: ["train-bpe", "--counts", "/dev/urandom", "--vocab-size", "300", "--out", out(t)],
        ("/dev/urandom: is a device", "(--counts)"),
    ),
    (
        "/dev/zero --words-file",
        lambda t, f: ["segment", "--tokeniser", TOKENISER, "--words-file", "/dev/zero"],
        ("/dev/zero: is a device",),
    ),
    (
        "long line --words-file",
        lambda t, f: ["segment", "--tokeniser", TOKENISER, "--words-file", f["long_line"]],
        ("line.txt:1: line longer than", f"{MAX_TEXT_LINE_BYTES:,} bytes, the limit"),
    ),
    (
        "long line --corpus of stats",
        lambda t, f: ["stats", "--tokeniser", TOKENISER, "--corpus", f["long_line"], "--workers", "1", "--out", out(t)],
        ("line.txt:1: line longer than", f"{MAX_TEXT_LINE_BYTES:,} bytes, the limit"),
    ),
    (
        "long line --counts",
        lambda t, f: ["train-bpe", "--counts", f["long_line"], "--vocab-size", "300", "--out", out(t)],
        ("line.txt:1: line longer than 10,000 characters",),
    ),
    (
        "name too long --tokeniser",
        lambda t, f: ["inspect", "--tokeniser", str(t / TOO_LONG_NAME)],
        ("cannot open file: File name too long (--tokeniser)",),
    ),
    (
        "name too long --out",
        lambda t, f: ["train-bpe", "--counts", COUNTS, "--vocab-size", "300", "--out", str(t / TOO_LONG_NAME)],
        (f"{TOO_LONG_NAME}: File name too long",),
    ),
    (
        "count over 2**63-1",
        lambda t, f: [
            "train-bpe",
            "--counts",
            text_file(t, "c.tsv", "low\t1\nlow2\t9223372036854775808\n"),
            "--vocab-size",
            "300",
            "--out",
            out(t),
        ],
        ("c.tsv:2: count is more than 9,223,372,036,854,775,807",),
    ),
    (
        "counts describing more than 2**63-1 characters",
        lambda t, f: [
            "train",
            "--algorithm",
            "unigram",
            "--counts",
            text_file(t, "c.tsv", "lower\t9223372036854775000\n"),
            "--vocab-size",
            "300",
            "--out",
            out(t),
        ],
        ("c.tsv:1: the counts up to here describe a text of more than 9,223,372,036,854,775,807 characters",),
    ),
    (
        "--chunk-mb of a byte",
        lambda t, f: ["count", "--corpus", COUNTS, "--chunk-mb", "0.000001", "--out", str(t / "c.parquet")],
        ("argument --chunk-mb: expected a size from 1e-05 to 1,024 MB",),
    ),
    (
        "--dask at a server that is no scheduler",
        lambda t, f: ["count", "--corpus", COUNTS, "--dask", f["not_dask"], "--out", str(t / "c.parquet")],
        ("cannot reach a Dask scheduler", "no Dask scheduler answered"),
    ),
    (
        "--out naming the --counts file",
        lambda t, f: [
            "train-bpe",
            "--counts",
            text_file(t, "c.tsv", "low\t5\n"),
            "--vocab-size",
            "300",
            "--out",
            str(t / "c.tsv"),
        ],
        ("c.tsv: --out names a file this command reads",),
    ),
    (
        "--json-report naming the --corpus file by a symbolic link",
        lambda t, f: [
            "train",
            "--algorithm",
            "bpe",
            "--corpus",
            text_file(t, "text.txt", "low lower\n"),
            "--vocab-size",
            "300",
            "--out",
            out(t),
            "--json-report",
            _link(t / "text.txt", t / "link.json"),
        ],
        ("link.json: --json-report names a file this command reads",),
    ),
    (
        "--hf-out naming the --tokeniser folder",
        lambda t, f: [
            "knockout",
            "--tokeniser",
            _copy(TOKENISER, t / "tokenizer.json"),
            "--reference",
            REFERENCE,
            "--out",
            out(t),
            "--hf-out",
            str(t),
        ],
        ("tokenizer.json: --hf-out names a file this command reads",),
    ),
    (
        "FIFO --types",
        lambda t, f: ["remove", "--tokeniser", TOKENISER, "--types", fifo(t), "--out", out(t)],
        ("is a FIFO", "(--types)"),
    ),
    (
        "counts .parquet describing more than 2**63-1 characters",
        lambda t, f: [
            "train",
            "--algorithm",
            "bpe",
            "--counts",
            counts_parquet(t, [("low", 2**61), ("lower", 2**61)]),
            "--vocab-size",
            "300",
            "--out",
            out(t),
        ],
        ("c.parquet: the counts describe a text of more than 9,223,372,036,854,775,807 characters",),
    ),
    (
        "count --out whose runs file is the --corpus",
        lambda t, f: [
            "count",
            "--corpus",
            text_file(t, "c.sequences.parquet", "low lower\n"),
            "--sequences",
            "--out",
            str(t / "c.parquet"),
        ],
        ("c.sequences.parquet: is a file this command reads, where count --out writes its runs",),
    ),
    (
        "count --out whose parts folder holds the --corpus",
        lambda t, f: ["count", "--corpus", parts_corpus(t), "--out", str(t / "c.parquet")],
        ("text.txt: is in", "the folder of chunks count --out keeps and then deletes"),
    ),
    (
        "explain of a 100,000-character word",
        lambda t, f: ["explain", "--tokeniser", TOKENISER, "ab" * 50_000],
        ("more than 2,000, the limit of a trace (MAX_TRACE_CHARS)",),
    ),
    (
        "graph --corpus with a 100,000-character word",
        lambda t, f: [
            "graph",
            "--tokeniser",
            TOKENISER,
            "--type",
            "ab",
            "--corpus",
            text_file(t, "text.txt", "the " + "ab" * 50_000 + "\n"),
        ],
        ("the limit of a trace (MAX_TRACE_CHARS)",),
    ),
    (
        "segment with unigram pieces a .. a * 1,024 of a 100,000-character word",
        lambda t, f: [
            "segment",
            "--tokeniser",
            expansion_file(t, "unigram pieces a .. a * 1,024 on a 100,000-character word"),
            "a" * 100_000,
        ],
        ("more than 500,000, the limit of a unigram lattice (MAX_LATTICE_ARCS)",),
    ),
    (
        "unigram model of 400 pieces of 1,024 characters",
        lambda t, f: ["inspect", "--tokeniser", expansion_file(t, "unigram model of 400 pieces of 1,024 characters")],
        ("m.model: the pieces have", "MAX_PREFIX_CHARS"),
    ),
    (
        "tiktoken rank file of long runs",
        lambda t, f: ["inspect", "--tokeniser", expansion_file(t, "tiktoken runs of a, b, c up to 1,000 bytes")],
        ("ranks.tiktoken: splitting the tokens into merges would copy", "MAX_SPLIT_BYTES"),
    ),
    (
        "merges.txt with a merge vocab.json lacks",
        lambda t, f: ["inspect", "--tokeniser", merges_folder(t)],
        ("merges.txt:3: merge 'ab c' uses 'abc', which its vocab.json lacks",),
    ),
]


def _copy(source: str, target: Path) -> str:
    target.write_bytes(Path(source).read_bytes())
    return str(target)


def _link(target: Path, link: Path) -> str:
    link.symlink_to(target)
    return str(link)


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """TimeoutError in the test if the block runs longer than ``seconds`` (a hang fails, not blocks)."""

    def expire(*_) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("label, arguments, expected", CASES, ids=[case[0] for case in CASES])
def test_a_hostile_input_ends_in_a_clean_error(label, arguments, expected, tmp_path, long_line, not_dask, capsys):
    argv = arguments(tmp_path, {"long_line": long_line, "not_dask": not_dask})
    inputs = {path: path.read_bytes() for path in tmp_path.iterdir() if path.is_file() and not path.is_symlink()}
    code: object
    with deadline(SECONDS):
        try:
            code = main(argv)
        except SystemExit as usage:  # argparse's refusal of an option value
            code = usage.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ") or ": error: argument" in last, err
    assert all(part in last for part in expected), last
    assert {path: path.read_bytes() for path in inputs} == inputs  # no input overwritten


def test_a_counts_parquet_past_the_size_limit_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(common, "MAX_TABLE_BYTES", 100)
    counts = counts_parquet(tmp_path, [("low", 5)])
    with deadline(SECONDS):
        code = main(["train", "--algorithm", "bpe", "--counts", counts, "--vocab-size", "300", "--out", out(tmp_path)])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2 and last.startswith(f"error: {counts}: file is ") and "the limit is 100 bytes (--counts)" in last
