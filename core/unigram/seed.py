"""Seed vocabularies from suffix arrays ([unigram §3.1, §4.2 and App. A, Alg. 2-3]).

Both seeds enumerate the internal nodes of a suffix tree: the *lcp-intervals* of a suffix array
(a run of adjacent suffixes sharing a prefix of length h, with a shorter shared prefix on both
sides). Each node is a right-maximal repeat; Alg. 2 emits it with its frequency and score
frequency x length. The suffixes are sorted only by their first ``max_length + 1`` characters
(longer shared prefixes never make a piece), with numpy: characters packed into int64 blocks,
one stable sort.

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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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


def sorted_suffixes(codes: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """(suffix array sorted by at least the first ``depth`` symbols, equal prefixes in text
    order; lcp[i] = common prefix length of suffixes sa[i-1] and sa[i], at most ``depth``,
    lcp[0] = 0). ``codes`` are code points or -1.

    Symbols get dense ranks (0 = past the end) of ``bits`` bits and are packed ``per`` to an
    int64 block; a stable sort on the blocks at offsets 0, per, 2 per ... orders the suffixes;
    the lcp compares blocks, then single symbols."""
    n = len(codes)
    present = np.zeros(int(codes.max(initial=0)) + 2, dtype=np.int64)
    present[codes + 1] = 1
    ranks = np.cumsum(present)
    bits = int(ranks[-1] + 1).bit_length()
    per = max(1, 62 // bits)
    blocks = -(-depth // per)
    padded = np.zeros(n + per * (blocks + 1), dtype=np.int64)
    padded[:n] = ranks[codes + 1]  # dense ranks 1, 2, ... in code order; 0 past the end
    block = np.zeros(n + per * blocks, dtype=np.int64)
    for t in range(per):
        np.left_shift(block, bits, out=block)
        np.bitwise_or(block, padded[t : t + len(block)], out=block)
    sa = np.lexsort([block[k * per : k * per + n] for k in reversed(range(blocks))]).astype(np.int32)
    lcp = np.zeros(n, dtype=np.int32)
    pairs, a, b = np.arange(1, n, dtype=np.int32), sa[:-1].copy(), sa[1:].copy()
    while len(pairs):
        same = block[a] == block[b]
        open_ = np.flatnonzero(~same)
        for t in range(per - 1):  # blocks differ: count the equal leading symbols
            hit = padded[a[open_] + t] == padded[b[open_] + t]
            lcp[pairs[open_[hit]]] += 1
            open_ = open_[hit]
        lcp[pairs[same]] += per
        keep = same & (lcp[pairs] < depth)
        pairs, a, b = pairs[keep], a[keep] + per, b[keep] + per
    return sa, np.minimum(lcp, depth)


@dataclass(frozen=True)
class Nodes:
    """lcp-intervals: suffix-array range [left, right), height, parent height."""

    left: np.ndarray
    right: np.ndarray
    height: np.ndarray
    parent: np.ndarray


def lcp_intervals(lcp: np.ndarray, max_height: int) -> Nodes:
    """Every lcp-interval of height 2..max_height (heights of ``max_height`` stand for all
    greater ones when ``lcp`` is capped there). For each height h the runs of lcp >= h are
    found among the positions left from height h - 1; a run whose minimum is h is a node."""
    parts = []
    padded = np.append(lcp, 0)
    index = np.flatnonzero(padded >= 2)
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
        parent = np.maximum(padded[first - 1], padded[last + 1])
        parts.append((first - 1, last + 1, np.full(len(first), h), parent))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return Nodes(empty, empty, empty, empty)
    return Nodes(*(np.concatenate(p) for p in zip(*parts, strict=True)))


def repeated_substrings(
    text: str,
    codes: np.ndarray,
    weights: np.ndarray,
    limits: np.ndarray,
    rules: PieceRules,
    recovery: bool,
    boundary_matches: bool,
    beat: Heartbeat | None = None,
    limit: int | None = None,
) -> dict[str, int]:
    """Alg. 2 (and Alg. 3 with ``recovery``) over ``text`` (``codes`` its symbols, -1 at sentence
    boundaries): right-maximal repeats of 2..max_length characters of which every occurrence
    ends by ``limits[start]`` (lies inside one pretoken), with their weighted frequency (sum of
    ``weights`` over occurrences). Unless ``boundary_matches``, a common prefix also stops at
    the end of a pretoken. ``beat`` hears every node.

    ``limit`` (without ``recovery``): only the ``limit`` best by score frequency x length, and
    every one that ties with the last, which is all :func:`select_seed` of that size can take;
    the others are never written out as strings."""
    beat = beat or Heartbeat(None)
    cap = rules.max_length + 1
    sa, lcp = sorted_suffixes(codes, cap)
    beat.work(len(codes) // 4)
    if not boundary_matches:
        room = limits - np.arange(len(limits), dtype=limits.dtype)
        lcp[1:] = np.minimum(lcp[1:], np.minimum(room[sa[1:]], room[sa[:-1]]))
        del room
    nodes = lcp_intervals(lcp, cap if recovery else rules.max_length)
    del lcp
    beat.work(len(codes) // 8)
    cumulative = np.concatenate(([0], np.cumsum(weights[sa])))
    freq = cumulative[nodes.right] - cumulative[nodes.left]
    del cumulative
    start = sa[nodes.left]
    room = np.minimum(_interval_min(limits[sa] - sa, nodes), rules.max_length)
    height = nodes.height
    order = np.arange(len(start))
    if limit is not None and not recovery:
        order = np.flatnonzero(height <= room)
        order = order[np.argsort(-(freq[order] * height[order]), kind="stable")]
    found: dict[str, int] = {}
    cutoff = -1
    for s, h, parent, f, r in zip(
        start[order].tolist(),
        height[order].tolist(),
        nodes.parent[order].tolist(),
        freq[order].tolist(),
        room[order].tolist(),
        strict=True,
    ):
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


def _interval_min(values: np.ndarray, nodes: Nodes) -> np.ndarray:
    """min(values[left:right]) for every node."""
    if not len(nodes.left):
        return np.zeros(0, dtype=values.dtype)
    bounds = np.empty(2 * len(nodes.left), dtype=np.int64)
    bounds[0::2], bounds[1::2] = nodes.left, nodes.right
    padded = np.append(values, values.max(initial=0))
    return np.minimum.reduceat(padded, bounds)[0::2]


def char_counts(counts: dict[str, int]) -> dict[str, int]:
    """Every character of the pretokens with its count, in code point order."""
    lengths = np.fromiter(map(len, counts), dtype=np.int64, count=len(counts))
    weights = np.repeat(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)), lengths)
    codes = np.frombuffer("".join(counts).encode("utf-32-le"), dtype=np.uint32)
    totals = np.bincount(codes, weights)  # exact: integer sums below 2**53
    present = np.flatnonzero(np.bincount(codes))
    return dict(zip(map(chr, present.tolist()), totals[present].astype(np.int64).tolist(), strict=True))


def _join(sentences: Iterable[Sequence[str]]) -> tuple[str, np.ndarray, np.ndarray]:
    """(text, symbols, limits): every sentence's pretokens concatenated and followed by a
    boundary (U+0000 in ``text``, -1 in the symbols); ``limits[i]`` is the end of the pretoken
    that holds position i (i itself at a boundary)."""
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
    return text, codes, limits


def _weighted_pretokens(counts: dict[str, int]) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_join` of every distinct pretoken as a sentence of its own, and the weight of each
    symbol: its pretoken's count."""
    words = list(counts)
    text, codes, limits = _join((w,) for w in words)
    weights = np.repeat(
        np.fromiter((counts[w] for w in words), dtype=np.int64, count=len(words)), [len(w) + 1 for w in words]
    )
    return text, codes, limits, weights


def pretoken_seed(
    counts: dict[str, int], rules: PieceRules, recovery: bool = False, beat: Heartbeat | None = None
) -> dict[str, int]:
    """script_tok ``corpus_long`` candidates with frequencies (characters included)."""
    text, codes, limits, weights = _weighted_pretokens(counts)
    found = repeated_substrings(text, codes, weights, limits, rules, recovery, boundary_matches=False, beat=beat)
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
    text, codes, limits = _join(sentences)
    found = repeated_substrings(
        text,
        codes,
        np.ones(len(text), dtype=np.int64),
        limits,
        rules,
        recovery,
        boundary_matches=True,
        beat=beat,
        limit=limit,
    )
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
    text, codes, limits, weights = _weighted_pretokens(counts)
    found = repeated_substrings(
        text, codes, weights, limits, rules, recovery, boundary_matches=True, beat=beat, limit=limit
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
