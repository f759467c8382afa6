"""BPE training whose merges are identical to Hugging Face ``tokenizers`` ``BpeTrainer`` (0.23.3).

The algorithm is the merge-learning loop of Sennrich, Haddow & Birch (2016), "Neural Machine
Translation of Rare Words with Subword Units", Algorithm 1: count adjacent symbol pairs over a
vocabulary of words with frequencies, merge the most frequent pair everywhere, repeat. Where the
paper leaves choices open we follow what HF's ``BpeTrainer::do_train`` does
(shared/research/reference-implementations.md §1):

1. special tokens get the first ids, then the alphabet sorted by code point;
2. a pair's count is the number of *overlapping* windows times the word count (``aaa`` gives 2);
3. the chosen pair is the one with the highest count, ties going to the smallest
   ``(left_id, right_id)``; ids of merged tokens follow creation order, so ties are *not* broken
   by string order;
4. inside a word the pair is merged left to right without overlap, and only the neighbouring
   pairs' counts change (the merged pair's own count is left stale, as HF does);
5. a merge whose string already exists reuses that id and does not grow the vocabulary;
6. training stops at ``vocab_size``, on an empty queue, or when the best count is below
   ``max(1, min_frequency)``.

Speed follows §9: unique words x counts, integer symbol ids, pair keys packed into one int,
a lazy max-heap (``heapq`` on ``(-count, key)``) whose stale entries are re-pushed with the
current count, and per heap entry the words where that entry's pair was created, so a merge only
visits those words (the first entries' words are slices of one int32 array, counted with numpy).

HF details reproduced on purpose (they only matter in corner cases):

- a heap entry carries the words where its pair gained occurrences *when the entry was pushed*,
  and a merge visits only those words. Should a pair be chosen twice (only conceivable when a
  merge string already exists, e.g. equals a special token), HF's model keeps the pair once, at
  its later rank; so does ``merges``;
- with ``max_token_length`` HF still counts every initial 2-character pair and later pairs only
  if their string is *strictly* shorter than the limit (so a limit of n yields merged tokens of at
  most n-1 characters, except 2-character ones);
- with ``limit_alphabet`` the dropped characters are deleted from the words (their neighbours
  become adjacent and form pairs), and ``initial_alphabet`` characters are dropped last.

Not reproduced: ties at the ``limit_alphabet`` cut-off (HF uses an unstable sort over a hash map,
so its choice is not deterministic; we drop the highest code point first), and HF's 32-bit pair
counts (a pair count of 2**31 or more overflows there; ours are exact).
``continuing_subword_prefix`` and ``end_of_word_suffix`` are not supported.
"""

from __future__ import annotations

import heapq
import itertools
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.bpe.model import BTETokeniser, Merge
from core.counting.pretoken_counter import count_pretokens
from core.deadline import Heartbeat
from core.errors import InputError
from core.gc_pause import cyclic_gc_paused
from core.options import check_int

if TYPE_CHECKING:
    from core.bpe.checkpoint import TrainingCheckpoint

#: Merges between two calls of the ``progress`` callback.
PROGRESS_EVERY = 100
#: Occurrences merged in one word between two heartbeats (a run of "aaaa..." has millions).
OCCURRENCES_PER_BEAT = 1 << 14


@dataclass(frozen=True)
class BPETrainingResult:
    """Everything HF's trained BPE model holds, plus the pair count behind each merge."""

    alphabet: tuple[str, ...]
    special_tokens: tuple[str, ...]
    merges: tuple[tuple[str, str], ...]
    merge_counts: tuple[int, ...]
    vocab: dict[str, int]

    def to_json(self) -> dict:
        """A JSON-serialisable dict (merges as ``[left, right]`` lists)."""
        return {
            "alphabet": list(self.alphabet),
            "special_tokens": list(self.special_tokens),
            "merges": [list(m) for m in self.merges],
            "merge_counts": list(self.merge_counts),
            "vocab": dict(self.vocab),
        }


