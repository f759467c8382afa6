"""Pre-tokenisers by name, in one table: the command line's ``--pretokeniser``, the trainers'
defaults, the workspace page and the pre-tokeniser gallery all read it (no paper section).

Names, not specs: a saved file states its pre-tokeniser as a spec (:mod:`core.pipeline.specs`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from core.errors import InputError
from core.pipeline.base import Pretokeniser
from core.pipeline.byte_level import ByteLevel
from core.pipeline.metaspace import Metaspace
from core.pipeline.rebpe_pipeline import ReBPEPipeline
from core.pipeline.regex_split import RegexSplit
from core.pipeline.sentencepiece.normaliser import SentencePieceNormaliser
from core.pipeline.whitespace import WhitespaceSplit

#: name -> factory of a new pre-tokeniser, each with what it does
PRETOKENISERS: dict[str, Callable[[], Pretokeniser]] = {
    # GPT-2's regex, then every byte as a printable character, spaces as Ġ (HF ByteLevel)
    "bytelevel": ByteLevel,
    # BOUNDLESS_PATTERN ([boundless App. A], Listing 3 repaired), then the GPT-2 bytes
    "boundless": partial(RegexSplit, "boundless", byte_level=True),
    # spaces as ▁ and a ▁ in front, one ▁word a pretoken (HF Metaspace)
    "metaspace": Metaspace,
    # runs of non-whitespace (HF WhitespaceSplit)
    "whitespace": WhitespaceSplit,
    # SentencePiece's own preprocessing (identity rule, spaces collapsed, dummy prefix), one ▁word a pretoken
    "sentencepiece": SentencePieceNormaliser,
    # the regexes of [boundless App. A], Listing 3, over characters (T-, F-, P-, B- branches)
    "regex-gpt2": partial(RegexSplit, "gpt2"),
    "regex-gpt4": partial(RegexSplit, "gpt4"),
    "regex-punct": partial(RegexSplit, "punct"),
    "regex-boundless": partial(RegexSplit, "boundless"),
    # [rebpe App. B.1] preprocessing: NFKC, punctuation and digit groups apart, lower case after a ↑, _word
    "rebpe": ReBPEPipeline,
}
#: the names to train, count and load a merges.txt with: ``--pretokeniser`` and the workspace page offer these
CHOICES = ("bytelevel", "boundless", "metaspace", "whitespace", "sentencepiece")


def named_pretokeniser(name: str) -> Pretokeniser:
    """A new pre-tokeniser of :data:`CHOICES`; InputError for any other name."""
    if name not in CHOICES:
        raise InputError(f"unknown pretokeniser {name!r}; choose one of {', '.join(CHOICES)}")
    return PRETOKENISERS[name]()
