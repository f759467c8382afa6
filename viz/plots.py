"""Plotly figures for the Blame & distributions page, and the plain rows behind them.

Pure functions (no Streamlit, no I/O): engine results in, ``plotly.graph_objects.Figure`` or lists
of dicts out. Offline by construction: labels use Unicode and plotly's own ``<sub>``/``<br>`` tags,
never LaTeX (MathJax would come from a CDN), and :func:`figure_html` inlines plotly.js.

Figures follow the papers:

- blame ratio R(m) = B(m) / N(m) ([knockout §3.4, Eq. 1]): a histogram of R(m) over the
  merges applied at least once, and B(m) against N(m) with the knockout line B = t·N;
- the threshold sweep of [knockout App. A.3] (Fig. 5): merges removed, and Pr/Re/F1;
- the positions of the knocked-out merges in the merge list (Fig. 6) and the change in tokens per
  word after knockout (App. A.4, Fig. 4);
- over a corpus, per tokeniser: the Zipf plot (log rank against log frequency), the
  token-frequency curve log10(count + 1) by rank ([boundless Fig. 4]), Rényi efficiency as a
  function of α, and bars of the scalar metrics ([scaffold Eq. 4-5], [boundless §4]).

Token strings and tokeniser names reach hover labels and legend names through
:func:`viz.escaping.plotly_escape` (plotly renders a subset of HTML in labels, so ``<`` in a token
must not become a tag).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.escaping import plotly_escape
from viz.tokens import shown

# --- look ------------------------------------------------------------------------------------------
#: Okabe-Ito colours (colour-blind safe, and strong enough for a washed-out projector).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999")
KEPT = "#0072B2"  # merges that stay
KNOCKED = "#D55E00"  # merges knocked out
NEUTRAL = "#777777"
FONT_SIZE = 15
#: Streamlit's own typeface (served by the app itself), then the browser's sans-serif.
FONT_FAMILY = '"Source Sans", "Source Sans Pro", "Segoe UI", Roboto, Helvetica, Arial, sans-serif'
TEXT = "#262730"
HEIGHT = 420


def colour_map(labels: Iterable[str]) -> dict[str, str]:
    """One palette colour per label, in order (the same tokeniser has the same colour everywhere)."""
    return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(dict.fromkeys(labels))}


#: Where a legend goes: inside the plot area where the data leave room, or below the x axis.
LEGENDS = {
    "top-right": dict(orientation="v", yanchor="top", y=0.98, xanchor="right", x=0.98),
    "top-left": dict(orientation="v", yanchor="top", y=0.98, xanchor="left", x=0.02),
    "top-center": dict(orientation="v", yanchor="top", y=0.98, xanchor="center", x=0.5),
    "bottom-right": dict(orientation="v", yanchor="bottom", y=0.02, xanchor="right", x=0.98),
    "bottom": dict(orientation="h", yanchor="top", y=-0.2, xanchor="center", x=0.5),
}


def _style(
    fig: go.Figure,
    title: str,
    x_title: str | None = None,
    y_title: str | None = None,
    *,
    height: int = HEIGHT,
    legend: str | None = "top-right",
) -> go.Figure:
    """Shared look: large type for a projector, white background, the legend where it fits.

    A legend at the bottom goes below the x-axis title: the figure grows by its height, and its
    position is set in pixels (75 px under the plot area) whatever the figure's height."""
    top, bottom = 60, 70
    position = dict(LEGENDS.get(legend or "top-right"))
    if legend == "bottom":
        height += 60
        bottom = 130
        position["y"] = -75 / max(100, height - top - bottom)
    fig.update_layout(
        title=dict(text=title, font=dict(size=FONT_SIZE + 3, weight=600), x=0.01, xanchor="left"),
        font=dict(size=FONT_SIZE, family=FONT_FAMILY, color=TEXT),
        template="plotly_white",
        height=height,
        margin=dict(l=70, r=30, t=top, b=bottom),
        showlegend=legend is not None,
        legend=dict(**position, bgcolor="rgba(255,255,255,0.85)", bordercolor="#cccccc", borderwidth=1),
        hoverlabel=dict(font_size=FONT_SIZE - 1, align="left"),
        uniformtext=dict(minsize=FONT_SIZE - 3, mode="show"),
    )
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
    if y_title is not None:
        fig.update_yaxes(title_text=y_title)
    return fig


