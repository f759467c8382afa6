"""Tables and figures for stepping through a BPE-knockout / ReBPE run, for blocked merges, and the
moved-merge listings of [rebpe App. A.3].

Pure builders (no Streamlit): rows are plain dicts of readable strings, figures are plotly
``Figure`` objects (``st.plotly_chart`` draws them with the plotly.js bundled in Streamlit, no
CDN). Token strings pass through :func:`viz.tokens.shown` (bytes decoded, whitespace visible);
nothing here produces HTML.

Step numbering: step 0 is the tokeniser as loaded, step ``i >= 1`` is ``run.steps[i - 1]`` (one
phase: annealing, knockout, reparation or reification, [rebpe Alg. 1-2]).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import plotly.graph_objects as go

from core.analysis.explain import WordTrace, reference_splits, word_boundaries
from core.bpe.model import BTETokeniser, Merge
from core.edits.diagnostics import changes_by_origin, knocked_out_by_origin, metrics_table, vocab_size_per_iteration
from core.edits.step_changes import merges_around
from core.edits.steps import ORIGINS, PREEXISTING, StepReport
from core.references.evaluation import MorphScores
from viz.escaping import code_span
from viz.ranks import rank_text
from viz.tokens import shown
from viz.trees import TOKEN_PX

Display = Callable[[str], str]

PHASE_SHORT = {"annealing": "anneal", "knockout": "knock", "reparation": "repair", "reification": "reify"}

#: What each phase does, in a sentence a class can follow ([rebpe §3, Alg. 1-2]).
PHASE_TEXT = {
    "annealing": (
        "**Annealing** ([rebpe §3.4]) adds merges for adjacent token pairs whose boundary the "
        "reference never wants (false splits), appended after the last merge."
    ),
    "knockout": (
        "**Knockout** ([knockout §3.3-3.4]) removes every merge whose blame ratio — how often "
        "it merged across a reference boundary, over how often it applied — reaches the threshold. "
        "Its type leaves the vocabulary; merges that used that type get its parts instead and "
        "become tuple merges (*split by knockout*)."
    ),
    "reparation": (
        "**Reparation** ([rebpe §3.1, Alg. 2 lines 2-15]) checks every tuple merge with "
        "LIMITEDBPE: if the merges ranked before it no longer produce its parts, it could never "
        "apply (it is *blocked*), so its parts are replaced by what is really found at its turn."
    ),
    "reification": (
        "**Reification** ([rebpe §3.2, Alg. 2 lines 18-52]) turns tuple merges back into "
        "binary ones: an adjacent pair inside a tuple is linked to an existing merge (*reused*) "
        "or created as a new merge just before the tuple (*reified*)."
    ),
}
START_TEXT = (
    "**Step 0** is the tokeniser as loaded, before any phase. Press **Next** to apply the first "
    "phase; every later step shows what that phase changed."
)


# --- labels ---------------------------------------------------------------------------------------
def merge_text(merge: Merge | None, display: Display = lambda t: t) -> str:
    """``Ġbru + ids``: the parts of a merge in readable form."""
    if merge is None:
        return ""
    return " + ".join(shown(p, display) for p in merge.parts)


def tokens_text(tokens: Iterable[str], display: Display = lambda t: t) -> str:
    return " ".join(shown(t, display) for t in tokens)


def step_labels(steps: Sequence[StepReport]) -> list[str]:
    """Short, unique axis labels: ``start``, ``1 knock``, ``1 repair``, ``1 reify``, ``2 knock`` ..."""
    labels, seen = ["start"], {"start"}
    for step in steps:
        label = f"{step.iteration} {PHASE_SHORT.get(step.phase, step.phase)}"
        while label in seen:
            label += "′"
        seen.add(label)
        labels.append(label)
    return labels


def step_title(steps: Sequence[StepReport], index: int) -> str:
    """``Step 3 of 21 · iteration 1 · reification`` (step 0: the tokeniser as loaded)."""
    if index <= 0:
        return f"Step 0 of {len(steps)} · the tokeniser as loaded"
    step = steps[index - 1]
    note = "" if step.changed else " · nothing changed"
    return f"Step {index} of {len(steps)} · iteration {step.iteration} · {step.phase}{note}"


WORDS_CHANGED = "Words changed"


def step_counts(step: StepReport | None, words_changed: int = 0) -> list[tuple[str, int]]:
    """(label, count) for the counts row of a step; ``words_changed`` is the number of reference
    words whose tree the step changed (:func:`core.edits.step_changes.affected_words`, the one
    definition of a changed word)."""
    if step is None:
        return []
    return [
        ("Merges removed", len(step.removed)),
        ("Merges added", len(step.added)),
        ("Merges rewired", len(step.rewired)),
        ("Types removed", len(step.types_removed)),
        ("Types added", len(step.types_added)),
        (WORDS_CHANGED, words_changed),
    ]


def words_changed_help(changed: int, new_tokens: int) -> str:
    """What the words-changed count means, split into words with new tokens and with a new tree only."""
    return (
        f"Reference words whose merge tree this step changed: {new_tokens:,} of them now have other tokens, "
        f"{changed - new_tokens:,} keep their tokens but are merged differently (as *bruids* in [rebpe] "
        "App. A.1 scenario 2a). The word list and the *Words changed* tab show the same words."
    )


# --- what changed -------------------------------------------------------------------------------
def _memo(function: Callable[[str], str]) -> Callable[[str], str]:
    cache: dict[str, str] = {}

    def memoised(text: str) -> str:
        found = cache.get(text)
        if found is None:
            found = cache[text] = function(text)
        return found

    return memoised


def merge_change_rows(
    step: StepReport, previous_origins: Mapping[str, str] | None = None, display: Display = lambda t: t
) -> list[dict]:
    """One row per merge the step removed, added or rewired (in rank order).

    ``origin`` is how the merge came into existence ([rebpe Fig. 4]): for a removed merge its
    origin before the step (``previous_origins``, default pre-existing), otherwise after it.
    """
    previous_origins = previous_origins or {}
    show = _memo(lambda t: shown(t, display))  # parts repeat a lot: make each token readable once

    def parts(merge: Merge) -> str:
        return " + ".join(show(p) for p in merge.parts)

    rows = []
    for merge in step.removed:
        rows.append(
            {
                "change": "removed",
                "rank": merge.rank,
                "merge before": parts(merge),
                "merge after": "",
                "type": show(merge.result),
                "origin": previous_origins.get(merge.result, PREEXISTING),
            }
        )
    for merge in step.added:
        rows.append(
            {
                "change": "added",
                "rank": merge.rank,
                "merge before": "",
                "merge after": parts(merge),
                "type": show(merge.result),
                "origin": step.origins.get(merge.result, PREEXISTING),
            }
        )
    for before, after in step.rewired:
        rows.append(
            {
                "change": "rewired",
                "rank": after.rank,
                "merge before": parts(before),
                "merge after": parts(after),
                "type": show(after.result),
                "origin": step.origins.get(after.result, PREEXISTING),
            }
        )
    rows.sort(key=lambda r: (r["rank"], r["change"]))
    for row in rows:
        row["rank"] = rank_text(row["rank"])
    return rows


def filter_rows(rows: Sequence[dict], query: str | None, columns: Sequence[str] | None = None) -> list[dict]:
    """Rows with ``query`` (case-insensitive) in one of ``columns`` (default: every column)."""
    query = (query or "").strip().lower()
    if not query:
        return list(rows)
    out = []
    for row in rows:
        values = row.values() if columns is None else (row.get(c, "") for c in columns)
        if any(query in str(v).lower() for v in values):
            out.append(row)
    return out


def rows_to_csv(rows: Sequence[dict]) -> str:
    """CSV text (header from the first row); empty rows give an empty string."""
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def changed_word_rows(
    changed_words: Iterable[tuple[str, Sequence[str], Sequence[str]]],
    display: Display = lambda t: t,
    tree_only: Iterable[tuple[str, Sequence[str]]] | None = None,
) -> list[dict]:
    """One row per word whose tokens changed; with ``tree_only`` ((word, tokens) of the words whose
    tree changed but not their tokens) also those, and a ``change`` column telling the two apart."""
    rows = [
        {
            "word": shown(word),
            "tokens before": tokens_text(before, display),
            "tokens after": tokens_text(after, display),
        }
        for word, before, after in changed_words
    ]
    if tree_only is None:
        return rows
    for row in rows:
        row["change"] = "tokens"
    return rows + [
        {
            "word": shown(word),
            "tokens before": tokens_text(tokens, display),
            "tokens after": tokens_text(tokens, display),
            "change": "tree only",
        }
        for word, tokens in tree_only
    ]


def neighbourhood_rows(
    tokeniser: BTETokeniser, type_: str, display: Display = lambda t: t, limit: int = 12
) -> list[dict]:
    """The merges around a type ([knockout §3.1]): M_i (the merge forming it) and M_o (the
    merges using it as a part, the first ``limit`` by rank)."""
    if type_ not in tokeniser.types:
        return [{"relation": "not in V", "merge": "", "forms": shown(type_, display), "rank": "", "tuple merge": ""}]
    rows = []
    if type_ in tokeniser.alphabet:
        rows.append(
            {"relation": "alphabet", "merge": "", "forms": shown(type_, display), "rank": "", "tuple merge": ""}
        )
    formed, users = merges_around(tokeniser, type_)
    for merge in formed:
        rows.append(
            {
                "relation": "formed by",
                "merge": merge_text(merge, display),
                "forms": shown(merge.result, display),
                "rank": rank_text(merge.rank),
                "tuple merge": "yes" if merge.is_tuple else "",
            }
        )
    for merge in users[:limit]:
        rows.append(
            {
                "relation": "used by",
                "merge": merge_text(merge, display),
                "forms": shown(merge.result, display),
                "rank": rank_text(merge.rank),
                "tuple merge": "yes" if merge.is_tuple else "",
            }
        )
    if len(users) > limit:
        rows.append(
            {"relation": "used by", "merge": f"… {len(users) - limit} more", "forms": "", "rank": "", "tuple merge": ""}
        )
    return rows


# --- metrics ([rebpe Table 4 / App. D]) ------------------------------------------------------------
def metrics_rows(steps: Sequence[StepReport], initial: MorphScores | None, upto: int) -> list[dict]:
    """:func:`core.edits.diagnostics.metrics_table` up to step ``upto``, in percent, for a table."""
    rows = []
    for row in metrics_table(steps[:upto], initial):
        rows.append(
            {
                "iteration": row["iteration"],
                "phase": row["phase"],
                "|V|": row["vocab_size"],
                "tuple merges": row["tuple_merges"],
                "Pr %": round(100 * row["precision"], 2),
                "Re %": round(100 * row["recall"], 2),
                "F1 %": round(100 * row["f1"], 2),
                "ΔF1": None if row["delta_f1"] is None else round(100 * row["delta_f1"], 2),
            }
        )
    return rows


def table4_row(steps: Sequence[StepReport], initial: MorphScores, upto: int) -> dict[str, str]:
    """The run so far as one row of [rebpe Table 4]: BPE's F1, then the change of every phase
    (percentage points, signed), then the F1 reached."""
    labels = step_labels(steps)
    row = {"BPE": f"{100 * initial.f1:.2f}"}
    previous = initial.f1
    for label, step in zip(labels[1 : upto + 1], steps[:upto], strict=True):
        row[label] = f"{100 * (step.metrics.f1 - previous):+.2f}"
        previous = step.metrics.f1
    row["F1"] = f"{100 * previous:.2f}"
    return row


def _fixed_categories(fig: go.Figure, labels: Sequence[str]) -> None:
    """Keep every step's slot on the x axis, so stepping fills the chart in place."""
    fig.add_trace(
        go.Scatter(
            x=list(labels),
            y=[None] * len(labels),
            mode="markers",
            showlegend=False,
            hoverinfo="skip",
            marker={"opacity": 0},
        )
    )
    fig.update_xaxes(categoryorder="array", categoryarray=list(labels), type="category")


