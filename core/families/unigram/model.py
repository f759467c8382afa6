"""A trained Unigram tokeniser: pieces with log-probabilities, segmented by Viterbi.

[unigram §2]: a pretoken is segmented into the most probable sequence of pieces (Eq. 1, the
Viterbi path of its lattice, :mod:`core.families.unigram.lattice`); subword regularisation samples a
segmentation with probability proportional to P(x)^alpha (Kudo 2018, SentencePiece
``SampleEncode``). Pretokens are segmented independently, which equals SentencePiece's
whole-sentence lattice because no piece crosses a pretoken boundary (reference-implementations.md
§6.1, "it factorises per word"); only with ``float32`` (below) does a score pass from one
pretoken to the next.

A character that is not a piece is an unknown arc scored ``min log p - 10`` (SentencePiece's
unknown penalty). By default a run of unknown characters on the path becomes one token, as
SentencePiece's encoder merges them; such tokens are not part of the vocabulary. A tokeniser may
instead carry a :class:`core.bpe.unknowns.UnknownPolicy` (SentencePiece ``.model`` files:
``unk_token=<unk>, fuse_unk, show_surface`` and the file's ``byte_fallback``), applied to the
path's tokens: byte fallback writes each unknown character as its UTF-8 bytes ``<0xNN>``,
otherwise a run shows its own text and has the unk token's id (:meth:`token_id`).

``float32=True`` (set for SentencePiece ``.model`` files) reproduces SentencePiece 0.2.3's
``EncodeOptimized`` exactly (:mod:`core.families.unigram.lattice`): one left-to-right Viterbi search over
the whole normalised text, scores added and compared in float32, ties kept by the earliest start
(the longest last token), scores re-based beyond +-1e5. Paths whose pieces are the same multiset
tie in real arithmetic and the float32 rounding decides between them; that rounding depends on
the running score carried from the earlier words (``▁55555`` after other digits comes out
``▁ 55 55 5`` in one text and ``▁ 5 55 55`` on its own). Pretokens are cut only where no piece
spans, so the whole-text search is the per-pretoken searches in order, each starting from the
float32 score with which the previous one ended. To keep the per-pretoken cache, each pretoken is
searched once from 0 and remembers how close its search came to a tie (:meth:`Lattice.tie_margin`:
the smallest gap between the two best offers at any position, in exact arithmetic) and its score
range; when the gap exceeds the float32 rounding error possible from the carried start (4 (n + 2)
2^-24 (|start| + range + 1) for n characters) and no re-basing can happen inside it, the cached
path is the carried path and only its float32 score is re-added; otherwise the pretoken is
searched again from the carried score.
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Collection, Mapping
from itertools import pairwise
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from core.bpe.unknowns import UnknownPolicy, byte_token
from core.errors import InputError
from core.families.base import CACHE_LIMIT, FORMAT_PREFIX, FORMAT_VERSION, PretokenSegmenter, read_envelope, read_flag
from core.families.unigram.lattice import SCORE_RESET, Arc, Lattice
from core.options import check_bool, check_text
from core.pipeline.base import Pretokeniser
from core.trace import Trace, TraceEvent, traceable

#: SentencePiece ``kUnkPenalty``.
UNK_PENALTY = 10.0
#: characters of the distinct prefixes of the pieces, which a tokeniser keeps to stop each lattice
#: scan early: 3,000 pieces of 1,024 characters (a 3 MB file) have 1.6 billion (1.8 GB); real
#: vocabularies have at most a few million
MAX_PREFIX_CHARS = 100_000_000
#: float32's unit roundoff.
_ROUNDOFF = 2.0**-24


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


def _shared_length(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (binary search)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def check_prefix_chars(pieces: Collection[str], source: str | None = None) -> None:
    """InputError, before the prefixes are built, when ``pieces`` have more than
    :data:`MAX_PREFIX_CHARS` characters of distinct prefixes (in sorted order, a piece adds the
    prefixes longer than the one it shares with the piece before it)."""
    if sum(len(p) * (len(p) + 1) // 2 for p in pieces) <= MAX_PREFIX_CHARS:
        return
    size = 0
    for previous, piece in pairwise(["", *sorted(pieces)]):
        shared = _shared_length(previous, piece)
        size += (len(piece) * (len(piece) + 1) - shared * (shared + 1)) // 2
    if size > MAX_PREFIX_CHARS:
        raise InputError(
            f"the pieces have {size:,} characters of distinct prefixes, more than {MAX_PREFIX_CHARS:,}, the "
            "limit (MAX_PREFIX_CHARS; real vocabularies have at most a few million)",
            source,
        )


class _Segmented(NamedTuple):
    """A pretoken searched from 0 (float32): its tokens and end score, the float32 scores of its
    path's arcs, and :meth:`Lattice.tie_margin`'s gap and score range."""

    tokens: tuple[str, ...]
    end_score: np.float32
    arc_scores: tuple[np.float32, ...]
    gap: float
    span: float


class UnigramTokeniser(PretokenSegmenter):
    """Pieces with log p, segmented by Viterbi. ``unknown``: what unknown characters become (None:
    a run is one token of its text); ``type_ids``: the ids of a loaded vocabulary (every piece of
    a ``.model`` file, control and byte pieces too); ``metadata``: free-form description (what
    the loader detected). ``pieces``, ``type_ids`` and ``metadata`` are read-only: a loaded
    tokeniser is shared by every browser session."""

    kind = "unigram"

    def __init__(
        self,
        pieces: dict[str, float],
        pretokeniser: Pretokeniser,
        name: str = "",
        *,
        float32: bool = False,
        unknown: UnknownPolicy | None = None,
        type_ids: Mapping[str, int] | None = None,
        metadata: dict | None = None,
    ):
        if not pieces:
            raise InputError("a unigram tokeniser needs at least one piece")
        for piece, log_prob in pieces.items():
            if not isinstance(piece, str) or not piece:
                raise InputError(f"pieces must be non-empty strings, got {piece!r}")
            if not _finite_number(log_prob):
                raise InputError(f"piece {piece!r}: log-probability must be a finite number, got {log_prob!r}")
        self._pieces: dict[str, float] = {p: float(s) for p, s in pieces.items()}
        self.pieces: Mapping[str, float] = MappingProxyType(self._pieces)
        self.pretokeniser = pretokeniser
        self.name = name
        self.float32 = check_bool("float32", float32)
        if unknown is not None and not isinstance(unknown, UnknownPolicy):
            raise InputError(f"unknown must be an UnknownPolicy or None, got {unknown!r}")
        self.unknown = unknown
        self.type_ids: Mapping[str, int] | None = MappingProxyType(dict(type_ids)) if type_ids is not None else None
        self.metadata: Mapping = MappingProxyType(dict(metadata or {}))
        self.max_piece_length = max(len(p) for p in self.pieces)
        check_prefix_chars(self.pieces)
        self.unk_score = min(self.pieces.values()) - UNK_PENALTY
        self._prefixes = frozenset(p[:k] for p in self.pieces for k in range(1, len(p) + 1))
        self._longest: dict[str, int] = {}
        for piece in self.pieces:
            self._longest[piece[0]] = max(self._longest.get(piece[0], 0), len(piece))
        bytes_ = {byte_token(b) for b in range(256)}
        #: what the unknown policy treats as known: the pieces, and the byte pieces it may write
        self._known = frozenset(self.pieces) | (
            bytes_ & set(self.type_ids or bytes_) if unknown is not None and unknown.byte_fallback else set()
        )
        self._float32_cache: dict[str, _Segmented] = {}

    @property
    def vocabulary(self) -> frozenset[str]:
        """The pieces, and the byte pieces byte fallback writes."""
        return self._known

    @property
    def vocab_size(self) -> int:
        """Every piece of a loaded vocabulary (control and unknown pieces too), else |V|."""
        return len(self.type_ids) if self.type_ids is not None else len(self._known)

    def token_ids(self) -> dict[str, int]:
        """The loaded ids (SentencePiece piece ids), else ids in sorted vocabulary order."""
        if self.type_ids is not None:
            return dict(sorted(self.type_ids.items(), key=lambda kv: kv[1]))
        return super().token_ids()

    def token_id(self, token: str) -> int | None:
        """The id of an output token: its own, else the unk token's (a run of unknown characters)."""
        ids = self.type_ids if self.type_ids is not None else self.token_ids()
        found = ids.get(token)
        unk = self.unknown.unk_token if self.unknown is not None else None
        return found if found is not None or unk is None else ids.get(unk)

    def lattice(self, pretoken: str) -> Lattice:
        """Every piece matching ``pretoken`` (plus unknown characters) with its log p."""
        if not isinstance(pretoken, str) or not pretoken:
            raise InputError(f"expected a non-empty pretoken, got {pretoken!r}")
        return Lattice.build(
            pretoken,
            self._pieces.get,
            self.max_piece_length,
            self.unk_score,
            self._prefixes,
            self.float32,
            self._longest,
        )

    def tokens_of_path(self, path: list[Arc]) -> tuple[str, ...]:
        """The tokens of a lattice path: by the unknown policy when there is one, else with a run
        of unknown characters joined into one token."""
        if self.unknown is None:
            return tuple(path_tokens(path))
        return self.unknown.replace(tuple(arc.token for arc in path), self._known)

    def _segment_uncached(self, pretoken: str) -> tuple[str, ...]:
        """The Viterbi segmentation of one pretoken (searched from 0)."""
        if self.float32:
            return self._searched(pretoken).tokens
        path, _ = self.lattice(pretoken).viterbi()
        return self.tokens_of_path(path)

    # --- float32: the running score across pretokens (see the module docstring) ------------------
    def _searched(self, pretoken: str) -> _Segmented:
        cache = self._float32_cache
        found = cache.get(pretoken)
        if found is None:
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            lattice = self.lattice(pretoken)
            path, score = lattice.viterbi()
            gap, span = lattice.tie_margin()
            found = cache[pretoken] = _Segmented(
                self.tokens_of_path(path), np.float32(score), tuple(np.float32(a.log_prob) for a in path), gap, span
            )
        return found

    def _carried(self, pretoken: str, start: np.float32) -> tuple[tuple[str, ...], np.float32]:
        """``pretoken``'s tokens and end score when the search reaches it with score ``start``."""
        if start < -SCORE_RESET or start > SCORE_RESET:
            start = np.float32(0.0)  # SentencePiece re-bases at the pretoken's first position
        searched = self._searched(pretoken)
        if start == 0:
            return searched.tokens, searched.end_score
        size = abs(float(start)) + searched.span + 1.0
        if size * (1 + 1e-6) < SCORE_RESET and searched.gap > 4 * (len(pretoken) + 2) * _ROUNDOFF * size:
            score = start
            for arc_score in searched.arc_scores:
                score = score + arc_score
            return searched.tokens, score
        path, end_score = self.lattice(pretoken).viterbi(float(start))
        return self.tokens_of_path(path), np.float32(end_score)

    def tokenise(self, text: str) -> list[str]:
        if not self.float32:
            return super().tokenise(text)
        tokens: list[str] = []
        score = np.float32(0.0)
        for pretoken in self.pretokeniser.pretokenise(check_text(text)):
            if pretoken:
                segment, score = self._carried(pretoken, score)
                tokens.extend(segment)
        return tokens

    def sample(self, text: str, alpha: float, rng: random.Random | None = None) -> list[str]:
        """Subword regularisation: each pretoken's segmentation drawn with probability
        proportional to P(x)^alpha (alpha = 0: uniform over segmentations; large alpha: Viterbi)."""
        if not _finite_number(alpha) or alpha < 0:
            raise InputError(f"alpha must be a finite number >= 0, got {alpha!r}")
        rng = rng if rng is not None else random.Random()
        return [
            t
            for p in self.pretokeniser.pretokenise(text)
            if p
            for t in self.tokens_of_path(self.lattice(p).sample(float(alpha), rng))
        ]

    def trace_text(self, text: str) -> Trace:
        """Initial state: the characters of every pretoken; then one "viterbi" event per pretoken
        (that pretoken replaced by its segmentation). ``extra["lattices"]``: each pretoken's
        lattice (:meth:`Lattice.to_json`: arcs, Viterbi path, marginals); with ``float32`` each
        search starts from the score the previous one ended with, as in :meth:`tokenise`."""
        pretokens = traceable(p for p in self.pretokeniser.pretokenise(text) if p)
        segments = [list(p) for p in pretokens]
        initial = tuple(ch for p in pretokens for ch in p)
        events, lattices = [], []
        carried = 0.0
        for n, pretoken in enumerate(pretokens):
            lattice = self.lattice(pretoken)
            start = carried if self.float32 and abs(carried) <= SCORE_RESET else 0.0
            path, score = lattice.viterbi(start)
            carried = score
            segments[n] = list(self.tokens_of_path(path))
            lattices.append(lattice.to_json(start))
            label = f"{pretoken} -> {' '.join(segments[n])} (log p {score - start:.4f})"
            events.append(TraceEvent("viterbi", label, tuple(t for seg in segments for t in seg)))
        return Trace(text, pretokens, initial, tuple(events), {"lattices": lattices})

    def to_json(self) -> dict:
        out = {
            "format": FORMAT_PREFIX + self.kind,
            "version": FORMAT_VERSION,
            "name": self.name,
            "pretokeniser": self.pretokeniser.to_spec(),
            "float32": self.float32,
            "pieces": [[p, s] for p, s in sorted(self.pieces.items(), key=lambda x: (-x[1], x[0]))],
        }
        if self.unknown is not None:
            out["unknown"] = self.unknown.to_json()
        if self.type_ids is not None:
            out["type_ids"] = dict(self.type_ids)
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        return out

    @classmethod
    def from_json(cls, obj: dict, source: str = "<json>") -> UnigramTokeniser:
        name, pretokeniser = read_envelope(obj, cls.kind, source)
        float32 = read_flag(obj, "float32", False, source)
        rows = obj.get("pieces")
        if not isinstance(rows, list) or not rows:
            raise InputError('field "pieces" must be a non-empty list of [piece, log_prob] pairs', source)
        pieces: dict[str, float] = {}
        for n, row in enumerate(rows):
            if not (
                isinstance(row, list)
                and len(row) == 2
                and isinstance(row[0], str)
                and row[0]
                and _finite_number(row[1])
            ):
                raise InputError(f'field "pieces"[{n}] must be [non-empty string, finite number], got {row!r}', source)
            if row[0] in pieces:
                raise InputError(f'field "pieces"[{n}]: piece {row[0]!r} appears twice', source)
            pieces[row[0]] = float(row[1])
        check_prefix_chars(pieces, source)
        unknown = obj.get("unknown")
        if unknown is not None:
            unknown = UnknownPolicy.from_json(unknown, source)
        type_ids = obj.get("type_ids")
        if type_ids is not None and not (
            isinstance(type_ids, dict)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in type_ids.values())
        ):
            raise InputError('field "type_ids" must be null or map tokens to integer ids', source)
        metadata = obj.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise InputError('field "metadata" must be an object', source)
        return cls(pieces, pretokeniser, name, float32=float32, unknown=unknown, type_ids=type_ids, metadata=metadata)

    def __repr__(self) -> str:
        return f"UnigramTokeniser({self.name!r}, {self.vocab_size} pieces, {self.pretokeniser!r})"
