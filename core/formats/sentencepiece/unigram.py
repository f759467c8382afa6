"""SentencePiece ``.model`` files of unigram type as :class:`UnigramTokeniser` objects.

No paper section (file format). The ``ModelProto`` is read by
:func:`core.formats.sentencepiece.model_proto.read_model_proto` (protobuf wire format:
:mod:`core.formats.sentencepiece.protobuf`); this module turns a unigram one into a tokeniser:

- NORMAL pieces with their scores (log p) form the vocabulary; USER_DEFINED pieces are pieces
  too, scored as SentencePiece 0.2.3's encoder scores them (``float32(0.1 * (length in bytes -
  1))``, ``GetUserDefinedScore``: at least 0, so they win over normal pieces, longer ones first)
  and protected from normalisation; UNKNOWN, CONTROL, UNUSED and BYTE pieces are left out of the
  lattice (SentencePiece never puts an unused piece in a lattice) but keep their ids
  (``type_ids``, every piece's id is its position in the file);
- the pre-tokeniser is SentencePiece's normaliser
  (:class:`core.pipeline.sentencepiece.normaliser.SentencePieceNormaliser`: precompiled
  charsmap, dummy prefix, extra whitespace removal, ``▁``), splitting before ``▁`` when that is
  exact (see :mod:`core.formats.sentencepiece.model_proto`).

Path scores are added in float32 as SentencePiece does, carried across the whole text
(``UnigramTokeniser(float32=True)``, see :mod:`core.families.unigram.model`). Unknown characters follow
``UnknownPolicy(unk_token=<unk>, fuse_unk=True, byte_fallback=<the file's>, show_surface=True)``
as ``encode(out_type=str)`` shows them: with ``byte_fallback`` each one as its UTF-8 bytes
``<0xNN>``, otherwise a run of them as one token of its text, whose id is the unk id. What the
loader decided is in ``metadata["detected"]``.
"""

from __future__ import annotations

import struct
from pathlib import Path

from core.bpe.unknowns import UnknownPolicy
from core.errors import InputError
from core.families.unigram.model import UnigramTokeniser, check_prefix_chars
from core.formats.sentencepiece.model_proto import NORMAL, USER_DEFINED, ModelProto, read_model_proto


def _float32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def user_defined_score(piece: str) -> float:
    """SentencePiece 0.2.3's ``GetUserDefinedScore(length)``: ``0.1 * (length - 1)`` in double,
    returned as float32, the length in UTF-8 bytes (``EncodeOptimized`` counts bytes)."""
    return _float32(0.1 * (len(piece.encode("utf-8")) - 1))


def unigram_from_model_proto(proto: ModelProto, name: str = "") -> UnigramTokeniser:
    source = proto.source
    normal = {piece: score for piece, score, kind in proto.pieces if kind == NORMAL}
    if not normal:
        raise InputError("the model has no normal pieces", source)
    pieces = dict(normal)
    for piece in proto.of_type(USER_DEFINED):
        pieces[piece] = user_defined_score(piece)
    check_prefix_chars(pieces, source)
    pretokeniser = proto.pretokeniser(list(pieces))
    unknown = UnknownPolicy(
        unk_token=proto.unk_piece, fuse_unk=True, byte_fallback=proto.byte_fallback, show_surface=True
    )
    proto.detected.append(
        "unknown characters: "
        + ("<0xNN> byte pieces" if proto.byte_fallback else f"{proto.unk_piece!r}, one per run showing its text")
    )
    return UnigramTokeniser(
        pieces,
        pretokeniser,
        name,
        float32=True,
        unknown=unknown,
        type_ids=proto.ids,
        metadata={"detected": list(proto.detected)},
    )


def parse_sentencepiece_model(data: bytes, source: str = "<model>", name: str = "") -> UnigramTokeniser:
    """A unigram ``ModelProto`` as a tokeniser; InputError for anything else (BPE models load
    with :func:`core.formats.sentencepiece.model_proto.parse_sentencepiece_bytes`)."""
    proto = read_model_proto(data, source)
    if proto.model_type != "unigram":
        raise InputError(
            f"this is a SentencePiece {proto.model_type} model; only unigram models can be loaded here", source
        )
    return unigram_from_model_proto(proto, name)


def load_sentencepiece_model(path: str | Path) -> UnigramTokeniser:
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", str(path))
    return parse_sentencepiece_model(path.read_bytes(), str(path), path.stem)