def _layout(fig: go.Figure, title: str, y_title: str, height: int = 380) -> go.Figure:
    # The legend sits between the title and the plot, so rotated step labels below keep their room.
    fig.update_layout(
        title={"text": title, "font": {"size": 15}, "y": 0.97, "yanchor": "top"},
        height=height,
        margin={"l": 10, "r": 10, "t": 78, "b": 10},
        yaxis_title=y_title,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "font": {"size": 12}},
        font={"size": 13},
    )
    fig.update_xaxes(automargin=True)
    if fig.layout.xaxis.type == "category":
        # Step labels upright, each straight below its bar: slanted ones end at their tick, so the eye
        # reads the bar as the next label's ("1 repair" under the "1 knock" bar).
        fig.update_xaxes(tickangle=-90)
    return fig


def f1_figure(steps: Sequence[StepReport], initial: MorphScores, upto: int) -> go.Figure:
    """F1 so far as a waterfall: BPE's F1, then each phase's change ([rebpe Table 4])."""
    labels = step_labels(steps)
    values = [100 * initial.f1]
    previous = initial.f1
    for step in steps[:upto]:
        values.append(100 * (step.metrics.f1 - previous))
        previous = step.metrics.f1
    shown_labels = labels[: upto + 1]
    fig = go.Figure(
        go.Waterfall(
            x=shown_labels,
            y=values,
            measure=["absolute"] + ["relative"] * upto,
            # tiny changes get no label: neighbouring labels would overlap
            text=[f"{values[0]:.1f}"] + [f"{v:+.1f}" if abs(v) >= 0.5 else "" for v in values[1:]],
            customdata=[f"{values[0]:.2f}"] + [f"{v:+.2f}" for v in values[1:]],
            textposition="outside",
            increasing={"marker": {"color": "#16a34a"}},
            decreasing={"marker": {"color": "#dc2626"}},
            totals={"marker": {"color": "#2563eb"}},
            connector={"line": {"color": "#a8a29e"}},
            textfont={"size": 12},
            constraintext="none",
            cliponaxis=False,
            hovertemplate="%{x}: %{customdata} points<extra></extra>",
            name="F1",
            showlegend=False,
        )
    )
    _fixed_categories(fig, labels)
    top = max([100 * initial.f1] + [100 * s.metrics.f1 for s in steps])
    fig.update_yaxes(range=[0, min(100, top + 12) if top < 95 else 105])
    return _layout(fig, f"Morphological F1 so far: {100 * previous:.2f} % (bars: change per phase)", "F1 (%)")


