"""Merge trees as LaTeX for papers and slides, drawn with the ``forest`` package as the
BPE-knockout and ReBPE papers draw them ([knockout Fig. 1-3]; the authors' TkTkT code writes
forest too).

:func:`merge_tree_forest` takes the arguments of :func:`viz.trees.merge_tree_svg` and writes the
same picture (:mod:`viz.tree_states` classifies every node for both): one ``forest`` per root,
leaves on one line, each node at the height of its subtree (forest tiers), the step and blame
styles, and the reference splits as dashed lines. Tokens are written in their readable form with
LaTeX's special characters escaped; other characters (the word-start markers ``Ġ`` and ``▁``,
accents, CJK, emoji) stay UTF-8, so the document is compiled with LuaLaTeX or XeLaTeX.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from viz.ranks import rank_text
from viz.tokens import CHIP_COLOURS, drawn
from viz.tree_states import BLAME, GHOST, HIGHLIGHT, INK, LAST, PLAIN_FILL, TUPLE, NodeState, node_states

#: LaTeX's special characters in text: ``\\ { } % # _ $ & ^ ~`` and forest's brackets.
_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "&": r"\&",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
    "[": r"\lbrack{}",
    "]": r"\rbrack{}",
}
#: colour -> LaTeX colour name (defined in the document's preamble)
_COLOURS = {
    INK: "treeink",
    GHOST: "treeghost",
    TUPLE: "treetuple",
    BLAME: "treeblame",
    LAST: "treelast",
    HIGHLIGHT: "treehighlight",
    PLAIN_FILL: "white",
    **{colour: f"treetoken{n}" for n, colour in enumerate(CHIP_COLOURS)},
}

_PREAMBLE = r"""% {title}
% Drawn with the forest package, as the BPE-knockout and ReBPE papers draw merge trees.
% The tokens are UTF-8 (word-start markers such as Ġ and ▁ included): compile with LuaLaTeX or
% XeLaTeX, with a monospace font that has every character (CJK or emoji need another font).
% To use the tree in a paper, copy the \definecolor and \forestset lines and the forest environments.
\documentclass[border=4pt]{{standalone}}
\usepackage{{fontspec}}
\setmonofont{{DejaVu Sans Mono}}
\usepackage{{forest}}
\usetikzlibrary{{calc,backgrounds}}
{colours}
\forestset{{
  merge tree/.style={{for tree={{font=\ttfamily, align=center, draw=treeink, line width=0.7pt, rounded corners=2pt,
    inner sep=2.5pt, s sep=1.5mm, l sep=4mm, edge={{treeink, line width=0.8pt}}}}}},
  tuple/.style={{double=treetuple, double distance=1.2pt}},
  not fired/.style={{dashed, text=treeghost, for children={{edge={{treeghost, dashed}}}}}},
}}
\tikzset{{reference split/.style={{draw=treeblame, dashed, line width=0.8pt}}}}
"""


def latex_text(text: str) -> str:
    """``text`` as LaTeX text: the special characters escaped, everything else as it is (UTF-8)."""
    return "".join(_LATEX.get(ch, ch) for ch in text)


def _options(state: NodeState) -> list[str]:
    colour, width, dashed = state.outline
    options = [
        f"tier=h{state.height}",
        f"fill={_COLOURS[state.fill]}",
        f"draw={_COLOURS[colour]}",
        f"line width={width / 2:.1f}pt",
    ]
    if dashed:
        options.append("not fired")
    if state.is_tuple:
        options.append("tuple")
    return options


def _node(state: NodeState, children: list[str], display: Callable[[str], str], depth: int) -> str:
    node = state.node
    content = latex_text(drawn(node.token, display))
    if node.merge is not None:
        rank = rank_text(node.merge.rank) + (" tuple" if state.is_tuple else "")
        colour = (
            "treeghost"
            if not state.formed
            else "treeblame"
            if state.crosses
            else "treetuple"
            if state.is_tuple
            else "treeink"
        )
        content += rf"\\{{\scriptsize\color{{{colour}}}{latex_text(rank)}}}"
    options = _options(state)
    if node.merge is None:
        options.append(f"name=p{state.pretoken}l{node.start}")
    pad = "  " * depth
    inner = "".join(f"\n{child}" for child in children)
    return f"{pad}[{{{content}}}, {', '.join(options)}{inner}{'' if not children else chr(10) + pad}]"


def merge_tree_forest(
    pretokens: Sequence[tuple[str, Sequence]],
    display: Callable[[str], str] = lambda t: t,
    *,
    done: Sequence[int] | None = None,
    last_step: tuple[int, int] | None = None,
    reference: Collection[tuple[int, int]] = (),
    caption: str = "",
    highlight: Collection = (),
) -> str:
    """A standalone LaTeX document drawing the merge trees of :func:`viz.trees.merge_tree_svg`
    (same arguments, same styles) with ``forest``: one environment per root, side by side with
    their leaves on one line, a wider gap between pretokens."""
    states = {
        id(s.node): s
        for s in node_states(pretokens, done=done, last_step=last_step, reference=reference, highlight=highlight)
    }
    reference = set(reference)

    def write(node, depth: int) -> str:
        return _node(states[id(node)], [write(c, depth + 1) for c in node.children], display, depth)

    pictures = []
    for i, (_text, trees) in enumerate(pretokens):
        for n, tree in enumerate(trees):
            splits = [
                k for (p, k) in sorted(reference) if p == i and tree.start <= k < tree.start + len(tree.token) - 1
            ]
            drawing = "\\begin{forest} merge tree" + "".join(
                f",\n  tikz+={{\\coordinate (split{k}) at ($(p{i}l{k}.east)!0.5!(p{i}l{k + 1}.west)$);"
                f" \\scoped[on background layer] \\draw[reference split] (split{k} |- current bounding box.north) -- "
                f"(split{k} |- current bounding box.south);}}"
                for k in splits
            )
            gap = "" if not pictures else ("\\hspace{1mm}" if n else "\\hspace{5mm}")
            pictures.append(f"{gap}%\n\\raisebox{{\\depth}}{{{drawing}\n{write(tree, 0)}\n\\end{{forest}}}}")
    colours = "\n".join(
        rf"\definecolor{{{name}}}{{HTML}}{{{colour.lstrip('#').upper()}}}"
        for colour, name in _COLOURS.items()
        if name != "white"
    )
    title = " ".join((caption or "merge tree").split())  # one comment line, whatever the caption holds
    body = "\n".join(pictures) if pictures else r"\mbox{}"
    return _PREAMBLE.format(title=title, colours=colours) + f"\\begin{{document}}\n{body}\n\\end{{document}}\n"
