"""What the user loaded stays loaded, in real headless Chromium: an uploaded tokeniser is still the
choice after a step of the stepper (a fragment rerun) and a page switch through the sidebar."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, wait_for_app

pytestmark = pytest.mark.browser

UPLOAD = ".st-key-upload_tokeniser input[type=file]"
CHOOSER = ".st-key-ws_tokeniser input"
NAV = "[data-testid=stSidebarNavLink][href$='{}']"


def test_an_upload_survives_a_stepper_step_and_page_switches(page: Page, app_url: str) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/?tokeniser=a1_scenario1")
    wait_for_app(page)
    data = json.dumps(load_tokeniser(scenario_paths()["a1_scenario2a"]).to_json()).encode()
    page.locator(UPLOAD).set_input_files({"name": "mine.json", "mimeType": "application/json", "buffer": data})
    expect(page.locator(CHOOSER)).to_have_value("upload: mine.json", timeout=60_000)
    wait_for_app(page)

    page.locator(NAV.format("/stepper")).click()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Step 0 of 9 · the tokeniser as loaded")).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", name="Step 1 of 9 · iteration 1 · knockout")).to_be_visible(timeout=60_000)
    wait_for_app(page)

    for path in ("/word_debugger", "/"):  # the Workspace is the default page, at the root
        page.locator(NAV.format(path)).click()
        wait_for_app(page)
        expect(page.locator(CHOOSER)).to_have_value("upload: mine.json", timeout=60_000)
        no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
