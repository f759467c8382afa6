"""What ``knockout`` and ``rebpe`` share: their common arguments, and the run around an edit (load
and check the merge graph, evaluate before, edit, evaluate after, save, report)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.cli.common import (
    REFERENCE_FORMATS,
    add_tokeniser_arguments,
    add_unaligned_argument,
    load_reference_entries,
    load_tokeniser_argument,
)
from core.cli.progress import ProgressBar
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
    add_export_arguments(p)


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    """The options of commands that write an edited tokeniser: --hf-out, --finish, --ids, --id-map."""
    p.add_argument(
        "--hf-out",
        metavar="PATH",
        help="also write the result for HF: a folder as transformers saves one (tokenizer.json, and "
        "tokenizer_config.json / special_tokens_map.json from the --tokeniser's folder, ids updated), "
        "or one tokenizer.json when PATH ends in .json; every kept id and special token keeps its id "
        "(default: none)",
    )
    p.add_argument(
        "--finish",
        choices=["cascade", "intermediates", "none"],
        help="settle the tuple merges no tokenizer.json can hold, in --out too: blocked tuples are dropped "
        "(exact), then cascade: the rest go with the types built on them (|V| falls); intermediates: "
        "reification splits them, adding back intermediate types with their old ids (F1 falls); none: "
        "keep them (then --hf-out is refused). The run summary gives the |V| and F1 it cost "
        "(default: cascade with --hf-out, else none)",
    )
    p.add_argument(
        "--ids",
        choices=["keep", "compact"],
        default="keep",
        help="keep: every kept token keeps its id (the gaps of removed types stay); compact: renumber "
        "0..n-1 in id order, in --out and --hf-out, and write the old -> new map to --id-map",
    )
    p.add_argument(
        "--id-map",
        metavar="PATH",
        help="where --ids compact writes the id map (JSON: old_to_new[old id] = new id or null) "
        "(default: id_map.json in the --hf-out folder, else beside --out)",
    )


def checked_graph(args, loaded=None):
    """The ``--tokeniser`` (or its ``loaded`` tokeniser) as a merge graph; InputError when it
    breaks the graph's invariants."""
    from core.tokeniser import require

    if loaded is None:
        tokeniser = load_tokeniser_argument(args, "merge_graph")
    else:
        tokeniser = require(loaded, "merge_graph", f"'{args.command}'")
    problems = [] if _sound(tokeniser) else tokeniser.check_invariants()
    if problems:
        raise InputError(
            "the tokeniser breaks the merge-graph invariants: " + "; ".join(map(shorten, problems[:3])), args.tokeniser
        )
    return tokeniser


def _sound(tokeniser) -> bool:
    """Whether ``tokeniser`` keeps the merge-graph invariants, at C speed: its constructor refused
    merges listed twice, with fewer than two non-empty parts or sharing a rank across types, so
    what :meth:`~core.bpe.model.BTETokeniser.check_invariants` checks beyond that is left: every
    part is a type and no alphabet type is formed by a merge. False sends it to that method,
    which says what is wrong."""
    from itertools import chain

    parts = chain.from_iterable(m.parts for m in tokeniser.merges)
    return tokeniser.types.issuperset(parts) and tokeniser.produced_by.keys().isdisjoint(tokeniser.alphabet)


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


def _finish_method(args) -> str:
    if args.finish is not None:
        return args.finish
    return "cascade" if args.hf_out else "none"


def _id_map_path(args) -> str:
    from pathlib import Path

    from core.formats.hf_folder import is_folder_target

    if args.id_map:
        return args.id_map
    if args.hf_out and is_folder_target(args.hf_out):
        return str(Path(args.hf_out) / "id_map.json")
    return str(Path(args.out).with_suffix("")) + ".id_map.json"


def settle(args, source, edited, score) -> tuple[Any, dict, list[str]]:
    """Finish (--finish) and renumber (--ids) the edited tokeniser: the result, the report's
    fields and the summary lines. ``score(tokeniser)``: its MorphScores, or None without a reference."""
    from core.edits.finishing import finish
    from core.edits.id_compaction import compact_ids

    method = _finish_method(args)
    report: dict[str, Any] = {"finish": method, "ids": args.ids}
    lines = []
    final = edited
    if method != "none" and edited.tuple_merges:
        final, finishing = finish(edited, method)
        before, after = score(edited), score(final)
        report["finishing"] = {
            **finishing.to_json(final.token_ids()),
            "vocab_size_before": edited.vocab_size,
            "vocab_size_after": final.vocab_size,
            **({"f1_before": before.f1, "f1_after": after.f1} if before is not None else {}),
        }
        cost = f"|V| {edited.vocab_size} -> {final.vocab_size}"
        if before is not None:
            cost += f", F1 {before.f1:.4f} -> {after.f1:.4f}"
        lines.append(f"{finishing.summary()}; cost: {cost}")
    if args.ids == "compact":
        final, id_map = compact_ids(final, source)
        path = _id_map_path(args)
        write_text(path, json.dumps(id_map.to_json(), ensure_ascii=False) + "\n")
        report["id_map"] = path
        lines.append(
            f"ids compacted: {id_map.size_before} -> {id_map.size_after} ids, {len(id_map.added)} new; map -> {path}"
        )
    return final, report, lines


