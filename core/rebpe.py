"""ReBPE: annealing, knockout, reparation and reification, iterated until nothing changes.

rebpe.txt Alg. 1 (iteration, §3.3) and Alg. 2 (reification phase: reparation lines 2-15 (§3.1),
discovery of binary submerges lines 18-26, their insertion lines 27-52 (§3.2)), annealing (§3.4),
with the details resolved as the authors' implementation does (shared/research/
bpe-knockout-peer.md §3-5): knockout of every merge with R(m) >= ½ in one batch; reification
pairs processed by the number of tuple merges containing them (most first); an existing submerge
is linked only if it is exactly (p1, p2) and ranked before the tuple; a new submerge gets rank
r - ε before the earliest tuple it serves (ε = 0.001); annealing keeps pairs with at least 3
amenable applications and an amenability ratio of at least 0.8, appended after the last merge.
Every phase is a pure function of a tokeniser returning a new tokeniser and a StepReport; the
shared TokenisedReference only caches traces (re-tracing just the words an edit can change).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Iterable

from core.blame import compute_blame, select_for_knockout
from core.gc_pause import cyclic_gc_paused
from core.knockout import knock_out
from core.model import BTETokeniser, Merge, Rank
from core.reference_state import TokenisedReference
from core.segmentation import SegmentationEngine
from core.steps import ANNEALED, KNOCKOUT, PREEXISTING, REIFIED, REPAIRED, REUSED, StepReport

EPSILON = 0.001


@dataclass(frozen=True)
class KnockoutConfig:
    threshold: float = 0.5          # knock out merges with B/N >= threshold
    min_vocab_size: int = 0         # never shrink V below this
    tuples_once: bool = False       # count each merge at most once per word
    cascade: bool = False           # remove descendants instead of making tuple merges (NONE_CASCADE)


@dataclass(frozen=True)
class AnnealConfig:
    when: str = "none"              # "none" | "before" | "after" | "both"
    min_applications: int = 3       # absolute minimum of amenable applications
    min_ratio: float = 0.8          # minimum amenable / total
    max_vocab_size: int = 1_000_000


@dataclass(frozen=True)
class ReBPEConfig:
    knockout: KnockoutConfig = field(default_factory=KnockoutConfig)
    anneal: AnnealConfig = field(default_factory=AnnealConfig)
    reify: bool = True              # Alg. 1 "reify?"
    fix: bool = True                # Alg. 2 "fix?" (reparation)
    reparation: str = "limited"     # "limited" (Alg. 2 as written) or "undo" (the authors' code)
    link: bool = True               # Alg. 2 "link?" (use existing submerges)
    expand: bool = True             # Alg. 2 "expand?" (create new submerges; not backwards compatible)
    max_iterations: int = 100
    epsilon: float = EPSILON


class Run:
    """Book-keeping shared by the phases of one run: the traced reference and merge origins."""

    def __init__(self, tokeniser: BTETokeniser, reference: TokenisedReference, evaluation: TokenisedReference | None = None):
        self.tokeniser = tokeniser
        self.reference = reference
        self.evaluation = evaluation or reference
        self.origins: dict[str, str] = {m.result: PREEXISTING for m in tokeniser.merges}
        self.steps: list[StepReport] = []

    def commit(self, phase: str, iteration: int, new: BTETokeniser, started: float, *, removed=(), added=(),
               rewired=(), details=(), origin_updates: dict[str, str] | None = None) -> StepReport:
        """Switch to ``new``, re-trace what can change and record the step."""
        old = self.tokeniser
        changed = self.evaluation.update(new)
        if self.reference is not self.evaluation:
            self.reference.update(new)
        for merge in removed:
            self.origins.pop(merge.result, None)
        self.origins.update(origin_updates or {})
        self.tokeniser = new
        step = StepReport(
            phase=phase, iteration=iteration, removed=tuple(removed), added=tuple(added), rewired=tuple(rewired),
            types_removed=tuple(sorted(old.types - new.types)), types_added=tuple(sorted(new.types - old.types)),
            changed_words=tuple((self.evaluation.words[i].word, before, self.evaluation.words[i].tokens)
                                for i, before in changed),
            metrics=self.evaluation.scores(), vocab_size=new.vocab_size, tuple_merges=len(new.tuple_merges),
            origins=dict(self.origins), details=list(details), seconds=time.perf_counter() - started,
            tokeniser=new,
        )
        self.steps.append(step)
        return step


# --- knockout (bpe-knockout.txt §3.3-3.4) -----------------------------------------------------------
def knockout_phase(run: Run, config: KnockoutConfig, iteration: int = 0) -> StepReport:
    started = time.perf_counter()
    tokeniser = run.tokeniser
    blames = compute_blame(run.reference, tuples_once=config.tuples_once)
    selected = select_for_knockout(blames, config.threshold,
                                   max_removals=max(0, len(tokeniser.types) - config.min_vocab_size))
    new, edit = knock_out(tokeniser, [b.merge.result for b in selected], cascade=config.cascade)
    updates = {after.result: KNOCKOUT for _, after in edit.rewired}
    return run.commit("knockout", iteration, new, started, removed=edit.removed, rewired=edit.rewired,
                      details=[b.to_json() for b in selected], origin_updates=updates)


# --- reparation (rebpe.txt §3.1, Alg. 2 lines 2-15) -----------------------------------------------------
def _tokens_before_rank(engine: SegmentationEngine, string: str, rank: Rank) -> tuple[str, ...]:
    """The authors' reconstruction of the tokens just before rank r: segment ``string`` with every
    merge, then undo the boundaries removed by merges ranked r or later."""
    _, boundaries = engine.boundary_trace(string)
    cuts = [k + 1 for k, merge in enumerate(boundaries) if merge is None or merge.rank >= rank]
    return tuple(string[i:j] for i, j in zip([0, *cuts], [*cuts, len(string)]))


def repair(tokeniser: BTETokeniser, mode: str = "limited") -> tuple[BTETokeniser, list[tuple[Merge, Merge]]]:
    """Replace the parts of every tuple merge by the tokens found on its string before its rank.

    ``mode="limited"`` is Alg. 2 lines 2-15 as written: LIMITEDBPE(s, rank(m)), with earlier
    repairs already in place. ``mode="undo"`` is what the authors' implementation does (and
    reproduces its repair counts): segment s with the tokeniser as it was before the phase, then
    undo the merges ranked at or after m. The two differ when a merge ranked after m fires first
    and enables a lower-ranked one.
    """
    if mode not in ("limited", "undo"):
        raise ValueError(f"unknown reparation mode {mode!r}")
    # LIMITEDBPE sees earlier repairs, so it needs an engine of its own; "undo" only reads.
    engine = SegmentationEngine(tokeniser.merges) if mode == "limited" else tokeniser.engine
    repaired = []
    for merge in tokeniser.merges:
        if not merge.is_tuple:
            continue
        if mode == "limited":
            tokens = engine.segment_limited(merge.result, merge.rank)
        else:
            tokens = _tokens_before_rank(engine, merge.result, merge.rank)
        if tokens != merge.parts and len(tokens) >= 2:
            fixed = Merge(merge.rank, tokens)
            if mode == "limited":
                engine.replace_merge(merge, fixed)
            repaired.append((merge, fixed))
    if not repaired:
        return tokeniser, []
    fixes = {old: new for old, new in repaired}
    return tokeniser.with_merges([fixes.get(m, m) for m in tokeniser.merges]), repaired


def reparation_phase(run: Run, iteration: int = 0, mode: str = "limited") -> StepReport:
    started = time.perf_counter()
    new, repaired = repair(run.tokeniser, mode)
    return run.commit("reparation", iteration, new, started, rewired=repaired,
                      origin_updates={after.result: REPAIRED for _, after in repaired})


# --- reification (rebpe.txt §3.2, Alg. 2 lines 18-52) --------------------------------------------------
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


def reify(tokeniser: BTETokeniser, blacklist: set[tuple[str, ...]], *, link: bool = True, expand: bool = True,
          epsilon: float = EPSILON) -> tuple[BTETokeniser, list[Merge], list[tuple[Merge, Merge]], set[str]]:
    """Link or create binary submerges inside tuple merges.

    Returns the new tokeniser, the created merges, the (tuple before, tuple after) rewirings and
    the results of existing merges that were linked (reused).
    """
    parts_of: dict[str, tuple[str, ...]] = {m.result: m.parts for m in tokeniser.merges}
    rank_of: dict[str, Rank] = {m.result: m.rank for m in tokeniser.merges}
    suggestions: dict[tuple[str, str], list[str]] = {}
    for merge in tokeniser.tuple_merges:  # lines 19-26
        for pair in zip(merge.parts, merge.parts[1:]):
            if pair not in blacklist:
                suggestions.setdefault(pair, [])
                if merge.result not in suggestions[pair]:
                    suggestions[pair].append(merge.result)
    order = sorted(suggestions, key=lambda p: (-len(suggestions[p]), min(rank_of[t] for t in suggestions[p])))
    types = set(tokeniser.types)
    created: list[tuple[Merge, Rank]] = []  # (merge with provisional rank, rank of the tuple it precedes)
    reused: set[str] = set()
    for left, right in order:  # lines 28-52
        result = left + right
        tuples = [t for t in suggestions[(left, right)]
                  if any(a == left and b == right for a, b in zip(parts_of[t], parts_of[t][1:]))]
        if not tuples:
            continue
        if result not in types:
            if not expand:
                continue
            target = min(rank_of[t] for t in tuples)
            rank: Rank = target - epsilon
            types.add(result)
            parts_of[result], rank_of[result] = (left, right), rank
            created.append((Merge(rank, (left, right)), target))
        else:
            if not link or parts_of.get(result) != (left, right):
                continue
            rank = rank_of[result]
        for t in tuples:
            if rank < rank_of[t]:
                parts_of[t] = _replace_pair(parts_of[t], left, right)
                if result in tokeniser.types:
                    reused.add(result)
    if not created and all(parts_of[m.result] == m.parts for m in tokeniser.tuple_merges):
        return tokeniser, [], [], reused  # nothing linked or created: the same tokeniser
    final_ranks = _spread_new_ranks(tokeniser, created, epsilon)
    for merge, _ in created:
        rank_of[merge.result] = final_ranks[merge.result]
    before = {m.result: m for m in tokeniser.merges}
    merges = [before[r] if r in before and before[r].parts == parts else Merge(rank_of[r], parts)
              for r, parts in parts_of.items()]
    rewired = [(before[m.result], m) for m in sorted(merges, key=lambda m: m.rank)
               if m.result in before and before[m.result] is not m]
    new_merges = [Merge(final_ranks[m.result], m.parts) for m, _ in created]
    return tokeniser.with_merges(merges), new_merges, rewired, reused


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
    new, created, rewired, reused = reify(run.tokeniser, blacklist, link=config.link, expand=config.expand,
                                          epsilon=config.epsilon)
    updates = {m.result: REIFIED for m in created}
    updates.update({r: REUSED for r in reused})
    return run.commit("reification", iteration, new, started, added=created, rewired=rewired,
                      details=[{"merge": str(m), "rank": m.rank, "origin": REIFIED} for m in created]
                      + [{"merge": str(run.tokeniser.merge_of(r)), "origin": REUSED} for r in sorted(reused)],
                      origin_updates=updates)


# --- annealing (rebpe.txt §3.4) -----------------------------------------------------------------------
def amenable_pairs(reference: TokenisedReference, config: AnnealConfig) -> list[dict]:
    """Adjacent token pairs whose boundary the reference does not want (false-positive splits)."""
    amenable: dict[tuple[str, str], float] = {}
    total: dict[tuple[str, str], float] = {}
    for state in reference.words:
        for pretoken, tokens in zip(state.aligned.pretokens, state.segmentations):
            offset = 0
            for left, right in zip(tokens, tokens[1:]):
                offset += len(left)
                pair = (left, right)
                total[pair] = total.get(pair, 0) + state.weight
                if pretoken.boundary_positions[offset - 1] not in state.gold:
                    amenable[pair] = amenable.get(pair, 0) + state.weight
    rows = [{"pair": p, "amenable": a, "total": total[p], "ratio": a / total[p]} for p, a in amenable.items()
            if a >= config.min_applications and a / total[p] >= config.min_ratio]
    rows.sort(key=lambda r: (-r["amenable"], -r["ratio"], r["pair"]))
    return rows


def annealing_phase(run: Run, config: AnnealConfig, iteration: int = 0) -> StepReport:
    started = time.perf_counter()
    tokeniser = run.tokeniser
    budget = max(0, config.max_vocab_size - tokeniser.vocab_size)
    rows = [r for r in amenable_pairs(run.reference, config)
            if "".join(r["pair"]) not in tokeniser.types and all(p in tokeniser.types for p in r["pair"])][:budget]
    base = math.floor(tokeniser.merges[-1].rank) + 1 if tokeniser.merges else 0
    added = [Merge(base + i, row["pair"]) for i, row in enumerate(rows)]
    new = tokeniser.with_merges([*tokeniser.merges, *added]) if added else tokeniser
    details = [{"merge": " ".join(r["pair"]), "amenable": r["amenable"], "applications": r["total"],
                "ratio": r["ratio"]} for r in rows]
    return run.commit("annealing", iteration, new, started, added=added, details=details,
                      origin_updates={m.result: ANNEALED for m in added})


# --- the iteration (rebpe.txt Alg. 1) ------------------------------------------------------------------
def run_rebpe(tokeniser: BTETokeniser, reference_entries: Iterable, config: ReBPEConfig = ReBPEConfig(), *,
              evaluation_entries: Iterable | None = None, weights=None, free: bool = False,
              progress=None) -> Run:
    """The whole procedure; ``Run.steps`` lists every phase, so the explorer can step back and forth.

    ``evaluation_entries`` (a holdout split) get the metrics; by default the reference itself, as in
    the paper (§4: no holdout).
    """
    with cyclic_gc_paused():
        return _run_rebpe(tokeniser, reference_entries, config, evaluation_entries, weights, free, progress)


def _run_rebpe(tokeniser, reference_entries, config, evaluation_entries, weights, free, progress) -> Run:
    reference = TokenisedReference(tokeniser, reference_entries, free=free, weights=weights)
    evaluation = (TokenisedReference(tokeniser, evaluation_entries, free=free, weights=weights)
                  if evaluation_entries is not None else None)
    run = Run(tokeniser, reference, evaluation)
    anneal = config.anneal
    if anneal.when in ("before", "both"):
        annealing_phase(run, anneal, 0)
    blacklist: set[tuple[str, ...]] = set()
    pending_knockout = False
    for iteration in range(1, config.max_iterations + 1):
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
            modified |= reparation_phase(run, iteration, config.reparation).changed
        if config.link or config.expand:
            modified |= reification_phase(run, blacklist, config, iteration).changed
        if not knocked.changed and not modified:
            break
        pending_knockout = modified
    if pending_knockout:
        knockout_phase(run, config.knockout, config.max_iterations + 1)
    if anneal.when in ("after", "both"):
        annealing_phase(run, anneal, len({s.iteration for s in run.steps}))
    return run


def run_knockout(tokeniser: BTETokeniser, reference_entries: Iterable, config: KnockoutConfig = KnockoutConfig(),
                 **kwargs) -> Run:
    """Plain BPE-knockout: a single knockout phase (bpe-knockout.txt §3)."""
    rebpe_config = ReBPEConfig(knockout=config, reify=False, max_iterations=1)
    return run_rebpe(tokeniser, reference_entries, rebpe_config, **kwargs)


__all__ = ["ReBPEConfig", "KnockoutConfig", "AnnealConfig", "Run", "run_rebpe", "run_knockout", "repair", "reify",
           "knockout_phase", "reparation_phase", "reification_phase", "annealing_phase", "amenable_pairs"]
