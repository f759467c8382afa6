"""viz/graph_html.py: the merge-graph HTML is offline, escaped, and shows the right nodes and edges.

The node/edge data is read back out of the generated HTML (the JSON handed to vis-network), so
these tests check what the browser receives. The browser side is in tests/e2e/test_graph_page.py.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from core.bpe.graph import ANCESTOR, CENTER, neighbourhood
from core.bpe.model import BTETokeniser, Merge
from core.edits.knockout import knock_out
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline.whitespace import WhitespaceSplit
from viz.graph_elements import graph_elements
from viz.graph_html import STATIC_DIR, VIS_CSS, VIS_JS, graph_html, standalone_html
from viz.graph_layout import node_width
from viz.graph_search import default_type, resolve_type, similar_types, type_labels
from viz.graph_style import ABSENT_COLOUR, GONE, MERGES_VIEW, NEW, OTHER, REFORMED, TUPLE_EDGE, TYPES_VIEW
from viz.graph_tables import mio_rows

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"https?://", re.IGNORECASE)
HOSTILE = ["<script>alert(1)</script>", "</script><b>x</b>", '"onmouseover="x', "a&amp;b", "it's", "\u2028\x07"]


# --- helpers ----------------------------------------------------------------------------------------
def graph_data(document: str) -> tuple[list[dict], list[dict]]:
    """The nodes and edges the document hands to vis-network."""
    found = re.findall(r"new vis\.DataSet\((.*?)\);\n", document)
    assert len(found) == 2, "expected one DataSet of nodes and one of edges"
    return json.loads(found[0]), json.loads(found[1])


def labels(nodes: list[dict]) -> set[str]:
    return {node["label"] for node in nodes}


def by_id(nodes: list[dict]) -> dict[str, dict]:
    return {node["id"]: node for node in nodes}


def edge_pairs(edges: list[dict]) -> set[tuple[str, str]]:
    return {(edge["from"], edge["to"]) for edge in edges}


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(document: str) -> list[tuple[str, dict]]:
    parser = _Tags()
    parser.feed(document)
    return parser.tags


@pytest.fixture(scope="module")
def scenario2a() -> BTETokeniser:
    return load_tokeniser(scenario_paths()["a1_scenario2a"])


@pytest.fixture(scope="module")
def knocked2a(scenario2a) -> BTETokeniser:
    """Scenario 2a after the paper's knockout of ``id s`` (core's knockout, Alg. 1)."""
    after, _ = knock_out(scenario2a, ["ids"])
    return after


def hood_of(tokeniser, center="_bruids", depth=2, max_nodes=40, siblings=6):
    return neighbourhood(tokeniser, center, depth, max_nodes, siblings)


# --- scenario 2a before and after knockout --------------------------------------------------------
def test_scenario_2a_types_view_before_knockout(scenario2a):
    nodes, edges = graph_data(graph_html(scenario2a, hood_of(scenario2a), TYPES_VIEW))
    assert labels(nodes) == {"_bruids", "_bru", "ids", "_br", "u", "id", "s"}
    roles = {node["focus"]: node["role"] for node in nodes}
    assert roles["_bruids"] == CENTER and roles["ids"] == ANCESTOR and roles["s"] == ANCESTOR
    assert edge_pairs(edges) == {
        ("t:_bru", "t:_bruids"),
        ("t:ids", "t:_bruids"),
        ("t:id", "t:ids"),
        ("t:s", "t:ids"),
        ("t:_br", "t:_bru"),
        ("t:u", "t:_bru"),
    }
    assert all(edge["color"] != TUPLE_EDGE and not edge["dashes"] for edge in edges)
    assert not any("status" in node for node in nodes)
    # parts are drawn above the types they form
    y = {node["focus"]: node["y"] for node in nodes}
    assert y["id"] < y["ids"] < y["_bruids"] and y["_br"] < y["_bru"] < y["_bruids"]


def test_scenario_2a_merges_view_before_knockout(scenario2a):
    nodes, edges = graph_data(graph_html(scenario2a, hood_of(scenario2a), MERGES_VIEW))
    merges = {node["id"]: node for node in nodes if node["role"] == "merge"}
    assert {node["label"] for node in merges.values()} == {"#1\nid + s", "#4\n_br + u", "#5\n_bru + ids"}
    assert not any(node["tuple"] for node in merges.values())
    assert {"t:ids", "t:_bru"} == {e["from"] for e in edges if e["to"] == "m:5"}
    assert ("m:5", "t:_bruids") in edge_pairs(edges)
    assert by_id(nodes)["m:5"]["focus"] == "_bruids"  # clicking a merge centres on its result


def test_scenario_2a_after_knockout_has_the_tuple_merge(knocked2a):
    assert "ids" not in knocked2a.types
    nodes, edges = graph_data(graph_html(knocked2a, hood_of(knocked2a), MERGES_VIEW))
    tuple_merge = by_id(nodes)["m:5"]
    assert tuple_merge["label"] == "#5 tuple\n_bru + id + s" and tuple_merge["tuple"] is True
    assert {e["from"] for e in edges if e["to"] == "m:5"} == {"t:_bru", "t:id", "t:s"}
    assert all(e["color"] == TUPLE_EDGE for e in edges if "m:5" in (e["from"], e["to"]))
    assert "ids" not in {node["focus"] for node in nodes}

    nodes, edges = graph_data(graph_html(knocked2a, hood_of(knocked2a), TYPES_VIEW))
    assert {e["from"] for e in edges if e["to"] == "t:_bruids"} == {"t:_bru", "t:id", "t:s"}
    assert all(e["color"] == TUPLE_EDGE for e in edges if e["to"] == "t:_bruids")


def test_before_view_marks_what_the_knockout_removes(scenario2a, knocked2a):
    nodes, edges = graph_elements(scenario2a, hood_of(scenario2a), MERGES_VIEW, other=knocked2a, other_label="knockout")
    nodes = by_id(nodes)
    assert nodes["t:ids"]["status"] == GONE and nodes["t:ids"]["label"] == "out: ids"
    assert nodes["t:_bruids"]["status"] == REFORMED and nodes["t:_bruids"]["label"] == "re-formed: _bruids"
    assert "formed by" in nodes["t:_bruids"]["title"] and "_bru + id + s" in nodes["t:_bruids"]["title"]
    assert nodes["m:1"]["status"] == GONE and nodes["m:1"]["label"].startswith("out: #1")
    assert "status" not in nodes["m:4"] and "status" not in nodes["t:_bru"]
    dashed = {(e["from"], e["to"]) for e in edges if e["dashes"]}
    assert dashed == {
        ("t:id", "m:1"),
        ("t:s", "m:1"),
        ("m:1", "t:ids"),
        ("t:_bru", "m:5"),
        ("t:ids", "m:5"),
        ("m:5", "t:_bruids"),
    }
    assert all(e["color"] == ABSENT_COLOUR for e in edges if e["dashes"])


def test_after_view_marks_what_is_new(scenario2a, knocked2a):
    nodes, _ = graph_elements(
        knocked2a, hood_of(knocked2a), MERGES_VIEW, other=scenario2a, other_label="before", other_is_before=True
    )
    nodes = by_id(nodes)
    assert nodes["m:5"]["status"] == NEW and nodes["m:5"]["label"].startswith("new: #5 tuple")
    assert nodes["t:_bruids"]["status"] == REFORMED
    assert "status" not in nodes["t:id"]


def test_a_merge_placed_by_reification_shows_an_integer_rank():
    # reification ranks a submerge just below the tuple merge it serves ([rebpe §3.3]): #2 - ε
    tokeniser = BTETokeniser(
        ["a", "b", "c"],
        [Merge(1, ("a", "b")), Merge(1.999, ("b", "c")), Merge(2, ("a", "b", "c"))],
        WhitespaceSplit(),
        name="reified",
    )
    nodes, _ = graph_elements(tokeniser, neighbourhood(tokeniser, "bc", 2, 20, 4), MERGES_VIEW)
    (submerge,) = [n for n in nodes if n["id"].startswith("m:") and n["focus"] == "bc"]
    assert submerge["label"] == "before #2\nb + c" and "just before merge #2" in submerge["title"]
    assert [row["rank"] for row in mio_rows(tokeniser, "bc")] == ["before #2"]
    assert "1.999" not in json.dumps([n["label"] for n in nodes])


def test_mio_rows_with_a_comparison(scenario2a, knocked2a):
    assert mio_rows(scenario2a, "ids") == [
        {"set": "M_i: forms it", "rank": "#1", "merge": "id + s", "result": "ids", "parts": 2, "tuple merge": ""},
        {
            "set": "M_o: uses it",
            "rank": "#5",
            "merge": "_bru + ids",
            "result": "_bruids",
            "parts": 2,
            "tuple merge": "",
        },
    ]
    rows = mio_rows(scenario2a, "_bruids", other=knocked2a, other_label="after")
    assert rows[0]["after"] == "replaced by _bru + id + s (#5)"
    assert mio_rows(scenario2a, "ids", other=knocked2a, other_label="after")[0]["after"] == "knocked out"
    rows = mio_rows(knocked2a, "_bruids", other=scenario2a, other_label="before", other_is_before=True)
    assert rows == [
        {
            "set": "M_i: forms it",
            "rank": "#5",
            "merge": "_bru + id + s",
            "result": "_bruids",
            "parts": 3,
            "tuple merge": "yes",
            "before": "new (absent before)",
        }
    ]


def test_other_parts_can_be_left_out(dutch40k):
    hood = hood_of(dutch40k, "Ġbruids")
    for view in (TYPES_VIEW, MERGES_VIEW):
        full, _ = graph_elements(dutch40k, hood, view)
        lean, edges = graph_elements(dutch40k, hood, view, other_parts=False)
        assert OTHER in {n["role"] for n in full} and OTHER not in {n["role"] for n in lean}
        ids = {n["id"] for n in lean}
        assert all(e["from"] in ids and e["to"] in ids for e in edges)
        assert {n["focus"] for n in lean if n["role"] != "merge"} == set(hood.roles)


# --- offline and escaped --------------------------------------------------------------------------
@pytest.mark.parametrize("view", [TYPES_VIEW, MERGES_VIEW])
def test_no_web_address_in_the_embedded_html(scenario2a, knocked2a, view):
    for document in (
        graph_html(scenario2a, hood_of(scenario2a), view),
        graph_html(scenario2a, hood_of(scenario2a), view, other=knocked2a, other_label="k", note="n"),
    ):
        assert LINK.findall(document) == []
        sources = [attrs.get("src") or attrs.get("href") for tag, attrs in tags(document) if tag in ("script", "link")]
        assert sources == ["/app/static/vis-network.css", "/app/static/vis-network.min.js", None]


def test_standalone_download_embeds_the_library(scenario2a):
    document = standalone_html(graph_html(scenario2a, hood_of(scenario2a)))
    assert re.findall(r'(?:src|href)="https?://', document) == []
    assert not any(attrs.get("src") or attrs.get("href") for _, attrs in tags(document))
    assert [t for t, _ in tags(document)].count("script") == 2  # vis-network inline, then the graph
    assert "vis-network" in document and "@version 9.1.2" in document


def hostile_tokeniser() -> BTETokeniser:
    alphabet = sorted(set("".join(HOSTILE)))
    merges = []
    for word in HOSTILE:  # left-to-right merges building each hostile string
        built = word[0]
        for char in word[1:]:
            if built + char not in {m.result for m in merges}:
                merges.append(Merge(len(merges), (built, char)))
            built += char
    return BTETokeniser(alphabet, merges, WhitespaceSplit(), name="hostile")


@pytest.mark.parametrize("view", [TYPES_VIEW, MERGES_VIEW])
@pytest.mark.parametrize("center", HOSTILE)
def test_hostile_token_strings_are_escaped(center, view):
    tokeniser = hostile_tokeniser()
    hood = neighbourhood(tokeniser, center, depth=3, max_nodes=200, siblings_per_parent=50)
    document = graph_html(tokeniser, hood, view, note='<b>not bold</b> & "quoted"')
    # nothing a token contains can open or close a tag or leave the script
    assert "<script>alert" not in document and "</script><b>" not in document and "<b>" not in document
    script = document.split("new vis.DataSet(", 1)[1]
    assert "\u2028" not in script  # a raw line separator would end a JS string in older engines
    assert [tag for tag, _ in tags(document)].count("script") == 2 and not any(t == "b" for t, _ in tags(document))
    assert "&lt;b&gt;not bold&lt;/b&gt; &amp; &quot;quoted&quot;" in document
    nodes, _ = graph_data(document)  # ... and the JSON still round-trips to the real strings
    types = {node["focus"]: node["label"] for node in nodes if node["role"] != "merge"}
    shown_center = types[center]
    assert shown_center == center.replace("\u2028", "\\u2028").replace("\x07", "\\x07")
    assert LINK.findall(document) == []


def test_whitespace_and_bytes_are_visible():
    dutch = load_tokeniser(ROOT / "sample_data/tokenisers/bpe-40k_oscar-nl-clean/tokenizer.json")
    hood = neighbourhood(dutch, "Ã©", depth=1, max_nodes=10)  # the two bytes of é
    nodes, _ = graph_data(graph_html(dutch, hood))
    assert by_id(nodes)["t:Ã©"]["label"] == "é"
    assert by_id(nodes)["t:Ã"]["label"] == "\\xc3"  # half a character: shown as its byte
    assert type_labels(dutch)["Ġbruids"] == "Ġbruids"


# --- choosing the type and the neighbourhood ---------------------------------------------------------
def test_default_types(dutch40k, scenario2a):
    assert default_type(dutch40k) == "Ġbruids"
    assert default_type(scenario2a) == "_bruids"
    for name, path in scenario_paths().items():
        tokeniser = load_tokeniser(path)
        assert default_type(tokeniser) in tokeniser.types, name
    moving = load_tokeniser(scenario_paths()["a3_moving_merges"])  # no "ids" anywhere
    assert default_type(moving) == moving.merges[-1].result
    en = load_tokeniser(ROOT / "sample_data/tokenisers/en-bpe-4k-wordfreq.json")
    assert "ids" in default_type(en)


def test_resolve_type(dutch40k):
    names = type_labels(dutch40k)
    assert resolve_type(dutch40k, "gids", names) == ("gids", "label")
    assert resolve_type(dutch40k, "Ġgids", names) == ("Ġgids", "label")
    assert resolve_type(dutch40k, "é", names) == ("Ã©", "label")  # what the URL carries: the label
    assert resolve_type(dutch40k, "\\xe9", names) == ("é", "label")  # the byte 0xE9 alone
    assert resolve_type(dutch40k, "Ã©", names) == ("Ã©", "exact")
    assert resolve_type(dutch40k, "bruids", names) == ("Ġbruids", "word start")
    for bad in ("<script>", "", None, "x" * 1000, "bruids jurk"):
        assert resolve_type(dutch40k, bad, names) == (None, "")


def test_similar_types_suggest_what_the_user_may_have_meant(dutch40k):
    names = type_labels(dutch40k)
    assert similar_types(names, "ruidegom") == ["Ġbruidegom"]
    assert similar_types(names, "BRUIDS")[:2] == ["ĠBruids", "Ġbruids"]
    assert similar_types(names, "") == [] and similar_types(names, "qqqqq") == []


def test_precomputed_layout_has_no_overlaps(dutch40k):
    for view in (TYPES_VIEW, MERGES_VIEW):
        hood = neighbourhood(dutch40k, "ids", depth=2, max_nodes=120, siblings_per_parent=10)
        nodes, _ = graph_elements(dutch40k, hood, view)
        assert len(nodes) > 80
        rows: dict[float, list[dict]] = {}
        for node in nodes:
            rows.setdefault(node["y"], []).append(node)
        for row in rows.values():
            row.sort(key=lambda n: n["x"])
            for left, right in itertools.pairwise(row):
                assert right["x"] - left["x"] >= (node_width(left) + node_width(right)) / 2 - 0.5, (left, right)
        assert {node["role"] for node in nodes} >= {CENTER, ANCESTOR, OTHER}


def test_the_selected_type_sits_in_the_middle_of_its_layer(dutch40k):
    """Its half-siblings on both sides: the view, zoomed in around it, shows as many as it can."""
    hood = neighbourhood(dutch40k, "Ġbruids", depth=2, max_nodes=40, siblings_per_parent=20)
    nodes, _ = graph_elements(dutch40k, hood, TYPES_VIEW, other_parts=False)
    centre = next(node for node in nodes if node["role"] == CENTER)
    row = sorted((node for node in nodes if node["y"] == centre["y"]), key=lambda node: node["x"])
    assert len(row) > 4 and row.index(centre) in (len(row) // 2 - 1, len(row) // 2)


def test_tooltips_give_the_id_beside_the_rank(dutch40k):
    """A type's id is labelled as one and its merge's rank as a merge's (``merge #``): never mixed up."""
    ids = dutch40k.token_ids()
    hood = hood_of(dutch40k, "Ġbruids")
    for view in (TYPES_VIEW, MERGES_VIEW):
        nodes, edges = graph_elements(dutch40k, hood, view, ids=ids)
        centre = by_id(nodes)["t:Ġbruids"]["title"]
        assert centre.startswith(f"Ġbruids · id {ids['Ġbruids']}\n") and "merge #15545" in centre
        titles = [e.get("title", "") for e in edges] + [n["title"] for n in nodes if n["role"] == "merge"]
        assert any(f"Ġbru + ids → Ġbruids · id {ids['Ġbruids']}" in title for title in titles), view
    rows = mio_rows(dutch40k, "ids", ids=ids)
    assert rows and all(row["id"] == str(ids[row["result"]]) for row in rows)  # the result's id, beside its rank
    assert "id" not in mio_rows(dutch40k, "ids")[0]


# --- the vendored library -----------------------------------------------------------------------------
def test_vendored_vis_network_is_served_statically():
    readme = (STATIC_DIR / "README.md").read_text(encoding="utf-8")
    for name in (VIS_JS, VIS_CSS):
        digest = hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()
        assert f"{digest}  {name}" in readme, name
    assert "MIT License" in (STATIC_DIR / "LICENSE-vis-network.txt").read_text(encoding="utf-8")
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["enableStaticServing"] is True
