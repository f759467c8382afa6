"""Merge blame: R(m) = B(m) / N(m) (bpe-knockout.txt §3.4, Eq. 1).

Every reference word is segmented as in running text; each removed boundary between two
pretoken characters was removed by exactly one merge (a tuple merge removes several). N(m)
counts the boundaries m removed; B(m) the removed boundaries where the reference has a split
(false negatives; over-splits are never blamed). This follows the authors' implementation
(shared/research/bpe-knockout-peer.md §3): word types with weight 1 by default, and a tuple merge
charged for every boundary it removes; ``tuples_once`` counts each merge at most once per word
(their ``blame_tuples_once``). ``weights`` gives the frequency-weighted variant of App. A.5.
Holdout (§4.1 "Holdout") is a train/test split of the reference: blame on one part.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from core.model import Merge
from core.reference_state import TokenisedReference


@dataclass(frozen=True)
class MergeBlame:
    merge: Merge
    blame: float          # B(m)
    applications: float   # N(m)

    @property
    def ratio(self) -> float:
        return self.blame / self.applications if self.applications else 0.0

    def to_json(self) -> dict:
        return {"merge": str(self.merge), "rank": self.merge.rank, "blame": self.blame,
                "applications": self.applications, "ratio": self.ratio}


def compute_blame(reference: TokenisedReference, *, tuples_once: bool = False) -> dict[Merge, MergeBlame]:
    """B(m) and N(m) for every merge that removed at least one boundary in the reference (the
    reference keeps the counts up to date as it is re-traced: see ``BlameTally``)."""
    return {m: MergeBlame(m, b, n) for m, (n, b, _) in reference.blame_totals(tuples_once).items()}


def select_for_knockout(blames: dict[Merge, MergeBlame], threshold: float = 0.5, *,
                        max_removals: int | None = None) -> list[MergeBlame]:
    """Merges with R(m) >= threshold, highest ratio first (stable in rank order), at most ``max_removals``."""
    eligible = [b for b in sorted(blames.values(), key=lambda b: b.merge.rank) if b.blame > 0 and b.ratio >= threshold]
    eligible.sort(key=lambda b: -b.ratio)
    return eligible if max_removals is None else eligible[:max(0, max_removals)]


def holdout_split(entries: Sequence, train_fraction: float, seed: int = 0) -> tuple[list, list]:
    """A reproducible random train/test split of reference entries."""
    order = list(range(len(entries)))
    random.Random(seed).shuffle(order)
    cut = round(train_fraction * len(entries))
    train = sorted(order[:cut])
    test = sorted(order[cut:])
    return [entries[i] for i in train], [entries[i] for i in test]
