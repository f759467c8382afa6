"""Tokens as HTML chips, with whitespace and raw bytes made visible and everything escaped.

Pure functions returning strings, for ``st.html`` (no markdown processing, so ``_``, ``*``, ``$``
and backslashes inside tokens are shown as they are). Every piece of text that reaches the HTML
goes through :func:`viz.escaping.html_escape`, attribute values included.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import regex

from viz.escaping import html_escape
from viz.ranks import rank_help, rank_text

VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}

#: Alternating chip colours: adjacent tokens always differ, and the text stays dark on a light
#: background whatever the Streamlit theme (projectors wash out low-contrast colours).
CHIP_COLOURS = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8")
UNKNOWN_COLOUR = "#fecaca"

#: Page-wide CSS (a style-only ``st.html`` takes no space): tokens in ``st.table`` cells are markdown
#: code spans, as are the markers in captions and notes, and Streamlit draws inline code at 0.75em --
#: too small on a projector, where ``Ġ`` reads as ``G``. Links to other pages wrap instead of ending in "…".
PAGE_CSS = """<style>
[data-testid="stTable"] td code, [data-testid="stTable"] th code { font-size: 1.05em; }
[data-testid="stCaptionContainer"] code, [data-testid="stAlert"] code { font-size: 0.95em; }
.tok-chip[data-id]::after { content: attr(data-id); font-size: 0.5em; opacity: 0.75; margin-left: 0.45em;
  font-family: sans-serif; white-space: nowrap; }
