"""ReBPE: annealing, knockout, reparation and reification, iterated until nothing changes.

[rebpe Alg. 1] (iteration, §3.3) and Alg. 2 (reification phase: reparation lines 2-15 (§3.1),
discovery of binary submerges lines 18-26, their insertion lines 27-52 (§3.2)), annealing (§3.4),
with the details resolved as the authors' implementation (the ``bpe_knockout`` package) does:
knockout of every merge with R(m) >= ½ in one batch; reification pairs processed by the number of
tuple merges containing them (most first); an existing submerge is linked only if it is exactly
(p1, p2) and ranked before the tuple; a new submerge gets rank r - ε before the earliest tuple it
serves (ε = 0.001); annealing keeps pairs with at least 3 amenable applications and an amenability
ratio of at least 0.8, appended after the last merge.
Every phase is a pure function of a tokeniser returning a new tokeniser and a StepReport; the
shared TokenisedReference only caches traces (re-tracing just the words an edit can change).

Several merges per type (tiktoken / SentencePiece conversions): knockout judges a type by its
merges together (``KnockoutConfig.unit="type"``, Σ B / Σ N) or merge by merge (``unit="merge"``),
see ``core.edits.knockout``; under ``ignore_merges`` a word emitted whole is blamed through its own tree
(``blame="tree"``, see ``core.edits.reference_state``). Reparation looks at every tuple merge with
LIMITEDBPE below its rank, which excludes every merge sharing that rank; reification links an
existing submerge when *one of* the merges of p1p2 is exactly (p1, p2) and ranked before the tuple.
An edit that makes two merges identical keeps the lower-ranked one (the pair fires at that rank
anyway). With one merge per type all of this is the papers' procedure. After every phase the
touched part of the graph is checked (:func:`check_edit`): every part a type, no merge using a type
that left V; the constructor checks that merges sharing a rank form one type and none is listed
twice. Ids are carried through every edit (``core.edits.knockout.derive``).
"""

from __future__ import annotations

import math
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal, get_args

from core.bpe.model import BTETokeniser, Merge, Rank
from core.bpe.segmentation import TUPLE_HEAD, SegmentationEngine
from core.edits.blame import MergeBlame, compute_blame, select_for_knockout, select_types_for_knockout
from core.edits.knockout import derive, knock_out, knock_out_merges
from core.edits.reference_state import BLAME_MODES, BlameMode, TokenisedReference
from core.edits.steps import (
    ANNEALED,
    KNOCKOUT,
    PREEXISTING,
    REIFIED,
    REPAIRED,
    REUSED,
    AnnealingDiagnostics,
    PairCount,
    StepReport,
)
from core.errors import InputError
from core.gc_pause import cyclic_gc_paused
from core.options import check_bool, check_choice, check_int, check_number, described
from core.references.evaluation import check_references
from core.tokeniser import require

EPSILON = 0.001
KnockoutUnit = Literal["type", "merge"]
AnnealWhen = Literal["none", "before", "after", "both"]
ReparationMode = Literal["limited", "undo"]
KNOCKOUT_UNITS = get_args(KnockoutUnit)
ANNEAL_WHEN = get_args(AnnealWhen)
REPARATION_MODES = get_args(ReparationMode)


class InvariantError(AssertionError):
    """An edit broke the merge graph (a bug, never bad input)."""


def check_edit(old: BTETokeniser, new: BTETokeniser, touched: Iterable[Merge]) -> None:
    """The invariants after a phase, checked where the edit can have broken them: the parts of
    every touched (added or rewired) merge are types, and no merge uses a type that left V. (The
    constructor has checked that merges sharing a rank form the same type and that none repeats.)"""
    types = new.types
    problems = [
        f"merge '{m}' (rank {m.rank}) uses parts not in V" for m in touched if any(p not in types for p in m.parts)
    ]
    gone = {m.result for m in old.merges} - types if len(new.merges) < len(old.merges) or problems else set()
    if gone:
        gone -= set(old.alphabet)
        problems += [
            f"merge '{m}' (rank {m.rank}) uses a type that left V" for m in new.merges if not gone.isdisjoint(m.parts)
        ]
    if problems:
        raise InvariantError("; ".join(problems[:3]))


