"""BPE training speed: ``core.bpe.trainer.train_bpe`` against HF ``BpeTrainer``, same counts, same run.

What it measures
    Learning 8,000 merges (``--merges``) on the English wordfreq counts
    (``sample_data/counts/en_wordfreq.tsv``, 40,000 words). Every word is prefixed with ``▁`` and
    ``vocab_size = |alphabet| + 8000`` (no special tokens, min_frequency 0).

    The shipped counts sum to about 9.3e8, far too many words for HF to ingest as text, so both
    sides get the same scaled counts: ``count' = max(1, round(count / SCALE))``, SCALE = 100 by
    default (``--scale``), about 9.3e6 running words.

    * ours: ``train_bpe({"▁" + word: count'}, vocab_size)`` (single-threaded pure Python; it takes
      word counts directly). Also timed with ``vocab_size = |alphabet|`` ("setup only": validation,
      pair counting and heap building, no merges), so ours merge loop ~= total - setup.
    * HF: fed exactly as ``/work/shared/tools/compare_refs.py`` (``train_hf_bpe``) feeds it:
      ``Tokenizer(models.BPE())`` with the ``WhitespaceSplit`` pre-tokenizer, no normaliser,
      ``BpeTrainer(vocab_size, min_frequency=0, special_tokens=[], initial_alphabet=[])``, and
      ``train_from_iterator`` over strings that repeat each prefixed word ``count'`` times,
      space-separated, in chunks of at most 4096 copies. "Ingest only" is the same feed with
      ``vocab_size = |alphabet|`` (words counted, no merges learnt), so HF merge phase ~= total -
      ingest. HF's word counting runs on all cores (rayon); its merge loop is single-threaded.

    Ratios: ours / HF total and ours / HF merge phase (the like-for-like one: ours never reads
    text). The merge lists are compared and the first difference, if any, is printed (the script
    then exits with status 1). Figures are the best (minimum) of ``--repeats`` repetitions (medians
    too in ``--json``); the sides alternate who goes first. The phase estimates are differences of
    two best times, so on a busy machine they can come out meaningless (printed as n/a when <= 0).

    Target (printed, never asserted): ours within 10x of HF, i.e. ours / HF total <= 10.

How to run (from the repository root; about 35 s with the defaults on an idle 2-core machine)
    python bench/bench_train.py
    python bench/bench_train.py --scale 50 --repeats 5 --json train.json
"""

from __future__ import annotations

import argparse
import json
import sys
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
from core.bpe.trainer import train_bpe
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR

COUNTS = SAMPLE_DIR / "counts" / "en_wordfreq.tsv"
MARKER = "\u2581"  # '▁'
CHUNK = 4096  # copies of a word per fed string, as compare_refs.py
TARGET = 10.0


def scaled_counts(counts: dict[str, int], scale: float) -> dict[str, int]:
    """``"▁" + word -> max(1, round(count / scale))``, identical input for both sides."""
    return {MARKER + word: max(1, round(count / scale)) for word, count in counts.items()}


def feed(words: dict[str, int]):
    """compare_refs.py's generator: each word ``count`` times, space-separated, in chunks."""
    for word, count in words.items():
        while count > 0:
            k = min(count, CHUNK)
            yield " ".join([word] * k)
            count -= k


def train_hf(words: dict[str, int], vocab_size: int) -> list[tuple[str, str]]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=0, show_progress=False, special_tokens=[], initial_alphabet=[]
    )
    tokenizer.train_from_iterator(feed(words), trainer=trainer)
    return tokenizer  # merges are read after timing


def hf_merges(tokenizer) -> list[tuple[str, str]]:
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in merges]


def first_difference(ours: list[tuple[str, str]], theirs: list[tuple[str, str]]) -> str | None:
    for rank, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f"rank {rank}: ours {a!r} vs HF {b!r}"
    if len(ours) != len(theirs):
        return f"lengths differ: ours {len(ours)} merges vs HF {len(theirs)}"
    return None


