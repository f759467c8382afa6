"""The stepper and blocked-merges pages in real headless Chromium: stepping changes the shown tree,
no request leaves 127.0.0.1, no exception box; the teacher's journey on bruidsjurk keeps the word
through Next, presentation mode, the arrow keys and a reload, with the reference boundaries drawn and
everything inside 1280×720. Also records how long one step takes on the Dutch 40k (written to
test-artifacts/stepper-speed.txt; a measurement, never an assertion)."""

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
from viz.step_views import PRESENT_MIN_SCALE

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


def chosen_word(page: Page) -> str:
    return page.get_by_role("combobox").first.input_value().lstrip("• ")


TREES_JS = """() => [...document.querySelectorAll('.merge-tree-block svg')].map(svg => {
  const box = svg.getBoundingClientRect();
  return {bottom: box.bottom, right: box.right, scale: box.width / +svg.getAttribute('width'),
          references: svg.querySelectorAll('[stroke-dasharray]').length};
})"""


def test_the_teachers_journey_keeps_bruidsjurk_and_fits_the_projector(page: Page, app_url: str, artifacts_dir) -> None:
    """Follow word is on by default: Next, presentation mode, the → key and a reload keep bruidsjurk; its
    trees draw the reference boundaries bruid|s|jurk; presenting, the step fits 1280×720 unscrolled."""
    outside = outside_requests(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/stepper?tokeniser=nl-40k&reference=nl_morph&word=bruidsjurk")
    wait_for_app(page, FIRST_RUN_MS)
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 0 of 21"), timeout=FIRST_RUN_MS)
    expect(page.get_by_role("switch", name="Follow word")).to_be_checked()
    for target in (1, 2):
        page.get_by_role("button", name="Next").click()
        expect(step_heading(page)).to_have_text(re.compile(rf"^Step {target} of 21"), timeout=60_000)
        wait_for_app(page)
        assert chosen_word(page) == "bruidsjurk"
    trees = page.evaluate(TREES_JS)
    assert len(trees) == 2 and all(tree["references"] == 2 for tree in trees)  # bruid | s | jurk

    page.get_by_text("Presentation mode").click()
    wait_for_app(page)
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    step_heading(page).click()  # the keys go to the page, not to the toggle
    for target in (3, 4):
        page.keyboard.press("ArrowRight")
        expect(step_heading(page)).to_have_text(re.compile(rf"^Step {target} of 21"), timeout=60_000)
        wait_for_app(page)
        assert chosen_word(page) == "bruidsjurk"
    expect(page).to_have_url(re.compile(r"[?&]word=bruidsjurk(&|$)"))
    page.reload()
    wait_for_app(page)
    expect(step_heading(page)).to_have_text(re.compile(r"^Step 4 of 21"), timeout=60_000)
    assert chosen_word(page) == "bruidsjurk"
    expect(page.get_by_role("switch", name="Follow word")).to_be_checked()

    main = page.get_by_test_id("stMain")
    assert main.evaluate("e => e.scrollHeight <= e.clientHeight"), "presentation mode scrolls at 1280x720"
    trees = page.evaluate(TREES_JS)
    assert len(trees) == 2
    for tree in trees:
        assert tree["bottom"] <= 720 and tree["right"] <= 1280, tree
        assert tree["scale"] >= PRESENT_MIN_SCALE - 0.01 and tree["references"] == 2, tree
    for button in ("Prev", "Next"):
        box = page.get_by_role("button", name=button).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 720
    no_error_boxes(page)
    page.screenshot(path=str(artifacts_dir / "stepper-bruidsjurk-presentation-1280x720.png"))
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
