"""Writing result files (tokenisers, reports): every failure an InputError naming the file.

No paper section (plumbing).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from core.errors import InputError


def check_output_path(path: str | Path) -> Path:
    """``path`` as a Path when a file can be written there (its folder exists, it is no folder);
    InputError otherwise. Commands check their outputs before the work, not after it."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a folder; expected the name of a file to write", str(path))
    if not path.parent.is_dir():
        raise InputError(f"folder {str(path.parent)!r} does not exist", str(path))
    return path


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` (see :func:`check_output_path`)."""
    path = check_output_path(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", os.fspath(path)) from None


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, renamed into place: readers see
    the old file or the whole new one, never a part. Raises OSError (the temporary file removed)."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
