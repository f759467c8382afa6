"""Blocked merges: merges that can never apply, and the types they make unreachable.

Implements the test behind ReBPE's *reparation* ([rebpe §3.1 and Alg. 2, lines 7-8]) and the
analysis of [rebpe App. A.1] (scenarios 2b(i), 2b(ii) and the 3a cascade) and App. A.3 (moving
merges can block merges), as a read-only diagnosis: nothing is repaired here.

Definition ([rebpe §3.1, App. A.1] "ReBPE" paragraphs)
---------------------------------------------------------
A merge ``m`` with result ``s`` (in the model's own alphabet, e.g. ``"_bruids"`` or ``"Ġbruids"``)
is *blocked* when it can never apply to any input. ReBPE tests this with
``LIMITEDBPE(s, rank(m))``: segment ``s`` with only the merges ranked strictly below ``m``; if the
result is not exactly ``m.parts``, ``m`` cannot fire on ``s``, and by the context-freeness
argument of [rebpe App. A.2] it then cannot fire in any word either (wherever ``m`` fires, the
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

Several merges per type: alternatives
-------------------------------------
Converted tiktoken and SentencePiece files list every split of a type into two types. Only the
*primary* merge (the one that fires on the type's own string) ever forms it (App. A.2); the others
never fire but are not blocked merges in the paper's sense: they are *alternatives*, reported as a
count with examples (``BlockedReport.alternatives``). A merge is listed as blocked only when no
merge forms its type from the type's own string. With one merge per type ([knockout §3.1])
there are no alternatives and the blocked merges are exactly those of the paper's test. Which merge
forms each type is decided for all types at once by :class:`_Forming` (a certificate per type,
BPE run only where the certificate does not apply), equal to ``engine.forming_merge`` type by type.

Unreachable types
-----------------
A type of V is *unreachable* when no input produces it as a token: it is not in the alphabet,
every merge forming it is blocked, and (under ``ignore_merges``) its own text is not emitted whole
as one pretoken (those are ``whole_only_types``: reachable). Cascades come out by themselves: a merge with an
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

What reparation leaves blocked
------------------------------
Reparation ([rebpe Alg. 2 lines 2-15]) gives every *tuple* merge the tokens LIMITEDBPE finds at
its turn. :func:`still_blocked_causes` sorts the merges a scan still finds blocked afterwards by
why (:data:`STILL_BLOCKED`): binary merges are never rewritten, whether blocked since knockout, or
once a cascade whose part is formed again but not inside their own string, or newly blocked
because a repair changed what fires there (the converse problem of App. A.3); cascades from
those; and, in the authors' *undo* mode, tuple merges repaired with parts that earlier repairs
made out of date, or left as they were.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from heapq import nsmallest
from itertools import groupby
from operator import attrgetter

from core.bpe.model import BTETokeniser, Merge, Rank
from core.counting.pretoken_index import PretokenIndex
from core.errors import InputError
from core.gc_pause import cyclic_gc_paused
from core.trace import traceable_pretoken

CASCADE = "3 (cascade)"
IGNORED = "2b(i)"
RECRUITED = "2b(ii)"
OTHER = "other"
SCENARIOS = (IGNORED, RECRUITED, CASCADE, OTHER)


def _merge_fields(merge: Merge) -> dict:
    return {"merge": str(merge), "rank": merge.rank, "parts": list(merge.parts), "result": merge.result}


def _merge_json(merge: Merge | None) -> dict | None:
    return None if merge is None else _merge_fields(merge)


@dataclass(frozen=True)
class BlockedMerge:
    """One merge that can never apply ([rebpe §3.1, App. A.1] scenarios 2b and 3, App. A.3)."""

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
            **_merge_fields(self.merge),
            "limited_tokens": list(self.limited_tokens),
            "scenario": self.scenario,
            "blocking_merge": _merge_json(self.blocking_merge),
            "blocked_ancestor": _merge_json(self.blocked_ancestor),
            "explanation": self.explanation,
            "example_word": self.example_word,
        }


# --- the test -----------------------------------------------------------------------------------
def _check_member(tokeniser: BTETokeniser, merge: Merge) -> None:
    if merge not in tokeniser.merge_index:
        raise InputError(f"merge '{merge}' (rank {merge.rank}) is not in tokeniser {tokeniser.name!r}")


def _full_segmentation(tokeniser: BTETokeniser, pretoken: str) -> tuple[str, ...]:
    """All merges applied, never HF's ``ignore_merges`` whole-pretoken shortcut."""
    if tokeniser.ignore_merges:
        return tokeniser.segment_limited(pretoken, math.inf)
    return tokeniser.engine.segment_uncached(pretoken)


