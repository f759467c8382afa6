"""Compact ids: renumber an edited tokeniser's tokens 0..n-1, and the map a model needs to follow.

No paper: an edit keeps every surviving id (:func:`core.edits.knockout.derive`), which leaves gaps
where types left V. A model whose embedding matrix is to shrink with the vocabulary wants the ids
without gaps instead; :func:`compact_ids` closes them in id order (so the relative order of all
tokens is kept) and :class:`IdMap` says where every old id went, so the matching rows of the
embedding and output matrices can be taken (``new_rows = old_rows[[old for old in kept]]``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.bpe.model import BTETokeniser


@dataclass(frozen=True)
class IdMap:
    """Old id -> new id (None: the token left the vocabulary), over the ids the source tokeniser
    had (``size_before``); ``added``: the tokens the edit created, with their new ids."""

    old_to_new: tuple[int | None, ...]
    size_after: int
    added: dict[str, int]

    @property
    def size_before(self) -> int:
        return len(self.old_to_new)

    @property
    def kept(self) -> tuple[int, ...]:
        """The old ids still in the vocabulary, in new-id order (the rows a model keeps)."""
        return tuple(old for old, new in enumerate(self.old_to_new) if new is not None)

    def to_json(self) -> dict:
        return {
            "format": "id-map",
            "size_before": self.size_before,
            "size_after": self.size_after,
            "old_to_new": list(self.old_to_new),
            "added": self.added,
        }


def compact_ids(tokeniser: BTETokeniser, source: BTETokeniser) -> tuple[BTETokeniser, IdMap]:
    """``tokeniser`` with ids 0..n-1 in the order of its current ids, and the map from the ids of
    ``source`` (the tokeniser it was edited from) to the new ones."""
    current = tokeniser.token_ids()
    renumbered = {token: new for new, token in enumerate(sorted(current, key=current.__getitem__))}
    source_ids = source.token_ids()
    old_to_new: list[int | None] = [None] * (max(source_ids.values(), default=-1) + 1)
    for token, old in source_ids.items():
        old_to_new[old] = renumbered.get(token)
    added = {token: new for token, new in renumbered.items() if token not in source_ids}
    compacted = tokeniser.with_merges(tokeniser.merges, type_ids=renumbered)
    return compacted, IdMap(tuple(old_to_new), len(renumbered), added)
