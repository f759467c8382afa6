"""Command line: ``python -m core segment|train|train-bpe|evaluate|graph|knockout|rebpe|blocked ...``.

Errors in the input go to stderr as ``error: FILE:LINE: problem`` with exit code 2; output files
(``--out``, ``--report``, ...) are checked before the work starts.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path

from core.errors import InputError, excerpt, shorten
from core.formats.output_files import check_output_path, write_text

MARKERS = {"▁": "▁", "Ġ": "Ġ", "_": "_", "none": None}


def _progress(total: int, description: str, unit: str = "w"):
    """A tqdm bar on stderr for long work (hidden for small jobs)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit=unit, disable=total < 2000, file=sys.stderr, leave=False)


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


def _load(args, capability: str | None = None):
    """The ``--tokeniser`` of a command, with what the loader inferred printed to stderr; with
    ``capability``, that view of it (a one-line error when the family lacks it)."""
    from core.formats.tokeniser_files import load_tokeniser
    from core.tokeniser import require
    from core.variants.registry import PRETOKENISERS

    override = PRETOKENISERS[args.pretokeniser]() if getattr(args, "pretokeniser", None) else None
    tokeniser = load_tokeniser(args.tokeniser, pretokeniser=override, pattern=getattr(args, "pattern", None))
    for note in (getattr(tokeniser, "metadata", None) or {}).get("detected", ()):
        print(f"note: {args.tokeniser}: {note}", file=sys.stderr)
    if capability is None:
        return tokeniser
    return require(tokeniser, capability, f"'{args.command}'")


def cmd_segment(args) -> int:
    tokeniser = _load(args)
    if args.text is not None:  # running text: BoundlessBPE's supermerges may span words
        items = [(args.text, args.text)]
    else:
        items = [(word, " " + word) for word in _read_words(args)]
    results = []
    with _progress(len(items), "segmenting") as bar:
        for word, text in items:
            item = {"word": word, "tokens": tokeniser.tokenise(text)}
            if args.trace:
                item["trace"] = tokeniser.trace_text(text).to_json()
            results.append(item)
            bar.update()
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


