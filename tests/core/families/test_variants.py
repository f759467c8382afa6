"""Every tokeniser family through the one interface (core/families/base.py): trained on the same
small corpus, each must tokenise losslessly, trace what it does, respect its target size and
round-trip through its saved form, and the CLI must train and apply it."""

from __future__ import annotations

import gc
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.counting.corpus import TrainingCorpus
from core.errors import InputError
from core.families import registry
from core.formats.samples import running_text
from core.formats.tokeniser_files import load_tokeniser, parse_tokeniser_bytes, save_tokeniser
from core.tokeniser import Tokeniser
from core.trace import Trace

ROOT = Path(__file__).resolve().parents[3]
LINES = list(itertools.islice(running_text(), 400))
TARGET = 300  # 256 bytes + 44 learned types for the byte-level families
SAMPLES = [
    "The cat sat on the mat.",
    "  two  spaces",
    "naïve café – ünïcödé 漢字 🙂",
    "x",
    "",
    "a\nb\tc",
    "XMLHttpRequest snake_case 1234567",
    "of the of the of the",
]


@pytest.fixture(scope="module", params=list(registry.ALGORITHMS))
def trained(request):
    algorithm = request.param
    corpus = TrainingCorpus.from_texts(LINES, registry.default_pretokeniser(algorithm))
    return algorithm, registry.train(algorithm, corpus, TARGET)


def test_training_reaches_at_most_the_target(trained):
    algorithm, run = trained
    tokeniser = run.tokeniser
    assert isinstance(tokeniser, Tokeniser)
    assert tokeniser.kind == algorithm.split("-")[0]
    assert 256 < tokeniser.vocab_size <= TARGET
    assert run.events and run.events[-1].vocab_size == tokeniser.vocab_size
    if not algorithm.startswith("unigram"):  # Unigram prunes down from a larger seed
        assert all(e.vocab_size <= TARGET for e in run.events)
    assert [e.step for e in run.events] == sorted(e.step for e in run.events)


@pytest.mark.parametrize("text", SAMPLES)
def test_tokens_spell_the_text_and_the_trace_replays(trained, text):
    _, run = trained
    tokeniser = run.tokeniser
    tokens = tokeniser.tokenise(text)
    assert tokeniser.pretokeniser.decode(tokens) == text
    trace = tokeniser.trace_text(text)
    assert isinstance(trace, Trace)
    assert trace.problems() == []
    assert list(trace.tokens) == tokens
    json.dumps(trace.to_json())  # a trace is JSON-serialisable (the CLI prints it)


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=40))
def test_any_text_round_trips(trained, text):
    _, run = trained
    tokens = run.tokeniser.tokenise(text)
    assert run.tokeniser.pretokeniser.decode(tokens) == text
    assert all(t in run.tokeniser.vocabulary for t in tokens)


def test_save_and_load_give_the_same_tokeniser(trained, tmp_path):
    _, run = trained
    path = tmp_path / "tok.json"
    save_tokeniser(run.tokeniser, path)
    loaded = load_tokeniser(path)
    assert type(loaded) is type(run.tokeniser)
    assert loaded.vocabulary == run.tokeniser.vocabulary and loaded.vocab_size == run.tokeniser.vocab_size
    for text in SAMPLES + LINES[:50]:
        assert loaded.tokenise(text) == run.tokeniser.tokenise(text)


def test_a_damaged_file_names_itself(trained):
    _, run = trained
    obj = run.tokeniser.to_json()
    obj["version"] = 99
    with pytest.raises(InputError, match=r"tok\.json"):
        parse_tokeniser_bytes(json.dumps(obj).encode(), "tok.json")


