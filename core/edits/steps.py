"""StepReport: what one phase of BPE-knockout / ReBPE changed, for reports and the explorer.

Merge origins follow [rebpe Fig. 4] (and the authors' MergeExplanation): a merge is
pre-existing, split by knockout (it absorbed a knocked-out type's parts), reified (created by
reification), reused (an existing merge linked into tuple merges), annealed, or repaired.

A report is immutable (tuples and read-only mappings), so a finished run can be shared by every
browser session of the explorer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from core.bpe.model import BTETokeniser, Merge
from core.references.evaluation import MorphScores

PREEXISTING, KNOCKOUT, REIFIED, REUSED, ANNEALED, REPAIRED = (
    "pre-existing",
    "split by knockout",
    "reified",
    "reused",
    "annealed",
    "repaired",
)
ORIGINS = (PREEXISTING, KNOCKOUT, REIFIED, REUSED, ANNEALED, REPAIRED)


@dataclass(frozen=True)
class StepReport:
    phase: str  # "annealing" | "knockout" | "reparation" | "reification"
    iteration: int
    removed: tuple[Merge, ...] = ()
    added: tuple[Merge, ...] = ()
    rewired: tuple[tuple[Merge, Merge], ...] = ()  # (before, after): knockout splits, repairs, links
    types_removed: tuple[str, ...] = ()
    types_added: tuple[str, ...] = ()
    changed_words: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()  # (word, before, after)
    metrics: MorphScores | None = None
    vocab_size: int = 0
    tuple_merges: int = 0
    origins: Mapping[str, str] = field(default_factory=dict)  # merge result -> origin, after the step
    details: tuple[Mapping, ...] = ()  # per-merge facts (blame, amenability, ...)
    seconds: float = 0.0
    tokeniser: BTETokeniser | None = field(default=None, repr=False)  # the tokeniser after the step

    def __post_init__(self) -> None:
        """Sequences become tuples, ``origins`` and each of ``details`` read-only copies."""
        for name in ("removed", "added", "rewired", "types_removed", "types_added", "changed_words"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "origins", MappingProxyType(dict(self.origins)))
        object.__setattr__(self, "details", tuple(MappingProxyType(dict(d)) for d in self.details))

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.added or self.rewired)

    def origin_counts(self) -> dict[str, int]:
        """How many merges this step touched, by their origin after the step."""
        counts = dict.fromkeys(ORIGINS, 0)
        touched = {m.result for m in self.added} | {new.result for _, new in self.rewired}
        for result in touched:
            counts[self.origins.get(result, PREEXISTING)] += 1
        return counts

    def to_json(self) -> dict:
        return {
            "phase": self.phase,
            "iteration": self.iteration,
            "removed": [str(m) for m in self.removed],
            "added": [{"merge": str(m), "rank": m.rank} for m in self.added],
            "rewired": [{"before": str(a), "after": str(b), "rank": b.rank} for a, b in self.rewired],
            "types_removed": list(self.types_removed),
            "types_added": list(self.types_added),
            "changed_words": [{"word": w, "before": list(a), "after": list(b)} for w, a, b in self.changed_words],
            "metrics": None if self.metrics is None else self.metrics.to_json(),
            "vocab_size": self.vocab_size,
            "tuple_merges": self.tuple_merges,
            "origin_counts": self.origin_counts(),
            "details": [dict(d) for d in self.details],
            "seconds": self.seconds,
        }
