"""The compact words state (core/families/boundless/states.py: token ids in int32 arrays) against
the state it replaced (tests/boundless_oracle.py: every pretoken as runs of strings): the same
merges, deletions, pair counts, frequencies and best pairs after every step, and the same trained
tokeniser, operations and events ([boundless §3.1 and App. B])."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.counting.corpus import TrainingCorpus
from core.deadline import Heartbeat
from core.errors import InputError
from core.families.boundless import trainer as boundless_train
from core.families.boundless.model import boundless_pretokeniser
from core.families.boundless.states import Words
from tests.boundless_oracle import OracleWords
from tests.core.families.test_boundless_compact import _trained, options, texts

# raw strings: one character per byte, a few letters so that pairs repeat, and the extreme bytes
raw_words = st.text(alphabet="aab\x00\xff\xe9", min_size=0, max_size=12)
corpora = st.dictionaries(raw_words, st.integers(1, 5) | st.just(1 << 40), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 80), options)
def test_training_equals_the_oracle_words(lines_, extra, opts):
    corpus = TrainingCorpus.from_texts(lines_, boundless_pretokeniser())
    compact = _trained(corpus, 256 + extra, opts)
    with mock.patch.object(boundless_train, "Words", OracleWords):
        oracle = _trained(corpus, 256 + extra, opts)
    assert compact == oracle


def _same(compact: Words, oracle: OracleWords, taken: set[str]) -> None:
    assert compact.counts == oracle.counts
    assert compact.frequency == oracle.frequency
    assert compact.best(taken) == oracle.best(taken)


@settings(max_examples=300, deadline=None)
@given(corpora, st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1000), st.integers(0, 1000)), max_size=40))
def test_merges_and_deletions_equal_the_oracle(counts, steps):
    """Merge a counted pair, delete a token (blown up into bytes, or split in two), or free a
    token; after each step the pair counts, frequencies and best pairs are the oracle's."""
    compact, oracle = Words(counts, Heartbeat(None)), OracleWords(counts, Heartbeat(None))
    taken: set[str] = set()
    _same(compact, oracle, taken)
    for kind, choice, cut in steps:
        longer = sorted(t for t in oracle.frequency if len(t) > 1)
        if kind <= 1 and oracle.counts:
            left, right = sorted(oracle.counts)[choice % len(oracle.counts)]
            assert compact.merge(left, right) == oracle.merge(left, right)
            taken.add(left + right)
        elif kind == 2 and longer:
            token = longer[choice % len(longer)]
            k = 1 + cut % (len(token) - 1)
            pieces = tuple(token) if cut % 2 else (token[:k], token[k:])
            assert compact.delete(token, pieces) == oracle.delete(token, pieces)
        elif taken:
            token = sorted(taken)[choice % len(taken)]
            taken.discard(token)
            compact.release(token)
            oracle.release(token)
        _same(compact, oracle, taken)


def test_runs_of_one_token_merge_left_to_right():
    """``aaaaa`` under (a, a) is ``aa aa a``; a deletion blows every occurrence up again, and a
    pretoken made one token is reported whole."""
    words = Words({"aaaaa": 2, "aa": 1, "ab": 3}, Heartbeat(None))
    assert words.counts == {("a", "a"): 5, ("a", "b"): 3}
    assert words.merge("a", "a") == (5, True)  # "aa" became whole
    assert words.counts == {("aa", "aa"): 2, ("aa", "a"): 2, ("a", "b"): 3}
    assert words.frequency == {"aa": 5, "a": 5, "b": 3}
    assert words.delete("aa", ("a", "a")) == 5
    assert words.counts == {("a", "a"): 5, ("a", "b"): 3}
    assert words.frequency == {"a": 15, "b": 3}


def test_the_index_is_rebuilt_without_stale_runs():
    """Once more runs were indexed than there are runs, the index is built afresh: it then holds
    exactly the live runs of each token."""
    words = Words({"abcd": 2}, Heartbeat(None))
    for left, right in (("a", "b"), ("ab", "c"), ("abc", "d")):
        words.merge(left, right)
    assert words.delete("abcd", tuple("abcd")) == 2
    assert words.indexed == len(words.tok) == 7  # 3 merges and 4 blown-up runs, 4 runs + 3 new ones
    assert words.merge("a", "b") == (2, False)
    assert words.indexed == 0
    live = {t: [r for r in range(len(words.tok)) if words.tok[r] == t] for t in set(words.tok) if t >= 0}
    assert {t: list(runs) for t, runs in words.runs_of.items()} == live
    assert [words.names[t] for t in sorted(live)] == ["c", "d", "ab"]
    assert words.counts == {("ab", "c"): 2, ("c", "d"): 2}


def test_pretokens_must_be_one_character_per_byte():
    with pytest.raises(InputError, match="one character per byte"):
        Words({"ĠOK": 1}, Heartbeat(None))
