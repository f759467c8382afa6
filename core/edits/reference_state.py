"""A reference set tokenised by a tokeniser, kept up to date incrementally as the tokeniser is edited.

Blame ([knockout §3.4]) needs, for every reference word, the merge that removed each
character boundary; evaluation (§4.1) needs the predicted splits. Both come from segmentation
traces. When an edit changes the merge list from M to M', a word can only segment differently if
a merge of M \\ M' fired in it (its trace used it) or a merge of M' \\ M can fire in it (its result
string occurs in one of the word's pretokens): the first divergence of the two runs is the first
step at which one of them applies a merge the other lacks. Only those words are re-traced, never
the whole reference (what the authors' implementation does after every edit).

Under ``ignore_merges`` a pretoken that is a type is emitted whole and no merge removes its
boundaries. With ``blame="tree"`` (the default) such a word charges the merges of its own tree,
i.e. the merges that would apply if it were not whole (the segmentation without the shortcut);
with ``blame="applied"`` it charges nothing, as only applied merges are blamed. Without
``ignore_merges`` (the papers' setting) the two are the same. The predicted splits are always those
of the real segmentation. A word is also re-traced when its pretoken's type leaves V (it is no
longer emitted whole).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from types import MappingProxyType
from typing import Literal, get_args

from core.bpe.model import BTETokeniser, Merge
from core.counting.pretoken_index import PretokenIndex
from core.options import check_choice
from core.references.alignment import AlignedWord
from core.references.evaluation import MorphScores, UnalignedPolicy, align_reference, morph_scores, split_counts

BlameMode = Literal["tree", "applied"]
BLAME_MODES = get_args(BlameMode)
#: from this many new merge results on, re-trace candidates are found by substring look-ups
SUBSTRING_LOOKUP_MIN = 600
#: ... and at least one per this many distinct pretokens of the reference
SUBSTRING_LOOKUP_RATIO = 4


@dataclass
class WordState:
    """One reference word: its alignment, gold splits, per-pretoken segmentations with the merge
    that removed each boundary, and split counts."""

    word: str
    weight: float
    aligned: AlignedWord
    gold: frozenset[int]
    segmentations: Sequence[tuple[str, ...]]  # a tuple once the reference is frozen
    boundary_merges: Sequence[tuple[Merge | None, ...]]
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def tokens(self) -> tuple[str, ...]:
        segmentations = self.segmentations
        return tuple(segmentations[0]) if len(segmentations) == 1 else tuple(chain.from_iterable(segmentations))

    def merges_applied(self) -> set[Merge]:
        return applied(self.boundary_merges)

    def predicted(self) -> set[int]:
        return self.aligned.predicted_splits(self.segmentations)


def applied(boundary_merges: Sequence[tuple[Merge | None, ...]]) -> set[Merge]:
    """The merges that removed a boundary (each once)."""
    return set(filter(None, chain.from_iterable(boundary_merges)))


def _by_id(merges: Sequence[Merge]) -> dict[int, Merge]:
    return dict(zip(map(id, merges), merges, strict=True))


def tree_boundaries(engine, pretoken: str) -> tuple[Merge | None, ...]:
    """Per character boundary, the merge that removes it when ``pretoken`` is segmented without the
    ``ignore_merges`` shortcut (the merges of its own tree when it is a self-formed type)."""
    symbols = engine.atomise(pretoken)
    starts, start = [], 0
    for atom in symbols:
        starts.append(start)
        start += len(atom)
    boundary: list[Merge | None] = [None] * max(len(pretoken) - 1, 0)

    def record(position: int, width: int, merge: Merge) -> None:
        for start in starts[position + 1 : position + width]:
            boundary[start - 1] = merge
        del starts[position + 1 : position + width]

    engine._run(symbols, len(engine.merges), record)
    return tuple(boundary)


class BlameTally:
    """Running N(m) and B(m) over the reference ([knockout §3.4]; counted as
    ``core.edits.blame.compute_blame`` documents), brought up to date from the re-traced words only, so
    blame after an edit costs the changed words, not the whole reference. Per merge:
    [N, B, number of words it fired in]; a merge leaves the tally when that number reaches 0."""

    def __init__(self, tuples_once: bool):
        self.tuples_once = tuples_once
        self.totals: dict[Merge, list] = {}

    def add(self, state: WordState, boundary_merges: Sequence[tuple[Merge | None, ...]], sign: int) -> None:
        """Add (sign +1) or withdraw (sign -1) one word's contribution under ``boundary_merges``."""
        weight, gold, totals = sign * state.weight, state.gold, self.totals
        counted_n: set[Merge] = set()
        counted_b: set[Merge] = set()
        for pretoken, boundaries in zip(state.aligned.pretokens, boundary_merges, strict=True):
            for merge, position in zip(boundaries, pretoken.boundary_positions, strict=True):
                if merge is None:
                    continue
                entry = totals.get(merge)
                if entry is None:
                    entry = totals[merge] = [0, 0, 0]
                if merge not in counted_n:
                    entry[2] += sign
                    entry[0] += weight
                    counted_n.add(merge)
                elif not self.tuples_once:
                    entry[0] += weight
                if position in gold and (not self.tuples_once or merge not in counted_b):
                    entry[1] += weight
                    counted_b.add(merge)
        if sign < 0:
            for merge in counted_n:
                if not totals[merge][2]:
                    del totals[merge]


