"""Diagnostics of knockout and ReBPE runs, as the papers report them.

- metrics after every phase ([rebpe Table 4 / App. D]), vocabulary size per iteration, the
  merges changed per iteration by origin and the merges knocked out by origin ([rebpe Fig. 3-4]);
- the retrospective effective dropout rate p_eff,ret = Σ_{m∈M†} N(m) / Σ_{m∈M} N(m)
  ([knockout App. A.6, Eq. 2]);
- the change in tokens per word (App. A.4, Fig. 4) and the rank distribution of knocked-out
  merges (Fig. 6);
- the threshold sweep of App. A.3 (Fig. 5): merges removed and Pr/Re/F1 per blame threshold.

With several merges per type the sweep knocks out as knockout does (``unit="type"``: Σ B / Σ N
over a type's merges; ``unit="merge"``: merge by merge, see ``core.edits.knockout``); with one merge per
type both are the paper's sweep.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from core.bpe.model import BTETokeniser, Merge
from core.edits.blame import MergeBlame, compute_blame, select_for_knockout, select_types_for_knockout
from core.edits.knockout import knock_out, knock_out_merges
from core.edits.reference_state import TokenisedReference
from core.edits.steps import ORIGINS, PREEXISTING, StepReport
from core.references.evaluation import morph_scores, predicted_splits, split_counts


def metrics_table(steps: Sequence[StepReport], initial=None) -> list[dict]:
    """One row per phase: iteration, phase, |V|, tuple merges, Pr, Re, F1 and the change in F1."""
    rows = []
    previous = initial.f1 if initial is not None else None
    if initial is not None:
        rows.append(
            {
                "iteration": 0,
                "phase": "BPE",
                "vocab_size": None,
                "tuple_merges": None,
                "precision": initial.precision,
                "recall": initial.recall,
                "f1": initial.f1,
                "delta_f1": None,
            }
        )
    for step in steps:
        m = step.metrics  # None: a step scored on nothing, a row without scores
        rows.append(
            {
                "iteration": step.iteration,
                "phase": step.phase,
                "vocab_size": step.vocab_size,
                "tuple_merges": step.tuple_merges,
                "precision": None if m is None else m.precision,
                "recall": None if m is None else m.recall,
                "f1": None if m is None else m.f1,
                "delta_f1": None if previous is None or m is None else m.f1 - previous,
            }
        )
        if m is not None:
            previous = m.f1
    return rows


def changes_by_origin(steps: Sequence[StepReport]) -> list[dict]:
    """Per step: merges removed, and merges added or rewired counted by their origin (Fig. 4)."""
    return [{"iteration": s.iteration, "phase": s.phase, "removed": len(s.removed), **s.origin_counts()} for s in steps]


def knocked_out_by_origin(steps: Sequence[StepReport]) -> list[dict]:
    """Per knockout step: the merges it removed, by how they came into existence (Fig. 4)."""
    rows: list[dict] = []
    origins: Mapping[str, str] = {}  # merge result -> origin before the step
    for step in steps:
        if step.phase == "knockout":
            counts = dict.fromkeys(ORIGINS, 0)
            for merge in step.removed:
                counts[origins.get(merge.result, PREEXISTING)] += 1
            rows.append({"iteration": step.iteration, **counts})
        origins = step.origins
    return rows


def vocab_size_per_iteration(steps: Sequence[StepReport]) -> dict[int, int]:
    """|V| at the end of each iteration (Fig. 3)."""
    sizes: dict[int, int] = {}
    for step in steps:
        sizes[step.iteration] = step.vocab_size
    return sizes


def effective_dropout(blames: dict[Merge, MergeBlame], knocked: Iterable[Merge]) -> float:
    """p_eff,ret of App. A.6, Eq. 2, with N(m) from the trace before knockout."""
    knocked = set(knocked)
    total = sum(b.applications for b in blames.values())
    return sum(blames[m].applications for m in knocked if m in blames) / total if total else 0.0


def tokens_per_word_change(before: BTETokeniser, after: BTETokeniser, words: Iterable[str]) -> Counter:
    """Histogram of len(after tokens) - len(before tokens) over ``words`` (App. A.4, Fig. 4)."""
    return Counter(len(after.tokenise_word(w)) - len(before.tokenise_word(w)) for w in words)


def knocked_out_ranks(tokeniser: BTETokeniser, knocked: Iterable[Merge]) -> list[int]:
    """0-based positions in the merge list of the knocked-out merges (Fig. 6 histograms)."""
    return sorted(tokeniser.merge_index[m] for m in knocked)


def threshold_sweep(
    reference: TokenisedReference, thresholds: Sequence[float], *, tuples_once: bool = False, unit: str = "type"
) -> list[dict]:
    """Knock out at each threshold from the same starting tokeniser; merges removed and Pr/Re/F1.

    Blame is computed once; for each threshold only the words where a knocked-out merge fired are
    re-segmented.
    """
    tokeniser = reference.tokeniser
    blames = compute_blame(reference, tuples_once=tuples_once)
    base = [(s.tp, s.fp, s.fn) for s in reference.words]
    rows = []
    for threshold in thresholds:
        if unit == "type":
            types = select_types_for_knockout(blames, tokeniser, threshold)
            knocked_tok, edit = knock_out(tokeniser, [b.type for b in types])
        else:
            merges = select_for_knockout(blames, threshold)
            knocked_tok, edit = knock_out_merges(tokeniser, [b.merge for b in merges])
        affected: set[int] = set()
        for merge in edit.removed:
            affected |= reference.index.get(merge, set())
        owners = reference.pretokens.owners
        for type_ in edit.types_removed if tokeniser.ignore_merges else ():
            affected |= owners.get(type_, set())
        counts = list(base)
        for i in affected:
            state = reference.words[i]
            counts[i] = split_counts(predicted_splits(knocked_tok, state.aligned), state.gold)
        scores = morph_scores(
            ((w.weight, *c) for w, c in zip(reference.words, counts, strict=True)), len(reference.unaligned)
        )
        rows.append(
            {
                "threshold": threshold,
                "removed": len(edit.removed),
                "precision": scores.precision,
                "recall": scores.recall,
                "f1": scores.f1,
                "excluded": scores.excluded,
            }
        )
    return rows
