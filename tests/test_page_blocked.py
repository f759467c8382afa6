"""The Blocked merges page through AppTest (no JavaScript; the browser side is in tests/e2e/)."""
from __future__ import annotations


import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_support import assert_clean, run_page as run_at

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
    assert list(table.columns) == ["rank", "blocked merge", "type", "scenario", "found at its turn",
                                   "blocking merge", "example word"]
    assert table.iloc[0]["blocked merge"] == "j + e + s" and table.iloc[0]["example word"] == "bruidsmeisjes"
    # the first blocked merge in detail: its LIMITEDBPE trace as a table and a tree
    trace = next(df.value for df in at.dataframe if "tokens after" in df.value.columns)
    assert list(trace["merge"]) == ["j + e"]
    assert len(trees(at)) == 2


def test_the_loaded_dutch_40k_blocks_nothing():
    at = open_page(variant="before")
    assert metrics(at)["Blocked merges"] == "0"
    assert any("Plain BPE never blocks a merge" in s.value for s in at.success)


def test_rebpe_without_reparation_leaves_blocked_merges():
    at = open_page(tokeniser="a1_scenario2b_ii", variant="nofix")
    found = metrics(at)
    assert int(found["Blocked merges"]) >= 1
    assert not at.success


@pytest.mark.parametrize("label, name, scenario", [("2b(i) first", "a1_scenario2b_i_first", "2b(i)"),
                                                    ("2b(ii)", "a1_scenario2b_ii", "2b(ii)"),
                                                    ("3a", "a1_scenario3a", "3 (cascade)")])
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
        "_bru + id + s", "2b(ii)", "_br uids", "u + id")
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
    assert (found["Merges repaired"], found["Words now segmented differently"], found["Still blocked after reparation"]
            ) == ("1", "1", "0")
    repaired = next(df.value for df in at.dataframe if "parts after" in df.value.columns)
    assert list(repaired["parts after"]) == ["_bruid + s"]
    at.radio(key="blocked_mode").set_value("undo").run()  # another mode is another result: ask again
    assert "Merges repaired" not in metrics(at)


def test_filters_and_url_merge():
    at = open_page(merge="6", tokeniser="a1_scenario3a")
    assert at.selectbox(key="blocked_merge").value == "6"
    assert any(m.value.startswith("**Scenario** 3") and "cascade" in m.value for m in at.markdown)
    at.text_input(key="blocked_search").input("no such merge").run()
    assert_clean(at)
    assert len(at.dataframe[0].value) == 0
    at.text_input(key="blocked_search").input("").run()
    at.multiselect(key="blocked_classes").set_value(["2b(i)"]).run()
    assert list(at.dataframe[0].value["scenario"]) == ["2b(i)"]
    assert at.selectbox(key="blocked_merge").value == "5"


@pytest.mark.parametrize("bad", ["sideways", "<b>"])
def test_invalid_url_values_fall_back(bad):
    at = open_page(tokeniser="a1_scenario2a", variant=bad, merge=bad)
    assert at.radio(key="blocked_variant").value == "knockout"


def _real_page() -> None:  # runs inside AppTest: load a real file as the workspace would, then the page
    import runpy

    import streamlit as st

    from ui.workspace import add_path, select

    select("tokeniser", add_path(st.query_params["path"]))
    runpy.run_path(st.query_params["page"], run_name="__main__")


def test_real_tiktoken_file_shows_alternatives_not_blocked_merges():
    from pathlib import Path

    from tests.real_tokenisers import real_file

    at = AppTest.from_function(_real_page, default_timeout=TIMEOUT)
    at.query_params["path"] = str(real_file("tiktoken-r50k", "r50k_base.tiktoken"))
    at.query_params["page"] = str(Path(__file__).resolve().parent.parent / PAGE)
    at.run()
    assert_clean(at)
    assert at.radio(key="blocked_variant").value == "before"  # several merges per type: the file as loaded
    found = metrics(at)
    assert found["Blocked merges"] == "0" and found["Unreachable types"] == "0"
    (info,) = [i.value for i in at.info]
    assert info.startswith("58,299 alternative merges of 36,886 types never fire")
    examples = at.dataframe[0].value
    assert list(examples.columns)[:3] == ["type", "formed by (primary)", "rank"]
    assert "the" in examples.iloc[0]["type"] and examples.iloc[0]["formed by (primary)"].endswith("+ he")
