"""What the user has loaded, shared by every page: tokeniser, reference segmentations, corpus.

Streamlit glue (the only UI module pages share). Tokenisers are kept, never mutated, in the
process-wide store of ``ui/tokeniser_store.py`` (a memory budget), other engine objects through
``st.cache_resource``; every cache key of an upload holds its content digest, so two sessions
uploading different files under one name never see each other's. Uploads are kept in
``st.session_state`` (as ``ui.upload_store.Upload``) so they survive page switches, and a bad upload
never replaces what was loaded before. The choices are kept in session state too (not only in the
choosers' widget keys, which Streamlit drops on pages that do not show them).

Links: :func:`current` writes the choices into the URL (``?tokeniser=…&reference=…&corpus=…``) on
every page. A shipped sample goes by its name, an upload as ``upload:<id>`` (a copy is kept in the
server's upload store, ``ui/upload_store.py``), an ``hf:ORG/NAME`` id as itself; a path on the server
never (a link must not make the server read a path), and the page says so in a caption. A URL value
this session did not write (a link opened, or followed within the app) is validated and becomes the
choice; one that names nothing available falls back to the default with a warning saying why.

A tokeniser may be of any family (``core.tokeniser.Tokeniser``), uploaded (any supported file,
recognised by content) or named by a path or ``hf:ORG/NAME`` on the machine that runs the app
(no upload: large files stay where they are; re-read when the file's mtime or size changes).
Pages that need a merge graph ask :meth:`Workspace.with_merge_graph`, which raises
``core.tokeniser.CapabilityError`` (one line for a notice) for families without one.

It also keeps ``app.py``'s navigation in charge (:func:`ensure_app_navigation`): on a freshly
started server Streamlit treats ``pages/`` as a legacy multipage folder until ``st.navigation`` has
run once, so a first request to ``/merge_graph`` would run that page file alone. Importing this
module (every page does) or calling :func:`current` reroutes such a run through ``app.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.formats.corpora import (
    decode_utf8,
    load_word_counts,
    parse_word_count_bytes,
    split_lines,
    word_counts_from_text,
)
from core.formats.locations import HF_PREFIX, resolve_hf_id, tokeniser_file_in
from core.formats.samples import count_paths, reference_paths, running_text, tokeniser_paths
from core.formats.tokeniser_files import load_tokeniser, parse_merges_vocab_bytes, parse_tokeniser_bytes
from core.pipeline.named import CHOICES, PRETOKENISERS
from core.references.files import ReferenceSet, load_references, parse_reference_bytes
from core.tokeniser import Tokeniser, require
from ui import upload_store
from ui.tokeniser_store import store as tokeniser_store
from ui.upload_store import Upload, digest
from ui.url_state import write_to_url
from viz.escaping import code_span, md_escape
from viz.tokeniser_info import choice_label, tokeniser_choices

SAMPLE_TOKENISERS = tokeniser_choices(tokeniser_paths())  # short name -> path
SAMPLE_REFERENCES = {name: str(path) for name, path in reference_paths().items()}
SAMPLE_CORPORA = ("python-docs (English, stdlib pydoc_data)",)
DEFAULT_TOKENISER = next(iter(SAMPLE_TOKENISERS))
DEFAULT_REFERENCE = "nl_morph"
DEFAULT_CORPUS = SAMPLE_CORPORA[0]
SAMPLE_COUNTS = {name: str(path) for name, path in count_paths().items()}  # nl_wordfreq, en_wordfreq
SCENARIOS = [name for name in SAMPLE_TOKENISERS if name.startswith(("a1_", "a3_"))]  # [rebpe App. A]
UPLOAD_PREFIX = "upload: "
PATH_PREFIX = "path: "  # a tokeniser named by a path on the machine that runs the app
HUB_PREFIX = "hf: "  # ... or by hf:ORG/NAME in its local Hugging Face cache
SESSION_PREFIXES = (UPLOAD_PREFIX, PATH_PREFIX, HUB_PREFIX)  # choices a session adds to the samples
LINK_UPLOAD = "upload:"  # a link names an upload as upload:<id> (ui/upload_store.py)
#: an hf: id a link may carry: ORG/NAME[@REVISION] without path separators or leading dots
HF_LINK = re.compile(r"hf:[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*(@[A-Za-z0-9][\w.-]*)?", re.ASCII)
CHOICES_KEY = "workspace_choices"  # session state: the choices by kind (see selected())
LINKED_KEY = "workspace_linked"  # ... the URL value of each kind as last written or followed
MISSES_KEY = "workspace_link_misses"  # ... links that named nothing available: kind -> (message, fallback)
UNSTORED_KEY = "workspace_unstored"  # ... upload id -> why the upload store refused it
MAX_UPLOAD_BYTES = 200 * 1024 * 1024
INFERRED = "inferred"  # the pre-tokeniser of a merges.txt: inferred from its vocabulary
PRETOKENISER_CHOICES = (INFERRED, *CHOICES)
#: files next to a tokeniser file that loading reads too (a change to them reloads it)
COMPANION_FILES = ("vocab.json", "special_tokens_map.json", "tokenizer_config.json")


def ensure_app_navigation() -> None:
    """Reroute a legacy multipage run through ``app.py``.

    Until ``st.navigation`` has run once in a server process, Streamlit treats ``pages/`` as a v1
    multipage folder: the first request to ``/<file stem>`` runs ``pages/<file stem>.py`` on its
    own, without ``app.py``'s page config and navigation. Switching the legacy mode off and
    rerunning makes the same request go through ``app.py``, whose ``st.navigation`` then picks the
    page by its ``url_path`` (which therefore equals the file stem, see ``app.py``).
    """
    if PagesManager.uses_pages_directory and get_script_run_ctx() is not None:
        PagesManager.uses_pages_directory = False
        st.rerun()


def is_session_choice(name: str) -> bool:
    """An upload or a path: a choice this session added (its name alone does not say its content)."""
    return name.startswith(SESSION_PREFIXES)


@dataclass(frozen=True)
class Workspace:
    tokeniser_name: str
    tokeniser: Tokeniser
    reference_name: str
    references: ReferenceSet
    corpus_name: str
    tokeniser_key: str = ""  # identifies the tokeniser's content (name, plus a digest for uploads)
    reference_key: str = ""
    merge_graph_of: str = ""  # set on a merge-graph view of a family that is not BPE itself: its kind
    corpus_key: str = ""

    def corpus_lines(self, limit: int | None = None) -> list[str]:
        return corpus_lines(self.corpus_name, limit)

    def corpus_counts(self) -> dict[str, int]:
        """Whitespace-separated word counts of the corpus (cached by its content key)."""
        return corpus_counts(self.corpus_key or self.corpus_name, self.corpus_lines)

    @property
    def counts_name(self) -> str | None:
        """The shipped word counts in the tokeniser's language (None for an upload)."""
        return counts_for(self.tokeniser_name)

    @property
    def metadata(self) -> Mapping:
        """The tokeniser's metadata, read-only (families without any give an empty mapping)."""
        metadata = getattr(self.tokeniser, "metadata", None)
        return metadata if isinstance(metadata, Mapping) else {}

    def with_merge_graph(self, needed_for: str) -> Workspace:
        """This workspace with the tokeniser's merge graph (a ``BTETokeniser``) as its tokeniser.

        BPE is its own merge graph (the same workspace comes back); Scaffold-BPE, PickyBPE and
        BoundlessBPE give their merge lists as one (a separate cache key, and ``merge_graph_of``
        names the family). Raises ``CapabilityError`` (an ``InputError`` whose one-line message
        starts with ``needed_for``) for a family without one, e.g. Unigram.
        """
        if self.merge_graph_of:
            return self
        graph = merge_graph_view(self.tokeniser_key or self.tokeniser_name, self.tokeniser, needed_for)
        if graph is self.tokeniser:
            return self
        return replace(
            self,
            tokeniser=graph,
            tokeniser_key=(self.tokeniser_key or self.tokeniser_name) + "#merge-graph",
            merge_graph_of=self.tokeniser.kind,
        )

    def graph_note(self) -> str | None:
        """A caption for views drawn on the merge graph of another family (None for BPE)."""
        if not self.merge_graph_of:
            return None
        return (
            f"This {self.merge_graph_of} tokeniser is shown through its merge graph (the merges it learnt, "
            "read as BPE): its own segmentation can differ (e.g. scaffold tokens demolished, PickyBPE "
            "removals, BoundlessBPE supermerges and deletions)."
        )


