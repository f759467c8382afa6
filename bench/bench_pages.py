"""Instant pages: every page's first open on a freshly started server, then a few interactions.

Starts ``streamlit run app.py`` on a free loopback port (``tests/e2e/conftest.streamlit_server``)
with ``EXPLORER_CACHE_DIR`` pointing to a fresh temporary folder, so no result cached on disk by an
earlier run helps (the precomputed sample results in ``sample_data/precomputed/`` ship with the
checkout and do). Then, driving Debian's ``/usr/bin/chromium`` with Playwright, for each page of
``app.PAGES`` in the sidebar's order (a page added later is included):

1. a fresh browser context at 1280 x 720 opens ``/<url_path>``, the page's first open on that
   server: timed from ``goto`` until the app has finished running;
2. a few later interactions (the stepper's Next, Prev and a step via the slider; the word
   debugger's new word and one merge back; another type in the merge graph; another blocked
   merge; the other view of the distributions; another sample tokeniser on the Workspace; ...),
   each timed from the click or key press until the rerun it caused has finished. A widget that
   is not found (pages change) or an action that causes no rerun is skipped, and the reason
   printed.

"Finished" means: ``stApp`` connected and ``notRunning`` after at least one change of its run
state since the action, no skeleton, spinner or running status box, the page's ``h1`` title shown
(its first word is the first word of the page's sidebar title) or an error box, and still so 0.3 s
later (a page that reruns itself is not finished). Polled every 50 ms.

Per page: first open (s), its ratio to the lightest page's first open, whether it is under 3 s,
each later interaction (s), and the server's CPU seconds and RSS (its process tree, from /proc)
over the page. Targets (printed, never asserted): every first open at most 3x the lightest page's
and under 3 s on this 2-core machine; every later interaction under 1 s.

``--repeat N`` starts N fresh servers one after the other and prints the medians.
``--per-page-servers`` gives every page a server of its own, so no page profits from what an
earlier page loaded (the default shares one server: the first page also pays for the server's
first script run: imports and the default tokeniser). Exit status 0, or 1 when a server does not
start or a page shows an error box or a traceback.

    python bench/bench_pages.py [--repeat 1] [--per-page-servers] [--pages stepper,word_debugger] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pytest

from app import available_pages, url_path
from bench._common import environment, environment_line, print_table, write_json
from bench.bench_load import ERRORS, descendants, megabytes, process_table, server_pid, usage
from tests.e2e.browser_support import SLOW
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, streamlit_server
from ui.storage import ENV as STORAGE_ENV

FIRST_OPEN_TARGET = 3.0  # s
RATIO_TARGET = 3.0  # first open / the lightest page's first open
LATER_TARGET = 1.0  # s
VIEWPORT = {"width": 1280, "height": 720}
POLL_MS = 50
CONFIRM_MS = 300  # still finished this long after
NO_RUN_MS = 15_000  # an action that starts no rerun within this is skipped
FIND_MS = 5_000  # waiting for a widget to appear

# Counts the changes of stApp's run state (from document start, so a goto is covered too).
OBSERVE = """(() => {
    window.__benchChanges = 0;
    new MutationObserver(records => { window.__benchChanges += records.length; })
        .observe(document, {subtree: true, attributes: true, attributeFilter: ["data-test-script-state"]});
})()"""
BUSY = (
    "[data-testid=stSkeleton], [data-testid=stSpinner], [data-testid=stExpanderIconSpinner], "
    "[data-testid=stStatusWidgetRunningIcon]"
)
# The run-state change count once the page has finished (see the docstring), else false.
FINISHED = """([title, after]) => {
    const app = document.querySelector("[data-testid=stApp]");
    if (!app || app.dataset.testConnectionState !== "CONNECTED" || app.dataset.testScriptState !== "notRunning"
        || window.__benchChanges <= after || document.querySelector(BUSY_SELECTOR)) return false;
    const titles = [...document.querySelectorAll("[data-testid=stMain] h1")]
        .map(h => h.textContent.trim().toLowerCase().split(/\\s+/)[0]);
    const failed = document.querySelector("[data-testid=stException], [data-testid=stAlertContentError]");
    return titles.includes(title) || failed ? window.__benchChanges : false;
}""".replace("BUSY_SELECTOR", repr(BUSY))


class Missing(Exception):
    """The interaction's widget is not on the page (or the action started no rerun): skip it."""