@dataclass(frozen=True)
class KnockoutConfig:
    threshold: float = 0.5  # knock out merges with B/N >= threshold (>= 0; above 1 knocks out none)
    min_vocab_size: int = 0  # never shrink V below this
    tuples_once: bool = False  # count each merge at most once per word
    cascade: bool = False  # remove descendants instead of making tuple merges (NONE_CASCADE)
    unit: KnockoutUnit = "type"  # "type": Σ B / Σ N over a type's merges; "merge": one merge at a time
    blame: BlameMode = "tree"  # "tree": whole words (ignore_merges) blame their own tree; "applied"

    def __post_init__(self) -> None:
        owner = "KnockoutConfig"
        check_number("threshold", self.threshold, 0.0, owner=owner)
        check_int("min_vocab_size", self.min_vocab_size, 0, owner)
        check_bool("tuples_once", self.tuples_once, owner)
        check_bool("cascade", self.cascade, owner)
        check_choice("unit", self.unit, KNOCKOUT_UNITS, owner)
        check_choice("blame", self.blame, BLAME_MODES, owner)


@dataclass(frozen=True)
class AnnealConfig:
    when: AnnealWhen = "none"  # anneal before the first iteration, after the last, both or never
    min_applications: int = 3  # absolute minimum of amenable applications
    min_ratio: float = 0.8  # minimum amenable / total (>= 0; above 1 anneals nothing)
    max_vocab_size: int = 1_000_000

    def __post_init__(self) -> None:
        owner = "AnnealConfig"
        check_choice("when", self.when, ANNEAL_WHEN, owner)
        check_int("min_applications", self.min_applications, 0, owner)
        check_number("min_ratio", self.min_ratio, 0.0, owner=owner)
        check_int("max_vocab_size", self.max_vocab_size, 0, owner)


@dataclass(frozen=True)
class ReBPEConfig:
    knockout: KnockoutConfig = field(default_factory=KnockoutConfig)
    anneal: AnnealConfig = field(default_factory=AnnealConfig)
    reify: bool = True  # Alg. 1 "reify?"
    fix: bool = True  # Alg. 2 "fix?" (reparation)
    reparation: ReparationMode = "limited"  # "limited" (Alg. 2 as written) or "undo" (the authors' code)
    link: bool = True  # Alg. 2 "link?" (use existing submerges)
    expand: bool = True  # Alg. 2 "expand?" (create new submerges; not backwards compatible)
    max_iterations: int = 100
    epsilon: float = EPSILON  # new submerges are ranked within 2ε below their tuple: 0 < ε < ½

    def __post_init__(self) -> None:
        owner = "ReBPEConfig"
        if not isinstance(self.knockout, KnockoutConfig):
            raise InputError(f"{owner}.knockout must be a KnockoutConfig, got {self.knockout!r}")
        if not isinstance(self.anneal, AnnealConfig):
            raise InputError(f"{owner}.anneal must be an AnnealConfig, got {self.anneal!r}")
        for name in ("reify", "fix", "link", "expand"):
            check_bool(name, getattr(self, name), owner)
        check_choice("reparation", self.reparation, REPARATION_MODES, owner)
        check_int("max_iterations", self.max_iterations, 1, owner)
        check_number("epsilon", self.epsilon, 0.0, 0.5, low_open=True, high_open=True, owner=owner)


