"""Progress reports: every trainer's total is fixed from its first report with a total (0 means
'not known yet', as during Unigram's seeding), and the command line's bar is made with that total
and the unit the trainer counts."""

from __future__ import annotations

import itertools
from typing import ClassVar

import pytest

from core.bpe.trainer import train_bpe
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


class FakeTqdm:
    made: ClassVar[list[FakeTqdm]] = []

    def __init__(self, total, desc, unit, disable, file, leave, **display):
        self.total, self.unit, self.disable, self.n, self.totals = total, unit, disable, 0, []
        self.display = display
        FakeTqdm.made.append(self)

    def update(self, steps):
        self.n += steps
        self.totals.append(self.total)

    def close(self):
        pass


def test_the_bar_is_made_at_the_first_known_total(monkeypatch):
    import tqdm

    monkeypatch.setattr(tqdm, "tqdm", FakeTqdm)
    FakeTqdm.made.clear()
    with ProgressBar("training unigram", "piece") as bar:
        for done, total in [(0, 0), (0, 0), (0, 4000), (2500, 4000), (4000, 4000)]:
            bar(done, total)
    (made,) = FakeTqdm.made
    assert (made.total, made.unit, made.n, made.disable) == (4000, "piece", 4000, False)
    assert made.totals == [4000, 4000, 4000]
    assert TRAINING_UNITS == {"bpe": "merge", "unigram": "piece", "unigram-fsp": "piece"}


def test_a_byte_bar_counts_megabytes(monkeypatch):
    import tqdm

    monkeypatch.setattr(tqdm, "tqdm", FakeTqdm)
    FakeTqdm.made.clear()
    with ProgressBar("counting", "byte") as bar:
        bar(0, 0)
        bar(3_000_000, 48_000_000)
        bar(48_000_000, 48_000_000)
    (made,) = FakeTqdm.made
    assert (made.total, made.unit, made.n, made.disable) == (48_000_000, "B", 48_000_000, False)
    assert made.display["unit_scale"] is True and made.display["unit_divisor"] == 1000


def test_small_byte_counts_hide_the_bar(monkeypatch):
    import tqdm

    monkeypatch.setattr(tqdm, "tqdm", FakeTqdm)
    FakeTqdm.made.clear()
    with ProgressBar("counting", "byte") as bar:
        bar(5000, 50_000)
    assert FakeTqdm.made[0].disable is True


def render(description, unit, reports):
    """The bar's text as tqdm draws it, after ``reports``."""
    with ProgressBar(description, unit, hidden=False) as bar:
        for done, total in reports:
            bar(done, total)
        return str(bar.bar)


def test_a_byte_bar_shows_megabytes_elapsed_eta_and_rate():
    text = render("counting", "byte", [(0, 48_000_000), (12_000_000, 48_000_000)])
    assert "12.0MB/48.0MB" in text
    assert "elapsed, ETA " in text and "B/s" in text


def test_a_merge_bar_shows_merges_and_eta():
    text = render("training bpe", "merge", [(0, 3000), (1000, 3000)])
    assert "1000/3000" in text and "elapsed, ETA " in text and "merge/s" in text
