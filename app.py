"""Streamlit entry point: ``streamlit run app.py``.

The pages live in ``pages/`` and are listed here in the order of the sidebar; each has a stable
``url_path`` so links can be shared. A page file that is absent is left out of the navigation.

Every ``url_path`` equals its file's stem (``pages/word_debugger.py`` -> ``/word_debugger``).
Until ``st.navigation`` has run once in a server process, Streamlit treats ``pages/`` as a legacy
multipage folder: the first request after start-up to ``/word_debugger`` runs that file alone,
and a request to a path that is *not* a file stem shows "Page not found" before falling back to
this script. So the paths match the stems, and every page reroutes a legacy run through this
script (``ui.workspace.ensure_app_navigation``, called when a page imports ``ui.workspace``).

Every page runs inside the one error boundary (``ui.error_boundary``): a bug becomes a short message
with an error id, its traceback goes to the server log, and what the user loaded stays loaded.
"""

from pathlib import Path

import streamlit as st

from ui.error_boundary import boundary

HERE = Path(__file__).resolve().parent
PAGES = [  # (file, title, icon); the url_path is the file stem. Material icons ship with Streamlit's
    # frontend (offline); emoji need a colour-emoji font that a classroom machine may lack.
    ("pages/workspace.py", "Workspace", ":material/folder_open:"),
    ("pages/word_debugger.py", "Word debugger", ":material/search:"),
    ("pages/merge_graph.py", "Merge graph", ":material/hub:"),
    ("pages/stepper.py", "Knockout & ReBPE stepper", ":material/play_circle:"),
    ("pages/blocked_merges.py", "Blocked merges", ":material/block:"),
    ("pages/audit.py", "Vocabulary audit", ":material/fact_check:"),
    ("pages/distributions.py", "Blame & distributions", ":material/bar_chart:"),
    ("pages/compare.py", "Compare tokenisers", ":material/difference:"),
    ("pages/running_text.py", "Running text side by side", ":material/notes:"),
    ("pages/train_compare.py", "Train & compare", ":material/compare_arrows:"),
    ("pages/training_dynamics.py", "Training dynamics", ":material/timeline:"),
    ("pages/unigram.py", "Unigram lattice", ":material/account_tree:"),
    ("pages/pretokenisers.py", "Pre-tokenisers", ":material/content_cut:"),
]


def url_path(file: str) -> str:
    return Path(file).stem


def available_pages() -> list[tuple[str, str, str]]:
    return [spec for spec in PAGES if (HERE / spec[0]).is_file()]


if __name__ == "__main__":  # Streamlit runs this file as __main__; tests import it for PAGES
    # An emoji favicon is drawn locally; a ":material/...:" favicon would be fetched from a font CDN.
    st.set_page_config(page_title="Structured tokeniser explorer", page_icon="🧩", layout="wide")
    page = st.navigation(
        [
            st.Page(file, title=title, url_path=url_path(file), icon=icon, default=i == 0)
            for i, (file, title, icon) in enumerate(available_pages())
        ],
        expanded=True,  # every page listed, also beside a page's own sidebar widgets (the stepper's)
    )
    with boundary():  # a bug on a page: a message with an error id (traceback in the server log)
        page.run()
