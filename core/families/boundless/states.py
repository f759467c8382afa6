"""The words state of BoundlessBPE training ([boundless §3.1 and App. B]): unique pretokens x
counts, every pair countable, with the pair counts of the authors' ``get_stats``; and the pair
queue it shares with the superword state (:mod:`core.families.boundless.superwords`, where only
unlocked tokens pair up).

``get_stats`` counts a pair unless it repeats the pair just counted (``aaaa`` -> 2, ``aaa`` -> 1).
The words state keeps its pretokens as *runs* (a maximal stretch of one token, held as the token
and its length), so that count reads

    count(a, b), a != b:  adjacent runs a | b
    count(x, x):          the sum of floor(length / 2) over the runs of x

Storage, for R runs: ``tok`` (int32 token id, -1 once the run is gone), ``length``, ``before`` and
``after`` (int32 links to the neighbouring runs of the pretoken, -1 at its ends) and ``weight``
(the pretoken's count), each an :class:`array.array`, about 20 bytes per run; tokens are strings
only at the interface (an id table). Which runs hold a token is indexed by id (int32 run ids,
checked on use, rebuilt once more entries were added than there are runs), so a merge visits only the
runs of the rarer of its two tokens. Every change (a merge, a deletion's blow-up) replaces a few
consecutive runs and recounts only those and their two neighbours: each occurrence costs the same
however long the pretoken, and a run of a million equal tokens is one run (merging ``(x, x)`` in
it halves it at once).
"""

from __future__ import annotations

import heapq
import itertools
from array import array

import numpy as np

from core.deadline import Heartbeat
from core.errors import InputError

Pair = tuple[str, str]
#: Heartbeat units for one change of the runs (a few dozen Python steps).
CHANGE_WORK = 32
#: The token id of a run that is gone.
GONE = -1
_LOW = (1 << 32) - 1  # a pair of ids is one int: left << 32 | right


class _PairQueue:
    """Pair counts with a lazy max-heap: highest count first, ties to the smallest pair. Every
    count change pushes an entry; entries whose count is no longer current are dropped on sight.
    Pairs whose concatenation is a token (``taken``) are set aside until :meth:`release`."""

    def __init__(self):
        self.counts: dict[Pair, int] = {}
        self.heap: list[tuple[int, str, str]] = []
        self.blocked: dict[str, set[Pair]] = {}

    def apply(self, delta: dict[Pair, int]) -> None:
        counts, heap = self.counts, self.heap
        for pair, change in delta.items():
            if change:
                count = counts.get(pair, 0) + change
                if count:
                    counts[pair] = count
                    heapq.heappush(heap, (-count, pair[0], pair[1]))
                else:
                    del counts[pair]

    def best(self, taken: set[str]) -> tuple[int, Pair] | None:
        heap, counts = self.heap, self.counts
        while heap:
            negative, left, right = heap[0]
            if counts.get((left, right)) != -negative:
                heapq.heappop(heap)
            elif left + right in taken:
                heapq.heappop(heap)
                self.blocked.setdefault(left + right, set()).add((left, right))
            else:
                return -negative, (left, right)
        return None

    def release(self, token: str) -> None:
        """``token`` left the vocabulary: pairs forming it may be chosen again."""
        for pair in self.blocked.pop(token, ()):
            if pair in self.counts:
                heapq.heappush(self.heap, (-self.counts[pair], pair[0], pair[1]))


def _ints(values: np.ndarray, typecode: str = "i") -> array:
    """``values`` as an :class:`array.array` of ``typecode``."""
    stored = array(typecode)
    stored.frombytes(np.ascontiguousarray(values, dtype=np.intc if typecode == "i" else np.int64).data.cast("B"))
    return stored


