"""Cutting a pretoken into words before a word-start mark no type spans
(``SegmentationEngine.segment``): the same tokens as BPE on the whole pretoken."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.pipeline import WhitespaceSplit

MARKED = "ab▁>"


def tokeniser(pairs, **options) -> BTETokeniser:
    merges = [Merge(rank, pair) for rank, pair in enumerate(pairs)]
    return BTETokeniser(list(MARKED), merges, WhitespaceSplit(), **options)


@st.composite
def marked_merge_lists(draw):
    """Binary merges over a, b, ▁ and >, in training order: types with the mark inside (``a▁``,
    ``>▁``) as often as types that start with it."""
    types, pairs = list(MARKED), []
    for _ in range(draw(st.integers(1, 20))):
        pair = (draw(st.sampled_from(types)), draw(st.sampled_from(types)))
        if pair not in pairs:
            pairs.append(pair)
            types.append("".join(pair))
    return pairs


def test_cuts_only_where_no_type_holds_the_character_before_the_mark():
    tok = tokeniser([("▁", "a"), ("▁a", "b"), (">", "▁"), ("b", ">")])
    mark, cut = tok.engine._word_pieces
    assert mark == "▁"
    # '>▁' is a type: no cut after '>'; '▁▁' stays whole (a run of marks)
    assert cut("▁ab▁ab>▁a▁▁b") == ["▁ab", "▁ab>▁a", "▁▁b"]
    assert tok.engine.segment("▁ab▁ab>▁a▁▁b") == ("▁ab", "▁ab", ">", "▁a", "▁", "▁", "b")
    assert tok.engine.segment("b>▁b") == ("b", ">▁", "b")  # '>▁' forms across: no cut after '>'
    assert tok.engine.segment_uncached("▁ab▁ab>▁a▁▁b") == tok.engine.segment("▁ab▁ab>▁a▁▁b")


def test_the_words_are_cached_one_by_one():
    tok = tokeniser([("▁", "a"), ("▁a", "b")])
    tok.engine.segment("▁ab▁a▁ab")
    assert set(tok.engine._cache) == {"▁ab", "▁a"}


def test_no_cutting_where_something_acts_on_the_whole_pretoken():
    plain = [("▁", "a"), ("▁a", "b")]
    assert tokeniser(plain).engine._word_pieces is not None
    assert tokeniser(plain, ignore_merges=True).engine._word_pieces is None
    assert tokeniser(plain, end_of_word_suffix="</w>").engine._word_pieces is None
    tuple_merge = BTETokeniser(list(MARKED), [Merge(0, ("▁", "a", "b"))], WhitespaceSplit())
    assert tuple_merge.engine._word_pieces is None
    no_mark = BTETokeniser(list("ab"), [Merge(0, ("a", "b"))], WhitespaceSplit())
    assert no_mark.engine._word_pieces is None


@settings(max_examples=300, deadline=None)
@given(marked_merge_lists(), st.lists(st.text(alphabet=MARKED, min_size=1, max_size=24), min_size=1, max_size=8))
def test_pieces_segment_as_the_whole_pretoken(pairs, pretokens):
    engine = tokeniser(pairs).engine
    for pretoken in pretokens:
        assert engine.segment(pretoken) == engine.segment_uncached(pretoken), (pairs, pretoken)
