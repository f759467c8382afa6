"""The merge graph on a real 128k-type tokeniser (Llama 3's tokenizer.json): the first view of a
neighbourhood after loading, server side. Target: at most 1.5 s.

Two measurements, each in a fresh process state for the tokeniser (nothing derived from it cached):

- ``engine``: what the page asks of core and viz for the first view after the file is loaded:
  the neighbourhood (builds the M_i/M_o indexes, primary merges of the types it meets), how often
  the shown merges fire on the reference and the corpus (pre-tokenising both, tracing the
  pretokens that can contain them), the HTML of the graph and the table of the centre's merges;
  then a second type (indexes warm).
- ``page``: through Streamlit's AppTest (no browser): load the file by path on the Workspace page
  (not timed: that is loading), then the Merge graph page's first run, then a second type.

    python bench/bench_graph_real.py [--tokeniser PATH] [--type Ġunderstanding] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.analysis.merge_usage import FireCounter  # noqa: E402
from core.bpe.graph import neighbourhood  # noqa: E402
from core.formats.samples import reference_paths, running_text  # noqa: E402
from core.formats.tokeniser_files import load_tokeniser  # noqa: E402
from core.references.files import load_references  # noqa: E402
from viz.graph_html import graph_html  # noqa: E402
from viz.graph_search import default_type, type_labels  # noqa: E402
from viz.graph_style import MERGES_VIEW  # noqa: E402
from viz.graph_tables import mio_rows, type_merge_rows  # noqa: E402

TARGET = 1.5
DEFAULT_FILE = Path.home() / ".cache/structured-tokenisers/real/llama3/tokenizer.json"


def first_view(tokeniser, center: str, references, lines) -> dict[str, float]:
    times = {}
    start = time.perf_counter()
    hood = neighbourhood(tokeniser, center, 2, 40, 4)
    times["neighbourhood"] = time.perf_counter() - start
    t = time.perf_counter()
    counters = {
        "reference": FireCounter.from_words(tokeniser, references.words(), "reference"),
        "corpus": FireCounter.from_lines(tokeniser, lines, "corpus"),
    }
    merges = hood.shown_merges()
    counts = {name: c.counts(merges) for name, c in counters.items()}
    times["fire counts"] = time.perf_counter() - t
    t = time.perf_counter()
    graph_html(tokeniser, hood, MERGES_VIEW, fire_counts=counts)
    type_merge_rows(tokeniser, center, fire_counts=counts)
    mio_rows(tokeniser, center)
    times["html and tables"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - start
    return times


def page_times(args) -> dict[str, float]:
    """The Workspace loading the file by path, then the Merge graph page's first run and a second type
    (Streamlit's AppTest, server side)."""
    from streamlit.testing.v1 import AppTest

    from ui.path_policy import ENV

    os.environ[ENV] = str(Path(args.tokeniser).resolve().parent)  # the explorer reads only allowed folders
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page("pages/workspace.py")
    at.query_params["reference"] = args.reference
    at.run()
    at.text_input(key="ws_path").input(str(args.tokeniser))
    start = time.perf_counter()
    at.button(key="ws_path_load").click().run()
    load = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("pages/merge_graph.py")
    at.session_state["type"] = args.type
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    at.session_state["type"] = args.second
    start = time.perf_counter()
    at.run()
    second = time.perf_counter() - start
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    print(
        f"page: loading by path on the Workspace {load:.2f} s; merge graph "
        f"first view {first:.3f} s ({'met' if first <= TARGET else 'MISSED'} <= {TARGET} s); "
        f"another type {second:.3f} s"
    )
    return {"page load (workspace)_s": load, "page first view_s": first, "page second type_s": second}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokeniser", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--type", default="Ġunderstanding")
    parser.add_argument("--second", default="ĠĠĠĠ")
    parser.add_argument("--reference", default="en_morph")
    parser.add_argument("--no-page", action="store_true", help="skip the AppTest measurement")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not args.tokeniser.exists():
        print(f"{args.tokeniser} is missing (scripts/fetch_real_tokenisers.py)", file=sys.stderr)
        return 1
    references = load_references(reference_paths()[args.reference])
    lines = list(running_text())

    start = time.perf_counter()
    tokeniser = load_tokeniser(str(args.tokeniser))
    load = time.perf_counter() - start
    print(
        f"{args.tokeniser}: {len(tokeniser.types):,} types, {len(tokeniser.merges):,} merges, "
        f"{tokeniser.multi_merge_types:,} types with several merges; loaded in {load:.2f} s"
    )
    start = time.perf_counter()
    type_labels(tokeniser)  # what the page computes before its first view
    default_type(tokeniser)
    label_time = time.perf_counter() - start
    results = {"load_s": load, "labels_and_default_s": label_time}
    for name, center in (("first view", args.type), ("second type", args.second)):
        times = first_view(tokeniser, center, references, lines)
        results[name] = times
        print(f"engine {name:<12} {center!r:<18} " + "  ".join(f"{k} {v:.3f} s" for k, v in times.items()))
    engine_first = results["first view"]["total"] + label_time
    print(
        f"engine: first view after loading (labels, default type, neighbourhood, counts, HTML): "
        f"{engine_first:.3f} s  target <= {TARGET} s: {'met' if engine_first <= TARGET else 'MISSED'}"
    )

    if not args.no_page:
        results.update(page_times(args))
    if args.json:
        environment = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "load": os.getloadavg()}
        args.json.write_text(json.dumps({"environment": environment, "target_s": TARGET, **results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
