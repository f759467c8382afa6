"""core.analysis.explain: traced words, boundary verdicts, trapped tokens ([knockout App. A.4])."""

from __future__ import annotations

import pytest

from core.analysis.explain import (
    CORRECT_MERGE,
    CORRECT_SPLIT,
    EXTRA_SPLIT,
    MISSED_SPLIT,
    agreement,
    explain_word,
    find_traps,
    forest_at,
    pieces,
    predicted_positions,
    reference_splits,
    standalone_segmentation,
    trace_word,
    word_boundaries,
)
from core.bpe.model import Merge
from core.errors import InputError
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser


def scenario(name: str):
    return load_tokeniser(scenario_paths()[name])


def plain(token: str) -> str:
    return f"[{token}]"


# --- traced words ---------------------------------------------------------------------------------


def test_trace_word_numbers_steps_and_replays_them(dutch40k):
    traced = trace_word(dutch40k, "masterthesis")
    assert traced.tokens == ("Ġmast", "ert", "hes", "is")
    assert traced.n_steps == 9
    assert traced.tokens_at(0) == tuple("Ġmasterthesis")
    assert traced.tokens_at(1) == ("Ġ", "m", "a", "s", "t", "er", "t", "h", "e", "s", "i", "s")
    assert traced.tokens_at(7) == ("Ġm", "ast", "ert", "h", "es", "is")
    assert traced.tokens_at(9) == traced.tokens_at(99) == traced.tokens
    assert traced.merge_at(7) == (0, Merge(640, ("er", "t")))
    assert traced.merge_at(0) is None and traced.merge_at(10) is None


def test_trace_word_over_several_pretokens(dutch40k):
    traced = trace_word(dutch40k, "bruid-jurk")
    assert [t.pretoken for t in traced.traces] == ["Ġbruid", "-", "jurk"]
    first = len(traced.traces[0].steps)
    assert traced.offsets == (0, first, first)
    # the later pretokens' merges come after all of the first's
    assert traced.tokens_at(first) == ("Ġbruid", "-", "j", "u", "r", "k")
    assert traced.merge_at(first + 1)[0] == 2
    assert traced.tokens_at(traced.n_steps) == traced.tokens == tuple(dutch40k.tokenise_word("bruid-jurk"))
    # the pretoken boundaries are splits of the word
    assert predicted_positions(traced, traced.tokens) >= {5, 6}


def test_trace_word_rejects_nothing():
    with pytest.raises(InputError):
        trace_word(scenario("a1_scenario1"), "")


def test_forest_at_dissolves_later_merges():
    tokeniser = scenario("a1_scenario2a")
    trace = tokeniser.trace_pretoken("_bruids")
    assert [t.token for t in forest_at(trace.trees, 0)] == list("_bruids")
    assert [t.token for t in forest_at(trace.trees, 2)] == ["_", "b", "r", "u", "ids"]
    assert [t.token for t in forest_at(trace.trees, len(trace.steps))] == ["_bruids"]


# --- boundaries -----------------------------------------------------------------------------------


def test_boundaries_of_bruidsjurk(dutch40k):
    traced = trace_word(dutch40k, "bruidsjurk")
    boundaries = word_boundaries(traced, reference_splits(("bruid", "s", "jurk")))
    by_position = {b.position: b for b in boundaries if b.position is not None}
    assert by_position[5].verdict == MISSED_SPLIT and by_position[5].merge == Merge(1234, ("id", "s"))
    assert by_position[6].verdict == CORRECT_SPLIT and by_position[6].merge is None
    assert by_position[2].verdict == CORRECT_MERGE
    # the boundary after the word-start marker stands for no word position
    assert boundaries[0].position is None and boundaries[0].verdict == ""
    assert all(b.step is None for b in boundaries if b.split)
    assert all(1 <= b.step <= traced.n_steps for b in boundaries if not b.split)


