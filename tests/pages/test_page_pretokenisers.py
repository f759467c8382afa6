"""The Pre-tokenisers page through AppTest: every pre-tokeniser's pretokens of the text, the papers'
examples one click each, the text in the URL."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from core.analysis.pretokeniser_gallery import EXAMPLES, compared_pretokenisers, pretokenise_all
from tests.apptest_support import assert_clean, run_page

PAGE = "pages/pretokenisers.py"
TIMEOUT = 30


def rows(at: AppTest) -> dict[str, list[str]]:
    """Pre-tokeniser name -> the (displayed, whitespace-visible) chip texts of its row."""
    body = next(h.value for h in at.html if 'class="pretok-row"' in h.value)
    out = {}
    for name, chunk in re.findall(
        r'<div class="pretok-row" data-name="([^"]+)"(.*?)(?=<div class="pretok-row"|$)', body, re.S
    ):
        out[name] = [
            re.sub(r"<[^>]+>", "", chip)
            for chip in re.findall(
                r'<span class="tok-chip"[^>]*>(.*?)</span>(?=<span class="tok-chip"|</div>|$)', chunk, re.S
            )
        ]
    return out


def test_default_is_the_code_names_example_under_every_pretokeniser():
    at = run_page(PAGE, timeout=TIMEOUT)
    assert_clean(at)
    shown = rows(at)
    assert list(shown) == list(compared_pretokenisers())
    assert shown["BOUNDLESS_PATTERN"] == ["XML", "Http", "Request", "␣snake", "_case", "␣camel", "Case", "␣CONSTANT"]
    assert shown["GPT-2"] == ["XMLHttpRequest", "␣snake", "_", "case", "␣camelCase", "␣CONSTANT"]
    assert shown["GPT-4"] == ["XMLHttpRequest", "␣snake", "_case", "␣camelCase", "␣CONSTANT"]


def test_whitespace_example_button_shows_the_paper_outputs():
    at = run_page(PAGE, timeout=TIMEOUT)
    at.button(key="example_Runs of whitespace").click().run()
    assert_clean(at)
    assert at.text_area(key="text").value == EXAMPLES["Runs of whitespace"][0]
    shown = rows(at)
    # [boundless App. A.4]: GPT-4 backtracks one space, BOUNDLESS_PATTERN keeps runs together
    assert shown["GPT-4"] == ["Hello", "␣␣␣", "␣world", "␣↵↵␣↵", "␣"]
    assert shown["BOUNDLESS_PATTERN"] == ["Hello", "␣␣␣␣", "world", "␣↵↵", "␣↵", "␣"]


def test_text_comes_from_the_url_and_is_escaped():
    text = "<b>x</b> 1234567"
    at = run_page(PAGE, timeout=TIMEOUT, text=text)
    assert_clean(at)
    shown = rows(at)
    assert shown["BOUNDLESS_PATTERN"][-3:] == ["␣1", "234", "567"]  # App. A.5: groups of three from the right
    assert "<b>x" not in next(h.value for h in at.html if 'class="pretok-row"' in h.value)
    assert len(shown["ReBPE pipeline"]) == len(pretokenise_all(text)["ReBPE pipeline"])


def test_empty_text_says_what_to_do():
    at = run_page(PAGE, timeout=TIMEOUT)
    at.text_area(key="text").input("").run()
    assert_clean(at)
    assert any("Type some text" in i.value for i in at.info)
