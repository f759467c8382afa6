"""viz/plots.py: the figures hold the data they are given, on the right axes, and export offline."""

from __future__ import annotations

import json
import math
import re

import plotly.graph_objects as go
import pytest

from core.analysis.corpus_metrics import CorpusStats, renyi_efficiency, summary, token_frequency_curve, zipf_curve
from core.bpe.model import Merge
from core.edits.blame import MergeBlame
from viz import plots


def spec(fig: go.Figure) -> dict:
    """The figure as the JSON that reaches the browser."""
    return json.loads(fig.to_json())


def traces(fig: go.Figure) -> dict[str, dict]:
    return {t.get("name"): t for t in spec(fig)["data"]}


def all_text(fig: go.Figure) -> str:
    return fig.to_json()


# --- hand-made inputs ------------------------------------------------------------------------------
ID_S = Merge(1, ("i", "d"))
IDS = Merge(2, ("id", "s"))
BRU = Merge(3, ("_b", "ru"))
LT = Merge(4, ("<", "b>"))  # a token that looks like HTML
TUPLE = Merge(5, ("_bru", "id", "s"))

BLAMES = [
    MergeBlame(IDS, 2, 3),
    MergeBlame(ID_S, 0, 4),
    MergeBlame(BRU, 1, 1),
    MergeBlame(LT, 0, 1),
    MergeBlame(TUPLE, 1, 2),
    MergeBlame(Merge(6, ("x", "y")), 0, 0),
]
KNOCKED = {IDS, BRU, TUPLE}


def test_blame_rows_in_rank_order_without_unapplied_merges():
    rows = plots.blame_rows(BLAMES, KNOCKED)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]  # rank 6 has N = 0
    by_rank = {r["rank"]: r for r in rows}
    assert by_rank[2] == {
        "rank": 2,
        "merge": "id + s → ids",
        "result": "ids",
        "tuple": False,
        "blame": 2,
        "applications": 3,
        "ratio": pytest.approx(2 / 3),
        "knocked_out": True,
    }
    assert by_rank[5]["tuple"] and by_rank[5]["merge"] == "_bru + id + s → _bruids"
    assert not by_rank[1]["knocked_out"]


def test_blame_rows_show_whitespace_visibly():
    rows = plots.blame_rows([MergeBlame(Merge(1, (" ", "\n")), 1, 1)])
    assert rows[0]["merge"] == "␣ + ↵ → ␣↵"


def test_ratio_bins_edges():
    # [0, .05) gets 0 and 0.04; 0.05 is the second bin; 1.0 is in the last bin, with 0.95.
    counts = plots.ratio_bins([0, 0.04, 0.05, 0.5, 0.95, 1.0, 1.0])
    assert len(counts) == 20 and sum(counts) == 7
    assert counts[0] == 2 and counts[1] == 1 and counts[10] == 1 and counts[19] == 3


def test_blame_ratio_histogram_splits_at_the_threshold():
    ratios = [0, 0, 0.25, 0.5, 2 / 3, 1.0]
    fig = plots.blame_ratio_histogram(ratios, 0.5)
    data = traces(fig)
    kept = data["R(m) < 0.5: kept"]
    knocked = data["R(m) ≥ 0.5: knocked out"]
    assert sum(kept["y"]) == 3 and sum(knocked["y"]) == 3
    assert min(knocked["x"]) > 0.5 > max(kept["x"])
    assert dict(zip(kept["x"], kept["y"], strict=True))[0.025] == 2
    assert kept["marker"]["color"] == plots.KEPT and knocked["marker"]["color"] == plots.KNOCKED
    shapes = spec(fig)["layout"]["shapes"]
    assert [s["x0"] for s in shapes] == [0.5]  # the threshold line
    assert spec(fig)["layout"]["xaxis"]["range"] == [-0.04, 1.04]


