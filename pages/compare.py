"""Compare tokenisers: the words two tokenisers segment differently, and one word's trees side by side.

Thin: the comparison is core's (``core.analysis.compare``: each word's split positions,
the boundary edit distance between them), the choices (workspace tokenisers, and each "after
knockout" / "after ReBPE"), the word sources and the cached comparisons are ``ui.comparisons``';
chips and trees come from ``viz``. The first view is the choosers alone: the comparison runs once
A and B are both chosen, with a progress bar. A, B, the word source and the word in focus are in
the URL (``?a=…&b=…&source=…&word=…``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

import pandas as pd
import streamlit as st

from core.analysis.compare import Comparison
from core.analysis.explain import trace_word
from core.errors import InputError
from core.tokeniser import CapabilityError
from ui.comparisons import (
    REFERENCE,
    Chosen,
    choice_from_link,
    choice_link,
    comparison,
    load_choice,
    option_label,
    segmentations,
    source_label,
    source_options,
    source_words,
    tokeniser_options,
)
from ui.downloads import figure_downloads
from ui.error_boundary import boundary
from ui.tokeniser_loading import merge_graph_view
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import current
from viz.escaping import code_span, md_escape
from viz.step_views import TREE_CSS
from viz.tokeniser_info import markers
from viz.tokens import PAGE_CSS, facts_html, segmentation_html, shown
from viz.tree_states import spelled_characters
from viz.trees import merge_tree_forest, merge_tree_svg, svg_html, tree_legend_html

WORD_KEY, TABLE_KEY = "compare_word", "compare_table"
MAX_WORD_OPTIONS = 2000
MAX_TABLE_ROWS = 20_000  # the table lists the most changed words; its CSV has them all
MAX_WORD_CHARS = 100
HIGHLIGHT_LEGEND = "a token the other tokeniser does not make in this word"
#: Trees wider than this (px) would shrink below 70 % in half the page at 1280 px (where svg_html stops
#: shrinking them and they would have to scroll): both go one above the other instead.
SIDE_BY_SIDE_PX = 540


def marked(word: str, positions) -> str:
    """The word with ``|`` at the given split positions (``bruid|s``); empty when there are none."""
    if not positions:
        return ""
    cuts = [0, *positions, len(word)]
    return "|".join(word[i:j] for i, j in pairwise(cuts))


def difference_rows(differences, display_a, display_b, counted: bool) -> pd.DataFrame:
    rows = []
    for d in differences:
        row = {"word": d.word}
        if counted:
            row["count"] = d.count
        row.update(
            {
                "change": d.change,
                "only A splits": marked(d.word, d.only_a),
                "only B splits": marked(d.word, d.only_b),
                "tokens A": len(d.tokens_a),
                "tokens B": len(d.tokens_b),
                "Δ tokens": d.token_difference,
                "A": " ".join(shown(t, display_a) for t in d.tokens_a),
                "B": " ".join(shown(t, display_b) for t in d.tokens_b),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows)


COLUMNS = {
    "word": st.column_config.TextColumn("word", pinned=True),
    "count": st.column_config.NumberColumn(
        "frequency", format="localized", help="How often the word occurs in the chosen counts."
    ),
    "change": st.column_config.NumberColumn(
        "change", help="Boundary edit distance: split positions only A makes plus those only B makes."
    ),
    "only A splits": st.column_config.TextColumn("only A splits", help="The word cut where only A splits it."),
    "only B splits": st.column_config.TextColumn("only B splits", help="The word cut where only B splits it."),
    "Δ tokens": st.column_config.NumberColumn("Δ tokens", help="Tokens under B minus tokens under A."),
    "A": st.column_config.TextColumn("A tokens"),
    "B": st.column_config.TextColumn("B tokens"),
}


def valid(options: list[str]):
    return lambda raw: raw if raw in options else None


def valid_word(raw: str) -> str | None:
    word = raw.strip()
    return word if word and len(word) <= MAX_WORD_CHARS and not any(c.isspace() for c in word) else None


def pick_row(words: list[str]) -> None:
    """Put the word of the table's selected row in focus."""
    rows = st.session_state[TABLE_KEY].selection.rows
    if rows:
        st.session_state[WORD_KEY] = words[rows[0]]


def summary(a: Chosen, b: Chosen, result: Comparison, counted: bool) -> None:
    facts = [
        ("words compared", f"{result.words:,}"),
        ("segmented differently", f"{result.differing:,} ({result.share:.1%})"),
    ]
    if counted:
        facts.append(("of all occurrences", f"{result.weighted_share:.1%}"))
    if result.occurrences:
        facts += [
            ("tokens per word, A", f"{result.tokens_a / result.occurrences:.3f}"),
            ("tokens per word, B", f"{result.tokens_b / result.occurrences:.3f}"),
        ]
    facts += [("|V| of A", f"{a.tokeniser.vocab_size:,}"), ("|V| of B", f"{b.tokeniser.vocab_size:,}")]
    st.html(facts_html(facts))
    if counted:
        st.caption("Tokens per word and the share of occurrences are weighted by the words' frequencies.")
    if result.unaligned:
        st.caption(
            f"{len(result.unaligned):,} words are left out: a pre-tokeniser changes their length or reads an "
            f"added token in them, so their characters cannot be aligned "
            f"(e.g. {md_escape(', '.join(result.unaligned[:3]))})."
        )


