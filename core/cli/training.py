"""Commands that train a tokeniser: ``train`` (any family) and ``train-bpe`` (HF BpeTrainer's merges)."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

from core.cli.common import add_command, examples
from core.cli.progress import ProgressBar
from core.errors import InputError, excerpt
from core.formats.output_files import write_text

#: what a trainer's progress counts (core.families.base: ``progress(done, total)``)
TRAINING_UNITS = {"bpe": "merge", "unigram": "piece", "unigram-fsp": "piece"}

MARKERS = {"▁": "▁", "Ġ": "Ġ", "_": "_", "none": None}


def add_train(sub, prog: str) -> None:
    from core.families.registry import ALGORITHMS
    from core.pipeline.named import CHOICES

    p = add_command(
        sub,
        "train",
        "train a tokeniser of any family: " + ", ".join(ALGORITHMS),
        examples(
            prog,
            "sample-text --out out/text.txt",
            "train --algorithm unigram --corpus out/text.txt --vocab-size 2000 --out out/unigram.json",
            "train --algorithm picky --corpus out/text.txt --vocab-size 2000 --option threshold=0.8 "
            "--out out/picky.json --json-report out/picky-report.json",
            "train --algorithm boundless --list-options",
        ),
        cmd_train,
    )
    p.add_argument(
        "--algorithm",
        required=True,
        choices=list(ALGORITHMS),
        help="; ".join(f"{name}: {description}" for name, (_, _, description) in ALGORITHMS.items()),
    )
    p.add_argument(
        "--list-options",
        action="store_true",
        help="print the --option keys of --algorithm with their defaults and meaning, and exit",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--corpus", metavar="PATH", help="a text file, one document per line (required, or --counts)")
    source.add_argument(
        "--counts",
        metavar="PATH",
        help="a word<TAB>count file, each word as in running text, or a counts .parquet written by count "
        "(required, or --corpus)",
    )
    p.add_argument("--vocab-size", type=int, help="the size of the vocabulary to train (required)")
    p.add_argument("--out", metavar="PATH", help="the trained tokeniser, project JSON (required)")
    p.add_argument(
        "--json-report", metavar="PATH", help="also write the training log and summary as JSON here (default: none)"
    )
    p.add_argument(
        "--pretokeniser",
        choices=list(CHOICES),
        help="default: boundless for BoundlessBPE, bytelevel (GPT-2) otherwise; a counts .parquet's own "
        "(given, it must be that one)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an algorithm option, VALUE read as JSON when it parses (e.g. threshold=0.8); repeatable; "
        "--algorithm X --list-options lists X's keys (default: the algorithm's own defaults)",
    )
    p.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="bpe and boundless: write the merges so far to DIR every --checkpoint-every seconds and on Ctrl-C; "
        "the same command with the same DIR resumes from there (default: none; other algorithms refuse it)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="seconds between two checkpoints (default: 300)",
    )
    p.set_defaults(usage_error=p.error)


def _option_values(pairs: list[str]) -> dict:
    """``KEY=VALUE`` algorithm options; VALUE is read as JSON when it parses (numbers, true), else text."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise InputError(f"--option expects KEY=VALUE, got {excerpt(pair)}")
        try:
            options[key] = json.loads(value)
        except (ValueError, RecursionError):  # not JSON (or a number Python refuses): the text itself
            options[key] = value
    return options


def option_lines(algorithm: str) -> list[str]:
    """``train --algorithm X --list-options``: each option of X's trainer, its default and meaning."""
    from core.families.registry import ALGORITHMS, algorithm_options, option_help

    _, fixed, description = ALGORITHMS[algorithm]
    meanings = option_help(algorithm)
    options = algorithm_options(algorithm)
    lines = [f"{algorithm}: {description}", "options (--option KEY=VALUE, VALUE read as JSON when it parses):"]
    if not options:
        lines.append("  none")
    for key, default in options.items():
        lines.append(f"  {key}={json.dumps(default, ensure_ascii=False)}")
        lines.append(f"      {meanings[key]}")
    lines += [f"fixed for {algorithm}: {key}={json.dumps(value)}" for key, value in fixed.items()]
    return lines


def _required_for_training(args) -> None:
    """The arguments train needs unless it only lists options (argparse cannot say 'unless')."""
    missing = [name for name, value in (("--vocab-size", args.vocab_size), ("--out", args.out)) if value is None]
    if not (args.corpus or args.counts):
        missing.insert(0, "--corpus or --counts")
    if missing:
        args.usage_error(f"the following arguments are required: {', '.join(missing)}")


def _training_checkpoint(args, algorithm: str, corpus, options: dict):
    """train's ``--checkpoint`` (None without it): InputError for a trainer that cannot resume,
    or a checkpoint of another run."""
    if args.checkpoint is None:
        return None
    from core.bpe.checkpoint import TrainingCheckpoint, fingerprint
    from core.families.registry import algorithm_options, check_resumable

    check_resumable(algorithm)
    run = fingerprint(algorithm, corpus, args.vocab_size, {**algorithm_options(algorithm), **options})
    return TrainingCheckpoint(args.checkpoint, run, every=args.checkpoint_every)


