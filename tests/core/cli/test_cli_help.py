"""The command line's help: every option of every subcommand has help and shows its default, every
subcommand has examples that run as pasted (inputs shipped or made by an earlier example, outputs
under out/), ``--version``, the program name, and ``train --list-options``."""

from __future__ import annotations

import argparse
import itertools
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import core
from core.cli import build_parser, main
from core.cli.common import OUTPUT_OPTIONS as OUTPUT_FILES
from core.cli.common import HelpFormatter
from core.cli.training import option_lines
from core.families.registry import ALGORITHMS, algorithm_options, option_help

ROOT = Path(__file__).resolve().parents[3]
OUTPUT_OPTIONS = {"--" + option.replace("_", "-") for option in OUTPUT_FILES}  # the options naming files written


def subcommands(prog: str = "structok") -> dict[str, argparse.ArgumentParser]:
    parser = build_parser(prog)
    (choices,) = [a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(choices)


def examples(prog: str = "structok") -> list[tuple[str, list[str]]]:
    """(subcommand, arguments) of every example line of every epilog, in order."""
    found = []
    for name, sub in subcommands(prog).items():
        for line in sub.epilog.splitlines()[1:]:
            words = shlex.split(line)
            assert words[0] == prog, line
            found.append((name, words[1:]))
    return found


@pytest.mark.parametrize("name", list(subcommands()))
def test_every_option_has_help_that_shows_its_default(name):
    sub = subcommands()[name]
    shown = " ".join(sub.format_help().split())
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, (name, action.dest)
        text = HelpFormatter(name)._get_help_string(action) % {"default": action.default}
        assert " ".join(text.split()) in shown, (name, action.dest)
        if not action.required and "(required" not in text:
            assert "default" in text, (name, action.dest, text)
        if action.default not in (None, False, [], argparse.SUPPRESS):
            assert f"(default: {action.default})" in text or "default:" in text, (name, action.dest)


def test_defaults_are_shown_for_the_options_a_newcomer_asked_about():
    subs = subcommands()
    helps = {name: " ".join(sub.format_help().split()) for name, sub in subs.items()}
    assert "(default: 0.5)" in helps["knockout"] and "(default: 2)" in helps["graph"]
    assert (
        "(default: 100)" in helps["rebpe"]
        and "skip reification: add no submerges [rebpe Alg. 2] (default: off)" in (helps["rebpe"])
    )
    assert "--min-frequency MIN_FREQUENCY pairs seen fewer times are never merged (default: 0)" in helps["train-bpe"]
    assert "--json print the neighbourhood as JSON instead of text (default: off)" in helps["graph"]
    assert "words words to segment" in helps["segment"] and "(default: none;" in helps["segment"]
    assert "--list-options" in helps["train"] and "SentencePiece .model" in helps["segment"]


def test_every_subcommand_has_examples_reading_shipped_files_and_writing_under_out():
    made: set[str] = set()
    names = set()
    for name, words in examples():
        names.add(name)
        for option, value in itertools.pairwise(words):
            if option in OUTPUT_OPTIONS:
                assert value.startswith("out/"), (name, words)
                made.add(value)
            elif option.startswith("--") and "/" in value:
                assert value in made or (ROOT / value).exists(), (name, value)
    assert names == set(subcommands())


@pytest.mark.slow
def test_the_examples_run_as_pasted(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    for name, words in examples():
        moved = [w.replace("out/", f"{tmp_path}/", 1) if w.startswith("out/") else w for w in words]
        assert main(moved) == 0, (name, words, capsys.readouterr().err)
    assert (tmp_path / "text.txt").exists() and (tmp_path / "nl-knockout.json").exists()


@pytest.mark.parametrize("prog", ["structok", "python -m core"])
def test_the_program_name_is_how_it_was_invoked(prog, capsys):
    with pytest.raises(SystemExit):
        main(["knockout", "--help"], prog=prog)
    text = capsys.readouterr().out
    assert text.startswith(f"usage: {prog} knockout ") and f"\n  {prog} knockout --tokeniser" in text


def test_version_and_python_m_core():
    for args in (["--version"], ["knockout", "--help"]):
        proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        if args == ["--version"]:
            assert proc.stdout == f"structok {core.__version__}\n"
        else:
            assert proc.stdout.startswith("usage: python -m core knockout ")


def test_every_trainer_option_has_a_meaning():
    for algorithm in ALGORITHMS:
        assert set(option_help(algorithm)) == set(algorithm_options(algorithm)), algorithm


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_list_options_prints_keys_defaults_and_meanings_without_corpus(algorithm, capsys):
    assert main(["train", "--algorithm", algorithm, "--list-options"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == option_lines(algorithm)
    for key, default in algorithm_options(algorithm).items():
        assert f"\n  {key}=" in out and option_help(algorithm)[key] in out
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            assert f"\n  {key}={default}\n" in out
    if algorithm == "unigram-fsp":
        assert 'fixed for unigram-fsp: pruning="fsp"' in out


def test_train_without_list_options_still_needs_its_inputs(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", "--algorithm", "bpe"])
    assert stop.value.code == 2
    assert "required: --corpus or --counts, --vocab-size, --out" in capsys.readouterr().err


def test_an_unknown_option_key_names_the_keys_that_exist(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower newest widest\n", encoding="utf-8")
    args = ["train", "--algorithm", "picky", "--corpus", str(corpus), "--vocab-size", "300"]
    assert main([*args, "--out", str(tmp_path / "o.json"), "--option", "treshold=0.8"]) == 2
    error = capsys.readouterr().err
    assert "picky has no option treshold" in error and "threshold" in error and "comparison" in error