def _count_axis(fig: go.Figure, top: float, **where) -> None:
    """A y axis of counts: from 0 with headroom for the labels above the bars, whole numbers only
    when the counts are small."""
    fig.update_yaxes(range=[0, max(1, top) * 1.15], **({"dtick": 1} if top <= 8 else {}), **where)


def figure_html(fig: go.Figure) -> str:
    """A standalone HTML file of ``fig`` that works offline: plotly.js inlined, no MathJax, no CDN."""
    return fig.to_html(include_plotlyjs=True, include_mathjax=False, full_html=True, config={"displaylogo": False})


def message_figure(title: str, message: str) -> go.Figure:
    """An empty figure that says why there is nothing to plot."""
    fig = go.Figure()
    fig.add_annotation(
        text=plotly_escape(message),
        showarrow=False,
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
        font=dict(size=FONT_SIZE + 1, color=NEUTRAL),
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return _style(fig, title, legend=None, height=260)


# --- blame -----------------------------------------------------------------------------------------
def merge_label(merge, display: Callable[[str], str] = lambda t: t) -> str:
    """``id + s → ids``: a merge in readable tokens (whitespace and bytes visible), not escaped."""
    return " + ".join(shown(p, display) for p in merge.parts) + " → " + shown(merge.result, display)


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def blame_rows(blames: Iterable, knocked: Iterable = (), display: Callable[[str], str] = lambda t: t) -> list[dict]:
    """One row per merge with N(m) >= 1, in rank order: rank, merge, result, tuple merge, B(m), N(m),
    R(m) and whether it was knocked out (``knocked``: the merges the knockout removed).

    ``blames`` are :class:`core.edits.blame.MergeBlame` (``merge``, ``blame``, ``applications``, ``ratio``).
    """
    knocked = set(knocked)
    rows = []
    for b in sorted(blames, key=lambda b: b.merge.rank):
        if b.applications <= 0:
            continue
        rows.append(
            {
                "rank": _number(b.merge.rank),
                "merge": merge_label(b.merge, display),
                "result": shown(b.merge.result, display),
                "tuple": b.merge.is_tuple,
                "blame": _number(b.blame),
                "applications": _number(b.applications),
                "ratio": b.ratio,
                "knocked_out": b.merge in knocked,
            }
        )
    return rows


def ratio_bins(ratios: Iterable[float], width: float = 0.05) -> list[int]:
    """Counts of R(m) in [0, w), [w, 2w), …, [1 - w, 1] (the last bin includes R = 1)."""
    n = max(1, round(1 / width))
    counts = [0] * n
    for r in ratios:
        counts[min(n - 1, max(0, math.floor(r / width + 1e-9)))] += 1
    return counts


def blame_ratio_histogram(ratios: Sequence[float], threshold: float, width: float = 0.05) -> go.Figure:
    """How many merges have each blame ratio R(m); bins at or above the threshold in the knockout colour."""
    title = "Blame ratio R(m) of the applied merges"
    if not ratios:
        return message_figure(title, "No merge removed a boundary in the reference words.")
    counts = ratio_bins(ratios, width)
    starts = [i * width for i in range(len(counts))]
    fig = go.Figure()
    for name, colour, keep in (
        (f"R(m) < {threshold:g}: kept", KEPT, lambda s: s < threshold - 1e-9),
        (f"R(m) ≥ {threshold:g}: knocked out", KNOCKED, lambda s: s >= threshold - 1e-9),
    ):
        idx = [i for i, s in enumerate(starts) if keep(s)]
        fig.add_trace(
            go.Bar(
                name=name,
                x=[starts[i] + width / 2 for i in idx],
                y=[counts[i] for i in idx],
                width=width * 0.95,
                marker_color=colour,
                text=[f"{counts[i]:,}" if counts[i] else "" for i in idx],
                textposition="outside",
                cliponaxis=False,
                constraintext="none",
                customdata=[[starts[i], starts[i] + width] for i in idx],
                hovertemplate="R(m) from %{customdata[0]:.2f} to %{customdata[1]:.2f}: %{y:,} merges<extra></extra>",
            )
        )
    fig.add_vline(x=threshold, line_dash="dash", line_color="#333333")
    fig.update_xaxes(range=[-0.04, 1.04], dtick=0.1)  # room between the y axis and the first bar's label
    _count_axis(fig, max(counts))
    return _style(fig, title, "blame ratio R(m) = B(m) / N(m)", "merges", legend="bottom")


def blame_scatter(rows: Sequence[dict], threshold: float, *, log_x: bool = True, max_names: int = 8) -> go.Figure:
    """B(m) against N(m): one bubble per distinct (N, B), sized by how many merges share it; the
    hover lists them. The dashed line B = t·N separates the merges knocked out (on or above it)."""
    title = "Blame B(m) against applications N(m)"
    if not rows:
        return message_figure(title, "No merge removed a boundary in the reference words.")
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["applications"], row["blame"]), []).append(row)
    fig = go.Figure()
    for name, colour, knocked in (("kept", KEPT, False), ("knocked out", KNOCKED, True)):
        points = [
            (key, members)
            for key, members in groups.items()
            if (sum(m["knocked_out"] for m in members) * 2 > len(members)) == knocked
        ]
        texts = []
        for (n, b), members in points:
            shown_members = sorted(members, key=lambda m: m["rank"])[:max_names]
            lines = [f"{plotly_escape(m['merge'])}  (rank {m['rank']:,})" for m in shown_members]
            if len(members) > max_names:
                lines.append(f"… and {len(members) - max_names:,} more")
            head = (
                f"<b>N(m) = {n:,}, B(m) = {b:,}, R(m) = {b / n:.2f}</b><br>"
                f"{len(members):,} merge{'s' if len(members) != 1 else ''}:"
            )
            texts.append(head + "<br>" + "<br>".join(lines))
        fig.add_trace(
            go.Scatter(
                name=name,
                mode="markers",
                x=[key[0] for key, _ in points],
                y=[key[1] for key, _ in points],
                customdata=[len(members) for _, members in points],
                marker=dict(
                    color=colour,
                    size=[min(34.0, 8 + 2 * math.sqrt(len(m))) for _, m in points],
                    opacity=0.7,
                    line=dict(width=1, color="white"),
                ),
                text=texts,
                hovertemplate="%{text}<extra></extra>",
            )
        )
    top = max(row["applications"] for row in rows)
    xs = [10 ** (math.log10(top) * i / 60) for i in range(61)] if log_x and top > 1 else [0, top]
    fig.add_trace(
        go.Scatter(
            name=f"B(m) = {threshold:g} · N(m)",
            mode="lines",
            x=xs,
            y=[threshold * x for x in xs],
            line=dict(color="#333333", dash="dash"),
            hoverinfo="skip",
        )
    )
    if log_x:
        fig.update_xaxes(type="log", tickvals=log_ticks(top), range=[-0.15, math.log10(max(top, 2)) + 0.1])
    else:
        fig.update_xaxes(type="linear", rangemode="tozero")
    fig.update_yaxes(rangemode="tozero", range=[-0.5, max(row["blame"] for row in rows) * 1.08 + 1])
    return _style(
        fig,
        title,
        "N(m): boundaries removed" + (" (log scale)" if log_x else ""),
        "B(m): of those, reference splits",
        legend="top-left",
    )


