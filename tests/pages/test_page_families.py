"""The Train & compare and Training dynamics pages through AppTest."""

from __future__ import annotations

import json
import math
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.families import registry
from tests.apptest_support import assert_clean, run_page
from tests.pages.test_page_merge_graph import recorded_figures
from viz.escaping import md_escape
from viz.trees import svg_from_html

COMPARE, DYNAMICS = "pages/train_compare.py", "pages/training_dynamics.py"
TIMEOUT = 300
pytestmark = pytest.mark.usefixtures("module_streamlit_caches")


def variant_rows(at: AppTest) -> dict[str, list[str]]:
    """algorithm -> the token chips' data-token values of its row."""
    out = {}
    for block in (h.value for h in at.html if 'class="variant-row"' in h.value):
        name = re.search(r'data-algorithm="([^"]+)"', block).group(1)
        out[name] = [re.sub("&#x27;", "'", t) for t in re.findall(r'data-token="([^"]*)"', block)]
    return out


def test_every_family_is_trained_and_compared_on_the_same_corpus():
    at = run_page(COMPARE, timeout=TIMEOUT, via_app=True, size="300", lines="200", text="of the of the cat")
    assert_clean(at)
    summary = at.dataframe[0].value
    assert list(summary["tokeniser"]) == list(registry.ALGORITHMS)
    assert (summary["|V|"] <= 300).all() and (summary["|V|"] > 256).all()
    rows = variant_rows(at)
    assert list(rows) == list(registry.ALGORITHMS)
    # every family spells the text (byte-level: a space is Ġ)
    assert all("".join(tokens).replace("Ġ", " ") == "of the of the cat" for tokens in rows.values()), rows
    overlap = at.dataframe[1].value
    n = len(registry.ALGORITHMS)
    assert len(overlap) == n * (n - 1) // 2 and overlap["jaccard"].between(0, 1).all()
    assert len(at.expander) >= n


def test_one_family_from_the_url_and_its_trace():
    at = run_page(COMPARE, timeout=TIMEOUT, via_app=True, algorithms="bpe", size="300", lines="200", text="lowest")
    assert_clean(at)
    assert list(variant_rows(at)) == ["bpe"]
    trace = at.dataframe[-1].value
    assert list(trace.columns) == ["step", "kind", "operation", "tokens after"]
    assert set(trace["kind"]) == {"merge"}
    assert trace["tokens after"].iloc[-1].replace(" ", "") == "".join(variant_rows(at)["bpe"])


def test_dynamics_scrubs_through_the_training_log_and_keeps_the_step_in_the_url():
    at = run_page(DYNAMICS, timeout=TIMEOUT, via_app=True, algorithm="bpe", size="300", lines="200")
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert list(metrics) == ["merge"] and int(metrics["merge"]) == 300 - 256
    at.slider(key="dynamics_step").set_value(10).run()
    assert_clean(at)
    assert at.query_params["step"] == ["10"] or at.query_params["step"] == "10"
    assert any(m.value.startswith("**Step 10: merge**") for m in at.markdown)
    log = at.dataframe[0].value
    assert len(log) == 44 and list(log["|V| after"]) == list(range(257, 301))


def test_dynamics_of_boundless_shows_supermerges_and_why_it_ends_under_its_target():
    at = run_page(DYNAMICS, timeout=TIMEOUT, via_app=True, algorithm="boundless", size="400", lines="500")
    assert_clean(at)
    metrics = {m.label: int(m.value.replace(",", "")) for m in at.metric}
    assert metrics["merge"] > 0 and metrics.get("supermerge", 0) > 0 and metrics["deletion"] > 0
    final = at.dataframe[0].value["|V| after"].iloc[-1]
    kept = 256 + metrics["merge"] + metrics["supermerge"] - final  # slots held by deleted tokens
    assert final < 400 and kept > 0
    [note] = [i.value for i in at.info if "for a target" in i.value]
    assert note.startswith(
        md_escape(
            f"|V| {final} for a target of 400: {kept} of the 400 vocabulary slots (256 bytes + "
            f"{metrics['merge']} merges + {metrics['supermerge']} supermerges) belong to tokens "
            f"deleted during training ({metrics['deletion']} deletions)."
        )
    ), note
    sizes = json.loads(at.get("plotly_chart")[1].proto.spec)["data"]
    assert [t["name"] for t in sizes] == ["|V|", "slots filled (deleted tokens keep theirs)"]
    assert sizes[0]["y"][-1] == final and sizes[1]["y"][-1] == 400


