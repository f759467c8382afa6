"""Blocked merges: tuple merges (and moved merges) that can never apply, and the types they strand.

Thin: the scan is core's (``core.edits.blocked.find_blocked_merges``: LIMITEDBPE on every merge, [rebpe
§3.1 and App. A.1]/A.3), the variants come from knockout / ReBPE runs (``ui.rebpe_runs``) and, for the
App. A.3 tokeniser, from the paper's listings with moved merges; the repair is ``core.edits.rebpe.repair``
and what it leaves blocked is sorted by cause (``core.edits.blocked.still_blocked_causes``). Tables and trees
come from ``viz/``. The tokeniser variant and the inspected merge live in the URL.

Prev and Next (the ← and → keys) step through the blocked merges beside the two trees, in an
``st.fragment``; presentation mode (``?present=1``, ``ui.presentation``) leaves out the sidebar and
the tables so that the controls and both trees fit a 1280×720 projector.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.edits.blocked import SCENARIOS as CLASSES
from core.edits.blocked import STILL_BLOCKED, still_blocked_causes, summary_lines
from core.edits.rebpe import KnockoutConfig, ReBPEConfig
from core.edits.scenarios import moved_merge_variants
from core.errors import InputError
from core.formats.samples import scenario_paths
from ui.error_boundary import boundary, guarded
from ui.presentation import NEXT_KEY, PREV_KEY
from ui.rebpe_runs import blocked_report, cached_run, references_for, reparation, workspace_keys
from ui.token_ids import id_table
from ui.tree_block import page_header, scenario_buttons, show_tree
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import current, select
from ui.workspace_links import page_link
from viz import step_views as sv
from viz.escaping import code_span, md_escape
from viz.ranks import COLUMN_HELP, id_rank_text, rank_text
from viz.tables import merge_rows, with_ids
from viz.tokens import shown
from viz.trees import LEGIBLE_SCALE, tree_legend_html

VARIANTS = {
    "before": "as loaded (before knockout)",
    "knockout": "after knockout",
    "nofix": "after ReBPE without reparation (fix off)",
}
MOVED = "moved:"  # variant keys of the App. A.3 listings: "moved:delayed", ...
KNOCKOUT_ONLY = ReBPEConfig(knockout=KnockoutConfig(), reify=False, max_iterations=1)
REBPE_NO_FIX = ReBPEConfig(fix=False)
TEACHING = [name for name in scenario_paths() if name.startswith(("a1_scenario2b", "a1_scenario3a", "a3_"))]
MAX_TABLE_ROWS = 5000
RANK_COLUMN = {"rank": st.column_config.TextColumn("rank", help=COLUMN_HELP)}
UPSTREAM, UPSTREAM_MARK = " (blocked upstream)", " ↑"  # viz.step_views.blocked_rows' words, and the table's mark
#: The list of blocked merges: every column uncut at 1280 px (a blocked merge upstream marked ↑, said on hover)
BLOCKED_COLUMNS = {
    **RANK_COLUMN,
    "id": st.column_config.TextColumn("id", help="The token id of the type (not a merge rank)"),
    "blocking merge": st.column_config.TextColumn(
        "blocking merge",
        help="The merge that takes a token across the blocked merge's parts; ↑: a blocked merge upstream "
        "(scenario 3, cascade) that forms a part it needs.",
    ),
}
SELECTED = "blocked_merge"  # session key of the inspected merge: its index in the report
GRAPH_PAGE, WORD_PAGE = "pages/merge_graph.py", "pages/word_debugger.py"
PRESENT_TREES = "<style>.merge-tree-block svg { max-height: calc(100vh - 375px); }</style>"


def alternative_rows(examples, display, ids) -> list[dict]:
    return [
        {
            "type": shown(e.type, display),
            "id": str(ids.get(e.type, "")),
            "formed by (primary)": sv.merge_text(e.primary, display),
            "rank": rank_text(e.primary.rank),
            "alternatives": len(e.alternatives),
            "alternative merges": "; ".join(sv.merge_text(m, display) for m in e.alternatives[:5])
            + (" …" if len(e.alternatives) > 5 else ""),
            "lowest-ranked is primary": e.primary.rank <= min(m.rank for m in e.alternatives),
        }
        for e in examples
    ]


def blocked_rows(blocked, display, ids) -> list[dict]:
    """The table of blocked merges (``viz.step_views.blocked_rows``) with each type's id, a blocked merge
    upstream marked ↑ (its column's help says so): the column stays narrow enough to read uncut."""
    rows = with_ids(sv.blocked_rows(blocked, display), [b.merge.result for b in blocked], ids, after="type")
    for row in rows:
        row["blocking merge"] = row["blocking merge"].replace(UPSTREAM, UPSTREAM_MARK)
    return rows


def choose_scenario(name: str) -> None:
    select("tokeniser", name)
    st.session_state["blocked_variant"] = None  # the scenario's default: where its blockage appears
    for key in (SELECTED, "blocked_repaired"):
        st.session_state.pop(key, None)


def forget_merge() -> None:
    st.session_state.pop(SELECTED, None)


def ask_repair(key: tuple) -> None:
    st.session_state["blocked_repaired"] = key


@guarded
def step_merge(delta: int, choices: list[int]) -> None:
    at = choices.index(st.session_state[SELECTED]) if st.session_state.get(SELECTED) in choices else 0
    st.session_state[SELECTED] = choices[max(0, min(len(choices) - 1, at + delta))]


def nothing_blocked(variant: str, has_moves: bool) -> str:
    """Why a variant blocks nothing, and where to look instead (never the variant already chosen)."""
    moves = (
        (
            " [rebpe App. A.3] goes on from here: making the triplet binary again by *moving* merges blocks "
            "another merge. Choose one of the *moved* listings above."
        )
        if has_moves
        else ""
    )
    if variant == "before":
        return (
            "No merge of this tokeniser as loaded is blocked: plain BPE never blocks a merge, since each merge is "
            "learnt from pairs that really occur." + (moves or " Choose *after knockout* above.")
        )
    if variant == "knockout":
        return (
            "No merge is blocked after knockout: every tuple merge knockout made still finds its parts at its "
            "turn (as in App. A.1 scenarios 1, 2a and 3b)." + moves
        )
    if variant == "nofix":
        return "No merge is blocked after ReBPE without reparation: reification left every tuple merge able to fire."
    return "No merge of this listing is blocked."


present = page_header("Blocked merges")
if present:  # the trees share the screen with the explanation and the chooser: a little lower than the stepper's
    st.html(PRESENT_TREES)
if not present:
    st.caption(
        "A merge is *blocked* when it can never apply: segmenting its own string with only the merges "
        "ranked before it (LIMITEDBPE, [rebpe §3.1]) does not give its parts, so by context-freeness it "
        "never fires in any word. Knockout creates such tuple merges; ReBPE's reparation repairs them, and "
        "moving merges can block others (App. A.3). A type formed only by blocked merges is *unreachable* "
        "(unless `ignore_merges` emits it whole). Where a type has several merges (converted tiktoken and "
        "SentencePiece files), the ones that never fire because another merge forms the type are "
        "*alternatives*, summarised below, not blocked."
    )
    st.markdown(
        "**Teaching scenarios with a blocked merge** ([rebpe App. A.1] after knockout, App. A.3 after moving merges):"
    )
scenario_buttons(TEACHING, "blocked_scenario", choose_scenario)

try:  # blocked merges are a property of a merge graph; families without one get a one-line notice
    workspace = current().with_merge_graph("Blocked merges")
except InputError as err:
    st.info(md_escape(err))
    st.stop()
if workspace.graph_note():
    st.caption(md_escape(workspace.graph_note()))
tokeniser = workspace.tokeniser
display = tokeniser.pretokeniser.display
ids = id_table(tokeniser, workspace.tokeniser_key)  # token ids, beside the merge ranks
references, reference_name, scenario_refs = references_for(workspace)
moves = moved_merge_variants(tokeniser)  # [rebpe App. A.3]'s listings (the a3 sample)
variants = {**VARIANTS, **{MOVED + name: sv.move_label(name) for name in moves}}

# Converted tiktoken / SentencePiece files list several merges per type: start on the file as loaded (its
# alternatives and blocked merges), one click from a knockout run that takes a while on a large vocabulary.
several_per_type = len(tokeniser.merges) > len(tokeniser.types) - len(tokeniser.alphabet)
default_variant = (
    "before" if tokeniser.tuple_merges or several_per_type else MOVED + next(iter(moves)) if moves else "knockout"
)
seed_from_url("blocked_variant", "variant", lambda raw: raw if raw in variants else None)
if st.session_state.get("blocked_variant") not in variants:
    st.session_state["blocked_variant"] = default_variant
# presenting: the variants and the counts share a row (the trees need the height)
variant_column, counts_column = st.columns([5, 2], vertical_alignment="center") if present else (st.container(), None)
variant = variant_column.radio(
    "Which tokeniser",
    list(variants),
    key="blocked_variant",
    format_func=variants.get,
    horizontal=True,
    on_change=forget_merge,
    label_visibility="collapsed" if present else "visible",
    help="Plain BPE never blocks a merge, so the knocked-out variants are where blockages live. "
    "Knockout and ReBPE use the threshold ½ and the reference named below."
    + (
        " The *moved* listings are [rebpe App. A.3]'s: the knocked-out merges with merges moved "
        "to make the triplet binary again."
        if moves
        else ""
    ),
)
write_to_url("variant", variant, default=default_variant)
if not present:
    st.caption(
        f"Tokeniser **{md_escape(workspace.tokeniser_name)}** · reference **{md_escape(reference_name)}** "
        f"({len(references.entries):,} words, for knockout and example words). Change them on the Workspace "
        "page."
    )

content_keys = workspace_keys(workspace, reference_name)  # names, plus digests for uploads
words = tuple(e.word for e in references.entries)
try:
    if variant == "before":
        target_key = (content_keys["tokeniser_key"], len(tokeniser.merges), "before")
        target = tokeniser
    elif variant.startswith(MOVED):
        target_key = (content_keys["tokeniser_key"], len(tokeniser.merges), variant)
        target = moves[variant[len(MOVED) :]]
    else:
        config = KNOCKOUT_ONLY if variant == "knockout" else REBPE_NO_FIX
        computed = cached_run(
            workspace.tokeniser_name,
            tokeniser,
            reference_name,
            references,
            config,
            label="knockout" if variant == "knockout" else "ReBPE without reparation",
            **content_keys,
        )
        target, target_key = computed.tokeniser, computed.key
    scan_key = (target_key, content_keys["reference_key"], len(words))
    report = blocked_report(scan_key, target, words)
except InputError as err:
    st.error(f"Could not compute the blocked merges: {md_escape(err)}")
    st.stop()

if variant.startswith(MOVED):  # [rebpe App. A.3]: the listing, as the paper prints it
    name = variant[len(MOVED) :]
    knocked = cached_run(
        workspace.tokeniser_name, tokeniser, reference_name, references, KNOCKOUT_ONLY, label="knockout", **content_keys
    ).tokeniser
    listing, segmented = st.columns([3, 2])
    rows = sv.listing_rows(target, knocked, {b.merge for b in report.blocked}, display)
    with listing:
        move = f"**[rebpe App. A.3], {md_escape(variants[variant])}:** " + md_escape(sv.MOVES.get(name, "merges moved"))
        if present:  # the list in one line
            st.markdown(
                move
                + ": "
                + " · ".join(
                    f"{row['rank']} {code_span(row['merge'])}" + (" **blocked**" if row["blocked"] else "")
                    for row in rows
                )
            )
        else:
            st.markdown(move + ". The merge list, with where each type's merge was after knockout:")
            st.dataframe(rows, hide_index=True, width="stretch", column_config=RANK_COLUMN)
    with segmented:
        st.markdown(
            "**The words now:** "
            + ", ".join(
                f"{code_span(shown(word))} → {sv.tokens_markdown(target.tokenise_word(word), display)}"
                for word in words
            )
        )
        if not present:
            st.caption(md_escape(tokeniser.metadata.get("explanation", "")))

counts = report.by_scenario()
if present:
    counts_column.markdown(
        " · ".join(
            [
                f"Blocked merges **{len(report.blocked):,}**",
                f"unreachable types **{len(report.unreachable_types):,}**",
                *(f"scenario {name} **{counts[name]:,}**" for name in CLASSES if counts[name]),
            ]
        )
    )
else:
    columns = st.columns(2 + len(CLASSES))
    columns[0].metric(
        "Blocked merges",
        f"{len(report.blocked):,}",
        help="Merges of types that no merge forms from their own string (alternatives excluded)",
    )
    columns[1].metric("Unreachable types", f"{len(report.unreachable_types):,}")
    for column, name in zip(columns[2:], CLASSES, strict=True):
        column.metric(f"scenario {name}", f"{counts[name]:,}")

if report.alternatives and not present:
    st.info(md_escape(summary_lines(report)[1]) + ". They are summarised here, not listed as blocked merges.")
    with st.expander(f"Alternatives: the first {len(report.alternative_examples):,} types formed by several merges"):
        st.dataframe(
            alternative_rows(report.alternative_examples, display, ids),
            hide_index=True,
            width="stretch",
            column_config=RANK_COLUMN,
            height="auto" if len(report.alternative_examples) <= 10 else 320,
        )
if report.whole_only_types and not present:
    st.caption(md_escape(summary_lines(report, limit=5)[-1]))

if not report.blocked:
    st.success(nothing_blocked(variant, bool(moves)))
    st.stop()

# --- the list -------------------------------------------------------------------------------------------
CLASS_HELP = (
    "2b(i): a competing merge took a token across one of its boundaries, the rest is ignored. 2b(ii): every "
    "boundary is crossed (material recruited). 3 (cascade): a part is itself unreachable. other: e.g. a "
    "part not yet formed at its turn (App. A.3's delayed triplet)."
)
if present:  # no table: every blocked merge, one after the other
    picked_indices = list(range(len(report.blocked)))
else:
    st.subheader("The blocked merges")
    filter_column, search_column = st.columns([2, 3])
    classes = filter_column.multiselect(
        "Scenario class", CLASSES, default=[c for c in CLASSES if counts[c]], key="blocked_classes", help=CLASS_HELP
    )
    query = search_column.text_input("Search", key="blocked_search", placeholder="e.g. bruid or ids")
    all_rows = blocked_rows(report.blocked, display, ids)
    picked_indices = [
        i
        for i, (b, row) in enumerate(zip(report.blocked, all_rows, strict=True))
        if b.scenario in classes and sv.filter_rows([row], query)
    ]
    rows = [all_rows[i] for i in picked_indices]
    st.caption(
        f"{len(rows):,} of {len(report.blocked):,} blocked merges"
        + (f"; the table shows the first {MAX_TABLE_ROWS:,}" if len(rows) > MAX_TABLE_ROWS else "")
    )
    st.dataframe(
        rows[:MAX_TABLE_ROWS],
        hide_index=True,
        width="stretch",
        column_config=BLOCKED_COLUMNS,
        height="auto" if len(rows) <= 10 else 320,
    )
    st.download_button(
        "Download as CSV",
        sv.rows_to_csv(rows),
        file_name="blocked-merges.csv",
        mime="text/csv",
        on_click="ignore",
        key="blocked_dl",
    )

    with st.expander(f"Unreachable types ({len(report.unreachable_types):,})"):
        st.caption("Types no input can produce as a token: every merge forming them is blocked.")
        st.dataframe(
            [
                {
                    "type": shown(t, display),
                    "id": str(ids.get(t, "")),
                    "formed by (blocked)": sv.merge_text(target.merge_of(t), display),
                    "rank": rank_text(target.merge_of(t).rank) if target.merge_of(t) else "",
                }
                for t in report.unreachable_types[:MAX_TABLE_ROWS]
            ],
            hide_index=True,
            width="stretch",
            column_config=RANK_COLUMN,
        )

# The inspected merge: an index into report.blocked; in the URL its merge text (or, from older links, its rank).
choices = picked_indices[:MAX_TABLE_ROWS] or list(range(min(len(report.blocked), MAX_TABLE_ROWS)))


def parse_merge(raw: str, blocked: Sequence) -> int | None:
    """The index in ``blocked`` of the merge a URL names by its text (or, from older links, its rank)."""
    found = next((i for i, b in enumerate(blocked) if str(b.merge) == raw), None)
    if found is None and raw.isdigit():
        found = next((i for i, b in enumerate(blocked) if rank_text(b.merge.rank) == f"#{raw}"), None)
    return found


seed_from_url(SELECTED, "merge", lambda raw: parse_merge(raw, report.blocked))
if st.session_state.get(SELECTED) not in choices:
    st.session_state[SELECTED] = choices[0]


def merge_label(item, display, ids) -> str:
    """``#6  _bru + id + s  [2b(i)]`` with the result's id: ``#6  _bru + id + s → id 17  [2b(i)]``."""
    result = f" → id {ids[item.merge.result]}" if item.merge.result in ids else ""
    return f"{rank_text(item.merge.rank)}  {sv.merge_text(item.merge, display)}{result}  [{item.scenario}]"


def show_repair(
    item, report, target, scan_key: tuple, words: Sequence[str], display, present: bool, button_column=None
) -> None:
    """Alg. 2 lines 2-15 on the whole tokeniser, what it changed, and why what stays blocked stays blocked.
    Presenting, the button is in ``button_column`` (beside the chooser: one screen) and the mode is *limited*."""
    if present:
        mode = "limited"
    else:
        st.subheader("Apply reparation")
        st.caption(
            "[rebpe Alg. 2 lines 2-15]: every tuple merge gets as parts what LIMITEDBPE really finds at its "
            "turn, so it can fire again. *limited* follows the algorithm as written; *undo* is the authors' "
            "code."
        )
        mode_column, button_column = st.columns([2, 1], vertical_alignment="bottom")
        mode = mode_column.radio("Reparation mode", ["limited", "undo"], key="blocked_mode", horizontal=True)
    repair_key = (*scan_key, mode)
    button_column.button(
        "Apply reparation",
        type="primary",
        key="blocked_apply",
        on_click=ask_repair,
        args=(repair_key,),
        width="stretch",
    )
    if st.session_state.get("blocked_repaired") != repair_key:
        return
    try:
        result = reparation(repair_key, mode, target, words)
    except InputError as err:
        st.error(f"Reparation failed: {md_escape(err)}")
        return
    left = len(result.blocked_after.blocked)
    columns = st.columns(3)
    columns[0].metric("Merges repaired", f"{len(result.repaired):,}")
    columns[1].metric("Words now segmented differently", f"{len(result.changed_words):,}")
    columns[2].metric(
        "Still blocked after reparation", f"{left:,}", delta=f"{left - len(report.blocked):+,}", delta_color="inverse"
    )
    merge = item.merge
    now = result.tokeniser.merge_of(merge.result)
    if now is not None:
        st.markdown(
            f"The inspected merge is now {code_span(sv.merge_text(now, display))} "
            f"({id_rank_text(ids.get(now.result), now.rank)}); "
            f"{code_span(shown(merge.result, display))} segments as "
            f"{sv.tokens_markdown(result.tokeniser.trace_pretoken(merge.result).tokens, display)}."
        )
    if left:
        causes = still_blocked_causes(report, result.blocked_after, result.repaired)
        st.markdown(
            f"**Why {left:,} merge{'s stay' if left != 1 else ' stays'} blocked:**\n\n"
            + "\n".join(
                f"- **{STILL_BLOCKED[cause][0]}: {len(found):,}.** {STILL_BLOCKED[cause][1]} For example "
                + ", ".join(code_span(sv.merge_text(b.merge, display)) for b in found[:3])
                + "."
                for cause, found in causes.items()
            )
        )
    if present:
        return
    tabs = ["Repaired merges", "Words that now segment differently"] + (["Still blocked"] if left else [])
    tabs = st.tabs(tabs)
    with tabs[0]:
        repaired_rows = with_ids(
            sv.repair_rows(result.repaired, display), [after.result for _, after in result.repaired], ids, after="type"
        )
        st.dataframe(
            repaired_rows[:MAX_TABLE_ROWS],
            hide_index=True,
            width="stretch",
            column_config=RANK_COLUMN,
            height="auto" if len(repaired_rows) <= 10 else 320,
        )
        st.download_button(
            "Download as CSV",
            sv.rows_to_csv(repaired_rows),
            file_name="repaired-merges.csv",
            mime="text/csv",
            on_click="ignore",
            key="blocked_dl_repaired",
        )
    with tabs[1]:
        word_rows = sv.changed_word_rows(result.changed_words, display)
        if word_rows:
            st.dataframe(
                word_rows[:MAX_TABLE_ROWS],
                hide_index=True,
                width="stretch",
                height="auto" if len(word_rows) <= 10 else 320,
            )
        else:
            st.caption("No reference word segments differently.")
    if left:
        with tabs[2]:
            still_rows = [
                {"cause": STILL_BLOCKED[cause][0], **row}
                for cause, found in causes.items()
                for row in blocked_rows(found, display, ids)
            ]
            st.dataframe(
                still_rows[:MAX_TABLE_ROWS],
                hide_index=True,
                width="stretch",
                column_config=BLOCKED_COLUMNS,
                height="auto" if len(still_rows) <= 10 else 320,
            )
            st.download_button(
                "Download as CSV",
                sv.rows_to_csv(still_rows),
                file_name="still-blocked.csv",
                mime="text/csv",
                on_click="ignore",
                key="blocked_dl_still",
            )


# --- one blocked merge in detail, Prev/Next beside its trees, and reparation --------------------------------
@st.fragment
@boundary()  # a fragment rerun does not pass through app.py's boundary
def inspect_panel(
    report, choices: list[int], target, scan_key: tuple, words: Sequence[str], display, present: bool
) -> None:
    # presenting, one row: the chooser and the reparation's button (the explanation below says why)
    if not present:
        st.subheader("Why is it blocked?")
    chooser, repair_column = st.columns([3, 1], vertical_alignment="center") if present else (st.container(), None)
    picked = chooser.selectbox(
        f"Blocked merge ({len(choices):,}, by rank; the list follows the filters above)",
        choices,
        key=SELECTED,
        format_func=lambda i: merge_label(report.blocked[i], display, ids),
        label_visibility="collapsed" if present else "visible",
    )
    item = report.blocked[picked]
    write_to_url("merge", str(item.merge))
    merge = item.merge
    st.markdown(md_escape(item.explanation))
    blocking = item.blocking_merge or item.blocked_ancestor
    facts = [
        f"**Scenario** {md_escape(item.scenario)}",
        f"**found at its turn** {sv.tokens_markdown(item.limited_tokens, display)}",
    ]
    if item.blocking_merge is not None:
        facts.append(
            f"**blocking merge** {code_span(sv.merge_text(item.blocking_merge, display))} "
            f"({id_rank_text(ids.get(item.blocking_merge.result), item.blocking_merge.rank)})"
        )
    if item.blocked_ancestor is not None:
        facts.append(f"**blocked upstream** {code_span(sv.merge_text(item.blocked_ancestor, display))}")
    if item.example_word:
        example_tokens = target.tokenise_word(item.example_word)
        facts.append(
            f"**example word** {code_span(shown(item.example_word))} → {sv.tokens_markdown(example_tokens, display)}"
        )
    if not present:  # the explanation says what is found and what blocks it
        st.markdown(" · ".join(facts))
        with st.container(horizontal=True, gap="large"):  # page switches: the session (what is loaded) stays
            label = shown(merge.result, display)
            page_link(GRAPH_PAGE, f"{md_escape(label)} in the merge graph", {"type": label}, icon=":material/hub:")
            if item.example_word:
                page_link(
                    WORD_PAGE,
                    f"{md_escape(shown(item.example_word))} in the Word debugger",
                    {"word": item.example_word},
                    icon=":material/search:",
                )

    limited = target.trace_pretoken(merge.result, max_rank=merge.rank)
    full = target.trace_pretoken(merge.result)
    at = choices.index(picked)
    side = 1.6 if present else 2.4  # room for "Prev ←" beside the trees, with or without the sidebar
    prev_column, left, right, next_column = st.columns([side, 6, 6, side], vertical_alignment="top")
    prev_column.button(
        "Prev",
        icon=":material/chevron_left:",
        key="blocked_prev",
        on_click=step_merge,
        args=(-1, choices),
        disabled=at <= 0,
        width="stretch",
        shortcut=PREV_KEY,
        help="The blocked merge before this one (← key)",
    )
    next_column.button(
        "Next",
        icon=":material/chevron_right:",
        icon_position="right",
        key="blocked_next",
        on_click=step_merge,
        args=(1, choices),
        disabled=at >= len(choices) - 1,
        width="stretch",
        shortcut=NEXT_KEY,
        help="The blocked merge after this one (→ key)",
    )
    with left:
        st.markdown(
            f"**LIMITEDBPE({code_span(shown(merge.result, display))}, {rank_text(merge.rank)})** — "
            + (
                "earlier merges only"
                if present
                else "only the merges ranked before it; the blocking merge is bordered in blue"
            )
        )
        spelled = show_tree(
            limited.trees,
            display,
            {blocking} if blocking else (),
            stem=f"{merge.result}-limitedbpe",
            key="blocked_tree_limited",
            downloads=not present,
            floor=LEGIBLE_SCALE if present else 0.0,
            ids=ids,
        )
    with right:
        st.markdown(
            f"**With every merge** {code_span(shown(merge.result, display))} becomes:"
            if present
            else f"**The merge wants** {sv.tokens_markdown(merge.parts, display)}; "
            f"**with every merge** {code_span(shown(merge.result, display))} becomes:"
        )
        spelled |= show_tree(
            full.trees,
            display,
            {blocking} if blocking else (),
            stem=f"{merge.result}-full",
            key="blocked_tree_full",
            downloads=not present,
            floor=LEGIBLE_SCALE if present else 0.0,
            ids=ids,
        )
    st.caption(
        f"Full segmentation: {sv.tokens_markdown(full.tokens, display)} — the blocked merge "
        f"{'never appears' if merge not in full.merges_applied else 'appears only out of order'}."
    )
    if not present:
        st.html(
            tree_legend_html(
                step=False,
                reference=False,
                characters=spelled,
                highlight="the blocking merge"
                if item.blocking_merge
                else "the blocked merge upstream"
                if blocking
                else "",
            )
        )
        trace_rows = merge_rows([limited], display, tuple_column=bool(target.tuple_merges), ids=ids)
        if trace_rows:
            st.dataframe(
                trace_rows,
                hide_index=True,
                width="stretch",
                column_config=RANK_COLUMN,
                height="auto" if len(trace_rows) <= 10 else 320,
            )
        else:
            st.caption("No merge applies before its turn.")
    show_repair(item, report, target, scan_key, words, display, present, repair_column)


inspect_panel(report, choices, target, scan_key, words, display, present)
