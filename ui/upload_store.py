"""Uploaded files kept on the server's disk under their content digest, so a link can name them.

A link carries ``upload:<id>`` instead of a file, so it names exactly what was uploaded: any session of the same
server finds the file here (``ui.storage.storage_dir("uploads")``, a folder per kind: one file can be
both a corpus and references). An entry is its files ``<id>.0`` (and ``<id>.1``: the vocab.json of a
merges.txt) and a JSON sidecar ``<id>.json`` with the kind, the original file names and the
pre-tokeniser override. The id is :func:`digest` of the files and the override (so a merges.txt read
two ways is two entries). Every file is written to a temporary file and renamed into place, the
sidecar last: an entry with a sidecar is complete.

Read back, an entry whose sidecar is unreadable, whose files are missing or too large, or whose
files no longer hash to its id is ignored and removed: a bad file on disk is "not in the store",
never a traceback. The folder's size is bounded (:data:`BUDGET_ENV`, :data:`DEFAULT_BUDGET_MB`):
the entries used least recently (file times, refreshed on each use) go first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from core.errors import InputError
from core.formats.output_files import write_atomically
from ui.storage import MB, env_megabytes, storage_dir

BUDGET_ENV = "EXPLORER_UPLOAD_STORE_MB"
DEFAULT_BUDGET_MB = 2048
KINDS = ("tokeniser", "reference", "corpus")
ID = re.compile(r"[0-9a-f]{32}")
MAX_SIDECAR_BYTES = 64 * 1024
MAX_NAME = 255
_LOCK = threading.Lock()  # one writer (or evictor) at a time in this server process


def digest(data: bytes, *more: bytes | None) -> str:
    """A content digest of ``data`` and the ``more`` blobs that go with it (None: absent)."""
    hashed = hashlib.sha256(data)
    for blob in more:
        if blob is not None:
            hashed.update(b"+%d:" % len(blob))
            hashed.update(blob)
    return hashed.hexdigest()[:32]


@dataclass(frozen=True)
class Upload:
    """An accepted upload: its kind, its files as (original name, bytes), and for a tokeniser the
    pre-tokeniser override it is read with (None: none)."""

    kind: str
    files: tuple[tuple[str, bytes], ...]
    pretokeniser: str | None = None

    @cached_property
    def id(self) -> str:
        override = None if self.pretokeniser is None else b"pretokeniser=" + self.pretokeniser.encode()
        return digest(*(data for _, data in self.files), override)

    @property
    def size(self) -> int:
        return sum(len(data) for _, data in self.files)


def budget() -> int:
    """The store's size budget in bytes (``$EXPLORER_UPLOAD_STORE_MB``, else 2 GB)."""
    return env_megabytes(BUDGET_ENV, DEFAULT_BUDGET_MB)


def _folder(kind: str) -> Path:
    """The folder of one kind's entries (created on first use; OSError when it cannot be)."""
    folder = storage_dir("uploads") / kind
    folder.mkdir(exist_ok=True)
    return folder


def _each_file(folder: Path, upload_id: str, action) -> None:
    """``action(path)`` on every file of an entry (temporary ones too); best effort: a file that
    vanished or refuses meanwhile is left as it is."""
    for path in folder.glob(upload_id + ".*"):
        with contextlib.suppress(OSError):
            action(path)


def _remove(folder: Path, upload_id: str) -> None:
    _each_file(folder, upload_id, Path.unlink)


def _touch(folder: Path, upload_id: str) -> None:
    """Mark an entry as just used (eviction goes by the files' modification times)."""
    _each_file(folder, upload_id, os.utime)


def put(upload: Upload) -> str:
    """Keep ``upload`` (once: a stored entry is only marked as used); returns its id. Raises
    InputError when it alone exceeds the budget, OSError when the disk refuses."""
    limit = budget()
    if upload.size > limit:
        raise InputError(
            f"the server keeps at most {limit // MB:,} MB of uploads ({BUDGET_ENV}) and this "
            f"one has {upload.size / MB:,.1f} MB"
        )
    folder, upload_id = _folder(upload.kind), upload.id
    with _LOCK:
        if (folder / f"{upload_id}.json").is_file():
            _touch(folder, upload_id)
        else:
            for number, (_, data) in enumerate(upload.files):
                write_atomically(folder / f"{upload_id}.{number}", data)
            sidecar = {
                "kind": upload.kind,
                "names": [name for name, _ in upload.files],
                "pretokeniser": upload.pretokeniser,
            }
            write_atomically(folder / f"{upload_id}.json", json.dumps(sidecar).encode())
        evict(limit, keep=upload)
    return upload_id


