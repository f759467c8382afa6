"""Token counts of a corpus given as counts: each word (or pretoken) segmented once, its tokens
counted as often as it occurs (subword-nmt ``get_vocab.py`` on BPE output). TrimmedBPE's
frequencies ([rebpe §2.1]), the comparison of two tokenisers and the corpus statistics of word
counts all read them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from core.errors import InputError
from core.tokeniser import SegmentsWords


def token_frequencies(tokeniser: SegmentsWords, word_counts: Mapping[str, int], *, as_words: bool = True) -> Counter:
    """Token counts in the segmented corpus.

    With ``as_words`` each key is a word tokenised as in running text (``tokenise_word``: the
    pre-tokeniser applied to ``" " + word``); otherwise each key is already a pretoken and is
    segmented directly. Types that never appear as a token are absent (frequency 0).
    """
    counts: Counter = Counter()
    for key, count in word_counts.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InputError(f"count of {key!r} must be a non-negative integer, got {count!r}")
        if not count:
            continue
        tokens = tokeniser.tokenise_word(key) if as_words else tokeniser.segment_pretoken(key)
        for token in tokens:
            counts[token] += count
    return counts
