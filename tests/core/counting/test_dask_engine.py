"""The Dask engine: on a LocalCluster of 2 worker processes it gives exactly what counting in one
process gives, reports progress per chunk, surfaces workers' errors as InputError, and says
clearly when the scheduler cannot be reached or the optional extra is missing."""

from __future__ import annotations

import functools
import random
import socket
import sys
from collections import Counter
from pathlib import Path

import psutil
import pyarrow as pa
import pytest

from core.counting import dask_engine
from core.counting.chunks import Chunk, chunk_lines, corpus_files, plan_chunks
from core.counting.corpus_counts import count_corpus
from core.counting.engines import map_reduce
from core.counting.pretoken_counts import ChunkCounts, combine_counts
from core.errors import InputError
from core.pipeline.named import PRETOKENISERS

pytest.importorskip("distributed", reason="the Dask extra is not installed (pip install -e '.[dask]')")

#: words of the test corpus; "" makes runs of spaces
WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    "über",
    "naïve",
    "東京",
    "don't",
    "it's",
    "3.14",
    "co-op",
    "snake_case",
    "",
]


def word_counts(chunk: Chunk) -> Counter:
    """A simple task: the words of a chunk's lines."""
    return Counter(word for line in chunk_lines(chunk) for word in line.split())


def add_up(parts: list[Counter]) -> Counter:
    assert isinstance(parts, list), "combine is given a list"
    total = Counter()
    for part in parts:
        total.update(part)
    return total


def fails_on_second_chunk(chunk: Chunk) -> Counter:
    if chunk.index == 1:
        raise RuntimeError("a bug in the task")
    return word_counts(chunk)


