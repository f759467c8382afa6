"""The Blame & distributions page through AppTest, on the shipped data (tokeniser nl-40k, reference
nl_morph, the python-docs running text): it renders without exception and its controls work.

The numbers themselves are tested in core (test_diagnostics, test_corpus_metrics) and the figures
in test_plots; here we check the wiring: the page shows the engine's results for the loaded data.
Caches are cleared once for this module (not per test): the first run knocks out, sweeps 19
thresholds and runs ReBPE on the Dutch 40k, which takes a while.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_support import assert_clean, run_page as run_at

from core import corpus_metrics as cm
from core.blame import compute_blame
from core.formats.references import load_references
from core.formats.tokeniser_files import load_tokeniser
from core.reference_state import TokenisedReference
from core.samples import DUTCH_40K, reference_paths, running_text
from viz.escaping import md_escape

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGE = "pages/distributions.py"
TIMEOUT = 180
pytestmark = pytest.mark.usefixtures("module_streamlit_caches")


def run_page(**query) -> AppTest:
    return run_at(PAGE, timeout=TIMEOUT, via_app=True, **query)
CORPUS = "Corpus distributions"


def charts(at: AppTest) -> dict[str, dict]:
    """Figure JSON of every plotly chart, by its title."""
    out = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        out[spec["layout"]["title"]["text"]] = spec
    return out


def chart(at: AppTest, title_start: str) -> dict:
    found = [spec for title, spec in charts(at).items() if title.startswith(title_start)]
    assert len(found) == 1, (title_start, list(charts(at)))
    return found[0]


def trace_names(spec: dict) -> list[str]:
    return [t.get("name") for t in spec["data"]]


def metric(at: AppTest, label: str):
    return next(m for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def dutch_blame():
    tokeniser = load_tokeniser(DUTCH_40K)
    reference = TokenisedReference(tokeniser, load_references(reference_paths()["nl_morph"]).entries)
    return compute_blame(reference)


# --- the blame tab ---------------------------------------------------------------------------------
def test_blame_tab_renders_with_defaults(dutch_blame):
    at = run_page()
    assert_clean(at)
    assert at.title[0].value == "Blame & distributions"
    assert at.select_slider(key="threshold").value == 0.5
    shown = charts(at)
    assert len(shown) == 5, list(shown)
    # the histogram counts every merge with N(m) >= 1 once
    histogram = chart(at, "Blame ratio R(m)")
    assert sum(sum(t["y"]) for t in histogram["data"]) == len(dutch_blame)
    assert metric(at, "Merges applied").value == f"{len(dutch_blame):,}"
    knocked = sum(1 for b in dutch_blame.values() if b.blame > 0 and b.ratio >= 0.5)
    assert metric(at, "Knocked out |M†|").value == f"{knocked:,}"
    assert sum(histogram["data"][1]["y"]) == knocked  # the knocked-out side of the threshold
    scatter = chart(at, "Blame B(m) against applications N(m)")
    assert trace_names(scatter) == ["kept", "knocked out", "B(m) = 0.5 · N(m)"]
    assert scatter["layout"]["xaxis"]["type"] == "log"
    assert any("Ġbru + id" in text or "id + s → ids" in text for t in scatter["data"][:2] for text in t["text"])
    sweep = chart(at, "Knockout at every threshold")
    removed = next(t for t in sweep["data"] if t["name"] == "merges knocked out")
    assert removed["x"] == pytest.approx([0.05 * i for i in range(1, 20)])
    assert removed["y"][9] == knocked                 # threshold 0.5
    assert removed["y"] == sorted(removed["y"], reverse=True)
    assert {"precision", "recall", "F1"} <= set(trace_names(sweep))
    ranks = chart(at, "Positions of the knocked-out merges")
    assert sum(ranks["data"][0]["y"]) == knocked
    changes = chart(at, "Change in tokens per word")
    assert sum(changes["data"][0]["y"]) == len(load_references(reference_paths()["nl_morph"]).entries)
    assert metric(at, "Effective dropout").value.endswith("%")
    # downloads: CSV and HTML for each figure
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("Figure (HTML)") == 5 and labels.count("Data (CSV)") == 5


def test_threshold_changes_the_knockout(dutch_blame):
    at = run_page(threshold="0.9")
    assert_clean(at)
    assert at.select_slider(key="threshold").value == 0.9
    knocked = sum(1 for b in dutch_blame.values() if b.blame > 0 and b.ratio >= 0.9)
    assert metric(at, "Knocked out |M†|").value == f"{knocked:,}"
    assert "B(m) = 0.9 · N(m)" in trace_names(chart(at, "Blame B(m) against"))
    assert [s["x0"] for s in chart(at, "Blame ratio R(m)")["layout"]["shapes"]] == [0.9]


@pytest.mark.parametrize("bad", ["abc", "2", "0.51", "<b>"])
def test_bad_threshold_in_the_url_falls_back(bad):
    at = run_page(threshold=bad)
    assert not at.exception
    assert at.select_slider(key="threshold").value == 0.5


@pytest.mark.parametrize("query", [
    {"view": "no such tab"}, {"view": CORPUS, "lines": "-5"}, {"view": CORPUS, "lines": "<script>"},
    {"view": CORPUS, "alpha": "99"}, {"view": CORPUS, "alpha": "nan"},
    {"view": CORPUS, "compare": "../../etc/passwd"}, {"tokeniser": "<b>nope</b>"},
])
def test_hostile_links_fall_back_to_defaults(query):
    at = run_page(**query)
    assert_clean(at)
    assert at.get("plotly_chart")
    if query.get("view") == CORPUS:
        assert at.slider(key="alpha").value == 2.5
        assert any(m.value == "Summary over 3,000 lines" for m in at.subheader)
        assert at.multiselect(key="compare").value == []


def test_linear_scatter_axis():
    at = run_page()
    at.toggle(key="blame_log_x").set_value(False).run()
    assert_clean(at)
    assert chart(at, "Blame B(m) against")["layout"]["xaxis"]["type"] == "linear"


# --- the corpus tab --------------------------------------------------------------------------------
def renyi_marker(spec: dict, label: str) -> tuple[float, float]:
    trace = next(t for t in spec["data"] if t["name"].startswith(f"{label} at α"))
    return trace["x"][0], trace["y"][0]


def summary_row(at: AppTest, metric_name: str) -> dict:
    table = at.dataframe[0].value
    row = table[table["metric"] == metric_name]
    assert len(row) == 1, (metric_name, list(table["metric"]))
    return row.iloc[0].to_dict()


def test_corpus_tab_renders_and_alpha_changes_renyi():
    at = run_page(view=CORPUS)
    assert_clean(at)
    labels = ["nl-40k", "nl-40k + knockout", "nl-40k + ReBPE"]
    assert any(m.value == "Summary over 3,000 lines" for m in at.subheader)
    assert at.slider(key="alpha").value == 2.5
    zipf = chart(at, "Zipf plot")
    assert trace_names(zipf) == labels
    assert zipf["layout"]["xaxis"]["type"] == "log" and zipf["layout"]["yaxis"]["type"] == "log"
    frequency = chart(at, "Token-frequency curve")
    assert trace_names(frequency) == labels
    assert frequency["data"][0]["x"][-1] == 40_000  # every type of the vocabulary, unused at 0
    assert frequency["data"][0]["y"][-1] == 0
    metrics = chart(at, "Corpus metrics per tokeniser")
    assert {t["name"] for t in metrics["data"]} == set(labels)

    # the loaded tokeniser's numbers are core's on the first 3,000 lines
    stats = cm.token_counts(load_tokeniser(DUTCH_40K), list(running_text())[:3000])
    expected = cm.summary(stats, 2.5)
    renyi = chart(at, "Rényi efficiency against α")
    assert renyi_marker(renyi, "nl-40k") == pytest.approx((2.5, expected["renyi_efficiency"]))
    assert [s["x0"] for s in renyi["layout"]["shapes"]] == [2.5]
    assert summary_row(at, "Rényi efficiency (α = 2.5)")["nl-40k"] == f"{expected['renyi_efficiency']:.3f}"
    assert summary_row(at, "tokens")["nl-40k"] == f"{stats.tokens:,}"
    assert zipf["data"][0]["y"][0] == max(stats.counts.values())

    at.slider(key="alpha").set_value(1.0).run()
    assert_clean(at)
    renyi = chart(at, "Rényi efficiency against α")
    shannon = 1 - expected["redundancy"]  # Rényi efficiency at α = 1
    assert renyi_marker(renyi, "nl-40k") == pytest.approx((1.0, shannon))
    assert [s["x0"] for s in renyi["layout"]["shapes"]] == [1.0]
    assert "α = 1" in renyi["layout"]["title"]["text"]
    assert summary_row(at, "Rényi efficiency (α = 1)")["nl-40k"] == f"{shannon:.3f}"
    bars = chart(at, "Corpus metrics per tokeniser")
    assert "Rényi efficiency (α = 1)" in [a["text"] for a in bars["layout"]["annotations"]]


def test_corpus_size_and_extra_tokenisers():
    at = run_page(view=CORPUS, lines="500")
    assert_clean(at)
    assert any(m.value == "Summary over 500 lines" for m in at.subheader)
    at.multiselect(key="compare").set_value(["en-bpe-4k-wordfreq"]).run()
    assert_clean(at)
    assert trace_names(chart(at, "Zipf plot"))[-1] == "en-bpe-4k-wordfreq"
    stats = cm.token_counts(load_tokeniser(ROOT / "sample_data/tokenisers/en-bpe-4k-wordfreq.json"),
                            list(running_text())[:500])
    assert summary_row(at, "tokens")["en-bpe-4k-wordfreq"] == f"{stats.tokens:,}"


# --- other shipped data ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["a1_scenario2a", "a3_moving_merges", "en-bpe-4k-wordfreq"])
@pytest.mark.parametrize("view", ["Merge blame", CORPUS])
def test_other_shipped_tokenisers_render(name, view):
    at = run_page(tokeniser=name, view=view)
    assert_clean(at)
    assert at.get("plotly_chart")
    assert f"**{md_escape(name)}**" in at.caption[0].value
