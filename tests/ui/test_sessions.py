"""Sessions keep what they loaded: across pages and fragment reruns, and apart from other sessions.

Two AppTest instances share this process's caches as two browsers share a server's, so an upload
of one session must never show in the other when both use the same file names.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.counting.token_frequencies import token_frequencies
from core.families.trimmed import TrimmedBPE
from core.formats.corpora import word_counts_from_text
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import APP, assert_clean, click_in_fragment, fact_cards, word_chips

TIMEOUT = 120
pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def scenario_json(name: str) -> bytes:
    return json.dumps(load_tokeniser(scenario_paths()[name]).to_json()).encode()


def open_app(page: str = "pages/workspace.py") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(page)
    return at.run()


def upload(at: AppTest, key: str, name: str, data: bytes) -> AppTest:
    at.file_uploader(key=key).set_value((name, data, "application/octet-stream"))
    at.run()
    assert_clean(at)
    return at


def test_an_upload_survives_a_stepper_step_and_a_page_switch():
    """Clicking Next reruns only the stepper's fragment; Streamlit then drops the state of widget keys
    the fragment did not render, so the next page used to fall back to the default tokeniser."""
    at = open_app()
    upload(at, "upload_tokeniser", "mine.json", scenario_json("a1_scenario2a"))
    assert at.selectbox(key="ws_tokeniser").value == "upload: mine.json"
    at.switch_page("pages/stepper.py").run()
    assert_clean(at)
    click_in_fragment(at, "stepper_next")
    assert at.session_state["stepper_step"] == 1
    for page in ("pages/word_debugger.py", "pages/workspace.py"):
        at.switch_page(page).run()
        assert_clean(at)
        assert at.selectbox(key="ws_tokeniser").value == "upload: mine.json", page


# --- two sessions, the same file names, different contents --------------------------------------------
SESSIONS = {  # tokeniser t.json, references r.tsv, corpus c.txt
    "A": ("a1_scenario1", "bruid\tbruid\nbruids\tbruid s\n", "bruid bruid bruid\n"),
    "B": ("a1_scenario3a", "bruid\tbru id\nbruids\tbru id s\ngids\tgids\n", "bruids gids\nbruids bruids\n"),
}


def load_session(files: tuple[str, str, str]) -> AppTest:
    scenario, references, corpus = files
    at = open_app()
    upload(at, "upload_tokeniser", "t.json", scenario_json(scenario))
    upload(at, "upload_reference", "r.tsv", references.encode())
    upload(at, "upload_corpus", "c.txt", corpus.encode())
    return at


def trimmed_tokens(scenario: str, corpus: str, word: str = "bruids") -> list[str]:
    """``word`` under TrimmedBPE (threshold 1) with the frequencies of ``corpus``."""
    tokeniser = load_tokeniser(scenario_paths()[scenario])
    counts = word_counts_from_text(corpus.splitlines())
    return TrimmedBPE(tokeniser, token_frequencies(tokeniser, counts), 1).tokenise_word(word)


def trimmed_row(at: AppTest) -> list[list[str]]:
    """The tokens of the word debugger's TrimmedBPE rows (threshold 1)."""
    rows = [
        row
        for e in at.get("html")
        for row in re.findall(r'<tr class="comparison-row" data-label="TrimmedBPE \(T = 1\)">(.*?)</tr>', e.proto.body)
    ]
    return [[html.unescape(t) for t in re.findall(r'data-token="([^"]*)"', row)] for row in rows]


def open_comparison(at: AppTest) -> None:
    """The word debugger with its comparison (knockout, ReBPE, TrimmedBPE, dropout) switched on."""
    at.switch_page("pages/word_debugger.py").run()
    at.toggle(key="variants").set_value(True).run()


def check_workspace(at: AppTest, files: tuple[str, str, str]) -> None:
    scenario, references, corpus = files
    at.switch_page("pages/workspace.py").run()
    assert_clean(at)
    shown = fact_cards(at)
    assert shown["Merges"] == str(len(load_tokeniser(scenario_paths()[scenario]).merges))
    assert shown["Words"] == str(references.count("\n"))
    assert shown["Running words"] == str(len(corpus.split()))


def check_word_debugger(at: AppTest, files: tuple[str, str, str]) -> None:
    scenario, references, corpus = files
    open_comparison(at)
    at.select_slider(key="trim_threshold").set_value(1).run()
    assert_clean(at)
    tokeniser = load_tokeniser(scenario_paths()[scenario])
    assert word_chips(at)[:2] == [tokeniser.tokenise_word("bruids"), tokeniser.tokenise_word("bruid")]
    morphs = dict(line.split("\t") for line in references.splitlines())["bruids"].split()
    assert any(
        m.value.startswith("**Reference (morphs):** " + " · ".join(f"`{p}`" for p in morphs)) for m in at.markdown
    )
    assert trimmed_row(at) == [trimmed_tokens(scenario, corpus)]


def test_two_sessions_uploading_the_same_names_see_only_their_own():
    a, b = SESSIONS["A"], SESSIONS["B"]
    for scenario in (a[0], b[0]):  # the corpus decides the TrimmedBPE row
        assert trimmed_tokens(scenario, a[2]) != trimmed_tokens(scenario, b[2])
    first = load_session(a)
    check_word_debugger(first, a)  # fills the shared caches with A's files
    second = load_session(b)
    check_word_debugger(second, b)
    check_workspace(second, b)
    check_word_debugger(first, a)
    check_workspace(first, a)


def test_two_sessions_with_one_shipped_tokeniser_and_different_corpora():
    """The tokeniser's cache key is the same; TrimmedBPE's frequencies must follow each corpus."""
    corpora = {"A": SESSIONS["A"][2], "B": SESSIONS["B"][2]}
    sessions = {}
    for name, corpus in corpora.items():
        at = open_app()
        at.selectbox(key="ws_tokeniser").set_value("a1_scenario1").run()
        upload(at, "upload_corpus", "c.txt", corpus.encode())
        sessions[name] = at
    for name, at in [*sessions.items(), *sessions.items()]:
        open_comparison(at)
        at.selectbox(key="trim_source").set_value("corpus: upload: c.txt").run()
        at.select_slider(key="trim_threshold").set_value(1).run()
        assert_clean(at)
        assert trimmed_row(at) == [trimmed_tokens("a1_scenario1", corpora[name])], name


def test_a_link_to_another_sessions_upload_of_the_same_name_keeps_both():
    """Session B has its own t.json and follows a link to A's t.json (in-app, so the session stays):
    A's file becomes a second choice, named apart, and B's own upload is still there."""
    first = load_session(SESSIONS["A"])
    link = first.query_params["tokeniser"]
    link = link[0] if isinstance(link, list) else link
    second = load_session(SESSIONS["B"])
    second.query_params["tokeniser"] = link
    second.run()
    assert_clean(second)
    followed = second.selectbox(key="ws_tokeniser").value
    assert followed == f"upload: t.json ({link.removeprefix('upload:')[:8]})"
    assert "upload: t.json" in second.selectbox(key="ws_tokeniser").options
    assert fact_cards(second)["Merges"] == str(len(load_tokeniser(scenario_paths()[SESSIONS["A"][0]]).merges))
