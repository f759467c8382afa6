"""Trainers on pathological corpora (one huge line, one repeated character or word, no
whitespace): stopping through the progress callback (core/deadline.py), progress reported
inside long phases, and results identical to the reference readings and to pinned results of the
trainers' earlier, slower implementations. Timings are in bench/bench_pathological.py."""

from __future__ import annotations

import hashlib
import json

import pytest

from core.bpe.trainer import OCCURRENCES_PER_BEAT, train_bpe
from core.counting.corpus import TrainingCorpus
from core.counting.pretoken_counter import count_pretokens
from core.deadline import HEARTBEAT_WORK, Deadline, Heartbeat
from core.errors import InputError
from core.families import registry
from core.families.boundless.model import boundless_pretokeniser
from core.families.unigram.trainer import cut_long_pretokens
from core.formats.samples import PATHOLOGICAL_KINDS, pathological_text
from core.pipeline import ByteLevel
from tests.apptest_support import run_page
from tests.core.bpe.test_train_bpe import assert_same_as_hf
from tests.core.families.test_boundless import literal_train

TRAINERS = ("bpe", "scaffold", "picky", "boundless", "unigram")


def corpus_of(kind: str, size: int, algorithm: str) -> TrainingCorpus:
    return TrainingCorpus.from_texts([pathological_text(kind, size)], registry.default_pretokeniser(algorithm))


def one_long_pretoken(algorithm: str) -> TrainingCorpus:
    """40,000 letters (one pretoken) for most; BoundlessBPE's pre-tokeniser is slow on long
    letter runs (its contraction branch rescans the run at every pretoken), so 'aaaa...'."""
    if algorithm == "boundless":
        return corpus_of("repeat", 100_000, algorithm)
    return corpus_of("letters", 40_000, algorithm)


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# --- the deadline and the heartbeat ---------------------------------------------------------------
def test_deadline_passes_reports_on_and_stops_once_the_budget_is_spent():
    clock, seen = FakeClock(), []
    deadline = Deadline(2.5, lambda done, total: seen.append((done, total)), every=0, clock=clock)
    deadline(1, 10)
    clock.now += 2.25
    deadline(2, 10)
    assert seen == [(1, 10), (2, 10)]
    clock.now += 0.25
    with pytest.raises(InputError, match=r"stopped after 2.5 s: the corpus is too large for the explorer"):
        deadline(3, 10)
    assert seen[-1] == (3, 10)  # the element is updated before the run stops


def test_deadline_passes_reports_on_at_most_every_interval_and_always_the_last():
    clock, seen = FakeClock(), []
    deadline = Deadline(60, lambda done, total: seen.append(done), every=0.5, clock=clock)
    for done in range(10):
        deadline(done, 10)
        clock.now += 0.125
    deadline(10, 10)
    assert seen == [0, 4, 8, 10]


def test_runs_made_later_can_share_one_budget():
    clock = FakeClock()
    started = clock()
    clock.now += 9
    deadline = Deadline(10, started=started, clock=clock)
    deadline(0, 5)
    clock.now += 1
    with pytest.raises(InputError, match="stopped after 10 s"):
        deadline(1, 5)


@pytest.mark.parametrize("seconds", [-1, "10", float("nan"), True])
def test_deadline_needs_a_number_of_seconds(seconds):
    with pytest.raises(InputError, match="seconds"):
        Deadline(seconds)


def test_heartbeat_repeats_the_last_report_after_enough_work():
    seen = []
    beat = Heartbeat(lambda done, total: seen.append((done, total)), 40)
    beat.work(HEARTBEAT_WORK - 1)
    assert seen == []
    beat.report(3)
    beat.work(HEARTBEAT_WORK - 1)  # report() starts the count again
    assert seen == [(3, 40)]
    beat.work(1)
    beat.pulse()
    assert seen == [(3, 40), (3, 40), (3, 40)]
    Heartbeat(None).work(10 * HEARTBEAT_WORK)  # no callback: nothing to call


# --- every trainer stops and reports ----------------------------------------------------------------
@pytest.mark.parametrize("algorithm", TRAINERS)
def test_an_expired_deadline_stops_a_trainer_at_its_first_report(algorithm):
    corpus = one_long_pretoken(algorithm)
    seen = []
    with pytest.raises(InputError, match="stopped after 0 s"):
        registry.train(algorithm, corpus, 1000, progress=Deadline(0, lambda done, total: seen.append((done, total))))
    assert len(seen) == 1 and seen[0][0] == 0  # stopped in the first phase, before any step was done


@pytest.mark.parametrize(
    "algorithm", [pytest.param(a, marks=pytest.mark.slow) if a == "unigram" else a for a in TRAINERS]
)
def test_progress_is_reported_inside_the_first_phase_and_at_the_end(algorithm):
    seen = []
    registry.train(
        algorithm, one_long_pretoken(algorithm), 300, progress=lambda done, total: seen.append((done, total))
    )
    assert seen[0][0] == 0  # from counting or seeding, before any step was done
    assert seen[-1][0] > 0  # the end (BoundlessBPE runs out of pairs on "aaaa...")


