"""Choosing the type at the centre of the merge graph: the default one, the labels people see and
the URL carries, suggestions for a string that is no type, and what a (URL) value names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping

from core.bpe.model import BTETokeniser
from core.errors import InputError
from viz.tokens import code_points
from viz.tokens import drawn as shown

DEFAULT_TYPES = ("Ġbruids", "_bruids", "▁bruids")  # the paper's case ([knockout Fig. 1])


def default_type(tokeniser: BTETokeniser) -> str | None:
    """The paper's ``Ġbruids`` / ``_bruids`` if present, else the longest type containing "ids"
    (lowest rank among equals), else the last merge's result, else the first alphabet symbol."""
    types = tokeniser.types
    for candidate in DEFAULT_TYPES:
        if candidate in types:
            return candidate
    rank = {m.result: i for i, m in enumerate(tokeniser.merges)}
    with_ids = [t for t in types if "ids" in t]
    if with_ids:
        return min(with_ids, key=lambda t: (-len(t), rank.get(t, -1), t))
    if tokeniser.merges:
        return tokeniser.merges[-1].result
    return tokeniser.alphabet[0] if tokeniser.alphabet else None


def word_type(tokeniser: BTETokeniser, word: str | None) -> str | None:
    """The type to centre on for a word being debugged: the longest token the word segments into
    that a merge forms (None when no token of it is formed by a merge, or no word is given)."""
    if not word:
        return None
    formed = [t for t in tokeniser.tokenise_word(word) if t in tokeniser.produced_by]
    return max(formed, key=len, default=None)


def type_labels(tokeniser: BTETokeniser, display: Callable[[str], str] | None = None) -> dict[str, str]:
    """type -> the label people see (and the URL carries): the readable form of
    :func:`viz.tokens.shown`, made unique with the code points where two types read alike."""
    display = display or tokeniser.pretokeniser.display
    labels = {t: shown(t, display) for t in tokeniser.types}
    seen: dict[str, int] = defaultdict(int)
    for label in labels.values():
        seen[label] += 1
    return {t: (label if seen[label] == 1 else f"{label} [{code_points(t)}]") for t, label in labels.items()}


def similar_types(labels: Mapping[str, str], text: str, limit: int = 8) -> list[str]:
    """Up to ``limit`` types whose label contains ``text`` (case-insensitive), shortest first: the
    suggestions next to "not a type"."""
    needle = (text or "").strip().casefold()
    if not needle:
        return []
    found = [t for t, label in labels.items() if needle in label.casefold()]
    return sorted(found, key=lambda t: (len(labels[t]), labels[t]))[:limit]


def resolve_type(tokeniser: BTETokeniser, text: str | None, labels: Mapping[str, str]) -> tuple[str | None, str]:
    """The type a (URL) value names and how: ``"label"`` (its readable form as the type selector
    shows it and the URL carries it, e.g. ``é`` for the byte-level ``Ã©``), ``"exact"`` (the raw
    type string), ``"word start"`` (``bruids`` -> ``Ġbruids``, through the tokeniser's own
    pre-tokeniser), or ``(None, "")``."""
    if not isinstance(text, str) or not text or len(text) > 200:
        return None, ""
    by_label = {label: t for t, label in labels.items()}
    if text in by_label:  # first: the URL carries what the type selector shows
        return by_label[text], "label"
    if text in tokeniser.types:
        return text, "exact"
    try:
        pretokens = tokeniser.pretokeniser.pretokenise(" " + text)
    except InputError:  # a string the pre-tokeniser refuses names no type
        pretokens = []
    if len(pretokens) == 1 and pretokens[0] in tokeniser.types:
        return pretokens[0], "word start"
    return None, ""
