"""Why a word segments as it does: its merges step by step, its boundaries against a reference,
and the tokens a competing merge "trapped".

- :func:`trace_word` traces every pretoken of a word as it appears in running text and numbers
  the merges globally (step 1 is the first merge that fired), so a viewer can step through them.
- :func:`word_boundaries` gives, for every character boundary of every pretoken, whether the
  reference splits there and which merge (if any) removed it — the per-word view of blame
  ([knockout §3.4]: a merge is blamed when it removes a reference boundary).
- :func:`find_traps` implements the diagnosis of [knockout App. A.4]: cut the word at its
  reference boundaries, segment each piece on its own, and look for a standalone token that does
  not form inside the word because a lower-ranked merge *crossing the piece's edge* fired first
  and took one of the token's parts (in *masterthesis*, ``er + t`` takes the ``er`` that
  ``Ġmast + er`` needs, so ``Ġmaster`` cannot form).
- :func:`token_merges` lists, for every token of the word, the merge that formed it in this word
  (read off the trace), the type's primary merge (the one forming it from its own string) and its
  alternatives; with one merge per type the three coincide, as [knockout §3.1] assumes.
- :func:`explain_word` puts these together and :meth:`Explanation.sentences` says it in plain
  words. No Streamlit here: ``fmt`` decides how a token is written (e.g. as a code span).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING

from core.bpe.model import Merge
from core.bpe.segmentation import MergeTree, SegmentationTrace
from core.errors import InputError
from core.references.alignment import AlignedWord, align_word
from core.trace import traceable_pretoken

if TYPE_CHECKING:
    from core.bpe.model import BTETokeniser

MAX_LISTED = 4  # how many extra boundaries a sentence names before "and N more"


# --- the word, traced ---------------------------------------------------------------------------
@dataclass(frozen=True)
class WordTrace:
    """A word tokenised as in running text (pre-tokeniser on ``" " + word``), every pretoken traced.

    ``aligned`` maps pretoken boundaries back to word positions (None when the normaliser changes
    the word's length, e.g. NFKC on ligatures; then nothing can be compared with a reference).
    Steps are numbered 1..n_steps over the pretokens in order: pretoken ``i``'s step ``j``
    (0-based) is global step ``offsets[i] + j + 1``.
    """

    word: str
    traces: tuple[SegmentationTrace, ...]
    aligned: AlignedWord | None
    offsets: tuple[int, ...]

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(t for trace in self.traces for t in trace.tokens)

    def __repr__(self) -> str:
        return f"<WordTrace {self.word!r} -> {' '.join(self.tokens)}: {self.n_steps} merge steps>"

    @property
    def n_steps(self) -> int:
        return sum(len(trace.steps) for trace in self.traces)

    def global_step(self, pretoken: int, step: int) -> int:
        """The 1-based global number of 0-based step ``step`` of pretoken ``pretoken``."""
        return self.offsets[pretoken] + step + 1

    def steps_done(self, pretoken: int, upto: int) -> int:
        """How many of pretoken ``pretoken``'s steps are done after global step ``upto``."""
        return max(0, min(len(self.traces[pretoken].steps), upto - self.offsets[pretoken]))

    def tokens_at(self, upto: int) -> tuple[str, ...]:
        """The tokens after the first ``upto`` global steps (0: every pretoken still in atoms, except
        one with no steps: its tokens, e.g. a type emitted whole under ``ignore_merges``)."""
        out: list[str] = []
        for i, trace in enumerate(self.traces):
            done = self.steps_done(i, upto)
            if done:
                out.extend(trace.steps[done - 1].tokens)
            else:
                out.extend(trace.tokens if not trace.steps else tuple(trace.pretoken))
        return tuple(out)

    def merge_at(self, step: int) -> tuple[int, Merge] | None:
        """(pretoken index, merge) of 1-based global step ``step``."""
        for i, trace in enumerate(self.traces):
            local = step - self.offsets[i] - 1
            if 0 <= local < len(trace.steps):
                return i, trace.steps[local].merge
        return None


def trace_word(tokeniser: BTETokeniser, word: str) -> WordTrace:
    """Trace ``word`` as it appears in running text; raises InputError only for an empty word."""
    if not word:
        raise InputError("no word to trace")
    text = " " + word
    aligned: AlignedWord | None
    try:
        aligned = align_word(tokeniser.pretokeniser, word)
    except InputError:
        aligned = None
        pretokens = tokeniser.pretokeniser.pretokenise(text)
    else:
        pretokens = [p.text for p in aligned.pretokens]
    traces = tuple(tokeniser.trace_pretoken(traceable_pretoken(p)) for p in pretokens)
    offsets, total = [], 0
    for trace in traces:
        offsets.append(total)
        total += len(trace.steps)
    return WordTrace(word, traces, aligned, tuple(offsets))


@dataclass(frozen=True)
class TokenMerges:
    """A token of a traced word and the merges of its type.

    ``fired`` is the merge that formed the token in this word (None for an atom, or a pretoken
    emitted whole by ``ignore_merges``: ``whole``); ``merges`` are all merges forming the type,
    the primary one first (``primary``: the merge forming the type from its own string)."""

    token: str
    pretoken: int
    start: int
    fired: Merge | None
    primary: Merge | None
    merges: tuple[Merge, ...]
    whole: bool = False

    @property
    def alternatives(self) -> tuple[Merge, ...]:
        return tuple(m for m in self.merges if m != self.primary)

    @property
    def fired_alternative(self) -> bool:
        """The token was formed here by one of its type's alternatives, not its primary merge."""
        return self.fired is not None and self.fired != self.primary

    def to_json(self) -> dict:
        return {
            "token": self.token,
            "pretoken": self.pretoken,
            "start": self.start,
            "fired": None if self.fired is None else str(self.fired),
            "whole": self.whole,
            "merges": [
                {"merge": str(m), "rank": display_rank(m.rank), "primary": m == self.primary} for m in self.merges
            ],
        }


def emitted_whole(trace: SegmentationTrace) -> bool:
    """The pretoken became one token with no merge: a type emitted whole under ``ignore_merges``."""
    return len(trace.trees) == 1 and trace.trees[0].merge is None and len(trace.pretoken) > 1


def token_merges(tokeniser: BTETokeniser, traced: WordTrace) -> list[TokenMerges]:
    """Every token of ``traced``, in order, with the merge that formed it and its type's merges."""
    out = []
    for i, trace in enumerate(traced.traces):
        whole = emitted_whole(trace)
        for tree in trace.trees:
            merges = tokeniser.produced_by.get(tree.token, ())
            primary = tokeniser.primary_merge(tree.token) if merges else None
            ordered = tuple(sorted(merges, key=lambda m: (m != primary, m.rank)))
            out.append(TokenMerges(tree.token, i, tree.start, tree.merge, primary, ordered, whole))
    return out


def forest_at(trees: Sequence[MergeTree], done: int) -> tuple[MergeTree, ...]:
    """The tokens (as merge trees) after the first ``done`` steps of one pretoken's trace: every
    node formed at step ``done`` or later is dissolved into its children."""
    out: list[MergeTree] = []
    for tree in trees:
        if tree.merge is None or (tree.step is not None and tree.step < done):
            out.append(tree)
        else:
            out.extend(forest_at(tree.children, done))
    return tuple(out)


# --- boundaries against the reference -----------------------------------------------------------
CORRECT_SPLIT = "correct split"
MISSED_SPLIT = "missed split"
EXTRA_SPLIT = "extra split"
CORRECT_MERGE = "correctly merged"


@dataclass(frozen=True)
class Boundary:
    """The boundary between characters ``offset`` and ``offset + 1`` of pretoken ``pretoken``.

    ``position`` is the word split position it stands for (None next to a marker or inside one
    letter's bytes); ``reference`` whether the reference splits there (None: no reference, or
    not a word position); ``merge``/``step`` the merge that removed it and its 1-based global
    step (None: a token boundary remains).
    """

    pretoken: int
    offset: int
    position: int | None
    left: str
    right: str
    reference: bool | None
    merge: Merge | None
    step: int | None

    @property
    def split(self) -> bool:
        return self.merge is None

    def crossing(self) -> tuple[Merge, int, int] | None:
        """(merge, step, word position) of a word position a merge removed, else None."""
        if self.merge is None or self.step is None or self.position is None:
            return None
        return self.merge, self.step, self.position

    @property
    def verdict(self) -> str:
        """correct split / missed split / extra split / correctly merged, or "" (not comparable)."""
        if self.reference is None:
            return ""
        if self.reference:
            return CORRECT_SPLIT if self.split else MISSED_SPLIT
        return EXTRA_SPLIT if self.split else CORRECT_MERGE

    def to_json(self) -> dict:
        return {
            "pretoken": self.pretoken,
            "offset": self.offset,
            "position": self.position,
            "left": self.left,
            "right": self.right,
            "reference": self.reference,
            "merge": None if self.merge is None else list(self.merge.parts),
            "rank": None if self.merge is None else self.merge.rank,
            "step": self.step,
            "verdict": self.verdict,
        }


def word_boundaries(traced: WordTrace, reference_splits: Iterable[int] | None = None) -> tuple[Boundary, ...]:
    """Every character boundary inside the word's pretokens, with the reference's verdict."""
    splits = None if reference_splits is None or traced.aligned is None else frozenset(reference_splits)
    out = []
    for i, trace in enumerate(traced.traces):
        positions = traced.aligned.pretokens[i].boundary_positions if traced.aligned is not None else ()
        boundary_steps = _boundary_steps(trace)
        for k, merge in enumerate(trace.boundary_merges):
            position = positions[k] if k < len(positions) else None
            reference = None if splits is None or position is None else position in splits
            local = boundary_steps[k]
            step = None if local is None else traced.global_step(i, local)
            out.append(Boundary(i, k, position, trace.pretoken[k], trace.pretoken[k + 1], reference, merge, step))
    return tuple(out)


def _boundary_steps(trace: SegmentationTrace) -> list[int | None]:
    """0-based local step that removed each character boundary (None: still a token boundary)."""
    steps: list[int | None] = [None] * len(trace.boundary_merges)

    def walk(node: MergeTree) -> None:
        if node.merge is None:
            return
        for child in node.children[1:]:
            steps[child.start - 1] = node.step
        for child in node.children:
            walk(child)

    for tree in trace.trees:
        walk(tree)
    return steps


def predicted_positions(traced: WordTrace, tokens: Sequence[str]) -> frozenset[int] | None:
    """The word positions where ``tokens`` (any segmentation of the same pretokens, e.g. by an
    edited tokeniser or a dropout sample) put a split; None when they cannot be lined up."""
    if traced.aligned is None or "".join(tokens) != "".join(t.pretoken for t in traced.traces):
        return None
    position_at: dict[int, int | None] = {}  # global boundary index -> word position
    start = 0
    for i, trace in enumerate(traced.traces):
        for k, position in enumerate(traced.aligned.pretokens[i].boundary_positions):
            position_at[start + k] = position
        start += len(trace.pretoken)
    splits = set(traced.aligned.pretoken_splits)
    end = 0
    for token in tokens[:-1]:
        end += len(token)
        position = position_at.get(end - 1)
        if position is not None:
            splits.add(position)
    return frozenset(splits)


def agreement(traced: WordTrace, tokens: Sequence[str], reference_splits: Iterable[int]) -> tuple[int, int, int] | None:
    """(reference splits kept, reference splits in all, extra splits) of a segmentation."""
    predicted = predicted_positions(traced, tokens)
    if predicted is None:
        return None
    gold = frozenset(reference_splits)
    return len(predicted & gold), len(gold), len(predicted - gold)


# --- traps ([knockout App. A.4]) ------------------------------------------------------------
@dataclass(frozen=True)
class Trap:
    """A token that forms when ``piece`` is segmented on its own but not inside the word.

    ``blocked`` is the merge of that token's standalone tree that could not fire inside the word
    (all its parts formed, it did not); ``trapping`` the merge, crossing the piece's edge, that
    fired first (at global step ``step``) and took the part ``taken``. ``without`` is the word's
    segmentation after knocking out ``trapping``'s type (when asked for).
    """

    piece: str
    token: str
    blocked: Merge
    taken: str
    trapping: Merge
    step: int
    piece_tokens: tuple[str, ...] = ()
    without: tuple[str, ...] | None = None

    def to_json(self) -> dict:
        return {
            "piece": self.piece,
            "token": self.token,
            "blocked": list(self.blocked.parts),
            "blocked_rank": self.blocked.rank,
            "taken": self.taken,
            "trapping": list(self.trapping.parts),
            "trapping_rank": self.trapping.rank,
            "step": self.step,
            "piece_tokens": list(self.piece_tokens),
            "without": None if self.without is None else list(self.without),
        }


def _nodes(tree: MergeTree) -> Iterable[MergeTree]:
    yield tree
    for child in tree.children:
        yield from _nodes(child)


def pieces(traced: WordTrace, splits: Iterable[int]) -> list[tuple[int, int, int]]:
    """(pretoken index, start, end) of the pieces the word's pretokens fall into when cut at the
    word positions ``splits``."""
    wanted = frozenset(splits)
    out = []
    for i, trace in enumerate(traced.traces):
        positions = traced.aligned.pretokens[i].boundary_positions if traced.aligned is not None else ()
        cuts = [k + 1 for k, p in enumerate(positions) if p is not None and p in wanted]
        for start, end in pairwise([0, *cuts, len(trace.pretoken)]):
            out.append((i, start, end))
    return out


def standalone_segmentation(tokeniser: BTETokeniser, traced: WordTrace, splits: Iterable[int]) -> list[tuple[str, ...]]:
    """Each piece of the word (cut at ``splits``) segmented on its own, as in [knockout App. A.4]
    ("segmenting the two distinct substrings separately")."""
    return [tokeniser.segment_pretoken(traced.traces[i].pretoken[a:b]) for i, a, b in pieces(traced, splits)]


#: the merge node that took a part: (its local step, its merge, the node)
_Taker = tuple[int, Merge, MergeTree]


def _formed_nodes(trace: SegmentationTrace) -> tuple[set[tuple[int, str]], dict[tuple[int, str], _Taker]]:
    """The (start, token) of every node of the word's merge trees, and for each child node the
    merge node that took it: (its local step, its merge, its node)."""
    formed: set[tuple[int, str]] = set()
    parent: dict[tuple[int, str], _Taker] = {}
    for tree in trace.trees:
        for node in _nodes(tree):
            formed.add((node.start, node.token))
            if node.merge is not None and node.step is not None:  # a merged node (it has children)
                for child in node.children:
                    parent[(child.start, child.token)] = (node.step, node.merge, node)
    return formed, parent


def _piece_traps(tokeniser: BTETokeniser, trace: SegmentationTrace, start: int, end: int) -> Iterable[tuple[Trap, int]]:
    """The traps of the piece ``start:end`` of a traced pretoken, each with the local step of its
    trapping merge (the Trap's ``step`` is left 0): the merges of the piece's standalone trees
    whose parts all formed in the word but which did not fire, because the part taken first went
    to a merge reaching outside the piece."""
    formed, parent = _formed_nodes(trace)
    piece = trace.pretoken[start:end]
    alone = tokeniser.trace_pretoken(piece)
    for token_tree in alone.trees:
        if (start + token_tree.start, token_tree.token) in formed:
            continue
        for node in _nodes(token_tree):
            if node.merge is None or (start + node.start, node.token) in formed:
                continue
            if not all((start + c.start, c.token) in formed for c in node.children):
                continue
            # The part taken first is what kept this merge from firing; it is a trap when the
            # merge that took it reaches outside the piece.
            takers = [(parent[key], c) for c in node.children if (key := (start + c.start, c.token)) in parent]
            if not takers:
                continue
            (step, merge, taker), child = min(takers, key=lambda tc: tc[0][0])
            if taker.start < start or taker.start + len(taker.token) > end:
                yield Trap(piece, token_tree.token, node.merge, child.token, merge, 0, alone.tokens), step


def find_traps(
    tokeniser: BTETokeniser, traced: WordTrace, splits: Iterable[int], *, counterfactual: bool = False
) -> tuple[Trap, ...]:
    """Standalone tokens of the pieces that a crossing, lower-ranked merge kept from forming."""
    traps: list[Trap] = []
    seen: set[tuple[Merge, Merge]] = set()
    for i, start, end in pieces(traced, splits):
        for trap, taker_step in _piece_traps(tokeniser, traced.traces[i], start, end):
            if (trap.blocked, trap.trapping) not in seen:
                seen.add((trap.blocked, trap.trapping))
                traps.append(replace(trap, step=traced.global_step(i, taker_step)))
    if counterfactual and traps:
        from core.edits.knockout import knock_out

        local = word_tokeniser(tokeniser, traced)
        without: dict[str, tuple[str, ...]] = {}
        for trap in traps:
            if trap.trapping.result not in without:
                without[trap.trapping.result] = tuple(
                    knock_out(local, [trap.trapping.result])[0].tokenise_word(traced.word)
                )
        traps = [
            Trap(t.piece, t.token, t.blocked, t.taken, t.trapping, t.step, t.piece_tokens, without[t.trapping.result])
            for t in traps
        ]
    return tuple(traps)


def word_tokeniser(tokeniser: BTETokeniser, traced: WordTrace) -> BTETokeniser:
    """The tokeniser cut down to the merges that could ever fire in this word: those whose result is
    a substring of one of its pretokens. Knocking a type out never changes a merge's result string
    (its users become tuple merges over the same string), so edits of this small tokeniser segment
    the word exactly as the same edits of the whole one — in milliseconds instead of rebuilding
    40,000 merges."""
    produced_by = tokeniser.produced_by
    merges: dict[Merge, None] = {}
    for trace in traced.traces:
        text = trace.pretoken
        for i in range(len(text)):
            for j in range(i + 2, len(text) + 1):
                for merge in produced_by.get(text[i:j], ()):
                    merges[merge] = None
    return tokeniser.with_merges(list(merges))


# --- the explanation ------------------------------------------------------------------------------
def _plain(text: str) -> str:
    return f"“{text}”"


@dataclass(frozen=True)
class Explanation:
    """Everything :meth:`sentences` says about one word (plain data, ``to_json`` for export)."""

    word: str
    tokens: tuple[str, ...]
    reference: tuple[str, ...] | None
    boundaries: tuple[Boundary, ...]
    traps: tuple[Trap, ...]
    standalone: tuple[tuple[str, ...], ...] = field(default=())
    aligned: bool = True

    @property
    def compared(self) -> tuple[Boundary, ...]:
        return tuple(b for b in self.boundaries if b.verdict)

    def __repr__(self) -> str:
        reference = "" if self.reference is None else f" (reference {' '.join(self.reference)})"
        return (
            f"<Explanation {self.word!r} -> {' '.join(self.tokens)}{reference}: {len(self.missed)} missed "
            f"boundaries, {len(self.traps)} traps; .sentences() says why>"
        )

    @property
    def missed(self) -> tuple[Boundary, ...]:
        """Reference boundaries a merge removed, in the order the merges fired."""
        missed = [b for b in self.boundaries if b.verdict == MISSED_SPLIT]  # each removed by a merge: a step
        return tuple(sorted(missed, key=lambda b: b.step or 0))

    @property
    def extra(self) -> tuple[Boundary, ...]:
        return tuple(b for b in self.boundaries if b.verdict == EXTRA_SPLIT)

    @property
    def first_crossing(self) -> Boundary | None:
        """The first merge (in firing order) that removed a reference boundary."""
        missed = self.missed
        return missed[0] if missed else None

    @property
    def agrees(self) -> bool:
        return self.reference is not None and self.aligned and not self.missed and not self.extra

    def cut(self, position: int) -> str:
        """The word with a bar at ``position``: ``bruid|sjurk``."""
        return self.word[:position] + "|" + self.word[position:]

    def sentences(self, fmt: Callable[[str], str] = _plain, word_fmt: Callable[[str], str] | None = None) -> list[str]:
        """The explanation in plain words. ``fmt`` writes a token, ``word_fmt`` a piece of the word."""
        word_fmt = word_fmt or fmt

        def merge_text(merge: Merge) -> str:
            return " + ".join(fmt(p) for p in merge.parts) + " → " + fmt(merge.result)

        out: list[str] = []
        if self.reference is None:
            out.append(f"{word_fmt(self.word)} is not in the loaded reference, so there are no boundaries to check.")
        elif not self.aligned:
            out.append(
                "The tokeniser's normaliser changes the length of this word, so its boundaries cannot be "
                "lined up with the reference."
            )
        elif self.agrees:
            out.append(
                "The tokens follow the reference exactly: every reference boundary is a token boundary "
                "and there is no other split."
            )
        else:
            crossings = [c for b in self.missed if (c := b.crossing()) is not None]
            if crossings:
                merge, step, position = crossings[0]
                out.append(
                    f"The first merge that crossed a reference boundary is {merge_text(merge)} "
                    f"(rank {display_rank(merge.rank)}, step {step}): it glued "
                    f"{word_fmt(self.cut(position))} together, so that split is lost."
                )
                later = crossings[1:]
                if later:
                    named = ", ".join(f"{merge_text(m)} at {word_fmt(self.cut(at))}" for m, _, at in later[:MAX_LISTED])
                    more = f" and {len(later) - MAX_LISTED} more" if len(later) > MAX_LISTED else ""
                    out.append(f"Later merges crossed reference boundaries too: {named}{more}.")
            else:
                out.append("No merge crossed a reference boundary: every reference split is kept.")
            extra = [b.position for b in self.extra if b.position is not None]  # compared: all word positions
            if extra:
                named = ", ".join(word_fmt(self.cut(at)) for at in extra[:MAX_LISTED])
                more = f" and {len(extra) - MAX_LISTED} more" if len(extra) > MAX_LISTED else ""
                noun = "a split" if len(extra) == 1 else f"{len(extra)} splits"
                out.append(f"The tokeniser makes {noun} the reference does not have: {named}{more}.")
        for trap in self.traps:
            alone = " ".join(fmt(t) for t in trap.piece_tokens) or fmt(trap.token)
            text = (
                f"Trapped token {fmt(trap.token)}: segmented on its own, the piece {fmt(trap.piece)} gives "
                f"{alone}; inside the word, {merge_text(trap.trapping)} (rank {display_rank(trap.trapping.rank)}, "
                f"step {trap.step}) fired first and took the {fmt(trap.taken)} that "
                f"{merge_text(trap.blocked)} (rank {display_rank(trap.blocked.rank)}) needed."
            )
            if trap.without is not None:
                text += (
                    f" Knocking out {fmt(trap.trapping.result)} gives " + " ".join(fmt(t) for t in trap.without) + "."
                )
            out.append(text)
        return out

    def to_json(self) -> dict:
        return {
            "word": self.word,
            "tokens": list(self.tokens),
            "reference": None if self.reference is None else list(self.reference),
            "boundaries": [b.to_json() for b in self.boundaries],
            "traps": [t.to_json() for t in self.traps],
            "standalone": [list(s) for s in self.standalone],
            "sentences": self.sentences(),
        }


def display_rank(rank) -> int | float:
    """A rank as written: 12 for 12.0, 4.999 as is (reification ranks)."""
    return int(rank) if isinstance(rank, float) and rank.is_integer() else rank


def reference_splits(morphs: Sequence[str]) -> frozenset[int]:
    """Split positions of a segmentation: ``("bruid", "s", "jurk")`` -> ``{5, 6}``."""
    splits, offset = set(), 0
    for morph in list(morphs)[:-1]:
        offset += len(morph)
        splits.add(offset)
    return frozenset(splits)


def explain_word(
    tokeniser: BTETokeniser,
    word: str,
    reference: Sequence[str] | None = None,
    *,
    traced: WordTrace | None = None,
    counterfactual: bool = False,
) -> Explanation:
    """Explain ``word``'s segmentation against ``reference`` (its morphs, concatenating to the
    word; None when the word has no reference entry)."""
    traced = traced or trace_word(tokeniser, word)
    if reference is not None and "".join(reference) != word:
        raise InputError(f"reference {' '.join(reference)!r} does not concatenate to {word!r}")
    splits = None if reference is None else reference_splits(reference)
    boundaries = word_boundaries(traced, splits)
    traps: tuple[Trap, ...] = ()
    standalone: tuple[tuple[str, ...], ...] = ()
    if splits and traced.aligned is not None:
        traps = find_traps(tokeniser, traced, splits, counterfactual=counterfactual)
        standalone = tuple(standalone_segmentation(tokeniser, traced, splits))
    return Explanation(
        word,
        traced.tokens,
        None if reference is None else tuple(reference),
        boundaries,
        traps,
        standalone,
        traced.aligned is not None,
    )


__all__ = [
    "CORRECT_MERGE",
    "CORRECT_SPLIT",
    "EXTRA_SPLIT",
    "MISSED_SPLIT",
    "Boundary",
    "Explanation",
    "Trap",
    "WordTrace",
    "agreement",
    "display_rank",
    "explain_word",
    "find_traps",
    "forest_at",
    "pieces",
    "predicted_positions",
    "reference_splits",
    "standalone_segmentation",
    "trace_word",
    "word_boundaries",
    "word_tokeniser",
]
