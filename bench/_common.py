"""Helpers shared by the benchmark scripts (timing, tables, environment, --json output).

Not a benchmark itself. The scripts put the repository root on ``sys.path`` themselves so that
``python bench/NAME.py`` works from the repo root without installing anything.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """(wall seconds, result) of ``fn()``; a full garbage collection first, GC left enabled
    while timing (both engines pay for the garbage they make, as in real use)."""
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def summarise(reps: list[dict[str, float]]) -> tuple[dict[str, float], dict[str, float]]:
    """(best, median) per key over repetitions. The tables print the best (minimum) time: on a
    shared machine other processes only ever add time, so the minimum is the least disturbed run
    (as ``timeit`` advises). Medians go to ``--json`` as well."""
    keys = reps[0].keys()
    best = {k: min(r[k] for r in reps) for k in keys}
    mid = {k: statistics.median(r[k] for r in reps) for k in keys}
    return best, mid


def load_note() -> str | None:
    """A warning line when the machine is busy (1-minute load average above the CPU count)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
    cpus = os.cpu_count() or 1
    if load > cpus:
        return (
            f"# note: load average {load:.1f} on {cpus} CPUs - other processes are running, "
            f"figures are noisier than usual (best of the repetitions is shown)"
        )
    return None


def environment() -> dict:
    import tokenizers

    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "tokenizers": tokenizers.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "TOKENIZERS_PARALLELISM": os.environ.get("TOKENIZERS_PARALLELISM"),
        "RAYON_NUM_THREADS": os.environ.get("RAYON_NUM_THREADS"),
        "loadavg_1min_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def environment_line(env: dict) -> str:
    return (
        f"# Python {env['python']} ({env['implementation']}), tokenizers {env['tokenizers']}, "
        f"{env['cpus']} CPUs, {env['machine']}"
    )


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    """A plain fixed-width table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def fmt(row):
        cells = [str(row[0]).ljust(widths[0])]
        cells += [str(c).rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(cells).rstrip()

    print(fmt(headers))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))


def verdict(value: float, limit: float) -> str:
    """Target check, printed next to a ratio (never asserted)."""
    return f"target <= {limit:g}: {'met' if value <= limit else 'MISSED'}"


def write_json(path: str | None, payload: dict) -> None:
    if not path:
        return
    Path(path).write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"# figures written to {path}")


def ensure_root_on_path() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
