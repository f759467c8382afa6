"""The Merge graph page in real headless Chromium: the canvas draws, offline, and a click recentres.

Uses the fixtures of tests/e2e/conftest.py (a Streamlit server on a free loopback port, Debian's
chromium). Timings are printed (``pytest -s``), never asserted.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Frame, Page, expect

from tests.e2e.browser_support import LOOPBACK, no_error_boxes, outside_requests, screenshot, wait_for_app

pytestmark = pytest.mark.browser

GRAPH_PATH = "merge_graph"  # app.py: the url_path of pages/merge_graph.py is its file stem
DRAWN = "#graph[data-drawn='1'] canvas"


def graph_frame(page: Page) -> Frame:
    """The iframe the page's component draws the graph in, once vis-network has drawn it."""
    page.frame_locator("iframe.merge-graph").locator(DRAWN).wait_for(state="visible", timeout=60_000)
    frame = page.locator("iframe.merge-graph").element_handle().content_frame()
    assert frame is not None
    return frame


def node_labels(frame: Frame) -> list[str]:
    return frame.evaluate("network.body.data.nodes.get().map(n => n.label)")


def centre_of(frame: Frame) -> str:
    return frame.evaluate("network.body.data.nodes.get().filter(n => n.role === 'center')[0].focus")


def wait_for_graph(page: Page, condition: str, timeout: float = 30.0) -> Frame:
    """The graph's frame once ``condition`` (JS over ``nodes``, the vis DataSet's items) holds.

    The iframe sits in the component's shadow root, so this polls through Playwright's locators
    (which pierce it) rather than ``document.querySelector``; the iframe is reloaded when the graph
    changes, so the frame is looked up afresh each time.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            frame = graph_frame(page)
            if frame.evaluate(f"(() => {{ const nodes = network.body.data.nodes.get(); return {condition}; }})()"):
                return frame
        except Exception:  # the frame was replaced while we looked at it
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"graph never satisfied: {condition}")
        page.wait_for_timeout(100)


def click_node(page: Page, frame: Frame, type_: str) -> None:
    """Click the node of ``type_`` where vis-network drew it."""
    page.locator("iframe.merge-graph").scroll_into_view_if_needed()
    point = frame.evaluate(
        """(id) => {
        const p = network.canvasToDOM(network.getPositions([id])[id]);
        const r = document.querySelector("#graph canvas").getBoundingClientRect();
        return {x: r.left + p.x, y: r.top + p.y};
    }""",
        f"t:{type_}",
    )
    box = page.locator("iframe.merge-graph").bounding_box()
    page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])


def test_graph_page_draws_offline_and_recentres_on_click(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    started = time.perf_counter()
    page.goto(f"{app_url}/{GRAPH_PATH}?tokeniser=nl-40k&type={quote('Ġbruids')}")
    wait_for_app(page)
    frame = graph_frame(page)
    print(f"\nfirst load (server cold, Dutch 40k): {time.perf_counter() - started:.2f} s")

    assert centre_of(frame) == "Ġbruids"
    assert {"Ġbruids", "Ġbru", "ids", "id", "s", "Ġgids"} <= set(node_labels(frame))
    expect(page.get_by_text("Merges forming and using the centre")).to_be_visible()
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "graph-nl-40k-bruids.png")

    # Clicking the half-sibling Ġgids moves the centre there, and the address bar follows.
    started = time.perf_counter()
    click_node(page, frame, "Ġgids")
    expect(page).to_have_url(re.compile(r"[?&]type=(%C4%A0|Ġ)gids(&|$)"), timeout=30_000)
    frame = wait_for_graph(page, "nodes.some(n => n.role === 'center' && n.focus === 'Ġgids')")
    print(f"click -> recentred graph drawn: {time.perf_counter() - started:.2f} s")
    wait_for_app(page)
    assert centre_of(frame) == "Ġgids"
    expect(page.get_by_role("textbox", name="Type at the centre")).to_have_value("Ġgids")

    # The other view, through its control: merge nodes labelled with rank and parts.
    started = time.perf_counter()
    page.get_by_role("radio", name="types and merges").click()
    frame = wait_for_graph(page, "nodes.some(n => n.role === 'merge')")
    print(f"view switch -> graph drawn: {time.perf_counter() - started:.2f} s")
    wait_for_app(page)
    assert "#6460\nĠg + ids" in node_labels(frame)
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "graph-nl-40k-gids-merges.png")
    assert outside == [], f"requests left {LOOPBACK}: {outside}"


def test_scenario_after_knockout_shows_the_tuple_merge(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    page.goto(
        f"{app_url}/{GRAPH_PATH}?tokeniser=a1_scenario2a&view=types+and+merges"
        f"&compare={quote(chr(39).join(['the paper', 's knockout']))}&draw=after"
    )
    wait_for_app(page)
    frame = graph_frame(page)
    assert centre_of(frame) == "_bruids"
    assert "new: #5 tuple\n_bru + id + s" in node_labels(frame)
    no_error_boxes(page)
    screenshot(page, artifacts_dir / "graph-a1_scenario2a-after-knockout.png")

    # The download is one self-contained file: vis-network inside, nothing fetched from anywhere.
    with page.expect_download(timeout=30_000) as download:
        page.get_by_role("button", name="Download this graph (HTML, works offline)").click()
    document = Path(download.value.path()).read_text(encoding="utf-8")
    assert "@version 9.1.2" in document and "_bru + id + s" in document
    assert re.findall(r'(?:src|href)="', document) == []

    # ... and the shown neighbourhood as an SVG figure, for papers and slides
    with page.expect_download(timeout=30_000) as download:
        page.get_by_role("button", name="SVG").click()
    assert download.value.suggested_filename == "merge-graph-_bruids-types-and-merges.svg"
    figure = Path(download.value.path()).read_text(encoding="utf-8")
    assert figure.startswith("<svg") and "_bru + id + s" in figure and "new: #5 tuple" in figure
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
