"""Unigram lattice: a word's lattice and Viterbi path, the training trajectory, and Unigram vs FSP vs BPE.

[unigram §2-4]: every vocabulary piece that matches the word is an arc of the lattice with its
log-probability; the Viterbi path is the segmentation; forward-backward gives the probability of a
token boundary at every position and log Z, so the n best segmentations and the samples (subword
regularisation) are tables with each segmentation's probability among all of the word's. The
models are trained on the workspace corpus (shared with Train & compare, ui/family_runs.py);
the comparison with BPE scores boundary precision/recall against a reference ([knockout
§4.1]). The view (word, size, lines, reference, α) is in the URL. A Unigram tokeniser loaded on the
Workspace page (e.g. a SentencePiece unigram ``.model``) is offered too, as the model ``loaded``.
"""

from __future__ import annotations

import math
import random

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.errors import InputError
from core.references.evaluation import evaluate_morphology
from ui.downloads import figure_downloads
from ui.family_runs import corpus_key as make_corpus_key
from ui.family_runs import train_with_progress, training_lines
from ui.references_corpora import sample_references
from ui.workspace import current
from ui.workspace_choices import SAMPLE_REFERENCES
from viz.escaping import md_escape
from viz.lattice import lattice_svg
from viz.tokeniser_info import VOCAB_SIZE_HELP
from viz.tokens import PAGE_CSS, shown, token_chips_html
from viz.trees import svg_html

SIZES = (300, 400, 500, 750, 1000, 1500, 2000, 3000, 4000)
LINE_CHOICES = (200, 500, 1000, 2000, 5000, 10000)
FAMILIES = ("unigram", "unigram-fsp", "bpe")
LOADED = "loaded"
SAMPLES = 5
NBEST = 5
CHART_CONFIG = {"displaylogo": False}
SEGMENTATION_COLUMNS = {
    "segmentation": st.column_config.ListColumn("segmentation", help="The tokens, in order (lattice arcs)."),
    "log-probability": st.column_config.NumberColumn(
        "log-probability", format="%.3f", help="log P(x) = the sum of the tokens' log-probabilities (Eq. 1)."
    ),
    "probability": st.column_config.NumberColumn(
        "probability",
        format="%.4g",
        help="P(x) / Z: this segmentation's share of all segmentations of the pretoken (Z from forward-backward).",
    ),
}


@st.cache_data(show_spinner="Scoring boundaries against the reference…", max_entries=32)
def morph_scores(algorithm: str, key: str, size: int, reference: str, _tokeniser) -> dict:
    return evaluate_morphology(_tokeniser, sample_references(SAMPLE_REFERENCES[reference]).entries).to_json()


def segmentation_rows(first: str, paths, log_z: float, display) -> list[dict]:
    """One row per lattice path, numbered 1, 2 ... in column ``first``: its tokens, log P(x) and P(x) / Z."""
    rows = []
    for number, path in enumerate(paths, 1):
        log_p = sum(arc.log_prob for arc in path)
        rows.append(
            {
                first: number,
                "segmentation": [shown(arc.token, display) for arc in path],
                "log-probability": log_p,
                "probability": math.exp(log_p - log_z),
            }
        )
    return rows


def trajectory_figure(rounds: list[dict], field: str, title: str) -> go.Figure:
    fig = go.Figure(
        go.Scatter(
            x=list(range(1, len(rounds) + 1)),
            y=[r[field] for r in rounds],
            mode="lines+markers",
            hovertemplate="round %{x}<br>%{y:,.4g}<extra></extra>",
        )
    )
    fig.update_layout(
        title=title,
        height=280,
        margin=dict(l=50, r=10, t=50, b=40),
        xaxis_title="round",
        plot_bgcolor="white",
        font=dict(size=14),
    )
    return fig


st.html(PAGE_CSS)
st.title("Unigram lattice and Viterbi segmentation")
st.caption(
    "Every vocabulary piece that matches the word is an arc of its lattice, scored by its log-probability; "
    "the most probable path (Viterbi) is the segmentation ([unigram §2-3])."
)
ws = current()
all_lines = training_lines()
top = st.columns([2, 2, 2, 2])
size = top[0].select_slider("Vocabulary size", SIZES, value=500, key="size", bind="query-params")
line_choices = [n for n in LINE_CHOICES if n < len(all_lines)] + [len(all_lines)]
n_lines = top[1].select_slider(
    "Corpus lines",
    line_choices,
    value=min(line_choices, key=lambda n: abs(n - 1000)),
    key="lines",
    bind="query-params",
    help=f"The first lines of {md_escape(ws.corpus_name)}.",
)
loaded_unigram = callable(getattr(ws.tokeniser, "lattice", None))  # the workspace's tokeniser has a lattice
models = FAMILIES[:2] + ((LOADED,) if loaded_unigram else ())
model_name = top[2].segmented_control(
    "Model",
    models,
    default="unigram",
    key="model",
    bind="query-params",
    required=True,
    help="unigram-fsp prunes by flat score ([unigram §4])"
    + (f"; loaded: {md_escape(ws.tokeniser_name)} from the Workspace page" if loaded_unigram else ""),
)
if model_name not in models:  # e.g. ?model=loaded while the workspace holds no Unigram tokeniser
    model_name = "unigram"
