"""Blame & distributions: how blame is spread over the merges, and how tokens are spread over a corpus.

Four views: merge blame, the knockout threshold sweep, corpus distributions, and the token
frequencies of two tokenisers. Thin on purpose: the numbers come from core (``blame``,
``diagnostics``, ``corpus_metrics``, ``compare``), computed and cached by ``ui.distribution_runs``
(knockout and ReBPE through ``ui.rebpe_runs.cached_run``); every figure comes from ``viz.plots``,
captions and table rows from ``viz.distributions``, and the two tokenisers from ``ui.comparisons``.
One view at a time (a segmented control, not tabs: every tab would run), so nothing heavy runs
before the chosen view needs it, and then with progress.
The corpus and token-frequency views read, by default, the Workspace's corpus (an uploaded
word<TAB>count list as counts); when that corpus is known to be in another language than the
tokeniser (the shipped English corpus with the Dutch 40k), the shipped word counts in the tokeniser's
language instead, and the page says so; a text the user picks in another language gets a warning.
The corpus view can also draw its figures from a stats file that ``structok stats`` wrote for a
corpus too big to upload (``ui.stats_files``). The view and its settings are in the URL.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from core.analysis import corpus_metrics as cm
from core.edits.diagnostics import effective_dropout, knocked_out_ranks
from core.errors import InputError
from ui import stats_files
from ui.chart_downloads import csv_bytes, show_chart
from ui.comparisons import (
    CORPUS,
    KNOCKOUT,
    REFERENCE,
    choice_from_link,
    choice_link,
    comparison,
    frequency_differences,
    load_choice,
    option_label,
    source_label,
    source_options,
    source_words,
    tokeniser_options,
)
from ui.distribution_runs import (
    cache_keys,
    corpus_segmenters,
    knockout,
    merge_graph_or_notice,
    renyi_curve,
    stored_sweep,
    summaries_of,
    tokenise_all,
    traced,
    word_changes,
)
from ui.error_boundary import boundary
from ui.references_corpora import (
    LANGUAGES,
    corpus_language,
    counts_language,
    is_count_list,
    sample_counts,
    tokeniser_language,
)
from ui.sweeps import THRESHOLDS
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import current
from ui.workspace_choices import SAMPLE_COUNTS, SAMPLE_TOKENISERS
from viz import plots
from viz.distributions import blame_metrics, frequency_facts, line_label, sweep_caption, token_frequency_rows
from viz.escaping import md_escape
from viz.ranks import COLUMN_HELP, rank_text
from viz.tokens import facts_html

DEFAULT_THRESHOLD = 0.5
LINE_CHOICES = (250, 500, 1000, 2000, 3000, 5000, 8000, 15000, 30000, 60000)
DEFAULT_LINES = 3000
DEFAULT_ALPHA = cm.DEFAULT_ALPHA
VIEWS = ("Merge blame", "Threshold sweep", "Corpus distributions", "Token frequencies")
BLAME_VIEW, SWEEP_VIEW, CORPUS_VIEW, TOKENS_VIEW = VIEWS
RUNNING_TEXT = "running text"  # the corpus view's other text: the workspace corpus, line by line
STATS_FILE = "a stats file"  # statistics counted elsewhere by `structok stats`
STATS_COMMAND = "python -m core stats --tokeniser T --corpus 'texts/*.txt' --out stats.json"


# --- blame -----------------------------------------------------------------------------------------
def render_blame(ws, threshold: float) -> None:
    ws = merge_graph_or_notice(ws, "Merge blame")
    if ws is None:
        return
    tok, refs = ws.tokeniser, ws.references
    tok_key, ref_key = cache_keys(ws)
    display = tok.pretokeniser.display
    reference, blames = traced(tok_key, ref_key, tok, refs)
    metrics_slot = st.container()  # filled once the knockout is known
    if reference.unaligned:
        st.caption(
            f"{len(reference.unaligned):,} reference words could not be aligned with this tokeniser's "
            "pre-tokeniser and are left out."
        )

    # Blame alone draws the histogram at once; the knockout (seconds on a 200k-type tokeniser, with its own
    # progress box) comes next, where the scatter goes.
    plain_rows = plots.blame_rows(blames.values(), (), display)
    left, right = st.columns(2)
    with left:
        show_chart(
            plots.blame_ratio_histogram([r["ratio"] for r in plain_rows], threshold),
            "blame-ratio-histogram",
            [{k: r[k] for k in ("rank", "merge", "blame", "applications", "ratio")} for r in plain_rows],
            "Each bar counts merges by R(m): of the boundaries a merge removed in the reference words, "
            "the share where the reference has a morph boundary. Orange bars are knocked out.",
        )
    with right:
        slot = st.container()
        log_x = st.toggle("Logarithmic N(m) axis", value=True, key="blame_log_x")
        with slot:
            ko = knockout(ws, threshold)
        rows = plots.blame_rows(blames.values(), ko.removed, display)
        show_chart(
            plots.blame_scatter(rows, threshold, log_x=log_x),
            "blame-scatter",
            rows,
            "One bubble per (N, B) pair, larger when more merges share it; hover for the merges. "
            "Bubbles on or above the dashed line have R(m) ≥ threshold.",
            slot,
        )

    n_merges = len(tok.merges)
    p_eff = effective_dropout(blames, ko.removed)
    metrics = blame_metrics(len(rows), n_merges, len(reference.words), len(ko.removed), p_eff, ko.before, ko.after)
    with metrics_slot:
        for column, metric in zip(st.columns(4), metrics, strict=True):
            column.metric(**metric, border=True, delta_arrow="off")

    left, right = st.columns(2)
    ranks = knocked_out_ranks(tok, ko.removed)
    with left:
        show_chart(
            plots.knocked_rank_histogram(ranks, n_merges),
            "knocked-out-ranks",
            plots.rank_rows(ranks, n_merges),
            "[knockout Fig. 6]: knocked-out merges come from the whole merge list, not only its end.",
        )
    changes = word_changes(tok_key, ref_key, threshold, tok, ko.tokeniser, [w.word for w in reference.words])
    with right:
        show_chart(
            plots.tokens_change_figure(changes),
            "tokens-per-word-change",
            plots.change_rows(changes),
            "[knockout App. A.4, Fig. 4]: most words keep their token count or gain tokens; a few lose "
            "one, when a removed merge had trapped a token.",
        )

    with st.expander(f"All {len(rows):,} merges with their blame"):
        st.dataframe(
            pd.DataFrame([{**r, "rank": rank_text(r["rank"])} for r in rows]),
            hide_index=True,
            width="stretch",
            column_config={
                "rank": st.column_config.TextColumn("rank", help=COLUMN_HELP),
                "merge": st.column_config.TextColumn("merge"),
                "result": st.column_config.TextColumn("type"),
                "tuple": st.column_config.CheckboxColumn("tuple merge"),
                "blame": st.column_config.NumberColumn("B(m)"),
                "applications": st.column_config.NumberColumn("N(m)"),
                "ratio": st.column_config.NumberColumn("R(m)", format="%.3f"),
                "knocked_out": st.column_config.CheckboxColumn("knocked out"),
            },
        )
        st.download_button(
            "Table (CSV)",
            data=lambda: csv_bytes(rows),
            file_name="merge-blame.csv",
            mime="text/csv",
            key="csv_merge_blame",
            on_click="ignore",
            icon=":material/download:",
        )


# --- the threshold sweep ---------------------------------------------------------------------------
def render_sweep(ws, threshold: float) -> None:
    ws = merge_graph_or_notice(ws, "The threshold sweep")
    if ws is None:
        return
    tok_key, ref_key = cache_keys(ws)
    reference, _ = traced(tok_key, ref_key, ws.tokeniser, ws.references)
    sweep = stored_sweep(ws.tokeniser, ws.references, reference)
    st.subheader("Threshold sweep ([knockout App. A.3])")
    show_chart(plots.threshold_sweep_figure(sweep, threshold), "threshold-sweep", sweep, sweep_caption(sweep))


# --- corpus ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Text:
    """The text the corpus view tokenises: corpus lines, or word counts (each word once, weighted)."""

    key: str  # identifies its content (caches)
    what: str  # how the page names it
    lines: list[str] | None = None
    counts: Mapping[str, int] | None = None


def text_language(ws, text: str) -> str | None:
    """The language of a text choice (None: unknown, as for an upload)."""
    return corpus_language(ws.corpus_name) if text == RUNNING_TEXT else counts_language(text)


def default_text(ws) -> str:
    """The Workspace corpus, unless it is known to be in another language than the tokeniser: then the
    shipped word counts in the tokeniser's language."""
    clash = language_clash(ws, RUNNING_TEXT)
    return ws.counts_name if clash and ws.counts_name else RUNNING_TEXT


