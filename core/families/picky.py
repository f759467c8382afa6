"""PickyBPE (Chizhov, Arnett, Korotkova & Yamshchikov, EMNLP 2024, "BPE Gets Picky"): BPE that
removes an intermediate type as soon as a merge has used up nearly all of its occurrences.

[rebpe §2.1] (PickyBPE marks parents during vocabularisation and records an *event list* of
merge events and split events) and App. A.4 (the criterion, Eq. 2). The details follow the
authors' code, pchizhov/picky_bpe @038fcb9 ``bpe_trainer.py``/``language.py``/
``picky_tokenize.py``, as reference-implementations.md §3 describes it.

Training (:func:`train`), on unique pretokens x counts, characters as atoms:

1. pick the pair with the highest count (*overlapping* windows, as HF, §1: ``aaa`` gives 2);
2. merge it everywhere (left to right, no overlap) into t; f(t) += m, f(x) -= m for each parent,
   m being the occurrences actually merged (f(x) -= 2m for a pair (x, x));
3. right after, for the left then the right parent x (once for (x, x)): with the *Intersection
   over Self* IoS(x) = m / (f(x) + m), the share of x's occurrences before the merge that the
   merge used (App. A.4 Eq. 2, f'(x, y) / f'(x); for (x, x) the authors' formula gives
   m / (f'(x) - m)), remove x when IoS(x) > τ.
   Atoms (single characters) are never removed. A removed type's remaining occurrences are
   replaced by its *present* descendants (recursively through the merge that first created it);
   a SPLIT event records them;
4. a merge whose string was removed before restores that type (same id, same creating pair);
5. repeat until |V| reaches ``vocab_size`` or no pair occurs.

The event list (MERGE and SPLIT, ids = positions) is the tokeniser. Options of :func:`train`,
defaults = the authors' code:

* ``threshold=0.9`` (τ, the authors' README); ``comparison=">"``, the authors' strict test
  (``">="`` is the paper's Eq. 2 and Kensho's re-implementation).
* ``tie="insertion"``: equal counts go to the pair that entered the authors' ``Counter`` first
  (``most_common``): corpus order at the start, later in the order the events create pairs; a
  pair whose count drops to 0 leaves and re-enters at the end, and a removal inserts its
  internal pairs even with count 0, as the authors' ``+=`` does. The authors visit the words of
  one step in ``set`` order (memory addresses); we visit them in corpus order, so a tie between
  two pairs first created in the same step may go the other way on a big corpus. ``"hf"``: count
  descending, then ``(left_id, right_id)`` with HF's ids (alphabet by code point, then creation
  order; a restored type keeps its id), so with τ > 1 training equals :mod:`core.bpe.trainer`.
* ``reserved_specials=0``: ``vocab_size`` counts the types of the event list only. The authors'
  trainer also counts its 4 special tokens (PAD, UNK, BOS, EOS; ``AUTHORS_SPECIALS``); pass 4
  to stop where they stop (they are not added to the vocabulary).

Deviations from the authors' code. (1) When a merge forms a string that is a *present* type
(e.g. a split recreated a pair merged before: "Additional merges" in their log), the authors
count |V| + 1 and count the pairs around that type's older occurrences a second time; we keep
|V| and count pairs exactly (the summary reports ``additional_merges``; none on the English
sample). (2) The authors drop the rarest 0.01% of characters to UNK (``--coverage``); here every
character of the corpus (and, for a byte-level pre-tokeniser, every byte) is an atom, and an
unseen character stays a token of its own.

Inference (:class:`PickyBPE`): replay the events in order on the pretoken's characters (a merge
event merges every occurrence, left to right; a split event replaces every occurrence of the
type by its recorded parts), computed as the authors' ``_encode_word_by_events`` does: apply
the earliest event after the last one applied that concerns a pair or token of the pretoken.
``whole_word=True`` is the authors' shortcut: a pretoken that is itself a type is kept whole.
It can change results: a type formed only inside longer words need not be reachable from its
own characters (tests/core/families/test_picky.py has a corpus where it is not).

Checked against the authors' code (V5 of TEST_VECTORS.md, scripts/compare_picky.py) and against a
literal recount implementation (tests/core/families/test_picky.py).
"""

from __future__ import annotations