# --- loaders: tokenisers are kept within a memory budget (ui/tokeniser_store.py) -----------------------
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


@st.cache_resource(show_spinner="Loading reference segmentations…", max_entries=16)
def sample_references(path: str) -> ReferenceSet:
    return load_references(path)


@st.cache_resource(show_spinner="Reading the uploaded references…", max_entries=8)
def uploaded_references(data: bytes, filename: str) -> ReferenceSet:
    return parse_reference_bytes(data, filename, max_bytes=MAX_UPLOAD_BYTES)


def corpus_lines(name: str, limit: int | None = None) -> list[str]:
    """Lines of a corpus: the shipped running text, or an uploaded plain-text file."""
    upload = st.session_state.get("uploads", {}).get(("corpus", name))
    if upload is not None:
        return _text_lines(upload.files[0][1], limit)
    return _sample_lines(limit)


@st.cache_data(show_spinner=False, max_entries=8)
def _text_lines(data: bytes, limit: int | None) -> list[str]:
    """The non-blank lines of an upload that :func:`check_corpus_upload` accepted (split as the CLI does)."""
    lines = [line for line in split_lines(decode_utf8(data, "corpus")) if line.strip()]
    return lines if limit is None else lines[:limit]


@st.cache_data(show_spinner=False, max_entries=4)
def _sample_lines(limit: int | None) -> list[str]:
    lines = list(running_text())
    return lines if limit is None else lines[:limit]


