"""Seed vocabularies from suffix arrays ([unigram §3.1, §4.2 and App. A, Alg. 2-3]).

Both seeds enumerate the internal nodes of a suffix tree: the *lcp-intervals* of a suffix array
(a run of adjacent suffixes sharing a prefix of length h, with a shorter shared prefix on both
sides). Each node is a right-maximal repeat; Alg. 2 emits it with its frequency and score
frequency x length. The suffixes are sorted only by their first ``max_length + 1`` characters
(longer shared prefixes never make a piece), with numpy: characters packed into int64 blocks,
one stable sort per group of first characters. Sorting, finding nodes and summing over them go a
group, stretch or chunk at a time, so the working memory stays about 40 bytes per symbol of the
text (SentencePiece's seed at 1 GB: 295 M symbols).

- :func:`pretoken_seed` (the paper's default, script_tok ``corpus_long``; reference-
  implementations.md §6.2): the suffixes of the *unique pretokens*; a suffix ends at its
  pretoken's end, so a repeat is counted over (pretoken, position) sites and its frequency is
  the sum of those pretokens' counts. Added: every pretoken with count >= 2 not found so, and
  every character with its total count.
- :func:`full_text_seed` (SentencePiece ``MakeSeedSentencePieces`` as in its v0.2.1 source,
  Alg. 2): the suffixes of the whole text (each document's pretokens concatenated, documents
  separated by a boundary symbol that, as SentencePiece's U+0000, matches itself); frequency =
  number of occurrences. A node is kept if every occurrence lies inside one pretoken (for
  Metaspace pretokens this is SentencePiece's "▁ only as a prefix"). Without documents (word
  counts) every pretoken is a sentence written twice, as that source does for TSV input, so
  counts are ignored (§6.1). (SentencePiece 0.2.3, the tested wheel, extracts its seed from UTF-8
  bytes in chunks of 500 MB with libsais, writes a TSV sentence as often as its count, trims a
  candidate's trailing U+0000 and keeps every character plus the best ``seed_size`` others.)
- :func:`counted_text_seed`: SentencePiece's seed of the running text that pretoken counts were
  counted from (``count``): the distinct pretokens' suffixes, each pretoken ending in a boundary
  that matches itself, weighted by the counts.

``recovery`` (Alg. 3, maximal valid prefix recovery, §3.1): a node that is rejected (invalid or
longer than ``max_length``) contributes instead its longest valid prefix that is longer than
its parent node, with the node's frequency. Ties in score are broken by the piece string.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

import numpy as np
import regex

from core.deadline import Heartbeat

#: Scripts told apart by ``split_by_script`` (SentencePiece ``split_by_unicode_script``);
#: characters of other scripts count as one further script.
SCRIPTS = (
    "Latin",
    "Greek",
    "Cyrillic",
    "Armenian",
    "Hebrew",
    "Arabic",
    "Syriac",
    "Thaana",
    "Devanagari",
    "Bengali",
    "Gurmukhi",
    "Gujarati",
    "Oriya",
    "Tamil",
    "Telugu",
    "Kannada",
    "Malayalam",
    "Sinhala",
    "Thai",
    "Lao",
    "Tibetan",
    "Myanmar",
    "Georgian",
    "Hangul",
    "Ethiopic",
    "Khmer",
    "Mongolian",
    "Han",
    "Hiragana",
    "Katakana",
    "Bopomofo",
    "Inherited",
    "Common",
)
_SCRIPT_PATTERNS = [(name, regex.compile(rf"\p{{Script={name}}}")) for name in SCRIPTS]
_JAPANESE = {"Hiragana", "Katakana"}


@dataclass
class PieceRules:
    """Which strings may become pieces: at most ``max_length`` characters and, with
    ``split_by_script``, no two Unicode scripts (SentencePiece ``IsValidSentencePiece``: Hiragana
    and Katakana count as Han, Inherited takes the previous script, the word-start ``marker``
    has none)."""

    max_length: int
    split_by_script: bool = False
    marker: str | None = None
    _script_cache: dict[str, str] = field(default_factory=dict, repr=False)

    def script(self, ch: str) -> str:
        name = self._script_cache.get(ch)
        if name is None:
            name = next((n for n, p in _SCRIPT_PATTERNS if p.match(ch)), "Other")
            name = "Han" if name in _JAPANESE or ch == "\u30fc" else name
            self._script_cache[ch] = name
        return name

    def valid_length(self, piece: str) -> int:
        """The length of the longest prefix of ``piece`` that mixes no scripts."""
        if not self.split_by_script:
            return len(piece)
        previous: str | None = None
        for i, ch in enumerate(piece):
            if ch == self.marker:
                continue
            name: str | None = self.script(ch)
            if name == "Inherited":
                name = previous
            if name is not None and previous is not None and name != previous:
                return i
            previous = name
        return len(piece)


@dataclass
class Layout:
    """The text whose suffixes are sorted: ``text``, its ``codes`` (code points, -1 at sentence
    boundaries), ``limits[i]`` = the end of the pretoken that holds position i, and ``weights``
    (each position's weight; None: 1). :func:`repeated_substrings` releases each array as soon
    as it is done with it."""

    text: str
    codes: np.ndarray | None
    limits: np.ndarray | None
    weights: np.ndarray | None = None


#: Positions gathered at a time when a whole-array gather would double the memory.
CHUNK = 1 << 20

#: Suffixes sorted together at most (unless they share their first symbol): bounds the sort's
#: working memory, about 90 bytes per suffix of a group.
GROUP = 1 << 20


def sorted_suffixes(codes: np.ndarray, depth: int, group: int = GROUP) -> tuple[np.ndarray, np.ndarray]:
    """(suffix array sorted by at least the first ``depth`` symbols, equal prefixes in text
    order; lcp[i] = common prefix length of suffixes sa[i-1] and sa[i], at most ``depth``,
    lcp[0] = 0). ``codes`` are code points or -1.

    Symbols get dense ranks (0 = past the end) of ``bits`` bits. The suffixes are sorted in
    groups of consecutive first symbols, each a contiguous range of the suffix array, so only a
    group's sort keys are held at once: its symbols packed ``per`` to an int64 block at offsets
    0, per, 2 per ..., sorted by one stable lexsort; the lcp counts equal blocks, then the equal
    leading symbols of the first block that differs."""
    n = len(codes)
    present = np.zeros(int(codes.max(initial=0)) + 2, dtype=np.int32)
    present[codes + 1] = 1
    ranks = np.cumsum(present, dtype=np.int32)
    bits = int(ranks[-1] + 1).bit_length()
    per = max(1, 62 // bits)
    blocks = -(-depth // per)
    symbols = np.zeros(n + per * blocks, dtype=np.int32)
    np.take(ranks, codes + 1, out=symbols[:n])  # dense ranks 1, 2, ... in code order
    sizes = np.bincount(symbols[:n], minlength=int(ranks[-1]) + 1)
    sa, lcp = _by_first_symbol(symbols[:n], sizes), np.zeros(n, dtype=np.int32)
    ends = np.cumsum(sizes)
    for lo, hi in _rank_groups(sizes, group):
        a, b = int(ends[lo - 1]), int(ends[hi - 1])
        positions = sa[a:b].copy()
        keys = [_packed(symbols, positions + k * per, per, bits) for k in range(blocks)]
        order = np.lexsort(keys[::-1])
        sa[a:b] = positions[order]
        lcp[a + 1 : b] = _sorted_common_prefix(keys, order, per, bits)
    return sa, np.minimum(lcp, depth)


def _by_first_symbol(first: np.ndarray, sizes: np.ndarray, chunk: int = CHUNK) -> np.ndarray:
    """Every position, ordered by its symbol (rank), equal ones in text order: a counting sort,
    ``chunk`` positions at a time (``sizes``: each rank's count)."""
    out = np.empty(len(first), dtype=np.int32)
    offset = np.cumsum(sizes) - sizes
    narrow = np.uint16 if len(sizes) <= 1 << 16 else np.int32  # 16 bits: numpy's radix sort
    for i in range(0, len(first), chunk):
        part = first[i : i + chunk].astype(narrow)
        order = np.argsort(part, kind="stable")
        ranks = part[order]
        counts = np.bincount(ranks, minlength=len(sizes))
        seen_before = np.arange(len(part)) - (np.cumsum(counts) - counts)[ranks]
        out[offset[ranks] + seen_before] = order + i
        offset += counts
    return out


def _rank_groups(sizes: np.ndarray, group: int) -> list[tuple[int, int]]:
    """Ranges [lo, hi) of consecutive ranks, each holding at most ``group`` suffixes or one rank."""
    bounds, total, lo = [], 0, 1
    for rank in range(1, len(sizes)):
        if total and total + sizes[rank] > group:
            bounds.append((lo, rank))
            lo, total = rank, 0
        total += int(sizes[rank])
    if total:
        bounds.append((lo, len(sizes)))
    return bounds


def _packed(symbols: np.ndarray, offsets: np.ndarray, per: int, bits: int) -> np.ndarray:
    """The ``per`` symbols from each offset as one int64, the first in the highest bits."""
    key = np.zeros(len(offsets), dtype=np.int64)
    for t in range(per):
        np.left_shift(key, bits, out=key)
        np.bitwise_or(key, symbols[offsets + t], out=key)
    return key


def _sorted_common_prefix(keys: list[np.ndarray], order: np.ndarray, per: int, bits: int) -> np.ndarray:
    """Common prefix lengths, in symbols, of the neighbours in ``order`` (``keys`` as packed)."""
    lcp = np.zeros(max(0, len(order) - 1), dtype=np.int32)
    pairs = np.arange(len(lcp))
    for key in keys:
        low, high = key[order[pairs]], key[order[pairs + 1]]
        np.bitwise_xor(low, high, out=low)
        for t in range(per):  # leading symbols equal: the difference has none of their bits
            lcp[pairs] += low >> (bits * (per - 1 - t)) == 0
        pairs = pairs[low == 0]
        if not len(pairs):
            break
    return lcp


@dataclass(frozen=True)
class Nodes:
    """lcp-intervals: suffix-array range [left, right) (int32), height, parent height (the
    smallest unsigned type that holds the maximum height)."""

    left: np.ndarray
    right: np.ndarray
    height: np.ndarray
    parent: np.ndarray


#: lcp-intervals are found a stretch of about this many suffixes at a time (bounds the memory).
STRETCH = 1 << 22


def lcp_intervals(lcp: np.ndarray, max_height: int, stretch: int = STRETCH) -> Nodes:
    """Every lcp-interval of height 2..max_height (heights of ``max_height`` stand for all
    greater ones when ``lcp`` is capped there), by height, then position. None spans a position
    whose lcp is below 2, so the array is cut there into stretches of about ``stretch``."""
    found: dict[int, list[list]] = {}
    for a, b in _stretches(lcp, stretch):
        local = lcp[a : b + 1] if b < len(lcp) else np.append(lcp[a:], 0)
        for h, first, last, parent in _stretch_nodes(local, max_height):
            found.setdefault(h, []).append([first - 1 + a, last + 1 + a, parent])
    heights = sorted(found)
    sizes = [sum(len(part[0]) for part in found[h]) for h in heights]
    small = np.min_scalar_type(max_height)
    columns = [np.repeat(np.array(heights, dtype=small), sizes)]
    for i in range(3):  # one column at a time: the parts are freed as they are joined
        parts = [part[i] for h in heights for part in found[h]]
        column = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
        columns.append(column.astype(small) if i == 2 else column)
        for h in heights:
            for part in found[h]:
                part[i] = None
    left, right, parent = columns[1:]
    return Nodes(left, right, columns[0], parent)


def _stretches(lcp: np.ndarray, stretch: int, window: int = 1 << 16) -> Iterator[tuple[int, int]]:
    """[a, b) covering ``lcp``, each ``b`` (but the last) at the first lcp below 2 after a + stretch."""
    a = 0
    while a < len(lcp):
        b = a + stretch
        while b < len(lcp):
            low = np.flatnonzero(lcp[b : b + window] < 2)
            if len(low):
                b += int(low[0])
                break
            b += window
        b = min(b, len(lcp))
        yield a, b
        a = b


def _stretch_nodes(padded: np.ndarray, max_height: int) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """(h, first, last, parent height) of the nodes of ``padded`` (lcp values, below 2 at both
    ends): for each height h the runs of lcp >= h are found among the positions left from height
    h - 1; a run [first, last] whose minimum is h is a node."""
    index = np.flatnonzero(padded >= 2).astype(np.int32)
    for h in range(2, max_height + 1):
        index = index[padded[index] >= h]
        if not len(index):
            break
        starts = np.flatnonzero(np.diff(index, prepend=-2) != 1)
        lowest = np.minimum.reduceat(padded[index], starts)
        ends = np.append(starts[1:], len(index)) - 1
        first, last = index[starts], index[ends]
        keep = lowest == h
        first, last = first[keep], last[keep]
        yield h, first, last, np.maximum(padded[first - 1], padded[last + 1])


def repeated_substrings(
    layout: Layout,
    rules: PieceRules,
    recovery: bool,
    boundary_matches: bool,
    beat: Heartbeat | None = None,
    limit: int | None = None,
) -> dict[str, int]:
    """Alg. 2 (and Alg. 3 with ``recovery``) over the ``layout``'s text: right-maximal repeats of
    2..max_length characters of which every occurrence ends by ``limits[start]`` (lies inside one
    pretoken), with their weighted frequency (sum of ``weights`` over occurrences). Unless
    ``boundary_matches``, a common prefix also stops at the end of a pretoken. ``beat`` hears
    every node.

    ``limit`` (without ``recovery``): only the ``limit`` best by score frequency x length, and
    every one that ties with the last, which is all :func:`select_seed` of that size can take;
    the others are never written out as strings."""
    beat = beat or Heartbeat(None)
    cap = rules.max_length + 1
    text, limits = layout.text, layout.limits
    if layout.codes is None or limits is None:
        raise ValueError("this layout was used before: its arrays are released")
    sa, lcp = sorted_suffixes(layout.codes, cap)
    layout.codes = None
    beat.work(len(sa) // 4)
    if not boundary_matches:
        room = limits - np.arange(len(limits), dtype=limits.dtype)
        lcp[1:] = np.minimum(lcp[1:], np.minimum(room[sa[1:]], room[sa[:-1]]))
        del room
    nodes = lcp_intervals(lcp, cap if recovery else rules.max_length)
    del lcp
    beat.work(len(sa) // 8)
    freq = _interval_sum(layout.weights, sa, nodes)
    layout.weights = None
    room = np.minimum(_interval_min(limits, sa, nodes), rules.max_length)
    layout.limits = limits = None
    start = sa[nodes.left]
    height, parents = nodes.height, nodes.parent
    del sa, nodes
    order = None
    if limit is not None and not recovery:
        order = np.flatnonzero(height <= room)
        score = freq[order] * height[order]
        order = order[np.argsort(np.negative(score, out=score), kind="stable")]
        del score
    found: dict[str, int] = {}
    cutoff = -1
    for s, h, parent, f, r in _rows(order, start, height, parents, freq, room):
        beat.work()
        if f * h < cutoff:
            break
        if h <= r:
            piece = text[s : s + h]
            if rules.valid_length(piece) == h:
                found[piece] = f
                if len(found) == limit and not recovery:
                    cutoff = f * h
                continue
        if recovery:
            length = rules.valid_length(text[s : s + min(h, r)])
            if length > max(parent, 1):
                found[text[s : s + length]] = f
    return found


def _rows(order: np.ndarray | None, *columns: np.ndarray, chunk: int = 1 << 16) -> Iterator[tuple]:
    """The columns' rows (in ``order``, or all) as Python values, a chunk at a time."""
    for i in range(0, len(columns[0]) if order is None else len(order), chunk):
        part = slice(i, i + chunk) if order is None else order[i : i + chunk]
        yield from zip(*(column[part].tolist() for column in columns), strict=True)


def _interval_sum(weights: np.ndarray | None, sa: np.ndarray, nodes: Nodes, chunk: int = CHUNK) -> np.ndarray:
    """sum(weights[sa[left:right]]) for every node (weights None: 1 each)."""
    if weights is None:
        return (nodes.right - nodes.left).astype(np.int64)
    cumulative = np.zeros(len(sa) + 1, dtype=np.int64)
    for i in range(0, len(sa), chunk):  # gathered a chunk at a time, summed in place
        cumulative[i + 1 : i + 1 + chunk] = weights[sa[i : i + chunk]]
    np.cumsum(cumulative, out=cumulative)
    return cumulative[nodes.right] - cumulative[nodes.left]


def _interval_min(limits: np.ndarray, sa: np.ndarray, nodes: Nodes, chunk: int = CHUNK) -> np.ndarray:
    """min(limits[p] - p for p in sa[left:right]) for every node: the room its occurrences leave."""
    if not len(nodes.left):
        return np.zeros(0, dtype=limits.dtype)
    values = np.empty(len(sa) + 1, dtype=limits.dtype)
    for i in range(0, len(sa), chunk):
        part = sa[i : i + chunk]
        np.subtract(limits[part], part, out=values[i : i + len(part)])
    values[-1] = 0  # reduceat's end index; never inside an interval
    low = np.empty(len(nodes.left), dtype=limits.dtype)
    for i in range(0, len(low), chunk):
        bounds = np.empty(2 * len(low[i : i + chunk]), dtype=np.int64)
        bounds[0::2], bounds[1::2] = nodes.left[i : i + chunk], nodes.right[i : i + chunk]
        low[i : i + chunk] = np.minimum.reduceat(values, bounds)[0::2]
    return low


def char_counts(counts: dict[str, int], chunk: int = 1 << 18) -> dict[str, int]:
    """Every character of the pretokens with its count, in code point order (``chunk``
    pretokens at a time)."""
    totals, seen = np.zeros(0x110000), np.zeros(0x110000, dtype=np.int64)  # sums exact below 2**53
    items = iter(counts.items())
    while part := list(islice(items, chunk)):
        words, numbers = zip(*part, strict=True)
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        codes = np.frombuffer("".join(words).encode("utf-32-le"), dtype=np.uint32)
        weights = np.repeat(np.array(numbers, dtype=np.float64), lengths)
        top = int(codes.max(initial=0)) + 1
        totals[:top] += np.bincount(codes, weights, top)
        seen[:top] += np.bincount(codes, minlength=top)
    present = np.flatnonzero(seen)
    return dict(zip(map(chr, present.tolist()), totals[present].astype(np.int64).tolist(), strict=True))


def _join(sentences: Iterable[Sequence[str]]) -> Layout:
    """Every sentence's pretokens concatenated and followed by a boundary (U+0000 in the text,
    -1 in the codes; its limit is itself), every position weighing 1."""
    items: list[str] = []
    for sentence in sentences:
        items.extend(sentence)
        items.append("")
    lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    boundary = lengths == 0
    slots = np.where(boundary, 1, lengths)
    ends = np.cumsum(slots)
    limits = np.repeat(np.where(boundary, ends - 1, ends).astype(np.int32), slots)
    text = "".join(item or "\0" for item in items)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.int32).copy()
    codes[np.repeat(boundary, slots)] = -1
    return Layout(text, codes, limits)


def _weighted_pretokens(counts: dict[str, int]) -> Layout:
    """:func:`_join` of every distinct pretoken as a sentence of its own, each position weighing
    its pretoken's count."""
    words = list(counts)
    layout = _join((w,) for w in words)
    per_word = np.fromiter((counts[w] for w in words), dtype=np.int64, count=len(words))
    small = np.int32 if per_word.max(initial=0) < 2**31 else np.int64
    layout.weights = np.repeat(
        per_word.astype(small), np.fromiter(map(len, words), dtype=np.int64, count=len(words)) + 1
    )
    return layout


def pretoken_seed(
    counts: dict[str, int], rules: PieceRules, recovery: bool = False, beat: Heartbeat | None = None
) -> dict[str, int]:
    """script_tok ``corpus_long`` candidates with frequencies (characters included)."""
    found = repeated_substrings(_weighted_pretokens(counts), rules, recovery, boundary_matches=False, beat=beat)
    for word in counts:
        if (
            counts[word] >= 2
            and 2 <= len(word) <= rules.max_length
            and word not in found
            and rules.valid_length(word) == len(word)
        ):
            found[word] = counts[word]
    found.update(char_counts(counts))
    return found


def full_text_seed(
    counts: dict[str, int],
    documents: Sequence[Sequence[str]] | None,
    rules: PieceRules,
    recovery: bool = False,
    beat: Heartbeat | None = None,
    limit: int | None = None,
) -> dict[str, int]:
    """SentencePiece candidates with frequencies (characters with their counts); ``limit`` as
    in :func:`repeated_substrings`."""
    sentences = documents if documents is not None else [s for w in counts for s in ((w,), (w,))]
    found = repeated_substrings(_join(sentences), rules, recovery, boundary_matches=True, beat=beat, limit=limit)
    found.update(char_counts(counts))
    return found


def counted_text_seed(
    counts: dict[str, int],
    rules: PieceRules,
    recovery: bool = False,
    beat: Heartbeat | None = None,
    limit: int | None = None,
) -> dict[str, int]:
    """SentencePiece candidates of the running text behind pretoken ``counts``: Alg. 2 over the
    distinct pretokens, each followed by a boundary that matches itself (as the space or line end
    after a word does), every occurrence weighted by its pretoken's count. The same as
    :func:`full_text_seed` of a text whose every pretoken occurrence is a sentence of its own
    (the real text differs only where a repeat occurs solely at word ends, followed by a space in
    some places and by a line end in others: a node there, not here)."""
    found = repeated_substrings(
        _weighted_pretokens(counts), rules, recovery, boundary_matches=True, beat=beat, limit=limit
    )
    found.update(char_counts(counts))
    return found


def select_seed(candidates: dict[str, int], size: int, required: Iterable[str] = ()) -> dict[str, float]:
    """Every character (and ``required`` atom), then the best other candidates by score
    frequency x length until ``size`` pieces, in that order (ties: string order);
    log-probabilities log(score / sum of scores)."""
    atoms = {p: max(f, 1) for p, f in candidates.items() if len(p) == 1}
    atoms.update({a: max(candidates.get(a, 0), 1) for a in required})
    others = [(f * len(p), p) for p, f in candidates.items() if len(p) > 1]
    by_score = sorted([(s, p) for p, s in atoms.items()], key=lambda x: (-x[0], x[1]))
    by_score += sorted(others, key=lambda x: (-x[0], x[1]))[: max(0, size - len(atoms))]
    chosen = {p: s for s, p in by_score}
    log_total = math.log(sum(chosen.values()))
    return {p: math.log(s) - log_total for p, s in chosen.items()}
