"""Running text side by side (pages/running_text.py): several tokenisers on one text, ids, counts and
the tokens cut unlike the first tokeniser's."""

from __future__ import annotations

import html
import re

from core.formats.samples import tokeniser_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import assert_clean, fact_cards
from tests.apptest_support import run_page as run_at

PAGE = "pages/running_text.py"


def run_page(**query):
    return run_at(PAGE, timeout=120, via_app=True, **query)


def views(at) -> list[list[tuple[str, str, bool]]]:
    """Per tokeniser, its chips as (token, id, ringed)."""
    out = []
    for element in at.get("html"):
        body = element.proto.body
        if body.startswith('<div class="rt-view">'):
            out.append(
                [
                    (token, number, "rt-differs" in classes)
                    for classes, token, number in re.findall(
                        r'<span class="([^"]*)" tabindex="0" data-token="([^"]*)" data-id="([^"]*)"', body
                    )
                ]
            )
    return out


def test_two_tokenisers_on_the_default_text_with_ids_and_differences():
    at = run_page()
    assert_clean(at)
    first, second = views(at)
    names = at.multiselect(key="running_text_tokenisers").value
    assert names == ["nl-40k", "en-bpe-4k-wordfreq"]
    paths = {"nl-40k": next(p for n, p in tokeniser_paths().items() if n.startswith("nl-40k"))}
    ids = load_tokeniser(paths["nl-40k"]).token_ids()
    assert all(ids[html.unescape(token)] == int(number) for token, number, _ in first)
    assert not any(ringed for *_, ringed in first)  # the first is what the others are compared with
    ringed = sum(r for *_, r in second)
    assert 0 < ringed < len(second)
    assert at.query_params["side"] == names


def test_the_same_tokeniser_twice_differs_nowhere_and_the_link_reopens_the_view():
    at = run_page(side=["en-bpe-4k-wordfreq", "en-bpe-4k-wordfreq"], text="unbelievable tokenisers")
    assert_clean(at)
    assert at.multiselect(key="running_text_tokenisers").value == ["en-bpe-4k-wordfreq"]  # once
    at.multiselect(key="running_text_tokenisers").set_value(["en-bpe-4k-wordfreq", "nl-bpe-4k-wordfreq"]).run()
    first, second = views(at)
    assert fact_cards(at)["tokens cut unlike the first"] == str(sum(r for *_, r in second))
    reopened = run_page(side=at.query_params["side"], text=at.query_params["text"])
    assert views(reopened) == [first, second]
