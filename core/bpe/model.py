"""The BTE tokeniser model: types V, ranked merges M and the indexes M_i / M_o.

Implements [knockout §3.1] (BPE as a merge graph (V, M_i, M_o): every merge is a vertex
(i, (x_1, ..., x_n)) with a priority i) and §3.2 (byte-tuple encoding: a merge may have two *or
more* parts). Ranks may be fractional (ReBPE reification inserts merges at rank r - ε, [rebpe
§3.2 and Alg. 2]), so a rank is an ``int`` or a ``float``.

Around the merge graph sit the settings of a real BPE model (HF ``tokenizers``, SentencePiece,
tiktoken): what happens to characters outside the vocabulary (:mod:`core.bpe.unknowns`), atoms longer
than a character, ``ignore_merges`` and the ids of the loaded vocabulary. The project's own JSON
format (``"format": "bte-tokeniser"``) is read and written by :mod:`core.bpe.serialisation`.

A tokeniser is immutable: edits (knockout, reparation, reification, ...) build a new one, and
``type_ids`` and ``metadata`` are read-only mappings, so one loaded tokeniser can be shared by every
browser session of the explorer. What is computed on first use (``types``, the indexes, the
segmentation engine, primary merges) is derived from the immutable fields alone, so two threads
filling it at once store equal values. This module imports nothing above it (merges,
segmentation, pre-tokenisers, traces).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from itertools import chain
from operator import attrgetter, itemgetter
from types import MappingProxyType
from typing import Any

from core.bpe.merges import Merge, Rank
from core.bpe.segmentation import SegmentationEngine, SegmentationTrace
from core.bpe.serialisation import project_json, read_project_json
from core.bpe.unknowns import DEFAULT_UNKNOWN, UnknownPolicy
from core.errors import InputError
from core.gc_pause import cyclic_gc_paused
from core.options import check_text
from core.pipeline.base import Pretokeniser
from core.trace import Trace, TraceEvent, traceable

__all__ = ["BTETokeniser", "Merge", "Rank"]

# metadata an edit carries over: "hf", the fields of a tokenizer.json the merge graph does not
# model (post-processor, padding, ...), which an HF export writes back (core.formats.hf_json)
CARRIED_METADATA = ("hf",)


class BTETokeniser:
    """A BPE/BTE tokeniser: alphabet, merges sorted by rank, a pre-tokeniser.

    ``type_ids`` optionally keeps the ids of a loaded vocabulary (so HF files round-trip);
    ``specials`` are tokens outside the merge graph (``<s>``, ``<pad>`` ...). With
    ``ignore_merges`` a pretoken that is itself a type is returned whole (HF's option).
    ``unknown`` says what happens to characters outside V; ``atoms`` are alphabet entries longer
    than one character that segmentation takes whole (SentencePiece user-defined pieces);
    ``dropout`` is the file's BPE-dropout setting (kept, not applied: segmentation here is
    deterministic; :mod:`core.families.dropout` samples). ``metadata`` is free-form description (source,
    licence, what was detected while loading, the scenario a sample illustrates). ``type_ids`` and
    ``metadata`` are read-only copies of what is passed (its nested JSON values are as given):
    a loader settles them before construction.
    """

    kind = "bpe"

    def __init__(
        self,
        alphabet: Iterable[str],
        merges: Iterable[Merge],
        pretokeniser: Pretokeniser,
        *,
        specials: Iterable[str] = (),
        type_ids: Mapping[str, int] | None = None,
        ignore_merges: bool = False,
        name: str = "",
        metadata: Mapping[str, Any] | None = None,
        unknown: UnknownPolicy = DEFAULT_UNKNOWN,
        atoms: Iterable[str] = (),
        end_of_word_suffix: str = "",
        dropout: float | None = None,
    ):
        self.alphabet: tuple[str, ...] = tuple(dict.fromkeys(alphabet))
        self.merges: tuple[Merge, ...] = tuple(sorted(merges, key=attrgetter("rank")))
        self.pretokeniser = pretokeniser
        self.specials: tuple[str, ...] = tuple(specials)
        self.type_ids: Mapping[str, int] | None = MappingProxyType(dict(type_ids)) if type_ids is not None else None
        self.ignore_merges = ignore_merges
        self.name = name
        self.metadata: Mapping[str, Any] = MappingProxyType(dict(metadata or {}))
        self.unknown = unknown
        self.atoms: tuple[str, ...] = tuple(a for a in dict.fromkeys(atoms) if len(a) > 1)
        self.end_of_word_suffix = end_of_word_suffix
        self.dropout = dropout
        self._validate_merges()

    def _validate_merges(self) -> None:
        merges = self.merges
        parts = list(map(attrgetter("parts"), merges))
        ranks = set(map(attrgetter("rank"), merges))
        if (
            len(set(parts)) == len(merges)
            and min(map(len, parts), default=2) >= 2
            and all(map(all, parts))
            and (len(ranks) == len(merges) or len({(m.rank, m.result) for m in merges}) == len(ranks))
        ):
            return  # the common case, checked at C speed; otherwise find the culprit below
        seen_ranks: dict[Rank, Merge] = {}
        seen_parts: dict[tuple[str, ...], Merge] = {}
        for merge in merges:
            if len(merge.parts) < 2 or any(not p for p in merge.parts):
                raise InputError(f"merge {merge.parts!r} at rank {merge.rank} needs two or more non-empty parts")
            other = seen_ranks.get(merge.rank)
            if other is not None and other.result != merge.result:
                raise InputError(
                    f"merges '{other}' and '{merge}' share rank {merge.rank} but form different "
                    "types (only merges forming the same type may share a rank)"
                )
            if merge.parts in seen_parts:
                raise InputError(
                    f"merge '{merge}' appears twice (ranks {seen_parts[merge.parts].rank} and {merge.rank})"
                )
            seen_ranks[merge.rank] = merge
            seen_parts[merge.parts] = merge

    # --- the merge graph ([knockout §3.1]) -------------------------------------------
    @cached_property
    def types(self) -> frozenset[str]:
        """V: the alphabet plus every merge result."""
        return frozenset(self.alphabet).union(map(attrgetter("result"), self.merges))

    @property
    def vocabulary(self) -> frozenset[str]:
        return self.types

    @property
    def vocab_size(self) -> int:
        """|V| plus special tokens, as HF counts a vocabulary."""
        return len(self.types) + len(set(self.specials) - self.types)

    def token_id(self, token: str) -> int | None:
        """The id of an output token: its own, else the unk token's (unknown characters)."""
        ids = self.type_ids if self.type_ids is not None else self.token_ids()
        found = ids.get(token)
        return found if found is not None or self.unknown.unk_token is None else ids.get(self.unknown.unk_token)

    def token_ids(self) -> dict[str, int]:
        """Every token (specials and V) with its id: the loaded ids where there are any, new
        types appended after them. Without loaded ids: specials, the alphabet, then merge
        results in rank order (HF's order for a trained tokeniser)."""
        old = self.type_ids or {}
        ordered = dict.fromkeys(chain(self.specials, self.alphabet, (m.result for m in self.merges)))
        ids = {t: i for t, i in old.items() if t in ordered}
        if len(ids) < len(ordered):  # types without a loaded id, numbered after the used ids
            used = set(ids.values())
            next_id = max(used, default=-1) + 1
            for t in ordered:
                if t not in ids:
                    while next_id in used:
                        next_id += 1
                    ids[t] = next_id
                    used.add(next_id)
        return dict(sorted(ids.items(), key=itemgetter(1)))

    @cached_property
    def produced_by(self) -> dict[str, tuple[Merge, ...]]:
        """M_i(t): the merges whose result is t."""
        with cyclic_gc_paused():
            # one merge per type (the usual case) at C speed: ``zip(merges)`` yields 1-tuples
            alone = dict(zip(map(attrgetter("result"), self.merges), zip(self.merges), strict=True))
            if len(alone) == len(self.merges):
                return alone
            index: dict[str, list[Merge]] = {}
            for merge in self.merges:
                index.setdefault(merge.result, []).append(merge)
            return {t: tuple(ms) for t, ms in index.items()}

    @cached_property
    def used_by(self) -> dict[str, tuple[Merge, ...]]:
        """M_o(t): the merges that have t as a part (each merge listed once)."""
        index: dict[str, list[Merge]] = {}
        with cyclic_gc_paused():  # hundreds of thousands of new lists: full passes would rescan them
            for merge in self.merges:
                parts = merge.parts
                for part in parts if len(parts) == 2 and parts[0] != parts[1] else dict.fromkeys(parts):
                    index.setdefault(part, []).append(merge)
            return {t: tuple(ms) for t, ms in index.items()}

    def merge_of(self, type_: str) -> Merge | None:
        """The lowest-ranked merge forming ``type_`` (None for an alphabet type or an unknown string)."""
        merges = self.produced_by.get(type_, ())
        return merges[0] if merges else None

    @cached_property
    def merge_index(self) -> dict[Merge, int]:
        """Position of each merge in rank order (0-based)."""
        return {m: i for i, m in enumerate(self.merges)}

    @cached_property
    def multi_merge_types(self) -> int:
        """How many types more than one merge forms (converted tiktoken/SentencePiece files)."""
        return sum(len(ms) > 1 for ms in self.produced_by.values())

    @cached_property
    def primary_merges(self) -> dict[str, Merge]:
        """Each formed type's *primary* merge: the one that fires when the type's own string is
        segmented. The type's other merges are *alternatives* (they fire only inside longer
        strings, if at all). A type its own string does not reach (a blocked type) keeps its
        lowest-ranked merge as primary; :attr:`self_formed` tells them apart. With one merge per
        type ([knockout §3.1]) every merge is primary and there are no alternatives."""
        # (never None here: every type of produced_by has a merge)
        return {type_: merge for type_ in self.produced_by if (merge := self.primary_merge(type_)) is not None}

    def primary_merge(self, type_: str) -> Merge | None:
        """The primary merge of ``type_`` (None for an alphabet type or an unknown string);
        computed on first use, per type (a memo: threads filling it at once store the same merge)."""
        cache = self._primary
        if type_ not in cache:
            merges = self.produced_by.get(type_, ())
            if len(merges) <= 1:
                cache[type_] = merges[0] if merges else None
            else:
                fired = self.engine.forming_merge(type_)
                cache[type_] = fired if fired is not None and fired.result == type_ else merges[0]
        return cache[type_]

    @cached_property
    def _primary(self) -> dict[str, Merge | None]:
        return {}

    def alternatives(self, type_: str) -> tuple[Merge, ...]:
        """The merges forming ``type_`` other than its primary one."""
        primary = self.primary_merge(type_)
        return tuple(m for m in self.produced_by.get(type_, ()) if m != primary)

    def self_formed(self, type_: str) -> bool:
        """Whether segmenting ``type_``'s own string yields ``type_`` through its merges."""
        merge = self.engine.forming_merge(type_)
        return merge is not None and merge.result == type_

    def check_invariants(self) -> list[str]:
        """Violations of the merge graph's invariants ([knockout §3.2], generalised to several
        merges per type): every part is a type, every merge has one result, merges sharing a rank
        form the same type, no merge is listed twice and no alphabet type is formed by a merge. With
        one merge per type this is §3.2's invariant (each type formed by at most one merge).

        Returns human-readable problems (empty when the graph is sound).
        """
        problems = []
        alphabet = set(self.alphabet)
        for type_, merges in self.produced_by.items():
            if type_ in alphabet:
                problems.append(f"alphabet type {type_!r} is also formed by merge '{merges[0]}'")
        types = self.types
        seen_ranks: dict[Rank, Merge] = {}
        seen_parts: set[tuple[str, ...]] = set()
        for merge in self.merges:
            missing = [p for p in merge.parts if p not in types]
            if missing:
                problems.append(f"merge '{merge}' (rank {merge.rank}) uses parts not in V: {missing}")
            if len(merge.parts) < 2 or not all(merge.parts):
                problems.append(f"merge {merge.parts!r} (rank {merge.rank}) needs two or more non-empty parts")
            other = seen_ranks.setdefault(merge.rank, merge)
            if other.result != merge.result:
                problems.append(f"merges '{other}' and '{merge}' share rank {merge.rank} but form different types")
            if merge.parts in seen_parts:
                problems.append(f"merge '{merge}' is listed twice")
            seen_parts.add(merge.parts)
        return problems

    def merge_graph(self) -> BTETokeniser:
        """The ``merge_graph`` capability (:func:`core.tokeniser.require`): a BTE tokeniser is its own."""
        return self

    @cached_property
    def tuple_merges(self) -> tuple[Merge, ...]:
        return tuple(m for m in self.merges if m.is_tuple)

    # --- segmentation ------------------------------------------------------------------------
    @cached_property
    def engine(self) -> SegmentationEngine:
        """The compiled merge tables. Frozen out of the cyclic collector's reach as a loaded
        tokeniser is (:func:`core.gc_pause.cyclic_gc_paused`): its tables hold millions of
        references, which every full collection would otherwise walk again while the first
        words are segmented (Gemma 3's first pass: 23 -> 13 µs a word)."""
        with cyclic_gc_paused(freeze=True):
            return SegmentationEngine(
                self.merges,
                ignore_merges_vocab=self.ignore_merges_vocab,
                atoms=self.atoms,
                known=self.types,
                unknown=self.unknown,
                suffix=self.end_of_word_suffix,
            )

    @property
    def ignore_merges_vocab(self) -> frozenset[str] | None:
        """What ``ignore_merges`` emits whole: V and the rest of the loaded vocabulary."""
        if not self.ignore_merges:
            return None
        return self.types | frozenset(self.type_ids or ()) - set(self.specials)

    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]:
        """BTE segmentation of one pretoken (cached)."""
        return self.engine.segment(pretoken)

    def tokenise(self, text: str) -> list[str]:
        """Pre-tokenise running text and segment every pretoken; added tokens stay whole. As HF's
        ``encode``, nothing is put before ``text`` (``tokenise("bruidsjurk")``: ``bru ids jurk``);
        :meth:`tokenise_word` segments a word as it appears inside running text (``Ġbruids jurk``).
        InputError for text that is no string or holds a lone surrogate (:func:`core.options.check_text`)."""
        check_text(text)
        segment = self.engine.segment
        if not self.pretokeniser.may_hold_added_tokens(text):
            return [token for pretoken in self.pretokeniser.pretokenise(text) for token in segment(pretoken)]
        tokens: list[str] = []
        for pretoken, added in self.pretokeniser.pretokenise_marked(text):
            if added:
                tokens.append(pretoken)
            elif pretoken:
                tokens.extend(segment(pretoken))
        return tokens

    def tokenise_word(self, word: str) -> list[str]:
        """A word as it appears in running text: the pre-tokeniser applied to ``" " + word``."""
        return self.tokenise(" " + check_text(word, "word"))

    def trace_pretoken(self, pretoken: str, max_rank: Rank | None = None) -> SegmentationTrace:
        """Segmentation with a full trace; with ``max_rank`` only merges ranked below it apply."""
        return self.engine.trace(pretoken, max_rank=max_rank)

    def segment_limited(self, pretoken: str, max_rank: Rank) -> tuple[str, ...]:
        """ReBPE's LIMITEDBPE: apply only the merges ranked strictly below ``max_rank``."""
        return self.engine.segment_limited(pretoken, max_rank)

    def trace_text(self, text: str) -> Trace:
        """Every merge applied while tokenising ``text``, pretoken by pretoken ([knockout]
        §3.2 order); ``extra["pretokens"]`` holds each pretoken's full trace (merge trees, the
        merge behind every removed boundary)."""
        pieces = self.pretokeniser.pretokenise_with_sources(check_text(text))
        traceable(p.text for p in pieces if not p.added)
        pretokens = tuple(p.text for p in pieces)
        done: list[str] = []
        pending = [[p.text] if p.added else self.engine.atomise(p.text) for p in pieces]
        events = []
        traces = [self.engine.trace_whole(p.text) if p.added else self.trace_pretoken(p.text) for p in pieces]
        for k, trace in enumerate(traces):
            for step in trace.steps:
                state = (*done, *step.tokens, *(t for rest in pending[k + 1 :] for t in rest))
                events.append(
                    TraceEvent(
                        "merge", f"{' + '.join(step.merge.parts)} (rank {step.merge.rank})", state, step.merge.rank
                    )
                )
            done.extend(trace.tokens)
        return Trace(
            text,
            pretokens,
            tuple(a for atoms in pending for a in atoms),
            tuple(events),
            {"pretokens": [t.to_json() for t in traces]},
        )

    # --- the project's JSON format (:mod:`core.bpe.serialisation`) ------------------------------
    def to_json(self, metadata: dict | None = None) -> dict[str, Any]:
        """``"format": "bte-tokeniser"``, with ``metadata`` instead of the tokeniser's own when given."""
        return project_json(self, metadata)

    @classmethod
    def from_json(cls, obj: Any, source: str = "<project json>") -> BTETokeniser:
        """The tokeniser a saved project JSON value describes; InputError naming ``source`` when
        ``obj`` is not one."""
        return read_project_json(cls, obj, source)

    # --- derivation ---------------------------------------------------------------------------
    def with_merges(
        self,
        merges: Iterable[Merge],
        *,
        alphabet: Iterable[str] | None = None,
        name: str | None = None,
        type_ids: Mapping[str, int] | None = None,
    ) -> BTETokeniser:
        """A new tokeniser with the same pre-tokeniser and settings but other merges (and, when
        given, other ids: :func:`core.edits.knockout.derive` carries ids through an edit)."""
        return BTETokeniser(
            self.alphabet if alphabet is None else alphabet,
            merges,
            self.pretokeniser,
            specials=self.specials,
            type_ids=self.type_ids if type_ids is None else type_ids,
            ignore_merges=self.ignore_merges,
            name=self.name if name is None else name,
            unknown=self.unknown,
            atoms=self.atoms,
            end_of_word_suffix=self.end_of_word_suffix,
            dropout=self.dropout,
            metadata={key: self.metadata[key] for key in CARRIED_METADATA if key in self.metadata},
        )

    def __repr__(self) -> str:
        return (
            f"BTETokeniser(name={self.name!r}, |alphabet|={len(self.alphabet)}, |M|={len(self.merges)}, "
            f"tuple merges={len(self.tuple_merges)}, pretokeniser={self.pretokeniser.kind})"
        )
