"""What an edit changed, word by word: the types whose merges a step touched, the words two
tokenisers segment differently, and the words whose merge tree changed although their tokens did
not ([rebpe App. A.1] scenario 2a: knockout turns ``_bru+ids`` into the triplet ``_bru+id+s``);
and the merges around a type ([knockout §3.1]). The stepper and the reparation views show them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from core.bpe.model import BTETokeniser, Merge
from core.counting.pretoken_index import PretokenIndex
from core.edits.steps import StepReport
from core.errors import InputError

AFFECTED_LIMIT = 200
MAX_SCAN = 20_000


def touched_types(step: StepReport | None) -> list[str]:
    """Types whose merge the step changed: removed, then added, then rewired (rank order)."""
    if step is None:
        return []
    out = dict.fromkeys(m.result for m in step.removed)
    out.update(dict.fromkeys(m.result for m in step.added))
    out.update(dict.fromkeys(after.result for _, after in sorted(step.rewired, key=lambda p: p[1].rank)))
    return list(out)


def affected_words(
    before: BTETokeniser,
    after: BTETokeniser,
    words: Iterable[str],
    changed_words: Iterable[tuple] = (),
    *,
    touched: Iterable[str] | None = None,
    limit: int | None = AFFECTED_LIMIT,
    max_scan: int = MAX_SCAN,
) -> list[str]:
    """Words whose tree changed: first those whose tokens changed, then those whose merge tree changed
    although their tokens did not (e.g. [rebpe App. A.1] scenario 2a, where knockout turns
    ``_bru+ids`` into the triplet ``_bru+id+s``). A tree changed when some character boundary is
    removed by another merge (compared with the light boundary trace). At most ``limit`` words
    (None: all); at most ``max_scan`` words are traced.

    ``touched``: the types whose merges the edit changed (:func:`touched_types`). A merge can only
    fire where its whole string occurs, so only words with a pretoken containing one of them are
    traced (:class:`core.counting.pretoken_index.PretokenIndex`).
    """
    most = math.inf if limit is None else limit
    out = list(dict.fromkeys(w for w, *_ in changed_words))[:limit]
    if before is after or len(out) >= most:
        return out
    seen = set(out)
    candidates: list[tuple[str, list[str]]] = []
    for n, word in enumerate(words):
        if n >= max_scan:
            break
        if word in seen:
            continue
        try:
            candidates.append((word, before.pretokeniser.pretokenise(" " + word)))
        except InputError:
            continue
    if touched is not None:
        index = PretokenIndex(pretokens for _, pretokens in candidates)
        candidates = [candidates[i] for i in sorted(index.containing_any(touched))]
    for word, pretokens in candidates:
        if len(out) >= most:
            break
        if any(before.engine.boundary_trace(p)[1] != after.engine.boundary_trace(p)[1] for p in pretokens):
            out.append(word)
    return out


def segmentation_changes(
    before: BTETokeniser, after: BTETokeniser, words: Iterable[str], limit: int | None = None
) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(word, tokens before, tokens after) for the words the two tokenisers segment differently."""
    out = []
    for word in words:
        try:
            old, new = tuple(before.tokenise_word(word)), tuple(after.tokenise_word(word))
        except InputError:
            continue
        if old != new:
            out.append((word, old, new))
            if limit is not None and len(out) >= limit:
                break
    return out


def merges_around(tokeniser: BTETokeniser, type_: str) -> tuple[tuple[Merge, ...], tuple[Merge, ...]]:
    """M_i(type) and M_o(type) ([knockout §3.1]): the merges forming it and those using it as a part.
    Uses the tokeniser's indexes when they are built already; otherwise one scan of the merge list
    (building both indexes of a 40k tokeniser for one look-up takes ~0.4 s, and every step of a run
    is a new tokeniser)."""
    if "produced_by" in tokeniser.__dict__ and "used_by" in tokeniser.__dict__:
        return tokeniser.produced_by.get(type_, ()), tokeniser.used_by.get(type_, ())
    formed, used = [], []
    size = len(type_)
    for merge in tokeniser.merges:
        parts = merge.parts
        if type_ in parts:
            used.append(merge)
        elif type_.startswith(parts[0]) and sum(map(len, parts)) == size and "".join(parts) == type_:
            formed.append(merge)
    return tuple(formed), tuple(used)