class Run:
    """Book-keeping shared by the phases of one run: the traced reference and merge origins.
    Private to the thread doing the run; what it produces (``steps``, ``tokeniser``) is immutable."""

    def __init__(
        self, tokeniser: BTETokeniser, reference: TokenisedReference, evaluation: TokenisedReference | None = None
    ):
        self.start = tokeniser
        self.tokeniser = tokeniser
        self.reference = reference
        self.evaluation = evaluation or reference
        #: the metrics of ``start`` (each step's ``metrics`` are those after it)
        self.metrics_before = self.evaluation.scores()
        self.origins: dict[str, str] = {m.result: PREEXISTING for m in tokeniser.merges}
        self.steps: list[StepReport] = []

    def __repr__(self) -> str:
        """One line (``steps`` and the tokenisers hold the details)."""
        iterations = len({s.iteration for s in self.steps if s.phase != "annealing"})
        scores = self.steps[-1].metrics if self.steps else None
        f1 = "" if scores is None else f", F1 {scores.f1:.4f} on {scores.words:,} words"
        return (
            f"<Run {len(self.steps)} steps, {iterations} iterations: |V| {self.start.vocab_size:,} -> "
            f"{self.tokeniser.vocab_size:,}{f1}>"
        )

    def commit(
        self,
        phase: str,
        iteration: int,
        new: BTETokeniser,
        started: float,
        *,
        removed=(),
        added=(),
        rewired=(),
        details=(),
        origin_updates: dict[str, str] | None = None,
        annealing: AnnealingDiagnostics | None = None,
    ) -> StepReport:
        """Switch to ``new``, re-trace what can change and record the step."""
        old = self.tokeniser
        if new is not old:
            check_edit(old, new, [*added, *(after for _, after in rewired)])
        changed = self.evaluation.update(new)
        if self.reference is not self.evaluation:
            self.reference.update(new)
        for merge in removed:
            if merge.result not in new.types:
                self.origins.pop(merge.result, None)
        self.origins.update(origin_updates or {})
        self.tokeniser = new
        step = StepReport(
            phase=phase,
            iteration=iteration,
            removed=tuple(removed),
            added=tuple(added),
            rewired=tuple(rewired),
            types_removed=tuple(sorted(old.types - new.types)),
            types_added=tuple(sorted(new.types - old.types)),
            changed_words=tuple(
                (self.evaluation.words[i].word, before, self.evaluation.words[i].tokens) for i, before in changed
            ),
            metrics=self.evaluation.scores(),
            vocab_size=new.vocab_size,
            tuple_merges=len(new.tuple_merges),
            origins=self.origins,
            details=details,
            seconds=time.perf_counter() - started,
            tokeniser=new,
            annealing=annealing,
        )
        self.steps.append(step)
        return step


# --- knockout ([knockout §3.3-3.4]) -----------------------------------------------------------
def knockout_phase(run: Run, config: KnockoutConfig, iteration: int = 0) -> StepReport:
    started = time.perf_counter()
    tokeniser = run.tokeniser
    blames = compute_blame(run.reference, tuples_once=config.tuples_once)
    budget = max(0, len(tokeniser.types) - config.min_vocab_size)
    if config.unit == "type":
        types = select_types_for_knockout(blames, tokeniser, config.threshold, max_removals=budget)
        new, edit = knock_out(tokeniser, [b.type for b in types], cascade=config.cascade)
        details = [b.to_json() for b in types]
    else:
        merges = _merges_within_budget(blames, tokeniser, config, budget)
        new, edit = knock_out_merges(tokeniser, [b.merge for b in merges], cascade=config.cascade)
        details = [b.to_json() for b in merges]
    updates = {after.result: KNOCKOUT for _, after in edit.rewired}
    return run.commit(
        "knockout",
        iteration,
        new,
        started,
        removed=(*edit.removed, *edit.collapsed),
        rewired=edit.rewired,
        details=details,
        origin_updates=updates,
    )


def _merges_within_budget(
    blames: dict[Merge, MergeBlame], tokeniser: BTETokeniser, config: KnockoutConfig, budget: int
) -> list[MergeBlame]:
    """The merges to knock out one by one (``unit="merge"``); the budget counts the types leaving V
    (a type leaves when all of its merges qualify)."""
    chosen: list[MergeBlame] = []
    leaving: set[str] = set()
    produced_by = tokeniser.produced_by
    for b in select_for_knockout(blames, config.threshold, max_removals=None):
        merges = produced_by.get(b.merge.result, ())
        if len(merges) <= 1 or all(
            m in blames and blames[m].ratio >= config.threshold and blames[m].blame > 0 for m in merges
        ):
            if b.merge.result not in leaving and len(leaving) >= budget:
                continue
            leaving.add(b.merge.result)
        chosen.append(b)
    return chosen


# --- reparation ([rebpe §3.1, Alg. 2 lines 2-15]) -----------------------------------------------------
def _tokens_before_rank(engine: SegmentationEngine, string: str, rank: Rank) -> tuple[str, ...]:
    """The authors' reconstruction of the tokens just before rank r: segment ``string`` with every
    merge, then undo the boundaries removed by merges ranked r or later."""
    _, boundaries = engine.boundary_trace(string)
    cuts = [k + 1 for k, merge in enumerate(boundaries) if merge is None or merge.rank >= rank]
    return tuple(string[i:j] for i, j in pairwise([0, *cuts, len(string)]))