[data-testid="stPageLink-NavLink"] span, [data-testid="stPageLink-NavLink"] p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
</style>"""

_CHIP_STYLE = (
    "display:inline-block;margin:3px 2px;padding:4px 10px;border-radius:8px;"
    "border:1px solid #57534e;color:#1c1917;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "line-height:1.3;white-space:pre"
)


#: str.translate table of :func:`visible`: VISIBLE, then the other C0/C1 controls as \\xNN.
_VISIBLE_TABLE = {c: VISIBLE.get(chr(c), f"\\x{c:02x}") for c in (*range(32), *range(0x7F, 0xA0))} | {
    ord(ch): shown_as for ch, shown_as in VISIBLE.items()
}


def visible(text: str) -> str:
    """Whitespace as ␣ ↵ ⇥ ␍, other control characters as \\xNN."""
    return text.translate(_VISIBLE_TABLE)


def shown(token: str, display: Callable[[str], str] = lambda t: t) -> str:
    """The readable form of a token: the pre-tokeniser's ``display`` (bytes decoded, markers kept),
    then whitespace and control characters made visible. Never empty (an empty token shows ∅)."""
    return visible(display(token)) or "∅"


def drawn(token: str, display: Callable[[str], str] = lambda t: t) -> str:
    """:func:`shown`, with the remaining invisible characters (line/paragraph separators, format
    characters such as U+200B, odd spaces) written as ``\\uXXXX`` too: a label drawn in a graph or a
    tree must never look empty or break a line."""
    text = shown(token, display)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)


def code_points(token: str) -> str:
    """``U+0120 U+0062`` ...: what the token really is, for tooltips."""
    return " ".join(f"U+{ord(c):04X}" for c in token)


# --- characters as people see them ------------------------------------------------------------------
_GRAPHEME = regex.compile(r"\X")
_WIDE = regex.compile(r"\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F")


@dataclass(frozen=True)
class Character:
    """One character as people read it (a grapheme cluster: ``é``, ``猫``, ``👩‍👩‍👧``) and the
    symbols of a token string it is made of: ``text[start:end]`` (two bytes ``Ã©`` for ``é`` in a
    byte-level tokeniser, five code points for the ZWJ family ``👩‍👩‍👧`` in a character-level one)."""

    start: int
    end: int
    label: str  # the readable form (:func:`shown`)

    @property
    def symbols(self) -> int:
        return self.end - self.start


def characters(text: str, display: Callable[[str], str] = lambda t: t) -> list[Character]:
    """``text`` (a pretoken: symbols of the tokeniser's alphabet) cut into the characters people see.

    A cut between symbols k-1 and k is a character boundary when ``display`` reads the two sides
    apart as it reads the whole (a byte-level cut inside ``é`` reads ``\\xc3`` + ``\\xa9``
    instead) and the readable text has a grapheme boundary there (Unicode ``\\X``: a ZWJ sequence
    or a letter with a combining accent stays one character). Linear when ``display`` reads the
    text symbol by symbol (plain text, markers), quadratic in ``len(text)`` otherwise (bytes of
    multi-byte characters): meant for words, not for whole documents.
    """
    if not text:
        return []
    whole = display(text)
    graphemes = {0, *(m.end() for m in _GRAPHEME.finditer(whole))}
    each = [display(symbol) for symbol in text]
    if "".join(each) == whole:
        ends, total = [], 0
        for k, piece in enumerate(each[:-1], 1):
            total += len(piece)
            ends.append((k, total))
        cuts = [0, *(k for k, end in ends if end in graphemes)]
    else:
        cuts = [0]
        for k in range(1, len(text)):
            left = display(text[:k])
            if len(left) in graphemes and left + display(text[k:]) == whole:
                cuts.append(k)
    cuts.append(len(text))
    return [Character(a, b, _glyph(text[a:b], display)) for a, b in pairwise(cuts)]


def _glyph(symbols: str, display: Callable[[str], str]) -> str:
    """A character's label: the glyph as it is (a ZWJ inside a family stays, invisible), a combining
    mark without its letter (the pre-tokeniser split them) on a dotted circle, and a character that
    is itself invisible (a lone ZWJ, U+200B) written out as :func:`drawn` does."""
    text = shown(symbols, display)
    if unicodedata.category(text[0]).startswith("M"):
        return "\u25cc" + text
    return text if text[:1].isprintable() else drawn(symbols, display)


def columns(label: str) -> int:
    """How many monospace columns ``label`` takes: two for a wide character (CJK, emoji), else one
    per grapheme cluster (a combining accent or a ZWJ adds none)."""
    total = 0
    for cluster in _GRAPHEME.findall(label):
        wide = unicodedata.east_asian_width(cluster[0]) in "WF" or _WIDE.search(cluster)
        total += 2 if wide else 1
    return total


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
    return f'<span class="tok-marker" style="opacity:0.45">{html_escape(text[:lead])}</span>{html_escape(text[lead:])}'


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
    gets a dashed red border. With ``ids``, each chip shows its token id (``data-id``, drawn small
    after the text by :data:`PAGE_CSS`, so it is not part of the chip's text; in the tooltip too), so
    an id is never mistaken for a merge rank. A word-start or
    capital marker (``markers``, e.g. ``Ġ ▁ _ ↑``) at the start of a token is drawn faded, so it
    reads as a marker rather than a letter.
    """
    chips = []
    for i, token in enumerate(tokens):
        known = types is None or token in types
        tip = [f"token {token!r}", code_points(token)]
        id_attribute = ""
        if ids is not None and token in ids:
            tip.insert(1, f"id {ids[token]}")
            id_attribute = f' data-id="{ids[token]}"'
        if not known:
            tip.append("not a type of this tokeniser")
        colour = CHIP_COLOURS[i % len(CHIP_COLOURS)] if known else UNKNOWN_COLOUR
        border = "" if known else "border:2px dashed #b91c1c;"
        chips.append(
            f'<span class="tok-chip" data-token="{html_escape(token)}"{id_attribute} '
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
    return (
        '<div class="tok-words" style="display:flex;flex-wrap:wrap;column-gap:36px;row-gap:8px">'
        + "".join(blocks)
        + "</div>"
    )


def alphabet_html(alphabet: Sequence[str], display: Callable[[str], str] = lambda t: t) -> str:
    """The alphabet as small chips (bytes decoded or shown as ``\\xNN``)."""
    return f'<div class="tok-alphabet">{token_chips_html(alphabet, display, font_size="1rem")}</div>'


def split_words(text: str | None, limit: int = 20) -> tuple[list[str], int]:
    """The first ``limit`` whitespace-separated words of ``text`` and how many there were."""
    words = (text or "").split()
    return words[:limit], len(words)


# --- the word debugger's strips ---------------------------------------------------------------------
#: Colour, mark and meaning of each boundary verdict (core.analysis.explain): a reference split kept or lost,
#: a split the reference does not have, a merge inside a morph. The marks are plain characters that
#: every font has (no emoji or dingbats, which some machines draw as empty boxes).
VERDICT_STYLE = {
    "correct split": ("#15803d", "|", "reference split, kept"),
    "missed split": ("#dc2626", "\u00d7", "reference split, merged away"),
    "extra split": ("#d97706", "!", "split the reference does not have"),
    "correctly merged": ("#a8a29e", "\u00b7", "merged, no reference split"),
    "": ("#a8a29e", "\u00b7", "not compared"),
}
TOKEN_BOUNDARY = ("#1c1917", "|", "token boundary")
INNER_SPLIT, INNER_JOINED = "#1c1917", "#a8a29e"  # ticks between the symbols inside one character's box

#: px widths of the strip's columns: a character's box (at least), a boundary, the gap between pretokens
BOX_PX, BOUNDARY_PX, GAP_PX = 32, 24, 22
COLUMN_PX, SYMBOL_PX = 13, 7  # one monospace column of a glyph at 1.35rem; one symbol's slot in the ruler
_MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"


def box_width(character: Character) -> int:
    """The px width of a character's box: room for its glyph (CJK and emoji take two columns, an
    undecodable byte ``\\xa9`` four) and for a slot per symbol in its ruler."""
    return max(BOX_PX, COLUMN_PX * columns(character.label) + 12, SYMBOL_PX * character.symbols + 10)


def _removed_by(boundary, display: Callable[[str], str]) -> str:
    parts = " + ".join(shown(p, display) for p in boundary.merge.parts)
    help_text = rank_help(boundary.merge.rank)
    return f"removed by {parts} (rank {rank_text(boundary.merge.rank)}, step {boundary.step})" + (
        f". {help_text}" if help_text else ""
    )


def _box(text: str, character: Character, pretoken: int, by_place: Mapping, display: Callable[[str], str]) -> str:
    """One character's box: its glyph and, when it is made of several symbols (bytes), a ruler with
    a slot per symbol and a tick between two of them: tall and dark where a token boundary falls
    inside the character, short and grey where a merge joined them."""
    symbols = text[character.start : character.end]
    tip = [f"{character.label} ({code_points(display(symbols))})"]
    ruler = ""
    if character.symbols > 1:
        tip.append(f"{character.symbols} symbols of the tokeniser's alphabet: " + " ".join(shown(s) for s in symbols))
        slots = []
        for k in range(character.symbols):
            slots.append('<span style="flex:1 1 0"></span>')
            if k == character.symbols - 1:
                break
            boundary = by_place.get((pretoken, character.start + k))
            if boundary is not None and boundary.merge is None:
                tip.append(f"a token boundary after symbol {k + 1}: the character is split across tokens")
                slots.append(
                    f'<span class="inner-split" style="flex:none;width:3px;height:12px;'
                    f'background:{INNER_SPLIT}"></span>'
                )
            else:
                if boundary is not None:
                    tip.append(f"symbols {k + 1} and {k + 2} {_removed_by(boundary, display)}")
                slots.append(
                    f'<span class="inner-joined" style="flex:none;width:1px;height:5px;'
                    f'background:{INNER_JOINED}"></span>'
                )
        ruler = (
            '<div class="symbols" style="display:flex;align-items:flex-end;height:12px;margin:1px 5px 0;'
            f'border-bottom:1px solid {INNER_JOINED}">' + "".join(slots) + "</div>"
        )
    width = box_width(character)
    return (
        f'<td style="width:{width}px;min-width:{width}px;padding:3px 0 2px;text-align:center;vertical-align:top;'
        f"font-family:{_MONO};font-size:1.35rem;border:1px solid #d6d3d1;border-radius:6px;background:#fafaf9;"
        f'color:#1c1917;white-space:pre" class="char" data-symbols="{character.symbols}" '
        f'title="{html_escape(" · ".join(tip))}">'
        + (f'<div class="glyph">{html_escape(character.label)}</div>{ruler}' if ruler else html_escape(character.label))
        + "</td>"
    )


def boundary_strip_html(
    pretokens: Sequence[str],
    boundaries: Sequence,
    display: Callable[[str], str] = lambda t: t,
) -> str:
    """The blame view: one box per character of the word's pretokens (however many bytes it has)
    with, between each two, whether the reference splits there and, if a merge removed the
    boundary, which one (its rank below, on two staggered rows, each label centred under the two
    characters it joins, so labels of neighbouring boundaries never collide). A boundary inside a
    character (between the bytes of ``é`` in a byte-level tokeniser) is a tick in its box.

    ``boundaries`` are :class:`core.analysis.explain.Boundary` objects (``pretoken``, ``offset``,
    ``verdict``, ``merge``, ``step``, ``split``). Without a reference (verdict ``""``) a token
    boundary shows ``|`` and a merged one a dot.
    """
    by_place = {(b.pretoken, b.offset): b for b in boundaries}
    top: list[str] = []
    widths: list[int] = []
    labels: list[tuple[int, str]] = []  # (column of the boundary, its label cell's content)
    multi = False  # some character is made of several symbols (its box has a ruler)
    for i, text in enumerate(pretokens):
        if i:
            top.append(f'<td style="width:{GAP_PX}px;min-width:{GAP_PX}px"></td>')
            widths.append(GAP_PX)
        chars = characters(text, display)
        multi = multi or any(c.symbols > 1 for c in chars)
        for n, character in enumerate(chars):
            top.append(_box(text, character, i, by_place, display))
            widths.append(box_width(character))
            boundary = by_place.get((i, character.end - 1))
            if boundary is None or n == len(chars) - 1:
                continue
            colour, symbol, meaning = VERDICT_STYLE.get(boundary.verdict, VERDICT_STYLE[""])
            if not boundary.verdict and boundary.merge is None:
                colour, symbol, meaning = TOKEN_BOUNDARY
            tip = f"{meaning}; " + (
                _removed_by(boundary, display) if boundary.merge is not None else "the tokens split here"
            )
            weight = "400" if symbol == VERDICT_STYLE[""][1] else "700"
            top.append(
                f'<td class="boundary" data-verdict="{html_escape(boundary.verdict)}" '
                f'title="{html_escape(tip)}" style="width:{BOUNDARY_PX}px;min-width:{BOUNDARY_PX}px;'
                f'text-align:center;color:{colour};font-weight:{weight};font-size:1.3rem;padding:0">'
                f"{symbol}</td>"
            )
            widths.append(BOUNDARY_PX)
            if boundary.merge is not None:
                labels.append(
                    (
                        len(top) - 1,
                        f'<span style="color:{colour}" title="{html_escape(tip)}">'
                        f"{html_escape(rank_text(boundary.merge.rank))}</span>",
                    )
                )
            else:
                labels.append((len(top) - 1, ""))
    rows = "".join(f'<tr style="line-height:1.1">{row}</tr>' for row in _label_rows(len(top), labels))
    legend = " &nbsp; ".join(
        f'<span style="white-space:nowrap"><span style="color:{c};font-weight:700">{s}</span> {html_escape(m)}</span>'
        for key, (c, s, m) in VERDICT_STYLE.items()
        if key
    )
    inner = (
        ""
        if not multi
        else (
            f'<span style="white-space:nowrap"><span style="display:inline-block;width:3px;height:0.9em;'
            f'background:{INNER_SPLIT};vertical-align:middle"></span> a token boundary inside a character (between '
            f'its bytes), <span style="display:inline-block;width:1px;height:0.45em;background:{INNER_JOINED};'
            'vertical-align:middle;margin:0 2px"></span> bytes a merge joined</span> &nbsp; '
        )
    )
    # A fixed table layout (needs a width) keeps every column at its set width: the characters
    # never move apart, and a rank label spans the two boxes beside its boundary.
    return (
        '<div class="boundary-strip" style="overflow-x:auto;padding-bottom:2px">'
        f'<table style="border-collapse:separate;border-spacing:0 2px;border:none;margin:0;table-layout:fixed;'
        f'width:{sum(widths)}px">'
        f"<tr>{''.join(top)}</tr>{rows}</table>"
        f'<div style="font-size:0.95rem;margin-top:6px;line-height:1.8">{legend} &nbsp; {inner}'
        '<span style="white-space:nowrap">#n = rank of the merge that removed the boundary</span></div></div>'
    )


def _label_rows(n_columns: int, labels: Sequence[tuple[int, str]]) -> list[str]:
    """Two rows of rank labels: the k-th boundary's label on row k % 2, in a cell spanning the
    boundary and the boxes on either side of it (labels on one row never share a column)."""
    rows = []
    for parity in (0, 1):
        mine = {column: content for k, (column, content) in enumerate(labels) if k % 2 == parity}
        cells, column = [], 0
        while column < n_columns:
            if column + 1 in mine:
                cells.append(
                    '<td colspan="3" class="rank-label" style="padding:0;text-align:center;'
                    f'font-size:0.8rem;white-space:nowrap;overflow:hidden">{mine[column + 1]}</td>'
                )
                column += 3
            else:
                cells.append('<td style="padding:0"></td>')
                column += 1
        rows.append("".join(cells))
    return rows


def facts_html(facts: Sequence[tuple[str, str]]) -> str:
    """Labelled numbers as a row of cards that wrap instead of truncating (``st.metric`` cuts
    ``39,995`` to ``39,9…`` in a narrow column)."""
    cards = "".join(
        '<div class="fact" style="min-width:92px">'
        f'<div style="font-size:0.85rem;opacity:0.75">{html_escape(label)}</div>'
        f'<div style="font-size:1.75rem;font-weight:600;line-height:1.2">{html_escape(value)}</div></div>'
        for label, value in facts
    )
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
        chips = (
            token_chips_html(tokens, display, types=types, markers=markers, font_size="1.3rem")
            if tokens is not None
            else ""
        )
        count = "" if tokens is None else f"{len(tokens)} token" + ("" if len(tokens) == 1 else "s")
        body.append(
            f'<tr class="comparison-row" data-label="{html_escape(label)}">'
            f'<td style="padding:6px 12px 6px 0;font-weight:600;min-width:7em;vertical-align:middle">'
            f"{html_escape(label)}</td>"
            f'<td class="tok-chips" style="padding:4px 8px;vertical-align:middle;white-space:normal">{chips}</td>'
            f'<td style="padding:4px 8px;white-space:nowrap;opacity:0.8;vertical-align:middle">'
            f"{html_escape(count)}</td>"
            f'<td style="padding:4px 0;opacity:0.8;vertical-align:middle">{html_escape(note)}</td></tr>'
        )
    # The chips wrap inside their cell (a word with emoji written as bytes makes long rows, which a
    # narrow column would otherwise cut off); the page scrolls sideways only for a single huge chip.
    return (
        '<div class="comparison" style="overflow-x:auto"><table style="border-collapse:collapse;border:none;'
        'width:100%">' + "".join(body) + "</table></div>"
    )
