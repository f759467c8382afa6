"""Scaffold-BPE (Lian et al., AAAI 2025): BPE whose low-frequency intermediate tokens become
*scaffold* tokens, used while encoding but demolished before output.

[scaffold §3.1 and Algorithm 1] (training), §3.2 and Algorithm 2 (encoding). There is no
official code (reference-implementations.md §4); every reading below that the paper leaves open
is an option of :func:`train`, defaults first:

Training (Alg. 1). E = V ∪ S; only the normal tokens V (alphabet included) count toward
``vocab_size``. The queue Q holds pairs, ranked by pair count with Hugging Face's rules
(reference-implementations.md §1: overlapping windows, ties by ``(left_id, right_id)``, merged
left to right, a string that already exists keeps its id), *and* scaffold tokens, ranked by
token frequency. Each step pops Q's head:

* a scaffold token becomes normal again (|V| + 1, no merge; Alg. 1 lines 7-10);
* a pair (a, b) is merged into t everywhere (|V| + 1 when t is new); f(t) += n, f(a) -= n,
  f(b) -= n, with n the occurrences actually merged (= f((a, b)) except in runs such as ``aaa``,
  where overlapping windows count more pairs than can merge); then each parent p still in V with
  f(p) < f(Q.head), the head *after* the update, strictly, becomes scaffold (|V| - 1) and is
  pushed into Q with f(p) (Alg. 1 "Scaffold-BPE Modification"; the pseudo-code's
  ``Scaffold(t) <- True`` is read as Scaffold(p), as the text of §3.1 says).

It stops when |V| reaches ``vocab_size``, when Q is empty, or when Q's head is below
``max(1, min_frequency)`` (HF's rule; so a scaffold token whose frequency fell to 0 stays one).

1. ``tie="scaffold-first"``: a scaffold token and a pair of equal frequency — the token pops
   first (TEST_VECTORS V6); ``"pair-first"`` the other way. Scaffold tokens tie by id.
2. ``protect_atoms=True``: alphabet characters are never marked (both third-party ports; an
   atom cannot be demolished). With False they can be, and stay in the output as they are.
3. ``scaffold_priority="current"``: a scaffold token that is a parent of a later merge loses
   frequency like any token and is ranked in Q by its current frequency (h-scaffold re-pushes
   it); ``"marked"``: by the frequency it had when it was marked.

Not an option: a pair forming a string that already exists (reference-implementations.md §4.4).
Training segments the corpus exactly as BPE does (Alg. 1 only adds scaffold items to Q), and
without special tokens BPE never forms a string twice (not once in 800,000 random small
corpora; HF's trainer meets it only with added tokens). Should it happen, Alg. 1 lines 7-10 are
followed literally: a scaffold t becomes normal and nothing is merged; a normal t is merged
again as HF does (id kept, V does not grow).

Encoding (Alg. 2): BPE with all merges of E (Scaffolding, :class:`core.bpe.model.BTETokeniser`), then
every scaffold token is replaced by its shortest non-scaffold child sequence (Demolishing):
reverse the merge forming it and recurse into scaffold parts, parts that are normal stay. The
table is precomputed, as §3.2 suggests. When several merges form one string the shortest
result wins, ties to the lowest-ranked merge.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Collection, Iterable
from functools import cached_property

from core.bpe.model import BTETokeniser, Merge
from core.bpe.trainer import PROGRESS_EVERY, _collect_word_counts, _initial_vocab, _merge_words
from core.counting.corpus import TrainingCorpus, initial_alphabet
from core.deadline import Heartbeat
from core.errors import InputError
from core.families.base import (
    FORMAT_PREFIX,
    FORMAT_VERSION,
    PretokenSegmenter,
    TrainingEvent,
    TrainingRun,
    read_envelope,
)
from core.options import check_bool, check_choice, check_int
from core.trace import Trace, TraceEvent, traceable

KIND = "scaffold"
TIE_RULES = ("scaffold-first", "pair-first")
SCAFFOLD_PRIORITIES = ("current", "marked")

_SHIFT = 32  # pair key = left << _SHIFT | right: ids of E are not bounded by vocab_size
_MASK = (1 << _SHIFT) - 1


class ScaffoldBPE(PretokenSegmenter):
    """A trained Scaffold-BPE tokeniser: the merges of E as a BTE tokeniser (``bte``) and the
    scaffold set S. ``vocabulary`` is V = types of E minus S ([scaffold Eq. 2-3])."""

    kind = KIND

    def __init__(self, bte: BTETokeniser, scaffold_tokens: Iterable[str], name: str = ""):
        self.bte = bte
        self.scaffold_tokens: frozenset[str] = frozenset(scaffold_tokens)
        unknown = sorted(self.scaffold_tokens - bte.types)
        if unknown:
            raise InputError(f"scaffold tokens {unknown[:5]!r} are not types of the merge list")
        self.name = name or bte.name
        self._demolished = _demolition_table(bte, self.scaffold_tokens)

    @property
    def pretokeniser(self):
        return self.bte.pretokeniser

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        return self.bte.types - self.scaffold_tokens

    @property
    def vocab_size(self) -> int:
        return len(self.vocabulary)

    def merge_graph(self) -> BTETokeniser:
        """The merge list E as a merge graph (scaffold tokens included: they are its vertices)."""
        return self.bte

    def demolish(self, token: str) -> tuple[str, ...]:
        """Alg. 2 Demolishing of one token: its shortest non-scaffold child sequence."""
        return self._demolished.get(token, (token,))

    def _segment_uncached(self, pretoken: str) -> tuple[str, ...]:
        """Alg. 2 on one pretoken: BPE with all merges of E, then demolish."""
        table = self._demolished
        return tuple(piece for token in self.bte.segment_pretoken(pretoken) for piece in table.get(token, (token,)))

    def trace_text(self, text: str) -> Trace:
        """Every merge of E applied (pretoken by pretoken, in order), then one "demolish" event
        per scaffold token in the result, left to right."""
        pretokens = traceable(self.pretokeniser.pretokenise(text))
        initial = tuple(ch for p in pretokens for ch in p)
        events: list[TraceEvent] = []
        done: list[str] = []
        end = 0  # characters of the pretokens so far
        for pretoken in pretokens:
            end += len(pretoken)
            rest = initial[end:]
            trace = self.bte.trace_pretoken(pretoken)
            for step in trace.steps:
                merge = step.merge
                events.append(
                    TraceEvent(
                        "merge",
                        f"{' + '.join(merge.parts)} -> {merge.result}",
                        (*done, *step.tokens, *rest),
                        merge.rank,
                    )
                )
            done.extend(trace.tokens)
        scaffolded = tuple(done)
        out: list[str] = []
        for k, token in enumerate(scaffolded):
            pieces = self.demolish(token)
            out.extend(pieces)
            if pieces != (token,):
                events.append(TraceEvent("demolish", f"{token} -> {' '.join(pieces)}", (*out, *scaffolded[k + 1 :])))
        return Trace(
            text,
            pretokens,
            initial,
            tuple(events),
            {"scaffolded": list(scaffolded), "demolished": sorted({t for t in scaffolded if t in self._demolished})},
        )

    def to_json(self) -> dict:
        return {
            "format": FORMAT_PREFIX + KIND,
            "version": FORMAT_VERSION,
            "name": self.name,
            "pretokeniser": self.pretokeniser.to_spec(),
            "alphabet": list(self.bte.alphabet),
            "merges": [list(m.parts) for m in self.bte.merges],
            "scaffold_tokens": sorted(self.scaffold_tokens),
        }

    @classmethod
    def from_json(cls, obj, source: str = "<json>") -> ScaffoldBPE:
        name, pretokeniser = read_envelope(obj, KIND, source)
        alphabet = _string_list(obj, "alphabet", source)
        merges = obj.get("merges")
        if not isinstance(merges, list):
            raise InputError("field 'merges' must be a list of [left, right] pairs", source)
        types = set(alphabet)
        for n, merge in enumerate(merges):
            if (
                not isinstance(merge, list)
                or len(merge) != 2
                or not all(isinstance(p, str) and p in types for p in merge)
            ):
                raise InputError(
                    f"field 'merges' item {n}: expected [left, right] over the alphabet "
                    f"and earlier merges, got {merge!r}",
                    source,
                )
            types.add(merge[0] + merge[1])
        scaffold = _string_list(obj, "scaffold_tokens", source)
        try:
            bte = BTETokeniser(alphabet, [Merge(i, tuple(m)) for i, m in enumerate(merges)], pretokeniser, name=name)
            return cls(bte, scaffold, name)
        except InputError as err:
            raise InputError(err.message, source) from None

    def __repr__(self) -> str:
        return (
            f"ScaffoldBPE(name={self.name!r}, |V|={self.vocab_size}, |S|={len(self.scaffold_tokens)}, "
            f"|merges|={len(self.bte.merges)})"
        )


def _string_list(obj: dict, field: str, source: str) -> list[str]:
    value = obj.get(field)
    if not isinstance(value, list) or not all(isinstance(s, str) and s for s in value):
        raise InputError(f"field {field!r} must be a list of non-empty strings", source)
    return value


def _demolition_table(bte: BTETokeniser, scaffold: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Scaffold token -> its shortest non-scaffold child sequence (parts are shorter than the
    whole, so shorter tokens are done first)."""
    table: dict[str, tuple[str, ...]] = {}
    for token in sorted(scaffold, key=len):
        best: tuple[str, ...] = (token,)  # an atom: nothing to demolish it into
        for merge in bte.produced_by.get(token, ()):  # in rank order
            pieces = tuple(x for part in merge.parts for x in table.get(part, (part,)))
            if best == (token,) or len(pieces) < len(best):
                best = pieces
        table[token] = best
    return table