# --- interactions: each prepares (finds its widget, fills a box) and returns the timed trigger --------
Trigger = Callable[[], None]


def find(page, *selectors: str):
    """The first visible element of the first selector that has one, else ``Missing``."""
    for selector in selectors:
        found = page.locator(selector).filter(visible=True)
        try:
            found.first.wait_for(state="visible", timeout=FIND_MS if selector == selectors[0] else 500)
        except Exception:  # a Playwright timeout: try the next selector
            continue
        return found.first
    raise Missing(f"not found: {' | '.join(selectors)}")


def click(*selectors: str) -> Callable[[object], Trigger]:
    def prepare(page) -> Trigger:
        button = find(page, *selectors)
        if button.is_disabled():
            raise Missing(f"disabled: {selectors[0]}")
        return button.click

    return prepare


def type_text(text: str, *selectors: str) -> Callable[[object], Trigger]:
    """Type ``text`` into a text box; Enter (Ctrl+Enter in a text area) commits it."""

    def prepare(page) -> Trigger:
        box = find(page, *selectors)
        box.fill(text)
        multiline = box.evaluate("e => e.tagName") == "TEXTAREA"
        return lambda: box.press("Control+Enter" if multiline else "Enter")

    return prepare


def choose(key: str, option: str | None = None) -> Callable[[object], Trigger]:
    """Open the selectbox with widget key ``key`` and click the first option whose text contains
    ``option``, or with ``None`` the first option that is not the current one."""

    def prepare(page) -> Trigger:
        opener = find(page, f".st-key-{key} button[aria-haspopup=listbox]", f".st-key-{key} [role=combobox]")
        opener.scroll_into_view_if_needed()  # a scroll while the list is open closes it again
        opener.click()
        try:
            page.locator("[role=option]").first.wait_for(timeout=FIND_MS)
        except Exception:
            raise Missing(f"selectbox {key} shows no options") from None
        options = page.locator("[role=option]")
        for i in range(options.count()):
            candidate = options.nth(i)
            text = candidate.inner_text().strip()
            if option in text if option else candidate.get_attribute("aria-selected") != "true":
                return candidate.click
        page.keyboard.press("Escape")
        raise Missing(f"selectbox {key} has no option {option or 'other than the current one'}")

    return prepare


def other_view(key: str) -> Callable[[object], Trigger]:
    """Click the first option that is not selected of the tabs or segmented control ``key``."""
    return click(
        f".st-key-{key} [role=tab][aria-selected=false]", f".st-key-{key} button[role=radio][aria-checked=false]"
    )


def slider_key(key: str, press: str) -> Callable[[object], Trigger]:
    def prepare(page) -> Trigger:
        thumb = find(page, f".st-key-{key} input[type=range]", f".st-key-{key} [role=slider]")
        return lambda: thumb.press(press)

    return prepare


WORD = "kinderboeken"  # not the word debugger's default
INTERACTIONS: dict[str, list[tuple[str, Callable[[object], Trigger]]]] = {  # url_path -> (name, prepare)
    "workspace": [
        ("switch sample tokeniser", choose("ws_tokeniser", "en-bpe-4k")),
        ("back to nl-40k", choose("ws_tokeniser", "nl-40k")),
    ],
    "word_debugger": [
        ("type a new word", type_text(WORD, ".st-key-word input", ".st-key-word textarea")),
        ("one merge back", click(f".st-key-back--{WORD} button", "[class*=st-key-back--] button")),
    ],
    "merge_graph": [
        ("choose another type", type_text("bruids", ".st-key-type input")),
        ("switch view", other_view("view")),
    ],
    "stepper": [
        ("Next", click(".st-key-stepper_next button")),
        ("Next again", click(".st-key-stepper_next button")),
        ("Prev", click(".st-key-stepper_prev button")),
        ("step via the slider", slider_key("stepper_step", "End")),
    ],
    "blocked_merges": [
        ("select a merge", choose("blocked_merge")),
        ("search", type_text("ids", ".st-key-blocked_search input")),
    ],
    "distributions": [("switch view", other_view("view")), ("switch view again", other_view("view"))],
    "compare": [
        ("choose tokeniser A", choose("compare_a", "nl-40k")),
        ("choose B: after knockout", choose("compare_b", "after knockout")),
    ],
    "train_compare": [("new text", type_text(WORD, ".st-key-text input", ".st-key-text textarea"))],
    "training_dynamics": [("training step via the slider", slider_key("dynamics_step", "End"))],
    "unigram": [("new word", type_text("bruidsjurk", ".st-key-word input"))],
    "pretokenisers": [
        ("new text", type_text("Don't split   HTTPServer2024!", ".st-key-text textarea", ".st-key-text input"))
    ],
}


