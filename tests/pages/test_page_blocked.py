"""The Blocked merges page through AppTest (no JavaScript; the browser side is in tests/e2e/)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from core.formats.samples import DUTCH_40K, scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import assert_clean, click_in_fragment
from tests.apptest_support import run_page as run_at

PAGE = "pages/blocked_merges.py"
TIMEOUT = 120  # knockout and the blocked-merge scan of the Dutch 40k take seconds
pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def open_page(**query) -> AppTest:
    at = run_at(PAGE, timeout=TIMEOUT, **query)
    assert_clean(at)
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def trees(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith('<div class="merge-tree-block"')]


def test_defaults_show_the_dutch_40k_after_knockout():
    at = open_page()
    assert at.radio(key="blocked_variant").value == "knockout"  # plain BPE blocks nothing, so start after knockout
    found = metrics(at)
    assert found["Blocked merges"] == "6,905" and found["Unreachable types"] == "6,905"
    assert found["scenario 2b(i)"] == "2,868" and found["scenario 3 (cascade)"] == "3,803"
    table = at.dataframe[0].value
    assert list(table.columns) == [
        "rank",
        "blocked merge",
        "type",
        "id",
        "scenario",
        "found at its turn",
        "blocking merge",
        "example word",
    ]
    assert table.iloc[0]["blocked merge"] == "j + e + s" and table.iloc[0]["example word"] == "bruidsmeisjes"
    assert table.iloc[0]["id"] == str(load_tokeniser(DUTCH_40K).token_ids()["jes"])  # the type's id beside the rank
    # the first blocked merge in detail: its LIMITEDBPE trace as a table and a tree
    trace = next(df.value for df in at.dataframe if "tokens after" in df.value.columns)
    assert list(trace["merge"]) == ["j + e"]
    assert len(trees(at)) == 2
    ids = load_tokeniser(DUTCH_40K).token_ids()
    for tree in trees(at):  # each merge's tooltip has its type's id beside the rank
        assert f"<title>je = j + e · id {ids['je']} · merge #" in tree, tree[:400]


def test_the_loaded_dutch_40k_blocks_nothing():
    at = open_page(variant="before")
    assert metrics(at)["Blocked merges"] == "0"
    (message,) = [s.value for s in at.success]
    assert "plain BPE never blocks a merge" in message and "Choose *after knockout* above" in message


def test_rebpe_without_reparation_leaves_blocked_merges():
    at = open_page(tokeniser="a1_scenario2b_ii", variant="nofix")
    found = metrics(at)
    assert int(found["Blocked merges"]) >= 1
    assert not at.success


@pytest.mark.parametrize(
    "label, name, scenario",
    [
        ("2b(i) first", "a1_scenario2b_i_first", "2b(i)"),
        ("2b(ii)", "a1_scenario2b_ii", "2b(ii)"),
        ("3a", "a1_scenario3a", "3 (cascade)"),
    ],
)
def test_scenario_buttons(label, name, scenario):
    at = open_page(variant="before")
    next(b for b in at.button if b.label == label).click().run()
    assert_clean(at)
    assert at.session_state["ws_tokeniser"] == name
    assert at.radio(key="blocked_variant").value == "knockout"
    assert int(metrics(at)[f"scenario {scenario}"]) >= 1
    assert "_bruids" in list(at.dataframe[0].value["type"])


def test_scenario_2b_ii_explains_the_recruiting_merge():
    at = open_page(tokeniser="a1_scenario2b_ii")
    row = at.dataframe[0].value.iloc[0]
    assert (row["blocked merge"], row["scenario"], row["found at its turn"], row["blocking merge"]) == (
        "_bru + id + s",
        "2b(ii)",
        "_br uids",
        "u + id",
    )
    text = " ".join(m.value for m in at.markdown)
    assert "uid s" in text.replace("\\", "")  # the recruiting merge is named in the explanation
    left, _ = trees(at)
    assert 'data-token="uids"' in left  # LIMITEDBPE forms uids before _bru+id+s's turn


def test_reparation_button_shows_the_result():
    at = open_page(tokeniser="a1_scenario2b_i_first")
    assert "Merges repaired" not in metrics(at)
    at.button(key="blocked_apply").click().run()
    assert_clean(at)
    found = metrics(at)
    assert (
        found["Merges repaired"],
        found["Words now segmented differently"],
        found["Still blocked after reparation"],
    ) == ("1", "1", "0")
    repaired = next(df.value for df in at.dataframe if "parts after" in df.value.columns)
    assert list(repaired["parts after"]) == ["_bruid + s"]
    at.radio(key="blocked_mode").set_value("undo").run()  # another mode is another result: ask again
    assert "Merges repaired" not in metrics(at)


def selected(at: AppTest) -> str:
    return at.selectbox(key="blocked_merge").format_func(at.selectbox(key="blocked_merge").value)


@pytest.mark.parametrize("merge", ["_bru ids", "6"])  # the merge's text, or its rank (older links)
def test_filters_and_url_merge(merge):
    at = open_page(merge=merge, tokeniser="a1_scenario3a")
    bruids = load_tokeniser(scenario_paths()["a1_scenario3a"]).token_ids()["_bruids"]
    assert selected(at) == f"#6  _bru + ids → id {bruids}  [3 (cascade)]"
    assert at.query_params["merge"] == "_bru ids"
    assert any(m.value.startswith("**Scenario** 3") and "cascade" in m.value for m in at.markdown)
    at.text_input(key="blocked_search").input("no such merge").run()
    assert_clean(at)
    assert len(at.dataframe[0].value) == 0
    at.text_input(key="blocked_search").input("").run()
    at.multiselect(key="blocked_classes").set_value(["2b(i)"]).run()
    assert list(at.dataframe[0].value["scenario"]) == ["2b(i)"]
    ids = load_tokeniser(scenario_paths()["a1_scenario3a"]).token_ids()["ids"]
    assert selected(at) == f"#5  i + d + s → id {ids}  [2b(i)]"


def test_prev_and_next_step_through_the_blocked_merges():
    at = open_page(tokeniser="a1_scenario3a")
    assert selected(at).startswith("#5") and at.button(key="blocked_prev").disabled
    click_in_fragment(at, "blocked_next")
    assert_clean(at)
    assert selected(at).startswith("#6") and at.button(key="blocked_next").disabled
    assert at.query_params["merge"] == "_bru ids"
    click_in_fragment(at, "blocked_prev")
    assert selected(at).startswith("#5")


def test_ranks_are_integers_with_the_explanation_in_the_column_help():
    at = open_page(tokeniser="a1_scenario3a")
    table = at.dataframe[0]
    assert list(table.value["rank"]) == ["#5", "#6"]
    assert "before #N" in table.proto.columns  # the rank column's help travels in its column config


# --- [rebpe App. A.3]: moving merges can block merges ---------------------------------------------------
@pytest.mark.parametrize(
    "variant, blocked, words",
    [
        ("moved:delayed", "abc + d", "`abcd` → `a` `bcd`"),
        ("moved:expedited", "b + cd", "`bcd` → `bc` `d`"),
        ("moved:expedited_twice", "abc + d", "`abcd` → `a` `bcd`"),
    ],
)
def test_app_a3_listings_each_block_a_merge(variant, blocked, words):
    at = open_page(tokeniser="a3_moving_merges", variant=variant)
    assert metrics(at)["Blocked merges"] == "1" and not at.success
    listing = at.dataframe[0].value
    assert list(listing.columns) == ["rank", "merge", "after knockout", "blocked"]
    assert list(listing[listing["blocked"] == "blocked"]["merge"]) == [blocked]
    assert "a + b + c" in " ".join(listing["after knockout"])  # the triplet knockout made, now binary
    text = " ".join(m.value for m in at.markdown)
    assert "[rebpe App. A.3]" in text and words in text
    assert at.dataframe[1].value.iloc[0]["blocked merge"] == blocked


def test_app_a3_opens_on_a_moved_listing_and_after_knockout_says_why_nothing_is_blocked():
    at = open_page(variant="before")
    next(b for b in at.button if b.label == "A.3 moving merges").click().run()
    assert_clean(at)
    assert at.radio(key="blocked_variant").value == "moved:delayed"
    assert metrics(at)["Blocked merges"] == "1"
    at.radio(key="blocked_variant").set_value("knockout").run()
    assert_clean(at)
    (message,) = [s.value for s in at.success]
    assert "No merge is blocked after knockout" in message and "*moved* listings" in message
    assert "Choose *after knockout*" not in message  # never points at the variant already shown


# --- what reparation leaves blocked ---------------------------------------------------------------------
def test_reparation_of_a_moved_listing_explains_why_it_stays_blocked():
    at = open_page(tokeniser="a3_moving_merges", variant="moved:expedited")
    at.button(key="blocked_apply").click().run()
    assert_clean(at)
    assert metrics(at)["Still blocked after reparation"] == "1"
    (why,) = [m.value for m in at.markdown if m.value.startswith("**Why 1 merge stays blocked:**")]
    assert "- **binary merge, blocked since knockout: 1.**" in why and "rewrites only tuple merges" in why
    assert "For example `b + cd`." in why
    still = next(df.value for df in at.dataframe if "cause" in df.value.columns)
    assert list(still["blocked merge"]) == ["b + cd"]


@pytest.mark.slow
def test_dutch_40k_reparation_explains_the_919_merges_still_blocked():
    at = open_page()
    at.button(key="blocked_apply").click().run()
    assert_clean(at)
    assert metrics(at)["Still blocked after reparation"] == "919"
    (why,) = [m.value for m in at.markdown if m.value.startswith("**Why 919 merges stay blocked:**")]
    assert re.findall(r"- \*\*([^:]+): ([\d,]+)\.\*\*", why) == [
        ("part still never formed", "187"),
        ("blocked by the reparation", "10"),
        ("part formed again, but not in this string", "493"),
        ("binary merge, blocked since knockout", "229"),
    ]
    still = next(df.value for df in at.dataframe if "cause" in df.value.columns)
    assert len(still) == 919


# --- presentation mode ------------------------------------------------------------------------------------
def test_presentation_mode_keeps_the_trees_and_steps_without_the_tables():
    at = open_page(tokeniser="a1_scenario3a", present="1")
    assert at.toggle(key="presentation_mode").value
    assert not at.dataframe  # no table of blocked merges, no LIMITEDBPE trace table
    assert len(trees(at)) == 2 and not at.metric
    assert any(m.value.startswith("Blocked merges **2**") for m in at.markdown)
    click_in_fragment(at, "blocked_next")
    assert_clean(at)
    assert selected(at).startswith("#6") and len(trees(at)) == 2
    at.run()  # a fragment run's tree holds the fragment only
    at.toggle(key="presentation_mode").set_value(False).run()
    assert_clean(at)
    assert at.dataframe and "present" not in at.query_params


@pytest.mark.parametrize("bad", ["sideways", "<b>"])
def test_invalid_url_values_fall_back(bad):
    at = open_page(tokeniser="a1_scenario2a", variant=bad, merge=bad)
    assert at.radio(key="blocked_variant").value == "knockout"


def _real_page() -> None:  # runs inside AppTest: load a real file as the workspace would, then the page
    import runpy

    import streamlit as st

    from ui.workspace import select
    from ui.workspace_uploads import add_path

    select("tokeniser", add_path(st.query_params["path"]))
    runpy.run_path(st.query_params["page"], run_name="__main__")


@pytest.mark.real
def test_real_tiktoken_file_shows_alternatives_not_blocked_merges():
    from pathlib import Path

    from tests.real_tokenisers import real_file

    at = AppTest.from_function(_real_page, default_timeout=TIMEOUT)
    at.query_params["path"] = str(real_file("tiktoken-r50k", "r50k_base.tiktoken"))
    at.query_params["page"] = str(Path(__file__).resolve().parents[2] / PAGE)
    at.run()
    assert_clean(at)
    assert at.radio(key="blocked_variant").value == "before"  # several merges per type: the file as loaded
    found = metrics(at)
    assert found["Blocked merges"] == "0" and found["Unreachable types"] == "0"
    (info,) = [i.value for i in at.info]
    assert info.startswith("58,299 alternative merges of 36,886 types never fire")
    examples = at.dataframe[0].value
    assert list(examples.columns)[:4] == ["type", "id", "formed by (primary)", "rank"]
    assert examples.iloc[0]["id"].isdigit()
    assert "the" in examples.iloc[0]["type"] and examples.iloc[0]["formed by (primary)"].endswith("+ he")


def test_both_trees_offer_svg_and_latex_downloads():
    at = open_page(tokeniser="a1_scenario2b_ii")
    keys = {b.key for b in at.get("download_button")}
    assert {
        "blocked_tree_limited::svg",
        "blocked_tree_limited::tex",
        "blocked_tree_full::svg",
        "blocked_tree_full::tex",
    } <= keys


def test_the_inspected_merge_links_to_its_type_and_its_example_word_in_this_session():
    at = run_at(PAGE, timeout=TIMEOUT, via_app=True, tokeniser="a1_scenario3a", merge="_bru ids")
    assert_clean(at)
    links = {e.proto.page: e.proto.query_string for e in at.get("page_link")}
    example = next(m.value for m in at.markdown if "**example word**" in m.value)
    word = re.search(r"\*\*example word\*\* `([^`]+)`", example).group(1)
    assert links["merge_graph"] == "type=_bruids" and links["word_debugger"] == f"word={word}"
