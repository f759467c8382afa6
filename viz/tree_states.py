"""What each node of a merge tree is at a step, and the one style for it.

Shared by the SVG (:mod:`viz.trees`), the LaTeX export (:mod:`viz.tree_tikz`) and the legend, so
the legend can only name what the drawings do. Every property has its own channel, so they
combine: the fill says whether the node is a token at this step, the outline says what happened to
it (fired last, highlighted, crossed a reference boundary, not fired yet), and a violet inner
border says it is a tuple merge (three or more parts, [knockout §3.2]) -- a tuple merge that
is also a token is filled *and* has the violet border.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from viz.escaping import html_escape
from viz.tokens import CHIP_COLOURS, characters

INK = "#1c1917"
GHOST = "#a8a29e"
TUPLE = "#6d28d9"
BLAME = "#dc2626"
LAST = "#ea580c"
HIGHLIGHT = "#2563eb"
PLAIN_FILL = "#ffffff"
CHARACTER_FILL, CHARACTER_STROKE = "#f5f5f4", "#78716c"  # a character spelled by several leaves (bytes)


@dataclass(frozen=True)
class NodeState:
    """One node of a pretoken's merge tree (:class:`core.bpe.segmentation.MergeTree`) at a step."""

    node: object
    pretoken: int
    height: int  # 0 for a leaf: the level it is drawn at
    formed: bool  # its merge has fired (always true for a leaf)
    token: int | None  # its position among the tokens at this step, None if it is not one
    last: bool  # formed by the merge that fired last
    is_tuple: bool  # a tuple merge (3+ parts)
    crosses: bool  # its merge removed a reference split
    highlighted: bool

    @property
    def fill(self) -> str:
        """Chip colour for a token at this step (neighbours alternate), white otherwise."""
        return CHIP_COLOURS[self.token % len(CHIP_COLOURS)] if self.token is not None else PLAIN_FILL

    @property
    def outline(self) -> tuple[str, float, bool]:
        """(colour, width, dashed) of the outer border: not fired yet > highlighted > fired last >
        crossed a reference split > plain."""
        if not self.formed:
            return (BLAME if self.crosses else GHOST), 1.2, True
        if self.highlighted:
            return HIGHLIGHT, 3.4, False
        if self.last:
            return LAST, 3.4, False
        if self.crosses:
            return BLAME, 2.6, False
        return INK, 1.4, False

    @property
    def classes(self) -> list[str]:
        names = ["tree-node", "leaf" if self.node.merge is None else "merge"]
        names += [
            name
            for name, on in (
                ("ghost", not self.formed),
                ("current", self.token is not None),
                ("last", self.last),
                ("tuple", self.is_tuple),
                ("crosses-reference", self.crosses),
                ("highlight", self.highlighted),
            )
            if on
        ]
        return names


def height(node) -> int:
    return 0 if not node.children else 1 + max(height(c) for c in node.children)


def roots_at(trees: Sequence, done: int) -> list:
    """The nodes that are tokens after ``done`` steps (nodes formed at a later step dissolve)."""
    out = []
    for tree in trees:
        if tree.merge is None or tree.step < done:
            out.append(tree)
        else:
            out.extend(roots_at(tree.children, done))
    return out


def node_states(
    pretokens: Sequence[tuple[str, Sequence]],
    *,
    done: Sequence[int] | None = None,
    last_step: tuple[int, int] | None = None,
    reference: Collection[tuple[int, int]] = (),
    highlight: Collection = (),
) -> Iterator[NodeState]:
    """Every node of every pretoken's trees, parents before children, with what it is at the step
    (arguments as in :func:`viz.trees.merge_tree_svg`)."""
    reference = set(reference)
    for i, (_text, trees) in enumerate(pretokens):
        limit = 10**9 if done is None else done[i]
        yield from _pretoken_states(i, trees, limit, last_step, reference, highlight)


def _pretoken_states(
    i: int,
    trees: Sequence,
    limit: int,
    last_step: tuple[int, int] | None,
    reference: Collection[tuple[int, int]],
    highlight: Collection,
) -> Iterator[NodeState]:
    """The nodes of pretoken ``i``'s trees after ``limit`` of its merges, parents before children."""
    tokens = {id(node): n for n, node in enumerate(roots_at(trees, limit))}

    def visit(node) -> Iterator[NodeState]:
        merge = node.merge
        yield NodeState(
            node=node,
            pretoken=i,
            height=height(node),
            formed=merge is None or node.step < limit,
            token=tokens.get(id(node)),
            last=merge is not None
            and last_step is not None
            and (i, node.step) == tuple(last_step)
            and node.step < limit,
            is_tuple=len(node.children) > 2,
            crosses=any((i, c.start - 1) in reference for c in node.children[1:]),
            highlighted=bool(highlight) and ((merge is not None and merge in highlight) or node.token in highlight),
        )
        for child in node.children:
            yield from visit(child)

    for tree in trees:
        yield from visit(tree)


def spelled_characters(pretokens: Sequence[tuple[str, Sequence]], display: Callable[[str], str]) -> list[list]:
    """Per pretoken, its characters made of several leaves (the bytes of ``é`` in a byte-level
    tokeniser, the code points of a ZWJ sequence): :class:`viz.tokens.Character` objects."""
    return [[c for c in characters(text, display) if c.symbols > 1] for text, _ in pretokens]


# --- the legend -------------------------------------------------------------------------------------
def _swatch(style: str) -> str:
    return (
        f'<span class="sw" style="display:inline-block;box-sizing:border-box;width:1.3em;height:1em;'
        f'border-radius:4px;vertical-align:middle;margin-right:4px;{html_escape(style)}"></span>'
    )


#: situation -> (swatch CSS, text), in the colours :class:`NodeState` draws.
LEGEND = {
    "token": (f"background:{CHIP_COLOURS[0]};border:1.5px solid {INK}", "filled: the tokens at this step"),
    "last": (f"border:3px solid {LAST}", "the merge that fired last"),
    "ghost": (f"border:1.5px dashed {GHOST}", "not fired yet"),
    "tuple": (
        f"border:1.5px solid {INK};box-shadow:inset 0 0 0 2px #ffffff, inset 0 0 0 4px {TUPLE}",
        "tuple merge (3+ parts): violet inner border",
    ),
    "blame": (f"border:2.5px solid {BLAME}", "merge that crossed a reference split"),
    "reference": (f"width:0;border-radius:0;border-left:2px dashed {BLAME};margin:0 8px", "reference split"),
    "highlight": (f"border:3px solid {HIGHLIGHT}", "highlighted"),
    "character": (
        f"background:{CHARACTER_FILL};border:1px solid {CHARACTER_STROKE}",
        "under the bytes: the character they spell",
    ),
}


def tree_legend_html(
    *, step: bool = True, reference: bool = True, highlight: str = "", characters: bool = False
) -> str:
    """The legend of :func:`viz.trees.merge_tree_svg`: the step items (``done``/``last_step``),
    the reference items, a highlight item named ``highlight`` (e.g. "a token the other tokeniser
    does not have"), and the row of characters spelled by several bytes."""
    keys = ["token", "tuple"] + (["last", "ghost"] if step else []) + (["blame", "reference"] if reference else [])
    keys += (["highlight"] if highlight else []) + (["character"] if characters else [])
    items = []
    for key in keys:
        style, text = LEGEND[key]
        text = highlight if key == "highlight" else text
        items.append(f'<span style="white-space:nowrap">{_swatch(style)}{html_escape(text)}</span>')
    return '<div class="tree-legend" style="font-size:0.95rem;line-height:1.9">' + " &nbsp; ".join(items) + "</div>"
