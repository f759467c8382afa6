"""Widgets whose value lives in the URL although their options change (step, word, type, merge).

``bind="query-params"`` suits widgets with fixed options. A widget whose options or range depend on
the data (the step slider's maximum, the words a step changed) gets a new identity whenever they
change, and a bound widget then re-reads the *old* URL value instead of what a callback just put in
``st.session_state``. These widgets therefore keep their value under a session-state key, take the
URL value only when the page is opened (validated), and write their value back to the URL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

T = TypeVar("T")


def seed_from_url(key: str, param: str, parse: Callable[[str], T | None]) -> str | None:
    """On the first run of a page (``key`` not in session state), put the URL's ``param`` parsed by
    ``parse`` into ``st.session_state[key]``. Returns the raw URL value when it was present but
    invalid (``parse`` returned None), so the page can say so; otherwise None."""
    if key in st.session_state:
        return None
    raw = st.query_params.get(param)
    if raw is None:
        return None
    value = parse(raw)
    if value is None:
        return raw
    st.session_state[key] = value
    return None


def write_to_url(param: str, value, default=None) -> None:
    """Show ``value`` in the address bar as ``param`` (dropped when it equals ``default``)."""
    if value is None or value == default:
        if param in st.query_params:
            del st.query_params[param]
    elif st.query_params.get(param) != str(value):
        st.query_params[param] = str(value)
