"""Finishing: make an edited tokeniser binary, so that an HF tokenizer.json can hold it.

No paper has this step. Knockout leaves tuple merges ([knockout Alg. 1] lines 8-12, §3.2), ReBPE's
reification turns the ones it can into binary merges ([rebpe Alg. 2] lines 19-52) and leaves the
rest, and HF's BPE model knows binary merges only. Finishing runs, in order:

1. exact: a tuple merge that can never fire (blocked, [rebpe §3.1], :func:`is_blocked`; only the
   sole merge of its type, never an alternative, App. A.2) is dropped: no input segments
   differently. Its type stays in V (and keeps its id) while no merge forms it: it is then an
   unreachable vocabulary entry (a whole pretoken under ``ignore_merges`` still reaches it).
2. ``"intermediates"``: reification without blacklist (Alg. 2 lines 19-52 with every pair
   suggested, repeated until nothing changes) splits each remaining tuple into binary submerges,
   adding the intermediate types it needs; a type that left V earlier in the tokeniser's lineage
   (e.g. the knocked-out ``ab`` of ``a+b+c``) comes back with its old id. Tuples reification cannot
   split (a pair's type exists but is formed otherwise, or later) are then cascaded as in 3.
   ``"cascade"``: every remaining tuple merge goes, with all types built on it ([knockout §3.3]'s
   naive removal, the authors' NONE_CASCADE; :func:`knock_out_merges`).

Steps 2 change segmentations: the intermediates re-add types knockout removed (F1 usually falls),
the cascade removes types (|V| falls). :class:`Finishing` says what changed; the CLI reports the
F1 and |V| it cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Literal, get_args

from core.bpe.model import BTETokeniser, Merge
from core.edits.blocked import is_blocked
from core.edits.knockout import derive, knock_out_merges, retired_ids
from core.edits.rebpe import reify
from core.options import check_choice

FinishMethod = Literal["intermediates", "cascade"]
FINISH_METHODS: tuple[str, ...] = get_args(FinishMethod)
_MAX_ROUNDS = 64  # each reification round shortens every tuple it can by one part or more


@dataclass(frozen=True)
class Finishing:
    """What :func:`finish` did: the blocked tuples dropped (exact), the types added by reification
    and the types removed by the cascade, each with the tuple merges it settled."""

    method: str
    blocked_dropped: tuple[Merge, ...] = ()
    reified: tuple[Merge, ...] = ()  # tuple merges (before) that reification made binary
    types_added: tuple[str, ...] = ()
    cascaded: tuple[Merge, ...] = ()  # tuple merges (before) removed with their descendants
    types_removed: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.blocked_dropped or self.reified or self.cascaded)

    def __repr__(self) -> str:
        return f"<Finishing {self.summary()}>"

    def to_json(self, ids: dict[str, int] | None = None) -> dict:
        """Counts and examples; with ``ids`` the added types with their ids."""
        added = [{"type": t, "id": (ids or {}).get(t)} for t in self.types_added]
        return {
            "method": self.method,
            "blocked_tuples_dropped": len(self.blocked_dropped),
            "tuples_reified": len(self.reified),
            "types_added": len(self.types_added),
            "tuples_cascaded": len(self.cascaded),
            "types_removed": len(self.types_removed),
            "added": added,
            "removed": list(self.types_removed),
        }

    def summary(self) -> str:
        """One line: what finishing did, for the command line and the explorer."""
        parts = [f"{len(self.blocked_dropped)} blocked tuple merges dropped (exact)"]
        if self.method == "intermediates":
            parts.append(f"{len(self.reified)} split by {len(self.types_added)} intermediate types")
        parts.append(f"{len(self.cascaded)} cascaded, removing {len(self.types_removed)} types")
        return "finishing (" + self.method + "): " + ", ".join(parts)


def finish(tokeniser: BTETokeniser, method: str = "intermediates") -> tuple[BTETokeniser, Finishing]:
    """``tokeniser`` with binary merges only (steps 1-2 of the module docstring) and the report."""
    check_choice("method", method, FINISH_METHODS, "finishing")
    if not tokeniser.tuple_merges:
        return tokeniser, Finishing(method)
    tokeniser, blocked = drop_blocked_tuples(tokeniser)
    reified: tuple[Merge, ...] = ()
    added: tuple[str, ...] = ()
    if method == "intermediates" and tokeniser.tuple_merges:
        before = tokeniser
        tokeniser = _reify_all(tokeniser)
        remaining = set(tokeniser.tuple_merges)
        reified = tuple(m for m in before.tuple_merges if m not in remaining)
        added = tuple(m.result for m in tokeniser.merges if m.result not in before.types)
    cascaded = tokeniser.tuple_merges
    removed: tuple[str, ...] = ()
    if cascaded:
        tokeniser, edit = knock_out_merges(tokeniser, cascaded, cascade=True)
        removed = edit.types_removed
    return tokeniser, Finishing(method, blocked, reified, added, cascaded, removed)


def drop_blocked_tuples(tokeniser: BTETokeniser) -> tuple[BTETokeniser, tuple[Merge, ...]]:
    """Step 1: the tuple merges that can never fire left out; a type no remaining merge forms
    stays in V as an alphabet entry (its id kept). Segmentation is unchanged."""
    produced_by = tokeniser.produced_by  # an alternative of a type with several merges may fire elsewhere
    blocked = tuple(m for m in tokeniser.tuple_merges if len(produced_by[m.result]) == 1 and is_blocked(tokeniser, m))
    if not blocked:
        return tokeniser, ()
    gone = set(blocked)
    kept = [m for m in tokeniser.merges if m not in gone]
    formed = {m.result for m in kept}
    leftovers = [m.result for m in blocked if m.result not in formed]
    return derive(tokeniser, kept, alphabet=[*tokeniser.alphabet, *dict.fromkeys(leftovers)]), blocked


def _reify_all(tokeniser: BTETokeniser) -> BTETokeniser:
    """Reification repeated until no tuple is left or a round changes nothing: first linking
    existing submerges only, then re-creating types that left V (their old ids, so the model
    has embeddings for them), then creating any type still needed (fresh ids)."""
    retired = set(retired_ids(tokeniser))
    for expand, only_retired in ((False, False), (True, True), (True, False)):
        for _ in range(_MAX_ROUNDS):
            if not tokeniser.tuple_merges:
                return tokeniser
            blacklist: set[tuple[str, ...]] = (
                {pair for m in tokeniser.tuple_merges for pair in pairwise(m.parts) if "".join(pair) not in retired}
                if only_retired
                else set()
            )
            new, _created, _rewired, _reused = reify(tokeniser, blacklist, expand=expand)
            if new is tokeniser:
                break
            tokeniser = new
    return tokeniser
