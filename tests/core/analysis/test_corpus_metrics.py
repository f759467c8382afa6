"""Corpus metrics (core/analysis/corpus_metrics.py): hand-computed counts, entropies, efficiency, Zipf.

References: [boundless §4] Figs. 4-7 and App. E (Rényi efficiency of Zouhar et al. 2023,
α = 2.5), [scaffold §5.3] Eqs. 4-5 (entropy, redundancy), [knockout §2] (Zipf).
"""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.corpus_metrics import (
    CorpusStats,
    bytes_per_token,
    characters_per_token,
    redundancy,
    renyi_efficiency,
    renyi_entropy,
    shannon_entropy,
    summary,
    token_counts,
    token_frequency_curve,
    vocabulary_used,
    zipf_curve,
    zipf_fit,
)
from core.bpe.model import BTETokeniser, Merge
from core.errors import InputError
from core.pipeline import Metaspace, WhitespaceSplit


class CharTokeniser:
    """Character-level segmenter over a fixed type set (any character passes through)."""

    def __init__(self, types):
        self.types = frozenset(types)

    def tokenise(self, text):
        return list(text)


# a:3, b:2, c:1 (N = 6) over V = {a, b, c, d}: one type unused.
CORPUS = ["aab", "ab\n", "c"]
H_BITS = 0.5 + math.log2(3) / 3 + math.log2(6) / 6  # -Σ p log2 p with p = 1/2, 1/3, 1/6


@pytest.fixture
def stats():
    return token_counts(CharTokeniser("abcd"), CORPUS)


# --- counting -------------------------------------------------------------------------------------
def test_character_level_counts(stats):
    assert stats.counts == {"a": 3, "b": 2, "c": 1}
    assert (stats.tokens, stats.characters, stats.bytes) == (6, 6, 6)  # the "\n" is not counted
    assert (stats.vocab_size, stats.oov_types, stats.types_used, stats.support_size) == (4, 0, 3, 4)


def test_bte_tokeniser_with_whitespace_split():
    # V = {a, b, c, ab}; pretokens ab | ab | c ; abc | a  ->  ab ab c ab c a
    tok = BTETokeniser("abc", [Merge(0, ("a", "b"))], WhitespaceSplit())
    stats = token_counts(tok, ["ab ab c", "abc a\r\n"])
    assert stats.counts == {"ab": 3, "c": 2, "a": 1}
    assert stats.tokens == 6
    assert stats.characters == 7 + 5  # spaces are input text; the line break is not
    assert stats.vocab_size == 4 and stats.oov_types == 0
    assert vocabulary_used(stats) == 3 / 4  # "b" never surfaces


def test_vocab_size_includes_specials():
    tok = BTETokeniser("ab", [Merge(0, ("a", "b"))], Metaspace(), specials=["<s>"])
    stats = token_counts(tok, ["ab"])
    assert stats.counts == {"▁": 1, "ab": 1}
    assert stats.vocab_size == tok.vocab_size == 4  # a, b, ab, <s>
    assert stats.oov_types == 1  # "▁" is not in this alphabet
    assert stats.support_size == 5


def test_trimmed_bpe_uses_its_reduced_vocabulary():
    from core.families.trimmed import TrimmedBPE

    tok = BTETokeniser("abc", [Merge(0, ("a", "b")), Merge(1, ("ab", "c"))], WhitespaceSplit())
    trimmed = TrimmedBPE(tok, {"ab": 0, "abc": 5}, threshold=1)  # "ab" (freq 0 < 1) is trimmed
    stats = token_counts(trimmed, ["abc ab"])
    assert stats.counts == {"abc": 1, "a": 1, "b": 1}
    assert stats.vocab_size == len(trimmed.vocabulary) == 4  # a, b, c, abc


def test_multibyte_characters():
    stats = token_counts(CharTokeniser("né€😀"), ["né€\r\n", "😀"])
    assert (stats.tokens, stats.characters, stats.bytes) == (4, 4, 1 + 2 + 3 + 4)
    assert bytes_per_token(stats) == 10 / 4
    assert characters_per_token(stats) == 1.0


def test_out_of_vocabulary_tokens_join_the_support():
    stats = token_counts(CharTokeniser("ab"), ["abzz"])
    assert stats.oov_types == 1 and stats.support_size == 3
    assert vocabulary_used(stats) == 1.0  # z is not part of the vocabulary
    assert len(token_frequency_curve(stats)) == 3


