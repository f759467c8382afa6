"""The lattices of many strings at once, in flat numpy arrays, for training.

The same forward-backward and Viterbi as :mod:`core.unigram.lattice` ([unigram §3.2] E-step,
§3.3 pruning), vectorised as reference-implementations.md §9 advises: the arcs of every string
are found once, for the seed vocabulary (:class:`CorpusArcs`); a vocabulary is then a mask over
those arcs (:meth:`CorpusArcs.select`), so EM sub-iterations and pruning rounds never rescan
the strings. A pass walks the positions 1, 2, ... of all strings together: every arc ending at
position k (forward) or starting at k (backward) is handled in one numpy step, grouped by its
target node with ``reduceat``.

Nodes are string positions: string s owns nodes ``offsets[s] .. offsets[s] + len(s)``.
Viterbi ties go to the arc that starts first (the longest), as in :class:`Lattice.viterbi`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.deadline import Heartbeat

NEG_INF = -np.inf
#: Heartbeat units of one vectorised step (a pass level, a search length): tens of microseconds.
STEP_WORK = 64


class CorpusArcs:
    """Every arc ``strings[s][i:j]`` whose text is in ``piece_ids`` (length <= max_length).

    Found per length L with a rolling hash of every window of L characters (numpy, mod 2**64),
    looked up among the hashes of the pieces of length L and then checked character by
    character, so hash collisions cannot create or lose an arc. ``beat`` hears the work of this
    search and of every pass over the arcs."""

    def __init__(
        self, strings: Sequence[str], piece_ids: dict[str, int], max_length: int, beat: Heartbeat | None = None
    ):
        self.beat = beat = beat or Heartbeat(None)
        self.lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        codes, self.offsets = _layout(strings, self.lengths)
        self.n_nodes = int(self.offsets[-1])
        beat.work(self.n_nodes // 8)
        self.first_nodes = self.offsets[:-1]
        self.final_nodes = self.offsets[:-1] + self.lengths
        owner_of = np.repeat(np.arange(len(strings)), self.lengths + 1)
        room = self.final_nodes[owner_of] - np.arange(self.n_nodes)
        pieces = list(piece_ids)
        piece_len = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        piece_codes, piece_offsets = _layout(pieces, piece_len)
        piece_hash = _prefix_hashes(piece_codes, piece_offsets[:-1], piece_len)
        piece_id = np.fromiter(piece_ids.values(), dtype=np.int64, count=len(pieces))
        found = []
        position = np.flatnonzero(room >= 1)
        window = np.zeros(len(position), dtype=np.uint64)
        for length in range(1, max_length + 1):
            keep = room[position] >= length
            position, window = position[keep], window[keep]
            if not len(position):
                break
            beat.work(STEP_WORK + len(position) // 8)
            window = window * _BASE + codes[position + length - 1].astype(np.uint64)
            same_length = np.flatnonzero(piece_len == length)
            if len(same_length):
                found.append(
                    _match(
                        window,
                        position,
                        length,
                        codes,
                        piece_hash[same_length],
                        piece_offsets[same_length],
                        piece_codes,
                        piece_id[same_length],
                    )
                )
        src = np.concatenate([f[0] for f in found]) if found else np.zeros(0, dtype=np.int64)
        arc_length = np.concatenate([f[1] for f in found]) if found else np.zeros(0, dtype=np.int64)
        piece = np.concatenate([f[2] for f in found]) if found else np.zeros(0, dtype=np.int64)
        dst = src + arc_length
        owner = owner_of[src]
        start = src - self.offsets[owner]
        beat.work(len(src) // 8)
        order = np.lexsort((start, dst, start + arc_length))  # forward order: position, target node, start
        beat.work(len(src) // 4)
        self.src, self.dst, self.piece, self.owner = src[order], dst[order], piece[order], owner[order]
        self.start_pos = start[order]
        self.end_pos = self.start_pos + arc_length[order]

    def select(self, mask: np.ndarray) -> ActiveArcs:
        """The lattices restricted to the arcs where ``mask`` is true."""
        return ActiveArcs(self, np.flatnonzero(mask))


class _Levels:
    """Arcs in pass order with, per level (position), the arc range and the groups of arcs that
    share a target node."""

    def __init__(self, level: np.ndarray, target: np.ndarray, n_levels: int):
        self.bounds = np.searchsorted(level, np.arange(n_levels + 1), side="left")
        new_group = np.ones(len(target), dtype=bool)
        new_group[1:] = target[1:] != target[:-1]
        self.group_start = np.flatnonzero(new_group)
        self.group_len = np.diff(np.append(self.group_start, len(target)))
        self.group_node = target[self.group_start]
        self.group_bounds = np.searchsorted(self.group_start, self.bounds, side="left")

    def steps(self, beat: Heartbeat):
        for k in range(len(self.bounds) - 1):
            a0, a1 = self.bounds[k], self.bounds[k + 1]
            if a0 == a1:
                continue
            beat.work(STEP_WORK + (a1 - a0) // 8)
            g0, g1 = self.group_bounds[k], self.group_bounds[k + 1]
            yield a0, a1, self.group_start[g0:g1] - a0, self.group_len[g0:g1], self.group_node[g0:g1]


class ActiveArcs:
    """A selection of arcs with its pass structures, reused across EM sub-iterations."""

    def __init__(self, arcs: CorpusArcs, index: np.ndarray):
        self.arcs = arcs
        work = len(index) // 8
        self.piece = arcs.piece[index]
        self.owner = arcs.owner[index]
        self.src, self.dst = arcs.src[index], arcs.dst[index]
        n_levels = int(arcs.lengths.max(initial=0)) + 1
        arcs.beat.work(work)
        self.forward_levels = _Levels(arcs.end_pos[index], self.dst, n_levels)
        arcs.beat.work(work)
        # backward: by start position, descending, then source node
        back = np.lexsort((self.src, -arcs.start_pos[index]))
        self.back_order = back
        arcs.beat.work(2 * work)
        self.backward_levels = _Levels(n_levels - 1 - arcs.start_pos[index][back], self.src[back], n_levels)
        arcs.beat.work(work)

    def forward(self, score: np.ndarray) -> np.ndarray:
        """log alpha of every node, for arc scores ``score`` (in this selection's order)."""
        alpha = np.full(self.arcs.n_nodes, NEG_INF)
        alpha[self.arcs.first_nodes] = 0.0
        _logsumexp_pass(alpha, self.src, self.dst, score, self.forward_levels, self.arcs.beat)
        return alpha

    def backward(self, score: np.ndarray) -> np.ndarray:
        """log beta of every node."""
        beta = np.full(self.arcs.n_nodes, NEG_INF)
        beta[self.arcs.final_nodes] = 0.0
        order = self.back_order
        _logsumexp_pass(beta, self.dst[order], self.src[order], score[order], self.backward_levels, self.arcs.beat)
        return beta

    def marginals(self, score: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(weighted posterior of every arc, log Z of every string): the E-step."""
        alpha = self.forward(score)
        beta = self.backward(score)
        log_z = alpha[self.arcs.final_nodes]
        post = np.exp(alpha[self.src] + score + beta[self.dst] - log_z[self.owner]) * weight[self.owner]
        return post, log_z

    def viterbi(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(best log-probability of every node, best incoming arc of every node or -1)."""
        best = np.full(self.arcs.n_nodes, NEG_INF)
        best[self.arcs.first_nodes] = 0.0
        back = np.full(self.arcs.n_nodes, -1, dtype=np.int64)
        src, levels = self.src, self.forward_levels
        for a0, a1, starts, lens, nodes in levels.steps(self.arcs.beat):
            values = best[src[a0:a1]] + score[a0:a1]
            top = np.maximum.reduceat(values, starts)
            candidate = np.where(values == np.repeat(top, lens), np.arange(a0, a1), a1)
            back[nodes] = np.minimum.reduceat(candidate, starts)
            best[nodes] = top
        return best, back

    def viterbi_paths(self, back: np.ndarray, strings: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The Viterbi path of every string (or of ``strings``) as parallel arrays
        (string index, arc index in this selection), last arc first."""
        arcs = self.arcs
        owners = np.arange(len(arcs.lengths)) if strings is None else strings
        node = arcs.final_nodes[owners]
        out_owner, out_arc = [], []
        while len(node):
            arcs.beat.work(STEP_WORK + len(node) // 8)
            arc = back[node]
            alive = arc >= 0
            owners, arc = owners[alive], arc[alive]
            out_owner.append(owners)
            out_arc.append(arc)
            node = self.src[arc]
            more = node != arcs.first_nodes[owners]
            owners, node = owners[more], node[more]
        if not out_arc:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(out_owner), np.concatenate(out_arc)


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


def _match(window, position, length, codes, piece_hash, piece_start, piece_codes, piece_id):
    """(start node, length, piece id) of every window equal to one of the given pieces."""
    order = np.argsort(piece_hash, kind="stable")
    piece_hash, piece_start, piece_id = piece_hash[order], piece_start[order], piece_id[order]
    lo = np.searchsorted(piece_hash, window, side="left")
    hi = np.searchsorted(piece_hash, window, side="right")
    out_src, out_piece = [], []
    for k in range(int((hi - lo).max(initial=0))):
        hit = np.flatnonzero(hi - lo > k)
        candidate = lo[hit] + k
        equal = np.ones(len(hit), dtype=bool)
        for t in range(length):
            equal &= codes[position[hit] + t] == piece_codes[piece_start[candidate] + t]
        out_src.append(position[hit[equal]])
        out_piece.append(piece_id[candidate[equal]])
    src = np.concatenate(out_src) if out_src else np.zeros(0, dtype=np.int64)
    piece = np.concatenate(out_piece) if out_piece else np.zeros(0, dtype=np.int64)
    return src, np.full(len(src), length, dtype=np.int64), piece


def _logsumexp_pass(
    values: np.ndarray, src: np.ndarray, dst: np.ndarray, score: np.ndarray, levels: _Levels, beat: Heartbeat
) -> None:
    for a0, a1, starts, lens, nodes in levels.steps(beat):
        v = values[src[a0:a1]] + score[a0:a1]
        top = np.maximum.reduceat(v, starts)
        shift = np.where(np.isfinite(top), top, 0.0)
        total = np.add.reduceat(np.exp(v - np.repeat(shift, lens)), starts)
        with np.errstate(divide="ignore"):
            values[nodes] = shift + np.log(total)
