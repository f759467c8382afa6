"""The protobuf wire format, as far as SentencePiece ``.model`` files need it.

No paper section (file format). A message is a sequence of fields, each a varint key
``(number << 3) | wire type`` and a value: a varint (type 0), 8 or 4 little-endian bytes (types 1
and 5) or a varint length and that many bytes (type 2: strings, bytes, nested messages, packed
repeated fields). Groups (types 3 and 4) are not used by ``sentencepiece_model.proto`` and are
refused. Every error is an :class:`InputError` naming the source.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from core.errors import InputError

Value = int | bytes


def varint(data: bytes, pos: int, source: str) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it."""
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise InputError("truncated or malformed protobuf varint", source)
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def fields(data: bytes, source: str) -> Iterator[tuple[int, Value]]:
    """(field number, value) of every field of one message: an int for varints, bytes otherwise."""
    pos = 0
    value: Value
    while pos < len(data):
        key, pos = varint(data, pos, source)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(data, pos, source)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, pos = data[pos : pos + size], pos + size
        elif wire == 2:
            size, pos = varint(data, pos, source)
            value, pos = data[pos : pos + size], pos + size
        else:
            raise InputError(f"unsupported protobuf wire type {wire} (field {number}); is this a .model file?", source)
        if pos > len(data):
            raise InputError(f"truncated protobuf field {number}", source)
        yield number, value


def message(value: Value, field: str, source: str) -> dict[int, Value]:
    """A nested message as {field number: last value} (protobuf's rule for repeated scalars)."""
    if not isinstance(value, bytes):
        raise InputError(f"{field} must be a message", source)
    return dict(fields(value, source))


def text(value: Value, field: str, source: str) -> str:
    """A ``string`` field."""
    if not isinstance(value, bytes):
        raise InputError(f"{field} must be a string", source)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{field} is not valid UTF-8", source) from None


def float32(value: Value, field: str, source: str) -> float:
    """A ``float`` field (wire type 5)."""
    if not isinstance(value, bytes) or len(value) != 4:
        raise InputError(f"{field} must be a 32-bit float", source)
    return struct.unpack("<f", value)[0]


def flag(spec: dict[int, Value], number: int, default: bool) -> bool:
    """A ``bool`` field of a message read with :func:`message`, with its default."""
    return bool(spec.get(number, int(default)))
