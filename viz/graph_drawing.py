"""What one drawing of the merge graph knows, and how a comparison tokeniser differs from the drawn one
(merges absent from it: knocked out, or new after an edit; types re-formed by another merge)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from core.bpe.graph import Neighbourhood
from core.bpe.model import BTETokeniser, Merge
from viz.graph_style import GONE, NEW, REFORMED


def absent_merges(merges: Sequence[Merge], other: BTETokeniser | None) -> set[Merge]:
    """The merges (by parts) that ``other`` does not have; nothing without ``other``."""
    if other is None:
        return set()
    theirs = {m.parts for m in other.merges}
    return {m for m in merges if m.parts not in theirs}


def type_status(
    tokeniser: BTETokeniser, type_: str, other: BTETokeniser | None, absent: set[Merge], other_is_before: bool = False
) -> str:
    """How ``type_`` differs in ``other``: GONE (not a type of ``other``, which comes after an edit),
    NEW (not a type of ``other``, which comes before), REFORMED (a type of both, but the merge
    forming it here is absent there), or "" (the same)."""
    if other is None:
        return ""
    if type_ not in other.types:
        return NEW if other_is_before else GONE
    merge = tokeniser.primary_merge(type_)
    return REFORMED if merge is not None and merge in absent else ""


@dataclass(frozen=True, slots=True)
class Drawing:
    """What every node and edge of one :func:`viz.graph_elements.graph_elements` call needs."""

    tokeniser: BTETokeniser
    hood: Neighbourhood
    display: Callable[[str], str]
    other: BTETokeniser | None
    other_label: str
    other_is_before: bool
    fire_counts: Mapping[str, Mapping[Merge, int]] | None
    absent: set[Merge]
    levels: dict[str, int]
    scale: int
    ids: Mapping[str, int] = field(default_factory=dict)  # token ids, beside the ranks in the tooltips

    def id_note(self, type_: str) -> str:
        """`` · id 4037`` after a type in a tooltip (empty when its id is unknown)."""
        return f" · id {self.ids[type_]}" if type_ in self.ids else ""

    @property
    def absent_text(self) -> str:
        if self.other_is_before:
            return f"new: not in {self.other_label}"
        return f"knocked out: absent from {self.other_label}"
