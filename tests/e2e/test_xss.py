"""Hostile token strings in real headless Chromium: nothing a file holds ever runs.

A tokeniser whose alphabet, merges, types, specials, name and metadata are XSS payloads, a reference
whose words and segmentations are payloads and a corpus of payloads are uploaded through the
Workspace page's file uploaders (file names included); then every page of app.py's PAGES is
visited in the same session, and on the merge graph payload types are centred, in both views, with
a node's tooltip shown. No dialog may open and no frame may hold an element a payload injected.
The server is the loopback one of tests/e2e/conftest.py; nothing else is requested.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import running_in_ci

if not running_in_ci():  # under CI a missing playwright must be an error, not a skip
    pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright pytest-playwright)"
    )
from playwright.sync_api import Page, expect

from app import available_pages
from core.bpe.model import BTETokeniser, Merge
from core.pipeline.whitespace import WhitespaceSplit
from tests.e2e.browser_support import LOOPBACK, outside_requests, screenshot, wait_for_app
from tests.e2e.test_graph_page import graph_frame, wait_for_graph

pytestmark = pytest.mark.browser

#: Payloads without whitespace (a type of a whitespace-split tokeniser, a reference word); the
#: default centre of the merge graph is the last one (the result of the last merge).
TYPES = [
    "</script><script>alert(2)</script>",
    '"><svg/onload=alert(3)>',
    '"><img/src=x/onerror=alert(8)>',
    "`${alert(4)}`",
    "javascript:alert(5)",
    "[x](javascript:alert(6))",
    "'-alert(7)-'",
    "<img/src=x/onerror=alert(1)>",
]
#: Payloads with spaces: specials, metadata, file names, corpus lines.
SPACED = [
    "<img src=x onerror=alert(11)>",
    "</script><script>alert(12)</script>",
    '"><svg onload=alert(13)>',
    "${alert(14)} `alert(15)`",
    "[click](javascript:alert(16))",
]
TOKENISER_FILE = "<img src=x onerror=alert(21)>.json"
REFERENCE_FILE = '"><svg onload=alert(22)>.tsv'
CORPUS_FILE = "${alert(23)} <img src=x onerror=alert(24)>.txt"
WAIT = 60_000  # ms: a first visit runs knockout, ReBPE or a training on these small files

#: Elements and attributes a payload would have injected, in a document and its open shadow roots.
INJECTED = """() => {
  const found = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll("*")) {
      const tag = el.tagName.toLowerCase();
      for (const name of el.getAttributeNames()) {
        if (name.startsWith("on")) found.push(`${tag}[${name}]`);
        if (/^\\s*javascript:/i.test(el.getAttribute(name))) found.push(`${tag}[${name}=javascript:…]`);
      }
      if (tag === "img" && el.getAttribute("src") === "x") found.push("img[src=x]");
      if (tag === "script"
          && (/<\\/?script|<img|<svg/i.test(el.textContent) || /^\\s*alert\\(\\d+\\)\\s*$/.test(el.textContent)))
        found.push("script: " + el.textContent.slice(0, 80));
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return found;
}"""


def hostile_tokeniser() -> bytes:
    """A project JSON: merges build each payload left to right; specials and metadata are payloads."""
    alphabet = sorted(set("".join(TYPES)))
    merges: list[Merge] = []
    results: set[str] = set()
    for word in TYPES:
        built = word[0]
        for char in word[1:]:
            if built + char not in results:
                merges.append(Merge(len(merges), (built, char)))
                results.add(built + char)
            built += char
    metadata = {
        "title": SPACED[0] + " " + SPACED[4],
        "section": SPACED[2],
        "explanation": " ".join(SPACED),
        "knockout": SPACED[1],
        "words": [{"word": w, "before": [w[:3], w[3:]], "after": [w]} for w in TYPES[:3] + TYPES[-1:]],
    }
    tokeniser = BTETokeniser(
        alphabet, merges, WhitespaceSplit(), specials=SPACED[:2], name=SPACED[0], metadata=metadata
    )
    return json.dumps(tokeniser.to_json(), ensure_ascii=False).encode("utf-8")


def hostile_reference() -> bytes:
    """word<TAB>morphs<TAB>free morphs for every payload type, and a line rejected for its spaces."""
    lines = [f"{w}\t{w[:4]} {w[4:]}\t{w}" for w in TYPES] + [f"{SPACED[0]}\t{SPACED[0]}"]
    return ("\n".join(lines) + "\n").encode("utf-8")


def hostile_corpus() -> bytes:
    return ("\n".join([" ".join(TYPES), *SPACED, " ".join(TYPES[::-1])] * 3) + "\n").encode("utf-8")


def upload(page: Page, kind: str, label: str, name: str, data: bytes, mime: str) -> None:
    """Give the uploader whose label starts with ``label`` one file; wait until it is the ``kind`` chosen."""
    uploader = page.get_by_test_id("stFileUploader").filter(has_text=label)
    uploader.locator("input[type=file]").set_input_files({"name": name, "mimeType": mime, "buffer": data})
    # (the browser sends a double quote in a file name as %22)
    expect(page.get_by_role("combobox", name=kind, exact=True)).to_have_value(
        "upload: " + name.replace('"', "%22"), timeout=WAIT
    )
    wait_for_app(page, WAIT)


def settled(page: Page) -> None:
    wait_for_app(page, WAIT)
    page.wait_for_timeout(400)  # iframes (the merge graph, plotly) finish drawing


def injected(page: Page) -> list[str]:
    """What payloads injected, in every frame of the page (looked at again if a frame was replaced
    while we looked, as the merge graph's iframe is when the graph changes)."""
    for _ in range(10):
        try:
            return [f"{frame.url[:60]}: {hit}" for frame in page.frames for hit in frame.evaluate(INJECTED)]
        except Exception as err:
            if "detached" not in str(err) and "destroyed" not in str(err):
                raise
            page.wait_for_timeout(300)
    raise AssertionError("the page's frames never stood still long enough to be checked")


def centre_graph_on(page: Page, label: str):
    """Type ``label`` into the merge graph's type box and wait for the graph centred on it."""
    box = page.get_by_role("textbox", name="Type at the centre")
    box.fill(label)
    box.press("Enter")
    frame = wait_for_graph(
        page, f"nodes.some(n => n.role === 'center' && n.focus === {json.dumps(label)})", timeout=WAIT / 1000
    )
    settled(page)
    return frame


def hover_centre(page: Page, frame) -> str:
    """Hover the centre node; returns the text of the tooltip vis-network shows."""
    point = frame.evaluate("""() => {
        const id = network.body.data.nodes.get().filter(n => n.role === 'center')[0].id;
        const p = network.canvasToDOM(network.getPositions([id])[id]);
        const r = document.querySelector("#graph canvas").getBoundingClientRect();
        return {x: r.left + p.x, y: r.top + p.y};
    }""")
    page.locator("iframe.merge-graph").scroll_into_view_if_needed()
    box = page.locator("iframe.merge-graph").bounding_box()
    page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    tooltip = frame.locator("div.vis-tooltip")
    expect(tooltip).to_be_visible(timeout=10_000)
    return tooltip.inner_text()


def test_hostile_strings_never_run(page: Page, app_url: str, artifacts_dir) -> None:
    outside = outside_requests(page)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(f"{dialog.type}: {dialog.message}"), dialog.dismiss()))
    checked: list[str] = []

    def check(where: str) -> None:
        settled(page)
        assert dialogs == [], f"{where}: a payload ran"
        assert injected(page) == [], f"{where}: a payload injected elements"
        expect(page.get_by_test_id("stException")).to_have_count(0)
        checked.append(where)

    page.goto(app_url)
    wait_for_app(page)
    upload(page, "Tokeniser", "tokenizer.json, project JSON", TOKENISER_FILE, hostile_tokeniser(), "application/json")
    upload(page, "Reference", "Upload references", REFERENCE_FILE, hostile_reference(), "text/tab-separated-values")
    upload(page, "Corpus", "Upload a corpus", CORPUS_FILE, hostile_corpus(), "text/plain")
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)  # all three uploads were accepted
    expect(page.get_by_text(SPACED[2]).first).to_be_visible()  # the scenario note shows the payload as text
    check("workspace")
    screenshot(page, artifacts_dir / "xss-workspace.png")

    for file, title, _ in available_pages()[1:]:
        page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
        page.wait_for_timeout(300)
        check(title)
        if file == "pages/merge_graph.py":
            frame = graph_frame(page)
            # the centre: the longest token of the word the Word debugger showed (a payload itself)
            centre = frame.evaluate("network.body.data.nodes.get().filter(n => n.role === 'center')[0].focus")
            assert any(centre in payload for payload in TYPES)
            assert centre in hover_centre(page, frame)  # the tooltip shows the payload as text
            check(f"{title}: {centre}")
            for label in TYPES[:3]:
                centre_graph_on(page, label)
                check(f"{title}: {label}")
            page.get_by_role("radio", name="types and merges").click()
            frame = wait_for_graph(page, "nodes.some(n => n.role === 'merge')", timeout=WAIT / 1000)
            settled(page)
            assert TYPES[2] in hover_centre(page, frame)
            check(f"{title}: types and merges")
            screenshot(page, artifacts_dir / "xss-merge-graph.png")

    assert len(checked) == len(available_pages()) + 5 and dialogs == []
    assert outside == [], f"requests left {LOOPBACK}: {outside}"
