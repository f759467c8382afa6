"""Command line: ``structok COMMAND ...`` (= ``python -m core COMMAND ...``). Each command group
is one module holding its commands' arguments and behaviour:

- :mod:`core.cli.segmenting`: inspect, segment, evaluate
- :mod:`core.cli.training`: train, train-bpe
- :mod:`core.cli.graphs`: graph, blocked
- :mod:`core.cli.auditing`: audit
- :mod:`core.cli.editing`: knockout, rebpe (their shared run in :mod:`core.cli.edit_run`)
- :mod:`core.cli.corpora`: sample-text, stats, count

Shared plumbing is in :mod:`core.cli.common` (help, shared arguments, loading, output checks) and
:mod:`core.cli.progress` (the progress line a command shows on a terminal once it has run a second).

Errors in the input go to stderr as ``error: FILE:LINE: problem`` with exit code 2. Input files are
checked (regular files within their size limits) and output files (``--out``, ``--report``, ...)
too, their missing folders made, before the work starts; no output may overwrite an input.
"""

from __future__ import annotations

import argparse
import os
import sys

import core
from core.cli import auditing, corpora, editing, explaining, graphs, segmenting, training
from core.cli.common import PROGRAM, HelpFormatter, check_inputs, prepare_outputs
from core.cli.progress import ProgressBar
from core.errors import InputError


def build_parser(prog: str = PROGRAM) -> argparse.ArgumentParser:
    """The parser of every subcommand; ``prog`` is the name the examples and usage lines show."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Structured subword tokenisers: BPE as a merge graph, BPE-knockout, ReBPE,\n"
        "Scaffold-BPE, BoundlessBPE, PickyBPE and Unigram, on real LLM tokenisers.",
        epilog=f"'{PROGRAM}' and 'python -m core' are the same program;\n"
        f"'{prog} COMMAND --help' shows a command's options and examples.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {core.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (  # in the order the help lists them
        segmenting.add_inspect,
        segmenting.add_segment,
        training.add_train,
        training.add_train_bpe,
        segmenting.add_evaluate,
        explaining.add_explain,
        graphs.add_graph,
        editing.add_knockout,
        editing.add_rebpe,
        editing.add_remove,
        graphs.add_blocked,
        auditing.add_audit,
        corpora.add_sample_text,
        corpora.add_stats,
        corpora.add_count,
    ):
        add(sub, prog)
    return parser


def main(argv: list[str] | None = None, prog: str = PROGRAM) -> int:
    """Run one command; ``prog`` is the name the help shows (``python -m core`` passes its own)."""
    args = build_parser(prog).parse_args(argv)
    try:
        prepare_outputs(args, check_inputs(args))  # before the work, not after it
        with ProgressBar(f"{prog} {args.command}"):  # what the command's own progress does not describe
            return args.run(args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as err:  # a file the checks above did not name (e.g. a name too long for the system)
        source = None if err.filename is None else os.fsdecode(err.filename)
        print(f"error: {InputError(err.strerror or str(err), source)}", file=sys.stderr)
        return 2
