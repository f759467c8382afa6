"""Making tokens readable for people (no paper section; display plumbing).

Control characters become escapes (``\\n``, ``\\t``, ``\\r``, ``\\xNN`` below U+0080,
``\\uNNNN`` from U+0080 on), so an escape ``\\xNN`` with NN >= 80 can only mean an undecodable byte
(see :func:`core.pipeline.byte_level.display_byte_chars`).
"""

from __future__ import annotations

import unicodedata

_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def escape_controls(text: str) -> str:
    """``text`` with every control character (category Cc) written as an escape."""
    out = []
    for c in text:
        if unicodedata.category(c) != "Cc":
            out.append(c)
        elif c in _NAMED:
            out.append(_NAMED[c])
        elif ord(c) < 0x80:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out)
