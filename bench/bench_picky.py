"""PickyBPE training speed: ``core.families.picky.train`` against our plain BPE trainer and the
authors' code, same words, same vocabulary size.

What it measures
    Training on the English wordfreq counts (``sample_data/counts/en_wordfreq.tsv``, 40,000 words,
    counts as shipped), every word prefixed with ``▁`` (Metaspace), ``--vocab-size`` 8,000 types
    (alphabet included, no special tokens), τ = 0.9:

    * ours, PickyBPE: ``train(TrainingCorpus, 8000)`` (defaults: the authors' tie rule);
    * ours, plain BPE: ``core.bpe.trainer.train_bpe(counts, 8000)`` (HF-identical merges);
    * the package ``pickybpe_bauwenst`` (Chizhov's trainer refactored by Bauwens), when
      ``PEERS_VENV`` names a venv with it, through ``scripts/compare_picky.py``'s driver:
      ``include_specials=False`` (it pays for one UNK, so the same number of non-special types),
      ``character_coverage=1.0``. Its time is its ``_fit_from_counts`` call up to the model dump
      (Python start-up, imports and dumping excluded). Version 1.3.1 stops on its own assertion
      part-way on this corpus (a removed type's remaining occurrences are never split, since
      ``_remove_if_possible`` clears the type's word set and frequency before using them, and
      a pair holding the removed type is later merged). Its time is then compared with ours
      trained to the |V| it had reached (printed);
    * with ``--original DIR`` (a checkout of pchizhov/picky_bpe), the original code the same
      way (``vocab_size + 4``: its special tokens count).

    Targets (printed, never asserted): PickyBPE at most 2x our plain BPE; the package at least
    5x slower than ours. Our figures are the best of ``--repeats`` runs, the peers' of
    ``--peer-repeats`` (default 1).

How to run (from the repository root; ~25 s ours, +~15 s with the package)
    python bench/bench_picky.py
    PEERS_VENV=/tmp/peers_venv python bench/bench_picky.py --json picky.json
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import load_note, print_table, summarise, timed, write_json
from core.bpe.trainer import train_bpe
from core.counting.corpus import TrainingCorpus
from core.families.picky import AUTHORS_SPECIALS, train
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR
from core.pipeline import Metaspace
from scripts.compare_picky import ORIGINAL_DRIVER, PACKAGE_DRIVER, peer_python, run_peer

COUNTS = SAMPLE_DIR / "counts" / "en_wordfreq.tsv"
TARGET_BPE = 2.0  # ours PickyBPE / ours BPE at most
TARGET_PEER = 5.0  # peer / ours at least


def peer_figures(
    label: str, python: str, driver: str, counts, vocab_size: int, extra: int, repeats: int, corpus, checkout=None
) -> dict:
    """Best peer time, and ours to the |V| the peer reached (its full run or until it stopped)."""
    runs = [run_peer(python, driver, counts, vocab_size + extra, 0.9, checkout=checkout) for _ in range(repeats)]
    best = min(runs, key=lambda r: r["seconds"] if r["seconds"] is not None else r["wall"])
    seconds = best["seconds"] if best["seconds"] is not None else best["wall"]
    reached = len(best["vocabulary"])
    ours, _ = min((timed(lambda: train(corpus, reached)) for _ in range(repeats)), key=lambda t: t[0])
    return {
        "label": label,
        "seconds": seconds,
        "error": best["error"],
        "events": len(best["events"]),
        "vocab_reached": reached,
        "ours_to_same_vocab": ours,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab-size", type=int, default=8000, help="types incl. the alphabet (8000)")
    parser.add_argument("--repeats", type=int, default=3, help="repetitions of ours, best reported (3)")
    parser.add_argument("--peer-repeats", type=int, default=1, help="repetitions of each peer (1)")
    parser.add_argument("--original", metavar="DIR", help="a checkout of pchizhov/picky_bpe, also timed")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.peer_repeats < 1:
        parser.error("--repeats and --peer-repeats must be at least 1")

    counts = load_word_counts(COUNTS)
    corpus = TrainingCorpus.from_word_counts(counts, Metaspace())
    print(
        f"# {len(counts):,} words of {COUNTS.relative_to(SAMPLE_DIR.parent)}, '▁' + word, vocab_size "
        f"{args.vocab_size}, τ 0.9; ours best of {args.repeats}, peers best of {args.peer_repeats}"
    )
    reps, runs = [], {}
    for _ in range(args.repeats):
        out = {}
        out["picky"], runs["picky"] = timed(lambda: train(corpus, args.vocab_size))
        out["bpe"], runs["bpe"] = timed(lambda: train_bpe(corpus.pretoken_counts, args.vocab_size))
        reps.append(out)
    fig, mid = summarise(reps)
    summary = runs["picky"].summary
    print(
        f"# ours PickyBPE: {summary['events']} events ({summary['merges']} merges, {summary['splits']} splits, "
        f"{summary['restored']} restored); plain BPE: {len(runs['bpe'].merges)} merges"
    )
    ratio = fig["picky"] / fig["bpe"]
    rows = [
        ["ours PickyBPE", f"{fig['picky']:.2f}", "", ""],
        [
            "ours plain BPE (core.bpe.trainer)",
            f"{fig['bpe']:.2f}",
            f"PickyBPE/BPE {ratio:.2f}",
            f"target <= {TARGET_BPE:g}: {'met' if ratio <= TARGET_BPE else 'MISSED'}",
        ],
    ]

    peers = []
    python = peer_python(None)
    if python and Path(python).exists():
        peers.append(("package pickybpe_bauwenst", python, PACKAGE_DRIVER, 0, None))
    else:
        print("# package NOT run: set PEERS_VENV to a venv with pickybpe_bauwenst")
    if args.original:
        peers.append(
            (
                "original pchizhov/picky_bpe",
                sys.executable,
                ORIGINAL_DRIVER,
                AUTHORS_SPECIALS,
                str(Path(args.original).resolve()),
            )
        )
    results = []
    for label, py, driver, extra, checkout in peers:
        res = peer_figures(label, py, driver, counts, args.vocab_size, extra, args.peer_repeats, corpus, checkout)
        results.append(res)
        speedup = res["seconds"] / res["ours_to_same_vocab"]
        if res["error"]:
            print(f"# {label} stopped after {res['events']} events at |V| = {res['vocab_reached']}: {res['error']}")
        rows.append(
            [
                label + ("" if not res["error"] else f" (until |V| {res['vocab_reached']})"),
                f"{res['seconds']:.2f}",
                f"peer/ours {speedup:.1f} (ours {res['ours_to_same_vocab']:.2f} s)",
                f"target >= {TARGET_PEER:g}: {'met' if speedup >= TARGET_PEER else 'MISSED'}",
            ]
        )
    print()
    print_table(["training (s)", "seconds", "ratio", "target"], rows)
    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "benchmark": "bench_picky",
            "words": len(counts),
            "vocab_size": args.vocab_size,
            "cpus": os.cpu_count(),
            "seconds_best": fig,
            "seconds_median": mid,
            "picky_summary": summary,
            "ratio_picky_over_bpe": ratio,
            "peers": results,
            "repetitions": reps,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
