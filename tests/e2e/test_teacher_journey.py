"""The teacher's journey in real headless Chromium at 1280×720: ``bruidsjurk`` in the Word debugger in
presentation mode (one screen: tree, labels of 14 px or more, the explanation beside it) -> the merge
graph by its link (centred on the word, one screen, labels of 12 px or more) -> back by the graph's
link (the word and presentation mode kept); Blocked merges in presentation mode on one screen.

Screenshots go to test-artifacts/ to be looked at.
"""

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
from tests.e2e.test_graph_page import wait_for_graph
from viz.graph_html import LEGIBLE_ZOOM
from viz.trees import RANK_PX, TOKEN_PX

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}
WORD = ".st-key-word input"


def one_screen(page: Page, *elements: Locator) -> None:
    """Nothing scrolls, and every element lies inside the 1280×720 viewport."""
    assert page.locator("[data-testid=stMain]").evaluate("e => e.scrollHeight") <= PROJECTOR["height"]
    for element in elements:
        box = element.bounding_box()
        assert box is not None, element
        assert box["y"] >= 0 and box["y"] + box["height"] <= PROJECTOR["height"], (element, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= PROJECTOR["width"], (element, box)


def tree_scale(tree: Locator) -> float:
    return tree.evaluate("s => s.getBoundingClientRect().width / s.viewBox.baseVal.width")


def test_teacher_journey_keeps_the_word_and_fits_the_projector(page: Page, app_url: str, artifacts_dir, dutch40k):
    outside = outside_requests(page)
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/word_debugger?tokeniser=nl-40k&word=bruidsjurk&present=1")
    wait_for_app(page)
    tree = page.locator(".merge-tree svg")
    expect(tree).to_have_count(1, timeout=60_000)
    one_screen(
        page, tree, page.get_by_role("heading", name="What went wrong?"), page.get_by_role("button", name="Prev")
    )
    assert tree_scale(tree) * min(TOKEN_PX, RANK_PX) >= 14  # every tree label 14 px or more
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_text(re.compile(r"^Step 8 of 9"))).to_be_visible()
    wait_for_app(page)
    page.screenshot(path=str(artifacts_dir / "journey-teacher-word-debugger-1280x720.png"))

    page.get_by_role("link", name="bruidsjurk in the merge graph").click()  # a page switch: the same session
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"/merge_graph\?.*word=bruidsjurk"))
    expect(page.locator(".st-key-type input")).to_have_value("Ġbruids")  # the word's token, not a default
    frame = wait_for_graph(page, "nodes.some(n => n.role === 'center' && n.focus === 'Ġbruids')")
    page.wait_for_timeout(500)
    one_screen(page, page.locator("iframe.merge-graph"))
    assert frame.evaluate("network.getScale()") >= LEGIBLE_ZOOM - 1e-3  # labels 12 px or more
    title = frame.evaluate("network.body.data.nodes.get().filter(n => n.role === 'center')[0].title")
    assert f"Ġbruids · id {dutch40k.token_ids()['Ġbruids']}" in title and "merge #15545" in title
    page.screenshot(path=str(artifacts_dir / "journey-teacher-merge-graph-1280x720.png"))

    page.get_by_role("link", name="bruidsjurk in the Word debugger").click()
    wait_for_app(page)
    expect(page.locator(WORD)).to_have_value("bruidsjurk")  # the word, and presentation mode, kept
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    expect(page.locator(".merge-tree svg")).to_have_count(1)

    page.goto(f"{app_url}/blocked_merges?tokeniser=a1_scenario2b_i_first&present=1")
    wait_for_app(page)
    trees = page.locator(".merge-tree-block svg")
    expect(trees).to_have_count(2, timeout=60_000)
    one_screen(page, trees.nth(0), trees.nth(1), page.get_by_role("button", name="Apply reparation"))
    page.screenshot(path=str(artifacts_dir / "journey-teacher-blocked-merges-1280x720.png"))
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
