"""`blocked` on real tokenisers: o200k against GPT-2 in one run.

Real files from ``scripts/fetch_real_tokenisers.py``'s cache (``$REAL_TOKENISERS_DIR``, default
``~/.cache/structured-tokenisers/real``): GPT-2 as ``gpt2/`` (merges.txt + vocab.json, one merge per
type) and as ``tiktoken-r50k/r50k_base.tiktoken`` (every split a merge, ``ignore_merges``); o200k as
``tiktoken-o200k/o200k_base.tiktoken`` and as ``gpt4o/tokenizer.json``.

Per tokeniser and repetition, three figures:

- **scan**: ``core.edits.blocked.find_blocked_merges`` on a freshly loaded tokeniser (so the tables it
  builds on first use are included), in process;
- **load + scan**: the same plus ``load_tokeniser``;
- **command**: ``python -m core blocked --tokeniser FILE`` as a subprocess, wall clock (interpreter
  start, imports, load, scan, output), i.e. what a user waits for.

Best of ``--repeats`` (default 3). The target: o200k within 3x of GPT-2; each ratio is
printed against both GPT-2 files with ``met``/``MISSED``. Exit status 1 when a file is missing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, load_note, print_table, summarise, timed, verdict, write_json

CACHE = Path(os.environ.get("REAL_TOKENISERS_DIR", Path.home() / ".cache/structured-tokenisers/real"))
GPT2 = {"GPT-2 (gpt2/)": "gpt2", "GPT-2 (r50k .tiktoken)": "tiktoken-r50k/r50k_base.tiktoken"}
O200K = {
    "o200k (.tiktoken)": "tiktoken-o200k/o200k_base.tiktoken",
    "o200k (gpt4o tokenizer.json)": "gpt4o/tokenizer.json",
}
LIMIT = 3.0


def measure(path: Path) -> tuple[dict[str, float], dict]:
    from core.edits.blocked import find_blocked_merges
    from core.formats.tokeniser_files import load_tokeniser

    load, tokeniser = timed(lambda: load_tokeniser(path))
    scan, report = timed(lambda: find_blocked_merges(tokeniser))
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "core", "blocked", "--tokeniser", str(path)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    command = time.perf_counter() - start
    facts = {
        "types": len(tokeniser.types),
        "merges": len(tokeniser.merges),
        "blocked": len(report.blocked),
        "unreachable": len(report.unreachable_types),
        "alternatives": report.alternatives,
        "whole_only": len(report.whole_only_types),
    }
    return {"scan": scan, "load + scan": load + scan, "command": command}, facts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write every figure to this JSON file")
    args = parser.parse_args()
    files = {**GPT2, **O200K}
    missing = [str(CACHE / f) for f in files.values() if not (CACHE / f).exists()]
    if missing:
        print("missing (run scripts/fetch_real_tokenisers.py):", *missing, sep="\n  ")
        return 1
    note = load_note()
    if note:
        print(note)
    reps: dict[str, list[dict[str, float]]] = {name: [] for name in files}
    facts: dict[str, dict] = {}
    for _ in range(args.repeats):
        for name, rel in files.items():
            times, facts[name] = measure(CACHE / rel)
            reps[name].append(times)
    best = {name: summarise(r)[0] for name, r in reps.items()}
    median = {name: summarise(r)[1] for name, r in reps.items()}
    kinds = ["scan", "load + scan", "command"]
    print_table(
        ["tokeniser", "types", "merges", "blocked", "unreachable", "alternatives", "whole only", *kinds],
        [
            [
                name,
                f"{facts[name]['types']:,}",
                f"{facts[name]['merges']:,}",
                f"{facts[name]['blocked']:,}",
                f"{facts[name]['unreachable']:,}",
                f"{facts[name]['alternatives']:,}",
                f"{facts[name]['whole_only']:,}",
                *(f"{best[name][k]:.2f} s" for k in kinds),
            ]
            for name in files
        ],
    )
    print()
    rows, ratios = [], {}
    for big in O200K:
        for small in GPT2:
            for kind in kinds:
                ratio = best[big][kind] / best[small][kind]
                ratios[f"{big} / {small} [{kind}]"] = ratio
                rows.append([big, small, kind, f"{ratio:.2f}x", verdict(ratio, LIMIT)])
    print_table(["o200k", "GPT-2", "time", "ratio", "target"], rows)
    write_json(args.json, {"best": best, "median": median, "facts": facts, "ratios": ratios, "repeats": reps})
    return 0


if __name__ == "__main__":
    sys.exit(main())
