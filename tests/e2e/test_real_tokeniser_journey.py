"""The researcher's journey on real tokenisers in headless Chromium at 1280x720: Llama 3 loaded by path
on the Workspace -> the Word debugger (ids on the chips, beside merge ranks in the step text and in the
tree's tooltips) -> the hover link of a running-text token to the merge graph (a full page load: a new
session, which keeps Llama 3 through its ``path:<id>`` link; ids in the graph's tooltips) -> Blocked
merges (an id column) -> running text side by side; then o200k's `` understanding`` is one token emitted
whole. The tokeniser is never replaced by the default sample, and no link carries the path itself."""

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
from tests.e2e.test_graph_page import wait_for_graph
from tests.e2e.test_workspace_state import CHOOSER, NAV
from tests.real_tokenisers import real_file

pytestmark = [pytest.mark.browser, pytest.mark.real]

PROJECTOR = {"width": 1280, "height": 720}
WORD = ".st-key-word input"


def tokeniser_param(page: Page) -> str:
    return parse_qs(urlsplit(page.url).query)["tokeniser"][0]


def path_label(path) -> re.Pattern:
    """The chooser's label of a path-loaded tokeniser: folder/file first, then the path."""
    return re.compile("^" + re.escape(f"{path.parent.name}/{path.name} · path: "))


def load_path(page: Page, app_url: str, path) -> str:
    """Load a tokeniser by its path on the Workspace; returns its ``path:<id>`` link value."""
    page.goto(f"{app_url}/")
    wait_for_app(page)
    page.get_by_text("Upload a tokeniser, or name one on this machine").click()
    field = page.locator(".st-key-ws_path input")
    field.fill(str(path))
    field.press("Enter")
    wait_for_app(page)  # the path's rerun is over: a click during it could race with it
    expect(field).to_have_value(str(path))
    page.locator(".st-key-ws_path_load button").click()
    wait_for_app(page)
    errors = page.get_by_test_id("stAlertContentError").all_text_contents()
    assert not errors, errors  # a refusal, named, rather than a wait for a chooser that never changes
    expect(page.locator(CHOOSER)).to_have_value(path_label(path), timeout=120_000)
    wait_for_app(page)
    link = tokeniser_param(page)
    assert re.fullmatch(r"path:[0-9a-f]{20}", link) and str(path) not in page.url  # never the path itself
    return link


def debug(page: Page, words: str) -> None:
    """To the Word debugger through the sidebar (a page switch), and debug ``words`` there."""
    page.locator(NAV.format("/word_debugger")).click()
    wait_for_app(page)
    page.locator(WORD).fill(words)
    page.locator(WORD).press("Enter")
    wait_for_app(page)


def blocked_merges_and_running_text_keep(page: Page, path, artifacts_dir) -> None:
    """Through the sidebar to Blocked merges (an id column) and Running text side by side (ids, differences
    ringed), and back to the Workspace: the path-loaded tokeniser stays chosen throughout."""
    page.locator(NAV.format("/blocked_merges")).click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"Tokeniser path: .*llama3/tokenizer\.json"))).to_be_visible(timeout=120_000)
    table = page.locator("[data-testid=stDataFrame]").filter(
        has=page.locator("[role=columnheader]", has_text=re.compile(r"^blocked merge$"))
    )
    expect(table).to_have_count(1, timeout=60_000)
    headers = table.locator("[role=columnheader]").all_text_contents()
    assert headers[headers.index("type") + 1] == "id", headers  # each type's id beside its merge's rank
    page.screenshot(path=str(artifacts_dir / "journey-llama3-blocked-merges-1280x720.png"))

    page.locator(NAV.format("/running_text")).click()
    wait_for_app(page)
    views = page.locator(".rt-view")
    expect(views).to_have_count(2, timeout=60_000)  # Llama 3 (the workspace's) and a sample beside it
    expect(views.first.locator(".rt-token").first).to_have_attribute("data-id", re.compile(r"^\d+$"))
    expect(page.locator(".rt-differs").first).to_be_visible()
    page.screenshot(path=str(artifacts_dir / "journey-llama3-running-text-1280x720.png"))
    page.locator(NAV.format("/")).first.click()
    wait_for_app(page)
    expect(page.locator(CHOOSER)).to_have_value(path_label(path))
    no_error_boxes(page)


def test_real_tokenisers_by_path_keep_through_links_and_show_ids(page: Page, app_url: str, artifacts_dir) -> None:
    path = real_file("llama3", "tokenizer.json")
    llama3 = load_tokeniser(path)
    ids, rank = llama3.token_ids(), llama3.primary_merge("Ġtoken").rank
    page.set_viewport_size(PROJECTOR)
    link = load_path(page, app_url, path)

    debug(page, "token tokenisation")  # Ġtoken: emitted whole (ignore_merges), then formed by merges
    chip = page.locator(".tok-word").first.locator('.tok-chip[data-token="Ġtoken"]')
    expect(chip).to_have_attribute("data-id", str(ids["Ġtoken"]), timeout=60_000)  # id 4037, not rank 9702
    assert chip.evaluate("c => getComputedStyle(c, '::after').content") == f'"{ids["Ġtoken"]}"'  # drawn
    expect(page.get_by_text(f"(id {ids['Ġtoken']} · merge #{rank})")).to_be_visible()
    page.locator(".st-key-focus button", has_text="tokenisation").click()
    wait_for_app(page)
    expect(page.locator('.merge-tree svg g.merge[data-token="isation"]')).to_have_count(1, timeout=60_000)
    titles = page.locator(".merge-tree svg g.merge title").all_text_contents()
    assert any(re.match(rf"Ġtoken = .* · id {ids['Ġtoken']} · merge #\d+$", t) for t in titles), titles
    page.screenshot(path=str(artifacts_dir / "journey-llama3-word-debugger-1280x720.png"))

    # the running text, opened as a link is (a new session), then a token's hover link to the merge graph
    page.goto(f"{app_url}/word_debugger?tokeniser={quote(link)}&input=text&text=tokenisation")
    wait_for_app(page)
    expect(page.locator(CHOOSER)).to_have_value(path_label(path), timeout=60_000)
    token = page.locator(".rt-token").first
    token.hover()
    token.locator("a.rt-graph").click()
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"/merge_graph\?"), timeout=60_000)
    assert tokeniser_param(page) == link
    expect(page.get_by_test_id("stAlertContentWarning")).to_have_count(0)
    expect(page.get_by_text(re.compile(r"Tokeniser path: .*llama3"))).to_have_count(1)
    frame = wait_for_graph(page, "nodes.some(n => n.role === 'center')", timeout=60)
    title = frame.evaluate("network.body.data.nodes.get().filter(n => n.role === 'center')[0].title")
    assert re.search(r" · id \d+\n", title) and "merge #" in title, title
    page.screenshot(path=str(artifacts_dir / "journey-llama3-merge-graph-1280x720.png"))

    blocked_merges_and_running_text_keep(page, path, artifacts_dir)

    load_path(page, app_url, real_file("tiktoken-o200k", "o200k_base.tiktoken"))
    debug(page, "understanding")
    chips = page.locator(".tok-word").first.locator(".tok-chip")
    expect(chips).to_have_count(1, timeout=60_000)  # one token, not 14 characters
    expect(chips.first).to_have_attribute("data-token", "Ġunderstanding")
    expect(page.get_by_text("is one token, emitted whole", exact=False)).to_be_visible()
    expect(page.get_by_text("every character stays a token")).to_have_count(0)
    page.screenshot(path=str(artifacts_dir / "journey-o200k-understanding-1280x720.png"))
    no_error_boxes(page)
