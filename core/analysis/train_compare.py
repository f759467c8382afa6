"""Comparing tokenisers of different families trained on the same corpus (the Train & compare
page): how much of their learned vocabularies they share.

No paper section: descriptive statistics. "Learned" types are the types longer than one
character, so the shared single-character (or byte) alphabet does not drown the comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations


def learned_types(vocabulary: frozenset[str]) -> frozenset[str]:
    return frozenset(t for t in vocabulary if len(t) > 1)


def vocabulary_overlap(vocabularies: Mapping[str, frozenset[str]]) -> list[dict]:
    """For every pair of tokenisers: learned types shared, only in each, and the Jaccard index
    |A ∩ B| / |A ∪ B| (1.0 when both learned nothing)."""
    learned = {name: learned_types(v) for name, v in vocabularies.items()}
    rows = []
    for a, b in combinations(learned, 2):
        shared, union = learned[a] & learned[b], learned[a] | learned[b]
        rows.append(
            {
                "a": a,
                "b": b,
                "shared": len(shared),
                "only a": len(learned[a] - learned[b]),
                "only b": len(learned[b] - learned[a]),
                "jaccard": len(shared) / len(union) if union else 1.0,
            }
        )
    return rows