import heapq
import itertools
import math
import numbers
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from core.bpe.model import BTETokeniser
from core.bpe.trainer import OCCURRENCES_PER_BEAT, PROGRESS_EVERY, _collect_word_counts, _initial_vocab
from core.counting.corpus import TrainingCorpus, initial_alphabet
from core.deadline import Heartbeat
from core.errors import InputError
from core.families.base import (
    FORMAT_PREFIX,
    FORMAT_VERSION,
    PretokenSegmenter,
    TrainingEvent,
    TrainingRun,
    merge_list_graph,
    read_envelope,
    read_flag,
)
from core.options import check_bool, check_choice, check_int
from core.trace import Trace, TraceEvent, traceable

KIND = "picky"
MERGE, SPLIT = "merge", "split"
TIE_RULES = ("insertion", "hf")
COMPARISONS = (">", ">=")
#: Special tokens the authors' trainer counts toward ``vocab_size`` (PAD, UNK, BOS, EOS).
AUTHORS_SPECIALS = 4

_SHIFT = 32  # pair key = left << _SHIFT | right; ids are not bounded by vocab_size
_MASK = (1 << _SHIFT) - 1


@dataclass(frozen=True)
class PickyEvent:
    """One event: a merge ``parts[0] + parts[1] -> token`` or a split ``token -> parts``."""

    kind: str
    token: str
    parts: tuple[str, ...]

    @property
    def label(self) -> str:
        if self.kind == MERGE:
            return f"{' + '.join(self.parts)} -> {self.token}"
        return f"{self.token} -> {' '.join(self.parts)}"

    def to_json(self) -> list:
        return [self.kind, self.token, list(self.parts)]


def final_vocabulary(alphabet: Iterable[str], events: Iterable[PickyEvent]) -> frozenset[str]:
    """The types present after the events, checking that every event is possible where it
    stands (parts present, a split's type present and longer than one character, the parts
    spelling the type); InputError naming the event otherwise."""
    present = set(alphabet)
    for n, event in enumerate(events):
        parts, token = event.parts, event.token
        if event.kind not in (MERGE, SPLIT):
            raise InputError(f"event {n}: kind must be {MERGE!r} or {SPLIT!r}, got {event.kind!r}")
        if event.kind == MERGE and len(parts) != 2:
            raise InputError(f"event {n}: a merge needs exactly two parts, got {list(parts)!r}")
        if event.kind == SPLIT and len(parts) < 2:
            raise InputError(f"event {n}: a split needs at least two parts, got {list(parts)!r}")
        if "".join(parts) != token:
            raise InputError(f"event {n}: parts {list(parts)!r} do not spell {token!r}")
        if event.kind == SPLIT:
            if token not in present or len(token) < 2:
                raise InputError(f"event {n}: cannot split {token!r}, which is not a present merged type")
            present.discard(token)
        missing = [p for p in parts if p not in present]
        if missing:
            raise InputError(f"event {n} ({event.label}): parts {missing!r} are not present types")
        if event.kind == MERGE:
            present.add(token)
    return frozenset(present)


