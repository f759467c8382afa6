"""The Merge graph page through AppTest: defaults, the type from the URL, controls, comparisons.

AppTest runs no JavaScript: the graph is checked in the HTML the page hands to its component
(the iframe's ``srcdoc``). Clicking a node, the canvas and offline loading are in
tests/e2e/test_graph_page.py.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

import pytest
from streamlit.testing.v1 import AppTest

import ui.downloads
from core.formats.samples import DUTCH_40K
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import assert_clean
from tests.apptest_support import run_page as run_at

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/merge_graph.py"
TIMEOUT = 90  # the Dutch 40k tokeniser (and a knockout run) take a moment on a cold machine
pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def run_page(**query) -> AppTest:
    return run_at(PAGE, timeout=TIMEOUT, **query)


def srcdoc(at: AppTest) -> str:
    """The HTML document the component puts in its iframe."""
    (component,) = [e for e in at.get("bidi_component") if e.key == "merge_graph_view"]
    return json.loads(component.proto.json)["html"]


def graph_nodes(at: AppTest) -> list[dict]:
    return json.loads(re.search(r"new vis\.DataSet\((.*?)\);\n", srcdoc(at)).group(1))


@contextmanager
def recorded_figures():
    """Every ``figure_downloads(stem, svg, ...)`` call of the pages run inside, as ``{key: (stem, svg)}``
    (AppTest cannot read a download's content back); the buttons are still drawn."""
    seen, original = {}, ui.downloads.figure_downloads

    def record(stem, svg, tikz=None, *, key):
        seen[key] = (stem, svg)
        return original(stem, svg, tikz, key=key)

    with patch.object(ui.downloads, "figure_downloads", record):
        yield seen


def type_labels(at: AppTest) -> set[str]:
    return {node["label"] for node in graph_nodes(at) if node["role"] != "merge"}


def centre(at: AppTest) -> str:
    (node,) = [node for node in graph_nodes(at) if node["role"] == "center"]
    return node["focus"]


def table_rows(at: AppTest) -> list[dict]:
    return at.dataframe[0].value.to_dict("records")


def test_default_renders_the_dutch_40k_around_bruids():
    at = run_page(tokeniser="nl-40k")
    assert_clean(at)
    assert at.title[0].value == "Merge graph"
    assert at.text_input(key="type").value == "Ġbruids"
    assert centre(at) == "Ġbruids"
    # the paper's Figure 1: Ġbru + ids, id + s, and the half-sibling Ġgids sharing ids
    assert {"Ġbruids", "Ġbru", "ids", "id", "s", "Ġb", "ru", "Ġgids"} <= type_labels(at)
    assert re.findall(r"https?://", srcdoc(at)) == []
    assert table_rows(at) == [
        {
            "set": "M_i: forms it",
            "rank": "#15545",
            "merge": "Ġbru + ids",
            "result": "Ġbruids",
            "id": str(load_tokeniser(DUTCH_40K).token_ids()["Ġbruids"]),  # the id beside the rank
            "parts": 2,
            "tuple merge": "",
        }
    ]
    assert any("15 merges" in c.value or "merges around" in c.value for c in at.caption)


def test_the_page_is_wired_into_the_app_navigation():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["tokeniser"] = "nl-40k"
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert at.title[0].value == "Merge graph" and centre(at) == "Ġbruids"


@pytest.mark.parametrize("asked, expected", [("gids", "gids"), ("Ġgids", "Ġgids"), ("ĠGids", "ĠGids"), ("é", "Ã©")])
def test_the_type_comes_from_the_url(asked, expected):
    at = run_page(tokeniser="nl-40k", type=asked)
    assert_clean(at)
    assert at.text_input(key="type").value == asked
    assert centre(at) == expected
    assert not at.warning


def test_a_word_that_is_not_a_type_becomes_its_word_start_type():
    at = run_page(tokeniser="nl-40k", type="bruids")
    assert_clean(at)
    assert centre(at) == "Ġbruids"
    assert any("word-start type" in info.value for info in at.info)


@pytest.mark.parametrize("asked", ["no-such-type-xyz", "<script>alert(1)</script>", "`x`"])
def test_an_invalid_type_falls_back_with_a_warning(asked):
    at = run_page(tokeniser="nl-40k", type=asked)
    assert_clean(at)
    assert centre(at) == "Ġbruids"
    (warning,) = at.warning
    assert "is not a type of nl\\-40k; showing `Ġbruids` instead" in warning.value
    assert "alert(1)" not in srcdoc(at)


def test_typing_a_type_or_a_near_miss():
    at = run_page(tokeniser="nl-40k")
    at.text_input(key="type").input("ids").run()
    assert_clean(at)
    assert centre(at) == "ids" and not at.warning
    at.text_input(key="type").input("ruidegom").run()
    assert_clean(at)
    assert centre(at) == "Ġbruids"
    (warning,) = at.warning
    assert "Types containing it: `Ġbruidegom`" in warning.value


def test_depth_and_node_limit_controls():
    at = run_page(tokeniser="nl-40k")
    deep = type_labels(at)
    at.slider(key="depth").set_value(1).run()
    assert_clean(at)
    shallow = type_labels(at)
    assert {"Ġbru", "ids", "Ġgids"} <= shallow and not {"Ġb", "ru", "id", "s"} & shallow
    assert len(shallow) < len(deep)
    at.slider(key="nodes").set_value(5).run()
    assert_clean(at)
    assert len([n for n in graph_nodes(at) if n["role"] not in ("merge", "other part")]) == 5
    assert "Showing 5 of" in srcdoc(at)
    at.segmented_control(key="others").set_value("off").run()
    assert_clean(at)
    assert {n["role"] for n in graph_nodes(at)} == {"center", "ancestor", "half-sibling"}  # no grey parts


def test_types_and_merges_view_labels_merges_with_rank_and_parts():
    at = run_page(tokeniser="nl-40k", view="types and merges")
    assert_clean(at)
    merges = {node["label"] for node in graph_nodes(at) if node["role"] == "merge"}
    assert {"#15545\nĠbru + ids", "#1234\nid + s", "#1634\nĠb + ru", "#6460\nĠg + ids"} <= merges


def test_scenario_default_and_the_papers_knockout():
    at = run_page(tokeniser="a1_scenario2a", view="types and merges")
    assert_clean(at)
    assert centre(at) == "_bruids"
    assert "the paper's knockout" in at.selectbox(key="compare").options
    at.selectbox(key="compare").set_value("the paper's knockout").run()
    assert_clean(at)
    labels = {node["label"] for node in graph_nodes(at)}
    assert {"out: ids", "re-formed: _bruids", "out: #1\nid + s", "out: #5\n_bru + ids"} <= labels
    assert table_rows(at)[0]["the paper's knockout"] == "replaced by _bru + id + s (#5)"
    at.segmented_control(key="draw").set_value("after").run()
    assert_clean(at)
    labels = {node["label"] for node in graph_nodes(at)}
    assert "new: #5 tuple\n_bru + id + s" in labels and "ids" not in labels
    assert table_rows(at)[0]["tuple merge"] == "yes"


def test_compare_with_bpe_knockout_on_the_loaded_reference():
    at = run_page(tokeniser="a1_scenario2a", compare="BPE-knockout")
    assert_clean(at)
    assert centre(at) == "_bruids"
    assert "BPE-knockout on nl_morph" in table_rows(at)[0]


def test_a_clicked_type_recentres_the_graph():
    """The component's click callback sets the ``type`` widget; the same path, driven from state."""
    at = run_page(tokeniser="nl-40k")
    at.session_state["type"] = "ids"
    at.run()
    assert_clean(at)
    assert centre(at) == "ids" and at.text_input(key="type").value == "ids"
    assert {"Ġbruids", "Ġgids", "id", "s"} <= type_labels(at)  # its descendants and parents


def test_the_shown_neighbourhood_downloads_as_svg_with_integer_ranks():
    with recorded_figures() as figures:
        at = run_page(tokeniser="a1_scenario2a", view="types and merges", compare="the paper's knockout")
    assert_clean(at)
    assert next(b.proto.label for b in at.get("download_button")) == "SVG"
    stem, svg = figures["merge_graph_figure"]
    assert stem == "merge-graph-_bruids-types and merges" and svg.startswith("<svg")
    drawn = graph_nodes(at)  # the SVG draws the nodes the interactive graph shows, labels and all
    assert svg.count('<g class="node"') == len(drawn)
    assert {"out: #1", "id + s", "re-formed: _bruids"} <= set(re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg))


