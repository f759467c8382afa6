"""The Streamlit explorer: page wiring through AppTest, and the pure viz/ helpers it is built from.

AppTest runs no JavaScript; the browser side (URL updates, rendering, offline) is in tests/e2e/.
"""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.formats.tokeniser_files import load_tokeniser
from core.model import Merge
from core.samples import DUTCH_40K, scenario_paths, tokeniser_paths
from viz.tables import merge_rows, scenario_rows
from viz.tokeniser_info import (
    NOTES,
    marker_legend,
    markers,
    md_escape,
    short_name,
    tokeniser_choices,
    tokeniser_facts,
    tokeniser_note,
    valid_choice,
)
from viz.tokens import (
    alphabet_html,
    code_span,
    segmentation_html,
    shown,
    split_words,
    token_chips_html,
    visible,
)

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 60  # the Dutch 40k tokeniser takes a moment to load on a cold machine
CHOICES = tokeniser_choices(tokeniser_paths())
HOSTILE = "<b>&\"'"


@pytest.fixture(autouse=True)
def fresh_caches():
    """AppTest runs in this process, so Streamlit caches would leak between tests."""
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


def run_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at


class _Chips(HTMLParser):
    """Collects ``data-token`` of every chip, grouped per ``tok-word`` block."""

    def __init__(self):
        super().__init__()
        self.words: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if "tok-word" in classes:
            self.words.append([])
        elif "tok-chip" in classes and self.words:
            self.words[-1].append(attrs["data-token"])


def word_chips(at: AppTest) -> list[list[str]]:
    """The tokens shown for each word, in page order (from the chips' ``data-token``)."""
    parser = _Chips()
    for element in at.get("html"):
        if "tok-word" in element.proto.body:
            parser.feed(element.proto.body)
    return parser.words


def html_bodies(at: AppTest) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


# --- the page ----------------------------------------------------------------------------------

def test_app_runs_with_defaults():
    at = run_app()
    assert_clean(at)
    assert at.title[0].value == "Segment a word"
    assert at.selectbox(key="tokeniser").value == "nl-40k"
    assert at.text_input(key="word").value == "bruidsjurk"
    assert word_chips(at) == [["Ġbruids", "jurk"]]
    labels = [m.label for m in at.metric]
    assert labels == ["Types |V|", "Merges", "Tuple merges", "Alphabet"]
    assert any("BPE-knockout paper" in info.value for info in at.info)


def test_dutch_40k_matches_huggingface_tokenizers():
    tokenizers = pytest.importorskip("tokenizers")
    words = ["bruidsjurk", "gids", "arbeidsongeschiktheidsverzekering", "café", "Kinderen"]
    at = run_app(tokeniser="nl-40k")
    at.text_input(key="word").input(" ".join(words)).run()
    assert_clean(at)
    reference = tokenizers.Tokenizer.from_file(str(DUTCH_40K))
    assert word_chips(at) == [reference.encode(" " + word).tokens for word in words]


@pytest.mark.parametrize("name", list(CHOICES))
def test_every_shipped_tokeniser_can_be_chosen(name):
    at = run_app()
    at.selectbox(key="tokeniser").set_value(name).run()
    assert_clean(at)
    tokeniser = load_tokeniser(CHOICES[name])
    assert at.selectbox(key="tokeniser").value == name
    assert [m.value for m in at.metric] == [value for _, value in tokeniser_facts(tokeniser)]
    assert word_chips(at) == [tokeniser.tokenise_word("bruidsjurk")]
    if tokeniser.metadata.get("title"):  # a scenario: its explanation and the paper's words
        assert any(tokeniser.metadata["title"] in md_unescape(info.value) for info in at.info)
        assert len(at.table[-1].value) == len(tokeniser.metadata["words"])


def md_unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def test_scenario_word_via_the_widgets():
    at = run_app()
    at.selectbox(key="tokeniser").set_value("a1_scenario2a").run()
    at.text_input(key="word").input("bruids").run()
    assert_clean(at)
    assert word_chips(at) == [["_bruids"]]
    merges = at.table[0].value
    assert list(merges["result"]) == ["`id`", "`ids`", "`_b`", "`_br`", "`_bru`", "`_bruids`"]
    assert "tuple merge" not in merges.columns  # the scenario tokenisers have none before knockout


def test_query_params_initialise_the_widgets():
    at = run_app(tokeniser="a1_scenario2a", word="bruids bruid")
    assert_clean(at)
    assert at.selectbox(key="tokeniser").value == "a1_scenario2a"
    assert at.text_input(key="word").value == "bruids bruid"
    assert word_chips(at) == [["_bruids"], ["_bru", "id"]]
    assert not at.warning


