"""Finished knockout / ReBPE runs, blocked-merge scans and reparations as compact JSON archives.

No algorithm here: the results of ``core.edits.rebpe`` ([knockout §3], [rebpe Alg. 1-2]) and
``core.edits.blocked`` ([rebpe §3.1, App. A]) written down so they need not be computed again, and read
back equal (every step report field, every step tokeniser's ``to_json()``).

A run of ReBPE on a 40k vocabulary has about 20 steps, each with the tokeniser after it. They are
stored as *deltas*: the merges a step removed and added (as indices into one table of every merge
the archive mentions, so a merge shared by several steps and reports is written once), and the
changes of alphabet, ids and name; :func:`apply_delta` rebuilds a tokeniser from the one before it
with ``BTETokeniser.with_merges``. Merge origins are stored as a delta against the step before too.
The tokeniser a run starts from is an input, not a result: it is not stored, and reading a run
needs it (the archive's key, :func:`content_key`, covers its content).

Archives are gzip-compressed JSON with a format name and :data:`VERSION`: bump the version when
the results or their encoding change, and every archive written before is ignored (and computed
again). Nothing is pickled (tokenisers hold read-only mappings, and a pickle is unsafe to ship).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from core.bpe.model import CARRIED_METADATA, BTETokeniser, Merge
from core.edits.blocked import AlternativeExample, BlockedMerge, BlockedReport
from core.edits.knockout import id_lineage, restore_id_lineage
from core.edits.steps import PREEXISTING, AnnealingDiagnostics, StepReport
from core.formats.output_files import write_atomically
from core.gc_pause import cyclic_gc_paused
from core.references.evaluation import MorphScores

FORMAT = "structured-tokenisers-results"
VERSION = 2  # bump to invalidate every archive (disk cache and sample_data/precomputed)

_DIGESTS: weakref.WeakKeyDictionary[BTETokeniser, str] = weakref.WeakKeyDictionary()


class NotArchivable(ValueError):
    """A result this encoding cannot represent exactly (it is then simply not archived)."""


# --- content keys ------------------------------------------------------------------------------------
def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def tokeniser_digest(tokeniser: BTETokeniser) -> str:
    """A digest of the tokeniser's content (its canonical ``to_json()``), computed once per object."""
    found = _DIGESTS.get(tokeniser)
    if found is None:
        with cyclic_gc_paused():
            content = tokeniser.to_json()
            # the two big members in their own canonical order, which is cheaper than sorting keys
            merges, ids = content.pop("merges", None), content.pop("type_ids", None)
            ids = sorted(ids.items(), key=lambda item: (item[1], item[0])) if isinstance(ids, dict) else ids
            found = _sha256(json.dumps([content, merges, ids], sort_keys=True, ensure_ascii=False, default=repr))
        _DIGESTS[tokeniser] = found
    return found


def derived_digest(tokeniser: BTETokeniser, *made_by: str) -> None:
    """Give ``tokeniser`` the digest of how it was made (e.g. a run's content key), so a result keyed
    by it needs no digest of its whole content (a deterministic computation makes the same tokeniser).
    A tokeniser that has a digest keeps it (a run that changed nothing ends on its start tokeniser)."""
    _DIGESTS.setdefault(tokeniser, _sha256(json.dumps(["derived", *made_by])))


def words_digest(words: Iterable[str]) -> str:
    return _sha256(json.dumps(list(words), ensure_ascii=False))


def references_digest(entries: Iterable) -> str:
    """A digest of reference entries (``core.references.files.ReferenceEntry``): word and both
    segmentations, in order (the line numbers play no part in a run)."""
    return _sha256(
        json.dumps(
            [[e.word, list(e.morphs), None if e.free_morphs is None else list(e.free_morphs)] for e in entries],
            ensure_ascii=False,
        )
    )