def test_a_merge_reification_placed_shows_as_before_its_tuple_merge():
    # ReBPE on scenario 2a reifies _bru + id at rank 5 - ε ([rebpe §3.3]): "before #5", never "#4.999"
    with recorded_figures() as figures:
        at = run_page(tokeniser="a1_scenario2a", type="_bru", view="types and merges", compare="ReBPE", draw="after")
    assert_clean(at)
    labels = [node["label"] for node in graph_nodes(at) if node["role"] == "merge"]
    assert any(label.startswith("new: before #5\n_bru + id") for label in labels), labels
    assert [row["rank"] for row in table_rows(at)] == ["#4", "before #5"]
    shown = srcdoc(at) + figures["merge_graph_figure"][1] + json.dumps(table_rows(at))
    assert "before #5" in figures["merge_graph_figure"][1] and not re.search(r"#\d+\.\d", shown)


def test_the_corpus_is_counted_only_when_asked():
    at = run_page(tokeniser="nl-40k")  # first open: counts on the reference words, no pass over the corpus
    assert_clean(at)
    assert at.toggle(key="corpus_counts").value is False
    (row,) = at.table[0].value.to_dict("records")
    assert row["fires on the reference"] > 0 and "fires on the corpus" not in row
    assert any("switch on *Count merges on the corpus too*" in c.value for c in at.caption)
    assert "corpus" not in next(n["title"] for n in graph_nodes(at) if n["role"] == "center")
    at.toggle(key="corpus_counts").set_value(True).run()
    assert_clean(at)
    (row,) = at.table[0].value.to_dict("records")
    assert {"fires on the reference", "fires on the corpus"} <= set(row)
    assert "corpus" in next(n["title"] for n in graph_nodes(at) if n["role"] == "center")
    linked = run_page(tokeniser="nl-40k", corpus_counts="true")  # a link keeps the choice
    assert linked.toggle(key="corpus_counts").value is True and "fires on the corpus" in linked.table[0].value


