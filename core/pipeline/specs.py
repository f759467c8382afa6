"""Specs (JSON-serialisable dicts) <-> pre-tokeniser objects (no paper section; plumbing).

A spec is ``{"kind": ..., **constructor arguments}`` as produced by ``Pretokeniser.to_spec()``;
``pretokeniser_from_spec(p.to_spec()) == p`` for every pre-tokeniser here.
"""

from __future__ import annotations

from typing import Any

from core.errors import InputError
from core.pipeline.base import Pretokeniser
from core.pipeline.byte_level import ByteLevel
from core.pipeline.huggingface.pipeline import HFPipeline
from core.pipeline.metaspace import Metaspace
from core.pipeline.rebpe_pipeline import ReBPEPipeline
from core.pipeline.regex_split import RegexSplit
from core.pipeline.sentencepiece.normaliser import SentencePieceNormaliser
from core.pipeline.special_tokens import SpecialTokenSplit
from core.pipeline.whitespace import WhitespaceSplit

#: kind -> class; every class has ``from_spec(spec)``.
PRETOKENISER_CLASSES: dict[str, type[Pretokeniser]] = {
    cls.kind: cls
    for cls in (
        ByteLevel,
        Metaspace,
        WhitespaceSplit,
        RegexSplit,
        ReBPEPipeline,
        SentencePieceNormaliser,
        SpecialTokenSplit,
        HFPipeline,
    )
}


def pretokeniser_kinds() -> list[str]:
    """The kinds a spec may name."""
    return list(PRETOKENISER_CLASSES)


def pretokeniser_from_spec(spec: Any) -> Pretokeniser:
    """The pre-tokeniser a spec describes; InputError for a bad spec (unknown kind or field,
    wrong value)."""
    if not isinstance(spec, dict):
        raise InputError(f"a pretokeniser spec must be an object, got {type(spec).__name__}")
    kind = spec.get("kind")
    cls = PRETOKENISER_CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"unknown pretokeniser kind {kind!r}; known kinds: {', '.join(PRETOKENISER_CLASSES)}")
    if isinstance(spec.get("inner"), dict):  # a wrapper (SpecialTokenSplit): its inner pre-tokeniser first
        spec = {**spec, "inner": pretokeniser_from_spec(spec["inner"])}
    try:
        return cls.from_spec(spec)
    except TypeError as err:  # defensive: a constructor rejected an argument
        raise InputError(f"bad {kind!r} spec: {err}") from None
