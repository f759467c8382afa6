"""The Compare tokenisers page through AppTest: a light first view, two shipped tokenisers compared
as core.analysis.compare compares them, a scenario against itself after knockout, the word in focus with both
segmentations and trees, the view in the URL, and hostile links.

The comparison itself is tested in test_compare; here we check the wiring."""

from __future__ import annotations

import re

import pytest

from core.analysis.compare import compare_tokenisers
from core.bpe.model import Merge
from core.formats.corpora import load_word_counts
from core.formats.samples import DUTCH_40K, SAMPLE_DIR, count_paths, reference_paths
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references
from tests.apptest_support import assert_clean, fact_cards, word_chips
from tests.apptest_support import run_page as run_at
from viz.trees import svg_from_html

PAGE = "pages/compare.py"
TIMEOUT = 240
SMALL = "nl-bpe-4k-wordfreq"
pytestmark = pytest.mark.usefixtures("module_streamlit_caches")


def run_page(**query):
    return run_at(PAGE, timeout=TIMEOUT, via_app=True, **query)


def trees(at) -> list[str]:
    return [svg for svg in (svg_from_html(e.proto.body) for e in at.get("html")) if svg]


def highlighted(svg: str) -> list[str]:
    return re.findall(r'<g class="[^"]*\bhighlight\b[^"]*" data-token="([^"]*)"', svg)


@pytest.fixture(scope="module")
def reference_words():
    return [e.word for e in load_references(reference_paths()["nl_morph"]).entries]


def test_first_view_is_the_choosers_alone():
    at = run_page()
    assert_clean(at)
    assert at.title[0].value == "Compare tokenisers"
    assert at.selectbox(key="compare_a").value is None and at.selectbox(key="compare_b").value is None
    assert at.selectbox(key="compare_source").value == "reference"
    assert not at.dataframe and not fact_cards(at)
    assert "Choose tokenisers A and B" in at.info[0].value
    options = at.selectbox(key="compare_a").options
    assert "nl-40k after knockout" in options and "a1_scenario1 after ReBPE" in options
    assert not any(ord(ch) > 0x2FFF for label in options for ch in label)  # labels without emoji


def test_two_shipped_tokenisers_over_the_reference_words(reference_words):
    at = run_page(a=SMALL, b="nl-40k")
    assert_clean(at)
    expected = compare_tokenisers(
        load_tokeniser(SAMPLE_DIR / "tokenisers" / f"{SMALL}.json"), load_tokeniser(DUTCH_40K), reference_words
    )
    facts = fact_cards(at)
    assert facts["words compared"] == f"{expected.words:,}"
    assert facts["segmented differently"] == f"{expected.differing:,} ({expected.share:.1%})"
    assert facts["|V| of B"] == "40,000"
    assert "of all occurrences" not in facts  # a word list is not weighted
    table = at.dataframe[0].value
    assert list(table["word"]) == [d.word for d in expected.differences]
    assert list(table["change"]) == [d.change for d in expected.differences]
    assert list(table["Δ tokens"]) == [d.token_difference for d in expected.differences]
    assert "count" not in table.columns
    # the most changed word is in focus, with both segmentations and both trees
    first = expected.differences[0]
    assert at.selectbox(key="compare_word").value == first.word
    assert word_chips(at) == [list(first.tokens_a), list(first.tokens_b)]
    assert len(trees(at)) == 2
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("SVG") == 2 and labels.count("LaTeX (forest)") == 2  # one pair per tree
    assert at.query_params["a"] == SMALL and at.query_params["b"] == "nl-40k"
    assert at.query_params["word"] == first.word


def test_a_word_from_the_link_even_one_both_segment_alike():
    a, b = load_tokeniser(SAMPLE_DIR / "tokenisers" / f"{SMALL}.json"), load_tokeniser(DUTCH_40K)
    for word in ("bruidsjurk", "de"):  # "de" is no reference word, and both keep it whole
        at = run_page(a=SMALL, b="nl-40k", word=word)
        assert_clean(at)
        assert at.selectbox(key="compare_word").value == word
        assert word_chips(at) == [a.tokenise_word(word), b.tokenise_word(word)]
        assert at.query_params["word"] == word
    assert any("same positions" in m.value for m in at.markdown)


def trees_in_columns(at) -> int:
    return sum(1 for column in at.columns for e in column.get("html") if svg_from_html(e.proto.body))