def vocab_figure(steps: Sequence[StepReport], start: BTETokeniser, upto: int) -> go.Figure:
    """|V| per iteration (core.edits.diagnostics.vocab_size_per_iteration, [rebpe Fig. 3]) and tuple merges."""
    sizes = {0: start.vocab_size, **vocab_size_per_iteration(steps[:upto])}
    tuples = {0: len(start.tuple_merges)}
    for step in steps[:upto]:
        tuples[step.iteration] = step.tuple_merges
    iterations = sorted({0, *(s.iteration for s in steps)})
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=list(sizes), y=list(sizes.values()), mode="lines+markers", name="|V|", line={"color": "#2563eb"})
    )
    fig.add_trace(
        go.Scatter(
            x=list(tuples),
            y=list(tuples.values()),
            mode="lines+markers",
            name="tuple merges",
            line={"color": "#c2410c", "dash": "dot"},
            yaxis="y2",
        )
    )
    fig.update_layout(yaxis2={"overlaying": "y", "side": "right", "title": "tuple merges", "rangemode": "tozero"})
    fig.update_xaxes(title="iteration", tickmode="array", tickvals=iterations, range=[-0.3, max(iterations) + 0.3])
    return _layout(fig, "Vocabulary size per iteration (Fig. 3)", "|V|")