references = list(SAMPLE_REFERENCES)
reference = top[3].selectbox(
    "Reference",
    references,
    index=references.index("en_morph") if "en_morph" in references else 0,
    key="reference_for_unigram",
    bind="query-params",
    help="Segmentations whose boundaries the comparison below scores.",
)
lines = all_lines[:n_lines]
key = make_corpus_key(ws.corpus_name, lines)
runs = train_with_progress(list(FAMILIES), key, size, lines)
if model_name == LOADED:
    model = ws.tokeniser
elif model_name in runs:
    model = runs[model_name][0].tokeniser
else:
    st.stop()
if not loaded_unigram:
    st.caption(
        f"The lattice is a Unigram model's: the workspace's tokeniser ({md_escape(ws.tokeniser.kind)}) has "
        "none, so the models here are trained on the workspace corpus."
    )

# --- the lattice of a word --------------------------------------------------------------------------
st.subheader("The lattice of a word")
if "word" not in st.session_state and "word" not in st.query_params:
    st.session_state["word"] = "tokenisation"
word = st.text_input(
    "Word",
    key="word",
    bind="query-params",
    max_chars=40,
    help="As in running text: a space before it, so it carries the word-start byte Ġ.",
)
pretokens = [p for p in model.pretokeniser.pretokenise(" " + word) if p] if word else []
if not pretokens:
    st.info("Type a word.")
else:
    pretoken = pretokens[0]
    if len(pretokens) > 1:
        pretoken = st.radio(
            "Pretoken",
            pretokens,
            horizontal=True,
            key="pretoken",
            format_func=lambda p: md_escape(model.pretokeniser.display(p)),
        )  # options are markdown
    lattice = model.lattice(pretoken)
    path, best = lattice.viterbi()
    log_z = lattice.log_partition()
    display = model.pretokeniser.display
    st.html(token_chips_html([a.token for a in path], display, types=model.vocabulary))
    st.caption(
        f"Viterbi log p = {best:.3f}; log Z = {log_z:.3f} (all segmentations); "
        f"{len(lattice.arcs)} arcs. Yellow spans: the Viterbi path. Bars: P(token boundary here)."
    )
    svg = lattice_svg(lattice, display)
    st.html(f'<div class="lattice-view">{svg_html(svg, alt="segmentation lattice")}</div>')
    figure_downloads(f"unigram-lattice-{model_name}-{display(pretoken)}", svg, key="lattice_figure")
    st.markdown(f"**The {NBEST} best segmentations**")
    st.dataframe(
        pd.DataFrame(segmentation_rows("rank", [p for p, _ in lattice.nbest(NBEST)], log_z, display)),
        hide_index=True,
        width="stretch",
        column_config=SEGMENTATION_COLUMNS,
    )
    heading, slider = st.columns([3, 2], vertical_alignment="bottom")
    heading.markdown(f"**{SAMPLES} samples** (seed 0): subword regularisation draws segmentations ∝ P(x)^α")
    alpha = slider.slider(
        "Sampling α",
        0.0,
        2.0,
        0.2,
        0.05,
        key="alpha",
        bind="query-params",
        help="α = 0: uniform over segmentations; the larger α, the closer to the Viterbi path.",
    )
    rng = random.Random(0)
    st.dataframe(
        pd.DataFrame(segmentation_rows("draw", [lattice.sample(alpha, rng) for _ in range(SAMPLES)], log_z, display)),
        hide_index=True,
        width="stretch",
        column_config=SEGMENTATION_COLUMNS,
    )

# --- training trajectory ----------------------------------------------------------------------------
st.subheader("Training trajectory")
rounds = runs[model_name][0].summary.get("rounds", []) if model_name in runs else []
if rounds:
    columns = st.columns(3)
    for column, (field, title) in zip(
        columns,
        [
            ("vocab_size", "|V| per round"),
            ("objective", "objective (NLL per character, Eq. 2)"),
            ("tokens", "tokens on the training corpus"),
        ],
        strict=True,
    ):
        with column:
            st.plotly_chart(trajectory_figure(rounds, field, title), config=CHART_CONFIG, key=f"chart_{field}")

# --- Unigram vs FSP vs BPE -----------------------------------------------------------------------------
st.subheader("Unigram vs FSP vs BPE")
rows = []
compared = {name: runs[name][0].tokeniser for name in FAMILIES if name in runs}
if loaded_unigram:
    compared[LOADED] = ws.tokeniser
for name, tokeniser in compared.items():
    try:
        scores = morph_scores(name, ws.tokeniser_key if name == LOADED else key, size, reference, tokeniser)
    except InputError as err:
        st.warning(f"{name}: {md_escape(err)}")
        continue
    rows.append(
        {
            "tokeniser": name,
            "|V|": tokeniser.vocab_size,
            f"tokens for “{word}”": [shown(t, tokeniser.pretokeniser.display) for t in tokeniser.tokenise_word(word)]
            if word
            else [],
            "boundary precision": round(scores["precision"], 4),
            "boundary recall": round(scores["recall"], 4),
            "F1": round(scores["f1"], 4),
            "reference words": scores["words"],
            "excluded (cannot be aligned)": scores["excluded"],
        }
    )
st.dataframe(
    pd.DataFrame(rows),
    hide_index=True,
    width="stretch",
    column_config={
        "|V|": st.column_config.NumberColumn(help=VOCAB_SIZE_HELP),
        f"tokens for “{word}”": st.column_config.ListColumn(),
    },
)
st.caption(
    f"Boundaries of the **{md_escape(reference)}** reference segmentations ([knockout §4.1]), each "
    "word segmented as in running text."
)
