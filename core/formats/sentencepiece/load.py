"""SentencePiece ``.model`` files of any supported type: BPE models to
:mod:`core.formats.sentencepiece.bpe`, unigram models to :mod:`core.formats.sentencepiece.unigram`
(no paper section: file format)."""

from __future__ import annotations

from pathlib import Path

from core.errors import InputError
from core.formats.sentencepiece.bpe import bpe_from_model_proto
from core.formats.sentencepiece.model_proto import read_model_proto
from core.formats.sentencepiece.unigram import unigram_from_model_proto


def parse_sentencepiece_bytes(data: bytes, source: str = "<model>", name: str = ""):
    """A SentencePiece model of BPE type as a :class:`core.bpe.model.BTETokeniser`, of unigram type
    as a :class:`core.families.unigram.model.UnigramTokeniser`; InputError for other types."""
    proto = read_model_proto(data, source)
    if proto.model_type == "bpe":
        return bpe_from_model_proto(proto, name)
    if proto.model_type == "unigram":
        return unigram_from_model_proto(proto, name)
    raise InputError(
        f"this is a SentencePiece {proto.model_type} model; only BPE and unigram models can be loaded", source
    )


def load_sentencepiece(path: str | Path):
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", str(path))
    return parse_sentencepiece_bytes(path.read_bytes(), str(path), path.stem)