def log_ticks(top: float) -> list[int]:
    """1, 2, 5, 10, 20, 50, … up to the first value >= ``top``: readable ticks for a log axis."""
    ticks, decade = [], 1
    while True:
        for step in (1, 2, 5):
            ticks.append(step * decade)
            if step * decade >= top:
                return ticks
        decade *= 10


def threshold_sweep_figure(rows: Sequence[dict], threshold: float | None = None) -> go.Figure:
    """[knockout App. A.3 / Fig. 5]: merges knocked out (left) and Pr/Re/F1 (right) per threshold.

    ``rows`` as :func:`core.edits.diagnostics.threshold_sweep` returns them.
    """
    title = "Knockout at every threshold t: remove the merges with R(m) ≥ t"
    if not rows:
        return message_figure(title, "No thresholds were evaluated.")
    xs = [r["threshold"] for r in rows]
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=("Merges knocked out", "Reference splits after knockout")
    )
    fig.add_trace(
        go.Scatter(
            name="merges knocked out",
            x=xs,
            y=[r["removed"] for r in rows],
            mode="lines+markers",
            line=dict(color=NEUTRAL, width=3),
            hovertemplate="threshold %{x:.2f}: %{y:,} merges<extra></extra>",
        ),
        row=1,
        col=1,
    )
    for key, name, colour in (
        ("precision", "precision", PALETTE[0]),
        ("recall", "recall", PALETTE[1]),
        ("f1", "F1", PALETTE[2]),
    ):
        fig.add_trace(
            go.Scatter(
                name=name,
                x=xs,
                y=[r[key] for r in rows],
                mode="lines+markers",
                line=dict(color=colour, width=3),
                hovertemplate=f"threshold %{{x:.2f}}: {name} %{{y:.1%}}<extra></extra>",
            ),
            row=1,
            col=2,
        )
    if threshold is not None:
        fig.add_vline(x=threshold, line_dash="dash", line_color="#333333", row="all", col="all")
    fig.update_xaxes(title_text="blame threshold", range=[0, 1], dtick=0.1)
    fig.update_yaxes(
        title_text="merges", row=1, col=1, **({"dtick": 1} if max(r["removed"] for r in rows) <= 8 else {})
    )
    fig.update_yaxes(title_text="score", tickformat=".0%", row=1, col=2)
    fig.update_annotations(font_size=FONT_SIZE + 1)
    return _style(fig, title, height=HEIGHT, legend="bottom")


