"""Blocked merges: tuple merges (and moved merges) that can never apply, and the types they strand.

Thin: the scan is core's (``core.blocked.find_blocked_merges``: LIMITEDBPE on every merge, rebpe.txt
§3.1 and App. A.1/A.3), the variants come from knockout / ReBPE runs (``ui.rebpe_runs``), and the
repair is ``core.rebpe.repair``; tables and trees come from ``viz/``. The tokeniser variant and the
inspected merge live in the URL.
"""
from __future__ import annotations

import streamlit as st

from core.blocked import SCENARIOS as CLASSES
from core.blocked import summary_lines
from core.errors import InputError
from core.rebpe import KnockoutConfig, ReBPEConfig
from core.samples import scenario_paths
from ui.rebpe_runs import blocked_report, cached_run, references_for, reparation, workspace_keys
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import chosen, current, select
from viz import step_views as sv
from viz.escaping import code_span, md_escape
from viz.tables import merge_rows
from viz.tokens import PAGE_CSS, shown
from viz.trees import tree_svg

VARIANTS = {
    "before": "as loaded (before knockout)",
    "knockout": "after knockout",
    "nofix": "after ReBPE without reparation (fix off)",
}
KNOCKOUT_ONLY = ReBPEConfig(knockout=KnockoutConfig(), reify=False, max_iterations=1)
REBPE_NO_FIX = ReBPEConfig(fix=False)
TEACHING = [name for name in scenario_paths() if name.startswith(("a1_scenario2b", "a1_scenario3a"))]
MAX_TABLE_ROWS = 5000


def alternative_rows(examples, display) -> list[dict]:
    return [{"type": shown(e.type, display), "formed by (primary)": sv.merge_text(e.primary, display),
             "rank": sv.rank_text(e.primary.rank), "alternatives": len(e.alternatives),
             "alternative merges": "; ".join(sv.merge_text(m, display) for m in e.alternatives[:5])
             + (" …" if len(e.alternatives) > 5 else ""),
             "lowest-ranked is primary": e.primary.rank <= min(m.rank for m in e.alternatives)}
            for e in examples]


def choose_scenario(name: str) -> None:
    select("tokeniser", name)
    st.session_state["blocked_variant"] = "knockout"  # where the scenario's blockage appears
    for key in ("blocked_merge", "blocked_repaired"):
        st.session_state.pop(key, None)


def ask_repair(key: tuple) -> None:
    st.session_state["blocked_repaired"] = key


def show_svg(svg: str) -> None:
    # st.html's sanitiser drops inline <svg>; markdown keeps a raw HTML block that starts with <div> and has
    # no blank line as it is (no markdown inside). Every text in the SVG is escaped by viz.trees.
    st.markdown('<div class="merge-tree-block" style="overflow-x:auto;padding:4px 0">'
                + svg.replace("\n", " ") + "</div>", unsafe_allow_html=True)


st.html(PAGE_CSS)
st.html(sv.TREE_CSS)
st.title("Blocked merges")
st.caption("A merge is *blocked* when it can never apply: segmenting its own string with only the merges ranked "
           "before it (LIMITEDBPE, rebpe.txt §3.1) does not give its parts, so by context-freeness it never "
           "fires in any word. Knockout creates such tuple merges; ReBPE's reparation repairs them. A type "
           "formed only by blocked merges is *unreachable* (unless `ignore_merges` emits it whole). Where a type has "
           "several merges (converted tiktoken and SentencePiece files), the ones that never fire because another "
           "merge forms the type are *alternatives*, summarised below, not blocked.")
st.markdown("**Teaching scenarios with a blocked merge after knockout** (rebpe.txt App. A.1):")
loaded = chosen("tokeniser") or st.query_params.get("tokeniser")
for column, name in zip(st.columns(len(TEACHING) + 2), TEACHING):
    column.button(sv.scenario_label(name), key=f"blocked_scenario_{name}", on_click=choose_scenario, args=(name,),
                  type="primary" if name == loaded else "secondary", width="stretch", help=f"Load {name}")

try:  # blocked merges are a property of a merge graph; families without one get a one-line notice
    workspace = current().with_merge_graph("Blocked merges")
except InputError as err:
    st.info(md_escape(err))
    st.stop()
if workspace.graph_note():
    st.caption(md_escape(workspace.graph_note()))
tokeniser = workspace.tokeniser
display = tokeniser.pretokeniser.display
references, reference_name, scenario_refs = references_for(workspace)

# Converted tiktoken / SentencePiece files list several merges per type: start on the file as loaded (its
# alternatives and blocked merges), one click from a knockout run that takes a while on a large vocabulary.
several_per_type = len(tokeniser.merges) > len(tokeniser.types) - len(tokeniser.alphabet)
default_variant = "before" if tokeniser.tuple_merges or several_per_type else "knockout"
seed_from_url("blocked_variant", "variant", lambda raw: raw if raw in VARIANTS else None)
if st.session_state.get("blocked_variant") not in VARIANTS:
    st.session_state["blocked_variant"] = default_variant
