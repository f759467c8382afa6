"""The graph, the word debugger and ``graph`` with several merges per type.

Primary merges (the merge forming a type from its own string) and alternatives, ``follow="primary"|"all"``,
how often each merge fires (core.analysis.merge_usage), on a small hand-made tokeniser whose merges share
ranks (as tiktoken conversions do), on Llama 3's real tokenizer.json, and the reduction to the
paper's graph on a one-merge-per-type tokeniser (the Dutch 40k).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from core.analysis.explain import token_merges, trace_word
from core.analysis.merge_usage import FireCounter, pretoken_counts
from core.bpe.graph import ALL, ANCESTOR, DESCENDANT, HALF_SIBLING, PRIMARY, neighbourhood
from core.bpe.model import BTETokeniser, Merge
from core.formats.samples import DUTCH_40K
from core.pipeline import WhitespaceSplit
from tests.real_tokenisers import real_file
from viz.graph_elements import graph_elements
from viz.graph_style import MERGES_VIEW, TYPES_VIEW
from viz.graph_tables import mio_rows, type_merge_rows

ROOT = Path(__file__).resolve().parents[2]


def hand_made(ignore_merges: bool = False) -> BTETokeniser:
    """``a`` runs as in tiktoken conversions: every split of a type whose parts are types, one rank
    per type. ``aaa``'s own string is formed by ``aa + a`` (rank 1, listed second), ``aaaa`` by
    ``aa + aa``; ``b + aaa`` builds on ``aaa``."""
    merges = [
        Merge(0, ("a", "a")),
        Merge(1, ("a", "aa")),
        Merge(1, ("aa", "a")),
        Merge(2, ("a", "aaa")),
        Merge(2, ("aa", "aa")),
        Merge(2, ("aaa", "a")),
        Merge(3, ("b", "aaa")),
    ]
    return BTETokeniser(["a", "b"], merges, WhitespaceSplit(), ignore_merges=ignore_merges)


M = {
    name: Merge(rank, tuple(parts.split("+")))
    for name, rank, parts in (
        ("a+a", 0, "a+a"),
        ("a+aa", 1, "a+aa"),
        ("aa+a", 1, "aa+a"),
        ("a+aaa", 2, "a+aaa"),
        ("aa+aa", 2, "aa+aa"),
        ("aaa+a", 2, "aaa+a"),
        ("b+aaa", 3, "b+aaa"),
    )
}


# --- the model and the neighbourhood -----------------------------------------------------------------------
def test_hand_made_primary_merges_and_alternatives():
    tok = hand_made()
    assert tok.merge_of("aaa") == M["a+aa"]  # the lowest-ranked merge is not the one that forms it
    assert tok.primary_merge("aaa") == M["aa+a"] and tok.alternatives("aaa") == (M["a+aa"],)
    assert tok.primary_merge("aaaa") == M["aa+aa"]


def test_neighbourhood_follows_primary_merges_by_default():
    tok = hand_made()
    hood = neighbourhood(tok, "aaa")
    assert hood.follow == PRIMARY
    # aaaa's primary merge is aa + aa: not built on aaa, but a half-sibling through the parent aa
    assert hood.roles == {"aaa": "center", "aa": ANCESTOR, "a": ANCESTOR, "baaa": DESCENDANT, "aaaa": HALF_SIBLING}
    # every merge of the centre is drawn; the alternative is marked
    assert {M["aa+a"], M["a+aa"]} <= set(hood.merges)
    assert hood.alternatives == {M["a+aa"]}
    assert hood.merges_of("aaa") == [(M["aa+a"], True), (M["a+aa"], False)]
    everything = neighbourhood(tok, "aaa", follow=ALL)
    assert everything.roles["aaaa"] == DESCENDANT
    assert {M["a+aaa"], M["aaa+a"]} <= set(everything.merges)
    with pytest.raises(ValueError):
        neighbourhood(tok, "aaa", follow="some")


def test_half_siblings_follow_primary_merges():
    tok = hand_made()
    hood = neighbourhood(tok, "aaaa", depth=1)
    assert set(hood.roles) == {"aaaa", "aa", "aaa"} and hood.roles["aaa"] == HALF_SIBLING
    assert hood.alternatives == {M["a+aaa"], M["aaa+a"]}  # drawn: every merge of the centre
    assert neighbourhood(tok, "aaaa", depth=1, follow=ALL).roles["a"] == ANCESTOR


def test_json_lists_each_types_merges_with_a_primary_flag_and_counts():
    tok = hand_made()
    counter = FireCounter.from_words(tok, ["aaa", "aaaa", "aaa", "baaa"], "reference")
    hood = neighbourhood(tok, "aaa")
    out = hood.to_json({"reference": counter.counts(hood.shown_merges())})
    assert set(out) == {"center", "depth", "truncated", "found", "types", "merges"}
    (center,) = [t for t in out["types"] if t["type"] == "aaa"]
    assert center["alternatives"] == 1
    assert [(m["parts"], m["primary"], m["fires"]["reference"]) for m in center["merges"]] == [
        (["aa", "a"], True, 3),
        (["a", "aa"], False, 0),
    ]
    drawn = {tuple(m["parts"]): m["primary"] for m in out["merges"]}
    assert drawn[("a", "aa")] is False and drawn[("aa", "a")] is True


# --- fire counts ------------------------------------------------------------------------------------------
def test_fire_counts_by_hand():
    tok = hand_made()
    counter = FireCounter.from_words(tok, ["aaa", "aaaa", "aaa", "baaa"])
    # aaa: a+a, aa+a; aaaa: a+a twice, aa+aa; baaa: a+a, aa+a, b+aaa
    assert counter.counts(M.values()) == {
        M["a+a"]: 5,
        M["a+aa"]: 0,
        M["aa+a"]: 3,
        M["a+aaa"]: 0,
        M["aa+aa"]: 1,
        M["aaa+a"]: 0,
        M["b+aaa"]: 1,
    }
    assert counter.count(M["aa+a"]) == 3 and counter.occurrences == 4


def test_ignore_merges_whole_pretokens_fire_nothing():
    tok = hand_made(ignore_merges=True)
    counter = FireCounter.from_words(tok, ["aaa", "aaaa", "aaa", "aaaaa"])
    assert counter.count(M["aa+a"]) == 1  # only inside aaaaa (aa aaa), not in the whole aaa
    assert counter.whole("aaa") == 2 and counter.whole("aaaaa") == 0


def test_lazy_counts_equal_counting_every_trace(dutch40k):
    lines = ["De bruidsjurk van de gids is gisteren gekocht.", "Kinderboeken en bruidstaarten; de gidsen lachen."]
    counter = FireCounter.from_lines(dutch40k, lines)
    expected: Counter = Counter()
    for pretoken, n in pretoken_counts(dutch40k, lines).items():
        for merge in dutch40k.trace_pretoken(pretoken).merges_applied:
            expected[merge] += n
    asked = [m for t in ("Ġbruids", "ids", "id", "Ġgids", "Ġde", "en") for m in dutch40k.produced_by.get(t, ())]
    asked += list(expected)[:40]
    assert counter.counts(asked) == {m: expected.get(m, 0) for m in asked}
    assert counter.count(Merge(10**9, ("x", "y"))) == 0


# --- one merge per type: the paper's figures stay as they are -------------------------------------------
@pytest.mark.parametrize(
    "center, depth, nodes, siblings",
    [
        ("Ġbruids", 2, 1000, None),
        ("Ġbruids", 2, 7, 6),
        ("Ġbruids", 2, 100, 2),
        ("ids", 3, 10, None),
        ("ids", 1, 500, None),
        ("Ġgids", 2, 40, 4),
        ("e", 2, 40, 4),
    ],
)
def test_dutch_40k_neighbourhood_is_the_same_with_both_options(dutch40k, center, depth, nodes, siblings):
    primary = neighbourhood(dutch40k, center, depth, nodes, siblings, follow=PRIMARY)
    everything = neighbourhood(dutch40k, center, depth, nodes, siblings, follow=ALL)
    assert primary.roles == everything.roles and primary.distances == everything.distances
    assert primary.merges == everything.merges and primary.found == everything.found
    assert primary.truncated == everything.truncated and not primary.alternatives and not everything.alternatives
    assert primary.to_json() == everything.to_json()
    for view in (TYPES_VIEW, MERGES_VIEW):
        assert graph_elements(dutch40k, primary, view) == graph_elements(dutch40k, everything, view)
    nodes_, _ = graph_elements(dutch40k, primary, MERGES_VIEW)
    assert not any(n.get("alternative") for n in nodes_) and not any(" alt" in n["label"] for n in nodes_)
    assert all(m["primary"] for m in primary.to_json()["merges"])


def test_dutch_40k_neighbourhood_of_bruids_keeps_the_papers_figure(dutch40k):
    hood = neighbourhood(dutch40k, "Ġbruids", depth=2, max_nodes=1000, follow=PRIMARY)
    assert hood.found == len(hood.roles) == 35
    assert {str(m) for m in hood.merges} >= {"id s", "Ġbru ids", "g ids"}
    assert "forms the result from its own string" not in mio_rows(dutch40k, "Ġbruids")[0]
    assert type_merge_rows(dutch40k, "Ġbruids") == [{"merge": "Ġbru + ids", "rank": "#15545", "kind": "its only merge"}]


# --- the graph drawing marks alternatives ------------------------------------------------------------------
def test_graph_elements_mark_alternatives_and_carry_counts():
    tok = hand_made()
    hood = neighbourhood(tok, "aaa")
    counts = {"reference": FireCounter.from_words(tok, ["aaa", "baaa"]).counts(hood.shown_merges())}
    nodes, edges = graph_elements(tok, hood, MERGES_VIEW, fire_counts=counts)
    by_id = {n["id"]: n for n in nodes}
    alternative = [n for n in nodes if n.get("alternative")]
    assert [n["label"] for n in alternative] == ["#1 alt\na + aa"]
    assert "fires 2× on the reference" in by_id["t:aaa"]["title"] and "1 alternative" in by_id["t:aaa"]["title"]
    assert "an alternative" in alternative[0]["title"]
    nodes, edges = graph_elements(tok, hood, TYPES_VIEW, fire_counts=counts)
    assert not any(e.get("alternative") for e in edges)  # a and aa are parts of both merges of aaa
    nodes, edges = graph_elements(tok, neighbourhood(tok, "aaaa"), TYPES_VIEW)
    dashed = {(e["from"], e["to"]) for e in edges if e.get("alternative")}
    assert dashed == {("t:a", "t:aaaa"), ("t:aaa", "t:aaaa")}  # aa + aa is the primary merge
    rows = type_merge_rows(tok, "aaa", fire_counts=counts)
    assert [(r["merge"], r["kind"], r["fires on the reference"]) for r in rows] == [
        ("aa + a", "primary (forms it from its own string)", 2),
        ("a + aa", "alternative", 0),
    ]
    assert {r["forms the result from its own string"] for r in mio_rows(tok, "aaa")} == {
        "yes (primary)",
        "no (alternative)",
    }


def test_token_merges_of_a_word():
    tok = hand_made()
    (item,) = token_merges(tok, trace_word(tok, "aaa"))
    assert item.token == "aaa" and item.fired == M["aa+a"] == item.primary and not item.fired_alternative
    assert item.merges == (M["aa+a"], M["a+aa"]) and item.alternatives == (M["a+aa"],)
    whole = token_merges(hand_made(ignore_merges=True), trace_word(hand_made(ignore_merges=True), "aaa"))
    assert whole[0].whole and whole[0].fired is None and whole[0].primary == M["aa+a"]
    assert item.to_json()["merges"][0] == {"merge": "aa a", "rank": 1, "primary": True}


# --- Llama 3 as it ships -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def llama3():
    from core.formats.tokeniser_files import load_tokeniser

    return load_tokeniser(str(real_file("llama3", "tokenizer.json")))


@pytest.mark.real
@pytest.mark.slow
def test_llama3_understanding_and_four_spaces(llama3):
    hood = neighbourhood(llama3, "Ġunderstanding", depth=1)
    listed = hood.merges_of("Ġunderstanding")
    assert listed[0] == (Merge(23368, ("Ġunderstand", "ing")), True)
    assert (Merge(23367, ("Ġunder", "standing")), False) in listed
    assert hood.roles["Ġunderstand"] == ANCESTOR and "Ġunder" not in hood.roles
    assert Merge(23367, ("Ġunder", "standing")) in hood.alternatives
    assert neighbourhood(llama3, "Ġunderstanding", depth=1, follow=ALL).roles["Ġunder"] == ANCESTOR
    spaces = neighbourhood(llama3, "ĠĠĠĠ", depth=1)
    assert spaces.merges_of("ĠĠĠĠ")[0] == (llama3.primary_merge("ĠĠĠĠ"), True)
    assert llama3.primary_merge("ĠĠĠĠ").parts == ("ĠĠ", "ĠĠ")
    assert spaces.roles["ĠĠ"] == ANCESTOR and spaces.roles.get("ĠĠĠ") != ANCESTOR  # Ġ + ĠĠĠ is not followed
    assert spaces.roles.get("Ġ") is None


def run_cli(*args) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.real
@pytest.mark.slow
def test_cli_graph_on_llama3(tmp_path):
    path = str(real_file("llama3", "tokenizer.json"))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Understanding is understandings' underpinning.\n    four spaces\n", encoding="utf-8")
    reference = tmp_path / "ref.tsv"
    reference.write_text("understandings\tunder stand ing s\nmisunderstanding\tmis under stand ing\n", encoding="utf-8")
    out = json.loads(
        run_cli(
            "graph",
            "--tokeniser",
            path,
            "--type",
            "Ġunderstanding",
            "--depth",
            "1",
            "--json",
            "--reference",
            str(reference),
            "--corpus",
            str(corpus),
        ).stdout
    )
    assert out["follow"] == "primary"
    (center,) = [t for t in out["types"] if t["type"] == "Ġunderstanding"]
    assert center["merges"][0]["parts"] == ["Ġunderstand", "ing"] and center["merges"][0]["primary"] is True
    assert {"parts": ["Ġunder", "standing"], "primary": False} in [
        {"parts": m["parts"], "primary": m["primary"]} for m in center["merges"]
    ]
    assert center["alternatives"] == len(center["merges"]) - 1 >= 1
    assert set(center["merges"][0]["fires"]) == {"reference", "corpus"}
    assert center["emitted_whole"] == {"reference": 0, "corpus": 0}  # "Understanding": no leading space
    text = run_cli("graph", "--tokeniser", path, "--type", "ĠĠĠĠ", "--depth", "1").stdout
    (primary,) = [line for line in text.splitlines() if line.startswith("  primary")]
    assert primary.split()[-3:] == ["ĠĠ", "+", "ĠĠ"]
    assert "alternatives" in text


def test_cli_graph_on_a_hand_made_tokeniser(tmp_path):
    path = tmp_path / "tok.json"
    path.write_text(json.dumps(hand_made().to_json()), encoding="utf-8")
    corpus = tmp_path / "c.txt"
    corpus.write_text("aaa aaa baaa\naaaa\n", encoding="utf-8")
    out = json.loads(
        run_cli("graph", "--tokeniser", str(path), "--type", "aaa", "--json", "--corpus", str(corpus)).stdout
    )
    (center,) = [t for t in out["types"] if t["type"] == "aaa"]
    assert [(m["parts"], m["primary"], m["fires"]) for m in center["merges"]] == [
        (["aa", "a"], True, {"corpus": 3}),
        (["a", "aa"], False, {"corpus": 0}),
    ]
    assert {t["type"]: t["role"] for t in out["types"]}["aaaa"] == "half-sibling"
    everything = json.loads(
        run_cli("graph", "--tokeniser", str(path), "--type", "aaa", "--json", "--follow", "all").stdout
    )
    assert {t["type"]: t["role"] for t in everything["types"]}["aaaa"] == "descendant"
    assert everything["follow"] == "all"
    text = run_cli("graph", "--tokeniser", str(path), "--type", "aaa").stdout
    assert "merges of 'aaa': 2 (1 primary, 1 alternatives)" in text
    assert "alternative" in text and "(1 alternative)" in text


def test_cli_graph_on_the_dutch_40k_is_unchanged_by_follow():
    base = ["graph", "--tokeniser", str(DUTCH_40K), "--type", "Ġbruids", "--json"]
    primary = json.loads(run_cli(*base).stdout)
    everything = json.loads(run_cli(*base, "--follow", "all").stdout)
    primary.pop("follow"), everything.pop("follow")
    assert primary == everything


# --- the pages on Llama 3, loaded by path in the Workspace -------------------------------------------------
@pytest.fixture
def llama3_app(fresh_streamlit_caches):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page("pages/workspace.py")
    at.query_params["reference"] = "en_morph"
    at.run()
    at.text_input(key="ws_path").input(str(real_file("llama3", "tokenizer.json")))
    at.button(key="ws_path_load").click().run()
    assert not at.exception and not at.error
    return at


@pytest.mark.real
@pytest.mark.slow
def test_merge_graph_page_on_llama3(llama3_app):
    from tests.pages.test_page_merge_graph import graph_nodes

    at = llama3_app
    at.switch_page("pages/merge_graph.py")
    at.session_state["type"] = "Ġunderstanding"
    at.run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    rows = at.table[0].value.to_dict("records")
    assert "understand + ing" in rows[0]["merge"] and rows[0]["kind"].startswith("primary")
    assert any("under + standing" in r["merge"] and r["kind"] == "alternative" for r in rows)
    assert "fires on the reference" in rows[0] and "fires on the corpus" not in rows[0]  # a corpus pass on request
    at.toggle(key="corpus_counts").set_value(True).run()
    assert {"fires on the reference", "fires on the corpus"} <= set(at.table[0].value.to_dict("records")[0])
    assert at.segmented_control(key="follow").value == "primary"
    roles = {n["focus"]: n["role"] for n in graph_nodes(at)}
    assert roles["Ġunderstand"] == "ancestor" and roles["standing"] == "other part"  # drawn, not followed
    at.segmented_control(key="view").set_value("types and merges").run()
    assert any(n.get("alternative") for n in graph_nodes(at))
    at.segmented_control(key="follow").set_value("all").run()
    assert not at.exception and not at.error
    assert {n["focus"]: n["role"] for n in graph_nodes(at) if n["role"] != "merge"}["standing"] == "ancestor"


@pytest.mark.real
@pytest.mark.slow
def test_word_debugger_lists_each_tokens_merges_on_llama3(llama3_app):
    at = llama3_app
    at.switch_page("pages/word_debugger.py")
    at.query_params["word"] = "misunderstandings"
    at.run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    (table,) = [t for t in at.table if "fired in this word" in t.value.columns]
    rows = table.value.to_dict("records")
    assert {r["kind"] for r in rows} >= {"primary", "alternative"}
    assert any(r["fired in this word"] == "yes" for r in rows)
    assert any("The merges of each token" in s.value for s in at.subheader)
