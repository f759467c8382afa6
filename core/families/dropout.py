"""BPE-dropout (Provilkov et al., 2020): stochastic segmentation by randomly skipping merges.

[knockout §2] (BPE-dropout "temporarily disabling some merges" so a model sees several
segmentations of one word) and §4.1 "Dropout" (the baseline evaluated with p = 5 %). Training is
unchanged; dropout only affects segmentation. Two published semantics are offered:

``variant="hf"`` — HF ``tokenizers`` ``Word::merge_all`` (``models/bpe/word.rs``): a priority
queue of candidates ordered by (rank, position); every pop is dropped with probability p and put
aside; the first pop that is *not* dropped puts every set-aside candidate back into the queue
(before it is checked for staleness, exactly as HF does), and if the candidate is still valid its
merge is applied at that one position and the new candidates around the result are queued. The
word is final when the queue is empty. As in HF, ``ignore_merges`` (a pretoken that is itself a
type stays whole) only applies without dropout (p = 0).

``variant="subword-nmt"`` — subword-nmt ``apply_bpe.py``: at every step each candidate
occurrence survives independently with probability 1 - p; the lowest-ranked surviving merge is
applied at all its surviving positions (non-overlapping, left to right); when nothing survives
the loop stops, even if merges could still apply.

Both generalise to tuple merges ([knockout §3.2]): a candidate is a merge whose parts all
stand adjacent starting at a symbol. Both give plain BPE at p = 0 and characters at p = 1. At
p = 0 the HF variant equals :meth:`BTETokeniser.segment_pretoken` for every merge list; the
subword-nmt variant applies a merge at all occurrences at once, which equals it whenever no merge
is ranked before a merge that forms one of its parts (true of any trained merge list).
"""

from __future__ import annotations

import heapq
import random
import weakref
from typing import TYPE_CHECKING

from core.errors import InputError
from core.families.base import WrapsBPE
from core.options import check_choice, check_int, check_number, check_text

if TYPE_CHECKING:
    from core.bpe.model import BTETokeniser

VARIANTS = ("hf", "subword-nmt")
FORMAT = "variant:dropout"


class _Tables:
    """Merge lookup by position in rank order: binary pairs and tuple merges by first part."""

    def __init__(self, tokeniser: BTETokeniser):
        self.results: list[str] = []
        self.widths: list[int] = []
        self.parts: list[tuple[str, ...]] = []
        self.pairs: dict[tuple[str, str], int] = {}
        self.tuples: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        for idx, merge in enumerate(tokeniser.merges):  # sorted by rank: index order = rank order
            self.results.append(merge.result)
            self.widths.append(len(merge.parts))
            self.parts.append(merge.parts)
            if merge.is_tuple:
                self.tuples.setdefault(merge.parts[0], []).append((idx, merge.parts))
            else:
                self.pairs[(merge.parts[0], merge.parts[1])] = idx
        self.window = max(self.widths, default=2)


_TABLES: weakref.WeakKeyDictionary[BTETokeniser, _Tables] = weakref.WeakKeyDictionary()


def _tables(tokeniser: BTETokeniser) -> _Tables:
    tables = _TABLES.get(tokeniser)
    if tables is None:
        tables = _TABLES[tokeniser] = _Tables(tokeniser)
    return tables


def check_probability(p: float) -> float:
    """``p`` as a float in [0, 1]; InputError otherwise."""
    return float(check_number("dropout probability", p, 0, 1))


# --- HF tokenizers: Word::merge_all with dropout ---------------------------------------------------
def _hf_matches(tables: _Tables, sym: list[str], nxt: list[int], start: int) -> list[tuple[int, int]]:
    """(merge index, width) of every merge whose parts stand adjacent from live symbol ``start``."""
    found = []
    second = nxt[start]
    if second >= 0:
        idx = tables.pairs.get((sym[start], sym[second]))
        if idx is not None:
            found.append((idx, 2))
    for idx, parts in tables.tuples.get(sym[start], ()):
        j = start
        for part in parts[1:]:
            j = nxt[j]
            if j < 0 or sym[j] != part:
                break
        else:
            found.append((idx, len(parts)))
    return found