variant = st.radio("Which tokeniser", list(VARIANTS), key="blocked_variant", format_func=VARIANTS.get, horizontal=True,
                   help="Plain BPE never blocks a merge, so the knocked-out variants are where blockages live. "
                        "Knockout and ReBPE use the threshold ½ and the reference named below.")
write_to_url("variant", variant, default=default_variant)
st.caption(f"Tokeniser **{md_escape(workspace.tokeniser_name)}** · reference **{md_escape(reference_name)}** "
           f"({len(references.entries):,} words, for knockout and example words). Change them on the Workspace page.")

content_keys = workspace_keys(workspace, reference_name)  # names, plus digests for uploads
try:
    if variant == "before":
        target_key = (content_keys["tokeniser_key"], len(tokeniser.merges), "before")
        target = tokeniser
    else:
        config = KNOCKOUT_ONLY if variant == "knockout" else REBPE_NO_FIX
        computed = cached_run(workspace.tokeniser_name, tokeniser, reference_name, references, config,
                              label="knockout" if variant == "knockout" else "ReBPE without reparation",
                              **content_keys)
        target, target_key = computed.tokeniser, computed.key
    words = tuple(e.word for e in references.entries)
    report = blocked_report((target_key, content_keys["reference_key"], len(words)), target, words)
except InputError as err:
    st.error(f"Could not compute the blocked merges: {md_escape(err)}")
    st.stop()

counts = report.by_scenario()
columns = st.columns(2 + len(CLASSES))
columns[0].metric("Blocked merges", f"{len(report.blocked):,}",
                  help="Merges of types that no merge forms from their own string (alternatives excluded)")
columns[1].metric("Unreachable types", f"{len(report.unreachable_types):,}")
for column, name in zip(columns[2:], CLASSES):
    column.metric(f"scenario {name}", f"{counts[name]:,}")

if report.alternatives:
    st.info(md_escape(summary_lines(report)[1]) + ". They are summarised here, not listed as blocked merges.")
    with st.expander(f"Alternatives: the first {len(report.alternative_examples):,} types formed by several merges"):
        st.dataframe(alternative_rows(report.alternative_examples, display), hide_index=True, width="stretch",
                     height="auto" if len(report.alternative_examples) <= 10 else 320)
if report.whole_only_types:
    st.caption(md_escape(summary_lines(report, limit=5)[-1]))

if not report.blocked:
    st.success(f"No merge of this tokeniser ({VARIANTS[variant]}) is blocked. Plain BPE never blocks a merge: "
               "each merge is learnt from pairs that really occur. Choose *after knockout* above.")
    st.stop()

# --- the list -------------------------------------------------------------------------------------------
st.subheader("The blocked merges")
filter_column, search_column = st.columns([2, 3])
classes = filter_column.multiselect("Scenario class", CLASSES, default=[c for c in CLASSES if counts[c]],
                                    key="blocked_classes",
                                    help="2b(i): a competing merge took a token across one of its boundaries, the "
                                         "rest is ignored. 2b(ii): every boundary is crossed (material recruited). "
                                         "3 (cascade): a part is itself unreachable. other: e.g. moved merges "
                                         "(App. A.3).")
query = search_column.text_input("Search", key="blocked_search", placeholder="e.g. bruid or ids")
chosen = [b for b in report.blocked if b.scenario in classes]
rows = sv.filter_rows(sv.blocked_rows(chosen, display), query)
st.caption(f"{len(rows):,} of {len(report.blocked):,} blocked merges"
           + (f"; the table shows the first {MAX_TABLE_ROWS:,}" if len(rows) > MAX_TABLE_ROWS else ""))
st.dataframe(rows[:MAX_TABLE_ROWS], hide_index=True, width="stretch", height="auto" if len(rows) <= 10 else 320)
st.download_button("Download as CSV", sv.rows_to_csv(rows), file_name="blocked-merges.csv", mime="text/csv",
                   on_click="ignore", key="blocked_dl")

with st.expander(f"Unreachable types ({len(report.unreachable_types):,})"):
    st.caption("Types no input can produce as a token: every merge forming them is blocked.")
    st.dataframe([{"type": shown(t, display),
                   "formed by (blocked)": sv.merge_text(target.merge_of(t), display),
                   "rank": sv.rank_text(target.merge_of(t).rank) if target.merge_of(t) else ""}
                  for t in report.unreachable_types[:MAX_TABLE_ROWS]], hide_index=True, width="stretch")

# --- one blocked merge in detail --------------------------------------------------------------------------
st.subheader("Why is it blocked?")
by_rank = {sv.rank_text(b.merge.rank): b for b in report.blocked}
visible_ranks = [r["rank"] for r in rows][:MAX_TABLE_ROWS] or list(by_rank)[:MAX_TABLE_ROWS]
seed_from_url("blocked_merge", "merge", lambda raw: raw if raw in by_rank else None)
if st.session_state.get("blocked_merge") not in visible_ranks:
    st.session_state["blocked_merge"] = visible_ranks[0]