class PickyBPE(PretokenSegmenter):
    """A trained PickyBPE tokeniser: an alphabet, the event list, a pre-tokeniser."""

    kind = KIND

    def __init__(
        self,
        alphabet: Iterable[str],
        events: Iterable[PickyEvent],
        pretokeniser,
        *,
        whole_word: bool = True,
        name: str = "",
    ):
        self.alphabet: tuple[str, ...] = tuple(dict.fromkeys(alphabet))
        bad = [a for a in self.alphabet if not isinstance(a, str) or len(a) != 1]
        if bad:
            raise InputError(f"alphabet entries must be single characters, got {bad[:5]!r}")
        check_bool("whole_word", whole_word)
        self.events: tuple[PickyEvent, ...] = tuple(events)
        self.vocabulary: frozenset[str] = final_vocabulary(self.alphabet, self.events)
        self.pretokeniser = pretokeniser
        self.whole_word = whole_word
        self.name = name
        self._merge_ids: dict[tuple[str, ...], list[int]] = {}
        self._split_ids: dict[str, list[int]] = {}
        for n, event in enumerate(self.events):
            if event.kind == MERGE:
                self._merge_ids.setdefault(event.parts, []).append(n)
            else:
                self._split_ids.setdefault(event.token, []).append(n)

    @property
    def vocab_size(self) -> int:
        return len(self.vocabulary)

    @cached_property
    def removed_types(self) -> frozenset[str]:
        """Types some merge formed that are not in the final vocabulary."""
        return frozenset(e.token for e in self.events if e.kind == MERGE) - self.vocabulary

    def merge_graph(self) -> BTETokeniser:
        """The merge events as a merge graph, each pair at its first event's position; removed
        types stay vertices (what PickyBPE splits at inference is not part of the graph)."""
        return merge_list_graph(
            self.alphabet, (e.parts for e in self.events if e.kind == MERGE), self.pretokeniser, self.name
        )

    def replay(self, pretoken: str):
        """The event replay on ``pretoken``'s characters (no shortcut): yields (event id, tokens
        after the event) for every event that changes it, in order."""
        tokens = list(pretoken)
        merge_ids, split_ids, events = self._merge_ids, self._split_ids, self.events
        last = -1
        while True:
            best = len(events)
            for pair in itertools.pairwise(tokens):
                ids = merge_ids.get(pair)
                if ids is not None and ids[-1] > last:
                    best = min(best, ids[bisect_right(ids, last)])
            for token in tokens:
                ids = split_ids.get(token)
                if ids is not None and ids[-1] > last:
                    best = min(best, ids[bisect_right(ids, last)])
            if best == len(events):
                return
            event = events[best]
            if event.kind == MERGE:
                tokens = _merge_all(tokens, event.parts, event.token)
            else:
                tokens = [p for t in tokens for p in (event.parts if t == event.token else (t,))]
            last = best
            yield best, tuple(tokens)

    def _shortcut(self, pretoken: str) -> bool:
        return self.whole_word and len(pretoken) > 1 and pretoken in self.vocabulary

    def _segment_uncached(self, pretoken: str) -> tuple[str, ...]:
        """The shortcut (when on and the pretoken is a type), else the event replay."""
        tokens = (pretoken,) if self._shortcut(pretoken) else tuple(pretoken)
        if len(tokens) > 1:
            for _, replayed in self.replay(pretoken):
                tokens = replayed
        return tokens

    def trace_text(self, text: str) -> Trace:
        """First one "whole" event per pretoken kept whole by the shortcut, then every event id
        that changes some pretoken, in event order, applied to all pretokens it concerns (as
        replaying the event list over the whole text); ``index`` = the event id."""
        pretokens = traceable(self.pretokeniser.pretokenise(text))
        state = [tuple(p) for p in pretokens]
        events: list[TraceEvent] = []
        changes: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
        for k, pretoken in enumerate(pretokens):
            if self._shortcut(pretoken):
                state[k] = (pretoken,)
                events.append(
                    TraceEvent("whole", f"{pretoken} is a type: kept whole", tuple(t for s in state for t in s))
                )
                continue
            for event_id, tokens in self.replay(pretoken):
                changes.setdefault(event_id, []).append((k, tokens))
        for event_id in sorted(changes):
            for k, tokens in changes[event_id]:
                state[k] = tokens
            event = self.events[event_id]
            events.append(TraceEvent(event.kind, event.label, tuple(t for s in state for t in s), event_id))
        return Trace(text, pretokens, tuple(ch for p in pretokens for ch in p), tuple(events))

    def to_json(self) -> dict:
        return {
            "format": FORMAT_PREFIX + KIND,
            "version": FORMAT_VERSION,
            "name": self.name,
            "pretokeniser": self.pretokeniser.to_spec(),
            "whole_word": self.whole_word,
            "alphabet": list(self.alphabet),
            "events": [e.to_json() for e in self.events],
        }

    @classmethod
    def from_json(cls, obj, source: str = "<json>") -> PickyBPE:
        name, pretokeniser = read_envelope(obj, KIND, source)
        whole_word = read_flag(obj, "whole_word", True, source)
        alphabet = obj.get("alphabet")
        if not isinstance(alphabet, list) or not all(isinstance(a, str) and len(a) == 1 for a in alphabet):
            raise InputError("field 'alphabet' must be a list of single characters", source)
        raw = obj.get("events")
        if not isinstance(raw, list):
            raise InputError("field 'events' must be a list of [kind, token, [parts]]", source)
        events = []
        for n, item in enumerate(raw):
            if (
                not isinstance(item, list)
                or len(item) != 3
                or not isinstance(item[1], str)
                or not isinstance(item[2], list)
                or not all(isinstance(p, str) and p for p in item[2])
            ):
                raise InputError(f"field 'events' item {n}: expected [kind, token, [parts]], got {item!r}", source)
            events.append(PickyEvent(item[0], item[1], tuple(item[2])))
        try:
            return cls(alphabet, events, pretokeniser, whole_word=whole_word, name=name)
        except InputError as err:
            raise InputError(f"field 'events': {err.message}", source) from None

    def __repr__(self) -> str:
        splits = sum(e.kind == SPLIT for e in self.events)
        return f"PickyBPE(name={self.name!r}, |V|={self.vocab_size}, events={len(self.events)}, splits={splits})"


