"""BoundlessBPE training: boundless-bpe.txt §3.1 and App. B, with the semantics of the authors'
``FasterHalfDirectRegexTokenizer.train`` (kensho-technologies/boundlessbpe @9c7ef2e,
reference-implementations.md §5; TEST_VECTORS V8 is reproduced exactly).

Two states share one operation index (App. B):

* *words*: the unique pretokens with their counts, split into bytes. Pairs are counted per
  pretoken x count, runs of one pair non-overlapping (``aaaa`` -> 2, ``aaa`` -> 1). After a
  regular merge (a, b) with pair count c_ab, each of a, b longer than one byte whose
  Intersection over Self ``c_ab / c_x`` (counts *before* the merge) reaches ``threshold`` is
  deleted, left first: every occurrence is blown up into bytes (``blowup``). When the merge turns
  some pretoken into the single token ab, ab is *unlocked* in the superword state if it matches
  the merge pattern (``merge_pattern``).
* *superwords*: every document (``corpus.documents``, a line of the corpus) as its sequence of
  whole pretokens. A pair is counted only when both tokens are unlocked (runs non-overlapping as
  above); a supermerge (a, b) merges left to right in every document and its result is unlocked
  too (except for a == b, which the authors' code leaves locked). No deletions here (§3.1).

Each step takes the best pair of each state (highest count, ties to the smallest pair of byte
strings; a pair whose concatenation is already a token is skipped) and performs the word merge
if its count is strictly higher, else the supermerge (``tie``). Training stops at
``vocab_size`` or when neither state has a pair left. Supermerges need running text: a corpus
without documents (word counts) raises InputError.

Options (defaults = the authors' code; the paper's reading where they differ):

* ``threshold=0.9`` (τ, §3.1); ``ios_rule=">="`` (code) or ``">"`` ("exceeds", §3.1).
* ``blowup=True``: deleted tokens become bytes (§3.1, code default); False: the pair of the
  earliest merge that formed the token (PickyBPE; the authors' ablation), which can bring back
  a part deleted before (it is then in the vocabulary again).
* ``merge_pattern``: which whole pretokens may be unlocked: ``"improved"`` (code,
  ``^(?=.+\\p{L})(?:\\p{L}\\p{M}*|[ _'’])+$``: letters, spaces, ``_``, apostrophes, a letter after
  the first character), ``"original"`` (footnote 5 as used for the COLM submission, ASCII
  ``^[ _'a-zA-Z]*[a-zA-Z][ _'a-zA-Z]*$``), ``"simple"`` (contains a letter; fastboundlessbpe).
* ``deleted_slots="kept"``: as in the code, a deleted token keeps its place in the vocabulary
  list (the list is never shortened: ``vocablist`` is rebound locally), so training stops at
  256 + merges + supermerges = ``vocab_size`` and a deleted string is never formed again by a
  merge; the final |V| is ``vocab_size`` minus the deletions (V8: 290 - 12 = 278).
  ``"freed"``: deletions free their slot (§3.1 "freeing up space"), |V| = 256 + merges +
  supermerges - deletions reaches ``vocab_size``, and a deleted string may be formed again.
* ``tie="supermerge"``: a word merge and a supermerge of equal count -> the supermerge (code;
  the paper does not say); ``"merge"`` the other way.

Two corner cases of the code are not copied: a pair (x, x) is checked for deletion once, not
twice (c_xx <= c_x / 2, so this only matters for τ <= 0.5), and a token is unlocked once (the
code would count its pairs again if it became a whole word a second time, which its own
from-scratch recount, ``verify_state``, rejects). Pair counts are defined by that recount
(``get_stats``); the code's incremental superword update is checked against it there.

Speed: both states update pair counts incrementally (lazy max-heaps; the words state revisits
only pretokens holding the merged pair or the deleted token; the superword state keeps documents
as linked token positions and recounts only a few positions around each merge).
"""
from __future__ import annotations

import heapq
import numbers
from collections.abc import Callable

import regex

from core.errors import InputError
from core.pretokenisers.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE
from core.train_bpe import PROGRESS_EVERY, _check_int
from core.variants.base import TrainingCorpus, TrainingEvent, TrainingRun, initial_alphabet

