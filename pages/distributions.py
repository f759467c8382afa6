"""Blame & distributions: how blame is spread over the merges, and how tokens are spread over a corpus.

Page 6 of issue 4. Thin on purpose: the numbers come from core (``blame``, ``diagnostics``,
``rebpe``, ``corpus_metrics``), every figure from ``viz.plots``. Heavy results are cached by the
names of what is loaded plus the parameters (``st.cache_resource`` for tokenisers and traced
references, shared by every session and so immutable: the traced reference is frozen;
``st.cache_data`` for rows and counts), so a second visit is
instant. The two tabs run lazily: only the open one computes. The view (tab, threshold, corpus
size, α, extra tokenisers) is in the URL.
"""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import pandas as pd
import streamlit as st

from core import corpus_metrics as cm
from core.blame import MergeBlame, compute_blame
from core.diagnostics import effective_dropout, knocked_out_ranks, threshold_sweep, tokens_per_word_change
from core.errors import InputError
from core.evaluation import MorphScores
from core.model import BTETokeniser, Merge
from core.rebpe import KnockoutConfig, ReBPEConfig, run_knockout, run_rebpe
from core.reference_state import TokenisedReference
from ui.error_boundary import boundary
from ui.workspace import SAMPLE_TOKENISERS, current, is_session_choice, sample_tokeniser
from viz import plots
from viz.escaping import md_escape

THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))        # App. A.3: 0.05 … 0.95
DEFAULT_THRESHOLD = 0.5
LINE_CHOICES = (250, 500, 1000, 2000, 3000, 5000, 8000, 15000, 30000, 60000)
DEFAULT_LINES = 3000
ALPHAS = tuple(round(0.25 * i, 2) for i in range(41))                 # the Rényi curve: α = 0 … 10
DEFAULT_ALPHA = cm.DEFAULT_ALPHA
BLAME_TAB, CORPUS_TAB = "Merge blame", "Corpus distributions"
CHART_CONFIG = {"displaylogo": False}


@dataclass(frozen=True)
class Knockout:
    tokeniser: BTETokeniser
    removed: tuple[Merge, ...]
    before: MorphScores
    after: MorphScores


def cache_key(name: str, obj: object, content_key: str = "") -> str:
    """A cache key for a loaded object: the workspace's content key (name, plus a digest for
    uploads); failing that, shipped samples by name and uploads also by identity."""
    if content_key:
        return content_key
    return f"{name}#{id(obj)}" if is_session_choice(name) else name


def keys(ws) -> tuple[str, str]:
    return (cache_key(ws.tokeniser_name, ws.tokeniser, getattr(ws, "tokeniser_key", "")),
            cache_key(ws.reference_name, ws.references, getattr(ws, "reference_key", "")))


# --- cached engine work ----------------------------------------------------------------------------
@st.cache_resource(show_spinner="Tracing the reference words…", max_entries=8)
def traced(tok_key: str, ref_key: str, _tokeniser,
           _references) -> tuple[TokenisedReference, Mapping[Merge, MergeBlame]]:
    """The traced reference, frozen (every session reads the same one), and its blame."""
    reference = TokenisedReference(_tokeniser, _references.entries).freeze()
    return reference, MappingProxyType(compute_blame(reference))


@st.cache_resource(show_spinner=False, max_entries=16)
def knockout(tok_key: str, ref_key: str, threshold: float, _tokeniser, _references) -> Knockout:
    run = run_knockout(_tokeniser, _references.entries, KnockoutConfig(threshold=threshold))
    removed = tuple(m for step in run.steps for m in step.removed)
    before = TokenisedReference(_tokeniser, _references.entries).scores()
    return Knockout(run.tokeniser, removed, before, run.steps[-1].metrics if run.steps else before)


@st.cache_resource(show_spinner=False, max_entries=8)
def rebpe(tok_key: str, ref_key: str, threshold: float, _tokeniser, _references) -> BTETokeniser:
    config = ReBPEConfig(knockout=KnockoutConfig(threshold=threshold))
    return run_rebpe(_tokeniser, _references.entries, config).tokeniser