def is_blocked(tokeniser: BTETokeniser, merge: Merge) -> bool:
    """True when ``merge`` can never apply to any input ([rebpe §3.1], exact): it is not the merge
    that forms its result from the result's own string. That covers blocked merges proper and
    alternatives (App. A.2); :func:`find_blocked_merges` tells the two apart."""
    _check_member(tokeniser, merge)
    return tokeniser.engine.forming_merge(merge.result) != merge


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
    for step in tokeniser.trace_pretoken(traceable_pretoken(merge.result), max_rank=merge.rank).steps:
        start, end = step.start, step.start + len(step.merge.result)
        if any(start < b < end for b in part_bounds):
            out.append(step.merge)
    return out


def _describe(
    tokeniser: BTETokeniser,
    merge: Merge,
    limited: tuple[str, ...],
    unreachable: set[str],
    blocked_producer: dict[str, Merge],
) -> tuple[str, Merge | None, Merge | None, str]:
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
            because = (
                f"'{ancestor}' is blocked"
                if root == ancestor
                else f"'{ancestor}' is blocked in turn because '{root}' is"
            )
            return (
                CASCADE,
                None,
                ancestor,
                f"{name} can never apply because its part '{part}' is never formed: {because}, "
                "so the blockage cascades downstream ([rebpe App. A.1], scenario 3a).",
            )
    crossing = _crossing_merges(tokeniser, merge)
    blocking = crossing[0] if crossing else None
    part_bounds = _boundaries(merge.parts)
    limited_bounds = set(_boundaries(limited))
    kept = [b for b in part_bounds if b in limited_bounds]
    crossed = [b for b in part_bounds if b not in limited_bounds]
    # other: the type is made earlier by another merge, or a part is missing, or not yet formed
    if limited == (s,):
        return (
            OTHER,
            blocking,
            None,
            f"{name} can never apply: before its turn '{blocking}' already forms '{s}', and only one merge "
            "ever forms a type ([rebpe App. A.2]).",
        )
    missing = [p for p in merge.parts if p not in tokeniser.types]
    if missing:
        return (
            OTHER,
            blocking,
            None,
            f"{name} can never apply: its part(s) {', '.join(map(repr, missing))} are not types of the "
            f"vocabulary, and {found}.",
        )
    if not crossed:
        unformed = [p for p, seg in zip(merge.parts, _split_as(limited, merge.parts), strict=True) if len(seg) > 1]
        later = [q for p in unformed for q in tokeniser.produced_by.get(p, ()) if q.rank > merge.rank]
        why = f", being formed only later by {', '.join(repr(str(q)) for q in later)}" if later else ""
        return (
            OTHER,
            None,
            None,
            f"{name} can never apply: at its turn its part(s) {', '.join(map(repr, unformed))} are not yet "
            f"formed{why}, and the whole string ends up as {_show(_full_segmentation(tokeniser, s))} "
            "([rebpe App. A.3], moved merges).",
        )
    if kept:
        return (
            IGNORED,
            blocking,
            None,
            f"{name} can never apply: before its turn '{blocking}' takes a token across one of its part "
            f"boundaries, so {found} and the rest is left aside ([rebpe App. A.1], scenario 2b(i)).",
        )
    recruit = crossing[-1] if crossing and crossing[-1] != blocking else None
    then = f" and then '{recruit}' recruits across the rest" if recruit else ""
    return (
        RECRUITED,
        blocking,
        None,
        f"{name} can never apply: before its turn '{blocking}' joins material across its part "
        f"boundaries{then}, so {found} with no part boundary left ([rebpe App. A.1], scenario 2b(ii)).",
    )


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


