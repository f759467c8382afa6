"""The Blame & distributions page in real headless Chromium: plots render, one view at a time (the
view is a segmented control kept in the URL), the corpus view reads the counts of the tokeniser's
language, the token-frequency view links to the Compare page, and nothing leaves 127.0.0.1.

Also measures each view on its first (uncached) and second (cached) load; the times are printed and
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
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, screenshot, wait_for_app

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PAGE_FILE = "pages/distributions.py"
SLOW = 240_000  # ms: a first visit may knock out, sweep 19 thresholds or run ReBPE on the Dutch 40k


def url_path() -> str:
    """The page's url_path as app.py gives it today (PAGES and its ``url_path``), never hard-coded."""
    import app  # app.py runs its navigation only as __main__; importing it gives PAGES

    for spec in app.PAGES:
        if spec[0] == PAGE_FILE:
            if len(spec) >= 4:  # (file, title, url_path, icon)
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


BLAME_CHARTS, SWEEP_CHARTS, CORPUS_CHARTS = 4, 1, 4


def choose_view(page: Page, name: str, charts: int, text: str) -> float:
    """Click a view of the segmented control; seconds until ``text`` and its figures are shown."""
    page.get_by_test_id("stButtonGroup").get_by_text(name, exact=True).click()
    started = time.perf_counter()
    expect(page.get_by_text(text).first).to_be_visible(timeout=SLOW)
    wait_for_app(page)
    wait_for_plots(page, charts)
    return time.perf_counter() - started


def test_distributions_page_renders_offline(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    base = f"{app_url}/{url_path()}?tokeniser=nl-40k&reference=nl_morph"
    timing = {}

    # Merge blame (the default view): metrics, four figures.
    timing["blame_first_s"] = timed_load(page, base, BLAME_CHARTS)
    expect(page.get_by_role("heading", name="Blame & distributions")).to_be_visible()
    expect(page.get_by_text("Effective dropout", exact=True)).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "distributions-blame.png")
    timing["blame_cached_s"] = timed_load(page, base, BLAME_CHARTS)

    # The sweep: its own view, its caption read off its numbers.
    timing["sweep_first_s"] = choose_view(
        page, "Threshold sweep", SWEEP_CHARTS, "Threshold sweep ([knockout App. A.3])"
    )
    expect(page).to_have_url(re.compile(r"[?&]view=Threshold"))
    expect(page.get_by_text("Threshold sweep ([knockout App. A.3])")).to_be_visible()
    expect(page.get_by_text(re.compile(r"precision goes from .* and is highest at t = "))).to_be_visible()

    # Corpus distributions: the Dutch word counts by default (the tokeniser is Dutch).
    timing["corpus_first_s"] = choose_view(
        page, "Corpus distributions", CORPUS_CHARTS, "Summary over the 40,000 words of nl_wordfreq"
    )
    expect(page).to_have_url(re.compile(r"[?&]view=Corpus"))
    expect(page.get_by_text("Summary over the 40,000 words of nl_wordfreq")).to_be_visible()
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

    # Token frequencies: nl-40k against itself after knockout, a table, and a link to the words.
    page.get_by_test_id("stButtonGroup").get_by_text("Token frequencies", exact=True).click()
    started = time.perf_counter()
    expect(page.get_by_text("token types whose frequency changes")).to_be_visible(timeout=SLOW)
    wait_for_app(page)
    timing["tokens_first_s"] = time.perf_counter() - started
    expect(page.get_by_test_id("stDataFrame")).to_have_count(1)
    expect(page).to_have_url(re.compile(r"token_b=nl-40k\+after\+knockout"))
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "distributions-token-frequencies.png")
    page.get_by_role("link", name=re.compile("The words behind these differences")).click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Compare tokenisers")).to_be_visible(timeout=SLOW)
    expect(page.get_by_test_id("stDataFrame")).to_have_count(1, timeout=SLOW)
    expect(page).to_have_url(re.compile(r"/compare\?.*a=nl-40k"))
    no_error_boxes(page)

    (artifacts_dir / "distributions-timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    print("distributions page timing:", json.dumps(timing))
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_compare_page_row_click_shows_both_trees(page: Page, app_url: str, artifacts_dir) -> None:
    """On the Compare page, clicking a row of the table puts that word in focus with both trees."""
    from urllib.parse import quote_plus

    from core.analysis.compare import compare_tokenisers
    from core.formats.samples import DUTCH_40K, SAMPLE_DIR, reference_paths
    from core.formats.tokeniser_files import load_tokeniser
    from core.references.files import load_references

    words = [e.word for e in load_references(reference_paths()["nl_morph"]).entries]
    third = (
        compare_tokenisers(
            load_tokeniser(SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json"), load_tokeniser(DUTCH_40K), words
        )
        .differences[2]
        .word
    )
    outside = outside_requests(page)
    page.goto(f"{app_url}/compare?a=nl-bpe-4k-wordfreq&b=nl-40k")
    wait_for_app(page)
    table = page.get_by_test_id("stDataFrame")
    expect(table).to_have_count(1, timeout=SLOW)
    # the grid is a canvas: click the third row's selection cell (header 35 px, rows 35 px)
    box = table.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + 35 * 3 + 17)
    wait_for_app(page)
    expect(page).to_have_url(re.compile(rf"[?&]word={re.escape(quote_plus(third))}(&|$)"), timeout=30_000)
    wait_for_app(page)
    expect(page.get_by_text(f"{third} →").first).to_be_visible(timeout=SLOW)  # its segmentation blocks
    expect(page.locator(".merge-tree img")).to_have_count(2, timeout=SLOW)
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "compare-row-click.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