ORIGIN_COLOURS = {
    "pre-existing": "#a8a29e",
    "split by knockout": "#c2410c",
    "reified": "#16a34a",
    "reused": "#0891b2",
    "annealed": "#7c3aed",
    "repaired": "#ca8a04",
}


def origins_figure(steps: Sequence[StepReport], upto: int) -> go.Figure:
    """Merges touched per step (core.edits.diagnostics.changes_by_origin): removed below zero, added or
    rewired above, coloured by their origin after the step ([rebpe Fig. 3-4]). Its x axis is the F1
    chart's, ``start`` included (no bar there), so that the two charts side by side line up."""
    labels = step_labels(steps)
    rows = changes_by_origin(steps[:upto])
    x = labels[1 : upto + 1]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=x,
            y=[-r["removed"] for r in rows],
            name="removed",
            marker_color="#dc2626",
            hovertemplate="%{x}: %{customdata} removed<extra></extra>",
            customdata=[r["removed"] for r in rows],
        )
    )
    for origin in ORIGINS:
        values = [r[origin] for r in rows]
        if any(values):
            fig.add_trace(go.Bar(x=x, y=values, name=origin, marker_color=ORIGIN_COLOURS.get(origin)))
    _fixed_categories(fig, labels)
    fig.update_layout(barmode="relative")
    return _layout(fig, "Merges changed per step, by origin", "merges")


