"""core.edits.scenarios: the teaching scenarios' reference and the moved-merge variants of [rebpe App. A.3]."""

from __future__ import annotations

import pytest

from core.edits.scenarios import moved_merge_variants, scenario_reference_tsv
from core.formats.samples import scenario_paths
from tests.teaching_scenarios import BRUID, scenario


@pytest.mark.parametrize("name", [n for n in scenario_paths() if n.startswith("a1_")])
def test_scenario_reference_splits_where_the_knocked_out_merge_joins(name):
    assert scenario_reference_tsv(scenario(name)) == BRUID


def test_scenario_reference_of_app_a3_and_of_ordinary_tokenisers(dutch40k):
    assert scenario_reference_tsv(scenario("a3_moving_merges")) == "abcd\ta bcd\nbcd\tbcd\n"
    assert scenario_reference_tsv(dutch40k) is None


def test_moved_merge_variants_are_the_papers_listings():
    variants = moved_merge_variants(scenario("a3_moving_merges"))
    assert list(variants) == ["delayed", "expedited", "expedited_twice"]
    assert [str(m) for m in variants["expedited"].merges] == ["b c", "a bc", "abc d", "c d", "b cd"]
    assert moved_merge_variants(scenario("a1_scenario2a")) == {}


@pytest.mark.parametrize(
    "variants",
    [
        [],
        {"x": "no"},
        {"x": {"merges": [["a"]]}},
        {"x": {"merges": [["a", 3]]}},
        {"x": {"merges": [["a", "b"], ["a", "b"]]}},
    ],
)
def test_malformed_moved_merge_variants_are_left_out(variants):
    from core.bpe.model import BTETokeniser

    base = scenario("a3_moving_merges")
    odd = BTETokeniser(base.alphabet, base.merges, base.pretokeniser, metadata={**base.metadata, "variants": variants})
    assert moved_merge_variants(odd) == {}
