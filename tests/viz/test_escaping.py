"""viz/escaping.py: every hostile string comes out of each output context as the literal text it was."""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from viz.escaping import code_span, html_escape, md_escape, plotly_escape, script_json

#: Token strings, names and metadata a hostile file may hold.
PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<img/src=x/onerror=alert(1)>",
    "</script><script>alert(2)</script>",
    "</SCRIPT ><!--<script>",
    '"><svg onload=alert(3)>',
    "'><svg/onload=alert(3)>",
    "`${alert(4)}`",
    "${alert(4)}",
    "javascript:alert(5)",
    "[link](javascript:alert(6)) ![i](x) <https://x.y>",
    "&lt;b&gt; &amp; &#60;",
    "%{x} %{y:.2f} <b>bold</b> <br> <a href='https://x.y'>a</a> <extra>",
    "*em* _u_ **b** ~~s~~ $x^2$ :red[red] :material/home: :smile: # h | t |",
    "\u2028\u2029 line\nbreak\r\n\n- item",
    "\\`\\\\",
    "",
]


class Parsed(HTMLParser):
    """Start tags (with their attributes, entities decoded) and the text of an HTML fragment."""

    def __init__(self, markup: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.ends: list[str] = []
        self.text: list[str] = []
        self.comments: list[str] = []
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self.ends.append(tag)

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.comments.append(data)


# --- HTML and SVG --------------------------------------------------------------------------------
@pytest.mark.parametrize("payload", PAYLOADS)
def test_html_text_and_attributes_stay_literal(payload):
    escaped = html_escape(payload)
    markup = f"<div title=\"{escaped}\" data-x='{escaped}'>{escaped}</div>"
    parsed = Parsed(markup)
    assert parsed.tags == [("div", {"title": payload, "data-x": payload})]
    assert parsed.ends == ["div"] and parsed.comments == []
    assert "".join(parsed.text) == payload
    assert not set("<>\"'") & set(escaped)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_svg_text_and_attributes_stay_literal(payload):
    """An SVG document is XML: the escaped text parses back to the payload, inside the one element."""
    escaped = html_escape(payload)
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg"><g data-token="{escaped}"><title>{escaped}</title>'
        f"<text>{escaped}</text></g></svg>"
    )
    root = ET.fromstring(svg)
    elements = [element.tag.split("}")[1] for element in root.iter()]
    assert elements == ["svg", "g", "title", "text"]
    # XML normalises line ends in text and whitespace in attributes; the characters are all there
    assert (root[0].find("{http://www.w3.org/2000/svg}text").text or "") == payload.replace("\r\n", "\n")
    assert root[0].get("data-token") == re.sub(r"\r\n|[\r\n\t]", " ", payload)


def test_html_escape_accepts_any_object():
    assert html_escape(3) == "3" and html_escape(ValueError("<x>")) == "&lt;x&gt;"


# --- markdown ------------------------------------------------------------------------------------
def md_unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text, flags=re.S)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_text_has_no_active_character_left(payload):
    """CommonMark shows a backslash-escaped ASCII punctuation character as itself; every character
    that markdown, GFM or Streamlit could act on is escaped."""
    escaped = md_escape(payload)
    assert md_unescape(escaped) == payload
    bare = [piece for piece in re.findall(r"\\.|.", escaped, flags=re.S) if len(piece) == 1]
    assert not set("\\`*_{}[]()#+-.!|$<>~&=:^") & set(bare)


@pytest.mark.parametrize("payload", [p for p in PAYLOADS if p])
def test_code_span_shows_the_text_literally(payload):
    span = code_span(payload)
    fence = re.match(r"`+", span).group()
    assert span.endswith(fence) and len(span) >= 2 * len(fence)
    inner = span[len(fence) : len(span) - len(fence)]
    assert "\n" not in span and "\r" not in span  # a blank line cannot end the span
    assert fence not in inner and not inner.startswith("`") and not inner.endswith("`")
    # CommonMark strips one space on each side when both are there, and shows line ends as spaces
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
        inner = inner[1:-1]
    assert inner == re.sub(r"\r\n|\r|\n", " ", payload)


def test_code_span_fences():
    assert code_span("ab") == "`ab`"
    assert code_span("a`b") == "``a`b``"
    assert code_span("`") == "`` ` ``"
    assert code_span("a\n\n[x](javascript:y)") == "`a  [x](javascript:y)`"
    assert code_span("") == ""  # markdown has no empty code span: "``" would show two backticks


# --- JavaScript / JSON inside <script> -------------------------------------------------------------
@pytest.mark.parametrize("payload", PAYLOADS)
def test_script_json_cannot_close_the_script_element(payload):
    value = {"label": payload, "title": [payload, payload.upper()], payload: 1}
    embedded = script_json(value)
    document = f"<script>var data = {embedded};</script><p>after</p>"
    parsed = Parsed(document)
    assert [tag for tag, _ in parsed.tags] == ["script", "p"] and parsed.ends == ["script", "p"]
    assert parsed.text == [f"var data = {embedded};", "after"]
    assert json.loads(embedded) == value
    assert not re.search("[<>&\u2028\u2029]", embedded)


def test_script_json_keeps_non_ascii_readable():
    assert script_json(["Ġbruids", "é"]) == '["Ġbruids", "é"]'


# --- plotly --------------------------------------------------------------------------------------
@pytest.mark.parametrize("payload", PAYLOADS)
def test_plotly_text_has_no_tag_and_no_template(payload):
    """plotly draws ``<b>``, ``<a href>``, ``<br>`` and substitutes ``%{...}`` in hover templates; it
    turns ``&lt; &gt; &amp;`` and numeric entities back into characters (never ``&quot;``)."""
    escaped = plotly_escape(payload)
    assert "<" not in escaped and ">" not in escaped and "%{" not in escaped
    assert "&quot;" not in escaped and "&#x27;" not in escaped
    assert html.unescape(escaped) == payload
