"""The vocabulary audit of a real tokeniser in headless Chromium at 1280x720: Qwen3 loaded by path,
the Vocabulary audit page reached through the sidebar shows the 3,357 types HF's round trip also
finds, grouped by cause (partial UTF-8 bytes, the normaliser, the pre-tokeniser), on one screen."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from tests.e2e.browser_support import no_error_boxes, screenshot, wait_for_app
from tests.e2e.test_real_tokeniser_journey import PROJECTOR, load_path
from tests.e2e.test_workspace_state import NAV
from tests.real_tokenisers import real_file

pytestmark = [pytest.mark.browser, pytest.mark.real]


def metric(page: Page, label: str):
    return page.locator("[data-testid=stMetric]").filter(has_text=label).locator("[data-testid=stMetricValue]")


def test_qwen3_audit_groups_the_round_trip_failures_by_cause(page: Page, app_url, artifacts_dir):
    page.set_viewport_size(PROJECTOR)
    load_path(page, app_url, real_file("qwen3", "tokenizer.json"))
    page.locator(NAV.format("/audit")).click()
    wait_for_app(page)
    expect(metric(page, "Not produced by their own string")).to_have_text("3,357", timeout=120_000)
    expect(metric(page, "Types checked")).to_have_text("151,669")
    summary = page.locator("[data-testid=stTable]").first
    for label, count in [
        ("partial UTF-8 bytes", "1,448"),
        ("the normaliser changes it", "248"),
        ("the pre-tokeniser cuts it", "1,661"),
    ]:
        row = summary.locator("tr").filter(has_text=label)
        expect(row.locator("td").nth(1)).to_have_text(count)
        box = row.bounding_box()
        assert box and box["y"] + box["height"] <= PROJECTOR["height"], label  # on the first screen
    table = page.locator("[data-testid=stDataFrame]").first
    expect(table).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "audit-qwen3-1280x720.png")