class RepairEngine(SegmentationEngine):
    """An engine that reparation edits as it goes (Alg. 2 as written: LIMITEDBPE sees the repairs
    already made). Private to one :func:`repair` call; a tokeniser's own engine never changes."""

    def __init__(self, merges: Iterable[Merge]):
        super().__init__(merges)
        # editable copies of the tables, in place of the read-only ones
        self._merge_list = list(self.merges)
        self._tuple_lists = {firsts: list(entries) for firsts, entries in self.tuple_index.items()}
        self._result_set, self._head_set = set(self._tuple_results), set(self._tuple_heads)
        self.merges, self.tuple_index = self._merge_list, self._tuple_lists
        self._tuple_results, self._tuple_heads = self._result_set, self._head_set
        self._word_pieces = None  # its merges change: no cutting a pretoken into words

    def replace_merge(self, old: Merge, new: Merge) -> None:
        """In place: swap ``old`` for ``new`` at the same rank. Merges sharing a rank keep sharing
        its priority (``new`` must form the same type as ``old``)."""
        i = bisect_left(self.ranks, old.rank)  # the priority of the rank: its first merge
        j = i
        while j < len(self.merges) and self.ranks[j] == old.rank and self.merges[j] != old:
            j += 1
        assert j < len(self.merges) and self.merges[j] == old and new.rank == old.rank
        assert not self.shared_ranks or new.result == old.result
        for merge, add in ((old, False), (new, True)):
            if merge.is_tuple:
                entries = self._tuple_lists.setdefault(merge.parts[:2], [])
                if add:
                    entries.append((i, merge.parts))
                    entries.sort()
                    self.tuple_span[merge.parts[0]] = max(self.tuple_span.get(merge.parts[0], 0), len(merge.parts))
                else:
                    entries.remove((i, merge.parts))
            elif add:
                self.pair_index[(merge.parts[0], merge.parts[1])] = i
            else:
                del self.pair_index[(merge.parts[0], merge.parts[1])]
        self._merge_list[j] = new
        parts_index = self.__dict__.get("_parts_index")
        if parts_index is not None:
            parts_index.pop(old.parts, None)
            parts_index[new.parts] = new
        self.window = max(self.window, len(new.parts))
        if new.is_tuple and new.result not in self._tuple_results:  # a superset stays a valid filter
            self._result_set.add(new.result)
            self._head_set.add(new.result[:TUPLE_HEAD])
            self._tuple_result_lengths = tuple(sorted({*self._tuple_result_lengths, len(new.result)}))
        self._cache.clear()
        self._inner.clear()
        if self._merge_of is not None:
            self._merge_of[new.result] = new


def repair(tokeniser: BTETokeniser, mode: ReparationMode = "limited") -> tuple[BTETokeniser, list[tuple[Merge, Merge]]]:
    """Replace the parts of every tuple merge by the tokens found on its string before its rank.

    ``mode="limited"`` is Alg. 2 lines 2-15 as written: LIMITEDBPE(s, rank(m)), with earlier
    repairs already in place. ``mode="undo"`` is what the authors' implementation does (and
    reproduces its repair counts): segment s with the tokeniser as it was before the phase, then
    undo the merges ranked at or after m. The two differ when a merge ranked after m fires first
    and enables a lower-ranked one.
    """
    check_choice("reparation", mode, REPARATION_MODES)
    # LIMITEDBPE sees earlier repairs, so it needs an engine of its own; "undo" only reads.
    repair_engine = RepairEngine(tokeniser.merges) if mode == "limited" else None
    engine = repair_engine or tokeniser.engine
    repaired = []
    existing = {m.parts for m in tokeniser.merges} if tokeniser.multi_merge_types else None
    for merge in tokeniser.merges:
        if not merge.is_tuple:
            continue
        if mode == "limited":
            tokens = engine.segment_limited(merge.result, merge.rank)
        else:
            tokens = _tokens_before_rank(engine, merge.result, merge.rank)
        if tokens != merge.parts and len(tokens) >= 2:
            if existing is not None:  # another merge of the type already has these parts: leave it
                if tokens in existing:
                    continue
                existing.add(tokens)
            fixed = Merge(merge.rank, tokens)
            if repair_engine is not None:
                repair_engine.replace_merge(merge, fixed)
            repaired.append((merge, fixed))
    if not repaired:
        return tokeniser, []
    fixes = {old: new for old, new in repaired}
    return derive(tokeniser, [fixes.get(m, m) for m in tokeniser.merges]), repaired


