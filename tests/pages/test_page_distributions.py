"""The Blame & distributions page through AppTest, on the shipped data (tokeniser nl-40k, reference
nl_morph, the nl_wordfreq counts and the python-docs running text): it renders without exception,
its controls work, only the chosen view computes, the corpus view reads text in the tokeniser's
language by default, the sweep's caption says what its figure shows, and the token-frequency view
shows core.analysis.compare's differences.

The numbers themselves are tested in core (test_diagnostics, test_corpus_metrics, test_compare) and
the figures in test_plots; here we check the wiring: the page shows the engine's results for the
loaded data. Caches are cleared once for this module (not per test): the first runs knock out,
sweep 19 thresholds and run ReBPE on the Dutch 40k, which takes a while.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.analysis import corpus_metrics as cm
from core.analysis.compare import token_frequency_differences
from core.edits.blame import compute_blame
from core.edits.diagnostics import threshold_sweep
from core.edits.rebpe import run_knockout
from core.edits.reference_state import TokenisedReference
from core.formats.corpora import load_word_counts
from core.formats.samples import DUTCH_40K, count_paths, reference_paths, running_text
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references
from tests.apptest_support import assert_clean
from tests.apptest_support import run_page as run_at
from viz.escaping import md_escape

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/distributions.py"
TIMEOUT = 180
pytestmark = pytest.mark.usefixtures("module_streamlit_caches")


def run_page(**query) -> AppTest:
    return run_at(PAGE, timeout=TIMEOUT, via_app=True, **query)


BLAME, SWEEP, CORPUS, TOKENS = "Merge blame", "Threshold sweep", "Corpus distributions", "Token frequencies"
RUNNING_TEXT = "running text"
PYTHON_DOCS = "python-docs (English, stdlib pydoc_data)"
THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 20)]


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


# --- the blame view --------------------------------------------------------------------------------
def test_blame_view_renders_with_defaults(dutch_blame):
    at = run_page()
    assert_clean(at)
    assert at.title[0].value == "Blame & distributions"
    assert at.segmented_control(key="view").value == BLAME
    assert at.select_slider(key="threshold").value == 0.5
    shown = charts(at)
    assert len(shown) == 4, list(shown)  # the sweep is a view of its own
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
    ranks = chart(at, "Positions of the knocked-out merges")
    assert sum(ranks["data"][0]["y"]) == knocked
    changes = chart(at, "Change in tokens per word")
    assert sum(changes["data"][0]["y"]) == len(load_references(reference_paths()["nl_morph"]).entries)
    assert metric(at, "Effective dropout").value.endswith("%")
    # ranks in the merge table are integers written through viz.ranks
    table = at.dataframe[0].value
    assert table["rank"].str.fullmatch(r"#\d+").all()
    # downloads: CSV and HTML for each figure
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("Figure (HTML)") == 4 and labels.count("Data (CSV)") == 4


@pytest.mark.slow
def test_the_sweep_view_and_its_caption_say_what_the_figure_shows(dutch_blame):
    at = run_page(view=SWEEP)
    assert_clean(at)
    sweep = chart(at, "Knockout at every threshold")
    removed = next(t for t in sweep["data"] if t["name"] == "merges knocked out")
    assert removed["x"] == pytest.approx(THRESHOLDS)
    knocked = sum(1 for b in dutch_blame.values() if b.blame > 0 and b.ratio >= 0.5)
    assert removed["y"][9] == knocked  # threshold 0.5
    assert removed["y"] == sorted(removed["y"], reverse=True)
    assert {"precision", "recall", "F1"} <= set(trace_names(sweep))
    # the caption is read off the same numbers, computed here by core
    tokeniser = load_tokeniser(DUTCH_40K)
    rows = threshold_sweep(
        TokenisedReference(tokeniser, load_references(reference_paths()["nl_morph"]).entries), THRESHOLDS
    )
    precision = next(t for t in sweep["data"] if t["name"] == "precision")["y"]
    assert precision == pytest.approx([r["precision"] for r in rows])
    best = max(rows, key=lambda r: r["precision"])
    caption = next(c.value for c in at.caption if c.value.startswith("Each threshold"))
    assert f"is highest at t = {best['threshold']:g} ({best['precision']:.1%})" in caption
    assert f"from {rows[0]['precision']:.1%} at t = 0.05 to {rows[-1]['precision']:.1%} at t = 0.95" in caption
    near_half = abs(best["threshold"] - 0.5) <= 0.05
    assert ("as here" in caption) == near_half and ("it does not" in caption) == (not near_half)
    assert "peaks near 0.5" not in caption or near_half


@pytest.mark.slow
def test_the_sweep_and_the_corpus_statistics_are_kept_on_disk():
    """By the content of their inputs (ui.result_cache): a fresh server process reads them back. The
    default workspace's sweep ships precomputed (scripts/precompute_samples.py); its corpus statistics
    are written to the disk cache."""
    from core.edits.archive import content_key, references_digest, tokeniser_digest, words_digest
    from tests.apptest_support import clear_streamlit_caches
    from ui.result_cache import PRECOMPUTED_DIR, file_name, results_dir

    tokeniser = load_tokeniser(DUTCH_40K)
    entries = load_references(reference_paths()["nl_morph"]).entries
    sweep = PRECOMPUTED_DIR / file_name(
        content_key("sweep", tokeniser_digest(tokeniser), references_digest(entries), repr(tuple(THRESHOLDS)))
    )
    counts = load_word_counts(count_paths()["nl_wordfreq"])
    stats = results_dir() / file_name(
        content_key("corpus-stats", tokeniser_digest(tokeniser), words_digest(f"{w}\t{c}" for w, c in counts.items()))
    )
    first = chart(run_page(view=SWEEP), "Knockout at every threshold")
    run_page(view=CORPUS)
    assert sweep.is_file() and stats.is_file()
    clear_streamlit_caches()  # as after a restart: only the disk has them
    again = run_page(view=SWEEP)
    assert_clean(again)
    assert chart(again, "Knockout at every threshold")["data"] == first["data"]


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


@pytest.mark.parametrize(
    "query",
    [
        {"view": "no such tab"},
        {"view": CORPUS, "text": RUNNING_TEXT, "lines": "-5"},
        {"view": CORPUS, "text": RUNNING_TEXT, "lines": "<script>"},
        {"view": CORPUS, "text": "<b>x</b>"},
        {"view": CORPUS, "text": RUNNING_TEXT, "alpha": "99"},
        {"view": CORPUS, "text": RUNNING_TEXT, "alpha": "nan"},
        {"view": CORPUS, "text": RUNNING_TEXT, "compare": "../../etc/passwd"},
        {"tokeniser": "<b>nope</b>"},
    ],
)
def test_hostile_links_fall_back_to_defaults(query):
    at = run_page(**query)
    assert_clean(at)
    assert at.get("plotly_chart")
    if query.get("view") == CORPUS:
        assert at.slider(key="alpha").value == 2.5
        expected = "Summary over " + md_escape(
            f"3,000 lines of {PYTHON_DOCS}" if query.get("text") == RUNNING_TEXT else "the 40,000 words of nl_wordfreq"
        )
        assert any(m.value == expected for m in at.subheader)
        assert at.multiselect(key="compare").value == []
    else:
        assert at.segmented_control(key="view").value == BLAME


@pytest.mark.parametrize("query", [{"token_a": "../../etc/passwd"}, {"token_b": "<b>x</b>"}, {"token_words": "nope"}])
def test_hostile_token_view_links_fall_back_with_a_warning(query):
    at = run_page(**{"view": TOKENS, "token_words": "reference", **query})
    assert_clean(at)
    assert len(at.warning) == 1 and "default is used" in at.warning[0].value
    assert at.selectbox(key="token_a").value == "nl-40k"
    assert at.selectbox(key="token_b").value == "nl-40k after knockout"


def test_linear_scatter_axis():
    at = run_page()
    at.toggle(key="blame_log_x").set_value(False).run()
    assert_clean(at)
    assert chart(at, "Blame B(m) against")["layout"]["xaxis"]["type"] == "linear"


# --- the corpus view -------------------------------------------------------------------------------
def renyi_marker(spec: dict, label: str) -> tuple[float, float]:
    trace = next(t for t in spec["data"] if t["name"].startswith(f"{label} at α"))
    return trace["x"][0], trace["y"][0]


def summary_row(at: AppTest, metric_name: str) -> dict:
    table = at.dataframe[0].value
    row = table[table["metric"] == metric_name]
    assert len(row) == 1, (metric_name, list(table["metric"]))
    return row.iloc[0].to_dict()


def test_corpus_view_reads_the_word_counts_of_the_tokenisers_language():
    """The Workspace corpus (the Python docs) is English: the Dutch 40k reads the Dutch counts, and says why."""
    at = run_page(view=CORPUS)
    assert_clean(at)
    assert at.selectbox(key="text").value == "nl_wordfreq"
    why = [c.value for c in at.caption if md_escape("is English, but the tokeniser nl-40k is Dutch") in c.value]
    assert why and "reads the shipped " + md_escape("word counts nl_wordfreq (Dutch)") + " instead" in why[0]
    assert not at.warning
    assert any(m.value == f"Summary over {md_escape('the 40,000 words of nl_wordfreq')}" for m in at.subheader)
    labels = ["nl-40k", "nl-40k + knockout", "nl-40k + ReBPE"]
    assert trace_names(chart(at, "Zipf plot")) == labels
    stats = cm.word_count_stats(load_tokeniser(DUTCH_40K), load_word_counts(count_paths()["nl_wordfreq"]))
    expected = cm.summary(stats, 2.5)
    assert summary_row(at, "tokens")["nl-40k"] == f"{stats.tokens:,}"
    assert summary_row(at, "vocabulary used")["nl-40k"] == f"{expected['vocabulary_used']:.1%}"
    assert expected["vocabulary_used"] > 0.5  # the English running text uses 5.5 % of this vocabulary
    assert summary_row(at, "|V|")["nl-40k"] == "40,000"


def test_an_english_tokeniser_reads_the_workspace_corpus():
    at = run_page(view=CORPUS, tokeniser="en-bpe-4k-wordfreq", reference="en_morph")
    assert_clean(at)
    assert at.selectbox(key="text").value == RUNNING_TEXT
    assert any(m.value == f"Summary over {md_escape(f'3,000 lines of {PYTHON_DOCS}')}" for m in at.subheader)
    assert not at.warning and not [c for c in at.caption if "instead" in c.value]
    at.selectbox(key="text").set_value("nl_wordfreq").run()
    assert md_escape("nl_wordfreq is Dutch, but the tokeniser en-bpe-4k-wordfreq is English") in at.warning[0].value


def test_a_dutch_tokeniser_on_the_english_corpus_is_warned_about():
    at = run_page(view=CORPUS, text=RUNNING_TEXT, lines="250")
    assert_clean(at)
    assert md_escape(f"The Workspace corpus {PYTHON_DOCS} is English, but the tokeniser nl-40k is Dutch") in (
        at.warning[0].value
    )


@pytest.fixture
def uploaded_corpus():
    """Put a corpus into the server's upload store; returns its link value (``upload:<id>``)."""
    from ui.upload_store import Upload, put

    return lambda name, text: f"upload:{put(Upload('corpus', ((name, text.encode()),)))}"


