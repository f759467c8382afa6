"""Streamlit entry point: ``streamlit run app.py``.

The pages live in ``pages/`` and are listed here in the order of the sidebar; each has a stable
``url_path`` so links can be shared. A page file that is absent is left out of the navigation.
"""
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
PAGES = [  # (file, title, url_path, icon)
    ("pages/workspace.py", "Workspace", "workspace", "🗂️"),
    ("pages/word_debugger.py", "Word debugger", "word", "🔎"),
    ("pages/merge_graph.py", "Merge graph", "graph", "🕸️"),
    ("pages/stepper.py", "Knockout & ReBPE stepper", "stepper", "⏯️"),
    ("pages/blocked_merges.py", "Blocked merges", "blocked", "⛔"),
    ("pages/distributions.py", "Blame & distributions", "distributions", "📊"),
    ("pages/segment.py", "Segment a word", "segment", "🔤"),
]

st.set_page_config(page_title="Structured tokeniser explorer", page_icon="🧩", layout="wide")
available = [spec for spec in PAGES if (HERE / spec[0]).is_file()]
st.navigation([st.Page(file, title=title, url_path=url, icon=icon, default=i == 0)
               for i, (file, title, url, icon) in enumerate(available)]).run()