picked = st.selectbox("Blocked merge (by rank; the list follows the filters above)", visible_ranks,
                      key="blocked_merge",
                      format_func=lambda r: f"#{r}  {sv.merge_text(by_rank[r].merge, display)}  "
                                            f"[{by_rank[r].scenario}]" if r in by_rank else str(r))
write_to_url("merge", picked)
item = by_rank.get(picked) or by_rank[visible_ranks[0]]
merge = item.merge
st.markdown(md_escape(item.explanation))
blocking = item.blocking_merge or item.blocked_ancestor
facts = [f"**Scenario** {md_escape(item.scenario)}",
         f"**found at its turn** {sv.tokens_markdown(item.limited_tokens, display)}"]
if item.blocking_merge is not None:
    facts.append(f"**blocking merge** {code_span(sv.merge_text(item.blocking_merge, display))} "
                 f"(#{sv.rank_text(item.blocking_merge.rank)})")
if item.blocked_ancestor is not None:
    facts.append(f"**blocked upstream** {code_span(sv.merge_text(item.blocked_ancestor, display))}")
if item.example_word:
    example_tokens = target.tokenise_word(item.example_word)
    facts.append(f"**example word** {code_span(shown(item.example_word))} → "
                 f"{sv.tokens_markdown(example_tokens, display)}")
st.markdown(" · ".join(facts))

limited = target.trace_pretoken(merge.result, max_rank=merge.rank)
full = target.trace_pretoken(merge.result)
left, right = st.columns(2)
with left:
    st.markdown(f"**LIMITEDBPE({code_span(shown(merge.result, display))}, #{sv.rank_text(merge.rank)})** — only "
                "the merges ranked before it; the blocking merge is bordered in blue")
    show_svg(tree_svg(limited.trees, display, {blocking} if blocking else ()))
    trace_rows = merge_rows([limited], display, tuple_column=bool(target.tuple_merges))
    if trace_rows:
        st.dataframe(trace_rows, hide_index=True, width="stretch",
                     height="auto" if len(trace_rows) <= 10 else 320)
    else:
        st.caption("No merge applies before its turn.")
with right:
    st.markdown(f"**The merge wants** {sv.tokens_markdown(merge.parts, display)}; "
                f"**with every merge** {code_span(shown(merge.result, display))} becomes:")
    show_svg(tree_svg(full.trees, display, {blocking} if blocking else ()))
    st.caption(f"Full segmentation: {sv.tokens_markdown(full.tokens, display)} — the blocked merge "
               f"{'never appears' if merge not in full.merges_applied else 'appears only out of order'}.")

# --- reparation -------------------------------------------------------------------------------------------
st.subheader("Apply reparation")
st.caption("rebpe.txt Alg. 2 lines 2-15: every tuple merge gets as parts what LIMITEDBPE really finds at its turn, "
           "so it can fire again. *limited* follows the algorithm as written; *undo* is the authors' code.")
mode_column, button_column = st.columns([2, 1], vertical_alignment="bottom")
mode = mode_column.radio("Reparation mode", ["limited", "undo"], key="blocked_mode", horizontal=True)
repair_key = (target_key, content_keys["reference_key"], len(words), mode)
button_column.button("Apply reparation", type="primary", key="blocked_apply", on_click=ask_repair,
                     args=(repair_key,), width="stretch")
if st.session_state.get("blocked_repaired") == repair_key:
    try:
        result = reparation(repair_key, mode, target, words)
    except InputError as err:
        st.error(f"Reparation failed: {md_escape(err)}")
        st.stop()
    columns = st.columns(3)
    columns[0].metric("Merges repaired", f"{len(result.repaired):,}")
    columns[1].metric("Words now segmented differently", f"{len(result.changed_words):,}")
    columns[2].metric("Still blocked after reparation", f"{len(result.blocked_after.blocked):,}",
                      delta=f"{len(result.blocked_after.blocked) - len(report.blocked):+,}", delta_color="inverse")
    now = result.tokeniser.merge_of(merge.result)
    if now is not None:
        st.markdown(f"The inspected merge is now {code_span(sv.merge_text(now, display))} (#{sv.rank_text(now.rank)}); "
                    f"{code_span(shown(merge.result, display))} segments as "
                    f"{sv.tokens_markdown(result.tokeniser.trace_pretoken(merge.result).tokens, display)}.")
    repaired_tab, words_tab = st.tabs(["Repaired merges", "Words that now segment differently"])
    with repaired_tab:
        repaired_rows = sv.repair_rows(result.repaired, display)
        st.dataframe(repaired_rows[:MAX_TABLE_ROWS], hide_index=True, width="stretch",
                     height="auto" if len(repaired_rows) <= 10 else 320)
        st.download_button("Download as CSV", sv.rows_to_csv(repaired_rows), file_name="repaired-merges.csv",
                           mime="text/csv", on_click="ignore", key="blocked_dl_repaired")
    with words_tab:
        word_rows = sv.changed_word_rows(result.changed_words, display)
        if word_rows:
            st.dataframe(word_rows[:MAX_TABLE_ROWS], hide_index=True, width="stretch",
                         height="auto" if len(word_rows) <= 10 else 320)
        else:
            st.caption("No reference word segments differently.")
