"""Running text as token chips, as tiktokenizer shows it: ids, counts, whitespace and bytes visible.

No paper section: a view. :func:`text_tokens` places each token of ``tokeniser.tokenise(text)`` on
the characters of the text it stands for (through the pre-tokeniser's source indices), so a chip
can link to the word it belongs to and say when it holds only some bytes of a character (a UTF-8
character split across byte-level tokens, or SentencePiece byte fallback ``<0xNN>``).
:func:`running_text_html` draws the chips in alternating colours, each with its id (or only its id),
and a menu of two links: the token's type in the merge graph, and the tree of its word in the word
debugger. Every piece of text goes through :mod:`viz.escaping`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from core.pipeline.base import Pretokeniser
from viz.escaping import html_escape
from viz.tokens import CHIP_COLOURS, UNKNOWN_COLOUR, _chip_text, code_points, shown, visible

#: A SentencePiece / HF byte-fallback token.
BYTE_TOKEN = re.compile(r"<0x[0-9A-Fa-f]{2}>")
MAX_LINKED_WORD = 200  # characters: a longer "word" gets no tree link (the URL would be unwieldy)

#: Page-wide CSS for the chips (a style-only ``st.html``): the link menu opens on hover or focus.
RUNNING_TEXT_CSS = (
    """<style>
