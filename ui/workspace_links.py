"""The choices in links: :func:`sync_url` writes them into the URL (``?tokeniser=…&reference=…&corpus=…``),
:func:`follow` reads a link's value. A shipped sample goes by its name, an upload as ``upload:<id>``
(a copy is kept in the server's upload store, ``ui/upload_store.py``), an ``hf:ORG/NAME`` id as
itself, a path on the server as ``path:<id>``, an id this server issued when a user loaded that path
(``ui/path_links.py``: a link never makes the server read a path a visitor typed). A value that
names nothing available is an InputError whose message the page shows.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping

import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.errors import InputError
from core.formats.locations import HF_PREFIX
from ui import upload_store
from ui.path_links import LINK_PREFIX as PATH_LINK
from ui.path_links import link_id, registry
from ui.tokeniser_loading import INFERRED
from ui.upload_store import Upload
from ui.url_state import write_to_url
from ui.workspace_choices import HUB_PREFIX, MAX_UPLOAD_BYTES, PATH_PREFIX, UPLOAD_PREFIX, samples, uploads
from ui.workspace_uploads import accept, add_path, pretokeniser_of
from viz.escaping import code_span, md_escape

LINK_UPLOAD = "upload:"  # a link names an upload as upload:<id> (ui/upload_store.py)
#: the URL value of a choice no link can carry: a page opened from it says so instead of silently switching
UNLINKED = "unlinked"
#: an hf: id a link may carry: ORG/NAME[@REVISION] without path separators or leading dots
HF_LINK = re.compile(r"hf:[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*(@[A-Za-z0-9][\w.-]*)?", re.ASCII)
LINKED_KEY = "workspace_linked"  # session state: the URL value of each kind as last written or followed
MISSES_KEY = "workspace_link_misses"  # ... links that named nothing available: kind -> (message, fallback)
UNSTORED_KEY = "workspace_unstored"  # ... upload id -> why the upload store refused it


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
            return accept(upload)
        except InputError as err:
            raise InputError(f"The link's {kind} {code_span(asked)} could not be read: {md_escape(err)}.") from err
    path_id = link_id(asked) if kind == "tokeniser" else None
    if path_id is not None:
        found = registry().find(path_id)
        if found is None:
            raise InputError(
                f"The link names the tokeniser {code_span(asked)} that a session read from a path on the "
                "server that made the link; this server has not read it since it started. Load the file "
                "again in the Workspace (path or upload) to see it."
            )
        try:
            return add_path(*found)
        except InputError as err:
            raise InputError(f"The link's tokeniser {code_span(asked)} could not be read: {md_escape(err)}.") from err
    if asked == UNLINKED:
        raise InputError(
            f"The link comes from a session whose {kind} a link cannot carry (that page said why): load it "
            "again on the Workspace page to see it here."
        )
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
    store), an ``hf:`` id as itself (not a pre-tokeniser override), a path on the server as ``path:<id>``."""
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
        spec, override = uploads()[("tokeniser-path", name)]
        return PATH_LINK + registry().register(spec, override), None
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


def page_link(page: str, label: str, query: Mapping[str, str], icon: str, help: str | None = None) -> None:
    """A link to another page of this app with ``query`` in its URL: a page switch in this session (not a
    page load, which would start a new one), so what the user loaded stays. Nothing when the page runs
    without ``app.py``'s navigation (a page run alone)."""
    with contextlib.suppress(StreamlitAPIException):
        st.page_link(page, label=label, icon=icon, query_params=dict(query), help=help)


def sync_url(names: Mapping[str, str], notices: bool = True) -> None:
    """Write each kind's choice into the URL (a value no link can carry as :data:`UNLINKED`); with ``notices``,
    show why a link cannot carry what it leaves out, and the warnings of links that named nothing
    available."""
    unlinked = []
    for kind, name in names.items():
        value, missing = link_value(kind, name)
        value = UNLINKED if value is None else value  # a page opened from this one says why, never switches
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
