"""Figures for papers and slides: standalone SVG of trees, graphs and lattices,
LaTeX forest of trees, integer ranks in all of them, a tree legend that matches the drawing, and
the download buttons."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from streamlit.testing.v1 import AppTest

from core.analysis.explain import explain_word, trace_word
from core.bpe.graph import neighbourhood
from core.bpe.model import BTETokeniser, Merge
from core.families.unigram.lattice import Lattice
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import WhitespaceSplit
from ui.downloads import file_stem
from viz.graph_elements import graph_elements
from viz.graph_style import MERGES_VIEW, TYPES_VIEW
from viz.graph_svg import graph_svg, node_box
from viz.lattice import lattice_svg
from viz.ranks import rank_help
from viz.tables import merge_rows
from viz.tokens import CHIP_COLOURS, boundary_strip_html, drawn
from viz.tree_states import LEGEND, tree_legend_html
from viz.trees import TREE_LEGEND, merge_tree_forest, merge_tree_svg, tree_svg

SVG = "{http://www.w3.org/2000/svg}"
SPECIALS = "{}\\%#_$&^~[],"
HOSTILE_WORD = SPECIALS + "<b>\"'é"
NEUTRAL = {"#1c1917", "#ffffff"}  # ink and white: every box has them


def chain_tokeniser(word: str) -> BTETokeniser:
    """A tokeniser whose only merges build ``word`` left to right (every prefix is a type)."""
    merges = [Merge(i, (word[: i + 1], word[i + 1])) for i in range(len(word) - 1)]
    return BTETokeniser(sorted(set(word)), merges, WhitespaceSplit())


def pretokens_of(tokeniser, word: str) -> list[tuple[str, list]]:
    return [(t.pretoken, t.trees) for t in trace_word(tokeniser, word).traces]


def standalone(svg: str) -> ET.Element:
    """Parse ``svg`` (raises unless well-formed XML) and check it needs nothing from outside."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("viewBox") and root.get("font-family")
    assert "<style" not in svg and "url(http" not in svg and "@import" not in svg
    assert re.findall(r"https?://[^\"' ]+", svg) == ["http://www.w3.org/2000/svg"]
    return root


@pytest.fixture(scope="module")
def scenario2a():
    return load_tokeniser(scenario_paths()["a1_scenario2a"])


@pytest.fixture(scope="module")
def after2a(scenario2a):
    """Scenario 2a after the paper's knockout: ``_bru + id + s`` is a tuple merge forming the whole word."""
    return scenario2a.with_merges([Merge(r, tuple(p)) for r, p in scenario2a.metadata["after_knockout_merges"]])


@pytest.fixture(scope="module")
def reified():
    """A merge placed by reification just before the merge it serves ([rebpe §3.3])."""
    return BTETokeniser(["a", "b", "c"], [Merge(8358.999, ("b", "c")), Merge(8359, ("a", "bc"))], WhitespaceSplit())


# --- SVG: standalone and well-formed ---------------------------------------------------------------
def test_tree_svg_is_standalone_with_hostile_and_multibyte_tokens(dutch40k, after2a):
    hostile = chain_tokeniser(HOSTILE_WORD)
    root = standalone(merge_tree_svg(pretokens_of(hostile, HOSTILE_WORD), caption=HOSTILE_WORD))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert HOSTILE_WORD in texts and root.find(f"{SVG}title").text == HOSTILE_WORD
    standalone(merge_tree_svg(pretokens_of(dutch40k, "café 👩\u200d👩\u200d👧"), dutch40k.pretokeniser.display))
    standalone(merge_tree_svg(pretokens_of(after2a, "bruids"), done=[2], last_step=(0, 1), reference={(0, 4)}))


