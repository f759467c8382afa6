"""Scaffold-BPE training speed: ``core.families.scaffold.train`` against our plain BPE trainer.

What it measures
    Both trainers on the same corpus: the English wordfreq counts
    (``sample_data/counts/en_wordfreq.tsv``, 40,000 words, unscaled counts) as Metaspace
    pretokens (``"▁" + word``, ``TrainingCorpus.from_word_counts``), ``vocab_size`` 8000
    (``--vocab-size``; for Scaffold-BPE it counts normal tokens only, so it learns more merges).

    * plain: ``core.bpe.trainer.train_bpe(corpus.pretoken_counts, vocab_size)`` (HF-identical);
    * scaffold: ``core.families.scaffold.train(corpus, vocab_size)`` (defaults: tie
      "scaffold-first", ...), which also builds the tokeniser and the event log.

    Ratio scaffold / plain, target (printed, never asserted): <= 2. Per-merge
    times are printed too. Correctness check (exit status 1 on failure): plain BPE's merges are
    the first merges of Scaffold-BPE (Alg. 1 only adds scaffold items to the queue, so the pairs
    it merges, in order, are BPE's; it learns more of them because |V| <= |E|). Figures are the
    best of ``--repeats`` repetitions; the sides alternate who goes first.

How to run (from the repository root; about 20 s with the defaults on an idle 2-core machine)
    python bench/bench_scaffold.py
    python bench/bench_scaffold.py --vocab-size 16000 --repeats 5 --json scaffold.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import environment, environment_line, load_note, print_table, summarise, timed, verdict, write_json
from core.bpe.trainer import train_bpe
from core.counting.corpus import TrainingCorpus
from core.families.scaffold import train
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR
from core.pipeline import Metaspace

COUNTS = SAMPLE_DIR / "counts" / "en_wordfreq.tsv"
TARGET = 2.0


def first_difference(plain: list[tuple[str, str]], scaffold: list[tuple[str, ...]]) -> str | None:
    """Where plain BPE's merges stop being a prefix of Scaffold-BPE's, or None."""
    if len(scaffold) < len(plain):
        return f"Scaffold-BPE learnt {len(scaffold)} merges, fewer than plain BPE's {len(plain)}"
    for rank, (theirs, ours) in enumerate(zip(plain, scaffold, strict=False)):
        if tuple(theirs) != ours:
            return f"rank {rank}: plain {tuple(theirs)!r} vs scaffold {ours!r}"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab-size", type=int, default=8000, help="target |V| (default 8000)")
    parser.add_argument("--repeats", type=int, default=3, help="repetitions, best reported (default 3)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    env = environment()
    corpus = TrainingCorpus.from_word_counts(load_word_counts(COUNTS), Metaspace())
    counts = corpus.pretoken_counts
    alphabet = len({ch for word in counts for ch in word})
    if args.vocab_size <= alphabet:
        parser.error(f"--vocab-size must exceed the alphabet ({alphabet})")
    print(environment_line(env))
    print(
        f"# {len(counts):,} pretokens from {COUNTS.relative_to(SAMPLE_DIR.parent)} (Metaspace '\u2581'), "
        f"{sum(counts.values()):,} running words; alphabet {alphabet}, vocab_size {args.vocab_size}; "
        f"best of {args.repeats} repetitions"
    )

    trainers = {"plain": lambda: train_bpe(counts, args.vocab_size), "scaffold": lambda: train(corpus, args.vocab_size)}
    reps, results = [], {}
    for r in range(args.repeats):
        out: dict[str, float] = {}
        for side in ("scaffold", "plain") if r % 2 else ("plain", "scaffold"):
            out[side], results[side] = timed(trainers[side])
        reps.append(out)
    best, median = summarise(reps)
    ratio = best["scaffold"] / best["plain"]
    plain, run = results["plain"], results["scaffold"]
    summary = run.summary
    difference = first_difference(list(plain.merges), [m.parts for m in run.tokeniser.bte.merges])
    if difference is None:
        print(f"# plain BPE's {len(plain.merges)} merges are the first {len(plain.merges)} of Scaffold-BPE's")
    else:
        print(f"# merges DIFFER: {difference}")
    print(
        f"# Scaffold-BPE: {summary['merges']} merges, {summary['scaffold_tokens']} scaffold tokens at the end, "
        f"{summary['markings']} markings, {summary['readmissions']} readmissions, stopped: {summary['stopped']}"
    )
    print()
    n_plain, n_scaffold = len(plain.merges), summary["merges"]
    print_table(
        ["training", "plain BPE", "Scaffold-BPE", "scaffold/plain", "target"],
        [
            ["total (s)", f"{best['plain']:.2f}", f"{best['scaffold']:.2f}", f"{ratio:.2f}", verdict(ratio, TARGET)],
            ["merges learnt", str(n_plain), str(n_scaffold), f"{n_scaffold / n_plain:.2f}", ""],
            [
                "ms per merge",
                f"{1000 * best['plain'] / n_plain:.3f}",
                f"{1000 * best['scaffold'] / n_scaffold:.3f}",
                f"{(best['scaffold'] / n_scaffold) / (best['plain'] / n_plain):.2f}",
                "",
            ],
        ],
    )
    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "benchmark": "bench_scaffold",
            "environment": env,
            "pretokens": len(counts),
            "vocab_size": args.vocab_size,
            "repeats": args.repeats,
            "plain_merges": n_plain,
            "scaffold_summary": summary,
            "first_difference": difference,
            "seconds_best": best,
            "seconds_median": median,
            "ratios": {"scaffold_over_plain": ratio},
            "targets": {"scaffold_over_plain_max": TARGET, "met": ratio <= TARGET},
            "repetitions": reps,
        },
    )
    return 0 if difference is None else 1


if __name__ == "__main__":
    sys.exit(main())
