"""Loading the tokeniser of a choice: a shipped sample, an upload (any supported file, recognised by
content), or a path or ``hf:ORG/NAME`` on the machine that runs the app (no upload: large files stay
where they are; re-read when the file's mtime or size changes). Tokenisers are kept, never mutated,
in the process-wide store of ``ui/tokeniser_store.py`` (a memory budget); every key of an upload
holds its content digest, so two sessions uploading different files under one name never see each
other's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path, PurePath

import streamlit as st

from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.formats.hf_folder import source_folder
from core.formats.locations import HF_PREFIX, resolve_hf_id, tokeniser_file_in
from core.formats.tokeniser_files import load_tokeniser, parse_merges_vocab_bytes, parse_tokeniser_bytes
from core.pipeline.named import CHOICES, PRETOKENISERS
from core.tokeniser import Tokeniser, require
from ui.tokeniser_store import store as tokeniser_store
from ui.upload_store import Upload, digest
from ui.workspace_choices import PATH_PREFIX, SAMPLE_TOKENISERS, SCENARIOS, UPLOAD_PREFIX, uploads
from viz.tokeniser_info import choice_label

INFERRED = "inferred"  # the pre-tokeniser of a merges.txt: inferred from its vocabulary
PRETOKENISER_CHOICES = (INFERRED, *CHOICES)
#: files next to a tokeniser file that loading reads too (a change to them reloads it)
COMPANION_FILES = ("vocab.json", "special_tokens_map.json", "tokenizer_config.json")


def _stored(key: tuple, message: str, load: Callable[[], Tokeniser]) -> Tokeniser:
    """The tokeniser under ``key`` in the process-wide store; ``load()`` (with a spinner) on a miss."""

    def load_with_spinner() -> Tokeniser:
        with st.spinner(message):
            return load()

    return tokeniser_store().get(key, load_with_spinner)


def stored_size(key: tuple) -> int | None:
    """Estimated bytes of the stored tokeniser under ``key`` (None when it is not stored)."""
    return tokeniser_store().size_of(key)


def sample_tokeniser(path: str) -> Tokeniser:
    return _stored(("sample", path), "Loading tokeniser…", lambda: load_tokeniser(path))


def pretokeniser_override(name: str):
    """The pre-tokeniser a merges.txt should use: None (inferred) or one of ``CHOICES``."""
    if name == INFERRED:
        return None
    if name not in CHOICES:
        raise InputError(f"unknown pre-tokeniser {name!r}; choose one of {', '.join(PRETOKENISER_CHOICES)}")
    return PRETOKENISERS[name]()


def tokeniser_upload(files: tuple[tuple[str, bytes], ...], pretokeniser: str = INFERRED) -> Upload:
    """An uploaded tokeniser: one file, or a merges.txt and its vocab.json, as (name, bytes), read with
    ``pretokeniser`` (kept as None when inferred, so the upload's id is its files' digest)."""
    return Upload("tokeniser", files, None if pretokeniser == INFERRED else pretokeniser)


def uploaded_tokeniser(upload: Upload) -> Tokeniser:
    """An uploaded tokeniser file of any supported kind, recognised by its content (two files: a
    merges.txt and its vocab.json), read with the upload's pre-tokeniser override."""
    override = pretokeniser_override(upload.pretokeniser or INFERRED)
    (filename, data), *vocab = upload.files

    def parse() -> Tokeniser:
        if vocab:
            vocab_name, vocab_data = vocab[0]
            return parse_merges_vocab_bytes(
                data, filename, vocab_data, vocab_name, name=filename, pretokeniser=override
            )
        return parse_tokeniser_bytes(data, filename, name=filename, pretokeniser=override)

    return _stored(("upload", filename, upload.id), "Reading the uploaded tokeniser…", parse)


def resolve_source(spec: str) -> Path:
    """The file that ``load_tokeniser(spec)`` reads: a file, the tokeniser file of a folder, or that
    of an ``hf:`` snapshot. Raises InputError."""
    path = resolve_hf_id(spec) if spec.startswith(HF_PREFIX) else Path(spec).expanduser()
    if path.is_dir():
        path = tokeniser_file_in(path)
    if not path.is_file():
        raise InputError("no such file or folder", spec)
    return path


