"""Honest links in real headless Chromium: a link copied after an upload opens the same
view in a new browser context (another session of the same server, which finds the file in its
upload store); a link naming an upload the server does not have says so."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Browser, Page, expect

from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, wait_for_app
from tests.e2e.test_workspace_state import CHOOSER, NAV, UPLOAD
from ui import upload_store
from ui.upload_store import digest

pytestmark = pytest.mark.browser

WORD = ".st-key-word input"
PROJECTOR = {"width": 1280, "height": 720}


def query(page: Page) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}


def expect_first_word_tokens(page: Page, expected: list[str]) -> None:
    """The chips of the first word the word debugger shows are ``expected`` (``data-token`` of
    each), waiting (as Playwright's ``expect`` does) for the rerun after an input to be drawn."""
    chips = page.locator(".tok-word").first.locator(".tok-chip")
    expect(chips).to_have_count(len(expected), timeout=60_000)
    for position, token in enumerate(expected):
        expect(chips.nth(position)).to_have_attribute("data-token", token)


def test_a_copied_link_with_an_upload_opens_the_same_view_in_a_new_context(
    page: Page, browser: Browser, app_url: str, artifacts_dir
) -> None:
    scenario = load_tokeniser(scenario_paths()["a1_scenario2a"])
    data = json.dumps(scenario.to_json()).encode()
    page.goto(f"{app_url}/?tokeniser=a1_scenario1")
    wait_for_app(page)
    page.locator(UPLOAD).set_input_files({"name": "mine.json", "mimeType": "application/json", "buffer": data})
    expect(page.locator(CHOOSER)).to_have_value("upload: mine.json", timeout=60_000)
    wait_for_app(page)
    assert query(page)["tokeniser"] == "upload:" + digest(data)  # the Workspace's own address bar
    assert upload_store.has(
        "tokeniser", digest(data)
    )  # the server's store: EXPLORER_CACHE_DIR, a temporary folder (conftest)

    page.locator(NAV.format("/word_debugger")).click()
    wait_for_app(page)
    page.locator(WORD).fill("bruid")
    page.locator(WORD).press("Enter")
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]word=bruid(&|$)"), timeout=60_000)
    shown = query(page)
    assert shown["tokeniser"] == "upload:" + digest(data) and shown["word"] == "bruid"
    expected = scenario.tokenise_word("bruid")
    expect_first_word_tokens(page, expected)
    link = page.url

    other = browser.new_context(viewport=PROJECTOR)  # another browser: no cookies, no session state
    try:
        reopened = other.new_page()
        outside = outside_requests(reopened)
        reopened.goto(link)
        wait_for_app(reopened)
        expect(reopened.locator(CHOOSER)).to_have_value("upload: mine.json", timeout=60_000)
        expect(reopened.locator(WORD)).to_have_value("bruid")
        expect_first_word_tokens(reopened, expected)
        reopened.screenshot(path=str(artifacts_dir / "link-with-upload-reopened-1280x720.png"))
        no_error_boxes(reopened)
        expect(reopened.get_by_test_id("stAlertContentWarning").filter(has_text="link")).to_have_count(0)
        assert query(reopened)["tokeniser"] == "upload:" + digest(data)
        assert outside == [], f"requests left {LOOPBACK}: {outside}"
    finally:
        other.close()


def test_a_link_to_an_upload_this_server_lacks_says_so(page: Page, app_url: str) -> None:
    missing = "upload:" + "ab" * 16
    page.goto(f"{app_url}/word_debugger?tokeniser={missing}&word=bruid")
    wait_for_app(page)
    warning = page.get_by_test_id("stAlertContentWarning").filter(has_text=missing)
    expect(warning).to_contain_text("another server")
    expect(page.locator(CHOOSER)).to_have_value(re.compile(r"^nl-40k "))
    assert query(page)["tokeniser"] == "nl-40k"


def test_a_teach_card_link_opens_its_scenario_in_presentation_mode(page: Page, app_url: str, artifacts_dir) -> None:
    """One click on the landing page, in a session that had chosen another tokeniser."""
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/?tokeniser=a1_scenario3a")
    wait_for_app(page)
    page.screenshot(path=str(artifacts_dir / "workspace-teach-card-1280x720.png"))
    title = load_tokeniser(scenario_paths()["a1_scenario1"]).metadata["title"]
    page.get_by_role("link", name=title).click()
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"/stepper\?"))
    shown = query(page)
    assert shown["tokeniser"] == "a1_scenario1" and shown["present"] == "1"
    expect(page.locator("section[data-testid=stSidebar]")).to_be_hidden()
    no_error_boxes(page)