def test_graph_svg_is_standalone_and_keeps_the_interactive_positions(dutch40k, scenario2a, after2a):
    hood = neighbourhood(dutch40k, "Ġbruids", 2, 30, 4)
    for view in (TYPES_VIEW, MERGES_VIEW):
        nodes, edges = graph_elements(dutch40k, hood, view)
        root = standalone(graph_svg(dutch40k, hood, view))
        drawn_nodes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
        assert len(drawn_nodes) == len(nodes)
        assert len([e for e in root.iter(f"{SVG}line") if e.get("class") == "edge"]) == len(edges)
        # the same layout, shifted as a whole: every box where place() put its node
        shift = None
        for node, group in zip(nodes, drawn_nodes, strict=True):
            rect = group.find(f"{SVG}rect")
            left, top, width, _height = node_box(node)
            offset = (float(rect.get("x")) - left, float(rect.get("y")) - top)
            shift = shift or offset
            assert offset == pytest.approx(shift, abs=0.11)  # rounded to 0.1 px in the document
            assert float(rect.get("width")) == pytest.approx(width, abs=0.06)
            assert [t.text for t in group.iter(f"{SVG}tspan")] == node["label"].split("\n")
        legend = [t.text for g in root.iter(f"{SVG}g") if g.get("class") == "legend" for t in g.iter(f"{SVG}text")]
        assert "the selected type" in legend
    compared = standalone(
        graph_svg(
            scenario2a, neighbourhood(scenario2a, "_bruids", 2, 30, 4), MERGES_VIEW, other=after2a, other_label="after"
        )
    )
    labels = {"".join(t.text for t in g.iter(f"{SVG}tspan")) for g in compared.iter(f"{SVG}g")}
    assert "out: ids" in labels


def test_graph_svg_escapes_hostile_types():
    types = ["<script>", "&amp;", '"q"', "x\u2028y"]
    alphabet = sorted(set("".join(types)))
    merges, rank = [], 0
    for t in types:
        for i in range(1, len(t)):
            merges.append(Merge(rank, (t[:i], t[i])))
            rank += 1
    tokeniser = BTETokeniser(alphabet, merges, WhitespaceSplit())
    svg = graph_svg(tokeniser, neighbourhood(tokeniser, "<script>", 2, 40, 4), MERGES_VIEW, note="<b>note</b>")
    root = standalone(svg)
    assert "<script" not in svg and "&lt;script&gt;" in svg and "\u2028" not in svg
    assert "<script>" in {t.text for t in root.iter(f"{SVG}tspan")}


