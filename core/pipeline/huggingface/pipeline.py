"""HF ``tokenizers``' whole text pipeline before the model, built from a tokenizer.json.

``HFPipeline`` runs what ``Tokenizer.encode`` runs before the model (``tokenizers`` 0.23):
added tokens with ``normalized: false`` are cut out of the raw text, each remaining stretch is
normalised (:mod:`hf_normalizers`), tokens with ``normalized: true`` are cut out of the normalised
stretches (:mod:`hf_added_tokens`), and the pre-tokenizer (:mod:`hf_pre_tokenizers`) splits every
stretch into pretokens; ``pre_tokenizer: null`` leaves each normalised stretch whole. Added tokens
come out as ``Pretoken(content, sources, added=True)``. Decoding uses the ``decoder`` field
(:mod:`hf_decoders`); without one, tokens are concatenated (HF itself would join them with spaces).

Sources index the text as given (``sources_in_original``), -1 for characters the pipeline
inserted (Prepend, Metaspace / ByteLevel prefixes).
"""

from __future__ import annotations

import copy
import marshal
from typing import Any

from core.pipeline.base import Pretoken, Pretokeniser
from core.pipeline.byte_level import BYTE_SPACE, display_byte_chars
from core.pipeline.huggingface.added_tokens import AddedVocabulary, added_tokens_from_json
from core.pipeline.huggingface.decoders import decoder_from_json
from core.pipeline.huggingface.equivalents import simple_equivalent
from core.pipeline.huggingface.normalizers import ByteLevelNormalizer, Replace, compose, normalizer_from_json
from core.pipeline.huggingface.pre_tokenizers import ByteLevel, Metaspace, pre_tokenizer_from_json
from core.pipeline.limited_regex import LimitedPattern
from core.pipeline.spec_checks import check_text, spec_arguments
from core.pipeline.visible import escape_controls

_FIELDS = ("normalizer", "pre_tokenizer", "added_tokens", "decoder")


def json_copy(value):
    """A deep copy of a JSON value, at C speed (``marshal`` knows dicts, lists, strings and
    numbers; Gemma 3's 6,000 added tokens: 110 ms with ``copy.deepcopy``, a few ms this way);
    anything else through ``copy.deepcopy``."""
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return copy.deepcopy(value)