def language_clash(ws, text: str) -> str | None:
    """A sentence when the text and the tokeniser are known to be in different languages, else None."""
    theirs, ours = text_language(ws, text), tokeniser_language(ws.tokeniser_name)
    if not theirs or not ours or theirs == ours:
        return None
    name = f"The Workspace corpus {ws.corpus_name}" if text == RUNNING_TEXT else text
    return f"{name} is {LANGUAGES[theirs]}, but the tokeniser {ws.tokeniser_name} is {LANGUAGES[ours]}"


def text_label(ws, text: str) -> str:
    if text == RUNNING_TEXT:
        return f"Workspace corpus {ws.corpus_name}" + (" (word counts)" if is_count_list(ws.corpus_name) else "")
    language = counts_language(text)
    return f"word counts {text}" + (f" ({LANGUAGES[language]})" if language else "")


def say_which_text(ws, text: str, default: str) -> None:
    """Name the text in use plainly; warn when it is in another language than the tokeniser."""
    clash = language_clash(ws, text)
    if clash:
        st.warning(f"{md_escape(clash)}: most of its words are cut into small pieces, and few merges fire.")
    elif text != RUNNING_TEXT and text == default:
        st.caption(
            f"{md_escape(language_clash(ws, RUNNING_TEXT) or '')}: so this view reads the shipped "
            f"{md_escape(text_label(ws, text))} instead. Choose *{RUNNING_TEXT}* above to read the corpus anyway."
        )
    else:
        st.caption(f"Reading the {md_escape(text_label(ws, text))}.")