def test_explicit_vocabulary_and_size_only_segmenters():
    class SizeOnly:
        vocab_size = 10

        def tokenise(self, text):
            return text.split()

    stats = token_counts(SizeOnly(), ["x y x"])
    assert stats.vocab_size == 10 and stats.oov_types == 0
    stats = token_counts(SizeOnly(), ["x y x"], vocabulary=["x", "w"])
    assert stats.vocab_size == 2 and stats.oov_types == 1


def test_progress_reports_increments():
    calls = []
    stats = token_counts(CharTokeniser("a"), ["a"] * 2500, progress=calls.append)
    assert calls == [1000, 1000, 500] and stats.tokens == 2500


def test_json_round_trip(stats):
    data = json.loads(json.dumps(stats.to_json()))
    assert list(data["counts"]) == ["a", "b", "c"]  # descending count
    assert CorpusStats.from_json(data) == stats


# --- entropies ------------------------------------------------------------------------------------
def test_shannon_entropy_by_hand(stats):
    assert shannon_entropy(stats) == pytest.approx(H_BITS, rel=1e-12)
    assert shannon_entropy(stats) == pytest.approx(1.4591479170, abs=1e-9)
    assert shannon_entropy(stats, base=math.e) == pytest.approx(H_BITS * math.log(2), rel=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3, 7, 64, 1000])
def test_uniform_entropy_is_log2_k(k):
    stats = CorpusStats.from_counts({str(i): 17 for i in range(k)})
    assert shannon_entropy(stats) == pytest.approx(math.log2(k), abs=1e-12)
    for alpha in (0, 0.5, 1, 2, 2.5, math.inf):
        assert renyi_entropy(stats, alpha) == pytest.approx(math.log2(k), abs=1e-12)


def test_renyi_entropy_by_hand(stats):
    assert renyi_entropy(stats, 0) == pytest.approx(math.log2(3))  # log of the support size
    # α = 2: -log2 Σ p² = -log2(1/4 + 1/9 + 1/36) = log2(36/14)
    assert renyi_entropy(stats, 2) == pytest.approx(math.log2(36 / 14), rel=1e-12)
    assert renyi_entropy(stats, 2) == pytest.approx(1.3625700794, abs=1e-9)
    # α = 2.5: 1/(1-2.5) log2 Σ p^2.5 = -(2/3) log2(2^-2.5 + 3^-2.5 + 6^-2.5)
    expected = -(2 / 3) * math.log2(2**-2.5 + 3**-2.5 + 6**-2.5)
    assert renyi_entropy(stats, 2.5) == pytest.approx(expected, rel=1e-12)
    assert renyi_entropy(stats, 2.5) == pytest.approx(1.3246512368, abs=1e-9)
    assert renyi_entropy(stats, math.inf) == pytest.approx(1.0)  # -log2 max p = -log2 1/2
    assert renyi_entropy(stats, 1) == shannon_entropy(stats)  # α = 1 is the Shannon limit


def test_renyi_tends_to_shannon(stats):
    h = shannon_entropy(stats)
    for eps in (1e-3, 1e-6, 1e-9):
        assert renyi_entropy(stats, 1 - eps) == pytest.approx(h, abs=10 * eps)
        assert renyi_entropy(stats, 1 + eps) == pytest.approx(h, abs=10 * eps)
    assert renyi_entropy(stats, 1 - 1e-6) >= h >= renyi_entropy(stats, 1 + 1e-6)
    # the two numerical branches agree where they meet (|α - 1| = 0.25)
    assert renyi_entropy(stats, 1.25 - 1e-9) == pytest.approx(renyi_entropy(stats, 1.25 + 1e-9), abs=1e-8)


def test_renyi_efficiency_and_redundancy_by_hand(stats):
    # |V| = 4: log2 |V| = 2
    expected = -(2 / 3) * math.log2(2**-2.5 + 3**-2.5 + 6**-2.5) / 2
    assert renyi_efficiency(stats) == pytest.approx(expected, rel=1e-12)
    assert renyi_efficiency(stats, alpha=2) == pytest.approx(math.log2(36 / 14) / 2, rel=1e-12)
    # [scaffold Eq. 5]: R = 1 - H / log2 |V|
    assert redundancy(stats) == pytest.approx(1 - H_BITS / 2, rel=1e-12)
    assert redundancy(stats) == pytest.approx(0.2704260415, abs=1e-9)
    assert redundancy(stats) == pytest.approx(1 - renyi_efficiency(stats, alpha=1), abs=1e-15)


