"""Blocked merges: merges that can never apply, and the types they make unreachable.

Implements the test behind ReBPE's *reparation* (rebpe.txt §3.1 and Alg. 2, lines 7-8) and the
analysis of rebpe.txt App. A.1 (scenarios 2b(i), 2b(ii) and the 3a cascade) and App. A.3 (moving
merges can block merges), as a read-only diagnosis: nothing is repaired here.

Definition (rebpe.txt §3.1, App. A.1 "ReBPE" paragraphs)
---------------------------------------------------------
A merge ``m`` with result ``s`` (in the model's own alphabet, e.g. ``"_bruids"`` or ``"Ġbruids"``)
is *blocked* when it can never apply to any input. ReBPE tests this with
``LIMITEDBPE(s, rank(m))``: segment ``s`` with only the merges ranked strictly below ``m``; if the
result is not exactly ``m.parts``, ``m`` cannot fire on ``s``, and by the context-freeness
argument of rebpe.txt App. A.2 it then cannot fire in any word either (wherever ``m`` fires, the
span of ``s`` was merged as if it stood alone). Every merge is tested, binary ones included
(App. A.3 blocks moved binary merges).

:func:`is_blocked` makes the test exact for *every* merge list:

1. fast path: if the full segmentation of ``s`` is ``[s]`` and ``m`` is the only merge forming
   ``s``, then ``m`` fired on ``s``: not blocked (one plain segmentation; for binary BPE this is
   the engine's fast binary loop, which settles every merge of a trained tokeniser);
2. otherwise LIMITEDBPE: ``LIMITEDBPE(s, rank(m)) == m.parts`` means ``m`` fires next: not blocked;
3. otherwise ``m`` is blocked iff it is absent from the full trace of ``s``.

Step 3 only differs from ReBPE's plain test for merge lists out of training order, where a part
of ``m`` is formed by a merge ranked *after* ``m`` (the engine, like HF's, then still applies
``m`` as soon as its parts meet, e.g. ``ab+c`` at rank 0 with ``a+b`` at rank 1 turns ``abc``
into ``[abc]``), or where a type has two merges (App. A.2). For lists in which every part is
formed before it is used by a single merge — BPE, BPE-knockout and ReBPE's own lists — the two
tests agree, which the tests check on random lists.

Unreachable types
-----------------
A type of V is *unreachable* when no input produces it as a token: it is not in the alphabet
and every merge forming it is blocked. Cascades come out by themselves: a merge with an
unreachable part can never see that part, so it is blocked too, and so on downstream (App. A.1,
scenario 3a: ``i+d+s`` blocked makes ``_bru+ids`` and ``_bruids`` unreachable).

Classification (``BlockedMerge.scenario``), checked in this order
-----------------------------------------------------------------
Let ``P`` be the character offsets inside ``s`` where ``m.parts`` put a boundary and ``L`` those
of the limited tokens ``LIMITEDBPE(s, rank(m))``. A part boundary in ``P`` but not in ``L`` is
*crossed* (a limited token spans it), one in both is *kept*.

- ``"3 (cascade)"``: some part of ``m`` is an unreachable type (App. A.1 scenario 3a).
  ``blocked_ancestor`` is the blocked merge forming the first such part.
- ``"other"``: the limited tokens are ``[s]`` itself (an earlier merge already forms the type,
  App. A.2), or no part boundary is crossed (the limited tokens only cut parts finer: a part is
  not yet formed at ``m``'s turn, e.g. App. A.3's delayed ``abc+d``), or a part is not a type.
- ``"2b(i)"``: at least one part boundary is crossed *and* at least one is kept. A competing
  merge took a token across a boundary of ``m`` before ``m``'s turn while the parts beyond a
  kept boundary were left aside, "ignored" (App. A.1 case (i): ``[_bruid, s]`` and
  ``[_br, uid, s]`` against ``[_bru, id, s]``: the ``s`` lies around unused).
- ``"2b(ii)"``: every part boundary is crossed: merges recruited material from every part into
  tokens that straddle ``m``'s boundaries, so no part boundary survives (App. A.1 case (ii):
  ``uid+s`` recruits the ``s`` into ``[_br, uids]``; App. A.3: ``b+c`` steals the ``c`` of
  ``b+cd``, giving ``[bc, d]``). A blocked binary merge whose boundary is crossed is always (ii).

``blocking_merge`` is the first merge, in application order, of the limited trace of ``s`` whose
application joins two characters that ``m.parts`` keep in different parts (None when no limited
merge crosses a part boundary, and always None for cascades).
"""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable

