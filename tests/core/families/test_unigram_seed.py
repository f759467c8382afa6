"""Unigram seed vocabularies ([unigram §3.1, App. A Alg. 2-3]): tests/fixtures/TEST_VECTORS.md V10 and both
suffix-array seeds against brute-force enumerations of right-maximal repeats."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.unigram.seed import (
    Nodes,
    PieceRules,
    _by_first_symbol,
    _interval_min,
    _interval_sum,
    char_counts,
    counted_text_seed,
    full_text_seed,
    lcp_intervals,
    pretoken_seed,
    select_seed,
    sorted_suffixes,
)

HUG = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def test_v10_corpus_long_seed():
    found = pretoken_seed(HUG, PieceRules(16))
    chars = {"u": 36, "g": 20, "p": 17, "n": 16, "h": 15, "s": 5, "b": 4}
    repeats = {"hug": 15, "ug": 20, "pu": 17, "un": 16}
    whole_pretokens = {"pun": 12, "hugs": 5, "pug": 5, "bun": 4}
    assert found == {**chars, **repeats, **whole_pretokens}  # no "hu" (always + g), no "gs" (one pretoken)
    seed = select_seed(found, 100)
    # scores freq x length: hug 45, ug 40, pun 36, pu 34, un 32, hugs 20, pug 15, bun 12; chars their
    # counts; the sum is 347 (V10's "352" is a typo: its log-probabilities use 347)
    assert seed["hug"] == pytest.approx(-2.042662, abs=1e-6)
    assert seed["u"] == pytest.approx(-2.265806, abs=1e-6)
    assert list(seed) == [*chars, "hug", "ug", "pun", "pu", "un", "hugs", "pug", "bun"]


def test_seed_size_keeps_characters_and_the_best_scores():
    seed = select_seed(pretoken_seed(HUG, PieceRules(16)), 9)
    assert set(seed) == {"u", "g", "p", "n", "h", "s", "b", "hug", "ug"}
    assert select_seed({"ab": 3}, 2, required=["a", "b"]).keys() == {"a", "b"}


def test_maximal_valid_prefix_recovery_paper_example():
    # §3.1: in "the old man the boat" the node "▁the▁" is rejected and "▁the" is never a node;
    # Alg. 3 recovers its longest valid prefix longer than the parent node "▁".
    docs = [("▁the", "▁old", "▁man", "▁the", "▁boat")]
    counts = {"▁the": 2, "▁old": 1, "▁man": 1, "▁boat": 1}
    rules = PieceRules(16, marker="▁")
    plain = full_text_seed(counts, docs, rules)
    assert "▁the" not in plain and "the" not in plain
    recovered = full_text_seed(counts, docs, rules, recovery=True)
    assert recovered["▁the"] == 2 and recovered["the"] == 2


def test_script_rule():
    rules = PieceRules(16, split_by_script=True, marker="▁")
    assert rules.valid_length("▁hello") == 6
    assert rules.valid_length("ab,") == 2  # Latin then Common
    assert rules.valid_length("1990.") == 5  # all Common
    assert rules.valid_length("e\u0301t") == 3  # a combining mark inherits the script
    assert rules.valid_length("カタカナ漢字") == 6  # Katakana counts as Han
    assert rules.valid_length("abγ") == 2
    seed = full_text_seed({"▁ab,": 2}, None, rules)
    assert "▁ab," not in seed and "b," not in seed
    assert PieceRules(16).valid_length("ab,") == 3


# --- the pieces at scale: groups, stretches, chunks -------------------------------------------------
SYMBOLS = st.lists(st.sampled_from([-1, 0, 1, 2, 0x3B3, 0x10FFFF]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(SYMBOLS, st.integers(1, 12), st.integers(1, 40))
def test_suffixes_sorted_in_groups(symbols, depth, group):
    """Sorting a few first symbols' suffixes at a time gives the one-sort suffix array; suffixes
    are in order of their first ``depth`` symbols (the boundary -1 first, then code order) and
    the lcp is the true common prefix, capped at ``depth``."""
    codes = np.array(symbols, dtype=np.int32)
    sa, lcp = sorted_suffixes(codes, depth, group)
    whole = sorted_suffixes(codes, depth, len(codes) + 1)
    assert sa.tolist() == whole[0].tolist() and lcp.tolist() == whole[1].tolist()
    assert sorted(sa.tolist()) == list(range(len(codes)))
    prefixes = [symbols[p : p + depth] for p in sa.tolist()]
    assert prefixes == sorted(prefixes)
    for i in range(1, len(sa)):
        a, b = symbols[sa[i - 1] :], symbols[sa[i] :]
        common = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        assert lcp[i] == min(common, depth)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 6), max_size=50), st.integers(1, 9), st.booleans())
def test_counting_sort_by_first_symbol(ranks, chunk, wide):
    first = np.array(ranks, dtype=np.int32)
    sizes = np.bincount(first, minlength=(1 << 16) + 1 if wide else 7)  # wide: no 16-bit radix sort
    assert _by_first_symbol(first, sizes, chunk).tolist() == np.argsort(first, kind="stable").tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 7), max_size=60), st.integers(2, 8), st.integers(1, 20), st.integers(1, 9))
def test_intervals_by_stretch_and_chunk(values, max_height, stretch, chunk):
    """Nodes found stretch by stretch are those of the whole lcp array, in the same order; the
    chunked sums and minima over their intervals are the direct ones."""
    lcp = np.array([0, *values], dtype=np.int32)
    nodes, whole = lcp_intervals(lcp, max_height, stretch), lcp_intervals(lcp, max_height, len(lcp) + 1)
    for name in Nodes.__dataclass_fields__:
        assert getattr(nodes, name).tolist() == getattr(whole, name).tolist()
    rng = np.random.default_rng(len(values))
    sa = rng.permutation(len(lcp)).astype(np.int32)
    weights, limits = rng.integers(1, 9, len(lcp)), np.arange(len(lcp), dtype=np.int32) + rng.integers(0, 5, len(lcp))
    spans = list(zip(nodes.left.tolist(), nodes.right.tolist(), strict=True))
    assert _interval_sum(weights, sa, nodes, chunk).tolist() == [int(weights[sa[a:b]].sum()) for a, b in spans]
    room = [int((limits[sa[a:b]] - sa[a:b]).min()) for a, b in spans]
    assert _interval_min(limits, sa, nodes, chunk).tolist() == room


def test_char_counts_in_chunks():
    counts = {"▁ab": 3, "b😀": 2, "\0a": 1, "γ": 5}
    expected = {"\0": 1, "a": 4, "b": 5, "γ": 5, "▁": 3, "😀": 2}
    assert list(char_counts(counts, 1).items()) == list(expected.items())
    assert char_counts({}) == {}


# --- brute force ----------------------------------------------------------------------------------
def right_maximal(symbols):
    """{substring tuple: start positions} of every repeat followed by two different symbols
    (the end of the text counts as a symbol)."""
    n = len(symbols)
    sites = defaultdict(list)
    for i in range(n):
        for j in range(i + 1, n + 1):
            sites[tuple(symbols[i:j])].append(i)
    return {
        s: pos
        for s, pos in sites.items()
        if len(pos) >= 2 and len({symbols[p + len(s)] if p + len(s) < n else None for p in pos}) >= 2
    }


def brute_force(symbols, weights, limits, max_length, recovery):
    nodes = right_maximal(symbols)
    found = {}
    for s, pos in nodes.items():
        h = len(s)
        room = min(limits[p] - p for p in pos)
        if 1 < h <= max_length and h <= room:
            found["".join(s)] = sum(weights[p] for p in pos)
        elif recovery:
            parent = max((k for k in range(1, h) if s[:k] in nodes), default=0)
            length = min(h, max_length, room)
            if length > max(parent, 1):
                found["".join(s[:length])] = sum(weights[p] for p in pos)
    return found


def layout(sentences, unique_boundaries):
    symbols, limits, weights = [], [], []
    for k, (pretokens, weight) in enumerate(sentences):
        for pretoken in pretokens:
            end = len(symbols) + len(pretoken)
            symbols += list(pretoken)
            limits += [end] * len(pretoken)
        weights += [weight] * (len(symbols) - len(weights))
        limits.append(len(symbols))
        symbols.append(("end", k) if unique_boundaries else "end")
        weights.append(weight)
    return symbols, weights, limits


PRETOKEN = st.text("ab▁", min_size=1, max_size=5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(PRETOKEN, min_size=1, max_size=4), min_size=1, max_size=4), st.integers(2, 5), st.booleans())
def test_full_text_seed_is_alg2(documents, max_length, recovery):
    counts = defaultdict(int)
    for doc in documents:
        for p in doc:
            counts[p] += 1
    symbols, weights, limits = layout([(d, 1) for d in documents], unique_boundaries=False)
    expected = brute_force(symbols, weights, limits, max_length, recovery)
    found = full_text_seed(dict(counts), documents, PieceRules(max_length), recovery)
    assert {p: f for p, f in found.items() if len(p) > 1} == expected


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(PRETOKEN, st.integers(1, 4), min_size=1, max_size=6), st.integers(2, 5), st.booleans())
def test_pretoken_seed_is_corpus_long(counts, max_length, recovery):
    symbols, weights, limits = layout([((w,), c) for w, c in counts.items()], unique_boundaries=True)
    expected = brute_force(symbols, weights, limits, max_length, recovery)
    for word, count in counts.items():
        if count >= 2 and 2 <= len(word) <= max_length:
            expected.setdefault(word, count)
    found = pretoken_seed(counts, PieceRules(max_length), recovery)
    assert {p: f for p, f in found.items() if len(p) > 1} == expected
    chars = defaultdict(int)
    for word, count in counts.items():
        for ch in word:
            chars[ch] += count
    assert {p: f for p, f in found.items() if len(p) == 1} == chars


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(PRETOKEN, st.integers(1, 4), min_size=1, max_size=6), st.integers(2, 5), st.booleans())
def test_counted_text_seed_is_alg2_on_weighted_pretokens(counts, max_length, recovery):
    symbols, weights, limits = layout([((w,), c) for w, c in counts.items()], unique_boundaries=False)
    found = counted_text_seed(counts, PieceRules(max_length), recovery)
    assert {p: f for p, f in found.items() if len(p) > 1} == brute_force(symbols, weights, limits, max_length, recovery)
    if not recovery:  # the text whose every pretoken occurrence is a sentence gives the same seed
        sentences = [(w,) for w, c in counts.items() for _ in range(c)]
        assert found == full_text_seed(counts, sentences, PieceRules(max_length))


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text("abc▁", min_size=1, max_size=7), st.integers(1, 4), min_size=1, max_size=8),
    st.integers(2, 5),
    st.integers(1, 12),
    st.booleans(),
)
def test_a_limited_seed_selects_as_the_full_one(counts, max_length, size, by_script):
    """``limit``: the best candidates by score and all that tie with the last, so the seed of
    that size (ties by string) is the same as from all candidates."""
    rules = PieceRules(max_length, split_by_script=by_script, marker="▁")
    full = counted_text_seed(counts, rules)
    limited = counted_text_seed(counts, rules, limit=size)
    assert limited.items() <= full.items()
    assert select_seed(limited, size) == select_seed(full, size)
    longer = sorted((f * len(p) for p, f in full.items() if len(p) > 1), reverse=True)
    ties = longer[size:].count(longer[size - 1]) if len(longer) > size else 0
    assert sum(len(p) > 1 for p in limited) == min(size, len(longer)) + ties


def test_sentences_without_documents_are_written_twice():
    # SentencePiece TSV input: counts only weight the characters, every word is a sentence written
    # twice. The boundary U+0000 matches itself, so "▁ab" is never right-maximal ("▁ab\0▁" is);
    # Alg. 3 recovers it.
    counts = {"▁ab": 7, "▁b": 1}
    rules = PieceRules(16, marker="▁")
    found = full_text_seed(counts, None, rules)
    assert found == full_text_seed(counts, [("▁ab",), ("▁ab",), ("▁b",), ("▁b",)], rules)
    assert found == {"▁": 8, "a": 7, "b": 8}
    recovered = full_text_seed(counts, None, rules, recovery=True)
    assert recovered == {**found, "▁ab": 2, "ab": 2, "▁b": 2}