def rank_bins(ranks: Iterable[int], n_merges: int, bins: int = 20) -> tuple[int, list[int]]:
    """(bin width, counts) of merge-list positions 0..n_merges-1 in at most ``bins`` equal bins."""
    width = max(1, math.ceil(max(1, n_merges) / bins))
    counts = [0] * max(1, math.ceil(max(1, n_merges) / width))
    for rank in ranks:
        counts[min(len(counts) - 1, max(0, rank // width))] += 1
    return width, counts


def knocked_rank_histogram(ranks: Sequence[int], n_merges: int, bins: int = 20) -> go.Figure:
    """[knockout Fig. 6]: where in the merge list the knocked-out merges were."""
    title = "Positions of the knocked-out merges"
    if not ranks:
        return message_figure(title, "No merge was knocked out.")
    width, counts = rank_bins(ranks, n_merges, bins)
    starts = [i * width for i in range(len(counts))]
    fig = go.Figure(
        go.Bar(
            x=[s + width / 2 for s in starts],
            y=counts,
            width=width * 0.95,
            marker_color=KNOCKED,
            customdata=[[s, min(s + width, n_merges) - 1] for s in starts],
            text=[f"{c:,}" if c else "" for c in counts],
            textposition="outside",
            cliponaxis=False,
            constraintext="none",
            hovertemplate="positions %{customdata[0]:,}–%{customdata[1]:,}: %{y:,} knocked out<extra></extra>",
        )
    )
    fig.update_xaxes(range=[0, max(starts[-1] + width, n_merges)])
    _count_axis(fig, max(counts))
    return _style(fig, title, "position in the merge list (0 = the first merge)", "merges knocked out", legend=None)


def tokens_change_figure(changes: Mapping[int, int]) -> go.Figure:
    """[knockout App. A.4 / Fig. 4]: words by (tokens after knockout − tokens before)."""
    title = "Change in tokens per word after knockout"
    total = sum(changes.values())
    if not total:
        return message_figure(title, "No reference words to compare.")
    deltas = sorted(changes)
    colours = [PALETTE[2] if d < 0 else NEUTRAL if d == 0 else KNOCKED for d in deltas]
    fig = go.Figure(
        go.Bar(
            x=deltas,
            y=[changes[d] for d in deltas],
            marker_color=colours,
            text=[f"{changes[d] / total:.1%}" for d in deltas],
            textposition="outside",
            cliponaxis=False,
            constraintext="none",
            hovertemplate="%{x:+d} tokens: %{y:,} words (%{text})<extra></extra>",
        )
    )
    ticks = list(range(min(deltas), max(deltas) + 1))
    fig.update_xaxes(
        tickvals=ticks,
        ticktext=[f"+{d}" if d > 0 else f"−{-d}" if d < 0 else "0" for d in ticks],
        range=[min(deltas) - 0.7, max(deltas) + 0.7],
    )
    _count_axis(fig, max(changes.values()))
    return _style(fig, title, "tokens after knockout − tokens before", "reference words", legend=None)


# --- corpus distributions --------------------------------------------------------------------------
def compress_runs(points: Sequence[tuple]) -> list[tuple]:
    """Keep the first and last point of every run of equal y values (lossless for a line plot:
    the dropped points lie on the horizontal segment between the kept ones)."""
    out: list[tuple] = []
    n = len(points)
    for i, point in enumerate(points):
        if 0 < i < n - 1 and points[i - 1][1] == point[1] == points[i + 1][1]:
            continue
        out.append(point)
    return out


def _line_figure(curves: Mapping[str, Sequence[tuple]], colours: Mapping[str, str] | None, hover: str) -> go.Figure:
    colours = colours or colour_map(curves)
    fig = go.Figure()
    for label, points in curves.items():
        points = compress_runs(list(points))
        fig.add_trace(
            go.Scatter(
                name=plotly_escape(label),
                mode="lines",
                x=[p[0] for p in points],
                y=[p[1] for p in points],
                line=dict(color=colours.get(label, NEUTRAL), width=2.5),
                hovertemplate=f"{plotly_escape(label)}<br>{hover}<extra></extra>",
            )
        )
    return fig


def zipf_figure(curves: Mapping[str, Sequence[tuple[int, int]]], colours: Mapping[str, str] | None = None) -> go.Figure:
    """Zipf plot: count against rank of the types that occur, both axes logarithmic.

    ``curves``: label -> :func:`core.analysis.corpus_metrics.zipf_curve`. A straight line of slope −1 is
    Zipf's law ([knockout §2], "Redundancy").
    """
    title = "Zipf plot: frequency by rank"
    if not any(curves.values()):
        return message_figure(title, "No tokens in the corpus.")
    fig = _line_figure(curves, colours, "rank %{x:,}: %{y:,} occurrences")
    fig.update_xaxes(type="log", dtick=1)
    fig.update_yaxes(type="log", dtick=1)
    return _style(fig, title, "rank of the type (log scale)", "occurrences (log scale)", legend="bottom")


def token_frequency_figure(
    curves: Mapping[str, Sequence[tuple[int, float]]], colours: Mapping[str, str] | None = None, *, log_x: bool = False
) -> go.Figure:
    """[boundless Fig. 4]: log10(count + 1) of every vocabulary type, most to least frequent;
    types never used form the tail at 0.
    ``curves``: label -> :func:`core.analysis.corpus_metrics.token_frequency_curve`.
    The paper's rank axis is linear; ``log_x`` spreads out the used head of a large vocabulary."""
    title = "Token-frequency curve: all types, unused at 0"
    if not any(curves.values()):
        return message_figure(title, "No tokens in the corpus.")
    fig = _line_figure(curves, colours, "rank %{x:,}: log₁₀(count + 1) = %{y:.2f}")
    fig.update_yaxes(rangemode="tozero")
    if log_x:
        fig.update_xaxes(type="log", dtick=1)
    return _style(
        fig,
        title,
        "rank of the type in the vocabulary" + (" (log scale)" if log_x else ""),
        "log₁₀(count + 1)",
        legend="bottom",
    )


def renyi_figure(
    curves: Mapping[str, Sequence[tuple[float, float]]], alpha: float, colours: Mapping[str, str] | None = None
) -> go.Figure:
    """Rényi efficiency H_α / log|V| against α, one line per tokeniser, a marker at the chosen α.

    ``curves``: label -> [(α, efficiency), …]; the point at ``alpha`` itself must be among them.
    """
    title = f"Rényi efficiency against α (marked: α = {alpha:g})"
    if not any(curves.values()):
        return message_figure(title, "No tokens in the corpus.")
    colours = colours or colour_map(curves)
    fig = go.Figure()
    for label, points in curves.items():
        points = sorted(points)
        colour = colours.get(label, NEUTRAL)
        fig.add_trace(
            go.Scatter(
                name=plotly_escape(label),
                mode="lines",
                x=[a for a, _ in points],
                y=[e for _, e in points],
                line=dict(color=colour, width=2.5),
                legendgroup=label,
                hovertemplate=f"{plotly_escape(label)}<br>α = %{{x:.2f}}: %{{y:.3f}}<extra></extra>",
            )
        )
        at = [e for a, e in points if math.isclose(a, alpha)]
        if at:
            fig.add_trace(
                go.Scatter(
                    name=f"{plotly_escape(label)} at α = {alpha:g}",
                    mode="markers",
                    x=[alpha],
                    y=at[:1],
                    marker=dict(color=colour, size=12, line=dict(width=1.5, color="white")),
                    legendgroup=label,
                    showlegend=False,
                    hovertemplate=f"{plotly_escape(label)}<br>α = %{{x:g}}: %{{y:.4f}}<extra></extra>",
                )
            )
    fig.add_vline(x=alpha, line_dash="dash", line_color="#333333")
    fig.update_yaxes(range=[0, 1.02], title_text="H<sub>α</sub>(p) / log |V|")
    return _style(fig, title, "Rényi order α (α = 1 is Shannon entropy)", legend="bottom")


#: The scalar metrics of the summary table: key of core.analysis.corpus_metrics.summary, column title,
#: number format (d3) and whether the figure of bars shows it.
SUMMARY_COLUMNS: tuple[tuple[str, str, str, bool], ...] = (
    ("vocab_size", "|V|", ",d", False),
    ("tokens", "tokens", ",d", False),
    ("types_used", "types used", ",d", False),
    ("vocabulary_used", "vocabulary used", ".1%", True),
    ("bytes_per_token", "bytes / token", ".2f", True),
    ("characters_per_token", "characters / token", ".2f", True),
    ("shannon_entropy", "Shannon entropy H (bits)", ".2f", True),
    ("redundancy", "redundancy R", ".3f", True),
    ("renyi_entropy", "Rényi entropy H_α (bits)", ".2f", False),
    ("renyi_efficiency", "Rényi efficiency", ".3f", True),
    ("zipf_slope", "Zipf slope", ".2f", False),
)


def summary_rows(summaries: Mapping[str, Mapping]) -> list[dict]:
    """One row per tokeniser: its label and the metrics of :data:`SUMMARY_COLUMNS`, keyed by their
    ``core.analysis.corpus_metrics.summary`` names (the α used is in each summary's ``alpha``)."""
    return [
        {"tokeniser": label, "alpha": s.get("alpha"), **{key: s.get(key) for key, *_ in SUMMARY_COLUMNS}}
        for label, s in summaries.items()
    ]


def _d3(value: float | int | None, fmt: str) -> str:
    if value is None:
        return "–"
    if fmt.endswith("%"):
        return f"{value:.{fmt[1:-1]}%}"
    if fmt == ",d":
        return f"{int(value):,}"
    return f"{value:{fmt}}"


def metric_bars(
    rows: Sequence[dict], colours: Mapping[str, str] | None = None, *, alpha: float | None = None, columns: int = 3
) -> go.Figure:
    """Small bar charts, one per metric marked for the figure in :data:`SUMMARY_COLUMNS`, one bar
    per tokeniser (same colours as the curves; the legend names them)."""
    metrics = [(key, title, fmt) for key, title, fmt, bar in SUMMARY_COLUMNS if bar]
    title = "Corpus metrics per tokeniser"
    if not rows:
        return message_figure(title, "No tokeniser to compare.")
    colours = colours or colour_map(r["tokeniser"] for r in rows)
    titles = [t if key != "renyi_efficiency" or alpha is None else f"{t} (α = {alpha:g})" for key, t, _ in metrics]
    n_rows = math.ceil(len(metrics) / columns)
    fig = make_subplots(rows=n_rows, cols=columns, subplot_titles=titles, vertical_spacing=0.2, horizontal_spacing=0.07)
    for i, (key, _, fmt) in enumerate(metrics):
        r, c = divmod(i, columns)
        for row in rows:
            value = row.get(key)
            label = row["tokeniser"]
            fig.add_trace(
                go.Bar(
                    name=plotly_escape(label),
                    legendgroup=label,
                    showlegend=i == 0,
                    x=[label],
                    y=[value],
                    marker_color=colours.get(label, NEUTRAL),
                    text=[_d3(value, fmt)],
                    textposition="outside",
                    cliponaxis=False,
                    constraintext="none",
                    hovertemplate=f"{plotly_escape(label)}: {_d3(value, fmt)}<extra></extra>",
                ),
                row=r + 1,
                col=c + 1,
            )
        top = max((row.get(key) or 0 for row in rows), default=0)
        fig.update_yaxes(
            range=[0, top * 1.25 if top > 0 else 1],
            row=r + 1,
            col=c + 1,
            tickformat=".0%" if fmt.endswith("%") else None,
        )
    fig.update_xaxes(showticklabels=False)
    fig.update_annotations(font_size=FONT_SIZE + 1)
    fig = _style(fig, title, height=280 * n_rows + 70, legend="bottom")
    fig.update_layout(legend_y=-0.04, margin_b=70)  # no x-axis labels here: the legend sits right below
    return fig


def summary_table(rows: Sequence[dict], alpha: float | None = None) -> list[dict]:
    """The summary for reading: one row per metric, one column of formatted values per tokeniser."""
    out = []
    for key, title, fmt, _ in SUMMARY_COLUMNS:
        if alpha is not None and key.startswith("renyi_"):
            title = (
                title.replace("H_α", f"H_α, α = {alpha:g}") if key == "renyi_entropy" else f"{title} (α = {alpha:g})"
            )
        out.append({"metric": title, **{row["tokeniser"]: _d3(row.get(key), fmt) for row in rows}})
    return out


def curve_rows(curves: Mapping[str, Sequence[tuple]], x_name: str, y_name: str) -> list[dict]:
    """A long table of curves: one row per (tokeniser, point), for CSV downloads."""
    return [{"tokeniser": label, x_name: x, y_name: y} for label, points in curves.items() for x, y in points]


def change_rows(changes: Mapping[int, int]) -> list[dict]:
    """The tokens-per-word histogram as rows: change, words, fraction of the words."""
    total = sum(changes.values())
    return [
        {"change_in_tokens": d, "words": changes[d], "fraction": changes[d] / total if total else 0.0}
        for d in sorted(changes)
    ]


def rank_rows(ranks: Sequence[int], n_merges: int, bins: int = 20) -> list[dict]:
    """The knocked-out rank histogram as rows: first and last position of each bin, merges in it."""
    width, counts = rank_bins(ranks, n_merges, bins)
    return [
        {"first_position": i * width, "last_position": min((i + 1) * width, max(1, n_merges)) - 1, "knocked_out": c}
        for i, c in enumerate(counts)
    ]


__all__ = [
    "KEPT",
    "KNOCKED",
    "PALETTE",
    "SUMMARY_COLUMNS",
    "blame_ratio_histogram",
    "blame_rows",
    "blame_scatter",
    "change_rows",
    "colour_map",
    "compress_runs",
    "curve_rows",
    "figure_html",
    "knocked_rank_histogram",
    "log_ticks",
    "merge_label",
    "message_figure",
    "metric_bars",
    "rank_bins",
    "rank_rows",
    "ratio_bins",
    "renyi_figure",
    "summary_rows",
    "summary_table",
    "threshold_sweep_figure",
    "token_frequency_figure",
    "tokens_change_figure",
    "zipf_figure",
]


# --- training dynamics ([boundless Fig. 2-3]) ---------------------------------------------------
def selected_counts_figure(events: Sequence, marker_step: int | None = None) -> go.Figure:
    """log10 of the count behind each training event, by step, one colour per kind (Fig. 2)."""
    fig = go.Figure()
    colours = colour_map(dict.fromkeys(e.kind for e in events))
    for kind, colour in colours.items():
        chosen = [e for e in events if e.kind == kind]
        fig.add_trace(
            go.Scatter(
                x=[e.step for e in chosen],
                y=[math.log10(e.count) if e.count > 0 else None for e in chosen],
                mode="markers",
                name=kind,
                marker=dict(size=5, color=colour),
                text=[plotly_escape(e.label) for e in chosen],
                hovertemplate="step %{x}<br>%{text}<br>log10 count %{y:.2f}<extra>" + plotly_escape(kind) + "</extra>",
            )
        )
    if marker_step is not None:
        fig.add_vline(x=marker_step, line_dash="dot", line_color="#57534e")
    return _style(fig, "Count of each selected operation", "training step", "log10 count")


def kind_fraction_figure(rows: Sequence[dict]) -> go.Figure:
    """Stacked share of each event kind per interval of steps (Fig. 3)."""
    fig = go.Figure()
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    colours = colour_map(kinds)
    for kind in kinds:
        chosen = [r for r in rows if r["kind"] == kind]
        fig.add_trace(
            go.Bar(
                x=[f"{r['start']}–{r['end'] - 1}" for r in chosen],
                y=[r["fraction"] for r in chosen],
                name=kind,
                marker_color=colours[kind],
                hovertemplate="steps %{x}<br>%{y:.1%}<extra>" + plotly_escape(kind) + "</extra>",
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_yaxes(tickformat=".0%", range=[0, 1])
    return _style(fig, "Share of each kind of operation per interval", "training steps", "share", legend="bottom")


def vocab_size_figure(
    events: Sequence, target: int | None = None, marker_step: int | None = None, slots: Sequence[int] | None = None
) -> go.Figure:
    """|V| after each training event (scaffold and removal events make it go down); with ``slots``
    (one per event, core.families.boundless.model.slots_after_events) also the budget slots filled,
    which deleted BoundlessBPE tokens keep."""
    steps = [e.step for e in events]
    fig = go.Figure(
        go.Scatter(
            x=steps,
            y=[e.vocab_size for e in events],
            mode="lines",
            line=dict(color=PALETTE[0]),
            name="|V|",
            hovertemplate="step %{x}<br>|V| %{y:,}<extra></extra>",
        )
    )
    if slots is not None:
        fig.add_trace(
            go.Scatter(
                x=steps,
                y=list(slots),
                mode="lines",
                line=dict(color=PALETTE[1], dash="dot"),
                name="slots filled (deleted tokens keep theirs)",
                hovertemplate="step %{x}<br>slots filled %{y:,}<extra></extra>",
            )
        )
    if target is not None:
        fig.add_hline(y=target, line_dash="dash", line_color="#a8a29e", annotation_text=f"target {target:,}")
    if marker_step is not None:
        fig.add_vline(x=marker_step, line_dash="dot", line_color="#57534e")
    return _style(
        fig, "Vocabulary size during training", "training step", "|V|", legend=None if slots is None else "bottom-right"
    )  # both lines rise from bottom left
