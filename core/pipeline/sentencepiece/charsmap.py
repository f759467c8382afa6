"""SentencePiece's precompiled character map (``NormalizerSpec.precompiled_charsmap``).

The normalisation rules of a SentencePiece model ("nmt_nfkc", "nfkc_cf", a user TSV ...) are
stored compiled: a little-endian ``uint32`` giving the size in bytes of a Darts-clone
double-array trie, the trie's 32-bit units, then the replacement strings, each terminated by NUL.
The trie maps UTF-8 byte strings to the offset of their replacement. HF ``tokenizer.json`` files
keep the same blob in base64 in a ``Precompiled`` normaliser.

Normalisation (SentencePiece ``normalizer.cc``, ``Normalizer::NormalizePrefix``) walks the input
left to right; at each position the *longest* key of the trie that is a prefix of the remaining
UTF-8 bytes is replaced by its string, and when no key matches one character is copied. A byte
that does not start a valid UTF-8 character (here only the bytes of a lone surrogate, the one
invalid thing a Python string can hold) becomes U+FFFD and consumes one byte.

A unit of the trie (Darts-clone ``DoubleArrayUnit``): bit 8 says that a leaf hangs below the
unit, bits 0-7 (plus bit 31, set for leaves) are the label, the value of a leaf is bits 0-30 and
the offset to the children is ``(unit >> 10) << (8 if bit 9 else 0)``. A transition on byte
``b`` from node ``n`` goes to ``n ^ offset(unit[n]) ^ b`` and exists when that unit's label is
``b``; the leaf below a node is at ``n ^ offset(unit[n])``.

HF ``tokenizers.normalizers.Precompiled`` differs from SentencePiece on purpose in a few places
(it looks up whole grapheme clusters shorter than 6 bytes first); this module follows
SentencePiece.
"""

from __future__ import annotations

import base64
import binascii
import struct
import sys
from array import array
from functools import lru_cache

from core.errors import InputError

_REPLACEMENT = "\ufffd"


def _utf8_length(char: str) -> int:
    code = ord(char)
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


