"""viz.step_views: the tables and figures of the stepper and blocked-merges pages (pure, no Streamlit)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from core.bpe.model import Merge
from core.edits.blocked import find_blocked_merges
from core.edits.rebpe import repair, run_knockout
from core.edits.scenarios import moved_merge_variants
from core.edits.step_changes import affected_words
from core.edits.steps import KNOCKOUT, PREEXISTING, REPAIRED
from core.formats.samples import scenario_paths
from core.references.files import parse_references
from tests.teaching_scenarios import BRUID, scenario, scenario_run
from viz import step_views as sv


def test_scenario_labels():
    assert [sv.scenario_label(n) for n in scenario_paths() if n.startswith("a1_")] == [
        "1",
        "2a",
        "2b(i) first",
        "2b(i) second",
        "2b(ii)",
        "3a",
        "3b",
    ]
    assert sv.scenario_label("a3_moving_merges") == "A.3 moving merges"
    assert sv.scenario_label("nl-40k") == "nl-40k"


def test_step_labels_titles_and_counts():
    _, run = scenario_run("a1_scenario2a")
    labels = sv.step_labels(run.steps)
    assert labels[:4] == ["start", "1 knock", "1 repair", "1 reify"]
    assert len(labels) == len(set(labels)) == len(run.steps) + 1
    assert sv.step_title(run.steps, 0) == f"Step 0 of {len(run.steps)} · the tokeniser as loaded"
    assert sv.step_title(run.steps, 1) == f"Step 1 of {len(run.steps)} · iteration 1 · knockout"
    assert sv.step_title(run.steps, 2).endswith("reparation · nothing changed")
    assert dict(sv.step_counts(run.steps[0], 1)) == {
        "Merges removed": 1,
        "Merges added": 0,
        "Merges rewired": 1,
        "Types removed": 1,
        "Types added": 0,
        "Words changed": 1,
    }
    assert sv.step_counts(None) == []


def test_scenario_2a_knockout_changes_one_word_by_one_definition():
    """App. A.1 scenario 2a: knockout keeps bruids one token but changes its tree. The counts row, the
    word list and the Words changed tab all count it (one changed word, none with new tokens)."""
    tokeniser, run = scenario_run("a1_scenario2a")
    knockout = run.steps[0]
    changed = affected_words(tokeniser, knockout.tokeniser, ["bruids", "bruid"], knockout.changed_words, limit=None)
    assert changed == ["bruids"] and knockout.changed_words == ()
    assert dict(sv.step_counts(knockout, len(changed)))[sv.WORDS_CHANGED] == 1
    assert "0 of them now have other tokens, 1 keep their tokens" in sv.words_changed_help(1, 0)
    rows = sv.changed_word_rows(knockout.changed_words, tree_only=[("bruids", ("_bruids",))])
    assert rows == [{"word": "bruids", "tokens before": "_bruids", "tokens after": "_bruids", "change": "tree only"}]


def test_merge_change_rows_name_the_origin_before_and_after():
    _, run = scenario_run("a1_scenario2a")
    knockout = sv.merge_change_rows(run.steps[0])
    assert knockout == [
        {
            "change": "removed",
            "rank": "#1",
            "merge before": "id + s",
            "merge after": "",
            "type": "ids",
            "origin": PREEXISTING,
        },
        {
            "change": "rewired",
            "rank": "#5",
            "merge before": "_bru + ids",
            "merge after": "_bru + id + s",
            "type": "_bruids",
            "origin": KNOCKOUT,
        },
    ]
    reify = sv.merge_change_rows(run.steps[2], run.steps[1].origins)
    assert [(r["change"], r["merge after"], r["origin"]) for r in reify] == [
        ("added", "_bru + id", "reified"),
        ("rewired", "_bruid + s", KNOCKOUT),
    ]
    assert reify[0]["rank"] == "before #5"  # reified just below the tuple merge _bruid + s (rank 5)
    # knockout of a merge that reparation made: its origin is the one before the step
    _, run = scenario_run("a1_scenario2b_ii")
    index = next(i for i, s in enumerate(run.steps) if s.phase == "knockout" and s.iteration == 3)
    rows = sv.merge_change_rows(run.steps[index], run.steps[index - 1].origins)
    assert [(r["change"], r["merge before"], r["origin"]) for r in rows] == [("removed", "_bruid + s", REPAIRED)]


def test_rows_show_bytes_and_whitespace_readably(dutch40k):
    merge = dutch40k.merge_of("Ġbruids")
    assert sv.merge_text(merge, dutch40k.pretokeniser.display) == "Ġbru + ids"
    assert sv.tokens_text(["ĠcafÃ©", "Ã"], dutch40k.pretokeniser.display) == "Ġcafé \\xc3"
    assert sv.tokens_text(["a b", "c\n"]) == "a␣b c↵"


def test_filter_and_csv_keep_awkward_text():
    rows = [{"merge": 'a + "b', "type": "a,b"}, {"merge": "x + y", "type": "<xy>"}]
    assert sv.filter_rows(rows, "") == rows
    assert sv.filter_rows(rows, "XY") == [rows[1]]
    assert sv.filter_rows(rows, "a,", columns=["merge"]) == []
    text = sv.rows_to_csv(rows)
    assert list(csv.DictReader(io.StringIO(text))) == rows
    assert sv.rows_to_csv([]) == ""


def test_metrics_table_four_row_and_rows():
    _, run = scenario_run("a1_scenario2a")
    from core.edits.reference_state import TokenisedReference

    initial = TokenisedReference(scenario("a1_scenario2a"), parse_references(BRUID, format="tsv").entries).scores()
    row = sv.table4_row(run.steps, initial, 4)
    assert list(row) == ["BPE", "1 knock", "1 repair", "1 reify", "2 knock", "F1"]
    assert row["BPE"] == "0.00" and row["2 knock"] == "+100.00" and row["F1"] == "100.00"
    assert sv.table4_row(run.steps, initial, 0) == {"BPE": "0.00", "F1": "0.00"}
    rows = sv.metrics_rows(run.steps, initial, 4)
    assert [r["phase"] for r in rows] == ["BPE", "knockout", "reparation", "reification", "knockout"]
    assert rows[-1]["F1 %"] == 100.0 and rows[-1]["ΔF1"] == 100.0 and rows[0]["ΔF1"] is None


def test_figures_fill_in_step_by_step_and_stay_offline():
    tokeniser, run = scenario_run("a1_scenario2b_ii")
    from core.references.evaluation import MorphScores

    initial = MorphScores(0.5, 0.5, 0.5, 1, 1, 1, 2)
    labels = sv.step_labels(run.steps)
    figure = sv.f1_figure(run.steps, initial, 3)
    waterfall = figure.data[0]
    assert list(waterfall.x) == labels[:4] and list(waterfall.measure) == ["absolute"] + ["relative"] * 3
    assert waterfall.y[0] == pytest.approx(50.0)
    assert waterfall.y[1] == pytest.approx(100 * run.steps[0].metrics.f1 - 50.0)
    assert list(figure.layout.xaxis.categoryarray) == labels  # every step keeps its slot
    origins = sv.origins_figure(run.steps, 2)
    assert [t.name for t in origins.data if t.type == "bar"] == ["removed", "split by knockout", "repaired"]
    vocab = sv.vocab_figure(run.steps, tokeniser, len(run.steps))
    assert vocab.data[0].x[0] == 0 and vocab.data[0].y[0] == tokeniser.vocab_size
    knocked = sv.knocked_out_figure(run.steps, len(run.steps))
    for fig in (figure, origins, vocab, knocked):
        text = fig.to_json()
        json.loads(text)
        assert "cdn" not in text.lower() and "mathjax" not in text.lower()


def test_the_two_step_charts_share_one_upright_step_axis():
    """The F1 chart and the changes chart sit side by side: the same slots (``start`` included) and
    upright labels, so each bar stands straight above its own step's label in both."""
    _, run = scenario_run("a1_scenario2a")
    from core.references.evaluation import MorphScores

    labels = sv.step_labels(run.steps)
    f1 = sv.f1_figure(run.steps, MorphScores(0.5, 0.5, 0.5, 1, 1, 1, 2), 4)
    origins = sv.origins_figure(run.steps, 4)
    assert list(origins.layout.xaxis.categoryarray) == list(f1.layout.xaxis.categoryarray) == labels
    removed = next(t for t in origins.data if t.name == "removed")
    assert list(removed.x) == labels[1:5] == list(f1.data[0].x[1:])  # step i's bars at step i's label
    assert f1.layout.xaxis.tickangle == origins.layout.xaxis.tickangle == -90


