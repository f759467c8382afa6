"""The app's one error boundary: an unexpected exception becomes a short message with an error id.

Pages catch only ``core.errors.InputError`` (bad input: its message is for the user). Anything
else is a bug: :func:`boundary` logs its traceback on the server (Python ``logging``, under a new
error id) and shows one line with that id, never the traceback or a server path. Session state
(uploads, choices) is not touched, so what the user loaded stays loaded.

``app.py`` runs every page inside :func:`boundary`. Two kinds of code run outside a page run and
are wrapped on their own: a fragment rerun (``@st.fragment`` over ``@boundary()``) and a widget
callback (:func:`guarded`, whose messages wait in session state for the next boundary to show).
Streamlit's control flow (``st.stop``, ``st.rerun``, ``st.switch_page``) raises ``BaseException``
subclasses, which ``except Exception`` lets through.

Both also hold the run to the explorer's budget per request (``ui.request_budget``): a run over its
time or memory is stopped, its memory freed, and the reason shown instead of the rest of the view.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import uuid
from collections.abc import Callable, Iterator

import streamlit as st

from core.errors import InputError
from ui.request_budget import limited
from viz.escaping import md_escape

LOG = logging.getLogger(__name__)
PENDING = "error_boundary_pending"  # messages of failed callbacks, shown by the next boundary


def report(err: Exception) -> str:
    """Log ``err`` with its traceback under a new error id; returns what the user is shown."""
    error_id = uuid.uuid4().hex[:8]
    LOG.error("error id %s: unexpected %s", error_id, type(err).__name__, exc_info=err)
    return (
        f"Something went wrong here (error id `{error_id}`). What you loaded is kept: try other "
        "settings or another page, and quote the error id when you report this."
    )


def _show_pending() -> None:
    for message in st.session_state.pop(PENDING, []):
        st.error(message, icon=":material/error:")


@contextlib.contextmanager
def boundary() -> Iterator[None]:
    """Run a page or a fragment: an InputError shows its message, anything else :func:`report`'s."""
    _show_pending()
    run = None
    try:
        with limited() as run:
            yield
    except InputError as err:  # a page that did not catch it: still the user's message
        st.error(md_escape(err))
    except Exception as err:
        st.error(report(err), icon=":material/error:")
    if run is not None and run.reason:
        st.error(run.reason, icon=":material/timer_off:")


def guarded(callback: Callable[..., None]) -> Callable[..., None]:
    """A widget callback whose failure becomes a message of the next run (it runs before the page,
    outside :func:`boundary`)."""

    @functools.wraps(callback)
    def run(*args, **kwargs) -> None:
        limit = None
        try:
            with limited() as limit:
                callback(*args, **kwargs)
        except InputError as err:
            st.session_state.setdefault(PENDING, []).append(md_escape(err))
        except Exception as err:
            st.session_state.setdefault(PENDING, []).append(report(err))
        if limit is not None and limit.reason:
            st.session_state.setdefault(PENDING, []).append(limit.reason)

    return run
