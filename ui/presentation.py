"""Presentation mode: one page on a 1280×720 projector, stepped with the arrow keys.

Pages that teach (stepper, word debugger, blocked merges) call :func:`presentation_toggle` near
their title and :func:`apply_presentation` once; when :func:`presenting`, they leave out secondary
charts and tables and put Prev/Next beside the before/after views, with ``shortcut=PREV_KEY`` /
``NEXT_KEY`` on those buttons (Streamlit's own key bindings: ← and → step). The mode is in the URL
(``?present=1``) so a link opens in it; the sidebar is hidden and fonts are larger.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.url_state import seed_from_url, write_to_url

PARAM = "present"
KEY = "presentation_mode"
PAGE_KEY = "presentation_page"  # the page whose toggle ran last: on another page the URL says the mode again
PREV_KEY, NEXT_KEY = "Left", "Right"  # st.button(shortcut=...)

_STYLE = """<style>
section[data-testid="stSidebar"], div[data-testid="stSidebarCollapsedControl"],
header[data-testid="stHeader"] { display: none !important; }
div[data-testid="stMainBlockContainer"], .block-container {
  padding: 0.6rem 1.2rem 0.6rem 1.2rem !important; max-width: 100% !important; }
div[data-testid="stMarkdownContainer"] p, div[data-testid="stMarkdownContainer"] li,
button p, label p { font-size: 1.2rem !important; }
h1 { font-size: 1.9rem !important; padding: 0 !important; }
h2, h3 { font-size: 1.5rem !important; padding: 0.2rem 0 !important; }
</style>"""


def _parse(raw: str) -> bool | None:
    return {"1": True, "0": False}.get(raw)


def presenting() -> bool:
    """Whether this page is in presentation mode (the toggle, else ``?present=1``). After a page switch
    the URL decides (a link between pages carries ``present=1``): each page has its own toggle, and the
    last page's would otherwise stand for it."""
    ctx = get_script_run_ctx()
    page = ctx.page_script_hash if ctx is not None else ""
    if st.session_state.get(PAGE_KEY) != page:
        st.session_state[PAGE_KEY] = page
        st.session_state.pop(KEY, None)
    seed_from_url(KEY, PARAM, _parse)
    return bool(st.session_state.get(KEY, False))


def _sync_url() -> None:
    write_to_url(PARAM, "1" if st.session_state.get(KEY) else None)


def presentation_toggle() -> bool:
    """The "Presentation mode" toggle (kept in the URL); returns whether it is on."""
    presenting()
    st.toggle(
        "Presentation mode",
        key=KEY,
        on_change=_sync_url,
        help="For a projector: hides the sidebar and secondary views, larger text, "
        "Prev/Next beside the views; the ← and → keys step.",
    )
    _sync_url()
    return bool(st.session_state[KEY])


def apply_presentation() -> None:
    """Hide the sidebar and Streamlit's header and enlarge the text while presenting."""
    if presenting():
        st.html(_STYLE)
