"""Merge ranks for people: integers only, and labelled beside token ids (:func:`id_rank_text`).

Reification ([rebpe §3.3, Alg. 2]) ranks a new submerge just below the tuple merge it serves
(rank ``r - k·ε``, e.g. ``8358.999`` for ``r = 8359``); the engine keeps that fraction so the order is
exact, but a person reads "before #8359", with the reason on hover (:func:`rank_help`).
"""

from __future__ import annotations

import math


def is_between(rank) -> bool:
    """Whether ``rank`` lies between two integer ranks (a merge placed by reification)."""
    return isinstance(rank, float) and not rank.is_integer()


def rank_text(rank) -> str:
    """``#1234`` for an integer rank, ``before #8359`` for a rank just below 8359."""
    if is_between(rank):
        return f"before #{math.ceil(rank)}"
    return f"#{int(rank)}"


def id_rank_text(token_id: int | None, rank) -> str:
    """``id 4037 · merge #9702``: a token's id beside the rank of the merge forming it, each labelled,
    so that neither is read as the other (``merge #9702`` alone when the id is unknown)."""
    merge = f"merge {rank_text(rank)}"
    return merge if token_id is None else f"id {token_id} · {merge}"


def rank_help(rank) -> str | None:
    """What a ``before #N`` rank means (None for an integer rank)."""
    if not is_between(rank):
        return None
    return (
        f"Reification placed this merge just before merge #{math.ceil(rank)}, the tuple merge whose parts it "
        f"forms, so it fires first (engine rank {rank:.6g}: rank minus a multiple of ε, [rebpe §3.3])."
    )


#: Help for a table's rank column (``st.column_config.TextColumn(help=...)``).
COLUMN_HELP = (
    'Merge rank: merges fire in rank order, lowest first. "before #N": a merge reification placed just '
    "before the tuple merge #N whose parts it forms, so it fires first ([rebpe §3.3])."
)
