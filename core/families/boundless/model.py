"""BoundlessBPE (Schmidt, Reddy, Tanner & Pinter, COLM 2025): byte-level BPE with PickyBPE-style
deletions and *supermerges* of two adjacent whole pretokens into a superword.

[boundless §3.1] (the three operations), §3.2 and Listing 1 (inference), App. A (the
pre-tokenisation regex), App. B (training: :func:`core.families.boundless.trainer.train`). Semantics are
those of the authors' code, kensho-technologies/boundlessbpe @9c7ef2e
(reference-implementations.md §5; TEST_VECTORS V8/V8b).

A tokeniser is one ordered operation list with a shared index: ``("merge", a, b)`` (a regular
merge inside a pretoken), ``("deletion", t)`` (every ``t`` inside a pretoken is blown up into its
bytes, or with ``blowup=False`` into the pair of the earliest merge that formed it) and
``("supermerge", a, b)`` (two adjacent pretokens that are each exactly one token, ``a`` then
``b``, become one single-token chunk ``ab``). Tokens are written in the GPT-2 byte alphabet
(:mod:`core.pipeline.byte_level`); the 256 bytes are always in the vocabulary.

Inference (§3.2, ``FasterRegexInference.encode_ordinary_chunks``): pretokenise, split each
pretoken (chunk) into bytes, then repeatedly apply, everywhere in the text, the operation with the
smallest index greater than the previous one among those that apply now (merges whose pair occurs
inside a chunk, deletions whose token occurs in a chunk, supermerges whose pair is two adjacent
single-token chunks; supermerges left to right, non-overlapping); stop when none applies. Each
operation is thus applied at most once, in index order (after a deletion earlier merges are not
revisited: ``" ho"`` -> ``Ġ h o`` in V8). Equivalently, and this is how it is computed: every
chunk replays the word operations on its own (cached per pretoken), and a supermerge between two
neighbouring chunks happens at the first supermerge index at which both are single tokens; a
chunk joined into a superword is frozen from then on.

Pre-tokenisation: the authors' code splits with ``ULTIMATE_PATTERN`` (v2, the pattern of the
paper's second version), :data:`core.pipeline.real_patterns.ULTIMATE_PATTERN`. It differs
from our repaired Listing 3 (``core.pipeline.patterns.BOUNDLESS_PATTERN``) in two branches:
digits take no optional leading space (``" 3"`` -> ``" ", "3"``, ours ``" 3"``) and the
snake-case branch takes only lower-case letters (``"_Case"`` -> ``"_", "Case"``, ours
``"_Case"``). Both give the same pretokens on the V8 corpus. :func:`boundless_pretokeniser` builds either.

Reporting: :func:`shortfall` says, with the numbers, why a trained |V| is under its target (deleted
tokens keep their slots of the budget, as in the authors' code; or no pairs were left).
"""

from __future__ import annotations

import heapq
import sys
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate, pairwise

from core.bpe.model import BTETokeniser
from core.counting.corpus import initial_alphabet
from core.errors import InputError
from core.families.base import (
    CACHE_LIMIT,
    FORMAT_PREFIX,
    FORMAT_VERSION,
    TrainingRun,
    merge_list_graph,
    read_envelope,
    read_flag,
)
from core.options import check_bool, check_text
from core.pipeline import RegexSplit
from core.pipeline.base import Pretokeniser
from core.pipeline.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE
from core.pipeline.real_patterns import ULTIMATE_PATTERN
from core.tokeniser import ids_in_order
from core.trace import Trace, TraceEvent, traceable

KIND = "boundless"
OPERATION_KINDS = ("merge", "deletion", "supermerge")

#: pattern option of :func:`boundless_pretokeniser`: "ultimate" (authors' code) or "boundless"
#: (our repaired Listing 3).
PATTERNS = {"ultimate": ULTIMATE_PATTERN, "boundless": "boundless"}

_NEVER = sys.maxsize  # an operation index after every real one