# --- which merge forms each type (fast) --------------------------------------------------------
_NEVER = math.inf  # the priority of a pair that is no merge


def _last_pair(pair_get, s: str) -> tuple[str, str] | None:
    """Binary BPE on ``s`` (the engine's rule: lowest priority first, leftmost on ties); the two
    tokens joined by the last merge if that leaves one token, else None."""
    symbols = list(s)
    if len(symbols) < 2:
        return None
    cands = [pair_get((symbols[i], symbols[i + 1]), _NEVER) for i in range(len(symbols) - 1)]
    while len(cands) > 1:
        best = min(cands)
        if best == _NEVER:
            return None
        i = cands.index(best)
        symbols[i] += symbols[i + 1]
        del symbols[i + 1]
        del cands[i]
        if i < len(cands):
            cands[i] = pair_get((symbols[i], symbols[i + 1]), _NEVER)
        if i:
            cands[i - 1] = pair_get((symbols[i - 1], symbols[i]), _NEVER)
    return (symbols[0], symbols[1]) if cands[0] != _NEVER else None


class _Forming:
    """The merge that forms each type from its own string (``engine.forming_merge``), for all
    types at once without segmenting every type.

    Types are decided shortest first, so the parts of a merge are decided before it. A type whose
    merge tree is *monotone* (every merge ranked after the merges forming its parts; BPE's own
    trees) gets a certificate: its rank (the time its last merge fires) and its parts. For a binary
    merge ``l + r`` whose parts have certificates ranked before it, BPE on ``l + r`` runs the two
    parts' own trees interleaved in rank order (context-freeness, [rebpe App. A.2]) unless a merge
    *straddling* the boundary fires first. The tokens beside the boundary are the right spine of
    ``l``'s tree and the left spine of ``r``'s, each alive from the merge that forms it until its
    parent's merge; walking both spines back in time visits every pair that is ever adjacent across
    the boundary, and such a pair fires iff it is a merge ranked before the end of both lifetimes.
    No straddling merge: ``l + r`` forms the type; one fires: it does not. Ties across the boundary,
    tuple merges, atoms, end-of-word suffixes and non-monotone trees are decided by running BPE on
    the type's string instead (exact, and rare on real files: 276 of GPT-2's 50k types).
    """

    def __init__(self, tokeniser: BTETokeniser, produced_by: dict[str, tuple[Merge, ...]]):
        self.tokeniser = tokeniser
        self.produced_by = produced_by
        merges = tokeniser.merges
        self.general = bool(tokeniser.atoms or tokeniser.end_of_word_suffix)
        tuples = tokeniser.tuple_merges
        self.tuple_results = {m.result for m in tuples}
        self.tuple_lengths = sorted({len(r) for r in self.tuple_results})
        # A pair's priority is its rank: merges sharing a rank form the same type and tie, leftmost
        # first, exactly as in the engine.
        binary = merges if not tuples else [m for m in merges if not m.is_tuple]
        self.pair_rank: dict[tuple[str, ...], Rank] = dict(
            zip(map(attrgetter("parts"), binary), map(attrgetter("rank"), binary), strict=True)
        )
        #: type -> the merge forming it from its own string (None: no merge does)
        self.forming: dict[str, Merge | None] = {}
        #: certificates: type -> the rank its monotone tree completes, and its two parts
        self.prio: dict[str, Rank] = {c: -math.inf for c in tokeniser.alphabet if len(c) == 1}
        self.left: dict[str, str] = {}
        self.right: dict[str, str] = {}
        self.simulated = 0
        self._run()

    def _may_fire_tuple(self, s: str) -> bool:
        results, n = self.tuple_results, len(s)
        for length in self.tuple_lengths:
            if length > n:
                return False
            if any(s[i : i + length] in results for i in range(n - length + 1)):
                return True
        return False

    def _simulate(self, type_: str) -> Merge | None:
        self.simulated += 1
        if self.general or (self.tuple_results and self._may_fire_tuple(type_)):
            return self.tokeniser.engine.forming_merge(type_)
        pair = _last_pair(self.pair_rank.get, type_)
        if pair is None:
            return None
        return next((m for m in self.produced_by.get(type_, ()) if m.parts == pair), None)

    def _run(self) -> None:
        produced_by, forming, prio, left, right = self.produced_by, self.forming, self.prio, self.left, self.right
        prio_get = prio.get
        verdict = self._verdict_function()
        tuple_check = self.general or bool(self.tuple_results)
        for type_ in sorted(produced_by, key=len):
            found = None
            undecided = tuple_check and (self.general or self._may_fire_tuple(type_))
            if not undecided:
                for merge in produced_by[type_]:
                    forms = verdict(merge)
                    if forms:
                        found = merge
                        break
                    if forms is None:
                        undecided = True
            if found is None and undecided:
                found = self._simulate(type_)
            forming[type_] = found
            if found is not None and len(found.parts) == 2:  # certify a monotone tree
                lpart, rpart = found.parts
                pl, pr = prio_get(lpart), prio_get(rpart)
                if pl is not None and pr is not None and pl < found.rank and pr < found.rank:
                    prio[type_], left[type_], right[type_] = found.rank, lpart, rpart

    def _part_priority(self, part: str) -> Rank | None:
        """A part's certificate (the rank its tree completes); a character outside the alphabet
        gets one on first sight, as an atom."""
        priority = self.prio.get(part)
        if priority is None and len(part) == 1:
            priority = self.prio[part] = -math.inf
        return priority

    def _verdict_function(self) -> Callable[[Merge], bool | None]:
        """``verdict(merge)``: True when the binary ``merge`` forms its type from the type's own
        string, False when it certainly does not, None when BPE must be run (a tuple merge, a part
        certified after the merge, a tie across the boundary). A closure over the tables: it runs
        once per merge."""
        prio, left, right, forming = self.prio, self.left, self.right, self.forming
        prio_get, pair_get, part_priority = prio.get, self.pair_rank.get, self._part_priority
        never, start = math.inf, -math.inf

        def verdict(merge: Merge) -> bool | None:
            if len(merge.parts) != 2:
                return None
            lpart, rpart = merge.parts
            pl, pr = prio_get(lpart), prio_get(rpart)
            if pl is None or pr is None:
                pl, pr = part_priority(lpart), part_priority(rpart)
                if pl is None or pr is None:
                    # a part without a certificate: never formed (so this merge never fires,
                    # App. A.2), or formed by a non-monotone tree (run BPE)
                    return None if forming.get(lpart) is not None or forming.get(rpart) is not None else False
            if pl >= merge.rank or pr >= merge.rank:
                return None
            # walk both spines back in time (see the class docstring)
            u, v, du, dv, bu, bv = lpart, rpart, never, never, pl, pr
            while True:
                if bu > bv:
                    du, u = bu, right[u]
                    bu = prio[u]
                elif bv > bu:
                    dv, v = bv, left[v]
                    bv = prio[v]
                else:
                    return True if bu == start else None  # at the atoms; or a tie across the boundary
                q = pair_get((u, v))
                if q is not None:
                    end = du if du < dv else dv
                    if q < end:
                        return False
                    if q == end:
                        return None

        return verdict


