"""The text pipeline before the model: normalisers, pre-tokenisers (which cut text into pretokens, see
``base.py``), added tokens and decoders; HF's and SentencePiece's in ``huggingface/`` and ``sentencepiece/``.

Byte-level / regex pre-tokenisation after [boundless App. A] (Listing 3), HF-compatible
ByteLevel, Metaspace and WhitespaceSplit, and the ReBPE preprocessing pipeline of [rebpe
App. B.1]. Specs and HF tokenizer.json fields convert both ways.
"""

from core.pipeline.base import Pretoken, Pretokeniser
from core.pipeline.byte_level import (
    BYTE_SPACE,
    BYTE_TO_CHAR,
    CHAR_TO_BYTE,
    ByteLevel,
    byte_chars_to_bytes,
    byte_chars_to_text,
    bytes_to_byte_chars,
    display_byte_chars,
    text_to_byte_chars,
)
from core.pipeline.huggingface.fields import from_hf, to_hf
from core.pipeline.metaspace import PREPEND_SCHEMES, Metaspace
from core.pipeline.normalisation import NORMALISER_STEPS
from core.pipeline.patterns import (
    BOUNDLESS_PATTERN,
    GPT2_PATTERN,
    GPT4_PATTERN,
    NAMED_PATTERNS,
    PUNCT_PATTERN,
    WHITESPACE_PATTERN,
)
from core.pipeline.rebpe_pipeline import ReBPEPipeline
from core.pipeline.regex_split import RegexSplit
from core.pipeline.specs import pretokeniser_from_spec, pretokeniser_kinds
from core.pipeline.whitespace import WhitespaceSplit

__all__ = [
    "BOUNDLESS_PATTERN",
    "BYTE_SPACE",
    "BYTE_TO_CHAR",
    "CHAR_TO_BYTE",
    "GPT2_PATTERN",
    "GPT4_PATTERN",
    "NAMED_PATTERNS",
    "NORMALISER_STEPS",
    "PREPEND_SCHEMES",
    "PUNCT_PATTERN",
    "WHITESPACE_PATTERN",
    "ByteLevel",
    "Metaspace",
    "Pretoken",
    "Pretokeniser",
    "ReBPEPipeline",
    "RegexSplit",
    "WhitespaceSplit",
    "byte_chars_to_bytes",
    "byte_chars_to_text",
    "bytes_to_byte_chars",
    "display_byte_chars",
    "from_hf",
    "pretokeniser_from_spec",
    "pretokeniser_kinds",
    "text_to_byte_chars",
    "to_hf",
]
