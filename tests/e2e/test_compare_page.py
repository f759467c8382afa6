"""Compare tokenisers in real headless Chromium at 1280×720: the two merge trees of a word are never cut.
Short words: side by side; a tree too wide for half the page: both one above the other, whole; a tree
wider than the page: it scrolls inside its frame, whose scroll bar is drawn (Streamlit's theme hides
scroll bars until hovered, which made a wide tree look cut)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, screenshot, wait_for_app

pytestmark = pytest.mark.browser

FRAMES_JS = """() => [...document.querySelectorAll('.merge-tree')].map(frame => {
  const box = frame.getBoundingClientRect();
  return {top: Math.round(box.top), left: Math.round(box.left), width: frame.clientWidth,
          overflow: frame.scrollWidth - frame.clientWidth, scrolls: getComputedStyle(frame).overflowX,
          thumb: getComputedStyle(frame).scrollbarColor.split(' rgb')[0]};
})"""


def frames(page: Page, url: str) -> list[dict]:
    page.goto(url)
    wait_for_app(page)
    expect(page.locator(".merge-tree img")).to_have_count(2, timeout=60_000)
    return page.evaluate(FRAMES_JS)


def test_trees_side_by_side_stacked_or_scrolling_never_cut(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    compare = f"{app_url}/compare?a=nl-40k&b=nl-bpe-4k-wordfreq&word="

    a, b = frames(page, compare + "bruidsjurk")
    assert a["top"] == b["top"] and a["left"] < b["left"]  # side by side
    assert a["overflow"] <= 1 and b["overflow"] <= 1

    a, b = frames(page, compare + "verzekeringsmaatschappij")  # 717 px wide under nl-40k
    assert a["left"] == b["left"] and a["top"] < b["top"] and a["width"] > 700  # one above the other
    assert a["overflow"] <= 1 and b["overflow"] <= 1  # whole
    screenshot(page, artifacts_dir / "compare-stacked-trees.png")

    long_word = "kindercarnavalsoptochtvoorbereidingswerkzaamhedenplan"
    widest = max(frames(page, compare + long_word), key=lambda f: f["overflow"])
    assert widest["overflow"] > 0 and widest["scrolls"] == "auto"  # wider than the page: it scrolls
    assert widest["thumb"] not in ("transparent", "rgba(0, 0, 0, 0)"), widest  # with a scroll bar to see
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