def test_blame_scatter_groups_points_and_names_the_merges_in_the_hover():
    rows = plots.blame_rows([*BLAMES, MergeBlame(Merge(7, ("j", "k")), 0, 4)], KNOCKED)
    fig = plots.blame_scatter(rows, 0.5, log_x=True)
    data = traces(fig)
    kept, knocked = data["kept"], data["knocked out"]
    assert sorted(zip(kept["x"], kept["y"], strict=True)) == [(1, 0), (4, 0)]
    assert sorted(zip(knocked["x"], knocked["y"], strict=True)) == [(1, 1), (2, 1), (3, 2)]
    four = kept["text"][kept["x"].index(4)]
    assert "2 merges" in four and "i + d → id" in four and "j + k → jk" in four
    assert kept["customdata"][kept["x"].index(4)] == 2
    # the token "<b>" is shown, not interpreted as a tag
    one = kept["text"][kept["x"].index(1)]
    assert "&lt; + b&gt; → &lt;b&gt;" in one and "<b>" not in one.replace("<b>N(m)", "")
    line = data["B(m) = 0.5 · N(m)"]
    assert all(y == pytest.approx(0.5 * x) for x, y in zip(line["x"], line["y"], strict=True))
    assert spec(fig)["layout"]["xaxis"]["type"] == "log"
    assert spec(fig)["layout"]["xaxis"]["tickvals"] == [1, 2, 5]  # N(m) goes up to 4
    assert plots.blame_scatter(rows, 0.5, log_x=False).layout.xaxis.type == "linear"


def test_blame_scatter_caps_the_merge_list():
    rows = plots.blame_rows([MergeBlame(Merge(i, ("a", str(i))), 0, 1) for i in range(20)])
    text = traces(plots.blame_scatter(rows, 0.5, max_names=3))["kept"]["text"][0]
    assert "20 merges" in text and "… and 17 more" in text


def test_empty_blame_gives_a_message_not_an_error():
    for fig in (
        plots.blame_ratio_histogram([], 0.5),
        plots.blame_scatter([], 0.5),
        plots.knocked_rank_histogram([], 10),
        plots.tokens_change_figure({}),
        plots.zipf_figure({}),
        plots.metric_bars([]),
    ):
        assert spec(fig)["data"] == []
        assert spec(fig)["layout"]["annotations"]


def test_threshold_sweep_figure_has_both_panels():
    rows = [
        {"threshold": 0.25, "removed": 30, "precision": 0.5, "recall": 0.8, "f1": 0.6},
        {"threshold": 0.5, "removed": 20, "precision": 0.6, "recall": 0.7, "f1": 0.65},
        {"threshold": 0.75, "removed": 10, "precision": 0.55, "recall": 0.6, "f1": 0.57},
    ]
    fig = plots.threshold_sweep_figure(rows, 0.5)
    data = traces(fig)
    assert data["merges knocked out"]["y"] == [30, 20, 10]
    assert data["merges knocked out"]["xaxis"] == "x"
    for name, key in (("precision", "precision"), ("recall", "recall"), ("F1", "f1")):
        assert data[name]["x"] == [0.25, 0.5, 0.75]
        assert data[name]["y"] == [r[key] for r in rows]
        assert data[name]["xaxis"] == "x2"
    layout = spec(fig)["layout"]
    assert layout["yaxis2"]["tickformat"] == ".0%"
    assert {s["x0"] for s in layout["shapes"]} == {0.5} and len(layout["shapes"]) == 2


def test_rank_bins_and_histogram():
    width, counts = plots.rank_bins([0, 1, 5, 39_999, 20_000], 40_000)
    assert width == 2000 and len(counts) == 20
    assert counts[0] == 3 and counts[10] == 1 and counts[19] == 1 and sum(counts) == 5
    # tiny merge lists: one bin per position
    assert plots.rank_bins([0, 2, 2], 3) == (1, [1, 0, 2])
    fig = plots.knocked_rank_histogram([0, 2, 2], 3)
    bars = spec(fig)["data"][0]
    assert bars["y"] == [1, 0, 2] and bars["x"] == [0.5, 1.5, 2.5]
    rows = plots.rank_rows([0, 2, 2], 3)
    assert rows == [
        {"first_position": 0, "last_position": 0, "knocked_out": 1},
        {"first_position": 1, "last_position": 1, "knocked_out": 0},
        {"first_position": 2, "last_position": 2, "knocked_out": 2},
    ]


