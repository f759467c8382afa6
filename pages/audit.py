"""Vocabulary audit: the types the whole pipeline never produces from their own string, grouped by
cause, and the types a corpus leaves idle; one step from a selection to a removal and an HF export.

Thin: the audit is core's (``core.analysis.audit``: decode each id, encode the text again, name the
first stage that loses the type; idle types from pretoken counts); the removal and its export are
``ui.type_removal``'s (the merge graph page has the same section). The chosen cause filter lives in
the URL (``?cause=merge-order``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

import streamlit as st

from core.analysis.audit import CAUSES, IDLE_CAUSES, Audit, Usage, audit, idle_types, word_pretokens
from core.edits.removal import removable
from core.errors import InputError
from core.tokeniser import has, require
from ui.error_boundary import guarded
from ui.rebpe_runs import LRUStore
from ui.token_ids import id_table
from ui.tree_block import page_header, show_tree
from ui.type_removal import LISTED, MODE, REQUEST, TYPES, Request, removal_section
from ui.url_state import seed_from_url, write_to_url
from ui.workspace import current
from ui.workspace_links import page_link
from viz import step_views as sv
from viz.escaping import code_span, md_escape
from viz.tokens import shown

MAX_TABLE_ROWS = 5000
MAX_AUDITS = 4  # audits kept per server (a 262k vocabulary's: a few MB)
CAUSE_KEY, IDLE_KEY = "audit_causes", "audit_idle"  # session state: the causes shown; the idle count asked
WORD_PAGE, GRAPH_PAGE, BLOCKED_PAGE = "pages/word_debugger.py", "pages/merge_graph.py", "pages/blocked_merges.py"
FINDING_COLUMNS = {
    "id": st.column_config.NumberColumn("id", format="%d", help="The token id"),
    "its text": st.column_config.TextColumn("its text", help="decode([id]): the type's own string"),
    "encodes to": st.column_config.TextColumn("encodes to", help="encode(its text): the tokens it gives instead"),
}


@st.cache_resource(show_spinner=False)
def _audits() -> LRUStore:
    return LRUStore(MAX_AUDITS)


def audited(tokeniser_key: str, tokeniser, progress: Callable[[int, int], None]) -> Audit:
    """The audit of the tokeniser whose content key is ``tokeniser_key``: computed once per server
    with live ``progress``; a session asking while another computes it waits for that one."""
    return _audits().get_or_compute(
        (tokeniser_key,), lambda: audit(tokeniser, progress=progress), lambda seconds: progress(0, 0)
    )


@st.cache_resource(show_spinner="Counting the tokens on the corpus…", max_entries=4)
def idle_on(
    tokeniser_key: str, counts_key: str, ratio: float, _tokeniser, _counts: Callable[[], Mapping[str, int]]
) -> tuple[tuple[Usage, ...], int]:
    """The idle types of the tokeniser on the word counts ``counts_key``, and the pretokens too long
    to trace (cached)."""
    idle, untraced = idle_types(_tokeniser, word_pretokens(_tokeniser, _counts()), ratio)
    return tuple(idle), untraced


def finding_rows(findings, display) -> list[dict]:
    return [
        {
            "id": f.id,
            "type": shown(f.type, display),
            "cause": f.label,
            "its text": shown(f.text),
            "encodes to": " ".join(shown(t, display) for t in f.tokens) or "(nothing)",
            "ids": " ".join("-" if i is None else str(i) for i in f.ids),
        }
        for f in findings
    ]


def usage_rows(idle, display) -> list[dict]:
    return [
        {
            "id": u.id,
            "type": shown(u.type, display),
            "cause": u.cause,
            "emitted": u.emitted,
            "formed": u.formed,
            "formed per emission": round(u.ratio, 2),
        }
        for u in idle
    ]


@guarded
def ask_removal(tokeniser_key: str, types: tuple[str, ...]) -> None:
    """Fill the removal section with ``types`` and ask for the removal (as its Remove button does)."""
    text = "\n".join(types)
    st.session_state[MODE], st.session_state[TYPES] = LISTED, text
    st.session_state[REQUEST] = Request(tokeniser_key, LISTED, text=text)


def ask_idle(tokeniser_key: str) -> None:
    """Ask for the idle types on the word counts and ratio chosen now (read when the button is pressed)."""
    state = st.session_state
    state[IDLE_KEY] = (tokeniser_key, state.get("audit_counts"), state.get("audit_ratio"))


def removal_buttons(types: list[str], selected: list[str], takeable: set[str], tokeniser_key: str, key: str) -> None:
    """Buttons that send the selected, or all listed, types a removal can take to the removal below."""
    chosen, listed = [t for t in selected if t in takeable], [t for t in types if t in takeable]
    left, right = st.columns(2)
    left.button(
        f"Remove the {len(chosen):,} selected types",
        key=f"{key}_selected",
        disabled=not chosen,
        on_click=ask_removal,
        args=(tokeniser_key, tuple(chosen)),
        help="Select rows in the table (the box at each row's left). Only types merges form can go.",
    )
    right.button(
        f"Remove the {len(listed):,} listed types merges form",
        key=f"{key}_all",
        disabled=not listed,
        on_click=ask_removal,
        args=(tokeniser_key, tuple(listed)),
    )


def finding_details(finding, tokeniser, display, ids) -> None:
    """One finding: the cause's explanation, the evidence, the tree of its text, links to the other pages."""
    label, why = CAUSES[finding.cause]
    st.markdown(
        f"**{code_span(shown(finding.type, display))}** (id {finding.id}): **{md_escape(label)}**. "
        f"{md_escape(why)}\n\nIts text {code_span(shown(finding.text))} encodes to "
        f"{sv.tokens_markdown(finding.tokens, display)}."
    )
    evidence = {k: v for k, v in finding.evidence.items() if v is not None}
    if evidence:
        st.caption("Evidence: " + md_escape(json.dumps(evidence, ensure_ascii=False)))
    if has(tokeniser, "merge_graph") and finding.cause not in ("special", "byte-fallback"):
        graph = require(tokeniser, "merge_graph", "")
        own = finding.type if finding.cause in ("merge-order", "word-internal") else None
        pretokens = [own] if own else tokeniser.pretokeniser.pretokenise(finding.text)
        trees = [tree for p in pretokens if p for tree in graph.trace_pretoken(p).trees]
        if trees:
            st.caption("Merge trees of " + ("its own string" if own else "its text's pretokens") + ":")
            show_tree(trees, display, stem=f"audit-{finding.id}", key="audit_tree", ids=ids)
    with st.container(horizontal=True, gap="large"):  # page switches: what is loaded stays
        if finding.text.strip() and finding.cause != "partial-utf8":
            word = finding.text.strip()
            page_link(WORD_PAGE, f"{md_escape(shown(word))} in the Word debugger", {"word": word}, ":material/search:")
        if has(tokeniser, "merge_graph"):
            type_ = shown(finding.type, display)
            page_link(GRAPH_PAGE, f"{md_escape(type_)} in the merge graph", {"type": type_}, ":material/hub:")
        if finding.cause == "merge-order":
            page_link(BLOCKED_PAGE, "Why: Blocked merges", {"variant": "before"}, ":material/block:")


