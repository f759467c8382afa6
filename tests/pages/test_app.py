"""The Streamlit explorer: the navigation of app.py, and the pure viz/ helpers the pages are built from.

Each page has its own AppTest module (tests/test_page_*.py). AppTest runs no JavaScript; the browser
side (deep links, URL updates, rendering, offline) is in tests/e2e/.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.bpe.model import Merge
from core.formats.samples import scenario_paths, tokeniser_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import APP, assert_clean
from viz.escaping import code_span, md_escape
from viz.tables import merge_rows, reference_rows, rejection_rows, scenario_rows
from viz.tokeniser_info import (
    NOTES,
    choice_label,
    marker_legend,
    markers,
    short_name,
    tokeniser_choices,
    tokeniser_facts,
    tokeniser_note,
    valid_choice,
    vocab_size_help,
)
from viz.tokens import (
    alphabet_html,
    boundary_strip_html,
    comparison_html,
    segmentation_html,
    shown,
    split_words,
    token_chips_html,
    visible,
)

TIMEOUT = 60  # the Dutch 40k tokeniser takes a moment to load on a cold machine
CHOICES = tokeniser_choices(tokeniser_paths())
pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")
HOSTILE = "<b>&\"'"


def run_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at


def html_bodies(at: AppTest) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def md_unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


# --- the navigation ----------------------------------------------------------------------------


def test_every_url_path_is_its_file_stem():
    """On a fresh server Streamlit runs ``pages/<stem>.py`` alone for ``/<stem>`` and shows "Page not
    found" for other paths, until st.navigation has run once: the paths must be the stems."""
    from app import PAGES, url_path  # executing app.py outside Streamlit only builds the page list

    assert [url_path(file) for file, *_ in PAGES] == [Path(file).stem for file, *_ in PAGES]
    assert PAGES[0][0] == "pages/workspace.py"
    assert "pages/segment.py" not in [file for file, *_ in PAGES]
    assert {Path(file).stem for file, *_ in PAGES} >= {
        "workspace",
        "word_debugger",
        "merge_graph",
        "stepper",
        "blocked_merges",
        "distributions",
        "compare",
    }
    assert all(icon.startswith(":material/") for *_, icon in PAGES)  # text icons, no emoji


def test_app_opens_on_the_workspace():
    at = run_app()
    assert_clean(at)
    assert at.title[0].value == "Workspace"
    assert at.selectbox(key="ws_tokeniser").value == "nl-40k"


def test_ensure_app_navigation_reroutes_a_legacy_run(monkeypatch):
    """A legacy (pages/ folder) run is switched off and rerun; outside a script run nothing happens."""
    from streamlit.runtime.pages_manager import PagesManager

    import ui.workspace as ws

    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    ws.ensure_app_navigation()  # no script run context: a no-op
    assert PagesManager.uses_pages_directory is True

    reruns = []
    monkeypatch.setattr(ws, "get_script_run_ctx", lambda: object())
    monkeypatch.setattr(ws.st, "rerun", lambda: reruns.append(True))
    ws.ensure_app_navigation()
    assert PagesManager.uses_pages_directory is False and reruns == [True]
    ws.ensure_app_navigation()
    assert reruns == [True]


def test_a_broken_sample_tokeniser_is_an_error_message_not_a_traceback(tmp_path, monkeypatch):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "bte-tokeniser", "version": 1, "merges": [[0, ["a"]]]}', encoding="utf-8")
    import ui.workspace_choices as choices

    monkeypatch.setitem(choices.SAMPLE_TOKENISERS, "broken", str(broken))
    for page in ("pages/workspace.py", "pages/word_debugger.py"):
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.switch_page(page)
        at.query_params["tokeniser"] = "broken"
        at.run()
        assert not at.exception
        assert len(at.error) == 1 and "broken.json" in at.error[0].value


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
    assert len(colours) == 5 and all(a != b for a, b in itertools.pairwise(colours))


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
    assert next(iter(CHOICES)) == "nl-40k"
    assert len(CHOICES) == len(tokeniser_paths())
    assert all(re.fullmatch(r"[\w.-]+", name) for name in CHOICES)
    with pytest.raises(ValueError):
        tokeniser_choices({"x (a)": "p", "x (b)": "q"})
    assert valid_choice("a1_scenario1", CHOICES, "nl-40k") == "a1_scenario1"
    assert valid_choice("nope", CHOICES, "nl-40k") == "nl-40k"
    assert valid_choice(None, CHOICES, "nl-40k") == "nl-40k"
    assert valid_choice(["a1_scenario1"], CHOICES, "nl-40k") == "nl-40k"


