"""Figure downloads for papers and slides: every tree, lattice and graph view offers its SVG, and
trees also their LaTeX (``forest``), as compact buttons side by side.

The figures are built by the viz modules (:func:`viz.trees.merge_tree_svg` and
:func:`viz.trees.merge_tree_forest`, :func:`viz.lattice.lattice_svg`, :func:`viz.graph_svg.graph_svg`);
this module only offers them. Downloading does not rerun the page.
"""

from __future__ import annotations

import re
import unicodedata

import streamlit as st

MAX_STEM = 80


def file_stem(stem: str) -> str:
    """``stem`` as a file name without extension: letters and digits (accents dropped, so ``Ġbruids``
    becomes ``Gbruids``), ``.``, ``_`` and ``-``; every other run of characters one ``-``; at most
    80 characters, never empty, never starting with a dot."""
    ascii_text = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", ascii_text).strip("-.")[:MAX_STEM].strip("-.")
    return cleaned or "figure"


def figure_downloads(stem: str, svg: str, tikz: str | None = None, *, key: str) -> None:
    """Buttons "SVG" (``<stem>.svg``) and, with ``tikz``, "LaTeX (forest)" (``<stem>.tex``), side by
    side; ``key`` keeps two figures on one page apart."""
    name = file_stem(stem)
    with st.container(horizontal=True, gap="small"):
        st.download_button(
            "SVG",
            svg,
            file_name=f"{name}.svg",
            mime="image/svg+xml",
            key=f"{key}::svg",
            icon=":material/download:",
            on_click="ignore",
            type="tertiary",
            help="The figure as a standalone SVG file, for slides or papers.",
        )
        if tikz is not None:
            st.download_button(
                "LaTeX (forest)",
                tikz,
                file_name=f"{name}.tex",
                mime="application/x-tex",
                key=f"{key}::tex",
                icon=":material/download:",
                on_click="ignore",
                type="tertiary",
                help="The tree as a LaTeX document drawn with the forest package (as the "
                "BPE-knockout and ReBPE papers draw merge trees); compile with LuaLaTeX "
                "or XeLaTeX.",
            )