@pytest.mark.parametrize("algorithm", list(registry.ALGORITHMS))
def test_training_runs_with_the_cyclic_collector_paused_and_restores_it(algorithm):
    corpus = TrainingCorpus.from_texts(LINES[:60], registry.default_pretokeniser(algorithm))
    enabled: list[bool] = []
    registry.train(algorithm, corpus, TARGET, progress=lambda *_: enabled.append(gc.isenabled()))
    assert enabled and not any(enabled) and gc.isenabled()

    def stop(*_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        registry.train(algorithm, corpus, TARGET, progress=stop)
    assert gc.isenabled()


def test_unknown_algorithm_and_option_are_named():
    corpus = TrainingCorpus.from_texts(LINES[:5], registry.default_pretokeniser("bpe"))
    with pytest.raises(InputError, match="unknown algorithm 'wordpiece'"):
        registry.train("wordpiece", corpus, 300)
    with pytest.raises(InputError, match="no option colour"):
        registry.train("bpe", corpus, 300, colour="red")


def test_empty_corpus_is_refused():
    with pytest.raises(InputError, match="empty corpus"):
        TrainingCorpus.from_texts(["", "\n", "\r\n"], registry.default_pretokeniser("bpe"))


@pytest.mark.parametrize("algorithm", list(registry.ALGORITHMS))
def test_cli_trains_and_segments(algorithm, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES[:150]) + "\n", encoding="utf-8")
    out, report = tmp_path / "tok.json", tmp_path / "report.json"
    command = [
        sys.executable,
        "-m",
        "core",
        "train",
        "--algorithm",
        algorithm,
        "--corpus",
        str(corpus),
        "--vocab-size",
        "280",
        "--out",
        str(out),
        "--json-report",
        str(report),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(report.read_text(encoding="utf-8"))
    assert summary["vocab_size"] == load_tokeniser(out).vocab_size <= 280
    assert summary["events"] and summary["seconds"] >= 0
    if algorithm.startswith("unigram"):  # every round's size, objective and token count
        assert summary["rounds"] and all(set(r) == {"vocab_size", "objective", "tokens"} for r in summary["rounds"])
        assert summary["rounds"][-1]["vocab_size"] == summary["vocab_size"]
    segmented = subprocess.run(
        [
            sys.executable,
            "-m",
            "core",
            "segment",
            "--tokeniser",
            str(out),
            "--json",
            "--text",
            "The cat sat on the mat.",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert segmented.returncode == 0, segmented.stderr
    item = json.loads(segmented.stdout)[0]
    assert item["tokens"] == load_tokeniser(out).tokenise("The cat sat on the mat.")


def test_vocabulary_overlap_by_hand():
    from core.analysis.train_compare import vocabulary_overlap

    rows = vocabulary_overlap(
        {"x": frozenset({"a", "b", "ab", "abc"}), "y": frozenset({"a", "ab", "bc"}), "z": frozenset({"a"})}
    )
    assert rows == [
        {"a": "x", "b": "y", "shared": 1, "only a": 1, "only b": 1, "jaccard": 1 / 3},
        {"a": "x", "b": "z", "shared": 0, "only a": 2, "only b": 0, "jaccard": 0.0},
        {"a": "y", "b": "z", "shared": 0, "only a": 2, "only b": 0, "jaccard": 0.0},
    ]
    assert vocabulary_overlap({"p": frozenset("ab"), "q": frozenset("c")})[0]["jaccard"] == 1.0


def test_kind_fractions_by_hand():
    from core.analysis.training_dynamics import kind_fractions, kind_totals
    from core.families.base import TrainingEvent

    kinds = ["merge", "merge", "supermerge", "merge", "deletion"]
    events = [TrainingEvent(i, k, "", 1, 0) for i, k in enumerate(kinds)]
    rows = kind_fractions(events, 2)
    assert [(r["start"], r["end"], r["kind"], r["fraction"]) for r in rows if r["count"]] == [
        (0, 2, "merge", 1.0),
        (2, 4, "merge", 0.5),
        (2, 4, "supermerge", 0.5),
        (4, 5, "deletion", 1.0),
    ]
    assert len(rows) == 3 * 3  # every kind in every block, zeros included
    assert kind_totals(events) == {"merge": 3, "supermerge": 1, "deletion": 1}
    with pytest.raises(InputError):
        kind_fractions(events, 0)
