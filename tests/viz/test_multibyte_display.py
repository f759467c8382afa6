"""One box per character, however many bytes it has: é, emoji, a ZWJ family
and CJK in the word debugger's blame strip, the tree's character row and the lattice header.

The strip is an HTML table with a fixed layout, so every column's x position follows from the
widths it sets; the tests read them back and check that no two labels share a place.
"""

from __future__ import annotations

import ast
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
import regex

from core.analysis.explain import explain_word, trace_word
from core.bpe.model import BTETokeniser, Merge
from core.pipeline import WhitespaceSplit
from viz.tokens import (
    BOUNDARY_PX,
    COLUMN_PX,
    boundary_strip_html,
    characters,
    columns,
    comparison_html,
    drawn,
)
from viz.trees import merge_tree_svg

SVG = "{http://www.w3.org/2000/svg}"
FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # woman ZWJ woman ZWJ girl: one grapheme, 5 code points
WORDS = {"é": "café", "emoji": "feest\U0001f389", "ZWJ family": FAMILY, "CJK": "猫咪"}


def graphemes(text: str) -> list[str]:
    return regex.findall(r"\X", text)


class Strip(HTMLParser):
    """The strip's cells: the first row (characters, boundaries, gaps) with widths, the label rows."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[dict]] = []
        self.cell: dict | None = None
        self.ticks: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag == "td" and self.rows:
            width = re.search(r"width:(\d+)px", attrs.get("style") or "")
            self.cell = {
                "class": attrs.get("class", ""),
                "width": int(width.group(1)) if width else None,
                "colspan": int(attrs.get("colspan", 1)),
                "text": "",
                "symbols": attrs.get("data-symbols"),
                "ticks": [],
            }
            self.rows[-1].append(self.cell)
        elif tag == "span" and self.cell is not None and attrs.get("class") in ("inner-split", "inner-joined"):
            self.cell["ticks"].append(attrs["class"])

    def handle_endtag(self, tag):
        if tag == "td":
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data


def strip_of(tokeniser, word: str) -> Strip:
    traced = trace_word(tokeniser, word)
    explained = explain_word(tokeniser, word, traced=traced)
    parser = Strip()
    parser.feed(
        boundary_strip_html([t.pretoken for t in traced.traces], explained.boundaries, tokeniser.pretokeniser.display)
    )
    return parser


@pytest.mark.parametrize("case", sorted(WORDS))
def test_one_box_per_grapheme_in_a_byte_level_strip(dutch40k, case):
    word = WORDS[case]
    strip = strip_of(dutch40k, word)
    top = strip.rows[0]
    boxes = [cell for cell in top if cell["class"] == "char"]
    assert [b["text"] for b in boxes] == ["Ġ", *graphemes(word)]  # the marker, then one box per character
    for box, character in zip(boxes[1:], graphemes(word), strict=True):
        assert int(box["symbols"]) == len(character.encode("utf-8"))  # a byte-level symbol is a byte
        assert len(box["ticks"]) == int(box["symbols"]) - 1  # one tick between each two of its bytes
    # No two labels at one x position: the columns are laid side by side at the widths they set, each
    # glyph fits its own box, and the boundary marks sit in columns of their own.
    assert all(cell["width"] for cell in top)
    right = 0
    centres = []
    for cell in top:
        left, right = right, right + cell["width"]
        if cell["class"] == "char":
            assert COLUMN_PX * columns(cell["text"]) + 12 <= cell["width"], cell
            centres.append((left + right) / 2)
        elif cell["class"] == "boundary":
            assert cell["width"] == BOUNDARY_PX and len(cell["text"]) == 1
    assert len(set(centres)) == len(centres) == len(boxes)


@pytest.mark.parametrize("case", sorted(WORDS))
def test_rank_labels_never_share_a_column(dutch40k, case):
    """Each rank label spans the boundary and the two boxes beside it; on one row no two overlap,
    and every row covers the strip's columns exactly."""
    strip = strip_of(dutch40k, WORDS[case])
    n_columns = len(strip.rows[0])
    boundaries = [i for i, cell in enumerate(strip.rows[0]) if cell["class"] == "boundary"]
    spans = []
    for row in strip.rows[1:]:
        assert sum(cell["colspan"] for cell in row) == n_columns
        column = 0
        for cell in row:
            if cell["class"] == "rank-label":
                assert cell["colspan"] == 3 and column + 1 in boundaries
                spans.append(column + 1)
            column += cell["colspan"]
    assert sorted(spans) == boundaries


def test_byte_boundaries_inside_a_character_are_ticks(dutch40k):
    """The Dutch 40k splits 👩‍👩‍👧 into 13 tokens: the token boundaries inside the one character
    are drawn as ticks in its box, the byte joins as short grey ones."""
    tokens = dutch40k.tokenise_word(FAMILY)
    ends = [sum(len(t) for t in tokens[:k]) for k in range(1, len(tokens))]
    inside = sum(1 < end < 19 for end in ends)  # the family is symbols 1..18, after the Ġ marker
    assert inside >= 10
    (family,) = [cell for cell in strip_of(dutch40k, FAMILY).rows[0] if cell["text"] == FAMILY]
    assert family["ticks"].count("inner-split") == inside
    assert family["ticks"].count("inner-joined") == 18 - 1 - inside
    (cafe,) = [c for c in strip_of(dutch40k, "café").rows[0] if c["text"] == "é"]
    assert cafe["ticks"] == ["inner-joined"]  # Ã + © are merged into é


