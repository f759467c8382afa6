"""Presentation mode in real headless Chromium on a 1280×720 projector: a ``?present=1`` link opens the
stepper on a teaching scenario, the → and ← keys step, and Prev, Next and both trees lie inside the
720 px viewport without scrolling. Saves test-artifacts/stepper-presentation-1280x720.png (the
viewport as the class sees it)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, wait_for_app

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}


@pytest.fixture
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": PROJECTOR}


def step_heading(page: Page):
    return page.get_by_role("heading", name=re.compile(r"^Step \d+ of \d+"))


def inside_viewport(locator: Locator, what: str) -> None:
    box = locator.bounding_box()
    assert box is not None, f"{what} is not drawn"
    assert box["x"] >= 0 and box["y"] >= 0, (what, box)
    assert box["x"] + box["width"] <= PROJECTOR["width"] and box["y"] + box["height"] <= PROJECTOR["height"], (
        what,
        box,
    )


def test_arrow_keys_step_and_everything_fits_the_projector(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/stepper?tokeniser=a1_scenario2a&present=1")
    wait_for_app(page)
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 0 of 9"), timeout=60_000)
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    trees = page.locator(".merge-tree-block svg")
    expect(trees).to_have_count(1)

    page.keyboard.press("ArrowRight")
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 1 of 9 · iteration 1 · knockout"), timeout=30_000)
    wait_for_app(page)
    expect(trees).to_have_count(2)  # before and after this step
    expect(page).to_have_url(re.compile(r"[?&]step=1(&|$)"))
    page.keyboard.press("ArrowRight")
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 2 of 9"), timeout=30_000)
    page.keyboard.press("ArrowLeft")
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 1 of 9"), timeout=30_000)
    wait_for_app(page)
    expect(trees).to_have_count(2)

    assert page.evaluate("window.scrollY") == 0
    assert page.locator("[data-testid='stMain']").evaluate("e => e.scrollTop") == 0
    inside_viewport(page.get_by_role("button", name="Prev"), "Prev")
    inside_viewport(page.get_by_role("button", name="Next"), "Next")
    inside_viewport(trees.nth(0), "the tree before the step")
    inside_viewport(trees.nth(1), "the tree after the step")
    no_error_boxes(page)
    page.wait_for_timeout(500)
    page.screenshot(path=str(artifacts_dir / "stepper-presentation-1280x720.png"))

    page.get_by_role("button", name="Prev").click()  # the buttons step as the keys do
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 0 of 9"), timeout=30_000)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
