"""The explorer in real headless Chromium: deep links, offline, no exception box, the word debugger.

- Every page of app.py's PAGES opened by deep link (``/<url_path>``) as the first request to a
  freshly started server with an empty disk cache, which is when Streamlit would still run
  ``pages/<stem>.py`` alone or show "Page not found" (see app.py): the sidebar must list the app's
  own page titles, and the page must show its own heading and no error box or traceback. How long
  that takes is measured by ``bench/bench_pages.py``, never asserted here.
- The word debugger: stepping, URL state, escaping, and the time one update takes on the Dutch 40k
  (printed and written to test-artifacts/word-debugger-timing.json; measured, not asserted).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from app import available_pages, url_path
from tests.e2e.browser_support import (
    LOOPBACK,
    no_error_boxes,
    outside_requests,
    page_heading,
    screenshot,
    wait_for_app,
)

pytestmark = pytest.mark.browser

SLOW = 300_000  # ms: a first visit may run knockout and ReBPE on the Dutch 40k
PAGES = available_pages()


def sidebar_titles(page: Page) -> list[str]:
    """The page titles in the sidebar (each link's text ends with its title, after the icon's name)."""
    links = page.get_by_test_id("stSidebarNav").get_by_test_id("stSidebarNavLink").all_inner_texts()
    return [text.strip().splitlines()[-1].strip() for text in links]


# --- deep links on a fresh server ---------------------------------------------------------------


@pytest.mark.parametrize(
    "file, title", [(file, title) for file, title, _ in PAGES], ids=[url_path(file) for file, *_ in PAGES]
)
def test_deep_link_on_a_fresh_server(page: Page, fresh_app_url: str, artifacts_dir, file: str, title: str) -> None:
    outside = outside_requests(page)
    page.goto(f"{fresh_app_url}/{url_path(file)}")
    wait_for_app(page)
    # app.py's navigation is in charge: its titles, not the legacy file-stem list ("app", "word debugger", ...)
    expect(page.get_by_test_id("stSidebarNav")).to_be_visible(timeout=SLOW)
    # the legacy run reruns through app.py as soon as the page imports ui.workspace: a heavy page
    # on a loaded machine can still show the legacy list when the first run is seen to end
    expect(page.get_by_test_id("stSidebarNavLink").first).to_contain_text(PAGES[0][1], timeout=SLOW)
    assert sidebar_titles(page) == [t for _, t, _ in PAGES]
    current = page.locator("[data-testid=stSidebarNavLink][aria-current=page]")
    expect(current).to_have_count(1)
    expect(current).to_contain_text(title)
    path = urlsplit(page.url).path.strip("/")
    assert path in (url_path(file), "") and (path or file == PAGES[0][0])
    expect(page.get_by_test_id("stMain").get_by_role("heading", level=1, name=page_heading(title))).to_be_visible(
        timeout=SLOW
    )
    wait_for_app(page)
    no_error_boxes(page)
    expect(page.get_by_text("Traceback (most recent call last)")).to_have_count(0)
    screenshot(page, artifacts_dir / f"deep-link-{url_path(file)}.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


# --- the workspace ------------------------------------------------------------------------------


def test_workspace_shows_what_is_loaded(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/?tokeniser=a1_scenario2a")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Workspace", exact=True)).to_be_visible()
    expect(page.get_by_text("Scenario 2a: parent knockout").first).to_be_visible()
    expect(page.locator(".facts .fact").first).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "workspace-a1_scenario2a.png")
    page.goto(f"{app_url}/?tokeniser=nl-40k")
    wait_for_app(page)
    expect(page.get_by_text("Dutch baseline tokeniser").first).to_be_visible()
    screenshot(page, artifacts_dir / "workspace-nl-40k.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


# --- the word debugger --------------------------------------------------------------------------

WORD_DEBUGGER = url_path("pages/word_debugger.py")


def header(page: Page):
    return page.locator("h2").filter(has_text="“")


def one_merge_back(page):
    """The word debugger's one-merge-back button (an icon; found by its key ``back::<word>``)."""
    return page.locator("[class*='st-key-back--'] button").first