@contextmanager
def _naming(path: str):
    """Errors raised inside that name no file (e.g. ``<corpus>: empty corpus``) name ``path``."""
    try:
        yield
    except InputError as err:
        if err.source is not None and not err.source.startswith("<"):
            raise
        raise InputError(err.message, path, err.line) from None


def cmd_train(args) -> int:
    import time

    from core.families import registry
    from core.families.boundless.model import shortfall
    from core.formats.corpora import iter_text_lines, load_word_counts
    from core.formats.tokeniser_files import save_tokeniser

    algorithm = registry.check_algorithm(args.algorithm)
    if args.list_options:
        print("\n".join(option_lines(algorithm)))
        return 0
    _required_for_training(args)
    with _naming(args.corpus or args.counts), ProgressBar(f"reading {args.corpus or args.counts}"):
        if args.corpus:
            corpus = registry.training_corpus(algorithm, iter_text_lines(args.corpus), args.pretokeniser)
        elif registry.is_counts_file(args.counts):
            corpus = registry.counts_corpus(algorithm, args.counts, args.pretokeniser)
        else:
            corpus = registry.training_corpus(algorithm, load_word_counts(args.counts), args.pretokeniser)
    options = _option_values(args.option)
    checkpoint = _training_checkpoint(args, algorithm, corpus, options)
    try:
        with ProgressBar(f"training {algorithm}", TRAINING_UNITS.get(algorithm, "type")) as bar:
            started = time.perf_counter()
            run = registry.train(algorithm, corpus, args.vocab_size, progress=bar, checkpoint=checkpoint, **options)
            seconds = time.perf_counter() - started
    except KeyboardInterrupt:
        if checkpoint is None:
            raise
        steps = checkpoint.save()
        print(
            f"interrupted after {steps} {'merges and supermerges' if algorithm == 'boundless' else 'merges'}; "
            f"checkpoint saved in {checkpoint.folder}: run the same command to resume",
            file=sys.stderr,
        )
        return 130
    tokeniser = run.tokeniser
    tokeniser.name = Path(args.out).stem
    save_tokeniser(tokeniser, args.out)
    if args.json_report:
        report = {
            **run.to_json(),
            "seconds": seconds,
            "pretokeniser": corpus.pretokeniser.to_spec(),
            "corpus": {
                "pretokens": sum(corpus.pretoken_counts.values()),
                "unique_pretokens": len(corpus.pretoken_counts),
                "documents": len(corpus.documents) if corpus.documents is not None else None,
            },
        }
        write_text(args.json_report, json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    print(f"{algorithm}: |V| = {tokeniser.vocab_size} in {seconds:.1f} s -> {args.out}", file=sys.stderr)
    short = shortfall(run, args.vocab_size)
    if short:
        print(f"note: {short}", file=sys.stderr)
    return 0


def add_train_bpe(sub, prog: str) -> None:
    p = add_command(
        sub,
        "train-bpe",
        "train BPE on word counts (merges identical to HF BpeTrainer)",
        examples(
            prog,
            "train-bpe --counts sample_data/counts/en_wordfreq.tsv --vocab-size 2000 --marker Ġ "
            "--out out/en-bpe-2k.json",
            "train-bpe --counts sample_data/counts/nl_wordfreq.tsv --vocab-size 2000 --hf --out out/nl-tokenizer.json",
        ),
        cmd_train_bpe,
    )
    p.add_argument("--counts", required=True, metavar="PATH", help="a word<TAB>count file")
    p.add_argument("--vocab-size", type=int, required=True, help="alphabet + merges, as HF counts it")
    p.add_argument("--marker", choices=list(MARKERS), default="▁", help="word-start marker prepended to each word")
    p.add_argument("--min-frequency", type=int, default=0, help="pairs seen fewer times are never merged")
    p.add_argument("--out", required=True, metavar="PATH", help="the trained tokeniser")
    p.add_argument("--hf", action="store_true", help="write an HF tokenizer.json instead of project JSON")


def cmd_train_bpe(args) -> int:
    from core.bpe.trainer import tokeniser_from_training, train_bpe
    from core.formats.corpora import load_word_counts
    from core.formats.tokeniser_files import save_tokeniser
    from core.pipeline import Metaspace, WhitespaceSplit

    marker = MARKERS[args.marker]
    counts = load_word_counts(args.counts)
    pretokeniser = WhitespaceSplit() if marker is None else Metaspace(replacement=marker)
    words = {(marker or "") + word: count for word, count in counts.items()}
    with ProgressBar("training", "merge") as bar:
        result = train_bpe(words, args.vocab_size, min_frequency=args.min_frequency, progress=bar)
    tokeniser = tokeniser_from_training(result, pretokeniser, name=Path(args.out).stem)
    save_tokeniser(tokeniser, args.out, hf=args.hf)
    print(f"{len(result.merges)} merges, |V| = {tokeniser.vocab_size} -> {args.out}", file=sys.stderr)
    return 0
