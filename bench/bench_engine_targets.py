"""Every engine-speed target of issue 33 in one run, side by side with the authors' code, HF
``tokenizers`` and tiktoken.

What it runs, one after the other (each prints its own tables as it goes):

* ``bench_knockout.py``: knockout and ReBPE (reparation ``undo``) against the authors'
  ``bpe-knockout`` on German 40k + MorphyNet German, with the agreement check;
* ``bench_knockout_process.py`` on the same input: the whole ``python -m core knockout`` process
  against its report's time;
* ``bench_knockout_real.py``: knockout on Llama 3 against GPT-2 (MorphyNet English);
* ``bench_real_tokenisers.py`` on Llama 3, o200k (``gpt4o``), Gemma 3 and Qwen 3 against HF
  ``tokenizers`` (loading, 3,668 cold words, cold running text), and o200k's rank file against
  tiktoken (for information: tiktoken builds no merge graph).

Then one table: each target, our figure, the reference's, the ratio and ``met``/``MISSED``. A part
that could not run (no ``PEERS_VENV``, real tokenisers not fetched) says so in its row. Timings are
printed, never asserted; the exit status is 1 only when our knockout or ReBPE disagrees with the
authors' code.

How to run (from the repository root, after ``python scripts/fetch_real_tokenisers.py``)
    PEERS_VENV=/path/to/venv python bench/bench_engine_targets.py          # ~15 min, idle 2-core machine
    PEERS_VENV=/path/to/venv python bench/bench_engine_targets.py --json targets.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, load_note, print_table, write_json
from bench.bench_knockout import MODES, default_inputs
from bench.bench_knockout_process import TARGET_RATIO as PROCESS_TARGET
from bench.bench_knockout_real import TARGET_RATIOS
from bench.bench_real_tokenisers import TARGETS as HF_TARGETS

BENCH = Path(__file__).resolve().parent
#: the real tokenisers of issue 33 (names in scripts/fetch_real_tokenisers.py's manifest) -> whether
#: the targets hold for it (they are set against HF ``tokenizers``; o200k's rank file against
#: tiktoken is shown for information)
REAL = {"llama3": True, "gpt4o": True, "gemma3": True, "qwen3": True, "tiktoken-o200k": False}
WORDS = 3_668
INFORMATION = "(information)"


def run_part(script: str, args: list[str], out: Path) -> dict | None:
    """Run ``bench/<script>`` with ``--json out``, its output shown as it comes; its JSON, or None
    when it failed (said on stderr)."""
    print(f"\n# ---- {script} {' '.join(args)}", flush=True)
    done = subprocess.run([sys.executable, str(BENCH / script), *args, "--json", str(out)], cwd=ROOT, check=False)
    if done.returncode not in (0, 1) or not out.is_file():  # 1: bench_knockout's disagreement, still reported
        print(f"# {script} failed (exit {done.returncode})", file=sys.stderr)
        return None
    return json.loads(out.read_text(encoding="utf-8"))


def row(what: str, ours: float | None, ref: float | None, ratio: float | None, limit: str, met: bool | None) -> list:
    """One line of the summary; blanks where a side did not run, no verdict for information."""
    cell = "" if ours is None else f"{ours:.3f} s"
    ref_cell = "" if ref is None else f"{ref:.3f} s"
    verdict = "" if limit == INFORMATION else "not run" if met is None else "met" if met else "MISSED"
    return [what, cell, ref_cell, "" if ratio is None else f"{ratio:.2f}x", limit, verdict]


def authors_rows(figures: dict | None) -> list[list]:
    """Knockout and ReBPE: the authors' seconds over ours, at least MODES' target."""
    rows = []
    for mode, (label, _, _, target) in MODES.items():
        ours = figures["seconds_best"].get(f"{mode}_ours") if figures else None
        peers = [p for p in (figures or {}).get("peer", {}).get(mode, []) if "seconds" in p]
        peer = min((p["seconds"] for p in peers), default=None)
        ratio = peer / ours if peer and ours else None
        rows.append(
            row(
                f"{label} vs the authors' code",
                ours,
                peer,
                ratio,
                f">= {target:g}x (theirs/ours)",
                None if ratio is None else ratio >= target,
            )
        )
    return rows


def process_rows(figures: dict | None) -> list[list]:
    """The whole CLI process over its report's seconds."""
    if not figures:
        return [
            row("`python -m core knockout` process / its report", None, None, None, f"<= {PROCESS_TARGET:g}x", None)
        ]
    entry = figures["results"][0]
    ratio = entry["ratio"]
    return [
        row(
            "`python -m core knockout` process / its report",
            entry["process_s"],
            entry["report_s"],
            ratio,
            f"<= {PROCESS_TARGET:g}x",
            ratio <= PROCESS_TARGET,
        )
    ]


