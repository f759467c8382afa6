"""Opening a stats file (``structok stats --out stats.json``) on the distributions page: from an
upload or a path on the machine that runs the app, read with :func:`core.analysis.token_stats.read_stats_file`.

The opened file is kept in the session (:data:`OPENED_KEY`); a file that cannot be read leaves
the one opened before in place and its error, naming the file and what was expected, in
:data:`ERROR_KEY` for the page to show.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from core.analysis.token_stats import StatsFile, read_stats_file
from core.errors import InputError
from core.formats.corpora import read_bytes

UPLOAD_KEY, PATH_KEY = "stats_upload", "stats_path"
OPENED_KEY, ERROR_KEY = "stats_opened", "stats_error"
#: a stats file holds one count per token type: far below this even for the largest vocabularies
MAX_BYTES = 256 << 20
#: corpus files named in the caption before "and N more"
FILES_NAMED = 3


@dataclass(frozen=True)
class OpenedStats:
    """A stats file as opened: its name, a digest of its bytes (a cache key) and what it holds."""

    name: str
    digest: str
    file: StatsFile


def open_stats(data: bytes, name: str) -> OpenedStats:
    """The stats file ``name`` from its bytes (InputError naming it when it is not one)."""
    return OpenedStats(name, hashlib.sha256(data).hexdigest()[:16], read_stats_file(data, name))


def open_path(path: str) -> OpenedStats:
    """The stats file at ``path`` on this machine (``~`` expanded)."""
    if not path.strip():
        raise InputError("no path given; expected the path of a stats.json on the machine that runs this app")
    full = Path(path.strip()).expanduser()
    return open_stats(read_bytes(full, MAX_BYTES), str(full))


def _keep(opener, *args) -> None:
    """Open with ``opener(*args)``: the result replaces the opened file, an error is kept beside it."""
    try:
        st.session_state[OPENED_KEY] = opener(*args)
        st.session_state[ERROR_KEY] = None
    except InputError as err:
        st.session_state[ERROR_KEY] = str(err)


def on_upload() -> None:
    """The uploader's callback (removing the upload keeps the file opened from it)."""
    upload = st.session_state.get(UPLOAD_KEY)
    if upload is not None:
        _keep(open_stats, upload.getvalue(), upload.name)


def on_path() -> None:
    """The path form's callback."""
    _keep(open_path, st.session_state.get(PATH_KEY) or "")


def opened() -> OpenedStats | None:
    return st.session_state.get(OPENED_KEY)


def error() -> str | None:
    return st.session_state.get(ERROR_KEY)


def size_text(n_bytes: int) -> str:
    """A size as people read it: 812 bytes, 45.3 KB, 1.2 GB (powers of 1000)."""
    value, unit = float(n_bytes), "bytes"
    for bigger in ("KB", "MB", "GB", "TB"):
        if round(value, 1) < 1000:
            break
        value, unit = value / 1000, bigger
    return f"{n_bytes:,} bytes" if unit == "bytes" else f"{value:,.1f} {unit}"


def files_text(stats_file: StatsFile) -> str:
    """The corpus files by name, the first few, and their total size."""
    names = [Path(f["path"]).name for f in stats_file.files]
    shown = ", ".join(names[:FILES_NAMED]) + (
        f" and {len(names) - FILES_NAMED:,} more" if len(names) > FILES_NAMED else ""
    )
    count = f"{len(names):,} file{'s' if len(names) != 1 else ''}"
    return f"{count} ({shown}), {size_text(stats_file.corpus_bytes)} in all"