def _hf_segment(tables: _Tables, pretoken: str, p: float, rng: random.Random) -> tuple[str, ...]:
    n = len(pretoken)
    sym = list(pretoken)
    nxt = [i + 1 if i + 1 < n else -1 for i in range(n)]
    prv = [i - 1 for i in range(n)]
    alive = [True] * n
    # (merge index = rank order, symbol position)
    queue = [(idx, i) for i in range(n) for idx, _width in _hf_matches(tables, sym, nxt, i)]
    heapq.heapify(queue)
    skipped: list[tuple[int, int]] = []
    always_skip = p >= 1.0
    while queue:
        top = heapq.heappop(queue)
        if always_skip or (p > 0.0 and rng.random() < p):
            skipped.append(top)
            continue
        for entry in skipped:  # re-inserted on every pop that is not dropped, valid or not
            heapq.heappush(queue, entry)
        skipped.clear()
        idx, pos = top
        if not alive[pos]:
            continue
        # Stale unless the merge's parts still stand adjacent at pos (HF compares the pair).
        members = [pos]
        for part in tables.parts[idx][1:]:
            j = nxt[members[-1]]
            if j < 0 or sym[j] != part:
                break
            members.append(j)
        if len(members) == tables.widths[idx] and sym[pos] == tables.parts[idx][0]:
            _hf_apply(tables, sym, nxt, prv, alive, queue, idx, members)
    return tuple(sym[i] for i in range(n) if alive[i])


def _hf_apply(
    tables: _Tables,
    sym: list[str],
    nxt: list[int],
    prv: list[int],
    alive: list[bool],
    queue: list[tuple[int, int]],
    idx: int,
    members: list[int],
) -> None:
    """Merge ``idx`` at ``members`` (``nxt``, ``prv``, ``alive``: the links and liveness of every
    position), then queue every candidate whose window contains the new symbol."""
    pos = members[0]
    sym[pos] = tables.results[idx]
    for k in members[1:]:
        alive[k] = False
    after = nxt[members[-1]]
    nxt[pos] = after
    if after >= 0:
        prv[after] = pos
    start, back = pos, 0
    while start >= 0 and back < tables.window:
        for cand, width in _hf_matches(tables, sym, nxt, start):
            if width > back:
                heapq.heappush(queue, (cand, start))
        start, back = prv[start], back + 1


# --- subword-nmt apply_bpe.py with dropout ---------------------------------------------------------
def _nmt_segment(tables: _Tables, pretoken: str, p: float, rng: random.Random) -> tuple[str, ...]:
    word = list(pretoken)
    while len(word) > 1:
        best, positions = _nmt_best(tables, word, p, rng)
        if best is None:
            break
        width, result = tables.widths[best], tables.results[best]
        new_word, i = [], 0
        for j in positions:
            if j < i:  # overlaps the previous application (x x x -> xx x)
                continue
            new_word.extend(word[i:j])
            new_word.append(result)
            i = j + width
        new_word.extend(word[i:])
        word = new_word
    return tuple(word)


def _nmt_best(tables: _Tables, word: list[str], p: float, rng: random.Random) -> tuple[int | None, list[int]]:
    """The lowest-ranked merge among the candidate occurrences that survive dropout, and the
    positions where it survives (None, [] when nothing survives)."""
    best: int | None = None
    positions: list[int] = []
    pairs_get, tuples_get, drop = tables.pairs.get, tables.tuples.get, p > 0.0
    last = len(word) - 1
    for i, symbol in enumerate(word):
        candidates = []
        if i < last:
            idx = pairs_get((symbol, word[i + 1]))
            if idx is not None:
                candidates.append(idx)
        for idx, parts in tuples_get(symbol, ()):
            if tuple(word[i : i + len(parts)]) == parts:
                candidates.append(idx)
        for idx in candidates:
            if drop and not rng.random() > p:  # the occurrence is dropped
                continue
            if best is None or idx < best:
                best, positions = idx, [i]
            elif idx == best:
                positions.append(i)
    return best, positions