def _grouped_by_result(tokeniser: BTETokeniser) -> dict[str, tuple[Merge, ...]]:
    """``tokeniser.produced_by`` without building it when the merges of each type are adjacent in
    rank order (converted tiktoken and SentencePiece files: a type's merges share its rank)."""
    if "produced_by" in tokeniser.__dict__:
        return tokeniser.produced_by
    groups = {result: tuple(ms) for result, ms in groupby(tokeniser.merges, key=attrgetter("result"))}
    if sum(map(len, groups.values())) == len(tokeniser.merges):
        return groups
    return tokeniser.produced_by


def forming_merges(tokeniser: BTETokeniser) -> dict[str, Merge | None]:
    """Every formed type's merge that fires on its own string (None: none does), equal to
    ``tokeniser.engine.forming_merge`` type by type, computed for all types at once."""
    with cyclic_gc_paused():
        return _Forming(tokeniser, _grouped_by_result(tokeniser)).forming


# --- the scan -----------------------------------------------------------------------------------
MAX_EXAMPLES = 200


@dataclass(frozen=True)
class AlternativeExample:
    """A type formed by several merges: the one that fires on its own string and the others."""

    type: str
    primary: Merge
    alternatives: tuple[Merge, ...]

    def to_json(self) -> dict:
        return {
            "type": self.type,
            "primary": _merge_json(self.primary),
            "alternatives": [_merge_json(m) for m in self.alternatives],
            "lowest_ranked_is_primary": self.primary.rank <= min(m.rank for m in self.alternatives),
        }


