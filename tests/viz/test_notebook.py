"""viz.notebook: each figure is well-formed SVG or HTML that shows what it should, escapes hostile
token strings, loads nothing from the network, and the docs' notebook snippet runs."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

import core
from core.formats.samples import SAMPLE_DIR
from core.trace import Trace, TraceEvent
from viz.notebook import HTMLFigure, SVGFigure, show_graph, show_lattice, show_trace, show_tree

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ("<b>&x", "\"q'</svg>")  # two pieces of one word: a tag, an entity, quotes, an end tag
HOSTILE_WORD = "".join(HOSTILE)
VOID = {"br", "img", "hr", "meta", "input", "wbr"}
ROOT = Path(__file__).resolve().parents[2]


def svg_root(figure: SVGFigure) -> ET.Element:
    assert isinstance(figure, SVGFigure) and getattr(figure, "_repr_html_", None) is None
    markup = figure._repr_svg_()
    assert markup == str(figure)
    root = ET.fromstring(markup)  # well-formed XML or ParseError
    assert root.tag == SVG + "svg"
    return root


def svg_texts(root: ET.Element) -> list[str]:
    """Every text and title in the SVG, unescaped by the parser."""
    return ["".join(e.itertext()) for e in root.iter() if e.tag in (SVG + "text", SVG + "title")]


def offline(markup: str) -> bool:
    """No address to load: nothing but the SVG namespace names a URL, and no script or link."""
    rest = markup.replace('xmlns="http://www.w3.org/2000/svg"', "")
    return not re.search(r"https?:|<script|<link|<iframe|@import", rest, re.IGNORECASE)


class Elements(HTMLParser):
    """Start and end tags must nest; collects the chips' tokens per trace line and all text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.lines: list[list[str]] = []
        self.text: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        values = dict(attrs)
        if "trace-line" in (values.get("class") or "").split():
            self.lines.append([])
        if values.get("data-token") is not None:
            self.lines[-1].append(values["data-token"])
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (self.open, tag)
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


def parsed_html(figure: HTMLFigure) -> Elements:
    assert isinstance(figure, HTMLFigure) and getattr(figure, "_repr_svg_", None) is None
    markup = figure._repr_html_()
    assert markup == str(figure) and offline(markup)
    parser = Elements()
    parser.feed(markup)
    parser.close()
    assert parser.open == []
    return parser


@pytest.fixture(scope="module")
def hostile_bpe():
    """A BPE whose types are raw strings with markup in them (whitespace pre-tokenisation)."""
    return core.train("bpe", [f"{HOSTILE_WORD} {HOSTILE[0]}"] * 5, 30, pretokeniser="whitespace").tokeniser


# --- show_trace -------------------------------------------------------------------------------------
def test_trace_shows_every_state_of_a_real_trace(dutch40k):
    trace = dutch40k.trace_text(" bruidsjurk")
    page = parsed_html(show_trace(trace, dutch40k))
    assert page.lines == [list(trace.initial), *(list(e.tokens) for e in trace.events)]
    assert page.lines[-1] == ["Ġbruids", "jurk"]
    assert all(event.label in "".join(page.text) for event in trace.events)


def test_trace_escapes_hostile_tokens_and_labels():
    tokens = (*HOSTILE, "<script>alert(1)</script>")
    trace = Trace("x", ("x",), tokens, (TraceEvent("merge", "<i>" + HOSTILE[1], ("".join(tokens),)),))
    page = parsed_html(show_trace(trace))
    assert page.tags.isdisjoint({"script", "b", "i", "svg"})
    assert page.lines == [list(tokens), ["".join(tokens)]]
    assert "<i>" + HOSTILE[1] in "".join(page.text)


def test_trace_keeps_the_last_events():
    trace = Trace("ab", ("ab",), ("a", "b"), tuple(TraceEvent("merge", f"step {i}", ("ab",)) for i in range(5)))
    page = parsed_html(show_trace(trace, max_events=2))
    assert len(page.lines) == 3 and "step 4" in "".join(page.text) and "step 2" not in "".join(page.text)


# --- show_tree --------------------------------------------------------------------------------------
def test_tree_draws_the_merges_of_the_word_and_the_reference(dutch40k):
    root = svg_root(show_tree(dutch40k, "bruidsjurk", reference={5, 6}))
    texts = svg_texts(root)
    assert {"Ġbruids", "jurk", "Ġbru", "ids"} <= set(texts)
    assert "segmentation tree of bruidsjurk" in texts
    plain = svg_root(show_tree(dutch40k, "bruidsjurk"))
    assert len(list(root.iter(SVG + "line"))) > len(list(plain.iter(SVG + "line")))  # the reference lines


