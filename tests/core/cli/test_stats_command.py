"""Corpus statistics counted in chunks (core.analysis.token_stats), the ``stats`` command that writes
them as stats.json, and the distributions page that opens such a file.

The statistics must be exactly core.analysis.corpus_metrics.token_counts over the same lines, whatever the
chunk size and the number of workers; a stats.json read back (by the page's loader) must give the
same CorpusStats; a file that is not one is refused naming the file and what was expected.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import cli
from core.analysis import corpus_metrics as cm
from core.analysis.token_stats import ChunkTokenStats, combine_stats, corpus_stats, read_stats_file, tokeniser_at
from core.counting.chunks import corpus_files
from core.errors import InputError
from core.formats.corpora import iter_text_lines
from tests.apptest_support import assert_clean, run_page
from viz.escaping import md_escape

ROOT = Path(__file__).resolve().parents[3]
EN_4K = str(ROOT / "sample_data/tokenisers/en-bpe-4k-wordfreq.json")
#: a character-level tokeniser with a tiny alphabet: most characters are out of its vocabulary
SCENARIO = str(ROOT / "sample_data/scenarios/a1_scenario1.json")

TEXTS = {
    "a.txt": "\ufeffThe bride's dress, the standard fare.\r\nbruidsjurk standaardtarief\n\n  spaces  and\ttabs \n",
    "b.txt": "naïve café, Straße, 日本語 and émoji 🙂\nno final line break",
    "sub/c.txt": "bruidsjurk " * 40 + "\n" + "\n".join(f"line {i} of many words" for i in range(60)) + "\n",
}


@pytest.fixture
def corpus(tmp_path) -> Path:
    """Three files in a folder (one in a subfolder): a BOM, CRLF, blank lines, non-ASCII, no final newline."""
    folder = tmp_path / "corpus"
    for name, text in TEXTS.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return folder


def expected(tokeniser_path: str, folder: Path) -> cm.CorpusStats:
    """token_counts over the lines of every file, read as the corpus readers read them."""
    lines = [line for path in corpus_files(folder) for line in iter_text_lines(path)]
    return cm.token_counts(tokeniser_at(tokeniser_path), lines)


@pytest.mark.parametrize("tokeniser_path", [EN_4K, SCENARIO])
@pytest.mark.parametrize(("workers", "chunk_bytes"), [(1, 1 << 20), (1, 7), (2, 13), (2, 64)])
def test_chunked_counts_are_token_counts_exactly(corpus, tokeniser_path, workers, chunk_bytes):
    reference = expected(tokeniser_path, corpus)
    assert reference.tokens > 0
    stats = corpus_stats(tokeniser_path, corpus, workers=workers, chunk_bytes=chunk_bytes)
    assert stats == reference
    assert (stats.characters, stats.bytes, stats.vocab_size, stats.oov_types) == (
        reference.characters,
        reference.bytes,
        reference.vocab_size,
        reference.oov_types,
    )


def test_the_scenario_tokeniser_has_out_of_vocabulary_types(corpus):
    """So the comparison above covers oov_types, not only zeros."""
    assert expected(SCENARIO, corpus).oov_types > 0


def test_progress_reports_bytes_up_to_the_corpus_size(corpus):
    reports = []
    corpus_stats(EN_4K, corpus, workers=1, chunk_bytes=50, progress=lambda done, total: reports.append((done, total)))
    total = sum(len(text.encode("utf-8")) for text in TEXTS.values())
    assert reports[-1] == (total, total)
    assert [done for done, _ in reports] == sorted(done for done, _ in reports)


def test_combining_no_parts_is_the_tally_of_no_lines():
    assert combine_stats([]) == ChunkTokenStats({}, 0, 0, 0)
    parts = [ChunkTokenStats({"a": 2}, 3, 4, 1), ChunkTokenStats({"a": 1, "b": 5}, 1, 2, 2)]
    assert combine_stats(parts) == ChunkTokenStats({"a": 3, "b": 5}, 4, 6, 3)


def test_a_glob_that_matches_nothing_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no corpus files found"):
        corpus_stats(EN_4K, str(tmp_path / "*.txt"), workers=1)


# --- the command --------------------------------------------------------------------------------------
def run_stats(corpus: Path, out: Path, *more: str) -> int:
    return cli.main(["stats", "--tokeniser", EN_4K, "--corpus", str(corpus), "--out", str(out), *more])


def test_stats_command_writes_stats_json_and_prints_a_summary(corpus, tmp_path, capsys):
    out = tmp_path / "out" / "stats.json"
    assert run_stats(corpus, out, "--workers", "2", "--chunk-mb", "0.00005") == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    assert (document["format"], document["version"]) == ("corpus-stats", 1)
    assert document["tokeniser"] == {"name": "en-bpe-4k-wordfreq", "path": EN_4K}
    assert [f["path"] for f in document["files"]] == corpus_files(corpus)
    assert [f["size"] for f in document["files"]] == [(corpus / name).stat().st_size for name in sorted(TEXTS)]
    assert document["seconds"] >= 0
    reference = expected(EN_4K, corpus)
    assert cm.CorpusStats.from_json(document) == reference
    printed = capsys.readouterr()
    summary = cm.summary(reference)
    assert f"tokens            {reference.tokens:,}" in printed.out
    assert f"bytes per token   {summary['bytes_per_token']:.3f}" in printed.out
    assert f"Rényi efficiency  {summary['renyi_efficiency']:.4f} (α = 2.5)" in printed.out
    assert f"-> {out}" in printed.err


def test_stats_command_refuses_an_empty_corpus(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    assert run_stats(empty, tmp_path / "stats.json", "--workers", "1") == 2
    assert "no tokens" in capsys.readouterr().err
    assert not (tmp_path / "stats.json").exists()


def test_stats_command_names_a_file_that_is_not_utf8(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nnot \xff utf-8\n")
    assert run_stats(bad, tmp_path / "stats.json", "--workers", "1") == 2
    assert f"{bad}:2: not valid UTF-8" in capsys.readouterr().err


# --- reading stats.json back: the page's loader ----------------------------------------------------
def test_stats_json_round_trip_through_the_pages_loader(corpus, tmp_path):
    from ui import stats_files

    out = tmp_path / "stats.json"
    assert run_stats(corpus, out, "--workers", "1") == 0
    opened = stats_files.open_path(str(out))
    assert opened.name == str(out)
    assert opened.file.stats == expected(EN_4K, corpus)
    assert opened.file.tokeniser["name"] == "en-bpe-4k-wordfreq"
    assert opened.file.corpus_bytes == sum(len(text.encode("utf-8")) for text in TEXTS.values())
    assert stats_files.files_text(opened.file) == "3 files (a.txt, b.txt, c.txt), 1.9 KB in all"
    assert stats_files.open_stats(out.read_bytes(), "upload.json").digest == opened.digest


@pytest.mark.parametrize(
    ("n_bytes", "text"),
    [(0, "0 bytes"), (999, "999 bytes"), (45_300, "45.3 KB"), (999_999, "1.0 MB"), (1_234_000_000, "1.2 GB")],
)
def test_sizes_read_as_people_read_them(n_bytes, text):
    from ui.stats_files import size_text

    assert size_text(n_bytes) == text


def good_document() -> dict:
    stats = cm.CorpusStats.from_counts({"▁a": 3, "b": 1}, 10, characters=5, bytes=7)
    head = {"format": "corpus-stats", "version": 1, "tokeniser": {"name": "t", "path": "t.json"}}
    return {**head, "files": [{"path": "c.txt", "size": 9, "mtime_ns": 1}], "seconds": 0.5, **stats.to_json()}


def test_a_good_document_reads_back():
    read = read_stats_file(json.dumps(good_document()).encode(), "mine.json")
    assert read.stats.counts == {"▁a": 3, "b": 1} and read.stats.vocab_size == 10 and read.corpus_bytes == 9


@pytest.mark.parametrize(
    ("change", "expected_text"),
    [
        (lambda d: "not json {", "not JSON"),
        (lambda d: [1, 2], 'no "format": "corpus-stats"'),
        (lambda d: {**d, "format": "pretoken-counts"}, 'no "format": "corpus-stats"'),
        (lambda d: {**d, "version": 2}, "version 2 is not 1"),
        (lambda d: {k: v for k, v in d.items() if k != "counts"}, "corpus stats lack counts"),
        (lambda d: {**d, "tokens": 5}, "differs from the sum of the counts"),
        (lambda d: {**d, "counts": {"a": -1}}, "must be a non-negative integer"),
        (lambda d: {**d, "files": []}, "'files' must be a non-empty list"),
        (lambda d: {**d, "files": [{"path": "c.txt", "size": "9"}]}, "each of 'files' must be"),
        (lambda d: {**d, "tokeniser": "t.json"}, "'tokeniser' must be {name: text, path: text}"),
        (lambda d: {**d, "seconds": -1}, "'seconds' must be a number"),
    ],
)
def test_a_bad_stats_file_names_the_file_and_what_was_expected(change, expected_text):
    changed = change(good_document())
    data = (changed if isinstance(changed, str) else json.dumps(changed)).encode()
    with pytest.raises(InputError) as caught:
        read_stats_file(data, "mine.json")
    message = str(caught.value)
    assert message.startswith("mine.json: ") and expected_text in message


def test_binary_data_is_not_json():
    with pytest.raises(InputError, match=r"^blob: not JSON .*expected a corpus-stats JSON file"):
        read_stats_file(b"\xff\xfe\x00binary", "blob")


def test_the_pages_path_form_names_a_missing_file(tmp_path):
    from ui import stats_files

    with pytest.raises(InputError, match=r"missing\.json: cannot open file"):
        stats_files.open_path(str(tmp_path / "missing.json"))
    with pytest.raises(InputError, match="no path given"):
        stats_files.open_path("  ")


# --- the page ----------------------------------------------------------------------------------------
@pytest.mark.usefixtures("fresh_streamlit_caches")
def test_the_distributions_page_draws_an_opened_stats_file_and_keeps_it_after_a_bad_one(corpus, tmp_path):
    out = tmp_path / "stats.json"
    assert run_stats(corpus, out, "--workers", "1") == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    at = run_page("pages/distributions.py", timeout=120, via_app=True, view="Corpus distributions", text="a stats file")
    assert_clean(at)
    assert not at.get("plotly_chart")
    assert any("Open a stats file above" in info.value for info in at.info)

    at.text_input(key="stats_path").set_value(str(out))
    at.button(key="stats_path_open").click().run()
    assert_clean(at)
    charts = {
        spec["layout"]["title"]["text"]: spec for spec in (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
    }
    assert len(charts) == 4
    reference = expected(EN_4K, corpus)
    zipf = next(spec for title, spec in charts.items() if title.startswith("Zipf plot"))
    assert zipf["data"][0]["name"] == "en-bpe-4k-wordfreq"
    assert zipf["data"][0]["y"][0] == max(reference.counts.values())
    assert zipf["data"][0]["x"][-1] == reference.types_used
    frequency = next(spec for title, spec in charts.items() if title.startswith("Token-frequency curve"))
    assert frequency["data"][0]["x"][-1] == reference.support_size  # unused vocabulary at 0
    caption = next(c.value for c in at.caption if c.value.startswith("From "))
    assert "tokeniser **" + md_escape("en-bpe-4k-wordfreq") + "**" in caption
    assert md_escape("3 files (a.txt, b.txt, c.txt), 1.9 KB in all") in caption
    assert any(f"{reference.tokens:,} tokens" in s.value for s in at.subheader)

    at.text_input(key="stats_path").set_value(str(bad))
    at.button(key="stats_path_open").click().run()
    assert not at.exception
    (error,) = at.error
    assert md_escape(f'{bad}: no "format": "corpus-stats"') in error.value and "Still showing" in error.value
    assert len(at.get("plotly_chart")) == 4  # what was open stays open
