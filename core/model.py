"""The BTE tokeniser model: types V, ranked merges M and the indexes M_i / M_o.

Implements bpe-knockout.txt §3.1 (BPE as a merge graph (V, M_i, M_o): every merge is a vertex
(i, (x_1, ..., x_n)) with a priority i) and §3.2 (byte-tuple encoding: a merge may have two *or
more* parts). Ranks may be fractional (ReBPE reification inserts merges at rank r - ε, rebpe.txt
§3.2 and Alg. 2), so a rank is an ``int`` or a ``float``.

A tokeniser is immutable: edits (knockout, reparation, reification, ...) build a new one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING, Iterable, Mapping

from core.errors import InputError

if TYPE_CHECKING:
    from core.pretokenisers.base import Pretokeniser
    from core.segmentation import SegmentationEngine, SegmentationTrace
    from core.variants.base import Trace

Rank = int | float


@dataclass(frozen=True)
class Merge:
    """A merge (rank, (p_1, ..., p_n)) -> p_1 ... p_n; a *tuple merge* when n > 2 (§3.2)."""

    rank: Rank
    parts: tuple[str, ...]
    # Derived once: read millions of times on hot paths (tracing, blame, engine tables).
    result: str = field(init=False, repr=False, compare=False)
    is_tuple: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "result", "".join(self.parts))
        object.__setattr__(self, "is_tuple", len(self.parts) > 2)

    def __hash__(self) -> int:
        # Merges are dictionary keys on hot paths (blame, indexes); hash the fields once.
        try:
            return self._hash
        except AttributeError:
            value = hash((self.rank, self.parts))
            object.__setattr__(self, "_hash", value)
            return value

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, Merge) and self.rank == other.rank and self.parts == other.parts

    def __reduce__(self):
        # The cached hash depends on the process's string-hash seed: never pickle it.
        return (Merge, (self.rank, self.parts))

    def __str__(self) -> str:
        return " ".join(self.parts)


class BTETokeniser:
    """A BPE/BTE tokeniser: alphabet, merges sorted by rank, a pre-tokeniser.

    ``type_ids`` optionally keeps the ids of a loaded vocabulary (so HF files round-trip);
    ``specials`` are tokens outside the merge graph (``<s>``, ``<pad>`` ...). With
    ``ignore_merges`` a pretoken that is itself a type is returned whole (HF's option).
    ``metadata`` is free-form description (source, licence, the scenario a sample illustrates).
    """

    def __init__(
        self,
        alphabet: Iterable[str],
        merges: Iterable[Merge],
        pretokeniser: "Pretokeniser",
        *,
        specials: Iterable[str] = (),
        type_ids: Mapping[str, int] | None = None,
        ignore_merges: bool = False,
        name: str = "",
        metadata: dict | None = None,
    ):
        self.alphabet: tuple[str, ...] = tuple(dict.fromkeys(alphabet))
        self.merges: tuple[Merge, ...] = tuple(sorted(merges, key=attrgetter("rank")))
        self.pretokeniser = pretokeniser
        self.specials: tuple[str, ...] = tuple(specials)
        self.type_ids: dict[str, int] | None = dict(type_ids) if type_ids is not None else None
        self.ignore_merges = ignore_merges
        self.name = name
        self.metadata: dict = dict(metadata or {})
        self._validate_merges()

    def _validate_merges(self) -> None:
        merges = self.merges
        parts = [m.parts for m in merges]
        if (len(set(map(attrgetter("rank"), merges))) == len(merges) and len(set(parts)) == len(merges)
                and min(map(len, parts), default=2) >= 2 and all(map(all, parts))):
            return  # the common case, checked at C speed; otherwise find the culprit below
        seen_ranks: dict[Rank, Merge] = {}
        seen_parts: dict[tuple[str, ...], Merge] = {}
        for merge in merges:
            if len(merge.parts) < 2 or any(not p for p in merge.parts):
                raise InputError(f"merge {merge.parts!r} at rank {merge.rank} needs two or more non-empty parts")
            if merge.rank in seen_ranks:
                raise InputError(f"merges '{seen_ranks[merge.rank]}' and '{merge}' share rank {merge.rank}")
            if merge.parts in seen_parts:
                raise InputError(
                    f"merge '{merge}' appears twice (ranks {seen_parts[merge.parts].rank} and {merge.rank})"
                )
            seen_ranks[merge.rank] = merge
            seen_parts[merge.parts] = merge

    # --- the merge graph (bpe-knockout.txt §3.1) -------------------------------------------
    @cached_property
    def types(self) -> frozenset[str]:
        """V: the alphabet plus every merge result."""
        return frozenset(self.alphabet) | {m.result for m in self.merges}

    @property
    def vocab_size(self) -> int:
        """|V| plus special tokens, as HF counts a vocabulary."""
        return len(self.types) + len(set(self.specials) - self.types)

    @cached_property
    def produced_by(self) -> dict[str, tuple[Merge, ...]]:
        """M_i(t): the merges whose result is t."""
        index: dict[str, list[Merge]] = {}
        for merge in self.merges:
            index.setdefault(merge.result, []).append(merge)
        return {t: tuple(ms) for t, ms in index.items()}

    @cached_property
    def used_by(self) -> dict[str, tuple[Merge, ...]]:
        """M_o(t): the merges that have t as a part (each merge listed once)."""
        index: dict[str, list[Merge]] = {}
        for merge in self.merges:
            for part in dict.fromkeys(merge.parts):
                index.setdefault(part, []).append(merge)
        return {t: tuple(ms) for t, ms in index.items()}

    def merge_of(self, type_: str) -> Merge | None:
        """The unique merge forming ``type_`` (None for an alphabet type or an unknown string)."""
        merges = self.produced_by.get(type_, ())
        return merges[0] if merges else None

    @cached_property
    def merge_index(self) -> dict[Merge, int]:
        """Position of each merge in rank order (0-based)."""
        return {m: i for i, m in enumerate(self.merges)}

    def check_invariants(self) -> list[str]:
        """Violations of §3.2's invariants: each type formed by at most one merge, every part a type.

        Returns human-readable problems (empty when the graph is sound).
        """
        problems = []
        for type_, merges in self.produced_by.items():
            if len(merges) > 1:
                problems.append(f"type {type_!r} is formed by {len(merges)} merges: " + ", ".join(map(str, merges)))
            if type_ in self.alphabet:
                problems.append(f"alphabet type {type_!r} is also formed by merge '{merges[0]}'")
        for merge in self.merges:
            missing = [p for p in merge.parts if p not in self.types]
            if missing:
                problems.append(f"merge '{merge}' (rank {merge.rank}) uses parts not in V: {missing}")
        return problems

    @cached_property
    def tuple_merges(self) -> tuple[Merge, ...]:
        return tuple(m for m in self.merges if m.is_tuple)

    # --- segmentation ------------------------------------------------------------------------
    @cached_property
    def engine(self) -> "SegmentationEngine":
        from core.segmentation import SegmentationEngine

        return SegmentationEngine(self.merges, ignore_merges_vocab=self.types if self.ignore_merges else None)

    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]:
        """BTE segmentation of one pretoken (cached)."""
        return self.engine.segment(pretoken)

    def tokenise(self, text: str) -> list[str]:
        """Pre-tokenise running text and segment every pretoken."""
        segment = self.engine.segment
        return [token for pretoken in self.pretokeniser.pretokenise(text) for token in segment(pretoken)]

    def tokenise_word(self, word: str) -> list[str]:
        """A word as it appears in running text: the pre-tokeniser applied to ``" " + word``."""
        return self.tokenise(" " + word)

    def trace_pretoken(self, pretoken: str, max_rank: Rank | None = None) -> "SegmentationTrace":
        """Segmentation with a full trace; with ``max_rank`` only merges ranked below it apply."""
        return self.engine.trace(pretoken, max_rank=max_rank)

    def segment_limited(self, pretoken: str, max_rank: Rank) -> tuple[str, ...]:
        """ReBPE's LIMITEDBPE: apply only the merges ranked strictly below ``max_rank``."""
        return self.engine.segment_limited(pretoken, max_rank)

    # --- the variant interface (core/variants/base.py) ------------------------------------------
    kind = "bpe"

    @property
    def vocabulary(self) -> frozenset[str]:
        return self.types

    def trace_text(self, text: str) -> "Trace":
        from core.variants.bpe import bte_trace

        return bte_trace(self, text)

    def to_json(self) -> dict:
        from core.formats.tokeniser_files import tokeniser_to_project_json

        return tokeniser_to_project_json(self)

    @classmethod
    def from_json(cls, obj: dict, source: str = "<project json>") -> "BTETokeniser":
        from core.formats.tokeniser_files import tokeniser_from_project_json

        return tokeniser_from_project_json(obj, source)

    # --- derivation ---------------------------------------------------------------------------
    def with_merges(self, merges: Iterable[Merge], *, alphabet: Iterable[str] | None = None, name: str | None = None) -> "BTETokeniser":
        """A new tokeniser with the same pre-tokeniser and settings but other merges."""
        return BTETokeniser(
            self.alphabet if alphabet is None else alphabet,
            merges,
            self.pretokeniser,
            specials=self.specials,
            type_ids=self.type_ids,
            ignore_merges=self.ignore_merges,
            name=self.name if name is None else name,
        )

    def __repr__(self) -> str:
        return (
            f"BTETokeniser(name={self.name!r}, |alphabet|={len(self.alphabet)}, |M|={len(self.merges)}, "
            f"tuple merges={len(self.tuple_merges)}, pretokeniser={self.pretokeniser.kind})"
        )
