"""Tokens as HTML chips, with whitespace and raw bytes made visible and everything escaped.

Pure functions returning strings, for ``st.html`` (no markdown processing, so ``_``, ``*``, ``$``
and backslashes inside tokens are shown as they are). Every piece of text that reaches the HTML
goes through :func:`html.escape`, attribute values included.
"""
from __future__ import annotations

import html
import re
from typing import Callable, Collection, Mapping, Sequence

VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}

#: Alternating chip colours: adjacent tokens always differ, and the text stays dark on a light
#: background whatever the Streamlit theme (projectors wash out low-contrast colours).
CHIP_COLOURS = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8")
UNKNOWN_COLOUR = "#fecaca"

#: Page-wide CSS (a style-only ``st.html`` takes no space): tokens in ``st.table`` cells are markdown
#: code spans, as are the markers in captions and notes, and Streamlit draws inline code at 0.75em --
#: too small on a projector, where ``Ġ`` reads as ``G``.
PAGE_CSS = """<style>
[data-testid="stTable"] td code, [data-testid="stTable"] th code { font-size: 1.05em; }
[data-testid="stCaptionContainer"] code, [data-testid="stAlert"] code { font-size: 0.95em; }
</style>"""

_CHIP_STYLE = (
    "display:inline-block;margin:3px 2px;padding:4px 10px;border-radius:8px;"
    "border:1px solid #57534e;color:#1c1917;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "line-height:1.3;white-space:pre"
)


def visible(text: str) -> str:
    """Whitespace as ␣ ↵ ⇥ ␍, other control characters as \\xNN."""
    out = []
    for ch in text:
        if ch in VISIBLE:
            out.append(VISIBLE[ch])
        elif ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def shown(token: str, display: Callable[[str], str] = lambda t: t) -> str:
    """The readable form of a token: the pre-tokeniser's ``display`` (bytes decoded, markers kept),
    then whitespace and control characters made visible. Never empty (an empty token shows ∅)."""
    return visible(display(token)) or "∅"


def code_points(token: str) -> str:
    """``U+0120 U+0062`` ...: what the token really is, for tooltips."""
    return " ".join(f"U+{ord(c):04X}" for c in token)


def _chip_text(text: str, markers: Sequence[str]) -> str:
    """Escaped chip text with leading markers faded (only when something follows them)."""
    lead = 0
    while True:
        marker = next((m for m in markers if m and text.startswith(m, lead)), None)
        if marker is None:
            break
        lead += len(marker)
    if lead == 0 or lead == len(text):
        return html.escape(text)
    return (f'<span class="tok-marker" style="opacity:0.45">{html.escape(text[:lead])}</span>'
            f"{html.escape(text[lead:])}")


def token_chips_html(
    tokens: Sequence[str],
    display: Callable[[str], str] = lambda t: t,
    *,
    types: Collection[str] | None = None,
    ids: Mapping[str, int] | None = None,
    markers: Sequence[str] = (),
    font_size: str = "1.6rem",
) -> str:
    """One chip per token in alternating colours; ``display`` maps a token to its readable form.

    With ``types``, a token that is not a type of the tokeniser (a character outside its alphabet)
    gets a dashed red border. With ``ids``, the tooltip also names the token id. A word-start or
    capital marker (``markers``, e.g. ``Ġ ▁ _ ↑``) at the start of a token is drawn faded, so it
    reads as a marker rather than a letter.
    """
    chips = []
    for i, token in enumerate(tokens):
        known = types is None or token in types
        tip = [f"token {token!r}", code_points(token)]
        if ids is not None and token in ids:
            tip.insert(1, f"id {ids[token]}")
        if not known:
            tip.append("not a type of this tokeniser")
        colour = CHIP_COLOURS[i % len(CHIP_COLOURS)] if known else UNKNOWN_COLOUR
        border = "" if known else "border:2px dashed #b91c1c;"
        chips.append(
            f'<span class="tok-chip" data-token="{html.escape(token, quote=True)}" '
            f'title="{html.escape(" · ".join(tip), quote=True)}" '
            f'style="{_CHIP_STYLE};font-size:{html.escape(font_size)};background:{colour};{border}">'
            f"{_chip_text(shown(token, display), markers)}</span>"
        )
    return "".join(chips)


def segmentation_html(
    word: str,
    tokens: Sequence[str],
    display: Callable[[str], str] = lambda t: t,
    *,
    types: Collection[str] | None = None,
    ids: Mapping[str, int] | None = None,
    markers: Sequence[str] = (),
) -> str:
    """A word (escaped, whitespace visible), its token count and its tokens as chips."""
    count = f"{len(tokens)} token" + ("" if len(tokens) == 1 else "s")
    return (
        '<div class="tok-word" style="margin:0 0 4px 0">'
        '<div style="font-size:1.15rem;margin-bottom:2px">'
        f'<b>{html.escape(visible(word))}</b> <span style="opacity:0.7">→ {count}</span></div>'
        f'<div class="tok-chips">{token_chips_html(tokens, display, types=types, ids=ids, markers=markers)}</div>'
        "</div>"
    )


def alphabet_html(alphabet: Sequence[str], display: Callable[[str], str] = lambda t: t) -> str:
    """The alphabet as small chips (bytes decoded or shown as ``\\xNN``)."""
    return f'<div class="tok-alphabet">{token_chips_html(alphabet, display, font_size="1rem")}</div>'


def code_span(text: str) -> str:
    """``text`` as a markdown code span (shown literally, in monospace), whatever backticks it holds."""
    runs = re.findall(r"`+", text)
    fence = "`" * (max(map(len, runs), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def split_words(text: str | None, limit: int = 20) -> tuple[list[str], int]:
    """The first ``limit`` whitespace-separated words of ``text`` and how many there were."""
    words = (text or "").split()
    return words[:limit], len(words)
