"""Every trainer on pathological corpora at growing sizes: is training time (and memory) linear?

What it measures
    Five corpora (``core.formats.samples.pathological_text``), each a single line (one document) of
    ``--sizes`` thousand characters (default 10, 100 and 1000; about as many bytes):

    * ``line``: English running text (``core.formats.samples.running_text()``, the reference-manual
      topics of CPython's ``pydoc_data``) with its lines joined by spaces: ordinary pretokens,
      but one huge document (BoundlessBPE's superword state, Unigram's full-text seed);
    * ``repeat``: one repeated character, ``aaaa…``: a single pretoken of the whole size;
    * ``word``: one repeated word, ``the the the …``: a document that is one run of a pretoken
      (BoundlessBPE's supermerges);
    * ``nospace``: the running text with every whitespace character removed: long pretokens
      (the pre-tokenisers still split at punctuation);
    * ``letters``: only the letters of the running text: the whole size is one pretoken for
      GPT-2's byte-level pre-tokeniser.

    Every trainer of ``core.families.registry`` (``bpe``, ``scaffold``, ``picky``, ``boundless``,
    ``unigram``) trains on each corpus to ``--vocab-size`` types (default 1000) with its default
    options and pre-tokeniser, each run in a fresh interpreter (``--child``) killed after
    ``--timeout`` seconds of wall-clock time (default 120), so nothing can hang. Reported per
    run: seconds to pre-tokenise (``TrainingCorpus.from_texts``) and to train
    (``registry.train``), the growth of the training time per 10x input (ratio to the size ten
    times smaller, shown when that took at least 0.05 s: linear work shows about 10, quadratic
    work about 100), the longest time between two calls of the ``progress`` callback during
    training (what the explorer needs to stop a run: target <= 0.5 s), the peak resident memory
    of the process (``ru_maxrss``) and its rise during the run. Times are the process's CPU
    time (``time.process_time``), which other processes on a busy machine do not inflate.
    Targets (printed, never asserted): every growth <= 20, every gap <= 0.5 s.

How to run (from the repository root; about 5 minutes with the defaults on an idle 2-core machine)
    python bench/bench_pathological.py
    python bench/bench_pathological.py --sizes 10 --sizes 100 --algorithm boundless --corpus word
    python bench/bench_pathological.py --json pathological.json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools

from bench._common import environment, environment_line, load_note, print_table, verdict, write_json
from core.formats.samples import PATHOLOGICAL_KINDS, pathological_text

ALGORITHMS = ("bpe", "scaffold", "picky", "boundless", "unigram")
GROWTH_TARGET = 20.0
GAP_TARGET = 0.5  # seconds


def child(algorithm: str, kind: str, size: int, vocab_size: int) -> None:
    """One run in this process; prints its figures as one JSON line."""
    from core.counting.corpus import TrainingCorpus
    from core.families import registry

    text = pathological_text(kind, size)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.process_time()
    corpus = TrainingCorpus.from_texts([text], registry.default_pretokeniser(algorithm))
    pretokenised = time.process_time()
    calls = [pretokenised]
    run = registry.train(algorithm, corpus, vocab_size, progress=lambda done, total: calls.append(time.process_time()))
    calls.append(time.process_time())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "pretokenise": pretokenised - start,
                "seconds": calls[-1] - pretokenised,
                "gap": max(b - a for a, b in itertools.pairwise(calls)),
                "peak_mb": peak / 1024,
                "rise_mb": (peak - before) / 1024,
                "vocab_size": run.tokeniser.vocab_size,
                "pretokens": len(corpus.pretoken_counts),
            }
        )
    )


def measure(algorithm: str, kind: str, size: int, vocab_size: int, timeout: float) -> dict:
    """The child's figures, or ``{"error": ...}`` on a timeout or a crash."""
    command = [sys.executable, __file__, "--child", algorithm, kind, str(size), str(vocab_size)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f">{timeout:g} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["crashed"])[-1][:60]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=int,
        action="append",
        metavar="K",
        help="corpus size in thousands of characters, repeatable (default 10, 100, 1000)",
    )
    parser.add_argument("--algorithm", action="append", choices=ALGORITHMS, help="repeatable (default all)")
    parser.add_argument("--corpus", action="append", choices=PATHOLOGICAL_KINDS, help="repeatable (default all)")
    parser.add_argument("--vocab-size", type=int, default=1000, help="target vocabulary size (default 1000)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a run is killed (default 120)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        algorithm, kind, size, vocab_size = args.child
        child(algorithm, kind, int(size), int(vocab_size))
        return 0
    sizes = sorted(args.sizes or [10, 100, 1000])
    if min(sizes) < 1 or args.vocab_size < 256 or args.timeout <= 0:
        parser.error("--sizes must be >= 1, --vocab-size >= 256, --timeout positive")

    env = environment()
    print(environment_line(env))
    print(
        f"# single-line corpora, vocab_size {args.vocab_size}, each run in a fresh interpreter, "
        f"killed after {args.timeout:g} s"
    )
    print()
    rows, figures, worst, widest = [], [], 0.0, 0.0
    for kind in args.corpus or PATHOLOGICAL_KINDS:
        for algorithm in args.algorithm or ALGORITHMS:
            previous = None
            for k in sizes:
                result = measure(algorithm, kind, k * 1000, args.vocab_size, args.timeout)
                growth = ""
                if "error" not in result:
                    widest = max(widest, result["gap"])
                    if (
                        previous is not None
                        and "error" not in previous[1]
                        and k == 10 * previous[0]
                        and previous[1]["seconds"] >= 0.05
                    ):
                        result["growth_10x"] = result["seconds"] / previous[1]["seconds"]
                        worst = max(worst, result["growth_10x"])
                        growth = f"{result['growth_10x']:.1f}"
                    rows.append(
                        [
                            kind,
                            algorithm,
                            f"{k:,}",
                            f"{result['pretokenise']:.2f}",
                            f"{result['seconds']:.2f}",
                            growth,
                            f"{result['gap']:.2f}",
                            f"{result['peak_mb']:.0f}",
                            f"{result['rise_mb']:.0f}",
                            f"{result['vocab_size']:,}",
                        ]
                    )
                else:
                    rows.append([kind, algorithm, f"{k:,}", result["error"], "", "", "", "", "", ""])
                figures.append({"corpus": kind, "algorithm": algorithm, "thousand_chars": k, **result})
                previous = (k, result)
    print_table(
        ["corpus", "trainer", "K chars", "pretok s", "train s", "x per 10x", "max gap s", "peak MB", "rise MB", "|V|"],
        rows,
    )
    unfinished = [f"{f['corpus']}/{f['algorithm']}/{f['thousand_chars']}K" for f in figures if "error" in f]
    if unfinished:
        print("# did not finish: " + ", ".join(unfinished))
    print(f"# worst growth of the training time per 10x input: {worst:.1f} ({verdict(worst, GROWTH_TARGET)})")
    print(f"# longest time without a progress call: {widest:.2f} s ({verdict(widest, GAP_TARGET)})")
    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "benchmark": "bench_pathological",
            "environment": env,
            "vocab_size": args.vocab_size,
            "timeout_seconds": args.timeout,
            "growth_target": GROWTH_TARGET,
            "gap_target_seconds": GAP_TARGET,
            "figures": figures,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
