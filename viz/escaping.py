"""The one way a string from a file or a URL reaches the page: one escaping function per output context.

Token strings, alphabets, specials, metadata, reference words, corpus lines and file names are all
hostile input (a tokeniser may well have ``<img src=x onerror=...>`` as a type). They reach:

- **HTML and SVG** (``st.html``, raw HTML in ``st.markdown(..., unsafe_allow_html=True)``, the merge
  graph's iframe document, SVG documents): :func:`html_escape`, for text and for quoted attribute
  values alike (it escapes both quote characters).
- **Streamlit markdown** (``st.markdown``/``caption``/``info``/``error``, widget labels and ``help``,
  radio and segmented-control options, ``st.table`` cells): :func:`md_escape` for running text, or
  :func:`code_span` for a token shown literally in monospace. Raw HTML in markdown is shown as text
  unless ``unsafe_allow_html`` is on, but links, emphasis, ``$…$`` math, ``:colour[…]`` directives
  and ``:icon:`` short codes would still act.
- **JavaScript inside a ``<script>``** (vis-network node and edge data): :func:`script_json`.
  vis-network 9 draws labels on a canvas and shows string tooltips through ``innerText``, so the data
  needs no HTML escaping, only JSON that cannot end the script element.
- **plotly text** (hover templates, legend names, annotations): :func:`plotly_escape`; plotly renders
  a subset of HTML (``<b>``, ``<a href>``, ``<br>`` …) and substitutes ``%{…}`` in templates.

No other module escapes by hand (tests/test_architecture.py checks it).
"""

from __future__ import annotations

import html
import json
import re

#: Characters with a meaning in CommonMark, GFM or Streamlit's markdown (``$`` math, ``:red[…]``
#: directives and ``:smile:`` short codes, ``~`` strikethrough, ``|`` tables, ``<`` HTML, ``&`` entities).
_MARKDOWN_ACTIVE = re.compile(r"([\\`*_{}\[\]()#+\-.!|$<>~&=:^])")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: What must not appear raw in JSON inside ``<script>``: ``</script>`` or ``<!--`` would end or change
#: the element, ``&`` could start an entity in XHTML, U+2028/2029 end a JavaScript string in old engines.
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def html_escape(text: object) -> str:
    """``text`` as HTML or SVG text, or as a quoted attribute value: ``& < > " '`` become entities,
    so nothing in it can open a tag, close the attribute or start an entity."""
    return html.escape(str(text), quote=True)


def md_escape(text: object) -> str:
    """``text`` as plain markdown text: every markdown-active ASCII punctuation character is
    backslash-escaped, so file contents such as ``_bru+ids``, ``[a](javascript:x)`` or ``$`` reach
    ``st.markdown`` as the characters they are."""
    return _MARKDOWN_ACTIVE.sub(r"\\\1", str(text))


def code_span(text: str) -> str:
    """``text`` as a markdown code span (shown literally, in monospace), whatever backticks it holds.
    Line breaks become spaces (as a code span renders them anyway), so a blank line cannot end the
    span and leave the rest as markdown. Empty text gives "" (markdown has no empty code span)."""
    if not text:
        return ""
    text = _LINE_BREAK.sub(" ", text)
    runs = re.findall(r"`+", text)
    fence = "`" * (max(map(len, runs), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def script_json(value) -> str:
    """``value`` as JSON to embed in a ``<script>`` element: ``< > &`` and the line separators are
    ``\\u`` escapes, so no string in it can close the element; parsing gives back the same value."""
    text = json.dumps(value, ensure_ascii=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _SCRIPT_UNSAFE[m.group()], text)


def plotly_escape(text: object) -> str:
    """``text`` for plotly's labels, hover templates and legend names: ``& < >`` and ``%`` as
    entities (plotly turns them back into the characters when it draws), so a token such as ``<b>``
    or ``%{x}`` is shown, neither interpreted as a tag nor substituted in a hover template."""
    return html.escape(str(text), quote=False).replace("%", "&#37;")
