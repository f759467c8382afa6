"""The researcher's journey on a real tokeniser in headless Chromium at 1280x720: Llama 3 loaded by path
on the Workspace, a word with its token ids, the hover link of a running-text token to the merge graph
(a full page load: a new session), and the running text side by side; the tokeniser is never
replaced by the default sample, and the link never carries the path itself."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from core.formats.tokeniser_files import load_tokeniser
from tests.e2e.browser_support import no_error_boxes, wait_for_app
from tests.e2e.test_workspace_state import CHOOSER, NAV
from tests.real_tokenisers import real_file

pytestmark = [pytest.mark.browser, pytest.mark.real]

PROJECTOR = {"width": 1280, "height": 720}


def tokeniser_param(page: Page) -> str:
    return parse_qs(urlsplit(page.url).query)["tokeniser"][0]


def test_llama3_by_path_survives_links_and_shows_ids(page: Page, app_url: str, artifacts_dir) -> None:
    path = real_file("llama3", "tokenizer.json")
    ids = load_tokeniser(path).token_ids()
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/")
    wait_for_app(page)
    page.get_by_text("Upload a tokeniser, or name one on this machine").click()
    page.locator(".st-key-ws_path input").fill(str(path))
    page.locator(".st-key-ws_path input").press("Enter")
    page.locator(".st-key-ws_path_load button").click()
    expect(page.locator(CHOOSER)).to_have_value(re.compile(r"^llama3/tokenizer.json · path: "), timeout=120_000)
    wait_for_app(page)
    link = tokeniser_param(page)
    assert re.fullmatch(r"path:[0-9a-f]{20}", link) and str(path) not in page.url

    page.locator(NAV.format("/word_debugger")).click()
    wait_for_app(page)
    page.locator(".st-key-word input").fill("token")
    page.locator(".st-key-word input").press("Enter")
    wait_for_app(page)
    chip = page.locator(".tok-word").first.locator('.tok-chip[data-token="Ġtoken"]')
    expect(chip).to_have_attribute("data-id", str(ids["Ġtoken"]), timeout=60_000)  # id 4037, not rank 9702
    assert chip.evaluate("c => getComputedStyle(c, '::after').content") == f'"{ids["Ġtoken"]}"'  # drawn
    page.screenshot(path=str(artifacts_dir / "journey-llama3-word-debugger-1280x720.png"))

    # the running text, opened as a link is (a new session), then a token's hover link to the merge graph
    page.goto(f"{app_url}/word_debugger?tokeniser={quote(link)}&input=text&text=tokenisation")
    wait_for_app(page)
    expect(page.locator(CHOOSER)).to_have_value(re.compile(r"^llama3/tokenizer.json · path: "), timeout=60_000)
    token = page.locator(".rt-token").first
    token.hover()
    token.locator("a.rt-graph").click()
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"/merge_graph\?"), timeout=60_000)
    assert tokeniser_param(page) == link
    no_error_boxes(page)
    expect(page.get_by_test_id("stAlertContentWarning")).to_have_count(0)
    expect(page.get_by_text(re.compile(r"Tokeniser path: .*llama3"))).to_have_count(1)
    page.screenshot(path=str(artifacts_dir / "journey-llama3-merge-graph-1280x720.png"))

    page.locator(NAV.format("/running_text")).click()
    wait_for_app(page)
    views = page.locator(".rt-view")
    expect(views).to_have_count(2, timeout=60_000)  # Llama 3 (the workspace's) and a sample beside it
    expect(views.first.locator(".rt-token").first).to_have_attribute("data-id", re.compile(r"^\d+$"))
    expect(page.locator(".rt-differs").first).to_be_visible()
    page.screenshot(path=str(artifacts_dir / "journey-llama3-running-text-1280x720.png"))
    page.locator(NAV.format("/")).first.click()
    wait_for_app(page)
    expect(page.locator(CHOOSER)).to_have_value(re.compile(r"^llama3/tokenizer.json · path: "))