def has(kind: str, upload_id: str) -> bool:
    """Whether the store holds a complete ``kind`` entry under ``upload_id`` (not read: see :func:`get`)."""
    try:
        return kind in KINDS and bool(ID.fullmatch(upload_id)) and (_folder(kind) / f"{upload_id}.json").is_file()
    except OSError:  # the folder cannot be made
        return False


def _sidecar(folder: Path, upload_id: str) -> dict | None:
    """The sidecar of an entry if it is well formed, else None."""
    path = folder / f"{upload_id}.json"
    if path.stat().st_size > MAX_SIDECAR_BYTES:
        return None
    sidecar = json.loads(path.read_bytes())
    if not isinstance(sidecar, dict):
        return None
    names, override = sidecar.get("names"), sidecar.get("pretokeniser")
    well_formed = (
        sidecar.get("kind") in KINDS
        and isinstance(names, list)
        and len(names) in (1, 2)
        and all(isinstance(name, str) and 0 < len(name) <= MAX_NAME for name in names)
        and (override is None or isinstance(override, str))
    )
    return sidecar if well_formed else None


def _read(kind: str, upload_id: str, max_bytes: int) -> Upload | None:
    """The entry as stored, None when its sidecar is bad; OSError or ValueError when a file is."""
    folder = _folder(kind)
    sidecar = _sidecar(folder, upload_id)
    if sidecar is None or sidecar["kind"] != kind:
        return None
    paths = [folder / f"{upload_id}.{number}" for number in range(len(sidecar["names"]))]
    if any(path.stat().st_size > max_bytes for path in paths):
        raise ValueError("a file is larger than the upload limit")
    return Upload(
        sidecar["kind"],
        tuple(zip(sidecar["names"], map(Path.read_bytes, paths), strict=True)),
        sidecar.get("pretokeniser"),
    )


def get(kind: str, upload_id: str, max_bytes: int) -> Upload | None:
    """The ``kind`` upload stored under ``upload_id``, or None: an id that is not 32 hex digits, an
    entry that is absent, or one that is bad on disk (then removed: a bad sidecar, a missing file, a
    file over ``max_bytes`` or one that no longer hashes to the id)."""
    if not has(kind, upload_id):
        return None
    folder = _folder(kind)
    with _LOCK:
        try:
            upload = _read(kind, upload_id, max_bytes)
        except (OSError, ValueError, RecursionError):  # unreadable, missing, not JSON or nested too deep
            upload = None
        if upload is None or upload.id != upload_id:
            _remove(folder, upload_id)
            return None
        _touch(folder, upload_id)
        return upload


def evict(limit: int, keep: Upload | None = None) -> None:
    """Remove the least recently used entries (and stray temporary files) until the store holds at
    most ``limit`` bytes; never the entry ``keep``. Call with the lock held."""
    entries: dict[tuple[str, str], list[int]] = {}  # (kind, id) -> [bytes, latest use]
    for kind in KINDS:
        for path in _folder(kind).iterdir():
            upload_id = path.name.partition(".")[0]
            try:
                info = path.stat()
            except OSError:
                continue
            if ID.fullmatch(upload_id):
                entry = entries.setdefault((kind, upload_id), [0, 0])
                entry[0] += info.st_size
                entry[1] = max(entry[1], info.st_mtime_ns)
    total = sum(size for size, _ in entries.values())
    for (kind, upload_id), (size, _) in sorted(entries.items(), key=lambda item: item[1][1]):
        if total <= limit:
            break
        if keep is None or (kind, upload_id) != (keep.kind, keep.id):
            _remove(_folder(kind), upload_id)
            total -= size