@dataclass(frozen=True)
class BlockedReport:
    """All blocked merges of a tokeniser (rank order), the types nothing can produce, and a summary
    of the alternatives (merges that never fire because another merge forms their type)."""

    blocked: tuple[BlockedMerge, ...]
    #: Types of V never produced as a token (formed only by blocked merges, and not emitted whole
    #: by ``ignore_merges``), by producer rank.
    unreachable_types: tuple[str, ...]
    #: How many merges are alternatives, and of how many types.
    alternatives: int = 0
    alternative_types: int = 0
    #: Types whose lowest-ranked merge is an alternative (what a one-merge-per-type view gets wrong).
    lowest_ranked_not_primary: int = 0
    #: The first :data:`MAX_EXAMPLES` types with alternatives, by the rank of their primary merge.
    alternative_examples: tuple[AlternativeExample, ...] = ()
    #: Types no merge forms that ``ignore_merges`` emits whole for their own pretoken (reachable).
    whole_only_types: tuple[str, ...] = ()

    def __repr__(self) -> str:
        tuples = sum(b.merge.is_tuple for b in self.blocked)
        return (
            f"<BlockedReport {len(self.blocked):,} blocked merges ({tuples:,} tuple merges), "
            f"{len(self.unreachable_types):,} unreachable types, {self.alternatives:,} alternative merges>"
        )

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
            "alternatives": {
                "count": self.alternatives,
                "types": self.alternative_types,
                "lowest_ranked_not_primary": self.lowest_ranked_not_primary,
                "examples": [e.to_json() for e in self.alternative_examples],
            },
            "whole_only_types": list(self.whole_only_types),
        }


def emitted_whole(tokeniser: BTETokeniser, type_: str) -> bool:
    """Under ``ignore_merges``: whether the type's own text, tokenised, is the type itself (the
    pretoken is emitted whole even though no merge forms it)."""
    if not tokeniser.ignore_merges:
        return False
    try:
        text = tokeniser.pretokeniser.decode([type_])
        return bool(text) and tokeniser.tokenise(text) == [type_]
    except Exception:  # a type that is no text of its own (e.g. part of a UTF-8 sequence)
        return False


