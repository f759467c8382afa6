"""SentencePiece ``.model`` files: the ``ModelProto`` fields both model types need (the entry point
that hands each model type to its reader is :mod:`core.formats.sentencepiece.load`).

No paper section (file format, ``sentencepiece_model.proto``). Read:

- ``pieces`` (1): ``piece`` (1), ``score`` (2, float), ``type`` (3: NORMAL 1, UNKNOWN 2,
  CONTROL 3, USER_DEFINED 4, UNUSED 5, BYTE 6); ids are positions in this list;
- ``trainer_spec`` (2): ``model_type`` (3), ``treat_whitespace_as_suffix`` (24, refused),
  ``byte_fallback`` (35), ``split_by_whitespace`` (22, informational);
- ``normalizer_spec`` (3): ``name`` (1), ``precompiled_charsmap`` (2), ``add_dummy_prefix`` (3),
  ``remove_extra_whitespaces`` (4), ``escape_whitespaces`` (5) — the pre-tokeniser
  (:class:`core.pipeline.sentencepiece.normaliser.SentencePieceNormaliser`).

Pretokens: SentencePiece encodes the whole normalised text at once. Cutting it before a ``▁``
changes nothing when no piece spans that position (for BPE merges and unigram lattices alike) and
``▁`` itself is a piece (so a run of unknown characters never spans a cut either): before every
``▁`` when no piece holds ``▁`` after its start; before each run of ``▁`` when pieces hold ``▁``
only after another ``▁`` (Llama 2's whitespace pieces); otherwise the text stays one pretoken. Which one
was chosen is reported in ``metadata["detected"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from core.errors import InputError, excerpt
from core.formats.sentencepiece import protobuf
from core.limits import MAX_TOKEN_BYTES, check_token_length
from core.pipeline.sentencepiece.normaliser import SPACE_SYMBOL, SentencePieceNormaliser

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
PIECE_TYPES = {
    NORMAL: "normal",
    UNKNOWN: "unknown",
    CONTROL: "control",
    USER_DEFINED: "user-defined",
    UNUSED: "unused",
    BYTE: "byte",
}
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


@dataclass
class ModelProto:
    """The parts of a ``ModelProto`` the loaders use."""

    pieces: list[tuple[str, float, int]]  # (piece, score, type), in id order
    trainer: dict[int, protobuf.Value]
    normaliser: dict[int, protobuf.Value]
    source: str
    detected: list[str] = field(default_factory=list)

    @property
    def model_type(self) -> str:
        code = self.trainer.get(3, 1)
        return MODEL_TYPES.get(code, f"type {code}") if isinstance(code, int) else f"type {code!r}"

    @property
    def byte_fallback(self) -> bool:
        return protobuf.flag(self.trainer, 35, False)

    @property
    def ids(self) -> dict[str, int]:
        return {piece: i for i, (piece, _, _) in enumerate(self.pieces)}

    def of_type(self, *kinds: int) -> list[str]:
        return [piece for piece, _, kind in self.pieces if kind in kinds]

    @property
    def unk_piece(self) -> str:
        unknown = self.of_type(UNKNOWN)
        if len(unknown) != 1:
            raise InputError(f"the model must have exactly one unknown piece, found {len(unknown)}", self.source)
        return unknown[0]

    def rule(self) -> str:
        return protobuf.text(self.normaliser.get(1, b""), "normalizer_spec.name", self.source) or "identity"

    def pretokeniser(self, pieces_in_model: list[str]) -> SentencePieceNormaliser:
        """The normaliser of the file, splitting before ``▁`` when that is exact for these pieces
        (the ones the model can produce or match, see the module docstring)."""
        escape = protobuf.flag(self.normaliser, 5, True)
        marker = SPACE_SYMBOL if escape else " "
        inner = [p for p in pieces_in_model if marker in p[1:]]
        after_other = [p for p in inner if any(a != marker and b == marker for a, b in pairwise(p))]
        if marker not in pieces_in_model and not self.byte_fallback:
            split = "none"
            self.detected.append(
                f"one pretoken per text: {marker!r} is not a piece, so runs of unknown characters could span a cut"
            )
        elif after_other:
            split = "none"
            self.detected.append(
                f"one pretoken per text: {len(after_other)} pieces hold {marker!r} after another "
                f"character (e.g. {after_other[0]!r})"
            )
        elif inner:
            split = "runs"
            self.detected.append(
                f"pretokens split before each run of {marker!r}: {len(inner)} pieces are runs "
                f"of it (e.g. {inner[0]!r}), none holds it after another character"
            )
        else:
            split = "each"
            self.detected.append(f"pretokens split before every {marker!r}: no piece holds it after its start")
        charsmap = self.normaliser.get(2, b"") or None
        if charsmap is not None and not isinstance(charsmap, bytes):
            raise InputError("normalizer_spec.precompiled_charsmap must be bytes", self.source)
        try:
            return SentencePieceNormaliser(
                charsmap,
                self.rule(),
                add_dummy_prefix=protobuf.flag(self.normaliser, 3, True),
                remove_extra_whitespaces=protobuf.flag(self.normaliser, 4, True),
                escape_whitespaces=escape,
                split=split,
                user_defined=self.of_type(USER_DEFINED),
            )
        except InputError as err:
            raise InputError("normalizer_spec: " + err.message, self.source) from None


def read_model_proto(data: bytes, source: str = "<model>") -> ModelProto:
    """The pieces, trainer spec and normaliser spec of a ``.model`` file; InputError for a file
    that is not one or uses what the loaders do not support."""
    if not isinstance(data, bytes) or not data:
        raise InputError("empty or non-binary SentencePiece model", source)
    pieces: list[tuple[str, float, int]] = []
    seen: set[str] = set()
    trainer: dict[int, protobuf.Value] = {}
    normaliser: dict[int, protobuf.Value] = {}
    for number, value in protobuf.fields(data, source):
        if number == 1:
            where = f"piece {len(pieces)}"
            entry = protobuf.message(value, where, source)
            raw = entry.get(1, b"")
            if isinstance(raw, bytes) and len(raw) > MAX_TOKEN_BYTES:
                check_token_length(raw, source, where)
            piece = protobuf.text(raw, where, source)
            kind = entry.get(3, NORMAL)
            score = protobuf.float32(entry.get(2, b"\0\0\0\0"), where, source)
            if not piece or piece in seen:
                raise InputError(f"{where}: empty or repeated piece {excerpt(piece, 40)}", source)
            if not isinstance(kind, int) or kind not in PIECE_TYPES:
                raise InputError(f"{where}: unknown piece type {excerpt(kind, 20)}", source)
            seen.add(piece)
            pieces.append((piece, score, kind))
        elif number == 2:
            trainer = protobuf.message(value, "trainer_spec", source)
        elif number == 3:
            normaliser = protobuf.message(value, "normalizer_spec", source)
    if not pieces:
        raise InputError("the model has no pieces (is this a SentencePiece .model file?)", source)
    proto = ModelProto(pieces, trainer, normaliser, source)
    if protobuf.flag(trainer, 24, False):
        raise InputError("treat_whitespace_as_suffix models are not supported", source)
    return proto
