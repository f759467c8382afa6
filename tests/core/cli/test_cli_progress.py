"""Progress reports: every trainer's total is fixed from its first report with a total (0 means
'not known yet', as during Unigram's seeding); the command line's progress line shows nothing for
work that ends within a second, then says what is being done (a bar with that total and the unit
the trainer counts), on a terminal only, and leaves nothing behind."""

from __future__ import annotations

import io
import itertools
import json
import re
import sys
import time

import pytest

from core.bpe.trainer import train_bpe
from core.cli import main, progress
from core.cli.common import NL_4K, NL_REF
from core.cli.progress import ProgressBar
from core.cli.training import TRAINING_UNITS
from core.counting.corpus import TrainingCorpus
from core.families import registry
from core.formats.samples import running_text
from core.pipeline import Metaspace

LINES = list(itertools.islice(running_text(), 400))


def check_reports(reports: list[tuple[int, int]]) -> None:
    assert reports
    unknown = list(itertools.takewhile(lambda r: r[1] == 0, reports))
    known = reports[len(unknown) :]
    assert all(done == 0 for done, _ in unknown)
    assert known and len({total for _, total in known}) == 1, sorted({total for _, total in known})
    dones = [done for done, _ in known]
    assert dones == sorted(dones) and dones[0] >= 0 and dones[-1] <= known[0][1]


@pytest.mark.parametrize("algorithm", list(registry.ALGORITHMS))
def test_every_trainer_reports_one_total(algorithm):
    corpus = TrainingCorpus.from_texts(LINES, registry.default_pretokeniser(algorithm))
    reports: list[tuple[int, int]] = []
    registry.train(algorithm, corpus, 600, progress=lambda done, total: reports.append((done, total)))
    check_reports(reports)


def test_unigram_counts_pieces_removed_from_the_seed():
    corpus = TrainingCorpus.from_texts(LINES, Metaspace())
    reports: list[tuple[int, int]] = []
    run = registry.train("unigram", corpus, 500, progress=lambda done, total: reports.append((done, total)))
    check_reports(reports)
    assert reports[-1] == (run.summary["seed_size"] - 500, run.summary["seed_size"] - 500)


def test_train_bpe_total_is_the_room_for_merges_from_the_start():
    reports: list[tuple[int, int]] = []
    result = train_bpe(
        {"low": 5, "lower": 2, "newest": 6, "widest": 3}, 22, progress=lambda d, t: reports.append((d, t))
    )
    check_reports(reports)
    assert reports[0][1] == 22 - len(result.alphabet) == reports[-1][0]


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def screen(text: str) -> list[str]:
    """What a terminal shows after ``text`` (a carriage return goes back to the start of the line)."""
    lines, line, column = [], [], 0
    for char in text:
        if char == "\n":
            lines.append("".join(line).rstrip())
            line, column = [], 0
        elif char == "\r":
            column = 0
        else:
            line[column : column + 1] = [char]
            column += 1
    return [*lines, "".join(line).rstrip()]


def drawn(text: str) -> list[str]:
    """Every line the terminal was shown, in order (each redraw once)."""
    frames = [frame.strip() for frame in re.split(r"[\r\n]", text)]
    return [frame for i, frame in enumerate(frames) if frame and frame not in frames[:i]]