def knocked_out_figure(steps: Sequence[StepReport], upto: int) -> go.Figure:
    """Merges knocked out per iteration (core.edits.diagnostics.knocked_out_by_origin), stratified by
    origin ([rebpe Fig. 4])."""
    all_rows = knocked_out_by_origin(steps)
    rows = knocked_out_by_origin(steps[:upto])
    fig = go.Figure()
    for origin in ORIGINS:
        if any(r[origin] for r in rows):
            fig.add_trace(
                go.Bar(
                    x=[r["iteration"] for r in rows],
                    y=[r[origin] for r in rows],
                    name=origin,
                    marker_color=ORIGIN_COLOURS.get(origin),
                )
            )
    iterations = [r["iteration"] for r in all_rows] or [1]
    fig.update_layout(barmode="stack")
    fig.update_xaxes(
        title="iteration", tickmode="array", tickvals=iterations, range=[min(iterations) - 0.6, max(iterations) + 0.6]
    )
    return _layout(fig, "Merges knocked out per iteration, by origin (Fig. 4)", "merges")


# --- scenarios ([rebpe App. A.1]) -------------------------------------------------------------------
_SCENARIO = re.compile(r"^a1_scenario(\d)([a-z]?)(?:_(i+))?(?:_(first|second))?$")


def scenario_label(name: str) -> str:
    """``a1_scenario2b_i_first`` -> ``2b(i) first``, ``a3_moving_merges`` -> ``A.3 moving merges``;
    other names unchanged."""
    if name.startswith("a3_"):
        return "A.3 " + name[3:].replace("_", " ")
    match = _SCENARIO.match(name)
    if not match:
        return name
    number, letter, roman, which = match.groups()
    return f"{number}{letter}" + (f"({roman})" if roman else "") + (f" {which}" if which else "")


# --- moved merges ([rebpe App. A.3]) -----------------------------------------------------------------
#: The paper's moves for the variants of the shipped App. A.3 tokeniser (``a3_moving_merges``).
MOVES = {
    "delayed": "the triplet a + b + c is delayed until bc has formed, as a + bc",
    "expedited": "the submerge b + c is moved before the triplet, which becomes a + bc",
    "expedited_twice": "c + d is moved before b + c as well",
}


def move_label(name: str) -> str:
    """``expedited_twice`` -> ``moved: expedited twice``."""
    return "moved: " + name.replace("_", " ")


def listing_rows(
    tokeniser: BTETokeniser, knocked: BTETokeniser, blocked: Iterable[Merge], display: Display = lambda t: t
) -> list[dict]:
    """A merge list as [rebpe App. A.3] prints it: each merge, where its type's merge was after
    knockout (``#2``, or ``#1 as a + b + c`` when it had other parts, or ``new``), and which merges
    are blocked."""
    blocked = set(blocked)
    rows = []
    for merge in tokeniser.merges:
        old = knocked.merge_of(merge.result)
        was = (
            "new"
            if old is None
            else rank_text(old.rank) + ("" if old.parts == merge.parts else f" as {merge_text(old, display)}")
        )
        rows.append(
            {
                "rank": rank_text(merge.rank),
                "merge": merge_text(merge, display),
                "after knockout": was,
                "blocked": "blocked" if merge in blocked else "",
            }
        )
    return rows


# --- blocked merges ([rebpe §3.1, App. A.1], A.3) ---------------------------------------------------
def blocked_rows(blocked: Sequence, display: Display = lambda t: t) -> list[dict]:
    """One row per :class:`core.edits.blocked.BlockedMerge`, in rank order."""
    return [
        {
            "rank": rank_text(item.merge.rank),
            "blocked merge": merge_text(item.merge, display),
            "type": shown(item.merge.result, display),
            "scenario": item.scenario,
            "found at its turn": tokens_text(item.limited_tokens, display),
            "blocking merge": (
                merge_text(item.blocking_merge, display)
                if item.blocking_merge is not None
                else f"{merge_text(item.blocked_ancestor, display)} (blocked upstream)"
                if item.blocked_ancestor is not None
                else ""
            ),
            "example word": shown(item.example_word) if item.example_word else "",
        }
        for item in blocked
    ]


