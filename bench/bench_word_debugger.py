"""How long one word-debugger update takes on the Dutch 40k tokeniser, after the first load.

Two figures per word, best of ``--repeats`` (a new word each time, so nothing of that word is
cached; the tokenisers after knockout/ReBPE/trimming are, as in the page):

- ``engine``: what the page asks of core for a new word — trace it, explain it (boundaries,
  traps and their knock-out counterfactuals), and tokenise it with BPE after knockout, after
  ReBPE, TrimmedBPE and four BPE-dropout samples;
- ``page run``: the whole page script through Streamlit's AppTest (no browser, no network),
  i.e. the server side of one rerun after typing the word.

The browser-side figure (typing to the finished rerun on screen) is measured by
``tests/e2e/test_browser.py::test_word_debugger_update_speed`` and written to
``test-artifacts/word-debugger-timing.json``. Target: under 0.5 s.

    python bench/bench_word_debugger.py [--repeats 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.analysis.explain import explain_word, trace_word  # noqa: E402
from core.edits.rebpe import run_knockout, run_rebpe  # noqa: E402
from core.families.dropout import dropout_samples  # noqa: E402
from core.families.trimmed import TrimmedBPE  # noqa: E402
from core.formats.corpora import load_word_counts  # noqa: E402
from core.formats.samples import DUTCH_40K, count_paths, reference_paths  # noqa: E402
from core.formats.tokeniser_files import load_tokeniser  # noqa: E402
from core.references.files import load_references  # noqa: E402

TARGET = 0.5
WORDS = [
    "bruidsjurk",
    "masterthesis",
    "reanimatietechniek",
    "arbeidsongeschiktheidsverzekering",
    "kinderboeken",
    "gidsen",
    "bruidstaart",
    "voetballer",
    "beleidsmaker",
    "ziekenhuisopname",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    started = time.perf_counter()
    tokeniser = load_tokeniser(DUTCH_40K)
    references = load_references(reference_paths()["nl_morph"])
    knocked = run_knockout(tokeniser, references.entries).tokeniser
    rebpe = run_rebpe(tokeniser, references.entries).tokeniser
    trimmed = TrimmedBPE.from_corpus(tokeniser, load_word_counts(count_paths()["nl_wordfreq"]), 1000)
    by_word = references.by_word()
    print(f"first load (tokeniser, knockout, ReBPE, TrimmedBPE): {time.perf_counter() - started:.1f} s")

    def engine(word: str) -> None:
        entry = by_word.get(word)
        explain_word(
            tokeniser, word, entry.morphs if entry else None, traced=trace_word(tokeniser, word), counterfactual=True
        )
        for edited in (knocked, rebpe, trimmed):
            edited.tokenise_word(word)
        dropout_samples(tokeniser, word, 0.1, 4, seed=0)

    engine("gids")  # warm the engines' tables, as the first page load does
    engine_times: list[float] = []
    for repeat in range(args.repeats):
        for word in WORDS:
            # first the reference words themselves (boundaries, traps, counterfactuals), then
            # variants this process has not seen
            variant = word if repeat == 0 else word + random.choice("aeiou")
            start = time.perf_counter()
            engine(variant)
            engine_times.append(time.perf_counter() - start)

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page("pages/word_debugger.py")
    at.query_params["word"] = "gids"
    at.run()
    page_times: list[float] = []
    for repeat in range(args.repeats):
        for word in WORDS:
            variant = word if repeat == 0 else word + random.choice("aeiou")
            at.text_input(key="word").input(variant)
            start = time.perf_counter()
            at.run()
            page_times.append(time.perf_counter() - start)
            assert not at.exception, [e.value for e in at.exception]

    rows = {"engine": engine_times, "page run": page_times}
    print(f"{'per new word':<14}{'best':>9}{'median':>9}{'max':>9}  target < {TARGET} s")
    summary = {}
    for name, values in rows.items():
        median = statistics.median(values)
        verdict = "met" if median < TARGET else "MISSED"
        print(f"{name:<14}{min(values):>8.3f}s{median:>8.3f}s{max(values):>8.3f}s  {verdict} (median)")
        summary[name] = {"best_s": min(values), "median_s": median, "max_s": max(values), "runs": values}
    if args.json:
        environment = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "load": os.getloadavg()}
        args.json.write_text(json.dumps({"environment": environment, "target_s": TARGET, **summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