def test_an_uploaded_corpus_is_the_default_text(uploaded_corpus):
    lines = ["de bruidsjurk van de bruid", "een jurk en een bruid"]
    at = run_page(view=CORPUS, corpus=uploaded_corpus("mijn.txt", "\n".join(lines)))
    assert_clean(at)
    assert at.selectbox(key="text").value == RUNNING_TEXT and not at.warning  # its language is unknown
    assert any(m.value == f"Summary over {md_escape('2 lines of upload: mijn.txt')}" for m in at.subheader)
    expected = cm.token_counts(load_tokeniser(DUTCH_40K), lines)
    assert summary_row(at, "tokens")["nl-40k"] == f"{expected.tokens:,}"


def test_an_uploaded_word_count_list_is_read_as_counts(uploaded_corpus):
    counts = {"bruidsjurk": 7, "jurk": 3}
    text = "\n".join(f"{w}\t{c}" for w, c in counts.items())
    at = run_page(view=CORPUS, corpus=uploaded_corpus("tellingen.tsv", text))
    assert_clean(at)
    assert any(m.value == f"Summary over {md_escape('the 2 words of upload: tellingen.tsv')}" for m in at.subheader)
    expected = cm.word_count_stats(load_tokeniser(DUTCH_40K), counts)
    assert summary_row(at, "tokens")["nl-40k"] == f"{expected.tokens:,}"