present = page_header("Vocabulary audit")
if not present:
    st.caption(
        "A type is *not produced by its own string* when decoding its id and encoding that text again gives "
        "other tokens: the round trip that finds glitch tokens, which keep an embedding row but are never "
        "trained. Each is listed with the first stage of the pipeline that loses it: the normaliser, the "
        "pre-tokeniser, an added token, byte fallback, partial UTF-8 bytes, or a merge order that blocks it "
        "([rebpe App. A.1]). On a corpus, the audit also lists the types never emitted and those formed far "
        "more often than emitted."
    )
workspace = current()
tokeniser, display = workspace.tokeniser, workspace.tokeniser.pretokeniser.display
ids = id_table(tokeniser, workspace.tokeniser_key)
box = st.empty()


def progress(done: int, total: int) -> None:
    text = f"Encoding every type's own string: {done:,} of {total:,}" if total else "Another session is auditing it…"
    box.progress(done / total if total else 0.0, text=text)


try:
    report = audited(workspace.tokeniser_key, tokeniser, progress)
except InputError as err:
    box.error(f"Could not audit the vocabulary: {md_escape(err)}")
    st.stop()
box.empty()
counts = report.counts()
figures, summary = st.columns([1, 3])
figures.metric("Types checked", f"{report.types_checked:,}", help=f"in {report.seconds:.1f} s")
figures.metric("Not produced by their own string", f"{len(report.unreachable):,}")
if counts:
    summary.table(
        [{"cause": CAUSES[c][0], "types": f"{n:,}", "what it means": CAUSES[c][1]} for c, n in counts.items()],
        hide_index=True,
    )
graph_workspace = workspace.with_merge_graph("Removing types") if has(tokeniser, "merge_graph") else None
takeable = set(removable(graph_workspace.tokeniser)) if graph_workspace else set()

