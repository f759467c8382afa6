"""The words of the merge graph: tooltips of type nodes, merge nodes and arrows (every merge of a type,
primary first, with how often each fires on the reference and the corpus: ``fire_counts``, from
:mod:`core.analysis.merge_usage`), and how a type differs in a comparison tokeniser. Plain text:
vis-network shows string tooltips as text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from core.bpe.graph import Neighbourhood
from core.bpe.model import BTETokeniser, Merge
from viz.graph_drawing import Drawing
from viz.graph_style import GONE, NEW, OTHER, REFORMED, ROLE_TEXT
from viz.ranks import rank_help, rank_text
from viz.tokens import code_points
from viz.tokens import drawn as shown


def merge_text(merge: Merge, display: Callable[[str], str]) -> str:
    return " + ".join(shown(p, display) for p in merge.parts)


def fires_text(merge: Merge, fire_counts: Mapping[str, Mapping[Merge, int]] | None) -> str:
    """``fires 12× on the reference, 3× on the corpus`` (empty without counts)."""
    if not fire_counts:
        return ""
    return "fires " + ", ".join(f"{counts.get(merge, 0):,}× on the {name}" for name, counts in fire_counts.items())


def merges_lines(
    tokeniser: BTETokeniser,
    type_: str,
    display: Callable[[str], str],
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
) -> list[str]:
    """Tooltip lines: the merge forming ``type_`` (its primary one) and its alternatives, with counts."""
    merges = tokeniser.produced_by.get(type_, ())
    if not merges:
        return []
    primary = tokeniser.primary_merge(type_)
    lines = []
    for merge in sorted(merges, key=lambda m: (m != primary, m.rank)):
        kind = "tuple merge" if merge.is_tuple else "merge"
        fires = fires_text(merge, fire_counts)
        fires = f" ({fires})" if fires else ""
        if len(merges) == 1:
            lines.append(f"formed by {kind} {rank_text(merge.rank)}: {merge_text(merge, display)}{fires}")
        elif merge == primary:
            lines.append(
                f"formed by {kind} {rank_text(merge.rank)}: {merge_text(merge, display)} — primary: fires on "
                f"its own string{fires}"
            )
            lines.append(f"{len(merges) - 1} alternative{'s' if len(merges) > 2 else ''}:")
        else:
            lines.append(f"  alt {rank_text(merge.rank)}: {merge_text(merge, display)}{fires}")
    return lines


def type_title(
    type_: str,
    role: str,
    tokeniser: BTETokeniser,
    hood: Neighbourhood,
    display: Callable[[str], str],
    status: str,
    fire_counts: Mapping[str, Mapping[Merge, int]] | None = None,
    ids: Mapping[str, int] | None = None,
) -> str:
    """A type's tooltip: the type and its id, its role, the merges forming it (labelled ``merge #rank``,
    so the id is not read as a rank), how many merges use it, how it differs in a comparison."""
    ids = ids or {}
    lines = [shown(type_, display) + (f" · id {ids[type_]}" if type_ in ids else "")]
    if role == OTHER:
        lines.append("outside the neighbourhood: a part of a merge shown here")
    else:
        lines.append(f"{ROLE_TEXT[role]} · distance {hood.distances.get(type_, 0)}")
    formed = merges_lines(tokeniser, type_, display, fire_counts)
    if formed:
        lines.extend(formed)
    elif type_ in tokeniser.alphabet:
        lines.append("an alphabet symbol (no merge forms it)")
    used = len(tokeniser.used_by.get(type_, ()))
    lines.append(f"used by {used:,} merge{'' if used == 1 else 's'}")
    if status:
        lines.append(status)
    lines.append(code_points(type_))
    lines.append("click: centre the graph on this type")
    return "\n".join(lines)


def alternative_text(tokeniser: BTETokeniser, result: str, display: Callable[[str], str]) -> str:
    primary = tokeniser.primary_merge(result)
    return f"an alternative: {shown(result, display)}'s own string is formed by {merge_text(primary, display)}"


def status_text(drawing: Drawing, type_: str, status: str) -> str:
    """The tooltip line saying how ``type_`` differs in the comparison tokeniser."""
    if status == GONE:
        return f"knocked out: not a type of {drawing.other_label}"
    if status == NEW:
        return f"new: not a type of {drawing.other_label}"
    if status == REFORMED:
        theirs = drawing.other.primary_merge(type_) if drawing.other is not None else None
        their_merge = f" ({merge_text(theirs, drawing.display)})" if theirs is not None else ""
        return f"re-formed: {drawing.other_label} forms this type with another merge{their_merge}"
    return ""


def merge_title(drawing: Drawing, merge: Merge, alternative: bool, gone: bool) -> str:
    """The tooltip of a merge node: rank, parts and result, primary or alternative, counts, absence."""
    display, result = drawing.display, merge.result
    title = [
        f"{'tuple merge' if merge.is_tuple else 'merge'} {rank_text(merge.rank)}",
        f"{merge_text(merge, display)} → {shown(result, display)}{drawing.id_note(result)}",
    ]
    if rank_help(merge.rank):  # placed by reification between two integer ranks
        title.append(rank_help(merge.rank))
    several = len(drawing.tokeniser.produced_by.get(result, ()))
    if alternative:
        title.append(alternative_text(drawing.tokeniser, result, display))
    elif several > 1:
        title.append(
            f"primary: forms {shown(result, display)} from its own string "
            f"({several - 1} alternative{'s' if several > 2 else ''})"
        )
    if drawing.fire_counts:
        title.append(fires_text(merge, drawing.fire_counts))
    if gone:
        title.append(drawing.absent_text)
    title.append("click: centre the graph on its result")
    return "\n".join(title)


def type_edge_title(
    drawing: Drawing,
    result: str,
    rank: float,
    merge: Merge | None,
    extras: Sequence[Merge],
    *,
    is_tuple: bool,
    alternative: bool,
    gone: bool,
) -> str:
    """The tooltip of a part -> result arrow: ``merge`` and the ``extras`` it also stands for, an
    alternative's primary merge, counts, absence."""
    display = drawing.display
    title = f"{'tuple merge' if is_tuple else 'merge'} {rank_text(rank)}"
    if merge is not None:
        title += f": {merge_text(merge, display)} → {shown(result, display)}{drawing.id_note(result)}"
    for extra in extras:
        title += f"\nmerge {rank_text(extra.rank)}: {merge_text(extra, display)} → {shown(result, display)}"
    if alternative:
        title += "\n" + alternative_text(drawing.tokeniser, result, display)
    if drawing.fire_counts and merge is not None:
        title += "\n" + fires_text(merge, drawing.fire_counts)
    if gone:
        title += f"\n{drawing.absent_text}"
    return title
