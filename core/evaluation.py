"""Morphological evaluation: precision, recall and F1 of split positions.

bpe-knockout.txt §4.1: tokenisation is binary classification of the n-1 positions between the n
characters of each reference word (a split is a positive, Kurimo et al. 2006), micro-averaged
over the reference words; optionally each word's contributions are multiplied by its corpus
frequency ("Weights", defaulting to 1 for words without a count). As in the authors' TkTkT
evaluation, precision is 1 when nothing is predicted and recall is 1 when nothing is relevant.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Iterable, Mapping

from core.alignment import align_word
from core.model import BTETokeniser


@dataclass(frozen=True)
class MorphScores:
    precision: float
    recall: float
    f1: float
    tp: float
    fp: float
    fn: float
    words: int

    def to_json(self) -> dict:
        return asdict(self)


def scores_from_counts(tp: float, fp: float, fn: float, words: int) -> MorphScores:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return MorphScores(precision, recall, f1, tp, fp, fn, words)


def predicted_splits(tokeniser: BTETokeniser, word: str) -> set[int]:
    """Split positions (1..len(word)-1) of ``word`` as the tokeniser segments it in running text."""
    aligned = align_word(tokeniser.pretokeniser, word)
    return aligned.predicted_splits([tokeniser.segment_pretoken(p.text) for p in aligned.pretokens])


def evaluate_morphology(
    tokeniser: BTETokeniser,
    references: Iterable,
    *,
    weights: Mapping[str, float] | None = None,
    free: bool = False,
    progress: Callable[[int], None] | None = None,
) -> MorphScores:
    """Micro-averaged Pr/Re/F1 over ``references`` (ReferenceEntry objects).

    ``free`` uses the whole-word (free-morph) boundaries; entries without them are skipped.
    """
    tp = fp = fn = 0.0
    words = 0
    for entry in references:
        if progress is not None:
            progress(1)
        gold = entry.boundaries(free=free) if not free or entry.free_morphs is not None else None
        if gold is None:
            continue
        weight = weights.get(entry.word, 1) if weights is not None else 1
        predicted = predicted_splits(tokeniser, entry.word)
        hits = len(predicted & gold)
        tp += weight * hits
        fp += weight * (len(predicted) - hits)
        fn += weight * (len(gold) - hits)
        words += 1
    return scores_from_counts(tp, fp, fn, words)
