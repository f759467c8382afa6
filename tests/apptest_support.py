"""What every AppTest module needs: open a page (alone or through app.py's navigation) with URL
query parameters, rerun one fragment as a browser does, check that a run shows neither an
exception nor an error, and read the token chips a page shows."""

from __future__ import annotations

import html
import re
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from unittest.mock import patch

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
from streamlit.testing.v1 import AppTest, local_script_runner

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def clear_streamlit_caches() -> None:
    """AppTest runs in this process, so Streamlit caches would leak between tests."""
    st.cache_data.clear()
    st.cache_resource.clear()


def run_page(page: str, *, timeout: float, via_app: bool = False, **query) -> AppTest:
    """Run ``page`` (a path under the repository) once with ``query`` in the URL; ``via_app`` runs
    it through app.py's ``st.navigation``, as a browser does."""
    at = AppTest.from_file(APP if via_app else str(ROOT / page), default_timeout=timeout)
    if via_app:
        at.switch_page(page)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def click_in_fragment(at: AppTest, key: str) -> AppTest:
    """Click the button ``key`` inside an ``st.fragment`` and rerun only that fragment, as a browser
    does (``AppTest.run`` always reruns the whole script)."""
    button = at.button(key=key)
    fragment_id = at.session_state._state._state.get_widget_metadata(button.id).fragment_id
    button.click()
    fragment_run = partial(RerunData, fragment_id_queue=[fragment_id], is_fragment_scoped_rerun=True)
    with patch.object(local_script_runner, "RerunData", fragment_run):
        return at.run()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def fact_cards(at: AppTest) -> dict[str, str]:
    """The labelled numbers of the fact cards (viz.tokens.facts_html)."""
    found = {}
    for element in at.get("html"):
        for label, value in re.findall(
            r'<div class="fact"[^>]*><div[^>]*>([^<]*)</div><div[^>]*>([^<]*)</div>', element.proto.body
        ):
            found[html.unescape(label)] = html.unescape(value)
    return found


class _Chips(HTMLParser):
    """``data-token`` of every chip, grouped per ``tok-word`` block (the words at a glance)."""

    def __init__(self):
        super().__init__()
        self.words: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if "tok-word" in classes:
            self.words.append([])
        elif "tok-chip" in classes and self.words:
            self.words[-1].append(attrs["data-token"])


def word_chips(at: AppTest) -> list[list[str]]:
    """The tokens shown for each word, in page order (from the chips' ``data-token``)."""
    parser = _Chips()
    for element in at.get("html"):
        if "tok-word" in element.proto.body:
            parser.feed(element.proto.body)
    return parser.words


class _RunningChips(HTMLParser):
    """Every running-text chip (viz.running_text): token, id, classes, shown text and link targets."""

    def __init__(self):
        super().__init__()
        self.chips: list[dict] = []
        self.inside: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if "rt-token" in classes:
            self.chips.append(
                {"token": attrs["data-token"], "id": attrs["data-id"], "classes": classes, "text": "", "links": {}}
            )
        elif tag == "a" and self.chips:
            self.chips[-1]["links"][classes[0]] = attrs["href"]
        self.inside.append(classes[0] if classes else tag)

    def handle_endtag(self, tag):
        self.inside.pop()

    def handle_data(self, data):
        if self.inside and self.inside[-1] == "rt-text":
            self.chips[-1]["text"] += data


def running_chips(markup: str) -> list[dict]:
    """The chips of running-text HTML: ``{"token", "id", "classes", "text", "links": {class: href}}``."""
    parser = _RunningChips()
    parser.feed(markup)
    return parser.chips