def test_efficiency_of_uniform_distribution():
    full = CorpusStats.from_counts({t: 5 for t in "abcd"}, vocab_size=4)
    for alpha in (0, 0.5, 1, 2.5, 10, math.inf):
        assert renyi_efficiency(full, alpha) == pytest.approx(1.0, abs=1e-12)
    assert redundancy(full) == pytest.approx(0.0, abs=1e-12)
    half = CorpusStats.from_counts({t: 5 for t in "abcd"}, vocab_size=8)  # 4 types unused
    assert renyi_efficiency(half) == pytest.approx(math.log(4) / math.log(8), rel=1e-12)  # 2/3
    assert redundancy(half) == pytest.approx(1 / 3, rel=1e-12)
    assert vocabulary_used(half) == 0.5


# --- curves and Zipf ------------------------------------------------------------------------------
def test_zipf_curve(stats):
    assert zipf_curve(stats) == [(1, 3), (2, 2), (3, 1)]


def test_token_frequency_curve_includes_unused_types(stats):
    # [boundless Fig. 4]: log10(count + 1), unused types plotted at 0
    curve = token_frequency_curve(stats)
    assert [r for r, _ in curve] == [1, 2, 3, 4]
    assert [v for _, v in curve] == pytest.approx([math.log10(4), math.log10(3), math.log10(2), 0.0])
    assert curve[-1][1] == 0.0