def cluster_processes() -> set[int]:
    """This process's running children, but multiprocessing's resource tracker (started at the
    first cluster, it lives as long as this process)."""
    children = psutil.Process().children(recursive=True)
    return {p.pid for p in children if p.is_running() and "resource_tracker" not in " ".join(p.cmdline())}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Three files of varied lines: repeats, blank lines, CRLF ends, multi-byte characters."""
    folder = tmp_path_factory.mktemp("dask-corpus")
    rng = random.Random(16)
    for number, ending in enumerate(("\n", "\r\n", "\n")):
        lines = [" ".join(rng.choices(WORDS, k=rng.randint(0, 12))) for _ in range(300)]
        lines += lines[:40]  # repeated lines, as in real text
        (folder / f"part{number}.txt").write_bytes(ending.join(lines).encode("utf-8"))
    return folder


@pytest.fixture(scope="module")
def scheduler():
    """The address of a LocalCluster of 2 single-threaded worker processes, closed after the module."""
    with dask_engine.local_cluster(2) as cluster:
        yield cluster.scheduler_address


@pytest.mark.parametrize("chunk_bytes", [500, 4096, 1 << 20])
def test_same_counts_as_one_process_with_progress_per_chunk(corpus, scheduler, chunk_bytes):
    chunks = plan_chunks(corpus_files(corpus), chunk_bytes)
    reports: list[tuple[int, int]] = []
    on_dask = map_reduce(word_counts, chunks, add_up, dask=scheduler, progress=lambda *r: reports.append(r))
    assert on_dask == map_reduce(word_counts, chunks, add_up, workers=1)
    total = sum(c.size for c in chunks)
    assert len(reports) == len(chunks)
    assert [done for done, _ in reports] == sorted({done for done, _ in reports})
    assert reports[-1] == (total, total) and {t for _, t in reports} == {total}


def many_pretokens(chunk: Chunk) -> ChunkCounts:
    """Counts of 50,000 pretokens per chunk, half of them shared with the next chunk: tables big
    enough to travel between workers as buffers of their own."""
    words = [f"w{i}" for i in range(chunk.index * 25_000, chunk.index * 25_000 + 50_000)]
    table = pa.table({"pretoken": words, "count": pa.array([chunk.index + 1] * len(words), pa.int64())})
    return ChunkCounts(table, None, chunk.size, 1)


def test_partial_counts_are_combined_on_workers_quietly_and_exactly(corpus, capfd):
    chunks = plan_chunks(corpus_files(corpus), 500)[:12]
    # a new cluster, whose workers write to the stderr this test captures
    on_dask = map_reduce(many_pretokens, chunks, combine_counts, dask="local")
    alone = map_reduce(many_pretokens, chunks, combine_counts, workers=1)
    assert on_dask.pretokens.sort_by("pretoken").equals(alone.pretokens.sort_by("pretoken"))
    assert on_dask.pretokens.num_rows == 25_000 * (len(chunks) + 1)
    # Arrow warned about each table a worker had received, unpickled into unaligned buffers
    assert "poorly aligned" not in capfd.readouterr().err


def test_results_done_before_are_added(corpus, scheduler):
    chunks = plan_chunks(corpus_files(corpus), 1000)
    earlier = Counter({"the": 5, "resumed": 1})
    result = map_reduce(word_counts, chunks[1:], add_up, dask=scheduler, done=[earlier])
    assert result == add_up([earlier, *(word_counts(c) for c in chunks[1:])])


def test_a_file_a_worker_cannot_read_says_the_paths_must_be_shared(tmp_path, scheduler):
    path = tmp_path / "gone.txt"
    path.write_text("some text\n" * 50, encoding="utf-8")
    chunks = plan_chunks([str(path)], 100)
    path.unlink()
    with pytest.raises(InputError, match="readable by the workers at the same paths") as caught:
        map_reduce(word_counts, chunks, add_up, dask=scheduler)
    assert caught.value.source == str(path)


def test_bad_input_on_a_worker_surfaces_as_input_error_with_file_and_line(tmp_path, scheduler):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"fine line\nna\xefve line\nmore\n")
    with pytest.raises(InputError, match="not valid UTF-8") as caught:
        map_reduce(word_counts, plan_chunks([str(path)], 12), add_up, dask=scheduler)
    assert (caught.value.source, caught.value.line) == (str(path), 2)


def test_a_bug_in_the_task_is_raised_as_is(corpus, scheduler):
    with pytest.raises(RuntimeError, match="a bug in the task"):
        map_reduce(fails_on_second_chunk, plan_chunks(corpus_files(corpus), 500), add_up, dask=scheduler)


def test_an_unreachable_scheduler_is_a_clear_input_error(monkeypatch, corpus):
    monkeypatch.setattr(dask_engine, "CONNECT_TIMEOUT", 1)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    chunks = plan_chunks(corpus_files(corpus), 1000)
    with pytest.raises(InputError, match=f"cannot reach a Dask scheduler at '{address}'.*tcp://scheduler:8786"):
        map_reduce(word_counts, chunks, add_up, dask=address)
    with pytest.raises(InputError, match="cannot reach a Dask scheduler at 'no-port'"):
        map_reduce(word_counts, chunks, add_up, dask="no-port")


def test_without_the_extra_the_error_gives_the_install_command(monkeypatch, corpus):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(InputError, match=r"pip install 'structured-tokenisers\[dask\]'"):
        map_reduce(word_counts, plan_chunks(corpus_files(corpus), 1000), add_up, dask="local")


def test_dask_extra_is_part_of_the_dev_requirements():
    """CI installs the dev requirements, so the Dask path is tested there."""
    import tomllib

    extras = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text("utf-8"))["project"]
    assert extras["optional-dependencies"]["dask"][0] in extras["optional-dependencies"]["dev"]
    assert not any(r.startswith("dask") for r in extras["dependencies"])


def test_count_corpus_on_a_new_local_cluster_equals_one_process_and_leaves_no_process(corpus):
    count = functools.partial(count_corpus, corpus, PRETOKENISERS["boundless"](), chunk_bytes=3000)
    children_before = cluster_processes()
    on_dask = count(dask="local")
    assert cluster_processes() <= children_before
    alone = count(workers=1)
    assert on_dask.pretoken_counts == alone.pretoken_counts
    assert on_dask.supermerge_sequences.as_dict() == alone.supermerge_sequences.as_dict()
    assert len(alone.supermerge_sequences.as_dict()) > 10


def test_count_corpus_without_runs_on_a_scheduler_equals_one_process(corpus, scheduler):
    count = functools.partial(count_corpus, corpus, PRETOKENISERS["bytelevel"](), chunk_bytes=500)
    on_dask, alone = count(dask=scheduler), count(workers=1)
    assert on_dask.pretoken_counts == alone.pretoken_counts and len(alone.pretoken_counts) > 20
    assert on_dask.supermerge_sequences is alone.supermerge_sequences is None