def counts_for(tokeniser_name: str) -> str | None:
    """The shipped word counts matching a shipped tokeniser's language: English for the ``en-``
    tokenisers, Dutch for the others (the Dutch 40k, the Dutch wordfreq BPE and the scenarios,
    whose words are Dutch); None for an upload."""
    if is_session_choice(tokeniser_name):
        return None
    return "en_wordfreq" if tokeniser_name.startswith("en") else "nl_wordfreq"


@st.cache_resource(show_spinner="Loading word counts…", max_entries=4)
def sample_counts(name: str) -> dict[str, int]:
    """Shipped word counts (``word<TAB>count``) by name, e.g. ``nl_wordfreq``."""
    return load_word_counts(SAMPLE_COUNTS[name])


@st.cache_resource(show_spinner="Counting the words of the corpus…", max_entries=4)
def corpus_counts(corpus_key: str, _lines: Callable[[], list[str]]) -> dict[str, int]:
    """Whitespace-separated word counts of the corpus whose content key is ``corpus_key``
    (``Workspace.corpus_key``: uploads of one name differ by digest); ``_lines()`` reads it."""
    return dict(word_counts_from_text(_lines()))


# --- uploads ----------------------------------------------------------------------------------------
def uploads() -> dict[tuple[str, str], object]:
    """This session's uploads and paths by (kind, choice name): an ``Upload`` under its kind, and
    ``tokeniser-path`` entries (spec, pre-tokeniser). Kept in session state (not a widget's), so never
    dropped."""
    return st.session_state.setdefault("uploads", {})


def _check_size(upload: Upload) -> None:
    for filename, data in upload.files:
        if len(data) > MAX_UPLOAD_BYTES:
            raise InputError(f"file is {len(data):,} bytes; the limit is {MAX_UPLOAD_BYTES:,}", filename)


def _accept(upload: Upload) -> str:
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
    return _accept(Upload(kind, ((filename, data),)))


def add_merges_upload(filename: str, data: bytes, vocab_name: str, vocab: bytes, pretokeniser: str = INFERRED) -> str:
    """Validate and keep a merges.txt together with its vocab.json (a tokeniser choice)."""
    return _accept(tokeniser_upload(((filename, data), (vocab_name, vocab)), pretokeniser))


def add_tokeniser_upload(filename: str, data: bytes, pretokeniser: str = INFERRED) -> str:
    """Validate and keep an uploaded tokeniser file of any kind (recognised by content)."""
    return _accept(tokeniser_upload(((filename, data),), pretokeniser))


def add_path(spec: str, pretokeniser: str = INFERRED) -> str:
    """Validate and keep a tokeniser named by a path (file or folder) or ``hf:ORG/NAME`` on the
    machine that runs the app; returns its choice name. InputError leaves everything as it was."""
    spec = spec.strip()
    if not spec:
        raise InputError("type a path to a tokeniser file or folder, or hf:ORG/NAME")
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


