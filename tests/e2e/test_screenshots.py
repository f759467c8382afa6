"""The README's screenshots: every page of app.PAGES on the shipped sample data, 1280 × 800.

Each page is opened by its link, waited for until Streamlit has finished (no skeleton left), its
own heading is visible and its charts are drawn; the visible window is then written to
``test-artifacts/screenshots/<url_path>.png`` and, with ``UPDATE_SCREENSHOTS=1``, to
``docs/screenshots/``, which the README shows (so a test run leaves the committed ones alone).
A written image must be a real picture: a PNG of 1280 × 800 with many colours and no large
uniform area standing for the whole.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from PIL import Image
from playwright.sync_api import Page, expect

from app import available_pages, url_path
from tests.e2e.browser_support import (
    LOOPBACK,
    SLOW,
    no_error_boxes,
    outside_requests,
    page_heading,
    wait_for_app,
)

pytestmark = pytest.mark.browser

PAGES = available_pages()
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
COMMITTED = ROOT / "docs" / "screenshots"
SIZE = (1280, 800)
#: the view each screenshot shows, where the page's default is not the telling one
VIEWS = {
    "word_debugger": "?tokeniser=nl-40k&word=bruidsjurk+masterthesis",
    "compare": "?a=nl-40k&b=nl-40k+after+ReBPE",
}
#: text scrolled to the top of the window, where the page's best part is below its introduction
SCROLL_TO = {"merge_graph": "Type at the centre"}
MIN_COLOURS = 64  # a blank or error page has a handful; a rendered page has hundreds (anti-aliased text)


def wait_until_drawn(page: Page) -> None:
    """Plotly charts have their SVG, and fonts and images have loaded."""
    charts = page.get_by_test_id("stPlotlyChart")
    for index in range(charts.count()):
        expect(charts.nth(index).locator(".main-svg").first).to_be_attached(timeout=SLOW)
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(1500)  # plotly's and vis-network's first layout after their data arrived


def check_picture(path: Path) -> None:
    assert path.is_file(), f"{path} was not written"
    assert path.stat().st_size > 20_000, f"{path}: {path.stat().st_size} bytes, too small for a rendered page"
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == SIZE
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    if colours is not None:  # None: more than 65,536 colours, certainly not blank
        assert len(colours) >= MIN_COLOURS, f"{path}: only {len(colours)} colours (blank?)"
        most = max(count for count, _ in colours)
        assert most < 0.97 * SIZE[0] * SIZE[1], f"{path}: one colour covers {most / (SIZE[0] * SIZE[1]):.0%}"


@pytest.mark.parametrize(
    "file, title", [(file, title) for file, title, _ in PAGES], ids=[url_path(file) for file, *_ in PAGES]
)
def test_screenshot_of_each_page(page: Page, app_url: str, file: str, title: str) -> None:
    stem = url_path(file)
    target = SCREENSHOTS / f"{stem}.png"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)  # the assertions below must see this run's picture
    outside = outside_requests(page)
    page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    address = "" if file == PAGES[0][0] else stem  # the default page lives at the root
    page.goto(f"{app_url}/{address}{VIEWS.get(stem, '')}")
    wait_for_app(page)
    expect(page.get_by_test_id("stMain").get_by_role("heading", level=1, name=page_heading(title))).to_be_visible(
        timeout=SLOW
    )
    wait_for_app(page)
    no_error_boxes(page)
    if stem in SCROLL_TO:
        page.get_by_text(SCROLL_TO[stem]).first.evaluate("element => element.scrollIntoView({block: 'start'})")
    wait_until_drawn(page)
    page.screenshot(path=str(target))
    check_picture(target)
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(target, COMMITTED / target.name)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
