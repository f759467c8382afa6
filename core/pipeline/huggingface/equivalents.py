"""HF ``tokenizer.json`` ``normalizer`` / ``pre_tokenizer`` fields that one of our own
pre-tokenisers reproduces exactly: the fast path of :class:`core.pipeline.huggingface.pipeline.HFPipeline`.

No paper section of its own: this is how tokenisers trained elsewhere (byte-level GPT-2 style,
SentencePiece-style Metaspace, [boundless App. A] regex splits) run at the speed of our own
pre-tokenisers. :func:`simple_equivalent` finds these layouts:

* ``ByteLevel`` (add_prefix_space, trim_offsets, use_regex; a missing field takes the default
  of HF's Python constructor, i.e. true) -> :class:`ByteLevel`;
* ``Metaspace`` (replacement, prepend_scheme, split; the older ``add_prefix_space`` means
  "always" when true and "never" when false) -> :class:`Metaspace`;
* ``WhitespaceSplit`` -> :class:`WhitespaceSplit`; ``Whitespace`` -> ``RegexSplit("whitespace")``;
* ``Split`` with a ``Regex`` pattern without line anchors and behaviour ``Removed`` + ``invert:
  true`` (findall) or ``Isolated`` + ``invert: false`` -> :class:`RegexSplit`;
* ``[Split, ByteLevel(add_prefix_space=false, use_regex=false)]`` -> ``RegexSplit(...,
  byte_level=True)`` (the GPT-4 / Llama-3 layout);

each after a normalizer of null, NFC, NFD, NFKC, NFKD, Lowercase, or a Sequence of those; and

* normalizer ``Replace`` of the string " " by one character R, then ``Split`` on the string " "
  without ``invert`` (Gemma 3's layout: no space is left to split on, so the whole normalised text
  is one pretoken) -> ``Metaspace(R, prepend_scheme="never", split=False)``.

A
``Split`` regex is probed on a short text first (for empty matches): with the time limit of a
custom pattern, so that a pattern slow on the probe just has no fast path.
"""

from __future__ import annotations

import re
from typing import Any

from core.errors import InputError, excerpt
from core.pipeline.base import Pretokeniser
from core.pipeline.byte_level import ByteLevel
from core.pipeline.metaspace import Metaspace
from core.pipeline.normalisation import normaliser_from_hf
from core.pipeline.patterns import compile_regex
from core.pipeline.regex_split import RegexSplit
from core.pipeline.whitespace import WhitespaceSplit

_EMPTY_MATCH_PROBE = "Ab c1 23!? é\n\t  x\r\n"
_LINE_ANCHOR = re.compile(r"(?<![\[\\])\^|(?<!\\)\$")
SUPPORTED_PRE_TOKENIZERS = (
    "ByteLevel, Metaspace, WhitespaceSplit, Whitespace, Split (Regex pattern; Removed+invert or "
    "Isolated), Sequence of one of those or [Split, ByteLevel(add_prefix_space=false, use_regex=false)]"
)


def simple_equivalent(normalizer_json, pre_tokenizer_json) -> Pretokeniser | None:
    """One of our own pre-tokenisers that does exactly what ``normalizer`` + ``pre_tokenizer``
    do (the GPT-2 / GPT-4 / Metaspace layouts listed in the module docstring), or None. A pipeline
    uses it as a fast path for text in which no added token occurs."""
    if _replaces_spaces_then_splits_on_them(normalizer_json, pre_tokenizer_json):
        return Metaspace(replacement=normalizer_json["content"], prepend_scheme="never", split=False)
    try:
        steps = normaliser_from_hf(normalizer_json)
        if pre_tokenizer_json is None:
            return None
        parts = _flatten(pre_tokenizer_json)
        if any(
            p.get("type") == "Split" and not _plain_regex(str((p.get("pattern") or {}).get("Regex", ""))) for p in parts
        ):
            return None
        if len(parts) == 1:
            return _single(parts[0], steps)
        if (
            len(parts) == 2
            and parts[0].get("type") == "Split"
            and parts[1].get("type") == "ByteLevel"
            and parts[1].get("add_prefix_space") is False
            and parts[1].get("use_regex") is False
        ):
            split = _split(parts[0], steps)
            return RegexSplit(split.pattern, byte_level=True, normaliser=steps, unmatched=split.unmatched)
    except (InputError, TypeError, AttributeError):
        return None
    return None


