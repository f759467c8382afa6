"""A tokenisation trace (core.families.base.Trace) of any tokeniser family as HTML and table rows:
every operation with a coloured badge for its kind and the tokens right after it.

Pure functions; all text is escaped by :func:`viz.tokens.token_chips_html` or :func:`viz.escaping.html_escape`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from viz.escaping import html_escape
from viz.tokens import shown, token_chips_html

#: badge colours per event kind (light backgrounds, dark text: readable on a projector)
KIND_COLOURS = {
    "merge": "#dbeafe",
    "supermerge": "#ede9fe",
    "split": "#fee2e2",
    "deletion": "#fee2e2",
    "demolish": "#ffedd5",
    "viterbi": "#dcfce7",
    "whole": "#dcfce7",
}
KIND_HELP = {
    "merge": "a merge joined adjacent tokens",
    "supermerge": "BoundlessBPE joined two whole pretokens into one token",
    "split": "PickyBPE split a removed token back into its parts",
    "deletion": "BoundlessBPE deleted a token: it falls apart into bytes",
    "demolish": "Scaffold-BPE replaced a scaffold token by its parts",
    "viterbi": "Unigram chose the most probable segmentation of a pretoken",
    "whole": "PickyBPE kept a pretoken whole because it is itself a type",
}


def kind_badge(kind: str) -> str:
    colour = KIND_COLOURS.get(kind, "#e7e5e4")
    return (
        f'<span class="trace-kind" title="{html_escape(KIND_HELP.get(kind, kind))}" '
        f'style="display:inline-block;min-width:6.5em;padding:1px 6px;border-radius:6px;'
        f'background:{colour};color:#1c1917;font-size:0.85rem">{html_escape(kind)}</span>'
    )


def trace_html(
    trace, display: Callable[[str], str] = lambda t: t, *, markers: Sequence[str] = (), max_events: int = 60
) -> str:
    """The initial atoms, then one line per event (at most ``max_events``, the last ones kept)."""
    events = list(trace.events)
    hidden = max(0, len(events) - max_events)
    lines = [
        f'<div class="trace-line">{kind_badge("start")} '
        f"{token_chips_html(trace.initial, display, markers=markers, font_size='1rem')}</div>"
    ]
    if hidden:
        lines.append(f'<div style="opacity:0.7;margin:4px 0">… {hidden} earlier operations not shown …</div>')
    for event in events[hidden:]:
        lines.append(
            f'<div class="trace-line" data-kind="{html_escape(event.kind)}">'
            f'{kind_badge(event.kind)} <span style="font-family:ui-monospace,monospace">'
            f"{html_escape(event.label)}</span><br>"
            f"{token_chips_html(event.tokens, display, markers=markers, font_size='1rem')}</div>"
        )
    return '<div class="trace" style="display:flex;flex-direction:column;gap:6px">' + "".join(lines) + "</div>"


def trace_rows(trace, display: Callable[[str], str] = lambda t: t) -> list[dict]:
    """One row per event: step, kind, operation, tokens after (readable, space-separated)."""
    return [
        {"step": i, "kind": e.kind, "operation": e.label, "tokens after": " ".join(shown(t, display) for t in e.tokens)}
        for i, e in enumerate(trace.events, 1)
    ]


#: How :func:`kind_counts` names one and several events of a kind (a kind is a verb or a
#: family's word; counted, it needs a noun): "2 demolitions", "3 Viterbi choices".
KIND_NOUNS = {
    "merge": ("merge", "merges"),
    "supermerge": ("supermerge", "supermerges"),
    "split": ("split", "splits"),
    "deletion": ("deletion", "deletions"),
    "demolish": ("demolition", "demolitions"),
    "viterbi": ("Viterbi choice", "Viterbi choices"),
    "whole": ("pretoken kept whole", "pretokens kept whole"),
    "sample": ("dropout sample", "dropout samples"),
}


def counted(kind: str, n: int) -> str:
    """``n`` events of ``kind`` in words: ``1 merge``, ``2 demolitions``; a kind without a noun here
    is counted as itself, in the plural of an English noun."""
    one, many = KIND_NOUNS.get(kind, (kind, kind + ("es" if kind.endswith(("s", "sh", "ch", "x", "z")) else "s")))
    return f"{n} {one if n == 1 else many}"


def kind_counts(trace) -> str:
    """``"5 merges, 1 demolition"``: what the trace consists of."""
    counts: dict[str, int] = {}
    for event in trace.events:
        counts[event.kind] = counts.get(event.kind, 0) + 1
    return ", ".join(counted(kind, n) for kind, n in counts.items()) or "no operations"
