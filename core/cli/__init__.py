"""Command line: ``structok COMMAND ...`` (= ``python -m core COMMAND ...``); the arguments are in
:mod:`core.cli.parser`.

Errors in the input go to stderr as ``error: FILE:LINE: problem`` with exit code 2; output files
(``--out``, ``--report``, ...) are checked, and their missing folders made, before the work starts.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from core.cli.parser import MARKERS, PROGRAM, build_parser
from core.errors import InputError, excerpt, shorten
from core.formats.output_files import check_output_path, write_text

if TYPE_CHECKING:
    from tqdm import tqdm

#: what a trainer's progress counts (core.families.base: ``progress(done, total)``)
TRAINING_UNITS = {"bpe": "merge", "unigram": "piece", "unigram-fsp": "piece"}
#: progress bars are shown for this many steps or more
BAR_FROM = 2000
#: a bar counting bytes (unit "byte") is shown from this many bytes
BAR_FROM_BYTES = 1 << 20
#: every bar shows done/total ({size}: "B" for bytes), elapsed time, the ETA from the mean rate so far, and the rate
BAR_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}{size}/{total_fmt}{size} [{elapsed} elapsed, ETA {remaining}, {rate_fmt}]"
)


class _Bar:
    """A progress callback ``(done, total)`` drawing a tqdm bar on stderr. The bar is made at the
    first report with a total (0: not known yet), so its total is the reporter's own and never
    changes; hidden below ``BAR_FROM`` steps (``BAR_FROM_BYTES`` for the unit "byte") unless
    ``hidden`` says otherwise. It shows the elapsed time and an ETA from the mean rate so far; the
    unit "byte" shows bytes with SI prefixes (e.g. MB read / MB total, MB/s). With ``total``, :meth:`advance` counts
    steps itself."""

    def __init__(self, description: str, unit: str, *, total: int = 0, hidden: bool | None = None):
        self.description, self.unit, self.hidden = description, unit, hidden
        self.total, self.done = total, 0
        self.bar: tqdm | None = None

    def advance(self, steps: int = 1) -> None:
        self(self.done + steps, self.total)

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        self.done = done
        if self.bar is None:
            from tqdm import tqdm

            in_bytes = self.unit == "byte"
            self.bar = tqdm(
                total=total,
                desc=self.description,
                unit="B" if in_bytes else self.unit,
                unit_scale=in_bytes,
                unit_divisor=1000,
                smoothing=0,
                bar_format=BAR_FORMAT.replace("{size}", "B" if in_bytes else ""),
                disable=total < (BAR_FROM_BYTES if in_bytes else BAR_FROM) if self.hidden is None else self.hidden,
                file=sys.stderr,
                leave=False,
            )
        self.bar.update(done - self.bar.n)

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()


def _read_words(args) -> list[str]:
    words = list(args.words)
    if args.words_file:
        from core.formats.corpora import iter_text_lines

        for line in iter_text_lines(args.words_file):
            words.extend(line.split())
    if not words:
        raise InputError(
            "no words given: pass words as arguments or --words-file FILE"
            + (" (the file holds none)" if args.words_file else ""),
            args.words_file,
        )
    return words


def _tell_detected(path: str, tokeniser) -> None:
    """Print to stderr what the loader inferred about the tokeniser at ``path``."""
    for note in (getattr(tokeniser, "metadata", None) or {}).get("detected", ()):
        print(f"note: {path}: {note}", file=sys.stderr)


def _load(args, capability: str | None = None):
    """The ``--tokeniser`` of a command, with what the loader inferred printed to stderr; with
    ``capability``, that view of it (a one-line error when the family lacks it)."""
    from core.families.registry import PRETOKENISERS
    from core.formats.tokeniser_files import load_tokeniser
    from core.tokeniser import require

    override = PRETOKENISERS[args.pretokeniser]() if getattr(args, "pretokeniser", None) else None
    tokeniser = load_tokeniser(args.tokeniser, pretokeniser=override, pattern=getattr(args, "pattern", None))
    _tell_detected(args.tokeniser, tokeniser)
    if capability is None:
        return tokeniser
    return require(tokeniser, capability, f"'{args.command}'")


def cmd_segment(args) -> int:
    tokeniser = _load(args)
    # --text: running text as a whole (BoundlessBPE's supermerges may span words)
    items = [(args.text, args.text)] if args.text is not None else [(word, " " + word) for word in _read_words(args)]
    results = []
    with _Bar("segmenting", "word", total=len(items)) as bar:
        for word, text in items:
            item = {"word": word, "tokens": tokeniser.tokenise(text)}
            if args.trace:
                item["trace"] = tokeniser.trace_text(text).to_json()
            results.append(item)
            bar.advance()
    if args.json:
        json.dump(results, sys.stdout, ensure_ascii=False, indent=1 if args.trace else None)
        print()
        return 0
    for item in results:
        print(item["word"] + "\t" + " ".join(tokeniser.pretokeniser.display(t) for t in item["tokens"]))
        for event in item.get("trace", {}).get("events", ()):
            print(f"  {event['kind']:<10} {event['label']:<32} -> {' '.join(event['tokens'])}")
    return 0


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
    with _naming(args.corpus or args.counts):
        if args.corpus:
            corpus = registry.training_corpus(algorithm, iter_text_lines(args.corpus), args.pretokeniser)
        elif registry.is_counts_file(args.counts):
            corpus = registry.counts_corpus(algorithm, args.counts, args.pretokeniser)
        else:
            corpus = registry.training_corpus(algorithm, load_word_counts(args.counts), args.pretokeniser)
    options = _option_values(args.option)
    checkpoint = _training_checkpoint(args, algorithm, corpus, options)
    try:
        with _Bar(f"training {algorithm}", TRAINING_UNITS.get(algorithm, "type")) as bar:
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


def cmd_train_bpe(args) -> int:
    from core.bpe.trainer import tokeniser_from_training, train_bpe
    from core.formats.corpora import load_word_counts
    from core.formats.tokeniser_files import save_tokeniser
    from core.pipeline import Metaspace, WhitespaceSplit

    marker = MARKERS[args.marker]
    counts = load_word_counts(args.counts)
    pretokeniser = WhitespaceSplit() if marker is None else Metaspace(replacement=marker)
    words = {(marker or "") + word: count for word, count in counts.items()}
    with _Bar("training", "merge") as bar:
        result = train_bpe(words, args.vocab_size, min_frequency=args.min_frequency, progress=bar)
    tokeniser = tokeniser_from_training(result, pretokeniser, name=Path(args.out).stem)
    save_tokeniser(tokeniser, args.out, hf=args.hf)
    print(f"{len(result.merges)} merges, |V| = {tokeniser.vocab_size} -> {args.out}", file=sys.stderr)
    return 0


def cmd_evaluate(args) -> int:
    from core.formats.corpora import load_word_counts
    from core.references.evaluation import evaluate_morphology
    from core.references.files import load_references

    tokeniser = _load(args)
    references = load_references(args.reference)
    if references.rejected:
        print(references.summary(), file=sys.stderr)
    weights = load_word_counts(args.weights) if args.weights else None
    with _Bar("evaluating", "word", total=len(references.entries)) as bar:
        scores = evaluate_morphology(
            tokeniser,
            references.entries,
            weights=weights,
            free=args.free,
            unaligned=args.unaligned,
            progress=bar.advance,
        )
    print(json.dumps(scores.to_json()) if args.json else scores.summary())
    return 0


def cmd_inspect(args) -> int:
    from core.analysis.summary import summarise, summary_lines

    summary = summarise(_load(args))
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    else:
        print("\n".join(summary_lines(summary)))
    return 0


def _check_type(tokeniser, args) -> None:
    """InputError when ``--type`` is not a type, with the types its pretokens are as a hint."""
    if args.type in tokeniser.types:
        return
    guesses = [
        p
        for text in (args.type, " " + args.type)
        for p in tokeniser.pretokeniser.pretokenise(text)
        if p in tokeniser.types
    ]
    hint = f"; did you mean {', '.join(map(excerpt, list(dict.fromkeys(guesses))[:5]))}?" if guesses else ""
    raise InputError(f"type {excerpt(args.type)} is not in the vocabulary{hint}", args.tokeniser)


def _fire_counters(tokeniser, args) -> dict:
    """How often each merge fires on ``--reference`` and ``--corpus`` (those given), by name."""
    from core.analysis.merge_usage import FireCounter
    from core.formats.corpora import iter_text_lines

    counters = {}
    if args.reference:
        words = [e.word for e in _load_reference_entries(args.reference, False)]
        counters["reference"] = FireCounter.from_words(tokeniser, words, "reference")
    if args.corpus:
        counters["corpus"] = FireCounter.from_lines(tokeniser, iter_text_lines(args.corpus), "corpus")
    return counters


def _graph_lines(tokeniser, hood, args, counters: dict, fire_counts: dict | None) -> list[str]:
    """The neighbourhood as text: its types by role, the centre's merges, every merge shown."""

    def fires(merge) -> str:
        if not fire_counts:
            return ""
        return "  fires " + ", ".join(f"{counts.get(merge, 0)}x on the {name}" for name, counts in fire_counts.items())

    cut = f", {len(hood.roles)} of {hood.found}{'+' if hood.more else ''} types" if hood.truncated else ""
    lines = [f"neighbourhood of {args.type!r} (depth {args.depth}, following {args.follow} merges{cut})"]
    for type_, role in hood.roles.items():
        listed = hood.merges_of(type_)
        many = f"  ({len(listed) - 1} alternative{'s' if len(listed) > 2 else ''})" if len(listed) > 1 else ""
        lines.append(f"  {role:<12} d={hood.distances[type_]}  {type_}{many}")
    center_merges = hood.merges_of(hood.center)
    if len(center_merges) > 1:
        lines.append(
            f"merges of {hood.center!r}: {len(center_merges)} (1 primary, {len(center_merges) - 1} alternatives)"
        )
        for merge, primary in center_merges:
            kind = "primary    " if primary else "alternative"
            lines.append(f"  {kind} {merge.rank:>8}  {' + '.join(merge.parts)}{fires(merge)}")
        if tokeniser.ignore_merges and counters:
            whole = ", ".join(f"{c.whole(hood.center)}x on the {name}" for name, c in counters.items())
            lines.append(f"  emitted whole (ignore_merges): {whole}")
    lines.append("merges:")
    for merge in sorted(hood.merges, key=lambda m: m.rank):
        mark = "   (alternative)" if merge in hood.alternatives else ""
        lines.append(
            f"  {merge.rank:>8}  {' + '.join(merge.parts)} -> {merge.result}"
            f"{'   (tuple)' if merge.is_tuple else ''}{mark}{fires(merge)}"
        )
    return lines