def test_word_debugger_steps_and_keeps_the_view_in_the_url(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/{WORD_DEBUGGER}?tokeniser=nl-40k&word=masterthesis")
    wait_for_app(page)
    expect(header(page)).to_have_text("“masterthesis”", timeout=SLOW)
    expect(page.locator(".tok-word .tok-chip")).to_have_text(["Ġmast", "ert", "hes", "is"])
    expect(page.get_by_text("Trapped token").first).to_be_visible()
    expect(page.locator(".merge-tree svg")).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "word-debugger-masterthesis.png")

    # one merge back, twice: the step is in the address bar and the tree changes
    tree = page.locator(".merge-tree svg").inner_html()
    for step in (8, 7, 6):  # wait for each step to show before the next click, or a click can be lost
        one_merge_back(page).click()
        expect(page.get_by_text(f"Step {step} of 9:")).to_be_visible(timeout=60_000)
        wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]step=6"))
    assert page.locator(".merge-tree svg").inner_html() != tree
    screenshot(page, artifacts_dir / "word-debugger-masterthesis-step6.png")

    # the link reproduces the view
    link = page.url
    page.goto(link)
    wait_for_app(page)
    expect(page.get_by_text("Step 6 of 9:")).to_be_visible(timeout=SLOW)

    words = page.get_by_label("Words (separated by spaces)", exact=True)
    words.fill("bruidsjurk gids")
    words.press("Enter")
    expect(header(page)).to_have_text("“bruidsjurk”", timeout=SLOW)
    wait_for_app(page)
    expect(page).to_have_url(re.compile(r"[?&]word=bruidsjurk(\+|%20)gids"))
    assert "step=" not in page.url  # a new word starts at its final segmentation
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_scenario_link_and_tuple_merges(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/{WORD_DEBUGGER}?tokeniser=a1_scenario2b_i_first&word=bruids+bruid")
    wait_for_app(page)
    expect(page.locator(".tok-word .tok-chip")).to_have_text(["_bruids", "_bruid"], timeout=SLOW)
    expect(page.get_by_text("Trapped token").first).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "word-debugger-a1_scenario2b_i_first.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_hostile_link_falls_back_and_is_escaped(page: Page, app_url: str) -> None:
    outside = outside_requests(page)
    page.goto(f"{app_url}/{WORD_DEBUGGER}?tokeniser=no-such-tokeniser&step=x&word=%3Cb%3E%26%22%27")  # <b>&"'
    wait_for_app(page)
    expect(page.locator(".tok-word .tok-chip")).to_have_text(["Ġ<", "b", ">", "&", '"', "'"], timeout=SLOW)
    expect(page.locator(".tok-word .tok-chips b")).to_have_count(0)  # the <b> stayed text
    no_error_boxes(page)
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


FINISHED_WITH = """([selector, text]) => {
    const app = document.querySelector("[data-testid=stApp]");
    const shown = [...document.querySelectorAll(selector)].some(e => e.textContent.includes(text));
    return shown && app.dataset.testScriptState === "notRunning";
}"""


def timed(page: Page, action, selector: str, text: str) -> float:
    """Seconds from ``action()`` until ``text`` shows in ``selector`` and the rerun has finished
    (checked on every animation frame, so the polling adds no delay of its own)."""
    started = time.perf_counter()
    action()
    page.wait_for_function(FINISHED_WITH, arg=[selector, text], polling="raf", timeout=60_000)
    return time.perf_counter() - started


def test_word_debugger_update_speed(page: Page, app_url: str, artifacts_dir) -> None:
    """How long one word-debugger update takes on the Dutch 40k once the page has loaded (the target
    is under 0.5 s): time from Enter / click until the finished rerun shows the new view."""
    page.goto(f"{app_url}/{WORD_DEBUGGER}?tokeniser=nl-40k&word=gids")
    wait_for_app(page)
    expect(header(page)).to_have_text("“gids”", timeout=SLOW)
    words = page.get_by_label("Words (separated by spaces)", exact=True)
    timings: dict[str, list[float]] = {"new word": [], "one step back": []}
    for word in [
        "bruidsjurk",
        "masterthesis",
        "reanimatietechniek",
        "arbeidsongeschiktheidsverzekering",
        "kinderboeken",
        "gidsen",
        "bruidstaart",
        "voetballer",
    ]:
        words.fill(word)
        timings["new word"].append(timed(page, lambda: words.press("Enter"), "h2", f"“{word}”"))
        n_steps = int(re.search(r"of (\d+):", page.get_by_text(re.compile(r"Step \d+ of \d+:")).inner_text()).group(1))
        back = one_merge_back(page)
        timings["one step back"].append(timed(page, back.click, "p", f"Step {n_steps - 1} of {n_steps}:"))
    no_error_boxes(page)
    summary = {
        kind: {
            "median_s": round(statistics.median(values), 3),
            "max_s": round(max(values), 3),
            "runs": [round(v, 3) for v in values],
        }
        for kind, values in timings.items()
    }
    (artifacts_dir / "word-debugger-timing.json").write_text(json.dumps(summary, indent=1) + "\n")
    print("\nword debugger on nl-40k:", json.dumps(summary))