def check_corpus_upload(data: bytes, filename: str) -> None:
    """Refuse what the CLI refuses in a corpus (``core.formats.corpora``: UTF-8 only, no NUL byte),
    an empty file, and a malformed word<TAB>count list."""
    lines = split_lines(decode_utf8(data, filename, MAX_UPLOAD_BYTES))
    if not any(line.strip() for line in lines):
        raise InputError("the corpus is empty", filename)
    if "\t" in lines[0]:
        parse_word_count_bytes(data, filename)  # a word<TAB>count list: validate it as one


# --- the current choices ----------------------------------------------------------------------------
def samples(kind: str) -> list[str]:
    return {"tokeniser": list(SAMPLE_TOKENISERS), "reference": list(SAMPLE_REFERENCES), "corpus": list(SAMPLE_CORPORA)}[
        kind
    ]


def choices(kind: str) -> list[str]:
    kinds = (kind, "tokeniser-path") if kind == "tokeniser" else (kind,)
    return samples(kind) + [name for (k, name) in uploads() if k in kinds]


def _remembered() -> dict[str, str]:
    """The choices, also kept outside the widgets: Streamlit drops a widget key's value when a page
    that does not show the widget reruns (a fragment run, then a page switch, loses it)."""
    return st.session_state.setdefault(CHOICES_KEY, {})


def chosen(kind: str) -> str | None:
    """The current choice as this session last made it (unvalidated; None before any)."""
    return st.session_state.get(f"ws_{kind}") or _remembered().get(kind)


def selected(kind: str, default: str) -> str:
    """The current choice: a URL value this session did not write (a link: :func:`follow`), else the
    chooser, else the remembered one, else the default (validated)."""
    asked = st.query_params.get(kind)
    linked = st.session_state.setdefault(LINKED_KEY, {})
    misses = st.session_state.setdefault(MISSES_KEY, {})
    if asked is not None and asked != linked.get(kind):
        linked[kind] = asked
        try:
            value = follow(kind, asked)
            misses.pop(kind, None)
        except InputError as err:
            value = default
            misses[kind] = (f"{err} Showing {code_span(default)} instead.", default)
    else:
        value = chosen(kind)
        if value not in choices(kind):
            value = default
    select(kind, value)
    return value


def follow(kind: str, asked: str) -> str:
    """The choice a link's value names: a shipped sample, an upload in the server's store (``upload:<id>``,
    added to this session as an upload of that file would be) or, for a tokeniser, an ``hf:`` id in
    the local Hugging Face cache. Raises InputError (a message for the page) for anything else."""
    if asked in samples(kind):
        return asked
    upload_id = asked[len(LINK_UPLOAD) :] if asked.startswith(LINK_UPLOAD) else ""
    if upload_store.ID.fullmatch(upload_id):
        held = [name for (k, name), upload in uploads().items() if k == kind and upload.id == upload_id]
        if held:
            return held[0]
        upload = upload_store.get(kind, upload_id, MAX_UPLOAD_BYTES)
        if upload is None:
            raise InputError(
                f"The link names the uploaded {kind} {code_span(asked)}, which this server does not "
                "have: it was uploaded to another server, or removed from this server's store to make "
                "room for newer uploads. Upload the file again to see it."
            )
        try:
            return _accept(upload)
        except InputError as err:
            raise InputError(f"The link's {kind} {code_span(asked)} could not be read: {md_escape(err)}.") from err
    if kind == "tokeniser" and HF_LINK.fullmatch(asked):
        try:
            return add_path(asked)
        except InputError as err:
            raise InputError(
                f"The link's tokeniser {code_span(asked)} is not available on this server: {md_escape(err)}."
            ) from err
    raise InputError(f"The link asks for the {kind} {code_span(asked[:80])}, which is not available.")


