"""Adding to this session's choices: an uploaded tokeniser, reference set or corpus, or a tokeniser
named by a path or ``hf:ORG/NAME``. Uploads are kept in ``st.session_state`` (as
``ui.upload_store.Upload``, see :func:`ui.workspace_choices.uploads`) so they survive page switches;
each is validated by reading it, and a bad one never replaces what was loaded before (InputError
leaves everything as it was)."""

from __future__ import annotations

from pathlib import Path

from core.errors import InputError
from core.formats.locations import HF_PREFIX
from ui.path_policy import check_allowed
from ui.references_corpora import check_corpus_upload, uploaded_references
from ui.tokeniser_loading import (
    COMPANION_FILES,
    INFERRED,
    path_tokeniser,
    source_stamp,
    tokeniser_upload,
    uploaded_tokeniser,
)
from ui.upload_store import Upload
from ui.workspace_choices import HUB_PREFIX, MAX_UPLOAD_BYTES, PATH_PREFIX, UPLOAD_PREFIX, uploads


def _check_size(upload: Upload) -> None:
    for filename, data in upload.files:
        if len(data) > MAX_UPLOAD_BYTES:
            raise InputError(f"file is {len(data):,} bytes; the limit is {MAX_UPLOAD_BYTES:,}", filename)


def accept(upload: Upload) -> str:
    """Validate an upload (its size, then by reading it as its kind) and keep it in this session;
    returns its choice name: ``upload: <file name>``, or with the start of its id when this session
    already has another file of that name. InputError leaves everything as it was."""
    _check_size(upload)
    filename, data = upload.files[0]
    if upload.kind == "tokeniser":
        uploaded_tokeniser(upload)
    elif upload.kind == "reference":
        uploaded_references(data, filename)
    else:
        check_corpus_upload(data, filename)
    name = UPLOAD_PREFIX + filename
    held = uploads().get((upload.kind, name))
    if held is not None and held.id != upload.id:
        name += f" ({upload.id[:8]})"
    uploads()[(upload.kind, name)] = upload
    return name


def add_upload(kind: str, filename: str, data: bytes) -> str:
    """Validate and keep an uploaded reference set or corpus; returns its choice name. InputError
    leaves everything as it was."""
    return accept(Upload(kind, ((filename, data),)))


def add_merges_upload(filename: str, data: bytes, vocab_name: str, vocab: bytes, pretokeniser: str = INFERRED) -> str:
    """Validate and keep a merges.txt together with its vocab.json (a tokeniser choice)."""
    return accept(tokeniser_upload(((filename, data), (vocab_name, vocab)), pretokeniser))


def add_tokeniser_upload(filename: str, data: bytes, pretokeniser: str = INFERRED) -> str:
    """Validate and keep an uploaded tokeniser file of any kind (recognised by content)."""
    return accept(tokeniser_upload(((filename, data),), pretokeniser))


def add_path(spec: str, pretokeniser: str = INFERRED) -> str:
    """Validate and keep a tokeniser named by a path (file or folder) or ``hf:ORG/NAME`` on the
    machine that runs the app, inside the folders the server allows (``ui.path_policy``); returns its
    choice name. InputError leaves everything as it was."""
    spec = spec.strip()
    if not spec:
        raise InputError("type a path to a tokeniser file or folder, or hf:ORG/NAME")
    check_allowed(spec, COMPANION_FILES)
    if spec.startswith(HF_PREFIX):
        name = HUB_PREFIX + spec[len(HF_PREFIX) :]
    else:
        spec = str(Path(spec).expanduser().resolve())
        name = PATH_PREFIX + spec
    path_tokeniser(spec, source_stamp(spec), pretokeniser)
    uploads()[("tokeniser-path", name)] = (spec, pretokeniser)
    return name


def set_pretokeniser(name: str, pretokeniser: str) -> bool:
    """Re-read the uploaded or path choice ``name`` with another pre-tokeniser override (merges.txt);
    False for a shipped tokeniser. InputError leaves everything as it was."""
    if ("tokeniser-path", name) in uploads():
        spec, _ = uploads()[("tokeniser-path", name)]
        check_allowed(spec, COMPANION_FILES)
        path_tokeniser(spec, source_stamp(spec), pretokeniser)
        uploads()[("tokeniser-path", name)] = (spec, pretokeniser)
        return True
    if ("tokeniser", name) in uploads():
        upload = tokeniser_upload(uploads()[("tokeniser", name)].files, pretokeniser)
        uploaded_tokeniser(upload)
        uploads()[("tokeniser", name)] = upload
        return True
    return False


def pretokeniser_of(name: str) -> str:
    """The pre-tokeniser override of a tokeniser choice (``INFERRED`` unless one was chosen)."""
    if ("tokeniser-path", name) in uploads():
        return uploads()[("tokeniser-path", name)][1]
    upload = uploads().get(("tokeniser", name))
    return (upload.pretokeniser if upload is not None else None) or INFERRED