@st.cache_data(show_spinner=False, max_entries=256)
def sweep_row(tok_key: str, ref_key: str, threshold: float, _reference) -> dict:
    return threshold_sweep(_reference, [threshold])[0]


@st.cache_data(show_spinner=False, max_entries=16)
def word_changes(tok_key: str, ref_key: str, threshold: float, _before, _after, _words) -> dict[int, int]:
    return dict(tokens_per_word_change(_before, _after, _words))


@st.cache_data(show_spinner=False, max_entries=32)
def corpus_stats(segmenter_key: str, corpus_key: str, _segmenter, _lines) -> cm.CorpusStats:
    return cm.token_counts(_segmenter, _lines)


@st.cache_data(show_spinner=False, max_entries=32)
def renyi_curve(segmenter_key: str, corpus_key: str, _stats) -> list[tuple[float, float]]:
    return [(a, cm.renyi_efficiency(_stats, a)) for a in ALPHAS]


# --- small page helpers ----------------------------------------------------------------------------
def csv_bytes(rows: list[dict]) -> bytes:
    buffer = io.StringIO()
    pd.DataFrame(rows).to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")


def show(fig, name: str, rows: list[dict] | None = None, caption: str | None = None, slot=None) -> None:
    """A figure (in ``slot`` if given, e.g. a container placed above the figure's own controls),
    then an optional caption and its downloads (the files are made only when clicked). The figure's
    own look is kept (``theme=None``), so the page shows what the HTML download shows."""
    (slot or st).plotly_chart(fig, width="stretch", key=f"chart_{name}", config=CHART_CONFIG, theme=None)
    if caption:
        st.caption(caption)
    with st.container(horizontal=True):
        st.download_button("Figure (HTML)", data=lambda: plots.figure_html(fig), file_name=f"{name}.html",
                           mime="text/html", key=f"html_{name}", on_click="ignore", icon=":material/download:",
                           help="A standalone HTML file with plotly.js inside: opens offline.")
        if rows is not None:
            st.download_button("Data (CSV)", data=lambda: csv_bytes(rows), file_name=f"{name}.csv",
                               mime="text/csv", key=f"csv_{name}", on_click="ignore", icon=":material/download:")


def guarded(render, *args) -> None:
    """Run one section inside the error boundary: a failure in one tab leaves the other drawn."""
    with boundary():
        render(*args)


