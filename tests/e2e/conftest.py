"""Real-browser fixtures: a Streamlit server on a free loopback port and Debian's headless Chromium.

Recipe of research/explorers-and-streamlit.md §3.10. Never ``playwright install``: the browser is
the ``chromium`` Debian package (``apt-get install -y chromium``), driven by pytest-playwright.
Without it the tests fail under ``CI=true`` and are skipped (with the reason) otherwise.

Every test collected here carries the ``browser`` marker. Under pytest-xdist each worker starts its
own servers, each on a free port of its own; screenshots go to ``test-artifacts/`` under names no
two tests share.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.browser_support import wait_for_app
from ui.worker_process import WORKERS_ENV

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
STARTUP_SECONDS = 90
PORT_ATTEMPTS = 3
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items) -> None:
    """Mark every test under tests/e2e ``browser``, so that no new file can forget it."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


def running_in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


def missing(reason: str):
    """Fail under CI (a fresh machine must have installed chromium), skip with ``reason`` locally."""
    if running_in_ci():
        pytest.fail(f"{reason} (CI is set, so the browser test must run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        missing(
            f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium); never `playwright install`"
        )
    return CHROMIUM


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, chromium_executable):
    """pytest-playwright's launch options, pointed at Debian's chromium."""
    return {**browser_type_launch_args, "executable_path": chromium_executable, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """A projector-sized window (1280 × 800)."""
    return {**browser_context_args, "viewport": {"width": 1280, "height": 800}}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server(port: int, log_path: Path, workers: bool) -> subprocess.Popen:
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--browser.gatherUsageStats=false",
    ]
    # stdout to a file, never a PIPE (a full pipe blocks the server).
    with open(log_path, "wb") as log:
        env = {**os.environ, WORKERS_ENV: "" if workers else "off"}  # tests/conftest.py turns them off here
        return subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)


def _healthy(process: subprocess.Popen, url: str, log_path: Path) -> bool:
    """Wait until ``/_stcore/health`` says ok (True); False when the server exited because another
    process took its port first (possible between ``free_port`` and the server's bind)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        if process.poll() is not None:
            log = log_path.read_text(errors="replace")
            if "already in use" in log:
                return False
            pytest.fail(f"streamlit exited with {process.returncode}:\n{log}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().decode().strip() == "ok":
                    return True
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"streamlit not healthy after {STARTUP_SECONDS} s:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.25)


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def streamlit_server(workers: bool = True):
    """``python -m streamlit run app.py`` on a free loopback port; yields its URL once
    ``/_stcore/health`` says ok, and stops the server afterwards. It computes in worker processes as
    shipped, or with ``workers=False`` in its script threads (``EXPLORER_WORKERS=off``)."""
    log_dir = Path(tempfile.mkdtemp(prefix="streamlit-e2e-"))
    log_path = log_dir / "streamlit.log"
    try:
        for _ in range(PORT_ATTEMPTS):
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            process = _start_server(port, log_path, workers)
            try:
                if _healthy(process, url, log_path):
                    yield url
                    return
            finally:
                _stop(process)
        pytest.fail(f"streamlit found its port taken {PORT_ATTEMPTS} times:\n{log_path.read_text(errors='replace')}")
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def app_url(chromium_executable, browser):
    """One server shared by the tests of a session (its caches warm up as the tests go). One visit
    first runs app.py's navigation, so the first test (under pytest-xdist, any test) finds the
    server as every later one does; ``fresh_app_url`` is for what a server's first visit does."""
    with streamlit_server() as url:
        page = browser.new_page()
        try:
            page.goto(url)
            wait_for_app(page)
        finally:
            page.close()
        yield url


@pytest.fixture
def fresh_app_url(chromium_executable, tmp_path, monkeypatch):
    """A server of its own that no request has reached yet: Streamlit still treats ``pages/`` as a
    legacy multipage folder until ``st.navigation`` runs once, which is what deep links must survive.
    Its disk cache starts empty (``EXPLORER_CACHE_DIR``), so no result an earlier run cached helps
    (the precomputed sample results ship with the checkout)."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "explorer-cache"))
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """``test-artifacts/`` at the repository root (gitignored): screenshots for people to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