def test_lattice_svg_is_standalone_and_readable():
    pieces = {"<": -2.0, "b": -2.0, ">": -2.0, "<b": -3.0, "<b>": -3.5, "&": -1.0, "\u200d": -4.0}
    lattice = Lattice.build("<b>&\u200d", pieces.get, 3, -20.0)
    svg = lattice_svg(lattice)
    root = standalone(svg)
    sizes = [float(t.get("font-size") or t.get("font-size", 0) or 0) for t in root.iter(f"{SVG}text")]
    legend_size = float(next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend").get("font-size"))
    assert min([s for s in sizes if s] + [legend_size]) >= 13  # nothing tiny
    assert "<b>" in {t.text for t in root.iter(f"{SVG}text")} and "\\u200d" in svg


# --- LaTeX forest -----------------------------------------------------------------------------------
_UNESCAPE = [
    (r"\textbackslash{}", "\\"),
    (r"\textasciicircum{}", "^"),
    (r"\textasciitilde{}", "~"),
    (r"\lbrack{}", "["),
    (r"\rbrack{}", "]"),
    *((f"\\{c}", c) for c in "{}%#_$&"),
]


def tex_tokens(text: str):
    """TeX's view of ``text``: control sequences (``\\name`` or ``\\`` + one symbol) and characters."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            j = i + 2
            if text[i + 1 : i + 2].isalpha():
                while j < len(text) and text[j].isalpha():
                    j += 1
            yield text[i:j]
            i = j
        else:
            yield text[i]
            i += 1


def forest_nodes(tex: str) -> list[str]:
    """The contents of every node of every forest environment, in order, after checking that braces
    and brackets balance (forest reads ``[`` and ``]`` outside braces as nodes) and that no LaTeX
    special character is left unescaped."""
    bodies = re.findall(r"\\begin\{forest\}(.*?)\\end\{forest\}", tex, flags=re.S)
    contents: list[str] = []
    for body in bodies:
        brace = bracket = 0
        current: list[str] | None = None
        for token in tex_tokens(body):
            if token in "%#$&^~_":
                raise AssertionError(f"unescaped {token!r} in forest code")
            if token == "{":
                brace += 1
            elif token == "}":
                brace -= 1
                if brace == 0 and current is not None:
                    contents.append("".join(current[2:]))  # without the opening [ and {
                    current = None
            elif brace == 0 and token == "[":
                bracket += 1
                current = []
            elif brace == 0 and token == "]":
                bracket -= 1
            assert brace >= 0 and bracket >= 0
            if current is not None:
                current.append(token)
        assert brace == 0 and bracket == 0
    return contents


def unescape(content: str) -> tuple[str, str]:
    """(token, rank text) of a node's content ``token\\\\{\\scriptsize\\color{c}rank}``."""
    token, _, rank = content.partition("\\\\")
    rank = re.sub(r"^\{\\scriptsize\\color\{\w+\}(.*)\}$", r"\1", rank)
    for escaped, plain in _UNESCAPE:
        token, rank = token.replace(escaped, plain), rank.replace(escaped, plain)
    return token, rank


def walk(node):
    yield node
    for child in node.children:
        yield from walk(child)


def test_forest_escapes_every_special_and_keeps_utf8():
    tokeniser = chain_tokeniser(HOSTILE_WORD)
    pretokens = pretokens_of(tokeniser, HOSTILE_WORD)
    tex = merge_tree_forest(pretokens, caption="a % caption\n\\end{document}")
    nodes = [unescape(c) for c in forest_nodes(tex)]
    expected = [drawn(n.token) for _, trees in pretokens for tree in trees for n in walk(tree)]
    assert [token for token, _ in nodes] == expected  # every token written, and read back, exactly
    assert nodes[0] == (HOSTILE_WORD, f"#{len(HOSTILE_WORD) - 2}")
    assert "é" in tex
    assert tex.splitlines()[:2] == [
        "% a % caption \\end{document}",
        "% Drawn with the forest package, as the BPE-knockout and ReBPE papers draw merge trees.",
    ]  # the caption stays a comment
    assert tex.count("\n\\begin{document}\n") == tex.count("\n\\end{document}\n") == 1
    assert "LuaLaTeX" in tex.split("\\documentclass")[0]


def test_forest_draws_the_svg_states(dutch40k, after2a):
    """A tuple merge that is a token: filled and with its tuple band; ghosts dashed; last and blame."""
    tex = merge_tree_forest(pretokens_of(after2a, "bruids"))
    assert re.search(
        r"\[\{\\_bruids\\\\\{\\scriptsize\\color\{treetuple\}\\#5 tuple\}\}, tier=h4, "
        r"fill=treetoken0, [^\n]*tuple",
        tex,
    )
    trace = dutch40k.trace_pretoken("Ġmasterthesis")
    step = merge_tree_forest([(trace.pretoken, trace.trees)], done=[6], last_step=(0, 5), reference={(0, 3)})
    assert step.count("not fired") - 1 == 3  # three merges not fired (the style's definition is one more)
    assert "draw=treelast" in step and "draw=treeblame" in step and "\\draw[reference split]" in step
    assert len(re.findall(r"\\begin\{forest\}", merge_tree_forest(pretokens_of(dutch40k, "bruid-jurk")))) >= 3


@pytest.mark.skipif(shutil.which("lualatex") is None, reason="LuaLaTeX is not installed")
@pytest.mark.slow
def test_forest_compiles_with_lualatex(tmp_path, after2a):
    pretokens = pretokens_of(chain_tokeniser(HOSTILE_WORD), HOSTILE_WORD) + pretokens_of(after2a, "bruids")
    (tmp_path / "tree.tex").write_text(merge_tree_forest(pretokens, reference={(1, 4)}), encoding="utf-8")
    run = subprocess.run(
        ["lualatex", "-interaction=nonstopmode", "-halt-on-error", "tree.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if "File `standalone.cls' not found" in run.stdout or "File `forest.sty' not found" in run.stdout:
        pytest.skip("the standalone class or the forest package is not installed")
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "tree.pdf").stat().st_size > 1000


# --- integer ranks -----------------------------------------------------------------------------------
def test_a_reified_merge_reads_before_its_tuple_merge_everywhere(reified):
    pretokens = pretokens_of(reified, "abc")
    root = ET.fromstring(merge_tree_svg(pretokens))
    (bc,) = [g for g in root.iter(f"{SVG}g") if g.get("data-token") == "bc"]
    assert [t.text for t in bc.iter(f"{SVG}text")] == ["bc", "before #8359"]
    assert rank_help(8358.999) in bc.find(f"{SVG}title").text
    tex = merge_tree_forest(pretokens)
    assert "before \\#8359" in tex and "8358" not in tex
    rows = merge_rows(trace_word(reified, "abc").traces)
    assert [row["rank"] for row in rows] == ["before #8359", "#8359"]
    traced = trace_word(reified, "abc")
    strip = boundary_strip_html(
        [t.pretoken for t in traced.traces], explain_word(reified, "abc", traced=traced).boundaries
    )
    assert ">before #8359</span>" in strip and "8358" not in strip
    hood = neighbourhood(reified, "bc", 2, 20, 4)
    assert "before #8359" in graph_svg(reified, hood, MERGES_VIEW) and "8358.999" not in graph_svg(reified, hood)


# --- the tree legend matches the drawing ------------------------------------------------------------
def _colours(text: str) -> set[str]:
    return {c.lower() for c in re.findall(r"#[0-9a-fA-F]{6}", text)}


def _attributes(element: ET.Element) -> str:
    return " ".join(f"{k}={v}" for e in element.iter() for k, v in e.attrib.items())


def _groups(svg: str, css_class: str) -> list[ET.Element]:
    return [g for g in ET.fromstring(svg).iter() if css_class in (g.get("class") or "").split()]


def test_every_legend_colour_occurs_where_the_legend_says(dutch40k, after2a):
    final_tuple = merge_tree_svg(pretokens_of(after2a, "bruids"))
    trace = dutch40k.trace_pretoken("Ġmasterthesis")
    step = merge_tree_svg([(trace.pretoken, trace.trees)], done=[6], last_step=(0, 5))
    blamed = dutch40k.trace_pretoken("Ġbruidsjurk")
    blame = merge_tree_svg([(blamed.pretoken, blamed.trees)], reference={(0, 5), (0, 6)})
    highlight = tree_svg(blamed.trees, highlight={"jurk"})
    cafe = merge_tree_svg(pretokens_of(dutch40k, "café"), dutch40k.pretokeniser.display)
    situations = {  # legend item -> the elements of a drawing in that situation
        "token": _groups(final_tuple, "current"),
        "tuple": _groups(final_tuple, "tuple"),
        "last": _groups(step, "last"),
        "ghost": _groups(step, "ghost"),
        "blame": _groups(blame, "crosses-reference"),
        "reference": _groups(blame, "reference-split"),
        "highlight": _groups(highlight, "highlight"),
        "character": _groups(cafe, "character"),
    }
    assert set(situations) == set(LEGEND)
    for key, elements in situations.items():
        style, _ = LEGEND[key]
        assert elements, key
        for element in elements:
            assert _colours(style) - NEUTRAL <= _colours(_attributes(element)), (key, _attributes(element))
            if "dashed" in style:
                assert "stroke-dasharray" in _attributes(element), key
    # the case: a tuple merge that is also a final token shows both, fill and violet border
    (node,) = situations["tuple"]
    rects = node.findall(f"{SVG}rect")
    assert rects[0].get("fill") == CHIP_COLOURS[0] and rects[1].get("class") == "tuple-border"


def test_the_legend_lists_what_the_page_asks_for():
    assert tree_legend_html() == TREE_LEGEND
    for key in ("token", "tuple", "last", "ghost", "blame", "reference"):
        assert LEGEND[key][1] in TREE_LEGEND
    final = tree_legend_html(
        step=False, reference=False, highlight="a token the other tokeniser lacks", characters=True
    )
    assert "not fired yet" not in final and "reference split" not in final
    assert "a token the other tokeniser lacks" in final and LEGEND["character"][1] in final


# --- downloads ---------------------------------------------------------------------------------------
def test_file_stems_are_safe_file_names():
    assert file_stem("Ġbruids tree, step 3") == "Gbruids-tree-step-3"
    assert file_stem("../../etc/passwd") == "etc-passwd"
    assert file_stem("猫") == "figure" and file_stem("") == "figure" and file_stem(".hidden") == "hidden"
    assert len(file_stem("x" * 500)) == 80


def _downloads_app():
    from ui.downloads import figure_downloads

    figure_downloads(
        "Ġbruids/tree", "<svg xmlns='http://www.w3.org/2000/svg'/>", "\\documentclass{standalone}", key="tree"
    )
    figure_downloads("lattice", "<svg xmlns='http://www.w3.org/2000/svg'/>", key="lattice")


def test_figure_downloads_offer_svg_and_latex():
    at = AppTest.from_function(_downloads_app).run()
    assert not at.exception
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == ["SVG", "LaTeX (forest)", "SVG"]
    assert [b.proto.url.rsplit(".", 1)[1] for b in buttons] == ["svg", "tex", "svg"]
    assert all(b.proto.ignore_rerun for b in buttons)  # downloading does not rerun the page