def test_boundaries_without_a_reference_have_no_verdict(dutch40k):
    boundaries = word_boundaries(trace_word(dutch40k, "gids"))
    assert {b.verdict for b in boundaries} == {""}
    assert [b.reference for b in boundaries] == [None] * 4  # Ġ|g|i|d|s


def test_reference_splits_and_agreement(dutch40k):
    assert reference_splits(("bruid", "s", "jurk")) == {5, 6}
    assert reference_splits(("gids",)) == frozenset()
    traced = trace_word(dutch40k, "masterthesis")
    assert predicted_positions(traced, traced.tokens) == {4, 7, 10}
    assert agreement(traced, ["Ġmaster", "the", "sis"], {6}) == (1, 1, 1)
    assert agreement(traced, ["Ġmaster", "thesis"], {6}) == (1, 1, 0)
    assert predicted_positions(traced, ["nonsense"]) is None


# --- traps ([knockout App. A.4]) -----------------------------------------------------------------


def test_masterthesis_trap_in_the_dutch_40k(dutch40k):
    """The paper's example: er + t fires before the merge that needs er, trapping it."""
    explained = explain_word(dutch40k, "masterthesis", ("master", "thesis"), counterfactual=True)
    assert explained.tokens == ("Ġmast", "ert", "hes", "is")
    assert explained.standalone == (("Ġmaster",), ("th", "esis"))
    first = explained.first_crossing
    assert first.merge == Merge(640, ("er", "t")) and first.position == 6 and first.step == 7
    trapped = {t.token: t for t in explained.traps}
    master = trapped["Ġmaster"]
    assert master.trapping == Merge(640, ("er", "t")) and master.taken == "er"
    assert master.blocked.parts == ("ast", "er") and master.blocked.rank > master.trapping.rank
    assert master.piece == "Ġmaster" and master.piece_tokens == ("Ġmaster",)
    # knocking out ert frees Ġmaster ([knockout App. A.4])
    assert master.without[0] == "Ġmaster"
    sentences = explained.sentences(plain)
    assert sentences[0].startswith(
        "The first merge that crossed a reference boundary is [er] + [t] → [ert] (rank 640, step 7)"
    )
    assert "[master|thesis]" in sentences[0]
    assert any(s.startswith("Trapped token [Ġmaster]") and "took the [er]" in s for s in sentences)
    assert any("3 splits the reference does not have" in s for s in sentences)


def test_bruidsjurk_trap_is_figure_one(dutch40k):
    """[knockout Fig. 1]: id + s takes the id that Ġbru + id needs; knocking out ids fixes it."""
    explained = explain_word(dutch40k, "bruidsjurk", ("bruid", "s", "jurk"), counterfactual=True)
    (trap,) = explained.traps
    assert (trap.token, trap.taken) == ("Ġbruid", "id")
    assert trap.trapping == Merge(1234, ("id", "s")) and trap.blocked == Merge(11806, ("Ġbru", "id"))
    assert trap.without == ("Ġbruid", "s", "jurk")
    assert explained.first_crossing.merge == trap.trapping


@pytest.mark.parametrize(
    "name, trapped, blocked, trapping",
    [
        ("a1_scenario2b_i_first", "_bruid", ("_bru", "id"), ("id", "s")),
        ("a1_scenario2b_ii", "_bruid", ("u", "id"), ("id", "s")),
        ("a1_scenario3a", "id", ("i", "d"), ("d", "s")),
    ],
)
def test_traps_in_the_scenario_tokenisers(name, trapped, blocked, trapping):
    explained = explain_word(scenario(name), "bruids", ("bruid", "s"))
    (trap,) = explained.traps
    assert (trap.token, trap.blocked.parts, trap.trapping.parts) == (trapped, blocked, trapping)
    assert trap.blocked.rank > trap.trapping.rank


