"""viz.trees: segmentation trees as SVG (pure builder, no Streamlit)."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

from core.bpe.model import Merge
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from viz.ranks import id_rank_text
from viz.tables import merge_rows, with_ids
from viz.trees import (
    LEGIBLE_SCALE,
    NODE_H,
    RANK_PX,
    TOKEN_PX,
    inline_tree_html,
    merge_tree_svg,
    svg_from_html,
    svg_html,
    tree_svg,
)

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def nodes(svg: str) -> list[dict]:
    """Every node group: its classes, token, and texts."""
    out = []
    for group in parse(svg).iter(f"{SVG}g"):
        texts = [t.text for t in group.iter(f"{SVG}text")]
        out.append({"classes": group.get("class").split(), "token": group.get("data-token"), "texts": texts})
    return out


def scenario(name: str):
    return load_tokeniser(scenario_paths()[name])


def test_leaves_are_characters_and_merges_carry_their_rank():
    tokeniser = scenario("a1_scenario2a")
    trace = tokeniser.trace_pretoken("_bruids")
    svg = merge_tree_svg([(trace.pretoken, trace.trees)])
    found = nodes(svg)
    leaves = [n["token"] for n in found if "leaf" in n["classes"]]
    merges = {n["token"]: n["texts"] for n in found if "merge" in n["classes"]}
    assert sorted(leaves) == sorted("_bruids")
    assert merges["ids"] == ["ids", "#1"] and merges["_bruids"] == ["_bruids", "#5"]
    assert len(merges) == len(trace.steps)
    # the final token is filled (a current token), nothing is a ghost
    assert [n["token"] for n in found if "current" in n["classes"]] == ["_bruids"]
    assert not [n for n in found if "ghost" in n["classes"]]


def test_tuple_merge_with_three_children():
    tokeniser = scenario("a1_scenario2a")
    after = tokeniser.with_merges(
        [Merge(rank, tuple(parts)) for rank, parts in tokeniser.metadata["after_knockout_merges"]]
    )
    trace = after.trace_pretoken("_bruids")
    (root,) = trace.trees
    assert len(root.children) == 3
    svg = merge_tree_svg([(trace.pretoken, trace.trees)])
    tuple_nodes = [n for n in nodes(svg) if "tuple" in n["classes"]]
    assert [n["token"] for n in tuple_nodes] == ["_bruids"]
    assert tuple_nodes[0]["texts"] == ["_bruids", "#5 tuple"]
    # one edge per child of every merge
    edges = [line for line in parse(svg).iter(f"{SVG}line") if line.get("class") != "reference-split"]
    assert len(edges) == sum(len(n.children) for n in _walk(root) if n.merge is not None)


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def test_step_view_ghosts_and_highlights(dutch40k):
    trace = dutch40k.trace_pretoken("Ġmasterthesis")
    svg = merge_tree_svg([(trace.pretoken, trace.trees)], dutch40k.pretokeniser.display, done=[6], last_step=(0, 5))
    found = nodes(svg)
    ghosts = {n["token"] for n in found if "ghost" in n["classes"]}
    assert ghosts == {"ert", "Ġmast", "hes"}  # steps 7-9 have not fired
    current = [n["token"] for n in found if "current" in n["classes"]]
    assert current == ["Ġm", "ast", "er", "t", "h", "es", "is"]
    assert 'stroke="#ea580c"' in svg  # the merge of step 6 (a + st) is outlined
    zero = nodes(merge_tree_svg([(trace.pretoken, trace.trees)], done=[0]))
    assert all("ghost" in n["classes"] for n in zero if "merge" in n["classes"])
    assert [n["token"] for n in zero if "current" in n["classes"]] == list("Ġmasterthesis")


def test_reference_boundaries_and_blamed_merges(dutch40k):
    trace = dutch40k.trace_pretoken("Ġbruidsjurk")
    reference = {(0, 5), (0, 6)}  # after Ġbruid and after Ġbruids (offsets count the marker)
    svg = merge_tree_svg([(trace.pretoken, trace.trees)], reference=reference)
    lines = [line for line in parse(svg).iter(f"{SVG}line") if line.get("class") == "reference-split"]
    assert len(lines) == 2
    blamed = {n["token"] for n in nodes(svg) if "crosses-reference" in n["classes"]}
    assert blamed == {"ids"}  # id + s removed bruid|s


def test_several_pretokens_side_by_side(dutch40k):
    pretokens = dutch40k.pretokeniser.pretokenise(" bruid-jurk")
    traces = [dutch40k.trace_pretoken(p) for p in pretokens]
    svg = merge_tree_svg([(t.pretoken, t.trees) for t in traces], dutch40k.pretokeniser.display)
    assert [n["token"] for n in nodes(svg) if "current" in n["classes"]] == dutch40k.tokenise_word("bruid-jurk")


def test_everything_is_escaped():
    hostile = "<b>&\"'"
    from core.bpe.model import BTETokeniser
    from core.pipeline import WhitespaceSplit

    tokeniser = BTETokeniser(list(hostile), [Merge(0, ("<", "b")), Merge(1, ("<b", ">"))], WhitespaceSplit())
    trace = tokeniser.trace_pretoken(hostile)
    svg = merge_tree_svg([(trace.pretoken, trace.trees)], caption=hostile)
    parse(svg)
    assert "<b>" not in svg.replace("<b&", "")  # the only '<b' sequences are escaped text
    assert "&lt;b&gt;" in svg and "&amp;" in svg and "&quot;" in svg
    assert not re.search(r'(?:src|href)="https?://', svg)


def test_whitespace_and_bytes_are_visible(dutch40k):
    trace = dutch40k.trace_pretoken("ĠcafÃ©")
    texts = [
        t
        for n in nodes(merge_tree_svg([(trace.pretoken, trace.trees)], dutch40k.pretokeniser.display))
        for t in n["texts"]
    ]
    assert "\\xc3" in texts and "\\xa9" in texts  # the two bytes of é as leaves
    assert "Ġcafé" in texts  # the whole token decoded


def test_svg_html_round_trip_and_is_offline():
    svg = merge_tree_svg([("ab", scenario("a3_moving_merges").trace_pretoken("ab").trees)])
    markup = svg_html(svg, alt='a "tree"')
    assert markup.startswith('<div class="merge-tree"') and "<svg" not in markup
    assert 'alt="a &quot;tree&quot;"' in markup
    assert svg_from_html(markup) == svg
    assert svg_from_html("<div></div>") == ""


def test_tree_svg_for_the_stepper_page(dutch40k):
    """tree_svg takes the flat list of a word's trees (pretoken starts reset to 0) and highlights merges."""
    trees = [
        tree for p in dutch40k.pretokeniser.pretokenise(" bruid-jurk") for tree in dutch40k.trace_pretoken(p).trees
    ]
    svg = tree_svg(trees, dutch40k.pretokeniser.display, {dutch40k.merge_of("jurk")})
    assert "\n" not in svg  # one line: st.markdown keeps a raw HTML block only without blank lines
    found = nodes(svg)
    assert [n["token"] for n in found if "current" in n["classes"]] == dutch40k.tokenise_word("bruid-jurk")
    assert [n["token"] for n in found if "highlight" in n["classes"]] == ["jurk"]


