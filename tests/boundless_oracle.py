"""The states of BoundlessBPE training as they were before their compact arrays
(:mod:`core.families.boundless.states`, :mod:`core.families.boundless.superwords`): every pretoken
(words) or document (superwords, a line of the corpus, unweighted) as linked runs of strings
([boundless App. B]). Test oracles: training with them must give the same operations and events
as training with the compact states (tests/core/families/test_boundless_compact.py,
tests/core/families/test_boundless_words.py)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

from core.deadline import Heartbeat
from core.families.boundless.states import CHANGE_WORK, Pair, _PairQueue

#: The text of a run that is gone (tokens are never empty).
GONE = ""


def _runs_of(tokens: Iterable[str]) -> list[list]:
    """``[[token, length], ...]`` of a token sequence."""
    runs: list[list] = []
    for token in tokens:
        if runs and runs[-1][0] == token:
            runs[-1][1] += 1
        else:
            runs.append([token, 1])
    return runs


class _Runs(_PairQueue):
    """Weighted token sequences as one array of linked runs (``text[r]`` is ``GONE`` once ``r``
    is gone); ``countable`` None means every token pairs up."""

    def __init__(
        self, sequences: Iterable[Sequence[str]], weights: Sequence[int], countable: set[str] | None, beat: Heartbeat
    ):
        super().__init__()
        self.weights = list(weights)
        self.countable = countable
        self.beat = beat
        self.text: list[str] = []
        self.length: list[int] = []
        self.before: list[int] = []
        self.after: list[int] = []
        self.owner: list[int] = []
        self.tokens_in: list[int] = []  # per sequence: its number of tokens
        self.whole = False  # has a change made some sequence a single token?
        self.runs_of: dict[str, set[int]] = {}  # token -> its runs
        self.total: dict[str, int] = {}  # token -> unweighted occurrences
        self.starts: dict[Pair, list[int]] = {}  # pair -> runs where it may start (checked on use)
        text, length = self.text, self.length
        delta: dict[Pair, int] = {}
        for index, sequence in enumerate(sequences):
            self.tokens_in.append(len(sequence))
            if not sequence:
                continue
            first = len(text)
            for token in sequence:
                if len(text) > first and text[-1] == token:
                    length[-1] += 1
                else:
                    text.append(token)
                    length.append(1)
            runs = range(first, len(text))
            self.before.extend(range(first - 1, len(text) - 1))
            self.after.extend(range(first + 1, len(text) + 1))
            self.before[first] = self.after[-1] = -1
            self.owner.extend([index] * len(runs))
            self._add(runs, delta, self.weights[index])
            beat.work(len(sequence))
        for r, (token, n) in enumerate(zip(text, length, strict=True)):
            self.runs_of.setdefault(token, set()).add(r)
            self.total[token] = self.total.get(token, 0) + n
        self.apply(delta)

    def _count(self, runs: Iterable[int], delta: dict[Pair, int], weight: int) -> None:
        """Add ``weight`` x the pair counts of the consecutive ``runs`` to ``delta``."""
        text, length, countable = self.text, self.length, self.countable
        previous: str | None = None
        for r in runs:
            token = text[r]
            if countable is None or token in countable:
                if length[r] > 1:
                    delta[(token, token)] = delta.get((token, token), 0) + length[r] // 2 * weight
                if previous is not None:
                    delta[(previous, token)] = delta.get((previous, token), 0) + weight
                previous = token
            else:
                previous = None

    def _add(self, runs: Iterable[int], delta: dict[Pair, int], weight: int) -> None:
        """:meth:`_count`, and record the pairs starting at the consecutive ``runs`` (the last
        one's with its successor too), countable or not: unlocking may make them countable."""
        text, length, after, countable, starts = self.text, self.length, self.after, self.countable, self.starts
        previous: str | None = None
        for r in runs:
            token, n, s = text[r], length[r], after[r]
            if n > 1:
                starts.setdefault((token, token), []).append(r)
            if s != -1:
                starts.setdefault((token, text[s]), []).append(r)
            if countable is None or token in countable:
                if n > 1:
                    delta[(token, token)] = delta.get((token, token), 0) + n // 2 * weight
                if previous is not None:
                    delta[(previous, token)] = delta.get((previous, token), 0) + weight
                previous = token
            else:
                previous = None

    def _replace(self, old: list[int], runs: list[list], delta: dict[Pair, int]) -> None:
        """Replace the consecutive runs ``old`` by ``runs`` (``[token, length]``, no two
        neighbours equal, not empty), join equal neighbours, and add the change of the pair counts
        (times the sequence's weight) to ``delta``."""
        text, length, before, after = self.text, self.length, self.before, self.after
        runs_of, total = self.runs_of, self.total
        owner = self.owner[old[0]]
        weight = self.weights[owner]
        previous, following = before[old[0]], after[old[-1]]
        chain = [previous] if previous != -1 else []
        self._count([*chain, *old, *([following] if following != -1 else [])], delta, -weight)
        size = self.tokens_in[owner]
        for r in old:
            token = text[r]
            runs_of[token].discard(r)
            total[token] -= length[r]
            size -= length[r]
        for k, (token, n) in enumerate(runs):
            if k < len(old):  # the old ids are reused first
                r = old[k]
                text[r], length[r] = token, n
            else:
                r = len(text)
                text.append(token)
                length.append(n)
                before.append(-1)
                after.append(-1)
                self.owner.append(owner)
            runs_of.setdefault(token, set()).add(r)
            total[token] = total.get(token, 0) + n
            size += n
            chain.append(r)
        for r in old[len(runs) :]:
            text[r] = GONE
        self.whole = self.whole or size == 1 < self.tokens_in[owner]
        self.tokens_in[owner] = size
        if following != -1:
            chain.append(following)
        for r, s in itertools.pairwise(chain):
            after[r], before[s] = s, r
        if previous == -1:
            before[chain[0]] = -1
        if following == -1:
            after[chain[-1]] = -1
        kept = [chain[0]]
        for r in chain[1:]:
            keep = kept[-1]
            if text[r] == text[keep]:  # equal neighbours become one run
                length[keep] += length[r]
                runs_of[text[r]].discard(r)
                text[r] = GONE
                after[keep] = after[r]
                if after[r] != -1:
                    before[after[r]] = keep
            else:
                kept.append(r)
        self._add(kept, delta, weight)
        self.beat.work(CHANGE_WORK)

    def merge_pair(self, left: str, right: str, delta: dict[Pair, int]) -> int:
        """Merge ``left right`` everywhere, left to right without overlap (a run of ``x`` of
        length n under ``(x, x)`` becomes n // 2 tokens ``xx``, then an ``x`` if n is odd); adds
        the count changes to ``delta`` and returns the weighted number of merges."""
        text, length, after, weights, owner = self.text, self.length, self.after, self.weights, self.owner
        merged = left + right
        done = 0
        for r in self.starts.pop((left, right), ()):
            if text[r] != left:
                continue
            if left == right:
                n = length[r]
                if n < 2:
                    continue
                runs = [[merged, n // 2]] + ([[left, 1]] if n % 2 else [])
                done += n // 2 * weights[owner[r]]
                self._replace([r], runs, delta)
            else:
                s = after[r]
                if s == -1 or text[s] != right:
                    continue
                runs = (
                    ([[left, length[r] - 1]] if length[r] > 1 else [])
                    + [[merged, 1]]
                    + ([[right, length[s] - 1]] if length[s] > 1 else [])
                )
                done += weights[owner[r]]
                self._replace([r, s], runs, delta)
        return done

    def occurrences(self, token: str) -> int:
        """Unweighted occurrences of ``token``."""
        return self.total.get(token, 0)


class OracleWords(_Runs):
    """The words state: unique pretokens x counts, every pair countable; ``frequency`` is each
    token's weighted number of occurrences."""

    def __init__(self, counts: dict[str, int], beat: Heartbeat):
        super().__init__(list(counts), list(counts.values()), None, beat)
        self.frequency: dict[str, int] = {}
        frequency, weights = self.frequency, self.weights
        for token, n, owner in zip(self.text, self.length, self.owner, strict=True):
            frequency[token] = frequency.get(token, 0) + n * weights[owner]

    def merge(self, left: str, right: str) -> tuple[int, bool]:
        """Merge the pair in every pretoken; (weighted merges, some pretoken became whole)."""
        token = left + right
        delta: dict[Pair, int] = {}
        self.whole = False
        total = self.merge_pair(left, right, delta)
        self.apply(delta)
        frequency = self.frequency
        frequency[token] = frequency.get(token, 0) + total
        for part in (left, right):
            frequency[part] -= total
            if not frequency[part]:
                del frequency[part]
        return total, self.whole

    def delete(self, token: str, pieces: tuple[str, ...]) -> int:
        """Replace every occurrence of ``token`` by ``pieces``; returns the weighted count."""
        delta: dict[Pair, int] = {}
        unit = _runs_of(pieces)
        total = 0
        for r in list(self.runs_of.get(token, ())):
            n = self.length[r]
            total += n * self.weights[self.owner[r]]
            runs = [[unit[0][0], unit[0][1] * n]] if len(unit) == 1 else _runs_of(p for _ in range(n) for p in pieces)
            self._replace([r], runs, delta)
        self.apply(delta)
        frequency = self.frequency
        frequency.pop(token, None)
        for piece in pieces:
            if total:
                frequency[piece] = frequency.get(piece, 0) + total
        return total


class OracleSuperwords(_Runs):
    """The superword state: documents as sequences of whole pretokens; a token pairs up once it
    is unlocked (:meth:`unlock`, or made by a supermerge)."""

    def __init__(self, documents: Iterable[Sequence[str]], unlockable: Callable[[str], bool], beat: Heartbeat):
        documents = list(documents)
        unlocked: set[str] = set()
        super().__init__(documents, [1] * len(documents), unlocked, beat)
        self.unlockable = unlockable
        self.unlocked = unlocked

    def unlock(self, text: str) -> bool:
        """Make a whole-word token pair up (if the merge pattern allows and it is new)."""
        if text in self.unlocked or not self.unlockable(text):
            return False
        self.unlocked.add(text)
        tokens, length, before, after, unlocked = self.text, self.length, self.before, self.after, self.unlocked
        delta: dict[Pair, int] = {}
        for r in self.runs_of.get(text, ()):
            if length[r] > 1:
                delta[(text, text)] = delta.get((text, text), 0) + length[r] // 2
            if before[r] != -1 and tokens[before[r]] in unlocked:
                delta[(tokens[before[r]], text)] = delta.get((tokens[before[r]], text), 0) + 1
            if after[r] != -1 and tokens[after[r]] in unlocked:
                delta[(text, tokens[after[r]])] = delta.get((text, tokens[after[r]]), 0) + 1
        self.apply(delta)
        return True

    def merge(self, left: str, right: str) -> int:
        """Supermerge ``left right`` in every document, left to right; returns the count."""
        if left != right:
            self.unlocked.add(left + right)
        delta: dict[Pair, int] = {}
        done = self.merge_pair(left, right, delta)
        self.apply(delta)
        return done