@pytest.mark.parametrize("bad", ["no-such-tokeniser", "", "nl-40k (BPE-knockout paper)", "../../etc/passwd"])
def test_unknown_tokeniser_in_the_url_falls_back_to_the_default(bad):
    at = run_app(tokeniser=bad, word="gids")
    assert not at.exception
    assert at.selectbox(key="tokeniser").value == "nl-40k"
    assert word_chips(at) == [["Ġgids"]]
    if bad:
        assert any("not shipped" in w.value for w in at.warning)


def test_html_special_characters_are_escaped():
    at = run_app(word=HOSTILE)
    assert_clean(at)
    bodies = html_bodies(at)
    assert HOSTILE not in bodies
    assert "&\"'" not in bodies
    assert "<b>&lt;b&gt;&amp;&quot;&#x27;</b>" in bodies  # the word heading, in bold
    assert bodies.count("<b>") == 1
    assert word_chips(at) == [["Ġ<", "b", ">", "&", '"', "'"]]
    # every token in the merge table is a markdown code span, shown literally
    assert at.table[0].value["result"].str.fullmatch(r"`[^`]+`").all()


def test_hostile_url_word_in_a_scenario_tokeniser():
    at = run_app(tokeniser="a1_scenario2a", word=HOSTILE + " `x` $1$ *y*")
    assert_clean(at)
    assert HOSTILE not in html_bodies(at)
    assert len(word_chips(at)) == 4


def test_empty_input_asks_for_words():
    at = run_app(word="x")
    at.text_input(key="word").input("   ").run()
    assert_clean(at)
    assert word_chips(at) == []
    assert any("Type one or more words" in info.value for info in at.info)


def test_many_words_are_capped():
    at = run_app(tokeniser="a3_moving_merges", word=" ".join(["abcd"] * 25))
    assert_clean(at)
    assert len(word_chips(at)) == 20
    assert any("first 20 of 25 words" in c.value for c in at.caption)


def test_a_broken_tokeniser_file_is_an_error_message_not_a_traceback(tmp_path, monkeypatch):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "bte-tokeniser", "version": 1, "merges": [[0, ["a"]]]}', encoding="utf-8")
    import core.samples

    monkeypatch.setattr(core.samples, "tokeniser_paths", lambda: {"broken": broken, **tokeniser_paths()})
    at = run_app(tokeniser="broken")
    assert not at.exception
    assert at.selectbox(key="tokeniser").value == "broken"
    assert len(at.error) == 1 and "Could not load broken" in at.error[0].value


# --- viz helpers -------------------------------------------------------------------------------

def test_visible_shows_whitespace_and_controls():
    assert visible("a b\n\t\r") == "a␣b↵⇥␍"
    assert visible("\x00\x7f\x85é") == "\\x00\\x7f\\x85é"
    assert shown("") == "∅"
    assert shown("x", lambda t: t + " ") == "x␣"


def test_chips_escape_text_and_attributes():
    out = token_chips_html([HOSTILE, 'a"b'])
    assert HOSTILE not in out and 'a"b' not in out
    assert ">&lt;b&gt;&amp;&quot;&#x27;<" in out
    assert 'data-token="&lt;b&gt;&amp;&quot;&#x27;"' in out
    assert out.count('class="tok-chip"') == 2


def test_chips_mark_unknown_tokens_ids_and_markers():
    out = token_chips_html(["Ġbru", "q"], types={"Ġbru"}, ids={"Ġbru": 7}, markers=("Ġ",))
    first, second = out.split("</span><span")[0], out.split('class="tok-chip"')[2]
    assert "dashed" not in first and "id 7" in first
    assert "dashed" in second and "not a type of this tokeniser" in second
    assert '<span class="tok-marker" style="opacity:0.45">Ġ</span>bru' in out
    # a token that is only a marker is not faded
    assert "tok-marker" not in token_chips_html(["▁"], markers=("▁",))


def test_adjacent_chips_differ_in_colour():
    out = token_chips_html(list("abcde"))
    colours = re.findall(r"background:(#[0-9a-f]{6})", out)
    assert len(colours) == 5 and all(a != b for a, b in zip(colours, colours[1:]))


def test_segmentation_html_escapes_the_word():
    out = segmentation_html("a<b>", ["a", "<b>"])
    assert "<b>a&lt;b&gt;</b>" in out and "→ 2 tokens" in out
    assert "→ 1 token<" in segmentation_html("x", ["x"])
    assert alphabet_html(["<", "b"]).count("tok-chip") == 2


def test_code_span_survives_backticks():
    assert code_span("ab") == "`ab`"
    assert code_span("a`b") == "``a`b``"
    assert code_span("`") == "`` ` ``"


def test_split_words():
    assert split_words("  a b\tc ", limit=2) == (["a", "b"], 3)
    assert split_words(None) == ([], 0)