def reparation_phase(run: Run, iteration: int = 0, mode: ReparationMode = "limited") -> StepReport:
    started = time.perf_counter()
    new, repaired = repair(run.tokeniser, mode)
    return run.commit(
        "reparation",
        iteration,
        new,
        started,
        rewired=repaired,
        origin_updates={after.result: REPAIRED for _, after in repaired},
    )


# --- reification ([rebpe §3.2, Alg. 2 lines 18-52]) --------------------------------------------------
def _replace_pair(parts: tuple[str, ...], left: str, right: str) -> tuple[str, ...]:
    """REPLACE((p1, p2), p1p2, t): non-overlapping occurrences, left to right."""
    out, i = [], 0
    while i < len(parts):
        if i + 1 < len(parts) and parts[i] == left and parts[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(parts[i])
            i += 1
    return tuple(out)


def reify(
    tokeniser: BTETokeniser,
    blacklist: set[tuple[str, ...]],
    *,
    link: bool = True,
    expand: bool = True,
    epsilon: float = EPSILON,
) -> tuple[BTETokeniser, list[Merge], list[tuple[Merge, Merge]], set[str]]:
    """Link or create binary submerges inside tuple merges.

    Returns the new tokeniser, the created merges, the (tuple before, tuple after) rewirings and
    the results of existing merges that were linked (reused). A tuple whose new parts equal those
    of another merge (possible only when a type has several merges) collapses into the
    lower-ranked of the two; the dropped merge is left out of the new tokeniser.
    """
    suggestions = _suggestions(tokeniser.merges, blacklist)
    if not suggestions:
        return tokeniser, [], [], set()
    reification = _Reification(tokeniser, link=link, expand=expand, epsilon=epsilon)
    ranks = reification.ranks
    order = sorted(suggestions, key=lambda p: (-len(suggestions[p]), min(ranks[k] for k in suggestions[p])))
    for left, right in order:  # lines 28-52
        reification.reify_pair(left, right, suggestions[(left, right)])
    return reification.outcome()


def _suggestions(merges: Iterable[Merge], blacklist: set[tuple[str, ...]]) -> dict[tuple[str, str], list[int]]:
    """Alg. 2 lines 19-26: every adjacent pair inside a tuple merge (blacklisted pairs left out) ->
    the positions of the tuple merges containing it, in rank order."""
    suggestions: dict[tuple[str, str], list[int]] = {}
    for k, merge in enumerate(merges):
        if not merge.is_tuple:
            continue
        for pair in pairwise(merge.parts):
            if pair not in blacklist:
                entry = suggestions.setdefault(pair, [])
                if k not in entry:
                    entry.append(k)
    return suggestions


class _Reification:
    """The merge list while reification links and creates submerges (Alg. 2 lines 28-52): the
    current parts, rank and liveness of each merge by position, created merges appended."""

    def __init__(self, tokeniser: BTETokeniser, *, link: bool, expand: bool, epsilon: float):
        self.tokeniser = tokeniser
        self.link, self.expand, self.epsilon = link, expand, epsilon
        merges = tokeniser.merges
        self.parts: list[tuple[str, ...]] = [m.parts for m in merges]
        self.ranks: list[Rank] = [m.rank for m in merges]
        self.alive = [True] * len(merges)
        self.by_parts: dict[tuple[str, ...], int] = {p: k for k, p in enumerate(self.parts)}
        self.types = set(tokeniser.types)
        self.created: list[tuple[int, Rank]] = []  # (position of the new merge, rank of the tuple it precedes)
        self.reused: set[str] = set()  # results of existing merges that were linked

    def reify_pair(self, left: str, right: str, suggested: list[int]) -> None:
        """Link or create the submerge ``left + right`` and use it in every tuple merge (of
        ``suggested``) that still contains the pair and is ranked after the submerge."""
        parts = self.parts
        tuples = [k for k in suggested if self.alive[k] and (left, right) in pairwise(parts[k])]
        if not tuples:
            return
        rank = self._submerge_rank(left, right, tuples)
        if rank is None:
            return
        for k in tuples:
            if rank < self.ranks[k]:
                self._rewire(k, left, right)

    def _submerge_rank(self, left: str, right: str, tuples: list[int]) -> Rank | None:
        """The rank of the submerge: a new merge at r - ε before the earliest tuple it serves
        (``expand``), or an existing merge that is exactly (left, right) (``link``); None: neither."""
        if left + right not in self.types:
            if not self.expand:
                return None
            target = min(self.ranks[k] for k in tuples)
            rank: Rank = target - self.epsilon
            self.types.add(left + right)
            self.by_parts[(left, right)] = len(self.parts)
            self.created.append((len(self.parts), target))
            self.parts.append((left, right))
            self.ranks.append(rank)
            self.alive.append(True)
            return rank
        sub = self.by_parts.get((left, right))
        if not self.link or sub is None or not self.alive[sub]:
            return None
        return self.ranks[sub]

    def _rewire(self, k: int, left: str, right: str) -> None:
        """REPLACE the pair in merge ``k``; when that makes it equal to another live merge, the
        lower-ranked of the two stays."""
        parts, by_parts, alive, ranks = self.parts, self.by_parts, self.alive, self.ranks
        new_parts = _replace_pair(parts[k], left, right)
        other = by_parts.get(new_parts)
        if other is not None and alive[other] and other != k:  # two merges now alike: keep the lower
            drop, keep = (other, k) if ranks[k] < ranks[other] else (k, other)
            alive[drop] = False
            by_parts[new_parts] = keep
            if keep != k:
                return
        if by_parts.get(parts[k]) == k:
            del by_parts[parts[k]]
        parts[k] = new_parts
        by_parts[new_parts] = k
        if left + right in self.tokeniser.types:
            self.reused.add(left + right)

    def outcome(self) -> tuple[BTETokeniser, list[Merge], list[tuple[Merge, Merge]], set[str]]:
        """What :func:`reify` returns: the new tokeniser, created merges, rewirings, reused types."""
        tokeniser, parts, alive = self.tokeniser, self.parts, self.alive
        merges = tokeniser.merges
        if not self.created and all(alive) and all(parts[k] is merges[k].parts for k in range(len(merges))):
            return tokeniser, [], [], self.reused  # nothing linked or created: the same tokeniser
        provisional = [(Merge(self.ranks[k], parts[k]), target) for k, target in self.created]
        final_ranks = _spread_new_ranks(tokeniser, provisional, self.epsilon)
        out: list[Merge] = []
        rewired: list[tuple[Merge, Merge]] = []
        for k, merge in enumerate(merges):
            if not alive[k]:
                continue
            if parts[k] is merge.parts:
                out.append(merge)
            else:
                after = Merge(merge.rank, parts[k])
                out.append(after)
                rewired.append((merge, after))
        new_merges = [Merge(final_ranks[merge.result], merge.parts) for merge, _ in provisional]
        new = derive(tokeniser, [*out, *new_merges])
        return new, new_merges, rewired, self.reused


def _spread_new_ranks(tokeniser: BTETokeniser, created: list[tuple[Merge, Rank]], epsilon: float) -> dict[str, Rank]:
    """Distinct ranks for new submerges in the gap just below the tuple rank r they precede:
    r - ε for a lone one; several are spread evenly over (max(previous rank, r - 2ε), r). The
    authors give them all r - ε and their BTE then breaks the tie by comparing the space-padded
    part strings (" a b " < " c d "), so we order them the same way."""
    from bisect import bisect_left

    ranks = [m.rank for m in tokeniser.merges]
    groups: dict[Rank, list[str]] = {}
    parts_of = {merge.result: merge.parts for merge, _ in created}
    for merge, target in created:
        groups.setdefault(target, []).append(merge.result)
    out: dict[str, Rank] = {}
    for target, results in groups.items():
        i = bisect_left(ranks, target)
        low = max(ranks[i - 1] if i > 0 else target - 1, target - 2 * epsilon)
        for j, result in enumerate(sorted(results, key=lambda r: f" {' '.join(parts_of[r])} ")):
            out[result] = low + (target - low) * (j + 1) / (len(results) + 1)
    return out


def reification_phase(run: Run, blacklist: set[tuple[str, ...]], config: ReBPEConfig, iteration: int = 0) -> StepReport:
    started = time.perf_counter()
    new, created, rewired, reused = reify(
        run.tokeniser, blacklist, link=config.link, expand=config.expand, epsilon=config.epsilon
    )
    updates = {m.result: REIFIED for m in created}
    updates.update({r: REUSED for r in reused})
    return run.commit(
        "reification",
        iteration,
        new,
        started,
        added=created,
        rewired=rewired,
        details=[{"merge": str(m), "rank": m.rank, "origin": REIFIED} for m in created]
        + [{"merge": str(run.tokeniser.merge_of(r)), "origin": REUSED} for r in sorted(reused)],
        origin_updates=updates,
    )


# --- annealing ([rebpe §3.4]) -----------------------------------------------------------------------
def _pair_counts(
    reference: TokenisedReference,
) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], float], int]:
    """(amenable, all) applications of every adjacent token pair in the reference's segmentations,
    weighted, and how many words have a pair; an application is amenable when the reference has no
    boundary between the two tokens."""
    amenable: dict[tuple[str, str], float] = {}
    total: dict[tuple[str, str], float] = {}
    split_words = 0
    for state in reference.words:
        split = False
        for pretoken, tokens in zip(state.aligned.pretokens, state.segmentations, strict=True):
            offset = 0
            for left, right in pairwise(tokens):
                split = True
                offset += len(left)
                pair = (left, right)
                total[pair] = total.get(pair, 0) + state.weight
                if pretoken.boundary_positions[offset - 1] not in state.gold:
                    amenable[pair] = amenable.get(pair, 0) + state.weight
        split_words += split
    return amenable, total, split_words


