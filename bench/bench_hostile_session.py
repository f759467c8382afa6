"""Another session's pages while one session follows a hostile link (issue 32, point 3: the server
survives it "with other sessions still answering within 2 s").

Starts ``streamlit run app.py`` on a free loopback port (``tests/e2e/conftest.streamlit_server``) with a
budget per request of ``--budget`` seconds and an empty disk cache, opens a calm session on the
Workspace, and for each hostile link sends a second session to it while reloading the calm
Workspace again and again until the hostile session's run is over. Each reload is timed from the
navigation until the app reports the run finished (connected, ``notRunning``, no skeleton); a reload
counts as beside the hostile run when it started while that run went on. The actions:

- ``ReBPE link``: ``/stepper`` with settings nothing precomputed (15-60 s of Python on the Dutch 40k),
  stopped at the budget;
- ``long word link``: ``/word_debugger?word=`` and 12,000 characters (refused past the limit of one
  debugged word).

The issue's small uploads whose work grows far beyond their size are refused within a second
(``tests/fuzz_inputs.EXPANSION_CASES``, run by the tests), too short to measure beside.

The ReBPE link is also run with ``EXPLORER_WORKERS=off`` (the run in its script thread, sharing the
interpreter lock with every other session: how the explorer worked before ``ui.worker_process``).

Printed per action: the hostile session's time to its message and the message, the calm session's
renders beside it (median, worst), and the server's RSS before / at most / after. Target (printed,
never asserted): every render beside a hostile run within 2 s.

    python bench/bench_hostile_session.py [--budget 10] [--only LABEL] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import load_note, print_table, verdict, write_json
from tests.e2e.browser_support import wait_for_app
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, streamlit_server
from tests.e2e.test_request_budget import FINISHED, HOSTILE, server_rss_mb
from ui.request_budget import SECONDS_ENV
from ui.storage import ENV as STORAGE_ENV

TARGET_SECONDS = 2.0
HANG_MS = 300_000
LONG_WORD = "/word_debugger?word=" + "ab" * 6_000
ALERTS = "[data-testid=stAlertContentError], [data-testid=stAlertContentWarning], [data-testid=stException]"


def render(page) -> float:
    started = time.monotonic()
    page.reload()
    wait_for_app(page, HANG_MS)
    return time.monotonic() - started


def link(path: str) -> Callable:
    def send(url: str, wild) -> None:
        wild.goto(url + path, wait_until="commit")

    return send


HOSTILE_LINKS = {"ReBPE link": link(HOSTILE), "long word link (12,000 characters)": link(LONG_WORD)}


def beside(url: str, calm, wild, send: Callable) -> dict:
    """The calm session's renders while ``send`` makes the wild session run its hostile request."""
    before = server_rss_mb(url)
    started = time.monotonic()
    send(url, wild)
    wild.wait_for_timeout(300)  # the hostile run has started
    renders, peak, running = [], before, True
    while running:  # at least one render, then until the hostile run is over
        running = not wild.locator(FINISHED).count()
        seconds = render(calm)
        if running:
            renders.append(seconds)
        peak = max(peak, server_rss_mb(url))
    wait_for_app(wild, HANG_MS)
    over = time.monotonic() - started
    wild.wait_for_timeout(2_000)  # the clean-up after a stop
    said = [text.strip()[:110] for text in wild.locator(ALERTS).all_text_contents()]
    return {"hostile_s": over, "said": said, "beside_s": renders, "rss_mb": [before, peak, server_rss_mb(url)]}


def measure(browser, actions: dict[str, Callable], workers: bool, budget: float) -> dict[str, dict]:
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as cache:
        os.environ[SECONDS_ENV] = f"{budget:g}"
        os.environ[STORAGE_ENV] = cache  # nothing kept from another run; the server inherits both
        with streamlit_server(workers) as url:
            calm = browser.new_context().new_page()
            calm.goto(url)
            wait_for_app(calm, HANG_MS)
            figures = {"calm Workspace alone": {"beside_s": [render(calm) for _ in range(3)]}}
            for label, send in actions.items():
                wild = browser.new_context()
                figures[label] = beside(url, calm, wild.new_page(), send)
                wild.close()
                print(f"# {label}: {figures[label]}", file=sys.stderr, flush=True)
            return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per request (stops the ReBPE link)")
    parser.add_argument("--only", action="append", help="only the actions whose label holds this (repeatable)")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    note = load_note()
    if note:
        print(note)
    from playwright.sync_api import sync_playwright

    actions = {k: v for k, v in HOSTILE_LINKS.items() if not args.only or any(o in k for o in args.only)}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        rebpe = {k: v for k, v in actions.items() if k == "ReBPE link"}
        figures = {
            "worker process (as shipped)": measure(browser, actions, True, args.budget),
            "script thread (EXPLORER_WORKERS=off)": measure(browser, rebpe, False, args.budget),
        }
        browser.close()
    print(f"# budget per request {args.budget:g} s; ReBPE link {HOSTILE}")
    for mode, rows in figures.items():
        print(f"\n## {mode}")
        table = []
        for label, f in rows.items():
            times = f["beside_s"] or [float("nan")]
            table.append(
                [
                    label,
                    f"{f['hostile_s']:.1f}" if "hostile_s" in f else "",
                    f"{statistics.median(times):.2f}",
                    f"{max(times):.2f}",
                    str(len(f["beside_s"])),
                    " / ".join(map(str, f["rss_mb"])) if "rss_mb" in f else "",
                    verdict(max(times), TARGET_SECONDS) if "hostile_s" in f else "",
                ]
            )
        print_table(
            ["action", "hostile (s)", "calm: median (s)", "worst (s)", "renders", "RSS MB before/peak/after", "2 s"],
            table,
        )
        for label, f in rows.items():
            if "said" in f:
                print(f"# {label}: {' | '.join(f['said']) or 'no message'}")
    write_json(args.json, {"budget_s": args.budget, "modes": figures})


if __name__ == "__main__":
    main()
