"""BoundlessBPE training: [boundless §3.1 and App. B], with the semantics of the authors'
``FasterHalfDirectRegexTokenizer.train`` (kensho-technologies/boundlessbpe @9c7ef2e,
reference-implementations.md §5; TEST_VECTORS V8 is reproduced exactly).

Two states share one operation index (App. B):

* *words*: the unique pretokens with their counts, split into bytes. Pairs are counted per
  pretoken x count, runs of one pair non-overlapping (``aaaa`` -> 2, ``aaa`` -> 1). After a
  regular merge (a, b) with pair count c_ab, each of a, b longer than one byte whose
  Intersection over Self ``c_ab / c_x`` (counts *before* the merge) reaches ``threshold`` is
  deleted, left first: every occurrence is blown up into bytes (``blowup``). When the merge turns
  some pretoken into the single token ab, ab is *unlocked* in the superword state if it matches
  the merge pattern (``merge_pattern``).
* *superwords*: the running text as its sequences of whole pretokens, kept as the distinct runs
  of letter-containing pretokens with their counts (``corpus.supermerge_sequences``: the only
  stretches a supermerge can ever join, :mod:`core.counting.sequences`). A pair is counted only
  when both tokens are unlocked (runs non-overlapping as above); a supermerge (a, b) merges left
  to right in every run and its result is unlocked too (except for a == b, which the authors'
  code leaves locked). No deletions here (§3.1).

Each step takes the best pair of each state (highest count, ties to the smallest pair of byte
strings; a pair whose concatenation is already a token is skipped) and performs the word merge
if its count is strictly higher, else the supermerge (``tie``). Training stops at
``vocab_size`` or when neither state has a pair left. Supermerges need running text: a corpus
with neither documents nor counted runs (word counts alone) raises InputError.

Options (defaults = the authors' code; the paper's reading where they differ):

* ``threshold=0.9`` (τ, §3.1); ``ios_rule=">="`` (code) or ``">"`` ("exceeds", §3.1).
* ``blowup=True``: deleted tokens become bytes (§3.1, code default); False: the pair of the
  earliest merge that formed the token (PickyBPE; the authors' ablation), which can bring back
  a part deleted before (it is then in the vocabulary again).
* ``merge_pattern``: which whole pretokens may be unlocked: ``"improved"`` (code,
  ``^(?=.+\\p{L})(?:\\p{L}\\p{M}*|[ _'’])+$``: letters, spaces, ``_``, apostrophes, a letter after
  the first character), ``"original"`` (footnote 5 as used for the COLM submission, ASCII
  ``^[ _'a-zA-Z]*[a-zA-Z][ _'a-zA-Z]*$``), ``"simple"`` (contains a letter; fastboundlessbpe).
* ``deleted_slots="kept"``: as in the code, a deleted token keeps its place in the vocabulary
  list (the list is never shortened: ``vocablist`` is rebound locally), so training stops at
  256 + merges + supermerges = ``vocab_size`` and a deleted string is never formed again by a
  merge; the final |V| is ``vocab_size`` minus the deletions (V8: 290 - 12 = 278).
  ``"freed"``: deletions free their slot (§3.1 "freeing up space"), |V| = 256 + merges +
  supermerges - deletions reaches ``vocab_size``, and a deleted string may be formed again.
* ``tie="supermerge"``: a word merge and a supermerge of equal count -> the supermerge (code;
  the paper does not say); ``"merge"`` the other way.

Two corner cases of the code are not copied: a pair (x, x) is checked for deletion once, not
twice (c_xx <= c_x / 2, so this only matters for τ <= 0.5), and a token is unlocked once (the
code would count its pairs again if it became a whole word a second time, which its own
from-scratch recount, ``verify_state``, rejects). Pair counts are defined by that recount
(``get_stats``); the code's incremental superword update is checked against it there.

Speed: both states update pair counts incrementally around each occurrence (lazy max-heaps), so
a step costs time in proportion to the occurrences it changes. The words state
(:mod:`core.families.boundless.states`) keeps its pretokens as linked runs of equal tokens, token
ids in int32 arrays (about 25 bytes per byte of distinct pretoken); the
superword state (:mod:`core.families.boundless.superwords`) keeps token ids in numpy arrays,
about 20 bytes per run position, and unlocks and supermerges with vectorised numpy.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

import regex

from core.bpe.trainer import PROGRESS_EVERY
from core.counting.corpus import TrainingCorpus, initial_alphabet
from core.deadline import Heartbeat
from core.errors import InputError
from core.families.base import TrainingEvent, TrainingRun
from core.families.boundless.model import BoundlessBPE
from core.families.boundless.states import Words
from core.families.boundless.superwords import Superwords
from core.options import check_bool, check_int
from core.pipeline.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE

if TYPE_CHECKING:
    from core.bpe.checkpoint import TrainingCheckpoint

_IMPROVED = regex.compile(r"^(?=.+\p{L})(?:\p{L}\p{M}*|[ _'\u2019])+$")
_ORIGINAL = regex.compile(r"^[ _'a-zA-Z]*[a-zA-Z][ _'a-zA-Z]*$")
_LETTER = regex.compile(r"\p{L}")

#: merge_pattern option -> test on a token's text (tokens that are not valid UTF-8 never match).
MERGE_PATTERNS: dict[str, Callable[[str], bool]] = {
    "improved": lambda text: _IMPROVED.match(text) is not None,
    "original": lambda text: _ORIGINAL.match(text) is not None,
    "simple": lambda text: _LETTER.search(text) is not None,
}
IOS_RULES = (">=", ">")
DELETED_SLOTS = ("kept", "freed")
TIES = ("supermerge", "merge")

# Training works on "raw" strings, one character per byte (chr(byte)), so that comparing two
# strings compares their bytes, the authors' tie rule; the byte characters come back at the end.
_TO_RAW = {ord(char): chr(byte) for char, byte in CHAR_TO_BYTE.items()}
_FROM_RAW = {byte: BYTE_TO_CHAR[byte] for byte in range(256)}


def _raw(pretoken: str) -> str:
    if not CHAR_TO_BYTE.keys() >= set(pretoken):
        raise InputError(f"pretoken {pretoken!r} is not written in the GPT-2 byte alphabet")
    return pretoken.translate(_TO_RAW)


def _shown(raw: str) -> str:
    return raw.translate(_FROM_RAW)


def _check_corpus(corpus) -> TrainingCorpus:
    if not isinstance(corpus, TrainingCorpus):
        raise InputError(f"corpus must be a TrainingCorpus, got {type(corpus).__name__}")
    if corpus.documents is None and corpus.sequences is None:
        raise InputError(
            "BoundlessBPE needs running text: supermerges join neighbouring pretokens "
            "of a document, and this corpus only has pretoken counts (train from text, or "
            "count the text with its runs of pretokens: python -m core count --sequences)"
        )
    if not initial_alphabet(corpus.pretokeniser):
        raise InputError(
            f"BoundlessBPE works on bytes: use a byte-level pre-tokeniser (e.g. "
            f"core.families.boundless.model.boundless_pretokeniser()), got {corpus.pretokeniser!r}"
        )
    return corpus


def _option(value, name: str, allowed) -> str:
    if value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


#: what each option of :func:`train` means (``train --algorithm ... --list-options``); a test keeps
#: its keys equal to the keyword options of ``train``
OPTION_HELP: dict[str, str] = {
    "threshold": "τ: a merged part is deleted when its Intersection over Self reaches it [boundless §3.1]",
    "ios_rule": "'>=' (the authors' code) or '>' (the paper: 'exceeds') between IoS and τ",
    "blowup": "a deleted token becomes bytes (true) or the pair of the merge that formed it (false)",
    "merge_pattern": "which whole pretokens may join supermerges: improved, original or simple",
    "deleted_slots": "kept: a deleted token keeps its slot of the vocabulary size (the authors' code); "
    "freed: deletions free their slot [boundless §3.1]",
    "tie": "a merge and a supermerge of equal count: supermerge (the authors' code) or merge first",
    "name": "the tokeniser's name (train names it after --out)",
}


def train(
    corpus: TrainingCorpus,
    vocab_size: int,
    *,
    progress: Callable[[int, int], None] | None = None,
    threshold: float = 0.9,
    ios_rule: str = ">=",
    blowup: bool = True,
    merge_pattern: str = "improved",
    deleted_slots: str = "kept",
    tie: str = "supermerge",
    name: str = "",
    checkpoint: TrainingCheckpoint | None = None,
) -> TrainingRun:
    """BoundlessBPE training with the options of the module docstring.

    Events: "merge" (count = pair count c_ab; detail: IoS of both parts, the token unlocked if
    any), "deletion" (count = the token's count before the merge; detail: IoS, the merge), and
    "supermerge" (count = superword pair count). ``vocab_size`` of an event = |V| after it.
    ``progress(done, total)``: vocabulary slots filled beyond the 256 bytes, and the room left
    (every ``PROGRESS_EVERY`` steps and during long phases; it may raise to stop training).
    With ``checkpoint`` (:mod:`core.bpe.checkpoint`), its merges and supermerges
    ``[kind, left, right, count]`` are replayed first (deletions follow from them) and the steps so
    far are written to it as training goes.
    """
    corpus = _check_corpus(corpus)
    vocab_size = check_int("vocab_size", vocab_size, 256)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not threshold > 0:
        raise InputError(f"threshold must be a positive number, got {threshold!r}")
    check_bool("blowup", blowup)
    options = {
        "threshold": threshold,
        "ios_rule": _option(ios_rule, "ios_rule", IOS_RULES),
        "blowup": blowup,
        "merge_pattern": _option(merge_pattern, "merge_pattern", tuple(MERGE_PATTERNS)),
        "deleted_slots": _option(deleted_slots, "deleted_slots", DELETED_SLOTS),
        "tie": _option(tie, "tie", TIES),
    }
    beat = Heartbeat(progress if checkpoint is None else checkpoint.watch(progress), vocab_size - 256)
    run = _Training(corpus, options, beat)
    if checkpoint is not None:
        checkpoint.source = run.recorded
    stopped = run.loop(vocab_size, checkpoint.operations if checkpoint is not None else ())
    beat.report(len(run.taken) - 256)

    tokeniser = BoundlessBPE(run.operations, corpus.pretokeniser, blowup=blowup, name=name)
    summary = {
        "merges": run.counts["merge"],
        "supermerges": run.counts["supermerge"],
        "deletions": run.counts["deletion"],
        "vocab_size": tokeniser.vocab_size,
        "slots": len(run.taken),
        "stopped": stopped,
        "supermerge_runs": len(run.runs),
        "supermerge_run_positions": len(run.runs.ids),
        "supermerge_run_occurrences": run.runs.occurrences(),
        "unique_pretokens": len(corpus.pretoken_counts),
        "options": options,
    }
    return TrainingRun(tokeniser, tuple(run.events), summary)


def _unlockable(unlockable_text: Callable[[str], bool]) -> Callable[[str], bool]:
    """The merge pattern's test on a raw token (False when its bytes are not UTF-8)."""

    def unlockable(raw: str) -> bool:
        try:
            text = raw.encode("latin-1").decode("utf-8")
        except UnicodeDecodeError:
            return False
        return unlockable_text(text)

    return unlockable


class _Training:
    """One training run: both states, the vocabulary, and the operations and events so far."""

    def __init__(self, corpus: TrainingCorpus, options: dict, beat: Heartbeat):
        self.threshold = options["threshold"]
        self.strict = options["ios_rule"] == ">"
        self.blowup = options["blowup"]
        self.freed = options["deleted_slots"] == "freed"
        self.merge_wins_ties = options["tie"] == "merge"
        self.beat = beat
        counts = corpus.pretoken_counts
        # raw strings are made where they are used, never all kept at once (10M pretokens at 1 GB of text)
        self.words = Words({_raw(p): c for p, c in counts.items()}, beat)
        unlockable = _unlockable(MERGE_PATTERNS[options["merge_pattern"]])
        self.runs = corpus.supermerge_sequences
        assert self.runs is not None  # _check_corpus
        missing = next((p for p in self.runs.pretokens if p not in counts), None)
        if missing is not None:
            raise InputError(f"pretoken {missing!r} of a supermerge run is missing from the pretoken counts")
        self.supers = Superwords(
            self.runs,
            [_raw(p) for p in self.runs.pretokens],
            lambda text: counts.get(_shown(text), 0),
            unlockable,
            beat,
        )
        # present: the vocabulary |V|. taken: strings a new merge may not form, the code's
        # vocabulary list (never shortened, "kept") or |V| itself ("freed"); the loop runs on its size.
        self.present = {chr(b) for b in range(256)}
        self.taken = self.present if self.freed else set(self.present)
        self.operations: list[tuple[str, ...]] = []
        self.events: list[TrainingEvent] = []
        self.pieces: dict[str, tuple[str, str]] = {}
        self.counts = dict.fromkeys(("merge", "deletion", "supermerge"), 0)
        self.step = 0

    def loop(self, vocab_size: int, replay=()) -> str:
        """Steps until ``vocab_size`` slots are taken or no pair is left, the first ones those of
        ``replay`` (a checkpoint's ``[kind, left, right, count]``, applied without searching: the
        states are the same whichever way a step was found); returns why it stopped."""
        words, supers, taken, beat = self.words, self.supers, self.taken, self.beat
        for number, operation in enumerate(replay, 1):
            try:
                kind, left, right, count = operation
                step = {"merge": self.merge, "supermerge": self.supermerge}[kind]
                step(count, _raw(left), _raw(right))
            except (KeyError, TypeError, ValueError, InputError):
                raise InputError(f"checkpoint step {number} {operation!r} does not fit this corpus") from None
            self.step += 1
            if self.step % PROGRESS_EVERY == 0:
                beat.report(len(taken) - 256)
        while len(taken) < vocab_size:
            word_best, super_best = words.best(taken), supers.best(taken)
            if word_best is None and super_best is None:
                return "no pairs left"
            word_count = word_best[0] if word_best else -1
            super_count = super_best[0] if super_best else -1
            if word_best and (word_count > super_count or (self.merge_wins_ties and word_count == super_count)):
                self.merge(word_count, *word_best[1])
            elif super_best:
                self.supermerge(super_count, *super_best[1])
            self.step += 1
            if self.step % PROGRESS_EVERY == 0:
                beat.report(len(taken) - 256)
        return "vocab_size reached"

    def recorded(self) -> list[list]:
        """The merges and supermerges so far as ``[kind, left, right, count]`` (a checkpoint's
        operations; deletions follow from them)."""
        done = min(len(self.operations), len(self.events))  # Ctrl-C may fall between the two appends
        steps = zip(self.operations[:done], self.events[:done], strict=True)
        return [[*operation, event.count] for operation, event in steps if operation[0] != "deletion"]

    def record(self, kind: str, parts: tuple[str, ...], count: int, detail: dict) -> None:
        self.operations.append((kind, *map(_shown, parts)))
        self.counts[kind] += 1
        label = (
            f"delete {_shown(parts[0])}"
            if kind == "deletion"
            else f"{_shown(parts[0])} + {_shown(parts[1])} -> {_shown(parts[0] + parts[1])}"
        )
        self.events.append(TrainingEvent(self.step, kind, label, count, len(self.present), detail))

    def add(self, left: str, right: str) -> dict:
        """Adds ``left + right`` to the vocabulary; the event detail naming it."""
        token = left + right
        self.present.add(token)
        self.taken.add(token)
        return {"left": _shown(left), "right": _shown(right), "token": _shown(token)}

    def merge(self, count: int, left: str, right: str) -> None:
        """A word merge, then the deletion of each part whose IoS reaches the threshold."""
        words = self.words
        token = left + right
        left_count, right_count = words.frequency[left], words.frequency[right]
        _, whole = words.merge(left, right)
        self.pieces.setdefault(token, (left, right))
        detail = {
            **self.add(left, right),
            "left_count": left_count,
            "right_count": right_count,
            "ios_left": count / left_count,
            "ios_right": count / right_count,
        }
        if whole and self.supers.unlock(token):
            detail["unlocked"] = _shown(token)
        self.record("merge", (left, right), count, detail)
        parts = ((left, left_count),) if left == right else ((left, left_count), (right, right_count))
        for part, part_count in parts:
            ios = count / part_count
            if len(part) > 1 and (ios > self.threshold if self.strict else ios >= self.threshold):
                self.delete(part, part_count, ios, token)

    def delete(self, part: str, part_count: int, ios: float, token: str) -> None:
        """Deletes ``part`` (IoS ``ios`` in the merge that made ``token``) from the words."""
        replacement = tuple(part) if self.blowup else self.pieces[part]
        blown = self.words.delete(part, replacement)
        self.present.discard(part)
        self.present.update(replacement)  # with blowup=False a deleted token may come back
        if self.freed:
            self.words.release(part)
            self.supers.release(part)
        detail = {"token": _shown(part), "ios": ios, "merge": _shown(token), "blown_up": blown}
        self.record("deletion", (part,), part_count, detail)

    def supermerge(self, count: int, left: str, right: str) -> None:
        supers = self.supers
        detail = {
            **self.add(left, right),
            "left_count": supers.occurrences(left),
            "right_count": supers.occurrences(right),
        }
        supers.merge(left, right)
        self.record("supermerge", (left, right), count, detail)