def corpus_text(ws) -> Text | None:
    """The text chosen for the corpus view (None: a stats file). The default is the Workspace corpus,
    or the shipped word counts in the tokeniser's language when the corpus is in another one."""
    texts = [RUNNING_TEXT, *SAMPLE_COUNTS, STATS_FILE]
    default = default_text(ws)
    c1, c2 = st.columns([3, 2])
    with c1:
        text = st.selectbox(
            "Text",
            texts,
            index=texts.index(default),
            key="text",
            bind="query-params",  # the URL keeps the option itself: no format_func (it would keep the label)
            help=f"*{RUNNING_TEXT}*: the Workspace corpus ({md_escape(ws.corpus_name)}), line by line (a "
            f"word<TAB>count list word by word). Word counts (shipped: {', '.join(SAMPLE_COUNTS)}) tokenise "
            "each word once, as in running text, and weigh its tokens by its count. *a stats file*: what "
            "`structok stats` counted over a corpus of any size. The default is the Workspace corpus, unless "
            "it is in another language than the tokeniser.",
        )
    if text == STATS_FILE:
        return None
    say_which_text(ws, text, default)
    if text != RUNNING_TEXT:
        counts = sample_counts(text)
        return Text(f"counts:{text}", f"the {len(counts):,} words of {text}", counts=counts)
    if is_count_list(ws.corpus_name):
        counts = ws.corpus_counts()
        what = f"the {len(counts):,} words of {ws.corpus_name}"
        return Text(f"corpus:{ws.corpus_key or ws.corpus_name}", what, counts=counts)
    all_lines = ws.corpus_lines()
    total = len(all_lines)
    if not total:
        return Text("", f"{ws.corpus_name} (no lines)", lines=[])
    choices = [n for n in LINE_CHOICES if n < total] + [total]
    with c2:
        if len(choices) > 1:
            n_lines = st.select_slider(
                "Lines of the corpus",
                choices,
                value=min(choices, key=lambda n: abs(n - DEFAULT_LINES)),
                format_func=lambda n: line_label(n, total),
                key="lines",
                bind="query-params",
                help=f"The first lines of {md_escape(ws.corpus_name)} ({total:,} lines in all).",
            )
        else:
            n_lines = total
            st.caption(f"The corpus has {total:,} lines; all are used.")
    lines = all_lines[:n_lines]
    digest = hashlib.sha1(chr(10).join(lines).encode("utf-8", "replace")).hexdigest()[:12]
    return Text(f"{ws.corpus_name}@{digest}", f"{n_lines:,} lines of {ws.corpus_name}", lines=lines)