def _merge_all(tokens: list[str], pair: tuple[str, ...], result: str) -> list[str]:
    """Every occurrence of ``pair`` merged, left to right, without overlap."""
    left, right = pair
    out: list[str] = []
    i, n = 0, len(tokens)
    while i < n:
        if i + 1 < n and tokens[i] == left and tokens[i + 1] == right:
            out.append(result)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


#: what each option of :func:`train` means (``train --algorithm ... --list-options``); a test keeps
#: its keys equal to the keyword options of ``train``
OPTION_HELP: dict[str, str] = {
    "threshold": "τ: a parent is removed when its Intersection over Self exceeds it [rebpe App. A.4]",
    "comparison": "'>' (the authors' code) or '>=' (the paper's Eq. 2) between IoS and τ",
    "tie": "equal pair counts: insertion (the authors' Counter order) or hf (count, then HF ids)",
    "reserved_specials": "slots of the vocabulary size kept for special tokens (the authors' trainer: 4)",
    "whole_word": "a pretoken that is itself a type is kept whole when segmenting (the authors' shortcut)",
    "name": "the tokeniser's name (train names it after --out)",
}


def train(
    corpus: TrainingCorpus,
    vocab_size: int,
    *,
    progress: Callable[[int, int], None] | None = None,
    threshold: float = 0.9,
    comparison: str = ">",
    tie: str = "insertion",
    reserved_specials: int = 0,
    whole_word: bool = True,
    name: str = "",
) -> TrainingRun:
    """PickyBPE training with the options of the module docstring.

    Stops when |V| (alphabet included) + ``reserved_specials`` reaches ``vocab_size``, or no pair
    occurs. Events: "merge" (count = the pair count; detail: occurrences merged, "restored" or
    "additional" when the string was a removed or a present type) and
    "split" (a removal; count = the type's remaining frequency, detail: IoS, parts), each with
    |V| after it and ``detail["event"]`` = its id in the event list. ``progress(done, total)``:
    types beyond the alphabet, and the room ``vocab_size`` leaves for them (every
    ``PROGRESS_EVERY`` events and during long phases; it may raise to stop training).
    """
    if not isinstance(corpus, TrainingCorpus):
        raise InputError(f"corpus must be a TrainingCorpus, got {type(corpus).__name__}")
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, numbers.Real)
        or not math.isfinite(threshold)
        or threshold < 0
    ):
        raise InputError(f"threshold must be a number >= 0, got {threshold!r}")
    check_bool("whole_word", whole_word)
    reserved = int(check_int("reserved_specials", reserved_specials, 0))
    counts = _collect_word_counts(corpus.pretoken_counts)
    inclusive = check_choice("comparison", comparison, COMPARISONS) == ">="
    insertion = check_choice("tie", tie, TIE_RULES) == "insertion"
    target = int(check_int("vocab_size", vocab_size, 0)) - reserved
    trainer = _Trainer(
        counts, initial_alphabet(corpus.pretokeniser), float(threshold), inclusive, insertion, target, progress
    )
    if target < trainer.n_atoms:
        raise InputError(
            f"vocab_size {vocab_size} is smaller than the {trainer.n_atoms} alphabet characters "
            f"plus {reserved} reserved special tokens"
        )
    stopped = trainer.run(target)
    strings = trainer.strings
    events = [
        PickyEvent(kind, strings[token], tuple(strings[p] for p in parts)) for kind, token, parts in trainer.events
    ]
    tokeniser = PickyBPE(trainer.alphabet, events, corpus.pretokeniser, whole_word=whole_word, name=name)
    summary = {
        "vocab_size": tokeniser.vocab_size,
        "events": len(events),
        "merges": sum(e.kind == MERGE for e in events),
        "splits": sum(e.kind == SPLIT for e in events),
        "restored": trainer.restored,
        "additional_merges": trainer.additional,
        "removed_types": len(tokeniser.removed_types),
        "stopped": stopped,
        "options": {
            "threshold": threshold,
            "comparison": comparison,
            "tie": tie,
            "reserved_specials": reserved,
            "whole_word": whole_word,
        },
    }
    return TrainingRun(tokeniser, tuple(trainer.log), summary)


