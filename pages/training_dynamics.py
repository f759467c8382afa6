"""Training dynamics: what a tokeniser's training did, step by step.

For one family trained on the first lines of the workspace corpus: the count behind every
selected operation ([boundless Fig. 2]), the share of merges, supermerges, deletions,
scaffold markings, re-admissions and PickyBPE removals per interval (Fig. 3), |V| over training,
and a scrubber through the training log for teaching on a small corpus. Training is shared with
the Train & compare page (ui/family_runs.py). The view is in the URL.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.analysis.training_dynamics import kind_fractions, kind_totals
from core.families import registry
from core.families.boundless.model import shortfall, slots_after_events
from ui.family_runs import algorithms_help, train_with_progress, training_lines
from ui.family_runs import corpus_key as make_corpus_key
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import current
from viz import plots
from viz.escaping import code_span, md_escape
from viz.tokeniser_info import vocab_size_help

SIZES = (280, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 4000)
LINE_CHOICES = (50, 100, 200, 500, 1000, 2000, 5000)
CHART_CONFIG = {"displaylogo": False}
EXPLAINED = {
    "merge": "a pair of adjacent tokens became a new type",
    "supermerge": "BoundlessBPE joined two whole-word pretokens across the pretoken boundary",
    "deletion": "BoundlessBPE removed an intermediate type whose occurrences were (almost) all inside the new one; "
    "as in the authors' code it keeps its slot of the vocabulary budget",
    "split": "PickyBPE removed a type whose intersection-over-self exceeded the threshold",
    "scaffold": "Scaffold-BPE marked a type as scaffold: it stays a merge step but leaves the vocabulary",
    "readmit": "a scaffold type reached the head of the queue and re-entered the vocabulary",
    "round": "a Unigram EM step: the vocabulary's size, objective and token count at that point",
    "prune": "Unigram removed pieces (M-step early prune, a pruning round, or finalisation)",
}


def show_figure(fig, name: str) -> None:
    st.plotly_chart(fig, config={**CHART_CONFIG, "toImageButtonOptions": {"filename": name}}, key=f"chart_{name}")


st.title("Training dynamics")
ws = current()
all_lines = training_lines()
names = list(registry.ALGORITHMS)
top = st.columns([2, 2, 2])
algorithm = top[0].selectbox(
    "Tokeniser",
    names,
    index=names.index("boundless") if "boundless" in names else 0,
    key="algorithm",
    bind="query-params",  # the URL holds the option's label
    help=algorithms_help(names),
)
size = top[1].select_slider("Vocabulary size", SIZES, value=400, key="size", bind="query-params")
line_choices = [n for n in LINE_CHOICES if n < len(all_lines)] + [len(all_lines)]
n_lines = top[2].select_slider(
    "Corpus lines",
    line_choices,
    value=min(line_choices, key=lambda n: abs(n - 500)),
    key="lines",
    bind="query-params",
    help="A small corpus keeps every step readable: good for teaching.",
)
lines = all_lines[:n_lines]
runs = train_with_progress([algorithm], make_corpus_key(ws.corpus_name, lines), size, lines)
if algorithm not in runs:
    st.stop()
run, seconds = runs[algorithm]
events = list(run.events)
st.caption(
    f"{algorithm} trained on the first {n_lines:,} lines of **{md_escape(ws.corpus_name)}** in "
    f"{seconds:.1f} s: {len(events):,} training events, final |V| = {run.tokeniser.vocab_size:,}.",
    help=vocab_size_help(run.tokeniser),
)
short = shortfall(run, size)
if short:  # BoundlessBPE: deleted tokens keep their slots
    st.info(md_escape(short), icon=":material/info:")
if not events:
    st.info("Training did nothing: the corpus is too small for this vocabulary size.")
    st.stop()

totals = kind_totals(events)
metric_columns = st.columns(len(totals))
for column, (kind, n) in zip(metric_columns, totals.items(), strict=True):
    column.metric(kind, f"{n:,}", help=EXPLAINED.get(kind))

# --- scrubber --------------------------------------------------------------------------------------
invalid = seed_from_url(
    "dynamics_step", "step", lambda raw: int(raw) if raw.isdigit() and int(raw) < len(events) else None
)
if invalid is not None:
    st.warning(f"There is no step {md_escape(invalid)} in this training run; showing step 0.")
step = st.slider(
    "Training step", 0, len(events) - 1, key="dynamics_step", help="Scrub through training one operation at a time."
)
write_to_url("step", step, default=0)
event = events[step]
st.markdown(
    f"**Step {event.step}: {md_escape(event.kind)}** {code_span(event.label)} · count {event.count:,} · "
    f"|V| after = {event.vocab_size:,}  \n{EXPLAINED.get(event.kind, '')}"
)

left, right = st.columns(2)
with left:
    show_figure(plots.selected_counts_figure(events, marker_step=event.step), "selected-counts")
with right:
    show_figure(
        plots.vocab_size_figure(events, target=size, marker_step=event.step, slots=slots_after_events(run)),
        "vocab-size",
    )
interval = st.select_slider(
    "Interval (steps)",
    [10, 25, 50, 100, 250, 500, 1000],
    value=min([10, 25, 50, 100, 250, 500, 1000], key=lambda n: abs(n - len(events) / 8)),
    key="interval",
    bind="query-params",
)
show_figure(plots.kind_fraction_figure(kind_fractions(events, interval)), "kind-fractions")

st.subheader("Training log")
kinds = st.multiselect("Show", list(totals), default=list(totals), key="kinds")
table = pd.DataFrame(
    [
        {"step": e.step, "kind": e.kind, "operation": e.label, "count": e.count, "|V| after": e.vocab_size}
        for e in events
        if e.kind in kinds
    ]
)
st.dataframe(table, hide_index=True, width="stretch", height=320)
st.download_button(
    "Training log (CSV)",
    data=lambda: table.to_csv(index=False).encode("utf-8"),
    file_name=f"{algorithm}-training-log.csv",
    mime="text/csv",
    on_click="ignore",
    icon=":material/download:",
)