def _replaces_spaces_then_splits_on_them(normalizer_json, pre_tokenizer_json) -> bool:
    """Gemma 3's layout: every space replaced by one other character, then a split on spaces
    (none are left, whatever the split's behaviour)."""
    return (
        isinstance(normalizer_json, dict)
        and normalizer_json.get("type") == "Replace"
        and normalizer_json.get("pattern") == {"String": " "}
        and isinstance(normalizer_json.get("content"), str)
        and len(normalizer_json["content"]) == 1
        and normalizer_json["content"] != " "
        and isinstance(pre_tokenizer_json, dict)
        and pre_tokenizer_json.get("type") == "Split"
        and pre_tokenizer_json.get("pattern") == {"String": " "}
        and pre_tokenizer_json.get("invert", False) is False
    )


def _flatten(obj: Any) -> list[dict]:
    if not isinstance(obj, dict):
        raise InputError(f"pre_tokenizer must be an object, got {type(obj).__name__}")
    if obj.get("type") != "Sequence":
        return [obj]
    inner = obj.get("pretokenizers")
    if not isinstance(inner, list) or not inner:
        raise InputError("pre_tokenizer Sequence needs a non-empty list field 'pretokenizers'")
    return [part for item in inner for part in _flatten(item)]


def _plain_regex(pattern: str) -> bool:
    """A Split regex that our RegexSplit runs as HF does: no line anchors (Oniguruma's ^ and $
    match at line breaks) and no empty matches (HF keeps them as split points). False also when
    the pattern does not compile or a custom one runs out of time on the probe."""
    if _LINE_ANCHOR.search(pattern):
        return False
    try:
        return not any(m.start() == m.end() for m in compile_regex(pattern).finditer(_EMPTY_MATCH_PROBE))
    except InputError:
        return False


def _single(obj: dict, steps: tuple[str, ...]) -> Pretokeniser:
    """Our pre-tokeniser for one HF pre_tokenizer step (InputError when there is none)."""
    kind = obj.get("type")
    if kind == "ByteLevel":
        return ByteLevel(
            add_prefix_space=obj.get("add_prefix_space", True),
            use_regex=obj.get("use_regex", True),
            trim_offsets=obj.get("trim_offsets", True),
            normaliser=steps,
        )
    if kind == "Metaspace":
        return _metaspace(obj, steps)
    if kind == "WhitespaceSplit":
        return WhitespaceSplit(normaliser=steps)
    if kind == "Whitespace":
        return RegexSplit("whitespace", normaliser=steps)
    if kind == "Split":
        return _split(obj, steps)
    raise InputError(f"unsupported pre_tokenizer type {excerpt(kind)}; supported: {SUPPORTED_PRE_TOKENIZERS}")


def _metaspace(obj: dict, steps: tuple[str, ...]) -> Metaspace:
    """A ``Metaspace`` step; the older ``add_prefix_space`` must agree with ``prepend_scheme``."""
    scheme = obj.get("prepend_scheme")
    legacy = obj.get("add_prefix_space")
    if legacy is not None:
        if not isinstance(legacy, bool):
            raise InputError(f"Metaspace add_prefix_space must be true or false, got {excerpt(legacy)}")
        implied = "always" if legacy else "never"
        if scheme is None:
            scheme = implied
        elif (scheme != "never") != legacy:
            raise InputError(
                f"Metaspace add_prefix_space={str(legacy).lower()} contradicts prepend_scheme={excerpt(scheme)}"
            )
    return Metaspace(
        replacement=obj.get("replacement", "▁"),
        prepend_scheme=scheme or "always",
        split=obj.get("split", True),
        normaliser=steps,
    )


def _split(obj: dict, steps: tuple[str, ...]) -> RegexSplit:
    """A ``Split`` step with a ``Regex`` pattern, findall or isolating (InputError otherwise)."""
    pattern = obj.get("pattern")
    if not isinstance(pattern, dict) or not isinstance(pattern.get("Regex"), str):
        raise InputError(
            f'Split pre_tokenizer with pattern {excerpt(pattern)} is unsupported; only {{"Regex": ...}} patterns are'
        )
    mode = (obj.get("behavior"), obj.get("invert", False))
    if mode == ("Removed", True):
        unmatched = "drop"
    elif mode == ("Isolated", False):
        unmatched = "keep"
    else:
        raise InputError(
            f"Split behavior {excerpt(mode[0])} with invert={excerpt(mode[1])} is unsupported; "
            "supported: Removed with invert=true, Isolated with invert=false"
        )
    return RegexSplit(pattern["Regex"], normaliser=steps, unmatched=unmatched)
