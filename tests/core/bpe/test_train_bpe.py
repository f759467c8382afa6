"""BPE trainer: tests/fixtures/TEST_VECTORS.md V1-V4, differential tests against HF ``BpeTrainer``, input checks."""

from __future__ import annotations

import gc
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bpe.trainer import BPETrainingResult, train_bpe, train_bpe_from_text
from core.counting.pretoken_counter import count_pretokens
from core.errors import InputError
from core.pipeline import Metaspace, WhitespaceSplit

WS = "\u2581"  # ▁


def hf_train(word_counts, vocab_size, **options):
    """HF merges and vocab for ``(word, count)`` input, fed as for the HF outputs of TEST_VECTORS.md
    V1-V4: each word repeated ``count`` times, WhitespaceSplit, no normaliser, min_frequency 0."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    options = {"min_frequency": 0, "special_tokens": [], "initial_alphabet": [], **options}
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False, **options)

    def lines():
        for word, count in dict(word_counts).items():
            while count > 0:
                k = min(count, 4096)
                yield " ".join([word] * k)
                count -= k

    tok.train_from_iterator(lines(), trainer=trainer)
    model = json.loads(tok.to_str())["model"]
    return [tuple(m) for m in model["merges"]], model["vocab"]


def assert_same_as_hf(word_counts, vocab_size, **options):
    ours = train_bpe(word_counts, vocab_size, **options)
    merges, vocab = hf_train(word_counts, vocab_size, **options)
    assert list(ours.merges) == merges
    assert ours.vocab == vocab
    return ours


def pairs(spec: str):
    """'e s:9 es t:9' -> ([('e','s'), ('es','t')], [9, 9])."""
    merges, counts = [], []
    for item in spec.split(","):
        pair, count = item.strip().rsplit(":", 1)
        merges.append(tuple(pair.split(" ")))
        counts.append(int(count))
    return merges, counts


SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


# --- TEST_VECTORS.md ------------------------------------------------------------------------------
def test_v1_sennrich_with_marker():
    result = train_bpe({WS + w: c for w, c in SENNRICH.items()}, 22)
    merges, counts = pairs(
        "e s:9, es t:9, l o:7, ▁ lo:7, ▁lo w:7, e w:6, n ew:6, ▁ new:6, ▁new est:6, d est:3, i dest:3"
    )
    assert list(result.merges) == merges
    assert list(result.merge_counts) == counts
    assert result.alphabet == tuple("deilnorstw▁")
    assert [result.vocab[c] for c in "deilnorstw▁"] == list(range(11))
    assert result.vocab["idest"] == 21 and len(result.vocab) == 22


def test_v1_sennrich_without_marker():
    result = train_bpe(SENNRICH, 20)
    merges, counts = pairs("e s:9, es t:9, l o:7, lo w:7, e w:6, n ew:6, new est:6, d est:3, i dest:3, w idest:3")
    assert list(result.merges) == merges
    assert list(result.merge_counts) == counts


def test_v2_ties_broken_by_id_not_string():
    result = train_bpe({"bax": 2, "abx": 2, "ba": 1}, 8)
    assert list(result.merges) == [("b", "a"), ("a", "b"), ("ba", "x"), ("ab", "x")]
    assert list(result.merge_counts) == [3, 2, 2, 2]
    assert result.vocab == {"a": 0, "b": 1, "x": 2, "ba": 3, "ab": 4, "bax": 5, "abx": 6}


def test_v3_overlapping_pair_counts():
    result = train_bpe([("aaaa", 1), ("aaa", 1)], 4)
    assert list(result.merges) == [("a", "a"), ("aa", "a"), ("aa", "aa")]
    assert list(result.merge_counts) == [5, 1, 1]


def test_v4_hf_course_corpus():
    result = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 14)
    merges, counts = pairs("u g:20, u n:16, h ug:15, p un:12, p ug:5, hug s:5, b un:4")
    assert list(result.merges) == merges
    assert list(result.merge_counts) == counts


def test_vectors_agree_with_hf():
    assert_same_as_hf({WS + w: c for w, c in SENNRICH.items()}, 22)
    assert_same_as_hf({"bax": 2, "abx": 2, "ba": 1}, 8)
    assert_same_as_hf({"aaaa": 1, "aaa": 1}, 4)


# --- differential tests against HF ----------------------------------------------------------------
corpora = st.dictionaries(
    st.text(alphabet="abc" + WS, min_size=1, max_size=7), st.integers(min_value=1, max_value=6), min_size=1, max_size=8
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=corpora, extra=st.integers(min_value=0, max_value=25))
def test_random_corpora_match_hf(words, extra):
    alphabet = {ch for w in words for ch in w}
    assert_same_as_hf(words, len(alphabet) + extra)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    words=corpora,
    extra=st.integers(min_value=0, max_value=25),
    max_token_length=st.one_of(st.none(), st.integers(min_value=1, max_value=5)),
    min_frequency=st.integers(min_value=0, max_value=6),
    special_tokens=st.lists(st.sampled_from(["<s>", "a", "ab", "cab"]), unique=True, max_size=2),
    initial_alphabet=st.lists(st.sampled_from("bxy"), unique=True, max_size=2),
)
def test_random_corpora_with_options_match_hf(
    words, extra, max_token_length, min_frequency, special_tokens, initial_alphabet
):
    base = {ch for w in words for ch in w} | set(initial_alphabet) | set(special_tokens)
    assert_same_as_hf(
        words,
        len(base) + extra,
        max_token_length=max_token_length,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        initial_alphabet=initial_alphabet,
    )


def test_limit_alphabet_matches_hf():
    # Character totals are all distinct, so HF's (unstable) choice of what to drop is unambiguous.
    words = {"aab": 1, "ccd": 10, "eef": 100, "ba": 3, "fcb": 7}
    for limit in range(1, 7):
        assert_same_as_hf(words, 30, limit_alphabet=limit)
    assert_same_as_hf(words, 30, limit_alphabet=3, initial_alphabet=["z"])


def test_dutch_wordfreq_slice_matches_hf():
    wordfreq = pytest.importorskip("wordfreq")
    freqs = wordfreq.get_frequency_dict("nl", "large")
    top = sorted(freqs.items(), key=lambda kv: (-kv[1], kv[0]))[:3000]
    words = {"Ġ" + w: max(1, round(f * 1e6)) for w, f in top}
    alphabet = {ch for w in words for ch in w}
    result = assert_same_as_hf(words, len(alphabet) + 1000)
    assert len(result.merges) == 1000
    # a new pair never outnumbers the merge that created it, so chosen counts never increase
    assert list(result.merge_counts) == sorted(result.merge_counts, reverse=True)


# --- text entry points ----------------------------------------------------------------------------
TEXTS = ["low low low low low lower lower", "newest newest newest newest newest newest", "widest widest widest"]


def test_count_pretokens():
    assert count_pretokens(TEXTS, Metaspace()) == {WS + w: c for w, c in SENNRICH.items()}
    assert count_pretokens("a b a", WhitespaceSplit()) == {"a": 2, "b": 1}
    with pytest.raises(InputError):
        count_pretokens([b"bytes"], WhitespaceSplit())


def test_train_from_text_matches_hf_train_from_iterator():
    tokenizers = pytest.importorskip("tokenizers")
    texts = [*TEXTS, "the lowest newer wider", "a aa aaa aaaa"]
    ours = train_bpe_from_text(texts, WhitespaceSplit(), 35)
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(
        texts, trainer=tokenizers.trainers.BpeTrainer(vocab_size=35, min_frequency=0, show_progress=False)
    )
    model = json.loads(tok.to_str())["model"]
    assert list(ours.merges) == [tuple(m) for m in model["merges"]]
    assert ours.vocab == model["vocab"]
    marked = train_bpe_from_text(TEXTS, Metaspace(), 22)
    assert marked == train_bpe({WS + w: c for w, c in SENNRICH.items()}, 22)


# --- API details ----------------------------------------------------------------------------------
def test_result_fields_and_json():
    result = train_bpe(SENNRICH, 14, special_tokens=["<unk>", "<s>", "<unk>"])
    assert isinstance(result, BPETrainingResult)
    assert result.special_tokens == ("<unk>", "<s>")
    assert result.vocab["<unk>"] == 0 and result.vocab["<s>"] == 1 and result.vocab["d"] == 2
    assert len(result.vocab) == 14 and len(result.merges) == 2
    assert json.loads(json.dumps(result.to_json()))["merges"] == [["e", "s"], ["es", "t"]]
    with pytest.raises(AttributeError):
        result.merges = ()  # frozen


def test_progress_callback():
    calls = []
    words = {f"w{i:03d}xyz": 1 + i % 7 for i in range(300)}
    alphabet = {ch for w in words for ch in w}
    result = train_bpe(words, len(alphabet) + 250, progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (100, 250) and calls[1] == (200, 250)
    assert calls[-1] == (len(result.vocab) - len(alphabet), 250)


def test_iterable_of_pairs_sums_repeats_and_stops_when_no_pairs_left():
    assert train_bpe([("ab", 1), ("ab", 2)], 3).merge_counts == (3,)
    result = train_bpe({"ab": 1}, 100)  # queue runs empty long before vocab_size
    assert result.merges == (("a", "b"),) and len(result.vocab) == 3


def test_min_frequency_stops_training():
    assert train_bpe(SENNRICH, 30, min_frequency=7).merges == (("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w"))


# --- input validation -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "word_counts, message",
    [
        ({}, "empty corpus"),
        ([], "empty corpus"),
        ({"ab": 0}, "positive integer"),
        ({"ab": -3}, "positive integer"),
        ({"ab": 1.5}, "positive integer"),
        ({"ab": 2.0}, "positive integer"),
        ({"ab": True}, "positive integer"),
        ({"ab": "3"}, "positive integer"),
        ({"": 3}, "non-empty string"),
        ({None: 3}, "non-empty string"),
        ([("ab", 1, 2)], "not a (word, count) pair"),
        (["ab"], "not a (word, count) pair"),
        ("ab 3", "not a single string"),
    ],
)
def test_bad_word_counts(word_counts, message):
    with pytest.raises(InputError, match=re.escape(message)):
        train_bpe(word_counts, 10)


def test_bad_options():
    with pytest.raises(InputError, match="smaller than the 10 alphabet characters plus 2 special"):
        train_bpe(SENNRICH, 11, special_tokens=["<s>", "</s>"])
    with pytest.raises(InputError, match="vocab_size"):
        train_bpe(SENNRICH, "20")
    with pytest.raises(InputError, match=r"vocab_size must be below 2\*\*30"):
        train_bpe(SENNRICH, 1 << 30)
    with pytest.raises(InputError, match="min_frequency"):
        train_bpe(SENNRICH, 20, min_frequency=-1)
    with pytest.raises(InputError, match="max_token_length"):
        train_bpe(SENNRICH, 20, max_token_length=0)
    with pytest.raises(InputError, match="limit_alphabet"):
        train_bpe(SENNRICH, 20, limit_alphabet=2.5)
    with pytest.raises(InputError, match="single characters"):
        train_bpe(SENNRICH, 20, initial_alphabet=["ab"])
    with pytest.raises(InputError, match="special tokens"):
        train_bpe(SENNRICH, 20, special_tokens=[""])
    with pytest.raises(InputError, match="single string"):
        train_bpe(SENNRICH, 20, special_tokens="<s>")
    # exactly alphabet + specials is fine: no merges
    assert train_bpe(SENNRICH, 10).merges == ()


def test_training_pauses_the_cyclic_collector_and_switches_it_back_on():
    enabled: list[bool] = []
    train_bpe({"abab": 3, "abc": 2, "bcb": 1}, 8, progress=lambda *_: enabled.append(gc.isenabled()))
    assert enabled and not any(enabled) and gc.isenabled()
