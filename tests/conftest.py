"""Shared test fixtures and settings, safe under pytest-xdist (each worker is its own process).

- The explorer's disk folder (result cache, upload store: ``ui.storage``) is a fresh temporary
  folder for each test process (and the servers it starts), removed when it exits, so no run
  depends on an earlier one and no two workers share one.
- Loading by path (``ui.path_policy``) is allowed in the temporary folder (tests write tokeniser files
  there), the real tokenisers' cache, the Hugging Face cache and the samples; the tests of the policy
  itself set ``EXPLORER_PATHS`` their own way.
- Long computations run in this process, not in worker processes (``ui.worker_process``), but
  for the servers of the browser tests and the tests of the workers themselves.
- Hypothesis keeps its example database outside the repository, in
  ``~/.cache/structured-tokenisers/hypothesis`` (safe to share between workers: one file per
  example); under ``CI`` its own "ci" profile keeps none.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.formats.samples import DUTCH_40K  # noqa: E402

#: reference outputs the tests read (tests/fixtures/README.md); no test reads outside the repository
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPLORER_CACHE = tempfile.mkdtemp(prefix="explorer-cache-")
os.environ["EXPLORER_CACHE_DIR"] = EXPLORER_CACHE
atexit.register(shutil.rmtree, EXPLORER_CACHE, ignore_errors=True)
os.environ["EXPLORER_PATHS"] = os.pathsep.join(
    [
        tempfile.gettempdir(),
        os.environ.get("REAL_TOKENISERS_DIR") or str(Path("~/.cache/structured-tokenisers/real").expanduser()),
        str(Path("~/.cache/huggingface").expanduser()),
        str(ROOT / "sample_data"),
    ]
)

# Pages run by AppTest compute in this process's own threads: forking a test process that holds every
# real tokeniser (gigabytes) for each computation costs more than the computation. The servers the
# browser tests start use worker processes as shipped (tests/e2e/conftest.py), and
# tests/ui/test_worker_process.py tests them directly.
os.environ["EXPLORER_WORKERS"] = "off"

HYPOTHESIS_DATABASE = Path("~/.cache/structured-tokenisers/hypothesis").expanduser()
if settings.default.database is not None:  # the "ci" profile Hypothesis loads when CI is set keeps none
    settings.register_profile("project", settings(), database=DirectoryBasedExampleDatabase(HYPOTHESIS_DATABASE))
    settings.load_profile("project")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Which test runs now, for tests.real_tokenisers' check that it is marked ``real``."""
    from tests.real_tokenisers import current_test

    current_test[:] = [item]


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