def alpha_slider() -> float:
    """The Rényi order α of the efficiency in the table (the curve shows every α)."""
    return st.slider(
        "Rényi order α",
        0.0,
        10.0,
        float(DEFAULT_ALPHA),
        0.25,
        key="alpha",
        bind="query-params",
        help="Rényi efficiency H_α / log |V|; Zouhar et al. (2023) recommend α = 2.5. "
        "α = 1 is Shannon entropy, larger α weighs the frequent tokens more.",
    )


def corpus_controls(ws) -> tuple[float, list[str]]:
    """The Rényi order α and the other shipped tokenisers to compare."""
    c1, c2 = st.columns(2)
    with c1:
        alpha = alpha_slider()
    others = [other for other in SAMPLE_TOKENISERS if other != ws.tokeniser_name]
    with c2:
        extra = st.multiselect(
            "Also compare",
            others,
            key="compare",
            bind="query-params",
            placeholder="other shipped tokenisers",
            help="Add shipped tokenisers to every table and figure below.",
        )
    return alpha, extra


def render_summary_table(table: list[dict], what: str, word_counts: bool, alpha: float) -> None:
    st.subheader(f"Summary over {md_escape(what)}")
    if word_counts:
        st.caption(
            "Each word is tokenised once, as in running text, and its tokens counted as often as the word "
            "occurs; characters and bytes are the words' own (the spaces between words are not counted)."
        )
    readable = plots.summary_table(table, alpha)
    st.dataframe(
        pd.DataFrame(readable),
        hide_index=True,
        width="stretch",
        height=38 + 35 * len(readable),
        column_config={"metric": st.column_config.TextColumn("metric", pinned=True)},
    )
    st.download_button(
        "Table (CSV)",
        data=lambda: csv_bytes(table),
        file_name="corpus-summary.csv",
        mime="text/csv",
        key="csv_corpus_summary",
        on_click="ignore",
        icon=":material/download:",
    )


def render_frequency_curves(stats: Mapping[str, cm.CorpusStats], labels, colours) -> None:
    """Zipf's law and the token frequencies by rank, side by side."""
    zipf = {label: cm.zipf_curve(stats[label]) for label in labels}
    frequency = {label: cm.token_frequency_curve(stats[label]) for label in labels}
    left, right = st.columns(2)
    with left:
        show_chart(
            plots.zipf_figure(zipf, colours),
            "zipf",
            plots.curve_rows(zipf, "rank", "count"),
            "Zipf's law would be a straight line of slope −1 (the table gives the fitted slope).",
        )
    with right:
        slot = st.container()
        log_rank = st.toggle(
            "Logarithmic rank axis",
            value=False,
            key="frequency_log_x",
            help="The paper's axis is linear; a log axis spreads out the types that are used.",
        )
        show_chart(
            plots.token_frequency_figure(frequency, colours, log_x=log_rank),
            "token-frequency",
            plots.curve_rows(frequency, "rank", "log10_count_plus_1"),
            "[boundless Fig. 4]: the flat tail at 0 is the vocabulary this text never uses.",
            slot,
        )


def render_renyi(segmenters, corpus_key: str, stats, summaries, alpha: float, colours) -> None:
    """Rényi efficiency over α, next to how to read the metrics."""
    renyi = {
        label: sorted(
            set(renyi_curve(segmenters[label][0], corpus_key, stats[label]))
            | {(alpha, summaries[label]["renyi_efficiency"])}
        )
        for label in summaries
    }
    left, right = st.columns([3, 2])
    with left:
        show_chart(
            plots.renyi_figure(renyi, alpha, colours),
            "renyi-efficiency",
            plots.curve_rows(renyi, "alpha", "efficiency"),
        )
    with right:
        st.markdown(
            "**Reading the metrics** (p = how often each token occurs, |V| = the tokeniser's vocabulary size, "
            "special tokens included)\n\n"
            "- **Rényi efficiency** H<sub>α</sub>(p) / log |V|: 1 when every type is used equally often. "
            "Zouhar et al. (2023) found α = 2.5 tracks downstream quality best.\n"
            "- **Shannon entropy** H = −Σ p log₂ p bits per token ([scaffold Eq. 4]); "
            "**redundancy** R = 1 − H / log₂ |V| (Eq. 5): lower is more balanced.\n"
            "- **Bytes / characters per token**: higher means the text is compressed into fewer tokens.\n"
            "- **Vocabulary used**: the share of the vocabulary's types that occur at least once in this text.",
            unsafe_allow_html=True,
        )


