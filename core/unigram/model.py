"""A trained Unigram tokeniser: pieces with log-probabilities, segmented by Viterbi.

unigram.txt §2: a pretoken is segmented into the most probable sequence of pieces (Eq. 1, the
Viterbi path of its lattice, :mod:`core.unigram.lattice`); subword regularisation samples a
segmentation with probability proportional to P(x)^alpha (Kudo 2018, SentencePiece
``SampleEncode``). Pretokens are segmented independently, which equals SentencePiece's
whole-sentence lattice because no piece crosses a pretoken boundary (reference-implementations.md
§6.1, "it factorises per word").

A character that is not a piece is an unknown arc scored ``min log p - 10`` (SentencePiece's
unknown penalty); a run of unknown characters on the path becomes one token, as SentencePiece's
encoder merges them. Such tokens are not part of the vocabulary.

``float32=True`` (set for SentencePiece ``.model`` files) adds path scores in single precision as
SentencePiece does; paths whose pieces are the same multiset tie exactly in real arithmetic, and
SentencePiece's rounding decides between them (e.g. in runs of "="). A pretoken is then
segmented exactly as SentencePiece encodes it on its own; inside a longer text SentencePiece
carries the running float32 score across words, which could break such a tie differently (not
seen on the project's sample text).
"""
from __future__ import annotations

import math
import numbers
import random

from core.errors import InputError
from core.pretokenisers.base import Pretokeniser
from core.unigram.lattice import Arc, Lattice
from core.trace import Trace, TraceEvent
from core.variants.base import (FORMAT_PREFIX, FORMAT_VERSION, PretokenSegmenter, read_envelope,
                                read_flag)

#: SentencePiece ``kUnkPenalty``.
UNK_PENALTY = 10.0


def _finite_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def path_tokens(path: list[Arc]) -> list[str]:
    """The tokens of a lattice path, a run of unknown characters joined into one token."""
    tokens: list[str] = []
    for n, arc in enumerate(path):
        if not arc.known and n and not path[n - 1].known:
            tokens[-1] += arc.token
        else:
            tokens.append(arc.token)
    return tokens


class UnigramTokeniser(PretokenSegmenter):
    kind = "unigram"

    def __init__(self, pieces: dict[str, float], pretokeniser: Pretokeniser, name: str = "", *,
                 float32: bool = False):
        if not pieces:
            raise InputError("a unigram tokeniser needs at least one piece")
        for piece, log_prob in pieces.items():
            if not isinstance(piece, str) or not piece:
                raise InputError(f"pieces must be non-empty strings, got {piece!r}")
            if not _finite_number(log_prob):
                raise InputError(f"piece {piece!r}: log-probability must be a finite number, got {log_prob!r}")
        self.pieces: dict[str, float] = {p: float(s) for p, s in pieces.items()}
        self.pretokeniser = pretokeniser
        self.name = name
        if not isinstance(float32, bool):
            raise InputError(f"float32 must be true or false, got {float32!r}")
        self.float32 = float32
        self.max_piece_length = max(len(p) for p in self.pieces)
        self.unk_score = min(self.pieces.values()) - UNK_PENALTY
        self._prefixes = frozenset(p[:k] for p in self.pieces for k in range(1, len(p) + 1))

    @property
    def vocabulary(self) -> frozenset[str]:
        return frozenset(self.pieces)

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    def lattice(self, pretoken: str) -> Lattice:
        """Every piece matching ``pretoken`` (plus unknown characters) with its log p."""
        if not isinstance(pretoken, str) or not pretoken:
            raise InputError(f"expected a non-empty pretoken, got {pretoken!r}")
        return Lattice.build(pretoken, self.pieces.get, self.max_piece_length, self.unk_score,
                             self._prefixes, self.float32)

    def _segment_uncached(self, pretoken: str) -> tuple[str, ...]:
        """The Viterbi segmentation of one pretoken."""
        path, _ = self.lattice(pretoken).viterbi()
        return tuple(path_tokens(path))

    def sample(self, text: str, alpha: float, rng: random.Random | None = None) -> list[str]:
        """Subword regularisation: each pretoken's segmentation drawn with probability
        proportional to P(x)^alpha (alpha = 0: uniform over segmentations; large alpha: Viterbi)."""
        if not _finite_number(alpha) or alpha < 0:
            raise InputError(f"alpha must be a finite number >= 0, got {alpha!r}")
        rng = rng if rng is not None else random.Random()
        return [t for p in self.pretokeniser.pretokenise(text) if p
                for t in path_tokens(self.lattice(p).sample(float(alpha), rng))]

    def trace_text(self, text: str) -> Trace:
        """Initial state: the characters of every pretoken; then one "viterbi" event per pretoken
        (that pretoken replaced by its segmentation). ``extra["lattices"]``: each pretoken's
        lattice (:meth:`Lattice.to_json`: arcs, Viterbi path, marginals)."""
        pretokens = tuple(p for p in self.pretokeniser.pretokenise(text) if p)
        segments = [list(p) for p in pretokens]
        initial = tuple(ch for p in pretokens for ch in p)
        events, lattices = [], []
        for n, pretoken in enumerate(pretokens):
            lattice = self.lattice(pretoken)
            path, score = lattice.viterbi()
            segments[n] = path_tokens(path)
            lattices.append(lattice.to_json())
            events.append(TraceEvent("viterbi", f"{pretoken} -> {' '.join(segments[n])} (log p {score:.4f})",
                                     tuple(t for seg in segments for t in seg)))
        return Trace(text, pretokens, initial, tuple(events), {"lattices": lattices})

    def to_json(self) -> dict:
        return {"format": FORMAT_PREFIX + self.kind, "version": FORMAT_VERSION, "name": self.name,
                "pretokeniser": self.pretokeniser.to_spec(), "float32": self.float32,
                "pieces": [[p, s] for p, s in sorted(self.pieces.items(), key=lambda x: (-x[1], x[0]))]}

    @classmethod
    def from_json(cls, obj: dict, source: str = "<json>") -> UnigramTokeniser:
        name, pretokeniser = read_envelope(obj, cls.kind, source)
        float32 = read_flag(obj, "float32", False, source)
        rows = obj.get("pieces")
        if not isinstance(rows, list) or not rows:
            raise InputError("field \"pieces\" must be a non-empty list of [piece, log_prob] pairs", source)
        pieces: dict[str, float] = {}
        for n, row in enumerate(rows):
            if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str) and row[0]
                    and _finite_number(row[1])):
                raise InputError(f"field \"pieces\"[{n}] must be [non-empty string, finite number], "
                                 f"got {row!r}", source)
            if row[0] in pieces:
                raise InputError(f"field \"pieces\"[{n}]: piece {row[0]!r} appears twice", source)
            pieces[row[0]] = float(row[1])
        return cls(pieces, pretokeniser, name, float32=float32)

    def __repr__(self) -> str:
        return f"UnigramTokeniser({self.name!r}, {self.vocab_size} pieces, {self.pretokeniser!r})"