# --- blame -----------------------------------------------------------------------------------------
def render_blame(ws, threshold: float) -> None:
    try:  # blame is a property of merges: families without a merge graph get a one-line notice
        ws = ws.with_merge_graph("Merge blame")
    except InputError as err:
        st.info(md_escape(err))
        return
    if ws.graph_note():
        st.caption(md_escape(ws.graph_note()))
    tok, refs = ws.tokeniser, ws.references
    tok_key, ref_key = keys(ws)
    display = tok.pretokeniser.display
    reference, blames = traced(tok_key, ref_key, tok, refs)
    with st.spinner("Knocking out the blamed merges…", show_time=True):
        ko = knockout(tok_key, ref_key, threshold, tok, refs)
    rows = plots.blame_rows(blames.values(), ko.removed, display)
    if reference.unaligned:
        st.caption(f"{len(reference.unaligned):,} reference words could not be aligned with this tokeniser's "
                   "pre-tokeniser and are left out.")

    n_merges = len(tok.merges)
    p_eff = effective_dropout(blames, ko.removed)
    quiet = dict(border=True, delta_color="off", delta_arrow="off")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Merges applied", f"{len(rows):,}", delta=f"of {n_merges:,} merges", **quiet,
              help=f"Merges with N(m) ≥ 1: they removed a boundary in at least one of the "
                   f"{len(reference.words):,} reference words.")
    m2.metric("Knocked out |M†|", f"{len(ko.removed):,}",
              delta=f"{len(ko.removed) / n_merges:.1%} of the merges" if n_merges else None, **quiet,
              help="Merges with R(m) ≥ threshold (and B(m) > 0). bpe-knockout Table 8 calls "
                   "|M†| / |M| the pruning rate.")
    m3.metric("Effective dropout", f"{p_eff:.2%}", delta="p_eff,ret (App. A.6)", **quiet,
              help="Σ N(m) over the knocked-out merges / Σ N(m) over all merges: the share of merge "
                   "applications that knockout makes impossible (bpe-knockout App. A.6, Eq. 2).")
    change = 100 * (ko.after.f1 - ko.before.f1)
    m4.metric("F1 after knockout", f"{ko.after.f1:.1%}", border=True,
              delta=f"{change:+.1f} points (was {ko.before.f1:.1%})", delta_arrow="off",
              delta_color="normal" if change >= 0 else "inverse",
              help=f"F1 of the reference's split positions. Precision {ko.before.precision:.1%} → "
                   f"{ko.after.precision:.1%}, recall {ko.before.recall:.1%} → {ko.after.recall:.1%}.")

    left, right = st.columns(2)
    with left:
        show(plots.blame_ratio_histogram([r["ratio"] for r in rows], threshold), "blame-ratio-histogram",
             [{k: r[k] for k in ("rank", "merge", "blame", "applications", "ratio")} for r in rows],
             "Each bar counts merges by R(m): of the boundaries a merge removed in the reference words, "
             "the share where the reference has a morph boundary. Orange bars are knocked out.")
    with right:
        slot = st.container()
        log_x = st.toggle("Logarithmic N(m) axis", value=True, key="blame_log_x")
        show(plots.blame_scatter(rows, threshold, log_x=log_x), "blame-scatter", rows,
             "One bubble per (N, B) pair, larger when more merges share it; hover for the merges. "
             "Bubbles on or above the dashed line have R(m) ≥ threshold.", slot)

    st.subheader("Threshold sweep (bpe-knockout App. A.3)")
    progress = st.empty()
    sweep = []
    for i, t in enumerate(THRESHOLDS):
        progress.progress(i / len(THRESHOLDS), text=f"Knocking out at threshold {t:.2f} ({i + 1} of {len(THRESHOLDS)})…")
        sweep.append(sweep_row(tok_key, ref_key, t, reference))
    progress.empty()
    show(plots.threshold_sweep_figure(sweep, threshold), "threshold-sweep", sweep,
         "Each threshold starts again from the loaded tokeniser. A low threshold knocks out many merges "
         "and raises recall; the paper finds precision peaks near 0.5.")

    left, right = st.columns(2)
    ranks = knocked_out_ranks(tok, ko.removed)
    with left:
        show(plots.knocked_rank_histogram(ranks, n_merges), "knocked-out-ranks", plots.rank_rows(ranks, n_merges),
             "bpe-knockout Fig. 6: knocked-out merges come from the whole merge list, not only its end.")
    changes = word_changes(tok_key, ref_key, threshold, tok, ko.tokeniser, [w.word for w in reference.words])
    with right:
        show(plots.tokens_change_figure(changes), "tokens-per-word-change", plots.change_rows(changes),
             "bpe-knockout App. A.4 / Fig. 4: most words keep their token count or gain tokens; a few lose "
             "one, when a removed merge had trapped a token.")

    with st.expander(f"All {len(rows):,} merges with their blame"):
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config={
            "rank": st.column_config.NumberColumn("rank"),
            "merge": st.column_config.TextColumn("merge"),
            "result": st.column_config.TextColumn("type"),
            "tuple": st.column_config.CheckboxColumn("tuple merge"),
            "blame": st.column_config.NumberColumn("B(m)"),
            "applications": st.column_config.NumberColumn("N(m)"),
            "ratio": st.column_config.NumberColumn("R(m)", format="%.3f"),
            "knocked_out": st.column_config.CheckboxColumn("knocked out"),
        })
        st.download_button("Table (CSV)", data=lambda: csv_bytes(rows), file_name="merge-blame.csv", mime="text/csv",
                           key="csv_merge_blame", on_click="ignore", icon=":material/download:")


# --- corpus ----------------------------------------------------------------------------------------
def line_label(n: int, total: int) -> str:
    return f"all {total:,}" if n == total else f"{n:,}"


