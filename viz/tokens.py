"""Tokens as HTML chips, with whitespace and raw bytes made visible and everything escaped."""
from __future__ import annotations

import html

VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}


def visible(text: str) -> str:
    """Whitespace as ␣ ↵ ⇥, other control characters as \\xNN."""
    out = []
    for ch in text:
        if ch in VISIBLE:
            out.append(VISIBLE[ch])
        elif ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def token_chips_html(tokens: list[str], display=lambda t: t) -> str:
    """One chip per token; ``display`` maps a token to its readable form (e.g. bytes decoded)."""
    chips = []
    for token in tokens:
        shown = visible(display(token))
        title = html.escape(" ".join(f"U+{ord(c):04X}" for c in token), quote=True)
        chips.append(
            f'<span title="{title}" style="display:inline-block;margin:2px;padding:2px 8px;border-radius:6px;'
            f'border:1px solid #888;background:#f4f1ea;font-family:monospace;font-size:1.2em">'
            f"{html.escape(shown)}</span>"
        )
    return "".join(chips)
