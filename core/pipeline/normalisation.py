"""Optional Unicode normalisation in front of a pre-tokeniser, mirroring the HF ``normalizer``
field (NFC, NFD, NFKC, NFKD, Lowercase and Sequences of those).

No paper section of its own: the byte-level and Metaspace pre-tokenisers normally run without
normalisation; the ReBPE pipeline ([rebpe App. B.1] step 1) fixes NFKC itself.
Lowercasing is HF's: every character's own lowercase (Rust ``char::to_lowercase``, full case
mapping), so ``Σ`` becomes ``σ`` even at the end of a word, where ``str.lower`` writes ``ς``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any, Literal

from core.errors import InputError
from core.pipeline.base import Pretokeniser

#: Supported steps, applied left to right.
NORMALISER_STEPS = ("nfc", "nfd", "nfkc", "nfkd", "lowercase")
NormalForm = Literal["NFC", "NFD", "NFKC", "NFKD"]
#: The Unicode normal forms by step name.
NORMAL_FORMS: dict[str, NormalForm] = {"nfc": "NFC", "nfd": "NFD", "nfkc": "NFKC", "nfkd": "NFKD"}
_HF_NAMES = {"nfc": "NFC", "nfd": "NFD", "nfkc": "NFKC", "nfkd": "NFKD", "lowercase": "Lowercase"}
_FROM_HF = {v: k for k, v in _HF_NAMES.items()}


def check_normaliser(steps: Any) -> tuple[str, ...]:
    """``steps`` as a tuple of known step names (None or "" mean no normalisation)."""
    if steps is None:
        return ()
    if isinstance(steps, str):
        steps = (steps,) if steps else ()
    if not isinstance(steps, (list, tuple)):
        raise InputError(f"normaliser must be a list of steps, got {steps!r}")
    for step in steps:
        if step not in NORMALISER_STEPS:
            raise InputError(f"unknown normaliser step {step!r}; supported: {', '.join(NORMALISER_STEPS)}")
    return tuple(steps)


def lowercase(text: str) -> str:
    """HF ``Lowercase``: ``str.lower`` without its one context rule, the final sigma."""
    return "".join(c.lower() for c in text) if "Σ" in text else text.lower()


def apply_normaliser(steps: Iterable[str], text: str) -> str:
    for step in steps:
        text = lowercase(text) if step == "lowercase" else unicodedata.normalize(NORMAL_FORMS[step], text)
    return text


def normaliser_to_hf(steps: tuple[str, ...]) -> dict | None:
    """The HF ``normalizer`` JSON for ``steps`` (None when there are none)."""
    parts = [{"type": _HF_NAMES[s]} for s in steps]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"type": "Sequence", "normalizers": parts}


def normaliser_from_hf(obj: Any) -> tuple[str, ...]:
    """Steps for an HF ``normalizer`` JSON value; InputError for anything else."""
    if obj is None:
        return ()
    if not isinstance(obj, dict):
        raise InputError(f"normalizer must be an object or null, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "Sequence":
        inner = obj.get("normalizers")
        if not isinstance(inner, list):
            raise InputError("normalizer Sequence needs a list field 'normalizers'")
        return tuple(step for part in inner for step in normaliser_from_hf(part))
    if kind in _FROM_HF:
        return (_FROM_HF[kind],)
    raise InputError(
        f"unsupported normalizer type {kind!r}; supported: null, {', '.join(_HF_NAMES.values())} and Sequence of those"
    )


class NormalisedPretokeniser(Pretokeniser):
    """A pre-tokeniser with an optional ``normaliser`` (tuple of :data:`NORMALISER_STEPS`)."""

    normaliser: tuple[str, ...] = ()

    def normalise(self, text: str) -> str:
        return apply_normaliser(self.normaliser, text)
