"""What a trace consists of, in words (viz/trace_views.py)."""

from __future__ import annotations

from core.trace import Trace, TraceEvent
from viz.trace_views import kind_counts


def trace(*kinds: str) -> Trace:
    return Trace("x", ("x",), ("x",), tuple(TraceEvent(kind, kind, ("x",)) for kind in kinds))


def test_kinds_are_counted_in_english_plurals():
    assert kind_counts(trace("merge", "merge", "demolish", "demolish")) == "2 merges, 2 demolishes"
    assert kind_counts(trace("merge", "demolish", "supermerge", "supermerge")) == "1 merge, 1 demolish, 2 supermerges"
    assert kind_counts(trace()) == "no operations"
