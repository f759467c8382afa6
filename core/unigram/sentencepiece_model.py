"""SentencePiece ``.model`` files of unigram type as :class:`UnigramTokeniser` objects.

No paper section (file format). The ``ModelProto`` is read by
:func:`core.formats.sentencepiece_files.read_model_proto` (protobuf wire format:
:mod:`core.formats.protobuf`); this module turns a unigram one into a tokeniser:

- NORMAL pieces with their scores (log p) form the vocabulary; USER_DEFINED pieces are pieces
  too, scored as SentencePiece's lattice scores them (``length in bytes * max(max normal score,
  FLT_MIN) - 0.1``, a bonus that makes them win) and protected from normalisation; UNKNOWN,
  CONTROL, UNUSED and BYTE pieces are left out (SentencePiece never puts an unused piece in a
  lattice);
- the pre-tokeniser is SentencePiece's normaliser
  (:class:`core.pretokenisers.sentencepiece_normaliser.SentencePieceNormaliser`: precompiled
  charsmap, dummy prefix, extra whitespace removal, ``▁``), splitting before ``▁`` when that is
  exact (see :mod:`core.formats.sentencepiece_files`).

Path scores are added in float32 as SentencePiece does (``UnigramTokeniser(float32=True)``). A run
of unknown characters becomes one token of those characters, as SentencePiece's
``encode(out_type=str)`` shows it (its id is the unk id); with ``byte_fallback`` SentencePiece
writes ``<0xNN>`` pieces instead, which this model does not (said in ``metadata["detected"]``).
"""
from __future__ import annotations

import struct
from pathlib import Path

from core.errors import InputError
from core.formats.sentencepiece_files import NORMAL, USER_DEFINED, ModelProto, read_model_proto
from core.unigram.model import UnigramTokeniser

FLT_MIN = 1.1754943508222875e-38


def _float32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def unigram_from_model_proto(proto: ModelProto, name: str = "") -> UnigramTokeniser:
    source = proto.source
    normal = {piece: score for piece, score, kind in proto.pieces if kind == NORMAL}
    if not normal:
        raise InputError("the model has no normal pieces", source)
    max_score = max(FLT_MIN, max(normal.values()))
    pieces = dict(normal)
    for piece in proto.of_type(USER_DEFINED):
        pieces[piece] = _float32(_float32(len(piece.encode("utf-8")) * max_score) - 0.1)
    pretokeniser = proto.pretokeniser(list(pieces))
    if proto.byte_fallback:
        proto.detected.append("byte_fallback: SentencePiece writes unknown characters as <0xNN> pieces; "
                              "here they stay characters")
    tokeniser = UnigramTokeniser(pieces, pretokeniser, name, float32=True)
    metadata = getattr(tokeniser, "metadata", None)
    if isinstance(metadata, dict):
        metadata["detected"] = list(proto.detected)
    return tokeniser


def parse_sentencepiece_model(data: bytes, source: str = "<model>", name: str = "") -> UnigramTokeniser:
    """A unigram ``ModelProto`` as a tokeniser; InputError for anything else (BPE models load
    with :func:`core.formats.sentencepiece_files.parse_sentencepiece_bytes`)."""
    proto = read_model_proto(data, source)
    if proto.model_type != "unigram":
        raise InputError(f"this is a SentencePiece {proto.model_type} model; only unigram models can be loaded "
                         "here", source)
    return unigram_from_model_proto(proto, name)


def load_sentencepiece_model(path: str | Path) -> UnigramTokeniser:
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", str(path))
    return parse_sentencepiece_model(path.read_bytes(), str(path), path.stem)
