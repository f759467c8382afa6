"""Reading a result from its archive against computing it: the precomputed results of the Dutch 40k.

For each result ``scripts/precompute_samples.py`` ships (ReBPE, knockout and ReBPE without reparation
with ``nl_morph``, blocked-merge scans, reparations), prints:

- ``compute``: the computation itself (core only, no Streamlit), as a page's first open did it;
- ``KB``: the archive's size in ``sample_data/precomputed/``;
- ``load``: what a page waits for instead (``ui.rebpe_runs.stored_run`` / ``stored_blocked_report`` /
  ``stored_reparation`` finding the shipped file: read, decompress, decode, rebuild the final tokeniser),
  best of ``--repeats``; for runs also ``all steps``, rebuilding every step's tokeniser afterwards
  (the stepper does it one step at a time, when shown);
- ``write``: writing the result to the disk cache (what a computed result costs on top).

Plus the one-off content digest of the loaded tokeniser (``core.edits.archive.tokeniser_digest``),
paid once per loaded tokeniser before its first lookup. Nothing is asserted; the target is a
load well under 1 s.

    python bench/bench_result_cache.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["EXPLORER_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-result-cache-")

from bench._common import load_note, print_table, timed  # noqa: E402
from core.edits.archive import run_to_json, tokeniser_digest  # noqa: E402
from core.edits.blocked import find_blocked_merges  # noqa: E402
from core.formats.tokeniser_files import load_tokeniser  # noqa: E402
from core.references.files import load_references  # noqa: E402
from scripts.precompute_samples import RUNS  # noqa: E402
from ui import result_cache  # noqa: E402
from ui.rebpe_runs import (  # noqa: E402
    ComputedRun,
    blocked_content_key,
    compute_reparation,
    compute_run,
    marked,
    reparation_content_key,
    run_content_key,
    stored_blocked_report,
    stored_reparation,
    stored_run,
)
from ui.workspace_choices import DEFAULT_REFERENCE, DEFAULT_TOKENISER, SAMPLE_REFERENCES, SAMPLE_TOKENISERS  # noqa: E402


def refuse():
    raise SystemExit("not precomputed: run scripts/precompute_samples.py first")


def size_kb(key: str) -> str:
    return f"{(result_cache.PRECOMPUTED_DIR / result_cache.file_name(key)).stat().st_size / 1024:.0f}"


def run_rows(label: str, config, tokeniser, references, repeats: int) -> tuple[list[str], ComputedRun]:
    """The row of one precomputed run: compute, archive size, load, all steps, write; and the run."""
    key = run_content_key(tokeniser, references, config)
    compute_seconds, run = timed(lambda: marked(compute_run((label,), tokeniser, references, config), key))
    loads = [timed(lambda: stored_run((label,), tokeniser, references, config, refuse)) for _ in range(repeats)]
    steps_seconds, _ = timed(lambda: [step.tokeniser for step in loads[-1][1].steps])
    write_seconds, _ = timed(lambda: result_cache.store("run", key, lambda: run_to_json(tokeniser, run.parts())))
    row = [
        f"run: {label}",
        f"{compute_seconds:.2f}",
        size_kb(key),
        f"{min(t for t, _ in loads):.3f}",
        f"{steps_seconds:.3f}",
        f"{write_seconds:.2f}",
    ]
    return row, run


def after_run_row(name: str, key: str, compute, load, repeats: int) -> list[str]:
    """The row of a result computed on a run's final tokeniser (blocked merges, a reparation)."""
    compute_seconds, _ = timed(compute)
    best = min(timed(load)[0] for _ in range(repeats))
    return [name, f"{compute_seconds:.2f}", size_kb(key), f"{best:.3f}", "", ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    note = load_note()
    if note:
        print(note)
    tokeniser = load_tokeniser(SAMPLE_TOKENISERS[DEFAULT_TOKENISER])
    references = load_references(SAMPLE_REFERENCES[DEFAULT_REFERENCE])
    words = tuple(references.words())
    digest_seconds, _ = timed(lambda: tokeniser_digest(tokeniser))
    rows = []
    for label, config, blocked, modes in RUNS:
        row, run = run_rows(label, config, tokeniser, references, args.repeats)
        rows.append(row)
        final = run.tokeniser
        if blocked:
            rows.append(
                after_run_row(
                    f"blocked merges after {label}",
                    blocked_content_key(final, words),
                    partial(find_blocked_merges, final, list(words)),
                    partial(stored_blocked_report, final, words),
                    args.repeats,
                )
            )
        for mode in modes:
            rows.append(
                after_run_row(
                    f"reparation ({mode}) after {label}",
                    reparation_content_key(final, mode, words),
                    partial(compute_reparation, final, mode, words),
                    partial(stored_reparation, final, mode, words),
                    args.repeats,
                )
            )
    print(f"# {DEFAULT_TOKENISER} with {DEFAULT_REFERENCE}; seconds; load = best of {args.repeats}")
    print_table(["result", "compute", "KB", "load", "all steps", "write"], rows)
    print(f"# content digest of the loaded tokeniser (once per tokeniser object): {digest_seconds:.3f} s")


if __name__ == "__main__":
    main()
