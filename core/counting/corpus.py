"""What a trainer learns from: a corpus as pretoken counts (and, from running text, its documents
or the runs supermerges need). No paper section: the input every trainer of
:mod:`core.families` shares."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from core.counting.pretoken_counter import PretokenCounter
from core.errors import InputError
from core.pipeline.base import Pretokeniser

if TYPE_CHECKING:
    from core.counting.sequences import PretokenSequences


def initial_alphabet(pretokeniser: Pretokeniser) -> tuple[str, ...]:
    """All 256 byte characters for a byte-level pre-tokeniser (so every text stays encodable, as
    HF's ``ByteLevel.alphabet()`` is used), else nothing: the alphabet is what the corpus shows."""
    from core.pipeline.byte_level import BYTE_TO_CHAR, ByteLevel

    if isinstance(pretokeniser, ByteLevel) or getattr(pretokeniser, "byte_level", False):
        return tuple(BYTE_TO_CHAR[b] for b in range(256))
    return ()


@dataclass(frozen=True)
class TrainingCorpus:
    """What a trainer learns from: pretoken counts (pretokens already in the tokeniser's alphabet,
    e.g. with ``Ġ``/``▁``) and, when trained from running text, each document (line) as its
    sequence of pretokens, which BoundlessBPE needs for supermerges across pretokens."""

    pretokeniser: Pretokeniser
    pretoken_counts: dict[str, int]
    documents: tuple[tuple[str, ...], ...] | None = None
    #: the runs supermerges can join (:mod:`core.counting.sequences`), when counted without
    #: keeping the documents (``count`` on a large corpus); else derived from ``documents``
    sequences: PretokenSequences | None = None

    @cached_property
    def supermerge_sequences(self) -> PretokenSequences | None:
        """The candidate runs of supermerges: ``sequences``, or those of ``documents``; None for
        a corpus of counts alone."""
        if self.sequences is not None:
            return self.sequences
        if self.documents is None:
            return None
        from core.counting.sequences import PretokenSequences

        return PretokenSequences.from_documents(self.documents, bool(initial_alphabet(self.pretokeniser)))

    @classmethod
    def from_pretoken_counts(
        cls, counts: Mapping[str, int], pretokeniser: Pretokeniser, sequences: PretokenSequences | None = None
    ) -> TrainingCorpus:
        """Counts of pretokens as ``pretokeniser`` produced them (no pre-tokenising again), e.g. a
        counts file of ``count``; ``sequences`` as counted with them, if any."""
        if not counts:
            raise InputError("empty corpus: no pretokens to train on", "<counts>")
        return cls(pretokeniser, dict(counts), None, sequences)

    @classmethod
    def from_texts(cls, texts: Iterable[str], pretokeniser: Pretokeniser) -> TrainingCorpus:
        """Every item of ``texts`` is one document (a line of a corpus file)."""
        if isinstance(texts, str):
            texts = (texts,)
        counter = PretokenCounter(pretokeniser)
        documents = []
        for number, text in enumerate(texts, 1):
            if not isinstance(text, str):
                raise InputError(f"expected text, got {type(text).__name__}", "<corpus>", number)
            pretokens = counter.pretokens(counter.add(text.rstrip("\r\n")))
            if pretokens:
                documents.append(pretokens)
        counts = counter.counts()
        if not counts:
            raise InputError("empty corpus: no pretokens to train on", "<corpus>")
        return cls(pretokeniser, dict(counts), tuple(documents))

    @classmethod
    def from_word_counts(cls, word_counts: Mapping[str, int], pretokeniser: Pretokeniser) -> TrainingCorpus:
        """Each word as it appears in running text (``" " + word`` through the pre-tokeniser),
        with its count; no documents."""
        counter = PretokenCounter(pretokeniser)
        for word, count in word_counts.items():
            counter.add(" " + word, count)
        counts = counter.counts()
        if not counts:
            raise InputError("empty corpus: no words to train on", "<counts>")
        return cls(pretokeniser, dict(counts))