def _collect_word_counts(word_counts) -> dict[str, int]:
    """Validated ``word -> count``; repeated words in an iterable of pairs are summed."""
    if isinstance(word_counts, (str, bytes)):
        raise InputError("word_counts must be a mapping or an iterable of (word, count) pairs, not a single string")
    items = word_counts.items() if isinstance(word_counts, Mapping) else word_counts
    counts: dict[str, int] = {}
    for n, item in enumerate(items, 1):
        try:
            if isinstance(item, (str, bytes)):
                raise TypeError  # a 2-character string would unpack into a "pair"
            word, count = item
        except (TypeError, ValueError):
            raise InputError(f"word_counts item {n} is not a (word, count) pair: {item!r}") from None
        if not isinstance(word, str) or not word:
            raise InputError(f"word_counts item {n}: word must be a non-empty string, got {word!r}")
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count <= 0:
            raise InputError(f"word_counts item {n} ({word!r}): count must be a positive integer, got {count!r}")
        counts[word] = counts.get(word, 0) + int(count)
    if not counts:
        raise InputError("empty corpus: no words to train on")
    return counts


def _initial_vocab(counts, special_tokens, initial_alphabet, limit_alphabet):
    """HF ``do_train`` steps 1-2: special tokens, then the (limited) alphabet by code point."""
    id_to_word: list[str] = []
    word_to_id: dict[str, int] = {}
    for token in special_tokens:
        if not isinstance(token, str) or not token:
            raise InputError(f"special tokens must be non-empty strings, got {token!r}")
        if token not in word_to_id:
            word_to_id[token] = len(id_to_word)
            id_to_word.append(token)
    char_freq: Counter[str] = Counter()
    for word, count in counts.items():
        for ch, n in Counter(word).items():
            char_freq[ch] += n * count
    forced = 1 + sum(char_freq.values())  # above every count (HF gives initial-alphabet characters usize::MAX)
    for ch in initial_alphabet:
        if not isinstance(ch, str) or len(ch) != 1:
            raise InputError(f"initial_alphabet entries must be single characters, got {ch!r}")
        char_freq[ch] = forced
    kept = list(char_freq)
    if limit_alphabet is not None and len(kept) > limit_alphabet:
        # Least frequent first; among equals the highest code point goes first (HF: unspecified).
        kept.sort(key=lambda ch: (char_freq[ch], -ord(ch)))
        kept = kept[len(kept) - limit_alphabet :]
    alphabet = []
    for ch in sorted(kept):
        if ch not in word_to_id:
            word_to_id[ch] = len(id_to_word)
            id_to_word.append(ch)
            alphabet.append(ch)
    return id_to_word, word_to_id, tuple(alphabet)


def train_bpe(
    word_counts,
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special_tokens=(),
    initial_alphabet=(),
    limit_alphabet: int | None = None,
    max_token_length: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    checkpoint: TrainingCheckpoint | None = None,
) -> BPETrainingResult:
    """Learn BPE merges from ``(word, count)`` pairs exactly as HF ``BpeTrainer`` does.

    Sennrich et al. (2016) Alg. 1 (get_stats, take the max, merge_vocab, repeat) organised as HF
    ``do_train`` steps 1-5 (special tokens, alphabet, tokenize words, count pairs, merge loop).

    Words are already in the model alphabet (markers such as ``▁``/``Ġ`` prepended). The
    vocabulary is special tokens + alphabet + one token per new merge string, at most
    ``vocab_size`` entries.
    ``progress(done, total)`` is called every ``PROGRESS_EVERY`` merges and once at the end, where
    ``done`` counts new tokens and ``total`` is the number of tokens ``vocab_size`` leaves room for,
    and again during long phases (:class:`core.deadline.Heartbeat`); it may raise to stop training.
    With ``checkpoint`` (:mod:`core.bpe.checkpoint`), its merges ``[left, right, count]`` are
    replayed first and the merges so far are written to it as training goes.
    """
    counts = _collect_word_counts(word_counts)
    vocab_size = check_int("vocab_size", vocab_size, 0)
    if vocab_size >= 1 << 30:
        raise InputError(f"vocab_size must be below 2**30 (pairs of ids are packed in 64 bits), got {vocab_size}")
    min_frequency = check_int("min_frequency", min_frequency, 0)
    limit_alphabet = None if limit_alphabet is None else check_int("limit_alphabet", limit_alphabet, 0)
    max_token_length = None if max_token_length is None else check_int("max_token_length", max_token_length, 1)
    if isinstance(special_tokens, str):
        raise InputError("special_tokens must be a list of strings, not a single string")
    special_tokens = tuple(special_tokens)
    id_to_word, word_to_id, alphabet = _initial_vocab(counts, special_tokens, tuple(initial_alphabet), limit_alphabet)
    base_size = len(id_to_word)
    if vocab_size < base_size:
        raise InputError(
            f"vocab_size {vocab_size} is smaller than the {len(alphabet)} alphabet "
            f"characters plus {base_size - len(alphabet)} special tokens"
        )
    beat = Heartbeat(progress if checkpoint is None else checkpoint.watch(progress), vocab_size - base_size)
    with cyclic_gc_paused():  # a list per word and a set per heap entry: full passes cost half the run
        words, weights = _tokenize_words(counts, word_to_id, beat)
        learner = _Learner(words, weights, id_to_word, word_to_id, vocab_size, max_token_length, beat)
        if checkpoint is not None:
            checkpoint.source = learner.recorded
        chosen = learner.run(min_frequency, checkpoint.operations if checkpoint is not None else ())
        beat.report(len(id_to_word) - base_size)

    # HF stores merges in a pair -> (rank, id) map: a pair chosen twice keeps its later rank.
    last_rank = {(left, right): rank for rank, (left, right, _, _) in enumerate(chosen)}
    kept = [m for rank, m in enumerate(chosen) if last_rank[(m[0], m[1])] == rank]
    return BPETrainingResult(
        alphabet=alphabet,
        special_tokens=tuple(dict.fromkeys(special_tokens)),
        merges=tuple((id_to_word[left], id_to_word[right]) for left, right, _, _ in kept),
        merge_counts=tuple(count for _, _, _, count in kept),
        vocab={token: i for i, token in enumerate(id_to_word)},
    )