# --- public API ----------------------------------------------------------------------------------
def dropout_segment(
    tokeniser: BTETokeniser, pretoken: str, p: float, rng: random.Random, *, variant: str = "hf"
) -> tuple[str, ...]:
    """One BPE-dropout segmentation of a pretoken (Provilkov et al., 2020; [knockout §4.1])."""
    p = check_probability(p)
    check_choice("dropout variant", variant, VARIANTS)
    if not pretoken:
        return ()
    if variant == "hf":
        if p == 0.0 and tokeniser.ignore_merges and pretoken in tokeniser.types:
            return (pretoken,)
        return _hf_segment(_tables(tokeniser), pretoken, p, rng)
    return _nmt_segment(_tables(tokeniser), pretoken, p, rng)


def dropout_tokenise(
    tokeniser: BTETokeniser, text: str, p: float, rng: random.Random, variant: str = "hf"
) -> list[str]:
    """Pre-tokenise running text and segment every pretoken with dropout."""
    p = check_probability(p)
    check_choice("dropout variant", variant, VARIANTS)
    return [
        token
        for pretoken in tokeniser.pretokeniser.pretokenise(text)
        for token in dropout_segment(tokeniser, pretoken, p, rng, variant=variant)
    ]


def dropout_tokenise_word(
    tokeniser: BTETokeniser, word: str, p: float, rng: random.Random, variant: str = "hf"
) -> list[str]:
    """A word as in running text (pre-tokeniser on ``" " + word``), segmented with dropout."""
    return dropout_tokenise(tokeniser, " " + word, p, rng, variant)


def dropout_samples(
    tokeniser: BTETokeniser, word: str, p: float, n: int, seed: int = 0, variant: str = "hf"
) -> list[list[str]]:
    """``n`` independent dropout segmentations of a word, reproducible from ``seed``."""
    check_int("number of samples", n)
    rng = random.Random(seed)
    return [dropout_tokenise_word(tokeniser, word, p, rng, variant) for _ in range(n)]


class DropoutBPE(WrapsBPE):
    """A BTE tokeniser segmenting with BPE-dropout: every ``tokenise`` call draws a new sample
    from its own random stream (seeded, so a fresh instance repeats the same samples). Behind the
    :class:`core.tokeniser.Tokeniser` interface like every family; its merge graph is the
    tokeniser's own (dropout removes no merge)."""

    kind = "dropout"

    def __init__(self, tokeniser: BTETokeniser, p: float, *, variant: str = "hf", seed: int = 0):
        self.tokeniser = tokeniser
        self.p = check_probability(p)
        check_choice("variant", variant, VARIANTS, "DropoutBPE")
        check_int("seed", seed, -(2**63), "DropoutBPE")
        self.variant = variant
        self.seed = seed
        self._rng = random.Random(seed)

    @property
    def name(self) -> str:
        return f"{self.tokeniser.name} (dropout p={self.p:g}, {self.variant})"

    @property
    def vocabulary(self) -> frozenset[str]:
        return self.tokeniser.types

    @property
    def vocab_size(self) -> int:
        return self.tokeniser.vocab_size

    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]:
        return dropout_segment(self.tokeniser, pretoken, self.p, self._rng, variant=self.variant)

    def tokenise(self, text: str) -> list[str]:
        return dropout_tokenise(self.tokeniser, check_text(text), self.p, self._rng, self.variant)

    def trace_text(self, text: str):
        """The characters, then one "sample" event per pretoken (its dropout segmentation)."""
        from core.trace import Trace, TraceEvent, traceable

        pretokens = traceable(self.pretokeniser.pretokenise(text))
        initial = tuple(ch for p in pretokens for ch in p)
        done: list[str] = []
        events = []
        end = 0
        for pretoken in pretokens:
            end += len(pretoken)
            done.extend(self.segment_pretoken(pretoken))
            events.append(TraceEvent("sample", f"{pretoken} with dropout p={self.p:g}", (*done, *initial[end:])))
        return Trace(text, pretokens, initial, tuple(events))

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "version": 1,
            "tokeniser": self.tokeniser.to_json(),
            "p": self.p,
            "variant": self.variant,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, obj, source: str = "<json>") -> DropoutBPE:
        try:
            return cls(
                cls.read_wrapped(obj, FORMAT, source),
                obj.get("p"),
                variant=obj.get("variant", "hf"),
                seed=obj.get("seed", 0),
            )
        except InputError as err:
            raise InputError(err.message, source) from None
