"""Commands on a tokeniser's merge graph: ``graph`` (the neighbourhood of a type) and ``blocked``
(tuple merges that can never apply)."""

from __future__ import annotations

import json

from core.cli.common import (
    NL_4K,
    NL_40K,
    NL_REF,
    add_command,
    add_json_flag,
    add_tokeniser_arguments,
    at_least,
    examples,
    load_reference_entries,
    load_tokeniser_argument,
)
from core.cli.progress import ProgressBar
from core.errors import InputError, excerpt


def add_graph(sub, prog: str) -> None:
    p = add_command(
        sub,
        "graph",
        "the merge-graph neighbourhood of a type",
        examples(
            prog,
            f"graph --tokeniser {NL_40K} --type Ġbruids --depth 1",
            f"graph --tokeniser {NL_40K} --type Ġbruids --reference {NL_REF} --json",
        ),
        cmd_graph,
    )
    add_tokeniser_arguments(p)
    p.add_argument("--type", required=True, help="the type at the centre, as the vocabulary writes it (e.g. Ġbruids)")
    p.add_argument("--depth", type=at_least(0), default=2, help="merge steps from the centre")
    p.add_argument(
        "--max-nodes", type=at_least(1), default=60, help="types kept: the merge tree first, then the nearest"
    )
    p.add_argument(
        "--siblings-per-parent",
        type=at_least(0),
        help="half-siblings kept per parent, lowest ranks first (default: all that --max-nodes leaves room for)",
    )
    p.add_argument(
        "--follow",
        choices=["primary", "all"],
        default="primary",
        help="primary: walk the merge that forms each type from its own string; all: every "
        "merge (types formed by several merges, e.g. tiktoken/SentencePiece conversions)",
    )
    p.add_argument(
        "--reference",
        metavar="PATH",
        help="count how often each merge fires on the words of this reference file (default: not counted)",
    )
    p.add_argument(
        "--corpus", metavar="PATH", help="count how often each merge fires on this text file (default: not counted)"
    )
    add_json_flag(p, "the neighbourhood")


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
        words = [e.word for e in load_reference_entries(args.reference, False)]
        counters["reference"] = FireCounter.from_words(tokeniser, words, "reference")
    if args.corpus:
        with ProgressBar(f"counting the merges that fire on {args.corpus}"):
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

    tokeniser = load_tokeniser_argument(args, "merge_graph")
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


def add_blocked(sub, prog: str) -> None:
    p = add_command(
        sub,
        "blocked",
        "tuple merges that can never apply, and the types they make unreachable [rebpe App. A.1]",
        examples(
            prog,
            "blocked --tokeniser sample_data/scenarios/a1_scenario2b_ii.json",
            f"knockout --tokeniser {NL_4K} --reference {NL_REF} --out out/nl-knockout.json",
            f"blocked --tokeniser out/nl-knockout.json --reference {NL_REF} --limit 20",
        ),
        cmd_blocked,
    )
    add_tokeniser_arguments(p)
    p.add_argument(
        "--reference", metavar="PATH", help="reference file: an example word for each blocked merge (default: none)"
    )
    p.add_argument("--limit", type=at_least(0), default=200, help="blocked merges listed in the text output (0: all)")
    add_json_flag(p, "the whole report")


def cmd_blocked(args) -> int:
    from core.edits.blocked import alternative_lines, find_blocked_merges, summary_lines

    tokeniser = load_tokeniser_argument(args, "merge_graph")
    words = [e.word for e in load_reference_entries(args.reference, False)] if args.reference else None
    with ProgressBar("finding the tuple merges that can never apply"):
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
