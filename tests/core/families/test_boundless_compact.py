"""The compact superword state (core/families/boundless/superwords.py) against the state it
replaced (tests/boundless_oracle.py: every document as runs of strings): the same pair counts
after every unlock and supermerge, and the same trained tokeniser, operations and events
([boundless App. B]), from text and from counted runs."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.counting.corpus import TrainingCorpus
from core.counting.sequences import PretokenSequences
from core.deadline import Heartbeat
from core.errors import InputError
from core.families.boundless import trainer as boundless_train
from core.families.boundless.model import boundless_pretokeniser
from core.families.boundless.superwords import Superwords
from core.families.boundless.trainer import MERGE_PATTERNS, _raw, _unlockable, train
from tests.boundless_oracle import OracleSuperwords

WORDS = ["the", "of", "a", "aa", "ab", "ba", "b", "don't", "it's", "x1", "42", "é", "ça", "naïve", "A", "Ab"]
GLUE = [" ", " ", " ", "", ", ", ". ", "'", "_", " 7 ", "  "]

lines = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(GLUE)), min_size=1, max_size=14).map(
    lambda parts: "".join(word + glue for word, glue in parts)
)
texts = st.lists(lines, min_size=1, max_size=8)
options = st.fixed_dictionaries(
    {
        "threshold": st.sampled_from([0.5, 0.9, 1.0]),
        "ios_rule": st.sampled_from([">=", ">"]),
        "blowup": st.booleans(),
        "merge_pattern": st.sampled_from(sorted(MERGE_PATTERNS)),
        "deleted_slots": st.sampled_from(["kept", "freed"]),
        "tie": st.sampled_from(["supermerge", "merge"]),
    }
)


def _oracle_of(corpus: TrainingCorpus):
    """A stand-in for Superwords that builds the oracle from the corpus' documents."""
    documents = [[_raw(p) for p in document] for document in corpus.documents or ()]

    def make(sequences, texts, counted, unlockable, beat):
        return OracleSuperwords(documents, unlockable, beat)

    return make


def _trained(corpus: TrainingCorpus, vocab_size: int, opts: dict) -> tuple[list, list]:
    run = train(corpus, vocab_size, **opts)
    return list(run.tokeniser.operations), [event.to_json() for event in run.events]


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 80), options)
def test_training_equals_the_oracle_state(lines_, extra, opts):
    corpus = TrainingCorpus.from_texts(lines_, boundless_pretokeniser())
    compact = _trained(corpus, 256 + extra, opts)
    with mock.patch.object(boundless_train, "Superwords", _oracle_of(corpus)):
        oracle = _trained(corpus, 256 + extra, opts)
    assert compact == oracle


@settings(max_examples=60, deadline=None)
@given(texts, st.integers(1, 80), options)
def test_counted_runs_train_like_the_text(lines_, extra, opts):
    corpus = TrainingCorpus.from_texts(lines_, boundless_pretokeniser())
    runs = PretokenSequences.from_documents(corpus.documents or (), byte_level=True)
    counted = TrainingCorpus.from_pretoken_counts(corpus.pretoken_counts, corpus.pretokeniser, sequences=runs)
    assert counted.documents is None
    assert _trained(counted, 256 + extra, opts) == _trained(corpus, 256 + extra, opts)


def _states(lines_: list[str], pattern: str) -> tuple[Superwords, OracleSuperwords]:
    corpus = TrainingCorpus.from_texts(lines_, boundless_pretokeniser())
    runs = corpus.supermerge_sequences
    assert runs is not None
    unlockable = _unlockable(MERGE_PATTERNS[pattern])
    raw_counts = {_raw(p): c for p, c in corpus.pretoken_counts.items()}
    compact = Superwords(
        runs, [_raw(p) for p in runs.pretokens], lambda t: raw_counts.get(t, 0), unlockable, Heartbeat(None)
    )
    oracle = OracleSuperwords([[_raw(p) for p in d] for d in corpus.documents or ()], unlockable, Heartbeat(None))
    return compact, oracle


@settings(max_examples=150, deadline=None)
@given(texts, st.sampled_from(sorted(MERGE_PATTERNS)), st.lists(st.integers(0, 1000), max_size=30))
def test_pair_counts_equal_the_oracle_after_every_change(lines_, pattern, choices):
    """Unlock pretokens in a random order, and supermerge a random counted pair in between."""
    compact, oracle = _states(lines_, pattern)
    pretokens = sorted({t for d in lines_ for t in boundless_pretokeniser().pretokenise(d) if t})
    for choice in choices:
        if choice % 3 or not oracle.counts:
            text = _raw(pretokens[choice % len(pretokens)])
            assert compact.unlock(text) == oracle.unlock(text)
        else:
            left, right = sorted(oracle.counts)[choice % len(oracle.counts)]
            assert compact.occurrences(left) == oracle.occurrences(left)
            assert compact.merge(left, right) == oracle.merge(left, right)
        assert compact.counts == oracle.counts
        assert compact.best(set()) == oracle.best(set())


def test_runs_of_equal_words_merge_left_to_right():
    """``the the the the the``: (x, x) merges pair them from the left and leave the last one,
    and their result stays locked; two equal supermerged neighbours pair up."""
    compact, oracle = _states(["the the the the the, the of the of the"], "improved")
    for state in (compact, oracle):
        for text in ("the", " the", " of"):
            state.unlock(text)
    assert compact.counts == oracle.counts
    assert compact.counts[(" the", " the")] == 2
    assert compact.merge(" the", " the") == oracle.merge(" the", " the") == 2
    assert compact.counts == oracle.counts
    assert compact.counts == {(" the", " of"): 2, (" of", " the"): 2}
    assert compact.merge(" the", " of") == 2
    oracle.merge(" the", " of")
    assert compact.counts == oracle.counts
    assert compact.counts[(" the of", " the of")] == 1


def test_summary_counts_the_runs():
    corpus = TrainingCorpus.from_texts(["Tip of the hat.", "Tip of the hat!", "of the hat"], boundless_pretokeniser())
    run = train(corpus, 300)
    runs = corpus.supermerge_sequences
    assert runs is not None and runs.as_dict() == {("Tip", "Ġof", "Ġthe", "Ġhat"): 2, ("of", "Ġthe", "Ġhat"): 1}
    assert (run.summary["supermerge_runs"], run.summary["supermerge_run_positions"]) == (2, 7)
    assert run.summary["supermerge_run_occurrences"] == 11


def test_counts_without_runs_or_with_unknown_pretokens_are_refused():
    pretokeniser = boundless_pretokeniser()
    with pytest.raises(InputError, match=r"needs running text.*count --sequences"):
        train(TrainingCorpus.from_pretoken_counts({"Ġof": 3, "Ġthe": 2}, pretokeniser), 300)
    runs = PretokenSequences.from_counts({("Ġof", "Ġthe"): 2, ("Ġof", "Ġa"): 1})
    corpus = TrainingCorpus.from_pretoken_counts({"Ġof": 3, "Ġthe": 2}, pretokeniser, sequences=runs)
    with pytest.raises(InputError, match="'Ġa' of a supermerge run is missing from the pretoken counts"):
        train(corpus, 300)
