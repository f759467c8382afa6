"""What a trace consists of, in words (viz/trace_views.py)."""

from __future__ import annotations

import pytest

from core.trace import Trace, TraceEvent
from viz.trace_views import KIND_HELP, KIND_NOUNS, counted, kind_counts


def trace(*kinds: str) -> Trace:
    return Trace("x", ("x",), ("x",), tuple(TraceEvent(kind, kind, ("x",)) for kind in kinds))


def test_kinds_are_counted_as_english_nouns():
    assert kind_counts(trace("merge", "merge", "demolish", "demolish")) == "2 merges, 2 demolitions"
    assert kind_counts(trace("merge", "demolish", "supermerge", "supermerge")) == "1 merge, 1 demolition, 2 supermerges"
    assert kind_counts(trace("viterbi", "viterbi", "whole")) == "2 Viterbi choices, 1 pretoken kept whole"
    assert kind_counts(trace()) == "no operations"


@pytest.mark.parametrize("kind", sorted(KIND_HELP))
def test_every_kind_the_badges_know_has_a_noun(kind):
    assert kind in KIND_NOUNS
    one, many = KIND_NOUNS[kind]
    assert counted(kind, 1) == f"1 {one}" and counted(kind, 2) == f"2 {many}" and one != many


def test_an_unknown_kind_gets_an_english_plural():
    assert counted("patch", 2) == "2 patches" and counted("fix", 3) == "3 fixes" and counted("step", 2) == "2 steps"
