"""Figures that render inline in Jupyter: a trace, a merge tree, a merge graph, a Unigram lattice.

Every ``show_*`` returns a small object that Jupyter displays through its ``_repr_svg_`` or
``_repr_html_`` (no IPython needed); ``str(figure)`` is the markup, to save or embed. They draw
with the explorer's own builders (:mod:`viz.trace_views`, :mod:`viz.trees`, :mod:`viz.graph_svg`,
:mod:`viz.lattice`), so a figure is the page's figure: standalone, every token escaped, nothing
loaded from the network. Tokens are shown in their readable form (the tokeniser's ``display``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from core.analysis.explain import trace_word, word_boundaries
from core.bpe.graph import PRIMARY, neighbourhood
from core.errors import InputError, excerpt
from core.tokeniser import Tokeniser, require
from core.trace import Trace
from viz.graph_search import resolve_type, similar_types, type_labels
from viz.graph_style import TYPES_VIEW
from viz.graph_svg import graph_svg
from viz.lattice import lattice_svg
from viz.tokeniser_info import markers
from viz.trace_views import trace_html
from viz.trees import merge_tree_svg


@dataclass(frozen=True)
class Figure:
    """Standalone markup; ``str(figure)`` is the markup itself."""

    markup: str

    def __str__(self) -> str:
        return self.markup


class SVGFigure(Figure):
    """An SVG document, which Jupyter draws inline."""

    def _repr_svg_(self) -> str:
        return self.markup


class HTMLFigure(Figure):
    """An HTML fragment (inline styles only), which Jupyter shows inline."""

    def _repr_html_(self) -> str:
        return self.markup


def show_trace(trace: Trace, tokeniser: Tokeniser | None = None, *, max_events: int = 60) -> HTMLFigure:
    """A trace (``tokeniser.trace_text(text)``, any family): the initial atoms, then every operation
    with the tokens right after it (the last ``max_events``). With the ``tokeniser`` that made it,
    tokens are shown readably (bytes decoded) with their word-start markers faded."""
    if tokeniser is None:
        return HTMLFigure(trace_html(trace, max_events=max_events))
    pretokeniser = tokeniser.pretokeniser
    return HTMLFigure(trace_html(trace, pretokeniser.display, markers=markers(pretokeniser), max_events=max_events))


def show_tree(
    tokeniser: Tokeniser, word: str, *, reference: Iterable[int] | None = None, highlight: Collection = ()
) -> SVGFigure:
    """The merge trees of ``word`` as it appears in running text (a tokeniser with a merge graph):
    characters at the leaves, one box per merge with its rank. ``reference``: split positions in
    the word (``entry.boundaries()`` of a :class:`core.references.files.ReferenceEntry`), drawn
    as red dashed lines, with a red border on a merge that removed one ([knockout §3.4] blame);
    ``highlight``: merges or token strings to border in blue."""
    graph = require(tokeniser, "merge_graph", "show_tree")
    traced = trace_word(graph, word)
    blamed = {(b.pretoken, b.offset) for b in word_boundaries(traced, reference) if b.reference}
    return SVGFigure(
        merge_tree_svg(
            [(t.pretoken, t.trees) for t in traced.traces],
            graph.pretokeniser.display,
            reference=blamed,
            caption=f"segmentation tree of {word}",
            highlight=highlight,
        )
    )


def show_graph(
    tokeniser: Tokeniser,
    type: str,
    depth: int = 2,
    *,
    view: str = TYPES_VIEW,
    max_nodes: int = 60,
    follow: str = PRIMARY,
    after: Tokeniser | None = None,
) -> SVGFigure:
    """The merge-graph neighbourhood of ``type`` ([knockout Fig. 1]; ``view="types and merges"``:
    Fig. 11): ancestors and descendants up to ``depth`` merges away and half-siblings, at most
    ``max_nodes`` types. ``type`` is the type string, its readable form, or a word whose
    word-start type it is (``bruids`` for ``Ġbruids``). ``follow``: ``primary`` or ``all`` merges.
    With ``after`` (the tokeniser after an edit), merges it no longer has are marked knocked out."""
    graph = require(tokeniser, "merge_graph", "show_graph")
    labels = type_labels(graph)
    center, _ = resolve_type(graph, type, labels)
    if center is None:
        close = similar_types(labels, type, limit=5)
        hint = f"; similar types: {', '.join(labels[t] for t in close)}" if close else ""
        raise InputError(f"type {excerpt(type)} is not in the vocabulary{hint}")
    hood = neighbourhood(graph, center, depth=depth, max_nodes=max_nodes, follow=follow)
    other = None if after is None else require(after, "merge_graph", "show_graph(after=...)")
    named = getattr(after, "name", "")
    label = named if named and named != getattr(tokeniser, "name", "") else "the tokeniser after the edit"
    return SVGFigure(graph_svg(graph, hood, view, other=other, other_label=label))


def show_lattice(tokeniser: Tokeniser, word: str, *, pretoken: int = 0) -> SVGFigure:
    """The lattice a Unigram tokeniser searches for ``word`` as it appears in running text (its
    ``pretoken``-th pretoken): every candidate piece with its log p, the Viterbi path, and the
    probability of a token boundary at each gap ([unigram §3.2])."""
    lattice_of = getattr(tokeniser, "lattice", None)
    if not callable(lattice_of):
        raise InputError(f"show_lattice needs a Unigram tokeniser, not a {tokeniser.kind} one")
    pretokens = [p for p in tokeniser.pretokeniser.pretokenise(" " + word) if p]
    if not -len(pretokens) <= pretoken < len(pretokens):
        raise InputError(f"{excerpt(word)} has {len(pretokens)} pretoken(s); pretoken {pretoken} does not exist")
    return SVGFigure(lattice_svg(lattice_of(pretokens[pretoken]), tokeniser.pretokeniser.display))
