"""HF ``tokenizers`` decoders (the ``decoder`` field of a tokenizer.json): tokens -> text.

Semantics of ``tokenizers`` 0.23 (Rust ``src/decoders``, ``Decoder::decode`` = the pieces of
``decode_chain`` joined): ByteLevel (a token whose characters are all GPT-2 byte characters
becomes those bytes, any other token its own UTF-8; the bytes of all tokens are decoded together,
invalid UTF-8 -> U+FFFD), Metaspace (every replacement character -> space, except in the first
token, where they are dropped unless ``prepend_scheme`` is "never"), Replace, ByteFallback
(runs of ``<0xNN>`` tokens -> their UTF-8 text, or one U+FFFD per byte when invalid), Fuse,
Strip (``start``/``stop`` copies of ``content`` removed from each token's ends), Sequence,
BPEDecoder (``suffix`` -> space, nothing after the last token), WordPiece (``prefix`` glued,
other tokens after a space, optional cleanup) and CTC (repeats collapsed, pad removed, cleanup,
word delimiter -> space). ``decode(tokens)`` matches ``Tokenizer.decode(ids,
skip_special_tokens=False)`` for the token strings of those ids.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from itertools import groupby
from typing import Any

import regex

from core.pipeline.byte_level import CHAR_TO_BYTE
from core.pipeline.huggingface.normalizers import (
    check_keys,
    compile_hf_pattern,
    describe_value,
    fail,
    field,
    find_matches,
    single_char,
)


class HFDecoder(ABC):
    type_name = ""

    @abstractmethod
    def decode_chain(self, tokens: list[str]) -> list[str]:
        """The tokens after this decoder (HF decoders map token lists to token lists)."""

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(list(tokens)))

    def steps(self) -> list[HFDecoder]:
        return [self]


class Sequence(HFDecoder):
    type_name = "Sequence"

    def __init__(self, decoders: list[HFDecoder]):
        self.decoders = decoders

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for d in self.decoders:
            tokens = d.decode_chain(tokens)
        return tokens

    def steps(self) -> list[HFDecoder]:
        return [s for d in self.decoders for s in d.steps()]


class ByteLevel(HFDecoder):
    type_name = "ByteLevel"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        data = bytearray()
        for token in tokens:
            if all(c in CHAR_TO_BYTE for c in token):
                data += bytes(CHAR_TO_BYTE[c] for c in token)
            else:
                data += token.encode("utf-8", "surrogatepass")
        return [data.decode("utf-8", "replace")]


class Metaspace(HFDecoder):
    type_name = "Metaspace"

    def __init__(self, replacement: str, prepend_scheme: str):
        self.replacement, self.prepend_scheme = replacement, prepend_scheme

    def decode_chain(self, tokens: list[str]) -> list[str]:
        r = self.replacement
        return [t.replace(r, "" if i == 0 and self.prepend_scheme != "never" else " ") for i, t in enumerate(tokens)]


class Replace(HFDecoder):
    type_name = "Replace"

    def __init__(self, pattern: regex.Pattern, content: str):
        self.pattern, self.content = pattern, content

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            parts, done = [], 0
            for s, e in find_matches(self.pattern, token):
                parts += [token[done:s], self.content]
                done = e
            parts.append(token[done:])
            out.append("".join(parts))
        return out


_BYTE_TOKEN = regex.compile(r"<0x(\+?[0-9A-Fa-f]{1,2})>")


class ByteFallback(HFDecoder):
    type_name = "ByteFallback"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend(["\ufffd"] * len(pending))
                pending.clear()

        for token in tokens:
            m = _BYTE_TOKEN.fullmatch(token) if len(token) == 6 else None
            if m is not None:
                pending.append(int(m.group(1), 16))
            else:
                flush()
                out.append(token)
        flush()
        return out


class Fuse(HFDecoder):
    type_name = "Fuse"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


class Strip(HFDecoder):
    type_name = "Strip"

    def __init__(self, content: str, start: int, stop: int):
        self.content, self.start, self.stop = content, start, stop

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            begin = 0
            while begin < min(self.start, len(token)) and token[begin] == self.content:
                begin += 1
            end, removed = len(token), 0
            while removed < self.stop and end > 0 and token[end - 1] == self.content:
                end -= 1
                removed += 1
            out.append(token[begin:end] if begin <= end else "")
        return out


class BPEDecoder(HFDecoder):
    type_name = "BPEDecoder"

    def __init__(self, suffix: str):
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [t.replace(self.suffix, "" if i == last else " ") for i, t in enumerate(tokens)]


_CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def cleanup(text: str) -> str:
    """WordPiece/CTC ``cleanup``: spaces before punctuation and English contractions removed."""
    for old, new in _CLEANUP:
        text = text.replace(old, new)
    return text


class WordPiece(HFDecoder):
    type_name = "WordPiece"

    def __init__(self, prefix: str, cleanup: bool):
        self.prefix, self.cleanup = prefix, cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i != 0:
                token = token[len(self.prefix) :] if token.startswith(self.prefix) else " " + token
            out.append(cleanup(token) if self.cleanup else token)
        return out


class CTC(HFDecoder):
    type_name = "CTC"

    def __init__(self, pad_token: str, word_delimiter_token: str, cleanup: bool):
        self.pad_token, self.word_delimiter_token, self.cleanup = pad_token, word_delimiter_token, cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token, _ in groupby(tokens):
            text = token.replace(self.pad_token, "")
            if self.cleanup:
                text = cleanup(text).replace(self.word_delimiter_token, " ")
            if text:
                out.append(text)
        return out


DECODER_TYPES = (
    "Sequence",
    "ByteLevel",
    "Metaspace",
    "Replace",
    "ByteFallback",
    "Fuse",
    "Strip",
    "BPEDecoder",
    "WordPiece",
    "CTC",
)


def decoder_from_json(obj: Any, path: str = "decoder") -> HFDecoder | None:
    """The decoder an HF ``decoder`` JSON value describes (None for null)."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise fail(path, f"expected an object or null, got {describe_value(obj)}")
    kind = obj.get("type")
    if kind not in DECODER_TYPES:
        raise fail(f"{path}.type", f"{describe_value(kind)} is not one of {', '.join(DECODER_TYPES)}")
    if kind == "Sequence":
        check_keys(obj, path, ("decoders",))
        inner = field(obj, "decoders", path, list)
        return Sequence(
            [d for i, item in enumerate(inner) if (d := decoder_from_json(item, f"{path}.decoders[{i}]")) is not None]
        )
    if kind == "ByteLevel":
        check_keys(obj, path, ("add_prefix_space", "trim_offsets", "use_regex"))
        return ByteLevel()
    if kind == "Metaspace":
        return _metaspace_from_json(obj, path)
    if kind == "Replace":
        check_keys(obj, path, ("pattern", "content"))
        pattern, _ = compile_hf_pattern(obj.get("pattern"), f"{path}.pattern")
        return Replace(pattern, field(obj, "content", path, str))
    if kind in ("ByteFallback", "Fuse"):
        check_keys(obj, path, ())
        return ByteFallback() if kind == "ByteFallback" else Fuse()
    if kind == "Strip":
        check_keys(obj, path, ("content", "start", "stop"))
        return Strip(single_char(obj, "content", path, " "), _count(obj, "start", path), _count(obj, "stop", path))
    if kind == "BPEDecoder":
        check_keys(obj, path, ("suffix",))
        return BPEDecoder(field(obj, "suffix", path, str, "</w>"))
    if kind == "WordPiece":
        check_keys(obj, path, ("prefix", "cleanup"))
        return WordPiece(field(obj, "prefix", path, str, "##"), field(obj, "cleanup", path, bool, True))
    check_keys(obj, path, ("pad_token", "word_delimiter_token", "cleanup"))
    return CTC(
        field(obj, "pad_token", path, str, "<pad>"),
        field(obj, "word_delimiter_token", path, str, "|"),
        field(obj, "cleanup", path, bool, True),
    )


def _metaspace_from_json(obj: dict, path: str) -> Metaspace:
    """``Metaspace``; the older ``add_prefix_space: false`` means the scheme "never"."""
    check_keys(obj, path, ("replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"))
    scheme = field(obj, "prepend_scheme", path, str, None)
    if field(obj, "add_prefix_space", path, bool, None) is False:
        scheme = "never"
    return Metaspace(single_char(obj, "replacement", path, "▁"), scheme or "always")


def _count(obj: dict, name: str, path: str) -> int:
    value = field(obj, name, path, int, 0)
    if value < 0:
        raise fail(f"{path}.{name}", f"must be >= 0, got {value}")
    return value
