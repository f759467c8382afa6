"""BPE-dropout ([knockout §4.1] "Dropout"): tests/fixtures/TEST_VECTORS.md V12 for both variants."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.errors import InputError
from core.families.dropout import dropout_samples, dropout_segment, dropout_tokenise, dropout_tokenise_word
from core.pipeline import Metaspace, WhitespaceSplit
from tests.strategies import WORDS, hf_bpe, merge_lists

VARIANTS = ["hf", "subword-nmt"]
SENNRICH_MERGES = ["e s", "es t", "l o", "▁ lo", "▁lo w", "e w", "n ew", "▁ new", "▁new est", "d est", "i dest"]


def bte(merges, alphabet="abcd", pretokeniser=None):
    merges = [Merge(i, tuple(m.split()) if isinstance(m, str) else tuple(m)) for i, m in enumerate(merges)]
    return BTETokeniser(alphabet, merges, pretokeniser or WhitespaceSplit())


def sennrich():
    return bte(SENNRICH_MERGES, alphabet="delnorstwi▁", pretokeniser=Metaspace())


# --- p = 0: plain BPE -----------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(merge_lists(), WORDS)
def test_hf_p0_equals_bpe_and_hf_tokenizers(merges, words):
    tok = bte(merges)
    hf = hf_bpe("abcd", merges)
    rng = random.Random(0)
    for word in words:
        expected = tok.segment_pretoken(word)
        assert dropout_segment(tok, word, 0, rng) == expected
        assert list(expected) == hf.encode(word).tokens


@settings(max_examples=150, deadline=None)
@given(merge_lists(shuffle=False), WORDS)
def test_subword_nmt_p0_equals_bpe_on_trained_merge_lists(merges, words):
    tok = bte(merges)
    hf = hf_bpe("abcd", merges)
    rng = random.Random(0)
    for word in words:
        got = dropout_segment(tok, word, 0.0, rng, variant="subword-nmt")
        assert got == tok.segment_pretoken(word)
        assert list(got) == hf.encode(word).tokens


def test_subword_nmt_applies_all_occurrences_at_once():
    # Not in training order: "ab a" outranks the merge forming "ab". HF merges one occurrence of
    # "a b", then "ab a" fires; subword-nmt merges both occurrences of "a b" first.
    tok = bte(["ab a", "a b"])
    rng = random.Random(0)
    assert dropout_segment(tok, "abab", 0, rng, variant="hf") == tok.segment_pretoken("abab") == ("aba", "b")
    assert dropout_segment(tok, "abab", 0, rng, variant="subword-nmt") == ("ab", "ab")


@pytest.mark.parametrize("variant", VARIANTS)
def test_p0_sennrich_and_tuple_merges(variant):
    tok = sennrich()
    rng = random.Random(1)
    for word in ["low", "lower", "newest", "widest", "lowest", "newer", "slowest"]:
        assert dropout_tokenise_word(tok, word, 0, rng, variant) == tok.tokenise_word(word)
    tup = bte(["a b", "b c", "a b c", "ab c d", "c d"])
    for _ in range(300):
        word = "".join(rng.choice("abcd") for _ in range(rng.randint(1, 12)))
        assert dropout_segment(tup, word, 0, rng, variant=variant) == tup.segment_pretoken(word)


# --- p = 1: characters ------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_p1_gives_characters(variant):
    tok = sennrich()
    rng = random.Random(2)
    assert dropout_tokenise(tok, "lowest newer widest", 1, rng, variant) == list("▁lowest▁newer▁widest")
    tup = bte(["a b", "a b c"])
    assert dropout_segment(tup, "abcab", 1.0, rng, variant=variant) == tuple("abcab")


# --- statistics -------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_two_character_word_stays_unmerged_with_probability_p(variant):
    tok = bte(["a b"])
    p, n = 0.3, 4000
    rng = random.Random(12345)
    unmerged = sum(dropout_segment(tok, "ab", p, rng, variant=variant) == ("a", "b") for _ in range(n))
    se = math.sqrt(p * (1 - p) / n)
    assert abs(unmerged / n - p) < 4 * se


def test_tuple_merge_candidate_dropped_with_probability_p():
    tok = bte([("a", "b", "c")])
    p, n = 0.25, 4000
    rng = random.Random(7)
    for variant in VARIANTS:
        unmerged = sum(dropout_segment(tok, "abc", p, rng, variant=variant) == ("a", "b", "c") for _ in range(n))
        assert abs(unmerged / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_hf_skipped_candidates_come_back_after_a_merge():
    # "abc" with merges (a b) rank 0, (b c) rank 1. HF: if the (a b) pop is dropped (prob p) and
    # the (b c) pop is kept, (a b) is re-queued but stale after "a bc": result a|bc.
    # P(a, bc) = p(1-p); P(ab, c) = 1-p; P(a, b, c) = p^2.
    tok = bte(["a b", "b c"])
    p, n = 0.4, 4000
    rng = random.Random(99)
    outcomes = {}
    for _ in range(n):
        seg = dropout_segment(tok, "abc", p, rng)
        outcomes[seg] = outcomes.get(seg, 0) + 1
    for seg, prob in [(("ab", "c"), 1 - p), (("a", "bc"), p * (1 - p)), (("a", "b", "c"), p * p)]:
        assert abs(outcomes.get(seg, 0) / n - prob) < 4 * math.sqrt(prob * (1 - prob) / n)


# --- properties -------------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(merge_lists(), WORDS, st.floats(0, 1), st.integers(0, 2**32), st.sampled_from(VARIANTS))
def test_dropout_concatenates_to_the_input_and_uses_types(merges, words, p, seed, variant):
    tok = bte(merges)
    rng = random.Random(seed)
    for word in words:
        seg = dropout_segment(tok, word, p, rng, variant=variant)
        assert "".join(seg) == word
        assert all(t in tok.types for t in seg)


def test_tuple_merges_with_dropout_concatenate():
    tok = bte(["a b", "b c", "a b c", "ab c d", "c d"])
    rng = random.Random(3)
    for variant in VARIANTS:
        for _ in range(300):
            word = "".join(rng.choice("abcd") for _ in range(rng.randint(1, 12)))
            seg = dropout_segment(tok, word, rng.random(), rng, variant=variant)
            assert "".join(seg) == word and all(t in tok.types for t in seg)


@pytest.mark.parametrize("variant", VARIANTS)
def test_samples_are_deterministic_for_a_seed(variant):
    tok = sennrich()
    a = dropout_samples(tok, "lowest", 0.3, 50, seed=5, variant=variant)
    b = dropout_samples(tok, "lowest", 0.3, 50, seed=5, variant=variant)
    assert a == b and len(a) == 50
    assert all("".join(s) == "▁lowest" for s in a)
    assert len({tuple(s) for s in a}) > 1  # dropout really varies the segmentation
    assert dropout_samples(tok, "lowest", 0.3, 50, seed=6, variant=variant) != a


def test_invalid_arguments():
    tok = sennrich()
    rng = random.Random(0)
    for p in [-0.1, 1.5, float("nan"), "0.3", True]:
        with pytest.raises(InputError):
            dropout_segment(tok, "▁low", p, rng)
    with pytest.raises(InputError):
        dropout_segment(tok, "▁low", 0.1, rng, variant="sentencepiece")
    with pytest.raises(InputError):
        dropout_samples(tok, "low", 0.1, -1)
    assert dropout_segment(tok, "", 0.5, rng) == ()


def test_ignore_merges_only_without_dropout():
    merges = [Merge(0, ("b", "c")), Merge(1, ("a", "b"))]
    # "ab" is a type, but BPE on "abc" gives a|bc; ignore_merges keeps a pretoken that is a type.
    tok = BTETokeniser("abc", [*merges, Merge(2, ("a", "bc"))], WhitespaceSplit(), ignore_merges=True)
    rng = random.Random(0)
    assert dropout_segment(tok, "ab", 0, rng) == ("ab",) == tok.segment_pretoken("ab")
    assert dropout_segment(tok, "ab", 1, rng) == ("a", "b")  # HF skips ignore_merges under dropout


def test_hf_reinserts_skipped_candidates_on_any_kept_pop():
    # HF word.rs re-queues the set-aside candidates on every pop that is not dropped, *before*
    # checking that pop for staleness. "abcd", merges (b c) r0, (a bc) r1, (c d) r2:
    # after b+c, the queue holds (a bc) valid and (c d) stale. If (a bc) is dropped and the stale
    # (c d) is kept, (a bc) gets a second chance, so
    # P(abc, d) = (1-p) * [(1-p) + p (1-p)^2]  (0.3125 at p=0.5; 0.25 without the second chance).
    tok = bte(["b c", "a bc", "c d"])
    p, n = 0.5, 4000
    rng = random.Random(2024)
    hits = sum(dropout_segment(tok, "abcd", p, rng) == ("abc", "d") for _ in range(n))
    prob = (1 - p) * ((1 - p) + p * (1 - p) ** 2)
    assert abs(hits / n - prob) < 4 * math.sqrt(prob * (1 - prob) / n)