.rt-view { line-height: 1.2; padding-bottom: 2.2rem; }
.rt-token { position: relative; display: inline-block; vertical-align: top; margin: 3px 1px; padding: 2px 6px 1px;
  border: 1px solid #57534e; border-radius: 6px; color: #1c1917; text-align: center; white-space: pre;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1.25rem; cursor: default; }
.rt-token .rt-id { display: block; font-size: 0.72rem; line-height: 1.1; opacity: 0.75; }
.rt-token.rt-bytes { border: 2px dotted #1c1917; }
.rt-token.rt-unknown { border: 2px dashed #b91c1c; }
.rt-token.rt-differs { box-shadow: 0 0 0 2px #b91c1c; }
.rt-token:hover, .rt-token:focus-within { outline: 2px solid #1d4ed8; z-index: 20; }
.rt-links { display: none; position: absolute; left: -1px; top: 100%; z-index: 21; padding: 3px 8px;
  background: #ffffff; border: 1px solid #57534e; border-radius: 6px; white-space: nowrap;
  font-family: sans-serif; font-size: 0.9rem; line-height: 1.5; }
.rt-token:hover .rt-links, .rt-token:focus-within .rt-links { display: block; }
.rt-links a { color: #1d4ed8; margin-right: 10px; }
.rt-links a:last-child { margin-right: 0; }
"""
    + "".join(f".rt-c{i} {{ background: {colour}; }}\n" for i, colour in enumerate(CHIP_COLOURS))
    + (f".rt-unknown {{ background: {UNKNOWN_COLOUR}; }}\n</style>")
)


@dataclass(frozen=True)
class TextToken:
    """One token of running text and where it stands in the text."""

    token: str
    id: int | None
    span: tuple[int, int] | None  # the characters of the text it stands for (None: an inserted marker)
    surface: str  # those characters
    word: str | None  # the whitespace-separated word of the text it lies in
    partial: bool  # holds only some of a character's bytes (shares it with a neighbour)

    @property
    def is_bytes(self) -> bool:
        return self.partial or bool(BYTE_TOKEN.fullmatch(self.token))


def _span(sources: Sequence[int], start: int, end: int) -> tuple[int, int] | None:
    found = [s for s in sources[start:end] if s >= 0]
    return (min(found), max(found) + 1) if found else None


def token_spans(pretokeniser: Pretokeniser, text: str, tokens: Sequence[str]) -> list[tuple[int, int] | None]:
    """For each token, the characters of the text (as the pre-tokeniser's sources index it) that
    it stands for. Tokens are laid on the pretokens' characters in order; a byte-fallback token
    takes one byte of the next character; a token that does not continue the text (characters
    before it were dropped as unknown) is placed where it next occurs; one that occurs nowhere
    (an unk token) stands for the characters up to the next token (at least one)."""
    pieces = pretokeniser.pretokenise_with_sources(text)
    flat = "".join(p.text for p in pieces)
    sources = [s for p in pieces for s in p.sources]
    ranges: list[list[int]] = []  # per token, [start, end) in ``flat``
    unspelled: list[int] = []  # the tokens that spell nothing of the text
    pos = byte = 0  # next character of ``flat``; bytes of it already taken by byte tokens
    for token in tokens:
        if BYTE_TOKEN.fullmatch(token) and pos < len(flat):
            ranges.append([pos, pos + 1])
            byte += 1
            if byte >= len(flat[pos].encode("utf-8", "surrogatepass")):
                pos, byte = pos + 1, 0
            continue
        if byte:  # a character whose bytes stopped short: go on after it
            pos, byte = pos + 1, 0
        start = flat.find(token, pos) if token else -1
        if start < 0:
            unspelled.append(len(ranges))
            start = pos
            token = flat[pos : pos + 1]
        pos = start + len(token)
        ranges.append([start, pos])
    for i in unspelled:
        following = ranges[i + 1][0] if i + 1 < len(ranges) else len(flat)
        ranges[i][1] = max(ranges[i][1], following)
    return [_span(sources, start, end) for start, end in ranges]


def word_at(text: str, span: tuple[int, int] | None) -> str | None:
    """The whitespace-separated word of ``text`` holding the first non-space character of ``span``."""
    if span is None:
        return None
    first = next((i for i in range(*span) if i < len(text) and not text[i].isspace()), None)
    if first is None:
        return None
    start, end = first, first + 1
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]


def text_tokens(
    pretokeniser: Pretokeniser, text: str, tokens: Sequence[str], id_of: Callable[[str], int | None]
) -> list[TextToken]:
    """``tokens`` (the tokeniser's output for ``text``) with their ids, places and words."""
    source_text = text if pretokeniser.sources_in_original else pretokeniser.normalise(text)
    spans = token_spans(pretokeniser, text, tokens)

    def overlaps(a, b) -> bool:
        return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]

    out = []
    for i, (token, span) in enumerate(zip(tokens, spans, strict=True)):
        partial = (i > 0 and overlaps(spans[i - 1], span)) or (i + 1 < len(spans) and overlaps(span, spans[i + 1]))
        surface = source_text[span[0] : span[1]] if span else ""
        out.append(TextToken(token, id_of(token), span, surface, word_at(source_text, span), partial))
    return out


def differing(pieces: Sequence[TextToken], against: Sequence[TextToken]) -> set[int]:
    """Indexes of ``pieces`` whose stretch of the text is no token of ``against`` (the same text
    tokenised by another tokeniser): where the two tokenisers cut the text differently."""
    theirs = {piece.span for piece in against}
    return {i for i, piece in enumerate(pieces) if piece.span not in theirs}


def _href(path: str, params: Mapping[str, str]) -> str:
    return f"{path}?{urlencode(dict(params), quote_via=quote)}"


def running_text_html(
    pieces: Sequence[TextToken],
    display: Callable[[str], str] = lambda t: t,
    *,
    show_ids: bool = False,
    types: Collection[str] | None = None,
    markers: Sequence[str] = (),
    graph_link: Mapping[str, str] | None = None,
    tree_link: Mapping[str, str] | None = None,
    differs: Collection[int] = (),
) -> str:
    """The chips of running text (style: :data:`RUNNING_TEXT_CSS`), a line break after each token
    that holds one; ``show_ids``: only the ids. ``graph_link``: the query of a link to the merge
    graph page (``type`` added per token); ``tree_link``: the query of a link to this page
    (``word`` added per token). A token outside ``types`` gets a dashed red border, one holding
    bytes (part of a character, or a byte-fallback token) a dotted one, one whose index is in
    ``differs`` (:func:`differing`) a red ring."""
    chips = []
    for i, piece in enumerate(pieces):
        token = piece.token
        known = types is None or token in types
        classes = (
            ["rt-token", f"rt-c{i % len(CHIP_COLOURS)}" if known else "rt-unknown"]
            + (["rt-bytes"] if piece.is_bytes else [])
            + (["rt-differs"] if i in differs else [])
        )
        number = "?" if piece.id is None else str(piece.id)
        tip = [f"token {token!r}", f"id {number}", code_points(token)]
        if piece.partial:
            tip.append(f"part of the bytes of {visible(piece.surface)!r} (a character split across tokens)")
        if not known:
            tip.append("not a type of this tokeniser")
        if i in differs:
            tip.append("the first tokeniser cuts this stretch of the text differently")
        links = []
        if graph_link is not None:
            href = _href("merge_graph", {**graph_link, "type": token})
            links.append(f'<a class="rt-graph" href="{html_escape(href)}" target="_self">merge graph</a>')
        if tree_link is not None and piece.word and len(piece.word) <= MAX_LINKED_WORD:
            href = _href("", {**tree_link, "word": piece.word})
            links.append(
                f'<a class="rt-tree" href="{html_escape(href)}" target="_self">'
                f"tree of {html_escape(visible(piece.word))}</a>"
            )
        body = (
            f'<span class="rt-text">{html_escape(number)}</span>'
            if show_ids
            else f'<span class="rt-text">{_chip_text(shown(token, display), markers)}</span>'
            f'<span class="rt-id">{html_escape(number)}</span>'
        )
        menu = f'<span class="rt-links">{"".join(links)}</span>' if links else ""
        chips.append(
            f'<span class="{" ".join(classes)}" tabindex="0" data-token="{html_escape(token)}" '
            f'data-id="{html_escape(number)}" title="{html_escape(" · ".join(tip))}">{body}{menu}</span>'
        )
        chips.append("<br>" * min(piece.surface.count("\n"), 2))
    return f'<div class="rt-view">{"".join(chips)}</div>'