unreachable_tab, idle_tab = st.tabs(["Not produced by their own string", "Idle on a corpus"])
with unreachable_tab:
    if not report.unreachable:
        st.success("Every type of this tokeniser comes back from its own string.")
    else:
        seed_from_url(CAUSE_KEY, "cause", lambda raw: [c for c in raw.split(",") if c in counts] or None)
        if not set(st.session_state.get(CAUSE_KEY) or ()) <= set(counts):
            st.session_state[CAUSE_KEY] = list(counts)
        filter_column, search_column = st.columns([3, 2])
        chosen = filter_column.multiselect(
            "Causes",
            list(counts),
            default=list(counts),
            key=CAUSE_KEY,
            format_func=lambda c: f"{CAUSES[c][0]} ({counts[c]:,})",
        )
        write_to_url("cause", ",".join(chosen), default=",".join(counts))
        query = search_column.text_input("Search", key="audit_search", placeholder="a type, its text or an id")
        findings = [f for f in report.unreachable if f.cause in chosen]
        rows = finding_rows(findings, display)
        if query:
            kept = {id(row) for row in sv.filter_rows(rows, query)}
            findings = [f for f, row in zip(findings, rows, strict=True) if id(row) in kept]
            rows = [row for row in rows if id(row) in kept]
        st.caption(
            f"{len(rows):,} types"
            + (f"; the table shows the first {MAX_TABLE_ROWS:,}" if len(rows) > MAX_TABLE_ROWS else "")
            + ". Select rows to inspect one and to remove them."
        )
        event = st.dataframe(
            rows[:MAX_TABLE_ROWS],
            hide_index=True,
            width="stretch",
            column_config=FINDING_COLUMNS,
            height="auto" if len(rows) <= 10 else 320,
            on_select="rerun",
            selection_mode="multi-row",
            key="audit_table",
        )
        picked = [findings[i] for i in event.selection.rows if i < len(findings)]
        downloads = st.columns(2)
        downloads[0].download_button(
            "Download as CSV",
            sv.rows_to_csv(rows),
            file_name="audit.csv",
            mime="text/csv",
            on_click="ignore",
            key="audit_csv",
        )
        downloads[1].download_button(
            "Download the audit as JSON",
            lambda: json.dumps(report.to_json(), ensure_ascii=False),
            file_name="audit.json",
            mime="application/json",
            on_click="ignore",
            key="audit_json",
        )
        if picked:
            finding_details(picked[0], tokeniser, display, ids)
        if takeable:
            removal_buttons(
                [f.type for f in findings],
                [f.type for f in picked],
                takeable,
                graph_workspace.tokeniser_key,
                "audit_remove",
            )

with idle_tab:
    sources, default = workspace.counts_sources()
    source_column, ratio_column, button_column = st.columns([3, 2, 1], vertical_alignment="bottom")
    source = source_column.selectbox("Word counts", sources, index=sources.index(default), key="audit_counts")
    ratio = ratio_column.number_input(
        "Residue: formed per emission at least", min_value=1.0, max_value=1e6, value=10.0, step=1.0, key="audit_ratio"
    )
    asked = (workspace.tokeniser_key, source, ratio)
    button_column.button("Count", key="audit_count", type="primary", on_click=ask_idle, args=(workspace.tokeniser_key,))
    if st.session_state.get(IDLE_KEY) == asked:
        counts_key, reader = workspace.word_counts(source)
        idle: tuple[Usage, ...] | None = None
        try:
            idle, untraced = idle_on(workspace.tokeniser_key, counts_key, ratio, tokeniser, reader)
        except InputError as err:
            st.error(md_escape(err))
        if idle is not None:
            if untraced:
                st.caption(f"The formed counts leave out {untraced:,} words too long to trace.")
            by_cause = {cause: sum(u.cause == cause for u in idle) for cause in IDLE_CAUSES}
            st.markdown(
                " · ".join(f"**{cause}** {n:,}: {md_escape(IDLE_CAUSES[cause])}" for cause, n in by_cause.items())
            )
            idle_rows = usage_rows(idle, display)
            event = st.dataframe(
                idle_rows[:MAX_TABLE_ROWS],
                hide_index=True,
                width="stretch",
                height="auto" if len(idle_rows) <= 10 else 320,
                on_select="rerun",
                selection_mode="multi-row",
                key="audit_idle_table",
            )
            if graph_workspace is not None:
                removal_buttons(
                    [u.type for u in idle],
                    [idle[i].type for i in event.selection.rows if i < len(idle)],
                    takeable,
                    graph_workspace.tokeniser_key,
                    "audit_idle_remove",
                )
    else:
        st.caption("Count the tokens on word counts to list the types never emitted there, and the residues.")

if graph_workspace is not None and not present:
    st.subheader("Remove types and export")
    removal_section(graph_workspace)
elif not present:
    st.caption(f"Removing types needs a merge graph; the {tokeniser.kind} tokeniser has none.")
