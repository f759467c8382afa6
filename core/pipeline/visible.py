"""Making tokens readable for people (no paper section; display plumbing).

Control characters become escapes (``\\n``, ``\\t``, ``\\r``, ``\\xNN`` below U+0080,
``\\uNNNN`` from U+0080 on), so an escape ``\\xNN`` with NN >= 80 can only mean an undecodable byte
(see :func:`core.pipeline.byte_level.display_byte_chars`).
"""

from __future__ import annotations

import unicodedata

_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
#: str.translate table of the control characters (category Cc: U+0000..U+001F, U+007F..U+009F).
_ESCAPES = {
    c: _NAMED.get(chr(c), f"\\x{c:02x}" if c < 0x80 else f"\\u{c:04x}")
    for c in range(0xA0)
    if unicodedata.category(chr(c)) == "Cc"
}


def escape_controls(text: str) -> str:
    """``text`` with every control character (category Cc) written as an escape."""
    return text.translate(_ESCAPES)
