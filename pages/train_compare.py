"""Train & compare: several tokeniser families trained on the same corpus to the same size, side by side.

Every family goes through the one interface (core/families): train
on the workspace corpus (its first lines), then a summary per family (size, training time,
corpus metrics), the overlap of the learned vocabularies, the Zipf and token-frequency curves, and a
text segmented by each family with its own trace (BPE merges, Scaffold-BPE demolitions, PickyBPE
splits, BoundlessBPE supermerges across pretokens, Unigram's Viterbi choice). Trained tokenisers
are cached by (family, corpus lines, size), so a second visit is instant. The view is in the URL.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.analysis import corpus_metrics as cm
from core.analysis.train_compare import vocabulary_overlap
from core.families import registry
from core.families.boundless.model import shortfall
from ui.family_runs import algorithms_help, corpus_stats, train_with_progress, training_lines
from ui.family_runs import corpus_key as make_corpus_key
from ui.workspace import current
from viz import plots
from viz.escaping import html_escape, md_escape
from viz.tokeniser_info import VOCAB_SIZE_HELP
from viz.tokens import PAGE_CSS, token_chips_html
from viz.trace_views import kind_counts, trace_html, trace_rows

SIZES = (280, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 4000)
DEFAULT_SIZE = 500
LINE_CHOICES = (200, 500, 1000, 2000, 5000, 10000)
DEFAULT_LINES = 1000
DEFAULT_TEXT = "The quick brown fox jumps over the lazy dog."
CHART_CONFIG = {"displaylogo": False}


def show_figure(fig, name: str) -> None:
    st.plotly_chart(fig, config={**CHART_CONFIG, "toImageButtonOptions": {"filename": name}}, key=f"chart_{name}")


# --- the page --------------------------------------------------------------------------------------
st.html(PAGE_CSS)
st.title("Train & compare")
ws = current()
all_lines = training_lines()

names = list(registry.ALGORITHMS)
top = st.columns([3, 2, 2])
algorithms = top[0].multiselect(
    "Tokenisers", names, default=names, key="algorithms", bind="query-params", help=algorithms_help(names)
)
size = top[1].select_slider(
    "Vocabulary size",
    SIZES,
    value=DEFAULT_SIZE,
    key="size",
    bind="query-params",
    help="The target |V| of every tokeniser (byte-level ones start from 256 bytes).",
)
line_choices = [n for n in LINE_CHOICES if n < len(all_lines)] + [len(all_lines)]
n_lines = top[2].select_slider(
    "Corpus lines",
    line_choices,
    value=min(line_choices, key=lambda n: abs(n - DEFAULT_LINES)),
    key="lines",
    bind="query-params",
    help=f"The first lines of {md_escape(ws.corpus_name)}.",
)
if not algorithms:
    st.info("Choose at least one tokeniser.")
    st.stop()
lines = all_lines[:n_lines]
corpus_key = make_corpus_key(ws.corpus_name, lines)
st.caption(
    f"Training on the first {n_lines:,} lines of **{md_escape(ws.corpus_name)}** "
    "(the Workspace page chooses the corpus)."
)

runs = train_with_progress(algorithms, corpus_key, size, lines)
if not runs:
    st.stop()

# --- summary ---------------------------------------------------------------------------------------
stats = {a: corpus_stats(a, corpus_key, size, run.tokeniser, lines) for a, (run, _) in runs.items()}
rows = []
for algorithm, (run, seconds) in runs.items():
    summary = cm.summary(stats[algorithm])
    rows.append(
        {
            "tokeniser": algorithm,
            "|V|": run.tokeniser.vocab_size,
            "training (s)": round(seconds, 2),
            "training events": len(run.events),
            "tokens": stats[algorithm].tokens,
            "bytes / token": round(summary["bytes_per_token"], 3),
            "Rényi efficiency (α=2.5)": round(summary["renyi_efficiency"], 4),
            "vocabulary used": round(summary["vocabulary_used"], 4),
        }
    )
st.subheader("Summary")
st.dataframe(
    pd.DataFrame(rows),
    hide_index=True,
    width="stretch",
    column_config={"|V|": st.column_config.NumberColumn(help=VOCAB_SIZE_HELP + f" The target is {size:,}.")},
)
for algorithm, (run, _) in runs.items():
    short = shortfall(run, size)
    if short:  # BoundlessBPE: deleted tokens keep their slots
        st.info(f"**{md_escape(algorithm)}**: {md_escape(short)}", icon=":material/info:")

left, right = st.columns(2)
with left:
    st.subheader("Shared learned vocabulary")
    overlap = vocabulary_overlap({a: run.tokeniser.vocabulary for a, (run, _) in runs.items()})
    if overlap:
        st.dataframe(pd.DataFrame(overlap).round({"jaccard": 3}), hide_index=True, width="stretch")
        st.caption("Types longer than one character; Jaccard = shared / in either.")
    else:
        st.caption("Choose two or more tokenisers to compare their vocabularies.")
colours = plots.colour_map(runs)
with right:
    st.subheader("Token frequencies")
    show_figure(
        plots.token_frequency_figure({a: cm.token_frequency_curve(s) for a, s in stats.items()}, colours),
        "token-frequency",
    )
show_figure(plots.zipf_figure({a: cm.zipf_curve(s) for a, s in stats.items()}, colours), "zipf")

# --- one text, every tokeniser ---------------------------------------------------------------------
st.subheader("One text, every tokeniser")
if "text" not in st.session_state and "text" not in st.query_params:
    st.session_state["text"] = DEFAULT_TEXT
text = st.text_input(
    "Text",
    key="text",
    bind="query-params",
    max_chars=300,
    help="Segmented as running text: BoundlessBPE's supermerges may join words.",
)
for algorithm, (run, _) in runs.items():
    tokeniser = run.tokeniser
    display = tokeniser.pretokeniser.display
    tokens = tokeniser.tokenise(text)
    st.html(
        f'<div class="variant-row" data-algorithm="{html_escape(algorithm)}"><b>{html_escape(algorithm)}</b> '
        f'<span style="opacity:0.7">→ {len(tokens)} tokens</span><br>'
        f"{token_chips_html(tokens, display, types=tokeniser.vocabulary, font_size='1.3rem')}</div>"
    )
    trace = tokeniser.trace_text(text)
    with st.expander(f"How {algorithm} got there: {kind_counts(trace)}"):
        st.html(trace_html(trace, display))
        st.dataframe(pd.DataFrame(trace_rows(trace, display)), hide_index=True, width="stretch")