#: what each option of :func:`train` means (``train --algorithm ... --list-options``); a test keeps
#: its keys equal to the keyword options of ``train``
OPTION_HELP: dict[str, str] = {
    "tie": "a scaffold token and a pair of equal frequency: scaffold-first pops the token, pair-first the pair",
    "min_frequency": "stop when the head of the queue falls below max(1, min_frequency)",
    "protect_atoms": "alphabet characters are never marked as scaffold tokens",
    "scaffold_priority": "rank a scaffold token by its current frequency (current) or by its "
    "frequency when it was marked (marked)",
    "name": "the tokeniser's name (train names it after --out)",
}


def train(
    corpus: TrainingCorpus,
    vocab_size: int,
    *,
    progress: Callable[[int, int], None] | None = None,
    tie: str = "scaffold-first",
    min_frequency: int = 0,
    protect_atoms: bool = True,
    scaffold_priority: str = "current",
    name: str = "",
) -> TrainingRun:
    """Scaffold-BPE training, [scaffold Alg. 1], with the options of the module docstring.

    ``vocab_size`` counts normal tokens only (alphabet included). Events: "merge" (count = the
    pair count), "scaffold" (a token marked; count = its frequency, detail["head"] = f(Q.head)),
    "readmit" (a scaffold token made normal again; count = its frequency). ``progress(done,
    total)``: normal tokens beyond the alphabet, and the room ``vocab_size`` leaves for them
    (every ``PROGRESS_EVERY`` steps and during long phases; it may raise to stop training).
    """
    if not isinstance(corpus, TrainingCorpus):
        raise InputError(f"corpus must be a TrainingCorpus, got {type(corpus).__name__}")
    check_bool("protect_atoms", protect_atoms)
    trainer = _Trainer(
        _collect_word_counts(corpus.pretoken_counts),
        int(check_int("vocab_size", vocab_size, 0)),
        tie=check_choice("tie", tie, TIE_RULES),
        min_frequency=int(check_int("min_frequency", min_frequency, 0)),
        protect_atoms=protect_atoms,
        scaffold_priority=check_choice("scaffold_priority", scaffold_priority, SCAFFOLD_PRIORITIES),
        alphabet=initial_alphabet(corpus.pretokeniser),
        progress=progress,
    )
    stopped = trainer.run()
    ids = trainer.id_to_word
    # HF keeps a pair chosen twice once, at its later rank (core.bpe.trainer does the same).
    last = {pair: rank for rank, pair in enumerate(trainer.chosen)}
    merges = [
        Merge(i, (ids[left], ids[right]))
        for i, (left, right) in enumerate(p for rank, p in enumerate(trainer.chosen) if last[p] == rank)
    ]
    bte = BTETokeniser(trainer.alphabet, merges, corpus.pretokeniser, name=name)
    tokeniser = ScaffoldBPE(bte, (ids[t] for t in trainer.scaffold), name)
    kinds = [e.kind for e in trainer.events]
    summary = {
        "normal_tokens": tokeniser.vocab_size,
        "scaffold_tokens": len(tokeniser.scaffold_tokens),
        "expanded_vocabulary": len(bte.types),
        "merges": len(merges),
        "markings": kinds.count("scaffold"),
        "readmissions": kinds.count("readmit"),
        "stopped": stopped,
        "options": {
            "tie": tie,
            "min_frequency": min_frequency,
            "protect_atoms": protect_atoms,
            "scaffold_priority": scaffold_priority,
        },
    }
    return TrainingRun(tokeniser, tuple(trainer.events), summary)