def test_vocab_size_help_says_what_v_counts(dutch40k):
    assert vocab_size_help(dutch40k) == (
        "|V| counts special tokens as HF does: 39,995 types in the merge graph + 5 special tokens = 40,000."
    )
    plain = load_tokeniser(scenario_paths()["a3_moving_merges"])  # no special tokens
    assert plain.vocab_size == len(plain.types)
    assert vocab_size_help(plain) == (
        f"|V| counts special tokens as HF does: {len(plain.types):,} types in the merge graph, no special tokens."
    )


def test_facts_notes_and_legend(dutch40k):
    assert tokeniser_facts(dutch40k) == [
        ("|V|", "40,000"),
        ("Types", "39,995"),
        ("Merges", "39,739"),
        ("Tuple merges", "0"),
        ("Alphabet", "256"),
    ]
    assert markers(dutch40k.pretokeniser) == ("Ġ",)
    assert "`Ġ` = the space byte" in marker_legend(dutch40k.pretokeniser)
    assert tokeniser_note("nl-40k", dutch40k.metadata) == ("info", NOTES["nl-40k"])
    assert tokeniser_note("something-else", {}) is None
    scenario = load_tokeniser(scenario_paths()["a1_scenario2a"])
    assert markers(scenario.pretokeniser) == ("_", "↑")
    assert "`↑`" in marker_legend(scenario.pretokeniser)
    _kind, text = tokeniser_note("a1_scenario2a", scenario.metadata)
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
    after = [
        Merge(0.5 if rank == 0 else float(rank), tuple(parts))
        for rank, parts in tokeniser.metadata["after_knockout_merges"]
    ]
    rows = merge_rows([tokeniser.with_merges(after).trace_pretoken("_bruids")])
    assert [r["rank"] for r in rows] == ["before #1", "#2", "#3", "#4", "#5"]  # integer ranks (viz.ranks)
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


# --- viz helpers of the workspace and word-debugger pages ----------------------------------------


def test_boundary_strip_marks_every_boundary(dutch40k):
    from core.analysis.explain import explain_word

    explained = explain_word(dutch40k, "bruidsjurk", ("bruid", "s", "jurk"))
    out = boundary_strip_html(["Ġbruidsjurk"], explained.boundaries, dutch40k.pretokeniser.display)
    verdicts = re.findall(r'data-verdict="([^"]*)"', out)
    assert len(verdicts) == len("Ġbruidsjurk") - 1
    assert verdicts.count("missed split") == 1 and verdicts.count("correct split") == 1
    assert "#1234" in out and "removed by id + s (rank #1234" in out
    assert out.count('<td style="width:32px') == len("Ġbruidsjurk")
    plain = boundary_strip_html(["Ġgids"], explain_word(dutch40k, "gids").boundaries)
    assert set(re.findall(r'data-verdict="([^"]*)"', plain)) == {""}


def test_boundary_strip_escapes_characters():
    from core.analysis.explain import explain_word
    from core.bpe.model import BTETokeniser
    from core.pipeline import WhitespaceSplit

    tokeniser = BTETokeniser(list("<b>"), [Merge(0, ("<", "b"))], WhitespaceSplit())
    out = boundary_strip_html(["<b>"], explain_word(tokeniser, "<b>").boundaries)
    assert ">&lt;</td>" in out and ">&gt;</td>" in out


def test_comparison_rows():
    out = comparison_html(
        [
            ("BPE", ["a", "<b>"], "2 of 2", {"a", "<b>"}),
            ("ReBPE", None, "not available: x"),
            ("TrimmedBPE", ["a", "q"], "", {"a"}),
        ]
    )
    assert out.count('class="comparison-row"') == 3
    assert "&lt;b&gt;" in out and "<b>" not in out
    assert "not available: x" in out
    rows = out.split('class="comparison-row"')
    assert "dashed" not in rows[1] and "dashed" in rows[3]  # q is not a TrimmedBPE type
    assert "2 tokens" in rows[1] and "tokens" not in rows[2].split("not available")[0].split("</td>")[2]


def test_rejection_and_reference_rows():
    from core.references.files import parse_references

    refs = parse_references("bruidsjurk\tbruid s jurk\tbruids jurk\ngids\tgids\nkat\tka t x\n", "refs.tsv")
    assert reference_rows(refs.entries) == [
        {"word": "bruidsjurk", "morphs": "bruid s jurk", "compound parts": "bruids jurk"},
        {"word": "gids", "morphs": "gids", "compound parts": "(unknown)"},
    ]
    (row,) = rejection_rows(refs.rejected)
    assert row["line"] == 3 and row["text"].startswith("kat") and "concatenate" in row["reason"]


def test_choice_labels_and_ranks():
    assert choice_label("nl-40k") == "nl-40k · Dutch byte-level BPE, |V| 40,000 (BPE-knockout paper)"
    assert (
        choice_label("a1_scenario1", {"title": "Scenario 1: child knockout"})
        == "a1_scenario1 · Scenario 1: child knockout"
    )
    assert choice_label("upload: x.json") == "upload: x.json"