def boundless_pretokeniser(pattern: str = "ultimate") -> RegexSplit:
    """Byte-level regex pre-tokeniser with the authors' ``ULTIMATE_PATTERN`` (default) or our
    repaired Listing 3 (``"boundless"``)."""
    if pattern not in PATTERNS:
        raise InputError(f"pattern must be one of {', '.join(PATTERNS)}, got {pattern!r}")
    return RegexSplit(PATTERNS[pattern], byte_level=True)


def _first_after(indices: tuple[int, ...], after: int) -> int:
    """The smallest index in the sorted ``indices`` greater than ``after`` (``_NEVER`` if none)."""
    if indices[-1] <= after:
        return _NEVER
    return indices[0] if indices[0] > after else indices[bisect_right(indices, after)]


def _merge_pair(tokens: tuple[str, ...], left: str, right: str) -> tuple[str, ...]:
    """Every ``left right`` replaced by ``left + right``, left to right, non-overlapping."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        if i + 1 < n and tokens[i] == left and tokens[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return tuple(out)


class BoundlessBPE:
    """A trained BoundlessBPE tokeniser: the operation list (index = position), the byte-level
    pre-tokeniser, and ``blowup`` (how deletions split a token at inference, as in training).

    ``operations`` items are ``("merge", a, b)``, ``("deletion", t)`` or
    ``("supermerge", a, b)`` over byte characters. The vocabulary is what inference can output:
    the 256 bytes plus every merge and supermerge result, minus the tokens deleted (unless formed
    again later, or, with ``blowup=False``, brought back as a part of a later deletion).
    """

    kind = KIND

    def __init__(self, operations: Iterable, pretokeniser: Pretokeniser, *, blowup: bool = True, name: str = ""):
        if not initial_alphabet(pretokeniser):
            raise InputError(
                f"BoundlessBPE needs a byte-level pre-tokeniser (RegexSplit with "
                f"byte_level=True or ByteLevel), got {pretokeniser!r}"
            )
        check_bool("blowup", blowup)
        self.pretokeniser = pretokeniser
        self.blowup = blowup
        self.name = name or KIND
        self.operations: tuple[tuple[str, ...], ...] = tuple(_check_operation(n, op) for n, op in enumerate(operations))
        merges: dict[tuple[str, str], list[int]] = {}
        supermerges: dict[tuple[str, str], list[int]] = {}
        deletions: dict[str, list[int]] = {}
        self._pieces: dict[str, tuple[str, ...]] = {}  # token -> its earliest merge's pair
        ever = set(BYTE_TO_CHAR.values())
        word_tokens = set(ever)  # present tokens formed inside pretokens (deletable)
        present = set(ever)
        for index, (kind, *parts) in enumerate(self.operations):
            if kind == "deletion":
                token = parts[0]
                if len(token) < 2 or token not in word_tokens:
                    raise InputError(
                        f"operation {index}: deletion of {token!r}, which is not a "
                        f"multi-byte token formed by an earlier merge and still present"
                    )
                deletions.setdefault(token, []).append(index)
                word_tokens.discard(token)
                present.discard(token)
                pieces = self._replacement(token)  # with blowup=False a deleted token may come back
                word_tokens.update(pieces)
                present.update(pieces)
                continue
            missing = [p for p in parts if p not in ever]
            if missing:
                raise InputError(f"operation {index}: {kind} uses {missing[0]!r}, which no earlier operation forms")
            token = parts[0] + parts[1]
            if kind == "merge":
                merges.setdefault((parts[0], parts[1]), []).append(index)
                self._pieces.setdefault(token, (parts[0], parts[1]))
                word_tokens.add(token)
            else:  # a superword is never deleted (inference relies on it)
                supermerges.setdefault((parts[0], parts[1]), []).append(index)
                word_tokens.discard(token)
            ever.add(token)
            present.add(token)
        self._merges = {pair: tuple(v) for pair, v in merges.items()}
        self._supermerges = {pair: tuple(v) for pair, v in supermerges.items()}
        self._deletions = {token: tuple(v) for token, v in deletions.items()}
        self._vocabulary = frozenset(present)
        self._timelines: dict[str, tuple] = {}

    # -- the interface of core.families.base -------------------------------------------------

    @property
    def vocabulary(self) -> frozenset[str]:
        return self._vocabulary

    @property
    def vocab_size(self) -> int:
        return len(self._vocabulary)

    def counts(self) -> dict[str, int]:
        """Number of operations of each kind."""
        out = dict.fromkeys(OPERATION_KINDS, 0)
        for kind, *_ in self.operations:
            out[kind] += 1
        return out

    def merge_graph(self) -> BTETokeniser:
        """The merges (not the supermerges or deletions) as a merge graph over the 256 bytes,
        each pair at its first operation's position."""
        return merge_list_graph(
            initial_alphabet(self.pretokeniser),
            (tuple(parts) for kind, *parts in self.operations if kind == "merge"),
            self.pretokeniser,
            self.name,
        )

    def token_ids(self) -> dict[str, int]:
        """Ids in sorted vocabulary order (BoundlessBPE files keep no ids)."""
        return ids_in_order(sorted(self.vocabulary))

    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]:
        """The word operations alone on one pretoken (no supermerges: they need neighbours)."""
        return self._timeline(pretoken)[0][-1][1]

    def tokenise(self, text: str) -> list[str]:
        """§3.2 over running text: supermerges can join neighbouring pretokens."""
        pretokens = self.pretokeniser.pretokenise(check_text(text))
        timelines = [self._timeline(p) for p in pretokens]
        order, chunks, _ = self._supermerge(timelines)
        return [t for node in order for t in chunks[node]]

    def tokenise_word(self, word: str) -> list[str]:
        return self.tokenise(" " + check_text(word, "word"))

    def trace_text(self, text: str) -> Trace:
        """One event per applied operation index (a merge or deletion applies in every chunk
        where it can, like the authors' trace), with its kind, label and index."""
        pretokens = traceable(self.pretokeniser.pretokenise(text))
        timelines = [self._timeline(p) for p in pretokens]
        order, chunks, joins = self._supermerge(timelines)
        frozen = {}
        for index, left, right, _ in joins:
            frozen[left] = frozen[right] = index
        changes: dict[int, list] = {}
        for node, (states, _) in enumerate(timelines):
            for index, tokens in states[1:]:
                if index < frozen.get(node, _NEVER):
                    changes.setdefault(index, []).append((node, tokens))
        for index, left, right, new in joins:
            changes.setdefault(index, []).append((left, right, new))
        current = list(range(len(pretokens)))
        state = {node: states[0][1] for node, (states, _) in enumerate(timelines)}
        events = []
        for index in sorted(changes):
            kind, *parts = self.operations[index]
            for change in changes[index]:
                if kind == "supermerge":
                    left, right, new = change
                    at = current.index(left)
                    current[at : at + 2] = [new]
                    state[new] = chunks[new]
                else:
                    state[change[0]] = change[1]
            tokens = tuple(t for node in current for t in state[node])
            events.append(TraceEvent(kind, self._label(kind, parts), tokens, index))
        return Trace(
            text,
            pretokens,
            tuple(ch for p in pretokens for ch in p),
            tuple(events),
            {"chunks": [list(chunks[node]) for node in order]},
        )

    def to_json(self) -> dict:
        return {
            "format": FORMAT_PREFIX + KIND,
            "version": FORMAT_VERSION,
            "name": self.name,
            "pretokeniser": self.pretokeniser.to_spec(),
            "blowup": self.blowup,
            "operations": [list(op) for op in self.operations],
        }

    @classmethod
    def from_json(cls, obj, source: str = "<json>") -> BoundlessBPE:
        name, pretokeniser = read_envelope(obj, KIND, source)
        blowup = read_flag(obj, "blowup", True, source)
        operations = obj.get("operations")
        if not isinstance(operations, list):
            raise InputError("field 'operations' must be a list of [kind, token, ...] items", source)
        try:
            return cls(operations, pretokeniser, blowup=blowup, name=name)
        except InputError as err:
            raise InputError(
                f"field 'operations': {err.message}" if err.message.startswith("operation") else err.message, source
            ) from None

    def __repr__(self) -> str:
        counts = self.counts()
        return (
            f"BoundlessBPE(name={self.name!r}, |V|={self.vocab_size}, merges={counts['merge']}, "
            f"supermerges={counts['supermerge']}, deletions={counts['deletion']})"
        )

    # -- inference ----------------------------------------------------------------------------

    def _label(self, kind: str, parts: list[str]) -> str:
        if kind == "deletion":
            return f"delete {parts[0]} -> {' '.join(self._replacement(parts[0]))}"
        return f"{parts[0]} + {parts[1]} -> {parts[0] + parts[1]}"

    def _replacement(self, token: str) -> tuple[str, ...]:
        return tuple(token) if self.blowup else self._pieces[token]

    def _timeline(self, pretoken: str) -> tuple:
        """``(states, singles)`` of one chunk replaying the word operations alone: states are
        ``(index, tokens)`` from ``(-1, bytes)`` on; singles are the ``(start, end, token)``
        spans during which the chunk is one token (operations with start < index < end see it)."""
        cached = self._timelines.get(pretoken)
        if cached is not None:
            return cached
        merges, deletions, operations = self._merges, self._deletions, self.operations
        tokens = tuple(pretoken)
        states = [(-1, tokens)]
        previous = -1
        while True:
            best = _NEVER
            for pair in pairwise(tokens):
                indices = merges.get(pair)
                if indices is not None:
                    best = min(best, _first_after(indices, previous))
            for token in tokens:
                indices = deletions.get(token)
                if indices is not None:
                    best = min(best, _first_after(indices, previous))
            if best == _NEVER:
                break
            kind, *parts = operations[best]
            if kind == "merge":
                tokens = _merge_pair(tokens, parts[0], parts[1])
            else:
                replacement = self._replacement(parts[0])
                tokens = tuple(p for t in tokens for p in (replacement if t == parts[0] else (t,)))
            states.append((best, tokens))
            previous = best
        singles = []
        for n, (start, state) in enumerate(states):
            if len(state) == 1:
                end = states[n + 1][0] if n + 1 < len(states) else _NEVER
                singles.append((start, end, state[0]))
        result = (tuple(states), tuple(singles))
        if len(self._timelines) >= CACHE_LIMIT:
            self._timelines.clear()
        self._timelines[pretoken] = result
        return result

    def _first_join(self, left: tuple, right: tuple, after: int):
        """The earliest supermerge ``(index, a, b)`` with index > ``after`` at which the chunk
        with single-token spans ``left`` is ``a`` and its right neighbour (``right``) is ``b``."""
        best = None
        for start_l, end_l, a in left:
            for start_r, end_r, b in right:
                indices = self._supermerges.get((a, b))
                if indices is None:
                    continue
                index = _first_after(indices, max(start_l, start_r, after))
                if index < min(end_l, end_r) and (best is None or index < best[0]):
                    best = (index, a, b)
        return best

    def _supermerge(self, timelines: list[tuple]):
        """Supermerges over the chunks, in index order and left to right within one index.

        Returns (final chunk ids in text order, tokens of every chunk id, joins), where chunk ids
        ``0..n-1`` are the pretokens, later ids the superwords, and joins lists
        ``(index, left id, right id, new id)`` in the order applied."""
        chunks = [states[-1][1] for states, _ in timelines]
        n = len(chunks)
        if n < 2 or not self._supermerges:
            return list(range(n)), chunks, []
        spans = [singles for _, singles in timelines]
        before = list(range(-1, n - 1))
        after = list(range(1, n + 1))
        after[-1] = -1
        place = list(range(n))  # text position of a chunk's first pretoken (orders one index)
        alive = [True] * n
        heap: list[tuple[int, int, int, int, str]] = []

        def push(left: int, right: int, since: int) -> None:
            if left != -1 and right != -1 and spans[left] and spans[right]:
                found = self._first_join(spans[left], spans[right], since)
                if found is not None:
                    heapq.heappush(heap, (found[0], place[left], left, right, found[1] + found[2]))

        for node in range(n - 1):
            push(node, node + 1, -1)
        first, joins = 0, []
        while heap:
            index, _, left, right, token = heapq.heappop(heap)
            if not (alive[left] and alive[right]):
                continue
            new = len(chunks)
            chunks.append((token,))
            spans.append(((index, _NEVER, token),))
            place.append(place[left])
            alive[left] = alive[right] = False
            alive.append(True)
            before.append(before[left])
            after.append(after[right])
            if before[left] == -1:
                first = new
            else:
                after[before[left]] = new
            if after[right] != -1:
                before[after[right]] = new
            joins.append((index, left, right, new))
            push(before[new], new, index)
            push(new, after[new], index)
        order, node = [], first
        while node != -1:
            order.append(node)
            node = after[node]
        return order, chunks, joins