def render_figures(segmenters, corpus_key: str, stats, alpha: float, what: str, word_counts: bool) -> None:
    """The summary table and every figure of the corpus view, for ``stats`` by segmenter label."""
    summaries = summaries_of(stats, alpha)
    if not summaries:
        return
    colours = plots.colour_map(summaries)
    table = plots.summary_rows(summaries)
    render_summary_table(table, what, word_counts, alpha)
    render_frequency_curves(stats, list(summaries), colours)
    render_renyi(segmenters, corpus_key, stats, summaries, alpha, colours)
    show_chart(plots.metric_bars(table, colours, alpha=alpha), "corpus-metrics", table)


def stats_file_controls() -> None:
    """Upload a stats file, or name one on this machine; a file that cannot be read is said so."""
    with st.expander("Open a stats file", expanded=stats_files.opened() is None):
        st.file_uploader(
            "stats.json, as `structok stats` writes it",
            type=["json"],
            key=stats_files.UPLOAD_KEY,
            on_change=stats_files.on_upload,
        )
        path_column, button_column = st.columns([3, 1], vertical_alignment="bottom")
        path_column.text_input(
            "Path on the machine that runs this app",
            key=stats_files.PATH_KEY,
            placeholder="/data/stats/en-stats.json",
            help="A stats file too large to upload, or one written next to its corpus.",
        )
        button_column.button("Open", key="stats_path_open", on_click=stats_files.on_path, width="stretch")
        st.caption(f"Count one over any corpus with `{STATS_COMMAND}`.")
    if stats_files.error():
        opened = stats_files.opened()
        kept = f" Still showing {md_escape(opened.name)}." if opened else ""
        st.error(f"Could not open that file: {md_escape(stats_files.error())}.{kept}")


def render_stats_file() -> None:
    """The corpus view's figures drawn from an opened stats file."""
    stats_file_controls()
    opened = stats_files.opened()
    if opened is None:
        st.info("Open a stats file above to see its distributions.")
        return
    alpha = alpha_slider()
    counted = opened.file
    label = counted.tokeniser["name"]
    st.caption(
        f"From **{md_escape(opened.name)}**: tokeniser **{md_escape(label)}** ({md_escape(counted.tokeniser['path'])}) "
        f"over {md_escape(stats_files.files_text(counted))}, counted in {counted.seconds:,.1f} s."
    )
    what = f"{counted.stats.tokens:,} tokens of {len(counted.files):,} corpus files"
    render_figures({label: ("stats-file", None)}, opened.digest, {label: counted.stats}, alpha, what, False)


def render_corpus(ws, threshold: float) -> None:
    text = corpus_text(ws)
    if text is None:
        render_stats_file()
        return
    if text.lines == []:
        st.info("The corpus has no lines: choose another one on the Workspace page.")
        return
    alpha, extra = corpus_controls(ws)
    segmenters = corpus_segmenters(ws, threshold, extra)
    stats = tokenise_all(segmenters, text.what, text.key, text.lines, text.counts)
    render_figures(segmenters, text.key, stats, alpha, text.what, text.lines is None)


