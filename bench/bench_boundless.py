"""BoundlessBPE training speed on about 1 MB of English text, against the 2-minute target, with
our plain BPE trainer on the same pretoken counts for scale.

What it measures
    The text is ``core.formats.samples.running_text()`` (the reference-manual topics of CPython's
    ``pydoc_data``, about 460 KB, one document per non-empty line) repeated line by line until it
    reaches ``--megabytes`` MB of UTF-8 (default 1, so the topics about 2.2 times; the repeated
    part adds documents and counts but no new pretokens). ``--corpus FILE`` takes another text
    instead, e.g. the more varied Leipzig English Wikipedia sample of ../shared/data (1.3 MB).

    * pretokenise: ``TrainingCorpus.from_texts(lines, boundless_pretokeniser())`` (the authors'
      ULTIMATE_PATTERN, byte level), pretoken counts plus every document, shared by both trainers;
    * BoundlessBPE: ``core.families.boundless.trainer.train(corpus, vocab_size)`` with the defaults
      (τ = 0.9, blow-up to bytes, improved merge pattern, the authors' slot accounting);
    * BPE: ``core.families.bpe.train(corpus, vocab_size)`` (HF-identical BPE on the same pretoken
      counts, all 256 bytes in the alphabet), for scale.

    BPE stops early when every pretoken is one token (``BPE |V|``); BoundlessBPE keeps going with
    supermerges. Target (printed, never asserted): pretokenising plus BoundlessBPE training under 120 s on this
    2-core machine. Figures are the best (minimum) of ``--repeats`` repetitions (medians too in
    ``--json``). Training stops early when no pair is left; the operation counts say where.

How to run (from the repository root; about 25 s with the defaults on an idle 2-core machine)
    python bench/bench_boundless.py
    python bench/bench_boundless.py --vocab-size 8192 --vocab-size 65536 --repeats 1 --json boundless.json
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    environment,
    environment_line,
    load_note,
    print_table,
    summarise,
    timed,
    verdict,
    write_json,
)
from core.counting.corpus import TrainingCorpus
from core.families import bpe
from core.families.boundless.model import boundless_pretokeniser
from core.families.boundless.trainer import train
from core.formats.samples import running_text

TARGET = 120.0  # seconds


def text_of_size(megabytes: float, corpus: Path | None = None) -> list[str]:
    """Lines of the running text (or of ``corpus``, one document per line), cycled until their
    UTF-8 size (with newlines) reaches the goal."""
    if corpus is None:
        lines = list(running_text())
    else:
        lines = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    goal, size, out = int(megabytes * 1_000_000), 0, []
    while size < goal:
        for line in lines:
            out.append(line)
            size += len(line.encode("utf-8")) + 1
            if size >= goal:
                break
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=1.0, help="text size in MB (default 1)")
    parser.add_argument(
        "--vocab-size", type=int, action="append", help="target vocabulary size, repeatable (default 8192 and 32768)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="repetitions, best reported (default 3)")
    parser.add_argument(
        "--corpus",
        type=Path,
        help="a text file (one document per line) instead of the "
        "shipped sample, e.g. ../shared/data/corpus_en_leipzig_wikipedia2016_10k.txt",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    sizes = args.vocab_size or [8192, 32768]
    if args.megabytes <= 0 or args.repeats < 1 or min(sizes) < 256:
        parser.error("--megabytes must be positive, --repeats >= 1, --vocab-size >= 256")

    env = environment()
    lines = text_of_size(args.megabytes, args.corpus)
    megabytes = sum(len(line.encode("utf-8")) + 1 for line in lines) / 1e6
    print(environment_line(env))

    reps, runs, bpe_runs = [], {}, {}
    for _ in range(args.repeats):
        out = {}
        out["pretokenise"], corpus = timed(lambda: TrainingCorpus.from_texts(lines, boundless_pretokeniser()))
        for size in sizes:
            out[f"boundless_{size}"], runs[size] = timed(partial(train, corpus, size))
            out[f"bpe_{size}"], bpe_runs[size] = timed(partial(bpe.train, corpus, size))
        reps.append(out)
    best, median = summarise(reps)
    print(
        f"# {megabytes:.2f} MB of running text from {args.corpus or 'the shipped sample'} ({len(lines):,} documents), "
        f"{sum(corpus.pretoken_counts.values()):,} pretokens, {len(corpus.pretoken_counts):,} unique; "
        f"best of {args.repeats} repetitions"
    )
    print(f"# pretokenising (ULTIMATE_PATTERN, byte level): {best['pretokenise']:.2f} s")
    print()
    rows, figures = [], {}
    for size in sizes:
        s = runs[size].summary
        total = best["pretokenise"] + best[f"boundless_{size}"]
        ratio = best[f"boundless_{size}"] / best[f"bpe_{size}"]
        bpe_size = bpe_runs[size].tokeniser.vocab_size
        rows.append(
            [
                f"{size:,}",
                f"{s['merges']:,}/{s['supermerges']:,}/{s['deletions']:,}",
                f"{s['vocab_size']:,}",
                f"{best[f'boundless_{size}']:.2f}",
                f"{bpe_size:,}",
                f"{best[f'bpe_{size}']:.2f}",
                f"{ratio:.1f}",
                f"{total:.2f}",
                verdict(total, TARGET),
            ]
        )
        figures[size] = {
            "operations": {k: s[k] for k in ("merges", "supermerges", "deletions")},
            "final_vocab_size": s["vocab_size"],
            "stopped": s["stopped"],
            "bpe_vocab_size": bpe_size,
            "boundless_over_bpe": ratio,
            "pretokenise_plus_boundless": total,
            "target_met": total <= TARGET,
        }
    print_table(
        [
            "vocab_size",
            "merges/super/del",
            "|V|",
            "BoundlessBPE s",
            "BPE |V|",
            "BPE s",
            "ratio",
            "pretok+Boundless s",
            "target (s)",
        ],
        rows,
    )
    stopped = [
        f"{size:,}: {runs[size].summary['stopped']}"
        for size in sizes
        if runs[size].summary["stopped"] != "vocab_size reached"
    ]
    if stopped:
        print("# stopped early (no pair left): " + ", ".join(stopped))
    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "benchmark": "bench_boundless",
            "environment": env,
            "megabytes": megabytes,
            "documents": len(lines),
            "unique_pretokens": len(corpus.pretoken_counts),
            "repeats": args.repeats,
            "target_seconds": TARGET,
            "seconds_best": best,
            "seconds_median": median,
            "figures": figures,
            "repetitions": reps,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