class Charsmap:
    """A parsed ``precompiled_charsmap``; immutable, compared by its bytes."""

    def __init__(self, units: array, strings: bytes, blob: bytes):
        self._units = units
        self._size = len(units)
        self._strings = strings
        self.blob = blob
        root = units[0] if units else 0
        self._root = (root >> 10) << ((root >> 6) & 8)
        # Bytes with a transition out of the root: every other character is copied at once.
        self._starts = frozenset(b for b in range(1, 256) if self._child(self._root, b) is not None)
        self._replacement = lru_cache(maxsize=None)(self._string_at)

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, blob: bytes, source: str = "<charsmap>") -> Charsmap:
        """Parse the blob; InputError when it is not a charsmap."""
        if not isinstance(blob, (bytes, bytearray)):
            raise InputError(f"a precompiled charsmap must be bytes, got {type(blob).__name__}", source)
        blob = bytes(blob)
        if len(blob) <= 4:
            raise InputError("precompiled charsmap is too short (broken normalisation rule blob)", source)
        (trie_size,) = struct.unpack_from("<I", blob)
        if trie_size % 4 or trie_size > len(blob) - 4:
            raise InputError(
                f"precompiled charsmap: trie size {trie_size} does not fit the {len(blob)}-byte blob", source
            )
        units = array("I")
        if units.itemsize != 4:  # pragma: no cover - every CPython platform has 4-byte "I"
            units = array("L")
        strings = blob[4 + trie_size :]
        for segment in strings.split(b"\0"):
            try:
                segment.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(f"precompiled charsmap: replacement {segment[:12]!r} is not UTF-8", source) from None
        units.frombytes(blob[4 : 4 + trie_size])
        if sys.byteorder == "big":  # pragma: no cover
            units.byteswap()
        return cls(units, blob[4 + trie_size :], blob)

    @classmethod
    def from_base64(cls, text: str, source: str = "<charsmap>") -> Charsmap:
        try:
            blob = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise InputError("precompiled charsmap is not valid base64", source) from None
        return cls.from_bytes(blob, source)

    def to_base64(self) -> str:
        return base64.b64encode(self.blob).decode("ascii")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Charsmap) and self.blob == other.blob

    def __hash__(self) -> int:
        return hash(self.blob)

    def __repr__(self) -> str:
        return f"Charsmap({len(self.blob)} bytes, {self._size} trie units)"

    # --- the trie ------------------------------------------------------------------------------
    def _child(self, node: int, byte: int) -> int | None:
        """The node reached from ``node`` on ``byte`` (already past its unit's offset)."""
        node ^= byte
        if node >= self._size or self._units[node] & 0x800000FF != byte:
            return None
        return node

    def _string_at(self, offset: int) -> str:
        end = self._strings.find(b"\0", offset)
        if offset >= len(self._strings) or end < 0:
            raise InputError(
                f"precompiled charsmap: replacement offset {offset} lies outside the string table (corrupt charsmap)"
            )
        try:
            return self._strings[offset:end].decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"precompiled charsmap: replacement at offset {offset} is not UTF-8") from None

    def longest_match(self, data: bytes, pos: int) -> tuple[int, str] | None:
        """(length in bytes, replacement) of the longest key that prefixes ``data[pos:]``."""
        units, size = self._units, self._size
        node, best = self._root, None
        for i in range(pos, len(data)):
            byte = data[i]
            node ^= byte
            if node >= size:
                break
            unit = units[node]
            if unit & 0x800000FF != byte:
                break
            node ^= (unit >> 10) << ((unit >> 6) & 8)
            if unit & 0x100:
                if node >= size:
                    break
                best = (i + 1 - pos, units[node] & 0x7FFFFFFF)
        if best is None:
            return None
        return best[0], self._replacement(best[1])

    # --- normalisation -------------------------------------------------------------------------
    def pieces(self, text: str, protected=None) -> list[tuple[int, int, str]]:
        """The normalisation loop as ``(start, end, output)`` steps over character indices of
        ``text``: each step consumed ``text[start:end]`` and produced ``output``.

        ``protected(text, i)`` (optional) returns the length in characters of a string to copy
        unchanged at ``i`` (0 for none): SentencePiece's user-defined pieces, which it matches
        before the charsmap.
        """
        return charsmap_pieces(self, text, protected)

    def normalise_with_sources(self, text: str) -> tuple[str, tuple[int, ...]]:
        """Normalised text and, for every output character, the index in ``text`` of the
        character that produced it (the first character of a multi-character match)."""
        out, sources = [], []
        for start, _, output in self.pieces(text):
            out.append(output)
            sources.extend([start] * len(output))
        return "".join(out), tuple(sources)

    def normalise(self, text: str) -> str:
        return "".join(output for _, _, output in self.pieces(text))


def charsmap_pieces(charsmap: Charsmap | None, text: str, protected=None) -> list[tuple[int, int, str]]:
    """:meth:`Charsmap.pieces`; with ``charsmap=None`` (the "identity" rule) only ``protected``
    strings and single characters (lone surrogates still become U+FFFD)."""
    if not isinstance(text, str):
        raise InputError(f"expected text (str), got {type(text).__name__}")
    steps: list[tuple[int, int, str]] = []
    n = len(text)
    starts = charsmap._starts if charsmap is not None else frozenset()
    data = None
    byte_at: list[int] = []  # byte offset of every character (and of the end)
    char_at: dict[int, int] = {}
    i = 0
    while i < n:
        if protected is not None:
            length = protected(text, i)
            if length:
                steps.append((i, i + length, text[i : i + length]))
                i += length
                continue
        char = text[i]
        code = ord(char)
        if 0xD800 <= code < 0xE000:  # a lone surrogate: three invalid bytes, one U+FFFD each
            steps.append((i, i + 1, _REPLACEMENT * 3))
            i += 1
            continue
        first = code if code < 0x80 else char.encode("utf-8")[0]
        if first not in starts or charsmap is None:  # (no starts without a charsmap)
            steps.append((i, i + 1, char))
            i += 1
            continue
        if data is None:
            data = text.encode("utf-8", "surrogatepass")
            offset = 0
            for k, c in enumerate(text):
                byte_at.append(offset)
                char_at[offset] = k
                offset += _utf8_length(c)
            byte_at.append(offset)
            char_at[offset] = n
        match = charsmap.longest_match(data, byte_at[i])
        end = char_at.get(byte_at[i] + match[0]) if match is not None else None
        if match is None or end is None:  # no key (or one ending inside a character, which real maps never hold)
            steps.append((i, i + 1, char))
            i += 1
        else:
            steps.append((i, end, match[1]))
            i = end
    return steps