# --- timing -----------------------------------------------------------------------------------------
def finished(page, title: str, after: int, timeout_ms: float) -> float:
    """``time.perf_counter()`` when the page had finished the run(s) after ``after`` run-state changes."""
    deadline = time.perf_counter() + timeout_ms / 1000
    while True:
        changes = page.wait_for_function(
            FINISHED, arg=[title, after], polling=POLL_MS, timeout=max(1.0, (deadline - time.perf_counter()) * 1000)
        ).json_value()
        done = time.perf_counter()
        page.wait_for_timeout(CONFIRM_MS)
        if page.evaluate(FINISHED, [title, after]) == changes:
            return done


def changes(page) -> int:
    return page.evaluate("window.__benchChanges")


@dataclass
class PageResult:
    path: str
    title: str
    first_open: float | None = None
    later: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    cpu_open: float = 0.0  # server CPU s during the first open
    cpu_page: float = 0.0  # ... during the first open and the interactions
    browser_cpu_open: float = 0.0  # the browser's (Chromium and its driver) CPU s during the first open
    rss_after: int = 0  # server RSS after the page


@dataclass(frozen=True)
class Reading:
    rss: int  # the server's process tree
    cpu: dict[int, float]  # pid -> CPU seconds, every process below this one
    server: frozenset[int]

    def cpu_since(self, start: Reading) -> tuple[float, float]:
        """CPU seconds (server, browser) used since ``start`` by the processes alive now (a process
        that has exited since, such as a closed context's renderer, is left out)."""
        used = {pid: seconds - start.cpu.get(pid, 0.0) for pid, seconds in self.cpu.items()}
        return (
            sum(s for pid, s in used.items() if pid in self.server),
            sum(s for pid, s in used.items() if pid not in self.server),
        )


class Meter:
    """The server's RSS and CPU seconds (its process tree) and the browser's CPU seconds (every other
    process below this one), read from /proc (or psutil)."""

    def __init__(self, url: str):
        self.root = server_pid(int(url.rsplit(":", 1)[1]))

    def read(self) -> Reading:
        table = process_table()
        server = frozenset(descendants(self.root, table))
        used = {pid: usage(pid) for pid in descendants(os.getpid(), table) - {os.getpid()}}
        return Reading(
            sum(u[0] for pid, u in used.items() if u and pid in server),
            {pid: u[1] for pid, u in used.items() if u},
            server,
        )


def visit(browser, url: str, path: str, title: str, meter: Meter) -> PageResult:
    result = PageResult(path, title)
    first_word = title.split()[0].lower()
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    start = meter.read()
    try:
        started = time.perf_counter()
        page.goto(f"{url}/{path}")
        result.first_open = finished(page, first_word, 0, SLOW) - started
        result.cpu_open, result.browser_cpu_open = meter.read().cpu_since(start)
        result.errors += [f"first open: {text}" for text in page.evaluate(ERRORS)]
        for name, prepare in INTERACTIONS.get(path, []):
            try:
                trigger = prepare(page)
            except Missing as why:
                result.skipped[name] = str(why)
                continue
            before = changes(page)
            started = time.perf_counter()
            trigger()
            try:
                page.wait_for_function("n => window.__benchChanges > n", arg=before, polling=POLL_MS, timeout=NO_RUN_MS)
            except Exception:
                result.skipped[name] = f"no rerun within {NO_RUN_MS // 1000} s of the action"
                continue
            result.later[name] = finished(page, first_word, before, SLOW) - started
            result.errors += [f"{name}: {text}" for text in page.evaluate(ERRORS)]
    except Exception as err:  # a timeout or a page that went away: the page's remaining figures are missing
        result.skipped["(rest of the page)"] = f"{type(err).__name__}: {str(err).splitlines()[0][:160]}"
        with contextlib.suppress(Exception):
            result.errors += [f"when it stopped: {text}" for text in page.evaluate(ERRORS)]
    finally:
        end = meter.read()
        result.cpu_page, result.rss_after = end.cpu_since(start)[0], end.rss
        context.close()
    return result