def side_tokens(chosen: Chosen, role: str, word: str, tokens: tuple[str, ...]) -> None:
    """One tokeniser's name and its tokens of ``word`` as chips."""
    tokeniser = chosen.tokeniser
    st.markdown(f"**{role}** · {md_escape(option_label(chosen.name))}")
    st.html(segmentation_html(word, tokens, tokeniser.pretokeniser.display, markers=markers(tokeniser.pretokeniser)))


@dataclass(frozen=True)
class SideTree:
    """One tokeniser's merge trees of a word, drawn, with what their downloads need."""

    pretokens: list
    options: dict
    svg: str
    note: str  # set when drawn on the merge graph of another family

    @property
    def width(self) -> int:
        found = re.search(r'<svg[^>]* width="(\d+)"', self.svg)
        return int(found.group(1)) if found else 0


def side_tree(chosen: Chosen, word: str, tokens: tuple[str, ...], other_tokens: tuple[str, ...]) -> SideTree | str:
    """The word's merge trees under ``chosen``, its tokens that the other tokeniser does not make bordered;
    without a merge graph, the reason why."""
    tokeniser = chosen.tokeniser
    try:
        graph = merge_graph_view(chosen.key, tokeniser, "A merge tree")
    except CapabilityError as err:
        return str(err)
    pretokens = [(t.pretoken, t.trees) for t in trace_word(graph, word).traces]
    options = dict(highlight=set(tokens) - set(other_tokens), caption=f"merge tree of {word} under {chosen.name}")
    note = (
        ""
        if graph is tokeniser
        else f"Drawn on the merge graph of this {tokeniser.kind} tokeniser: its own tokens (above) can differ."
    )
    return SideTree(pretokens, options, merge_tree_svg(pretokens, tokeniser.pretokeniser.display, **options), note)


def show_side_tree(tree: SideTree | str, role: str, word: str, display) -> bool:
    """A side's trees with their SVG and LaTeX downloads (or why there are none); whether they spell a
    character by several bytes (for the legend)."""
    if isinstance(tree, str):
        st.caption(md_escape(tree))
        return False
    st.html(svg_html(tree.svg, alt=tree.options["caption"]))
    figure_downloads(
        f"merge-tree-{word}-{role}",
        tree.svg,
        merge_tree_forest(tree.pretokens, display, **tree.options),
        key=f"compare_tree_{role}",
    )
    if tree.note:
        st.caption(md_escape(tree.note))
    return any(spelled_characters(tree.pretokens, display))


def show_trees(a: Chosen, b: Chosen, word: str, tokens_a: tuple[str, ...], tokens_b: tuple[str, ...]) -> bool:
    """Both sides' trees: side by side while both fit half the page, else one above the other (a tree
    wider than the page then scrolls inside its frame, with a visible scroll bar); never cut."""
    trees = {"A": side_tree(a, word, tokens_a, tokens_b), "B": side_tree(b, word, tokens_b, tokens_a)}
    wide = max(tree.width if isinstance(tree, SideTree) else 0 for tree in trees.values()) > SIDE_BY_SIDE_PX
    places = (st.container(), st.container()) if wide else st.columns(2, gap="large")
    spelled = False
    for place, (role, chosen) in zip(places, (("A", a), ("B", b)), strict=True):
        with place:
            if wide:
                st.markdown(f"**{role}** · {md_escape(option_label(chosen.name))}")
            spelled = show_side_tree(trees[role], role, word, chosen.tokeniser.pretokeniser.display) or spelled
    return spelled


