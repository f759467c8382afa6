"""A class on one server: N browser sessions step through the stepper and the word debugger at once.

Starts ``streamlit run app.py`` on a free loopback port (``tests/e2e/conftest.streamlit_server``)
and drives it from ONE headless Chromium (Debian's ``/usr/bin/chromium``, never ``playwright
install``) with N browser contexts, each a Streamlit session of its own. A warm-up session first
computes what every later session shares (the ReBPE run of the stepper and the word debugger's
knockout/ReBPE on the Dutch 40k with ``nl_morph``, the steps and words the sessions use), so the
load phase measures cached views. Then each session, at most ``--concurrency`` at a time and with
a random think time between actions:

1. opens the Workspace (``?tokeniser=nl-40k&reference=nl_morph``) and uploads a corpus under the
   SAME file name as every other session (``load-corpus.txt``) but with its own content: ``x``
   and then its word ``k`` times, ``k = 101 + session index``;
2. opens the stepper (sidebar link) and clicks Next 2-4 times (a number of its own);
3. opens the word debugger, types its word (one of five), and goes one merge back;
4. returns to the Workspace.

Every action is timed from the click / key press until the app reports the run finished
(``stApp`` connected and ``notRunning``, no skeleton) with the new value shown (the slider's
value, the word's heading, the upload's name); polled every 50 ms. Each session then checks that
it sees its own state: the corpus choice and its running words (``k + 1``) on the Workspace, before
and after the other pages; its step (slider and ``?step=``); its word (heading and ``?word=``); and
the corpus counts in the word debugger's merge table, which must all be multiples of its own ``k``
(another session's corpus gives multiples of another ``k``). Any error box or traceback and any
request that leaves 127.0.0.1 counts as a failure.

Memory: RSS of the server's process tree (psutil if installed, else ``/proc/PID/status`` VmRSS),
sampled every 0.5 s in a thread: at start, after the warm-up ("before"), peak during the load,
at the end with all N sessions still open, and some seconds after closing every context
(Streamlit keeps a disconnected session for ``server.disconnectedSessionTTL``, 120 s by default,
and Python rarely returns freed memory to the system). ``(peak - before) / N`` is printed as the
per-session footprint. The browser tree (Chromium and the Playwright driver) is measured by PSS.
CPU seconds of both trees over the load phase tell which side is the bottleneck.

Targets (printed, never asserted): p95 of the cached views (Next, a new word, one merge back)
under 2 s on a 2-core machine. Exit status 1 if any session saw state that is not its own or a
page showed an error, 2 if some session did not finish in ``--timeout`` seconds (whole run).

    python bench/bench_load.py [--sessions 30] [--concurrency 10] [--think 1.0] [--timeout 600] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import environment, environment_line, load_note, print_table, verdict, write_json
from tests.e2e.browser_support import LOOPBACK, SLOW, outside_requests
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, streamlit_server

try:
    import psutil
except ImportError:  # /proc is enough on Linux
    psutil = None
GONE = (OSError, ValueError, IndexError) + ((psutil.Error,) if psutil else ())  # a process that has exited

TARGET_SECONDS = 2.0
CACHED_VIEWS = ("stepper: Next", "word debugger: new word", "word debugger: one merge back")
WORDS = ("kinderboeken", "voetballer", "bruidstaart", "reanimatietechniek", "gidsen")  # not the page's defaults
CORPUS_NAME = "load-corpus.txt"
CORPUS_CHOICE = "upload: " + CORPUS_NAME
START_QUERY = "/?tokeniser=nl-40k&reference=nl_morph"
ACTION_MS = 120_000  # one action on a loaded machine
POLL_MS = 50
SAMPLE_SECONDS = 0.5
SETTLE_SECONDS = 5.0  # after closing the contexts
VIEWPORT = {"width": 1024, "height": 700}  # small; 800 x 500 costs the browser as much CPU (its JS, not paint)
BLOCKED = re.compile(r"\.(woff2?|ttf|otf|png|jpe?g|gif|webp|ico)(\?|$)")  # images and fonts: not needed

# Stable selectors: Streamlit gives an element with ``key=K`` the class ``st-key-K`` (":" becomes "-").
UPLOAD = ".st-key-upload_corpus input[type=file]"
CORPUS = ".st-key-ws_corpus input"
NEXT = ".st-key-stepper_next button"
VISIBLE = " >> visible=true"  # a button with a tooltip has a hidden twin
STEP = "[class*=st-key-stepper_slider_] [data-testid=stSliderThumbValue]"  # one slider key per step
WORD_INPUT = ".st-key-word input"
NAV = "[data-testid=stSidebarNavLink][href$='{}']"

SETTLED = """([selector, expected, exact]) => {
    const app = document.querySelector("[data-testid=stApp]");
    if (!app || app.dataset.testConnectionState !== "CONNECTED" || app.dataset.testScriptState !== "notRunning"
        || document.querySelector("[data-testid=stSkeleton]")) return false;
    return [...document.querySelectorAll(selector)].some(e => expected === null
        || (exact ? (e.value ?? e.textContent.trim()) === expected : e.textContent.includes(expected)));
}"""
ERRORS = """() => [...document.querySelectorAll("[data-testid=stException], [data-testid=stAlertContentError]")]
    .map(e => e.textContent.slice(0, 160))
    .concat(document.body.innerText.includes("Traceback (most recent call last)") ? ["a traceback"] : [])"""
CORPUS_COUNTS = """() => {
    for (const table of document.querySelectorAll("table")) {
        const column = [...table.querySelectorAll("thead th")].findIndex(h => h.textContent.includes("corpus"));
        if (column >= 0) return [...table.querySelectorAll("tbody tr")].map(r => r.children[column]?.textContent ?? "");
    }
    return null;
}"""


# --- process trees: RSS and CPU time ---------------------------------------------------------------
def process_table() -> dict[int, int]:
    """pid -> parent pid of every process."""
    if psutil:
        return {p.pid: p.info["ppid"] for p in psutil.process_iter(["ppid"])}
    table = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            table[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return table


def usage(pid: int, proportional: bool = False) -> tuple[int, float] | None:
    """(memory bytes, CPU seconds) of one process, None once it has gone. Memory is the RSS, or with
    ``proportional`` the PSS (shared pages split among their processes, so a sum over Chromium's
    many processes does not count its shared libraries and memory once per process)."""
    try:
        if psutil:
            process = psutil.Process(pid)
            times = process.cpu_times()
            memory = process.memory_full_info().pss if proportional else process.memory_info().rss
            return memory, times.user + times.system
        file, label = ("smaps_rollup", "Pss") if proportional else ("status", "VmRSS")
        found = re.search(rf"^{label}:\s+(\d+) kB", Path(f"/proc/{pid}/{file}").read_text(), re.M)
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(found.group(1)) * 1024 if found else 0), (int(fields[11]) + int(fields[12])) / os.sysconf(
            "SC_CLK_TCK"
        )
    except GONE:
        return None


def descendants(root: int, table: dict[int, int]) -> set[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, parent in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def server_pid(port: int) -> int:
    """The ``streamlit run`` child of this process that listens on ``port``."""
    for pid, parent in process_table().items():
        if parent == os.getpid():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "streamlit" in command and f"--server.port={port}" in command:
                return pid
    raise RuntimeError(f"no streamlit process of ours on port {port}")


class Monitor(threading.Thread):
    """Samples the server's and the browser's trees (all processes below this one but the server)."""

    def __init__(self, server: int):
        super().__init__(daemon=True)
        self.server = server
        self.samples: list[tuple[float, dict[str, int], dict[int, tuple[str, float]]]] = []  # (t, memory, CPU)
        self.halt = threading.Event()

    def sample(self) -> tuple[float, dict[str, int], dict[int, tuple[str, float]]]:
        table = process_table()
        server = descendants(self.server, table)
        browser = descendants(os.getpid(), table) - server - {os.getpid()}
        rss, cpu = {"server": 0, "browser": 0}, {}
        for side, pids in (("server", server), ("browser", browser)):
            for pid in pids:
                used = usage(pid, proportional=side == "browser")
                if used:
                    rss[side] += used[0]
                    cpu[pid] = (side, used[1])
        found = (time.monotonic(), rss, cpu)
        self.samples.append(found)
        return found

    def run(self) -> None:
        while not self.halt.wait(SAMPLE_SECONDS):
            self.sample()

    def peak(self, side: str, since: float) -> int:
        return max((rss[side] for t, rss, _ in self.samples if t >= since), default=0)

    def cpu(self, side: str, start, end) -> float:
        """CPU seconds of ``side`` between two of its samples (a process seen in between counts what it used)."""
        before = {pid: seconds for pid, (s, seconds) in start[2].items() if s == side}
        last: dict[int, float] = {}
        for t, _, cpu in self.samples:
            if start[0] <= t <= end[0]:
                last.update({pid: seconds for pid, (s, seconds) in cpu.items() if s == side})
        return sum(seconds - before.get(pid, 0.0) for pid, seconds in last.items())


# --- one browser session ---------------------------------------------------------------------------------
@dataclass
class Session:
    index: int  # -1: the warm-up
    word: str
    steps: int  # Next clicks
    k: int  # how often its word is in its corpus
    timings: dict[str, list[float]] = field(default_factory=dict)
    wrong: list[str] = field(default_factory=list)  # state that is not its own
    errors: list[str] = field(default_factory=list)  # error boxes, tracebacks, requests leaving 127.0.0.1
    unchecked: list[str] = field(default_factory=list)
    failure: str = ""  # why it stopped early (a timeout, a missing element)
    stage: str = "waiting"
    done: bool = False

    @property
    def corpus(self) -> bytes:
        return ("x" + f" {self.word}" * self.k + "\n").encode()


def session_of(index: int) -> Session:
    return Session(index, WORDS[index % len(WORDS)], 2 + index % 3, 101 + index)


def owner_of(k: int) -> str:
    """Which session uploads a corpus with ``k`` copies of its word."""
    return "the warm-up" if k == 100 else f"session {k - 101}" if 101 <= k <= 200 else "no session"


async def settled(page, selector: str, expected: str | None = None, exact: bool = False) -> None:
    await page.wait_for_function(SETTLED, arg=[selector, expected, exact], polling=POLL_MS, timeout=ACTION_MS)


async def timed(session: Session, name: str, page, action, selector: str, expected=None, exact=False) -> None:
    """Run ``action()``, wait until the run has finished with ``expected`` in ``selector``, record the time."""
    session.stage = name
    started = time.perf_counter()
    await action()
    await settled(page, selector, expected, exact)
    session.timings.setdefault(name, []).append(time.perf_counter() - started)


async def no_errors(session: Session, page, where: str) -> None:
    session.errors += [f"{where}: {text}" for text in await page.evaluate(ERRORS)]


async def check_workspace(session: Session, page, when: str) -> None:
    """Its own upload is the corpus choice, with its own number of running words."""
    choice = await page.locator(CORPUS).input_value()
    if choice != CORPUS_CHOICE:
        session.wrong.append(f"workspace {when}: corpus choice {choice!r}, expected {CORPUS_CHOICE!r}")
    found = re.search(r"Running words\s*([\d,]+)", await page.locator("[data-testid=stMain]").inner_text())
    if not found:
        session.unchecked.append(f"workspace {when}: no 'Running words' figure")
    elif int(found.group(1).replace(",", "")) != session.k + 1:
        seen = int(found.group(1).replace(",", "")) - 1
        session.wrong.append(
            f"workspace {when}: corpus has {seen + 1} running words, its own has {session.k + 1} "
            f"(that is {owner_of(seen)}'s corpus)"
        )


async def check_corpus_counts(session: Session, page) -> None:
    """The word debugger's merge counts on the corpus are multiples of this session's ``k``."""
    cells = await page.evaluate(CORPUS_COUNTS)
    if cells is None:
        session.unchecked.append("word debugger: no merge table with a corpus column")
        return
    counts = [int(c.replace(",", "")) for c in cells if c.replace(",", "").isdigit()]
    if not any(counts) or any(count % session.k for count in counts):
        session.wrong.append(f"word debugger: corpus counts {counts} are not multiples of its own {session.k}")


async def think(rng: random.Random, seconds: float) -> None:
    await asyncio.sleep(seconds * rng.uniform(0.5, 1.5))


async def run_session(
    browser, url: str, session: Session, light: bool, pause: float, contexts: list, extra_words: tuple[str, ...] = ()
) -> None:
    rng = random.Random(session.index)
    context = await browser.new_context(viewport=VIEWPORT)
    contexts.append(context)
    if light:
        await context.route(BLOCKED, lambda route: route.abort())
    page = await context.new_page()
    outside = outside_requests(page)
    try:
        await timed(session, "open workspace", page, lambda: page.goto(url + START_QUERY), UPLOAD)
        await think(rng, pause)
        await timed(
            session,
            "upload corpus",
            page,
            lambda: page.locator(UPLOAD).set_input_files(
                {"name": CORPUS_NAME, "mimeType": "text/plain", "buffer": session.corpus}
            ),
            CORPUS,
            CORPUS_CHOICE,
            True,
        )
        await check_workspace(session, page, "after the upload")
        await no_errors(session, page, "workspace")
        await think(rng, pause)

        await timed(session, "open stepper", page, page.locator(NAV.format("/stepper")).click, NEXT)
        for step in range(1, session.steps + 1):
            await think(rng, pause)
            await timed(session, "stepper: Next", page, page.locator(NEXT + VISIBLE).click, STEP, str(step), True)
        shown = (await page.locator(STEP).inner_text()).strip()
        if shown != str(session.steps) or not re.search(rf"[?&]step={session.steps}(&|$)", page.url):
            session.wrong.append(
                f"stepper: slider at {shown}, address {page.url}; it clicked Next {session.steps} times"
            )
        await no_errors(session, page, "stepper")
        await think(rng, pause)

        await timed(session, "open word debugger", page, page.locator(NAV.format("/word_debugger")).click, WORD_INPUT)
        for word in (*extra_words, session.word):  # its own word last
            await think(rng, pause)
            await page.locator(WORD_INPUT).fill(word)
            await timed(
                session, "word debugger: new word", page, lambda: page.locator(WORD_INPUT).press("Enter"), "h2", word
            )
        if not re.search(rf"[?&]word={re.escape(word)}(&|$)", page.url):
            session.wrong.append(f"word debugger: address {page.url}, expected word={word}")
        await check_corpus_counts(session, page)
        merge_step = f".st-key-step--{word} input[type=range]"
        last = int(await page.locator(merge_step).get_attribute("max"))
        await think(rng, pause)
        await timed(
            session,
            "word debugger: one merge back",
            page,
            page.locator(f".st-key-back--{word} button").first.click,
            merge_step,
            str(last - 1),
            True,
        )
        await no_errors(session, page, "word debugger")
        await think(rng, pause)

        await timed(session, "back to workspace", page, page.locator(NAV.format("/")).click, CORPUS)
        await check_workspace(session, page, "after the other pages")
        await no_errors(session, page, "workspace (again)")
        session.errors += [f"request left {LOOPBACK}: {request}" for request in outside]
        session.done = True
    except Exception as err:  # a timeout or a missing element: the session stops here
        session.failure = f"{session.stage}: {type(err).__name__}: {str(err).splitlines()[0][:200]}"
        with contextlib.suppress(Exception):  # an error box is often why
            await no_errors(session, page, session.stage)


# --- the run ---------------------------------------------------------------------------------------------
def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def megabytes(value: int) -> str:
    return f"{value / 2**20:,.0f} MB"


async def drive(url: str, monitor: Monitor, args, deadline: float) -> dict:
    from playwright.async_api import async_playwright

    marks = {"start": monitor.sample()}
    sessions = [session_of(i) for i in range(args.sessions)]
    warm = Session(-1, WORDS[0], max(s.steps for s in sessions), 100)
    contexts: list = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        print(f"# warm-up: one session computes the shared runs (up to {SLOW // 1000} s)", flush=True)
        try:
            await asyncio.wait_for(
                run_session(browser, url, warm, args.light, 0.0, contexts, WORDS[1:]),
                min(SLOW / 1000, deadline - time.monotonic()),
            )
        except TimeoutError:
            warm.failure = f"{warm.stage}: the warm-up took longer than {SLOW // 1000} s"
        for context in contexts:
            await context.close()
        contexts.clear()
        await asyncio.sleep(2)
        marks["before"] = monitor.sample()
        print(f"# load: {args.sessions} sessions, {args.concurrency} at a time", flush=True)

        gate = asyncio.Semaphore(args.concurrency)

        async def one(session: Session) -> None:
            async with gate:
                await run_session(browser, url, session, args.light, args.think, contexts)

        tasks = [asyncio.ensure_future(one(s)) for s in sessions]
        await asyncio.wait(tasks, timeout=max(1.0, deadline - time.monotonic()))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        marks["end"] = monitor.sample()  # every context still open
        for context in contexts:
            await context.close()
        await browser.close()
    await asyncio.sleep(SETTLE_SECONDS)
    marks["closed"] = monitor.sample()
    return {"warm": warm, "sessions": sessions, "marks": marks}


def report(result: dict, monitor: Monitor, args) -> int:
    warm, sessions, marks = result["warm"], result["sessions"], result["marks"]
    before, end = marks["before"], marks["end"]
    wall = end[0] - before[0]
    print()
    print(
        f"# {args.sessions} sessions, {args.concurrency} at a time, think time {args.think:g} s (±50 %), "
        f"{'images and fonts blocked' if args.light else 'full pages'}; load phase {wall:.0f} s"
    )
    names = list(dict.fromkeys(name for s in sessions for name in s.timings))
    rows, latency = [], {}
    for name in names:
        values = [v for s in sessions for v in s.timings.get(name, ())]
        latency[name] = {
            "n": len(values),
            "p50": percentile(values, 0.5),
            "p95": percentile(values, 0.95),
            "max": max(values),
        }
        rows.append([name, len(values), *(f"{latency[name][k]:.2f} s" for k in ("p50", "p95", "max"))])
    print_table(["action", "n", "p50", "p95", "max"], rows)
    for name in CACHED_VIEWS:
        if name in latency:
            print(f"# p95 {name}: {latency[name]['p95']:.2f} s, {verdict(latency[name]['p95'], TARGET_SECONDS)}")

    peak = monitor.peak("server", before[0])
    memory = {
        "start": marks["start"][1]["server"],
        "before": before[1]["server"],
        "peak": peak,
        "end (all open)": end[1]["server"],
        f"closed + {SETTLE_SECONDS:g} s": marks["closed"][1]["server"],
    }
    footprint = (peak - memory["before"]) / max(1, len(sessions))
    print()
    print_table(
        ["server RSS", "value"],
        [[k, megabytes(v)] for k, v in memory.items()]
        + [
            ["per session: (peak - before) / N", megabytes(footprint)],
            [
                "per session: (end - before) / N",
                megabytes((memory["end (all open)"] - memory["before"]) / max(1, len(sessions))),
            ],
            ["browser tree PSS, peak", megabytes(monitor.peak("browser", before[0]))],
        ],
    )
    cpu = {side: monitor.cpu(side, before, end) for side in ("server", "browser")}
    actions = max(1, sum(entry["n"] for entry in latency.values()))
    print(
        f"# CPU in the load phase ({actions} actions, {os.cpu_count()} cores): "
        + ", ".join(
            f"{side} {seconds:.0f} s = {seconds / wall:.0%} of one core, {seconds / actions:.2f} s per action"
            for side, seconds in cpu.items()
        )
    )
    print(f"# the browsers used {cpu['browser'] / max(cpu['server'], 1e-9):.1f} x the server's CPU time")
    print(
        "# warm-up (first computations): "
        + ", ".join(f"{name} {sum(values):.1f} s" for name, values in warm.timings.items())
    )

    bad = [s for s in sessions if s.wrong or s.errors]
    unfinished = [s for s in sessions if not s.done]
    print()
    print(
        f"# sessions that saw another's state or an error: {len(bad)} of {len(sessions)}; unfinished: {len(unfinished)}"
    )
    for s in [warm, *sessions]:
        who = "warm-up" if s.index < 0 else f"session {s.index}"
        for line in s.wrong + s.errors:
            print(f"  {who}: {line}")
        if not s.done:
            print(f"  {who} did not finish: {s.failure or 'stopped by --timeout at ' + s.stage}")
    unchecked = sorted({line for s in sessions for line in s.unchecked})
    for line in unchecked:
        print(f"# NOT CHECKED (the page changed?): {line}")
    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "environment": environment(),
            "sessions": args.sessions,
            "concurrency": args.concurrency,
            "think_s": args.think,
            "light": args.light,
            "load_seconds": wall,
            "latency_s": latency,
            "server_rss_bytes": memory,
            "per_session_bytes": footprint,
            "cpu_s": cpu,
            "bad": {s.index: s.wrong + s.errors for s in bad},
            "unfinished": {s.index: s.failure or s.stage for s in unfinished},
            "unchecked": unchecked,
            "warmup_s": warm.timings,
            "memory_timeline": [
                (round(t - marks["start"][0], 1), rss["server"], rss["browser"]) for t, rss, _ in monitor.samples
            ],
        },
    )
    if bad or warm.wrong or warm.errors:
        return 1
    return 2 if unfinished or not warm.done else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30, help="browser sessions (at most 100)")
    parser.add_argument("--concurrency", type=int, default=10, help="sessions acting at the same time")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between a session's actions")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for the whole run")
    parser.add_argument(
        "--full-pages",
        dest="light",
        action="store_false",
        help="also load images and fonts (blocked by default to spare the browser)",
    )
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args()
    if not 1 <= args.sessions <= 100:  # the corpus counts tell sessions apart by k = 101..200
        parser.error("--sessions must be between 1 and 100")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        print(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)", file=sys.stderr)
        return 2
    print(environment_line(environment()))
    # A class's server does not watch its sources; here others may edit them during the run, and a
    # reload would mix classes of old and new modules in the shared caches.
    os.environ.setdefault("STREAMLIT_SERVER_FILE_WATCHER_TYPE", "none")
    deadline = time.monotonic() + args.timeout
    with streamlit_server() as url:
        monitor = Monitor(server_pid(int(url.rsplit(":", 1)[1])))
        monitor.start()
        result = asyncio.run(drive(url, monitor, args, deadline))
        monitor.halt.set()
    return report(result, monitor, args)


if __name__ == "__main__":
    sys.exit(main())