def test_no_trap_where_every_standalone_token_forms():
    explained = explain_word(scenario("a1_scenario2a"), "bruids", ("bruid", "s"))
    assert explained.traps == ()
    assert explained.standalone == (("_bru", "id"), ("s",))
    assert explained.first_crossing.merge == Merge(1, ("id", "s"))
    assert explained.sentences(plain) == [
        "The first merge that crossed a reference boundary is [id] + [s] → [ids] (rank 1, step 2): it glued "
        "[bruid|s] together, so that split is lost."
    ]


def test_moving_merges_trap_from_app_a3():
    """[rebpe App. A.3], "expedited": b + c steals the c of c + d, so bcd becomes bc d."""
    base = scenario("a3_moving_merges")
    merges = base.metadata["variants"]["expedited"]["merges"]
    tokeniser = base.with_merges([Merge(i, tuple(parts)) for i, parts in enumerate(merges)])
    traced = trace_word(tokeniser, "bcd")
    assert pieces(traced, {1}) == [(0, 0, 1), (0, 1, 3)]
    assert standalone_segmentation(tokeniser, traced, {1}) == [("b",), ("cd",)]
    (trap,) = find_traps(tokeniser, traced, {1}, counterfactual=True)
    assert (trap.token, trap.taken, trap.blocked.parts, trap.trapping.parts) == ("cd", "c", ("c", "d"), ("b", "c"))
    assert trap.without == ("bcd",)  # without bc, b + cd fires


def test_tuple_merges_are_explained():
    """Scenario 2a after knockout: _bru + id + s is a tuple merge that removes two boundaries."""
    base = scenario("a1_scenario2a")
    after = base.with_merges([Merge(rank, tuple(parts)) for rank, parts in base.metadata["after_knockout_merges"]])
    explained = explain_word(after, "bruids", ("bruid", "s"))
    assert explained.tokens == ("_bruids",)
    first = explained.first_crossing
    assert first.merge.parts == ("_bru", "id", "s") and first.merge.is_tuple
    assert "[_bru] + [id] + [s] → [_bruids]" in explained.sentences(plain)[0]


def test_agreeing_and_missing_words(dutch40k):
    assert explain_word(dutch40k, "gids", ("gids",)).agrees
    assert "follow the reference exactly" in explain_word(dutch40k, "gids", ("gids",)).sentences()[0]
    missing = explain_word(dutch40k, "gids")
    assert not missing.agrees and missing.traps == ()
    assert missing.sentences(plain) == ["[gids] is not in the loaded reference, so there are no boundaries to check."]
    with pytest.raises(InputError):
        explain_word(dutch40k, "gids", ("gi", "ts"))


def test_explanation_to_json(dutch40k):
    data = explain_word(dutch40k, "masterthesis", ("master", "thesis")).to_json()
    assert data["tokens"] == ["Ġmast", "ert", "hes", "is"]
    assert data["traps"][0]["trapping"] == ["er", "t"]
    assert {b["verdict"] for b in data["boundaries"]} >= {MISSED_SPLIT, EXTRA_SPLIT, CORRECT_MERGE}
    assert data["sentences"]


@pytest.mark.parametrize("word", ["masterthesis", "bruidsjurk", "reanimatietechniek", "café's", "gidsen"])
def test_word_tokeniser_edits_like_the_whole_tokeniser(dutch40k, word):
    """Knocking a type out of the cut-down tokeniser segments the word as knocking it out of all 40k."""
    from core.analysis.explain import word_tokeniser
    from core.edits.knockout import knock_out

    traced = trace_word(dutch40k, word)
    local = word_tokeniser(dutch40k, traced)
    assert len(local.merges) < 200
    assert tuple(local.tokenise_word(word)) == traced.tokens
    fired = sorted({s.merge for t in traced.traces for s in t.steps}, key=lambda m: m.rank)
    for step in fired[:2] + fired[-2:]:  # a few: each whole knockout takes 0.2 s
        whole = knock_out(dutch40k, [step.result])[0].tokenise_word(word)
        assert knock_out(local, [step.result])[0].tokenise_word(word) == whole, step
