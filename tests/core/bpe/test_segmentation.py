"""BTE segmentation: exact cases, tuple merges, traces, LIMITEDBPE, and agreement with HF BPE."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.pipeline import WhitespaceSplit
from tests.strategies import ALPHABET, WORDS, hf_bpe, merge_lists

# tests/fixtures/TEST_VECTORS.md V1: HF's merges on the Sennrich corpus with the ▁ prefix.
SENNRICH = ["e s", "es t", "l o", "▁ lo", "▁lo w", "e w", "n ew", "▁ new", "▁new est", "d est", "i dest"]


def bte(merges, alphabet=None, ranks=None):
    merges = [Merge(ranks[i] if ranks else i, tuple(m.split())) for i, m in enumerate(merges)]
    alphabet = alphabet or sorted({c for m in merges for p in m.parts for c in p})
    return BTETokeniser(alphabet, merges, WhitespaceSplit())


def test_sennrich_training_segmentation():
    tok = bte(SENNRICH)
    assert tok.segment_pretoken("▁low") == ("▁low",)
    assert tok.segment_pretoken("▁lower") == ("▁low", "e", "r")
    assert tok.segment_pretoken("▁newest") == ("▁newest",)
    assert tok.segment_pretoken("▁widest") == ("▁", "w", "idest")
    assert tok.segment_pretoken("▁lowest") == ("▁low", "est")


def test_tuple_merge_fires_only_when_all_parts_adjacent():
    tok = bte(["e s", "▁ l o", "▁lo w es t"])
    assert tok.segment_pretoken("▁lowest") == ("▁lowest",)
    assert tok.segment_pretoken("▁lowes") == ("▁lo", "w", "es")  # 't' missing: the 4-tuple cannot fire
    assert tok.segment_pretoken("▁lo") == ("▁lo",)


def test_lowest_rank_first_then_leftmost():
    tok = bte(["b c", "a b"])  # (b,c) outranks (a,b): "abc" -> a bc
    assert tok.segment_pretoken("abc") == ("a", "bc")
    tok = bte(["a a"])
    assert tok.segment_pretoken("aaaaa") == ("aa", "aa", "a")


def test_fractional_ranks_order_merges():
    tok = bte(["a b", "b c", "ab c"], ranks=[2, 1.5, 3])
    assert [m.rank for m in tok.merges] == [1.5, 2, 3]
    assert tok.segment_pretoken("abc") == ("a", "bc")


def test_trace_records_steps_trees_and_boundaries():
    tok = bte(SENNRICH)
    trace = tok.trace_pretoken("▁lowest")
    assert trace.tokens == ("▁low", "est")
    assert [str(m) for m in trace.merges_applied] == ["e s", "es t", "l o", "▁ lo", "▁lo w"]
    assert trace.steps[0].position == 4 and trace.steps[0].start == 4
    assert trace.steps[-1].tokens == ("▁low", "est")
    assert [None if m is None else str(m) for m in trace.boundary_merges] == [
        "▁ lo",
        "l o",
        "▁lo w",
        None,
        "e s",
        "es t",
    ]
    low, est = trace.trees
    assert (low.token, low.merge.parts, [c.token for c in low.children]) == ("▁low", ("▁lo", "w"), ["▁lo", "w"])
    assert est.children[0].children[0].token == "e" and est.start == 4


def test_trace_of_tuple_merge_removes_several_boundaries():
    tok = bte(["e s", "▁ l o", "▁lo w es t"])
    trace = tok.trace_pretoken("▁lowest")
    top = trace.trees[0]
    assert [c.token for c in top.children] == ["▁lo", "w", "es", "t"]
    assert [str(m) if m else None for m in trace.boundary_merges] == [
        "▁ l o",
        "▁ l o",
        "▁lo w es t",
        "▁lo w es t",
        "e s",
        "▁lo w es t",
    ]


def test_limited_segmentation_uses_only_lower_ranks():
    tok = bte(SENNRICH)
    assert tok.segment_limited("▁lowest", 2) == ("▁", "l", "o", "w", "est")
    assert tok.segment_limited("▁lowest", 0) == tuple("▁lowest")
    assert tok.segment_limited("▁lowest", 1.5) == ("▁", "l", "o", "w", "est")
    assert tok.trace_pretoken("▁lowest", max_rank=3).tokens == ("▁", "lo", "w", "est")


def test_invariants_and_indexes():
    tok = bte(["a b", "ab c", "a bc", "b c"])
    assert tok.merge_of("ab") == Merge(0, ("a", "b"))
    assert [str(m) for m in tok.used_by["a"]] == ["a b", "a bc"]
    assert tok.check_invariants() == []  # several merges may form a type (every part exists)
    assert tok.produced_by["abc"] == (Merge(1, ("ab", "c")), Merge(2, ("a", "bc")))
    broken = BTETokeniser("ab", [Merge(0, ("a", "x"))], WhitespaceSplit())
    assert any("not in V" in p for p in broken.check_invariants())


def test_duplicate_rank_or_merge_rejected():
    from core.errors import InputError

    with pytest.raises(InputError, match="share rank"):
        BTETokeniser("ab", [Merge(0, ("a", "b")), Merge(0, ("b", "a"))], WhitespaceSplit())
    with pytest.raises(InputError, match="appears twice"):
        BTETokeniser("ab", [Merge(0, ("a", "b")), Merge(1, ("a", "b"))], WhitespaceSplit())


# --- agreement with HF tokenizers ----------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(merge_lists(), WORDS)
def test_binary_bte_equals_hf(merges, words):
    alphabet = ALPHABET
    tok = BTETokeniser(alphabet, [Merge(i, m) for i, m in enumerate(merges)], WhitespaceSplit())
    hf = hf_bpe(alphabet, merges)
    for word in words:
        assert list(tok.segment_pretoken(word)) == hf.encode(word).tokens
        assert tok.trace_pretoken(word).tokens == tok.segment_pretoken(word)


@settings(max_examples=100, deadline=None)
@given(merge_lists(), st.text(alphabet="abcd", min_size=1, max_size=20), st.integers(0, 16))
def test_segmentation_concatenates_and_limited_is_prefix_of_work(merges, word, limit):
    alphabet = ALPHABET
    tok = BTETokeniser(alphabet, [Merge(i, m) for i, m in enumerate(merges)], WhitespaceSplit())
    assert "".join(tok.segment_pretoken(word)) == word
    limited = tok.segment_limited(word, limit)
    assert "".join(limited) == word
    assert all(m.rank < limit for m in tok.trace_pretoken(word, max_rank=limit).merges_applied)
    trace = tok.trace_pretoken(word)
    assert tok.engine.boundary_trace(word) == (trace.tokens, trace.boundary_merges)
    kept = [k + 1 for k, m in enumerate(trace.boundary_merges) if m is None]
    starts = [sum(map(len, trace.tokens[:i])) for i in range(1, len(trace.tokens))]
    assert kept == starts


def test_tuple_merges_on_random_words_concatenate():
    rng = random.Random(0)
    tok = bte(["a b", "b c", "a b c", "ab c d", "c d"], ranks=[0, 1, 2, 3, 4])
    for _ in range(300):
        word = "".join(rng.choice("abcd") for _ in range(rng.randint(1, 12)))
        assert "".join(tok.segment_pretoken(word)) == word
        assert tok.trace_pretoken(word).tokens == tok.segment_pretoken(word)


def naive_bte(merges, word, suffix=""):
    """Literal §3.2: apply the lowest-ranked merge whose parts stand adjacent, leftmost first
    (the last character carries the end-of-word ``suffix``)."""
    symbols = list(word)
    symbols[-1] += suffix
    while True:
        found = [
            (m.rank, i, m)
            for m in merges
            for i in range(len(symbols))
            if tuple(symbols[i : i + len(m.parts)]) == m.parts
        ]
        if not found:
            return tuple(symbols)
        _, i, m = min(found, key=lambda f: (f[0], f[1]))
        symbols[i : i + len(m.parts)] = [m.result]


@st.composite
def tuple_merge_lists(draw, suffix=""):
    types, merges = [*"abc", *(c + suffix for c in "abc" if suffix)], []
    for rank in range(draw(st.integers(1, 12))):
        parts = tuple(draw(st.lists(st.sampled_from(types), min_size=2, max_size=5)))
        if parts not in {m.parts for m in merges}:
            merges.append(Merge(draw(st.floats(-100, 100, allow_nan=False)) if draw(st.booleans()) else rank, parts))
            types.append("".join(parts))
    ranks = [m.rank for m in merges]
    if len(set(ranks)) != len(ranks):
        merges = [Merge(i, m.parts) for i, m in enumerate(merges)]
    return merges


@settings(max_examples=300, deadline=None)
@given(tuple_merge_lists(), st.text(alphabet="abc", min_size=1, max_size=16))
def test_tuple_bte_equals_the_literal_definition(merges, word):
    tok = BTETokeniser("abc", merges, WhitespaceSplit())
    expected = naive_bte(sorted(merges, key=lambda m: m.rank), word)
    assert tok.segment_pretoken(word) == expected
    assert tok.trace_pretoken(word).tokens == expected
    assert tok.engine.boundary_trace(word) == (expected, tok.trace_pretoken(word).boundary_merges)


def test_boundary_trace_with_an_unknown_policy_equals_the_full_trace(dutch40k):
    """A loaded tokenizer.json has an unknown policy; on a pretoken of known characters it does
    nothing, so the boundaries are read off the tokens' merges (the light path) and equal the
    full trace's; a pretoken with an unknown character is traced in full."""
    from core.formats.corpora import load_word_counts
    from core.formats.samples import SAMPLE_DIR

    engine = dutch40k.engine
    assert engine.unknown is not None and engine._merge_of is not None
    words = ["Ġ" + w for w in list(load_word_counts(SAMPLE_DIR / "counts" / "nl_wordfreq.tsv"))[:3000]]
    for pretoken in [*words, "Ġbruidsjurk", "ĠgidsenĠ"]:
        trace = engine.trace(pretoken)
        assert engine.boundary_trace(pretoken) == (trace.tokens, trace.boundary_merges), pretoken
    unknown = "Ġa\u4e00b"  # a character no type holds
    assert not engine.known.issuperset(unknown)
    assert engine.boundary_trace(unknown)[1] == engine.trace(unknown).boundary_merges


