"""Commands on corpora of any size: ``sample-text`` (a corpus to try the others on), ``stats``
(a tokeniser's statistics over a corpus) and ``count`` (pretoken counts to train on)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.cli.common import (
    EN_4K,
    NL_40K,
    add_command,
    add_tokeniser_arguments,
    at_least,
    examples,
    loading,
    tell_detected,
)
from core.cli.progress import ProgressBar
from core.errors import InputError
from core.formats.output_files import write_text


def add_sample_text(sub, prog: str) -> None:
    p = add_command(
        sub,
        "sample-text",
        "write English running text, one document per line, as a --corpus for train: the reference-manual "
        "topics CPython ships (pydoc_data, about 450 KB; PSF licence)",
        examples(prog, "sample-text --out out/text.txt"),
        cmd_sample_text,
    )
    p.add_argument("--out", required=True, metavar="PATH", help="the text file to write")


def cmd_sample_text(args) -> int:
    from core.formats.samples import running_text

    lines = list(running_text())
    write_text(args.out, "".join(line + "\n" for line in lines))
    print(f"{len(lines):,} lines of English running text (PSF licence) -> {args.out}", file=sys.stderr)
    return 0


#: the smallest and largest --chunk-mb (about 10 bytes and 1 GB): smaller chunks cost more to
#: schedule than to count (the number of chunks is limited too: :data:`core.counting.chunks.MAX_CHUNKS`),
#: larger ones more memory than a worker may have
MIN_CHUNK_MB, MAX_CHUNK_MB = 0.00001, 1024


def _chunk_mb(text: str) -> float:
    """An argparse type: a --chunk-mb from :data:`MIN_CHUNK_MB` to :data:`MAX_CHUNK_MB`."""
    value = float(text)
    if not MIN_CHUNK_MB <= value <= MAX_CHUNK_MB:
        raise argparse.ArgumentTypeError(f"expected a size from {MIN_CHUNK_MB} to {MAX_CHUNK_MB:,} MB, got {text}")
    return value


def _counting_engine_arguments(p: argparse.ArgumentParser) -> None:
    """Where chunks are counted: --workers or --dask, and --chunk-mb."""
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=at_least(1), help="processes counting chunks (default: all cores)")
    engine.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="count on a Dask cluster instead: local (a LocalCluster here) or tcp://HOST:PORT; the files must "
        "be readable at the same paths by its workers; such a run cannot be resumed (default: no Dask)",
    )
    p.add_argument(
        "--chunk-mb",
        type=_chunk_mb,
        default=16,
        help=f"size of the chunks counted apart, in MB, from {MIN_CHUNK_MB} to {MAX_CHUNK_MB:,}",
    )


def add_stats(sub, prog: str) -> None:
    p = add_command(
        sub,
        "stats",
        "corpus statistics of a tokeniser (token frequencies, Zipf, Rényi efficiency, bytes per token) over a "
        "corpus of any size, counted in chunks in parallel, as a stats.json the distributions page opens",
        examples(
            prog,
            "sample-text --out out/text.txt",
            f"stats --tokeniser {EN_4K} --corpus out/text.txt --out out/en-stats.json",
            f"stats --tokeniser {NL_40K} --corpus sample_data/references --workers 2 --chunk-mb 0.1 "
            "--out out/nl-stats.json",
        ),
        cmd_stats,
    )
    add_tokeniser_arguments(p)
    p.add_argument(
        "--corpus",
        required=True,
        metavar="PATH_OR_GLOB",
        help="a text file (one line tokenised at a time), a folder of them, or a glob (quote it; ** allowed)",
    )
    _counting_engine_arguments(p)
    p.add_argument("--out", required=True, metavar="PATH", help="the stats.json to write")


def cmd_stats(args) -> int:
    import time

    from core.analysis import corpus_metrics as cm
    from core.analysis.token_stats import corpus_stats, stats_file_json, tokeniser_at
    from core.counting.chunks import corpus_files, fingerprint

    with loading(args.tokeniser):
        tokeniser = tokeniser_at(args.tokeniser, args.pretokeniser, args.pattern)
    tell_detected(args.tokeniser, tokeniser)
    files = corpus_files(args.corpus)
    started = time.perf_counter()
    with ProgressBar("counting tokens", "byte") as bar:
        stats = corpus_stats(
            args.tokeniser,
            files,
            workers=args.workers,
            dask=args.dask,
            progress=bar,
            chunk_bytes=max(1, round(args.chunk_mb * (1 << 20))),
            pretokeniser=args.pretokeniser,
            pattern=args.pattern,
        )
    seconds = time.perf_counter() - started
    if stats.tokens == 0:
        raise InputError("no tokens: the corpus files hold no text", args.corpus)
    about = {"name": getattr(tokeniser, "name", None) or Path(args.tokeniser).name, "path": args.tokeniser}
    document = stats_file_json(stats, about, fingerprint(files), round(seconds, 3))
    write_text(args.out, json.dumps(document, ensure_ascii=False) + "\n")
    summary = cm.summary(stats)
    print(f"tokens            {stats.tokens:,}")
    print(f"types used        {stats.types_used:,} ({summary['vocabulary_used']:.1%} of {stats.vocab_size:,} in V)")
    print(f"bytes per token   {summary['bytes_per_token']:.3f}")
    print(f"Rényi efficiency  {summary['renyi_efficiency']:.4f} (α = {summary['alpha']:g})")
    files_text = f"{len(files):,} file{'s' if len(files) != 1 else ''}"
    print(f"{files_text}, {stats.bytes:,} bytes of text in {seconds:.1f} s -> {args.out}", file=sys.stderr)
    return 0


def add_count(sub, prog: str) -> None:
    from core.pipeline.named import CHOICES

    p = add_command(
        sub,
        "count",
        "count the pretokens of a corpus of any size in chunks, in parallel, into a counts.parquet that "
        "train --counts reads (with --sequences also the runs BoundlessBPE's supermerges need [boundless App. B]); "
        "an interrupted run resumes when the same command is run again",
        examples(
            prog,
            "sample-text --out out/text.txt",
            "count --corpus out/text.txt --workers 2 --chunk-mb 0.1 --out out/counts.parquet",
            "train --algorithm bpe --counts out/counts.parquet --vocab-size 2000 --out out/bpe-counted.json",
            "count --corpus out/text.txt --pretokeniser boundless --out out/boundless-counts.parquet",
            "train --algorithm boundless --counts out/boundless-counts.parquet --vocab-size 1000 "
            "--out out/boundless-counted.json",
        ),
        cmd_count,
    )
    p.add_argument(
        "--corpus",
        required=True,
        metavar="PATH_OR_GLOB",
        help="a text file (one document per line), a folder of them, or a glob (quote it; ** allowed)",
    )
    p.add_argument(
        "--pretokeniser", choices=list(CHOICES), default="bytelevel", help="how lines are cut into pretokens"
    )
    p.add_argument(
        "--sequences",
        action=argparse.BooleanOptionalAction,
        help="also count the runs of adjacent pretokens that supermerges can join, for BoundlessBPE "
        "(default: on for the boundless pretokeniser, off otherwise)",
    )
    _counting_engine_arguments(p)
    p.add_argument(
        "--out",
        required=True,
        metavar="PATH",
        help="the counts file (.parquet); the runs go beside it (NAME.sequences.parquet), and the chunks "
        "counted so far in NAME.parquet.parts/ until it is written",
    )


def _count_summary(counts, seconds: float, out: str) -> str:
    """One line: what was read and counted, how long it took, where it went."""
    pretokens = counts.pretokens.column("count")
    runs = "no runs" if counts.sequences is None else f"{counts.sequences.num_rows:,} distinct runs"
    rate = counts.bytes / 1e6 / seconds if seconds > 0 else 0.0
    return (
        f"{counts.bytes:,} bytes, {counts.lines:,} lines: {len(pretokens):,} distinct pretokens, "
        f"{int(pretokens.to_numpy().sum()):,} pretokens, {runs} in {seconds:.1f} s ({rate:.1f} MB/s) -> {out}"
    )


def cmd_count(args) -> int:
    import time

    from core.counting import checkpoints
    from core.counting.chunks import corpus_files
    from core.counting.corpus_counts import count_text
    from core.counting.count_files import save_counts
    from core.counting.pretoken_counts import wants_sequences
    from core.pipeline.named import PRETOKENISERS

    pretokeniser = PRETOKENISERS[args.pretokeniser]()
    files = corpus_files(args.corpus)
    parts = None if args.dask else checkpoints.parts_folder(args.out)
    if args.dask:
        print("note: a Dask run cannot be resumed: it writes no checkpoint of counted chunks", file=sys.stderr)
    started = time.perf_counter()
    try:
        with ProgressBar("counting", "byte") as bar:
            counts = count_text(
                files,
                pretokeniser,
                sequences=wants_sequences(pretokeniser) if args.sequences is None else args.sequences,
                workers=args.workers,
                dask=args.dask,
                chunk_bytes=max(1, round(args.chunk_mb * (1 << 20))),
                progress=bar,
                checkpoint=parts,
                notice=lambda message: print(message, file=sys.stderr),
            )
    except checkpoints.CountInterrupted as stop:
        print(stop, file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # a Dask run keeps nothing
        print("interrupted: a Dask run cannot be resumed; run the command again to count afresh", file=sys.stderr)
        return 130
    seconds = time.perf_counter() - started
    save_counts(args.out, counts, pretokeniser, files)
    if parts is not None:
        checkpoints.remove_parts(parts)
    print(_count_summary(counts, seconds, args.out), file=sys.stderr)
    return 0