class _Trainer:
    """One PickyBPE training run on unique words x counts, with core.bpe.trainer's speed-ups (int
    ids, packed pair keys, a lazy max-heap) plus what removals need: type frequencies, the
    words each pair and each merged type may occur in (supersets, checked on use)."""

    def __init__(
        self,
        counts: dict[str, int],
        extra_atoms: tuple[str, ...],
        threshold: float,
        inclusive: bool,
        insertion: bool,
        target: int,
        progress=None,
    ):
        self.strings, self.ids, self.alphabet = _initial_vocab(counts, (), extra_atoms, None)
        self.n_atoms = len(self.strings)
        self.beat = beat = Heartbeat(progress, max(0, target - self.n_atoms))
        self.threshold, self.inclusive, self.insertion = threshold, inclusive, insertion
        self.present = [True] * self.n_atoms
        self.freq = [0] * self.n_atoms
        self.creator: dict[int, tuple[int, int]] = {}  # merged type -> the pair that first made it
        self.words: list[list[int]] = []
        self.weights: list[int] = []
        for word, count in counts.items():
            symbols = [self.ids[ch] for ch in word]
            for s in symbols:
                self.freq[s] += count
            beat.work(len(symbols))
            if len(symbols) > 1:
                self.words.append(symbols)
                self.weights.append(count)
        # The authors' Counter of pairs: count and position (tie) per pair in it. "insertion"
        # ties by the position, a counter bumped whenever a pair enters; "hf" by the key itself.
        self.pair_counts: dict[int, int] = {}
        self.pair_words: dict[int, set[int]] = {}
        for index, symbols in enumerate(self.words):
            count = self.weights[index]
            for left, right in itertools.pairwise(symbols):
                key = left << _SHIFT | right
                self.pair_counts[key] = self.pair_counts.get(key, 0) + count
                holding = self.pair_words.get(key)
                if holding is None:
                    self.pair_words[key] = {index}
                else:
                    holding.add(index)
            beat.work(len(symbols))
        self.tie = {key: n for n, key in enumerate(self.pair_counts)} if insertion else {k: k for k in self.pair_counts}
        self.entered = len(self.tie)
        self.heap = [(-count, self.tie[key], key) for key, count in self.pair_counts.items()]
        heapq.heapify(self.heap)
        self.type_words: dict[int, set[int]] = {}  # merged type -> words it may occur in
        self.size = self.n_atoms  # |V|
        self.events: list[tuple[str, int, tuple[int, ...]]] = []
        self.log: list[TrainingEvent] = []
        self.restored = self.additional = 0

    # --- the authors' pair Counter ------------------------------------------------------------
    def _increase(self, amounts: Iterable[tuple[int, int]]) -> None:
        """``pairs[key] += amount`` for each (key, amount): a pair not in the Counter enters it at
        the end."""
        counts, tie, heap, insertion = self.pair_counts, self.tie, self.heap, self.insertion
        for key, amount in amounts:
            count = counts.get(key)
            if count is None:
                count = 0
                tie[key] = self.entered if insertion else key
                self.entered += 1
            counts[key] = count = count + amount
            if amount > 0:
                heapq.heappush(heap, (-count, tie[key], key))

    def _drop(self, key: int) -> None:
        """``pairs.pop(key)``."""
        del self.pair_counts[key]
        del self.tie[key]
        self.pair_words.pop(key, None)

    def _best(self) -> tuple[int, int] | None:
        """``pairs.most_common(1)`` (with the tie rule) from the lazy heap: entries of pairs that
        left the Counter are dropped, entries with an outdated count re-pushed."""
        heap, counts, tie = self.heap, self.pair_counts, self.tie
        while heap:
            neg, order, key = heap[0]
            count = counts.get(key)
            if count is None or tie[key] != order:
                heapq.heappop(heap)
            elif -neg != count:
                heapq.heapreplace(heap, (-count, order, key))
            else:
                return key, count
        return None

    # --- the loop -------------------------------------------------------------------------------
    def run(self, target: int) -> str:
        """Steps 1-5 until |V| reaches ``target``; returns why it stopped."""
        stopped = "vocab_size reached"
        while self.size < target:
            best = self._best()
            if best is None or best[1] <= 0:
                stopped = "no pair left"
                break
            self._merge(*best)
            if len(self.events) % PROGRESS_EVERY == 0:
                self.beat.report(self.size - self.n_atoms)
        self.beat.report(self.size - self.n_atoms)
        return stopped

    def _visit(self, indices) -> Iterable[int]:
        # Word order decides the order in which new pairs enter the Counter (tie "insertion").
        return sorted(indices) if self.insertion else indices

    def _merge(self, key: int, count: int) -> None:
        """Steps 2-4 of the module docstring for the chosen pair."""
        strings = self.strings
        left, right = key >> _SHIFT, key & _MASK
        holders = self.pair_words.get(key, ())
        self._drop(key)
        string = strings[left] + strings[right]
        new = self.ids.get(string)
        restored = additional = False
        if new is None:
            new = len(strings)
            self.ids[string] = new
            strings.append(string)
            self.present.append(True)
            self.freq.append(0)
            self.creator[new] = (left, right)
            self.size += 1
        elif not self.present[new]:  # "Restored previously removed token": same id, same creator
            self.present[new] = restored = True
            self.restored += 1
            self.size += 1
        else:  # "Additional merges": the string is a present type already
            additional = True
            self.additional += 1
        event_id = len(self.events)
        self.events.append((MERGE, new, (left, right)))
        merged = self._merge_words(holders, left, right, new)
        freq = self.freq
        freq[new] += merged
        detail = {"event": event_id, "merged": merged}
        if restored or additional:
            detail["restored" if restored else "additional"] = True
        self.log.append(
            TrainingEvent(event_id, MERGE, f"{strings[left]} + {strings[right]} -> {string}", count, self.size, detail)
        )
        if left == right:
            freq[left] -= 2 * merged
            self._scrutinise(left, merged)
        else:
            freq[left] -= merged
            self._scrutinise(left, merged)
            freq[right] -= merged
            self._scrutinise(right, merged)

    def _merge_words(self, holders: Iterable[int], left: int, right: int, new: int) -> int:
        """Merge (left, right) in the ``holders`` that hold it; update pair counts as the authors do
        (new pairs enter the Counter first, in word order, then the destroyed pairs decrease and
        leave at 0). Returns the number of occurrences merged."""
        words, weights = self.words, self.weights
        destroyed: dict[int, int] = {}
        destroyed_get = destroyed.get
        changed: list[tuple[int, int, list[int]]] = []  # (word, weight, new pairs) per changed word
        merged, beat = 0, self.beat
        new_high, right_high = new << _SHIFT, right << _SHIFT
        for index in self._visit(holders):
            symbols = words[index]
            occurrences = symbols.count(left)
            if not occurrences:
                continue
            n = len(symbols)
            beat.work(n)
            weight = weights[index]
            out: list[int] | None = None
            start = 0  # symbols[:start] are in out (merged)
            j = -1
            born: list[int] = []  # new pairs, in the order of the authors' Counter of the word
            for k in range(1, occurrences + 1):
                if not k % OCCURRENCES_PER_BEAT:
                    beat.pulse()
                j = symbols.index(left, j + 1)
                if j < start or j + 1 >= n or symbols[j + 1] != right:
                    continue  # inside the previous occurrence (left == right), or no pair here
                if out is None:
                    out = symbols[:j]
                elif j == start:  # right after the previous occurrence
                    born.append(new_high | new)
                else:
                    born.append(new_high | symbols[start])  # the previous occurrence's right pair
                    out += symbols[start:j]
                if j != start:
                    gone = symbols[j - 1] << _SHIFT | left
                    destroyed[gone] = destroyed_get(gone, 0) + weight
                    born.append(symbols[j - 1] << _SHIFT | new)
                if j + 2 < n:
                    gone = right_high | symbols[j + 2]
                    destroyed[gone] = destroyed_get(gone, 0) + weight
                out.append(new)
                merged += weight
                start = j + 2
            if out is None:
                continue
            if start < n:
                born.append(new_high | symbols[start])
                out += symbols[start:]
            words[index] = out
            changed.append((index, weight, born))
        self._increase(self._born(changed, new).items())
        self._decrease(destroyed)
        return merged

    def _born(self, changed: list[tuple[int, int, list[int]]], new: int) -> dict[int, int]:
        """The new pairs' counts, in the order they enter the Counter, from each changed word's
        (index, weight, new pairs); records which words hold them and ``new``."""
        pair_words = self.pair_words
        created: dict[int, int] = {}
        created_get, holding_get = created.get, pair_words.get
        containing = self.type_words.setdefault(new, set())
        for index, weight, born in changed:
            containing.add(index)
            for key in born:
                created[key] = created_get(key, 0) + weight
                holding = holding_get(key)
                if holding is None:
                    pair_words[key] = {index}
                else:
                    holding.add(index)
        return created

    def _decrease(self, destroyed: dict[int, int]) -> None:
        """``pairs[key] -= amount`` for each destroyed pair still in the Counter; a pair leaves it at 0."""
        counts = self.pair_counts
        for gone, amount in destroyed.items():
            count = counts.get(gone)
            if count is not None:  # the chosen pair itself has left the Counter already
                if count - amount <= 0:
                    self._drop(gone)
                else:
                    counts[gone] = count - amount

    def _scrutinise(self, parent: int, merged: int) -> None:
        """Step 3: remove a merged parent whose IoS exceeds τ (the authors' float test)."""
        if parent < self.n_atoms:
            return
        ios = merged / (self.freq[parent] + merged)
        if ios > self.threshold or (self.inclusive and ios >= self.threshold):
            self._remove(parent, ios)

    def _walk(self, token: int) -> list[int]:
        """The present descendants of ``token`` through the merges that first created them, left
        to right (a stack, not recursion: a removed run such as ``aaaa...`` nests deeply)."""
        out, stack = [], [token]
        while stack:
            t = stack.pop()
            if t < self.n_atoms or self.present[t]:
                out.append(t)
            else:
                stack.extend(reversed(self.creator[t]))
        return out

    def _remove(self, token: int, ios: float) -> None:
        """Replace every occurrence of ``token`` by its present descendants; pair counts as the
        authors update them (internal pairs first, then each pair with a neighbour, in word
        order, becomes the pair with the outer part)."""
        self.present[token] = False
        parts = self._walk(token)
        self.size -= 1
        event_id = len(self.events)
        self.events.append((SPLIT, token, tuple(parts)))
        remaining = self.freq[token]
        self.freq[token] = 0
        for p in parts:
            self.freq[p] += remaining
        internal: dict[int, int] = {}  # pair -> times inside the parts (the authors add it each time)
        for a, b in itertools.pairwise(parts):
            internal[a << _SHIFT | b] = internal.get(a << _SHIFT | b, 0) + 1
        self.beat.work(2 * len(parts))
        self._increase((key, times * remaining) for key, times in internal.items())
        first, last = parts[0], parts[-1]
        words, weights, pair_words, type_words = self.words, self.weights, self.pair_words, self.type_words
        merged_parts = {p for p in parts if p >= self.n_atoms}
        neighbours: dict[int, int] = {}  # pairs with token -> count, in the authors' order
        outer_of: dict[int, int] = {}  # pair with token -> the pair with the outer part instead
        for index in self._visit(type_words.pop(token, ())):
            symbols = words[index]
            if token not in symbols:
                continue
            self.beat.work(len(symbols))
            weight = weights[index]
            for a, b in itertools.pairwise(symbols):
                if a == token or b == token:
                    key = a << _SHIFT | b
                    neighbours[key] = neighbours.get(key, 0) + weight
                    outer = outer_of[key] = (last if a == token else a) << _SHIFT | (first if b == token else b)
                    pair_words.setdefault(outer, set()).add(index)
            words[index] = [p for s in symbols for p in (parts if s == token else (s,))]
            self.beat.work(len(symbols))
            for key in internal:
                pair_words.setdefault(key, set()).add(index)
            for p in merged_parts:
                type_words.setdefault(p, set()).add(index)
        self._increase((outer_of[key], amount) for key, amount in neighbours.items())
        for key in neighbours:
            self._drop(key)
        strings = self.strings
        self.log.append(
            TrainingEvent(
                event_id,
                SPLIT,
                f"{strings[token]} -> {' '.join(strings[p] for p in parts)}",
                remaining,
                self.size,
                {"event": event_id, "ios": ios, "parts": [strings[p] for p in parts]},
            )
        )
