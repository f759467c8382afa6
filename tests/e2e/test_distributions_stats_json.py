"""The distributions page opens a stats.json in real headless Chromium: the file that
``structok stats`` wrote is uploaded, the corpus view draws its four figures with a caption naming
the tokeniser and the corpus files, no error box is shown, and nothing leaves 127.0.0.1."""

from __future__ import annotations

from urllib.parse import quote_plus

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from core import cli
from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, screenshot, wait_for_app
from tests.e2e.test_distributions_page import CORPUS_CHARTS, ROOT, url_path, wait_for_plots

pytestmark = pytest.mark.browser

EN_4K = str(ROOT / "sample_data/tokenisers/en-bpe-4k-wordfreq.json")


def stats_json(tmp_path) -> bytes:
    """A stats.json over two small files, written by the command."""
    for name, text in (("one.txt", "the bride's dress\nthe standard fare\n"), ("two.txt", "a second file of text\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    out = tmp_path / "stats.json"
    assert cli.main(["stats", "--tokeniser", EN_4K, "--corpus", str(tmp_path / "*.txt"), "--out", str(out)]) == 0
    return out.read_bytes()


def test_an_uploaded_stats_json_draws_the_corpus_figures(page: Page, app_url: str, artifacts_dir, tmp_path) -> None:
    data = stats_json(tmp_path)
    outside = outside_requests(page)
    page.goto(f"{app_url}/{url_path()}?view={quote_plus('Corpus distributions')}&text={quote_plus('a stats file')}")
    wait_for_app(page)
    expect(page.get_by_text("Open a stats file above")).to_be_visible()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="as structok stats writes it")
    uploader.locator("input[type=file]").set_input_files(
        {"name": "stats.json", "mimeType": "application/json", "buffer": data}
    )
    wait_for_app(page)
    wait_for_plots(page, CORPUS_CHARTS)
    expect(page.get_by_text("tokeniser en-bpe-4k-wordfreq", exact=False).first).to_be_visible()
    expect(page.get_by_text("2 files (one.txt, two.txt)", exact=False).first).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "distributions-stats-json.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