def write_outputs(args, tokeniser) -> str | None:
    """Save ``--out`` and ``--hf-out`` (if given); the reason when no tokenizer.json can express
    ``tokeniser`` (then --hf-out is not written)."""
    from core.formats.hf_folder import is_folder_target, source_folder, write_hf_folder
    from core.formats.hf_json import hf_json_problem, tokeniser_to_hf_json
    from core.formats.tokeniser_files import save_tokeniser

    save_tokeniser(tokeniser, args.out)
    if not args.hf_out:
        return None
    problem = hf_json_problem(tokeniser)
    if problem is not None:
        return problem
    if is_folder_target(args.hf_out):
        write_hf_folder(tokeniser, args.hf_out, source_folder(args.tokeniser))
    else:
        write_text(args.hf_out, json.dumps(tokeniser_to_hf_json(tokeniser), ensure_ascii=False) + "\n")
    return None


def report_outputs(args, report: dict, summary: str, lines: list[str], hf_problem: str | None) -> int:
    """Write ``--report``, print the summary and say where the results went; the exit status."""
    report["hf_out_written"] = bool(args.hf_out) and hf_problem is None
    if hf_problem is not None:
        report["hf_out_problem"] = hf_problem
    if args.report:
        write_text(args.report, json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    written = ", ".join([args.out] + ([args.hf_out] if report["hf_out_written"] else []))
    for line in [summary, *lines, f"-> {written}"]:
        print(line, file=sys.stderr)
    if hf_problem is not None:
        hint = "; --finish cascade or intermediates settles tuple merges" if "tuple merge" in hf_problem else ""
        print(
            f"error: {args.hf_out}: not written: {hf_problem} (the project file {args.out} was written{hint})",
            file=sys.stderr,
        )
        return 2
    return 0


def _measured_on(args, after, blamed: int) -> str:
    """Which reference the F1 was measured on, and how it relates to the one blame used."""
    excluded = f", {after.excluded} excluded (cannot be aligned)" if after.excluded else ""
    if args.holdout is None:
        return f"on {args.reference} ({after.words} words{excluded}; blame used the same reference)"
    return (
        f"on the held-out {1 - args.holdout:.0%} of {args.reference} ({after.words} words{excluded}; "
        f"blame used the other {blamed} words)"
    )


#: the name a command's progress line gives its run
RUN_NAMES = {"knockout": "BPE-knockout", "rebpe": "ReBPE"}
#: what each phase of a run does (``core.edits.rebpe.run_rebpe``'s ``on_phase``), for the progress line
PHASE_TEXT = {"tracing": "tracing the reference words"}


def _phase_line(args, bar: ProgressBar):
    """A run's ``on_phase``: the phase and iteration on the progress line."""
    name = RUN_NAMES.get(args.command, args.command)

    def on_phase(phase: str, iteration: int) -> None:
        where = f" iteration {iteration}" if iteration and args.command == "rebpe" else ""
        bar.describe(f"{name}{where}: {PHASE_TEXT.get(phase, phase)}")

    return on_phase


def annealing_notes(args, steps) -> list[str]:
    """What each annealing step looked at and why it added what it did; when it added nothing, that
    the result is what the run gives without annealing."""
    notes = []
    for step in steps:
        if step.annealing is not None:
            same = "" if step.changed else f"; so {args.out} is what {args.command} writes without --anneal"
            notes.append(step.annealing.summary() + same)
    return notes


def run_edit_command(args, run_edit) -> int:
    """Shared by knockout and rebpe: load, evaluate before, run, evaluate after, finish, save, report."""
    import time

    from core.formats.corpora import load_word_counts
    from core.references.evaluation import evaluate_morphology

    tokeniser = checked_graph(args)
    entries, evaluation = _blame_and_evaluation(args)
    weights = load_word_counts(args.weights) if args.weights else None
    # Unweighted, the run traces and scores the evaluation words as evaluate_morphology does
    # (with --unaligned exclude): its scores before and after are the ones printed, not computed again.
    traced = weights is None and args.unaligned == "exclude"
    with ProgressBar("evaluating the tokeniser before the edit") as bar:
        if not traced:
            before = evaluate_morphology(tokeniser, evaluation, free=args.free, unaligned=args.unaligned)
        options = {
            "free": args.free,
            "weights": weights,
            "evaluation_entries": evaluation if args.holdout is not None else None,
            "on_phase": _phase_line(args, bar),
        }
        started = time.perf_counter()
        run, report = run_edit(tokeniser, entries, options)
        seconds = time.perf_counter() - started
        if traced:  # evaluate_morphology says why when no word was scored
            before = run.metrics_before
            if not before.words:
                evaluate_morphology(tokeniser, evaluation, free=args.free)

        def score(tok):
            if traced and tok is run.tokeniser:
                return run.evaluation.scores()
            return evaluate_morphology(tok, evaluation, free=args.free)

        bar.describe("finishing and evaluating the edited tokeniser")
        final, settled, lines = settle(args, tokeniser, run.tokeniser, score)
        after = score(final)
        bar.describe(f"writing {args.out}")
        hf_problem = write_outputs(args, final)
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
        **settled,
        "vocab_size_before": tokeniser.vocab_size,
        "vocab_size_after": final.vocab_size,
        "before": before.to_json(),
        "after": after.to_json(),
        "seconds": seconds,
    }
    summary = (
        f"|V| {tokeniser.vocab_size} -> {final.vocab_size}; F1 {before.f1:.4f} -> {after.f1:.4f} "
        f"(Pr {after.precision:.4f}, Re {after.recall:.4f}) {_measured_on(args, after, len(entries))}; "
        f"{seconds:.2f} s"
    )
    return report_outputs(args, report, summary, annealing_notes(args, run.steps) + lines, hf_problem)