def render_corpus(ws, threshold: float) -> None:
    tok, refs = ws.tokeniser, ws.references
    tok_key, ref_key = keys(ws)
    all_lines = ws.corpus_lines()
    total = len(all_lines)
    if not total:
        st.info("The corpus has no lines: choose another one on the Workspace page.")
        return
    choices = [n for n in LINE_CHOICES if n < total] + [total]
    c1, c2, c3 = st.columns([2, 2, 3])
    with c1:
        if len(choices) > 1:
            n_lines = st.select_slider(
                "Lines of the corpus", choices, value=min(choices, key=lambda n: abs(n - DEFAULT_LINES)),
                format_func=lambda n: line_label(n, total), key="lines", bind="query-params",
                help=f"The first lines of {md_escape(ws.corpus_name)} ({total:,} lines in all).")
        else:
            n_lines = total
            st.caption(f"The corpus has {total:,} lines; all are used.")
    with c2:
        alpha = st.slider("Rényi order α", 0.0, 10.0, float(DEFAULT_ALPHA), 0.25, key="alpha", bind="query-params",
                          help="Rényi efficiency H_α / log |V|; Zouhar et al. (2023) recommend α = 2.5. "
                               "α = 1 is Shannon entropy, larger α weighs the frequent tokens more.")
    others = [name for name in SAMPLE_TOKENISERS if name != ws.tokeniser_name]
    with c3:
        extra = st.multiselect("Also compare", others, key="compare", bind="query-params",
                               placeholder="other shipped tokenisers",
                               help="Add shipped tokenisers to every table and figure below.")
    lines = all_lines[:n_lines]
    corpus_key = f"{ws.corpus_name}@{hashlib.sha1(chr(10).join(lines).encode('utf-8', 'replace')).hexdigest()[:12]}"

    name = ws.tokeniser_name
    segmenters = {name: (tok_key, tok)}  # every family tokenises; knockout and ReBPE need a merge graph
    rows_need = "Adding the “+ knockout” and “+ ReBPE” rows"
    try:
        graph_ws = ws.with_merge_graph(rows_need)
    except InputError as err:
        graph_ws = None
        st.info(md_escape(err))
    if graph_ws is not None:
        graph, graph_key = graph_ws.tokeniser, keys(graph_ws)[0]
        with st.spinner("Knocking out the blamed merges…", show_time=True):
            ko = knockout(graph_key, ref_key, threshold, graph, refs)
        with st.spinner(f"Running ReBPE on {md_escape(name)} (knockout, reparation, reification until stable)…",
                        show_time=True):
            repaired = rebpe(graph_key, ref_key, threshold, graph, refs)
        if graph_ws.merge_graph_of:
            st.caption(f"“+ knockout” and “+ ReBPE” edit the merge graph of this {md_escape(graph_ws.merge_graph_of)} "
                       "tokeniser and segment with it as BPE.")
        segmenters[f"{name} + knockout"] = (f"{graph_key}|{ref_key}|knockout|{threshold}", ko.tokeniser)
        segmenters[f"{name} + ReBPE"] = (f"{graph_key}|{ref_key}|rebpe|{threshold}", repaired)
    for other in extra:
        if other in SAMPLE_TOKENISERS:
            segmenters[other] = (other, sample_tokeniser(SAMPLE_TOKENISERS[other]))

    progress = st.empty()
    stats: dict[str, cm.CorpusStats] = {}
    for i, (label, (key, segmenter)) in enumerate(segmenters.items()):
        progress.progress(i / len(segmenters), text=f"Tokenising {n_lines:,} lines with {md_escape(label)} "
                                                    f"({i + 1} of {len(segmenters)})…")
        stats[label] = corpus_stats(key, corpus_key, segmenter, lines)
    progress.empty()

    summaries, skipped = {}, []
    for label, s in stats.items():
        try:
            summaries[label] = cm.summary(s, alpha)
        except InputError as err:
            skipped.append(f"{label}: {err}")
    if skipped:
        st.warning("Left out: " + "; ".join(md_escape(s) for s in skipped))
    if not summaries:
        return
    colours = plots.colour_map(summaries)
    table = plots.summary_rows(summaries)

    st.subheader(f"Summary over {n_lines:,} lines")
    readable = plots.summary_table(table, alpha)
    st.dataframe(pd.DataFrame(readable), hide_index=True, width="stretch", height=38 + 35 * len(readable),
                 column_config={"metric": st.column_config.TextColumn("metric", pinned=True)})
    st.download_button("Table (CSV)", data=lambda: csv_bytes(table), file_name="corpus-summary.csv", mime="text/csv",
                       key="csv_corpus_summary", on_click="ignore", icon=":material/download:")

    zipf = {label: cm.zipf_curve(stats[label]) for label in summaries}
    frequency = {label: cm.token_frequency_curve(stats[label]) for label in summaries}
    left, right = st.columns(2)
    with left:
        show(plots.zipf_figure(zipf, colours), "zipf", plots.curve_rows(zipf, "rank", "count"),
             "Zipf's law would be a straight line of slope −1 (the table gives the fitted slope).")
    with right:
        slot = st.container()
        log_rank = st.toggle("Logarithmic rank axis", value=False, key="frequency_log_x",
                             help="The paper's axis is linear; a log axis spreads out the types that are used.")
        show(plots.token_frequency_figure(frequency, colours, log_x=log_rank), "token-frequency",
             plots.curve_rows(frequency, "rank", "log10_count_plus_1"),
             "boundless-bpe Fig. 4: the flat tail at 0 is the vocabulary the corpus never uses.", slot)

    renyi = {label: sorted(set(renyi_curve(segmenters[label][0], corpus_key, stats[label])) |
                           {(alpha, summaries[label]["renyi_efficiency"])}) for label in summaries}
    left, right = st.columns([3, 2])
    with left:
        show(plots.renyi_figure(renyi, alpha, colours), "renyi-efficiency", plots.curve_rows(renyi, "alpha", "efficiency"))
    with right:
        st.markdown(
            "**Reading the metrics** (p = how often each token occurs, |V| = vocabulary size)\n\n"
            "- **Rényi efficiency** H<sub>α</sub>(p) / log |V|: 1 when every type is used equally often. "
            "Zouhar et al. (2023) found α = 2.5 tracks downstream quality best.\n"
            "- **Shannon entropy** H = −Σ p log₂ p bits per token (scaffold-bpe Eq. 4); "
            "**redundancy** R = 1 − H / log₂ |V| (Eq. 5): lower is more balanced.\n"
            "- **Bytes / characters per token**: higher means the text is compressed into fewer tokens.\n"
            "- **Vocabulary used**: the share of the vocabulary's types that occur at least once in these lines.",
            unsafe_allow_html=True)
    show(plots.metric_bars(table, colours, alpha=alpha), "corpus-metrics", table)


