"""What every AppTest module needs: open a page (alone or through app.py's navigation) with URL
query parameters, check that a run shows neither an exception nor an error, and read the token
chips a page shows."""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

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


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


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
