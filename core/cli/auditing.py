"""The ``audit`` command: the types a tokeniser's whole pipeline never produces from their own string
(with the cause), and with ``--corpus`` the types a corpus leaves idle (:mod:`core.analysis.audit`).
``--types-out`` writes the listed types a removal can take, for ``remove --types``."""

from __future__ import annotations

import json
import sys

from core.cli.common import (
    EN_4K,
    NL_4K,
    NL_REF,
    add_command,
    add_json_flag,
    add_tokeniser_arguments,
    at_least,
    examples,
    load_tokeniser_argument,
)
from core.cli.progress import ProgressBar
from core.errors import InputError, excerpt


def add_audit(sub, prog: str) -> None:
    from core.analysis.audit import CAUSES

    p = add_command(
        sub,
        "audit",
        "the vocabulary audit: every type that decoding and encoding again does not give back (unreachable "
        "from its own string), with its cause (normaliser, pre-tokeniser, added tokens, byte fallback, partial "
        "UTF-8, merge order [rebpe App. A.1]); with --corpus, the types never emitted there or formed far more "
        "often than emitted",
        examples(
            prog,
            f"audit --tokeniser {EN_4K} --corpus sample_data/references --limit 5",
            f"knockout --tokeniser {NL_4K} --reference {NL_REF} --out out/nl-knockout.json",
            "audit --tokeniser out/nl-knockout.json --cause merge-order --types-out out/unreachable.txt",
            "audit --tokeniser out/nl-knockout.json --json",
        ),
        cmd_audit,
    )
    add_tokeniser_arguments(p)
    p.add_argument(
        "--corpus",
        metavar="PATH",
        help="running text (a file, a folder or a glob): also list the types idle on it (default: none)",
    )
    p.add_argument(
        "--residue-ratio",
        type=float,
        default=10.0,
        help="a type formed at least this many times per emission on --corpus is a residue",
    )
    p.add_argument(
        "--cause",
        action="append",
        choices=list(CAUSES),
        help="list only these causes (repeat the option; default: all)",
    )
    p.add_argument("--limit", type=at_least(0), default=20, help="types listed per cause in the text output (0: all)")
    p.add_argument(
        "--types-out",
        metavar="PATH",
        help="write the listed types a removal can take (formed by merges), one per line, for "
        "'remove --types' (default: none)",
    )
    add_json_flag(p, "one record per listed type (type, id, cause, evidence) and the counts")


def _corpus_lines(corpus: str):
    from core.counting.chunks import corpus_files
    from core.formats.corpora import iter_text_lines

    files = corpus_files(corpus)
    if not files:
        raise InputError("no corpus files match", corpus)
    for file in files:
        yield from iter_text_lines(file)


def _shown(tokeniser, tokens) -> str:
    display = tokeniser.pretokeniser.display
    return " ".join(display(t) for t in tokens) if tokens else "(nothing)"


def _finding_line(tokeniser, finding) -> str:
    ids = ", ".join("-" if i is None else str(i) for i in finding.ids)
    return (
        f"  id {finding.id:>7}  {excerpt(tokeniser.pretokeniser.display(finding.type), 40)}: its text "
        f"{excerpt(finding.text, 40)} encodes to {_shown(tokeniser, finding.tokens)} (ids {ids or '-'})"
    )


def _text_lines(tokeniser, report, limit: int) -> list[str]:
    from core.analysis.audit import CAUSES, IDLE_CAUSES

    lines = [
        f"{report.types_checked:,} types checked in {report.seconds:.1f} s; "
        f"{len(report.unreachable):,} are not produced by their own string"
    ]
    lines += [f"  {CAUSES[cause][0]:<40} {n:>9,}" for cause, n in report.counts().items()]
    for cause, n in report.counts().items():
        label, why = CAUSES[cause]
        lines += ["", f"{label} ({n:,}): {why}"]
        found = [f for f in report.unreachable if f.cause == cause]
        lines += [_finding_line(tokeniser, f) for f in (found[:limit] if limit else found)]
        if limit and n > limit:
            lines.append(f"  … {n - limit:,} more (--limit 0 lists all, --json has all)")
    if report.idle is not None:
        lines += ["", f"on the corpus ({report.corpus_pretokens:,} pretokens):"]
        if report.untraced:
            lines.append(f"  (formed counts leave out {report.untraced:,} pretokens too long to trace)")
        for cause, n in report.idle_counts().items():
            lines.append(f"  {cause:<40} {n:>9,}   {IDLE_CAUSES[cause]}")
        residues = sorted((u for u in report.idle if u.cause == "residue"), key=lambda u: -u.ratio)
        for usage in residues[:limit] if limit else residues:
            lines.append(
                f"  id {usage.id:>7}  {excerpt(tokeniser.pretokeniser.display(usage.type), 40)}: formed "
                f"{usage.formed:,} times, emitted {usage.emitted:,} ({usage.ratio:,.1f} per emission)"
            )
    return lines


def _write_types(tokeniser, report, path: str) -> str:
    """Write the listed types a removal can take; the line saying how many."""
    from core.edits.removal import removable
    from core.tokeniser import has, require

    listed = [f.type for f in report.unreachable] + [u.type for u in report.idle or ()]
    takeable = (
        set(removable(require(tokeniser, "merge_graph", "--types-out"))) if has(tokeniser, "merge_graph") else set()
    )
    # a type holding a line break cannot be a line of the file
    chosen = [t for t in dict.fromkeys(listed) if t in takeable and "\n" not in t and "\r" not in t]
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(t + "\n" for t in chosen)
    return (
        f"{len(chosen):,} of the {len(set(listed)):,} listed types can be removed (merges form them): "
        f"written to {path}; remove them with: remove --tokeniser ... --types {path} --hf-out ..."
    )


def cmd_audit(args) -> int:
    from core.analysis.audit import Audit, audit

    tokeniser = load_tokeniser_argument(args)
    corpus = _corpus_lines(args.corpus) if args.corpus else None
    with ProgressBar("checking every type's own string", "types") as bar:
        report: Audit = audit(tokeniser, corpus, residue_ratio=args.residue_ratio, progress=bar)
    if args.cause:
        wanted = set(args.cause)
        report = Audit(
            report.types_checked,
            tuple(f for f in report.unreachable if f.cause in wanted),
            report.seconds,
            report.idle,
            report.corpus_pretokens,
            report.residue_ratio,
            report.untraced,
        )
    note = _write_types(tokeniser, report, args.types_out) if args.types_out else None
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print("\n".join(_text_lines(tokeniser, report, args.limit)))
    if note:
        print(note, file=sys.stderr)
    return 0
