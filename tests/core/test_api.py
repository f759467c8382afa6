"""The Python API (``import core``): every public name resolves, importing stays lazy, and the
documented session gives what ``python -m core`` gives on the same inputs (differential checks)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import core
from core.formats.samples import DUTCH_40K, SAMPLE_DIR

ROOT = Path(__file__).resolve().parents[2]
NL_MORPH = SAMPLE_DIR / "references" / "nl_morph.tsv"
EN_COUNTS = SAMPLE_DIR / "counts" / "en_wordfreq.tsv"


def cli(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def saved(tokeniser, path: Path) -> dict:
    core.save_tokeniser(tokeniser, path)
    return json.loads(path.read_text(encoding="utf-8"))


def edit_arguments(out: Path, report: Path) -> list[str]:
    return ["--tokeniser", str(DUTCH_40K), "--reference", str(NL_MORPH), "--out", str(out), "--report", str(report)]


@pytest.fixture(scope="module")
def entries():
    return core.load_references(NL_MORPH).entries


# --- the public names ---------------------------------------------------------------------------
def test_every_public_name_resolves_and_star_import_gives_them_all():
    namespace: dict = {}
    exec("from core import *", namespace)
    missing = [name for name in core.__all__ if name not in namespace]
    assert missing == []
    assert all(getattr(core, name) is namespace[name] for name in core.__all__)
    assert sorted(dir(core)) == sorted(core.__all__)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = core.no_such_name


def test_importing_core_imports_no_engine_module_until_a_name_is_used():
    code = (
        "import sys, core\n"
        "before = sorted(m for m in sys.modules if m.startswith('core.'))\n"
        "core.load_tokeniser\n"
        "print(before, 'core.formats.tokeniser_files' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] True"


@pytest.mark.parametrize("document", ["docs/api.md", "README.md"])
def test_the_docstring_session_is_the_one_in_the_docs(document):
    session = [line.strip() for line in core.__doc__.split("::", 1)[1].splitlines() if line.startswith("    ")]
    text = (ROOT / document).read_text(encoding="utf-8")
    assert len(session) >= 8
    assert [line for line in session if line not in text] == []


@pytest.mark.slow
def test_the_docstring_session_runs(tmp_path):
    """Run as written, from a folder holding a link to sample_data/ (it writes into out/)."""
    session = "\n".join(line[4:] for line in core.__doc__.split("::", 1)[1].splitlines() if line.startswith("    "))
    (tmp_path / "sample_data").symlink_to(SAMPLE_DIR)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", session], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"F1 0\.\d{4}", proc.stdout)
    assert core.load_tokeniser(tmp_path / "out" / "en-bpe-1k.json").vocab_size == 1000


# --- the same results as the command line -----------------------------------------------------------
def test_segment_with_a_trace_matches_the_cli(dutch40k):
    [expected] = json.loads(cli("segment", "--tokeniser", str(DUTCH_40K), "--json", "--trace", "bruidsjurk"))
    tokeniser = core.load_tokeniser(DUTCH_40K)
    trace = tokeniser.trace_text(" bruidsjurk")
    assert tokeniser.tokenise(" bruidsjurk") == expected["tokens"] == list(trace.tokens)
    assert trace.to_json() == expected["trace"]
    assert list(core.trace_word(tokeniser, "bruidsjurk").tokens) == expected["tokens"]


def test_knockout_matches_the_cli(tmp_path, dutch40k, entries):
    cli_out, report = tmp_path / "cli.json", tmp_path / "report.json"
    cli("knockout", *edit_arguments(cli_out, report))
    run = core.run_knockout(dutch40k, entries, core.KnockoutConfig(threshold=0.5))
    assert saved(run.tokeniser, tmp_path / "api.json") == json.loads(cli_out.read_text(encoding="utf-8"))
    expected = json.loads(report.read_text(encoding="utf-8"))
    assert core.evaluate_morphology(run.tokeniser, entries).to_json() == expected["after"]
    assert len(run.steps[0].removed) == expected["merges_removed"] > 0


@pytest.mark.slow
def test_rebpe_matches_the_cli(tmp_path, dutch40k, entries):
    cli_out, report = tmp_path / "cli.json", tmp_path / "report.json"
    cli("rebpe", *edit_arguments(cli_out, report))
    run = core.run_rebpe(dutch40k, entries, core.ReBPEConfig())
    assert saved(run.tokeniser, tmp_path / "api.json") == json.loads(cli_out.read_text(encoding="utf-8"))
    expected = json.loads(report.read_text(encoding="utf-8"))
    untimed = [{k: v for k, v in step.items() if k != "seconds"} for step in expected["steps"]]
    assert [{k: v for k, v in step.to_json().items() if k != "seconds"} for step in run.steps] == untimed
    assert core.evaluate_morphology(run.tokeniser, entries).to_json() == expected["after"]


def test_evaluate_matches_the_cli(dutch40k, entries):
    expected = json.loads(cli("evaluate", "--tokeniser", str(DUTCH_40K), "--reference", str(NL_MORPH), "--json"))
    assert core.evaluate_morphology(dutch40k, entries).to_json() == expected


def test_train_on_counts_saves_reloads_and_matches_the_cli(tmp_path):
    cli_out = tmp_path / "cli" / "bpe.json"
    cli_out.parent.mkdir()
    cli("train", "--algorithm", "bpe", "--counts", str(EN_COUNTS), "--vocab-size", "400", "--out", str(cli_out))
    run = core.train("bpe", core.load_word_counts(EN_COUNTS), 400)
    api_out = tmp_path / "bpe.json"
    assert saved(run.tokeniser, api_out) == json.loads(cli_out.read_text(encoding="utf-8"))
    reloaded = core.load_tokeniser(api_out)
    assert reloaded.to_json() == run.tokeniser.to_json()
    text = " the unbelievable tokenisers"
    assert reloaded.tokenise(text) == run.tokeniser.tokenise(text)


def test_train_on_texts_with_a_named_pretokeniser_matches_the_cli(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat\nthe dog sat on the log\n" * 20, encoding="utf-8")
    cli_out = tmp_path / "cli" / "unigram.json"
    cli_out.parent.mkdir()
    cli(
        "train",
        "--algorithm",
        "unigram",
        "--corpus",
        str(corpus),
        "--vocab-size",
        "30",
        "--out",
        str(cli_out),
        "--pretokeniser",
        "metaspace",
    )
    run = core.train("unigram", core.iter_text_lines(corpus), 30, pretokeniser="metaspace")
    run.tokeniser.name = "unigram"  # the CLI names a trained tokeniser after its --out file
    assert saved(run.tokeniser, tmp_path / "unigram.json") == json.loads(cli_out.read_text(encoding="utf-8"))
    assert all(token.startswith("▁") for token in run.tokeniser.tokenise(" cat") if len(token) > 1)


@pytest.mark.parametrize(
    ("corpus", "options", "message"),
    [
        (EN_COUNTS, {}, "not a path or a single string"),
        (str(EN_COUNTS), {}, "load_word_counts"),
        ({"cat": 3}, {"pretokeniser": "bytes"}, "unknown pretokeniser 'bytes'"),
        ({"cat": 3}, {"no_such_option": 1}, "no option no_such_option"),
    ],
)
def test_train_refuses_what_it_cannot_use(corpus, options, message):
    with pytest.raises(core.InputError, match=message):
        core.train("bpe", corpus, 20, **options)


def test_train_refuses_a_second_pretokeniser_for_a_prepared_corpus():
    from core.pipeline import WhitespaceSplit

    prepared = core.TrainingCorpus.from_word_counts({"cat": 3}, WhitespaceSplit())
    assert core.train("bpe", prepared, 4).tokeniser.pretokeniser is prepared.pretokeniser
    with pytest.raises(core.InputError, match="already pre-tokenised"):
        core.train("bpe", prepared, 4, pretokeniser="metaspace")
