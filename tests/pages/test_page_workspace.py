"""The Workspace page (the landing page) through AppTest: choices, facts, uploads, URL state."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.errors import InputError
from core.formats.corpora import iter_text_lines
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import assert_clean
from tests.apptest_support import fact_cards as metrics
from tests.apptest_support import run_page as run_at
from ui import upload_store
from ui.upload_store import digest
from ui.workspace_links import UNLINKED

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
    assert facts["|V|"] == "40,000" and facts["Types"] == "39,995" and facts["Special tokens"] == "5"
    assert facts["Merges"] == "39,739" and facts["Tuple merges"] == "0"
    assert facts["Alphabet"] == "256" and facts["Words"] == "1,146" and facts["Rejected lines"] == "0"
    assert int(facts["Lines"].replace(",", "")) > 1000
    assert any("ByteLevel" in c.value for c in at.caption)  # the pre-tokeniser
    assert any("1146 entries; 0 rejected" in c.value for c in at.caption)
    assert not at.warning


def test_labels_say_what_each_tokeniser_is():
    at = run_page()
    options = at.selectbox(key="ws_tokeniser").options
    assert options[0] == "nl-40k · Dutch byte-level BPE, |V| 40,000 (BPE-knockout paper)"
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


@pytest.mark.parametrize(
    "name, data, expected",
    [
        ("tokenizer.json", b"\xff\xfe{}", "not UTF-8"),
        ("merges.txt", b"a\n", "expected a merge"),
        (
            "project.json",
            json.dumps(
                {
                    "format": "bte-tokeniser",
                    "version": 1,
                    "alphabet": ["a"],
                    "merges": [[0, ["a"]]],
                    "pretokeniser": {"kind": "whitespace_split"},
                }
            ).encode(),
            "two or more",
        ),
    ],
)
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
    at.file_uploader(key="upload_vocab").set_value(
        ("vocab.json", json.dumps({"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "<unk>": 5}).encode(), "application/json")
    )
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
    data = b"bruidsjurk\tbruid s jurk\tbruids jurk\ngids\tgids\tgids\nkat\tka t x\n\tleeg\n"
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
    upload(at, "upload_corpus", "text.txt", b"de bruid draagt een bruidsjurk\nde gids\n")
    assert_clean(at)
    assert at.selectbox(key="ws_corpus").value == "upload: text.txt"
    facts = metrics(at)
    assert facts["Lines"] == "2" and facts["Running words"] == "7"
    upload(at, "upload_corpus", "bad.txt", b"\xff\xfe\xfd")
    assert len(at.error) == 1 and "bad.txt:1: not valid UTF-8" in errors(at)[0]
    assert at.selectbox(key="ws_corpus").value == "upload: text.txt"


def test_a_corpus_with_a_nul_byte_is_refused_as_the_cli_refuses_it(tmp_path):
    data = b"de bruid\nab\x00cd\n"
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
    assert message.startswith(
        "**Rejected, not loaded:** `broken.json`. The tokeniser stays as it was: `a1_scenario2a`."
    )
    at.file_uploader(key="upload_tokeniser").set_value(None).run()  # the file removed from the uploader
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"


# --- links: the address bar carries uploads, and says what it cannot carry ------------------------------
def url(at: AppTest, kind: str) -> str | None:
    value = at.query_params.get(kind)
    return value[0] if isinstance(value, list) else value


def test_an_upload_goes_into_the_url_and_a_new_session_opens_the_link():
    data = json.dumps(load_tokeniser(scenario_paths()["a1_scenario2a"]).to_json()).encode()
    at = run_page(tokeniser="a1_scenario1")
    upload(at, "upload_tokeniser", "mine.json", data)
    upload(at, "upload_reference", "r.tsv", b"bruids\tbruid s\n")
    upload(at, "upload_corpus", "c.txt", b"de bruid\n")
    assert_clean(at)
    link = {
        "tokeniser": "upload:" + digest(data),
        "reference": "upload:" + digest(b"bruids\tbruid s\n"),
        "corpus": "upload:" + digest(b"de bruid\n"),
    }
    assert {kind: url(at, kind) for kind in link} == link
    at.switch_page("pages/word_debugger.py").run()  # every page writes the same
    assert {kind: url(at, kind) for kind in link} == link
    facts = metrics(run_page())  # the same link in a new session: the same choices and facts
    reopened = run_page(**link)
    assert_clean(reopened)
    assert not reopened.warning
    assert reopened.selectbox(key="ws_tokeniser").value == "upload: mine.json"
    assert reopened.selectbox(key="ws_reference").value == "upload: r.tsv"
    assert reopened.selectbox(key="ws_corpus").value == "upload: c.txt"
    assert metrics(reopened)["Merges"] == str(len(load_tokeniser(scenario_paths()["a1_scenario2a"]).merges))
    assert metrics(reopened) != facts and {kind: url(reopened, kind) for kind in link} == link


def test_a_link_to_an_unknown_upload_warns_and_falls_back():
    missing = "upload:" + "0123456789abcdef" * 2
    for page in ("pages/workspace.py", "pages/word_debugger.py"):
        at = run_page(page, tokeniser=missing)
        assert not at.exception
        (warning,) = [w.value for w in at.warning if "upload:" in w.value]
        assert missing in warning and "another server" in warning and "Showing `nl-40k` instead" in warning
        assert at.selectbox(key="ws_tokeniser").value == "nl-40k" and url(at, "tokeniser") == "nl-40k"
    at.run()  # the warning stays until another choice is made
    assert any(missing in w.value for w in at.warning)
    at.selectbox(key="ws_tokeniser").set_value("a1_scenario1").run()
    assert not any(missing in w.value for w in at.warning)


def test_a_path_goes_into_the_url_as_an_id_and_a_new_session_opens_the_same_file():
    path = str(scenario_paths()["a1_scenario2a"])
    at = run_page(tokeniser="a1_scenario1")
    at.text_input(key="ws_path").set_value(path)
    at.button(key="ws_path_load").click().run()
    assert_clean(at)
    chosen = at.selectbox(key="ws_tokeniser").value
    assert chosen.startswith("path: ")
    link = url(at, "tokeniser")
    assert re.fullmatch(r"path:[0-9a-f]{20}", link) and path not in link  # the path itself never
    assert not any("cannot carry" in c.value for c in at.caption)
    for page in ("pages/workspace.py", "pages/merge_graph.py"):  # a link opened in a new session
        fresh = run_page(page, tokeniser=link)
        assert_clean(fresh)
        assert not fresh.warning, [w.value for w in fresh.warning]
        assert fresh.session_state["ws_tokeniser"] == chosen and url(fresh, "tokeniser") == link


def test_a_path_id_this_server_never_issued_warns_and_keeps_the_default():
    unknown = "path:" + "0123456789" * 2
    at = run_page(tokeniser=unknown)
    assert not at.exception
    (warning,) = [w.value for w in at.warning if "path:" in w.value]
    assert unknown in warning and "has not read it" in warning and "Showing `nl-40k` instead" in warning
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"


def test_a_link_followed_within_the_session_changes_the_choice():
    """A page link with ``?tokeniser=…`` (the Teach card) wins over the choice the session had."""
    at = run_page(tokeniser="a1_scenario1")
    at.selectbox(key="ws_tokeniser").set_value("a1_scenario3a").run()
    assert url(at, "tokeniser") == "a1_scenario3a"
    at.query_params["tokeniser"] = "a1_scenario2a"
    at.run()
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"


def test_the_teach_card_links_every_scenario_to_the_stepper_in_presentation_mode():
    at = run_page()
    links = {
        e.proto.query_string: e.proto for e in at.get("page_link") if e.proto.page == "stepper" and e.proto.query_string
    }
    assert len(links) == len(scenario_paths()) == 8
    for name, path in scenario_paths().items():
        link = links[f"tokeniser={name}&present=1"]
        assert link.label == load_tokeniser(path).metadata["title"]


def test_a_link_carries_the_pretokeniser_a_merges_txt_is_read_with():
    vocab = json.dumps({"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}).encode()
    at = run_page()
    at.file_uploader(key="upload_vocab").set_value(("vocab.json", vocab, "application/json"))
    upload(at, "upload_tokeniser", "merges.txt", b"a b\nab c\n")
    assert url(at, "tokeniser") == "upload:" + digest(b"a b\nab c\n", vocab)
    assert not any("pre-tokeniser bytelevel" in c.value for c in at.caption)  # inferred: not byte-level
    at.selectbox(key="ws_pretokeniser_override").set_value("bytelevel").run()  # re-reads the upload
    link = url(at, "tokeniser")
    assert link.startswith("upload:") and link != "upload:" + digest(b"a b\nab c\n", vocab)
    reopened = run_page(tokeniser=link)
    assert_clean(reopened)
    assert reopened.selectbox(key="ws_tokeniser").value == "upload: merges.txt"
    assert reopened.selectbox(key="ws_pretokeniser_override").value == "bytelevel"
    assert any(c.value.startswith("**Pipeline:**") and "pre-tokeniser bytelevel" in c.value for c in reopened.caption)


def test_an_hf_id_is_carried_and_followed_only_when_well_formed(tmp_path, monkeypatch):
    commit = "0123456789abcdef0123456789abcdef01234567"
    snapshot = tmp_path / "hub" / "models--someorg--tiny" / "snapshots" / commit
    snapshot.mkdir(parents=True)
    snapshot.joinpath("tokenizer.json").write_bytes(scenario_paths()["a1_scenario3a"].read_bytes())
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    at = run_page(tokeniser="hf:someorg/tiny")
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "hf: someorg/tiny" and url(at, "tokeniser") == "hf:someorg/tiny"
    assert not at.warning and not any("cannot carry" in c.value for c in at.caption)
    at = run_page(tokeniser="hf:someorg/absent")
    (warning,) = at.warning
    assert "`hf:someorg/absent` is not available on this server" in warning.value
    assert "not in the local Hugging Face cache" in warning.value.replace("\\", "")
    for crafted in ("hf:someorg/tiny@../../../x", "hf:../someorg", "hf:someorg/tiny/extra"):
        at = run_page(tokeniser=crafted)
        assert [w.value for w in at.warning if "which is not available" in w.value], crafted
        assert at.selectbox(key="ws_tokeniser").value == "nl-40k"


def test_an_upload_the_store_refuses_stays_loaded_and_the_page_says_the_link_cannot_carry_it(monkeypatch):
    monkeypatch.setenv(upload_store.BUDGET_ENV, "1")
    at = run_page()
    upload(at, "upload_corpus", "big.txt", b"de bruid draagt een bruidsjurk\n" * 40_000)  # 1.2 MB
    assert_clean(at)
    assert at.selectbox(key="ws_corpus").value == "upload: big.txt" and url(at, "corpus") == UNLINKED
    (note,) = [re.sub(r"\\(.)", r"\1", c.value) for c in at.caption if "cannot carry" in c.value]
    assert note == (
        "This view's link cannot carry the uploaded corpus: the server keeps at most 1 MB of uploads "
        f"({upload_store.BUDGET_ENV}) and this one has 1.2 MB."
    )
    opened = run_page("pages/word_debugger.py", **{kind: url(at, kind) for kind in ("tokeniser", "corpus")})
    (warning,) = [w.value for w in opened.warning if "link" in w.value]  # it says why, never silently
    assert "a link cannot carry" in warning and "Showing `python-docs" in warning
    assert opened.session_state["ws_corpus"].startswith("python-docs")


def test_a_link_that_names_nothing_keeps_what_the_session_had():
    at = run_page(tokeniser="a1_scenario3a")
    at.query_params["tokeniser"] = "path:" + "0123456789" * 2  # e.g. a page link made by another server
    at.run()
    (warning,) = [w.value for w in at.warning if "path:" in w.value]
    assert "Keeping `a1_scenario3a` instead" in warning
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario3a" and url(at, "tokeniser") == "a1_scenario3a"
