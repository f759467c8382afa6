"""BoundlessBPE's superword state in compact arrays ([boundless §3.1 and App. B]): the candidate
runs of supermerges (:mod:`core.counting.sequences`: distinct runs of letter-containing
pretokens with their counts) as token ids, one int32 per position, with the pair counts of the
authors' ``get_stats`` (:mod:`core.families.boundless.states`): a pair counts only when both
tokens are unlocked,

    count(a, b), a != b:  adjacent a | b, times the run's count
    count(x, x):          floor(length / 2) per maximal stretch of x, times the run's count

Storage, for N positions (all runs one after another): ``token`` (int32 id, -1 once a merge
absorbed the position), ``after``/``before`` (int32 links to the live neighbours in the run, -1
at its ends) and ``weight`` (the run's count); which positions hold a token is indexed by id
(one int32 per position, filtered lazily as tokens change). Memory grows with N, never with the
corpus' repetitions.

Unlocking a token and a supermerge are vectorised over the occurrences they touch. Each change
recounts the *windows* around its occurrences before and after: a window is an interval of
positions from the live neighbour before an occurrence to the one after it, widened over equal
tokens so that no stretch of one token crosses its ends, and overlapping windows are joined.
Tokens outside the windows and at their ends do not change, so the difference of the two counts
is the exact change of every pair count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from core.counting.sequences import PretokenSequences
from core.deadline import Heartbeat
from core.errors import InputError
from core.families.boundless.states import Pair, _PairQueue

_LOW = np.int64(0xFFFFFFFF)


def _join(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The intervals ``[lo, hi]`` with overlapping ones joined, in order."""
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(hi)
    starts = np.flatnonzero(np.concatenate(([True], lo[1:] > reach[:-1])))
    return lo[starts], np.maximum.reduceat(hi, starts)


def _ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position of the intervals ``[lo, hi]`` and the index of its interval."""
    lengths = hi - lo + 1
    window = np.repeat(np.arange(len(lo)), lengths)
    firsts = np.cumsum(lengths) - lengths
    return lo[window] + (np.arange(int(lengths.sum())) - firsts[window]), window


def _totals(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` summed per distinct key (zeros dropped)."""
    if not len(keys):
        return keys, values
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    sums = np.add.reduceat(values, starts)
    kept = sums != 0
    return keys[starts][kept], sums[kept]