def find_blocked_merges(tokeniser: BTETokeniser, reference_words: Iterable[str] | None = None) -> BlockedReport:
    """Every blocked merge, classified, the unreachable types ([rebpe §3.1, App. A.1], A.3), and
    the alternatives summarised.

    A merge that is not the one forming its type from the type's own string never fires (App. A.2).
    When some other merge does form the type, the merge is an *alternative* (converted tiktoken and
    SentencePiece files list every split of a type): counted, with examples, not listed as blocked.
    When no merge forms the type, each of its merges is *blocked* and classified (App. A.1 scenarios).
    With one merge per type ([knockout §3.1]) there are no alternatives and this is the
    paper's test: a merge is blocked iff LIMITEDBPE of its result does not present its parts.

    With ``reference_words`` (plain words, pre-tokenised as :meth:`BTETokeniser.tokenise_word`
    does), each blocked merge gets the first word with a pretoken equal to its result, or else
    the first whose pretoken contains it.
    """
    with cyclic_gc_paused():
        produced_by = _grouped_by_result(tokeniser)
        forming = _Forming(tokeniser, produced_by).forming
        alphabet = set(tokeniser.alphabet)
        blocked: list[Merge] = []
        never_formed: dict[str, Merge] = {}  # type -> its lowest-ranked (blocked) merge
        n_alternatives = n_types = not_lowest = 0
        with_alternatives: dict[str, Merge] = {}  # type -> its primary merge
        for type_, merges in produced_by.items():
            if len(merges) == 1:
                if forming[type_] is None:
                    blocked.append(merges[0])
                    if type_ not in alphabet:
                        never_formed[type_] = merges[0]
                continue
            primary = forming[type_]
            if primary is None:
                blocked.extend(merges)
                if type_ not in alphabet:
                    never_formed[type_] = merges[0]
            else:
                n_alternatives += len(merges) - 1
                n_types += 1
                with_alternatives[type_] = primary
                if merges[0] is not primary and merges[0] != primary:
                    not_lowest += 1
        blocked.sort(key=attrgetter("rank"))
        examples = [
            AlternativeExample(t, with_alternatives[t], tuple(m for m in produced_by[t] if m != with_alternatives[t]))
            for t in nsmallest(MAX_EXAMPLES, with_alternatives, key=lambda t: with_alternatives[t].rank)
        ]
        whole = {t for t in never_formed if emitted_whole(tokeniser, t)}
        cascade = set(never_formed)
        words = list(reference_words) if reference_words is not None else []
        index = PretokenIndex(tokeniser.pretokeniser.pretokenise(" " + w) for w in words)
        entries = []
        for merge in blocked:
            limited = tokeniser.segment_limited(merge.result, merge.rank)
            scenario, blocking, ancestor, explanation = _describe(tokeniser, merge, limited, cascade, never_formed)
            example = index.first_containing(merge.result)  # a word with it as a pretoken, else in one
            entries.append(
                BlockedMerge(
                    merge,
                    limited,
                    scenario,
                    blocking,
                    ancestor,
                    explanation,
                    words[example] if example is not None else None,
                )
            )
        by_rank = sorted(never_formed, key=lambda t: never_formed[t].rank)
        return BlockedReport(
            tuple(entries),
            tuple(t for t in by_rank if t not in whole),
            n_alternatives,
            n_types,
            not_lowest,
            tuple(examples),
            tuple(t for t in by_rank if t in whole),
        )


# --- what reparation leaves blocked -------------------------------------------------------------
#: Why a merge is still blocked after reparation ([rebpe Alg. 2 lines 2-15]), in the order
#: :func:`still_blocked_causes` tests them: key -> (short label, explanation).
STILL_BLOCKED = {
    "repaired, out of date": (
        "repaired with out-of-date parts",
        "Reparation gave this tuple merge new parts, but they are what the tokeniser *before* reparation "
        "finds at its turn (mode undo, the authors' code). Repairs of lower-ranked merges change what is "
        "found there, so the new parts still never meet. Mode limited (Alg. 2 as written) sees those repairs.",
    ),
    "tuple, left as is": (
        "tuple merge left as is",
        "Reparation left this tuple merge's parts alone (they looked unchanged, or its string already forms "
        "one token earlier, App. A.2), yet lower-ranked repairs now stop them from meeting.",
    ),
    "cascade": (
        "part still never formed",
        "A part of this merge is formed only by merges that are themselves still blocked, so it never exists "
        "and the blockage cascades (App. A.1, scenario 3a).",
    ),
    "new": (
        "blocked by the reparation",
        "This binary merge was not blocked before. The repairs change which merges fire inside its string, "
        "and now an earlier merge takes material across its boundary: fixing one merge blocks another, as "
        "moving merges does in [rebpe App. A.3].",
    ),
    "part formed, not here": (
        "part formed again, but not in this string",
        "Before reparation a part of this binary merge was never formed (a cascade). Reparation repaired the "
        "merge forming that part, so the part exists again, but inside this merge's own string an earlier "
        "merge takes material across its boundary first. Reparation rewrites only tuple merges, so this "
        "binary merge keeps its parts and stays blocked.",
    ),
    "binary": (
        "binary merge, blocked since knockout",
        "This binary merge was already blocked: an earlier merge takes material across its boundary. "
        "Reparation (Alg. 2 lines 2-15) rewrites only tuple merges, so a binary merge keeps its parts.",
    ),
}


