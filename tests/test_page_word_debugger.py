"""The word debugger page through AppTest: tokens, tree stepping, blame view, explanation, comparison.

The page runs knockout and ReBPE on the loaded reference once per tokeniser (cached for the rest of
the process); hence the long timeout.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_support import assert_clean, run_page as run_at, word_chips

from core.formats.tokeniser_files import load_tokeniser
from core.samples import DUTCH_40K, scenario_paths
from viz.trees import svg_from_html

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "pages/word_debugger.py"
TIMEOUT = 90


def run_page(**query) -> AppTest:
    return run_at(PAGE, timeout=TIMEOUT, via_app=True, **query)
HOSTILE = "<b>&\"'"


def step_chips(at: AppTest) -> list[str]:
    """The tokens shown at the current step (the chips right above the tree)."""
    found = [b for b in bodies(at) if b.startswith('<span class="tok-chip"')]
    return re.findall(r'data-token="([^"]*)"', found[0])


def tree_svg(at: AppTest) -> str:
    return next(svg_from_html(b) for b in bodies(at) if 'class="merge-tree"' in b)


def bodies(at: AppTest) -> list[str]:
    return [element.proto.body for element in at.get("html")]


def comparison(at: AppTest) -> dict[str, str]:
    body = next(b for b in bodies(at) if 'class="comparison"' in b)
    rows = re.findall(r'<tr class="comparison-row" data-label="([^"]*)">(.*?)</tr>', body)
    return {label: " ".join(re.findall(r'data-token="([^"]*)"', row)) for label, row in rows}


def explanation(at: AppTest) -> str:
    return "\n".join(box.value for box in [*at.warning, *at.success, *at.info])


# --- defaults and words -------------------------------------------------------------------------

def test_renders_with_defaults():
    at = run_page()
    assert_clean(at)
    assert at.title[0].value == "Word debugger"
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"
    assert at.text_input(key="word").value == "bruidsjurk masterthesis"
    assert word_chips(at) == [["Ġbruids", "jurk"], ["Ġmast", "ert", "hes", "is"]]
    assert at.header[0].value == "“bruidsjurk”"
    text = explanation(at)
    assert "`id` + `s` → `ids` (rank 1234, step 5)" in text
    assert "Trapped token `Ġbruid`" in text and "Knocking out `ids` gives `Ġbruid` `s` `jurk`" in text
    assert at.slider(key="step::bruidsjurk").value == 9
    rows = comparison(at)
    assert rows["BPE (loaded)"] == "Ġbruids jurk"
    assert rows["after knockout"] == rows["after ReBPE"] == "Ġbruid s jurk"
    assert len([label for label in rows if label.startswith("BPE-dropout")]) == 4


def test_masterthesis_as_in_the_paper():
    at = run_page(word="masterthesis")
    assert_clean(at)
    text = explanation(at)
    assert "`er` + `t` → `ert` (rank 640, step 7)" in text and "`master|thesis`" in text
    assert "Trapped token `Ġmaster`" in text
    rows = comparison(at)
    assert rows["BPE (loaded)"] == "Ġmast ert hes is"
    assert rows["after ReBPE"] == "Ġmaster the sis"  # bpe-knockout App. A.4's "Ġmaster the sis"
    strip = next(b for b in bodies(at) if "boundary-strip" in b)
    assert re.findall(r'data-verdict="([^"]*)"', strip).count("missed split") == 1
    assert "#640" in strip


def test_change_word():
    at = run_page()
    at.text_input(key="word").input("gids").run()
    assert_clean(at)
    assert word_chips(at) == [["Ġgids"]]
    assert at.header[0].value == "“gids”"
    assert at.success and "follow the reference exactly" in at.success[0].value
    assert comparison(at)["BPE (loaded)"] == "Ġgids"


def test_dutch_40k_matches_huggingface_tokenizers():
    tokenizers = pytest.importorskip("tokenizers")
    words = ["bruidsjurk", "gids", "arbeidsongeschiktheidsverzekering", "café", "Kinderen"]
    at = run_page(word=" ".join(words))
    assert_clean(at)
    reference = tokenizers.Tokenizer.from_file(str(DUTCH_40K))
    assert word_chips(at) == [reference.encode(" " + word).tokens for word in words]


def test_word_not_in_the_reference():
    at = run_page(word="tokeniser")
    assert_clean(at)
    assert "is not in the loaded reference" in explanation(at)
    assert set(re.findall(r'data-verdict="([^"]*)"', next(b for b in bodies(at) if "boundary-strip" in b))) == {""}


def test_compound_parts_instead_of_morphs():
    at = run_page(word="bruidsjurk")
    at.radio(key="refmode").set_value("compound parts").run()
    assert_clean(at)
    assert any("`bruids` · `jurk`" in m.value for m in at.markdown)
    # bruids|jurk is kept, so against the compound parts nothing went wrong
    assert at.success and "follow the reference exactly" in at.success[0].value


def test_focus_another_word():
    at = run_page(word="bruidsjurk gids")
    at.segmented_control(key="focus").set_value("gids").run()
    assert_clean(at)
    assert at.header[0].value == "“gids”"
    slider = at.slider(key="step::gids")
    assert slider.value == slider.max == 4


def test_empty_input_asks_for_words():
    at = run_page(word="x")
    at.text_input(key="word").input("   ").run()
    assert_clean(at)
    assert word_chips(at) == []
    assert any("Type one or more words" in info.value for info in at.info)


def test_many_words_are_capped():
    at = run_page(tokeniser="a3_moving_merges", word=" ".join(["abcd"] * 15))
    assert_clean(at)
    assert len(word_chips(at)) == 12
    assert any("first 12 of 15 words" in c.value for c in at.caption)


def test_hostile_words_are_escaped():
    at = run_page(word=HOSTILE + " `x` $1$ *y*")
    assert_clean(at)
    joined = "\n".join(bodies(at))
    assert HOSTILE not in joined and "&\"'" not in joined
    assert word_chips(at)[0] == ["Ġ<", "b", ">", "&", '"', "'"]
    assert "&lt;" in tree_svg(at)


# --- the step slider and the tree ----------------------------------------------------------------

def test_step_slider_steps_the_tree_and_tokens():
    at = run_page(word="masterthesis")
    assert step_chips(at) == ["Ġmast", "ert", "hes", "is"]
    assert 'class="tree-node merge ghost' not in tree_svg(at)
    at.slider(key="step::masterthesis").set_value(6).run()
    assert_clean(at)
    assert step_chips(at) == ["Ġm", "ast", "er", "t", "h", "es", "is"]
    assert any(m.value.startswith("**Step 6 of 9:** `a` + `st` → `ast` (rank 247)") for m in at.markdown)
    svg = tree_svg(at)
    assert svg.count("ghost") == 3  # ert, Ġmast and hes have not fired yet
    at.slider(key="step::masterthesis").set_value(0).run()
    assert step_chips(at) == list("Ġmasterthesis")
    assert any("every character is a token of its own" in m.value for m in at.markdown)


def test_step_buttons():
    at = run_page(word="masterthesis")
    at.button(key="back::masterthesis").click().run()
    assert at.slider(key="step::masterthesis").value == 8
    at.button(key="back::masterthesis").click().run()
    at.button(key="forward::masterthesis").click().run()
    assert at.slider(key="step::masterthesis").value == 8
    assert_clean(at)


def test_query_params_initialise_the_widgets():
    at = run_page(tokeniser="a1_scenario2a", word="bruids bruid", step="2")
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario2a"
    assert at.text_input(key="word").value == "bruids bruid"
    assert word_chips(at) == [["_bruids"], ["_bru", "id"]]
    assert at.slider(key="step::bruids").value == 2
    assert step_chips(at) == ["_", "b", "r", "u", "ids"]
    at2 = run_page(tokeniser="a1_scenario2a", word="bruids bruid", focus="bruid", step="1")
    assert at2.header[0].value == "“bruid”" and at2.slider(key="step::bruid").value == 1


@pytest.mark.parametrize("query", [
    {"step": "99"}, {"step": "-1"}, {"step": "abc"}, {"step": "2.5"}, {"focus": "nowhere"},
    {"tokeniser": "no-such-tokeniser"}, {"tokeniser": "../../etc/passwd", "step": "1e9"},
])
def test_invalid_query_values_fall_back(query):
    at = run_page(word="bruids bruid", **query)
    assert not at.exception
    assert at.header[0].value == "“bruids”"
    tokeniser = at.selectbox(key="ws_tokeniser").value
    assert tokeniser == "nl-40k"
    slider = at.slider(key="step::bruids")
    assert slider.value == slider.max


# --- switching tokenisers -----------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(scenario_paths()))
def test_every_scenario_tokeniser(name):
    at = run_page(tokeniser=name)
    assert_clean(at)
    tokeniser = load_tokeniser(scenario_paths()[name])
    words = [w["word"] for w in tokeniser.metadata["words"]]
    assert at.text_input(key="word").value == " ".join(words)
    assert word_chips(at) == [tokeniser.tokenise_word(w) for w in words]


def test_tokeniser_switch_keeps_the_words():
    at = run_page(word="bruids")
    at.selectbox(key="ws_tokeniser").set_value("a1_scenario2b_i_first").run()
    assert_clean(at)
    assert word_chips(at) == [["_bruids"]]
    assert "Trapped token `_bruid`" in explanation(at)
    at.selectbox(key="ws_tokeniser").set_value("en-bpe-4k-wordfreq").run()
    assert_clean(at)
    assert word_chips(at) == [load_tokeniser(Path(DUTCH_40K).parents[1] / "en-bpe-4k-wordfreq.json")
                              .tokenise_word("bruids")]


def test_trimmed_bpe_and_dropout_controls():
    at = run_page(word="masterthesis")
    at.select_slider(key="trim_threshold").set_value(0).run()
    assert comparison(at)["TrimmedBPE (T = 0)"] == "Ġmast ert hes is"  # nothing is trimmed at T = 0
    at.slider(key="dropout_p").set_value(1.0).run()
    rows = comparison(at)
    assert rows["BPE-dropout p = 1, sample 1"] == " ".join("Ġmasterthesis")  # p = 1: no merge fires
    at.selectbox(key="trim_source").set_value("en_wordfreq").run()
    assert_clean(at)


def test_bad_upload_on_the_workspace_keeps_the_debugger_on_the_old_tokeniser():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["tokeniser"] = "a1_scenario3a"
    at.run()
    at.file_uploader(key="upload_tokeniser").set_value(("bad.json", b"{", "application/json"))
    at.run()
    assert len(at.error) == 1
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "a1_scenario3a"
    assert word_chips(at)[0] == ["_bruids"]
