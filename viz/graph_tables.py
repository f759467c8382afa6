"""The tables beside the merge graph: the merges forming and using a type (M_i / M_o), and every
merge forming a type with how often each fires."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from core.bpe.graph import is_primary
from core.bpe.model import BTETokeniser, Merge
from viz.graph_tooltips import merge_text
from viz.ranks import rank_text
from viz.tokens import drawn as shown


def mio_rows(
    tokeniser: BTETokeniser,
    type_: str,
    display: Callable[[str], str] | None = None,
    *,
    other: BTETokeniser | None = None,
    other_label: str = "",
    other_is_before: bool = False,
    ids: Mapping[str, int] | None = None,
) -> list[dict]:
    """One row per merge forming ``type_`` (M_i) and per merge using it (M_o), by rank; with ``ids``
    (token -> id), the result's id beside the merge's rank.

    With ``other`` a last column says whether ``other`` has the same merge (same parts). When the
    tokeniser forms some type by several merges, a column says whether each merge is its result's
    primary merge or an alternative (not there with one merge per type).
    """
    display = display or tokeniser.pretokeniser.display
    theirs = {m.parts: m for m in other.merges} if other is not None else {}
    several = bool(tokeniser.multi_merge_types)
    rows = []
    for kind, merges in (
        ("M_i: forms it", tokeniser.produced_by.get(type_, ())),
        ("M_o: uses it", tokeniser.used_by.get(type_, ())),
    ):
        for merge in merges:
            row = {
                "set": kind,
                "rank": rank_text(merge.rank),
                "merge": merge_text(merge, display),
                "result": shown(merge.result, display),
                **({"id": str(ids.get(merge.result, ""))} if ids is not None else {}),
                "parts": len(merge.parts),
                "tuple merge": "yes" if merge.is_tuple else "",
            }
            if several:
                row["forms the result from its own string"] = (
                    "yes (primary)" if is_primary(tokeniser, merge) else "no (alternative)"
                )
            if other is not None:
                match = theirs.get(merge.parts)
                instead = other.primary_merge(merge.result)
                if match is None and other_is_before:
                    row[other_label] = "new (absent before)"
                elif match is None and instead is not None:
                    row[other_label] = f"replaced by {merge_text(instead, display)} ({rank_text(instead.rank)})"
                elif match is None:
                    row[other_label] = "knocked out"
                else:
                    row[other_label] = "same" if match.rank == merge.rank else f"rank {rank_text(match.rank)}"
            rows.append(row)
    return rows


def type_merge_rows(
    tokeniser: BTETokeniser,
    type_: str,
    display: Callable[[str], str] | None = None,
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
) -> list[dict]:
    """Every merge forming ``type_``, the primary one first: rank, parts, primary or alternative,
    and how often each fires (one column per ``fire_counts`` entry)."""
    display = display or tokeniser.pretokeniser.display
    merges = tokeniser.produced_by.get(type_, ())
    primary = tokeniser.primary_merge(type_)
    rows = []
    for merge in sorted(merges, key=lambda m: (m != primary, m.rank)):
        row = {
            "merge": merge_text(merge, display),
            "rank": rank_text(merge.rank),
            "kind": (
                "primary (forms it from its own string)"
                if len(merges) > 1 and merge == primary
                else "its only merge"
                if len(merges) == 1
                else "alternative"
            ),
        }
        if primary == merge and len(merges) > 1 and not tokeniser.self_formed(type_):
            row["kind"] = "lowest rank (its own string does not form it)"
        for name, counts in (fire_counts or {}).items():
            row[f"fires on the {name}"] = counts.get(merge, 0)
        rows.append(row)
    return rows
