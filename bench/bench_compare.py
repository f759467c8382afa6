"""Comparing two tokenisers word by word (``core.analysis.compare``) on the shipped word counts.

What it measures
    The 40,000 words of ``sample_data/counts/nl_wordfreq.tsv`` (and, with ``--words 50000``, that
    list padded with its words reversed, for a 50k list) compared under three pairs:

    * the Dutch 40k against ``nl-bpe-4k-wordfreq`` (two tokenisers, different pre-tokenisers);
    * the Dutch 40k against itself after BPE-knockout (threshold 0.5, the nl_morph reference);
    * the Dutch 40k against itself (nothing differs).

    For each pair, on freshly loaded tokenisers (segmentation caches empty):
    (a) ``compare_tokenisers`` over all words, cold (every word segmented and aligned once);
    (b) ``token_frequency_differences`` on the same ``Segmentations`` afterwards (memo hits only);
    (c) ``compare_tokenisers`` again on those ``Segmentations`` (memo hits only).
    The knockout run itself is timed apart and not counted in the pair's figures. Best of
    ``--repeats`` repetitions, in seconds. Targets are printed, never asserted: a cold comparison of
    50k words under 10 s, a warm one under 1 s.

How to run (from the repository root; about a minute)
    python bench/bench_compare.py
    python bench/bench_compare.py --words 50000 --repeats 3 --json compare.json
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import load_note, print_table, timed, write_json
from core.analysis.compare import Segmentations, compare_tokenisers, token_frequency_differences
from core.edits.rebpe import KnockoutConfig, run_knockout
from core.formats.corpora import load_word_counts
from core.formats.samples import DUTCH_40K, SAMPLE_DIR, count_paths, reference_paths
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references

COLD_TARGET, WARM_TARGET = 10.0, 1.0


def word_counts(size: int) -> dict[str, int]:
    counts = load_word_counts(count_paths()["nl_wordfreq"])
    for word, count in list(counts.items()):
        if len(counts) >= size:
            break
        counts.setdefault(word[::-1], count)
    return dict(list(counts.items())[:size])


def pairs(knocked):
    """(label, a, b) with freshly loaded tokenisers (empty caches)."""
    small = SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json"
    yield "nl-40k vs nl-bpe-4k", load_tokeniser(DUTCH_40K), load_tokeniser(small)
    fresh = load_tokeniser(DUTCH_40K)
    yield "nl-40k vs after knockout", fresh, fresh.with_merges(knocked.merges)
    yield "nl-40k vs itself", load_tokeniser(DUTCH_40K), load_tokeniser(DUTCH_40K)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=40_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json")
    args = parser.parse_args()
    note = load_note()
    if note:
        print(note)
    counts = word_counts(args.words)
    entries = load_references(reference_paths()["nl_morph"]).entries
    seconds, run = timed(lambda: run_knockout(load_tokeniser(DUTCH_40K), entries, KnockoutConfig()))
    print(f"# {len(counts):,} words; knockout on the Dutch 40k took {seconds:.2f} s (not counted below)")

    best: dict[str, dict[str, float]] = {}
    found: dict[str, tuple[int, float]] = {}
    for _ in range(args.repeats):
        for label, a, b in pairs(run.tokeniser):
            seg_a, seg_b = Segmentations(a), Segmentations(b)
            cold, comparison = timed(partial(compare_tokenisers, seg_a, seg_b, counts))
            tokens, rows = timed(partial(token_frequency_differences, seg_a, seg_b, counts))
            warm, _ = timed(partial(compare_tokenisers, seg_a, seg_b, counts))
            figures = {"cold": cold, "token_frequencies": tokens, "warm": warm}
            best[label] = {k: min(v, best.get(label, {}).get(k, v)) for k, v in figures.items()}
            found[label] = (comparison.differing, comparison.weighted_share, len(rows))
    rows = [
        [
            label,
            f"{found[label][0]:,}",
            f"{found[label][1]:.1%}",
            f"{found[label][2]:,}",
            f"{t['cold']:.2f}",
            f"{t['token_frequencies']:.2f}",
            f"{t['warm']:.2f}",
        ]
        for label, t in best.items()
    ]
    print_table(["pair", "words differing", "weighted", "token rows", "cold s", "token freq s", "warm s"], rows)
    cold = max(t["cold"] for t in best.values())
    warm = max(t["warm"] for t in best.values())
    cold_verdict = "met" if cold < COLD_TARGET else "MISSED"
    warm_verdict = "met" if warm < WARM_TARGET else "MISSED"
    print(
        f"slowest cold comparison {cold:.2f} s (target < {COLD_TARGET:g} s: {cold_verdict}); "
        f"slowest warm {warm:.2f} s (target < {WARM_TARGET:g} s: {warm_verdict})"
    )
    write_json(
        args.json,
        {
            "words": len(counts),
            "knockout_seconds": seconds,
            "best_seconds": best,
            "found": {k: {"differing": v[0], "weighted_share": v[1], "token_rows": v[2]} for k, v in found.items()},
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
