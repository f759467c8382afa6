"""A seeded fuzzing campaign against every loader and every command that reads a file; prints how
each input ended.

    python scripts/fuzz_report.py                    # 2,000 inputs per loader, 300 per command
    python scripts/fuzz_report.py --count 500 --cli-count 100 --seed 3 --json fuzz.json

Inputs are mutations of a small valid file of each kind (``tests/fuzz_inputs.py``: truncation,
bit flips, inserted bytes, NUL, BOM, CRLF, invalid UTF-8, lone surrogates, 1 MB lines, huge
numbers, deep nesting), and the hand-made command lines of ``CLI_EDGE_CASES`` (missing, empty,
binary and folder paths, a 1 MB line, outputs that cannot be written, arguments out of range).
Each is loaded in this process, as the app and ``python -m core`` do,
with a time limit per input (``--seconds``, SIGALRM) and an address-space limit for the whole
campaign (``--memory-gb``, ``resource.RLIMIT_AS``). Outcomes:

- ``loaded``: the mutation left a valid file (used afterwards: a tokeniser tokenises a text);
- ``clean``: an InputError (a command: exit status 2) naming the file, at most 1,000 characters,
  of which ``with line`` name the line too;
- ``unclear``: an InputError without the file name or with an overlong message;
- ``crash``: any other exception; ``slow``: past the time limit; ``memory``: MemoryError.

Exit status 1 when any input ended other than loaded or clean (the first of each kind is printed).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz_inputs import (
    CLI_CASES,
    CLI_EDGE_CASES,
    cli_outcome,
    edge_case_outcome,
    mutate,
    outcome,
    seed_files,
    write_inputs,
)

OUTCOMES = ("loaded", "clean", "unclear", "crash", "slow", "memory")


class Slow(BaseException):
    """Raised by the alarm: a BaseException, so no ``except Exception`` in the code under test eats it."""


def _alarm(signum, frame):
    raise Slow()


def limited(seconds: float, run) -> tuple[str, str]:
    """``run()``'s (outcome, detail), or ("slow", ...) / ("memory", ...)."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return run()
    except Slow:
        return "slow", f"more than {seconds:g} s"
    except MemoryError:
        return "memory", "MemoryError"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def campaign(args) -> list[dict]:
    seeds = seed_files()
    rng = random.Random(args.seed)

    def mutations(kind: str, count: int):
        return [mutate(seeds[kind], rng) for _ in range(count)]

    rows = [
        _run(
            f"loader {kind}",
            mutations(kind, args.count),
            args.seconds,
            lambda data, kind=kind: outcome(kind, data, kind, seeds),
        )
        for kind in sorted(seeds)
    ]
    with tempfile.TemporaryDirectory() as folder:
        valid = write_inputs(Path(folder), seeds)
        rows.append(
            _run(
                "hand-made command lines",
                CLI_EDGE_CASES,
                args.seconds,
                lambda cli_args: edge_case_outcome(cli_args, Path(folder), valid),
            )
        )
        for label, cli_args, kinds in CLI_CASES:
            rows += [
                _run(
                    f"{label} ({kind})",
                    mutations(kind, args.cli_count),
                    args.seconds,
                    lambda data, a=cli_args, k=kind: cli_outcome(a, k, data, Path(folder), valid, seeds),
                )
                for kind in kinds
                if kind in seeds
            ]
    return rows


def _run(label: str, inputs, seconds: float, load) -> dict:
    """Run ``load`` on every input; print and return the row of the table."""
    counts: Counter = Counter()
    examples: dict[str, str] = {}
    started = time.perf_counter()
    for item in inputs:
        result, detail = limited(seconds, partial(load, item))
        counts[result] += 1
        counts["with line"] += detail == "line"
        if result not in ("loaded", "clean"):
            examples.setdefault(result, detail)
    row = {
        "target": label,
        "tried": len(inputs),
        **{name: counts[name] for name in OUTCOMES},
        "with line": counts["with line"],
        "seconds": round(time.perf_counter() - started, 1),
        "examples": examples,
    }
    print(
        f"{label:<40} {len(inputs):>6} "
        + " ".join(f"{counts[name]:>7}" for name in OUTCOMES)
        + f" {counts['with line']:>9} {row['seconds']:>7}",
        flush=True,
    )
    for name, detail in examples.items():
        print(f"    first {name}: {detail}", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="mutated inputs per loader")
    parser.add_argument("--cli-count", type=int, default=300, help="mutated inputs per command and file kind")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=30, help="time limit per input")
    parser.add_argument("--memory-gb", type=float, default=4, help="address-space limit of the campaign")
    parser.add_argument("--json", help="also write the table as JSON here")
    args = parser.parse_args(argv)
    limit = int(args.memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGALRM, _alarm)
    print(
        f"{'target':<40} {'tried':>6} " + " ".join(f"{name:>7}" for name in OUTCOMES) + f" {'with line':>9} "
        f"{'seconds':>7}"
    )
    rows = campaign(args)
    totals = {name: sum(row[name] for row in rows) for name in ("tried", *OUTCOMES, "with line")}
    print(
        f"{'total':<40} {totals['tried']:>6} "
        + " ".join(f"{totals[name]:>7}" for name in OUTCOMES)
        + f" {totals['with line']:>9}"
    )
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "totals": totals}, indent=1) + "\n", encoding="utf-8")
    return 1 if any(totals[name] for name in ("unclear", "crash", "slow", "memory")) else 0


if __name__ == "__main__":
    sys.exit(main())
