"""Tokens as HTML chips, with whitespace and raw bytes made visible and everything escaped.

Pure functions returning strings, for ``st.html`` (no markdown processing, so ``_``, ``*``, ``$``
and backslashes inside tokens are shown as they are). Every piece of text that reaches the HTML
goes through :func:`viz.escaping.html_escape`, attribute values included.
"""
from __future__ import annotations

from typing import Callable, Collection, Mapping, Sequence

from viz.escaping import html_escape

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
        return html_escape(text)
    return (f'<span class="tok-marker" style="opacity:0.45">{html_escape(text[:lead])}</span>'
            f"{html_escape(text[lead:])}")


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
            f'<span class="tok-chip" data-token="{html_escape(token)}" '
            f'title="{html_escape(" · ".join(tip))}" '
            f'style="{_CHIP_STYLE};font-size:{html_escape(font_size)};background:{colour};{border}">'
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
        f'<b>{html_escape(visible(word))}</b> <span style="opacity:0.7">→ {count}</span></div>'
        f'<div class="tok-chips">{token_chips_html(tokens, display, types=types, ids=ids, markers=markers)}</div>'
        "</div>"
    )


def words_html(blocks: Sequence[str]) -> str:
    """Several :func:`segmentation_html` blocks side by side, wrapping onto new lines in reading order."""
    return ('<div class="tok-words" style="display:flex;flex-wrap:wrap;column-gap:36px;row-gap:8px">'
            + "".join(blocks) + "</div>")


def alphabet_html(alphabet: Sequence[str], display: Callable[[str], str] = lambda t: t) -> str:
    """The alphabet as small chips (bytes decoded or shown as ``\\xNN``)."""
    return f'<div class="tok-alphabet">{token_chips_html(alphabet, display, font_size="1rem")}</div>'


def split_words(text: str | None, limit: int = 20) -> tuple[list[str], int]:
    """The first ``limit`` whitespace-separated words of ``text`` and how many there were."""
    words = (text or "").split()
    return words[:limit], len(words)


# --- the word debugger's strips ---------------------------------------------------------------------
#: Colour and symbol of each boundary verdict (core.explain): a reference split kept or lost, a
#: split the reference does not have, a merge inside a morph.
VERDICT_STYLE = {
    "correct split": ("#15803d", "✓", "reference split, kept"),
    "missed split": ("#dc2626", "✗", "reference split, merged away"),
    "extra split": ("#d97706", "!", "split the reference does not have"),
    "correctly merged": ("#a8a29e", "·", "merged, no reference split"),
    "": ("#a8a29e", "·", "not compared"),
}


def rank_text(rank) -> str:
    """A merge rank for people: whole floats without ``.0``."""
    return str(int(rank)) if isinstance(rank, float) and rank.is_integer() else str(rank)