def test_wide_trees_go_one_above_the_other_instead_of_being_cut():
    """Short words: the two trees side by side; a tree too wide for half the page: both full width."""
    at = run_page(a=SMALL, b="nl-40k", word="bruidsjurk")
    assert len(trees(at)) == 2 and trees_in_columns(at) == 2
    at = run_page(a=SMALL, b="nl-40k", word="verzekeringsmaatschappij")
    assert_clean(at)
    widths = [int(re.search(r' width="(\d+)"', svg).group(1)) for svg in trees(at)]
    assert len(widths) == 2 and max(widths) > 540  # wider than half the page at 1280 px takes at 70 %
    assert trees_in_columns(at) == 0
    labels = [m.value for m in at.markdown if m.value.startswith(("**A** ·", "**B** ·"))]
    assert len(labels) == 4  # each side names its tokeniser above its tokens and above its tree


def test_a_scenario_against_itself_after_knockout():
    """[rebpe App. A.1] scenario 1: knockout (on the scenario's own words) splits _bruid|s in
    every reference word that starts with bruids."""
    at = run_page(tokeniser="a1_scenario1", a="a1_scenario1", b="a1_scenario1 after knockout")
    assert_clean(at)
    table = at.dataframe[0].value
    assert len(table) > 0 and all(table["word"].str.startswith("bruids"))
    assert set(table["only B splits"].str.slice(0, 6)) == {"bruid|"}
    assert (table["only A splits"] == "").all() and (table["change"] == 1).all()
    at.selectbox(key="compare_word").set_value("bruids").run()
    assert_clean(at)
    assert word_chips(at) == [["_bruids"], ["_bruid", "s"]]  # the paper's before and after
    left, right = trees(at)  # a blue border on the tokens the other tokeniser does not make
    assert highlighted(left) == ["_bruids"] and sorted(highlighted(right)) == ["_bruid", "s"]


@pytest.mark.slow
def test_word_counts_weight_the_summary():
    counts = load_word_counts(count_paths()["nl_wordfreq"])
    at = run_page(tokeniser="a1_scenario1", a="a1_scenario1", b="a1_scenario1 after knockout", source="nl_wordfreq")
    assert_clean(at)
    scenario = load_tokeniser(SAMPLE_DIR / "scenarios" / "a1_scenario1.json")
    after = scenario.with_merges([Merge(r, tuple(p)) for r, p in scenario.metadata["after_knockout_merges"]])
    expected = compare_tokenisers(scenario, after, counts)
    facts = fact_cards(at)
    assert facts["of all occurrences"] == f"{expected.weighted_share:.1%}"
    table = at.dataframe[0].value
    assert list(table["word"][:20]) == [d.word for d in expected.differences[:20]]
    assert list(table["count"][:20]) == [d.count for d in expected.differences[:20]]
    assert at.query_params["source"] == "nl_wordfreq"


def test_a_tokeniser_against_itself_differs_nowhere():
    at = run_page(a="nl-40k", b="nl-40k")
    assert_clean(at)
    assert "alike" in at.success[0].value
    assert not at.dataframe


@pytest.mark.parametrize(
    "query",
    [
        {"a": "../../etc/passwd", "b": "nl-40k"},
        {"a": "nl-40k", "b": "<b>x</b>"},
        {"a": "nl-40k", "b": SMALL, "source": "nope"},
        {"a": "nl-40k", "b": SMALL, "word": "two words"},
    ],
)
def test_hostile_links_are_left_out_with_a_warning(query):
    at = run_page(**query)
    assert_clean(at)
    assert len(at.warning) == 1 and "left out" in at.warning[0].value
    assert "<b>" not in at.warning[0].value.replace("`<b>x</b>`", "")  # only inside a code span (shown as text)
    assert at.selectbox(key="compare_source").value == "reference"


def test_a_link_naming_an_upload_in_the_servers_store():
    """A link carries an uploaded tokeniser as upload:<id> (ui.upload_store); opening it compares that
    file, and the address bar keeps naming it so."""
    from ui.upload_store import Upload, put

    data = (SAMPLE_DIR / "tokenisers" / f"{SMALL}.json").read_bytes()
    upload_id = put(Upload("tokeniser", (("mine.json", data),)))
    at = run_page(a=f"upload:{upload_id} after knockout", b=SMALL)
    assert_clean(at)
    assert at.selectbox(key="compare_a").value == "upload: mine.json after knockout"
    assert at.query_params["a"] == f"upload:{upload_id} after knockout"
    assert at.dataframe  # the upload after knockout segments reference words differently from the sample
    assert not at.warning
