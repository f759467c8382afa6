"""The Vocabulary audit page (AppTest): a knocked-out tokeniser uploaded as a user would, its types
grouped by cause as ``core.analysis.audit`` finds them, a cause chosen by link, one finding inspected
with its tree and links, the selection sent to the removal (and its HF export), idle types counted."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.analysis.audit import CAUSES, idle_types, unreachable_types, word_pretokens
from core.cli import main
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR, count_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import APP, assert_clean

pytestmark = pytest.mark.usefixtures("module_streamlit_caches")
PAGE = "pages/audit.py"
TIMEOUT = 90


@pytest.fixture(scope="module")
def knocked(tmp_path_factory):
    """The Dutch 4k sample after knockout (349 types a merge order blocks), as a file."""
    out = tmp_path_factory.mktemp("audit-page") / "nl-knockout.json"
    sample = SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json"
    reference = SAMPLE_DIR / "references" / "nl_morph.tsv"
    assert main(["knockout", "--tokeniser", str(sample), "--reference", str(reference), "--out", str(out)]) == 0
    return out


def audit_page(knocked, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/workspace.py").run()
    at.file_uploader(key="upload_tokeniser").set_value(("nl-knockout.json", knocked.read_bytes(), "application/json"))
    at.run()
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(PAGE).run()
    assert_clean(at)
    return at


def test_types_grouped_by_cause_as_core_finds_them(knocked):
    at = audit_page(knocked)
    found = unreachable_types(load_tokeniser(knocked))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Types checked"] == "3,682"
    assert metrics["Not produced by their own string"] == f"{len(found):,}"
    summary = at.table[0].value
    assert list(summary["cause"]) == [CAUSES[c][0] for c in CAUSES if any(f.cause == c for f in found)]
    assert list(summary["types"]) == [
        f"{sum(f.cause == c for f in found):,}" for c in CAUSES if any(f.cause == c for f in found)
    ]
    table = at.dataframe[0].value
    assert list(table["id"]) == [f.id for f in found]
    assert set(table["cause"]) == {CAUSES[f.cause][0] for f in found}


def test_a_link_chooses_the_cause_and_a_selected_finding_is_explained(knocked):
    at = audit_page(knocked, cause="merge-order")
    table = at.dataframe[0].value
    assert set(table["cause"]) == {"a merge order blocks it"} and len(table) == 349
    assert at.query_params["cause"] == "merge-order"
    at.session_state["audit_table"] = {"selection": {"rows": [0], "columns": []}}
    at.run()
    assert_clean(at)
    first = table.iloc[0]
    told = [m.value for m in at.markdown if f"(id {first['id']})" in m.value]
    assert told and "a merge order blocks it" in told[0] and "encodes to" in told[0]
    assert any("merge-tree-block" in m.value for m in at.markdown)  # the tree of its own string
    assert at.button(key="audit_remove_selected").label == "Remove the 1 selected types"


def test_the_selection_goes_to_the_removal_and_its_export(knocked):
    at = audit_page(knocked, cause="merge-order")
    at.button(key="audit_remove_all").click().run()
    assert_clean(at)
    assert {m.label: m.value for m in at.metric}["Types chosen"] == "349"
    assert at.text_area(key="removal_types").value.splitlines()[:2] == list(at.dataframe[0].value["type"][:2])
    assert any(b.label.startswith("Tokeniser after the removal") for b in at.get("download_button"))


def test_idle_types_on_word_counts_equal_core(knocked):
    at = audit_page(knocked)
    at.selectbox(key="audit_counts").set_value("nl_wordfreq")
    at.button(key="audit_count").click().run()
    assert_clean(at)
    tokeniser = load_tokeniser(knocked)
    expected, _ = idle_types(tokeniser, word_pretokens(tokeniser, load_word_counts(count_paths()["nl_wordfreq"])))
    table = at.dataframe[1].value
    assert list(table["id"]) == [u.id for u in expected][: len(table)]
    assert json.loads(table.to_json(orient="records"))[0]["cause"] in {"never emitted", "residue"}