def _tokenize_words(
    counts: dict[str, int], word_to_id: dict[str, int], beat: Heartbeat
) -> tuple[list[list[int]], list[int]]:
    """HF ``tokenize_words``: words as lists of symbol ids, and their counts; characters outside
    the vocabulary (dropped by limit_alphabet) vanish. One-symbol words have no pairs and are left
    out."""
    words: list[list[int]] = []
    weights: list[int] = []
    for word, count in counts.items():
        symbols = [word_to_id[ch] for ch in word if ch in word_to_id]
        beat.work(len(word))
        if len(symbols) > 1:
            words.append(symbols)
            weights.append(count)
    return words, weights


class _Learner:
    """HF ``count_pairs`` and the merge loop over the tokenized words; pair keys are
    ``left << shift | right``. ``id_to_word`` and ``word_to_id`` grow with every new token."""

    def __init__(self, words, weights, id_to_word, word_to_id, vocab_size, max_token_length, beat):
        self.words, self.weights = words, weights
        self.id_to_word, self.word_to_id = id_to_word, word_to_id
        self.vocab_size, self.max_token_length, self.beat = vocab_size, max_token_length, beat
        self.base_size = len(id_to_word)
        self.shift = max(vocab_size, self.base_size).bit_length() + 1
        self.token_len = [len(t) for t in id_to_word]  # HF Symbol.len: characters covered
        self.sequence = itertools.count()  # heap tie-break between entries of the same pair and count
        self.chosen: list[tuple[int, int, int, int]] = []

    def recorded(self) -> list[list]:
        """The merges so far as ``[left, right, count]`` (a checkpoint's operations)."""
        id_to_word = self.id_to_word
        return [[id_to_word[left], id_to_word[right], count] for left, right, _, count in list(self.chosen)]

    def count_pairs(self) -> tuple[dict[int, int], dict[int, np.ndarray]]:
        """Overlapping windows x word count, and the words holding each pair (ascending word
        indices, views into one int32 array: 4 bytes per (pair, word) rather than a set entry)."""
        words, shift = self.words, self.shift
        if not words:
            return {}, {}
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        symbols = np.fromiter(itertools.chain.from_iterable(words), dtype=np.int64, count=int(lengths.sum()))
        self.beat.work(len(symbols))
        inside = np.ones(len(symbols) - 1, dtype=bool)
        inside[np.cumsum(lengths)[:-1] - 1] = False  # the window from one word's end to the next word
        keys = (symbols[:-1] << shift | symbols[1:])[inside]
        del symbols, inside
        holder = np.repeat(np.arange(len(words), dtype=np.int32), lengths - 1)
        order = np.lexsort((holder, keys))
        keys, holder = keys[order], holder[order]
        weight = np.repeat(np.asarray(self.weights, dtype=np.int64), lengths - 1)[order]
        del order
        self.beat.work(len(keys))  # after the sort
        totals = np.add.reduceat(weight, _starts(keys)).tolist()
        del weight
        distinct = _starts(keys, holder)
        keys, holder = keys[distinct], holder[distinct]
        bounds = [*_starts(keys).tolist(), len(keys)]
        pair_keys = keys[bounds[:-1]].tolist()
        where = {key: holder[lo:hi] for key, lo, hi in zip(pair_keys, bounds, bounds[1:], strict=False)}
        return dict(zip(pair_keys, totals, strict=True)), where

    def queue(self, pair_counts: dict[int, int], where: dict[int, np.ndarray]) -> list:
        """One heap entry ``(-count, key, tie, words holding the pair)`` per pair counted above 0."""
        heap = [
            (-pair_counts[key], key, next(self.sequence), positions)
            for key, positions in where.items()
            if pair_counts[key] > 0
        ]
        heapq.heapify(heap)
        return heap

    def replay(self, operations, pair_counts: dict[int, int], where: dict) -> None:
        """Applies a checkpoint's merges ``[left, right, count]`` as :meth:`run` made them, without
        the heap: a merge visits every word its pair was created in, and ``where`` keeps them.
        Until a merge forms a string that is a token already, every pair has exactly one heap entry
        in :meth:`run` (one pair is created at one step), so the heap made from the counts after the
        replay pops what the uninterrupted run's heap pops; the replay therefore stops before such a
        merge and leaves it to the search."""
        word_to_id, shift, beat = self.word_to_id, self.shift, self.beat
        for number, operation in enumerate(operations, 1):
            try:
                left_string, right_string, count = operation
                left, right = word_to_id[left_string], word_to_id[right_string]
            except (KeyError, TypeError, ValueError):
                raise InputError(f"checkpoint merge {number} {operation!r} does not fit this corpus") from None
            if left_string + right_string in word_to_id or len(self.id_to_word) >= self.vocab_size:
                return
            created = self.merge(left, right, count, where.pop(left << shift | right, ()), pair_counts)
            for pair, pair_words in created.items():
                if pair_counts[pair] > 0:
                    where[pair] = {*_indices(where.get(pair, ())), *pair_words}
            if len(self.chosen) % PROGRESS_EVERY == 0:
                beat.report(len(self.id_to_word) - self.base_size)

    def merge(self, left: int, right: int, count: int, positions, pair_counts: dict[int, int]) -> dict[int, set[int]]:
        """Merges (left, right), of pair count ``count``, in the words at ``positions`` and
        updates ``pair_counts``; returns the pairs created -> the words they were created in."""
        new_id = self.new_token(left, right)
        self.chosen.append((left, right, new_id, count))
        delta, created, _ = _merge_words(
            self.words,
            self.weights,
            _indices(positions),
            left,
            right,
            new_id,
            self.shift,
            self.token_len,
            self.max_token_length,
            self.beat,
        )
        for pair, change in delta.items():
            pair_counts[pair] = pair_counts.get(pair, 0) + change
        return created

    def new_token(self, left: int, right: int) -> int:
        """The id of the merged string, a new one unless the string exists already."""
        new_string = self.id_to_word[left] + self.id_to_word[right]
        new_id = self.word_to_id.get(new_string)
        if new_id is None:
            new_id = len(self.id_to_word)
            self.word_to_id[new_string] = new_id
            self.id_to_word.append(new_string)
            self.token_len.append(len(new_string))
        return new_id

    def run(self, min_frequency: int, replay=()) -> list[tuple[int, int, int, int]]:
        """The merge loop after replaying ``replay`` (:meth:`replay`); returns (left, right,
        new_id, count) per pop that merged."""
        pair_counts, where = self.count_pairs()
        self.replay(replay, pair_counts, where)
        heap = self.queue(pair_counts, where)
        id_to_word, vocab_size, shift, sequence, beat = (
            self.id_to_word,
            self.vocab_size,
            self.shift,
            self.sequence,
            self.beat,
        )
        mask = (1 << shift) - 1
        chosen = self.chosen
        while len(id_to_word) < vocab_size and heap:
            neg_count, key, _, positions = heapq.heappop(heap)
            current = pair_counts[key]
            if -neg_count != current:  # stale entry: re-queue with the current count
                heapq.heappush(heap, (-current, key, next(sequence), positions))
                continue
            if current < 1 or min_frequency > current:
                break
            left, right = key >> shift, key & mask
            created = self.merge(left, right, current, positions, pair_counts)
            for pair, pair_words in created.items():
                count = pair_counts[pair]
                if count > 0:
                    heapq.heappush(heap, (-count, pair, next(sequence), pair_words))
            if len(chosen) % PROGRESS_EVERY == 0:
                beat.report(len(id_to_word) - self.base_size)
        return chosen


