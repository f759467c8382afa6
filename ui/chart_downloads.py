"""A plotly figure on a page with its downloads: the figure as a standalone HTML file, its rows as CSV
(the files are made only when clicked)."""

from __future__ import annotations

import io

import pandas as pd
import streamlit as st

from viz import plots

CHART_CONFIG = {"displaylogo": False}


def csv_bytes(rows: list[dict]) -> bytes:
    """The rows as UTF-8 CSV (header from the keys)."""
    buffer = io.StringIO()
    pd.DataFrame(rows).to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")


def show_chart(fig, name: str, rows: list[dict] | None = None, caption: str | None = None, slot=None) -> None:
    """A figure (in ``slot`` if given, e.g. a container placed above the figure's own controls),
    then an optional caption and its downloads (the files are made only when clicked). The figure's
    own look is kept (``theme=None``), so the page shows what the HTML download shows."""
    (slot or st).plotly_chart(fig, width="stretch", key=f"chart_{name}", config=CHART_CONFIG, theme=None)
    if caption:
        st.caption(caption)
    with st.container(horizontal=True):
        st.download_button(
            "Figure (HTML)",
            data=lambda: plots.figure_html(fig),
            file_name=f"{name}.html",
            mime="text/html",
            key=f"html_{name}",
            on_click="ignore",
            icon=":material/download:",
            help="A standalone HTML file with plotly.js inside: opens offline.",
        )
        if rows is not None:
            st.download_button(
                "Data (CSV)",
                data=lambda: csv_bytes(rows),
                file_name=f"{name}.csv",
                mime="text/csv",
                key=f"csv_{name}",
                on_click="ignore",
                icon=":material/download:",
            )