_IMPROVED = regex.compile(r"^(?=.+\p{L})(?:\p{L}\p{M}*|[ _'\u2019])+$")
_ORIGINAL = regex.compile(r"^[ _'a-zA-Z]*[a-zA-Z][ _'a-zA-Z]*$")
_LETTER = regex.compile(r"\p{L}")

#: merge_pattern option -> test on a token's text (tokens that are not valid UTF-8 never match).
MERGE_PATTERNS: dict[str, Callable[[str], bool]] = {
    "improved": lambda text: _IMPROVED.match(text) is not None,
    "original": lambda text: _ORIGINAL.match(text) is not None,
    "simple": lambda text: _LETTER.search(text) is not None,
}
IOS_RULES = (">=", ">")
DELETED_SLOTS = ("kept", "freed")
TIES = ("supermerge", "merge")

# Training works on "raw" strings, one character per byte (chr(byte)), so that comparing two
# strings compares their bytes, the authors' tie rule; the byte characters come back at the end.
_TO_RAW = {ord(char): chr(byte) for char, byte in CHAR_TO_BYTE.items()}
_FROM_RAW = {byte: BYTE_TO_CHAR[byte] for byte in range(256)}


def _raw(pretoken: str) -> str:
    if not CHAR_TO_BYTE.keys() >= set(pretoken):
        raise InputError(f"pretoken {pretoken!r} is not written in the GPT-2 byte alphabet")
    return pretoken.translate(_TO_RAW)


def _shown(raw: str) -> str:
    return raw.translate(_FROM_RAW)


def _pair_stats(tokens, countable=None) -> dict[tuple[str, str], int]:
    """Pair counts of one token sequence, the authors' ``get_stats``: a pair is skipped when it
    repeats the pair just counted (``aaaa`` -> 2) or when a token is not ``countable``."""
    stats: dict[tuple[str, str], int] = {}
    previous = None
    for pair in zip(tokens, tokens[1:]):
        if (countable is not None and (pair[0] not in countable or pair[1] not in countable)) \
                or (pair[0] == pair[1] and pair == previous):
            previous = None
            continue
        stats[pair] = stats.get(pair, 0) + 1
        previous = pair
    return stats


class _PairQueue:
    """Pair counts with a lazy max-heap: highest count first, ties to the smallest pair. Every
    count change pushes an entry; entries whose count is no longer current are dropped on sight.
    Pairs whose concatenation is a token (``taken``) are set aside until :meth:`release`."""

    def __init__(self):
        self.counts: dict[tuple[str, str], int] = {}
        self.heap: list[tuple[int, str, str]] = []
        self.blocked: dict[str, set[tuple[str, str]]] = {}

    def apply(self, delta: dict[tuple[str, str], int]) -> None:
        counts, heap = self.counts, self.heap
        for pair, change in delta.items():
            if change:
                count = counts.get(pair, 0) + change
                if count:
                    counts[pair] = count
                    heapq.heappush(heap, (-count, pair[0], pair[1]))
                else:
                    del counts[pair]

    def best(self, taken: set[str]) -> tuple[int, tuple[str, str]] | None:
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


