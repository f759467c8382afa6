"""Commands that edit a merge graph and report |V| and the F1 before and after: ``knockout``
[knockout Alg. 1] and ``rebpe`` [rebpe Alg. 1] against a reference, ``remove`` for chosen types."""

from __future__ import annotations

from core.cli.common import (
    EN_4K,
    EN_REF,
    NL_4K,
    NL_REF,
    REFERENCE_FORMATS,
    add_command,
    add_tokeniser_arguments,
    at_least,
    examples,
)
from core.cli.edit_run import (
    add_edit_arguments,
    add_export_arguments,
    checked_graph,
    report_outputs,
    run_edit_command,
    settle,
    write_outputs,
)
from core.cli.progress import ProgressBar


def add_knockout(sub, prog: str) -> None:
    p = add_command(
        sub,
        "knockout",
        "BPE-knockout: remove the merges whose blame ratio reaches --threshold [knockout Alg. 1]",
        examples(
            prog,
            f"knockout --tokeniser {NL_4K} --reference {NL_REF} --out out/nl-knockout.json "
            "--report out/nl-knockout-report.json",
            f"knockout --tokeniser {NL_4K} --reference {NL_REF} --holdout 0.8 --out out/nl-knockout-holdout.json",
        ),
        cmd_knockout,
    )
    add_edit_arguments(p)
    p.add_argument("--min-vocab-size", type=int, default=0, help="never shrink the vocabulary below this size")
    p.add_argument("--tuples-once", action="store_true", help="count each merge at most once per word")
    p.add_argument("--cascade", action="store_true", help="remove descendants instead of making tuple merges")


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

    return run_edit_command(args, edit)


def add_rebpe(sub, prog: str) -> None:
    p = add_command(
        sub,
        "rebpe",
        "ReBPE: knockout, reparation, reification (and annealing) until stable [rebpe Alg. 1]",
        examples(
            prog,
            f"rebpe --tokeniser {EN_4K} --reference {EN_REF} --out out/en-rebpe.json --report out/en-rebpe-report.json",
            f"rebpe --tokeniser {EN_4K} --reference {EN_REF} --anneal --reparation undo --out out/en-rebpe-undo.json",
        ),
        cmd_rebpe,
    )
    add_edit_arguments(p)
    p.add_argument("--anneal", action="store_true", help="anneal before the first knockout [rebpe §3.4]")
    p.add_argument("--no-reify", action="store_true", help="skip reification: add no submerges [rebpe Alg. 2]")
    p.add_argument("--no-expand", action="store_true", help="link existing submerges only (backwards compatible)")
    p.add_argument("--max-iterations", type=int, default=100, help="stop after this many iterations if not stable")
    p.add_argument(
        "--reparation",
        choices=["limited", "undo"],
        default="limited",
        help="limited: [rebpe Alg. 2] as written (LIMITEDBPE); undo: the authors' implementation",
    )


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
        run = run_rebpe(tokeniser, entries, config, **options)
        return run, {"steps": [step.to_json() for step in run.steps]}

    return run_edit_command(args, edit)


def add_remove(sub, prog: str) -> None:
    p = add_command(
        sub,
        "remove",
        "remove chosen types, the least frequent on word counts (TrimmedBPE's criterion), or a TrimmedBPE's "
        "trimmed types, keeping the merge graph consistent [knockout Alg. 1]; --hf-out writes what HF loads, "
        "with every kept id",
        examples(
            prog,
            f"remove --tokeniser {EN_4K} --counts sample_data/counts/en_wordfreq.tsv --size 3900 "
            "--out out/en-3900.json --hf-out out/en-3900.json",
            f"remove --tokeniser {EN_4K} --counts sample_data/counts/en_wordfreq.tsv --size 3500 --cascade "
            f"--reference {EN_REF} --out out/en-3500.json --hf-out out/en-3500 --ids compact",
        ),
        cmd_remove,
    )
    add_tokeniser_arguments(p)
    chosen = p.add_mutually_exclusive_group()
    chosen.add_argument(
        "--types",
        metavar="PATH",
        help="the types to remove, one per line, as the vocabulary spells them (default: with a TrimmedBPE "
        "--tokeniser, its trimmed types; else this, or --counts, is required)",
    )
    chosen.add_argument(
        "--counts",
        metavar="PATH",
        help="word<TAB>count file: remove the types of lowest token frequency on it [rebpe §2.1] until |V| "
        "is --size (default: none; see --types)",
    )
    p.add_argument(
        "--size",
        type=at_least(1),
        help="the |V| wanted, specials included; finishing by cascade may remove more (required with --counts)",
    )
    p.add_argument(
        "--cascade", action="store_true", help="remove every type built on a removed type too, instead of tuple merges"
    )
    p.add_argument(
        "--reference", metavar="PATH", help=REFERENCE_FORMATS + "; report the F1 before and after (default: no F1)"
    )
    p.add_argument("--out", required=True, metavar="PATH", help="the edited tokeniser (project JSON)")
    p.add_argument("--report", metavar="PATH", help="also write a JSON report here (default: none)")
    add_export_arguments(p)