def repair_rows(repaired: Sequence[tuple[Merge, Merge]], display: Display = lambda t: t) -> list[dict]:
    """(merge before, merge after) pairs of :func:`core.edits.rebpe.repair` as rows."""
    return [
        {
            "rank": rank_text(after.rank),
            "type": shown(after.result, display),
            "parts before": merge_text(before, display),
            "parts after": merge_text(after, display),
        }
        for before, after in repaired
    ]


# --- trees ------------------------------------------------------------------------------------------
#: A style-only block for ``st.html``: trees in the pages' ``merge-tree-block`` wrappers shrink to the
#: column width (the SVG has a viewBox) instead of hiding their right end behind a scroll bar; a tree
#: that still overflows its frame (``viz.trees.svg_html``'s ``merge-tree``) shows its scroll bar at all
#: times (Streamlit's theme shows one only on hover, so the tree looked cut).
TREE_CSS = (
    "<style>.merge-tree-block svg { max-width: 100%; height: auto; }"
    ".merge-tree::-webkit-scrollbar, .merge-tree-block::-webkit-scrollbar { height: 10px; }"
    ".merge-tree::-webkit-scrollbar-thumb, .merge-tree-block::-webkit-scrollbar-thumb "
    "{ background: #a8a29e; border-radius: 5px; }"
    ".merge-tree, .merge-tree-block { scrollbar-width: thin; scrollbar-color: #a8a29e transparent; }</style>"
)
#: The smallest scale of a tree in presentation mode: its token labels stay 14 px or more.
PRESENT_MIN_SCALE = 14 / TOKEN_PX
#: In presentation mode a tree keeps its width (a tree wider than its column scrolls sideways inside its
#: frame, its scroll bar shown by ``TREE_CSS``) and shrinks only to fit the height left under the
#: controls, never below ``PRESENT_MIN_SCALE`` (``ui.tree_block.show_tree(floor=...)``: a taller tree
#: then scrolls the page, its labels still readable). The rows of the page stand closer together (half
#: of Streamlit's 1rem), so that the trees of the scenarios fit under the controls at 720 px.
PRESENT_TREE_CSS = (
    "<style>.merge-tree-block svg { max-width: none; max-height: calc(100vh - 340px); width: auto; }"
    "[data-testid=stMainBlockContainer] [data-testid=stVerticalBlock] { gap: 0.5rem; }"
    # Streamlit pulls the element after a heading up by 1rem, which the narrower gap no longer covers:
    # the page title would run under the row below it.
    "[data-testid=stHeading]:has(h1) [data-testid=stMarkdownContainer] { margin-bottom: 0; }</style>"
)
TREE_HELP = (
    "Leaves are the characters; each box above them is a merge with the token it forms and its "
    "rank (#); the filled boxes at the top are the final tokens."
)
#: The legend's name for the blue borders of the stepper's trees (``viz.trees.tree_legend_html``), and
#: its shorter form when presenting (the legend then fits one line under the trees).
STEP_HIGHLIGHT = "left: merges this step removed or rewired; right: merges it added or rewired"
STEP_HIGHLIGHT_SHORT = "merges this step changed"


def reference_marks(traced: WordTrace, morphs: Sequence[str] | None) -> set[tuple[int, int]]:
    """The reference boundaries of a traced word where :func:`viz.trees.merge_tree_svg` draws them (its
    ``reference``: ``(pretoken, offset)``), found as the word debugger finds them
    (:func:`core.analysis.explain.word_boundaries`); none without reference morphs."""
    if not morphs:
        return set()
    return {(b.pretoken, b.offset) for b in word_boundaries(traced, reference_splits(morphs)) if b.reference}


def tokens_markdown(tokens: Sequence[str], display: Display = lambda t: t) -> str:
    """Tokens as markdown code spans (escaped by construction) with their count."""
    count = f"{len(tokens)} token" + ("" if len(tokens) == 1 else "s")
    return " ".join(code_span(shown(t, display)) for t in tokens) + f" ({count})"