def cmd_graph(args) -> int:
    from core.bpe.graph import neighbourhood

    tokeniser = _load(args, "merge_graph")
    _check_type(tokeniser, args)
    counters = _fire_counters(tokeniser, args)
    hood = neighbourhood(
        tokeniser,
        args.type,
        depth=args.depth,
        max_nodes=args.max_nodes,
        siblings_per_parent=args.siblings_per_parent,
        follow=args.follow,
    )
    shown = hood.shown_merges()
    fire_counts = {name: counter.counts(shown) for name, counter in counters.items()} or None
    if not args.json:
        print("\n".join(_graph_lines(tokeniser, hood, args, counters, fire_counts)))
        return 0
    out = hood.to_json(fire_counts)
    out["follow"] = args.follow
    if counters and tokeniser.ignore_merges:
        for entry in out["types"]:
            entry["emitted_whole"] = {name: c.whole(entry["type"]) for name, c in counters.items()}
    print(json.dumps(out, ensure_ascii=False))
    return 0


def _load_reference_entries(path: str, free: bool):
    from core.references.files import load_references

    references = load_references(path)
    if references.rejected:
        print(references.summary(), file=sys.stderr)
    entries = [e for e in references.entries if not free or e.free_morphs is not None]
    if not entries:
        raise InputError("no usable reference entries" + (" with free-morph segmentations" if free else ""), path)
    return entries


