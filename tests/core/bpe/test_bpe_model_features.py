"""The BPE model settings of real tokenisers, against HF `tokenizers` on random small tokenisers:
byte fallback, unk / fuse_unk, dropped unknown characters, end-of-word suffix, ignore_merges; and
merges that share a rank (tiktoken / SentencePiece order) against a brute-force reference."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, pre_tokenizers

from core.bpe.merges import Merge, merges_of_splits
from core.bpe.model import BTETokeniser
from core.bpe.unknowns import UnknownPolicy, byte_token
from core.formats.tokeniser_files import parse_tokeniser_bytes
from core.pipeline import WhitespaceSplit
from tests.strategies import ALPHABET, merge_lists

#: characters outside the vocabulary: ASCII, two-byte and four-byte UTF-8
UNKNOWN = "xé😀"
TEXTS = st.text(alphabet=ALPHABET + UNKNOWN + " ", max_size=30)


def ours_from_hf(hf: Tokenizer) -> BTETokeniser:
    return parse_tokeniser_bytes(hf.to_str().encode(), "random.json")


def hf_model(
    merges, *, suffix: str = "", byte_fallback=False, unk=False, fuse_unk=False, ignore_merges=False, byte_pieces=()
):
    vocab: dict[str, int] = {}
    for t in [*(c + suffix for c in ALPHABET), *ALPHABET, *("".join(m) for m in merges), *byte_pieces]:
        vocab.setdefault(t, len(vocab))
    if unk:
        vocab.setdefault("<unk>", len(vocab))
    options = {"unk_token": "<unk>"} if unk else {}
    if suffix:
        options["end_of_word_suffix"] = suffix
    model = models.BPE(
        vocab=vocab,
        merges=[tuple(m) for m in merges],
        fuse_unk=fuse_unk,
        byte_fallback=byte_fallback,
        ignore_merges=ignore_merges,
        **options,
    )
    hf = Tokenizer(model)
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return hf


@settings(max_examples=400, deadline=None)
@given(merge_lists(), TEXTS, st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_unknown_characters_as_hf(merges, text, byte_fallback, unk, fuse_unk, ignore_merges, some_bytes):
    byte_pieces = [byte_token(b) for b in "é".encode()] + ([byte_token(b) for b in b"x"] if some_bytes else [])
    hf = hf_model(
        merges,
        byte_fallback=byte_fallback,
        unk=unk,
        fuse_unk=fuse_unk,
        ignore_merges=ignore_merges,
        byte_pieces=byte_pieces,
    )
    assert ours_from_hf(hf).tokenise(text) == hf.encode(text).tokens


@settings(max_examples=100, deadline=None)
@given(st.data(), st.text(alphabet=ALPHABET + " ", max_size=30))
def test_end_of_word_suffix_as_hf(data, text):
    suffix = "</w>"
    types = [c + suffix for c in ALPHABET] + list(ALPHABET)
    merges = []
    for _ in range(data.draw(st.integers(1, 12))):
        left = data.draw(st.sampled_from([t for t in types if not t.endswith(suffix)]))
        right = data.draw(st.sampled_from(types))
        if (left, right) not in merges:
            merges.append((left, right))
            types.append(left + right)
    hf = hf_model(merges, suffix=suffix)
    ours = ours_from_hf(hf)
    assert ours.tokenise(text) == hf.encode(text).tokens
    for word in text.split():
        trace = ours.trace_pretoken(word)
        assert trace.tokens == ours.segment_pretoken(word) and len(trace.boundary_merges) == len(word) - 1


def test_policy_by_hand():
    known = frozenset({"a", "<unk>", byte_token(0xC3), byte_token(0xA9)})
    assert UnknownPolicy(unk_token="<unk>", fuse_unk=True).replace(("a", "x", "y", "a", "z"), known) == (
        "a",
        "<unk>",
        "a",
        "<unk>",
    )
    assert UnknownPolicy(unk_token="<unk>").replace(("x", "y"), known) == ("<unk>", "<unk>")
    assert UnknownPolicy(byte_fallback=True, unk_token="<unk>").replace(("ü", "é"), known) == (
        "<unk>",
        "<0xC3>",
        "<0xA9>",
    )
    assert UnknownPolicy(byte_fallback=True, unk_token="<unk>", defer_unk=True).replace(("ü", "é", "a"), known) == (
        "<0xC3>",
        "<0xA9>",
        "<unk>",
        "a",
    )  # HF's order
    assert UnknownPolicy(drop_unknown=True).drop(["a", "x", "a"], known) == ["a", "a"]
    assert UnknownPolicy().replace(("a", "x"), known) == ("a", "x")  # the project's own: kept


def brute_force_shared_ranks(word: str, ranks: dict[str, int]) -> list[str]:
    """tiktoken's byte-pair merge, literally: join the adjacent pair whose concatenation has the
    lowest rank, the leftmost such pair on ties, until none is a token."""
    parts = list(word)
    while True:
        candidates = [
            (ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in ranks
        ]
        if not candidates:
            return parts
        _, i = min(candidates)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


@st.composite
def rank_tables(draw):
    tokens = list(ALPHABET)
    for _ in range(draw(st.integers(1, 20))):
        left, right = draw(st.sampled_from(tokens)), draw(st.sampled_from(tokens))
        if left + right not in tokens:
            tokens.append(left + right)
    return {t: r for r, t in enumerate(tokens)}


@settings(max_examples=200, deadline=None)
@given(rank_tables(), st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=16), min_size=1, max_size=5))
def test_shared_ranks_fire_leftmost_first(ranks, words):
    merges = merges_of_splits(ranks.items(), ranks)
    assert {m.parts for m in merges} == {
        (t[:k], t[k:]) for t in ranks for k in range(1, len(t)) if t[:k] in ranks and t[k:] in ranks
    }
    tok = BTETokeniser(ALPHABET, merges, WhitespaceSplit())
    for word in words:
        expected = brute_force_shared_ranks(word, ranks)
        assert list(tok.segment_pretoken(word)) == expected
        trace = tok.trace_pretoken(word)
        assert list(trace.tokens) == expected
        assert all(step.merge.result == step.tokens[step.position] for step in trace.steps)


def test_merges_sharing_a_rank_must_form_one_type():
    import pytest

    from core.errors import InputError

    with pytest.raises(InputError, match="share rank 0 but form different types"):
        BTETokeniser("ab", [Merge(0, ("a", "b")), Merge(0, ("b", "a"))], WhitespaceSplit())
    ok = BTETokeniser(
        "ab",
        [Merge(0, ("a", "b")), Merge(1, ("ab", "a")), Merge(1, ("a", "ba")), Merge(2, ("b", "a"))],
        WhitespaceSplit(),
    )
    assert ok.multi_merge_types == 1


def test_project_json_round_trips_the_settings():
    tok = BTETokeniser(
        "abc",
        [Merge(0, ("a", "b"))],
        WhitespaceSplit(),
        atoms=["<x>"],
        unknown=UnknownPolicy(unk_token="<unk>", fuse_unk=True, byte_fallback=True),
        end_of_word_suffix="</w>",
        dropout=0.1,
        specials=["<unk>"],
    )
    again = BTETokeniser.from_json(json.loads(json.dumps(tok.to_json())))
    assert (again.unknown, again.atoms, again.end_of_word_suffix, again.dropout) == (
        tok.unknown,
        tok.atoms,
        "</w>",
        0.1,
    )
    assert again.tokenise("ab<x>c") == tok.tokenise("ab<x>c")
