"""Which files on the server the explorer may read when a user names a path or an ``hf:`` id.

Loading by path is off unless the person running the server allows folders:
``EXPLORER_PATHS=folder[:folder…]`` (``os.pathsep`` between folders, ``~`` expanded), for example
the Hugging Face cache and the project's samples. A path is checked before anything opens it: the
file itself, the file a folder or an ``hf:`` id loads, and the files beside it that loading also
reads must all lie, symbolic links resolved, inside an allowed folder, and be regular files (never a
FIFO or a device). A refusal names the rule, never the content of any file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from core.errors import InputError
from core.formats.locations import FOLDER_FILES, HF_PREFIX, hub_cache, resolve_hf_id

ENV = "EXPLORER_PATHS"
HOW_TO_ALLOW = (
    f"start the explorer with {ENV} set to the folders it may read, e.g. "
    f"`{ENV}=~/.cache/huggingface/hub{os.pathsep}sample_data streamlit run app.py`"
)


def allowed_folders() -> tuple[Path, ...]:
    """The folders this server may read tokenisers from (resolved; empty: loading by path is off)."""
    folders = []
    for raw in os.environ.get(ENV, "").split(os.pathsep):
        if raw.strip():
            folder = Path(raw.strip()).expanduser().resolve()
            if folder.is_dir():
                folders.append(folder)
    return tuple(folders)


def path_loading_on() -> bool:
    return bool(allowed_folders())


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in folders)


def check_allowed(spec: str, companions: tuple[str, ...] = ()) -> None:
    """Raise InputError unless ``spec`` (a path, or ``hf:ORG/NAME``), the files it loads (a folder's
    tokeniser files) and the existing ``companions`` beside them lie inside an allowed folder and are
    regular files. Nothing is opened but an ``hf:`` id's ref inside the allowed cache: names are
    resolved and file types looked up."""
    folders = allowed_folders()
    if not folders:
        raise InputError(f"loading by path or hf: id is off on this server; to allow it, {HOW_TO_ALLOW}")
    if spec.startswith(HF_PREFIX):
        if not _inside(hub_cache().resolve(), folders):
            raise InputError(
                "the local Hugging Face cache is not among the folders this server may read; to allow it, "
                + HOW_TO_ALLOW
            )
        path = resolve_hf_id(spec)
    else:
        path = Path(spec).expanduser()
    if not _inside(path.resolve(), folders):
        raise InputError(f"{spec} is outside the folders this server may read; to allow it, {HOW_TO_ALLOW}")
    folder = path if path.is_dir() else path.parent
    read = [path] if not path.is_dir() else [folder / name for name in FOLDER_FILES] + list(folder.glob("*.tiktoken"))
    for file in [*read, *(folder / name for name in companions)]:
        if file != path and not file.exists():
            continue
        try:
            mode = file.stat().st_mode
        except OSError:
            continue  # missing: loading says so, with no content to show
        if not _inside(file.resolve(), folders):
            raise InputError(f"{file} links outside the folders this server may read")
        if not stat.S_ISREG(mode):
            raise InputError(f"{file} is not a regular file (a FIFO, socket or device is never read)")
