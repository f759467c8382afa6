"""The explorer in real headless Chromium: it renders, stays offline and shows no exception box."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright "
                                                      "pytest-playwright)")
from playwright.sync_api import Page, expect  # noqa: E402

pytestmark = pytest.mark.e2e

LOOPBACK = "127.0.0.1"


def outside_requests(page: Page) -> list[str]:
    """Start recording every request that leaves 127.0.0.1 (data: and blob: URLs are local)."""
    outside: list[str] = []

    def record(request) -> None:
        url = request.url
        if url.startswith(("data:", "blob:")):
            return
        if urlsplit(url).hostname != LOOPBACK:
            outside.append(url)

    page.on("request", record)
    return outside


def wait_for_app(page: Page) -> None:
    """Connected, script finished, no skeleton left (as Streamlit's own e2e suite waits)."""
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", state="attached",
                           timeout=60_000)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", state="attached",
                           timeout=60_000)
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=60_000)


def screenshot(page: Page, path) -> None:
    """The whole page: Streamlit scrolls inside its main container, so grow the viewport to fit it."""
    height = page.evaluate("Math.max(...[...document.querySelectorAll('[data-testid=stMain], section, body')]"
                           ".map(e => e.scrollHeight))")
    size = page.viewport_size or {"width": 1280, "height": 800}
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], int(height))})
    page.wait_for_timeout(300)  # let the layout settle at the new size
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


def no_error_boxes(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_text("Page not found")).to_have_count(0)


def test_segment_page_tokenises_offline(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/?tokeniser=nl-40k")
    wait_for_app(page)

    words = page.get_by_label("Words (separated by spaces)", exact=True)
    words.fill("bruidsjurk gids")
    words.press("Enter")
    chips = page.locator(".tok-word .tok-chip")
    expect(chips).to_have_text(["Ġbruids", "jurk", "Ġgids"], timeout=60_000)
    wait_for_app(page)
    # The view is in the address bar, so the link reproduces it.
    expect(page).to_have_url(re.compile(r"[?&]word=bruidsjurk(\+|%20)gids"))
    expect(page.get_by_text("merges applied, in the order they fired").first).to_be_visible()

    no_error_boxes(page)
    screenshot(page, artifacts_dir / "segment-nl-40k.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_link_reproduces_a_scenario_view(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/?tokeniser=a1_scenario2a&word=bruids+bruid")
    wait_for_app(page)

    expect(page.locator(".tok-word .tok-chip")).to_have_text(["_bruids", "_bru", "id"], timeout=60_000)
    expect(page.get_by_text("Scenario 2a: parent knockout").first).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "segment-a1_scenario2a.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_hostile_link_falls_back_and_is_escaped(page: Page, app_url: str) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/?tokeniser=no-such-tokeniser&word=%3Cb%3E%26%22%27")  # word = <b>&"'
    wait_for_app(page)

    expect(page.get_by_text("which is not shipped")).to_be_visible()
    expect(page.get_by_role("combobox", name="Tokeniser")).to_have_value("nl-40k")
    chips = page.locator(".tok-word .tok-chip")
    expect(chips).to_have_text(["Ġ<", "b", ">", "&", '"', "'"], timeout=60_000)
    expect(page.locator(".tok-word .tok-chips b")).to_have_count(0)  # the <b> stayed text
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
