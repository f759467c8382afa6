"""The lattices of many strings at once, in compact numpy arrays, for training.

The same forward-backward and Viterbi as :mod:`core.families.unigram.lattice` ([unigram §3.2] E-step,
§3.3 pruning), vectorised as reference-implementations.md §9 advises: the arcs of every string
are found once, for the seed vocabulary; a smaller vocabulary drops arcs for good
(:meth:`Lattices.keep`), so EM sub-iterations and pruning rounds never rescan the strings.

Memory grows with the arcs, not with the float arrays of a pass: the strings are sorted by
length and cut into batches of about ``batch_nodes`` nodes. A batch stores every arc as its
piece (int32), start node (int32, numbered within the batch) and length (one byte), sorted by
start position, then start node, then length; a pass expands one batch at a time.

Nodes are string positions: string k of a batch owns nodes ``first[k] .. first[k] + len(k)``.
A pass walks the start positions s = 0, 1, ... of all strings of a batch together. At s each
string has one start node, so the arcs starting there end at distinct nodes:

- forward: alpha[dst] = logaddexp(alpha[dst], alpha[src] + score), alpha[src] being final
  (every arc into it starts before s);
- backward (s descending): beta[src] = logsumexp over the arcs leaving src (contiguous);
- Viterbi: best[dst] changes only for a strictly better arc, so ties go to the arc that starts
  first (the longest last token), as in :meth:`Lattice.viterbi`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from core.deadline import Heartbeat

NEG_INF = -np.inf
#: Heartbeat units of one vectorised step (a pass level, a search length): tens of microseconds.
STEP_WORK = 64
#: Nodes per batch (about 3 arcs each; a pass needs ~50 bytes per arc of its batch).
BATCH_NODES = 1 << 21
#: Bits of the hash prefilter of :class:`PieceTable` (a 32 MB table).
FILTER_BITS = 25


class PieceTable:
    """The pieces (at most ``max_length`` characters) as rolling hashes, sorted per length, and
    a table of hash prefixes that rejects most windows before any search."""

    def __init__(self, piece_ids: dict[str, int], max_length: int):
        pieces = [p for p in piece_ids if 0 < len(p) <= max_length]
        lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        self.codes, offsets = _layout(pieces, lengths)
        hashes = _prefix_hashes(self.codes, offsets[:-1], lengths)
        ids = np.fromiter((piece_ids[p] for p in pieces), dtype=np.int64, count=len(pieces))
        self.max_length = max_length
        self.filter = np.zeros(1 << FILTER_BITS, dtype=bool)
        self.filter[hashes >> np.uint64(64 - FILTER_BITS)] = True
        self.by_length: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for length in np.unique(lengths).tolist():
            index = np.flatnonzero(lengths == length)
            index = index[np.argsort(hashes[index], kind="stable")]
            self.by_length[length] = (hashes[index], offsets[index], ids[index])

    def arcs(self, codes: np.ndarray, room: np.ndarray, beat: Heartbeat) -> tuple[np.ndarray, ...]:
        """(start node, length, piece id) of every window ``codes[i:i + length]`` that is a
        piece and fits in ``room[i]``, ordered by length, then start. Hash collisions cannot
        create or lose an arc: every hit is checked character by character."""
        found = []
        position = np.flatnonzero(room >= 1)
        window = np.zeros(len(position), dtype=np.uint64)
        for length in range(1, self.max_length + 1):
            keep = room[position] >= length
            position, window = position[keep], window[keep]
            if not len(position):
                break
            beat.work(STEP_WORK + len(position) // 8)
            window = window * _BASE + codes[position + length - 1].astype(np.uint64)
            if length in self.by_length:
                hit = np.flatnonzero(self.filter[window >> np.uint64(64 - FILTER_BITS)])
                found.append(self._match(window[hit], position[hit], length, codes))
        if not found:
            return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
        return tuple(np.concatenate(part) for part in zip(*found, strict=True))

    def _match(self, window, position, length, codes):
        piece_hash, piece_start, piece_id = self.by_length[length]
        lo = np.searchsorted(piece_hash, window, side="left")
        hi = np.searchsorted(piece_hash, window, side="right")
        out_src, out_piece = [], []
        for k in range(int((hi - lo).max(initial=0))):
            hit = np.flatnonzero(hi - lo > k)
            candidate = lo[hit] + k
            equal = np.ones(len(hit), dtype=bool)
            for t in range(length):
                equal &= codes[position[hit] + t] == self.codes[piece_start[candidate] + t]
            out_src.append(position[hit[equal]])
            out_piece.append(piece_id[candidate[equal]])
        src = np.concatenate(out_src) if out_src else np.zeros(0, dtype=np.int64)
        piece = np.concatenate(out_piece) if out_piece else np.zeros(0, dtype=np.int64)
        return src, np.full(len(src), length, dtype=np.int64), piece


class _Batch:
    """The arcs of some strings (global indices ``strings``), compact, in pass order."""

    def __init__(self, strings: Sequence[str], index: np.ndarray, table: PieceTable, whole: bool, beat: Heartbeat):
        self.strings = index
        self.lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        codes, offsets = _layout(strings, self.lengths)
        self.first, self.final = offsets[:-1], offsets[:-1] + self.lengths
        self.n_nodes = int(offsets[-1])
        beat.work(self.n_nodes // 8)
        owner = self.node_owner()
        src, length, piece = table.arcs(codes, self.final[owner] - np.arange(self.n_nodes), beat)
        start = src - self.first[owner[src]]
        if not whole:
            keep = (start > 0) | (length < self.lengths[owner[src]])
            src, length, piece, start = src[keep], length[keep], piece[keep], start[keep]
        beat.work(len(src) // 4)
        order = np.argsort(start * self.n_nodes + src, kind="stable")  # found by length: ties stay so
        self.piece = piece[order].astype(np.int32)
        self.src = src[order].astype(np.int32)
        self.length = length[order].astype(np.min_scalar_type(table.max_length))
        self.bounds = np.searchsorted(start[order], np.arange(int(self.lengths.max(initial=0)) + 1))

    def node_owner(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.lengths)), self.lengths + 1)

    def keep(self, arc_mask: np.ndarray) -> None:
        if arc_mask.all():
            return
        kept_before = np.concatenate(([0], np.cumsum(arc_mask)))
        self.bounds = kept_before[self.bounds]
        self.piece, self.src, self.length = self.piece[arc_mask], self.src[arc_mask], self.length[arc_mask]

    def levels(self, beat: Heartbeat, descending: bool = False) -> Iterator[tuple[int, int]]:
        """(first arc, end) of every non-empty start position."""
        steps = range(len(self.bounds) - 2, -1, -1) if descending else range(len(self.bounds) - 1)
        for s in steps:
            a0, a1 = int(self.bounds[s]), int(self.bounds[s + 1])
            if a0 < a1:
                beat.work(STEP_WORK + (a1 - a0) // 8)
                yield a0, a1

    def forward(self, score: np.ndarray, dst: np.ndarray, beat: Heartbeat) -> np.ndarray:
        alpha = np.full(self.n_nodes, NEG_INF)
        alpha[self.first] = 0.0
        src = self.src
        for a0, a1 in self.levels(beat):
            d = dst[a0:a1]
            alpha[d] = np.logaddexp(alpha[d], alpha[src[a0:a1]] + score[a0:a1])
        return alpha

    def backward(self, score: np.ndarray, dst: np.ndarray, beat: Heartbeat) -> np.ndarray:
        beta = np.full(self.n_nodes, NEG_INF)
        beta[self.final] = 0.0
        src = self.src
        new_group = np.ones(len(src), dtype=bool)
        new_group[1:] = src[1:] != src[:-1]
        group_start = np.flatnonzero(new_group)
        group_len = np.diff(np.append(group_start, len(src)))
        for a0, a1 in self.levels(beat, descending=True):
            g0, g1 = np.searchsorted(group_start, (a0, a1))
            starts, lens = group_start[g0:g1] - a0, group_len[g0:g1]
            values = score[a0:a1] + beta[dst[a0:a1]]
            top = np.maximum.reduceat(values, starts)
            shift = np.where(np.isfinite(top), top, 0.0)
            total = np.add.reduceat(np.exp(values - np.repeat(shift, lens)), starts)
            with np.errstate(divide="ignore"):
                beta[src[a0 + starts]] = shift + np.log(total)
        return beta

    def viterbi(self, score: np.ndarray, dst: np.ndarray, beat: Heartbeat) -> tuple[np.ndarray, np.ndarray]:
        best = np.full(self.n_nodes, NEG_INF)
        best[self.first] = 0.0
        back = np.full(self.n_nodes, -1, dtype=np.int64)
        src = self.src
        for a0, a1 in self.levels(beat):
            d = dst[a0:a1]
            candidate = best[src[a0:a1]] + score[a0:a1]
            better = np.flatnonzero(candidate > best[d])
            best[d[better]] = candidate[better]
            back[d[better]] = a0 + better
        return best, back

    def paths(self, back: np.ndarray, beat: Heartbeat) -> tuple[np.ndarray, np.ndarray]:
        """(string, piece) of every arc on the best paths, each string's last arc first."""
        owners, node = np.arange(len(self.lengths)), self.final
        out_owner, out_piece = [], []
        while len(node):
            beat.work(STEP_WORK + len(node) // 8)
            arc = back[node]
            alive = arc >= 0
            owners, arc = owners[alive], arc[alive]
            out_owner.append(owners)
            out_piece.append(self.piece[arc])
            node = self.src[arc].astype(np.int64)
            more = node != self.first[owners]
            owners, node = owners[more], node[more]
        return self.strings[np.concatenate(out_owner)], np.concatenate(out_piece)


class Lattices:
    """The lattices of ``strings`` over the pieces ``piece_ids`` (at most ``max_length``
    characters), in batches. ``whole=False`` leaves out every arc that spans its whole string
    (the pruning step's alternatives). ``beat`` hears the search and every pass."""

    def __init__(
        self,
        strings: Sequence[str],
        piece_ids: dict[str, int],
        max_length: int,
        beat: Heartbeat | None = None,
        whole: bool = True,
        batch_nodes: int = BATCH_NODES,
    ):
        self.beat = beat = beat or Heartbeat(None)
        self.n_strings = len(strings)
        lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        order = np.argsort(lengths, kind="stable")
        cuts = np.searchsorted(
            np.cumsum(lengths[order] + 1), np.arange(batch_nodes, int(lengths.sum()) + len(strings), batch_nodes)
        )
        table = PieceTable(piece_ids, max_length)
        self.present: np.ndarray | None = None  # the pieces not dropped yet (None: all)
        self.batches = [
            _Batch([strings[i] for i in index.tolist()], index, table, whole, beat)
            for index in np.split(order, np.unique(cuts))
            if len(index)
        ]

    @property
    def n_arcs(self) -> int:
        return sum(len(b.piece) for b in self.batches)

    def keep(self, pieces: np.ndarray, strings: np.ndarray | None = None) -> None:
        """Drop for good every arc whose piece is not in the mask ``pieces`` (or whose string
        is not in the mask ``strings``)."""
        if strings is None and self.present is not None and not (self.present & ~pieces).any():
            return  # nothing more to drop
        self.present = pieces.copy() if self.present is None else self.present & pieces
        for b in self.batches:
            mask = pieces[b.piece]
            if strings is not None:
                mask &= strings[b.strings][b.node_owner()[b.src]]
            b.keep(mask)

    def marginals(self, piece_score: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(sum over strings of ``weight`` x posterior of the arcs of every piece, log Z of
        every string), arcs scored by ``piece_score``: the E-step."""
        expected = np.zeros(len(piece_score))
        log_z = np.full(self.n_strings, NEG_INF)
        for b in self.batches:
            score = piece_score[b.piece]
            dst = b.src + b.length
            alpha = b.forward(score, dst, self.beat)
            beta = b.backward(score, dst, self.beat)
            z = alpha[b.final]
            log_z[b.strings] = z
            with np.errstate(divide="ignore"):
                norm = np.where(np.isfinite(z), np.log(weight[b.strings]) - z, NEG_INF)
            post = np.exp(alpha[b.src] + score + beta[dst] + norm[b.node_owner()[b.src]])
            self.beat.work(len(post) // 4)
            expected += np.bincount(b.piece, post, minlength=len(piece_score))
        return expected, log_z

    def viterbi(self, piece_score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(best log-probability of every string, and the best paths as parallel arrays
        (string, piece), each string's last arc first)."""
        best_final = np.full(self.n_strings, NEG_INF)
        owners, pieces = [], []
        for b in self.batches:
            best, back = b.viterbi(piece_score[b.piece], b.src + b.length, self.beat)
            best_final[b.strings] = best[b.final]
            owner, piece = b.paths(back, self.beat)
            owners.append(owner)
            pieces.append(piece)
        empty = np.zeros(0, dtype=np.int64)
        return best_final, np.concatenate(owners or [empty]), np.concatenate(pieces or [empty])


_BASE = np.uint64(0x9E3779B97F4A7C15)


def _layout(strings: Sequence[str], lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code points of all strings, each followed by -1; start offset of every string and the
    total length)."""
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=offsets[1:])
    codes = np.full(int(offsets[-1]), -1, dtype=np.int64)
    inside = np.ones(len(codes), dtype=bool)
    inside[offsets[1:] - 1] = False
    codes[inside] = np.frombuffer("".join(strings).encode("utf-32-le"), dtype=np.uint32)
    return codes, offsets


def _prefix_hashes(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The rolling hash of each string ``codes[start:start + length]``."""
    out = np.zeros(len(starts), dtype=np.uint64)
    for k in range(int(lengths.max(initial=0))):
        more = lengths > k
        out[more] = out[more] * _BASE + codes[starts[more] + k].astype(np.uint64)
    return out