def test_a_character_level_tokeniser_keeps_a_zwj_family_in_one_box():
    alphabet = sorted(set("ab" + FAMILY))
    tokeniser = BTETokeniser(alphabet, [Merge(0, ("a", "b"))], WhitespaceSplit())
    strip = strip_of(tokeniser, "ab" + FAMILY)
    boxes = [cell for cell in strip.rows[0] if cell["class"] == "char"]
    assert [(b["text"], b["symbols"]) for b in boxes] == [("a", "1"), ("b", "1"), (FAMILY, "5")]
    assert boxes[2]["ticks"] == ["inner-split"] * 4  # no merge joins the code points: each stays a token


def test_a_combining_accent_stays_with_its_letter_unless_the_pretokeniser_splits_them(dutch40k):
    word = "cafe\u0301"  # e + COMBINING ACUTE ACCENT: one grapheme, two code points
    tokeniser = BTETokeniser(sorted(set(word)), [Merge(0, ("c", "a"))], WhitespaceSplit())
    boxes = [c for c in strip_of(tokeniser, word).rows[0] if c["class"] == "char"]
    assert [(b["text"], b["symbols"]) for b in boxes] == [("c", "1"), ("a", "1"), ("f", "1"), ("e\u0301", "2")]
    # GPT-2's pattern puts the accent in a pretoken of its own: shown on a dotted circle, not on the gap
    boxes = [c for c in strip_of(dutch40k, word).rows[0] if c["class"] == "char"]
    assert [b["text"] for b in boxes] == ["Ġ", "c", "a", "f", "e", "\u25cc\u0301"]


def test_characters_follow_the_display_and_grapheme_clusters(dutch40k):
    display = dutch40k.pretokeniser.display
    pretoken = "".join(dutch40k.pretokeniser.pretokenise(" é" + FAMILY + "猫x"))
    spans = [(c.label, c.symbols) for c in characters(pretoken, display)]
    assert spans == [("Ġ", 1), ("é", 2), (FAMILY, 18), ("猫", 3), ("x", 1)]
    assert [(c.start, c.end) for c in characters(pretoken, display)][:3] == [(0, 1), (1, 3), (3, 21)]
    assert [c.label for c in characters("a\u200db")] == ["a\u200d", "b"]  # ZWJ extends the a
    assert [c.label for c in characters("\u200bx")] == ["\\u200b", "x"]  # an invisible character is written out
    assert characters("") == []
    assert columns("猫") == columns(FAMILY) == 2 and columns("é") == columns("e\u0301") == 1
    assert drawn("a\u2028b") == "a\\u2028b"


def test_tree_draws_a_character_under_its_bytes(dutch40k):
    trace = dutch40k.trace_pretoken(dutch40k.pretokeniser.pretokenise(" café猫")[0])
    root = ET.fromstring(merge_tree_svg([(trace.pretoken, trace.trees)], dutch40k.pretokeniser.display))
    found = {
        g.find(f"{SVG}text").text: int(g.get("data-symbols"))
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "character"
    }
    assert found == {"é": 2, "猫": 3}
    plain = dutch40k.trace_pretoken("Ġcafe")
    assert 'class="character"' not in merge_tree_svg([(plain.pretoken, plain.trees)])  # nothing to spell out


def test_comparison_rows_wrap_instead_of_clipping(dutch40k):
    tokens = dutch40k.tokenise_word(FAMILY)
    out = comparison_html([("BPE", tokens, "", set(tokens)), ("other", [FAMILY], "")], dutch40k.pretokeniser.display)
    cells = re.findall(r'<td class="tok-chips" style="([^"]*)"', out)
    assert len(cells) == 2 and all("white-space:normal" in style for style in cells)
    assert "nowrap" not in out.split('class="tok-chips"')[1].split("</td>")[0].split(">")[0]


# --- no emoji or dingbats in what the viz modules draw -----------------------------------------------
#: Emoji presentation, pictographs, dingbats and miscellaneous symbols (✓ ✗ ★ ⚠ ...): some machines
#: have no font for them. Arrows (→ ← ↵) and Latin-1 marks (× ·) are typographic and stay.
PICTOGRAPHS = regex.compile(r"[\p{Emoji_Presentation}\u2600-\u27BF\u2B00-\u2BFF\uFE0F\U0001F000-\U0001FFFF]")


def drawn_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that can reach the page: all but docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


@pytest.mark.parametrize(
    "path", sorted((Path(__file__).resolve().parents[2] / "viz").glob("*.py")), ids=lambda p: p.name
)
def test_viz_modules_draw_no_emoji(path):
    found = [(line, text) for line, text in drawn_strings(path) if PICTOGRAPHS.search(text)]
    assert not found, f"{path.name} draws pictographs: {found}"


def test_the_emoji_check_sees_strings_but_not_docstrings(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""A \u2713 docstring."""\nMARK = "\u2717 gone"\nARROW = "a \u2192 b"\n', encoding="utf-8")
    assert [text for _, text in drawn_strings(module) if PICTOGRAPHS.search(text)] == ["\u2717 gone"]
