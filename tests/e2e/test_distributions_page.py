"""The Blame & distributions page in real headless Chromium: plots render, nothing leaves 127.0.0.1.

Also measures the page on its first (uncached) and second (cached) load; the times are printed and
written to test-artifacts/distributions-timing.json (measurements, not assertions).
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright "
                                                      "pytest-playwright)")
from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, screenshot, wait_for_app  # noqa: E402
from playwright.sync_api import Page, expect  # noqa: E402

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PAGE_FILE = "pages/distributions.py"
SLOW = 240_000  # ms: the first visit knocks out, sweeps 19 thresholds and runs ReBPE on the Dutch 40k


def url_path() -> str:
    """The page's url_path as app.py gives it today (PAGES and its ``url_path``), never hard-coded."""
    import app  # app.py runs its navigation only as __main__; importing it gives PAGES

    for spec in app.PAGES:
        if spec[0] == PAGE_FILE:
            if len(spec) >= 4:                      # (file, title, url_path, icon)
                return spec[2]
            return app.url_path(spec[0]) if hasattr(app, "url_path") else Path(PAGE_FILE).stem
    pytest.fail(f"{PAGE_FILE} is not in app.py PAGES")


def wait_for_plots(page: Page, count: int, timeout: int = SLOW) -> None:
    """``count`` plotly charts, each drawn (plotly's SVG is in the DOM)."""
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(count, timeout=timeout)
    for i in range(count):
        expect(charts.nth(i).locator(".main-svg").first).to_be_attached(timeout=timeout)


def timed_load(page: Page, url: str, charts: int) -> float:
    started = time.perf_counter()
    page.goto(url)
    wait_for_app(page)
    wait_for_plots(page, charts)
    return time.perf_counter() - started


BLAME_CHARTS, CORPUS_CHARTS = 5, 4


def test_distributions_page_renders_offline(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    base = f"{app_url}/{url_path()}?tokeniser=nl-40k&reference=nl_morph"
    timing = {}

    # Merge blame tab (the default): metrics, five figures.
    timing["blame_first_s"] = timed_load(page, base, BLAME_CHARTS)
    expect(page.get_by_role("heading", name="Blame & distributions")).to_be_visible()
    expect(page.get_by_text("Effective dropout", exact=True)).to_be_visible()
    expect(page.get_by_text("Threshold sweep (bpe-knockout App. A.3)")).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "distributions-blame.png")
    timing["blame_cached_s"] = timed_load(page, base, BLAME_CHARTS)

    # Corpus distributions tab: clicking it puts it in the URL.
    page.get_by_role("tab", name="Corpus distributions").click()
    started = time.perf_counter()
    wait_for_app(page)
    wait_for_plots(page, CORPUS_CHARTS)
    timing["corpus_first_s"] = time.perf_counter() - started
    expect(page).to_have_url(re.compile(r"[?&]view=Corpus"))
    expect(page.get_by_text("Summary over 3,000 lines")).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "distributions-corpus.png")
    timing["corpus_cached_s"] = timed_load(page, page.url, CORPUS_CHARTS)

    # A figure download is a standalone offline HTML file (made only when the button is clicked).
    with page.expect_download(timeout=60_000) as download_info:
        page.get_by_role("button", name="Figure (HTML)").first.click()
    download = download_info.value
    assert download.suggested_filename == "zipf.html"
    html = Path(download.path()).read_text(encoding="utf-8")
    assert "Zipf plot" in html and "plotly.js v" in html
    assert re.findall(r"<script[^>]*\bsrc=", html) == []

    (artifacts_dir / "distributions-timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    print("distributions page timing:", json.dumps(timing))
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
