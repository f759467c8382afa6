"""A Unigram lattice (core.families.unigram.lattice.Lattice) as an SVG chart: the pretoken's characters
along the top (one label per character as people see it, over the code points it is made of),
every candidate token as a span under the characters it covers (packed into rows), the Viterbi
path highlighted, and under each gap between characters the marginal probability that a token
boundary falls there ([unigram §3.2]: the lattice the forward-backward algorithm runs on).

Pure function returning a standalone SVG document (for the page and for a figure download); labels
are sized for a projector and every text goes through :func:`viz.escaping.html_escape`.
"""

from __future__ import annotations

from collections.abc import Callable

from viz.escaping import html_escape
from viz.tokens import characters, columns, drawn

FONT = "DejaVu Sans Mono,ui-monospace,monospace"
MIN_CELL, MAX_CELL = 58, 140  # px per code point: wide enough for the labels of one-character arcs
ROW, TOP, BAR, LEGEND = 50, 46, 56, 30  # px: span row height, header, boundary bar height, legend line
TOKEN_PX, SCORE_PX, HEADER_PX, SMALL_PX = 18, 13, 26, 14
CHAR_ADVANCE = 0.62  # monospace advance, in em
VITERBI_FILL, OTHER_FILL, UNKNOWN_FILL = "#fde68a", "#e0f2fe", "#fecaca"
VITERBI_STROKE, OTHER_STROKE, BAR_FILL = "#b45309", "#94a3b8", "#6366f1"


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


def _cell(arcs, display: Callable[[str], str]) -> float:
    """Width of one code point: the widest label per covered code point, within bounds."""
    need = [columns(drawn(a.token, display)) * TOKEN_PX * CHAR_ADVANCE / (a.end - a.start) + 14 for a in arcs]
    return min(MAX_CELL, max([MIN_CELL, *need]))


def _legend_width(items) -> float:
    return sum(24 + len(text) * SMALL_PX * CHAR_ADVANCE + 18 for *_, text in items)


def _legend(items, y: float) -> list[str]:
    out, x = [], 10.0
    for fill, stroke, stroke_width, text in items:
        out.append(
            f'<rect x="{x:.1f}" y="{y - 12}" width="14" height="14" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="{stroke_width}"/><text x="{x + 20:.1f}" y="{y}">{html_escape(text)}</text>'
        )
        x += 24 + len(text) * SMALL_PX * CHAR_ADVANCE + 18
    return out


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
    cell = _cell(arcs, display)
    n = len(lattice.text)
    n_rows = max(rows, default=0) + 1
    legend = [
        (VITERBI_FILL, VITERBI_STROKE, 2, "Viterbi path"),
        (OTHER_FILL, OTHER_STROKE, 1, "other piece, log p below"),
        *([(UNKNOWN_FILL, OTHER_STROKE, 1, "unknown character")] if not all(a.known for a in arcs) else []),
        (BAR_FILL, BAR_FILL, 0, "P(token boundary)"),
    ]
    width = round(max(cell * n + 20, _legend_width(legend) + 20))
    bars_y = TOP + ROW * n_rows + 16
    height = bars_y + BAR + 24 + LEGEND + (22 if hidden else 0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="lattice" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}" role="img">'
        f"<title>{html_escape(f'Unigram lattice of {drawn(lattice.text, display)}')}</title>"
        '<rect width="100%" height="100%" fill="#ffffff"/>'
    ]
    for character in characters(lattice.text, display):
        middle = 10 + cell * (character.start + character.end) / 2
        tip = f"{character.label}: code points {character.start + 1} to {character.end}"
        out.append(
            f'<text class="character" x="{middle:.1f}" y="32" text-anchor="middle" font-size="{HEADER_PX}">'
            f"<title>{html_escape(tip)}</title>{html_escape(character.label)}</text>"
        )
    for arc, row, marginal in zip(arcs, rows, marginals, strict=True):
        best = arc in on_path
        fill = VITERBI_FILL if best else (OTHER_FILL if arc.known else UNKNOWN_FILL)
        x, y, w = 10 + cell * arc.start + 2, TOP + ROW * row, cell * (arc.end - arc.start) - 4
        label = drawn(arc.token, display)
        tip = (
            f"{label}  log p = {arc.log_prob:.3f}  P(on path) = {marginal:.3f}"
            + ("" if arc.known else "  (unknown character)")
            + ("  · Viterbi" if best else "")
        )
        out.append(
            f'<g class="arc{" viterbi" if best else ""}"><title>{html_escape(tip)}</title>'
            f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW - 6}" rx="6" fill="{fill}" '
            f'stroke="{VITERBI_STROKE if best else OTHER_STROKE}" stroke-width="{3 if best else 1}"/>'
            f'<text x="{x + w / 2:.1f}" y="{y + 19}" text-anchor="middle" font-size="{TOKEN_PX}" '
            f'style="white-space:pre">{html_escape(label)}</text>'
            f'<text x="{x + w / 2:.1f}" y="{y + 37}" text-anchor="middle" font-size="{SCORE_PX}" fill="#334155">'
            f"{arc.log_prob:.2f}</text></g>"
        )
    for j, p in enumerate(lattice.boundary_marginals()[1:-1], 1):
        x = 10 + cell * j
        h = BAR * p
        out.append(
            f'<g class="boundary"><title>P(boundary after {j} characters) = {p:.3f}</title>'
            f'<rect x="{x - 7:.1f}" y="{bars_y + BAR - h:.1f}" width="14" height="{h:.1f}" fill="{BAR_FILL}"/>'
            f'<text x="{x:.1f}" y="{bars_y + BAR + 18}" text-anchor="middle" font-size="{SMALL_PX}">'
            f"{p:.2f}</text></g>"
        )
    legend_y = bars_y + BAR + 24 + 20
    out.append(f'<g class="legend" font-size="{SMALL_PX}">{"".join(_legend(legend, legend_y))}</g>')
    if hidden:
        out.append(f'<text x="10" y="{height - 8}" font-size="{SMALL_PX}">{hidden} less probable arcs not drawn</text>')
    out.append("</svg>")
    return "".join(out)
