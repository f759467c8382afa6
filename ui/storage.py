"""Where the explorer keeps files on the server's disk: result caches and uploaded files.

One folder, ``$EXPLORER_CACHE_DIR`` (default ``~/.cache/structured-tokenisers/explorer``), with a
subfolder per kind (``results``, ``uploads``). Outside git, kept across server restarts.
"""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import InputError

MB = 1024 * 1024
ENV = "EXPLORER_CACHE_DIR"
DEFAULT = Path("~/.cache/structured-tokenisers/explorer")


def storage_dir(kind: str) -> Path:
    """The folder for ``kind`` (created on first use)."""
    folder = Path(os.environ.get(ENV) or DEFAULT).expanduser() / kind
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def env_megabytes(env: str, default_mb: int) -> int:
    """A size budget in bytes: ``$env`` whole megabytes (1 or more), else ``default_mb``."""
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default_mb * MB
    if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
        raise InputError(f"{env} must be a whole number of megabytes (1 or more), not {raw[:40]!r}")
    return int(raw) * MB