def fresh_server(browser, pages: list[tuple[str, str]]) -> list[PageResult]:
    """Open ``pages`` (url_path, title) one after the other on a new server with an empty disk cache."""
    cache, before = tempfile.mkdtemp(prefix="bench-pages-cache-"), os.environ.get(STORAGE_ENV)
    os.environ[STORAGE_ENV] = cache  # the server inherits it
    try:
        with streamlit_server() as url:
            meter = Meter(url)
            results = []
            for path, title in pages:
                print(f"# {path} ...", end=" ", flush=True)
                results.append(visit(browser, url, path, title, meter))
                print(f"{results[-1].first_open or float('nan'):.2f} s", flush=True)
            return results
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if before is None:
            os.environ.pop(STORAGE_ENV)
        else:
            os.environ[STORAGE_ENV] = before


def run(args) -> list[list[PageResult]]:
    """One list of page results per repetition."""
    from playwright.sync_api import sync_playwright

    pages = [
        (url_path(file), title)
        for file, title, _ in available_pages()
        if not args.pages or url_path(file) in args.pages
    ]
    repetitions = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for repetition in range(args.repeat):
            print(
                f"# repetition {repetition + 1} of {args.repeat}: "
                f"{'a fresh server per page' if args.per_page_servers else 'one fresh server'}",
                flush=True,
            )
            if args.per_page_servers:
                repetitions.append([r for spec in pages for r in fresh_server(browser, [spec])])
            else:
                repetitions.append(fresh_server(browser, pages))
        browser.close()
    return repetitions


# --- the report -------------------------------------------------------------------------------------
def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarise(repetitions: list[list[PageResult]]) -> list[dict]:
    """Per page, the medians over the repetitions (the pages are in the same order in every one)."""
    rows = []
    for same in zip(*repetitions, strict=True):
        later_names = [name for name, _ in INTERACTIONS.get(same[0].path, [])]
        rows.append(
            {
                "page": same[0].path,
                "title": same[0].title,
                "first_open_s": median([r.first_open for r in same if r.first_open is not None]),
                "later_s": {
                    name: median([r.later[name] for r in same if name in r.later])
                    for name in later_names
                    if any(name in r.later for r in same)
                },
                "skipped": {name: why for r in same for name, why in r.skipped.items()},
                "errors": [e for r in same for e in r.errors],
                "server_cpu_open_s": median([r.cpu_open for r in same]),
                "server_cpu_page_s": median([r.cpu_page for r in same]),
                "browser_cpu_open_s": median([r.browser_cpu_open for r in same]),
                "server_rss_after_bytes": median([r.rss_after for r in same]),
            }
        )
    return rows


