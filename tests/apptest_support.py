"""What every AppTest module needs: open a page (alone or through app.py's navigation) with URL
query parameters, and check that a run shows neither an exception nor an error."""
from __future__ import annotations

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
