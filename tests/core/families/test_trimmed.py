"""TrimmedBPE ([rebpe §2.1]): tests/fixtures/TEST_VECTORS.md V7, thresholds, decomposition properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.counting.token_frequencies import token_frequencies
from core.errors import InputError
from core.families.trimmed import TrimmedBPE
from core.pipeline import Metaspace, WhitespaceSplit

# TEST_VECTORS.md V1: HF's merges on the Sennrich corpus with the ▁ prefix.
SENNRICH_MERGES = ["e s", "es t", "l o", "▁ lo", "▁lo w", "e w", "n ew", "▁ new", "▁new est", "d est", "i dest"]
SENNRICH_COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def sennrich():
    merges = [Merge(i, tuple(m.split())) for i, m in enumerate(SENNRICH_MERGES)]
    alphabet = sorted({c for w in SENNRICH_COUNTS for c in w} | {"▁"})
    return BTETokeniser(alphabet, merges, Metaspace())


def test_v7_token_frequencies():
    freqs = token_frequencies(sennrich(), SENNRICH_COUNTS)
    assert freqs == {"▁low": 7, "▁newest": 6, "▁": 3, "w": 3, "idest": 3, "e": 2, "r": 2}
    assert freqs["est"] == 0  # intermediate types never surface


def test_v7_threshold_4_subword_nmt():
    tok = sennrich()
    trimmed = TrimmedBPE(tok, token_frequencies(tok, SENNRICH_COUNTS), 4)
    assert trimmed.trimmed == {"es", "est", "lo", "▁lo", "ew", "new", "▁new", "dest", "idest"}
    assert trimmed.tokenise_word("widest") == ["▁", "w", "i", "d", "e", "s", "t"]
    assert trimmed.tokenise_word("lowest") == ["▁low", "e", "s", "t"]
    assert trimmed.tokenise_word("newer") == ["▁", "n", "e", "w", "e", "r"]
    assert trimmed.tokenise_word("newest") == ["▁newest"]
    assert trimmed.tokenise("low newest") == ["▁low", "▁newest"]
    assert trimmed.decompose("▁new") == ("▁", "n", "e", "w")
    assert trimmed.decompose("▁low") == ("▁low",)
    assert "▁" not in trimmed.trimmed and "w" not in trimmed.trimmed  # atoms are never trimmed


def test_v7_threshold_3_keeps_idest():
    tok = sennrich()
    trimmed = TrimmedBPE(tok, token_frequencies(tok, SENNRICH_COUNTS), 3)
    assert "idest" not in trimmed.trimmed
    assert trimmed.tokenise_word("widest") == ["▁", "w", "idest"]


def test_tktkt_rule_is_off_by_one():
    tok = sennrich()
    freqs = token_frequencies(tok, SENNRICH_COUNTS)
    # TkTkT trims freq <= T: T=3 under "tktkt" equals T=4 under subword-nmt.
    assert TrimmedBPE(tok, freqs, 3, rule="tktkt").trimmed == TrimmedBPE(tok, freqs, 4).trimmed
    assert TrimmedBPE(tok, freqs, 2, rule="tktkt").trimmed == TrimmedBPE(tok, freqs, 3).trimmed
    # T=0: subword-nmt keeps everything, TkTkT still trims the never-seen intermediate types.
    assert TrimmedBPE(tok, freqs, 0).trimmed == frozenset()
    assert TrimmedBPE(tok, freqs, 0, rule="tktkt").trimmed == {t for t in tok.types if freqs[t] == 0} - set(
        tok.alphabet
    )


def test_frequencies_of_pretokens():
    tok = sennrich()
    as_pretokens = token_frequencies(tok, {"▁" + w: c for w, c in SENNRICH_COUNTS.items()}, as_words=False)
    assert as_pretokens == token_frequencies(tok, SENNRICH_COUNTS)


def test_bad_arguments():
    tok = sennrich()
    with pytest.raises(InputError):
        TrimmedBPE(tok, {}, 3, rule="picky")
    with pytest.raises(InputError):
        TrimmedBPE(tok, {}, -1)
    with pytest.raises(InputError):
        token_frequencies(tok, {"low": -2})


def test_threshold_zero_is_plain_bpe_on_random_words():
    tok = sennrich()
    trimmed = TrimmedBPE(tok, token_frequencies(tok, SENNRICH_COUNTS), 0)
    rng = random.Random(0)
    for _ in range(300):
        words = ["".join(rng.choice("lowernsidt") for _ in range(rng.randint(1, 10))) for _ in range(3)]
        text = " ".join(words)
        assert trimmed.tokenise(text) == tok.tokenise(text)


@st.composite
def merge_lists(draw):
    types = list("abcd")
    merges = []
    for _ in range(draw(st.integers(1, 14))):
        width = draw(st.sampled_from([2, 2, 2, 3]))
        parts = tuple(draw(st.sampled_from(types)) for _ in range(width))
        if parts not in merges:
            merges.append(parts)
            if "".join(parts) not in types:
                types.append("".join(parts))
    return merges


@settings(max_examples=120, deadline=None)
@given(
    merge_lists(),
    st.dictionaries(st.text(alphabet="abcd", min_size=1, max_size=10), st.integers(1, 9), max_size=8),
    st.integers(0, 12),
    st.sampled_from(["subword-nmt", "tktkt"]),
    st.lists(st.text(alphabet="abcd", min_size=1, max_size=14), min_size=1, max_size=5),
)
def test_decomposition_concatenates_to_untrimmed_or_atomic_tokens(merges, corpus, threshold, rule, words):
    tok = BTETokeniser("abcd", [Merge(i, m) for i, m in enumerate(merges)], WhitespaceSplit())
    trimmed = TrimmedBPE(tok, token_frequencies(tok, corpus, as_words=False), threshold, rule)
    for word in words:
        tokens = trimmed.segment_pretoken(word)
        assert "".join(tokens) == word
        assert all(t not in trimmed.trimmed or tok.merge_of(t) is None for t in tokens)
        # Decomposition only ever splits the BPE tokens further.
        assert [t for b in tok.segment_pretoken(word) for t in trimmed.decompose(b)] == list(tokens)
        for token in tokens:
            assert token in tok.types


def test_tuple_merge_decomposes_into_all_parts():
    merges = [Merge(0, ("a", "b")), Merge(1, ("ab", "c", "d")), Merge(2, ("e", "f"))]
    tok = BTETokeniser("abcdef", merges, WhitespaceSplit())
    assert tok.segment_pretoken("abcdef") == ("abcd", "ef")
    freqs = {"abcd": 1, "ab": 5, "ef": 5}
    trimmed = TrimmedBPE(tok, freqs, 2)
    assert trimmed.trimmed == {"abcd"}
    assert trimmed.decompose("abcd") == ("ab", "c", "d")
    assert trimmed.segment_pretoken("abcdef") == ("ab", "c", "d", "ef")
    deeper = TrimmedBPE(tok, {"ef": 5}, 2)
    assert deeper.decompose("abcd") == ("a", "b", "c", "d")
    assert deeper.tokenise("abcdef ab") == ["a", "b", "c", "d", "ef", "a", "b"]