def _starts(*columns: np.ndarray) -> np.ndarray:
    """Where the rows of the sorted ``columns`` (equal lengths, not empty) begin a new value."""
    new = np.zeros(len(columns[0]), dtype=bool)
    new[0] = True
    for column in columns:
        new[1:] |= column[1:] != column[:-1]
    return np.flatnonzero(new)


def _indices(positions) -> Iterable[int]:
    """Word indices, a set or an array from :meth:`_Learner.count_pairs`, as Python ints."""
    return positions.tolist() if isinstance(positions, np.ndarray) else positions


def _merge_words(words, weights, positions, left, right, new_id, shift, token_len, max_length, beat):
    """Sennrich et al. (2016) Alg. 1 ``merge_vocab`` on the given words, as HF ``Word::merge``.

    Left to right, non-overlapping. Per occurrence the deltas are (prev, left) -1 and
    (prev, new) +1, (right, next) -1 and (new, next) +1, each times the word count; a ``+1`` pair
    is only counted when ``max_length`` is None or its string is strictly shorter than it.
    Returns (pair -> count change, pair -> words where it gained an occurrence, the number of
    occurrences merged times the word counts); ``beat`` hears the work per word.
    """
    delta: dict[int, int] = {}
    created: dict[int, set[int]] = {}
    merged = 0
    new_len = token_len[new_id]
    new_high = new_id << shift
    right_high = right << shift
    for index in positions:
        symbols = words[index]
        occurrences = symbols.count(left)
        if not occurrences:  # an earlier merge already consumed the pair in this word
            continue
        count = weights[index]
        n = len(symbols)
        beat.work(n)
        out: list[int] | None = None
        start = 0  # symbols[:start] are already copied to out (or merged)
        j = -1
        for k in range(1, occurrences + 1):
            if not k % OCCURRENCES_PER_BEAT:
                beat.pulse()
            j = symbols.index(left, j + 1)
            if j < start or j + 1 >= n or symbols[j + 1] != right:
                continue  # consumed by the previous merge (left == right), or no pair here
            if out is None:
                out = symbols[:j]
            else:
                out += symbols[start:j]
            if out:
                prev = out[-1]
                gone = prev << shift | left
                delta[gone] = delta.get(gone, 0) - count
                if max_length is None or token_len[prev] + new_len < max_length:
                    born = prev << shift | new_id
                    delta[born] = delta.get(born, 0) + count
                    created.setdefault(born, set()).add(index)
            out.append(new_id)
            merged += count
            start = j + 2
            if start < n:
                following = symbols[start]
                gone = right_high | following
                delta[gone] = delta.get(gone, 0) - count
                if max_length is None or token_len[following] + new_len < max_length:
                    born = new_high | following
                    delta[born] = delta.get(born, 0) + count
                    created.setdefault(born, set()).add(index)
        if out is not None:
            out += symbols[start:]
            words[index] = out
    return delta, created, merged


def train_bpe_from_text(texts, pretokeniser, vocab_size: int, **kwargs) -> BPETrainingResult:
    """:func:`train_bpe` on :func:`core.counting.pretoken_counter.count_pretokens` of ``texts`` (HF
    ``train_from_iterator``)."""
    return train_bpe(count_pretokens(texts, pretokeniser), vocab_size, **kwargs)


def tokeniser_from_training(result: BPETrainingResult, pretokeniser, name: str = "") -> BTETokeniser:
    """The trained merges as a tokeniser (merge i gets rank i; HF's ids are kept)."""
    return BTETokeniser(
        result.alphabet,
        [Merge(i, pair) for i, pair in enumerate(result.merges)],
        pretokeniser,
        specials=result.special_tokens,
        type_ids=result.vocab,
        name=name,
    )