def _checked_graph(args):
    """The ``--tokeniser`` as a merge graph; InputError when it breaks the graph's invariants."""
    tokeniser = _load(args, "merge_graph")
    problems = tokeniser.check_invariants()
    if problems:
        raise InputError(
            "the tokeniser breaks the merge-graph invariants: " + "; ".join(map(shorten, problems[:3])), args.tokeniser
        )
    return tokeniser


def _blame_and_evaluation(args) -> tuple[list, list]:
    """(entries blame uses, entries F1 is measured on): the whole reference twice, or with
    ``--holdout`` its two parts."""
    from core.edits.blame import holdout_split

    entries = _load_reference_entries(args.reference, args.free)
    if args.holdout is None:
        return entries, entries
    if not 0 < args.holdout < 1:
        raise InputError(f"--holdout must be a fraction between 0 and 1, got {args.holdout}")
    return holdout_split(entries, args.holdout, args.seed)


def _write_hf(args, tokeniser) -> str | None:
    """Write ``--hf-out`` (if given); the reason when no tokenizer.json can express ``tokeniser``."""
    if not args.hf_out:
        return None
    from core.formats.hf_json import hf_json_problem, tokeniser_to_hf_json

    problem = hf_json_problem(tokeniser)
    if problem is None:
        write_text(args.hf_out, json.dumps(tokeniser_to_hf_json(tokeniser), ensure_ascii=False) + "\n")
    return problem


