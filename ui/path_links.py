"""Links to tokenisers read from a path on the server: ``path:<id>``, never the path itself.

A link that carried a path would make the server read whatever path a visitor typed into the address
bar. Instead, a path this server has already read at a user's request (through the Workspace) gets
an id here, kept in the server process (``st.cache_resource``) with its pre-tokeniser override; a
link carries the id, and any session of the same server running opens the same file. An id this
process never issued (another server, or one restarted since) names nothing: the page says so and
keeps what the session had.
"""

from __future__ import annotations

import hashlib
import re
import threading

import streamlit as st

LINK_PREFIX = "path:"
ID = re.compile(r"[0-9a-f]{20}")


class PathRegistry:
    """id -> (path spec, pre-tokeniser override) of the paths this server read for its users."""

    def __init__(self):
        self.entries: dict[str, tuple[str, str]] = {}
        self.lock = threading.Lock()

    def register(self, spec: str, pretokeniser: str) -> str:
        path_id = hashlib.sha256(f"{spec}\0{pretokeniser}".encode("utf-8", "surrogatepass")).hexdigest()[:20]
        with self.lock:
            self.entries[path_id] = (spec, pretokeniser)
        return path_id

    def find(self, path_id: str) -> tuple[str, str] | None:
        with self.lock:
            return self.entries.get(path_id)


@st.cache_resource(show_spinner=False)
def registry() -> PathRegistry:
    """The process-wide registry (one per server; cleared with the Streamlit caches)."""
    return PathRegistry()


def link_id(value: str) -> str | None:
    """The id of a ``path:<id>`` link value (None for any other value)."""
    path_id = value[len(LINK_PREFIX) :] if value.startswith(LINK_PREFIX) else ""
    return path_id if ID.fullmatch(path_id) else None