class TokenisedReference:
    """Reference words with their current traces, an index merge -> words it fired in, and scores.

    It changes as it is updated and as blame is read (tallies are brought up to date lazily), so
    one run owns it; :meth:`freeze` makes it read-only, to share between threads (the explorer's
    browser sessions)."""

    def __init__(
        self,
        tokeniser: BTETokeniser,
        entries: Iterable,
        *,
        free: bool = False,
        weights: Mapping[str, float] | None = None,
        blame: BlameMode = "tree",
        unaligned: UnalignedPolicy = "exclude",
    ):
        check_choice("blame", blame, BLAME_MODES, "TokenisedReference")
        self.tokeniser = tokeniser
        self.free = free
        self.blame = blame
        reference = align_reference(tokeniser.pretokeniser, entries, free=free, weights=weights, unaligned=unaligned)
        self.words: Sequence[WordState] = [
            WordState(w.word, w.weight, w.aligned, w.gold, [], []) for w in reference.words
        ]
        self.unaligned: tuple[str, ...] = reference.excluded  # left out of every score, counted in it
        self._index: dict[Merge, set[int]] = {}  # kept up to date by every re-trace
        #: merge -> the words it fired in (read-only once frozen)
        self.index: Mapping[Merge, AbstractSet[int]] = self._index
        self._tallies: dict[bool, BlameTally] = {}
        self._untallied: dict[int, Sequence[tuple[Merge | None, ...]]] = {}  # word -> boundary merges last tallied
        self._frozen_totals: dict[bool, Mapping[Merge, tuple]] | None = None  # set by freeze()
        self._merges_by_id: dict[int, Merge] | None = None  # the tokeniser's merges by identity, once edited
        #: which words have a pretoken containing a string (the pretokens of the reference never change)
        self.pretokens = PretokenIndex([p.text for p in state.aligned.pretokens] for state in self.words)
        for i in range(len(self.words)):
            self._retrace(i)

    def __getstate__(self) -> dict:
        """Pickled (a worker process's result) without the merges by identity: ids are this process's."""
        return {**self.__dict__, "_merges_by_id": None}

    def __repr__(self) -> str:
        return (
            f"<TokenisedReference {len(self.words):,} words ({len(self.unaligned):,} unaligned), blame {self.blame!r}"
            f"{', free morphs' if self.free else ''}, tokeniser {self.tokeniser.name!r}>"
        )

    # --- incremental maintenance ----------------------------------------------------------------
    def _retrace(self, i: int) -> None:
        state = self.words[i]
        if self._tallies and i not in self._untallied:
            self._untallied[i] = state.boundary_merges
        index = self._index
        for merge in applied(state.boundary_merges):
            users = index.get(merge)
            if users is not None:
                users.discard(i)
        engine = self.tokeniser.engine
        results = list(map(engine.boundary_trace, map(attrgetter("text"), state.aligned.pretokens)))
        whole = engine.ignore_merges_vocab
        if whole is not None and self.blame == "tree":
            results = [
                (tokens, tree_boundaries(engine, p.text))
                if len(tokens) == 1 and len(p.text) > 1 and p.text in whole
                else (tokens, boundaries)
                for p, (tokens, boundaries) in zip(state.aligned.pretokens, results, strict=True)
            ]
        state.segmentations = [tokens for tokens, _ in results]
        state.boundary_merges = [boundaries for _, boundaries in results]
        for merge in applied(state.boundary_merges):
            users = index.get(merge)
            if users is None:
                index[merge] = {i}
            else:
                users.add(i)
        state.tp, state.fp, state.fn = split_counts(state.predicted(), state.gold)

    def update(self, tokeniser: BTETokeniser) -> list[tuple[int, tuple[str, ...]]]:
        """Switch to ``tokeniser`` (same pre-tokeniser); re-trace only words that can change.

        Returns (word index, tokens before) for every word whose tokens changed. Merges are
        compared by identity first: edits reuse the Merge objects they leave alone, and an equal
        but distinct object only costs an unnecessary re-trace.
        """
        if self.frozen:
            raise TypeError("this traced reference is frozen (shared read-only); trace a new one to edit")
        if tokeniser is self.tokeniser:
            return []
        if tokeniser.pretokeniser != self.tokeniser.pretokeniser:
            raise ValueError("an edited tokeniser must keep the pre-tokeniser of the reference")
        # by identity, in C loops (a Python loop over the 464k merges of o200k costs 0.15 s each)
        old_by_id = self._merges_by_id or _by_id(self.tokeniser.merges)
        new_by_id = self._merges_by_id = _by_id(tokeniser.merges)  # the next edit's old merges
        gone = list(map(old_by_id.__getitem__, old_by_id.keys() - new_by_id.keys()))
        added = list(map(new_by_id.__getitem__, new_by_id.keys() - old_by_id.keys()))
        candidates = self._words_to_retrace(tokeniser, gone, added)
        self.tokeniser = tokeniser
        changed = []
        for i in sorted(candidates):
            before = self.words[i].tokens
            self._retrace(i)
            if self.words[i].tokens != before:
                changed.append((i, before))
        for merge in gone:
            if not self._index.get(merge):
                self._index.pop(merge, None)
        return changed

    def _words_to_retrace(self, tokeniser: BTETokeniser, gone: list[Merge], added: list[Merge]) -> set[int]:
        """The words that can segment differently under ``tokeniser``: a merge that is ``gone``
        fired in them, or a merge that is ``added``: its result occurs in one of their pretokens, or (under
        ``ignore_merges``) a pretoken of theirs was a type that left V."""
        candidates: set[int] = set()
        for merge in gone:
            candidates |= self._index.get(merge, set())
        if added:
            candidates |= self._containing_any({m.result for m in added})
        if tokeniser.ignore_merges or self.tokeniser.ignore_merges:  # whole pretokens whose type left V
            owners = self.pretokens.owners
            for merge in gone:
                if merge.result in owners and merge.result not in tokeniser.types:
                    candidates |= owners[merge.result]
        return candidates

    def _containing_any(self, strings: set[str]) -> set[int]:
        """The words with a pretoken containing one of ``strings`` (``PretokenIndex.containing_any``).

        For many strings (an edit of a large tokeniser rewires thousands of merges), at least a
        quarter as many as there are distinct pretokens, every substring of each pretoken, up to the
        longest string, is looked up in the set instead (stopping at the first found): on o200k
        with nl_morph (1,146 pretokens, 16,598 rewired results) 6 ms, against 43 ms for a look-up
        per string in the index of three-character pieces (0.6 s for the trie pattern that index
        replaced)."""
        pretokens = self.pretokens.owners
        if (
            len(strings) <= SUBSTRING_LOOKUP_MIN
            or len(strings) * SUBSTRING_LOOKUP_RATIO < len(pretokens)
            or "" in strings
        ):
            return self.pretokens.containing_any(strings)
        longest = max(map(len, strings))
        found: set[int] = set()
        for pretoken, owners in pretokens.items():
            n = len(pretoken)
            if any(
                pretoken[start:end] in strings
                for start in range(n)
                for end in range(start + 1, min(n, start + longest) + 1)
            ):
                found |= owners
        return found

    @property
    def frozen(self) -> bool:
        return self._frozen_totals is not None

    def freeze(self) -> TokenisedReference:
        """Make this reference read-only and return it: both blame tallies (``tuples_once`` off and
        on) are counted now; afterwards :meth:`update` raises, :meth:`blame_totals` returns
        read-only counts, and the words, their segmentations and the indexes are immutable."""
        if not self.frozen:
            self._frozen_totals = {
                once: MappingProxyType({m: tuple(entry) for m, entry in self.blame_totals(once).items()})
                for once in (False, True)
            }
            self._tallies.clear()
            self._merges_by_id = None
            for state in self.words:
                state.segmentations = tuple(state.segmentations)
                state.boundary_merges = tuple(state.boundary_merges)
            self.words = tuple(self.words)
            self.index = MappingProxyType({m: frozenset(users) for m, users in self._index.items()})
        return self

    # --- read-outs -------------------------------------------------------------------------------
    def blame_totals(self, tuples_once: bool = False) -> Mapping[Merge, Sequence]:
        """Merge -> [N(m), B(m), words]; counted in full once, then maintained by every re-trace
        (when frozen: read-only, counted by :meth:`freeze`)."""
        if self._frozen_totals is not None:
            return self._frozen_totals[tuples_once]
        for i, before in self._untallied.items():
            state = self.words[i]
            for kept in self._tallies.values():
                kept.add(state, before, -1)
                kept.add(state, state.boundary_merges, +1)
        self._untallied.clear()
        tally = self._tallies.get(tuples_once)
        if tally is None:
            tally = self._tallies[tuples_once] = BlameTally(tuples_once)
            for state in self.words:
                tally.add(state, state.boundary_merges, +1)
        return tally.totals

    def scores(self) -> MorphScores:
        return morph_scores(((s.weight, s.tp, s.fp, s.fn) for s in self.words), len(self.unaligned))

    def token_counts(self) -> list[int]:
        return [len(s.tokens) for s in self.words]