def test_corpus_view_on_running_text_and_alpha_changes_renyi():
    at = run_page(view=CORPUS, text=RUNNING_TEXT)
    assert_clean(at)
    labels = ["nl-40k", "nl-40k + knockout", "nl-40k + ReBPE"]
    assert any(m.value == f"Summary over {md_escape(f'3,000 lines of {PYTHON_DOCS}')}" for m in at.subheader)
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
    at = run_page(view=CORPUS, text=RUNNING_TEXT, lines="500")
    assert_clean(at)
    assert any(m.value == f"Summary over {md_escape(f'500 lines of {PYTHON_DOCS}')}" for m in at.subheader)
    at.multiselect(key="compare").set_value(["en-bpe-4k-wordfreq"]).run()
    assert_clean(at)
    assert trace_names(chart(at, "Zipf plot"))[-1] == "en-bpe-4k-wordfreq"
    stats = cm.token_counts(
        load_tokeniser(ROOT / "sample_data/tokenisers/en-bpe-4k-wordfreq.json"), list(running_text())[:500]
    )
    assert summary_row(at, "tokens")["en-bpe-4k-wordfreq"] == f"{stats.tokens:,}"


# --- token frequencies of two tokenisers -------------------------------------------------------------
@pytest.mark.slow
def test_token_frequency_view_shows_core_differences_by_default():
    """Defaults: the workspace tokeniser against itself after knockout, over the counts of its language."""
    at = run_page(view=TOKENS)
    assert_clean(at)
    assert at.selectbox(key="token_a").value == "nl-40k"
    assert at.selectbox(key="token_b").value == "nl-40k after knockout"
    assert at.selectbox(key="token_words").value == "nl_wordfreq"
    assert not at.get("plotly_chart")  # the other views did not run
    tokeniser = load_tokeniser(DUTCH_40K)
    knocked = run_knockout(tokeniser, load_references(reference_paths()["nl_morph"]).entries).tokeniser
    expected = token_frequency_differences(tokeniser, knocked, load_word_counts(count_paths()["nl_wordfreq"]))
    table = at.dataframe[0].value
    assert len(table) == len(expected)
    display = tokeniser.pretokeniser.display
    assert list(table["difference"][:20]) == [r["difference"] for r in expected[:20]]
    assert list(table["frequency A"][:20]) == [r["frequency_a"] for r in expected[:20]]
    assert list(table["token"][:5]) == [display(r["token"]) for r in expected[:5]]
    assert at.query_params["token_b"] == "nl-40k after knockout"


