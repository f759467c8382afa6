"""The word debugger in real headless Chromium at 1280×720: running text from a link (chips with
ids, whitespace and split bytes visible, the link menu of a chip leading to the word's tree), and
presentation mode stepped with the arrow keys. Screenshots go to test-artifacts/ to be looked at."""

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

from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, wait_for_app
from viz.trees import RANK_PX, TOKEN_PX

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}
SENTENCE = "De bruidsjurk van mijn zus kost 1.000 €, zei ze  —\nin Tokio (東京) 😀 naïef!"


def test_running_text_from_a_link(page: Page, app_url: str, artifacts_dir, dutch40k) -> None:
    outside = outside_requests(page)
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/word_debugger?tokeniser=nl-40k&text={quote(SENTENCE)}")
    wait_for_app(page)
    tokens = dutch40k.tokenise(SENTENCE)
    chips = page.locator(".rt-view .rt-token")
    expect(chips).to_have_count(len(tokens))
    assert chips.evaluate_all("cs => cs.map(c => c.dataset.token)") == tokens
    assert chips.evaluate_all("cs => cs.map(c => Number(c.dataset.id))") == [dutch40k.token_id(t) for t in tokens]
    expect(page.locator(".rt-view .rt-token.rt-bytes")).to_have_count(6)  # 東京: three byte tokens each
    expect(page.locator(".fact").filter(has_text="tokens").first).to_contain_text(str(len(tokens)))

    bride = page.locator('.rt-token[data-token="Ġbruids"]')
    menu = bride.locator(".rt-links")
    expect(menu).to_be_hidden()
    bride.hover()
    expect(menu).to_be_visible()
    graph = parse_qs(urlsplit(menu.locator("a.rt-graph").get_attribute("href")).query)
    assert graph["type"] == ["Ġbruids"] and graph["tokeniser"] == ["nl-40k"]
    for chip in chips.all()[:3]:  # every chip is on the projector's screen width
        box = chip.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PROJECTOR["width"]
    no_error_boxes(page)
    page.screenshot(path=str(artifacts_dir / "running-text-1280x720.png"))

    menu.locator("a.rt-tree").click()
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]word=bruidsjurk(&|$)"))
    expect(page.get_by_role("heading", name="“bruidsjurk”")).to_be_visible()
    expect(page.locator(".merge-tree svg")).to_have_count(1)
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_presentation_mode_steps_with_the_arrow_keys(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/word_debugger?tokeniser=nl-40k&word=masterthesis&present=1")
    wait_for_app(page)
    step = page.get_by_text(re.compile(r"^Step \d+ of 9"))
    expect(step).to_have_text(re.compile(r"^Step 9 of 9"))
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    for key, shown in (("ArrowLeft", 8), ("ArrowLeft", 7), ("ArrowRight", 8)):
        page.keyboard.press(key)
        expect(step).to_have_text(re.compile(rf"^Step {shown} of 9"))
        wait_for_app(page)  # the rerun has finished (the buttons that own the shortcuts are drawn again)
    tree = page.locator(".merge-tree svg")
    for element in (
        page.get_by_role("button", name="Prev"),
        page.get_by_role("button", name="Next"),
        tree,
        page.get_by_role("heading", name="What went wrong?"),  # beside the tree: one screen
    ):
        box = element.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PROJECTOR["height"], element
    assert page.locator("[data-testid=stMain]").evaluate("e => e.scrollHeight") <= PROJECTOR["height"]
    drawn = tree.evaluate("s => s.getBoundingClientRect().width / s.viewBox.baseVal.width")
    assert drawn * min(TOKEN_PX, RANK_PX) >= 14  # every label of the tree 14 px or more on the projector
    title = tree.locator("g.merge title").first.text_content()  # a node's tooltip: its id beside its rank
    assert re.search(r" · id \d+ · merge #\d+", title), title
    no_error_boxes(page)
    page.screenshot(path=str(artifacts_dir / "word-debugger-presentation-1280x720.png"))
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
