"""Merge blame: R(m) = B(m) / N(m) ([knockout §3.4, Eq. 1]).

Every reference word is segmented as in running text; each removed boundary between two
pretoken characters was removed by exactly one merge (a tuple merge removes several). N(m)
counts the boundaries m removed; B(m) the removed boundaries where the reference has a split
(false negatives; over-splits are never blamed). This follows the authors' implementation (the
``bpe_knockout`` package): word types with weight 1 by default, and a tuple merge
charged for every boundary it removes; ``tuples_once`` counts each merge at most once per word
(their ``blame_tuples_once``). ``weights`` gives the frequency-weighted variant of App. A.5.
Holdout (§4.1 "Holdout") is a train/test split of the reference: blame on one part.

Several merges per type: blame stays per merge; with ``unit="type"`` (the default of knockout) a
type's merges are judged together, R(t) = Σ B(m) / Σ N(m) over the merges forming t
(:func:`select_types_for_knockout`), and a selected type leaves V with all of its merges. With one
merge per type R(t) = R(m) and the selection is the paper's. Which boundaries a word charges under
``ignore_merges`` (a pretoken that is a type is emitted whole) is decided when the reference is
traced: see ``core.edits.reference_state`` (``blame="tree"`` / ``"applied"``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from core.bpe.model import Merge
from core.edits.reference_state import TokenisedReference


class MergeBlame(NamedTuple):
    """A merge's B(m) and N(m) (a named tuple: a run makes one per blamed merge each round)."""

    merge: Merge
    blame: float  # B(m)
    applications: float  # N(m)

    @property
    def ratio(self) -> float:
        return self.blame / self.applications if self.applications else 0.0

    def to_json(self) -> dict:
        return {
            "merge": str(self.merge),
            "rank": self.merge.rank,
            "blame": self.blame,
            "applications": self.applications,
            "ratio": self.ratio,
        }


def compute_blame(reference: TokenisedReference, *, tuples_once: bool = False) -> dict[Merge, MergeBlame]:
    """B(m) and N(m) for every merge that removed at least one boundary in the reference (the
    reference keeps the counts up to date as it is re-traced: see ``BlameTally``)."""
    return {m: MergeBlame(m, b, n) for m, (n, b, _) in reference.blame_totals(tuples_once).items()}


def select_for_knockout(
    blames: dict[Merge, MergeBlame], threshold: float = 0.5, *, max_removals: int | None = None
) -> list[MergeBlame]:
    """Merges with R(m) >= threshold, highest ratio first (stable in rank order), at most ``max_removals``."""
    eligible = [b for b in sorted(blames.values(), key=lambda b: b.merge.rank) if b.blame > 0 and b.ratio >= threshold]
    eligible.sort(key=lambda b: -b.ratio)
    return eligible if max_removals is None else eligible[: max(0, max_removals)]


@dataclass(frozen=True)
class TypeBlame:
    """B and N summed over the merges forming one type; ``merge`` is its primary merge (the one
    reported, and whose parts replace the type in the merges using it)."""

    type: str
    merge: Merge
    merges: tuple[MergeBlame, ...]  # the type's merges that removed a boundary in the reference
    blame: float
    applications: float

    @property
    def ratio(self) -> float:
        return self.blame / self.applications if self.applications else 0.0

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "merge": str(self.merge),
            "rank": self.merge.rank,
            "blame": self.blame,
            "applications": self.applications,
            "ratio": self.ratio,
        }
        if len(self.merges) > 1 or (self.merges and self.merges[0].merge != self.merge):
            out["type"] = self.type
            out["merges"] = [b.to_json() for b in self.merges]
        return out


def type_blames(blames: dict[Merge, MergeBlame], tokeniser, *, primary: bool = True) -> dict[str, TypeBlame]:
    """Per type: its merges' B and N summed (one merge per type: R(t) = R(m)). Without
    ``primary`` a type's ``merge`` is its lowest-ranked blamed merge (no segmentation needed)."""
    return {type_: _type_blame(type_, parts, tokeniser, primary) for type_, parts in _by_type(blames).items()}


def _by_type(blames: dict[Merge, MergeBlame]) -> dict[str, list[MergeBlame]]:
    """Type -> its blamed merges, in rank order."""
    by_type: dict[str, list[MergeBlame]] = {}
    for b in blames.values():
        by_type.setdefault(b.merge.result, []).append(b)
    for parts in by_type.values():
        if len(parts) > 1:
            parts.sort(key=lambda b: b.merge.rank)
    return by_type


def _type_blame(type_: str, parts: list[MergeBlame], tokeniser, primary: bool) -> TypeBlame:
    merge = parts[0].merge
    if primary and len(tokeniser.produced_by.get(type_, ())) > 1:
        merge = tokeniser.primary_merge(type_) or merge
    return TypeBlame(type_, merge, tuple(parts), sum(b.blame for b in parts), sum(b.applications for b in parts))


def select_types_for_knockout(
    blames: dict[Merge, MergeBlame], tokeniser, threshold: float = 0.5, *, max_removals: int | None = None
) -> list[TypeBlame]:
    """Types with Σ B / Σ N >= threshold over their merges, highest ratio first (stable in the rank
    order of their lowest-ranked blamed merge), at most ``max_removals``; alphabet types never."""
    alphabet = set(tokeniser.alphabet)
    eligible = []
    for type_, parts in _by_type(blames).items():  # only the eligible types become TypeBlames
        blame = sum(b.blame for b in parts)
        if blame > 0 and blame / sum(b.applications for b in parts) >= threshold and type_ not in alphabet:
            eligible.append(_type_blame(type_, parts, tokeniser, primary=False))
    eligible.sort(key=lambda b: b.merges[0].merge.rank)
    eligible.sort(key=lambda b: -b.ratio)
    if max_removals is not None:
        eligible = eligible[: max(0, max_removals)]
    produced_by = tokeniser.produced_by
    return [
        replace(b, merge=tokeniser.primary_merge(b.type) or b.merge) if len(produced_by.get(b.type, ())) > 1 else b
        for b in eligible
    ]


def holdout_split(entries: Sequence, train_fraction: float, seed: int = 0) -> tuple[list, list]:
    """A reproducible random train/test split of reference entries."""
    order = list(range(len(entries)))
    random.Random(seed).shuffle(order)
    cut = round(train_fraction * len(entries))
    train = sorted(order[:cut])
    test = sorted(order[cut:])
    return [entries[i] for i in train], [entries[i] for i in test]