def _qualifying(amenable: dict, total: dict, config: AnnealConfig) -> list[dict]:
    rows: list[dict[str, Any]] = [
        {"pair": p, "amenable": a, "total": total[p], "ratio": a / total[p]}
        for p, a in amenable.items()
        if a >= config.min_applications and a / total[p] >= config.min_ratio
    ]
    rows.sort(key=lambda r: (-r["amenable"], -r["ratio"], r["pair"]))
    return rows


def amenable_pairs(reference: TokenisedReference, config: AnnealConfig) -> list[dict]:
    """Adjacent token pairs whose boundary the reference does not want (false-positive splits),
    with at least ``min_applications`` amenable applications and an amenability ratio of at least
    ``min_ratio``, most amenable first."""
    amenable, total, _ = _pair_counts(reference)
    return _qualifying(amenable, total, config)


def _diagnose(
    amenable: dict, total: dict, config: AnnealConfig, words: tuple[int, int], qualifying: int, new: int, added: int
) -> AnnealingDiagnostics:
    """What annealing looked at (the pair counts), and how many pairs each threshold left."""
    counts = [PairCount(p, a, total[p]) for p, a in amenable.items()]
    frequent = [c for c in counts if c.amenable >= config.min_applications]
    return AnnealingDiagnostics(
        min_applications=config.min_applications,
        min_ratio=config.min_ratio,
        max_vocab_size=config.max_vocab_size,
        words=words[0],
        split_words=words[1],
        pairs=len(total),
        amenable=len(counts),
        frequent=len(frequent),
        qualifying=qualifying,
        existing=qualifying - new,
        over_budget=new - added,
        added=added,
        most_amenable=min(counts, key=lambda c: (-c.amenable, -c.ratio, c.pair), default=None),
        best_ratio=min(frequent, key=lambda c: (-c.ratio, -c.amenable, c.pair), default=None),
    )