def content_key(kind: str, *parts: str) -> str:
    """The key of a result: its kind, the digests and settings it depends on, and :data:`VERSION`."""
    return _sha256(json.dumps([FORMAT, VERSION, kind, *parts], ensure_ascii=False))


# --- files ----------------------------------------------------------------------------------------
def archive_text(kind: str, key: str, body: Mapping[str, Any]) -> str:
    """The JSON text of an archive; the same for the same body (no timestamp)."""
    return json.dumps(
        {"format": FORMAT, "version": VERSION, "kind": kind, "key": key, **body},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def write_archive(path: Path, kind: str, key: str, body: Mapping[str, Any] | str) -> int:
    """Write ``body`` (or an :func:`archive_text` already made) atomically
    (``core.formats.output_files.write_atomically``); the bytes are the same for the same body, so
    regenerated sample archives do not churn. Returns the size."""
    text = body if isinstance(body, str) else archive_text(kind, key, body)
    data = gzip.compress(text.encode("utf-8", "surrogatepass"), compresslevel=6, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data)
    return len(data)


def parse_archive(text: str, kind: str, key: str, source: str = "<archive>") -> dict:
    """The archive in ``text``; raises ValueError when it is corrupt, of another format version, or
    not the one asked for."""
    obj = json.loads(text)
    if not (
        isinstance(obj, dict)
        and obj.get("format") == FORMAT
        and obj.get("version") == VERSION
        and obj.get("kind") == kind
        and obj.get("key") == key
    ):
        raise ValueError(f"{source}: not a {kind} archive of version {VERSION} with key {key[:12]}…")
    return obj


def read_archive(path: Path, kind: str, key: str) -> dict:
    """The archive at ``path``; raises (OSError, ValueError, ...) when it is unreadable, corrupt, of
    another format version, or not the one asked for."""
    return parse_archive(gzip.decompress(path.read_bytes()).decode("utf-8", "surrogatepass"), kind, key, path.name)


# --- merges and tokenisers ----------------------------------------------------------------------
class MergeTable:
    """Every merge an archive mentions, once: merges are written as indices into it."""

    def __init__(self) -> None:
        self.index: dict[Merge, int] = {}

    def __call__(self, merge: Merge) -> int:
        return self.index.setdefault(merge, len(self.index))

    def many(self, merges: Iterable[Merge]) -> list[int]:
        return [self(m) for m in merges]

    def to_json(self) -> list:
        return [[m.rank, list(m.parts)] for m in self.index]


def merges_from_json(raw: Sequence) -> list[Merge]:
    return [Merge(rank, tuple(parts)) for rank, parts in raw]


def _same_settings(before: BTETokeniser, after: BTETokeniser) -> bool:
    """Whether ``after`` is what ``before.with_merges`` makes: same settings, only the metadata an
    edit carries (``CARRIED_METADATA``)."""
    return (
        (after.pretokeniser is before.pretokeniser or after.pretokeniser.to_spec() == before.pretokeniser.to_spec())
        and dict(after.metadata) == {k: before.metadata[k] for k in CARRIED_METADATA if k in before.metadata}
        and all(
            getattr(after, name) == getattr(before, name)
            for name in ("specials", "ignore_merges", "unknown", "atoms", "end_of_word_suffix", "dropout")
        )
    )


def tokeniser_delta(before: BTETokeniser, after: BTETokeniser, table: MergeTable) -> dict:
    """How ``after`` differs from ``before`` (merges by table index); NotArchivable when ``after`` is
    not ``before`` with other merges, alphabet, ids or name."""
    if after is before:
        return {"same": True}
    if not _same_settings(before, after):
        raise NotArchivable(f"tokeniser {after.name!r} changes more than merges, alphabet, ids and name")
    # by identity (C speed; steps share their unchanged merges): an equal merge made anew is removed and added
    old, new = set(map(id, before.merges)), set(map(id, after.merges))
    delta: dict[str, Any] = {
        "removed": table.many(m for m in before.merges if id(m) not in new),
        "added": table.many(m for m in after.merges if id(m) not in old),
    }
    if after.alphabet != before.alphabet:
        delta["alphabet"] = list(after.alphabet)
    if after.name != before.name:
        delta["name"] = after.name
    if after.type_ids != before.type_ids:
        if after.type_ids is None:
            raise NotArchivable(f"tokeniser {after.name!r} drops the ids of the one before")
        if before.type_ids is None:
            delta["type_ids"] = dict(after.type_ids)
        else:
            delta["ids_removed"], delta["ids_set"] = _mapping_delta(before.type_ids, after.type_ids)
    return delta


def apply_delta(before: BTETokeniser, delta: Mapping, merges: Sequence[Merge]) -> BTETokeniser:
    """The tokeniser :func:`tokeniser_delta` described."""
    if delta.get("same"):
        return before
    removed = {merges[i] for i in delta["removed"]}
    kept = [m for m in before.merges if m not in removed] if removed else list(before.merges)
    type_ids = delta.get("type_ids")
    if "ids_set" in delta:
        # (written only for a tokeniser with ids of its own: before.type_ids is set)
        type_ids = _apply_mapping_delta(before.type_ids or {}, delta["ids_removed"], delta["ids_set"])
    after = before.with_merges(
        kept + [merges[i] for i in delta["added"]],
        alphabet=delta.get("alphabet"),
        name=delta.get("name"),
        type_ids=type_ids,
    )
    restore_id_lineage(before, after, delta.get("lineage"))  # so later edits give ids as derive() would
    return after


# --- step reports ------------------------------------------------------------------------------------
def scores_from_json(raw: Mapping) -> MorphScores:
    return MorphScores(**raw)


def _words_json(changed: Iterable[tuple[str, tuple[str, ...], tuple[str, ...]]]) -> list:
    return [[word, list(before), list(after)] for word, before, after in changed]


def _words_from_json(raw: Iterable) -> tuple:
    return tuple((word, tuple(before), tuple(after)) for word, before, after in raw)


def _mapping_delta(before: Mapping, after: Mapping) -> tuple[list, dict]:
    """(keys removed, entries new or changed), each in its mapping's order."""
    gone = before.keys() - after.keys()
    return [k for k in before if k in gone] if gone else [], {k: v for k, v in after.items() if before.get(k) != v}


def _apply_mapping_delta(before: Mapping, removed: Iterable, changed: Mapping) -> dict:
    out = dict(before)
    for key in removed:
        del out[key]
    out.update(changed)
    return out


def steps_to_json(start: BTETokeniser, steps: Sequence[StepReport], table: MergeTable) -> list[dict]:
    """Every step report, its tokeniser and its origins as deltas against the step before."""
    out = []
    tokeniser = start
    origins: Mapping[str, str] = {m.result: PREEXISTING for m in start.merges}
    for step in steps:
        if step.tokeniser is None:
            raise NotArchivable(f"step {step.phase} {step.iteration} keeps no tokeniser")
        out.append(
            {
                "phase": step.phase,
                "iteration": step.iteration,
                "removed": table.many(step.removed),
                "added": table.many(step.added),
                "rewired": [[table(a), table(b)] for a, b in step.rewired],
                "types_removed": list(step.types_removed),
                "types_added": list(step.types_added),
                "changed_words": _words_json(step.changed_words),
                "metrics": None if step.metrics is None else step.metrics.to_json(),
                "vocab_size": step.vocab_size,
                "tuple_merges": step.tuple_merges,
                "origins": _mapping_delta(origins, step.origins),  # [removed, set]
                "details": [dict(d) for d in step.details],
                "seconds": step.seconds,
                "annealing": None if step.annealing is None else step.annealing.to_json(),
                "tokeniser": tokeniser_delta(tokeniser, step.tokeniser, table),
            }
        )
        tokeniser, origins = step.tokeniser, step.origins
    return out


class _Chain:
    """The tokenisers of a run's steps, each rebuilt from the one before on first use (the last
    ones, which the pages need most, are rebuilt at once from the start tokeniser)."""

    def __init__(
        self, start: BTETokeniser, deltas: Sequence[Mapping], merges: Sequence[Merge], final: BTETokeniser | None
    ):
        self.start, self.deltas, self.merges = start, deltas, merges
        self.built: list[BTETokeniser | None] = [None] * len(deltas)
        self.lock = threading.Lock()
        if final is not None:  # from the last step that changed something on, the tokeniser is the final one
            last = max((i for i, d in enumerate(deltas) if not d.get("same")), default=-1)
            self.built[max(last, 0) :] = [final] * (len(deltas) - max(last, 0))

    def tokeniser(self, index: int) -> BTETokeniser:
        with self.lock:
            known, tokeniser = -1, self.start
            for i in range(index, -1, -1):
                built = self.built[i]
                if built is not None:
                    known, tokeniser = i, built
                    break
            for i in range(known + 1, index + 1):
                tokeniser = self.built[i] = apply_delta(tokeniser, self.deltas[i], self.merges)
            return tokeniser


class ArchivedStep(StepReport):
    """A step report read from an archive: its tokeniser is rebuilt when first asked for."""

    @property
    def tokeniser(self) -> BTETokeniser | None:
        state = self.__dict__
        if state.get("_given") is not None or "_chain" not in state:
            return state.get("_given")
        return state["_chain"].tokeniser(state["_index"])

    @tokeniser.setter
    def tokeniser(self, value: BTETokeniser | None) -> None:  # the dataclass constructor sets it
        self.__dict__["_given"] = value


def steps_from_json(
    start: BTETokeniser, raw: Sequence[Mapping], merges: Sequence[Merge], final: BTETokeniser | None = None
) -> tuple[StepReport, ...]:
    """The step reports :func:`steps_to_json` wrote; their tokenisers are rebuilt on first use
    (``final``, when given, is the last step's)."""
    chain = _Chain(start, [step["tokeniser"] for step in raw], merges, final)
    steps = []
    origins = {m.result: PREEXISTING for m in start.merges}
    for index, step in enumerate(raw):
        origins = _apply_mapping_delta(origins, *step["origins"])
        report = ArchivedStep(
            phase=step["phase"],
            iteration=step["iteration"],
            removed=tuple(merges[i] for i in step["removed"]),
            added=tuple(merges[i] for i in step["added"]),
            rewired=tuple((merges[a], merges[b]) for a, b in step["rewired"]),
            types_removed=tuple(step["types_removed"]),
            types_added=tuple(step["types_added"]),
            changed_words=_words_from_json(step["changed_words"]),
            metrics=None if step["metrics"] is None else scores_from_json(step["metrics"]),
            vocab_size=step["vocab_size"],
            tuple_merges=step["tuple_merges"],
            origins=origins,
            details=step["details"],
            seconds=step["seconds"],
            annealing=None if step["annealing"] is None else AnnealingDiagnostics.from_json(step["annealing"]),
        )
        report.__dict__.update(_chain=chain, _index=index)
        steps.append(report)
    return tuple(steps)


class RunParts(NamedTuple):
    """What a run archive holds (``ui.rebpe_runs.ComputedRun`` without its key and start)."""

    steps: tuple[StepReport, ...]
    tokeniser: BTETokeniser
    initial: MorphScores
    seconds: float
    unaligned: tuple[str, ...]
    words: tuple[str, ...]

    def __repr__(self) -> str:
        return (
            f"<RunParts {len(self.steps)} steps: |V| {self.tokeniser.vocab_size:,} at the end, F1 "
            f"{self.initial.f1:.4f} at the start, on {len(self.words):,} words; {self.seconds:.1f} s>"
        )


def run_to_json(start: BTETokeniser, parts: RunParts) -> dict:
    """The run as JSON: its steps (:func:`steps_to_json`) and its final tokeniser as a delta against
    the start, so reading it back rebuilds one tokeniser, not every step's."""
    if parts.tokeniser is not (parts.steps[-1].tokeniser if parts.steps else start):
        raise NotArchivable("the run's tokeniser is not its last step's")
    table = MergeTable()
    steps = steps_to_json(start, parts.steps, table)
    final = tokeniser_delta(start, parts.tokeniser, table)
    lineage = id_lineage(parts.tokeniser)  # (steps rebuilt one from the other imply theirs)
    if lineage is not None and not final.get("same"):
        final["lineage"] = lineage
    return {
        "steps": steps,
        "final": final,
        "merges": table.to_json(),
        "initial": parts.initial.to_json(),
        "seconds": parts.seconds,
        "unaligned": list(parts.unaligned),
        "words": list(parts.words),
    }


def run_from_json(obj: Mapping, start: BTETokeniser) -> RunParts:
    merges = merges_from_json(obj["merges"])
    final = apply_delta(start, obj["final"], merges)
    return RunParts(
        steps_from_json(start, obj["steps"], merges, final),
        final,
        scores_from_json(obj["initial"]),
        obj["seconds"],
        tuple(obj["unaligned"]),
        tuple(obj["words"]),
    )


# --- blocked-merge scans and reparations --------------------------------------------------------
def _merge(raw: Mapping) -> Merge:
    return Merge(raw["rank"], tuple(raw["parts"]))


def _merge_or_none(raw: Mapping | None) -> Merge | None:
    return None if raw is None else _merge(raw)


def blocked_from_json(obj: Mapping) -> BlockedReport:
    """The report ``BlockedReport.to_json()`` wrote."""
    alternatives = obj["alternatives"]
    return BlockedReport(
        blocked=tuple(
            BlockedMerge(
                _merge(b),
                tuple(b["limited_tokens"]),
                b["scenario"],
                _merge_or_none(b["blocking_merge"]),
                _merge_or_none(b["blocked_ancestor"]),
                b["explanation"],
                b["example_word"],
            )
            for b in obj["blocked"]
        ),
        unreachable_types=tuple(obj["unreachable_types"]),
        alternatives=alternatives["count"],
        alternative_types=alternatives["types"],
        lowest_ranked_not_primary=alternatives["lowest_ranked_not_primary"],
        alternative_examples=tuple(
            AlternativeExample(e["type"], _merge(e["primary"]), tuple(_merge(m) for m in e["alternatives"]))
            for e in alternatives["examples"]
        ),
        whole_only_types=tuple(obj["whole_only_types"]),
    )


class ReparationParts(NamedTuple):
    """What a reparation archive holds (``ui.rebpe_runs.Reparation``)."""

    tokeniser: BTETokeniser
    repaired: tuple[tuple[Merge, Merge], ...]
    changed_words: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]
    blocked_after: BlockedReport

    def __repr__(self) -> str:
        return (
            f"<ReparationParts {len(self.repaired):,} merges repaired, {len(self.changed_words):,} words changed, "
            f"{len(self.blocked_after.blocked):,} blocked merges after>"
        )


def reparation_to_json(target: BTETokeniser, parts: ReparationParts) -> dict:
    table = MergeTable()
    return {
        "tokeniser": tokeniser_delta(target, parts.tokeniser, table),
        "repaired": [[table(a), table(b)] for a, b in parts.repaired],
        "merges": table.to_json(),
        "changed_words": _words_json(parts.changed_words),
        "blocked_after": parts.blocked_after.to_json(),
    }


def reparation_from_json(obj: Mapping, target: BTETokeniser) -> ReparationParts:
    merges = merges_from_json(obj["merges"])
    return ReparationParts(
        apply_delta(target, obj["tokeniser"], merges),
        tuple((merges[a], merges[b]) for a, b in obj["repaired"]),
        _words_from_json(obj["changed_words"]),
        blocked_from_json(obj["blocked_after"]),
    )
