"""What the tokeniser families (BPE, Scaffold-BPE, PickyBPE, BoundlessBPE, Unigram) share beyond
the :class:`core.tokeniser.Tokeniser` interface: training corpora and runs, and the saved-file
envelope.

No paper section: plumbing. A *variant* is a :class:`core.tokeniser.Tokeniser` with

- ``name``, ``pretokeniser`` (a :class:`core.pipeline.base.Pretokeniser`), ``kind`` (the
  algorithm name used by ``train --algorithm`` and in saved files);
- ``vocabulary`` (the types counted in |V|) and ``vocab_size``;
- ``tokenise(text)``, ``tokenise_word(word)`` (the word as in running text, ``" " + word``);
- ``trace_text(text) -> Trace``: every operation applied while tokenising ``text``, in order;
- ``to_json() -> dict`` with ``"format": FORMAT_PREFIX + kind`` and ``from_json(obj, source)``.

Training lives in each variant's module as ``train(corpus: TrainingCorpus, vocab_size, *,
progress=None, **options) -> TrainingRun``; ``progress(done, total)`` is called at the trainer's
steps and regularly inside its long phases (:class:`core.deadline.Heartbeat`); ``total`` is 0
while it is not known yet (Unigram's seeding) and never changes once it is; whatever it raises
stops training (the explorer's :class:`core.deadline.Deadline`).
:mod:`core.families.registry` maps algorithm names to trainers; :data:`core.tokeniser.SAVED_FORMATS`
maps saved formats to loaders.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from core.bpe.merges import Merge
from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.pipeline import pretokeniser_from_spec
from core.pipeline.base import Pretokeniser
from core.tokeniser import Tokeniser, ids_in_order

if TYPE_CHECKING:
    from core.counting.sequences import PretokenSequences

#: Saved variant files carry ``"format": FORMAT_PREFIX + kind`` (e.g. ``"variant:scaffold"``).
FORMAT_PREFIX = "variant:"
FORMAT_VERSION = 1
#: Pretokens whose segmentation a tokeniser remembers before it starts afresh.
CACHE_LIMIT = 1_000_000


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
        documents = []
        for number, text in enumerate(texts, 1):
            if not isinstance(text, str):
                raise InputError(f"expected text, got {type(text).__name__}", "<corpus>", number)
            pretokens = tuple(p for p in pretokeniser.pretokenise(text.rstrip("\r\n")) if p)
            if pretokens:
                documents.append(pretokens)
        counts = Counter(p for document in documents for p in document)
        if not counts:
            raise InputError("empty corpus: no pretokens to train on", "<corpus>")
        return cls(pretokeniser, dict(counts), tuple(documents))

    @classmethod
    def from_word_counts(cls, word_counts: Mapping[str, int], pretokeniser: Pretokeniser) -> TrainingCorpus:
        """Each word as it appears in running text (``" " + word`` through the pre-tokeniser),
        with its count; no documents."""
        counts: Counter[str] = Counter()
        for word, count in word_counts.items():
            for pretoken in pretokeniser.pretokenise(" " + word):
                if pretoken:
                    counts[pretoken] += count
        if not counts:
            raise InputError("empty corpus: no words to train on", "<counts>")
        return cls(pretokeniser, dict(counts))


@dataclass(frozen=True)
class TrainingEvent:
    """One step of training, for the training-dynamics views.

    ``kind``: "merge", "scaffold", "readmit", "split", "supermerge", "deletion", "prune", ...;
    ``label`` e.g. ``"e + s -> es"``; ``count`` the frequency behind the decision (pair count,
    token count); ``vocab_size`` |V| right after the event; ``detail`` anything else.
    """

    step: int
    kind: str
    label: str
    count: float
    vocab_size: int
    detail: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "step": self.step,
            "kind": self.kind,
            "label": self.label,
            "count": self.count,
            "vocab_size": self.vocab_size,
            **({"detail": self.detail} if self.detail else {}),
        }


@dataclass(frozen=True)
class TrainingRun:
    """A trained tokeniser with its training log (events in order) and summary figures."""

    tokeniser: Tokeniser
    events: tuple[TrainingEvent, ...]
    summary: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The summary's keys at the top level (e.g. Unigram's ``rounds``), then the events."""
        return {
            "algorithm": getattr(self.tokeniser, "kind", ""),
            **self.summary,
            "vocab_size": self.tokeniser.vocab_size,
            "events": [e.to_json() for e in self.events],
        }


