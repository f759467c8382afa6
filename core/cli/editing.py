"""Commands that edit a merge graph against a reference and report the F1 before and after:
``knockout`` [knockout Alg. 1] and ``rebpe`` [rebpe Alg. 1]."""

from __future__ import annotations

from core.cli.common import EN_4K, EN_REF, NL_4K, NL_REF, add_command, examples
from core.cli.edit_run import add_edit_arguments, run_edit_command
from core.cli.progress import BAR_FROM, ProgressBar


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
        # an iteration is slow only on a large reference; ReBPE may stop before the last one
        with ProgressBar("ReBPE", "iteration", total=args.max_iterations, hidden=len(entries) < BAR_FROM) as bar:
            run = run_rebpe(tokeniser, entries, config, progress=lambda i, step: bar.advance(), **options)
        return run, {"steps": [step.to_json() for step in run.steps]}

    return run_edit_command(args, edit)