def one_repetition(words, alphabet_size: int, vocab_size: int, hf_first: bool):
    out: dict[str, float] = {}
    results = {}

    def ours_side():
        out["ours_total"], results["ours"] = timed(lambda: train_bpe(words, vocab_size))
        out["ours_setup"], _ = timed(lambda: train_bpe(words, alphabet_size))

    def hf_side():
        out["hf_total"], results["hf"] = timed(lambda: train_hf(words, vocab_size))
        out["hf_ingest"], _ = timed(lambda: train_hf(words, alphabet_size))
        out["hf_feed_python"], _ = timed(lambda: sum(1 for _ in feed(words)))

    for side in (hf_side, ours_side) if hf_first else (ours_side, hf_side):
        side()
    return out, results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale", type=float, default=100.0, help="divide every count by SCALE, round, floor at 1 (default 100)"
    )
    parser.add_argument("--merges", type=int, default=8000, help="merges to learn (default 8000)")
    parser.add_argument("--repeats", type=int, default=5, help="repetitions, best reported (default 5)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    if args.scale <= 0:
        parser.error("--scale must be positive")
    if args.merges < 1 or args.repeats < 1:
        parser.error("--merges and --repeats must be at least 1")

    env = environment()
    words = scaled_counts(load_word_counts(COUNTS), args.scale)
    alphabet_size = len({ch for word in words for ch in word})
    vocab_size = alphabet_size + args.merges
    running = sum(words.values())
    print(environment_line(env))
    print(
        f"# {len(words):,} words from {COUNTS.relative_to(SAMPLE_DIR.parent)}, prefixed with {MARKER!r}; "
        f"counts / {args.scale:g} -> {running:,} running words; alphabet {alphabet_size}, "
        f"vocab_size {vocab_size} ({args.merges} merges); best of {args.repeats} repetitions"
    )
    if running > 200_000_000:
        print("# warning: this many running words makes HF ingest slow and may overflow its 32-bit pair counts")

    reps, results = [], {}
    for r in range(args.repeats):
        out, results = one_repetition(words, alphabet_size, vocab_size, hf_first=bool(r % 2))
        reps.append(out)
    fig, mid = summarise(reps)
    hf_merge_phase = fig["hf_total"] - fig["hf_ingest"]
    ours_merge_loop = fig["ours_total"] - fig["ours_setup"]

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}" if a > 0 and b > 0 else "n/a"

    def secs(x: float) -> str:
        return f"{x:.2f}" if x > 0 else "n/a"

    ours = list(results["ours"].merges)
    theirs = hf_merges(results["hf"])
    difference = first_difference(ours, theirs)
    if difference is None:
        print(f"# merges identical: {len(ours)} merges, ours == HF")
    else:
        print(f"# merges DIFFER ({len(ours)} ours, {len(theirs)} HF); first difference at {difference}")

    ratio_total = fig["ours_total"] / fig["hf_total"]
    ratio_merge = fig["ours_total"] / hf_merge_phase if hf_merge_phase > 0 else None
    print()
    print_table(
        ["training (s)", "ours", "HF", "ours/HF", "target"],
        [
            [
                "total",
                f"{fig['ours_total']:.2f}",
                f"{fig['hf_total']:.2f}",
                f"{ratio_total:.2f}",
                verdict(ratio_total, TARGET),
            ],
            ["HF ingest only (vocab_size = alphabet)", "", f"{fig['hf_ingest']:.2f}", "", ""],
            ["  of which building the feed in Python", "", f"{fig['hf_feed_python']:.2f}", "", ""],
            [
                "HF merge phase ~= total - ingest",
                f"{fig['ours_total']:.2f}",
                secs(hf_merge_phase),
                ratio(fig["ours_total"], hf_merge_phase),
                "(ours total vs HF merges)",
            ],
            ["ours setup only (vocab_size = alphabet)", f"{fig['ours_setup']:.2f}", "", "", ""],
            [
                "ours merge loop ~= total - setup",
                secs(ours_merge_loop),
                secs(hf_merge_phase),
                ratio(ours_merge_loop, hf_merge_phase),
                "(merge loops only)",
            ],
        ],
    )

    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "benchmark": "bench_train",
            "environment": env,
            "words": len(words),
            "running_words": running,
            "scale": args.scale,
            "alphabet_size": alphabet_size,
            "vocab_size": vocab_size,
            "merges": args.merges,
            "repeats": args.repeats,
            "merges_identical": difference is None,
            "first_difference": difference,
            "seconds_best": {**fig, "hf_merge_phase": hf_merge_phase, "ours_merge_loop": ours_merge_loop},
            "seconds_median": mid,
            "ratios": {"ours_over_hf_total": ratio_total, "ours_over_hf_merge_phase": ratio_merge},
            "targets": {"ours_over_hf_total_max": TARGET, "met": ratio_total <= TARGET},
            "repetitions": reps,
        },
    )
    return 0 if difference is None else 1


if __name__ == "__main__":
    sys.exit(main())
