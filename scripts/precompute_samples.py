"""Precompute what the explorer's pages open with on the shipped samples (run by developers, not at run time).

    python scripts/precompute_samples.py

Writes ``sample_data/precomputed/<content key>.json.gz`` (``core.edits.archive``) and deletes the files
there that no longer belong to a result below. The pages find a file by the *content* of their
inputs (``ui.result_cache``), so an edited sample, reference or configuration simply misses it and is
computed. Run this again after changing an algorithm or the archive format (``core.edits.archive.VERSION``);
``tests/ui/test_precomputed.py`` checks that every file equals a fresh run.

What is precomputed, on the default workspace (``ui.workspace_choices.DEFAULT_TOKENISER``, the Dutch 40k, with
``DEFAULT_REFERENCE``): the runs the pages request first (ReBPE with the default configuration: the
stepper's sidebar defaults and the word debugger's ReBPE row; knockout alone: the word debugger, the
distributions and the blocked-merges page; ReBPE without reparation: the blocked-merges page's other
variant), the blocked-merge scans of the blocked-merges page and its reparation in both modes. The
App. A scenarios take milliseconds and are not precomputed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.edits.archive import reparation_to_json, run_to_json, write_archive  # noqa: E402
from core.edits.blocked import find_blocked_merges  # noqa: E402
from core.edits.rebpe import ReBPEConfig  # noqa: E402
from core.edits.reference_state import TokenisedReference  # noqa: E402
from core.formats.tokeniser_files import load_tokeniser  # noqa: E402
from core.references.files import load_references  # noqa: E402
from ui.rebpe_runs import (  # noqa: E402
    KNOCKOUT_ONLY,
    blocked_content_key,
    compute_reparation,
    compute_run,
    marked,
    reparation_content_key,
    run_content_key,
)
from ui.result_cache import PRECOMPUTED_DIR, SUFFIX, file_name  # noqa: E402
from ui.sweeps import compute_sweep, sweep_key  # noqa: E402
from ui.workspace_choices import DEFAULT_REFERENCE, DEFAULT_TOKENISER, SAMPLE_REFERENCES, SAMPLE_TOKENISERS  # noqa: E402

#: (label, configuration, blocked-merge scan of its result?, reparation modes of its result)
RUNS = (
    ("ReBPE", ReBPEConfig(), False, ()),
    ("knockout", KNOCKOUT_ONLY, True, ("limited", "undo")),
    ("ReBPE without reparation", ReBPEConfig(fix=False), True, ()),
)


@dataclass(frozen=True)
class Result:
    kind: str
    key: str
    what: str
    body: dict


def results() -> Iterator[Result]:
    """Every precomputed result, computed afresh."""
    tokeniser = load_tokeniser(SAMPLE_TOKENISERS[DEFAULT_TOKENISER])
    references = load_references(SAMPLE_REFERENCES[DEFAULT_REFERENCE])
    words = tuple(references.words())
    inputs = f"{DEFAULT_TOKENISER} with {DEFAULT_REFERENCE}"
    yield Result(
        "sweep",
        sweep_key(tokeniser, references),
        f"threshold sweep (distributions page) on {inputs}",
        {"rows": compute_sweep(TokenisedReference(tokeniser, references.entries))},
    )
    for label, config, blocked, modes in RUNS:
        content = run_content_key(tokeniser, references, config)
        run = marked(compute_run((label,), tokeniser, references, config), content)
        yield Result("run", content, f"{label} on {inputs}", run_to_json(tokeniser, run.parts()))
        if blocked:
            yield Result(
                "blocked",
                blocked_content_key(run.tokeniser, words),
                f"blocked merges after {label}, {inputs}",
                find_blocked_merges(run.tokeniser, list(words)).to_json(),
            )
        for mode in modes:
            yield Result(
                "reparation",
                reparation_content_key(run.tokeniser, mode, words),
                f"reparation ({mode}) after {label}, {inputs}",
                reparation_to_json(run.tokeniser, compute_reparation(run.tokeniser, mode, words)),
            )


def main() -> None:
    written, total, started = set(), 0, time.perf_counter()
    for result in results():
        size = write_archive(PRECOMPUTED_DIR / file_name(result.key), result.kind, result.key, result.body)
        written.add(file_name(result.key))
        total += size
        print(f"{size / 1024:8.0f} KB  {result.kind:<10}  {result.what}  ({time.perf_counter() - started:.1f} s)")
        started = time.perf_counter()
    for stale in sorted(PRECOMPUTED_DIR.glob("*" + SUFFIX)):
        if stale.name not in written:
            stale.unlink()
            print(f"removed {stale.name}")
    print(f"{total / 1024:8.0f} KB  in {len(written)} files, {PRECOMPUTED_DIR.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