# --- token frequencies of two tokenisers -----------------------------------------------------------
def render_tokens(ws) -> None:
    sources = source_options()
    for key, parse in (
        ("token_a", choice_from_link),
        ("token_b", choice_from_link),
        ("token_words", lambda raw: raw if raw in sources else None),
    ):
        if seed_from_url(key, key, parse) is not None:
            st.warning(f"The link's `{key}` names nothing this server has; the default is used.")
    options = tokeniser_options()
    defaults = {
        "token_a": ws.tokeniser_name,
        "token_b": ws.tokeniser_name + KNOCKOUT,
        "token_words": CORPUS if default_text(ws) == RUNNING_TEXT else ws.counts_name,
    }
    for key, valid in (("token_a", options), ("token_b", options), ("token_words", sources)):
        if st.session_state.get(key) not in valid:
            st.session_state[key] = defaults[key] if defaults[key] in valid else None
    c1, c2, c3 = st.columns([3, 3, 2])
    a_name = c1.selectbox("Tokeniser A", options, key="token_a", format_func=option_label, placeholder="choose A")
    b_name = c2.selectbox("Tokeniser B", options, key="token_b", format_func=option_label, placeholder="choose B")
    source = c3.selectbox(
        "Words",
        sources,
        key="token_words",
        format_func=lambda s: source_label(ws, s),
        help="Token frequencies over these words: each word is tokenised once, as in running "
        "text, and its tokens counted as often as the word occurs.",
    )
    if source != REFERENCE:
        say_which_text(ws, RUNNING_TEXT if source == CORPUS else source, default_text(ws))
    links = {
        key: choice_link(name) if name else (None, None) for key, name in (("token_a", a_name), ("token_b", b_name))
    }
    for key, (value, _) in links.items():
        write_to_url(key, value)
    write_to_url("token_words", source)
    lost = [what for _, what in links.values() if what]
    if lost:
        st.caption("This page's link does not carry " + "; ".join(md_escape(what) for what in lost) + ".")
    if a_name is None or b_name is None:
        st.info("Choose tokenisers A and B.")
        return
    try:
        a, b = load_choice(ws, a_name), load_choice(ws, b_name)
    except InputError as err:
        st.info(md_escape(err))
        return
    words, words_key = source_words(ws, source)
    result = comparison(a, b, words, words_key)
    rows = frequency_differences(a, b, words, words_key)
    facts = frequency_facts(len(words), result, rows, source != REFERENCE)
    st.html(facts_html(facts))
    if not rows:
        st.success("Every token type occurs equally often under A and under B over these words.")
        return
    st.caption(
        "Frequency = how often the type occurs as a token over these words (weighted by their counts); "
        "largest changes first. Click a column header to sort."
    )
    table = pd.DataFrame(token_frequency_rows(rows, a.tokeniser.pretokeniser.display, b.tokeniser.pretokeniser.display))
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        height=420,
        column_config={
            "token": st.column_config.TextColumn("token", pinned=True),
            "frequency A": st.column_config.NumberColumn("frequency A", format="localized"),
            "frequency B": st.column_config.NumberColumn("frequency B", format="localized"),
            "difference": st.column_config.NumberColumn(
                "B − A", format="localized", help="Frequency under B minus frequency under A."
            ),
        },
    )
    st.download_button(
        "Table (CSV)",
        data=lambda: table.to_csv(index=False).encode("utf-8"),
        file_name="token-frequency-differences.csv",
        mime="text/csv",
        key="csv_token_frequencies",
        on_click="ignore",
        icon=":material/download:",
    )
    query = {"a": links["token_a"][0], "b": links["token_b"][0], "source": source}
    st.page_link(
        "pages/compare.py",
        label="The words behind these differences: Compare tokenisers",
        icon=":material/difference:",
        query_params={k: v for k, v in query.items() if v is not None},
    )


# --- the page --------------------------------------------------------------------------------------
st.title("Blame & distributions")
ws = current()
st.caption(
    f"Tokeniser **{md_escape(ws.tokeniser_name)}** · reference **{md_escape(ws.reference_name)}** "
    f"({len(ws.references.entries):,} words) · corpus **{md_escape(ws.corpus_name)}**. "
    "Change them on the Workspace page."
)
view = st.segmented_control(
    "View", VIEWS, default=BLAME_VIEW, required=True, key="view", bind="query-params", label_visibility="collapsed"
)
if view != TOKENS_VIEW:
    left, right = st.columns([2, 3], gap="large")
    with left:
        threshold = st.select_slider(
            "Knockout threshold t",
            THRESHOLDS,
            value=DEFAULT_THRESHOLD,
            format_func=lambda t: f"{t:g}",
            key="threshold",
            bind="query-params",
            help="bpe-knockout uses 0.5. “+ knockout” and “+ ReBPE” on this page use this threshold.",
        )
    with right:
        st.markdown(
            "**Blame** ([knockout §3.4]): over the reference words, **N(m)** counts the character boundaries "
            "merge m removed and **B(m)** those of them where the reference has a morph boundary. "
            f"Knockout removes every merge with **R(m) = B(m) / N(m) ≥ {threshold:g}**."
        )
with boundary():
    if view == BLAME_VIEW:
        render_blame(ws, threshold)
    elif view == SWEEP_VIEW:
        render_sweep(ws, threshold)
    elif view == CORPUS_VIEW:
        render_corpus(ws, threshold)
    else:
        render_tokens(ws)