def still_blocked_causes(
    before: BlockedReport, after: BlockedReport, repaired: Iterable[tuple[Merge, Merge]]
) -> dict[str, tuple[BlockedMerge, ...]]:
    """The merges of ``after`` (a scan after reparation) grouped by why reparation left them blocked
    (:data:`STILL_BLOCKED`, keys in that order, empty causes left out). ``before`` is the scan of the
    tokeniser reparation started from, ``repaired`` its (merge before, merge after) pairs
    (``core.edits.rebpe.repair``). Each merge gets the first cause that holds, in the order of
    :data:`STILL_BLOCKED`."""
    rewired = {new for _, new in repaired}
    earlier = {entry.merge: entry for entry in before.blocked}
    groups: dict[str, list[BlockedMerge]] = {key: [] for key in STILL_BLOCKED}
    for entry in after.blocked:
        merge, was = entry.merge, earlier.get(entry.merge)
        if merge in rewired:
            cause = "repaired, out of date"
        elif merge.is_tuple:
            cause = "tuple, left as is"
        elif entry.scenario == CASCADE:
            cause = "cascade"
        elif was is None:
            cause = "new"
        elif was.scenario == CASCADE:
            cause = "part formed, not here"
        else:
            cause = "binary"
        groups[cause].append(entry)
    return {key: tuple(found) for key, found in groups.items() if found}


# --- text ---------------------------------------------------------------------------------------
def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _named(items: Sequence[str], limit: int) -> str:
    shown = ", ".join(repr(t) for t in items[:limit])
    return shown + (f", … ({len(items) - limit:,} more)" if len(items) > limit else "")


def summary_lines(report: BlockedReport, limit: int = 10) -> list[str]:
    """What the report counts, in words: blocked merges (how many are tuple merges), the unreachable
    types named up to ``limit``, the alternatives in one line, and types reachable only whole."""
    n_tuple = sum(b.merge.is_tuple for b in report.blocked)
    head = _count(len(report.blocked), "blocked merge")
    if report.blocked:
        head += f" ({_count(n_tuple, 'tuple merge')})"
    head += "; " + _count(len(report.unreachable_types), "unreachable type")
    if report.unreachable_types:
        head += ": " + _named(report.unreachable_types, limit)
    lines = [head]
    if report.alternatives:
        lines.append(
            f"{_count(report.alternatives, 'alternative merge')} of "
            f"{_count(report.alternative_types, 'type')} never fire on the type's own string: another merge "
            "forms the type ([rebpe App. A.2]), so they are not blocked merges; for "
            f"{_count(report.lowest_ranked_not_primary, 'type')} the lowest-ranked merge is such an alternative"
        )
    if report.whole_only_types:
        lines.append(
            f"{_count(len(report.whole_only_types), 'type')} no merge forms "
            f"{'is' if len(report.whole_only_types) == 1 else 'are'} emitted whole for "
            f"{'its' if len(report.whole_only_types) == 1 else 'their'} own pretoken (ignore_merges), "
            "so reachable: " + _named(report.whole_only_types, limit)
        )
    return lines


def alternative_lines(report: BlockedReport, limit: int = 10) -> list[str]:
    """A table of the first ``limit`` alternative examples, one type per line."""
    rows = []
    for example in report.alternative_examples[:limit]:
        alts = example.alternatives
        listed = ", ".join(" + ".join(m.parts) for m in alts[:3]) + (
            f", … ({len(alts) - 3} more)" if len(alts) > 3 else ""
        )
        rows.append(
            f"  {example.type!r:<24} formed by {' + '.join(example.primary.parts):<28} "
            f"rank {example.primary.rank:<8} alternatives: {listed}"
        )
    return rows