from core.errors import InputError
from core.model import BTETokeniser, Merge

CASCADE = "3 (cascade)"
IGNORED = "2b(i)"
RECRUITED = "2b(ii)"
OTHER = "other"
SCENARIOS = (IGNORED, RECRUITED, CASCADE, OTHER)


def _merge_json(merge: Merge | None) -> dict | None:
    if merge is None:
        return None
    return {"merge": str(merge), "rank": merge.rank, "parts": list(merge.parts), "result": merge.result}


@dataclass(frozen=True)
class BlockedMerge:
    """One merge that can never apply (rebpe.txt §3.1, App. A.1 scenarios 2b and 3, App. A.3)."""

    merge: Merge
    #: LIMITEDBPE(result, rank): what is found at the merge's turn instead of its parts.
    limited_tokens: tuple[str, ...]
    #: "2b(i)", "2b(ii)", "3 (cascade)" or "other" (rules in the module docstring).
    scenario: str
    #: The first limited merge that joins characters across a part boundary (None for cascades).
    blocking_merge: Merge | None
    #: For cascades: the blocked merge forming the unreachable part.
    blocked_ancestor: Merge | None
    explanation: str
    example_word: str | None = None

    def to_json(self) -> dict:
        return {
            **_merge_json(self.merge),
            "limited_tokens": list(self.limited_tokens),
            "scenario": self.scenario,
            "blocking_merge": _merge_json(self.blocking_merge),
            "blocked_ancestor": _merge_json(self.blocked_ancestor),
            "explanation": self.explanation,
            "example_word": self.example_word,
        }


@dataclass(frozen=True)
class BlockedReport:
    """All blocked merges of a tokeniser (rank order) and the types nothing can produce."""

    blocked: tuple[BlockedMerge, ...]
    #: Types of V never produced as a token (formed only by blocked merges), by producer rank.
    unreachable_types: tuple[str, ...]

    def by_scenario(self) -> dict[str, int]:
        counts = {name: 0 for name in SCENARIOS}
        for entry in self.blocked:
            counts[entry.scenario] += 1
        return counts

    def to_json(self) -> dict:
        return {
            "blocked": [b.to_json() for b in self.blocked],
            "unreachable_types": list(self.unreachable_types),
            "counts": self.by_scenario(),
        }


# --- the test -----------------------------------------------------------------------------------
def _full_segmentation(tokeniser: BTETokeniser, pretoken: str) -> tuple[str, ...]:
    """All merges applied, never HF's ``ignore_merges`` whole-pretoken shortcut."""
    if tokeniser.ignore_merges:
        return tokeniser.segment_limited(pretoken, math.inf)
    return tokeniser.engine.segment_uncached(pretoken)


def _check_member(tokeniser: BTETokeniser, merge: Merge) -> None:
    if merge not in tokeniser.merge_index:
        raise InputError(f"merge '{merge}' (rank {merge.rank}) is not in tokeniser {tokeniser.name!r}")