def test_the_default_centre_is_the_word_the_word_debugger_shows():
    at = run_at("pages/word_debugger.py", timeout=TIMEOUT, via_app=True, word="masterthesis")
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert at.text_input(key="type").value == "Ġmast"  # Ġmast ert hes is: the longest token
    assert any("the longest token of `masterthesis`" in c.value for c in at.caption)
    at.switch_page("pages/word_debugger.py")
    at.query_params["word"] = "bruidsjurk"
    at.run()
    at.switch_page(PAGE).run()
    assert at.text_input(key="type").value == "Ġbruids"  # another word since: the centre follows it


def test_presentation_mode_shows_the_type_row_and_the_graph_alone():
    at = run_page(present="1", type="Ġbruids")
    assert_clean(at)
    assert at.toggle(key="presentation_mode").value
    assert not at.title and not at.subheader  # no heading, no tables below the graph
    assert [e.label for e in at.expander] == ["Depth, limits and what to follow"]
    assert at.text_input(key="type").value == "Ġbruids"
    at.toggle(key="presentation_mode").set_value(False).run()
    assert at.title[0].value == "Merge graph" and at.subheader


def page_links(at: AppTest) -> dict[str, str]:
    """Page -> query string of each link to another page of the app (``st.page_link``)."""
    return {e.proto.page: e.proto.query_string for e in at.get("page_link")}


def test_a_link_with_a_word_centres_on_it_in_a_new_session_and_links_back():
    """The Word debugger's link carries its word (a copied link opens a new session, which has no
    memory of the word): the graph centres on the word's longest merged token, not on the default."""
    at = run_at(PAGE, timeout=TIMEOUT, via_app=True, tokeniser="nl-40k", word="masterthesis")
    assert_clean(at)
    assert at.text_input(key="type").value == "Ġmast" and centre(at) == "Ġmast"
    assert at.query_params["word"] == "masterthesis"  # kept, so a copied link centres there too
    assert page_links(at)["word_debugger"] == "word=masterthesis"  # the way back to the word
    at = run_at(PAGE, timeout=TIMEOUT, via_app=True, tokeniser="nl-40k", word="masterthesis", type="Ġgids")
    assert centre(at) == "Ġgids"  # a type in the link wins (a running-text token's link)


def test_the_word_debuggers_link_switches_pages_in_presentation_mode_and_back():
    """Each page has its own toggle: after a page switch the link's ``present`` decides."""
    at = run_at("pages/word_debugger.py", timeout=TIMEOUT, via_app=True, word="bruidsjurk", present="1")
    assert page_links(at)["merge_graph"] == "word=bruidsjurk&present=1"
    at.switch_page(PAGE)
    at.query_params.clear()
    at.query_params.update({"word": "bruidsjurk", "present": "1"})  # what the link opens
    at.run()
    assert_clean(at)
    assert at.toggle(key="presentation_mode").value and centre(at) == "Ġbruids"
    assert page_links(at)["word_debugger"] == "word=bruidsjurk&present=1"
    at.switch_page("pages/word_debugger.py")
    at.query_params.clear()
    at.query_params["word"] = "bruidsjurk"  # a link without present=1: not presenting
    at.run()
    assert not at.toggle(key="presentation_mode").value and at.text_input(key="word").value == "bruidsjurk"


def test_other_parts_are_left_out_of_a_big_graph_unless_asked_for():
    small = run_page(tokeniser="nl-40k")  # 15 types: every merge drawn with its other part
    assert "other part" in {n["role"] for n in graph_nodes(small)}
    big = run_page(tokeniser="nl-40k", siblings="20")
    assert len([n for n in graph_nodes(big) if n["role"] != "other part"]) > 15
    assert "other part" not in {n["role"] for n in graph_nodes(big)}
    assert "left out above 15 types" in srcdoc(big)
    big.segmented_control(key="others").set_value("on").run()
    assert "other part" in {n["role"] for n in graph_nodes(big)}
