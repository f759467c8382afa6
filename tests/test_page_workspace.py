"""The Workspace page (the landing page) through AppTest: choices, facts, uploads, URL state."""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.errors import InputError
from core.formats.corpora import iter_text_lines
from core.formats.tokeniser_files import load_tokeniser
from core.samples import scenario_paths
from tests.apptest_support import assert_clean, fact_cards as metrics, run_page as run_at

TIMEOUT = 90


def run_page(page: str = "pages/workspace.py", **query) -> AppTest:
    return run_at(page, timeout=TIMEOUT, via_app=True, **query)


def errors(at: AppTest) -> list[str]:
    """Error texts without markdown escapes (file contents are escaped before st.error)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]


def upload(at: AppTest, key: str, name: str, data: bytes) -> AppTest:
    at.file_uploader(key=key).set_value((name, data, "application/octet-stream"))
    return at.run()


def test_renders_with_defaults():
    at = run_page()
    assert_clean(at)
    assert at.title[0].value == "Workspace"
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"
    assert at.selectbox(key="ws_reference").value == "nl_morph"
    assert at.selectbox(key="ws_corpus").value.startswith("python-docs")
    facts = metrics(at)
    assert facts["Types |V|"] == "39,995" and facts["Merges"] == "39,739" and facts["Tuple merges"] == "0"
    assert facts["Alphabet"] == "256" and facts["Words"] == "1,146" and facts["Rejected lines"] == "0"
    assert int(facts["Lines"].replace(",", "")) > 1000
    assert any("ByteLevel" in c.value for c in at.caption)  # the pre-tokeniser
    assert any("1146 entries; 0 rejected" in c.value for c in at.caption)
    assert not at.warning


def test_labels_say_what_each_tokeniser_is():
    at = run_page()
    options = at.selectbox(key="ws_tokeniser").options
    assert options[0] == "nl-40k · Dutch byte-level BPE, 40k types (BPE-knockout paper)"
    assert any(o.startswith("a1_scenario2a · Scenario 2a") for o in options)
    assert len(options) == 11


def test_switching_the_tokeniser_shows_its_facts_and_note():
    at = run_page()
    at.selectbox(key="ws_tokeniser").set_value("a1_scenario2a").run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"
    tokeniser = load_tokeniser(scenario_paths()["a1_scenario2a"])
    assert metrics(at)["Merges"] == str(len(tokeniser.merges))
    assert any("Scenario 2a" in info.value for info in at.info)
    # the other pages see the same choice
    at.switch_page("pages/word_debugger.py").run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"


def test_english_tokeniser_with_dutch_references_warns():
    at = run_page(tokeniser="en-bpe-4k-wordfreq")
    assert any("references are Dutch" in w.value for w in at.warning)
    at.selectbox(key="ws_reference").set_value("en_morph").run()
    assert not at.warning and metrics(at)["Words"] == "1,186"


def test_query_params_initialise_the_choices():
    at = run_page(tokeniser="a1_scenario1", reference="en_morph")
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario1"
    assert at.selectbox(key="ws_reference").value == "en_morph"
    assert at.query_params["tokeniser"] == ["a1_scenario1"] or at.query_params["tokeniser"] == "a1_scenario1"


@pytest.mark.parametrize("bad", ["no-such", "nl-40k (BPE-knockout paper)", "../../etc/passwd", "upload: x.json"])
def test_invalid_query_values_fall_back(bad):
    at = run_page(tokeniser=bad, reference=bad)
    assert not at.exception
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"
    assert at.selectbox(key="ws_reference").value == "nl_morph"
    assert sum("not available" in w.value for w in at.warning) == 2


def test_bad_tokeniser_upload_keeps_the_old_one():
    at = run_page(tokeniser="a1_scenario2a")
    upload(at, "upload_tokeniser", "broken.json", b'{"model": ')
    assert not at.exception
    assert len(at.error) == 1 and "broken.json" in errors(at)[0] and "stays as it was" in errors(at)[0]
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"
    assert "upload: broken.json" not in at.selectbox(key="ws_tokeniser").options
    # the word debugger still uses the old tokeniser
    at.switch_page("pages/word_debugger.py").run()
    assert not at.exception
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"


@pytest.mark.parametrize("name, data, expected", [
    ("tokenizer.json", b"\xff\xfe{}", "not UTF-8"),
    ("merges.txt", b"a\n", "expected a merge"),
    ("project.json", json.dumps({"format": "bte-tokeniser", "version": 1, "alphabet": ["a"],
                                 "merges": [[0, ["a"]]], "pretokeniser": {"kind": "whitespace_split"}}).encode(),
     "two or more"),
])
def test_every_bad_tokeniser_file_is_an_error_message(name, data, expected):
    at = run_page()
    upload(at, "upload_tokeniser", name, data)
    assert not at.exception
    assert len(at.error) == 1 and expected in errors(at)[0]
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"


def test_project_json_upload_becomes_the_choice_and_a_later_bad_one_keeps_it():
    scenario = load_tokeniser(scenario_paths()["a1_scenario2b_ii"])
    data = json.dumps(scenario.to_json()).encode()
    at = run_page()
    upload(at, "upload_tokeniser", "mine.json", data)
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "upload: mine.json"
    assert metrics(at)["Merges"] == str(len(scenario.merges))
    upload(at, "upload_tokeniser", "worse.json", b"[1, 2]")
    assert len(at.error) == 1
    assert at.selectbox(key="ws_tokeniser").value == "upload: mine.json"


def test_merges_txt_with_vocab_json():
    at = run_page()
    at.file_uploader(key="upload_vocab").set_value(("vocab.json", json.dumps(
        {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "<unk>": 5}).encode(), "application/json"))
    at.run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"  # a vocab alone loads nothing
    upload(at, "upload_tokeniser", "merges.txt", b"#version: 0.2\na b\nab c\n")
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "upload: merges.txt"
    facts = metrics(at)
    assert facts["Merges"] == "2" and facts["Alphabet"] == "3"


def test_bad_vocab_json_is_an_error():
    at = run_page()
    at.file_uploader(key="upload_vocab").set_value(("vocab.json", b'{"a": "zero"}', "application/json"))
    at.run()
    upload(at, "upload_tokeniser", "merges.txt", b"a b\n")
    assert len(at.error) == 1 and "vocab.json" in errors(at)[0].split("\n")[1] and "'zero'" in errors(at)[0]
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"


def test_reference_upload_shows_rejected_lines_with_reasons():
    at = run_page()
    data = "bruidsjurk\tbruid s jurk\tbruids jurk\ngids\tgids\tgids\nkat\tka t x\n\tleeg\n".encode()
    upload(at, "upload_reference", "mine.tsv", data)
    assert_clean(at)
    assert at.selectbox(key="ws_reference").value == "upload: mine.tsv"
    facts = metrics(at)
    assert facts["Words"] == "2" and facts["Rejected lines"] == "2"
    assert any("2 rejected" in c.value for c in at.caption)
    table = at.dataframe[0].value
    assert list(table["line"]) == [3, 4] and table["reason"].str.len().min() > 5


def test_bad_reference_upload_keeps_the_old_references():
    at = run_page(reference="en_morph")
    upload(at, "upload_reference", "broken.tsv", b"\xff\xfe\x00garbage")
    assert not at.exception and len(at.error) == 1
    assert at.selectbox(key="ws_reference").value == "en_morph"
    assert metrics(at)["Words"] == "1,186"


def test_corpus_upload_and_a_bad_one():
    at = run_page()
    upload(at, "upload_corpus", "text.txt", "de bruid draagt een bruidsjurk\nde gids\n".encode())
    assert_clean(at)
    assert at.selectbox(key="ws_corpus").value == "upload: text.txt"
    facts = metrics(at)
    assert facts["Lines"] == "2" and facts["Running words"] == "7"
    upload(at, "upload_corpus", "bad.txt", b"\xff\xfe\xfd")
    assert len(at.error) == 1 and "bad.txt:1: not valid UTF-8" in errors(at)[0]
    assert at.selectbox(key="ws_corpus").value == "upload: text.txt"


def test_a_corpus_with_a_nul_byte_is_refused_as_the_cli_refuses_it(tmp_path):
    data = "de bruid\nab\x00cd\n".encode()
    (tmp_path / "nul.txt").write_bytes(data)
    with pytest.raises(InputError, match=r"nul.txt:2: binary data"):
        list(iter_text_lines(tmp_path / "nul.txt"))  # what `python -m core ... --corpus nul.txt` reads
    at = run_page()
    upload(at, "upload_corpus", "nul.txt", data)
    assert not at.exception and len(at.error) == 1
    assert "Rejected, not loaded:** `nul.txt`" in errors(at)[0] and "nul.txt:2: binary data" in errors(at)[0]
    assert at.selectbox(key="ws_corpus").value.startswith("python-docs")
    assert "upload: nul.txt" not in at.selectbox(key="ws_corpus").options


def test_a_rejected_file_is_labelled_with_what_stays_loaded():
    at = run_page(tokeniser="a1_scenario2a")
    upload(at, "upload_tokeniser", "broken.json", b'{"model": ')
    (message,) = errors(at)
    assert message.startswith("**Rejected, not loaded:** `broken.json`. The tokeniser stays as it was: "
                              "`a1_scenario2a`.")
    at.file_uploader(key="upload_tokeniser").set_value(None).run()  # the file removed from the uploader
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"