def source_stamp(spec: str) -> tuple:
    """What tells a changed file apart: path, mtime and size of the file and of the files beside
    it that loading also reads."""
    path = resolve_source(spec)
    stamp = []
    for file in (path, *(path.parent / name for name in COMPANION_FILES)):
        try:
            info = file.stat()
        except OSError:
            continue
        stamp.append((str(file), info.st_mtime_ns, info.st_size))
    return tuple(stamp)


def source_folder_of(name: str) -> Path | None:
    """The folder a tokeniser choice was read from (a path's or a shipped sample's), whose
    configuration files an HF export carries over; None for an upload or a path that is gone."""
    if ("tokeniser-path", name) in uploads():
        try:
            return source_folder(resolve_source(uploads()[("tokeniser-path", name)][0]))
        except InputError:
            return None
    return source_folder(SAMPLE_TOKENISERS[name]) if name in SAMPLE_TOKENISERS else None


def path_key(spec: str, stamp: tuple, pretokeniser: str) -> tuple:
    return ("path", spec, stamp, pretokeniser)


def path_tokeniser(spec: str, stamp: tuple, pretokeniser: str = INFERRED) -> Tokeniser:
    """A tokeniser named by a path or ``hf:ORG/NAME`` (``stamp`` makes a changed file reload).

    An ``hf:`` id is resolved here and its snapshot folder loaded: ``load_tokeniser("hf:…")`` writes
    ``metadata["source"]``, which families without metadata (Unigram) do not have."""

    def load() -> Tokeniser:
        folder = resolve_hf_id(spec) if spec.startswith(HF_PREFIX) else Path(spec).expanduser()
        return load_tokeniser(folder, pretokeniser=pretokeniser_override(pretokeniser))

    return _stored(path_key(spec, stamp, pretokeniser), "Loading the tokeniser from this machine…", load)


def merge_graph_view(key: str, tokeniser: Tokeniser, needed_for: str) -> BTETokeniser:
    """``require(tokeniser, "merge_graph", needed_for)``, kept in the store by the tokeniser's content
    key (PickyBPE and BoundlessBPE build their graph on each call); CapabilityError without one."""
    if isinstance(tokeniser, BTETokeniser):  # BPE is its own merge graph (stored once, as itself)
        return tokeniser
    return _stored(
        ("merge-graph", key), "Building the merge graph…", lambda: require(tokeniser, "merge_graph", needed_for)
    )


def sample_metadata(name: str) -> Mapping:
    """The metadata of a shipped scenario (its title, words, explanation); empty for other choices."""
    if name in SCENARIOS:
        try:
            return sample_tokeniser(SAMPLE_TOKENISERS[name]).metadata
        except InputError:
            pass
    return {}


def tokeniser_label(name: str) -> str:
    """How a tokeniser choice reads in a chooser: its name and what it is (a scenario's title); a path
    starts with its folder and file name, so that a narrow chooser still tells paths apart."""
    if name.startswith(PATH_PREFIX):
        path = PurePath(name[len(PATH_PREFIX) :])
        return f"{path.parent.name}/{path.name} · {name}" if path.parent.name else name
    return choice_label(name, sample_metadata(name))


def load_tokeniser_choice(name: str) -> tuple[Tokeniser, str]:
    """The tokeniser of a choice and a key identifying its content; raises InputError."""
    if ("tokeniser-path", name) in uploads():
        spec, pretokeniser = uploads()[("tokeniser-path", name)]
        stamp = source_stamp(spec)
        key = f"{name}@{pretokeniser}@{digest(repr(stamp).encode())}"
        return path_tokeniser(spec, stamp, pretokeniser), key
    if name.startswith(UPLOAD_PREFIX):
        upload = uploads()[("tokeniser", name)]
        return uploaded_tokeniser(upload), name + "@" + upload.id
    return sample_tokeniser(SAMPLE_TOKENISERS[name]), name