def test_tree_svg_highlights_tokens_by_string_and_escapes_them():
    """The stepper's simple entry point: highlight by merge or by token string; every text escaped."""
    from core.bpe.model import BTETokeniser
    from core.pipeline import WhitespaceSplit

    hostile = "<b>&\"'"
    tokeniser = BTETokeniser(list(hostile), [Merge(0, ("<", "b")), Merge(1, ("<b", ">"))], WhitespaceSplit())
    trace = tokeniser.trace_pretoken(hostile)
    svg = tree_svg(trace.trees, highlight={"<b>", "&"})
    found = nodes(svg)  # well-formed XML
    assert {n["token"] for n in found if "highlight" in n["classes"]} == {"<b>", "&"}
    assert [n["texts"] for n in found if n["token"] == "<b>"] == [["<b>", "#1"]]
    assert "<b>" not in svg.replace("<b&", "") and "&lt;b&gt;" in svg
    assert nodes(tree_svg([])) == []  # nothing to draw is still a valid picture


def test_leaf_boxes_never_touch_even_for_byte_labels(dutch40k):
    """Leaves of a byte-level word are bytes (``\\xf0``): each box keeps a gap to the next."""
    pretoken = dutch40k.pretokeniser.pretokenise(" \U0001f389")[0]
    trace = dutch40k.trace_pretoken(pretoken)
    root = parse(merge_tree_svg([(trace.pretoken, trace.trees)], dutch40k.pretokeniser.display))
    leaves = sorted(
        (float(r.get("x")), float(r.get("width")))
        for g in root.iter(f"{SVG}g")
        if "leaf" in (g.get("class") or "").split()
        for r in g.iter(f"{SVG}rect")
    )
    assert len(leaves) == len(pretoken) == 5
    assert all(x + width + 4 <= next_x for (x, width), (next_x, _) in itertools.pairwise(leaves))


