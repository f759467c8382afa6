"""TrimmedBPE: post-hoc vocabulary trimming by recursive decomposition (Cognetta et al., 2024).

[rebpe §2.1] ("Removing types from a BPE tokeniser", TrimmedBPE): a trained BPE tokeniser is
applied to a secondary corpus; a type is *marked* when its absolute frequency there does not
reach a threshold. The merge list is left untouched: at segmentation time the original BPE
tokeniser runs first and every marked token in its output is replaced by a *recursive
decomposition* that walks back down the merge tree to the largest unmarked tokens.
[knockout §3.5] ("Comparison to trimmed BPE") and the "Redundancy" paragraph of §2 contrast
this with knockout, which removes the merges themselves.

Choices, following subword-nmt's ``apply_bpe.py --vocabulary V --vocabulary-threshold T``
(the implementation the paper analyses):

* frequencies are token counts in the BPE-segmented corpus
  (:func:`core.counting.token_frequencies.token_frequencies`); types that never surface as a
  token (intermediate types) have frequency 0, so they are trimmed for every threshold T > 0;
* ``rule="subword-nmt"``: a type is kept iff ``freq >= T``; ``rule="tktkt"``: a type is trimmed
  iff ``freq <= T`` — TkTkT's TrimmedBPE, one higher than subword-nmt for the same T;
* atoms (the alphabet, and any string no merge forms) are never trimmed: a rare character stays;
* decomposition reverses the merge that forms the type (all parts of a tuple merge,
  [knockout §3.2]) and recurses into each part until it is untrimmed or atomic. When a type
  is formed by several merges (a violation of §3.2's invariant), the lowest-ranked one,
  ``tokeniser.merge_of``, is reversed; subword-nmt would reverse the last-registered pair.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from core.counting.token_frequencies import token_frequencies
from core.errors import InputError
from core.families.base import WrapsBPE
from core.options import check_choice, check_number, check_text
from core.trace import Trace

if TYPE_CHECKING:
    from core.bpe.model import BTETokeniser

RULES = ("subword-nmt", "tktkt")
FORMAT = "variant:trimmed"


class TrimmedBPE(WrapsBPE):
    """A BPE/BTE tokeniser whose low-frequency types are decomposed after segmentation.

    [rebpe §2.1] (TrimmedBPE, recursive decomposition). A :class:`core.tokeniser.Tokeniser`
    (kind "trimmed") with ``segment_pretoken`` too, so callers can take it or a BTETokeniser.
    """

    kind = "trimmed"

    def __init__(
        self, tokeniser: BTETokeniser, frequencies: Mapping[str, int], threshold: int, rule: str = "subword-nmt"
    ):
        check_choice("rule", rule, RULES, "TrimmedBPE")
        check_number("threshold", threshold, 0, math.inf, high_open=True, owner="TrimmedBPE")
        self.tokeniser = tokeniser
        self.frequencies: dict[str, int] = dict(frequencies)
        self.threshold = threshold
        self.rule = rule
        atoms = set(tokeniser.alphabet)
        self.trimmed: frozenset[str] = frozenset(
            t
            for t in tokeniser.types
            if t not in atoms and tokeniser.merge_of(t) is not None and self._fails(self.frequencies.get(t, 0))
        )
        self._decomposed: dict[str, tuple[str, ...]] = {}
        self._segmented: dict[str, tuple[str, ...]] = {}

    @classmethod
    def from_corpus(
        cls,
        tokeniser: BTETokeniser,
        word_counts: Mapping[str, int],
        threshold: int,
        rule: str = "subword-nmt",
        *,
        as_words: bool = True,
    ) -> TrimmedBPE:
        """Frequencies from :func:`token_frequencies` on ``word_counts``, then trim."""
        return cls(tokeniser, token_frequencies(tokeniser, word_counts, as_words=as_words), threshold, rule)

    def _fails(self, frequency: int) -> bool:
        if self.rule == "subword-nmt":
            return frequency < self.threshold  # kept iff freq >= T
        return frequency <= self.threshold  # TkTkT: trimmed iff freq <= T

    # --- what pages read besides the interface ------------------------------------------------
    @property
    def name(self) -> str:
        return f"{self.tokeniser.name} (trimmed, T={self.threshold}, {self.rule})"

    @property
    def vocabulary(self) -> frozenset[str]:
        """The types that can still appear as tokens: V minus the trimmed set."""
        return self.tokeniser.types - self.trimmed

    @property
    def vocab_size(self) -> int:
        return len(self.vocabulary) + len(set(self.tokeniser.specials) - self.vocabulary)

    def is_trimmed(self, type_: str) -> bool:
        return type_ in self.trimmed

    # --- recursive decomposition ([rebpe §2.1]) ---------------------------------------------
    def decompose(self, token: str) -> tuple[str, ...]:
        """The largest untrimmed tokens under ``token`` in its merge tree.

        An untrimmed or atomic token is returned as is; a trimmed one is replaced by the
        decompositions of all parts of the merge that forms it.
        """
        cached = self._decomposed.get(token)
        if cached is not None:
            return cached
        merge = self.tokeniser.merge_of(token)
        if token not in self.trimmed or merge is None:
            result: tuple[str, ...] = (token,)
        else:
            result = tuple(piece for part in merge.parts for piece in self.decompose(part))
        self._decomposed[token] = result
        return result

    # --- segmentation -------------------------------------------------------------------------
    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]:
        """BPE segmentation of one pretoken, then every trimmed token decomposed (cached)."""
        cached = self._segmented.get(pretoken)
        if cached is None:
            if len(self._segmented) >= 1_000_000:
                self._segmented.clear()
            cached = tuple(
                piece for token in self.tokeniser.segment_pretoken(pretoken) for piece in self.decompose(token)
            )
            self._segmented[pretoken] = cached
        return cached

    def tokenise(self, text: str) -> list[str]:
        """Pre-tokenise running text and segment every pretoken."""
        pretokens = self.pretokeniser.pretokenise(check_text(text))
        return [t for pretoken in pretokens for t in self.segment_pretoken(pretoken)]

    def trace_text(self, text: str) -> Trace:
        """The BPE trace, then one "decompose" event per trimmed token, left to right."""
        return self.tokeniser.trace_text(text).then_replace("decompose", self.decompose)

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "version": 1,
            "tokeniser": self.tokeniser.to_json(),
            "threshold": self.threshold,
            "rule": self.rule,
            "frequencies": self.frequencies,
        }

    @classmethod
    def from_json(cls, obj, source: str = "<json>") -> TrimmedBPE:
        inner = cls.read_wrapped(obj, FORMAT, source)
        frequencies = obj.get("frequencies")
        if not isinstance(frequencies, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in frequencies.values()
        ):
            raise InputError("field 'frequencies' must map types to integer counts", source)
        try:
            return cls(inner, frequencies, obj.get("threshold"), obj.get("rule", "subword-nmt"))
        except InputError as err:
            raise InputError(err.message, source) from None

    def __repr__(self) -> str:
        return (
            f"TrimmedBPE({self.tokeniser!r}, threshold={self.threshold}, rule={self.rule!r}, "
            f"|trimmed|={len(self.trimmed)})"
        )
