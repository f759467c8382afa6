"""Shared test fixtures."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.samples import DUTCH_40K  # noqa: E402

SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def dutch40k():
    from core.formats.tokeniser_files import load_tokeniser

    return load_tokeniser(DUTCH_40K)