def _measured_on(args, after, blamed: int) -> str:
    """Which reference the F1 was measured on, and how it relates to the one blame used."""
    excluded = f", {after.excluded} excluded (cannot be aligned)" if after.excluded else ""
    if args.holdout is None:
        return f"on {args.reference} ({after.words} words{excluded}; blame used the same reference)"
    return (
        f"on the held-out {1 - args.holdout:.0%} of {args.reference} ({after.words} words{excluded}; "
        f"blame used the other {blamed} words)"
    )


def _edit_command(args, run_edit) -> int:
    """Shared by knockout and rebpe: load, evaluate before, run, evaluate after, save, report."""
    import time

    from core.formats.corpora import load_word_counts
    from core.formats.tokeniser_files import save_tokeniser
    from core.references.evaluation import evaluate_morphology

    tokeniser = _checked_graph(args)
    entries, evaluation = _blame_and_evaluation(args)
    options = {
        "free": args.free,
        "weights": load_word_counts(args.weights) if args.weights else None,
        "evaluation_entries": evaluation if args.holdout is not None else None,
    }
    before = evaluate_morphology(tokeniser, evaluation, free=args.free, unaligned=args.unaligned)
    started = time.perf_counter()
    run, report = run_edit(tokeniser, entries, options)
    seconds = time.perf_counter() - started
    after = evaluate_morphology(run.tokeniser, evaluation, free=args.free)
    save_tokeniser(run.tokeniser, args.out)
    hf_problem = _write_hf(args, run.tokeniser)
    report = {
        **report,
        "settings": {
            "knockout_unit": args.knockout_unit,
            "blame": args.blame,
            "threshold": args.threshold,
            "hf_out": args.hf_out,
        },
        "evaluated_on": {
            "reference": args.reference,
            "words": after.words,
            "holdout": args.holdout,
            "blame_words": len(entries),
        },
        "vocab_size_before": tokeniser.vocab_size,
        "vocab_size_after": run.tokeniser.vocab_size,
        "before": before.to_json(),
        "after": after.to_json(),
        "seconds": seconds,
        "hf_out_written": bool(args.hf_out) and hf_problem is None,
    }
    if hf_problem is not None:
        report["hf_out_problem"] = hf_problem
    if args.report:
        write_text(args.report, json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    written = ", ".join([args.out] + ([args.hf_out] if args.hf_out and hf_problem is None else []))
    print(
        f"|V| {tokeniser.vocab_size} -> {run.tokeniser.vocab_size}; F1 {before.f1:.4f} -> {after.f1:.4f} "
        f"(Pr {after.precision:.4f}, Re {after.recall:.4f}) {_measured_on(args, after, len(entries))}; "
        f"{seconds:.2f} s -> {written}",
        file=sys.stderr,
    )
    if hf_problem is not None:
        print(
            f"error: {args.hf_out}: not written: {hf_problem} (the project file {args.out} was written)",
            file=sys.stderr,
        )
        return 2
    return 0


def cmd_knockout(args) -> int:
    from core.edits.rebpe import KnockoutConfig, run_knockout

    config = KnockoutConfig(
        threshold=args.threshold,
        min_vocab_size=args.min_vocab_size,
        tuples_once=args.tuples_once,
        cascade=args.cascade,
        unit=args.knockout_unit,
        blame=args.blame,
    )

    def edit(tokeniser, entries, options):
        run = run_knockout(tokeniser, entries, config, **options)
        knocked = run.steps[0].details
        keys = ("merge", "blame", "applications", "type", "merges")
        return run, {
            "knocked_out": [{k: d[k] for k in keys if k in d} for d in knocked],
            "merges_removed": len(run.steps[0].removed),
            "types_removed": len(run.steps[0].types_removed),
        }

    return _edit_command(args, edit)


def cmd_rebpe(args) -> int:
    from core.edits.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig, run_rebpe

    config = ReBPEConfig(
        knockout=KnockoutConfig(threshold=args.threshold, unit=args.knockout_unit, blame=args.blame),
        anneal=AnnealConfig(when="before" if args.anneal else "none"),
        reify=not args.no_reify,
        expand=not args.no_expand,
        max_iterations=args.max_iterations,
        reparation=args.reparation,
    )

    def edit(tokeniser, entries, options):
        # an iteration is slow only on a large reference; ReBPE may stop before the last one
        with _Bar("ReBPE", "iteration", total=args.max_iterations, hidden=len(entries) < BAR_FROM) as bar:
            run = run_rebpe(tokeniser, entries, config, progress=lambda i, step: bar.advance(), **options)
        return run, {"steps": [step.to_json() for step in run.steps]}

    return _edit_command(args, edit)


def cmd_blocked(args) -> int:
    from core.edits.blocked import alternative_lines, find_blocked_merges, summary_lines

    tokeniser = _load(args, "merge_graph")
    words = [e.word for e in _load_reference_entries(args.reference, False)] if args.reference else None
    report = find_blocked_merges(tokeniser, words)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
        return 0
    lines = summary_lines(report)
    print(lines[0])
    for item in report.blocked[: args.limit] if args.limit else report.blocked:
        print(
            f"  rank {item.merge.rank:>10}  {' + '.join(item.merge.parts):<30} [{item.scenario}] "
            f"finds {' '.join(item.limited_tokens)}" + (f"  e.g. {item.example_word}" if item.example_word else "")
        )
    if args.limit and len(report.blocked) > args.limit:
        print(f"  … {len(report.blocked) - args.limit:,} more blocked merges (--limit 0 lists all, --json has all)")
    for line in lines[1:]:
        print(line)
        if line.startswith(f"{report.alternatives:,} alternative"):
            print("  examples (type, the merge that forms it, its alternatives):")
            for row in alternative_lines(report):
                print(row)
    return 0


@contextmanager
def _naming(path: str):
    """Errors raised inside that name no file (e.g. ``<corpus>: empty corpus``) name ``path``."""
    try:
        yield
    except InputError as err:
        if err.source is not None and not err.source.startswith("<"):
            raise
        raise InputError(err.message, path, err.line) from None


def cmd_sample_text(args) -> int:
    from core.formats.samples import running_text

    lines = list(running_text())
    write_text(args.out, "".join(line + "\n" for line in lines))
    print(f"{len(lines):,} lines of English running text (PSF licence) -> {args.out}", file=sys.stderr)
    return 0


def cmd_stats(args) -> int:
    import time

    from core.analysis import corpus_metrics as cm
    from core.analysis.token_stats import corpus_stats, stats_file_json, tokeniser_at
    from core.counting.chunks import corpus_files, fingerprint

    tokeniser = tokeniser_at(args.tokeniser, args.pretokeniser, args.pattern)
    _tell_detected(args.tokeniser, tokeniser)
    files = corpus_files(args.corpus)
    started = time.perf_counter()
    with _Bar("counting tokens", "byte") as bar:
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
    from core.families.registry import PRETOKENISERS

    pretokeniser = PRETOKENISERS[args.pretokeniser]()
    files = corpus_files(args.corpus)
    parts = None if args.dask else checkpoints.parts_folder(args.out)
    if args.dask:
        print("note: a Dask run cannot be resumed: it writes no checkpoint of counted chunks", file=sys.stderr)
    started = time.perf_counter()
    try:
        with _Bar("counting", "byte") as bar:
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


COMMANDS = {
    "inspect": cmd_inspect,
    "segment": cmd_segment,
    "train": cmd_train,
    "train-bpe": cmd_train_bpe,
    "evaluate": cmd_evaluate,
    "graph": cmd_graph,
    "knockout": cmd_knockout,
    "rebpe": cmd_rebpe,
    "blocked": cmd_blocked,
    "sample-text": cmd_sample_text,
    "stats": cmd_stats,
    "count": cmd_count,
}
OUTPUT_OPTIONS = ("out", "json_report", "report", "hf_out")


def _prepare_output(path: str) -> None:
    """Make the missing folders of an output file, then check it can be written there."""
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot make its folder {str(folder)!r}: {err.strerror or err}", path) from None
    check_output_path(path)


def main(argv: list[str] | None = None, prog: str = PROGRAM) -> int:
    """Run one command; ``prog`` is the name the help shows (``python -m core`` passes its own)."""
    args = build_parser(prog).parse_args(argv)
    try:
        for option in OUTPUT_OPTIONS:  # before the work, not after it
            if getattr(args, option, None):
                _prepare_output(getattr(args, option))
        return COMMANDS[args.command](args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