def test_one_merge_with_many_occurrences_reports_progress():
    # {"aaa...": 1} to |V| 2: one merge (a, a) of 100,000 occurrences. Tokenising and counting
    # the word report once each, the merge once for the word, the end once: the rest are
    # reports from inside the merge.
    seen = []
    train_bpe({"a" * 200_000: 1}, 2, progress=lambda done, total: seen.append(done))
    assert len(seen) - 4 >= 100_000 // OCCURRENCES_PER_BEAT


# --- the same results as before (small sizes) -------------------------------------------------------
# sha256 (first 16 hex digits) of every training event and the final vocabulary, 1,500 characters,
# vocab_size 300, computed with the trainers of commit 9f64e98 (before this rework). Unigram's are
# those of the batched lattices (issue 16): the same events and vocabularies as at 9f64e98, its
# objectives and scores within 1e-13 (relative) of them, the sums being taken in another order.
BEFORE = {
    "line/bpe": "68b8d2faf093aca6",
    "line/scaffold": "ed9d6d71818b3f8a",
    "line/picky": "cbb1d19f0137e023",
    "line/boundless": "a23fc62448ab8cb5",
    "line/unigram": "e0f9252270401a41",
    "repeat/bpe": "5710071be3c8f59f",
    "repeat/scaffold": "09787e1c570a1455",
    "repeat/picky": "6f511c447939c3bd",
    "repeat/boundless": "c240b3b0132e7eef",
    "repeat/unigram": "2ea33ae275d80676",
    "word/bpe": "946803a431ac300c",
    "word/scaffold": "410b653b752b147b",
    "word/picky": "4851060bfc6b1139",
    "word/boundless": "49554b028b3560b0",
    "word/unigram": "f19707eca71bd096",
    "nospace/bpe": "32266d5444bd204b",
    "nospace/scaffold": "3358350a1ce6289e",
    "nospace/picky": "7067408eca25973c",
    "nospace/boundless": "211a6653702ab6c9",
    "nospace/unigram": "8b2040187fa7af2a",
    "letters/bpe": "4832660646bce933",
    "letters/scaffold": "322665c7b3317bf8",
    "letters/picky": "eb4c59d35ebc27a6",
    "letters/boundless": "790c33cd3294a494",
    "letters/unigram": "81bf528776af950b",
}


def digest(run) -> str:
    blob = json.dumps(
        {"events": [e.to_json() for e in run.events], "vocab": sorted(run.tokeniser.vocabulary)},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@pytest.mark.parametrize("key", sorted(BEFORE))
def test_small_pathological_corpora_train_as_before(key):
    kind, algorithm = key.split("/")
    assert digest(registry.train(algorithm, corpus_of(kind, 1500, algorithm), 300)) == BEFORE[key]


@pytest.mark.parametrize("kind", PATHOLOGICAL_KINDS)
def test_bpe_on_pathological_corpora_is_hf(kind):
    assert_same_as_hf(count_pretokens(pathological_text(kind, 20_000), ByteLevel()), 600)


@pytest.mark.parametrize(
    "text",
    [
        pathological_text("word", 600),
        pathological_text("repeat", 300),
        pathological_text("letters", 400),
        "ab " * 150 + "ab" * 40,
        "the cat " * 60 + "the " * 50,
    ],
)
def test_boundless_on_pathological_corpora_is_the_literal_reading(text):
    run = registry.train("boundless", TrainingCorpus.from_texts([text], boundless_pretokeniser()), 330)
    assert list(run.tokeniser.operations) == literal_train([text], 330)


# --- Unigram's max_pretoken_length ---------------------------------------------------------------------
def test_unigram_cuts_long_pretokens_as_if_they_were_cut_before():
    text = pathological_text("letters", 700) + " and then some words and some more words"
    corpus = TrainingCorpus.from_texts([text], ByteLevel())
    run = registry.train("unigram", corpus, 300, max_pretoken_length=64)
    counts, documents = cut_long_pretokens(corpus.pretoken_counts, corpus.documents, 64)
    assert max(map(len, counts)) == 64 and "".join(documents[0]) == "".join(corpus.documents[0])
    by_hand = registry.train("unigram", TrainingCorpus(corpus.pretokeniser, counts, documents), 300)
    assert run.tokeniser.pieces == by_hand.tokeniser.pieces
    assert run.summary["rounds"] == by_hand.summary["rounds"] and run.summary["options"]["max_pretoken_length"] == 64
    assert cut_long_pretokens(corpus.pretoken_counts, corpus.documents, 4192) == (
        corpus.pretoken_counts,
        corpus.documents,
    )


def test_unigram_max_pretoken_length_is_checked():
    with pytest.raises(InputError, match="max_pretoken_length"):
        registry.train("unigram", corpus_of("line", 200, "unigram"), 300, max_pretoken_length=0)


# --- the explorer ------------------------------------------------------------------------------------
@pytest.mark.usefixtures("module_streamlit_caches")
def test_a_page_whose_training_runs_out_of_time_warns_and_stops(monkeypatch):
    monkeypatch.setattr("ui.family_runs.EXPLORER_SECONDS", 0)
    at = run_page("pages/training_dynamics.py", timeout=120, via_app=True, algorithm="bpe", size="300", lines="200")
    assert not at.exception and not at.error
    assert [w.value for w in at.warning] == [
        "bpe: stopped after 0 s: the corpus is too large for the explorer; train it with the CLI (python -m core train)"
    ]
    assert not at.metric  # the page stopped: nothing was trained