def test_neighbourhood_rows():
    tokeniser, run = scenario_run("a1_scenario2a")
    knockout = run.steps[0]
    before = sv.neighbourhood_rows(tokeniser, "ids")
    assert [(r["relation"], r["merge"], r["rank"]) for r in before] == [
        ("formed by", "id + s", "#1"),
        ("used by", "_bru + ids", "#5"),
    ]
    after = sv.neighbourhood_rows(knockout.tokeniser, "ids")
    assert after[0]["relation"] == "not in V"
    assert [r["tuple merge"] for r in sv.neighbourhood_rows(knockout.tokeniser, "_bruids")] == ["yes"]
    assert sv.neighbourhood_rows(tokeniser, "s")[0]["relation"] == "alphabet"
    many = sv.neighbourhood_rows(tokeniser, "_b", limit=0)
    assert many[-1]["merge"] == "… 1 more"


def test_blocked_and_repair_rows():
    tokeniser = scenario("a1_scenario2b_i_first")
    knocked = run_knockout(tokeniser, parse_references(BRUID, format="tsv").entries).tokeniser
    report = find_blocked_merges(knocked, ["bruids", "bruid"])
    assert sv.blocked_rows(report.blocked) == [
        {
            "rank": "#6",
            "blocked merge": "_bru + id + s",
            "type": "_bruids",
            "scenario": "2b(i)",
            "found at its turn": "_bruid s",
            "blocking merge": "_bru + id",
            "example word": "bruids",
        }
    ]
    cascade = find_blocked_merges(
        run_knockout(scenario("a1_scenario3a"), parse_references(BRUID, format="tsv").entries).tokeniser
    )
    assert [r["blocking merge"] for r in sv.blocked_rows(cascade.blocked)] == ["i + d", "i + d + s (blocked upstream)"]
    _, repaired = repair(knocked)
    assert sv.repair_rows(repaired) == [
        {"rank": "#6", "type": "_bruids", "parts before": "_bru + id + s", "parts after": "_bruid + s"}
    ]
    assert sv.changed_word_rows([("a b", ("x",), ("y", "z"))]) == [
        {"word": "a␣b", "tokens before": "x", "tokens after": "y z"}
    ]


