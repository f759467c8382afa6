"""How the merge graph looks: the two views, the colour, border and shape of each role, the marks of
a comparison (knocked out, new, re-formed) and of alternative merges, and the legend that explains
them. Shared by the interactive view (:mod:`viz.graph_html`) and the SVG figure (:mod:`viz.graph_svg`).
"""

from __future__ import annotations

from core.bpe.graph import ANCESTOR, CENTER, DESCENDANT, HALF_SIBLING

TYPES_VIEW, MERGES_VIEW = "types only", "types and merges"
VIEWS = (TYPES_VIEW, MERGES_VIEW)
OTHER = "other part"  # a part of a shown merge that is outside the neighbourhood

#: Role -> (background, border, corner radius). Light fills with dark text read well on a
#: projector; the roles also differ in shape (half-siblings are pills, the other parts have thin
#: borders and small grey text) so the legend works without colour.
ROLE_STYLE = {
    CENTER: ("#fde047", "#854d0e", 4),
    ANCESTOR: ("#bfdbfe", "#1e40af", 4),
    DESCENDANT: ("#bbf7d0", "#166534", 4),
    HALF_SIBLING: ("#f5d0fe", "#86198f", 20),
    OTHER: ("#f5f5f4", "#a8a29e", 4),
}
ROLE_TEXT = {
    CENTER: "the selected type",
    ANCESTOR: "ancestor (its merge tree)",
    DESCENDANT: "descendant (built on it)",
    HALF_SIBLING: "half-sibling (shares a parent)",
    OTHER: "other part of a shown merge",
}
MERGE_STYLE = ("#ffffff", "#44403c")
TUPLE_STYLE = ("#fed7aa", "#c2410c")  # tuple merges (3+ parts, [knockout §3.2])
EDGE_COLOUR, TUPLE_EDGE, ABSENT_COLOUR = "#57534e", "#ea580c", "#dc2626"
# Words, not symbols: a dingbat such as a ballot X or a star is an empty box on a machine without the font.
ABSENT_MARK = "out: "  # knocked out: a merge (or type) the tokeniser after the edit does not have
NEW_MARK = "new: "  # new: a merge (or type) the tokeniser before the edit did not have
REFORMED_MARK = "re-formed: "  # a type both have, formed by different merges (e.g. a knockout's tuple merge)
ALT_MARK = " alt"  # after the rank of an alternative merge (not the one forming the type from its string)
ALT_STYLE = ("#fafaf9", "#78716c")
ALT_EDGE = "#a8a29e"
GONE, NEW, REFORMED = "knocked out", "new", "re-formed"
TYPE_FONT, SMALL_FONT = 22, 18
STATUS_MARK = {GONE: ABSENT_MARK, NEW: NEW_MARK, REFORMED: REFORMED_MARK}


def node_colour(background: str, border: str) -> dict:
    """A node's vis-network colour: its fill and border, a dark border when highlighted or hovered."""
    return {
        "background": background,
        "border": border,
        "highlight": {"background": background, "border": "#0f172a"},
        "hover": {"background": background, "border": "#0f172a"},
    }


def edge_style(is_tuple: bool, gone: bool, alternative: bool) -> dict:
    """Colour, width and dashes of an arrow of a tuple, absent, alternative or plain merge."""
    colour = TUPLE_EDGE if is_tuple else (ABSENT_COLOUR if gone else ALT_EDGE if alternative else EDGE_COLOUR)
    return {"color": colour, "width": 3 if is_tuple else 1.5, "dashes": gone or ([3, 4] if alternative else False)}


def legend_items(
    view: str, comparing: bool, other_is_before: bool = False, alternatives: bool = False
) -> list[tuple[str, str]]:
    """(swatch style, text) pairs for the legend; the text is plain (escaped when rendered)."""
    items = []
    for role in (CENTER, ANCESTOR, DESCENDANT, HALF_SIBLING, OTHER):
        background, border, radius = ROLE_STYLE[role]
        items.append(
            (f"background:{background};border:2px solid {border};border-radius:{min(radius, 8)}px", ROLE_TEXT[role])
        )
    if view == MERGES_VIEW:
        items.append(
            (
                f"background:{MERGE_STYLE[0]};border:1px solid {MERGE_STYLE[1]};border-radius:0",
                "merge: #rank and its parts",
            )
        )
        items.append(
            (f"background:{TUPLE_STYLE[0]};border:3px solid {TUPLE_STYLE[1]};border-radius:0", "tuple merge (3+ parts)")
        )
    else:
        items.append((f"background:{TUPLE_EDGE};height:4px;border:0", "arrow of a tuple merge (3+ parts)"))
    if alternatives:
        items.append(
            (
                f"background:{ALT_STYLE[0]};border:2px dashed {ALT_STYLE[1]};border-radius:0",
                "alt: an alternative merge (the type's own string is formed by its primary merge)",
            )
        )
    if comparing:
        text = (
            "new: not in the tokeniser before (dashed)"
            if other_is_before
            else "out: knocked out, gone after the edit (dashed)"
        )
        items.append((f"background:#fff;border:3px dashed {ABSENT_COLOUR}", text))
        items.append(
            (f"background:#fff;border:3px dotted {ABSENT_COLOUR}", "re-formed: same type, other merge (dotted)")
        )
    return items
