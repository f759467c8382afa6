"""StepReport: what one phase of BPE-knockout / ReBPE changed, for reports and the explorer.

Merge origins follow [rebpe Fig. 4] (and the authors' MergeExplanation): a merge is
pre-existing, split by knockout (it absorbed a knocked-out type's parts), reified (created by
reification), reused (an existing merge linked into tuple merges), annealed, or repaired.

A report is immutable (tuples and read-only mappings), so a finished run can be shared by every
browser session of the explorer. An annealing report also says what annealing looked at and why
the pairs it did not add fell short of its thresholds (:class:`AnnealingDiagnostics`, [rebpe §3.4]).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
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
class PairCount:
    """An adjacent token pair in the reference's segmentations: its applications (the times the two
    tokens stand side by side, weighted) and how many of them are amenable (their boundary is not a
    reference boundary, so merging the pair would remove a split the reference does not want)."""

    pair: tuple[str, str]
    amenable: float
    applications: float

    @property
    def ratio(self) -> float:
        """The amenability ratio: amenable / all applications."""
        return self.amenable / self.applications

    def __str__(self) -> str:
        return f"{self.pair[0]!r} + {self.pair[1]!r}: {self.amenable:g} of {self.applications:g} applications amenable"


@dataclass(frozen=True)
class AnnealingDiagnostics:
    """What an annealing phase looked at and where the pairs fell short [rebpe §3.4]: annealing adds
    the merge of an adjacent token pair that is not yet a type when at least ``min_applications`` of
    its applications are amenable and its amenability ratio is at least ``min_ratio`` (the complement
    of knockout's blame: merges that would cross reference boundaries as little as possible). Each
    count narrows the one before: ``pairs`` ⊇ ``amenable`` ⊇ ``frequent`` ⊇ ``qualifying``, which
    splits into ``existing``, ``over_budget`` and ``added``."""

    min_applications: int
    min_ratio: float
    max_vocab_size: int
    words: int  # reference words looked at
    split_words: int  # of those, the words segmented into more than one token
    pairs: int  # distinct adjacent token pairs in their segmentations
    amenable: int  # pairs with at least one amenable application
    frequent: int  # pairs with >= min_applications amenable applications
    qualifying: int  # frequent pairs whose amenability ratio is >= min_ratio
    existing: int  # qualifying pairs already a type (or with a part that is not): nothing to add
    over_budget: int  # new qualifying pairs left out because |V| reached max_vocab_size
    added: int  # merges added
    most_amenable: PairCount | None = None  # the pair with the most amenable applications
    best_ratio: PairCount | None = None  # the frequent pair with the highest amenability ratio

    def summary(self) -> str:
        """One sentence: what annealing added, the rule, and what it found (why nothing, if nothing)."""
        added = "no merge" if not self.added else f"{self.added:,} merge{'' if self.added == 1 else 's'}"
        rule = (
            f"a pair of adjacent tokens qualifies with ≥ {self.min_applications:g} amenable applications (the two "
            f"tokens split where the reference has no boundary) and an amenability ratio ≥ {self.min_ratio:g}"
        )
        return f"annealing added {added}: {rule}; {self._found()}"

    def _found(self) -> str:
        if not self.pairs:
            return f"each of the {self.words:,} reference words is one token, so no pair was found"
        found = (
            f"{self.split_words:,} of the {self.words:,} reference words are split into several tokens, with "
            f"{self.pairs:,} distinct adjacent pairs"
        )
        most, best = self.most_amenable, self.best_ratio
        if most is None:
            return f"{found}, none amenable (every split is a reference boundary)"
        found += f", {self.amenable:,} of them amenable at least once"
        if best is None:
            return f"{found}; the most amenable pair is {most}"
        found += f", {self.frequent:,} at least {self.min_applications:g} times"
        if not self.qualifying:
            return f"{found}; the best ratio among those is {best.ratio:.2f}, for {best}"
        found += f"; {self.qualifying:,} qualif{'ies' if self.qualifying == 1 else 'y'}"
        left = [
            f"{self.existing:,} already {'is a type' if self.existing == 1 else 'are types'}" if self.existing else "",
            f"{self.over_budget:,} left out at max_vocab_size {self.max_vocab_size:,}" if self.over_budget else "",
        ]
        return ", ".join([found, *filter(None, left)])

    def to_json(self) -> dict:
        return {**asdict(self), "summary": self.summary()}

    @classmethod
    def from_json(cls, raw: Mapping) -> AnnealingDiagnostics:
        """The diagnostics :meth:`to_json` wrote (its ``summary`` is derived, so dropped)."""
        fields = {k: v for k, v in raw.items() if k != "summary"}
        for name in ("most_amenable", "best_ratio"):
            if fields.get(name) is not None:
                found = fields[name]
                fields[name] = PairCount(tuple(found["pair"]), found["amenable"], found["applications"])
        return cls(**fields)


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
    annealing: AnnealingDiagnostics | None = None  # an annealing step: what it looked at, why it added what it did

    def __post_init__(self) -> None:
        """Sequences become tuples, ``origins`` and each of ``details`` read-only copies."""
        for name in ("removed", "added", "rewired", "types_removed", "types_added", "changed_words"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "origins", MappingProxyType(dict(self.origins)))
        object.__setattr__(self, "details", tuple(MappingProxyType(dict(d)) for d in self.details))

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.added or self.rewired)

    def __repr__(self) -> str:
        """One line (the fields of a real-size step run to megabytes)."""
        counts = [
            f"{len(items):,} {what}"
            for items, what in (
                (self.removed, "removed"),
                (self.added, "added"),
                (self.rewired, "rewired"),
                (self.changed_words, "words changed"),
            )
            if items
        ]
        f1 = "" if self.metrics is None else f", F1 {self.metrics.f1:.4f}"
        return (
            f"<{type(self).__name__} {self.phase}, iteration {self.iteration}: "
            f"{', '.join(counts) or 'no change'}; |V| {self.vocab_size:,}{f1}; {self.seconds:.2f} s>"
        )

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
            **({} if self.annealing is None else {"annealing": self.annealing.to_json()}),
        }
