"""The one error boundary (ui/error_boundary.py): a bug is a message with an error id and a logged
traceback, an InputError is its own message, Streamlit's control flow passes, and what the user
loaded stays loaded (page runs, fragment reruns and widget callbacks)."""

from __future__ import annotations

import json
import logging
import re

import pytest
from streamlit.testing.v1 import AppTest

import core.analysis.explain
import ui.tokeniser_loading as tokeniser_loading
import viz.step_views
from core.errors import InputError
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import APP, assert_clean, click_in_fragment

TIMEOUT = 120
SECRET = "/srv/private/app/core/secret.py"
pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def crash(*args, **kwargs):
    raise RuntimeError(f"engine bug in {SECRET}")


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def error_id(at: AppTest, caplog) -> str:
    """The id in the one error message; checks it hides the traceback and that the log has it."""
    assert not at.exception, [e.value for e in at.exception]
    ids = [found for e in at.error for found in re.findall(r"error id `([0-9a-f]{8})`", e.value)]
    assert len(ids) == 1, [e.value for e in at.error]
    shown = unescaped(" ".join(e.value for e in at.error))
    assert SECRET not in shown and "Traceback" not in shown and "RuntimeError" not in shown
    found = ids[0]
    logged = [r for r in caplog.records if found in r.getMessage()]
    assert len(logged) == 1 and logged[0].levelno == logging.ERROR
    assert logged[0].exc_info[0] is RuntimeError and SECRET in str(logged[0].exc_info[1])
    return found


def with_upload(page: str = "pages/workspace.py") -> AppTest:
    """The app with a teaching scenario uploaded as mine.json, on ``page``."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/workspace.py").run()
    data = json.dumps(load_tokeniser(scenario_paths()["a1_scenario2a"]).to_json()).encode()
    at.file_uploader(key="upload_tokeniser").set_value(("mine.json", data, "application/json")).run()
    assert_clean(at)
    at.switch_page(page).run()
    return at


def still_loaded(at: AppTest) -> None:
    """The upload is still the choice, and the error-id message was shown once only."""
    at.switch_page("pages/workspace.py").run()
    assert not at.exception and not [e for e in at.error if "error id `" in e.value]
    assert at.selectbox(key="ws_tokeniser").value == "upload: mine.json"


# --- the boundary itself ------------------------------------------------------------------------------
def test_a_bug_becomes_a_message_with_an_error_id(caplog):
    def script():
        from ui.error_boundary import boundary

        with boundary():
            raise RuntimeError("engine bug in /srv/private/app/core/secret.py")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    error_id(at, caplog)


def test_streamlit_control_flow_passes_through():
    def script():
        import streamlit as st

        from ui.error_boundary import boundary

        st.session_state["runs"] = st.session_state.get("runs", 0) + 1
        with boundary():
            if st.session_state["runs"] == 1:
                st.rerun()
            st.markdown("second run")
            st.stop()
        st.markdown("after st.stop")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert_clean(at)
    assert at.session_state["runs"] == 2 and [m.value for m in at.markdown] == ["second run"]


def test_an_input_error_that_escapes_a_page_is_its_own_message():
    def script():
        from core.errors import InputError
        from ui.error_boundary import boundary

        with boundary():
            raise InputError("expected a merge", "merges.txt", 3)

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception and [unescaped(e.value) for e in at.error] == ["merges.txt:3: expected a merge"]


# --- pages ----------------------------------------------------------------------------------------------
def test_a_page_bug_shows_an_error_id_and_keeps_the_upload(monkeypatch, caplog):
    at = with_upload()
    monkeypatch.setattr(core.analysis.explain, "explain_word", crash)
    at.switch_page("pages/word_debugger.py").run()
    error_id(at, caplog)
    assert at.selectbox(key="ws_tokeniser").value == "upload: mine.json"
    monkeypatch.undo()
    still_loaded(at)


def test_an_input_error_on_a_page_is_shown_as_its_message(monkeypatch):
    def refuse(*args, **kwargs):
        raise InputError("this word cannot be explained")

    at = with_upload()
    monkeypatch.setattr(core.analysis.explain, "explain_word", refuse)
    at.switch_page("pages/word_debugger.py").run()
    assert not at.exception
    assert [unescaped(e.value) for e in at.error] == ["Cannot explain `bruids`: this word cannot be explained"]


def test_a_bug_in_a_fragment_rerun_shows_an_error_id_and_keeps_the_upload(monkeypatch, caplog):
    at = with_upload("pages/stepper.py")
    assert_clean(at)
    monkeypatch.setattr(viz.step_views, "step_title", crash)
    click_in_fragment(at, "stepper_next")
    error_id(at, caplog)
    monkeypatch.undo()
    still_loaded(at)


def test_a_crashing_upload_is_labelled_rejected_and_keeps_the_old_tokeniser(monkeypatch, caplog):
    at = with_upload()
    monkeypatch.setattr(tokeniser_loading, "parse_tokeniser_bytes", crash)
    at.file_uploader(key="upload_tokeniser").set_value(("crash.json", b"{}", "application/json")).run()
    error_id(at, caplog)
    assert any("Rejected, not loaded" in e.value and "crash.json" in e.value for e in at.error)
    assert at.selectbox(key="ws_tokeniser").value == "upload: mine.json"
    assert "upload: crash.json" not in at.selectbox(key="ws_tokeniser").options
    monkeypatch.undo()
    still_loaded(at)
