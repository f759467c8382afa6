"""Captions, facts and table rows of the Blame & distributions page (pure): the threshold sweep read
off its rows next to what [knockout App. A.3] found, and two tokenisers' token frequencies."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.analysis.compare import Comparison
from core.references.evaluation import MorphScores
from viz.tokens import shown

PAPER_PRECISION_PEAK = 0.5  # [knockout App. A.3]: "precision peaks at 50%" (Fig. 5, Dutch)


def blame_metrics(
    applied: int, n_merges: int, n_words: int, removed: int, p_eff: float, before: MorphScores, after: MorphScores
) -> list[dict]:
    """The four metric cards above the blame figures (``st.metric`` keywords): merges applied,
    knocked out, the effective dropout, and F1 after knockout."""
    change = 100 * (after.f1 - before.f1)
    return [
        {
            "label": "Merges applied",
            "value": f"{applied:,}",
            "delta": f"of {n_merges:,} merges",
            "delta_color": "off",
            "help": "Merges with N(m) ≥ 1: they removed a boundary in at least one of the "
            f"{n_words:,} reference words.",
        },
        {
            "label": "Knocked out |M†|",
            "value": f"{removed:,}",
            "delta": f"{removed / n_merges:.1%} of the merges" if n_merges else None,
            "delta_color": "off",
            "help": "Merges with R(m) ≥ threshold (and B(m) > 0). [knockout Table 8] calls |M†| / |M| the "
            "pruning rate.",
        },
        {
            "label": "Effective dropout",
            "value": f"{p_eff:.2%}",
            "delta": "p_eff,ret (App. A.6)",
            "delta_color": "off",
            "help": "Σ N(m) over the knocked-out merges / Σ N(m) over all merges: the share of merge "
            "applications that knockout makes impossible ([knockout App. A.6, Eq. 2]).",
        },
        {
            "label": "F1 after knockout",
            "value": f"{after.f1:.1%}",
            "delta": f"{change:+.1f} points (was {before.f1:.1%})",
            "delta_color": "normal" if change >= 0 else "inverse",
            "help": f"F1 of the reference's split positions. Precision {before.precision:.1%} → "
            f"{after.precision:.1%}, recall {before.recall:.1%} → {after.recall:.1%}.",
        },
    ]


def highest(rows: list[dict], key: str) -> tuple[float, list[float]]:
    """(the highest ``key``, the thresholds where it is reached)."""
    top = max(r[key] for r in rows)
    return top, [r["threshold"] for r in rows if r[key] == top]


def thresholds_text(thresholds: list[float]) -> str:
    if len(thresholds) == 1:
        return f"t = {thresholds[0]:g}"
    return (
        f"t = {thresholds[0]:g} to {thresholds[-1]:g}"
        if len(thresholds) > 2
        else f"t = {thresholds[0]:g} and {thresholds[1]:g}"
    )


def sweep_caption(rows: list[dict]) -> str:
    """What the sweep figure shows, read off its rows, next to what [knockout App. A.3] found."""
    first, last = rows[0], rows[-1]
    precision, at_p = highest(rows, "precision")
    recall, at_r = highest(rows, "recall")
    f1, at_f = highest(rows, "f1")
    here = (
        f"Here precision goes from {first['precision']:.1%} at t = {first['threshold']:g} to "
        f"{last['precision']:.1%} at t = {last['threshold']:g} and is highest at {thresholds_text(at_p)} "
        f"({precision:.1%}); recall is highest at {thresholds_text(at_r)} ({recall:.1%}) and F1 at "
        f"{thresholds_text(at_f)} ({f1:.1%})."
    )
    near = any(abs(t - PAPER_PRECISION_PEAK) <= 0.05 + 1e-9 for t in at_p)
    paper = "[knockout App. A.3] (Fig. 5, its Dutch tokeniser) found precision peaking near t = 0.5" + (
        ", as here." if near else "; on this tokeniser and reference it does not."
    )
    return (
        "Each threshold starts again from the loaded tokeniser; a low threshold knocks out more merges. "
        + here
        + " "
        + paper
    )


def line_label(n: int, total: int) -> str:
    return f"all {total:,}" if n == total else f"{n:,}"


def token_frequency_rows(
    rows: Sequence[dict], display_a: Callable[[str], str], display_b: Callable[[str], str]
) -> list[dict]:
    """The token frequency differences as table rows, each token shown as the tokeniser that makes it
    shows it."""
    return [
        {
            "token": shown(r["token"], display_a if r["frequency_a"] else display_b),
            "frequency A": r["frequency_a"],
            "frequency B": r["frequency_b"],
            "difference": r["difference"],
        }
        for r in rows
    ]


def frequency_facts(n_words: int, result: Comparison, rows: Sequence[dict], weighted: bool) -> list[tuple[str, str]]:
    """(label, value) facts of tokenisers A and B over ``n_words`` words: how many they segment
    differently (``weighted``: also the share of all occurrences) and how the token types change."""
    facts = [
        ("words", f"{n_words:,}"),
        ("segmented differently", f"{result.differing:,} ({result.share:.1%})"),
        *([("of all occurrences", f"{result.weighted_share:.1%}")] if weighted else []),
        ("token types whose frequency changes", f"{len(rows):,}"),
        ("types only A makes here", f"{sum(1 for r in rows if not r['frequency_b']):,}"),
        ("types only B makes here", f"{sum(1 for r in rows if not r['frequency_a']):,}"),
    ]
    if result.occurrences:
        facts[-3:-3] = [
            ("tokens per word, A", f"{result.tokens_a / result.occurrences:.3f}"),
            ("tokens per word, B", f"{result.tokens_b / result.occurrences:.3f}"),
        ]
    return facts
