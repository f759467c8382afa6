"""Every page of app.PAGES opens on a freshly started server with an empty disk cache.

One server of this module's own, with ``EXPLORER_CACHE_DIR`` set to a new temporary folder, so no
result cached by an earlier run helps (the precomputed sample results ship with the checkout).
Each page is opened by its link in a fresh browser context, in the sidebar's order: it must show
its title and no error box or traceback. How long that takes is measured by
``bench/bench_pages.py``, never asserted here.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import running_in_ci, streamlit_server

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from app import available_pages, url_path
from tests.e2e.browser_support import LOOPBACK, SLOW, no_error_boxes, outside_requests, wait_for_app

pytestmark = pytest.mark.browser
PAGES = available_pages()


@pytest.fixture(scope="module")
def empty_cache_app_url(chromium_executable, tmp_path_factory):
    """A server of this module's own whose disk cache starts empty."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXPLORER_CACHE_DIR", str(tmp_path_factory.mktemp("explorer-cache")))
        with streamlit_server() as url:
            yield url


@pytest.mark.parametrize(
    "file, title", [(file, title) for file, title, _ in PAGES], ids=[url_path(file) for file, *_ in PAGES]
)
def test_page_opens_on_a_fresh_server(page: Page, empty_cache_app_url: str, file: str, title: str) -> None:
    outside = outside_requests(page)
    page.goto(f"{empty_cache_app_url}/{url_path(file)}")
    wait_for_app(page)
    # The page's own heading (its first word is the sidebar title's: "Unigram" for "Unigram lattice").
    heading = re.compile(rf"^\s*{re.escape(title.split()[0])}(\s|$)", re.IGNORECASE)
    expect(page.get_by_test_id("stMain").get_by_role("heading", level=1, name=heading)).to_be_visible(timeout=SLOW)
    wait_for_app(page)
    no_error_boxes(page)
    expect(page.get_by_text("Traceback (most recent call last)")).to_have_count(0)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
