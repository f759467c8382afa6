"""How often merges fire on a text: merge applications counted while segmenting (engine traces).

[knockout §3.4] counts how often a merge is applied while the reference is segmented (the
N of the blame ratio B/N). This module gives that count for any merge, on any text, so the merge
graph and the word debugger can say which of a type's merges actually does the work: with several
merges per type (files converted from tiktoken ranks or SentencePiece), the *primary* merge (the
one that fires on the type's own string, :meth:`core.bpe.model.BTETokeniser.primary_merge`) usually
fires most and the alternatives fire only inside longer pretokens, or never. With one merge per
type (the paper's setting) a type's only merge fires once per occurrence of the type in the
segmentation, plus once per occurrence inside a larger token's merge tree, and these counts are
exactly the paper's N.

Texts are counted as the tokeniser sees them: reference words each as in running text (the
pre-tokeniser on ``" " + word``), a corpus line by line; with ``ignore_merges`` a pretoken that is
a type is emitted whole and fires nothing, added tokens fire nothing. Counting is lazy: only the
merges asked for, and only in the pretokens that contain the string a merge forms (a merge cannot
fire elsewhere, :class:`core.counting.pretoken_index.PretokenIndex`). Each distinct pretoken is
traced at most once; every count is kept. No Streamlit here.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from core.bpe.merges import Merge
from core.counting.pretoken_counter import PretokenCounter
from core.counting.pretoken_index import PretokenIndex
from core.trace import traceable_pretoken

if TYPE_CHECKING:
    from core.bpe.model import BTETokeniser
    from core.tokeniser import Tokeniser


def pretoken_counts(tokeniser: Tokeniser, texts: Iterable[str]) -> Counter:
    """How often each pretoken occurs when ``texts`` are tokenised (added tokens left out)."""
    pretokeniser = tokeniser.pretokeniser
    counter = PretokenCounter(pretokeniser)
    for text in texts:
        if not text:
            continue
        if not pretokeniser.may_hold_added_tokens(text):
            counter.add(text)
        else:
            counter.add_pretokens(p for p, added in pretokeniser.pretokenise_marked(text) if not added)
    return counter.counts()


class FireCounter:
    """Merge applications on one text, counted on demand (:meth:`counts`) and kept."""

    def __init__(self, tokeniser: BTETokeniser, counts: Mapping[str, int], name: str = ""):
        self.tokeniser = tokeniser
        self.name = name
        self.pretokens: list[str] = list(counts)
        self.frequency: list[int] = [counts[p] for p in self.pretokens]
        self.occurrences = sum(self.frequency)
        engine = tokeniser.engine
        # The string a merge's result is searched in: the pretoken as its symbols spell it (the
        # end-of-word suffix on the last one). Unknown characters dropped from a pretoken could
        # make a result appear that the pretoken does not contain, so then no pretoken is skipped.
        self._filter = engine.unknown is None
        self._surface = [p + engine.suffix if engine.suffix else p for p in self.pretokens]
        self._index: PretokenIndex | None = None
        self._applied: dict[int, tuple[Merge, ...]] = {}
        self._counts: dict[Merge, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_words(cls, tokeniser: BTETokeniser, words: Iterable[str], name: str = "") -> FireCounter:
        """Each word once, as in running text (the pre-tokeniser on ``" " + word``)."""
        return cls(tokeniser, pretoken_counts(tokeniser, (" " + w for w in words if w)), name)

    @classmethod
    def from_lines(cls, tokeniser: BTETokeniser, lines: Iterable[str], name: str = "") -> FireCounter:
        """Running text, one line after another."""
        return cls(tokeniser, pretoken_counts(tokeniser, lines), name)

    # --- counting -------------------------------------------------------------------------------
    def count(self, merge: Merge) -> int:
        return self.counts((merge,))[merge]

    def counts(self, merges: Iterable[Merge]) -> dict[Merge, int]:
        """How often each of ``merges`` fires on the text (0 for a merge of another tokeniser)."""
        merges = list(dict.fromkeys(merges))
        with self._lock:
            missing = [m for m in merges if m not in self._counts]
            if missing:
                self._count(missing)
            return {m: self._counts[m] for m in merges}

    def _count(self, merges: list[Merge]) -> None:
        wanted = set(merges)
        found: Counter = Counter()
        for index in self._candidates({m.result for m in merges}):
            frequency = self.frequency[index]
            for merge in self._applied_in(index):
                if merge in wanted:
                    found[merge] += frequency
        for merge in merges:
            self._counts[merge] = found.get(merge, 0)

    def _applied_in(self, index: int) -> tuple[Merge, ...]:
        applied = self._applied.get(index)
        if applied is None:
            pretoken = self.pretokens[index]
            applied = self._applied[index] = (
                self.tokeniser.trace_pretoken(traceable_pretoken(pretoken)).merges_applied
                if not self._emitted_whole(pretoken)
                else ()
            )
        return applied

    def _emitted_whole(self, pretoken: str) -> bool:
        vocab = self.tokeniser.engine.ignore_merges_vocab
        return vocab is not None and pretoken in vocab

    def _candidates(self, results: set[str]) -> list[int]:
        """Indexes of the pretokens that contain one of ``results`` (all of them without a filter)."""
        if not self._filter:
            return list(range(len(self.pretokens)))
        if self._index is None:
            self._index = PretokenIndex([surface] for surface in self._surface)
        return sorted(self._index.containing_any(results))

    def whole(self, type_: str) -> int:
        """How often ``type_`` is a pretoken emitted whole by ``ignore_merges`` (no merge fires)."""
        if not self._emitted_whole(type_) or len(type_) < 2:
            return 0
        if not hasattr(self, "_position"):
            self._position = {p: i for i, p in enumerate(self.pretokens)}
        index = self._position.get(type_)
        return 0 if index is None else self.frequency[index]

    def to_json(self) -> dict:
        return {"name": self.name, "pretokens": self.occurrences, "distinct_pretokens": len(self.pretokens)}
