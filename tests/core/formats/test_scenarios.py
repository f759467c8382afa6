"""The teaching tokenisers of [rebpe App. A.1] and A.3 reproduce the paper's segmentations.

Each sample file holds the paper's merge listing (before knockout), the listing after knocking
out the marked merge (the knocked-out merge's type leaves V and its child merge becomes a tuple
merge with the same rank, [knockout Alg. 1]), and the segmentations the paper states.
"""

from __future__ import annotations

import pytest

from core.bpe.model import Merge
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser

SCENARIOS = scenario_paths()


def test_all_paper_scenarios_ship():
    assert set(SCENARIOS) == {
        "a1_scenario1",
        "a1_scenario2a",
        "a1_scenario2b_i_first",
        "a1_scenario2b_i_second",
        "a1_scenario2b_ii",
        "a1_scenario3a",
        "a1_scenario3b",
        "a3_moving_merges",
    }


def after_knockout(tokeniser):
    merges = [Merge(rank, tuple(parts)) for rank, parts in tokeniser.metadata["after_knockout_merges"]]
    return tokeniser.with_merges(merges)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_segmentations_before_and_after_knockout(name):
    tokeniser = load_tokeniser(SCENARIOS[name])
    assert tokeniser.check_invariants() == []
    knocked = after_knockout(tokeniser)
    assert tokeniser.metadata["knockout"] not in {str(m) for m in knocked.merges}
    for case in tokeniser.metadata["words"]:
        assert tokeniser.tokenise_word(case["word"]) == case["before"], (name, case["word"])
        assert knocked.tokenise_word(case["word"]) == case["after"], (name, case["word"])


def test_knocked_out_merge_becomes_tuple_with_its_old_rank():
    tokeniser = load_tokeniser(SCENARIOS["a1_scenario2a"])
    knocked = after_knockout(tokeniser)
    assert knocked.merge_of("_bruids") == Merge(5, ("_bru", "id", "s"))
    assert "ids" not in knocked.types and tokeniser.merge_of("ids") == Merge(1, ("id", "s"))


@pytest.mark.parametrize(
    "name", ["a1_scenario2b_i_first", "a1_scenario2b_i_second", "a1_scenario2b_ii", "a1_scenario3a"]
)
def test_blocked_scenarios_never_form_bruids(name):
    """Scenarios 2b and 3a: after knockout the type _bruids is unreachable (its own string,
    segmented with the merges ranked below its merge, never presents all parts adjacent)."""
    knocked = after_knockout(load_tokeniser(SCENARIOS[name]))
    merge = knocked.merge_of("_bruids")
    assert knocked.segment_limited("_bruids", merge.rank) != merge.parts
    assert knocked.segment_pretoken("_bruids") != ("_bruids",)


@pytest.mark.parametrize("name", ["a1_scenario2a", "a1_scenario3b"])
def test_applying_triplet_scenarios_still_form_bruids(name):
    knocked = after_knockout(load_tokeniser(SCENARIOS[name]))
    assert knocked.segment_pretoken("_bruids") == ("_bruids",)


def test_moving_merges_blocks_merges_app_a3():
    tokeniser = load_tokeniser(SCENARIOS["a3_moving_merges"])
    variants = tokeniser.metadata["variants"]
    blocked = {"delayed": "abc d", "expedited": "b cd", "expedited_twice": "abc d"}
    for name, variant in variants.items():
        moved = tokeniser.with_merges([Merge(i, tuple(p)) for i, p in enumerate(variant["merges"])])
        for word, tokens in variant["words"].items():
            assert moved.tokenise_word(word) == tokens, (name, word)
        merge = next(m for m in moved.merges if str(m) == blocked[name])
        assert moved.segment_limited(merge.result, merge.rank) != merge.parts, name
