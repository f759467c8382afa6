"""Morphological evaluation: precision, recall and F1 of split positions — the one scoring routine.

[knockout §4.1]: tokenisation is binary classification of the n-1 positions between the n
characters of each reference word (a split is a positive, Kurimo et al. 2006), micro-averaged
over the reference words; optionally each word's contributions are multiplied by its corpus
frequency ("Weights", defaulting to 1 for words without a count). As in the authors' TkTkT
evaluation, precision is 1 when nothing is predicted and recall is 1 when nothing is relevant.

Every score in the project (the ``evaluate`` command, knockout and ReBPE before/after and per
step, the pages) comes from :func:`align_reference` and :func:`morph_scores`, so all of them score
the same words. A reference word the tokeniser cannot align (its normalisation changes its length,
e.g. NFKC turns ``ﬁne`` into ``fine``) follows an explicit policy: ``"exclude"`` (the default)
leaves it out and counts it in ``MorphScores.excluded``; ``"raise"`` stops with an InputError.
With ``free`` (whole-word boundaries) entries without free-morph boundaries are not part of the
evaluated set at all (they are not counted as excluded).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Literal, get_args

from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.options import check_bool, check_choice, check_iterable, check_weights, described
from core.references.alignment import AlignedWord, align_word
from core.references.files import ReferenceEntry
from core.tokeniser import check_tokeniser

UnalignedPolicy = Literal["exclude", "raise"]
UNALIGNED_POLICIES = get_args(UnalignedPolicy)


@dataclass(frozen=True)
class MorphScores:
    precision: float
    recall: float
    f1: float
    tp: float
    fp: float
    fn: float
    words: int  # words scored
    excluded: int = 0  # reference words left out because the tokeniser cannot align them

    def to_json(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        """One line: the three scores, the counts and how many words were scored and excluded."""
        line = (
            f"precision {self.precision:.4f}  recall {self.recall:.4f}  F1 {self.f1:.4f}  "
            f"(tp {self.tp:g}, fp {self.fp:g}, fn {self.fn:g}; {self.words} words"
        )
        return line + (f"; {self.excluded} excluded: cannot be aligned)" if self.excluded else ")")


@dataclass(frozen=True)
class ReferenceWord:
    """A reference word ready to score: its alignment to the pretokens, gold splits and weight."""

    word: str
    weight: float
    aligned: AlignedWord
    gold: frozenset[int]


@dataclass(frozen=True)
class AlignedReference:
    words: tuple[ReferenceWord, ...]
    excluded: tuple[str, ...]  # words the tokeniser cannot align (policy "exclude")


REFERENCE_ENTRIES = "ReferenceEntry objects (load_references(...).entries)"


def check_references(entries: Iterable, name: str = "references", *, empty: bool = True) -> list[ReferenceEntry]:
    """``entries`` as a list, each a ReferenceEntry; InputError naming ``name`` for anything else,
    and unless ``empty`` for no entries at all. Checked by shape (a ``word`` string and ``morphs``), not
    by class: a module reloaded in a running explorer makes a second ReferenceEntry class."""
    entries = list(check_iterable(entries, name, REFERENCE_ENTRIES))
    for entry in entries:
        if not isinstance(getattr(entry, "word", None), str) or not hasattr(entry, "morphs"):
            raise InputError(f"{name} must hold only {REFERENCE_ENTRIES}, found {described(entry)}")
    if not empty and not entries:
        raise InputError(f"{name}: no reference words to evaluate")
    return entries


def align_reference(
    pretokeniser,
    entries: Iterable,
    *,
    free: bool = False,
    weights: Mapping[str, float] | None = None,
    unaligned: UnalignedPolicy = "exclude",
) -> AlignedReference:
    """The reference entries (``ReferenceEntry``) that are scored, aligned to ``pretokeniser``'s
    pretokens, and the words excluded under the ``unaligned`` policy."""
    check_choice("unaligned", unaligned, UNALIGNED_POLICIES)
    check_bool("free", free)
    weights = check_weights(weights)
    entries = check_references(entries)
    words, excluded = [], []
    for entry in entries:
        if free and entry.free_morphs is None:
            continue
        try:
            aligned = align_word(pretokeniser, entry.word)
        except InputError as err:
            if unaligned == "raise":
                raise InputError(
                    f"{err} (the 'unaligned' policy is 'raise'; 'exclude' leaves such words out and counts them)"
                ) from None
            excluded.append(entry.word)
            continue
        weight = weights.get(entry.word, 1) if weights is not None else 1
        words.append(ReferenceWord(entry.word, weight, aligned, entry.boundaries(free=free)))
    return AlignedReference(tuple(words), tuple(excluded))


def split_counts(predicted: set[int], gold: frozenset[int]) -> tuple[int, int, int]:
    """(tp, fp, fn) of ``predicted`` split positions against the ``gold`` ones."""
    hits = len(predicted & gold)
    return hits, len(predicted) - hits, len(gold) - hits


def morph_scores(counts: Iterable[tuple[float, int, int, int]], excluded: int = 0) -> MorphScores:
    """Micro-averaged scores from (weight, tp, fp, fn) per scored word."""
    tp = fp = fn = 0.0
    words = 0
    for weight, hits, false_positives, misses in counts:
        tp += weight * hits
        fp += weight * false_positives
        fn += weight * misses
        words += 1
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return MorphScores(precision, recall, f1, tp, fp, fn, words, excluded)


def predicted_splits(tokeniser, word: str | AlignedWord) -> set[int]:
    """Split positions (1..len(word)-1) of ``word`` as the tokeniser segments it in running text.

    A BPE tokeniser is read on its surface segmentation (``SegmentationEngine.boundary_trace``:
    tokens before unknown characters become byte or unk tokens), which is what the traced
    reference of knockout and ReBPE scores."""
    aligned = word if isinstance(word, AlignedWord) else align_word(tokeniser.pretokeniser, word)
    if isinstance(tokeniser, BTETokeniser):
        trace = tokeniser.engine.boundary_trace
        return aligned.predicted_splits([trace(p.text)[0] for p in aligned.pretokens])
    return aligned.predicted_splits([tokeniser.segment_pretoken(p.text) for p in aligned.pretokens])


def evaluate_morphology(
    tokeniser,
    references: Iterable,
    *,
    weights: Mapping[str, float] | None = None,
    free: bool = False,
    unaligned: UnalignedPolicy = "exclude",
    progress: Callable[[int], None] | None = None,
) -> MorphScores:
    """Micro-averaged Pr/Re/F1 over ``references`` (ReferenceEntry objects) for any tokeniser with
    a pre-tokeniser and ``segment_pretoken``. ``free`` uses the whole-word (free-morph) boundaries.
    InputError when no reference word is left to score (scores of nothing would be made up)."""
    check_tokeniser(tokeniser)
    reference = align_reference(tokeniser.pretokeniser, references, free=free, weights=weights, unaligned=unaligned)
    if not reference.words:
        why = f"; {len(reference.excluded)} cannot be aligned" if reference.excluded else ""
        why += "; with free=True only entries with free morphs count" if free else ""
        raise InputError(f"no reference words to evaluate{why}")

    def counts():
        for word in reference.words:
            if progress is not None:
                progress(1)
            yield (word.weight, *split_counts(predicted_splits(tokeniser, word.aligned), word.gold))

    return morph_scores(counts(), len(reference.excluded))
