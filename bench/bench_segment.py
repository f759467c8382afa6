"""Per-word segmentation speed: our engine against HF ``tokenizers``, same words, same run.

What it measures
    The 40,000 words of the Dutch wordfreq list (``sample_data/counts/nl_wordfreq.tsv``) are
    tokenised with the Dutch 40k BPE tokeniser (``core.formats.samples.DUTCH_40K``), one word at a time and
    as in running text:

    * ours: ``tokeniser.tokenise_word(word)`` (pre-tokeniser on ``" " + word``, then BPE);
    * HF:   ``hf.encode(" " + word).tokens`` on ``tokenizers.Tokenizer.from_file(DUTCH_40K)``.

    First both are checked to give identical tokens on every word (disagreements must be 0; the
    script exits with status 1 otherwise). Then, per repetition, both tokenisers are loaded fresh
    (load time reported on its own; ours includes compiling the merge tables, ``tokeniser.engine``)
    and timed on

    (a) cold:   the first pass over all words on the freshly loaded tokenisers;
    (b) cached: a second pass over the same words (our engine caches every pretoken; HF's BPE
                model keeps only about the first 10,000 pretokens it sees: default capacity
                10,000, full shards are not evicted).

    Reported alongside, for context: HF ``encode_batch`` over the whole list (Rust threads, all
    cores; on a fresh and on a warm tokeniser), and where our time goes: our pre-tokeniser alone,
    our pure segmentation (pretokens precomputed, ``tokeniser.engine.segment_uncached``) and a
    cache hit (``engine.segment`` on a cached pretoken). Figures are the best (minimum) of
    ``--repeats`` repetitions, in microseconds per word (medians too in ``--json``); the side that
    goes first alternates between repetitions.

    Targets (printed next to the ratios, never asserted): cached ours/HF <= 1.0, cold ours/HF <= 20.

How to run (from the repository root; about 25 s with the default 5 repetitions)
    python bench/bench_segment.py
    python bench/bench_segment.py --repeats 9 --json segment.json
"""

from __future__ import annotations

import argparse
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
from core.formats.corpora import load_word_counts
from core.formats.samples import DUTCH_40K, SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser

WORDS = SAMPLE_DIR / "counts" / "nl_wordfreq.tsv"
TARGET_CACHED = 1.0
TARGET_COLD = 20.0


def load_ours():
    tokeniser = load_tokeniser(DUTCH_40K)
    _ = tokeniser.engine  # compile the merge tables now: part of loading, not of the first pass
    return tokeniser


def load_hf():
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(DUTCH_40K))


def pass_ours(tokeniser, words):
    tokenise_word = tokeniser.tokenise_word
    return [tokenise_word(word) for word in words]


def pass_hf(hf, words):
    encode = hf.encode
    return [encode(" " + word).tokens for word in words]


def batch_hf(hf, words):
    return [encoding.tokens for encoding in hf.encode_batch([" " + word for word in words])]


def check_agreement(words) -> tuple[int, list[tuple[str, list[str], list[str]]]]:
    """Disagreements between ours and HF on separately loaded tokenisers (timings stay cold)."""
    ours = pass_ours(load_ours(), words)
    theirs = pass_hf(load_hf(), words)
    bad = [(w, list(a), list(b)) for w, a, b in zip(words, ours, theirs, strict=True) if list(a) != list(b)]
    return len(bad), bad[:5]


def one_repetition(words, hf_first: bool) -> dict[str, float]:
    """Seconds for loading, a cold and a cached pass per engine, HF batch on fresh and warm."""
    out: dict[str, float] = {}

    def ours_side():
        out["load_ours"], tokeniser = timed(load_ours)
        out["cold_ours"], _ = timed(lambda: pass_ours(tokeniser, words))
        out["cached_ours"], _ = timed(lambda: pass_ours(tokeniser, words))

    def hf_side():
        out["load_hf"], hf = timed(load_hf)
        out["cold_hf"], _ = timed(lambda: pass_hf(hf, words))
        out["cached_hf"], _ = timed(lambda: pass_hf(hf, words))
        out["batch_hf_warm"], _ = timed(lambda: batch_hf(hf, words))
        fresh = load_hf()
        out["batch_hf_fresh"], _ = timed(lambda: batch_hf(fresh, words))

    for side in (hf_side, ours_side) if hf_first else (ours_side, hf_side):
        side()
    return out


