"""How long one step of the Knockout & ReBPE stepper takes on the Dutch 40k tokeniser, after the first run.

Figures (best of ``--repeats`` for the per-step ones):

- ``first run``: ReBPE on the Dutch 40k with ``nl_morph`` (default configuration), as the page's
  first visit computes it (core only);
- ``step views``: what the step panel asks of ``core.edits.step_changes`` and ``viz.step_views`` for
  a step not seen before — the affected words, the merge-change rows, the four figures, the
  neighbourhood of the first changed type and the before/after trees (core + viz, no Streamlit);
- ``page run``: the whole stepper page through Streamlit's AppTest after pressing Next (no
  browser, no network; the run is cached), i.e. the server side of one step.

The browser-side figure (Next pressed to the finished rerun on screen) is measured by
``tests/e2e/test_stepper_page.py::test_one_step_on_the_dutch_40k`` and written to
``test-artifacts/stepper-speed.txt``. Target: one step under 2 s.

    python bench/bench_stepper.py [--repeats 3] [--steps 6] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import timed  # noqa: E402
from core.edits.rebpe import ReBPEConfig, run_rebpe  # noqa: E402
from core.edits.reference_state import TokenisedReference  # noqa: E402
from core.formats.samples import DUTCH_40K, reference_paths  # noqa: E402
from core.formats.tokeniser_files import load_tokeniser  # noqa: E402
from core.references.files import load_references  # noqa: E402

TARGET_SECONDS = 2.0


def step_views(tokeniser, run, initial, words, index: int) -> None:
    from core.edits.step_changes import affected_words, touched_types
    from viz import step_views as sv
    from viz.trees import tree_svg

    steps = run.steps
    step = steps[index - 1]
    before = steps[index - 2].tokeniser if index >= 2 else tokeniser
    display = tokeniser.pretokeniser.display
    affected = affected_words(before, step.tokeniser, words, step.changed_words, touched=touched_types(step))
    sv.merge_change_rows(step, steps[index - 2].origins if index >= 2 else {}, display)
    for figure in (
        sv.f1_figure(steps, initial, index),
        sv.origins_figure(steps, index),
        sv.vocab_figure(steps, tokeniser, index),
        sv.knocked_out_figure(steps, index),
    ):
        figure.to_json()
    types = touched_types(step)
    if types:
        sv.neighbourhood_rows(before, types[0], display)
        sv.neighbourhood_rows(step.tokeniser, types[0], display)
    word = (affected or words)[0]
    for tok in (before, step.tokeniser):
        tree_svg([t for p in tok.pretokeniser.pretokenise(" " + word) for t in tok.trace_pretoken(p).trees], display)


def page_runs(steps: int) -> list[float]:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    st.cache_resource.clear()
    app = AppTest.from_file(str(ROOT / "pages" / "stepper.py"), default_timeout=600)
    app.query_params["tokeniser"] = "nl-40k"
    app.run()
    times = []
    for _ in range(steps):
        seconds, _ = timed(lambda: app.button(key="stepper_next").click().run())
        if app.exception:
            raise SystemExit(f"the page failed: {app.exception[0].value}")
        times.append(seconds)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--json")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    if load > cpus:
        print(f"note: load average {load:.1f} exceeds {cpus} CPUs; figures are noisy")
    tokeniser = load_tokeniser(DUTCH_40K)
    entries = load_references(reference_paths()["nl_morph"]).entries
    words = [e.word for e in entries]
    initial = TokenisedReference(tokeniser, entries).scores()
    first, run = timed(lambda: run_rebpe(tokeniser, entries, ReBPEConfig()))
    print(f"first run: {first:.2f} s ({len(run.steps)} steps)")

    views = []
    for index in range(1, min(args.steps, len(run.steps)) + 1):
        best = min(timed(partial(step_views, tokeniser, run, initial, words, index))[0] for _ in range(args.repeats))
        views.append(best)
    pages = [min(column) for column in zip(*(page_runs(args.steps) for _ in range(args.repeats)), strict=True)]

    print(f"{'step':>4}  {'step views':>10}  {'page run':>9}")
    for index, (view, page) in enumerate(zip(views, pages, strict=False), 1):
        print(f"{index:>4}  {view:>9.3f}s  {page:>8.3f}s")
    worst = max(pages)
    print(
        f"slowest page run {worst:.2f} s; target one step < {TARGET_SECONDS:.0f} s: "
        f"{'met' if worst < TARGET_SECONDS else 'MISSED'} (server side; the browser adds its rendering)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "cpus": cpus,
                    "load_average": load,
                    "first_run_seconds": first,
                    "step_views_seconds": views,
                    "page_run_seconds": pages,
                    "target_seconds": TARGET_SECONDS,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
