"""Unigram training: ``core.families.unigram.train`` against SentencePiece's unigram trainer, same text.

What it measures
    About 5 MB of English running text (``--megabytes``) built from the project's samples only:
    the pydoc reference text (``core.formats.samples.running_text``, ~0.46 MB, once) plus the English
    wordfreq counts (``sample_data/counts/en_wordfreq.tsv``) expanded into text, each word
    ``max(1, round(count / s))`` times with ``s`` chosen to fill the size, shuffled (fixed seed)
    into lines of 15 words; whitespace runs are collapsed so both sides see the same words.

    * SentencePiece: ``SentencePieceTrainer.train`` on that text file exactly as
      ``/work/shared/tools/compare_refs.py`` runs it (unigram, identity normalisation,
      character_coverage 1, no byte fallback, hard_vocab_limit off, split_by_whitespace,
      add_dummy_prefix, max piece length 16, seed_sentencepiece_size 1e6, shrinking 0.75,
      2 EM sub-iterations, 2 threads) with ``vocab_size = n + 3`` (its <unk>, <s>, </s>).
    * ours: ``TrainingCorpus.from_texts(lines, Metaspace())`` (timed apart as "corpus") then
      ``train(corpus, n)`` with the paper's defaults, and once more with
      ``core.families.unigram.SENTENCEPIECE`` (SentencePiece-style full-text seed, prunable characters).

    Quality, on the training corpus and computed by our code for every model (SentencePiece's
    ``.model`` is read with ``core.formats.sentencepiece.unigram.load_sentencepiece_model``): the objective (Eq. 2,
    marginal NLL per character of the ``▁``-prefixed words) and the Viterbi token count. Ratios
    are ours / SentencePiece.

    Targets (printed, never asserted): objective and token count within 1 % of SentencePiece's
    (a ratio below 0.99 prints as "MISSED (better)": ours more than 1 % lower, i.e. better);
    time (corpus + train) within 5x of SentencePiece's total (which includes reading the text).

How to run (from the repository root; about 30 s per repetition on an idle 2-core machine)
    python bench/bench_unigram.py
    python bench/bench_unigram.py --vocab-size 16000 --repeats 2 --json unigram.json
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import environment, environment_line, load_note, print_table, summarise, timed, verdict, write_json
from core.counting.corpus import TrainingCorpus
from core.families.unigram import SENTENCEPIECE, train
from core.families.unigram.trainer import corpus_statistics
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR, running_text
from core.formats.sentencepiece.unigram import load_sentencepiece_model
from core.pipeline import Metaspace

COUNTS = SAMPLE_DIR / "counts" / "en_wordfreq.tsv"
WORDS_PER_LINE = 15
TIME_TARGET = 5.0
QUALITY_TARGET = 0.01


def build_text(megabytes: float, seed: int = 0) -> list[str]:
    """Lines of text: the pydoc sample once, then wordfreq words expanded to fill the size."""
    lines = [" ".join(line.split()) for line in running_text()]
    lines = [line for line in lines if line]
    room = megabytes * 1e6 - sum(len(line.encode()) + 1 for line in lines)
    counts = load_word_counts(COUNTS)

    def size(scale: float) -> float:
        return sum(max(1, round(c / scale)) * (len(w.encode()) + 1) for w, c in counts.items())

    low, high = 1.0, 1e9
    for _ in range(60):  # geometric bisection for the scale that fills the room
        mid = (low * high) ** 0.5
        low, high = (mid, high) if size(mid) > room else (low, mid)
    words = [w for w, c in counts.items() for _ in range(max(1, round(c / high)))]
    rng = random.Random(seed)
    rng.shuffle(words)
    lines += [" ".join(words[i : i + WORDS_PER_LINE]) for i in range(0, len(words), WORDS_PER_LINE)]
    rng.shuffle(lines)
    return lines


def train_spm(path: str, vocab_size: int, out_dir: str):
    import sentencepiece as spm

    prefix = os.path.join(out_dir, "unigram")
    spm.SentencePieceTrainer.train(
        input=path,
        input_format="text",
        model_prefix=prefix,
        model_type="unigram",
        vocab_size=vocab_size + 3,
        character_coverage=1.0,
        normalization_rule_name="identity",
        byte_fallback=False,
        hard_vocab_limit=False,
        split_by_whitespace=True,
        add_dummy_prefix=True,
        remove_extra_whitespaces=True,
        num_threads=2,
        max_sentencepiece_length=16,
        seed_sentencepiece_size=1_000_000,
        shrinking_factor=0.75,
        num_sub_iterations=2,
        train_extremely_large_corpus=False,
        minloglevel=2,
    )
    return prefix + ".model"


VARIANTS = (("ours", "ours, paper defaults", {}), ("ours_spm", "ours, SENTENCEPIECE options", SENTENCEPIECE))


def one_repetition(lines, text_path, vocab_size, work, spm_first):
    """Times (corpus building, each of our variants, SentencePiece) and the trained models."""
    out, models = {}, {}

    def ours():
        out["corpus"], models["corpus"] = timed(lambda: TrainingCorpus.from_texts(lines, Metaspace()))
        for key, _, options in VARIANTS:
            out[key], models[key] = timed(lambda options=options: train(models["corpus"], vocab_size, **options))

    def theirs():
        out["spm"], models["spm"] = timed(lambda: train_spm(text_path, vocab_size, work))

    for side in (theirs, ours) if spm_first else (ours, theirs):
        side()
    return out, models


def quality_verdict(ratio: float) -> str:
    if abs(ratio - 1) <= QUALITY_TARGET:
        return "met"
    return "MISSED (better)" if ratio < 1 else "MISSED"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=5.0, help="size of the text (default 5)")
    parser.add_argument(
        "--vocab-size", type=int, default=8000, help="pieces, without SentencePiece's 3 meta pieces (default 8000)"
    )
    parser.add_argument("--repeats", type=int, default=1, help="repetitions, best time reported (default 1)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    if args.megabytes <= 0 or args.vocab_size < 1 or args.repeats < 1:
        parser.error("--megabytes, --vocab-size and --repeats must be positive")

    import sentencepiece

    env = {**environment(), "sentencepiece": sentencepiece.__version__}
    lines = build_text(args.megabytes)
    work = tempfile.mkdtemp(prefix="bench_unigram_")
    text_path = os.path.join(work, "train.txt")
    Path(text_path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(environment_line(env) + f", sentencepiece {env['sentencepiece']}")
    print(
        f"# {os.path.getsize(text_path) / 1e6:.2f} MB, {len(lines):,} lines; vocab_size {args.vocab_size} "
        f"(SentencePiece {args.vocab_size + 3} with its 3 meta pieces); best of {args.repeats}"
    )

    reps = []
    for r in range(args.repeats):
        out, models = one_repetition(lines, text_path, args.vocab_size, work, spm_first=bool(r % 2))
        reps.append(out)
    best, median = summarise(reps)

    spm_model = load_sentencepiece_model(models["spm"])
    shutil.rmtree(work, ignore_errors=True)
    quality = {"spm": corpus_statistics(spm_model, models["corpus"].pretoken_counts)}
    sizes = {"spm": spm_model.vocab_size}
    time_rows, quality_rows = (
        [],
        [["SentencePiece", f"{quality['spm'][0]:.5f}", f"{quality['spm'][1]:,.0f}", "", "", ""]],
    )
    ratios = {}
    for key, label, _ in VARIANTS:
        run = models[key]
        quality[key] = (run.summary["objective"], run.summary["tokens"])
        sizes[key] = run.tokeniser.vocab_size
        objective, tokens = (quality[key][i] / quality["spm"][i] for i in (0, 1))
        seconds = (best["corpus"] + best[key]) / best["spm"]
        ratios[key] = {
            "objective": objective,
            "tokens": tokens,
            "time": seconds,
            "objective_verdict": quality_verdict(objective),
            "tokens_verdict": quality_verdict(tokens),
            "time_met": seconds <= TIME_TARGET,
        }
        time_rows.append(
            [
                label,
                f"{best['corpus']:.2f} + {best[key]:.2f}",
                f"{best['spm']:.2f}",
                f"{seconds:.2f}",
                verdict(seconds, TIME_TARGET),
            ]
        )
        quality_rows.append(
            [
                label,
                f"{quality[key][0]:.5f}",
                f"{quality[key][1]:,.0f}",
                f"{objective:.4f} {ratios[key]['objective_verdict']}",
                f"{tokens:.4f} {ratios[key]['tokens_verdict']}",
            ]
        )
    print()
    print_table(["training (s)", "ours (corpus + train)", "SentencePiece", "ours/SP", "target"], time_rows)
    print()
    print_table(
        [
            "on the training corpus",
            "objective (Eq. 2)",
            "tokens",
            "objective ours/SP (within 1 %)",
            "tokens ours/SP (within 1 %)",
        ],
        [row[:5] for row in quality_rows],
    )
    print(
        f"# pieces: ours {sizes['ours']}, ours with SENTENCEPIECE options {sizes['ours_spm']}, "
        f"SentencePiece {sizes['spm']} (+3 meta); objective = marginal NLL per character (lower is better)"
    )
    note = load_note()
    if note:
        print(note)
    write_json(
        args.json,
        {
            "benchmark": "bench_unigram",
            "environment": env,
            "megabytes": args.megabytes,
            "lines": len(lines),
            "vocab_size": args.vocab_size,
            "repeats": args.repeats,
            "seconds_best": best,
            "seconds_median": median,
            "quality": {k: {"objective": q[0], "tokens": q[1]} for k, q in quality.items()},
            "ratios": ratios,
            "pieces": sizes,
            "repetitions": reps,
            "rounds": {key: models[key].summary["rounds"] for key, _, _ in VARIANTS},
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
