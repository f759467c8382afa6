"""Hostile input files and odd arguments on the command line: exit status 2 with ``error: FILE...``,
never a traceback. Every command that reads a file runs in this process (``core.cli.main``) on
seeded mutations of each kind of file it reads (tests/fuzz_inputs.py), and on hand-made command
lines (missing, empty, binary and folder paths, a 1 MB line, outputs that cannot be written,
arguments out of range)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.fuzz_inputs import (
    CLI_CASES,
    CLI_EDGE_CASES,
    cli_outcome,
    edge_case_outcome,
    mutate,
    run_cli,
    seed_files,
    write_inputs,
)


@pytest.fixture(scope="module")
def seeds() -> dict[str, bytes]:
    return seed_files()


@pytest.fixture()
def valid(tmp_path, seeds) -> dict[str, str]:
    return write_inputs(tmp_path, seeds)


@pytest.mark.parametrize("label, args, kinds", CLI_CASES, ids=[case[0] for case in CLI_CASES])
def test_mutated_input_files_give_exit_2_naming_the_file(label, args, kinds, seeds, valid, tmp_path):
    rng = random.Random(label)
    bad = []
    for kind in kinds:
        if kind not in seeds:
            continue
        for _ in range(12):
            result, detail = cli_outcome(args, kind, mutate(seeds[kind], rng), tmp_path, valid, seeds)
            if result not in ("loaded", "clean"):
                bad.append(f"{kind}: {result}: {detail}")
    assert bad == []


def test_the_unmutated_files_are_accepted(seeds, valid, tmp_path):
    """The fuzzing above only means something if the seeds themselves run through every command."""
    for label, args, kinds in CLI_CASES:
        for kind in kinds:
            if kind in seeds:
                assert cli_outcome(args, kind, seeds[kind], tmp_path, valid, seeds) == ("loaded", ""), (label, kind)


@pytest.mark.parametrize("args", CLI_EDGE_CASES, ids=[" ".join(a)[:60] for a in CLI_EDGE_CASES])
def test_hand_made_command_lines_end_cleanly(args, valid, tmp_path):
    assert edge_case_outcome(args, tmp_path, valid)[0] in ("loaded", "clean")


def test_missing_output_folders_are_made_and_a_file_in_the_way_stops_the_command_before_the_work(valid, tmp_path):
    train = ["train", "--algorithm", "bpe", "--corpus", valid["C"], "--vocab-size", "280"]
    report = tmp_path / "new" / "deeper" / "r.json"
    assert run_cli([*train, "--out", str(tmp_path / "made" / "o.json"), "--json-report", str(report)]) == (0, None)
    assert (tmp_path / "made" / "o.json").exists() and json.loads(report.read_text(encoding="utf-8"))
    (tmp_path / "file").write_text("", encoding="utf-8")
    blocked = tmp_path / "file" / "r.json"
    code, error = run_cli([*train, "--out", str(tmp_path / "o.json"), "--json-report", str(blocked)])
    assert code == 2 and error.startswith(f"{blocked}: cannot make its folder {str(tmp_path / 'file')!r}: ")
    assert not (tmp_path / "o.json").exists()  # refused before training, not after
    code, error = run_cli(["knockout", "--tokeniser", valid["T"], "--reference", valid["R"], "--out", str(tmp_path)])
    assert code == 2 and error == f"{tmp_path}: is a folder; expected the name of a file to write"


def test_an_empty_corpus_names_its_file(tmp_path):
    corpus = tmp_path / "blank.txt"
    corpus.write_text("\n\n", encoding="utf-8")
    code, error = run_cli(
        [
            "train",
            "--algorithm",
            "bpe",
            "--corpus",
            str(corpus),
            "--vocab-size",
            "280",
            "--out",
            str(tmp_path / "o.json"),
        ]
    )
    assert code == 2 and error == f"{corpus}: empty corpus: no pretokens to train on"


def test_a_long_line_in_a_reference_file_is_quoted_short(valid, tmp_path):
    reference = tmp_path / "long.tsv"
    reference.write_text("x" * 1_000_000 + "\n", encoding="utf-8")
    code, error = run_cli(["evaluate", "--tokeniser", valid["T"], "--reference", str(reference)])
    assert code == 2 and error.startswith(f"{reference}:1: ") and len(error) < 1000


def test_option_values_that_are_not_json_are_text(valid, tmp_path):
    out = tmp_path / "o.json"
    for value in ("[" * 1000, "9" * 5000):  # JSON too deep for Python, a number it refuses
        code, error = run_cli(
            [
                "train",
                "--algorithm",
                "bpe",
                "--corpus",
                valid["C"],
                "--vocab-size",
                "280",
                "--out",
                str(out),
                "--option",
                "min_frequency=" + value,
            ]
        )
        assert code == 2 and error.startswith(f"min_frequency must be an integer >= 0, got '{value[:10]}"), error
    assert run_cli(
        [
            "train",
            "--algorithm",
            "bpe",
            "--corpus",
            valid["C"],
            "--vocab-size",
            "280",
            "--out",
            str(out),
            "--option",
            "min_frequency=2",
        ]
    ) == (0, None)
    assert json.loads(Path(out).read_text(encoding="utf-8"))["format"]


def test_a_broken_merge_graph_is_described_short(valid, tmp_path):
    merges = tmp_path / "merges.txt"
    merges.write_text("Ġ t\n" + "9" * 5000 + " Ġt\n", encoding="utf-8")
    code, error = run_cli(
        ["knockout", "--tokeniser", str(merges), "--reference", valid["R"], "--out", str(tmp_path / "o.json")]
    )
    assert code == 2 and error.startswith(f"{merges}: the tokeniser breaks the merge-graph invariants: merge '999")
    assert len(error) < 1000
