"""The segmentation lattice of one pretoken under a Unigram model.

[unigram §2]: a segmentation x = (x_1..x_k) has probability P(x) = prod p(x_i) (Eq. 1); the
lattice holds every vocabulary piece that matches the pretoken at some position, so that

- the forward-backward algorithm (Baum 1972; §3.2 E-step) gives log Z = log sum_x P(x), the
  posterior probability (marginal) of every arc and of a token boundary at every position;
- the Viterbi algorithm gives the most probable segmentation (§2, used for tokenisation);
- the n best segmentations (SentencePiece ``Lattice::NBest``; §3.3's pruning wants the second
  best of a piece's own string, which the trainer finds as the best path without the piece);
- forward-filtering backward-sampling draws a segmentation with probability proportional to
  P(x)^alpha (Kudo 2018 subword regularisation, SentencePiece ``SampleEncode``).

Tie rule (SentencePiece ``Lattice::Viterbi`` and script_tok, reference-implementations.md §6.1):
among equally good arcs ending at a position the one starting first (the longest) wins, so on a
tie the path with the longest last token is chosen.

With ``float32`` the Viterbi search is SentencePiece 0.2.3's ``Model::EncodeOptimized``
(``unigram_model.cc``): positions are visited left to right and every arc starting at a position
offers ``score(arc) + best[start]`` to its end, both float32, the sum rounded to float32 and
compared in float32; an offer replaces the stored one only if strictly greater, so the first
offer (the earliest start) keeps an exact tie. The search may start from a carried score
(``viterbi(start)``: the best score of the text before this pretoken), and when the score at a
start position leaves [-1e5, 1e5] SentencePiece subtracts it from every score stored from there
to the furthest end reached so far (``kScoreResetThreshold``); both are reproduced, since the
rounding, and so the choice between exactly tied paths, depends on the running score.

A character that is not a piece of the vocabulary gets an *unknown* arc of length one scored
``unk_score`` (SentencePiece: the lowest piece score minus 10), so every pretoken has a path.

A lattice holds up to one arc per piece length at every position: a pretoken whose lattice could
exceed :data:`MAX_LATTICE_ARCS` arcs is refused before it is built (:func:`check_lattice_size`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np

from core.errors import InputError, excerpt

NEG_INF = float("-inf")
#: SentencePiece ``kScoreResetThreshold`` (float32 Viterbi scores are re-based beyond it).
SCORE_RESET = 100000.0
#: arcs (substrings looked up) of one pretoken's lattice: building, searching and tracing cost
#: about 10 µs and 1 KB per arc (a vocabulary of runs "a" .. "a" * 1,024 gives a 100,000-character
#: word 10^8 arcs); real vocabularies (pieces of at most 16 characters) reach the limit only with
#: pretokens of 30,000 characters or more
MAX_LATTICE_ARCS = 500_000


def check_lattice_size(text: str, max_length: int, longest: Mapping[str, int] | None = None) -> None:
    """InputError, before any work, when ``text``'s lattice could have more than
    :data:`MAX_LATTICE_ARCS` arcs: at each position, one per length up to that of the longest
    piece starting with its character (``longest``, else ``max_length``), within the text."""
    n = len(text)
    if n * max_length <= MAX_LATTICE_ARCS:
        return
    if longest is None:
        size = sum(min(max_length, n - i) for i in range(n))
    else:  # a character no piece starts with has one (unknown) arc
        size = sum(min(longest.get(ch, 1), n - i) for i, ch in enumerate(text))
    if size > MAX_LATTICE_ARCS:
        raise InputError(
            f"pretoken {excerpt(text, 40)} of {n:,} characters may have {size:,} lattice arcs, more than "
            f"{MAX_LATTICE_ARCS:,}, the limit of a unigram lattice (MAX_LATTICE_ARCS)"
        )


class Arc(NamedTuple):
    """A piece ``text[start:end]`` with its log-probability; ``known`` is False for an unknown
    character scored with the unknown penalty."""

    start: int
    end: int
    token: str
    log_prob: float
    known: bool = True


def logsumexp(values: list[float]) -> float:
    top = max(values, default=NEG_INF)
    if top == NEG_INF:
        return NEG_INF
    return top + math.log(sum(math.exp(v - top) for v in values))


class Lattice:
    """All arcs over ``text``; ``ending[j]`` lists the arcs ending at position j, by start.
    With ``float32`` the Viterbi path scores are added in single precision, left to right, as
    SentencePiece's ``Lattice::Viterbi`` does (its rounding then decides between paths that tie
    exactly)."""

    def __init__(self, text: str, arcs: list[Arc], float32: bool = False):
        self.text = text
        self.float32 = float32
        self.arcs = sorted(arcs, key=lambda a: (a.end, a.start))
        self.ending: list[list[Arc]] = [[] for _ in range(len(text) + 1)]
        for arc in self.arcs:
            self.ending[arc.end].append(arc)

    @classmethod
    def build(
        cls,
        text: str,
        log_prob: Callable[[str], float | None],
        max_length: int,
        unk_score: float,
        prefixes: set[str] | frozenset[str] | None = None,
        float32: bool = False,
        longest: Mapping[str, int] | None = None,
    ) -> Lattice:
        """Arcs for every ``text[i:j]`` (length <= ``max_length``) that ``log_prob`` scores (None
        = not a piece). ``prefixes`` (every prefix of every piece), when given, stops the scan
        at the first substring that no piece starts with; ``longest`` (character -> length of
        the longest piece starting with it) sharpens :func:`check_lattice_size`."""
        check_lattice_size(text, max_length, longest)
        arcs = []
        n = len(text)
        for i in range(n):
            has_single = False
            for j in range(i + 1, min(n, i + max_length) + 1):
                piece = text[i:j]
                if prefixes is not None and piece not in prefixes:
                    break
                lp = log_prob(piece)
                if lp is not None:
                    arcs.append(Arc(i, j, piece, lp))
                    has_single = has_single or j == i + 1
            if not has_single:
                arcs.append(Arc(i, i + 1, text[i], unk_score, False))
        return cls(text, arcs, float32)

    # --- forward-backward -----------------------------------------------------------------------
    def forward(self, scale: float = 1.0) -> list[float]:
        """alpha[j] = log of the summed (scaled) probability of all paths from 0 to j."""
        alpha = [NEG_INF] * (len(self.text) + 1)
        alpha[0] = 0.0
        for j in range(1, len(self.text) + 1):
            alpha[j] = logsumexp([alpha[a.start] + scale * a.log_prob for a in self.ending[j]])
        return alpha

    def backward(self) -> list[float]:
        """beta[i] = log of the summed probability of all paths from i to the end."""
        n = len(self.text)
        beta = [NEG_INF] * (n + 1)
        beta[n] = 0.0
        starting: list[list[Arc]] = [[] for _ in range(n + 1)]
        for arc in self.arcs:
            starting[arc.start].append(arc)
        for i in range(n - 1, -1, -1):
            beta[i] = logsumexp([a.log_prob + beta[a.end] for a in starting[i]])
        return beta

    def log_partition(self) -> float:
        """log Z, the log of the marginal probability of the pretoken (Eq. 2's inner sum)."""
        return self.forward()[-1]

    def arc_marginals(self) -> list[float]:
        """P(arc on the path), in ``self.arcs`` order (the E-step's expected counts for one
        occurrence of the pretoken)."""
        alpha, beta = self.forward(), self.backward()
        z = alpha[-1]
        return [math.exp(alpha[a.start] + a.log_prob + beta[a.end] - z) for a in self.arcs]

    def boundary_marginals(self) -> list[float]:
        """P(a token boundary at position j), j = 0..len(text) (1 at both ends)."""
        alpha, beta = self.forward(), self.backward()
        z = alpha[-1]
        return [math.exp(a + b - z) for a, b in zip(alpha, beta, strict=True)]

    # --- best paths -----------------------------------------------------------------------------
    def viterbi(self, start: float = 0.0) -> tuple[list[Arc], float]:
        """The most probable path and its log-probability (ties: longest last token), the path
        scores starting from ``start``. With ``float32``: SentencePiece's search, rounding and
        score re-basing (see the module docstring); the score returned is then the float32 score
        SentencePiece holds at the end of the pretoken (re-based if a reset happened)."""
        if self.float32:
            return self._viterbi_float32(start)
        n = len(self.text)
        best = [NEG_INF] * (n + 1)
        back: list[Arc | None] = [None] * (n + 1)
        best[0] = float(start)
        for j in range(1, n + 1):
            for arc in self.ending[j]:
                score = best[arc.start] + arc.log_prob
                if back[j] is None or score > best[j]:
                    best[j], back[j] = score, arc
        return self._path(back), best[n]

    def _starting(self) -> list[list[tuple[Arc, np.float32]]]:
        """Arcs by start position (by end within one), each with its float32 score."""
        starting: list[list[tuple[Arc, np.float32]]] = [[] for _ in range(len(self.text) + 1)]
        for arc in sorted(self.arcs, key=lambda a: (a.start, a.end)):
            starting[arc.start].append((arc, np.float32(arc.log_prob)))
        return starting

    def _viterbi_float32(self, start: float) -> tuple[list[Arc], float]:
        n = len(self.text)
        f32 = np.float32
        best: list = [None] * (n + 1)
        back: list[Arc | None] = [None] * (n + 1)
        best[0] = f32(start)
        frontier = 0
        for i, arcs in enumerate(self._starting()[:n]):
            here = best[i]
            if here < -SCORE_RESET or here > SCORE_RESET:
                for k in range(i + 1, frontier + 1):
                    if back[k] is not None:
                        best[k] = best[k] - here
                best[i] = here = f32(0.0)
            for arc, score in arcs:
                end = arc.end
                frontier = max(frontier, end)
                offer = here + score
                if back[end] is None or offer > best[end]:
                    best[end], back[end] = offer, arc
        return self._path(back), float(best[n])

    def tie_margin(self) -> tuple[float, float]:
        """How close the Viterbi search of this pretoken comes to a tie, for deciding whether a
        carried float32 start score could change its path: (the smallest difference, in exact
        arithmetic (float64) and starting from 0, between the best and second-best offer at any
        position; the largest absolute best score at any position). Offers use the float32
        rounded arc scores."""
        n = len(self.text)
        best = [0.0] * (n + 1)
        gap, span = math.inf, 0.0
        for j in range(1, n + 1):
            top = second = NEG_INF
            for arc in self.ending[j]:
                offer = best[arc.start] + float(np.float32(arc.log_prob))
                if offer > top:
                    top, second = offer, top
                elif offer > second:
                    second = offer
            best[j] = top
            gap = min(gap, top - second)
            span = max(span, abs(top))
        return gap, span

    def _path(self, back: list[Arc | None]) -> list[Arc]:
        path, j = [], len(self.text)
        while j > 0:
            arc = back[j]
            assert arc is not None, "unknown arcs give every position a path"
            path.append(arc)
            j = arc.start
        return path[::-1]

    def nbest(self, k: int) -> list[tuple[list[Arc], float]]:
        """The ``k`` most probable paths, best first (exact k-best dynamic programme: every
        position keeps its k best partial paths; ties keep arc order, then rank order)."""
        n = len(self.text)
        tops: list[list[tuple[float, Arc | None, int]]] = [[] for _ in range(n + 1)]
        tops[0] = [(0.0, None, 0)]
        for j in range(1, n + 1):
            candidates: list[tuple[float, Arc | None, int]] = [
                (score + arc.log_prob, arc, rank)
                for arc in self.ending[j]
                for rank, (score, _, _) in enumerate(tops[arc.start])
            ]
            candidates.sort(key=lambda c: -c[0])
            tops[j] = candidates[:k]
        paths = []
        for score, arc, rank in tops[n]:
            path = []
            while arc is not None:
                path.append(arc)
                _, arc, rank = tops[arc.start][rank]
            paths.append((path[::-1], score))
        return paths

    def sample(self, alpha: float, rng: random.Random) -> list[Arc]:
        """A path drawn with probability proportional to P(path)^alpha (forward filtering,
        backward sampling); alpha -> infinity gives the Viterbi path."""
        forward = self.forward(alpha)
        path, j = [], len(self.text)
        while j > 0:
            arcs = self.ending[j]
            weights = [math.exp(forward[a.start] + alpha * a.log_prob - forward[j]) for a in arcs]
            draw = rng.random() * sum(weights)
            chosen = arcs[-1]
            for arc, weight in zip(arcs, weights, strict=True):
                draw -= weight
                if draw < 0:
                    chosen = arc
                    break
            path.append(chosen)
            j = chosen.start
        return path[::-1]

    def to_json(self, start: float = 0.0) -> dict:
        """Arcs with log-probabilities, the Viterbi path (arc indices; from the carried score
        ``start``, see :meth:`viterbi`) and boundary marginals."""
        path, score = self.viterbi(start)
        index = {arc: i for i, arc in enumerate(self.arcs)}
        return {
            "text": self.text,
            "arcs": [
                {"start": a.start, "end": a.end, "token": a.token, "log_prob": a.log_prob, "known": a.known}
                for a in self.arcs
            ],
            "viterbi": [index[a] for a in path],
            "viterbi_log_prob": score,
            "log_partition": self.log_partition(),
            "arc_marginals": self.arc_marginals(),
            "boundary_marginals": self.boundary_marginals(),
        }
