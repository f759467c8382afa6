"""Opening the files a command reads: regular files only, within a named size limit.

No paper section (plumbing). A FIFO, socket or device (``/dev/zero``) is refused before a byte is
read: reading one could block for ever or never end. Every failure is an InputError naming the file
(and, from the command line, the option); an OSError such as "File name too long" included.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from core.errors import InputError

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def source_name(path) -> str:
    """``path`` as error messages name it."""
    try:
        return os.fsdecode(path)
    except TypeError:
        return repr(path)


def _check_stat(info: os.stat_result, source: str, max_bytes: int | None, option: str | None) -> int:
    """The file's size; InputError when it is no regular file or is larger than ``max_bytes``."""
    if stat.S_ISDIR(info.st_mode):
        raise InputError(_named("is a folder; expected a file", option), source)
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "a special file")
        problem = f"is {kind}, not a regular file; only regular files are read (this one could block or never end)"
        raise InputError(_named(problem, option), source)
    if max_bytes is not None and info.st_size > max_bytes:
        raise InputError(_named(f"file is {info.st_size:,} bytes; the limit is {max_bytes:,} bytes", option), source)
    return info.st_size


def check_input(path, max_bytes: int | None = None, option: str | None = None) -> int:
    """The size of the regular file at ``path``; InputError when it is missing, cannot be read, is
    no regular file, or is larger than ``max_bytes`` (``option``: the command-line option naming it)."""
    source = source_name(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(_named("no such file or folder", option), source) from None
    except (OSError, ValueError) as err:
        raise InputError(_named(f"cannot open file: {_reason(err)}", option), source) from None
    return _check_stat(info, source, max_bytes, option)


def open_input(path, max_bytes: int | None = None) -> BinaryIO:
    """The regular file at ``path`` opened for binary reading (see :func:`check_input`). It is
    opened without blocking, so a FIFO without a writer is refused rather than waited for."""
    source = source_name(path)
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise InputError(f"expected a file path, got {type(path).__name__}", source)
    try:
        handle = os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb")
    except (OSError, ValueError) as err:
        raise InputError(f"cannot open file: {_reason(err)}", source) from None
    try:
        _check_stat(os.fstat(handle.fileno()), source, max_bytes, None)
    except BaseException:
        handle.close()
        raise
    return handle


def _named(problem: str, option: str | None) -> str:
    return f"{problem} ({option})" if option else problem


def _reason(err: Exception) -> str:
    return (err.strerror if isinstance(err, OSError) else None) or str(err)