def annealing_phase(run: Run, config: AnnealConfig, iteration: int = 0) -> StepReport:
    """Append a merge for every qualifying pair that is not yet a type (as many as ``max_vocab_size``
    allows); the report's ``annealing`` says what was looked at and why pairs fell short."""
    started = time.perf_counter()
    tokeniser = run.tokeniser
    types = tokeniser.types
    budget = max(0, config.max_vocab_size - tokeniser.vocab_size)
    amenable, total, split_words = _pair_counts(run.reference)
    qualifying = _qualifying(amenable, total, config)
    new_rows = [r for r in qualifying if "".join(r["pair"]) not in types and all(p in types for p in r["pair"])]
    rows = new_rows[:budget]
    base = math.floor(tokeniser.merges[-1].rank) + 1 if tokeniser.merges else 0
    added = [Merge(base + i, row["pair"]) for i, row in enumerate(rows)]
    new = derive(tokeniser, [*tokeniser.merges, *added]) if added else tokeniser
    details = [
        {"merge": " ".join(r["pair"]), "amenable": r["amenable"], "applications": r["total"], "ratio": r["ratio"]}
        for r in rows
    ]
    words = (len(run.reference.words), split_words)
    diagnostics = _diagnose(amenable, total, config, words, len(qualifying), len(new_rows), len(added))
    return run.commit(
        "annealing",
        iteration,
        new,
        started,
        added=added,
        details=details,
        origin_updates={m.result: ANNEALED for m in added},
        annealing=diagnostics,
    )


