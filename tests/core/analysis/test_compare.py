"""Comparing two tokenisers word by word (core/analysis/compare.py): hand-computed cases, shipped tokenisers,
and properties (a tokeniser against itself, symmetry, exactly the differing words listed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.compare import Segmentations, compare_tokenisers, token_frequency_differences, word_counts
from core.bpe.model import BTETokeniser, Merge
from core.counting.token_frequencies import token_frequencies
from core.errors import InputError
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import ByteLevel, Metaspace, WhitespaceSplit
from core.pipeline.byte_level import BYTE_TO_CHAR
from core.references.evaluation import predicted_splits

MARK = "▁"
# A joins "▁abc" whole; B stops at "▁a" + "bc".
A = BTETokeniser(MARK + "abc", [Merge(0, (MARK, "a")), Merge(1, ("b", "c")), Merge(2, (MARK + "a", "bc"))], Metaspace())
B = BTETokeniser(MARK + "abc", [Merge(0, (MARK, "a")), Merge(1, ("b", "c"))], Metaspace())
COUNTS = {"abc": 5, "cab": 2, "abcbc": 1}


def test_the_tokenisers_segment_as_intended():
    assert [A.tokenise_word(w) for w in COUNTS] == [[MARK + "abc"], [MARK, "c", "a", "b"], [MARK + "abc", "bc"]]
    assert [B.tokenise_word(w) for w in COUNTS] == [[MARK + "a", "bc"], [MARK, "c", "a", "b"], [MARK + "a", "bc", "bc"]]


def test_hand_computed_comparison_with_counts():
    result = compare_tokenisers(A, B, COUNTS)
    assert [(d.word, d.count, d.only_a, d.only_b, d.change, d.token_difference) for d in result.differences] == [
        ("abc", 5, (), (1,), 1, 1),  # B splits a|bc, A does not; the most frequent first
        ("abcbc", 1, (), (1,), 1, 1),  # both split abc|bc; only B also a|bcbc
    ]
    assert result.differences[0].tokens_a == (MARK + "abc",)
    assert result.differences[0].tokens_b == (MARK + "a", "bc")
    assert (result.words, result.occurrences, result.differing, result.differing_occurrences) == (3, 8, 2, 6)
    assert result.share == pytest.approx(2 / 3)
    assert result.weighted_share == pytest.approx(6 / 8)
    assert (result.tokens_a, result.tokens_b) == (5 * 1 + 2 * 4 + 1 * 2, 5 * 2 + 2 * 4 + 1 * 3)
    assert result.unaligned == ()


def test_a_word_list_counts_each_word_once_and_zero_counts_are_skipped():
    listed = compare_tokenisers(A, B, ["cab", "abc", "abc"])
    assert [d.word for d in listed.differences] == ["abc"]
    assert (listed.words, listed.occurrences, listed.weighted_share) == (2, 2, 0.5)
    skipped = compare_tokenisers(A, B, {"abc": 0, "cab": 3})
    assert (skipped.words, skipped.differing) == (1, 0)


def test_most_changed_words_come_first():
    # Against a tokeniser without merges (every character a token), "abcbc" (A: abc|bc) changes
    # by 3 and "abc" (A: whole) by 2: the larger change comes first whatever the counts.
    atoms = BTETokeniser(MARK + "abc", [], Metaspace())
    result = compare_tokenisers(A, atoms, {"abc": 100, "abcbc": 1})
    assert [(d.word, d.change) for d in result.differences] == [("abcbc", 3), ("abc", 2)]
    assert result.differences[0].only_b == (1, 2, 4)


def test_token_frequency_differences_by_hand():
    rows = token_frequency_differences(A, B, COUNTS)
    assert rows == [
        {"token": "bc", "frequency_a": 1, "frequency_b": 7, "difference": 6},
        {"token": MARK + "a", "frequency_a": 0, "frequency_b": 6, "difference": 6},
        {"token": MARK + "abc", "frequency_a": 6, "frequency_b": 0, "difference": -6},
    ]
    assert token_frequency_differences(A, A, COUNTS) == []


def test_segmentations_memo_feeds_token_frequencies_unchanged():
    memo = Segmentations(B)
    assert token_frequencies(memo, COUNTS) == token_frequencies(B, COUNTS)
    assert memo.segment("abc") is memo.segment("abc")


def test_the_memo_is_bounded_and_results_stay_the_same(monkeypatch):
    import core.analysis.compare as compare

    words = {f"a{'bc' * i}": i + 1 for i in range(6)}
    expected = compare_tokenisers(A, B, words)
    monkeypatch.setattr(compare, "MEMO_LIMIT", 2)
    memo = Segmentations(A)
    assert compare_tokenisers(memo, B, words) == expected
    assert len(memo._memo) <= 2


def test_byte_pieces_of_one_character_are_a_difference_without_a_change():
    """A byte-level tokeniser splits é into two byte tokens: no split position inside the word, but
    one more token than a character-level tokeniser that knows é."""
    byte_level = BTETokeniser(list(BYTE_TO_CHAR.values()), [], ByteLevel())
    characters = BTETokeniser(MARK + "é", [Merge(0, (MARK, "é"))], Metaspace())
    result = compare_tokenisers(byte_level, characters, ["é"])
    (difference,) = result.differences
    assert difference.tokens_a == ("Ġ", "Ã", "©") and difference.tokens_b == (MARK + "é",)
    assert (difference.change, difference.token_difference) == (0, -2)


def test_scenario_before_and_after_knockout():
    """[rebpe App. A.1] scenario 1: knockout of _bruids + ... splits bruid|s."""
    before = load_tokeniser(scenario_paths()["a1_scenario1"])
    after = before.with_merges([Merge(r, tuple(p)) for r, p in before.metadata["after_knockout_merges"]])
    result = compare_tokenisers(before, after, ["bruids", "bruid"])
    assert [(d.word, d.only_a, d.only_b) for d in result.differences] == [("bruids", (), (5,))]


@pytest.mark.parametrize("bad", ["abc", {"abc": -1}, {"abc": 1.5}, {"abc": True}, {"": 1}, [3]])
def test_bad_words_are_input_errors(bad):
    with pytest.raises(InputError):
        word_counts(bad)


def test_a_non_tokeniser_is_an_input_error():
    with pytest.raises(InputError, match="expected a tokeniser"):
        compare_tokenisers(object(), B, ["abc"])


def test_progress_is_reported_to_the_end():
    calls = []
    compare_tokenisers(
        A, B, [f"a{'b' * i}" for i in range(5)], progress=lambda done, total: calls.append((done, total))
    )
    assert calls == [(5, 5)]


# --- properties ------------------------------------------------------------------------------------
@st.composite
def tokenisers(draw):
    types, merges = list("abcd"), []
    for _ in range(draw(st.integers(0, 10))):
        parts = tuple(draw(st.sampled_from(types)) for _ in range(draw(st.sampled_from([2, 2, 3]))))
        if parts not in merges:
            merges.append(parts)
            types.append("".join(parts))
    return BTETokeniser("abcd", [Merge(i, m) for i, m in enumerate(merges)], WhitespaceSplit())


WORD_COUNTS = st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=10), st.integers(0, 9), max_size=10)


@settings(max_examples=150, deadline=None)
@given(tokenisers(), WORD_COUNTS)
def test_a_tokeniser_against_itself_differs_nowhere(tokeniser, counts):
    result = compare_tokenisers(tokeniser, tokeniser, counts)
    assert result.differences == ()
    assert result.words == sum(1 for c in counts.values() if c)
    assert result.tokens_a == result.tokens_b


@settings(max_examples=150, deadline=None)
@given(tokenisers(), tokenisers(), WORD_COUNTS)
def test_the_change_is_symmetric(a, b, counts):
    forward, backward = compare_tokenisers(a, b, counts), compare_tokenisers(b, a, counts)
    backward_by_word = {d.word: d for d in backward.differences}
    assert set(backward_by_word) == {d.word for d in forward.differences}
    for d in forward.differences:
        e = backward_by_word[d.word]
        assert (e.change, e.only_a, e.only_b, e.token_difference) == (d.change, d.only_b, d.only_a, -d.token_difference)
    assert forward.weighted_share == backward.weighted_share


@settings(max_examples=150, deadline=None)
@given(tokenisers(), tokenisers(), WORD_COUNTS)
def test_exactly_the_words_that_segment_differently_are_listed(a, b, counts):
    """Checked against the tokenisers themselves: split positions as morphological evaluation reads
    them (core.references.evaluation.predicted_splits) and token counts from tokenise_word."""

    def differs(word):
        return predicted_splits(a, word) != predicted_splits(b, word) or len(a.tokenise_word(word)) != len(
            b.tokenise_word(word)
        )

    result = compare_tokenisers(a, b, counts)
    assert {d.word for d in result.differences} == {w for w, c in counts.items() if c and differs(w)}
    for d in result.differences:
        assert d.change == len(predicted_splits(a, d.word) ^ predicted_splits(b, d.word))
        assert d.tokens_a == tuple(a.tokenise_word(d.word)) and d.tokens_b == tuple(b.tokenise_word(d.word))
    changes = [(-d.change, -d.count) for d in result.differences]
    assert changes == sorted(changes)