class _Segmenting(Protocol):
    """What a :class:`PretokenSegmenter` subclass provides (as attributes or properties)."""

    @property
    def pretokeniser(self) -> Pretokeniser: ...

    @property
    def vocabulary(self) -> frozenset[str]: ...

    @property
    def _segmented(self) -> dict[str, tuple[str, ...]]: ...

    def _segment_uncached(self, pretoken: str) -> tuple[str, ...]: ...

    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]: ...

    def tokenise(self, text: str) -> list[str]: ...


class PretokenSegmenter:
    """``tokenise`` and ``tokenise_word`` for a variant that segments every pretoken on its own
    (Scaffold-BPE, PickyBPE, Unigram): each pretoken is segmented once by the subclass's
    ``_segment_uncached(pretoken)``, then read from a cache (emptied at CACHE_LIMIT pretokens).
    The subclass also provides ``pretokeniser`` and ``vocabulary`` (:class:`_Segmenting`)."""

    @cached_property
    def _segmented(self) -> dict[str, tuple[str, ...]]:
        return {}

    def segment_pretoken(self: _Segmenting, pretoken: str) -> tuple[str, ...]:
        cache = self._segmented
        tokens = cache.get(pretoken)
        if tokens is None:
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            tokens = cache[pretoken] = self._segment_uncached(pretoken)
        return tokens

    def token_ids(self: _Segmenting) -> dict[str, int]:
        """Ids in sorted vocabulary order (these families keep no ids of their own)."""
        return ids_in_order(sorted(self.vocabulary))

    def tokenise(self: _Segmenting, text: str) -> list[str]:
        segment = self.segment_pretoken
        return [t for pretoken in self.pretokeniser.pretokenise(text) if pretoken for t in segment(pretoken)]

    def tokenise_word(self: _Segmenting, word: str) -> list[str]:
        """``word`` as it appears in running text: ``" " + word`` through the pre-tokeniser."""
        if not isinstance(word, str):
            raise InputError(f"expected a word (str), got {type(word).__name__}")
        return self.tokenise(" " + word)


def merge_list_graph(
    alphabet: Iterable[str], pairs: Iterable[tuple[str, ...]], pretokeniser: Pretokeniser, name: str
) -> BTETokeniser:
    """A merge graph of a family's merge list: each pair ranked by its first occurrence (a pair
    learnt again after a removal or deletion is the same vertex)."""
    first = dict.fromkeys(pairs)
    merges = [Merge(rank, parts) for rank, parts in enumerate(first)]
    alphabet = list(dict.fromkeys([*alphabet, *(p for m in merges for p in m.parts if len(p) == 1)]))
    return BTETokeniser(alphabet, merges, pretokeniser, name=name)


def read_envelope(obj, kind: str, source: str) -> tuple[str, Pretokeniser]:
    """What every saved variant starts with: a JSON object of ``kind``'s format and version, a
    string ``name`` and a valid ``pretokeniser``. Returns (name, pre-tokeniser)."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", source)
    check_format(obj, kind, source)
    name = obj.get("name", "")
    if not isinstance(name, str):
        raise InputError(f"field 'name' must be a string, got {name!r}", source)
    try:
        return name, pretokeniser_from_spec(obj.get("pretokeniser"))
    except InputError as err:
        raise InputError(f"field 'pretokeniser': {err.message}", source) from None


def read_flag(obj: dict, key: str, default: bool, source: str) -> bool:
    """A true/false field of a saved variant."""
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise InputError(f"field '{key}' must be true or false, got {value!r}", source)
    return value


def check_format(obj: dict, kind: str, source: str) -> None:
    """Raise InputError unless ``obj`` is a saved ``kind`` variant of a supported version."""
    expected = FORMAT_PREFIX + kind
    if obj.get("format") != expected:
        raise InputError(f'expected "format": "{expected}", found {obj.get("format")!r}', source)
    if obj.get("version") != FORMAT_VERSION:
        raise InputError(f"unsupported version {obj.get('version')!r} (expected {FORMAT_VERSION})", source)
