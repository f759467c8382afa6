"""The Pre-tokenisers, Train & compare, Training dynamics and Unigram lattice pages in real headless Chromium:
they render offline (no request leaves 127.0.0.1), show no error box, and keep the view in the URL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from core.families.registry import ALGORITHMS
from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, screenshot, wait_for_app

pytestmark = pytest.mark.browser


def test_pretokenisers_show_the_papers_examples(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/pretokenisers")
    wait_for_app(page)
    page.get_by_role("button", name="Runs of whitespace").click()
    wait_for_app(page)
    boundless = page.locator(".pretok-row[data-name='BOUNDLESS_PATTERN'] .tok-chip")
    expect(boundless).to_have_count(6)
    expect(page).to_have_url(re.compile(r"[?&]text=Hello"))
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "pretokenisers-whitespace.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_train_and_compare_every_family(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/train_compare?size=300&lines=200")
    wait_for_app(page)
    expect(page.locator(".variant-row")).to_have_count(len(ALGORITHMS))
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(2)
    expect(charts.first.locator(".main-svg").first).to_be_attached()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "train-compare.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_training_dynamics_scrubber_moves_the_step(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/training_dynamics?algorithm=boundless&size=400&lines=500")
    wait_for_app(page)
    expect(page.get_by_test_id("stPlotlyChart")).to_have_count(3)
    # why |V| ends under the target, in words: deleted tokens keep their slots
    expect(
        page.get_by_test_id("stAlert").filter(
            has_text=re.compile(
                r"for a target of 400: \d+ of the 400 "
                r"vocabulary slots"
            )
        )
    ).to_be_visible()
    expect(page.get_by_text("slots filled (deleted tokens keep theirs)")).to_be_attached()
    page.get_by_role("slider", name="Training step").focus()
    page.keyboard.press("ArrowRight")
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]step=1\b"))
    expect(page.get_by_text(re.compile(r"^Step 1: "))).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "training-dynamics-boundless.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_unigram_lattice_renders(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/unigram?size=400&lines=200&word=assertions")
    wait_for_app(page)
    expect(page.get_by_role("heading", level=1)).to_have_text("Unigram lattice and Viterbi segmentation")
    expect(page.locator(".lattice-view img[alt='segmentation lattice']")).to_be_visible()
    # the n best segmentations and the samples are tables: rank/draw, tokens, log-probability, probability
    tables = page.get_by_test_id("stDataFrame")
    expect(tables).to_have_count(3)
    for table in (tables.nth(0), tables.nth(1)):
        expect(table).to_be_visible()
    with page.expect_download(timeout=30_000) as download:
        page.get_by_role("button", name="SVG").click()
    assert download.value.suggested_filename == "unigram-lattice-unigram-Gassertions.svg"
    assert Path(download.value.path()).read_text(encoding="utf-8").startswith("<svg")
    expect(page.get_by_test_id("stPlotlyChart")).to_have_count(3)
    page.get_by_role("textbox", name="Word").fill("newest")
    page.keyboard.press("Enter")
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]word=newest"))
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "unigram-lattice.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