@pytest.mark.slow
def test_long_pretokens_take_the_heap_and_segment_as_the_list_scan(dutch40k, monkeypatch):
    """Beyond LONG_PRETOKEN symbols binary segmentation uses a heap (a 1 MB pretoken would take
    hours with the list scan); it picks the same merges, shared ranks (tiktoken's form) included."""
    import core.bpe.segmentation as segmentation
    from core.bpe.merges import merges_of_splits
    from core.formats.corpora import load_word_counts
    from core.formats.samples import SAMPLE_DIR

    words = ["Ġ" + w for w in list(load_word_counts(SAMPLE_DIR / "counts" / "nl_wordfreq.tsv"))[:2000]]
    ids = dutch40k.type_ids
    ranked = sorted(((t, ids[t]) for t in dutch40k.types if len(t) > 1), key=lambda item: item[1])
    shared = BTETokeniser(dutch40k.alphabet, merges_of_splits(ranked, dutch40k.types), WhitespaceSplit())
    assert shared.engine.shared_ranks
    rng = random.Random(5)
    for tokeniser in (dutch40k, shared):
        engine = tokeniser.engine
        for _ in range(100):
            text = "".join(rng.choice(words) for _ in range(rng.randint(1, 80))) + rng.choice("ea") * rng.randint(
                0, 300
            )
            by_list, by_heap = engine.atomise(text), engine.atomise(text)
            monkeypatch.setattr(segmentation, "LONG_PRETOKEN", 10**9)
            engine._run_binary(by_list)
            monkeypatch.setattr(segmentation, "LONG_PRETOKEN", 0)
            engine._run_binary(by_heap)
            assert by_heap == by_list
    assert "".join(dutch40k.tokenise_word("ab" * 500_000)) == "Ġ" + "ab" * 500_000