def _byte_runs(counts: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The runs of equal bytes of the raw strings ``counts``, one after another: their byte,
    length and count, and which runs start a string."""
    try:
        data = np.frombuffer("".join(counts).encode("latin-1"), dtype=np.uint8)
    except UnicodeEncodeError as error:
        char = error.object[error.start]
        raise InputError(f"pretokens must be raw strings, one character per byte: got {char!r}") from None
    ends = np.cumsum(np.fromiter(map(len, counts), dtype=np.int64, count=len(counts)))
    starting = np.zeros(len(data), dtype=bool)
    starting[ends[ends < len(data)]] = True
    starting[:1] = True
    starts = np.flatnonzero(starting | np.concatenate(([True], data[1:] != data[:-1])))
    if len(starts) >= 1 << 31:
        raise InputError(f"{len(starts)} runs of equal bytes in the pretokens: at most 2**31 - 1 fit int32 ids")
    length = np.diff(np.append(starts, len(data))).astype(np.intc)
    weights = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
    weight = weights[np.searchsorted(ends, starts, side="right")]
    return data[starts], length, weight, starting[starts]


def _view(stored: array) -> np.ndarray:
    """A numpy view of an int32 array (drop it before the array grows)."""
    return np.frombuffer(stored, dtype=np.intc)


def _repeated(unit: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The runs of the token sequence whose runs are ``unit``, repeated ``n`` times."""
    if len(unit) == 1:
        return [(unit[0][0], unit[0][1] * n)]
    if unit[0][0] != unit[-1][0]:
        return unit * n
    joined = [(unit[0][0], unit[0][1] + unit[-1][1]), *unit[1:-1]]  # one copy's end meets the next's start
    return [*unit[:-1], *joined * (n - 1), unit[-1]]


class Words(_PairQueue):
    """The words state (module docstring): unique pretokens x counts, given as raw strings (one
    character per byte); ``frequency`` is each token's weighted number of occurrences."""

    def __init__(self, counts: dict[str, int], beat: Heartbeat):
        super().__init__()
        self.beat = beat
        self.names = [chr(byte) for byte in range(256)]  # id -> token
        self.ids = {name: i for i, name in enumerate(self.names)}
        tok, length, weight, first_run = _byte_runs(counts)
        last_run = np.append(first_run[1:], True)[: len(first_run)]
        self.tok, self.length = _ints(tok), _ints(length)
        before = np.arange(-1, len(tok) - 1, dtype=np.intc)
        before[first_run] = -1
        self.before = _ints(before)
        after = np.arange(1, len(tok) + 1, dtype=np.intc)
        after[last_run] = -1
        self.after = _ints(after)
        self.weight = _ints(weight, "i" if not len(weight) or weight.max() < 1 << 31 else "q")
        self.runs_of: dict[int, array] = {}  # token id -> runs holding it (and stale entries)
        self.indexed = 0  # index entries added since it was built
        self._reindex()
        self._first_counts(tok, length, weight, last_run)
        beat.work(int(length.sum()))

    def _first_counts(self, tok: np.ndarray, length: np.ndarray, weight: np.ndarray, last_run: np.ndarray) -> None:
        """Pair counts and ``frequency`` of the runs of bytes ``tok`` (all runs, before any change)."""
        pairs = np.zeros(1 << 16, dtype=np.int64)
        tok = tok.astype(np.intc)
        double = length > 1
        np.add.at(pairs, tok[double] * 257, length[double] // 2 * weight[double])
        linked = ~last_run[:-1]
        np.add.at(pairs, tok[:-1][linked] * 256 + tok[1:][linked], weight[:-1][linked])
        self.apply({(chr(key >> 8), chr(key & 255)): int(pairs[key]) for key in np.flatnonzero(pairs).tolist()})
        frequency = np.zeros(256, dtype=np.int64)
        np.add.at(frequency, tok, length * weight)
        present = np.flatnonzero(np.bincount(tok, minlength=256)).tolist()
        self.frequency: dict[str, int] = {chr(t): int(frequency[t]) for t in present}

    def _reindex(self) -> None:
        """Build the index of the runs holding each token afresh."""
        tok = _view(self.tok)
        order = np.argsort(tok, kind="stable")
        ordered = tok[order]
        bounds = np.flatnonzero(np.diff(ordered, prepend=GONE, append=GONE)).tolist()  # GONE sorts first
        self.runs_of = {int(ordered[lo]): _ints(order[lo:hi]) for lo, hi in itertools.pairwise(bounds)}
        self.indexed = 0

    def _id(self, name: str) -> int:
        known = self.ids.get(name)
        if known is None:
            known = self.ids[name] = len(self.names)
            self.names.append(name)
        return known

    def _runs(self, t: int, tok: np.ndarray) -> np.ndarray:
        """The runs holding token id ``t`` (``tok`` a view of the tokens), in order; their index
        entry is rewritten without stale ones."""
        stored = self.runs_of.get(t)
        if stored is None:
            return np.zeros(0, dtype=np.intc)
        runs = _view(stored)
        live = np.sort(runs[tok[runs] == t])
        live = live[np.concatenate(([True], live[1:] != live[:-1]))] if len(live) else live
        self.runs_of[t] = _ints(live)
        return live

    def _starts(self, a: int, b: int) -> list[int]:
        """The runs of ``a`` followed by a run of ``b`` (those of ``a`` of length > 1 if a == b)."""
        tok = _view(self.tok)
        if a == b:
            runs = self._runs(a, tok)
            return runs[_view(self.length)[runs] > 1].tolist()
        if len(self.runs_of.get(a, ())) <= len(self.runs_of.get(b, ())):
            lefts = self._runs(a, tok)
            following = _view(self.after)[lefts]
            return lefts[(following != -1) & (tok[following] == b)].tolist()
        previous = _view(self.before)[self._runs(b, tok)]
        return previous[(previous != -1) & (tok[previous] == a)].tolist()

    def _count(self, runs: list[int], delta: dict[int, int], weight: int) -> None:
        """Add ``weight`` x the pair counts of the consecutive ``runs`` to ``delta``."""
        tok, length = self.tok, self.length
        previous = GONE
        for r in runs:
            t, n = tok[r], length[r]
            if n > 1:
                key = t << 32 | t
                delta[key] = delta.get(key, 0) + n // 2 * weight
            if previous != GONE:
                key = previous << 32 | t
                delta[key] = delta.get(key, 0) + weight
            previous = t

    def _place(self, old: list[int], runs: list[tuple[int, int]], weight: int) -> list[int]:
        """Put ``runs`` in the ids of ``old`` (then new ones), index them; their ids."""
        tok, length, runs_of = self.tok, self.length, self.runs_of
        placed = []
        for k, (t, n) in enumerate(runs):
            if k < len(old):  # the old ids are reused first
                r = old[k]
                if tok[r] == t:
                    length[r] = n
                    placed.append(r)
                    continue
                tok[r], length[r] = t, n
            else:
                r = len(tok)
                tok.append(t)
                length.append(n)
                self.before.append(-1)
                self.after.append(-1)
                self.weight.append(weight)
            runs_of.setdefault(t, array("i")).append(r)
            self.indexed += 1
            placed.append(r)
        for r in old[len(runs) :]:
            tok[r] = GONE
        return placed

    def _replace(self, old: list[int], runs: list[tuple[int, int]], delta: dict[int, int]) -> bool:
        """Replace the consecutive runs ``old`` by ``runs`` (``(token id, length)``, no two
        neighbours equal, not empty), join equal neighbours, and add the change of the pair counts
        (times the pretoken's count) to ``delta``; whether the pretoken is now one token."""
        tok, length, before, after = self.tok, self.length, self.before, self.after
        weight = self.weight[old[0]]
        previous, following = before[old[0]], after[old[-1]]
        outer = [following] if following != -1 else []
        chain = [previous] if previous != -1 else []
        self._count([*chain, *old, *outer], delta, -weight)
        chain += self._place(old, runs, weight)
        chain += outer
        for r, s in itertools.pairwise(chain):
            after[r], before[s] = s, r
        if previous == -1:
            before[chain[0]] = -1
        if following == -1:
            after[chain[-1]] = -1
        kept = [chain[0]]
        for r in chain[1:]:
            keep = kept[-1]
            if tok[r] == tok[keep]:  # equal neighbours become one run
                length[keep] += length[r]
                tok[r] = GONE
                after[keep] = after[r]
                if after[r] != -1:
                    before[after[r]] = keep
            else:
                kept.append(r)
        self._count(kept, delta, weight)
        self.beat.work(CHANGE_WORK)
        return len(kept) == 1 and length[kept[0]] == 1 and before[kept[0]] == after[kept[0]] == -1

    def _apply(self, delta: dict[int, int]) -> None:
        names = self.names
        self.apply({(names[key >> 32], names[key & _LOW]): change for key, change in delta.items() if change})
        if self.indexed > len(self.tok):
            self._reindex()

    def merge(self, left: str, right: str) -> tuple[int, bool]:
        """Merge the pair in every pretoken, left to right without overlap (a run of ``x`` of
        length n under ``(x, x)`` becomes n // 2 tokens ``xx``, then an ``x`` if n is odd);
        (weighted merges, some pretoken became whole)."""
        a, b = self.ids[left], self.ids[right]
        token = left + right
        merged = self._id(token)
        length, after, weights = self.length, self.after, self.weight
        delta: dict[int, int] = {}
        total, whole = 0, False
        for r in self._starts(a, b):
            n = length[r]
            if a == b:
                total += n // 2 * weights[r]
                runs = [(merged, n // 2), (a, 1)] if n % 2 else [(merged, n // 2)]
                whole |= self._replace([r], runs, delta)
                continue
            s = after[r]
            m = length[s]
            total += weights[r]
            runs = [(a, n - 1), (merged, 1)] if n > 1 else [(merged, 1)]
            if m > 1:
                runs.append((b, m - 1))
            whole |= self._replace([r, s], runs, delta)
        self._apply(delta)
        frequency = self.frequency
        frequency[token] = frequency.get(token, 0) + total
        for part in (left, right):
            frequency[part] -= total
            if not frequency[part]:
                del frequency[part]
        return total, whole

    def delete(self, token: str, pieces: tuple[str, ...]) -> int:
        """Replace every occurrence of ``token`` by ``pieces``; returns the weighted count."""
        delta: dict[int, int] = {}
        unit: list[tuple[int, int]] = []
        for t in map(self._id, pieces):
            if unit and unit[-1][0] == t:
                unit[-1] = (t, unit[-1][1] + 1)
            else:
                unit.append((t, 1))
        total = 0
        deleted = self.ids.get(token)
        for r in self._runs(deleted, _view(self.tok)).tolist() if deleted is not None else ():
            n = self.length[r]
            total += n * self.weight[r]
            self._replace([r], _repeated(unit, n), delta)
        self._apply(delta)
        frequency = self.frequency
        frequency.pop(token, None)
        for piece in pieces:
            if total:
                frequency[piece] = frequency.get(piece, 0) + total
        return total