def word_view(a: Chosen, b: Chosen, words: list[str]) -> None:
    st.subheader("One word, both tokenisers")
    current_word = st.session_state.get(WORD_KEY)
    options = list(dict.fromkeys([*([current_word] if current_word else []), *words[:MAX_WORD_OPTIONS]]))
    if not options:
        st.caption("Type a word to see how both tokenisers segment it.")
    word = st.selectbox(
        "Word",
        options,
        key=WORD_KEY,
        index=0 if options and not current_word else None,
        accept_new_options=True,
        placeholder="type a word",
        help="Pick a word from the list (the most changed first), click a row of the table, or type any word.",
    )
    if word is not None and valid_word(word) is None:
        st.warning(f"Type one word without spaces, at most {MAX_WORD_CHARS} characters.")
        word = None
    write_to_url("word", word)
    if word is None:
        return
    seg_a, seg_b = segmentations(a).segment(word), segmentations(b).segment(word)
    if seg_a.splits is not None and seg_b.splits is not None:
        only_a, only_b = sorted(seg_a.splits - seg_b.splits), sorted(seg_b.splits - seg_a.splits)
        if only_a or only_b:
            parts = [
                f"only A splits {md_escape(marked(word, only_a))}" if only_a else "",
                f"only B splits {md_escape(marked(word, only_b))}" if only_b else "",
            ]
            st.markdown(f"Change {len(only_a) + len(only_b)}: " + "; ".join(p for p in parts if p) + ".")
        elif len(seg_a.tokens) == len(seg_b.tokens):
            st.markdown("Both split this word at the same positions.")
        else:
            st.markdown("Both split this word at the same positions, into different numbers of tokens.")
    left, right = st.columns(2, gap="large")
    with left:
        side_tokens(a, "A", word, seg_a.tokens)
    with right:
        side_tokens(b, "B", word, seg_b.tokens)
    spelled = show_trees(a, b, word, seg_a.tokens, seg_b.tokens)
    st.html(tree_legend_html(step=False, reference=False, highlight=HIGHLIGHT_LEGEND, characters=spelled))


def compare_view(ws, a_name: str, b_name: str, source: str) -> None:
    try:
        a = load_choice(ws, a_name)
        b = load_choice(ws, b_name)
    except InputError as err:
        st.info(md_escape(err))
        return
    words, words_key = source_words(ws, source)
    result = comparison(a, b, words, words_key)
    counted = source != REFERENCE
    summary(a, b, result, counted)
    if not result.differences:
        st.success("Both tokenisers segment every compared word alike.")
    else:
        displays = (a.tokeniser.pretokeniser.display, b.tokeniser.pretokeniser.display)
        listed = result.differences[:MAX_TABLE_ROWS]
        table = difference_rows(listed, *displays, counted)
        differing = [d.word for d in listed]
        st.subheader(f"{result.differing:,} words segmented differently")
        st.caption(
            "Most changed first, then the most frequent; click a column header to sort, a row to see its "
            "trees below."
            + (
                f" The table lists the {len(listed):,} most changed; the CSV has all."
                if len(listed) < result.differing
                else ""
            )
        )
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            height=420,
            column_config=COLUMNS,
            key=TABLE_KEY,
            on_select=lambda: pick_row(differing),
            selection_mode="single-row",
        )
        st.download_button(
            "Table (CSV)",
            data=lambda: difference_rows(result.differences, *displays, counted).to_csv(index=False).encode("utf-8"),
            file_name="compared-words.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key="compare_csv",
        )
    word_view(a, b, [d.word for d in result.differences])


# --- the page --------------------------------------------------------------------------------------
st.html(PAGE_CSS + TREE_CSS)
st.title("Compare tokenisers")
ws = current()
st.caption(
    f"Workspace: tokeniser **{md_escape(ws.tokeniser_name)}** · reference **{md_escape(ws.reference_name)}** "
    f"· corpus **{md_escape(ws.corpus_name)}**. Each word is segmented as in running text, and its "
    "segmentation read as the positions where it is split, whatever markers or byte pieces the tokens "
    "carry; “after knockout” and “after ReBPE” run on the workspace's reference (a scenario on its own "
    "words)."
)

sources = source_options()
bad = [
    raw
    for key, param, parse in (
        ("compare_a", "a", choice_from_link),
        ("compare_b", "b", choice_from_link),
        ("compare_source", "source", valid(sources)),
        (WORD_KEY, "word", valid_word),
    )
    if (raw := seed_from_url(key, param, parse)) is not None
]
options = tokeniser_options()
if bad:
    st.warning(
        "The link names something this server does not have or a malformed word; it is left out: "
        + ", ".join(code_span(raw[:60]) for raw in bad)
    )

left, middle, right = st.columns([3, 3, 2])
with left:
    a_name = st.selectbox(
        "Tokeniser A", options, index=None, key="compare_a", format_func=option_label, placeholder="choose tokeniser A"
    )
with middle:
    b_name = st.selectbox(
        "Tokeniser B", options, index=None, key="compare_b", format_func=option_label, placeholder="choose tokeniser B"
    )
with right:
    source = st.selectbox(
        "Words",
        sources,
        key="compare_source",
        format_func=lambda s: source_label(ws, s),
        help="The reference words count once each; word counts weigh each word by its frequency.",
    )
lost = []
for param, name in (("a", a_name), ("b", b_name)):
    value, what = choice_link(name) if name else (None, None)
    write_to_url(param, value)
    lost += [what] if what else []
write_to_url("source", source, default=REFERENCE)
if lost:
    st.caption("This page's link does not carry " + "; ".join(md_escape(what) for what in lost) + ".")

if a_name is None or b_name is None:
    st.info(
        "Choose tokenisers A and B to compare them over the chosen words: for instance a tokeniser and the "
        "same tokeniser after knockout, or two tokenisers of one language.",
        icon=":material/compare_arrows:",
    )
else:
    with boundary():
        compare_view(ws, a_name, b_name, source)
