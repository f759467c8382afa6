"""Two tokenisers side by side over a word list or word counts: which words they segment differently,
by how much, and how the token frequencies shift.

A diagnostic in the spirit of [knockout App. A.4] (Fig. 4: tokens per word before and after
knockout) that takes any two tokenisers (``core.tokeniser.Tokeniser``: a BPE before and after
knockout or ReBPE, or two LLM tokenisers). A word is segmented as in running text
(``tokenise_word``), and its segmentation is read as the set of *split positions* in the word, as
morphological evaluation reads it ([knockout §4.1]; :func:`core.references.evaluation.predicted_splits`):
a split after character k of the word, whatever markers (``Ġ``, ``▁``) or byte pieces the tokens
carry. So two tokenisers with different pre-tokenisers are compared on the characters of the word.

The change of one word is its *boundary edit distance*: the splits only A makes plus the splits only
B makes (symmetric; 0 iff both split at the same positions). A word *differs* when its splits
differ or, with equal splits, its token count does (pieces inside one character, e.g. byte
fallback, or a word-start marker as a token of its own). Words whose characters cannot be aligned
by one of the pre-tokenisers (its normalisation changes their length, or the word holds one of its
added tokens) are left out and listed.

Token frequencies are :func:`core.counting.token_frequencies.token_frequencies` over the same
counts; each word is segmented once per tokeniser (:class:`Segmentations`) for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from core.counting.token_frequencies import token_frequencies
from core.errors import InputError
from core.references.alignment import align_word

#: words between two calls of a ``progress`` callback
PROGRESS_EVERY = 2000
#: words a :class:`Segmentations` memo keeps before it starts again (bounds its memory)
MEMO_LIMIT = 250_000


@dataclass(frozen=True)
class WordSegmentation:
    """One word under one tokeniser: its tokens, and its split positions (1..len(word)-1), None
    when the pre-tokeniser cannot align the word's characters."""

    tokens: tuple[str, ...]
    splits: frozenset[int] | None


class Segmentations:
    """A tokeniser's segmentation of words, each word segmented and aligned once (a memo).

    ``tokenise_word`` reads the memo, so :func:`core.counting.token_frequencies.token_frequencies`
    can take it in place of the tokeniser without segmenting again."""

    def __init__(self, tokeniser):
        if not all(callable(getattr(tokeniser, name, None)) for name in ("tokenise_word", "segment_pretoken")):
            raise InputError(
                f"expected a tokeniser (tokenise_word and segment_pretoken), got {type(tokeniser).__name__}"
            )
        self.tokeniser = tokeniser
        self._memo: dict[str, WordSegmentation] = {}

    @classmethod
    def of(cls, tokeniser) -> Segmentations:
        return tokeniser if isinstance(tokeniser, Segmentations) else cls(tokeniser)

    def segment(self, word: str) -> WordSegmentation:
        found = self._memo.get(word)
        if found is None:
            pretokeniser = self.tokeniser.pretokeniser
            try:
                if pretokeniser.may_hold_added_tokens(" " + word):  # an added token is emitted whole
                    raise InputError("holds an added token")
                aligned = align_word(pretokeniser, word)
            except InputError:  # e.g. normalisation changes the word's length: no character offsets
                found = WordSegmentation(tuple(self.tokeniser.tokenise_word(word)), None)
            else:
                pieces = [tuple(self.tokeniser.segment_pretoken(p.text)) for p in aligned.pretokens]
                found = WordSegmentation(
                    tuple(t for piece in pieces for t in piece), frozenset(aligned.predicted_splits(pieces))
                )
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            self._memo[word] = found
        return found

    def tokenise_word(self, word: str) -> list[str]:
        return list(self.segment(word).tokens)

    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]:
        return tuple(self.tokeniser.segment_pretoken(pretoken))


@dataclass(frozen=True)
class WordDifference:
    """A word the two tokenisers segment differently; ``count`` is its frequency (1 for a word list)."""

    word: str
    count: int
    tokens_a: tuple[str, ...]
    tokens_b: tuple[str, ...]
    only_a: tuple[int, ...]  # split positions only A makes
    only_b: tuple[int, ...]  # split positions only B makes

    @property
    def change(self) -> int:
        """Boundary edit distance: splits only in A plus splits only in B."""
        return len(self.only_a) + len(self.only_b)

    @property
    def token_difference(self) -> int:
        """Tokens under B minus tokens under A."""
        return len(self.tokens_b) - len(self.tokens_a)