def test_tokens_change_figure_shows_counts_and_shares():
    changes = {0: 6, 1: 3, -1: 1}
    bars = spec(plots.tokens_change_figure(changes))["data"][0]
    assert bars["x"] == [-1, 0, 1] and bars["y"] == [1, 6, 3]
    assert bars["text"] == ["10.0%", "60.0%", "30.0%"]
    assert plots.change_rows(changes)[0] == {"change_in_tokens": -1, "words": 1, "fraction": 0.1}
    assert spec(plots.tokens_change_figure(changes))["layout"]["xaxis"]["ticktext"] == ["−1", "0", "+1"]


def test_log_ticks():
    assert plots.log_ticks(1) == [1]
    assert plots.log_ticks(411) == [1, 2, 5, 10, 20, 50, 100, 200, 500]
    assert plots.log_ticks(500) == [1, 2, 5, 10, 20, 50, 100, 200, 500]


def test_token_frequency_figure_log_rank_axis():
    fig = plots.token_frequency_figure({"A": token_frequency_curve(STATS["A"])}, log_x=True)
    assert spec(fig)["layout"]["xaxis"]["type"] == "log"


def test_summary_table_one_row_per_metric():
    summaries = {label: summary(s, 1.0) for label, s in STATS.items()}
    table = plots.summary_table(plots.summary_rows(summaries), alpha=1.0)
    assert [row["metric"] for row in table] == [
        "|V|",
        "tokens",
        "types used",
        "vocabulary used",
        "bytes / token",
        "characters / token",
        "Shannon entropy H (bits)",
        "redundancy R",
        "Rényi entropy H_α, α = 1 (bits)",
        "Rényi efficiency (α = 1)",
        "Zipf slope",
    ]
    assert table[0] == {"metric": "|V|", "A": "8", "B <x>": "6"}
    assert table[3]["A"] == "62.5%"
    # at α = 1 the Rényi efficiency is 1 - redundancy
    assert float(table[9]["A"]) == pytest.approx(1 - summaries["A"]["redundancy"], abs=1e-3)


# --- corpus distributions --------------------------------------------------------------------------
STATS = {
    "A": CorpusStats.from_counts(
        {"the": 8, "a": 4, "cat": 2, "sat": 1, "on": 1}, vocab_size=8, characters=40, bytes=40
    ),
    "B <x>": CorpusStats.from_counts({"th": 5, "e": 5, "ca": 3, "t": 3}, vocab_size=6, characters=40, bytes=44),
}


def test_compress_runs_is_lossless_for_lines():
    points = [(1, 9), (2, 3), (3, 3), (4, 3), (5, 3), (6, 1), (7, 0), (8, 0), (9, 0)]
    assert plots.compress_runs(points) == [(1, 9), (2, 3), (5, 3), (6, 1), (7, 0), (9, 0)]
    assert plots.compress_runs([]) == [] and plots.compress_runs([(1, 1)]) == [(1, 1)]
    assert plots.compress_runs([(1, 1), (2, 1)]) == [(1, 1), (2, 1)]


def test_zipf_figure_is_log_log_with_the_counts():
    curves = {label: zipf_curve(s) for label, s in STATS.items()}
    fig = plots.zipf_figure(curves)
    layout = spec(fig)["layout"]
    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
    data = traces(fig)
    assert set(data) == {"A", "B &lt;x&gt;"}  # legend names are escaped like the hover labels
    # counts 8, 4, 2, 1, 1: the run of ones keeps both ends
    assert data["A"]["x"] == [1, 2, 3, 4, 5] and data["A"]["y"] == [8, 4, 2, 1, 1]
    assert data["B &lt;x&gt;"]["x"] == [1, 2, 3, 4] and data["B &lt;x&gt;"]["y"] == [5, 5, 3, 3]
    assert "B &lt;x&gt;" in data["B &lt;x&gt;"]["hovertemplate"]