class _Words(_PairQueue):
    """The words state: unique pretokens x counts, every pair countable."""

    def __init__(self, counts: dict[str, int]):
        super().__init__()
        self.words = [tuple(word) for word in counts]
        self.weights = list(counts.values())
        self.frequency: dict[str, int] = {}  # token -> occurrences in the current segmentation
        self.pair_words: dict[tuple[str, str], set[int]] = {}  # supersets, pruned lazily
        self.token_words: dict[str, set[int]] = {}
        delta: dict[tuple[str, str], int] = {}
        for index, (word, weight) in enumerate(zip(self.words, self.weights)):
            self._index(index, word, _pair_stats(word), {})
            for token in word:
                self.frequency[token] = self.frequency.get(token, 0) + weight
            for pair, count in _pair_stats(word).items():
                delta[pair] = delta.get(pair, 0) + count * weight
        self.apply(delta)

    def _index(self, index: int, word, stats: dict, old_stats: dict) -> None:
        for pair in stats:
            if pair not in old_stats:
                self.pair_words.setdefault(pair, set()).add(index)
        for token in word:
            self.token_words.setdefault(token, set()).add(index)

    def _rewrite(self, candidates, rewrite) -> tuple[int, bool]:
        """Apply ``rewrite(word) -> (new word, changes)`` to the candidate words; returns the
        weighted number of changes and whether some word became a single token."""
        delta: dict[tuple[str, str], int] = {}
        total, whole = 0, False
        words, weights = self.words, self.weights
        for index in candidates:
            word = words[index]
            new, changes = rewrite(word)
            if not changes:
                continue
            weight = weights[index]
            old_stats, new_stats = _pair_stats(word), _pair_stats(new)
            for pair, count in old_stats.items():
                delta[pair] = delta.get(pair, 0) - count * weight
            for pair, count in new_stats.items():
                delta[pair] = delta.get(pair, 0) + count * weight
            self._index(index, new, new_stats, old_stats)
            words[index] = new
            total += changes * weight
            whole = whole or (len(new) == 1 < len(word))
        self.apply(delta)
        return total, whole

    def merge(self, left: str, right: str) -> tuple[int, bool]:
        """Merge the pair in every pretoken; (weighted merges, some pretoken became whole)."""
        token = left + right

        def rewrite(word):
            out, i, n, changes = [], 0, len(word), 0
            while i < n:
                if i + 1 < n and word[i] == left and word[i + 1] == right:
                    out.append(token)
                    i += 2
                    changes += 1
                else:
                    out.append(word[i])
                    i += 1
            return tuple(out), changes

        total, whole = self._rewrite(self.pair_words.pop((left, right), ()), rewrite)
        frequency = self.frequency
        frequency[token] = frequency.get(token, 0) + total
        for part in (left, right):
            frequency[part] -= total
            if not frequency[part]:
                del frequency[part]
        return total, whole

    def delete(self, token: str, pieces: tuple[str, ...]) -> int:
        """Replace every occurrence of ``token`` by ``pieces``; returns the weighted count."""

        def rewrite(word):
            if token not in word:
                return word, 0
            return tuple(p for t in word for p in (pieces if t == token else (t,))), word.count(token)

        total, _ = self._rewrite(self.token_words.pop(token, ()), rewrite)
        frequency = self.frequency
        frequency.pop(token, None)
        for piece in pieces:
            if total:
                frequency[piece] = frequency.get(piece, 0) + total
        return total


class _Superwords(_PairQueue):
    """The superword state: documents of whole pretokens as one array of linked positions
    (``token[p]`` None once merged into its left neighbour); only unlocked tokens pair up."""

    def __init__(self, documents, unlockable: Callable[[str], bool]):
        super().__init__()
        self.unlockable = unlockable
        self.unlocked: set[str] = set()
        token: list[str | None] = []
        before: list[int] = []
        after: list[int] = []
        for document in documents:
            start = len(token)
            token.extend(document)
            before.extend(range(start - 1, start + len(document) - 1))
            after.extend(range(start + 1, start + len(document) + 1))
            before[start] = -1
            after[-1] = -1
        self.token, self.before, self.after = token, before, after
        self.positions: dict[str, set[int]] = {}
        for position, text in enumerate(token):
            self.positions.setdefault(text, set()).add(position)

    def occurrences(self, text: str) -> int:
        return len(self.positions.get(text, ()))

    def unlock(self, text: str) -> bool:
        """Make a whole-word token pair up (if the merge pattern allows and it is new)."""
        if text in self.unlocked or not self.unlockable(text):
            return False
        self.unlocked.add(text)
        token, before, after, unlocked = self.token, self.before, self.after, self.unlocked
        delta: dict[tuple[str, str], int] = {}
        for start in self.positions.get(text, ()):
            previous = before[start]
            if previous != -1 and token[previous] == text:
                continue  # not the first of a run
            end, run = start, 1
            while after[end] != -1 and token[after[end]] == text:
                end, run = after[end], run + 1
            if run > 1:
                delta[(text, text)] = delta.get((text, text), 0) + run // 2
            if previous != -1 and token[previous] in unlocked:
                delta[(token[previous], text)] = delta.get((token[previous], text), 0) + 1
            following = after[end]
            if following != -1 and token[following] in unlocked:
                delta[(text, token[following])] = delta.get((text, token[following]), 0) + 1
        self.apply(delta)
        return True

    def _window(self, first: int, last: int) -> list[int]:
        """Positions from ``first`` to ``last``, widened to whole runs of equal tokens (so the
        pair counts outside the window do not change when tokens inside it do)."""
        token, before, after = self.token, self.before, self.after
        while before[first] != -1 and token[before[first]] == token[first]:
            first = before[first]
        while after[last] != -1 and token[after[last]] == token[last]:
            last = after[last]
        out = [first]
        while first != last:
            first = after[first]
            out.append(first)
        return out

    def merge(self, left: str, right: str) -> int:
        """Supermerge ``left right`` in every document, left to right; returns the count."""
        merged = left + right
        if left != right:
            self.unlocked.add(merged)
        token, before, after, positions = self.token, self.before, self.after, self.positions
        lefts, rights = positions.get(left, set()), positions.get(right, set())
        if len(lefts) <= len(rights):
            candidates = sorted(p for p in lefts if after[p] != -1 and token[after[p]] == right)
        else:
            candidates = sorted(before[p] for p in rights if before[p] != -1 and token[before[p]] == left)
        delta: dict[tuple[str, str], int] = {}
        done = 0
        for i in candidates:
            j = after[i]
            if token[i] != left or j == -1 or token[j] != right:
                continue  # taken by the previous merge of a run
            window = self._window(before[i] if before[i] != -1 else i, after[j] if after[j] != -1 else j)
            for pair, count in _pair_stats([token[p] for p in window], self.unlocked).items():
                delta[pair] = delta.get(pair, 0) - count
            token[i], token[j] = merged, None
            after[i] = after[j]
            if after[j] != -1:
                before[after[j]] = i
            lefts.discard(i)
            rights.discard(j)
            positions.setdefault(merged, set()).add(i)
            window.remove(j)
            for pair, count in _pair_stats([token[p] for p in window], self.unlocked).items():
                delta[pair] = delta.get(pair, 0) + count
            done += 1
        self.apply(delta)
        return done