def cmd_train(args) -> int:
    import time

    from core.formats.corpora import iter_text_lines, load_word_counts
    from core.formats.tokeniser_files import save_tokeniser
    from core.variants import registry
    from core.variants.base import TrainingCorpus
    from core.variants.boundless import shortfall

    algorithm = registry.check_algorithm(args.algorithm)
    pretokeniser = (
        registry.PRETOKENISERS[args.pretokeniser]() if args.pretokeniser else registry.default_pretokeniser(algorithm)
    )
    with _naming(args.corpus or args.counts):
        if args.corpus:
            corpus = TrainingCorpus.from_texts(iter_text_lines(args.corpus), pretokeniser)
        else:
            corpus = TrainingCorpus.from_word_counts(load_word_counts(args.counts), pretokeniser)
    options = _option_values(args.option)
    with _progress(args.vocab_size, f"training {algorithm}", unit="type") as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        started = time.perf_counter()
        run = registry.train(algorithm, corpus, args.vocab_size, progress=progress, **options)
        seconds = time.perf_counter() - started
    tokeniser = run.tokeniser
    tokeniser.name = Path(args.out).stem
    save_tokeniser(tokeniser, args.out)
    if args.json_report:
        report = {
            **run.to_json(),
            "seconds": seconds,
            "pretokeniser": pretokeniser.to_spec(),
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
    from core.formats.corpora import load_word_counts
    from core.formats.tokeniser_files import save_tokeniser
    from core.pretokenisers import Metaspace, WhitespaceSplit
    from core.train_bpe import tokeniser_from_training, train_bpe

    marker = MARKERS[args.marker]
    counts = load_word_counts(args.counts)
    pretokeniser = WhitespaceSplit() if marker is None else Metaspace(replacement=marker)
    words = {(marker or "") + word: count for word, count in counts.items()}
    with _progress(args.vocab_size, "training", unit="merge") as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        result = train_bpe(words, args.vocab_size, min_frequency=args.min_frequency, progress=progress)
    tokeniser = tokeniser_from_training(result, pretokeniser, name=Path(args.out).stem)
    save_tokeniser(tokeniser, args.out, hf=args.hf)
    print(f"{len(result.merges)} merges, |V| = {tokeniser.vocab_size} -> {args.out}", file=sys.stderr)
    return 0


def _unaligned_argument(parser) -> None:
    parser.add_argument(
        "--unaligned",
        choices=["exclude", "raise"],
        default="exclude",
        help="reference words the tokeniser cannot align (its normalisation changes their length): "
        "exclude them and say how many (default), or stop with an error",
    )


def cmd_evaluate(args) -> int:
    from core.evaluation import evaluate_morphology
    from core.formats.corpora import load_word_counts
    from core.formats.references import load_references

    tokeniser = _load(args)
    references = load_references(args.reference)
    if references.rejected:
        print(references.summary(), file=sys.stderr)
    weights = load_word_counts(args.weights) if args.weights else None
    with _progress(len(references.entries), "evaluating") as bar:
        scores = evaluate_morphology(
            tokeniser,
            references.entries,
            weights=weights,
            free=args.free,
            unaligned=args.unaligned,
            progress=bar.update,
        )
    print(json.dumps(scores.to_json()) if args.json else scores.summary())
    return 0


def cmd_inspect(args) -> int:
    from core.tokeniser_summary import summarise, summary_lines

    summary = summarise(_load(args))
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    else:
        print("\n".join(summary_lines(summary)))
    return 0


def cmd_graph(args) -> int:
    from core.formats.corpora import iter_text_lines
    from core.graph import neighbourhood
    from core.merge_usage import FireCounter

    tokeniser = _load(args, "merge_graph")
    if args.type not in tokeniser.types:
        guesses = [
            p
            for text in (args.type, " " + args.type)
            for p in tokeniser.pretokeniser.pretokenise(text)
            if p in tokeniser.types
        ]
        hint = f"; did you mean {', '.join(map(excerpt, list(dict.fromkeys(guesses))[:5]))}?" if guesses else ""
        raise InputError(f"type {excerpt(args.type)} is not in the vocabulary{hint}", args.tokeniser)
    counters = {}
    if args.reference:
        words = [e.word for e in _load_reference_entries(args.reference, False)]
        counters["reference"] = FireCounter.from_words(tokeniser, words, "reference")
    if args.corpus:
        counters["corpus"] = FireCounter.from_lines(tokeniser, iter_text_lines(args.corpus), "corpus")
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
    if args.json:
        out = hood.to_json(fire_counts)
        out["follow"] = args.follow
        if counters and tokeniser.ignore_merges:
            for entry in out["types"]:
                entry["emitted_whole"] = {name: c.whole(entry["type"]) for name, c in counters.items()}
        print(json.dumps(out, ensure_ascii=False))
        return 0

    def fires(merge) -> str:
        return (
            "  fires " + ", ".join(f"{counts.get(merge, 0)}x on the {name}" for name, counts in fire_counts.items())
            if fire_counts
            else ""
        )

    cut = f", {len(hood.roles)} of {hood.found}{'+' if hood.more else ''} types" if hood.truncated else ""
    print(f"neighbourhood of {args.type!r} (depth {args.depth}, following {args.follow} merges{cut})")
    for type_, role in hood.roles.items():
        listed = hood.merges_of(type_)
        many = f"  ({len(listed) - 1} alternative{'s' if len(listed) > 2 else ''})" if len(listed) > 1 else ""
        print(f"  {role:<12} d={hood.distances[type_]}  {type_}{many}")
    center_merges = hood.merges_of(hood.center)
    if len(center_merges) > 1:
        print(f"merges of {hood.center!r}: {len(center_merges)} (1 primary, {len(center_merges) - 1} alternatives)")
        for merge, primary in center_merges:
            kind = "primary    " if primary else "alternative"
            print(f"  {kind} {merge.rank:>8}  {' + '.join(merge.parts)}{fires(merge)}")
        if tokeniser.ignore_merges and counters:
            print(
                "  emitted whole (ignore_merges): "
                + ", ".join(f"{c.whole(hood.center)}x on the {name}" for name, c in counters.items())
            )
    print("merges:")
    for merge in sorted(hood.merges, key=lambda m: m.rank):
        mark = "   (alternative)" if merge in hood.alternatives else ""
        print(
            f"  {merge.rank:>8}  {' + '.join(merge.parts)} -> {merge.result}"
            f"{'   (tuple)' if merge.is_tuple else ''}{mark}{fires(merge)}"
        )
    return 0


def _load_reference_entries(path: str, free: bool):
    from core.formats.references import load_references

    references = load_references(path)
    if references.rejected:
        print(references.summary(), file=sys.stderr)
    entries = [e for e in references.entries if not free or e.free_morphs is not None]
    if not entries:
        raise InputError("no usable reference entries" + (" with free-morph segmentations" if free else ""), path)
    return entries


def _edit_command(args, run_edit) -> int:
    """Shared by knockout and rebpe: load, evaluate before, run, evaluate after, save, report."""
    import time

    from core.blame import holdout_split
    from core.evaluation import evaluate_morphology
    from core.formats.corpora import load_word_counts
    from core.formats.tokeniser_files import save_tokeniser

    tokeniser = _load(args, "merge_graph")
    entries = _load_reference_entries(args.reference, args.free)
    problems = tokeniser.check_invariants()
    if problems:
        raise InputError(
            "the tokeniser breaks the merge-graph invariants: " + "; ".join(map(shorten, problems[:3])), args.tokeniser
        )
    evaluation = entries
    if args.holdout is not None:
        if not 0 < args.holdout < 1:
            raise InputError(f"--holdout must be a fraction between 0 and 1, got {args.holdout}")
        entries, evaluation = holdout_split(entries, args.holdout, args.seed)
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
    hf_problem = None
    if args.hf_out:
        from core.formats.hf_json import hf_json_problem, tokeniser_to_hf_json

        hf_problem = hf_json_problem(run.tokeniser)
        if hf_problem is None:
            write_text(args.hf_out, json.dumps(tokeniser_to_hf_json(run.tokeniser), ensure_ascii=False) + "\n")
    report = {
        **report,
        "settings": {
            "knockout_unit": args.knockout_unit,
            "blame": args.blame,
            "threshold": args.threshold,
            "hf_out": args.hf_out,
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
    excluded = f"; {after.excluded} reference words excluded (cannot be aligned)" if after.excluded else ""
    print(
        f"|V| {tokeniser.vocab_size} -> {run.tokeniser.vocab_size}; F1 {before.f1:.4f} -> {after.f1:.4f} "
        f"(Pr {after.precision:.4f}, Re {after.recall:.4f}; {after.words} words{excluded}); {seconds:.2f} s -> {args.out}"
        + (f", {args.hf_out}" if args.hf_out and hf_problem is None else ""),
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
    from core.rebpe import KnockoutConfig, run_knockout

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
    from core.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig, run_rebpe

    config = ReBPEConfig(
        knockout=KnockoutConfig(threshold=args.threshold, unit=args.knockout_unit, blame=args.blame),
        anneal=AnnealConfig(when="before" if args.anneal else "none"),
        reify=not args.no_reify,
        expand=not args.no_expand,
        max_iterations=args.max_iterations,
        reparation=args.reparation,
    )

    def edit(tokeniser, entries, options):
        with _progress(max(args.max_iterations, 2000) if len(entries) >= 2000 else 0, "iterations", "it") as bar:
            run = run_rebpe(tokeniser, entries, config, progress=lambda i, step: bar.update(), **options)
        return run, {"steps": [step.to_json() for step in run.steps]}

    return _edit_command(args, edit)


def cmd_blocked(args) -> int:
    from core.blocked import alternative_lines, find_blocked_merges, summary_lines

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


TOKENISER_HELP = (
    "a tokenizer.json, project JSON, merges.txt (vocab.json beside it), SentencePiece .model, "
    "tiktoken rank file, a folder as transformers saves it, or hf:ORG/NAME from the local HF cache"
)


def _at_least(minimum: int):
    """An argparse type: an integer >= ``minimum``."""

    def integer(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text}")
        return value

    return integer


def _tokeniser_arguments(p: argparse.ArgumentParser) -> None:
    from core.variants.registry import PRETOKENISERS

    p.add_argument("--tokeniser", required=True, help=TOKENISER_HELP)
    p.add_argument(
        "--pretokeniser",
        choices=list(PRETOKENISERS),
        help="pre-tokeniser of a merges.txt, instead of the inferred one (default: inferred, and said so)",
    )
    p.add_argument(
        "--pattern",
        help="split pattern of a tiktoken rank file: r50k_base, p50k_base, cl100k_base, "
        "o200k_base, llama3, or a regex (default: detected from the file, and said so)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m core", description="Structured subword tokenisers: BPE/BTE engine."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("inspect", help="what a tokeniser file holds: family, sizes, pipeline, specials, unknowns")
    _tokeniser_arguments(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("segment", help="tokenise words as they appear in running text")
    _tokeniser_arguments(p)
    p.add_argument("--json", action="store_true", help="print a JSON array of {word, tokens}")
    p.add_argument("--trace", action="store_true", help="include every applied merge and the merge trees")
    p.add_argument("--words-file", help="a text file of words (whitespace separated)")
    p.add_argument("--text", help="segment this running text as a whole (BoundlessBPE supermerges span words)")
    p.add_argument("words", nargs="*")
    p.set_defaults(func=cmd_segment)

    p = sub.add_parser(
        "train", help="train any tokeniser family: bpe, scaffold, picky, boundless, unigram, unigram-fsp"
    )
    p.add_argument("--algorithm", required=True, help="bpe, scaffold, picky, boundless, unigram or unigram-fsp")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", help="a text file; every line is one document")
    source.add_argument("--counts", help="word<TAB>count file (each word as in running text, ' ' + word)")
    p.add_argument("--vocab-size", type=int, required=True)
    p.add_argument("--out", required=True, help="the trained tokeniser (project JSON)")
    p.add_argument("--json-report", help="write the training log and summary as JSON here")
    p.add_argument(
        "--pretokeniser",
        choices=["bytelevel", "boundless", "metaspace", "whitespace"],
        help="default: boundless for BoundlessBPE, bytelevel (GPT-2) otherwise",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an algorithm option, e.g. threshold=0.9 (repeatable)",
    )
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("train-bpe", help="train BPE on word counts (merges identical to HF BpeTrainer)")
    p.add_argument("--counts", required=True, help="word<TAB>count file")
    p.add_argument("--vocab-size", type=int, required=True, help="alphabet + merges, as HF counts it")
    p.add_argument("--marker", choices=list(MARKERS), default="▁", help="word-start marker prepended to each word")
    p.add_argument("--min-frequency", type=int, default=0)
    p.add_argument("--out", required=True)
    p.add_argument("--hf", action="store_true", help="write an HF tokenizer.json instead of project JSON")
    p.set_defaults(func=cmd_train_bpe)

    p = sub.add_parser("evaluate", help="morphological precision/recall/F1 of split positions")
    _tokeniser_arguments(p)
    p.add_argument("--reference", required=True, help="reference segmentations (tsv, morphynet, celex, sigmorphon)")
    p.add_argument("--weights", help="word<TAB>count file for frequency weighting")
    p.add_argument("--free", action="store_true", help="whole-word (free morph) boundaries only")
    _unaligned_argument(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("graph", help="the merge-graph neighbourhood of a type")
    _tokeniser_arguments(p)
    p.add_argument("--type", required=True)
    p.add_argument("--depth", type=_at_least(0), default=2)
    p.add_argument(
        "--max-nodes", type=_at_least(1), default=60, help="types kept: the merge tree first, then the nearest"
    )
    p.add_argument(
        "--siblings-per-parent", type=_at_least(0), help="half-siblings kept per parent (lowest ranks first)"
    )
    p.add_argument(
        "--follow",
        choices=["primary", "all"],
        default="primary",
        help="primary: walk the merge that forms each type from its own string (default); all: every "
        "merge (types formed by several merges, e.g. tiktoken/SentencePiece conversions)",
    )
    p.add_argument("--reference", help="reference file: how often each merge fires on its words (as in running text)")
    p.add_argument("--corpus", help="a text file: how often each merge fires on it")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_graph)
    for name, func, text in (
        ("knockout", cmd_knockout, "BPE-knockout: remove merges with blame ratio >= threshold"),
        ("rebpe", cmd_rebpe, "ReBPE: knockout, reparation, reification (and annealing) until stable"),
    ):
        p = sub.add_parser(name, help=text)
        _tokeniser_arguments(p)
        p.add_argument("--reference", required=True)
        p.add_argument("--out", required=True, help="the edited tokeniser (project JSON)")
        p.add_argument("--threshold", type=float, default=0.5)
        p.add_argument("--free", action="store_true", help="blame and evaluate on free-morph boundaries only")
        p.add_argument("--report", help="write a JSON report here")
        p.add_argument("--weights", help="word<TAB>count file: frequency-weighted blame (bpe-knockout App. A.5)")
        p.add_argument("--holdout", type=float, help="blame on this fraction of the reference, evaluate on the rest")
        p.add_argument("--seed", type=int, default=0, help="seed of the holdout split")
        _unaligned_argument(p)
        p.add_argument(
            "--knockout-unit",
            choices=["type", "merge"],
            default="type",
            help="type (default): a type leaves V when B and N summed over all merges forming it reach "
            "the threshold; merge: only a blamed merge goes, and its type stays while another merge "
            "forms it (the same with one merge per type)",
        )
        p.add_argument(
            "--blame",
            choices=["tree", "applied"],
            default="tree",
            help="with ignore_merges, a reference word that is a whole type is blamed through the merges "
            "of its own tree (tree, default) or not at all (applied: applied merges only)",
        )
        p.add_argument(
            "--hf-out",
            metavar="PATH",
            help="also write an HF tokenizer.json (ids kept); exit 2 with the reason when no "
            "tokenizer.json can express the result (tuple merges, shared ranks)",
        )
        p.set_defaults(func=func)
        if name == "knockout":
            p.add_argument("--min-vocab-size", type=int, default=0)
            p.add_argument("--tuples-once", action="store_true", help="count each merge once per word")
            p.add_argument("--cascade", action="store_true", help="remove descendants instead of making tuple merges")
        else:
            p.add_argument("--anneal", action="store_true", help="anneal before the first knockout")
            p.add_argument("--no-reify", action="store_true")
            p.add_argument(
                "--no-expand", action="store_true", help="link existing submerges only (backwards compatible)"
            )
            p.add_argument("--max-iterations", type=int, default=100)
            p.add_argument(
                "--reparation",
                choices=["limited", "undo"],
                default="limited",
                help="limited: Alg. 2 as written (LIMITEDBPE); undo: the authors' implementation",
            )

    p = sub.add_parser("blocked", help="tuple merges that can never apply, and unreachable types")
    _tokeniser_arguments(p)
    p.add_argument("--reference", help="reference file: example words for each blocked merge")
    p.add_argument("--limit", type=_at_least(0), default=200, help="blocked merges listed in the text output (0: all)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_blocked)
    return parser


@contextmanager
def _naming(path: str):
    """Errors raised inside that name no file (e.g. ``<corpus>: empty corpus``) name ``path``."""
    try:
        yield
    except InputError as err:
        if err.source is not None and not err.source.startswith("<"):
            raise
        raise InputError(err.message, path, err.line) from None


OUTPUT_OPTIONS = ("out", "json_report", "report", "hf_out")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        for option in OUTPUT_OPTIONS:  # before the work, not after it
            if getattr(args, option, None):
                check_output_path(getattr(args, option))
        return args.func(args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