def test_tokens_markdown_is_code_spans():
    text = sv.tokens_markdown(["a`b", "*c*"])
    assert text == "``a`b`` `*c*` (2 tokens)"
    assert sv.tokens_markdown(["x"]).endswith("(1 token)")


def test_merge_text_of_nothing_and_tuples():
    assert sv.merge_text(None) == ""
    assert sv.merge_text(Merge(3, ("a", "b", "c"))) == "a + b + c"


# --- App. A.3: moved merges ------------------------------------------------------------------------------
def test_moved_merge_listings_show_where_merges_were_and_which_are_blocked():
    base = scenario("a3_moving_merges")
    variants = moved_merge_variants(base)
    assert set(variants) == set(sv.MOVES)
    assert sv.move_label("expedited_twice") == "moved: expedited twice"
    knocked = base.with_merges([Merge(r, tuple(p)) for r, p in base.metadata["after_knockout_merges"]])
    blocked = {b.merge for b in find_blocked_merges(variants["delayed"]).blocked}
    rows = sv.listing_rows(variants["delayed"], knocked, blocked)
    assert rows[0] == {"rank": "#0", "merge": "abc + d", "after knockout": "#2", "blocked": "blocked"}
    assert rows[3] == {"rank": "#3", "merge": "a + bc", "after knockout": "#1 as a + b + c", "blocked": ""}