def test_tree_escapes_hostile_types(hostile_bpe):
    assert HOSTILE_WORD in hostile_bpe.types
    figure = show_tree(hostile_bpe, HOSTILE_WORD)
    assert offline(str(figure))
    assert HOSTILE_WORD in svg_texts(svg_root(figure))


def test_tree_needs_a_merge_graph():
    unigram = core.train("unigram", {"low": 5, "lower": 3}, 12, pretokeniser="whitespace").tokeniser
    with pytest.raises(core.InputError, match="show_tree needs a merge graph"):
        show_tree(unigram, "lowest")


# --- show_graph -------------------------------------------------------------------------------------
def test_graph_draws_the_neighbourhood_and_what_knockout_removed(dutch40k):
    entries = core.load_references(SAMPLE_DIR / "references" / "nl_morph.tsv").entries
    knocked = core.run_knockout(dutch40k, entries)
    figure = show_graph(dutch40k, "bruids", depth=1, after=knocked.tokeniser)
    assert offline(str(figure))
    root = svg_root(figure)
    hood = core.neighbourhood(dutch40k, "Ġbruids", depth=1)
    nodes = ["".join(g.find(SVG + "text").itertext()) for g in root.iter(SVG + "g") if g.get("class") == "node"]
    assert len(nodes) >= len(hood.roles)
    assert all(any(t in node for node in nodes) for t in hood.roles)
    kept = set(knocked.tokeniser.merges)
    gone = {" + ".join(m.parts) for m in hood.merges if m not in kept}
    assert "Ġbru + ids" in gone  # the paper's example: ids is knocked out, Ġbruids becomes Ġbru + id + s
    marked = {m.group(1) for t in svg_texts(root) for m in [re.match(r"merge #\d+: (.*) → .*\nknocked out", t)] if m}
    assert marked == gone
    assert all("the tokeniser after the edit" in t for t in svg_texts(root) if "knocked out:" in t)
    assert not any("knocked out:" in text for text in svg_texts(svg_root(show_graph(dutch40k, "Ġbruids", depth=1))))


def test_graph_escapes_hostile_types_and_refuses_unknown_ones(hostile_bpe):
    figure = show_graph(hostile_bpe, HOSTILE_WORD, view="types and merges")
    assert offline(str(figure))
    assert any(HOSTILE_WORD in text for text in svg_texts(svg_root(figure)))
    with pytest.raises(core.InputError, match="not in the vocabulary"):
        show_graph(hostile_bpe, "<nope>")


# --- show_lattice -----------------------------------------------------------------------------------
def test_lattice_draws_the_viterbi_path_and_escapes_hostile_pieces():
    unigram = core.train("unigram", [f"{HOSTILE_WORD} {HOSTILE[0]}"] * 5, 12, pretokeniser="whitespace").tokeniser
    figure = show_lattice(unigram, HOSTILE_WORD)
    assert offline(str(figure))
    root = svg_root(figure)
    viterbi = [
        "".join(g.find(SVG + "text").itertext()) for g in root.iter(SVG + "g") if "viterbi" in g.get("class", "")
    ]
    assert "".join(sorted(viterbi)) and sorted(viterbi) == sorted(unigram.tokenise(HOSTILE_WORD))
    assert f"Unigram lattice of {HOSTILE_WORD}" in svg_texts(root)


def test_lattice_needs_a_unigram_tokeniser_and_an_existing_pretoken(dutch40k):
    with pytest.raises(core.InputError, match="needs a Unigram tokeniser"):
        show_lattice(dutch40k, "bruidsjurk")
    unigram = core.train("unigram", {"low": 5, "lower": 3}, 12, pretokeniser="whitespace").tokeniser
    with pytest.raises(core.InputError, match="pretoken 1 does not exist"):
        show_lattice(unigram, "low", pretoken=1)


# --- the docs ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_notebook_snippet_of_docs_api_md_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), re.S)
    session, snippet = blocks
    (tmp_path / "sample_data").symlink_to(SAMPLE_DIR)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(session, namespace)
    figures = []
    for line in snippet.splitlines():
        if line.startswith("show_"):
            figures.append(eval(line.split("  #")[0], namespace))
        else:
            exec(line, namespace)
    assert [type(f) for f in figures] == [HTMLFigure, SVGFigure, SVGFigure, SVGFigure]