# --- the iteration ([rebpe Alg. 1]) ------------------------------------------------------------------
def run_rebpe(
    tokeniser: BTETokeniser,
    reference_entries: Iterable,
    config: ReBPEConfig = ReBPEConfig(),
    *,
    evaluation_entries: Iterable | None = None,
    weights=None,
    free: bool = False,
    progress: Callable[[int, StepReport], None] | None = None,
    on_phase: Callable[[str, int], None] | None = None,
) -> Run:
    """The whole procedure; ``Run.steps`` lists every phase, so the explorer can step back and forth.

    ``evaluation_entries`` (a holdout split) get the metrics; by default the reference itself, as in
    the paper (§4: no holdout). ``progress(iteration, step)`` is told every iteration's knockout step;
    ``on_phase(phase, iteration)`` every phase as it starts: "tracing" (the reference words, before
    any phase, iteration 0), then "annealing", "knockout", "reparation" and "reification".
    """
    tokeniser = require(tokeniser, "merge_graph", "run_rebpe")
    _check_config("config", config, ReBPEConfig)
    reference_entries = check_references(reference_entries, "reference_entries", empty=False)
    if evaluation_entries is not None:
        evaluation_entries = check_references(evaluation_entries, "evaluation_entries", empty=False)
    with cyclic_gc_paused():
        return _run_rebpe(
            tokeniser, reference_entries, config, evaluation_entries, weights, free, progress, on_phase or _no_phase
        )


def _check_config(name: str, config: object, kind: type) -> None:
    if not isinstance(config, kind):
        raise InputError(f"{name} must be a {kind.__name__}, got {described(config)}")


def _no_phase(phase: str, iteration: int) -> None:
    pass


def _run_rebpe(tokeniser, reference_entries, config, evaluation_entries, weights, free, progress, on_phase) -> Run:
    on_phase("tracing", 0)
    reference = TokenisedReference(
        tokeniser, reference_entries, free=free, weights=weights, blame=config.knockout.blame
    )
    evaluation = (
        TokenisedReference(tokeniser, evaluation_entries, free=free, weights=weights, blame="applied")
        if evaluation_entries is not None
        else None
    )
    run = Run(tokeniser, reference, evaluation)
    anneal = config.anneal
    if anneal.when in ("before", "both"):
        on_phase("annealing", 0)
        annealing_phase(run, anneal, 0)
    blacklist: set[tuple[str, ...]] = set()
    pending_knockout = False
    for iteration in range(1, config.max_iterations + 1):
        on_phase("knockout", iteration)
        knocked = knockout_phase(run, config.knockout, iteration)
        pending_knockout = False
        blacklist |= {m.parts for m in knocked.removed}
        if progress is not None:
            progress(iteration, knocked)
        if not config.reify:
            if not knocked.changed:
                break
            continue
        modified = False
        if config.fix:
            on_phase("reparation", iteration)
            modified |= reparation_phase(run, iteration, config.reparation).changed
        if config.link or config.expand:
            on_phase("reification", iteration)
            modified |= reification_phase(run, blacklist, config, iteration).changed
        if not knocked.changed and not modified:
            break
        pending_knockout = modified
    if pending_knockout:
        on_phase("knockout", config.max_iterations + 1)
        knockout_phase(run, config.knockout, config.max_iterations + 1)
    if anneal.when in ("after", "both"):
        last = len({s.iteration for s in run.steps})
        on_phase("annealing", last)
        annealing_phase(run, anneal, last)
    return run


def run_knockout(
    tokeniser: BTETokeniser, reference_entries: Iterable, config: KnockoutConfig = KnockoutConfig(), **kwargs
) -> Run:
    """Plain BPE-knockout: a single knockout phase ([knockout §3])."""
    tokeniser = require(tokeniser, "merge_graph", "run_knockout")
    _check_config("config", config, KnockoutConfig)
    rebpe_config = ReBPEConfig(knockout=config, reify=False, max_iterations=1)
    return run_rebpe(tokeniser, reference_entries, rebpe_config, **kwargs)


__all__ = [
    "BLAME_MODES",
    "KNOCKOUT_UNITS",
    "AnnealConfig",
    "InvariantError",
    "KnockoutConfig",
    "ReBPEConfig",
    "Run",
    "amenable_pairs",
    "annealing_phase",
    "check_edit",
    "knockout_phase",
    "reification_phase",
    "reify",
    "repair",
    "reparation_phase",
    "run_knockout",
    "run_rebpe",
]