def breakdown(words, repeats: int) -> tuple[dict[str, float], dict[str, float], int]:
    """Where our time goes: pre-tokeniser alone, pure segmentation, cache hit.

    Returns (best seconds, median seconds, number of pretokens)."""
    tokeniser = load_ours()
    pretokenise = tokeniser.pretokeniser.pretokenise
    pretokens = [p for word in words for p in pretokenise(" " + word)]
    engine = tokeniser.engine
    segment_uncached = engine.segment_uncached
    for p in pretokens:
        engine.segment(p)  # fill the cache for the cache-hit row
    segment = engine.segment
    runs = {"pretokenise_ours": [], "segment_uncached_ours": [], "cache_hit_ours": []}
    for _ in range(repeats):
        runs["pretokenise_ours"].append(timed(lambda: [pretokenise(" " + w) for w in words])[0])
        runs["segment_uncached_ours"].append(timed(lambda: [segment_uncached(p) for p in pretokens])[0])
        runs["cache_hit_ours"].append(timed(lambda: [segment(p) for p in pretokens])[0])
    best, mid = summarise([dict(zip(runs, values, strict=True)) for values in zip(*runs.values(), strict=True)])
    return best, mid, len(pretokens)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="repetitions, best reported (default 5)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    env = environment()
    words = list(load_word_counts(WORDS))
    n = len(words)
    print(environment_line(env))
    print(
        f"# {n:,} words from {WORDS.relative_to(SAMPLE_DIR.parent)}, tokeniser "
        f"{DUTCH_40K.relative_to(SAMPLE_DIR.parent)}; best of {args.repeats} repetitions"
    )

    disagreements, examples = check_agreement(words)
    print(f"# agreement check: {disagreements} disagreements between ours and HF on {n:,} words (must be 0)")
    for word, ours, theirs in examples:
        print(f"#   {word!r}: ours {ours} vs HF {theirs}")

    reps = [one_repetition(words, hf_first=bool(r % 2)) for r in range(args.repeats)]
    fig, mid = summarise(reps)
    bd_best, bd_mid, n_pretokens = breakdown(words, args.repeats)
    fig.update(bd_best)
    mid.update(bd_mid)

    def us(seconds: float) -> float:
        return seconds / n * 1e6

    cold_ratio = fig["cold_ours"] / fig["cold_hf"]
    cached_ratio = fig["cached_ours"] / fig["cached_hf"]
    print()
    print_table(
        ["per word (µs/word)", "ours", "HF", "ours/HF", "target"],
        [
            [
                "(a) cold: first pass, fresh tokenisers",
                f"{us(fig['cold_ours']):.2f}",
                f"{us(fig['cold_hf']):.2f}",
                f"{cold_ratio:.2f}",
                verdict(cold_ratio, TARGET_COLD),
            ],
            [
                "(b) cached: second pass",
                f"{us(fig['cached_ours']):.2f}",
                f"{us(fig['cached_hf']):.2f}",
                f"{cached_ratio:.2f}",
                verdict(cached_ratio, TARGET_CACHED),
            ],
            [
                "HF encode_batch, fresh tokeniser",
                "",
                f"{us(fig['batch_hf_fresh']):.2f}",
                f"{fig['cold_ours'] / fig['batch_hf_fresh']:.2f}",
                "(vs ours cold)",
            ],
            [
                "HF encode_batch, warm tokeniser",
                "",
                f"{us(fig['batch_hf_warm']):.2f}",
                f"{fig['cached_ours'] / fig['batch_hf_warm']:.2f}",
                "(vs ours cached)",
            ],
            ["ours: pre-tokeniser only", f"{us(fig['pretokenise_ours']):.2f}", "", "", ""],
            ["ours: pure segmentation (segment_uncached)", f"{us(fig['segment_uncached_ours']):.2f}", "", "", ""],
            ["ours: cache hit (engine.segment)", f"{us(fig['cache_hit_ours']):.2f}", "", "", ""],
        ],
    )
    print(
        f"# pure segmentation and cache hit run over the {n_pretokens:,} pretokens of the "
        f"{n:,} words, divided by {n:,} words"
    )
    print()
    print_table(
        ["load (s, not in the passes)", "ours", "HF", "ours/HF"],
        [
            [
                "load_tokeniser + engine / Tokenizer.from_file",
                f"{fig['load_ours']:.3f}",
                f"{fig['load_hf']:.3f}",
                f"{fig['load_ours'] / fig['load_hf']:.2f}",
            ]
        ],
    )

    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "benchmark": "bench_segment",
            "environment": env,
            "words": n,
            "pretokens": n_pretokens,
            "repeats": args.repeats,
            "disagreements": disagreements,
            "seconds_best": fig,
            "seconds_median": mid,
            "us_per_word_best": {k: us(v) for k, v in fig.items()},
            "us_per_word_median": {k: us(v) for k, v in mid.items()},
            "ratios": {"cold_ours_over_hf": cold_ratio, "cached_ours_over_hf": cached_ratio},
            "targets": {
                "cached_ours_over_hf_max": TARGET_CACHED,
                "cold_ours_over_hf_max": TARGET_COLD,
                "cached_met": cached_ratio <= TARGET_CACHED,
                "cold_met": cold_ratio <= TARGET_COLD,
            },
            "repetitions": reps,
        },
    )
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
