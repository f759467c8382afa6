"""What the tokeniser families (BPE, Scaffold-BPE, PickyBPE, BoundlessBPE, Unigram) share beyond
the :class:`core.tokeniser.Tokeniser` interface: training corpora and runs, and the saved-file
envelope.

No paper section: plumbing. A *family* is a :class:`core.tokeniser.Tokeniser` with

- ``name``, ``pretokeniser`` (a :class:`core.pipeline.base.Pretokeniser`), ``kind`` (the
  family's name, as used by ``train --algorithm`` and in saved files);
- ``vocabulary`` (the types counted in |V|) and ``vocab_size``;
- ``tokenise(text)``, ``tokenise_word(word)`` (the word as in running text, ``" " + word``);
- ``trace_text(text) -> Trace``: every operation applied while tokenising ``text``, in order;
- ``to_json() -> dict`` with ``"format": FORMAT_PREFIX + kind`` and ``from_json(obj, source)``.

Training lives in each family's module as ``train(corpus: TrainingCorpus, vocab_size, *,
progress=None, **options) -> TrainingRun``; ``progress(done, total)`` is called at the trainer's
steps and regularly inside its long phases (:class:`core.deadline.Heartbeat`); ``total`` is 0
while it is not known yet (Unigram's seeding) and never changes once it is; whatever it raises
stops training (the explorer's :class:`core.deadline.Deadline`).
:mod:`core.families.registry` maps algorithm names to trainers; :data:`core.families.registry.SAVED_FORMATS`
maps saved formats to loaders.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from core.bpe.merges import Merge
from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.options import check_text
from core.pipeline import pretokeniser_from_spec
from core.pipeline.base import Pretokeniser
from core.tokeniser import Tokeniser, ids_in_order

if TYPE_CHECKING:
    pass

#: Saved variant files carry ``"format": FORMAT_PREFIX + kind`` (e.g. ``"variant:scaffold"``).
FORMAT_PREFIX = "variant:"
FORMAT_VERSION = 1
#: Pretokens whose segmentation a tokeniser remembers before it starts afresh.
CACHE_LIMIT = 1_000_000


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

    def __repr__(self) -> str:
        kind = getattr(self.tokeniser, "kind", type(self.tokeniser).__name__)
        return f"<TrainingRun {kind}: |V| {self.tokeniser.vocab_size:,}, {len(self.events):,} events>"


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
    """``tokenise`` and ``tokenise_word`` for a family that segments every pretoken on its own
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
        """Running text, nothing put before it (a word inside running text: :meth:`tokenise_word`)."""
        segment, pretokens = self.segment_pretoken, self.pretokeniser.pretokenise(check_text(text))
        return [t for pretoken in pretokens if pretoken for t in segment(pretoken)]

    def tokenise_word(self: _Segmenting, word: str) -> list[str]:
        """``word`` as it appears inside running text: ``" " + word`` through the pre-tokeniser (what
        ``python -m core segment`` prints; ``tokenise(word)`` is a text starting with the word)."""
        return self.tokenise(" " + check_text(word, "word"))


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
    """What every saved family file starts with: a JSON object of ``kind``'s format and version, a
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
    """A true/false field of a saved family file."""
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise InputError(f"field '{key}' must be true or false, got {value!r}", source)
    return value


def check_format(obj: dict, kind: str, source: str) -> None:
    """Raise InputError unless ``obj`` is a saved ``kind`` family file of a supported version."""
    expected = FORMAT_PREFIX + kind
    if obj.get("format") != expected:
        raise InputError(f'expected "format": "{expected}", found {obj.get("format")!r}', source)
    if obj.get("version") != FORMAT_VERSION:
        raise InputError(f"unsupported version {obj.get('version')!r} (expected {FORMAT_VERSION})", source)


class WrapsBPE:
    """Shared by the tokenisers that post-process a BTE tokeniser's segmentation (TrimmedBPE,
    BPE-dropout): what they pass through from ``self.tokeniser``, and their saved envelope
    ``{"format", "version": 1, "tokeniser": <the BTE tokeniser's JSON>, ...}``."""

    tokeniser: BTETokeniser
    tokenise: Callable[[str], list[str]]  # each wrapper's own post-processed segmentation

    @property
    def pretokeniser(self) -> Pretokeniser:
        return self.tokeniser.pretokeniser

    @property
    def specials(self) -> tuple[str, ...]:
        return self.tokeniser.specials

    def token_ids(self) -> dict[str, int]:
        """The wrapped tokeniser's ids (types it no longer emits keep theirs, unused)."""
        return self.tokeniser.token_ids()

    def merge_graph(self) -> BTETokeniser:
        """The wrapped merge graph: post-processing removes no merge."""
        return self.tokeniser

    def tokenise_word(self, word: str) -> list[str]:
        """A word as it appears in running text: the pre-tokeniser applied to ``" " + word``."""
        return self.tokenise(" " + check_text(word, "word"))

    @staticmethod
    def read_wrapped(obj, format_: str, source: str) -> BTETokeniser:
        """The BTE tokeniser inside a saved wrapper, after checking its envelope."""
        if not isinstance(obj, dict) or obj.get("format") != format_ or obj.get("version") != 1:
            raise InputError(f'expected a JSON object with "format": "{format_}" and "version": 1', source)
        return BTETokeniser.from_json(obj.get("tokeniser"), source)
