"""A Unigram lattice (core.unigram.lattice.Lattice) as an SVG chart: the pretoken's characters
along the top, every candidate token as a span under the characters it covers (packed into
rows), the Viterbi path highlighted, and under each gap between characters the marginal
probability that a token boundary falls there.

Pure function returning a string; every text goes through :func:`viz.escaping.html_escape`.
"""
from __future__ import annotations

from typing import Callable

from viz.escaping import html_escape
from viz.tokens import visible

CELL, ROW, TOP, BAR = 46, 34, 34, 40  # px: character width, span row height, header, boundary bar height
VITERBI_FILL, OTHER_FILL, UNKNOWN_FILL = "#fde68a", "#e0f2fe", "#fecaca"


def _rows(arcs) -> list[int]:
    """Greedy interval packing: the first row where the arc fits, longest arcs first."""
    order = sorted(range(len(arcs)), key=lambda i: (-(arcs[i].end - arcs[i].start), arcs[i].start))
    ends: list[list[tuple[int, int]]] = []
    row_of = [0] * len(arcs)
    for i in order:
        arc = arcs[i]
        for r, taken in enumerate(ends):
            if all(arc.end <= s or arc.start >= e for s, e in taken):
                taken.append((arc.start, arc.end))
                row_of[i] = r
                break
        else:
            ends.append([(arc.start, arc.end)])
            row_of[i] = len(ends) - 1
    return row_of


def lattice_svg(lattice, display: Callable[[str], str] = lambda t: t, *, max_arcs: int = 400) -> str:
    """The chart; arcs beyond ``max_arcs`` (least probable first) are left out and counted."""
    path, _ = lattice.viterbi()
    on_path = set(path)
    marginals = lattice.arc_marginals()
    arcs = list(lattice.arcs)
    hidden = 0
    if len(arcs) > max_arcs:
        keep = sorted(range(len(arcs)), key=lambda i: (arcs[i] not in on_path, -marginals[i]))[:max_arcs]
        hidden = len(arcs) - max_arcs
        arcs, marginals = [arcs[i] for i in sorted(keep)], [marginals[i] for i in sorted(keep)]
    rows = _rows(arcs)
    n = len(lattice.text)
    n_rows = max(rows, default=0) + 1
    width = CELL * n + 20
    bars_y = TOP + ROW * n_rows + 16
    height = bars_y + BAR + 36
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="lattice" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="ui-monospace,monospace">']
    for j, ch in enumerate(lattice.text):
        out.append(f'<text x="{10 + CELL * j + CELL / 2}" y="22" text-anchor="middle" font-size="18">'
                   f'{html_escape(visible(display(ch)) or ch)}</text>')
    for arc, row, marginal in zip(arcs, rows, marginals):
        best = arc in on_path
        fill = VITERBI_FILL if best else (OTHER_FILL if arc.known else UNKNOWN_FILL)
        x, y, w = 10 + CELL * arc.start + 2, TOP + ROW * row, CELL * (arc.end - arc.start) - 4
        tip = (f"{visible(display(arc.token))}  log p = {arc.log_prob:.3f}  P(on path) = {marginal:.3f}"
               + ("" if arc.known else "  (unknown character)") + ("  · Viterbi" if best else ""))
        out.append(f'<g class="arc{" viterbi" if best else ""}"><title>{html_escape(tip)}</title>'
                   f'<rect x="{x}" y="{y}" width="{w}" height="{ROW - 6}" rx="6" fill="{fill}" '
                   f'stroke="{"#b45309" if best else "#94a3b8"}" stroke-width="{3 if best else 1}"/>'
                   f'<text x="{x + w / 2}" y="{y + 13}" text-anchor="middle" font-size="12">'
                   f'{html_escape(visible(display(arc.token)))}</text>'
                   f'<text x="{x + w / 2}" y="{y + 25}" text-anchor="middle" font-size="10" fill="#475569">'
                   f'{arc.log_prob:.2f}</text></g>')
    for j, p in enumerate(lattice.boundary_marginals()[1:-1], 1):
        x = 10 + CELL * j
        h = BAR * p
        out.append(f'<g class="boundary"><title>P(boundary after {j} characters) = {p:.3f}</title>'
                   f'<rect x="{x - 5}" y="{bars_y + BAR - h}" width="10" height="{h}" fill="#6366f1"/>'
                   f'<text x="{x}" y="{bars_y + BAR + 14}" text-anchor="middle" font-size="10">{p:.2f}</text></g>')
    if hidden:
        out.append(f'<text x="10" y="{height - 4}" font-size="11">{hidden} less probable arcs not drawn</text>')
    out.append("</svg>")
    return "".join(out)