def report(rows: list[dict], args, loadavg: tuple[float, float]) -> None:
    opened = [row["first_open_s"] for row in rows if row["first_open_s"] is not None]
    lightest = min(opened) if opened else None
    table = []
    for row in rows:
        first = row["first_open_s"]
        ratio = first / lightest if first is not None and lightest else None
        row["ratio_to_lightest"] = ratio
        table.append(
            [
                row["page"],
                "timeout" if first is None else f"{first:.2f}",
                "" if ratio is None else f"{ratio:.1f}x",
                "" if first is None else "yes" if first < FIRST_OPEN_TARGET else "no",
                f"{row['server_cpu_open_s']:.1f} / {row['server_cpu_page_s']:.1f}",
                f"{row['browser_cpu_open_s']:.1f}",
                megabytes(row["server_rss_after_bytes"]),
            ]
        )
    print()
    print(
        f"# medians of {args.repeat} fresh server{'s' if args.repeat > 1 else ''}"
        f"{' (one per page)' if args.per_page_servers else ''}; {VIEWPORT['width']} x {VIEWPORT['height']}; "
        "times in seconds"
    )
    print_table(
        [
            "page",
            "first open",
            "/ lightest",
            f"< {FIRST_OPEN_TARGET:g} s",
            "server CPU s: open / page",
            "browser CPU s: open",
            "server RSS after",
        ],
        table,
    )
    print()
    print_table(
        ["page", "later interaction", "s", f"< {LATER_TARGET:g} s"],
        [
            [row["page"], name, f"{seconds:.2f}", "yes" if seconds < LATER_TARGET else "no"]
            for row in rows
            for name, seconds in row["later_s"].items()
        ],
    )
    later = [s for row in rows for s in row["later_s"].values()]
    if opened:
        heaviest = max(rows, key=lambda row: row["first_open_s"] or 0)
        print(
            f"# first opens: lightest {lightest:.2f} s, heaviest {heaviest['page']} "
            f"{heaviest['first_open_s']:.2f} s = {heaviest['first_open_s'] / lightest:.1f}x; target <= "
            f"{RATIO_TARGET:g}x: {'met' if heaviest['first_open_s'] <= RATIO_TARGET * lightest else 'MISSED'}; "
            f"under {FIRST_OPEN_TARGET:g} s: {sum(s < FIRST_OPEN_TARGET for s in opened)} of {len(rows)} pages"
        )
    if later:
        print(
            f"# later interactions: {sum(s < LATER_TARGET for s in later)} of {len(later)} under "
            f"{LATER_TARGET:g} s (slowest {max(later):.2f} s)"
        )
    for row in rows:
        for name, why in row["skipped"].items():
            print(f"# skipped {row['page']}: {name}: {why}")
        for error in row["errors"]:
            print(f"# ERROR on {row['page']}: {error}")
    start, end = loadavg
    print(
        f"# load average (1 min) {start:.1f} at the start, {end:.1f} at the end, on {os.cpu_count()} CPUs"
        + (
            ": other processes were running, figures are slower than on an idle machine"
            if max(start, end) > (os.cpu_count() or 1) / 2
            else ""
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="fresh servers, one after the other (medians)")
    parser.add_argument(
        "--per-page-servers",
        action="store_true",
        help="a fresh server for every page (no page profits from an earlier one)",
    )
    parser.add_argument(
        "--pages",
        type=lambda text: set(text.split(",")),
        default=set(),
        help="only these url paths, comma-separated (e.g. stepper,word_debugger)",
    )
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    unknown = args.pages - {url_path(file) for file, _, _ in available_pages()}
    if unknown:
        parser.error(f"no such page: {', '.join(sorted(unknown))}")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        print(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)", file=sys.stderr)
        return 1
    env = environment()
    print(environment_line(env))
    # Others may edit the sources during the run: a reload would be timed as the page's.
    os.environ.setdefault("STREAMLIT_SERVER_FILE_WATCHER_TYPE", "none")
    try:
        repetitions = run(args)
    except pytest.fail.Exception as err:  # the server did not start (its log is in the message)
        print(f"# the server did not start: {err}", file=sys.stderr)
        return 1
    rows = summarise(repetitions)
    env["loadavg_1min_at_end"] = os.getloadavg()[0]
    report(rows, args, (env["loadavg_1min_at_start"], env["loadavg_1min_at_end"]))
    write_json(
        args.json,
        {
            "environment": env,
            "repeat": args.repeat,
            "per_page_servers": args.per_page_servers,
            "viewport": VIEWPORT,
            "targets": {"first_open_s": FIRST_OPEN_TARGET, "ratio_to_lightest": RATIO_TARGET, "later_s": LATER_TARGET},
            "pages": rows,
            "runs": [[vars(r) for r in repetition] for repetition in repetitions],
        },
    )
    return 1 if any(row["errors"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