class _Trainer:
    """State of one Alg. 1 run on unique words x counts (the speed-ups of core.bpe.trainer: int
    ids, packed pair keys, a lazy max-heap, only the words holding a pair are visited)."""

    def __init__(
        self,
        counts: dict[str, int],
        vocab_size: int,
        *,
        tie: str,
        min_frequency: int,
        protect_atoms: bool,
        scaffold_priority: str,
        alphabet: tuple[str, ...] = (),
        progress=None,
    ):
        self.id_to_word, self.word_to_id, self.alphabet = _initial_vocab(counts, (), alphabet, None)
        self.base_size = len(self.id_to_word)
        if vocab_size < self.base_size:
            raise InputError(f"vocab_size {vocab_size} is smaller than the {self.base_size} alphabet characters")
        self.vocab_size = vocab_size
        self.beat = beat = Heartbeat(progress, vocab_size - self.base_size)
        self.floor = max(1, min_frequency)
        self.protect_atoms = protect_atoms
        self.current_priority = scaffold_priority == "current"
        # Heap entries: (-frequency, class, key, sequence, words). The class decides between a
        # scaffold token and a pair of equal frequency (option tie); key is the token id or the
        # packed pair, so pairs tie by (left_id, right_id) as in HF.
        self.pair_class, self.token_class = (1, 0) if tie == "scaffold-first" else (0, 1)

        self.words: list[list[int]] = []
        self.weights: list[int] = []
        self.freq = [0] * self.base_size  # f(x): occurrences of x in the current segmentation L
        for word, count in counts.items():
            symbols = [self.word_to_id[ch] for ch in word]
            for s in symbols:
                self.freq[s] += count
            beat.work(len(symbols))
            if len(symbols) > 1:
                self.words.append(symbols)
                self.weights.append(count)
        self.token_len = [len(t) for t in self.id_to_word]
        self.pair_counts: dict[int, int] = {}
        where: dict[int, set[int]] = {}
        for index, symbols in enumerate(self.words):
            count = self.weights[index]
            for left, right in itertools.pairwise(symbols):
                key = left << _SHIFT | right
                self.pair_counts[key] = self.pair_counts.get(key, 0) + count
                where.setdefault(key, set()).add(index)
            beat.work(len(symbols))
        self.sequence = itertools.count()
        # (-count, class, pair key or token id, tie-break, words holding the pair; none for a token)
        self.heap: list[tuple[int, int, int, int, Collection[int]]] = [
            (-self.pair_counts[key], self.pair_class, key, next(self.sequence), positions)
            for key, positions in where.items()
        ]
        heapq.heapify(self.heap)
        self.scaffold: set[int] = set()
        self.size = self.base_size  # |V|
        self.chosen: list[tuple[int, int]] = []  # (left, right) per applied merge, in order
        self.events: list[TrainingEvent] = []
        self.step = 0

    def head(self) -> int:
        """f(Q.head), 0 for an empty Q. Stale entries at the top are dropped (a token no longer
        scaffold) or re-pushed with their current frequency until the top is up to date."""
        heap = self.heap
        while heap:
            top = heap[0]
            if top[1] == self.pair_class:
                now = self.pair_counts[top[2]]
            elif top[2] not in self.scaffold:
                heapq.heappop(heap)
                continue
            else:
                now = self.freq[top[2]] if self.current_priority else -top[0]
            if now == -top[0]:
                return now
            heapq.heapreplace(heap, (-now, top[1], top[2], next(self.sequence), top[4]))
        return 0

    def run(self) -> str:
        """The loop of Alg. 1; returns why it stopped."""
        while self.size < self.vocab_size:
            count = self.head()
            if not self.heap:
                return "queue empty"
            if count < self.floor:
                return f"head frequency {count} < {self.floor}"
            _, cls, key, _, positions = heapq.heappop(self.heap)
            if cls == self.token_class:
                self._readmit(key, count, {})
            else:
                self._merge(key, count, positions)
            self.step += 1
            if self.step % PROGRESS_EVERY == 0:
                self.beat.report(self.size - self.base_size)
        self.beat.report(self.size - self.base_size)
        return "vocab_size reached"

    def _readmit(self, token: int, count: int, detail: dict) -> None:
        """Alg. 1 lines 7-10: a scaffold token becomes normal again."""
        self.scaffold.discard(token)
        self.size += 1
        string = self.id_to_word[token]
        self.events.append(
            TrainingEvent(self.step, "readmit", f"readmit {string}", count, self.size, {"token": string, **detail})
        )

    def _merge(self, key: int, count: int, positions: Collection[int]) -> None:
        """Alg. 1 lines 6 and 11-23: merge the pair everywhere, then mark parents."""
        ids, words, weights = self.id_to_word, self.words, self.weights
        left, right = key >> _SHIFT, key & _MASK
        string = ids[left] + ids[right]
        label = f"{ids[left]} + {ids[right]} -> {string}"
        new_id = self.word_to_id.get(string)
        detail = {"left": ids[left], "right": ids[right], "token": string}
        if new_id is None:
            new_id = len(ids)
            self.word_to_id[string] = new_id
            ids.append(string)
            self.token_len.append(len(string))
            self.freq.append(0)
            self.size += 1
        else:  # the string exists already (another pair formed it)
            if new_id in self.scaffold:
                self._readmit(new_id, self.freq[new_id], {"pair": [ids[left], ids[right]]})
                return
            detail["existing"] = True
        self.chosen.append((left, right))
        delta, created, merged = _merge_words(
            words, weights, positions, left, right, new_id, _SHIFT, self.token_len, None, self.beat
        )
        pair_counts = self.pair_counts
        for pair, change in delta.items():
            pair_counts[pair] = pair_counts.get(pair, 0) + change
        heap, pair_class, sequence = self.heap, self.pair_class, self.sequence
        for pair, pair_words in created.items():
            pair_count = pair_counts[pair]
            if pair_count > 0:
                heapq.heappush(heap, (-pair_count, pair_class, pair, next(sequence), pair_words))
        freq = self.freq
        freq[new_id] += merged
        freq[left] -= merged
        freq[right] -= merged
        if merged != count:
            detail["merged"] = merged
        head = self.head()
        detail.update(f_left=freq[left], f_right=freq[right], head=head)
        self.events.append(TrainingEvent(self.step, "merge", label, count, self.size, detail))
        for parent in (left,) if left == right else (left, right):
            if parent in self.scaffold or (self.protect_atoms and parent < self.base_size):
                continue
            if freq[parent] < head:
                self.scaffold.add(parent)
                self.size -= 1
                heapq.heappush(heap, (-freq[parent], self.token_class, parent, next(sequence), ()))
                self.events.append(
                    TrainingEvent(
                        self.step,
                        "scaffold",
                        f"scaffold {ids[parent]}",
                        freq[parent],
                        self.size,
                        {"token": ids[parent], "head": head, "child": string},
                    )
                )