# --- the page --------------------------------------------------------------------------------------
st.title("Blame & distributions")
ws = current()
st.caption(f"Tokeniser **{md_escape(ws.tokeniser_name)}** · reference **{md_escape(ws.reference_name)}** "
           f"({len(ws.references.entries):,} words) · corpus **{md_escape(ws.corpus_name)}**. "
           "Change them on the Workspace page.")
left, right = st.columns([2, 3], gap="large")
with left:
    threshold = st.select_slider(
        "Knockout threshold t", THRESHOLDS, value=DEFAULT_THRESHOLD, format_func=lambda t: f"{t:g}",
        key="threshold", bind="query-params",
        help="bpe-knockout uses 0.5. “+ knockout” and “+ ReBPE” on this page use this threshold.")
with right:
    st.markdown(
        "**Blame** (bpe-knockout §3.4): over the reference words, **N(m)** counts the character boundaries "
        "merge m removed and **B(m)** those of them where the reference has a morph boundary. "
        f"Knockout removes every merge with **R(m) = B(m) / N(m) ≥ {threshold:g}**.")

blame_tab, corpus_tab = st.tabs([BLAME_TAB, CORPUS_TAB], key="view", bind="query-params")
if blame_tab.open:
    with blame_tab:
        guarded(render_blame, ws, threshold)
if corpus_tab.open:
    with corpus_tab:
        guarded(render_corpus, ws, threshold)