def test_zipf_fit_recovers_exact_power_law():
    n = 720720  # divisible by 1..16: count(r) = n / r exactly
    stats = CorpusStats.from_counts({f"t{r}": n // r for r in range(1, 17)})
    slope, intercept = zipf_fit(stats)
    assert slope == pytest.approx(-1.0, abs=1e-12)
    assert intercept == pytest.approx(math.log10(n), abs=1e-12)
    assert zipf_fit(stats, min_rank=3, max_rank=9)[0] == pytest.approx(-1.0, abs=1e-12)
    squared = CorpusStats.from_counts({f"t{r}": (n // r) ** 2 for r in range(1, 17)})
    assert zipf_fit(squared)[0] == pytest.approx(-2.0, abs=1e-12)


# --- errors ---------------------------------------------------------------------------------------
def test_empty_corpus_raises_input_error():
    empty = token_counts(CharTokeniser("ab"), ["", "\n"])
    assert empty.tokens == 0 and empty.characters == 0
    assert token_frequency_curve(empty) == [(1, 0.0), (2, 0.0)]
    assert vocabulary_used(empty) == 0.0
    for metric in (
        shannon_entropy,
        redundancy,
        renyi_efficiency,
        bytes_per_token,
        characters_per_token,
        summary,
        lambda s: renyi_entropy(s, 2),
    ):
        with pytest.raises(InputError, match="empty corpus"):
            metric(empty)
    with pytest.raises(InputError):
        zipf_fit(empty)


def test_bad_alpha_and_base(stats):
    for alpha in (-0.5, -math.inf, math.nan, "2", True):
        with pytest.raises(InputError):
            renyi_entropy(stats, alpha)
        with pytest.raises(InputError):
            renyi_efficiency(stats, alpha)
    for base in (1, 0, -2, math.nan):
        with pytest.raises(InputError):
            shannon_entropy(stats, base=base)


def test_degenerate_inputs(stats):
    one = CorpusStats.from_counts({"a": 3}, vocab_size=1)
    assert shannon_entropy(one) == 0.0 and renyi_entropy(one, 2.5) == 0.0
    with pytest.raises(InputError, match="at least 2 types"):
        renyi_efficiency(one)
    with pytest.raises(InputError, match="at least 2 types"):
        redundancy(one)
    with pytest.raises(InputError, match="at least 2"):
        zipf_fit(one)
    with pytest.raises(InputError, match="max_rank"):
        zipf_fit(stats, min_rank=2, max_rank=1)
    with pytest.raises(InputError, match="differs"):
        CorpusStats(tokens=5, characters=0, bytes=0, vocab_size=4, counts={"a": 3})
    with pytest.raises(InputError, match="oov_types"):
        CorpusStats(tokens=3, characters=0, bytes=0, vocab_size=1, counts={"a": 2, "b": 1})
    with pytest.raises(InputError, match="non-negative"):
        CorpusStats(tokens=1, characters=0, bytes=0, vocab_size=4, counts={"a": -1, "b": 2})
    with pytest.raises(InputError, match="tokenise"):
        token_counts(object(), ["a"])


def test_summary(stats):
    s = summary(stats)
    assert s["tokens"] == 6 and s["types_used"] == 3 and s["vocab_size"] == 4 and s["alpha"] == 2.5
    assert s["shannon_entropy"] == pytest.approx(H_BITS)
    assert s["renyi_efficiency"] == renyi_efficiency(stats)
    assert s["redundancy"] == redundancy(stats)
    assert s["vocabulary_used"] == 0.75 and s["bytes_per_token"] == 1.0
    assert s["zipf_slope"] < 0
    json.dumps(s)
    assert summary(CorpusStats.from_counts({"a": 1}, vocab_size=2))["zipf_slope"] is None


# --- properties -----------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=40), st.integers(0, 50))
def test_efficiency_bounded_and_renyi_non_increasing(counts, unused):
    stats = CorpusStats.from_counts({f"t{i}": c for i, c in enumerate(counts)}, vocab_size=len(counts) + unused)
    alphas = [0, 0.3, 0.9, 0.999, 1, 1.001, 1.5, 2, 2.5, 4, 20, math.inf]
    entropies = [renyi_entropy(stats, a) for a in alphas]
    assert all(later <= earlier + 1e-9 for earlier, later in itertools.pairwise(entropies))
    assert entropies[0] == pytest.approx(math.log2(len(counts)))
    if stats.support_size >= 2:
        for alpha in alphas:
            assert 0.0 <= renyi_efficiency(stats, alpha) <= 1.0
        assert 0.0 <= redundancy(stats) <= 1.0


# --- the shipped English tokeniser on real running text ------------------------------------------
def test_english_4k_on_running_text():
    from core.formats.samples import running_text, tokeniser_paths
    from core.formats.tokeniser_files import load_tokeniser

    tok = load_tokeniser(tokeniser_paths()["en-bpe-4k-wordfreq"])
    lines = list(itertools.islice(running_text(), 2000))
    stats = token_counts(tok, lines)
    s = summary(stats)
    assert s["tokens"] == sum(stats.counts.values()) == sum(len(tok.tokenise(line)) for line in lines)
    assert s["characters"] == sum(map(len, lines))
    assert s["bytes"] == sum(len(line.encode("utf-8")) for line in lines) >= s["characters"]
    assert s["vocab_size"] == tok.vocab_size == 4000
    assert s["types_used"] == len(stats.counts) == s["oov_types"] + round(s["vocabulary_used"] * 4000)
    assert 0 < s["vocabulary_used"] <= 1
    assert 0 < s["renyi_efficiency"] < 1 and 0 < s["redundancy"] < 1
    assert s["renyi_entropy"] <= s["shannon_entropy"] <= math.log2(s["types_used"])
    assert s["redundancy"] == pytest.approx(1 - renyi_efficiency(stats, alpha=1))
    assert s["bytes_per_token"] == pytest.approx(s["bytes"] / s["tokens"])
    assert s["characters_per_token"] > 1
    assert s["zipf_slope"] < 0
    curve = token_frequency_curve(stats)
    assert len(curve) == stats.support_size
    assert sum(1 for _, v in curve if v == 0) == stats.support_size - stats.types_used


def test_word_count_stats_by_hand():
    """Word counts: each word tokenised once as in running text, its tokens counted count times;
    characters and bytes are the words' own (é: 1 character, 2 bytes)."""
    from core.analysis.corpus_metrics import word_count_stats

    tok = BTETokeniser("▁abcé", [Merge(0, ("▁", "a")), Merge(1, ("▁a", "b"))], Metaspace())
    stats = word_count_stats(tok, {"ab": 5, "cé": 2, "unused": 0})
    assert stats.counts == {"▁ab": 5, "▁": 2, "c": 2, "é": 2}
    assert (stats.tokens, stats.characters, stats.bytes) == (11, 5 * 2 + 2 * 2, 5 * 2 + 2 * 3)
    assert (stats.vocab_size, stats.oov_types) == (tok.vocab_size, 0)
    with pytest.raises(InputError):
        word_count_stats(tok, {"ab": -1})
