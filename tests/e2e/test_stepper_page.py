"""The stepper and blocked-merges pages in real headless Chromium: stepping changes the shown tree,
no request leaves 127.0.0.1, no exception box. Also records how long one step takes on the Dutch 40k
(written to test-artifacts/stepper-speed.txt; a measurement, never an assertion)."""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, screenshot, wait_for_app

pytestmark = pytest.mark.browser

FIRST_RUN_MS = 240_000  # the first ReBPE run on the Dutch 40k, on a slow shared machine


def step_heading(page: Page):
    return page.get_by_role("heading", name=re.compile(r"^Step \d+ of \d+"))


def test_next_changes_the_tree_of_scenario_2a(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/stepper?tokeniser=a1_scenario2a")
    wait_for_app(page)
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 0 of 9"), timeout=60_000)
    expect(page.get_by_text("Scenario 2a: parent knockout").first).to_be_visible()
    trees = page.locator(".merge-tree-block svg")
    expect(trees).to_have_count(1)
    expect(trees.first.locator("g.tree-node.tuple")).to_have_count(0)
    shown_before = trees.first.inner_html()
    screenshot(page, artifacts_dir / "stepper-scenario2a-step0.png")

    page.get_by_role("button", name="Next").click()
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 1 of 9 · iteration 1 · knockout"), timeout=30_000)
    wait_for_app(page)
    expect(trees).to_have_count(2)  # before and after this step
    after = trees.nth(1)
    expect(after.locator("g.tree-node.tuple")).to_have_count(1)  # _bru + id + s, the triplet
    expect(after.locator("g.tree-node.tuple text").first).to_have_text("_bruids")
    assert after.inner_html() != shown_before
    expect(page).to_have_url(re.compile(r"[?&]step=1(&|$)"))

    page.get_by_role("button", name="Prev").click()
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 0 of 9"), timeout=30_000)
    wait_for_app(page)
    expect(trees).to_have_count(1)
    page.get_by_role("button", name="Next").click()
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 1 of 9"), timeout=30_000)
    wait_for_app(page)

    no_error_boxes(page)
    screenshot(page, artifacts_dir / "stepper-scenario2a-step1.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_scenario_button_and_link_to_a_step(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/stepper?tokeniser=a1_scenario2a&step=3")
    wait_for_app(page)
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 3 of 9 · iteration 1 · reification"), timeout=60_000)
    page.get_by_role("button", name="2b(ii)", exact=True).click()
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 0 of 12"), timeout=30_000)
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]tokeniser=a1_scenario2b_ii"))
    expect(page).not_to_have_url(re.compile(r"[?&]step="))
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_one_step_on_the_dutch_40k(page: Page, app_url: str, artifacts_dir) -> None:
    """Measures (does not assert) the time of one step after the first computation."""
    outside = outside_requests(page)
    started = time.perf_counter()
    page.goto(f"{app_url}/stepper?tokeniser=nl-40k&reference=nl_morph")
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 0 of 21"), timeout=FIRST_RUN_MS)
    wait_for_app(page, FIRST_RUN_MS)
    first = time.perf_counter() - started
    timings = []
    for target, button in ((1, "Next"), (2, "Next"), (3, "Next"), (4, "Next"), (3, "Prev")):
        started = time.perf_counter()
        page.get_by_role("button", name=button).click()
        expect(step_heading(page)).to_have_text(re.compile(rf"^Step {target} of 21"), timeout=60_000)
        wait_for_app(page)
        timings.append((target, time.perf_counter() - started))
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "stepper-nl-40k-step3.png")
    report = [f"first load with the ReBPE run: {first:.2f} s"]
    report += [f"step to {target}: {seconds:.2f} s" for target, seconds in timings]
    (artifacts_dir / "stepper-speed.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print("\n".join(report))
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_blocked_merges_page_repairs_scenario_2b_ii(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/blocked_merges?tokeniser=a1_scenario2b_ii")
    wait_for_app(page)
    expect(page.get_by_text("Why is it blocked?")).to_be_visible(timeout=60_000)
    expect(page.locator(".merge-tree-block svg")).to_have_count(2)
    page.get_by_role("button", name="Apply reparation").click()
    expect(page.get_by_text("Merges repaired")).to_be_visible(timeout=60_000)
    wait_for_app(page)
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "blocked-scenario2b_ii.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
