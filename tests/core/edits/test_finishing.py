"""Finishing (core.edits.finishing): blocked tuples dropped exactly, the rest split by
intermediates or cascaded; ids kept; the HF export of the result segments as we do."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from core.bpe.model import BTETokeniser, Merge
from core.edits.finishing import FINISH_METHODS, drop_blocked_tuples, finish
from core.edits.knockout import knock_out
from core.formats.hf_json import tokeniser_to_hf_json
from core.pipeline import WhitespaceSplit
from tests.core.edits.test_knockout import toy
from tests.strategies import ALPHABET, WORDS, merge_lists

BRUIDS_WORDS = ["bruidsjurk", "beleidsmaker", "gids", "ids", "jurk", "maker"]


def test_intermediates_bring_a_knocked_out_type_back_with_its_id():
    tok = toy()
    ids = tok.token_ids()
    knocked, _ = knock_out(tok, ["ids"])  # id+s goes: _bru+ids, _bele+ids, _g+ids become tuples
    assert {str(m) for m in knocked.tuple_merges} == {"_bru id s", "_bele id s", "_g id s"}
    finished, report = finish(knocked, "intermediates")
    assert finished.tuple_merges == ()
    assert report.types_added == ("ids",) and len(report.reified) == 3 and report.cascaded == ()
    assert [str(m) for m in finished.produced_by["ids"]] == ["id s"]
    assert finished.produced_by["ids"][0].rank == pytest.approx(5 - 0.001)  # before _bru+ids (rank 5)
    assert finished.token_ids() == ids  # every type back, every id as it was
    assert [finished.tokenise_word(w) for w in BRUIDS_WORDS] == [tok.tokenise_word(w) for w in BRUIDS_WORDS]


def test_cascade_removes_the_tuples_types_and_keeps_every_other_id():
    tok = toy()
    ids = tok.token_ids()
    knocked, _ = knock_out(tok, ["ids"])
    finished, report = finish(knocked, "cascade")
    assert finished.tuple_merges == ()
    assert set(report.types_removed) == {"_bruids", "_beleids", "_gids"} and report.types_added == ()
    assert finished.tokenise_word("bruidsjurk") == ["_bru", "id", "s", "jurk"]
    kept = finished.token_ids()
    assert kept == {t: i for t, i in ids.items() if t not in {"ids", "_bruids", "_beleids", "_gids"}}


def test_a_blocked_tuple_is_dropped_and_its_type_keeps_its_id():
    # a+b at rank 0 takes every a next to b, so a+b+c at rank 2 never sees its parts
    merges = [Merge(0, ("a", "b")), Merge(1, ("b", "c")), Merge(2, ("a", "b", "c")), Merge(3, ("abc", "d"))]
    tok = BTETokeniser(
        "abcd",
        merges,
        WhitespaceSplit(),
        type_ids={t: i for i, t in enumerate("abcd")} | {"ab": 4, "bc": 5, "abc": 6, "abcd": 7},
    )
    dropped, blocked = drop_blocked_tuples(tok)
    assert [str(m) for m in blocked] == ["a b c"]
    assert "abc" in dropped.alphabet and dropped.token_ids() == tok.token_ids()
    for word in ["abc", "abcd", "aabcc", "bcabcd", "cabbcd"]:
        assert dropped.tokenise(word) == tok.tokenise(word)


@st.composite
def knocked_out_tokenisers(draw):
    """A random binary tokeniser with ids, and the same after knocking out some of its types."""
    merges = [Merge(rank, parts) for rank, parts in enumerate(draw(merge_lists(shuffle=False)))]
    tok = BTETokeniser(ALPHABET, merges, WhitespaceSplit())
    tok = tok.with_merges(tok.merges, type_ids=tok.token_ids())
    formed = sorted(tok.produced_by)
    chosen = draw(st.lists(st.sampled_from(formed), max_size=4, unique=True)) if formed else []
    return tok, knock_out(tok, chosen)[0]


@settings(max_examples=80, deadline=None)
@given(knocked_out_tokenisers(), st.sampled_from(FINISH_METHODS), WORDS)
def test_finished_tokenisers_are_binary_keep_their_ids_and_export_exactly(case, method, words):
    original, knocked = case
    finished, report = finish(knocked, method)
    assert finished.tuple_merges == () and finished.check_invariants() == []
    ids = finished.token_ids()
    assert all(ids[t] == i for t, i in original.token_ids().items() if t in ids)  # no id moves
    assert set(report.types_removed).isdisjoint(finished.types)
    hf = Tokenizer.from_str(json.dumps(tokeniser_to_hf_json(finished)))
    text = " ".join(words)
    assert hf.encode(text).tokens == finished.tokenise(text)
    assert hf.encode(text).ids == [ids[t] for t in finished.tokenise(text)]


@settings(max_examples=80, deadline=None)
@given(knocked_out_tokenisers(), WORDS)
def test_dropping_blocked_tuples_changes_no_segmentation(case, words):
    _, knocked = case
    dropped, _ = drop_blocked_tuples(knocked)
    assert dropped.token_ids() == knocked.token_ids()
    assert [dropped.tokenise(w) for w in words] == [knocked.tokenise(w) for w in words]
