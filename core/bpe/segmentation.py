"""BTE segmentation: apply the lowest-ranked applicable merge until none applies.

[knockout §3.2] (byte-tuple encoding): a merge (p_1, ..., p_n) fires only where all its
parts stand adjacent. Among all applicable merge occurrences the one with the lowest rank fires
first, leftmost occurrence first, one occurrence at a time — the order of HF `tokenizers`'
``Word::merge_all`` (a queue ordered by (rank, position)), so binary merge lists segment exactly
as HF BPE does, even for merge lists that are not in training order.

Merges that share a rank (all of them form the same type: tiktoken, SentencePiece-BPE) have one
priority, so among them the leftmost occurrence fires first, as tiktoken's byte-pair merge and
SentencePiece's agenda do. A pretoken starts as its characters, except that ``atoms`` (longer
strings that are atoms of the vocabulary, e.g. SentencePiece user-defined pieces) are taken whole,
longest first; characters outside the vocabulary are handled by an
:class:`core.bpe.unknowns.UnknownPolicy`.

``max_rank`` gives ReBPE's LIMITEDBPE ([rebpe Alg. 2], reparation: apply merges 1..r-1 only).
The trace records every applied merge, its position, the merge tree of every token and, for
every character boundary, the merge that removed it (the basis of blame, [knockout §3.4]).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cached_property
from heapq import heapify, heappop, heappush
from itertools import chain, compress, islice, pairwise, repeat
from operator import attrgetter, lt
from typing import cast

from core.bpe.merges import Merge, Rank
from core.bpe.unknowns import UnknownPolicy

_NONE = 1 << 62  # "no candidate" in the per-position candidate list
#: word-start marks :meth:`SegmentationEngine.segment` may cut a pretoken before
_WORD_MARKS = ("\u2581", " ")
_SEPARATOR = "\uffff"  # a Unicode noncharacter: no real type holds it
CACHE_LIMIT = 1_000_000
#: symbols beyond which binary segmentation uses a heap: the list scan costs n² (a 1 MB line of
#: one pretoken would take hours)
LONG_PRETOKEN = 256
#: every tuple merge's result is at least this long (three or more non-empty parts)
TUPLE_HEAD = 3


@dataclass(frozen=True)
class MergeTree:
    """A token and how it was formed: a leaf (an atom) or a merge over child trees."""

    token: str
    start: int  # offset of the token's first character in the pretoken
    merge: Merge | None = None
    step: int | None = None  # index of the trace step that formed it
    children: tuple[MergeTree, ...] = ()

    def to_json(self) -> dict:
        out: dict = {"token": self.token, "start": self.start}
        if self.merge is not None:
            out.update(
                merge=str(self.merge),
                rank=self.merge.rank,
                step=self.step,
                children=[c.to_json() for c in self.children],
            )
        return out


@dataclass(frozen=True)
class TraceStep:
    """One applied merge: which, at which symbol index and character offset, and the result."""

    merge: Merge
    position: int
    start: int
    tokens: tuple[str, ...]

    def to_json(self) -> dict:
        return {
            "merge": str(self.merge),
            "rank": self.merge.rank,
            "position": self.position,
            "start": self.start,
            "tokens": list(self.tokens),
        }


@dataclass(frozen=True)
class SegmentationTrace:
    """Everything that happened while segmenting one pretoken.

    ``boundary_merges[k]`` is the merge that removed the boundary between characters k and k+1
    of the pretoken, or None where a token boundary remains.
    """

    pretoken: str
    tokens: tuple[str, ...]
    steps: tuple[TraceStep, ...]
    trees: tuple[MergeTree, ...]
    boundary_merges: tuple[Merge | None, ...]

    @property
    def merges_applied(self) -> tuple[Merge, ...]:
        return tuple(step.merge for step in self.steps)

    def to_json(self) -> dict:
        return {
            "pretoken": self.pretoken,
            "tokens": list(self.tokens),
            "steps": [s.to_json() for s in self.steps],
            "trees": [t.to_json() for t in self.trees],
            "boundary_merges": [None if m is None else str(m) for m in self.boundary_merges],
        }


def _priorities(ranks: tuple[Rank, ...]) -> tuple[Sequence[int], bool]:
    """Each merge's priority, and whether some merges share a rank. A priority is the index of
    the first merge of its rank, so comparing priorities compares ranks and merges sharing a rank
    tie (the leftmost occurrence wins). When every rank differs (checked at C speed): ``ranks``
    itself if it is exactly 0, 1, 2, ... as ints (the merges' own int objects serve, no second int
    per merge), else a range."""
    if all(map(lt, ranks, islice(ranks, 1, None))):
        if ranks == tuple(range(len(ranks))) and set(map(type, ranks)) <= {int}:
            return cast("tuple[int, ...]", ranks), False
        return range(len(ranks)), False
    first_of_rank = list(range(len(ranks)))
    for i in range(1, len(first_of_rank)):
        if ranks[i] == ranks[i - 1]:
            first_of_rank[i] = first_of_rank[i - 1]
    return first_of_rank, True


class SegmentationEngine:
    """Merge tables compiled for fast segmentation, plus a per-pretoken cache.

    The tables never change after construction, so one engine (a tokeniser's, shared by every
    browser session) serves any number of threads. The memos filled while reading (``_cache``,
    ``_inner``, ``_parts_index``, ``_merge_of``) map a key to a value that depends on the tables alone: threads
    filling them at once write equal values, and clearing ``_cache`` when full only costs work.
    ReBPE's reparation edits a private engine of its own (``core.edits.rebpe``).
    """

    def __init__(
        self,
        merges: Iterable[Merge],
        ignore_merges_vocab: frozenset[str] | None = None,
        *,
        atoms: Iterable[str] = (),
        known: frozenset[str] | None = None,
        unknown: UnknownPolicy | None = None,
        suffix: str = "",
    ):
        self.merges: Sequence[Merge] = tuple(sorted(merges, key=attrgetter("rank")))
        self.ranks: tuple[Rank, ...] = tuple(map(attrgetter("rank"), self.merges))
        priorities, self.shared_ranks = _priorities(self.ranks)
        #: binary merge parts -> priority
        self.pair_index: dict[tuple[str, ...], int] = dict(
            zip(map(attrgetter("parts"), self.merges), priorities, strict=True)
        )
        tuple_index: dict[tuple[str, ...], list[tuple[int, tuple[str, ...]]]] = {}
        tuple_merges = compress(zip(self.merges, priorities, strict=True), map(attrgetter("is_tuple"), self.merges))
        for merge, priority in tuple_merges:
            del self.pair_index[merge.parts]
            tuple_index.setdefault(merge.parts[:2], []).append((priority, merge.parts))
        #: first two parts -> the tuple merges starting with them, in rank order (a common first
        #: part alone, like German ``Ġver`` after knockout, starts hundreds)
        self.tuple_index: Mapping[tuple[str, ...], Sequence[tuple[int, tuple[str, ...]]]] = {
            firsts: tuple(entries) for firsts, entries in tuple_index.items()
        }
        self.tuple_span: dict[str, int] = {}  # first part -> longest tuple merge starting with it
        for (first, _), entries in self.tuple_index.items():
            self.tuple_span[first] = max(self.tuple_span.get(first, 0), *(len(parts) for _, parts in entries))
        self.window = max(self.tuple_span.values(), default=2)
        self._index_tuple_results()
        self.ignore_merges_vocab = ignore_merges_vocab
        self._atoms: dict[str, tuple[str, ...]] = {}  # first character -> longer atoms, longest first
        for atom in sorted({a for a in atoms if len(a) > 1}, key=len, reverse=True):
            self._atoms[atom[0]] = (*self._atoms.get(atom[0], ()), atom)
        self.known: frozenset[str] = known if known is not None else frozenset()
        self.suffix = suffix
        self.unknown = unknown if unknown is not None and not unknown.is_default and known is not None else None
        self._cache: dict[str, tuple[str, ...]] = {}
        self._inner: dict[str, tuple[Merge | None, ...]] = {}
        #: compiled with the tables (Gemma 3: 30 ms), not on the first long pretoken
        self._word_pieces = self._find_word_pieces()

    @cached_property
    def _merge_of(self) -> dict[str, Merge] | None:
        """type -> the merge forming it when each type has one (blame's boundaries; built on first
        use, as segmenting alone never needs it)."""
        merge_of = dict(zip(map(attrgetter("result"), self.merges), self.merges, strict=True))
        return merge_of if len(merge_of) == len(self.merges) else None

    def atomise(self, pretoken: str) -> list[str]:
        """The pretoken's initial symbols: characters, or a longer atom where one starts; the
        last one carries the end-of-word suffix, if any."""
        symbols = list(pretoken) if not self._atoms else self._atoms_and_characters(pretoken)
        if self.suffix and symbols:
            symbols[-1] += self.suffix
        return symbols

    def _atoms_and_characters(self, pretoken: str) -> list[str]:
        symbols, i, n = [], 0, len(pretoken)
        while i < n:
            for atom in self._atoms.get(pretoken[i], ()):
                if pretoken.startswith(atom, i):
                    symbols.append(atom)
                    i += len(atom)
                    break
            else:
                symbols.append(pretoken[i])
                i += 1
        return symbols

    def merge_at(self, symbols: list[str], position: int, width: int) -> Merge:
        """The merge that joins ``symbols[position:position + width]``."""
        return self._parts_index[tuple(symbols[position : position + width])]

    @cached_property
    def _parts_index(self) -> dict[tuple[str, ...], Merge]:
        return {m.parts: m for m in self.merges}

    # --- public entry points -------------------------------------------------------------------
    def segment(self, pretoken: str) -> tuple[str, ...]:
        cached = self._cache.get(pretoken)
        if cached is None:
            word_pieces = self._word_pieces
            if word_pieces is not None and pretoken.find(word_pieces[0], 1) > 0:
                pieces = word_pieces[1](pretoken)
                if len(pieces) > 1:  # segmented and cached piece by piece; the whole is left uncached
                    return tuple(chain.from_iterable(map(self.segment, pieces)))
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.clear()
            cached = self._cache[pretoken] = self.segment_uncached(pretoken)
        return cached

    def _find_word_pieces(self) -> tuple[str, Callable[[str], list[str]]] | None:
        """(mark, cut): a word-start mark (SentencePiece's ``▁``, or a space) and a function that
        cuts a pretoken before every mark whose preceding character no type holds in front of
        it (nor the mark itself). No merge can join the symbols on either side of such a place
        (the joined symbol would hold that pair, so it would be no type), so BPE on a pretoken is
        BPE on those pieces, each on its own: :meth:`segment` segments a tokeniser without a
        pre-tokeniser (Gemma 3: a line is one pretoken) word by word, cached. None where something
        else joins symbols or acts on the whole pretoken (``ignore_merges``, atoms, an end-of-word
        suffix, tuple merges, dropping unknown characters) or where no mark is a type."""
        unknown = self.unknown
        if (
            self.ignore_merges_vocab is not None
            or self._atoms
            or self.suffix
            or self.tuple_index
            or (unknown is not None and unknown.drop_unknown and unknown.unk_token is None)
        ):
            return None
        mark = next((mark for mark in _WORD_MARKS if mark in self.known), None)
        if mark is None:
            return None
        results = list(map(attrgetter("result"), self.merges))
        joined = _SEPARATOR.join(results)  # one pass at C speed instead of one per type
        if joined.count(_SEPARATOR) != len(results) - 1:
            return None  # a type holds the separator (no real one does)
        # the character before each mark inside a type (the pattern starts with the mark, which
        # the search finds at C speed; the lookbehind runs only there)
        inside = re.finditer(f"{mark}(?<=[^{_SEPARATOR}{mark}]{mark})", joined)
        kept = re.escape("".join(sorted({joined[found.start() - 1] for found in inside})))
        return mark, re.compile(f"(?<=[^{mark}{kept}])(?={mark})").split

    def segment_uncached(self, pretoken: str) -> tuple[str, ...]:
        if self.ignore_merges_vocab is not None and pretoken in self.ignore_merges_vocab:
            return (pretoken,)
        symbols = self.atomise(pretoken)
        if self.unknown is not None:
            symbols = self.unknown.drop(symbols, self.known)
        # the symbols' string: an end-of-word suffix is part of it, dropped characters are not
        if self.tuple_index and self._may_fire_tuple("".join(symbols)):
            self._run(symbols, len(self.merges), None)
        else:
            self._run_binary(symbols)
        if self.unknown is not None:
            return self.unknown.replace(tuple(symbols), self.known)
        return tuple(symbols)

    def _index_tuple_results(self) -> None:
        """The strings tuple merges form, by length: a tuple merge can only fire in a pretoken
        that contains its result, so other pretokens take the binary fast path."""
        self._tuple_results: AbstractSet[str] = frozenset(
            "".join(parts) for entries in self.tuple_index.values() for _, parts in entries
        )
        self._tuple_result_lengths: tuple[int, ...] = tuple(sorted({len(r) for r in self._tuple_results}))
        #: the first TUPLE_HEAD characters of every result (a tuple merge joins three or more symbols)
        self._tuple_heads: AbstractSet[str] = frozenset(r[:TUPLE_HEAD] for r in self._tuple_results)

    def _may_fire_tuple(self, text: str) -> bool:
        """Whether a tuple merge's result occurs in ``text`` (a pretoken's symbols joined): only
        positions where a result's first characters start are tried at every result length."""
        results, heads = self._tuple_results, self._tuple_heads
        n = len(text)
        for start in range(n - TUPLE_HEAD + 1):
            if text[start : start + TUPLE_HEAD] in heads:
                for length in self._tuple_result_lengths:
                    if start + length > n:
                        break
                    if text[start : start + length] in results:
                        return True
        return False

    def segment_limited(self, pretoken: str, max_rank: Rank) -> tuple[str, ...]:
        symbols = self.atomise(pretoken)
        self._run(symbols, self._limit(max_rank), None)
        return tuple(symbols)

    def trace(self, pretoken: str, max_rank: Rank | None = None) -> SegmentationTrace:
        limit = len(self.merges) if max_rank is None else self._limit(max_rank)
        symbols = self.atomise(pretoken)
        trees, start = [], 0
        for atom in symbols:
            trees.append(MergeTree(atom, start))
            start += len(atom)
        steps: list[TraceStep] = []
        boundary: list[Merge | None] = [None] * max(len(pretoken) - 1, 0)
        whole = (
            self.ignore_merges_vocab is not None
            and max_rank is None
            and pretoken in self.ignore_merges_vocab
            and len(pretoken) > 1
        )
        if not whole:

            def record(position: int, width: int, merge: Merge) -> None:
                children = tuple(trees[position : position + width])
                start = children[0].start
                for child in children[1:]:
                    boundary[child.start - 1] = merge
                trees[position : position + width] = [MergeTree(merge.result, start, merge, len(steps), children)]
                steps.append(TraceStep(merge, position, start, tuple(symbols)))

            self._run(symbols, limit, record)
        else:
            symbols = [pretoken]
            trees = [MergeTree(pretoken, 0)]
        return SegmentationTrace(pretoken, tuple(symbols), tuple(steps), tuple(trees), tuple(boundary))

    def forming_merge(self, pretoken: str) -> Merge | None:
        """The merge applied last when ``pretoken`` is segmented (no ``ignore_merges`` shortcut)
        if that leaves it one token, else None: the merge that forms a type from its own string."""
        last: list[Merge] = []
        symbols = self.atomise(pretoken)
        self._run(symbols, len(self.merges), lambda position, width, merge: last.append(merge))
        return last[-1] if len(symbols) == 1 and last else None

    @staticmethod
    def trace_whole(token: str) -> SegmentationTrace:
        """The trace of an added token: emitted whole, no merge applied."""
        return SegmentationTrace(token, (token,), (), (MergeTree(token, 0),), (None,) * max(len(token) - 1, 0))

    def boundary_trace(self, pretoken: str) -> tuple[tuple[str, ...], tuple[Merge | None, ...]]:
        """Tokens and, per character boundary, the merge that removed it (a light ``trace``).

        When every type is formed by one merge, a token's merge tree is the same wherever it
        occurs ([rebpe App. A.2]: identical tokens are merged by identical sequences of merges),
        so the boundaries inside each token are read off its merges, once per token type.
        """
        if self.ignore_merges_vocab is not None and pretoken in self.ignore_merges_vocab and len(pretoken) > 1:
            return (pretoken,), (None,) * (len(pretoken) - 1)
        merge_of = self._merge_of
        # an unknown policy acts only on characters that are no type; here it would do nothing
        if merge_of is not None and not self.suffix and (self.unknown is None or self.known.issuperset(pretoken)):
            tokens = self.segment(pretoken)
            boundary: list[Merge | None] = list(self._inner_boundaries(tokens[0], merge_of))
            for token in tokens[1:]:
                boundary.append(None)
                boundary.extend(self._inner_boundaries(token, merge_of))
            return tokens, tuple(boundary)
        symbols = self.atomise(pretoken)
        starts, start = [], 0
        for atom in symbols:
            starts.append(start)
            start += len(atom)
        boundary = [None] * max(len(pretoken) - 1, 0)

        def record(position: int, width: int, merge: Merge) -> None:
            for start in starts[position + 1 : position + width]:
                boundary[start - 1] = merge
            del starts[position + 1 : position + width]

        self._run(symbols, len(self.merges), record)
        return tuple(symbols), tuple(boundary)

    def _inner_boundaries(self, token: str, merge_of: dict[str, Merge]) -> tuple[Merge | None, ...]:
        """The merges that removed the boundaries inside ``token`` (cached per type), read off
        ``merge_of`` (:attr:`_merge_of`: the one merge forming each type)."""
        cached = self._inner.get(token)
        if cached is None:
            merge = merge_of.get(token)
            if merge is None:
                cached = (None,) * (len(token) - 1)
            else:
                inner: list[Merge | None] = []
                for j, part in enumerate(merge.parts):
                    if j:
                        inner.append(merge)
                    inner.extend(self._inner_boundaries(part, merge_of))
                cached = tuple(inner)
            self._inner[token] = cached
        return cached

    def clear_cache(self) -> None:
        self._cache.clear()

    # --- the algorithm -------------------------------------------------------------------------
    def _limit(self, max_rank: Rank) -> int:
        """Number of merges ranked strictly below ``max_rank``."""
        from bisect import bisect_left

        return bisect_left(self.ranks, max_rank)

    def _run_binary(self, symbols: list[str]) -> None:
        """Fast path for binary merge lists without a rank limit."""
        if len(symbols) > LONG_PRETOKEN:
            self._run_binary_long(symbols)
            return
        get, none = self.pair_index.get, _NONE
        cands = list(map(get, pairwise(symbols), repeat(none)))
        n = len(cands)
        while n:
            best = min(cands)
            if best == none:
                return
            i = cands.index(best)
            merged = symbols[i] = symbols[i] + symbols.pop(i + 1)
            del cands[i]
            n -= 1
            if i < n:
                cands[i] = get((merged, symbols[i + 1]), none)
            if i:
                cands[i - 1] = get((symbols[i - 1], merged), none)

    def _run_binary_long(self, symbols: list[str]) -> None:
        """``_run_binary`` for long pretokens in O(n log n), as HF's ``Word::merge_all``: a heap
        of (priority, position) over a linked list of symbols. Positions keep their order, so the
        heap pops the lowest priority, leftmost first, as the list scan does; an entry whose pair
        has changed since it was pushed is skipped. A position merged into its left neighbour holds
        ``""`` (symbols are never empty)."""
        get = self.pair_index.get
        n = len(symbols)
        after = list(range(1, n + 1))
        before = list(range(-1, n - 1))
        heap = [(p, i) for i in range(n - 1) if (p := get((symbols[i], symbols[i + 1]))) is not None]
        heapify(heap)
        while heap:
            priority, i = heappop(heap)
            j = after[i]
            if not symbols[i] or j >= n or get((symbols[i], symbols[j])) != priority:
                continue  # stale: i was merged into its left neighbour, or its pair changed
            symbols[i] += symbols[j]
            symbols[j] = ""
            after[i] = k = after[j]
            if k < n:
                before[k] = i
                if (p := get((symbols[i], symbols[k]))) is not None:
                    heappush(heap, (p, i))
            h = before[i]
            if h >= 0 and (p := get((symbols[h], symbols[i]))) is not None:
                heappush(heap, (p, h))
        symbols[:] = [symbol for symbol in symbols if symbol]

    def _run(self, symbols: list[str], limit: int, record) -> None:
        """General BTE loop with tuple merges, a rank limit and an optional step recorder.

        A candidate is encoded as one int, ``merge index << 16 | width``, so ``min`` picks the
        lowest rank and ``list.index`` the leftmost position.
        """
        candidate = self._candidate_function(symbols, limit)
        # the first candidates: pairs in one pass, tuples only where a pair starts one
        pair_get, tuple_index = self.pair_index.get, self.tuple_index
        cands = [p << 16 | 2 if (p := pair_get(pair, _NONE)) < limit else _NONE for pair in pairwise(symbols)]
        cands.append(_NONE)
        if tuple_index:
            for i in [i for i, pair in enumerate(pairwise(symbols)) if pair in tuple_index]:
                cands[i] = candidate(i)
        span_get = self.tuple_span.get
        window = self.window
        none = _NONE
        while cands:
            best = min(cands)
            if best >= none:
                return
            i = cands.index(best)
            width = best & 0xFFFF
            if record is not None:
                merge = self.merge_at(symbols, i, width) if self.shared_ranks else self.merges[best >> 16]
            symbols[i : i + width] = ["".join(symbols[i : i + width])]
            if record is not None:
                record(i, width, merge)
            del cands[i + 1 : i + width]
            cands[i] = candidate(i)
            if i:
                cands[i - 1] = candidate(i - 1)
            # a tuple merge starting further left can reach symbol i only if it is long enough
            for j in range(max(0, i - window + 1), i - 1):
                if span_get(symbols[j], 0) > i - j:
                    cands[j] = candidate(j)

    def _candidate_function(self, symbols: list[str], limit: int) -> Callable[[int], int]:
        """``candidate(i)``: the best merge (encoded as in :meth:`_run`) starting at ``symbols[i]``
        among the first ``limit`` merges, or ``_NONE``. A closure over the tables: it runs once per
        position and per merge applied."""
        pair_get = self.pair_index.get
        tuple_get = self.tuple_index.get if self.tuple_index else None
        none = _NONE

        def candidate(i: int) -> int:
            n_symbols = len(symbols)
            if i + 1 >= n_symbols:
                return none
            pair = (symbols[i], symbols[i + 1])
            idx = pair_get(pair, none)
            best = idx << 16 | 2 if idx < limit else none
            if tuple_get is not None:
                for idx, parts in tuple_get(pair, ()):
                    if idx << 16 >= best or idx >= limit:
                        break  # entries are in rank order
                    n = len(parts)
                    if i + n <= n_symbols and tuple(symbols[i : i + n]) == parts:
                        best = idx << 16 | n
                        break
            return best

        return candidate