class Superwords(_PairQueue):
    """The superword state (module docstring); pairs and tokens are raw strings at its interface.
    ``texts[i]`` is the raw text of ``sequences.pretokens[i]``; ``counted(text)`` is how often
    ``text`` occurs as a pretoken of the corpus (inside runs or not), for :meth:`occurrences`."""

    def __init__(
        self,
        sequences: PretokenSequences,
        texts: Sequence[str],
        counted: Callable[[str], int],
        unlockable: Callable[[str], bool],
        beat: Heartbeat,
    ):
        super().__init__()
        self.unlockable = unlockable
        self.unlocked: set[str] = set()
        self.counted = counted
        self.beat = beat
        self.texts = list(texts)
        self.ids = {text: i for i, text in enumerate(self.texts)}
        lengths = np.diff(sequences.offsets)
        n = int(sequences.offsets[-1])
        if n >= 1 << 31:
            raise InputError(f"{n} pretokens in supermerge runs: at most 2**31 - 1 fit the int32 links")
        self.token = sequences.ids.astype(np.int32, copy=True)
        self.after = np.arange(1, n + 1, dtype=np.int32)
        self.before = np.arange(-1, n - 1, dtype=np.int32)
        filled = lengths > 0
        self.after[sequences.offsets[1:][filled] - 1] = -1
        self.before[sequences.offsets[:-1][filled]] = -1
        small = not len(sequences.counts) or int(sequences.counts.max()) < 1 << 31
        self.weight = np.repeat(sequences.counts.astype(np.int32 if small else np.int64), lengths)
        size = len(self.texts)
        self.unlocked_id = np.zeros(size, dtype=bool)
        # occurrences: live weighted ones in the runs; outside: the corpus' others (fixed)
        self.in_runs = np.bincount(self.token, weights=self.weight, minlength=size).astype(np.int64)
        self.outside = np.array([counted(t) for t in self.texts], dtype=np.int64) - self.in_runs
        self.order = np.argsort(self.token, kind="stable").astype(np.int32)
        self.first = np.concatenate(([0], np.cumsum(np.bincount(self.token, minlength=size)))).astype(np.int64)
        self.where: dict[int, np.ndarray] = {}  # id -> its positions, where they differ from order's
        beat.work(n)

    def _id(self, text: str) -> int:
        """The id of ``text``, a new one (no positions yet) if it has none."""
        known = self.ids.get(text)
        if known is not None:
            return known
        new = self.ids[text] = len(self.texts)
        self.texts.append(text)
        if new == len(self.unlocked_id):  # grow by half, so that appending stays cheap
            more = len(self.unlocked_id) // 2 + 16
            self.unlocked_id = np.concatenate((self.unlocked_id, np.zeros(more, dtype=bool)))
            self.in_runs = np.concatenate((self.in_runs, np.zeros(more, dtype=np.int64)))
            self.outside = np.concatenate((self.outside, np.zeros(more, dtype=np.int64)))
        self.unlocked_id[new] = text in self.unlocked
        self.outside[new] = self.counted(text)
        return new

    def positions(self, t: int) -> np.ndarray:
        """The live positions of token id ``t``, in order."""
        stored = self.where.get(t)
        if stored is None:
            stored = self.order[self.first[t] : self.first[t + 1]] if t + 1 < len(self.first) else self.order[:0]
        live = stored[self.token[stored] == t]
        if len(live) != len(stored):
            self.where[t] = live
        return live

    def occurrences(self, text: str) -> int:
        """Weighted occurrences of ``text`` in the corpus' running text."""
        t = self.ids.get(text)
        return int(self.in_runs[t] + self.outside[t]) if t is not None else self.counted(text)

    def _widen(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Join the windows, widen their ends over equal tokens, and join them again."""
        lo, hi = _join(lo, hi)
        token, before, after = self.token, self.before, self.after
        for ends, step in ((lo, before), (hi, after)):
            moving = np.arange(len(ends))
            while len(moving):
                nxt = step[ends[moving]]
                moving = moving[nxt != -1]
                nxt = nxt[nxt != -1]
                same = token[nxt] == token[ends[moving]]
                moving = moving[same]
                ends[moving] = nxt[same]
        return _join(lo, hi)

    def _pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pair counts inside the windows: keys ``left << 32 | right`` and weighted counts."""
        positions, window = _ranges(lo, hi)
        live = self.token[positions] >= 0
        positions, window = positions[live], window[live]
        t = self.token[positions]
        unlocked = self.unlocked_id[t]
        weight = self.weight[positions].astype(np.int64)
        same_window = window[1:] == window[:-1]
        left, right = t[:-1], t[1:]
        edge = same_window & (left != right) & unlocked[:-1] & unlocked[1:]
        keys = [(left[edge].astype(np.int64) << 32) | right[edge]]
        counts = [weight[:-1][edge]]
        starts = np.flatnonzero(np.concatenate(([True], ~(same_window & (left == right)))))
        lengths = np.diff(np.append(starts, len(t)))
        stretch = (lengths > 1) & unlocked[starts]
        starts = starts[stretch]
        keys.append((t[starts].astype(np.int64) << 32) | t[starts])
        counts.append(lengths[stretch] // 2 * weight[starts])
        return np.concatenate(keys), np.concatenate(counts)

    def _apply(self, before: tuple[np.ndarray, np.ndarray], after: tuple[np.ndarray, np.ndarray]) -> None:
        """Apply the change of the pair counts from the counts ``before`` to ``after``."""
        keys, changes = _totals(np.concatenate((after[0], before[0])), np.concatenate((after[1], -before[1])))
        texts = self.texts
        delta: dict[Pair, int] = {
            (texts[key >> 32], texts[key & 0xFFFFFFFF]): change
            for key, change in zip(keys.tolist(), changes.tolist(), strict=True)
        }
        self.apply(delta)

    def unlock(self, text: str) -> bool:
        """Make a whole-word token pair up (if the merge pattern allows and it is new)."""
        if text in self.unlocked or not self.unlockable(text):
            return False
        self.unlocked.add(text)
        t = self.ids.get(text)
        if t is None:
            return True
        at = self.positions(t)
        if not len(at):
            self.unlocked_id[t] = True
            return True
        before, after = self.before[at], self.after[at]
        lo, hi = _join(np.where(before != -1, before, at), np.where(after != -1, after, at))
        counts = self._pairs(lo, hi)
        self.unlocked_id[t] = True
        self._apply(counts, self._pairs(lo, hi))
        self.beat.work(len(at))
        return True

    def _left_ends(self, a: int, b: int) -> np.ndarray:
        """Where the merges of ``a b`` start, left to right without overlap."""
        token, after, before = self.token, self.after, self.before
        if a == b:
            at = self.positions(a)
            follows = after[at[:-1]] == at[1:]  # the next position of a is its neighbour
            starts = np.flatnonzero(np.concatenate(([True], ~follows)))
            rank = np.arange(len(at)) - np.repeat(starts, np.diff(np.append(starts, len(at))))
            return at[(rank % 2 == 0) & np.append(follows, False)]
        lefts, rights = self.positions(a), self.positions(b)
        if len(lefts) <= len(rights):
            nxt = after[lefts]
            return lefts[(nxt != -1) & (token[nxt] == b)]
        previous = before[rights]
        previous = previous[previous != -1]
        return previous[token[previous] == a]

    def merge(self, left: str, right: str) -> int:
        """Supermerge ``left right`` in every run, left to right; returns the weighted count."""
        merged = left + right
        if left != right:
            self.unlocked.add(merged)
        a, b, m = self.ids[left], self.ids[right], self._id(merged)
        if left != right:
            self.unlocked_id[m] = True
        starts = self._left_ends(a, b)
        ends = self.after[starts]
        token, before, after = self.token, self.before, self.after
        outer_before, outer_after = before[starts], after[ends]
        lo, hi = self._widen(
            np.where(outer_before != -1, outer_before, starts), np.where(outer_after != -1, outer_after, ends)
        )
        counts = self._pairs(lo, hi)
        token[starts] = m
        token[ends] = -1
        after[starts] = outer_after
        linked = outer_after != -1
        before[outer_after[linked]] = starts[linked]
        done = int(self.weight[starts].sum(dtype=np.int64))
        self.in_runs[a] -= done
        self.in_runs[b] -= done
        self.in_runs[m] += done
        earlier = self.positions(m)
        self.where[m] = np.union1d(earlier, starts).astype(np.int32) if len(earlier) else starts
        self._apply(counts, self._pairs(lo, hi))
        self.beat.work(len(starts))
        return done
