"""What supermerges need of running text, in a compact form: the runs of adjacent pretokens that
a supermerge could ever join, deduplicated with counts ([boundless §3.1 and App. B]).

A supermerge joins two neighbouring tokens of a document only when both are unlocked, and a
token is unlocked only if it matches the merge pattern. Every merge pattern BoundlessBPE offers
(``improved``, ``original``, ``simple``) requires a letter, and a supermerge's result is made of
unlocked tokens, so a pretoken without a letter is never part of one: it cuts its document into
independent runs. Only runs of two or more pretokens that each contain a letter (after decoding
from the byte alphabet) can ever take part; each distinct run is kept once with its count.
Supermerges happen left to right inside each run, and pair counts add up over runs, so training
on these weighted runs is training on the documents.

Storage: the distinct pretokens of the runs (``pretokens``, id -> text), every run's ids one after
another in one int32 array (``ids``), where each run starts (``offsets``, int64, one more than
the runs) and how often it occurs (``counts``, int64).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import regex

from core.pipeline.byte_level import CHAR_TO_BYTE

_LETTER = regex.compile(r"\p{L}")


def has_letter(pretoken: str, byte_level: bool) -> bool:
    """Whether ``pretoken`` (in the byte alphabet if ``byte_level``) contains a letter; bytes that
    are not valid UTF-8 contain none."""
    if byte_level:
        try:
            pretoken = bytes(CHAR_TO_BYTE[c] for c in pretoken).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            return False
    return _LETTER.search(pretoken) is not None


def candidate_runs(document: Sequence[str], is_candidate) -> Iterator[tuple[str, ...]]:
    """The maximal runs (two pretokens or more) of ``document`` whose pretokens pass ``is_candidate``."""
    run: list[str] = []
    for pretoken in document:
        if is_candidate(pretoken):
            run.append(pretoken)
            continue
        if len(run) > 1:
            yield tuple(run)
        run = []
    if len(run) > 1:
        yield tuple(run)


class CandidateTest:
    """:func:`has_letter` with a memory of the pretokens already tested."""

    def __init__(self, byte_level: bool):
        self.byte_level = byte_level
        self.known: dict[str, bool] = {}

    def __call__(self, pretoken: str) -> bool:
        known = self.known.get(pretoken)
        if known is None:
            known = self.known[pretoken] = has_letter(pretoken, self.byte_level)
        return known


@dataclass(frozen=True, eq=False)
class PretokenSequences:
    """Distinct candidate runs with their counts (module docstring)."""

    pretokens: tuple[str, ...]
    ids: np.ndarray
    offsets: np.ndarray
    counts: np.ndarray

    @classmethod
    def from_documents(cls, documents: Iterable[Sequence[str]], byte_level: bool) -> PretokenSequences:
        """The candidate runs of every document (a document is its sequence of pretokens)."""
        test = CandidateTest(byte_level)
        runs: Counter[tuple[str, ...]] = Counter()
        for document in documents:
            runs.update(candidate_runs(document, test))
        return cls.from_counts(runs)

    @classmethod
    def from_counts(cls, run_counts: Mapping[tuple[str, ...], int]) -> PretokenSequences:
        """From run -> count (runs in sorted order, pretoken ids in order of first appearance)."""
        ids_of: dict[str, int] = {}
        flat: list[int] = []
        offsets = [0]
        counts = []
        for run in sorted(run_counts):
            flat.extend(ids_of.setdefault(p, len(ids_of)) for p in run)
            offsets.append(len(flat))
            counts.append(run_counts[run])
        return cls(
            tuple(ids_of),
            np.asarray(flat, dtype=np.int32),
            np.asarray(offsets, dtype=np.int64),
            np.asarray(counts, dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.counts)

    def __iter__(self) -> Iterator[tuple[tuple[str, ...], int]]:
        """(run as pretokens, count) for every distinct run."""
        pretokens, ids, offsets = self.pretokens, self.ids, self.offsets
        for k, count in enumerate(self.counts.tolist()):
            yield tuple(pretokens[i] for i in ids[offsets[k] : offsets[k + 1]].tolist()), count

    def as_dict(self) -> dict[tuple[str, ...], int]:
        return dict(iter(self))

    def occurrences(self) -> int:
        """Pretoken occurrences in all runs, counted with the runs' counts."""
        return int((np.diff(self.offsets) * self.counts).sum())

    def pair_counts(self) -> Counter[tuple[str, str]]:
        """How often each two pretokens stand side by side in the runs (weighted by run counts)."""
        pairs: Counter[tuple[str, str]] = Counter()
        for run, count in self:
            for pair in itertools.pairwise(run):
                pairs[pair] += count
        return pairs
