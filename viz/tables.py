"""Rows for the tables of the explorer: plain dicts of readable strings (pure, no Streamlit).

Tokens are shown in their readable form (:func:`viz.tokens.shown`): bytes decoded, whitespace and
control characters visible. A readable token never contains a space, so token sequences are
joined with single spaces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from viz.ranks import rank_text
from viz.tokens import shown


def _identity(text: str) -> str:
    return text


def merge_rows(
    traces: Sequence,
    display: Callable[[str], str] = lambda t: t,
    fmt: Callable[[str], str] = _identity,
    *,
    tuple_column: bool = True,
    ids: Mapping[str, int] | None = None,
) -> list[dict]:
    """One row per applied merge over the pretokens of a word, in the order they fired.

    ``traces`` are :class:`core.bpe.segmentation.SegmentationTrace` objects (one per pretoken). With
    more than one pretoken a ``pretoken`` column says which one a merge acted in, and ``tokens
    after`` shows that pretoken's tokens. ``fmt`` wraps every readable token (e.g.
    :func:`viz.tokens.code_span` for ``st.table``, whose cells are markdown).
    ``tuple_column=False`` leaves out the ``tuple merge`` column (for tokenisers without tuple
    merges, where it would always be empty). With ``ids`` (token -> id) an ``id`` column gives the
    result's token id beside the merge's rank.
    """

    def tokens(seq: Iterable[str], sep: str) -> str:
        return sep.join(fmt(shown(t, display)) for t in seq)

    several = len(traces) > 1
    rows = []
    for trace in traces:
        for step in trace.steps:
            row: dict = {"step": len(rows) + 1}
            if several:
                row["pretoken"] = tokens([trace.pretoken], "")
            row["rank"] = rank_text(step.merge.rank)
            row["merge"] = tokens(step.merge.parts, " + ")
            row["result"] = tokens([step.merge.result], "")
            if ids is not None:
                row["id"] = str(ids.get(step.merge.result, ""))
            if tuple_column:
                row["tuple merge"] = "yes" if step.merge.is_tuple else ""
            row["tokens after"] = tokens(step.tokens, " ")
            rows.append(row)
    return rows


def with_ids(rows: Sequence[dict], tokens: Sequence[str], ids: Mapping[str, int], after: str) -> list[dict]:
    """``rows`` with an ``id`` column (the id of ``tokens[i]`` in row i, blank if it has none) right
    after the column ``after``, so a token's id stands beside the merge rank in the same row."""
    out = []
    for row, token in zip(rows, tokens, strict=True):
        new: dict = {}
        for key, value in row.items():
            new[key] = value
            if key == after:
                new["id"] = str(ids.get(token, ""))
        out.append(new)
    return out


def scenario_rows(
    metadata: Mapping,
    segment: Callable[[str], Iterable[str]],
    display: Callable[[str], str] = lambda t: t,
    fmt: Callable[[str], str] = _identity,
) -> list[dict]:
    """The segmentations a scenario's paper states, next to what this tokeniser gives.

    ``metadata["words"]`` holds ``{"word", "before", "after"}`` entries; ``segment`` tokenises a
    word with the tokeniser on screen (the "before knockout" one); ``fmt`` as in :func:`merge_rows`.
    """

    def tokens(seq: Iterable[str]) -> str:
        return " ".join(fmt(shown(str(t), display)) for t in seq)

    rows = []
    for entry in metadata.get("words", ()):
        word = str(entry.get("word", ""))
        rows.append(
            {
                "word": fmt(shown(word)),
                "paper: before knockout": tokens(entry.get("before", ())),
                "paper: after knockout": tokens(entry.get("after", ())),
                "this tokeniser": tokens(segment(word)),
            }
        )
    return rows


def rejection_rows(rejected: Sequence, limit: int = 500) -> list[dict]:
    """One row per rejected reference line (:class:`core.references.files.Rejection`): where,
    what the line said and why it was rejected."""
    return [
        {"line": r.line, "text": r.text if len(r.text) <= 80 else r.text[:77] + "...", "reason": r.reason}
        for r in list(rejected)[:limit]
    ]


def reference_rows(entries: Sequence, limit: int = 8, fmt: Callable[[str], str] = _identity) -> list[dict]:
    """The first reference entries: the word, its morphs and (when known) its compound parts;
    ``fmt`` as in :func:`merge_rows`, applied to each word and morph."""
    rows = []
    for entry in list(entries)[:limit]:
        row = {"word": fmt(entry.word), "morphs": " ".join(map(fmt, entry.morphs))}
        row["compound parts"] = " ".join(map(fmt, entry.free_morphs)) if entry.free_morphs is not None else "(unknown)"
        rows.append(row)
    return rows
