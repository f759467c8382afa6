"""Resumable training: a checkpoint folder holding the operations learnt so far and a fingerprint
of the run that learnt them.

No paper section: plumbing. A trainer that can resume (BPE, BoundlessBPE) takes a
:class:`TrainingCheckpoint`, replays its operations first (applying each without searching for
the best pair) and then searches on; it names a function returning its operations so far
(:attr:`TrainingCheckpoint.source`), which is written, atomically, every ``every`` seconds (timed
at the trainer's progress reports) and by :meth:`TrainingCheckpoint.save` (the command line does
so on Ctrl-C). The fingerprint (algorithm, options, vocabulary size, pretokeniser, a hash of the
pretoken counts and of the supermerge runs) must match for a resume; else InputError naming what
differs.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from core.counting.corpus import TrainingCorpus
from core.deadline import Progress
from core.errors import InputError

#: the checkpoint file inside the folder
FILE = "checkpoint.json"
FORMAT, VERSION = "training-checkpoint", 1
#: default seconds between two checkpoints
EVERY = 300.0


def _hash_strings_and_counts(digest, items) -> None:
    for text, count in items:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little") + data + int(count).to_bytes(16, "little", signed=True))


def corpus_hash(corpus: TrainingCorpus, supermerges: bool) -> str:
    """SHA-256 of the pretoken counts (in sorted order) and, with ``supermerges``, of the
    supermerge runs (:class:`core.counting.sequences.PretokenSequences`, canonical by
    construction)."""
    digest = hashlib.sha256()
    _hash_strings_and_counts(digest, sorted(corpus.pretoken_counts.items()))
    runs = corpus.supermerge_sequences if supermerges else None
    if runs is not None:
        _hash_strings_and_counts(digest, ((p, 0) for p in runs.pretokens))
        for array in (runs.ids, runs.offsets, runs.counts):
            digest.update(array.tobytes())
    return digest.hexdigest()


def fingerprint(algorithm: str, corpus: TrainingCorpus, vocab_size: int, options: dict) -> dict:
    """What must be equal for a checkpoint to be resumed."""
    return {
        "algorithm": algorithm,
        "vocab_size": vocab_size,
        "options": options,
        "pretokeniser": corpus.pretokeniser.to_spec(),
        "corpus": corpus_hash(corpus, supermerges=algorithm == "boundless"),
    }


class TrainingCheckpoint:
    """The checkpoint in ``folder``: :attr:`operations` to replay (none for a new folder), and
    the writing of the trainer's operations (:attr:`source`) every ``every`` seconds."""

    def __init__(
        self,
        folder: str | Path,
        run: dict,
        *,
        every: float = EVERY,
        clock: Callable[[], float] = time.monotonic,
    ):
        if not every > 0:
            raise InputError(
                f"the checkpoint interval (--checkpoint-every) must be a positive number of seconds, got {every!r}"
            )
        self.folder, self.path = Path(folder), Path(folder) / FILE
        self.run, self.every, self._clock = run, every, clock
        self.operations: list[list] = self._load()
        self.source: Callable[[], list] | None = None
        self._next = clock() + every

    def _load(self) -> list[list]:
        if self.folder.exists() and not self.folder.is_dir():
            raise InputError(f"--checkpoint {self.folder}: expected a folder, found a file")
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT or data.get("version") != VERSION:
                raise ValueError
            saved, operations = data["run"], data["operations"]
            if not isinstance(operations, list) or not all(isinstance(op, list) for op in operations):
                raise ValueError
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise InputError(f"not a training checkpoint (format {FORMAT} {VERSION})", str(self.path)) from None
        differs = [
            f"{key} {json.dumps(self.run.get(key), ensure_ascii=False)} here, "
            f"{json.dumps(saved.get(key), ensure_ascii=False)} in the checkpoint"
            for key in sorted(set(self.run) | set(saved))
            if self.run.get(key) != saved.get(key)
        ]
        if differs:
            raise InputError(
                "this checkpoint belongs to another training run (" + "; ".join(differs) + "): "
                "rerun the command that made it, or pass another --checkpoint folder",
                str(self.path),
            )
        return operations

    def watch(self, progress: Progress | None) -> Progress:
        """``progress`` that also writes the checkpoint when ``every`` seconds have passed."""

        def report(done: int, total: int) -> None:
            if progress is not None:
                progress(done, total)
            if self._clock() >= self._next:
                self.save()

        return report

    def save(self) -> int:
        """Writes the operations so far (temp file + rename); returns how many there are."""
        operations = self.source() if self.source is not None else self.operations
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {"format": FORMAT, "version": VERSION, "run": self.run, "operations": operations}
        temporary = self.path.with_name(FILE + ".tmp")
        temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, self.path)
        self._next = self._clock() + self.every
        return len(operations)


def cannot_resume(algorithm: str) -> InputError:
    """The error for ``--checkpoint`` with a trainer that cannot replay its steps."""
    return InputError(
        f"cannot resume {algorithm} training: its trainer records no steps to replay (only bpe and boundless do); "
        "it restarts from the beginning, so run it without --checkpoint"
    )