def test_token_frequency_figure_includes_the_unused_tail():
    curves = {label: token_frequency_curve(s) for label, s in STATS.items()}
    fig = plots.token_frequency_figure(curves)
    a = traces(fig)["A"]
    # 5 used types of 8: log10(9), log10(5), log10(3), log10(2), log10(2), then 0 for ranks 6..8
    assert a["x"] == [1, 2, 3, 4, 5, 6, 8]
    assert a["y"] == pytest.approx([math.log10(9), math.log10(5), math.log10(3), math.log10(2), math.log10(2), 0, 0])
    layout = spec(fig)["layout"]
    assert layout["xaxis"].get("type", "linear") == "linear"
    assert "log₁₀(count + 1)" in layout["yaxis"]["title"]["text"]


def test_renyi_figure_marks_the_chosen_alpha():
    curves = {label: [(a, renyi_efficiency(s, a)) for a in (0.0, 1.0, 2.5, 5.0)] for label, s in STATS.items()}
    fig = plots.renyi_figure(curves, 2.5)
    data = traces(fig)
    assert data["A"]["x"] == [0.0, 1.0, 2.5, 5.0]
    assert data["A"]["y"] == pytest.approx([renyi_efficiency(STATS["A"], a) for a in (0.0, 1.0, 2.5, 5.0)])
    marker = data["A at α = 2.5"]
    assert marker["x"] == [2.5] and marker["y"] == pytest.approx([renyi_efficiency(STATS["A"], 2.5)])
    assert marker["marker"]["color"] == data["A"]["line"]["color"]
    layout = spec(fig)["layout"]
    assert [s["x0"] for s in layout["shapes"]] == [2.5]
    assert "α = 2.5" in layout["title"]["text"]
    other = spec(plots.renyi_figure(curves, 5.0))
    assert [s["x0"] for s in other["layout"]["shapes"]] == [5.0]


def test_summary_rows_and_metric_bars():
    summaries = {label: summary(s, 2.5) for label, s in STATS.items()}
    rows = plots.summary_rows(summaries)
    assert [r["tokeniser"] for r in rows] == ["A", "B <x>"]
    assert rows[0]["vocabulary_used"] == pytest.approx(5 / 8)
    assert rows[1]["bytes_per_token"] == pytest.approx(44 / 16)
    assert rows[0]["alpha"] == 2.5
    colours = plots.colour_map(["A", "B <x>"])
    fig = plots.metric_bars(rows, colours, alpha=2.5)
    data = spec(fig)["data"]
    shown = [key for key, *_, bar in plots.SUMMARY_COLUMNS if bar]
    assert len(data) == 2 * len(shown)
    # one legend entry per tokeniser, its colour on every panel
    assert [t["name"] for t in data if t.get("showlegend")] == ["A", "B &lt;x&gt;"]
    assert {t["marker"]["color"] for t in data if t["name"] == "A"} == {colours["A"]}
    efficiency = data[2 * shown.index("renyi_efficiency")]
    assert efficiency["y"] == [pytest.approx(summaries["A"]["renyi_efficiency"])]
    titles = [a["text"] for a in spec(fig)["layout"]["annotations"]]
    assert "Rényi efficiency (α = 2.5)" in titles and "vocabulary used" in titles


def test_colour_map_is_stable_and_distinct():
    colours = plots.colour_map(["x", "y", "x", "z"])
    assert list(colours) == ["x", "y", "z"] and len(set(colours.values())) == 3


