"""The word debugger page through AppTest: tokens, tree stepping, blame view, explanation, comparison,
running text and presentation mode.

The comparison view (opened with its toggle, ``?variants=true``) runs knockout and ReBPE on the loaded
reference once per tokeniser (cached for the rest of the process); hence the long timeout.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

import ui.rebpe_runs
from core.edits.rebpe import KnockoutConfig, ReBPEConfig
from core.formats.samples import DUTCH_40K, scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import assert_clean, fact_cards, running_chips, word_chips
from tests.apptest_support import run_page as run_at
from viz.trees import svg_from_html

APP = str(Path(__file__).resolve().parents[2] / "app.py")
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
    """The step view's tree: inline SVG in markdown (its nodes' tooltips show), see viz.trees.inline_tree_html."""
    return next(svg_from_html(m.value) for m in at.markdown if 'class="merge-tree"' in m.value)


def dutch_id(token: str) -> int:
    return load_tokeniser(DUTCH_40K).token_ids()[token]


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
    assert f"`id` + `s` → `ids` (id {dutch_id('ids')} · rank 1234, step 5)" in text  # the id beside the rank
    assert "Trapped token `Ġbruid`" in text and "Knocking out `ids` gives `Ġbruid` `s` `jurk`" in text
    assert at.slider(key="step::bruidsjurk").value == 9
    assert at.segmented_control(key="input_mode").value == "Words"
    assert not at.toggle(key="variants").value and "BPE-dropout" not in "".join(bodies(at))


def test_masterthesis_as_in_the_paper():
    at = run_page(word="masterthesis", variants="true")
    assert_clean(at)
    text = explanation(at)
    assert f"`er` + `t` → `ert` (id {dutch_id('ert')} · rank 640, step 7)" in text and "`master|thesis`" in text
    assert "Trapped token `Ġmaster`" in text
    rows = comparison(at)
    assert rows["BPE (loaded)"] == "Ġmast ert hes is"
    assert rows["after ReBPE"] == "Ġmaster the sis"  # [knockout App. A.4]'s "Ġmaster the sis"
    strip = next(b for b in bodies(at) if "boundary-strip" in b)
    assert re.findall(r'data-verdict="([^"]*)"', strip).count("missed split") == 1
    assert "#640" in strip


def test_change_word():
    at = run_page(variants="true")
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


def test_a_link_with_a_huge_word_leaves_it_out_and_says_the_limit():
    """``?word=`` + 12,000 characters (it once ran for minutes and kept 0.8 GB): left out with a warning."""
    at = run_page(word="bruidsjurk " + "a" * 12_000)
    assert_clean(at)
    (warning,) = [w.value for w in at.warning if "Left out" in w.value]
    assert "longer than 200 characters" in warning and "12,000 characters given" in warning
    assert word_chips(at) == [["Ġbruids", "jurk"]]  # the other word is debugged as before


# --- the step slider and the tree ----------------------------------------------------------------


def test_step_slider_steps_the_tree_and_tokens():
    at = run_page(word="masterthesis")
    assert step_chips(at) == ["Ġmast", "ert", "hes", "is"]
    assert 'class="tree-node merge ghost' not in tree_svg(at)
    at.slider(key="step::masterthesis").set_value(6).run()
    assert_clean(at)
    assert step_chips(at) == ["Ġm", "ast", "er", "t", "h", "es", "is"]
    chips = next(b for b in bodies(at) if b.startswith('<span class="tok-chip"'))
    assert 'data-token="ast" data-id="508"' in chips  # the id, drawn after the token (viz.tokens.PAGE_CSS)
    assert any(m.value.startswith("**Step 6 of 9:** `a` + `st` → `ast` (id 508 · merge \\#247)") for m in at.markdown)
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


@pytest.mark.parametrize(
    "query",
    [
        {"step": "99"},
        {"step": "-1"},
        {"step": "abc"},
        {"step": "2.5"},
        {"focus": "nowhere"},
        {"tokeniser": "no-such-tokeniser"},
        {"tokeniser": "../../etc/passwd", "step": "1e9"},
    ],
)
def test_invalid_query_values_fall_back(query):
    at = run_page(word="bruids bruid", **query)
    assert not at.exception
    assert at.header[0].value == "“bruids”"
    tokeniser = at.selectbox(key="ws_tokeniser").value
    assert tokeniser == "nl-40k"
    slider = at.slider(key="step::bruids")
    assert slider.value == slider.max


# --- switching tokenisers -----------------------------------------------------------------------


QUICK_SCENARIOS = {"a1_scenario1", "a1_scenario2b_ii"}  # the others run with the slow tests


@pytest.mark.parametrize(
    "name", [n if n in QUICK_SCENARIOS else pytest.param(n, marks=pytest.mark.slow) for n in sorted(scenario_paths())]
)
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
    assert word_chips(at) == [
        load_tokeniser(Path(DUTCH_40K).parents[1] / "en-bpe-4k-wordfreq.json").tokenise_word("bruids")
    ]


def test_trimmed_bpe_and_dropout_controls():
    at = run_page(word="masterthesis", variants="true")
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


# --- the comparison view: computed only when opened -------------------------------------------------


def test_comparison_runs_only_when_opened(monkeypatch):
    calls = []
    real = ui.rebpe_runs.cached_run

    def counting(*args, **kwargs):
        calls.append(args[4])  # the configuration
        return real(*args, **kwargs)

    monkeypatch.setattr(ui.rebpe_runs, "cached_run", counting)
    at = run_page(word="bruidsjurk")
    at.slider(key="step::bruidsjurk").set_value(3).run()
    assert_clean(at)
    assert calls == [] and not any('class="comparison"' in b for b in bodies(at))
    assert "trim_threshold" not in [w.key for w in at.get("select_slider")]
    at.toggle(key="variants").set_value(True).run()
    assert_clean(at)
    assert calls == [ReBPEConfig(knockout=KnockoutConfig(), reify=False, max_iterations=1), ReBPEConfig()]
    rows = comparison(at)
    assert rows["BPE (loaded)"] == "Ġbruids jurk"
    assert rows["after knockout"] == rows["after ReBPE"] == "Ġbruid s jurk"
    assert len([label for label in rows if label.startswith("BPE-dropout")]) == 4


# --- running text ---------------------------------------------------------------------------------

SENTENCE = "De bruidsjurk kost 1.000 €, zei ze  —\n東京 😀 naïef!"


def chips_of(at: AppTest) -> list[dict]:
    return [chip for body in bodies(at) if 'class="rt-view"' in body for chip in running_chips(body)]


def test_running_text_from_the_url(dutch40k):
    at = run_page(text=SENTENCE)
    assert_clean(at)
    assert at.segmented_control(key="input_mode").value == "Running text"
    assert at.text_area(key="text").value == SENTENCE
    chips = chips_of(at)
    tokens = dutch40k.tokenise(SENTENCE)
    assert [c["token"] for c in chips] == tokens
    assert [int(c["id"]) for c in chips] == [dutch40k.token_id(t) for t in tokens]
    facts = fact_cards(at)
    assert facts["tokens"] == str(len(tokens))
    assert facts["characters"] == str(len(SENTENCE)) and facts["bytes (UTF-8)"] == str(len(SENTENCE.encode()))
    assert facts["|V|"] == f"{dutch40k.vocab_size:,}"
    shown = [c["text"] for c in chips]
    assert "Ġ" in shown and "\\n" in shown  # the second space and the line break, visible
    partial = [c["text"] for c in chips if "rt-bytes" in c["classes"]]
    assert partial and all(text.startswith("\\x") for text in partial)  # 東京's bytes, one token per byte
    for chip in chips:
        graph = urlsplit(chip["links"]["rt-graph"])
        assert graph.path == "merge_graph"
        assert parse_qs(graph.query)["type"] == [chip["token"]]
        assert parse_qs(graph.query)["tokeniser"] == ["nl-40k"]
    bride = next(c for c in chips if c["token"] == "Ġbruids")
    query = parse_qs(urlsplit(bride["links"]["rt-tree"]).query)
    assert query["word"] == ["bruidsjurk"] and query["input"] == ["words"] and query["tokeniser"] == ["nl-40k"]
    assert "rt-tree" not in next(c for c in chips if c["token"] == "Ċ")["links"]


def test_tree_link_opens_the_word_in_the_debugger():
    chips = chips_of(run_page(text=SENTENCE))
    link = next(c for c in chips if c["token"] == "jurk")["links"]["rt-tree"]
    at = run_page(**{k: v[0] for k, v in parse_qs(urlsplit(link).query).items()})
    assert_clean(at)
    assert at.segmented_control(key="input_mode").value == "Words"
    assert word_chips(at) == [["Ġbruids", "jurk"]]
    assert at.header[0].value == "“bruidsjurk”"


def test_ids_instead_of_text():
    at = run_page(text="De jurk")
    at.toggle(key="ids").set_value(True).run()
    assert_clean(at)
    chips = chips_of(at)
    assert [c["text"] for c in chips] == [c["id"] for c in chips] and len(chips) == 2


def test_typed_text_goes_into_the_url_unless_too_long():
    at = run_page(word="gids")
    at.segmented_control(key="input_mode").set_value("Running text").run()
    at.text_area(key="text").input("Een gids.").run()
    assert_clean(at)
    assert at.query_params["text"] == "Een gids." and "input" not in at.query_params  # a text implies the mode
    assert [c["token"] for c in chips_of(at)] == ["E", "en", "Ġgids", "."]
    at.text_area(key="text").input("woord " * 400).run()
    assert_clean(at)
    assert "text" not in at.query_params and at.query_params["input"] == "text"
    assert any("too long for a link" in c.value for c in at.caption)
    at.segmented_control(key="input_mode").set_value("Words").run()
    assert_clean(at)
    assert at.text_input(key="word").value == "gids" and word_chips(at) == [["Ġgids"]]


def test_running_text_on_a_scenario_tokeniser():
    tokeniser = load_tokeniser(scenario_paths()["a1_scenario2a"])
    at = run_page(tokeniser="a1_scenario2a", text="bruids bruid")
    assert_clean(at)
    chips = chips_of(at)
    assert [c["token"] for c in chips] == tokeniser.tokenise("bruids bruid")
    assert [int(c["id"]) for c in chips] == [tokeniser.token_id(t) for t in tokeniser.tokenise("bruids bruid")]


def test_empty_running_text_asks_for_text():
    at = run_page(input="text")
    at.text_area(key="text").input("").run()
    assert_clean(at)
    assert chips_of(at) == [] and any("Type a sentence" in i.value for i in at.info)


# --- presentation mode ----------------------------------------------------------------------------


def test_presentation_mode_steps_with_the_arrow_keys_and_hides_secondary_views():
    at = run_page(word="masterthesis", present="1")
    assert_clean(at)
    assert at.toggle(key="presentation_mode").value
    back, forward = at.button(key="back::masterthesis"), at.button(key="forward::masterthesis")
    assert (back.label, back.proto.shortcut) == ("Prev", "left")
    assert (forward.label, forward.proto.shortcut) == ("Next", "right")
    assert [h.value for h in at.subheader] == ["What went wrong?"]  # beside the tree; tables and the strip: desk only
    assert not at.header  # the word is in the box: the tree starts higher
    assert "variants" not in [t.key for t in at.toggle]
    assert not any("All " in e.label for e in at.expander)
    back.click().run()
    assert at.slider(key="step::masterthesis").value == 8
    assert step_chips(at) == ["Ġmast", "ert", "h", "es", "is"]  # "hes" was the last merge


def test_step_buttons_have_no_shortcut_outside_presentation_mode():
    at = run_page(word="masterthesis")
    assert not at.button(key="back::masterthesis").proto.shortcut
    assert "The merges of each token" in [h.value for h in at.subheader]


def test_tree_downloads():
    at = run_page(word="masterthesis", step="6")
    downloads = {d.proto.label: d.proto.url for d in at.get("download_button")}
    assert list(downloads) == ["SVG", "LaTeX (forest)"]
    assert downloads["SVG"].endswith(".svg") and downloads["LaTeX (forest)"].endswith(".tex")
    assert not run_page(word="masterthesis", present="1").get("download_button")  # presenting: none


@pytest.mark.real
def test_a_type_emitted_whole_under_ignore_merges_is_one_chip_with_its_own_merge():
    """o200k's ``understanding``: the pretoken ``Ġunderstanding`` is a type, so ignore_merges emits it
    whole; the page says so and names the type's own merge, never "every character stays a token"."""
    from tests.real_tokenisers import real_file

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=TIMEOUT).run()
    at.text_input(key="ws_path").set_value(str(real_file("tiktoken-o200k", "o200k_base.tiktoken")))
    at.button(key="ws_path_load").click().run()
    at.switch_page(PAGE)
    at.query_params["word"] = "understanding"
    at.run()
    assert_clean(at)
    assert step_chips(at) == ["Ġunderstanding"]
    (note,) = [m.value for m in at.markdown if "one token, emitted whole" in m.value]
    assert "whole-word type of the vocabulary" in note and "`ignore_merges`" in note
    assert "`Ġunderstand` + `ing` → `Ġunderstanding` (id 10335 · merge \\#" in note  # the merge forming it
    assert not any("every character stays a token" in c.value for c in at.caption)
