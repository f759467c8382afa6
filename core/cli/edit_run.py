"""What ``knockout`` and ``rebpe`` share: their common arguments, and the run around an edit (load
and check the merge graph, evaluate before, edit, evaluate after, save, report)."""

from __future__ import annotations

import argparse
import json
import sys

from core.cli.common import (
    REFERENCE_FORMATS,
    add_tokeniser_arguments,
    add_unaligned_argument,
    load_reference_entries,
    load_tokeniser_argument,
)
from core.errors import InputError, shorten
from core.formats.output_files import write_text


def add_edit_arguments(p: argparse.ArgumentParser) -> None:
    """The options knockout and rebpe share."""
    add_tokeniser_arguments(p)
    p.add_argument(
        "--reference",
        required=True,
        metavar="PATH",
        help=REFERENCE_FORMATS + "; blame and the F1 before and after both use it (with --holdout, each its part)",
    )
    p.add_argument("--out", required=True, metavar="PATH", help="the edited tokeniser (project JSON)")
    p.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="knock out a type (or merge) when its blame ratio, blamed / all applications, reaches this "
        "[knockout Alg. 1]",
    )
    p.add_argument("--free", action="store_true", help="blame and evaluate on free-morph boundaries only")
    p.add_argument("--report", metavar="PATH", help="also write a JSON report here (default: none)")
    p.add_argument(
        "--weights",
        metavar="PATH",
        help="word<TAB>count file: frequency-weighted blame [knockout App. A.5] (default: every word once)",
    )
    p.add_argument(
        "--holdout",
        type=float,
        help="blame on this random share of the reference, e.g. 0.8, and evaluate on the held-out rest "
        "(default: blame and evaluate on the whole reference)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the --holdout split")
    add_unaligned_argument(p)
    p.add_argument(
        "--knockout-unit",
        choices=["type", "merge"],
        default="type",
        help="type: a type leaves V when B and N summed over all merges forming it reach the threshold; "
        "merge: only a blamed merge goes, and its type stays while another merge forms it "
        "(the same with one merge per type)",
    )
    p.add_argument(
        "--blame",
        choices=["tree", "applied"],
        default="tree",
        help="with ignore_merges, a reference word that is a whole type is blamed through the merges "
        "of its own tree (tree) or not at all (applied: applied merges only)",
    )
    p.add_argument(
        "--hf-out",
        metavar="PATH",
        help="also write an HF tokenizer.json (ids kept); exit 2 with the reason when no "
        "tokenizer.json can express the result, e.g. tuple merges (default: none)",
    )


def _checked_graph(args):
    """The ``--tokeniser`` as a merge graph; InputError when it breaks the graph's invariants."""
    tokeniser = load_tokeniser_argument(args, "merge_graph")
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

    entries = load_reference_entries(args.reference, args.free)
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


def run_edit_command(args, run_edit) -> int:
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