def _is_blocked(tokeniser: BTETokeniser, merge: Merge) -> bool:
    s = merge.result
    if len(tokeniser.produced_by.get(s, ())) == 1 and _full_segmentation(tokeniser, s) == (s,):
        return False  # s became one token, and only this merge forms s: it fired
    if tokeniser.segment_limited(s, merge.rank) == merge.parts:
        return False  # LIMITEDBPE presents exactly the parts: this merge fires next
    return merge not in tokeniser.trace_pretoken(s, max_rank=math.inf).merges_applied


def is_blocked(tokeniser: BTETokeniser, merge: Merge) -> bool:
    """True when ``merge`` can never apply to any input (rebpe.txt §3.1, exact; see module doc)."""
    _check_member(tokeniser, merge)
    return _is_blocked(tokeniser, merge)


# --- classification -----------------------------------------------------------------------------
def _boundaries(tokens: Iterable[str]) -> list[int]:
    """Internal character offsets where one token ends and the next begins."""
    out, offset = [], 0
    for token in tokens:
        offset += len(token)
        out.append(offset)
    return out[:-1]


def _show(tokens: Iterable[str]) -> str:
    return "[" + ", ".join(tokens) + "]"


def _crossing_merges(tokeniser: BTETokeniser, merge: Merge) -> list[Merge]:
    """Merges of the limited trace of the result, in order, that join across a part boundary."""
    part_bounds = _boundaries(merge.parts)
    out = []
    for step in tokeniser.trace_pretoken(merge.result, max_rank=merge.rank).steps:
        start, end = step.start, step.start + len(step.merge.result)
        if any(start < b < end for b in part_bounds):
            out.append(step.merge)
    return out


def _describe(tokeniser: BTETokeniser, merge: Merge, limited: tuple[str, ...], unreachable: set[str],
              blocked_producer: dict[str, Merge]) -> tuple[str, Merge | None, Merge | None, str]:
    """(scenario, blocking_merge, blocked_ancestor, explanation) of a blocked merge."""
    name, s = f"'{merge}'", merge.result
    found = f"'{s}' is segmented {_show(limited)} instead of {_show(merge.parts)}"
    # 3: cascade from a blocked merge upstream
    for part in merge.parts:
        if part in unreachable:
            ancestor = blocked_producer[part]
            root = ancestor
            while True:
                upstream = next((p for p in root.parts if p in unreachable), None)
                if upstream is None:
                    break
                root = blocked_producer[upstream]
            because = f"'{ancestor}' is blocked" if root == ancestor else \
                f"'{ancestor}' is blocked in turn because '{root}' is"
            return (CASCADE, None, ancestor,
                    f"{name} can never apply because its part '{part}' is never formed: {because}, "
                    "so the blockage cascades downstream (rebpe.txt App. A.1, scenario 3a).")
    crossing = _crossing_merges(tokeniser, merge)
    blocking = crossing[0] if crossing else None
    part_bounds = _boundaries(merge.parts)
    limited_bounds = set(_boundaries(limited))
    kept = [b for b in part_bounds if b in limited_bounds]
    crossed = [b for b in part_bounds if b not in limited_bounds]
    # other: the type is made earlier by another merge, or a part is missing, or not yet formed
    if limited == (s,):
        return (OTHER, blocking, None,
                f"{name} can never apply: before its turn '{blocking}' already forms '{s}', and only one merge "
                "ever forms a type (rebpe.txt App. A.2).")
    missing = [p for p in merge.parts if p not in tokeniser.types]
    if missing:
        return (OTHER, blocking, None,
                f"{name} can never apply: its part(s) {', '.join(map(repr, missing))} are not types of the "
                f"vocabulary, and {found}.")
    if not crossed:
        unformed = [p for p, seg in zip(merge.parts, _split_as(limited, merge.parts)) if len(seg) > 1]
        later = [q for p in unformed for q in tokeniser.produced_by.get(p, ()) if q.rank > merge.rank]
        why = (f", being formed only later by {', '.join(repr(str(q)) for q in later)}" if later else "")
        return (OTHER, None, None,
                f"{name} can never apply: at its turn its part(s) {', '.join(map(repr, unformed))} are not yet "
                f"formed{why}, and the whole string ends up as {_show(_full_segmentation(tokeniser, s))} "
                "(rebpe.txt App. A.3, moved merges).")
    if kept:
        return (IGNORED, blocking, None,
                f"{name} can never apply: before its turn '{blocking}' takes a token across one of its part "
                f"boundaries, so {found} and the rest is left aside (rebpe.txt App. A.1, scenario 2b(i)).")
    recruit = crossing[-1] if crossing and crossing[-1] != blocking else None
    then = f" and then '{recruit}' recruits across the rest" if recruit else ""
    return (RECRUITED, blocking, None,
            f"{name} can never apply: before its turn '{blocking}' joins material across its part "
            f"boundaries{then}, so {found} with no part boundary left (rebpe.txt App. A.1, scenario 2b(ii)).")