def test_tooltips_give_each_node_its_id_beside_its_merge_rank(dutch40k):
    ids = dutch40k.token_ids()
    trace = dutch40k.trace_pretoken("Ġbruids")
    titles = {
        group.get("data-token"): group.find(f"{SVG}title").text
        for group in parse(merge_tree_svg([(trace.pretoken, trace.trees)], ids=ids)).iter(f"{SVG}g")
    }
    assert titles["Ġbruids"] == f"Ġbruids = Ġbru + ids · id {ids['Ġbruids']} · merge #15545"
    assert titles["Ġ"] == f"Ġ · id {ids['Ġ']}"  # a leaf: its id, no rank
    assert "<title>Ġbruids = Ġbru + ids · merge #15545</title>" in merge_tree_svg([(trace.pretoken, trace.trees)])
    assert id_rank_text(None, 12.0) == "merge #12" and id_rank_text(7, 4.5) == "id 7 · merge before #5"


def test_the_dot_of_g_stays_clear_of_its_box_and_labels_are_legible(dutch40k):
    """``Ġbruids`` must never read as ``Gbruids``: the dot above the capital (about 0.95 em above the
    baseline) lies inside the box, below its border, and every label is 14 px or more when the tree is
    drawn at ``LEGIBLE_SCALE`` (the smallest scale presentation mode allows)."""
    trace = dutch40k.trace_pretoken("Ġbruids")
    for group in parse(merge_tree_svg([(trace.pretoken, trace.trees)])).iter(f"{SVG}g"):
        if "merge" not in group.get("class").split():
            continue
        box, token = group.find(f"{SVG}rect"), group.find(f"{SVG}text")
        border = float(box.get("stroke-width"))
        assert float(token.get("y")) - 0.95 * TOKEN_PX >= float(box.get("y")) + border, group.get("data-token")
        assert float(box.get("height")) == NODE_H
    assert min(TOKEN_PX, RANK_PX) * LEGIBLE_SCALE >= 14 - 1e-9


def test_inline_tree_keeps_its_tooltips_and_its_legible_size():
    tokeniser = scenario("a1_scenario2a")
    trace = tokeniser.trace_pretoken("_bruids")
    svg = merge_tree_svg([(trace.pretoken, trace.trees)])
    markup = inline_tree_html(svg, min_scale=0.5, max_height="calc(100vh - 300px)")
    assert "\n" not in markup and markup.startswith('<div class="merge-tree"')  # one raw HTML block for markdown
    width, height = map(int, re.search(r' width="(\d+)" height="(\d+)"', svg).groups())
    assert f"min-width:{width * 0.5:.0f}px;min-height:{height * 0.5:.0f}px;max-height:calc(100vh - 300px)" in markup
    assert parse(svg_from_html(markup)).find(f"{SVG}g/{SVG}title") is not None


def test_tables_put_the_id_beside_the_rank(dutch40k):
    ids = dutch40k.token_ids()
    trace = dutch40k.trace_pretoken("Ġbruids")
    rows = merge_rows([trace], ids=ids)
    assert [row["id"] for row in rows] == [str(ids[step.merge.result]) for step in trace.steps]
    assert "id" not in merge_rows([trace])[0]
    added = with_ids(
        [{"rank": "#1", "type": "x", "more": 1}, {"rank": "#2", "type": "y"}], ["ids", "not a type"], ids, "type"
    )
    assert added == [
        {"rank": "#1", "type": "x", "id": str(ids["ids"]), "more": 1},
        {"rank": "#2", "type": "y", "id": ""},
    ]
    assert list(added[0]) == ["rank", "type", "id", "more"]