def test_curve_rows():
    assert plots.curve_rows({"A": [(1, 3), (2, 1)]}, "rank", "count") == [
        {"tokeniser": "A", "rank": 1, "count": 3},
        {"tokeniser": "A", "rank": 2, "count": 1},
    ]


# --- offline ---------------------------------------------------------------------------------------
def every_figure() -> list[go.Figure]:
    rows = plots.blame_rows(BLAMES, KNOCKED)
    summaries = {label: summary(s, 2.5) for label, s in STATS.items()}
    return [
        plots.blame_ratio_histogram([r["ratio"] for r in rows], 0.5),
        plots.blame_scatter(rows, 0.5),
        plots.threshold_sweep_figure([{"threshold": 0.5, "removed": 1, "precision": 1, "recall": 1, "f1": 1}], 0.5),
        plots.knocked_rank_histogram([1, 2], 5),
        plots.tokens_change_figure({0: 1}),
        plots.zipf_figure({k: zipf_curve(s) for k, s in STATS.items()}),
        plots.token_frequency_figure({k: token_frequency_curve(s) for k, s in STATS.items()}),
        plots.renyi_figure({"A": [(2.5, 0.5)]}, 2.5),
        plots.metric_bars(plots.summary_rows(summaries), alpha=2.5),
        plots.message_figure("t", "m"),
    ]


@pytest.mark.parametrize("index", range(10))
def test_no_mathjax_in_labels(index):
    text = all_text(every_figure()[index])
    assert "$" not in text and "\\(" not in text and "\\frac" not in text


def strip_inline_plotlyjs(page: str) -> str:
    """The HTML around the inlined plotly.js bundle (the bundle itself names CDNs in unused defaults)."""
    return re.sub(r"<script>/\*\*\s*\n\* plotly\.js v.*?</script>", "<script/>", page, count=1, flags=re.S)


def test_exported_html_is_self_contained():
    page = plots.figure_html(plots.zipf_figure({k: zipf_curve(s) for k, s in STATS.items()}))
    assert "plotly.js v" in page[:20_000] or "plotly.js" in page  # the library is inlined
    assert len(page) > 1_000_000
    assert re.findall(r"<script[^>]*\bsrc=", page) == []  # no script is fetched
    assert re.findall(r"<link[^>]*\bhref=", page) == []
    outside = strip_inline_plotlyjs(page)
    assert len(outside) < 50_000, "the plotly.js bundle was not found and stripped"
    assert "cdn" not in outside.lower()
    assert "http://" not in outside and "https://" not in outside
    assert re.search(r"mathjax[^'\"]*\.js", outside, re.I) is None  # MathJax is never loaded
    assert '"zipf' not in outside and "Zipf plot" in outside  # the figure itself is there


def test_vocab_size_figure_draws_the_slots_deleted_tokens_keep():
    from core.counting.corpus import TrainingCorpus
    from core.families.boundless.model import boundless_pretokeniser, slots_after_events
    from core.families.boundless.trainer import train
    from tests.core.families.test_boundless import OFTHE

    run = train(TrainingCorpus.from_texts(OFTHE, boundless_pretokeniser()), 290)
    slots = slots_after_events(run)
    assert len(slots) == len(run.events) and slots[-1] == 290 and run.events[-1].vocab_size == 278
    assert all(
        s - e.vocab_size == sum(x.kind == "deletion" for x in run.events[: i + 1])
        for i, (s, e) in enumerate(zip(slots, run.events, strict=True))
    )  # V8: no deleted token comes back
    drawn = traces(plots.vocab_size_figure(run.events, target=290, slots=slots))
    assert drawn["|V|"]["y"][-1] == 278 and drawn["slots filled (deleted tokens keep theirs)"]["y"] == slots
    assert list(traces(plots.vocab_size_figure(run.events, target=290))) == ["|V|"]
    freed = train(TrainingCorpus.from_texts(OFTHE, boundless_pretokeniser()), 290, deleted_slots="freed")
    assert slots_after_events(freed) is None