class HFPipeline(Pretokeniser):
    """Normalizer + added tokens + pre-tokenizer (+ decoder) of an HF tokenizer.json."""

    kind = "hf"
    sources_in_original = True

    def __init__(
        self,
        normalizer: dict | None = None,
        pre_tokenizer: dict | None = None,
        added_tokens: list | None = None,
        decoder: dict | None = None,
    ):
        self.normalizer_json = json_copy(normalizer)
        self.pre_tokenizer_json = json_copy(pre_tokenizer)
        self.added_tokens_json = json_copy(added_tokens) if added_tokens is not None else []
        self.decoder_json = json_copy(decoder)
        self._normalizer = normalizer_from_json(normalizer)
        self._pre = pre_tokenizer_from_json(pre_tokenizer)
        self._decoder = decoder_from_json(decoder)
        self.added_tokens = added_tokens_from_json(added_tokens)
        norm = self._normalizer.normalize_str if self._normalizer is not None else None
        self._vocab = AddedVocabulary(self.added_tokens, norm) if self.added_tokens else None
        self._needs_sources = self._pre is not None and self._pre.needs_sources
        pre_steps = self._pre.steps() if self._pre is not None else []
        norm_steps = self._normalizer.steps() if self._normalizer is not None else []
        self.byte_level = any(isinstance(s, ByteLevel) for s in pre_steps) or any(
            isinstance(s, ByteLevelNormalizer) for s in norm_steps
        )
        self.marker = self._find_marker(pre_steps, norm_steps)
        decoder_steps = self._decoder.steps() if self._decoder is not None else []
        patterns = (getattr(s, "pattern", None) for s in (*norm_steps, *pre_steps, *decoder_steps))
        self.limited_patterns = tuple(p for p in patterns if isinstance(p, LimitedPattern))
        self.emits_added_tokens = bool(self.added_tokens)
        # a simple pre-tokeniser doing exactly the same, for text in which no added token can start
        self._fast = simple_equivalent(normalizer, pre_tokenizer)
        self._added_first_chars = frozenset(t.content[0] for t in self.added_tokens if t.content)
        #: whether every added token is matched in the raw text (none after normalisation)
        self._raw_added_only = not any(t.normalized for t in self.added_tokens)
        if not self._raw_added_only:
            self._fast = None  # a normalised added token may start at a character the text lacks

    def _find_marker(self, pre_steps, norm_steps) -> str | None:
        if self.byte_level:
            return BYTE_SPACE
        for step in pre_steps:
            if isinstance(step, Metaspace):
                return step.replacement
        for step in norm_steps:
            if isinstance(step, Replace) and step.content == "▁":
                return "▁"
        return None

    @classmethod
    def from_json(
        cls, normalizer: Any = None, pre_tokenizer: Any = None, added_tokens: Any = None, decoder: Any = None
    ) -> HFPipeline:
        """The pipeline of a tokenizer.json's four fields (its JSON values as parsed)."""
        return cls(normalizer, pre_tokenizer, added_tokens, decoder)

    # ------------------------------------------------------------------ running

    def _normalise_stretch(self, text: str, sources: list[int] | None) -> tuple[str, list[int] | None]:
        if self._normalizer is None:
            return text, sources
        if sources is None:
            return self._normalizer.normalize_str(text), None
        out, local = self._normalizer.apply(text)
        return out, compose(sources, local)

    def _stretches(self, text: str, with_sources: bool):
        text = check_text(text)
        if self._vocab is not None and not (self._raw_added_only and self._no_added_token_in(text)):
            return self._vocab.extract(text, self._normalise_stretch, with_sources)
        out, sources = self._normalise_stretch(text, list(range(len(text))) if with_sources else None)
        return [(out, sources, None)] if out else []

    def _run(self, text: str, with_sources: bool):
        """``(text, sources, added)`` triples."""
        result = []
        for piece, sources, token in self._stretches(text, with_sources):
            if token is not None:
                result.append((piece, sources, True))
            elif self._pre is None:
                if piece:
                    result.append((piece, sources, False))
            else:
                result.extend((t, s, False) for t, s in self._pre.pre_tokenize([(piece, sources)]))
        return result

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        return [Pretoken(t, tuple(s), added) for t, s, added in self._run(text, True)]

    def pretokenise(self, text: str) -> list[str]:
        if self._fast is not None and self._no_added_token_in(text):
            return self._fast.pretokenise(text)
        return [t for t, _, _ in self._run(text, self._needs_sources)]

    def pretokenise_marked(self, text: str) -> list[tuple[str, bool]]:
        if self._fast is not None and self._no_added_token_in(text):
            return [(p, False) for p in self._fast.pretokenise(text)]
        return [(t, added) for t, _, added in self._run(text, self._needs_sources)]

    def _no_added_token_in(self, text: str) -> bool:
        return self._added_first_chars.isdisjoint(text)

    def may_hold_added_tokens(self, text: str) -> bool:
        return self.emits_added_tokens and not self._no_added_token_in(text)

    def normalise(self, text: str) -> str:
        """The text as the pre-tokenizer sees it: normalised stretches with the added tokens'
        contents between them."""
        return "".join(piece for piece, _, _ in self._stretches(text, False))

    def decode(self, tokens: list[str]) -> str:
        if self._decoder is None:
            return "".join(tokens)
        return self._decoder.decode(list(tokens))

    def display(self, token: str) -> str:
        return display_byte_chars(token) if self.byte_level else escape_controls(token)

    def short_description(self) -> str:
        return self._pre.describe() if self._pre is not None else "no pre-tokenizer (one piece per text)"

    def describe(self) -> str:
        norm = self._normalizer.describe() if self._normalizer is not None else "none"
        pre = self._pre.describe() if self._pre is not None else "none"
        parts = [f"normalizer: {norm}", f"pre-tokenizer: {pre}"]
        if self.added_tokens:
            parts.append(f"{len(self.added_tokens)} added tokens")
        if self._decoder is not None:
            parts.append("decoder: " + " + ".join(d.type_name for d in self._decoder.steps()))
        return "HF pipeline — " + "; ".join(parts)

    # ------------------------------------------------------------------ specs

    def to_spec(self) -> dict:
        return {
            "kind": self.kind,
            "normalizer": json_copy(self.normalizer_json),
            "pre_tokenizer": json_copy(self.pre_tokenizer_json),
            "added_tokens": json_copy(self.added_tokens_json),
            "decoder": json_copy(self.decoder_json),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> HFPipeline:
        return cls(**spec_arguments(spec, cls.kind, _FIELDS))

    def __hash__(self) -> int:
        return hash(
            (
                self.kind,
                repr(self.normalizer_json),
                repr(self.pre_tokenizer_json),
                len(self.added_tokens_json),
                repr(self.decoder_json),
            )
        )

    def __repr__(self) -> str:
        return f"HFPipeline({self.describe()})"


__all__ = ["HFPipeline"]