def _check_corpus(corpus) -> TrainingCorpus:
    if not isinstance(corpus, TrainingCorpus):
        raise InputError(f"corpus must be a TrainingCorpus, got {type(corpus).__name__}")
    if corpus.documents is None:
        raise InputError("BoundlessBPE needs running text: supermerges join neighbouring pretokens "
                         "of a document, and this corpus only has pretoken counts (train from text, "
                         "e.g. TrainingCorpus.from_texts, not from word counts)")
    if not initial_alphabet(corpus.pretokeniser):
        raise InputError(f"BoundlessBPE works on bytes: use a byte-level pre-tokeniser (e.g. "
                         f"core.variants.boundless.boundless_pretokeniser()), got {corpus.pretokeniser!r}")
    return corpus


def _option(value, name: str, allowed) -> str:
    if value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def train(corpus: TrainingCorpus, vocab_size: int, *, progress: Callable[[int, int], None] | None = None,
          threshold: float = 0.9, ios_rule: str = ">=", blowup: bool = True,
          merge_pattern: str = "improved", deleted_slots: str = "kept", tie: str = "supermerge",
          name: str = "") -> TrainingRun:
    """BoundlessBPE training with the options of the module docstring.

    Events: "merge" (count = pair count c_ab; detail: IoS of both parts, the token unlocked if
    any), "deletion" (count = the token's count before the merge; detail: IoS, the merge), and
    "supermerge" (count = superword pair count). ``vocab_size`` of an event = |V| after it.
    ``progress(done, total)``: vocabulary slots filled beyond the 256 bytes, and the room left.
    """
    corpus = _check_corpus(corpus)
    vocab_size = _check_int(vocab_size, "vocab_size", 256)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not threshold > 0:
        raise InputError(f"threshold must be a positive number, got {threshold!r}")
    if not isinstance(blowup, bool):
        raise InputError(f"blowup must be true or false, got {blowup!r}")
    strict = _option(ios_rule, "ios_rule", IOS_RULES) == ">"
    unlockable_text = MERGE_PATTERNS[_option(merge_pattern, "merge_pattern", tuple(MERGE_PATTERNS))]
    freed = _option(deleted_slots, "deleted_slots", DELETED_SLOTS) == "freed"
    merge_wins_ties = _option(tie, "tie", TIES) == "merge"

    def unlockable(raw: str) -> bool:
        try:
            text = raw.encode("latin-1").decode("utf-8")
        except UnicodeDecodeError:
            return False
        return unlockable_text(text)

    raw = {p: _raw(p) for p in corpus.pretoken_counts}
    words = _Words({raw[p]: c for p, c in corpus.pretoken_counts.items()})
    try:
        supers = _Superwords([[raw[p] for p in d] for d in corpus.documents], unlockable)
    except KeyError as err:
        raise InputError(f"document pretoken {err.args[0]!r} is missing from the pretoken counts") from None
    # present: the vocabulary |V|. taken: strings a new merge may not form, the code's vocabulary
    # list (never shortened, "kept") or |V| itself ("freed"); the loop runs on its size.
    present = {chr(b) for b in range(256)}
    taken = present if freed else set(present)
    operations: list[tuple[str, ...]] = []
    events: list[TrainingEvent] = []
    pieces: dict[str, tuple[str, str]] = {}
    counts = dict.fromkeys(("merge", "deletion", "supermerge"), 0)
    step = 0

    def record(kind: str, parts: tuple[str, ...], count: int, detail: dict) -> None:
        operations.append((kind, *map(_shown, parts)))
        counts[kind] += 1
        label = f"delete {_shown(parts[0])}" if kind == "deletion" else \
            f"{_shown(parts[0])} + {_shown(parts[1])} -> {_shown(parts[0] + parts[1])}"
        events.append(TrainingEvent(step, kind, label, count, len(present), detail))

    def add(token: str) -> dict:
        present.add(token)
        taken.add(token)
        return {"left": _shown(left), "right": _shown(right), "token": _shown(token)}

    stopped = "vocab_size reached"
    while len(taken) < vocab_size:
        word_best, super_best = words.best(taken), supers.best(taken)
        if word_best is None and super_best is None:
            stopped = "no pairs left"
            break
        word_count = word_best[0] if word_best else -1
        super_count = super_best[0] if super_best else -1
        if word_count > super_count or (merge_wins_ties and word_count == super_count):
            left, right = word_best[1]
            token = left + right
            left_count, right_count = words.frequency[left], words.frequency[right]
            _, whole = words.merge(left, right)
            pieces.setdefault(token, (left, right))
            detail = {**add(token), "left_count": left_count, "right_count": right_count,
                      "ios_left": word_count / left_count, "ios_right": word_count / right_count}
            if whole and supers.unlock(token):
                detail["unlocked"] = _shown(token)
            record("merge", (left, right), word_count, detail)
            for part, part_count in ((left, left_count),) if left == right else \
                    ((left, left_count), (right, right_count)):
                ios = word_count / part_count
                if len(part) > 1 and (ios > threshold if strict else ios >= threshold):
                    replacement = tuple(part) if blowup else pieces[part]
                    blown = words.delete(part, replacement)
                    present.discard(part)
                    present.update(replacement)  # with blowup=False a deleted token may come back
                    if freed:
                        words.release(part)
                        supers.release(part)
                    record("deletion", (part,), part_count,
                           {"token": _shown(part), "ios": ios, "merge": _shown(token), "blown_up": blown})
        else:
            left, right = super_best[1]
            detail = {**add(left + right), "left_count": supers.occurrences(left),
                      "right_count": supers.occurrences(right)}
            supers.merge(left, right)
            record("supermerge", (left, right), super_count, detail)
        step += 1
        if progress is not None and step % PROGRESS_EVERY == 0:
            progress(len(taken) - 256, vocab_size - 256)
    if progress is not None:
        progress(len(taken) - 256, vocab_size - 256)
    from core.variants.boundless import BoundlessBPE  # imported here: that module imports this one

    tokeniser = BoundlessBPE(operations, corpus.pretokeniser, blowup=blowup, name=name)
    summary = {
        "merges": counts["merge"], "supermerges": counts["supermerge"], "deletions": counts["deletion"],
        "vocab_size": tokeniser.vocab_size, "slots": len(taken), "stopped": stopped,
        "documents": len(corpus.documents), "unique_pretokens": len(corpus.pretoken_counts),
        "options": {"threshold": threshold, "ios_rule": ios_rule, "blowup": blowup,
                    "merge_pattern": merge_pattern, "deleted_slots": deleted_slots, "tie": tie},
    }
    return TrainingRun(tokeniser, tuple(events), summary)
