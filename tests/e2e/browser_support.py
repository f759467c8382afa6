"""What every browser test needs: record requests that leave 127.0.0.1, wait for a Streamlit run
to finish, check that no error box is shown, and screenshot the whole page."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

LOOPBACK = "127.0.0.1"
SLOW = 300_000  # ms: a first visit may run knockout and ReBPE on the Dutch 40k, or train tokenisers


def outside_requests(page: Page) -> list[str]:
    """Start recording every request that leaves 127.0.0.1 (data:, blob: and about: URLs are local)."""
    outside: list[str] = []

    def record(request) -> None:
        url = request.url
        if not url.startswith(("data:", "blob:", "about:")) and urlsplit(url).hostname != LOOPBACK:
            outside.append(url)

    page.on("request", record)
    return outside


def wait_for_app(page: Page, timeout: int = SLOW) -> None:
    """Connected, script finished, no skeleton left (as Streamlit's own e2e suite waits)."""
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-connection-state='CONNECTED']", state="attached", timeout=timeout
    )
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']", state="attached", timeout=timeout
    )
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=timeout)


def page_heading(title: str) -> re.Pattern[str]:
    """A page's own h1: the first word of its sidebar title ("Unigram" for "Unigram lattice"),
    perhaps after an icon."""
    return re.compile(rf"^\s*\W?{re.escape(title.split()[0])}(\s|$)", re.IGNORECASE)


def no_error_boxes(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_text("Page not found")).to_have_count(0)


def screenshot(page: Page, path, settle_ms: int = 800) -> None:
    """The whole page: Streamlit scrolls inside its main container, so grow the viewport to fit it
    (and let plotly and vis-network redraw at the new size)."""
    height = page.evaluate(
        "Math.max(...[...document.querySelectorAll('[data-testid=stMain], section, body')].map(e => e.scrollHeight))"
    )
    size = page.viewport_size or {"width": 1280, "height": 800}
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], int(height))})
    page.wait_for_timeout(settle_ms)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
