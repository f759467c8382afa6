"""HF ``tokenizer.json`` ``normalizer`` / ``pre_tokenizer`` / ``decoder`` / ``added_tokens`` fields
<-> our pre-tokenisers (no paper section: file format).

A tokenizer.json loads as :class:`core.pipeline.huggingface.pipeline.HFPipeline`, HF's whole pipeline
(every normalizer, pre_tokenizer, added-token rule and decoder); :func:`to_hf` and
:func:`hf_pipeline_json` write our pre-tokenisers back; the ReBPE pipeline has no equivalent and is refused.
"""

from __future__ import annotations

from core.errors import InputError
from core.pipeline.base import Pretokeniser
from core.pipeline.byte_level import ByteLevel
from core.pipeline.huggingface.equivalents import SUPPORTED_PRE_TOKENIZERS
from core.pipeline.huggingface.pipeline import HFPipeline
from core.pipeline.metaspace import Metaspace
from core.pipeline.normalisation import normaliser_to_hf
from core.pipeline.patterns import NAMED_PATTERNS
from core.pipeline.regex_split import RegexSplit
from core.pipeline.special_tokens import SpecialTokenSplit
from core.pipeline.whitespace import WhitespaceSplit


def from_hf(
    normalizer_json: dict | None, pre_tokenizer_json: dict | None, added_tokens=None, decoder=None
) -> Pretokeniser:
    """The pre-tokeniser of a tokenizer.json: its whole pipeline (normalizer, pre_tokenizer,
    added tokens, decoder) as :class:`core.pipeline.huggingface.pipeline.HFPipeline`."""
    return HFPipeline.from_json(normalizer_json, pre_tokenizer_json, added_tokens, decoder)


def to_hf(p: Pretokeniser) -> tuple[dict | None, dict | None]:
    """``(normalizer, pre_tokenizer)`` JSON values for ``p``; InputError if HF cannot express it."""
    if isinstance(p, HFPipeline):
        return p.normalizer_json, p.pre_tokenizer_json
    if isinstance(p, ByteLevel):
        pre = _byte_level_json(p.add_prefix_space, p.trim_offsets, p.use_regex)
    elif isinstance(p, Metaspace):
        pre = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": p.prepend_scheme, "split": p.split}
    elif isinstance(p, WhitespaceSplit):
        pre = {"type": "WhitespaceSplit"}
    elif isinstance(p, RegexSplit):
        if p.pattern == "whitespace" and p.unmatched == "drop" and not p.byte_level:
            pre = {"type": "Whitespace"}
        else:
            behaviour = {"drop": ("Removed", True), "keep": ("Isolated", False)}[p.unmatched]
            pre = {
                "type": "Split",
                "pattern": {"Regex": NAMED_PATTERNS.get(p.pattern, p.pattern)},
                "behavior": behaviour[0],
                "invert": behaviour[1],
            }
            if p.byte_level:
                pre = {"type": "Sequence", "pretokenizers": [pre, _byte_level_json(False, True, False)]}
    else:
        raise InputError(
            f"the {p.kind!r} pre-tokeniser has no HF tokenizer.json equivalent; supported: {SUPPORTED_PRE_TOKENIZERS}"
        )
    return normaliser_to_hf(getattr(p, "normaliser", ())), pre


def _byte_level_json(add_prefix_space: bool, trim_offsets: bool, use_regex: bool) -> dict:
    return {
        "type": "ByteLevel",
        "add_prefix_space": add_prefix_space,
        "trim_offsets": trim_offsets,
        "use_regex": use_regex,
    }


def hf_pipeline_json(p: Pretokeniser, specials, vocab: dict[str, int]) -> dict:
    """``normalizer``, ``pre_tokenizer``, ``decoder`` and ``added_tokens`` of a tokenizer.json for ``p``.
    Special tokens split out in front of a pre-tokeniser (``SpecialTokenSplit``, e.g. GPT-2's
    ``<|endoftext|>``) are HF's special added tokens, which HF also matches leftmost-longest in the
    raw text before the pre-tokenizer runs."""
    if isinstance(p, SpecialTokenSplit):
        missing = [s for s in p.specials if s not in vocab]
        if missing:
            raise InputError(f"special tokens without an id cannot be written: {', '.join(map(repr, missing[:5]))}")
        return hf_pipeline_json(p.inner, tuple(dict.fromkeys([*specials, *p.specials])), vocab)
    if isinstance(p, HFPipeline):
        return {
            "normalizer": p.normalizer_json,
            "pre_tokenizer": p.pre_tokenizer_json,
            "decoder": p.decoder_json,
            "added_tokens": p.added_tokens_json,
        }
    normalizer, pre_tokenizer = to_hf(p)
    decoder = None
    if isinstance(p, ByteLevel):
        decoder = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    elif isinstance(p, Metaspace):
        decoder = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": p.prepend_scheme, "split": True}
    added = [
        {
            "id": vocab[s],
            "content": s,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for s in specials
    ]
    return {"normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "decoder": decoder, "added_tokens": added}