def boundary_strip_html(
    pretokens: Sequence[str],
    boundaries: Sequence,
    display: Callable[[str], str] = lambda t: t,
) -> str:
    """The blame view: every character of the word's pretokens with, between each two, whether
    the reference splits there and, if a merge removed the boundary, which one (its rank below,
    on two staggered rows so that long ranks of neighbouring boundaries never collide).

    ``boundaries`` are :class:`core.explain.Boundary` objects (``pretoken``, ``offset``,
    ``verdict``, ``merge``, ``step``, ``split``). Without a reference (verdict ``""``) a token
    boundary shows ``|`` and a merged one ``·``.
    """
    by_place = {(b.pretoken, b.offset): b for b in boundaries}
    top: list[str] = []
    ranks: tuple[list[str], list[str]] = ([], [])
    char_cell = ('<td style="width:32px;min-width:32px;padding:3px 0;text-align:center;font-family:ui-monospace,'
                 'SFMono-Regular,Menlo,Consolas,monospace;font-size:1.35rem;border:1px solid #d6d3d1;'
                 'border-radius:6px;background:#fafaf9;color:#1c1917;white-space:pre">{}</td>')
    empty = '<td style="padding:0"></td>'
    seen = 0
    for i, text in enumerate(pretokens):
        if i:
            top.append('<td style="width:22px;min-width:22px"></td>')
            for row in ranks:
                row.append(empty)
        for k, ch in enumerate(text):
            top.append(char_cell.format(html_escape(shown(ch, display))))
            for row in ranks:
                row.append(empty)
            boundary = by_place.get((i, k))
            if boundary is None or k == len(text) - 1:
                continue
            colour, symbol, meaning = VERDICT_STYLE.get(boundary.verdict, VERDICT_STYLE[""])
            if not boundary.verdict and boundary.merge is None:
                colour, symbol, meaning = "#1c1917", "|", "token boundary"
            if boundary.merge is not None:
                parts = " + ".join(shown(p, display) for p in boundary.merge.parts)
                tip = f"{meaning}; removed by {parts} (rank {rank_text(boundary.merge.rank)}, step {boundary.step})"
                below = f"#{rank_text(boundary.merge.rank)}"
            else:
                tip, below = f"{meaning}; the tokens split here", ""
            weight = "400" if symbol == "·" else "700"
            top.append(f'<td class="boundary" data-verdict="{html_escape(boundary.verdict)}" '
                       f'title="{html_escape(tip)}" style="width:24px;min-width:24px;text-align:center;'
                       f'color:{colour};font-weight:{weight};font-size:1.3rem;padding:0">{symbol}</td>')
            label = (f'<td style="padding:0;text-align:center;color:{colour};font-size:0.8rem;white-space:nowrap;'
                     f'overflow:visible">{html_escape(below)}</td>')
            ranks[seen % 2].append(label)
            ranks[1 - seen % 2].append(empty)
            seen += 1
    legend = " &nbsp; ".join(
        f'<span style="white-space:nowrap"><span style="color:{c};font-weight:700">{s}</span> {html_escape(m)}</span>'
        for key, (c, s, m) in VERDICT_STYLE.items() if key)
    rows = "".join(f'<tr style="line-height:1.1">{"".join(row)}</tr>' for row in ranks)
    # A fixed table layout (needs a width) keeps every column at its set width, so a long rank
    # overflows into its empty neighbours instead of pushing the characters apart.
    chars = sum(len(text) for text in pretokens)
    width = 32 * chars + 24 * seen + 22 * max(len(pretokens) - 1, 0)
    return ('<div class="boundary-strip" style="overflow-x:auto;padding-bottom:2px">'
            f'<table style="border-collapse:separate;border-spacing:0 2px;border:none;margin:0;table-layout:fixed;'
            f'width:{width}px">'
            f'<tr>{"".join(top)}</tr>{rows}</table>'
            f'<div style="font-size:0.95rem;margin-top:6px;line-height:1.8">{legend} &nbsp; '
            '<span style="white-space:nowrap">#n = rank of the merge that removed the boundary</span></div></div>')


def facts_html(facts: Sequence[tuple[str, str]]) -> str:
    """Labelled numbers as a row of cards that wrap instead of truncating (``st.metric`` cuts
    ``39,995`` to ``39,9…`` in a narrow column)."""
    cards = "".join(
        '<div class="fact" style="min-width:92px">'
        f'<div style="font-size:0.85rem;opacity:0.75">{html_escape(label)}</div>'
        f'<div style="font-size:1.75rem;font-weight:600;line-height:1.2">{html_escape(value)}</div></div>'
        for label, value in facts)
    return f'<div class="facts" style="display:flex;flex-wrap:wrap;gap:6px 20px;margin-bottom:6px">{cards}</div>'


def comparison_html(
    rows: Sequence[tuple],
    display: Callable[[str], str] = lambda t: t,
    *,
    markers: Sequence[str] = (),
) -> str:
    """One word under several tokenisers: ``(label, tokens or None, note[, types])`` per row; a
    row without tokens shows only its note (e.g. why that tokeniser is not available); with
    ``types`` (that row's vocabulary) a token outside it gets the dashed red border."""
    body = []
    for row in rows:
        label, tokens, note = row[:3]
        types = row[3] if len(row) > 3 else None
        chips = (token_chips_html(tokens, display, types=types, markers=markers, font_size="1.3rem")
                 if tokens is not None else "")
        count = "" if tokens is None else f"{len(tokens)} token" + ("" if len(tokens) == 1 else "s")
        body.append(
            f'<tr class="comparison-row" data-label="{html_escape(label)}">'
            f'<td style="padding:6px 12px 6px 0;font-weight:600;white-space:nowrap;vertical-align:middle">'
            f"{html_escape(label)}</td>"
            f'<td class="tok-chips" style="padding:4px 8px;vertical-align:middle;white-space:nowrap">{chips}</td>'
            f'<td style="padding:4px 8px;white-space:nowrap;opacity:0.8;vertical-align:middle">{html_escape(count)}</td>'
            f'<td style="padding:4px 0;opacity:0.8;vertical-align:middle">{html_escape(note)}</td></tr>'
        )
    return ('<div class="comparison" style="overflow-x:auto"><table style="border-collapse:collapse;border:none">'
            + "".join(body) + "</table></div>")