@settings(max_examples=200, deadline=None)
@given(tuple_merge_lists(suffix="</w>"), st.text(alphabet="abc", min_size=1, max_size=12))
def test_tuple_bte_with_an_end_of_word_suffix_equals_the_literal_definition(merges, word):
    """A tuple merge whose last part carries the suffix fires (its result is found in the symbols,
    suffix included, not in the bare pretoken)."""
    tok = BTETokeniser([*"abc", "a</w>", "b</w>", "c</w>"], merges, WhitespaceSplit(), end_of_word_suffix="</w>")
    expected = naive_bte(sorted(merges, key=lambda m: m.rank), word, "</w>")
    assert tok.engine.segment_uncached(word) == expected
    assert tok.engine.trace(word).tokens == expected


def test_a_tuple_merge_ending_in_the_suffix_fires():
    tok = BTETokeniser(
        [*"abx", "b</w>"],
        [Merge(0, ("a", "b")), Merge(1, ("x", "a", "b</w>"))],
        WhitespaceSplit(),
        end_of_word_suffix="</w>",
    )
    assert tok.engine.segment_uncached("xab") == ("xab</w>",)
    assert tok.engine.segment_uncached("xabab") == ("x", "ab", "a", "b</w>")  # (a, b) fires first; b</w> is no b