def on_terminal(monkeypatch, delay: float = 0.0) -> Terminal:
    """stderr on a 400-column terminal (set in the test itself: pytest sets its own stderr between the
    phases of a test), the line drawn after ``delay`` seconds and redrawn often."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(progress, "DELAY", delay)
    monkeypatch.setattr(progress, "TICK", 0.01)
    return stream


def test_work_that_ends_within_the_delay_prints_nothing_however_large(monkeypatch):
    stream = on_terminal(monkeypatch, delay=progress.DELAY)
    with ProgressBar("counting", "byte", total=10**9) as bar:
        for _ in range(1000):
            bar.advance(10**6)
    assert stream.getvalue() == ""


def test_work_that_runs_longer_says_what_and_how_long_then_clears_its_line(monkeypatch):
    terminal = on_terminal(monkeypatch)
    with ProgressBar("loading o200k_base.tiktoken"):
        time.sleep(0.1)
    assert "loading o200k_base.tiktoken [00:00 elapsed]" in drawn(terminal.getvalue())
    assert screen(terminal.getvalue()) == [""]


def test_nothing_is_drawn_on_a_stream_that_is_not_a_terminal(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    with ProgressBar("loading x") as bar:
        bar.describe("still loading x")
        time.sleep(0.05)
    assert stream.getvalue() == ""


def test_inner_work_takes_over_the_line_then_gives_it_back(monkeypatch):
    terminal = on_terminal(monkeypatch)
    with ProgressBar("structok rebpe"):
        with ProgressBar("evaluating") as bar:
            for phase in ("ReBPE iteration 1: knockout", "ReBPE iteration 1: reparation"):
                bar.describe(phase)
        time.sleep(0.1)
    lines = [line.split(" [")[0] for line in drawn(terminal.getvalue())]
    assert lines == ["structok rebpe", "evaluating", "ReBPE iteration 1: knockout", "ReBPE iteration 1: reparation"]
    assert screen(terminal.getvalue()) == [""]


def test_text_printed_while_the_line_shows_starts_on_a_clean_line(monkeypatch):
    terminal = on_terminal(monkeypatch)
    with ProgressBar("loading x"):
        time.sleep(0.05)
        print("note: x: detected", file=sys.stderr)
        time.sleep(0.05)
    assert sys.stderr is terminal
    assert screen(terminal.getvalue()) == ["note: x: detected", ""]


def test_the_total_is_the_first_one_reported():
    with ProgressBar("training unigram", "piece") as bar:
        for done, total in [(0, 0), (0, 0), (0, 4000), (2500, 5000), (4000, 4000)]:
            bar(done, total)
    assert (bar.total, bar.work.done) == (4000, 4000)
    assert TRAINING_UNITS == {"bpe": "merge", "unigram": "piece", "unigram-fsp": "piece"}


def render(description, unit, done, total, seconds=5.0):
    return progress.render(progress._Work(description, unit, total, done, time.perf_counter() - seconds))


def test_a_byte_bar_shows_megabytes_elapsed_eta_and_rate():
    text = render("counting", "byte", 12_000_000, 48_000_000)
    assert "12.0MB/48.0MB" in text and re.search(r"\[00:05 elapsed, ETA 00:1[45], 2\.[34]\dMB/s\]", text)


def test_a_merge_bar_shows_merges_and_eta():
    text = render("training bpe", "merge", 1000, 3000)
    assert "1000/3000" in text and re.search(r"\[00:05 elapsed, ETA 00:(09|10), (19\d\.\d\d|200\.00)merge/s\]", text)


def test_work_without_a_total_says_what_it_is_doing():
    assert render("loading x", "", 0, 0, seconds=75) == "loading x [01:15 elapsed]"


def test_a_line_fits_the_terminal():
    assert len(progress.render(progress._Work("loading " + "x" * 300, ""), width=80)) == 79


# --- the commands on a terminal -----------------------------------------------------------------------
def test_rebpe_says_each_phase_and_leaves_only_its_summary_on_the_terminal(monkeypatch, tmp_path):
    out = tmp_path / "rebpe.json"
    terminal = on_terminal(monkeypatch)
    args = [
        "rebpe",
        "--tokeniser",
        NL_4K,
        "--reference",
        NL_REF,
        "--out",
        str(out),
        "--anneal",
        "--max-iterations",
        "2",
    ]
    assert main(args) == 0
    said = [line.split(" [")[0] for line in drawn(terminal.getvalue())]
    phases = [
        f"loading {NL_4K}",
        "ReBPE: tracing the reference words",
        "ReBPE: annealing",
        "ReBPE iteration 1: knockout",
        "ReBPE iteration 1: reparation",
        "ReBPE iteration 1: reification",
        "ReBPE iteration 2: knockout",
        f"writing {out}",
    ]
    # a phase that runs past a whole second is drawn again with its new elapsed time: one line per phase
    assert [line for line, _ in itertools.groupby(line for line in said if line in phases)] == phases
    shown = [line for line in screen(terminal.getvalue()) if line]
    assert shown[0].startswith("|V| 4000 -> ") and shown[1].startswith("annealing added ") and shown[-1] == f"-> {out}"
    assert not any("elapsed" in line for line in shown)


def test_json_on_stdout_stays_clean_while_stderr_shows_progress(monkeypatch, capsys):
    terminal = on_terminal(monkeypatch)
    assert main(["segment", "--tokeniser", NL_4K, "--json", "bruidsjurk"]) == 0
    assert [item["word"] for item in json.loads(capsys.readouterr().out)] == ["bruidsjurk"]
    assert f"loading {NL_4K}" in [line.split(" [")[0] for line in drawn(terminal.getvalue())]