def cmd_remove(args) -> int:
    from core.cli.common import load_reference_entries, load_tokeniser_argument
    from core.edits.knockout import knock_out
    from core.edits.removal import check_removable, least_frequent_types
    from core.errors import InputError
    from core.families.trimmed import TrimmedBPE
    from core.formats.corpora import load_word_counts
    from core.references.evaluation import evaluate_morphology

    if (args.counts is None) != (args.size is None):
        raise InputError("--counts and --size go together")
    loaded = load_tokeniser_argument(args)
    tokeniser = checked_graph(args, loaded)
    if args.types:
        types = check_removable(tokeniser, _read_types(args.types), args.types)
    elif args.counts:
        counts = load_word_counts(args.counts)
        with ProgressBar(f"choosing the least frequent types on {args.counts}"):
            types = least_frequent_types(tokeniser, counts, args.size)
    elif isinstance(loaded, TrimmedBPE):  # its merges go instead of decomposing at run time
        types = sorted(loaded.trimmed, key=lambda t: tokeniser.produced_by[t][0].rank)
    else:
        raise InputError("say which types go: --types, --counts with --size, or a TrimmedBPE --tokeniser")
    entries = load_reference_entries(args.reference, False) if args.reference else None

    def score(tok):
        return evaluate_morphology(tok, entries) if entries is not None else None

    with ProgressBar(f"removing {len(types):,} types") as bar:
        edited, edit = knock_out(tokeniser, types, cascade=args.cascade)
        bar.describe("finishing and evaluating the edited tokeniser")
        final, settled, lines = settle(args, tokeniser, edited, score)
        before, after = score(tokeniser), score(final)
        bar.describe(f"writing {args.out}")
        hf_problem = write_outputs(args, final)
    report = {
        "chosen": len(types),
        "types_removed": len(edit.types_removed),
        "cascade": args.cascade,
        "tuple_merges_made": len(edited.tuple_merges),
        **settled,
        "vocab_size_before": tokeniser.vocab_size,
        "vocab_size_after": final.vocab_size,
        **({"before": before.to_json(), "after": after.to_json()} if before is not None else {}),
    }
    summary = (
        f"{len(types)} types chosen, {len(edit.types_removed)} removed"
        f"{' (cascade)' if args.cascade else f', {len(edited.tuple_merges)} tuple merges made'}; "
        f"|V| {tokeniser.vocab_size} -> {final.vocab_size}"
        + (f"; F1 {before.f1:.4f} -> {after.f1:.4f} on {args.reference}" if before is not None else "")
    )
    return report_outputs(args, report, summary, lines, hf_problem)


def _read_types(path: str) -> list[str]:
    """The types of a --types file: one per line (a line's trailing newline only is stripped)."""
    from core.errors import InputError
    from core.formats.corpora import read_bytes
    from core.limits import MAX_TABLE_BYTES

    try:
        text = read_bytes(path, MAX_TABLE_BYTES).decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"cannot read the types: {err}", path) from None
    types = [line.rstrip("\r") for line in text.split("\n")]
    while types and not types[-1]:
        types.pop()
    if not types:
        raise InputError("no types listed (expected one type per line)", path)
    return types