def test_md_escape_leaves_no_active_markdown():
    text = "_bru+ids *x* [l](u) `c` $1$ <b> # :red[x] \\"
    escaped = md_escape(text)
    assert md_unescape(escaped) == text
    bare = [piece for piece in re.findall(r"\\.|.", escaped) if len(piece) == 1]
    assert not set(bare) & set("_*[]`$<>#:\\+()")


def test_short_names_are_unique_and_url_friendly():
    assert short_name("nl-40k (BPE-knockout paper)") == "nl-40k"
    assert short_name("a1_scenario2a") == "a1_scenario2a"
    assert list(CHOICES)[0] == "nl-40k"
    assert len(CHOICES) == len(tokeniser_paths())
    assert all(re.fullmatch(r"[\w.-]+", name) for name in CHOICES)
    with pytest.raises(ValueError):
        tokeniser_choices({"x (a)": "p", "x (b)": "q"})
    assert valid_choice("a1_scenario1", CHOICES, "nl-40k") == "a1_scenario1"
    assert valid_choice("nope", CHOICES, "nl-40k") == "nl-40k"
    assert valid_choice(None, CHOICES, "nl-40k") == "nl-40k"
    assert valid_choice(["a1_scenario1"], CHOICES, "nl-40k") == "nl-40k"


def test_facts_notes_and_legend(dutch40k):
    assert tokeniser_facts(dutch40k) == [("Types |V|", "39,995"), ("Merges", "39,739"),
                                         ("Tuple merges", "0"), ("Alphabet", "256")]
    assert markers(dutch40k.pretokeniser) == ("Ġ",)
    assert "`Ġ` = the space byte" in marker_legend(dutch40k.pretokeniser)
    assert tokeniser_note("nl-40k", dutch40k.metadata) == ("info", NOTES["nl-40k"])
    assert tokeniser_note("something-else", {}) is None
    scenario = load_tokeniser(scenario_paths()["a1_scenario2a"])
    assert markers(scenario.pretokeniser) == ("_", "↑")
    assert "`↑`" in marker_legend(scenario.pretokeniser)
    kind, text = tokeniser_note("a1_scenario2a", scenario.metadata)
    assert text.startswith("**Scenario 2a") and "\\_bru\\+ids" in text and "`id s`" in text
    bare = load_tokeniser(scenario_paths()["a3_moving_merges"])
    assert markers(bare.pretokeniser) == ()
    assert "no word-start marker" in marker_legend(bare.pretokeniser)


def test_merge_rows_of_a_scenario_word():
    tokeniser = load_tokeniser(scenario_paths()["a1_scenario2a"])
    traces = [tokeniser.trace_pretoken(p) for p in tokeniser.pretokeniser.pretokenise(" bruid")]
    rows = merge_rows(traces, tokeniser.pretokeniser.display)
    assert [r["merge"] for r in rows] == ["i + d", "_ + b", "_b + r", "_br + u"]
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    assert rows[-1]["tokens after"] == "_bru id"
    assert list(rows[0]) == ["step", "rank", "merge", "result", "tuple merge", "tokens after"]
    assert "tuple merge" not in merge_rows(traces, tuple_column=False)[0]
    assert merge_rows(traces, fmt=code_span)[0]["merge"] == "`i` + `d`"


def test_merge_rows_show_tuple_merges_and_fractional_ranks():
    """Scenario 2a after knockout: ``_bru+id+s`` is a tuple merge; ranks may be fractional."""
    tokeniser = load_tokeniser(scenario_paths()["a1_scenario2a"])
    after = [Merge(0.5 if rank == 0 else float(rank), tuple(parts))
             for rank, parts in tokeniser.metadata["after_knockout_merges"]]
    rows = merge_rows([tokeniser.with_merges(after).trace_pretoken("_bruids")])
    assert [r["rank"] for r in rows] == [0.5, 2, 3, 4, 5]  # whole floats shown as ints
    assert (rows[-1]["merge"], rows[-1]["tuple merge"], rows[-1]["tokens after"]) == ("_bru + id + s", "yes", "_bruids")
    assert [r["tuple merge"] for r in rows[:-1]] == [""] * 4


def test_merge_rows_with_several_pretokens(dutch40k):
    traces = [dutch40k.trace_pretoken(p) for p in dutch40k.pretokeniser.pretokenise(" " + HOSTILE)]
    rows = merge_rows(traces, dutch40k.pretokeniser.display)
    assert len(traces) > 1 and all("pretoken" in r for r in rows)
    assert "␣" not in "".join(r["tokens after"] for r in rows)


def test_scenario_rows_agree_with_the_paper():
    for name, path in scenario_paths().items():
        tokeniser = load_tokeniser(path)
        rows = scenario_rows(tokeniser.metadata, tokeniser.tokenise_word, tokeniser.pretokeniser.display)
        assert rows, name
        for row in rows:
            assert row["this tokeniser"] == row["paper: before knockout"], (name, row)