def _check_operation(index: int, op) -> tuple[str, ...]:
    """``op`` as a tuple of strings, or InputError naming the operation."""
    if isinstance(op, (list, tuple)) and op and op[0] in OPERATION_KINDS:
        size = 2 if op[0] == "deletion" else 3
        if len(op) == size and all(isinstance(p, str) and p and all(c in CHAR_TO_BYTE for c in p) for p in op[1:]):
            return tuple(op)
    raise InputError(
        f'operation {index}: expected ["merge"|"supermerge", left, right] or '
        f'["deletion", token] over the GPT-2 byte alphabet, got {op!r}'
    )


def shortfall(run: TrainingRun, target: int) -> str | None:
    """Why a BoundlessBPE training ``run`` ends with |V| under ``target``, with the numbers; None when
    it reaches the target or is another family's. With ``deleted_slots="kept"`` (the authors' code)
    a deleted token keeps its slot of the budget (256 bytes + merges + supermerges), so |V| = slots
    - deleted tokens (boundless_train.py); training may also run out of pairs."""
    summary = run.summary
    if not isinstance(run.tokeniser, BoundlessBPE) or run.tokeniser.vocab_size >= target:
        return None
    size, slots = run.tokeniser.vocab_size, summary["slots"]
    reasons = []
    if slots > size:  # "freed" keeps slots == |V|
        reasons.append(
            f"{slots - size:,} of the {slots:,} vocabulary slots (256 bytes + {summary['merges']:,} merges + "
            f"{summary['supermerges']:,} supermerges) belong to tokens deleted during training "
            f"({summary['deletions']:,} deletions). As in the authors' code, a deleted token keeps its slot; "
            "[boundless §3.1] speaks of deletions freeing up space, which the option deleted_slots=freed "
            "trains"
        )
    if summary["stopped"] != "vocab_size reached":
        reasons.append(f"training stopped at {slots:,} of {target:,} slots: {summary['stopped']}")
    return f"|V| {size:,} for a target of {target:,}: " + "; ".join(reasons) + "."


def slots_after_events(run: TrainingRun) -> list[int] | None:
    """The vocabulary slots filled after each event of a BoundlessBPE ``run`` (256 bytes + the merges
    and supermerges so far), to draw next to |V| where deleted tokens keep their slots; None when
    the two never differ or the run is another family's."""
    if not isinstance(run.tokeniser, BoundlessBPE) or run.summary["slots"] == run.tokeniser.vocab_size:
        return None
    return list(accumulate((event.kind != "deletion" for event in run.events), initial=256))[1:]
