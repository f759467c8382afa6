"""Training dynamics read off a training log (core.families.base.TrainingEvent list).

[boundless §4, Fig. 2] (the count of each selected merge or supermerge over training) and
Fig. 3 (the fraction of merges and supermerges over successive intervals of operations); the same
views show Scaffold-BPE's scaffold/re-admission events and PickyBPE's removals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from core.errors import InputError


def kind_fractions(events: Sequence, interval: int) -> list[dict]:
    """For each block of ``interval`` consecutive events (the last may be shorter): the fraction
    of each event kind in it. Rows ``{"start", "end", "kind", "fraction", "count"}``, ``start``
    and ``end`` being event positions (0-based, end exclusive)."""
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
        raise InputError(f"interval must be a positive integer, got {interval!r}")
    kinds = list(dict.fromkeys(e.kind for e in events))
    rows: list[dict] = []
    for start in range(0, len(events), interval):
        block = events[start : start + interval]
        counts = Counter(e.kind for e in block)
        rows.extend(
            {
                "start": start,
                "end": start + len(block),
                "kind": kind,
                "fraction": counts[kind] / len(block),
                "count": counts[kind],
            }
            for kind in kinds
        )
    return rows


def kind_totals(events: Sequence) -> dict[str, int]:
    """How many events of each kind, in order of first appearance."""
    return dict(Counter(e.kind for e in events))