def _split_as(tokens: tuple[str, ...], parts: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Group ``tokens`` by the part each lies in (only valid when no token crosses a part)."""
    groups, i = [], 0
    for part in parts:
        group, length = [], 0
        while length < len(part) and i < len(tokens):
            group.append(tokens[i])
            length += len(tokens[i])
            i += 1
        groups.append(tuple(group))
    return groups


# --- example words ------------------------------------------------------------------------------
class _WordIndex:
    """Pretokens of reference words, searchable by substring with one ``str.find`` per query."""

    SEP = "\x00"

    def __init__(self, tokeniser: BTETokeniser, words: Iterable[str]):
        self.words: list[str] = []
        self.exact: dict[str, int] = {}
        pieces, starts, offset = [], [], 0
        for word in words:
            index = len(self.words)
            self.words.append(word)
            for pretoken in tokeniser.pretokeniser.pretokenise(" " + word):
                self.exact.setdefault(pretoken, index)
                pieces.append(pretoken)
                starts.append((offset, index))
                offset += len(pretoken) + 1
        self.text = self.SEP.join(pieces)
        self.offsets = [o for o, _ in starts]
        self.owner = [i for _, i in starts]

    def example(self, s: str) -> str | None:
        if s in self.exact:
            return self.words[self.exact[s]]
        if self.SEP in s:
            return None
        at = self.text.find(s)
        if at < 0:
            return None
        return self.words[self.owner[bisect_right(self.offsets, at) - 1]]


# --- the scan -----------------------------------------------------------------------------------
def find_blocked_merges(tokeniser: BTETokeniser, reference_words: Iterable[str] | None = None) -> BlockedReport:
    """Every blocked merge, classified, and the unreachable types (rebpe.txt §3.1, App. A.1, A.3).

    With ``reference_words`` (plain words, pre-tokenised as :meth:`BTETokeniser.tokenise_word`
    does), each blocked merge gets the first word with a pretoken equal to its result, or else
    the first whose pretoken contains it.
    """
    blocked = [m for m in tokeniser.merges if _is_blocked(tokeniser, m)]
    dead = set(blocked)
    alphabet = set(tokeniser.alphabet)
    unreachable: dict[str, Merge] = {}
    for merge in blocked:  # rank order, so the first producer is the lowest-ranked one
        s = merge.result
        if s not in alphabet and s not in unreachable and all(p in dead for p in tokeniser.produced_by[s]):
            unreachable[s] = merge
    index = _WordIndex(tokeniser, reference_words) if reference_words is not None else None
    entries = []
    for merge in blocked:
        limited = tokeniser.segment_limited(merge.result, merge.rank)
        scenario, blocking, ancestor, explanation = _describe(tokeniser, merge, limited, set(unreachable), unreachable)
        entries.append(BlockedMerge(merge, limited, scenario, blocking, ancestor, explanation,
                                    index.example(merge.result) if index is not None else None))
    return BlockedReport(tuple(entries), tuple(unreachable))