def test_token_frequency_view_of_a_tokeniser_against_itself():
    at = run_page(view=TOKENS, token_b="nl-40k", token_words="reference")
    assert_clean(at)
    assert at.success and "equally often" in at.success[0].value
    assert not at.dataframe


def test_token_frequencies_read_the_workspace_corpus_in_the_tokenisers_language():
    at = run_page(view=TOKENS, tokeniser="en-bpe-4k-wordfreq", reference="en_morph", token_b="en-bpe-4k-wordfreq")
    assert_clean(at)
    assert at.selectbox(key="token_words").value == "corpus"
    assert any(c.value == f"Reading the {md_escape(f'Workspace corpus {PYTHON_DOCS}')}." for c in at.caption)
    at = run_page(view=TOKENS, token_b="nl-40k", token_words="corpus")  # Dutch on English text: said
    assert md_escape("is English, but the tokeniser nl-40k is Dutch") in at.warning[0].value


# --- other shipped data ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["a1_scenario2a", "a3_moving_merges", "en-bpe-4k-wordfreq"])
@pytest.mark.parametrize("view", [BLAME, SWEEP, CORPUS, TOKENS])
def test_other_shipped_tokenisers_render(name, view):
    at = run_page(tokeniser=name, view=view, token_words="reference")
    assert_clean(at)
    assert at.get("plotly_chart") or at.dataframe or at.success
    assert f"**{md_escape(name)}**" in at.caption[0].value
