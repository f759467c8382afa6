"""Every page survives a link whose every parameter is hostile (issue 32, point 6): huge, odd-Unicode,
markup and out-of-range values for all the URL parameters the pages read. Each page renders without an
exception or a traceback and within its time-out; the tokeniser chosen stays a real choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import PAGES as APP_PAGES
from tests.apptest_support import run_page

PAGES = [Path(file).stem for file, *_ in APP_PAGES]  # every page of the navigation
#: every URL parameter a page reads (query_params, seed_from_url, write_to_url, bind="query-params")
PARAMS = (
    "algorithm", "algorithms", "alpha", "anneal", "blame", "cause", "compare", "corpus", "corpus_counts", "depth",
    "draw", "expand", "fix", "focus", "follow", "ids", "input", "interval", "iterations", "knockout_unit",
    "lines", "link", "merge", "model", "nodes", "others", "present", "reference", "reference_for_unigram",
    "reify", "reparation", "side", "siblings", "size", "source", "step", "text", "threshold", "token_words",
    "tokeniser", "type", "variant", "variants", "view", "word",
)  # fmt: skip
HOSTILE = {
    "long odd text": "<script>alert(1)</script>\u202e\u0000\ufeff" + "bruids\u200djurk " * 4_000,
    "numbers out of range": "-1e309",
}


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_page_survives_a_link_with_every_parameter_hostile(name, value):
    at = run_page(f"pages/{name}.py", timeout=120, via_app=True, **dict.fromkeys(PARAMS, value))
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(e.value for e in at.error)
    assert "Traceback" not in shown and "Something went wrong" not in shown, shown[:500]
    if "ws_tokeniser" in at.session_state:  # pages with a tokeniser chooser
        assert at.session_state["ws_tokeniser"] != value