def test_compare_explains_the_boundless_shortfall_and_nothing_else():
    at = run_page(COMPARE, timeout=TIMEOUT, via_app=True, algorithms=["bpe", "boundless"], size="300", lines="200")
    assert_clean(at)
    sizes = dict(zip(at.dataframe[0].value["tokeniser"], at.dataframe[0].value["|V|"], strict=True))
    assert sizes["bpe"] == 300 and sizes["boundless"] < 300
    notes = [i.value for i in at.info if "for a target" in i.value]
    assert len(notes) == 1 and notes[0].startswith(
        "**boundless**: "
        + md_escape(
            f"|V| {sizes['boundless']} for a target of 300: {300 - sizes['boundless']} of the 300 vocabulary slots"
        )
    ), notes


def test_a_bad_step_in_the_url_is_named():
    at = run_page(DYNAMICS, timeout=TIMEOUT, via_app=True, algorithm="bpe", size="300", lines="200", step="999")
    assert_clean(at)
    assert any("no step 999" in w.value for w in at.warning)


UNIGRAM = "pages/unigram.py"


def test_unigram_lattice_viterbi_and_comparison():
    with recorded_figures() as figures:
        at = run_page(UNIGRAM, timeout=TIMEOUT, via_app=True, size="400", lines="200", word="assertions")
    assert_clean(at)
    svg = svg_from_html(next(h.value for h in at.html if 'class="lattice-view"' in h.value))
    assert figures["lattice_figure"] == ("unigram-lattice-unigram-Ġassertions", svg)  # the download is the figure
    chips = next(h.value for h in at.html if 'class="tok-chip"' in h.value and "lattice" not in h.value)
    viterbi = re.findall(r'data-token="([^"]*)"', chips)
    assert "".join(viterbi) == "Ġassertions"
    assert svg.count('class="arc viterbi"') == len(viterbi)  # the highlighted spans are the segmentation
    assert at.title[0].value == "Unigram lattice and Viterbi segmentation"
    best = at.dataframe[0].value
    assert list(best.columns) == ["rank", "segmentation", "log-probability", "probability"]
    assert list(best["rank"]) == [1, 2, 3, 4, 5]
    assert list(best["segmentation"].iloc[0]) == viterbi  # the best of the n-best is the Viterbi path, as tokens
    assert all("".join(tokens) == "Ġassertions" for tokens in best["segmentation"])
    assert list(best["log-probability"]) == sorted(best["log-probability"], reverse=True)
    # P(x) / Z: the same order, each a share of all segmentations (they sum to at most 1)
    ratios = [p / math.exp(lp) for p, lp in zip(best["probability"], best["log-probability"], strict=True)]
    assert ratios == pytest.approx([ratios[0]] * 5) and 0 < best["probability"].sum() <= 1 + 1e-9
    comparison = at.dataframe[-1].value
    assert list(comparison["tokeniser"]) == ["unigram", "unigram-fsp", "bpe"]
    assert comparison["boundary recall"].between(0, 1).all() and (comparison["|V|"] <= 400).all()
    assert all("".join(tokens) == "Ġassertions" for tokens in comparison["tokens for “assertions”"])
    assert len(at.get("plotly_chart")) == 3  # |V|, objective, tokens per round


def test_unigram_samples_spell_the_word():
    at = run_page(UNIGRAM, timeout=TIMEOUT, via_app=True, size="400", lines="200", word="identifier", alpha="0.0")
    assert_clean(at)
    samples = at.dataframe[1].value
    assert list(samples.columns) == ["draw", "segmentation", "log-probability", "probability"]
    assert len(samples) == 5 and all("".join(tokens) == "Ġidentifier" for tokens in samples["segmentation"])
    assert len(set(map(tuple, samples["segmentation"]))) > 1  # α = 0: uniform over segmentations, so draws differ
    assert samples["probability"].between(0, 1).all()


@pytest.mark.parametrize(
    "algorithm, kinds",
    [("scaffold", {"merge", "scaffold", "readmit"}), ("picky", {"merge", "split"}), ("unigram", {"round", "prune"})],
)
def test_dynamics_names_each_familys_events(algorithm, kinds):
    at = run_page(DYNAMICS, timeout=TIMEOUT, via_app=True, algorithm=algorithm, size="400", lines="500")
    assert_clean(at)
    metrics = {m.label: int(m.value.replace(",", "")) for m in at.metric}
    assert kinds <= set(metrics) and all(metrics[k] > 0 for k in kinds), metrics
    log = at.dataframe[0].value
    assert set(log["kind"]) == set(metrics) and len(log) == sum(metrics.values())
