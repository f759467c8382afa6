"""core.edits.step_changes: the types a step touched, the words whose tokens or merge tree it changed."""

from __future__ import annotations

import pytest

from core.edits.rebpe import repair, run_knockout, run_rebpe
from core.edits.step_changes import affected_words, segmentation_changes, touched_types
from core.references.files import parse_references
from tests.teaching_scenarios import BRUID, scenario, scenario_run


def test_affected_words_include_trees_that_changed_without_new_tokens():
    tokeniser, run = scenario_run("a1_scenario2a")
    knockout, reparation, reification = run.steps[:3]
    assert knockout.changed_words == ()  # _bruids stays one token ...
    assert affected_words(tokeniser, knockout.tokeniser, ["bruid", "bruids"]) == ["bruids"]  # ... its tree not
    assert affected_words(knockout.tokeniser, reparation.tokeniser, ["bruid", "bruids"]) == []
    changed = affected_words(
        reparation.tokeniser, reification.tokeniser, ["bruids", "bruid"], reification.changed_words
    )
    assert changed == ["bruid", "bruids"]  # token changes first
    assert affected_words(tokeniser, knockout.tokeniser, ["bruids"], limit=0) == []
    assert affected_words(tokeniser, knockout.tokeniser, ["bruids"], limit=None) == ["bruids"]
    touched = touched_types(knockout)
    assert affected_words(tokeniser, knockout.tokeniser, ["bruid", "bruids"], touched=touched) == ["bruids"]
    assert affected_words(tokeniser, knockout.tokeniser, ["bruid", "bruids"], touched=["xyz"]) == []


@pytest.mark.slow
def test_affected_words_with_touched_types_agree_with_the_full_scan(dutch40k):
    from core.formats.samples import reference_paths
    from core.references.files import load_references

    entries = load_references(reference_paths()["nl_morph"]).entries[:400]
    run = run_rebpe(dutch40k, entries)
    words = [e.word for e in entries]
    before = dutch40k
    for step in run.steps[:6]:
        full = affected_words(before, step.tokeniser, words, step.changed_words, limit=10_000)
        fast = affected_words(
            before, step.tokeniser, words, step.changed_words, limit=10_000, touched=touched_types(step)
        )
        assert fast == full
        before = step.tokeniser


def test_touched_types():
    _, run = scenario_run("a1_scenario2a")
    assert touched_types(run.steps[0]) == ["ids", "_bruids"]
    assert touched_types(None) == []


def test_segmentation_changes_of_reparation():
    knocked = run_knockout(scenario("a1_scenario2b_i_first"), parse_references(BRUID, format="tsv").entries).tokeniser
    repaired_tokeniser, _ = repair(knocked)
    assert segmentation_changes(knocked, repaired_tokeniser, ["bruid", "bruids"]) == [
        ("bruids", ("_bruid", "s"), ("_bruids",))
    ]