def link_value(kind: str, name: str) -> tuple[str | None, str | None]:
    """How a link names the choice ``name`` (None: it cannot) and what it cannot carry (None: all):
    a shipped sample by its name, an upload as ``upload:<id>`` (a copy kept in the server's upload
    store), an ``hf:`` id as itself (not a pre-tokeniser override), a path on the server never."""
    upload = uploads().get((kind, name)) if name.startswith(UPLOAD_PREFIX) else None
    if upload is not None:  # found by key, not isinstance: a changed source file makes Streamlit re-import modules
        refused = _store(upload)
        return (None, f"the uploaded {kind}: {refused}") if refused else (LINK_UPLOAD + upload.id, None)
    if name.startswith(HUB_PREFIX):
        override = pretokeniser_of(name)
        return (
            HF_PREFIX + name[len(HUB_PREFIX) :],
            None if override == INFERRED else f"the pre-tokeniser {override} chosen for {name} (it opens as inferred)",
        )
    if name.startswith(PATH_PREFIX):
        return None, (
            "the tokeniser read from a path on the server (a link never makes the server read a path; "
            "upload the file, or name it by hf:ORG/NAME, to share it)"
        )
    return name, None


def _store(upload: Upload) -> str | None:
    """Keep a copy of ``upload`` in the server's upload store (again, if it was evicted); None when
    it is there, else why not (asked once per upload and session)."""
    refused = st.session_state.setdefault(UNSTORED_KEY, {})
    if upload.id not in refused and not upload_store.has(upload.kind, upload.id):
        try:
            upload_store.put(upload)
        except InputError as err:
            refused[upload.id] = str(err)
        except OSError as err:
            refused[upload.id] = f"the server could not keep a copy: {err.strerror or type(err).__name__}"
    return refused.get(upload.id)


def sample_metadata(name: str) -> Mapping:
    """The metadata of a shipped scenario (its title, words, explanation); empty for other choices."""
    if name in SCENARIOS:
        try:
            return sample_tokeniser(SAMPLE_TOKENISERS[name]).metadata
        except InputError:
            pass
    return {}


def tokeniser_label(name: str) -> str:
    """How a tokeniser choice reads in a chooser: its name and what it is (a scenario's title)."""
    return choice_label(name, sample_metadata(name))


def select(kind: str, name: str) -> None:
    st.session_state[f"ws_{kind}"] = name
    _remembered()[kind] = name


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


def load_reference_choice(name: str) -> tuple[ReferenceSet, str]:
    """The reference segmentations of a choice and a key identifying their content; raises InputError."""
    if name.startswith(UPLOAD_PREFIX):
        upload = uploads()[("reference", name)]
        ((filename, data),) = upload.files
        return uploaded_references(data, filename), name + "@" + upload.id
    return sample_references(SAMPLE_REFERENCES[name]), name


def sync_url(names: Mapping[str, str], notices: bool = True) -> None:
    """Write each kind's choice into the URL (a value no link can carry is left out); with ``notices``,
    show why a link cannot carry what it leaves out, and the warnings of links that named nothing
    available."""
    unlinked = []
    for kind, name in names.items():
        value, missing = link_value(kind, name)
        write_to_url(kind, value)
        st.session_state.setdefault(LINKED_KEY, {})[kind] = value
        if missing:
            unlinked.append(missing)
    misses = st.session_state.setdefault(MISSES_KEY, {})
    for kind, (message, fallback) in list(misses.items()):
        if names[kind] != fallback:
            del misses[kind]  # another choice since: the warning is history
        elif notices:
            st.warning(message)
    if unlinked and notices:
        st.caption("This view's link cannot carry " + "; ".join(md_escape(text) for text in unlinked) + ".")


def current(notices: bool = True) -> Workspace:
    """The loaded workspace; writes the choices into the URL (:func:`sync_url`; ``notices=False``
    for a second call in one run, whose notices the first showed). Shows st.error and stops on
    failure."""
    ensure_app_navigation()
    names = {
        "tokeniser": selected("tokeniser", DEFAULT_TOKENISER),
        "reference": selected("reference", DEFAULT_REFERENCE),
        "corpus": selected("corpus", DEFAULT_CORPUS),
    }
    try:
        tokeniser, tokeniser_key = load_tokeniser_choice(names["tokeniser"])
        references, reference_key = load_reference_choice(names["reference"])
    except InputError as err:
        st.error(str(err))
        st.stop()
    sync_url(names, notices)
    corpus = uploads().get(("corpus", names["corpus"]))
    corpus_key = names["corpus"] + ("@" + corpus.id if corpus is not None else "")
    return Workspace(
        names["tokeniser"],
        tokeniser,
        names["reference"],
        references,
        names["corpus"],
        tokeniser_key,
        reference_key,
        corpus_key=corpus_key,
    )


ensure_app_navigation()  # a page importing this module on a fresh server goes through app.py