@dataclass(frozen=True)
class Comparison:
    """Every word that differs (most changed first, then most frequent), and the totals."""

    differences: tuple[WordDifference, ...]
    words: int  # words compared (aligned by both pre-tokenisers)
    occurrences: int  # their summed counts
    tokens_a: int  # tokens under A over the occurrences
    tokens_b: int
    unaligned: tuple[str, ...]

    @property
    def differing(self) -> int:
        return len(self.differences)

    @property
    def differing_occurrences(self) -> int:
        return sum(d.count for d in self.differences)

    @property
    def share(self) -> float:
        """Share of the compared words that differ."""
        return self.differing / self.words if self.words else 0.0

    @property
    def weighted_share(self) -> float:
        """Share of the occurrences (frequency-weighted) whose word differs."""
        return self.differing_occurrences / self.occurrences if self.occurrences else 0.0


def word_counts(words: Iterable[str] | Mapping[str, int]) -> dict[str, int]:
    """Word counts from a mapping (checked: non-negative integers) or a word list (each word once)."""
    if isinstance(words, str):
        raise InputError("expected a list of words or word counts, not one string")
    if isinstance(words, Mapping):
        counts = {}
        for word, count in words.items():
            if not isinstance(word, str) or not word:
                raise InputError(f"words must be non-empty strings, got {word!r}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InputError(f"count of {word!r} must be a non-negative integer, got {count!r}")
            counts[word] = count
        return counts
    counts = {}
    for word in words:
        if not isinstance(word, str) or not word:
            raise InputError(f"words must be non-empty strings, got {word!r}")
        counts[word] = 1
    return counts


def compare_word(word: str, count: int, a: WordSegmentation, b: WordSegmentation) -> WordDifference | None:
    """The difference of one word, or None when both segment it alike (both must be aligned)."""
    if a.splits is None or b.splits is None:
        raise ValueError(f"compare_word needs two aligned segmentations of {word!r}")
    only_a, only_b = tuple(sorted(a.splits - b.splits)), tuple(sorted(b.splits - a.splits))
    if not only_a and not only_b and len(a.tokens) == len(b.tokens):
        return None
    return WordDifference(word, count, a.tokens, b.tokens, only_a, only_b)


def compare_tokenisers(
    a, b, words: Iterable[str] | Mapping[str, int], *, progress: Callable[[int, int], None] | None = None
) -> Comparison:
    """Compare tokenisers (or :class:`Segmentations`) ``a`` and ``b`` over ``words``: a word list or
    word counts (frequencies weight the totals; words with count 0 are skipped).
    ``progress(done, total)`` is called every :data:`PROGRESS_EVERY` words and at the end."""
    seg_a, seg_b = Segmentations.of(a), Segmentations.of(b)
    counts = word_counts(words)
    total = len(counts)
    differences: list[WordDifference] = []
    unaligned: list[str] = []
    compared = occurrences = tokens_a = tokens_b = 0
    for done, (word, count) in enumerate(counts.items(), 1):
        if count:
            x, y = seg_a.segment(word), seg_b.segment(word)
            if x.splits is None or y.splits is None:
                unaligned.append(word)
            else:
                compared += 1
                occurrences += count
                tokens_a += count * len(x.tokens)
                tokens_b += count * len(y.tokens)
                difference = compare_word(word, count, x, y)
                if difference is not None:
                    differences.append(difference)
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == total):
            progress(done, total)
    differences.sort(key=lambda d: (-d.change, -d.count, -abs(d.token_difference), d.word))
    return Comparison(tuple(differences), compared, occurrences, tokens_a, tokens_b, tuple(unaligned))


def token_frequency_differences(a, b, counts: Mapping[str, int]) -> list[dict]:
    """Per token type: its frequency under A and under B over the same word ``counts``
    (:func:`core.counting.token_frequencies.token_frequencies`) and B − A; only types whose
    frequency changes, largest change first (then by token)."""
    freq_a = token_frequencies(Segmentations.of(a), counts)
    freq_b = token_frequencies(Segmentations.of(b), counts)
    rows = [
        {
            "token": token,
            "frequency_a": freq_a.get(token, 0),
            "frequency_b": freq_b.get(token, 0),
            "difference": freq_b.get(token, 0) - freq_a.get(token, 0),
        }
        for token in freq_a.keys() | freq_b.keys()
    ]
    rows = [row for row in rows if row["difference"]]
    rows.sort(key=lambda row: (-abs(row["difference"]), row["token"]))
    return rows
