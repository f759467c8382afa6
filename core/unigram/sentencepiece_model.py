"""SentencePiece ``.model`` files of unigram type as :class:`UnigramTokeniser` objects.

No paper section (file format). A ``.model`` file is a serialised protobuf ``ModelProto``
(sentencepiece_model.proto); this module reads the protobuf wire format itself (varints,
fixed32, length-delimited fields) and takes only:

- ``pieces`` (1): ``piece`` (1), ``score`` (2, float = log p), ``type`` (3): NORMAL pieces form
  the vocabulary; UNKNOWN, CONTROL, UNUSED and BYTE pieces are left out (an unknown character
  becomes a one-character token, not ``<unk>`` or byte pieces); USER_DEFINED pieces are refused;
- ``trainer_spec`` (2): ``model_type`` (3; only UNIGRAM = 1), ``split_by_whitespace`` (22),
  ``treat_whitespace_as_suffix`` (24, refused);
- ``normalizer_spec`` (3): ``name`` (1), ``add_dummy_prefix`` (3), ``escape_whitespaces`` (5).

Path scores are added in float32 as SentencePiece does (``UnigramTokeniser(float32=True)``).
The pre-tokeniser is Metaspace ``▁`` (prepend when ``add_dummy_prefix``, split before every
``▁`` when ``split_by_whitespace``). Normalisation: "identity" exactly; "nfkc"/"nmt_nfkc" as NFKC
and the "_cf" rules as NFKC + lowercase, without SentencePiece's extra NMT rules and without
``remove_extra_whitespaces``, so segmentations equal SentencePiece's for identity models and for
text those rules leave unchanged.
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

from core.errors import InputError
from core.pretokenisers import Metaspace
from core.unigram.model import UnigramTokeniser

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}
NORMALISERS = {"identity": (), "": (), "nfkc": ("nfkc",), "nmt_nfkc": ("nfkc",),
               "nfkc_cf": ("nfkc", "lowercase"), "nmt_nfkc_cf": ("nfkc", "lowercase")}


def _varint(data: bytes, pos: int, source: str) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise InputError("truncated or malformed protobuf varint", source)
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _fields(data: bytes, source: str) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of every field of one message: an int for varints, bytes otherwise."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos, source)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos, source)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, pos = data[pos:pos + size], pos + size
        elif wire == 2:
            size, pos = _varint(data, pos, source)
            value, pos = data[pos:pos + size], pos + size
        else:
            raise InputError(f"unsupported protobuf wire type {wire} (field {number}); "
                             "is this a .model file?", source)
        if pos > len(data):
            raise InputError(f"truncated protobuf field {number}", source)
        yield number, value


def _text(value, field: str, source: str) -> str:
    if not isinstance(value, bytes):
        raise InputError(f"{field} must be a string", source)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{field} is not valid UTF-8", source) from None


def _message(value, field: str, source: str) -> dict[int, int | bytes]:
    if not isinstance(value, bytes):
        raise InputError(f"{field} must be a message", source)
    return dict(_fields(value, source))


def parse_sentencepiece_model(data: bytes, source: str = "<model>", name: str = "") -> UnigramTokeniser:
    """A unigram ``ModelProto`` as a tokeniser; InputError for anything else."""
    if not isinstance(data, bytes) or not data:
        raise InputError("empty or non-binary SentencePiece model", source)
    pieces: dict[str, float] = {}
    trainer: dict = {}
    normaliser: dict = {}
    for number, value in _fields(data, source):
        if number == 1:
            entry = _message(value, f"piece {len(pieces)}", source)
            piece = _text(entry.get(1, b""), f"piece {len(pieces)}", source)
            kind = entry.get(3, NORMAL)
            if kind == USER_DEFINED:
                raise InputError(f"user-defined piece {piece!r} is not supported", source)
            if kind != NORMAL:
                continue
            score = entry.get(2, b"\0\0\0\0")
            if not isinstance(score, bytes) or len(score) != 4 or not piece or piece in pieces:
                raise InputError(f"malformed or repeated piece {piece!r}", source)
            pieces[piece] = struct.unpack("<f", score)[0]
        elif number == 2:
            trainer = _message(value, "trainer_spec", source)
        elif number == 3:
            normaliser = _message(value, "normalizer_spec", source)
    model_type = MODEL_TYPES.get(trainer.get(3, 1), f"type {trainer.get(3)}")
    if model_type != "unigram":
        raise InputError(f"this is a SentencePiece {model_type} model; only unigram models can be loaded", source)
    if trainer.get(24, 0):
        raise InputError("treat_whitespace_as_suffix models are not supported", source)
    if not normaliser.get(5, 1):
        raise InputError("models without escape_whitespaces are not supported", source)
    rule = _text(normaliser.get(1, b""), "normalizer_spec.name", source)
    if rule not in NORMALISERS:
        supported = ", ".join(n for n in NORMALISERS if n)
        raise InputError(f"unsupported normalisation rule {rule!r}; supported: {supported}", source)
    if not pieces:
        raise InputError("the model has no normal pieces", source)
    pretokeniser = Metaspace("▁", "always" if normaliser.get(3, 1) else "never",
                             split=bool(trainer.get(22, 1)), normaliser=NORMALISERS[rule])
    return UnigramTokeniser(pieces, pretokeniser, name, float32=True)


def load_sentencepiece_model(path: str | Path) -> UnigramTokeniser:
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", str(path))
    return parse_sentencepiece_model(path.read_bytes(), str(path), path.stem)
