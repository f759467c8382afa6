"""Shared test fixtures.

The explorer's disk folder (result cache, upload store: ``ui.storage``) is a fresh temporary
folder for each test session (and the servers it starts), so no run depends on an earlier one.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.samples import DUTCH_40K  # noqa: E402

SHARED = ROOT.parent / "shared"
os.environ["EXPLORER_CACHE_DIR"] = tempfile.mkdtemp(prefix="explorer-cache-")


@pytest.fixture(scope="session")
def dutch40k():
    from core.formats.tokeniser_files import load_tokeniser

    return load_tokeniser(DUTCH_40K)


def _fresh_streamlit_caches():
    """Empty Streamlit caches before and after (AppTest runs pages in this process)."""
    from tests.apptest_support import clear_streamlit_caches

    clear_streamlit_caches()
    yield
    clear_streamlit_caches()


fresh_streamlit_caches = pytest.fixture(_fresh_streamlit_caches, name="fresh_streamlit_caches")
module_streamlit_caches = pytest.fixture(_fresh_streamlit_caches, scope="module", name="module_streamlit_caches")