def real_knockout_rows(figures: dict | None) -> list[list]:
    """Knockout on Llama 3 over knockout on GPT-2."""
    limit = f"<= {TARGET_RATIOS['knockout']:g}x"
    runs = (figures or {}).get("results", {}).get("knockout", {})
    if "llama3" not in runs or "gpt2" not in runs:
        return [row("knockout: Llama 3 / GPT-2", None, None, None, limit, None)]
    ours, base = runs["llama3"]["seconds"], runs["gpt2"]["seconds"]
    ratio = ours / base
    return [row("knockout: Llama 3 / GPT-2", ours, base, ratio, limit, ratio <= TARGET_RATIOS["knockout"])]


def hf_rows(figures: dict | None) -> list[list]:
    """Loading and cold segmentation of each real tokeniser against its reference library (the
    targets hold against HF ``tokenizers``; tiktoken's row is information)."""
    labels = {"load": "load", "cold": f"cold segmentation of {WORDS:,} words", "text": "cold running text"}
    by_name = {r["name"]: r for r in (figures or {}).get("results", [])}
    rows = []
    for name, targeted in REAL.items():
        r = by_name.get(name)
        for key, limit in HF_TARGETS.items():
            target = f"<= {limit:g}x" if targeted else INFORMATION
            if r is None or "error" in r["ours"] or "error" in r["ref"]:
                rows.append(row(f"{name}: {labels[key]}", None, None, None, target, None))
                continue
            ours, ref = r["ours"][key], r["ref"][key]
            rows.append(
                row(f"{name}: {labels[key]} vs {r['reference']}", ours, ref, ours / ref, target, ours / ref <= limit)
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="repetitions of each timing, best reported (default 3)")
    parser.add_argument("--json", metavar="FILE", help="also write every part's figures and the summary as JSON")
    args = parser.parse_args(argv)
    # the input (German 40k + MorphyNet German) where PEERS_VENV has it, as bench_knockout.py chooses
    tokeniser, reference, _ = default_inputs(argparse.Namespace(tokeniser=None, reference=None))
    repeats = ["--repeats", str(args.repeats)]
    only = [flag for name in REAL for flag in ("--only", name)]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        parts = {
            "knockout": run_part(
                "bench_knockout.py",
                ["--tokeniser", str(tokeniser), "--reference", str(reference), *repeats],
                out / "knockout.json",
            ),
            "process": run_part(
                "bench_knockout_process.py",
                ["--tokeniser", str(tokeniser), "--reference", str(reference), *repeats],
                out / "process.json",
            ),
            "real_knockout": run_part("bench_knockout_real.py", repeats, out / "real_knockout.json"),
            "real_tokenisers": run_part(
                "bench_real_tokenisers.py", [*only, "--words", str(WORDS), *repeats], out / "real.json"
            ),
        }
    rows = [
        *authors_rows(parts["knockout"]),
        *process_rows(parts["process"]),
        *real_knockout_rows(parts["real_knockout"]),
        *hf_rows(parts["real_tokenisers"]),
    ]
    print(f"\n# issue 33, every target in one run; knockout input: {tokeniser.name} + {reference.name}")
    print_table(["measure", "ours", "against", "ratio", "target", "verdict"], rows)
    agreement = (parts["knockout"] or {}).get("agreement", {})
    for mode, record in agreement.items():
        print(f"# {MODES[mode][0]}: results identical to the authors' code: {'yes' if record['agree'] else 'NO'}")
    note = load_note()
    if note:
        print(note)
    write_json(args.json, {"benchmark": "bench_engine_targets", "summary": rows, "parts": parts})
    return 0 if all(record["agree"] for record in agreement.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
