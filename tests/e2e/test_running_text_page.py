"""Running text side by side in real headless Chromium at 1280×720: two shipped tokenisers on the default
text, every token a chip with its id, each tokeniser's token count above its chips, and the tokens the
second cuts unlike the first ringed (the first has none)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, wait_for_app

pytestmark = pytest.mark.browser

VIEWS_JS = """() => [...document.querySelectorAll('.rt-view')].map(view => {
  const box = view.closest('[data-testid=stVerticalBlock]');
  const facts = Object.fromEntries([...box.querySelectorAll('.fact')].map(
    f => [f.children[0].innerText.trim(), f.children[1].innerText.trim()]));
  const chips = [...view.querySelectorAll('.rt-token')];
  return {tokens: facts['tokens'], chips: chips.length, ids: chips.filter(c => /^\\d+$/.test(c.dataset.id)).length,
          ringed: view.querySelectorAll('.rt-differs').length, unlike: facts['tokens cut unlike the first']};
})"""


def test_two_tokenisers_side_by_side_with_ids_counts_and_differences(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/running_text")
    wait_for_app(page)
    expect(page.locator(".rt-view")).to_have_count(2, timeout=60_000)
    first, second = page.evaluate(VIEWS_JS)
    for view in (first, second):
        assert view["chips"] > 10 and view["ids"] == view["chips"]  # every token shows its id
        assert view["tokens"] == f"{view['chips']:,}"  # the count above is the chips'
    assert first["ringed"] == 0 and first["unlike"] is None  # the first is what the others are compared with
    assert 0 < second["ringed"] < second["chips"] and second["unlike"] == f"{second['ringed']:,}"
    no_error_boxes(page)
    page.screenshot(path=str(artifacts_dir / "running-text-side-by-side-1280x720.png"))
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
