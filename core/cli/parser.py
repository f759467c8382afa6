"""The command line's arguments: every subcommand, its options with help and defaults, and an
example epilog that runs as pasted from the repository root (shipped files under ``sample_data/``,
outputs under ``out/``).

No paper section (plumbing); the algorithms' sections are cited where an option follows one.
"""

from __future__ import annotations

import argparse

import core

#: the console command ``pip install`` makes; ``python -m core`` is the same program
PROGRAM = "structok"

MARKERS = {"▁": "▁", "Ġ": "Ġ", "_": "_", "none": None}

TOKENISER_HELP = (
    "a tokenizer.json, project JSON, merges.txt (its vocab.json is read from the same folder), "
    "SentencePiece .model, tiktoken rank file, a folder as transformers saves it, or hf:ORG/NAME "
    "from the local Hugging Face cache"
)
REFERENCE_FORMATS = "reference segmentations (tsv word<TAB>morphs, MorphyNet, CELEX, SIGMORPHON)"

NL_4K = "sample_data/tokenisers/nl-bpe-4k-wordfreq.json"
EN_4K = "sample_data/tokenisers/en-bpe-4k-wordfreq.json"
NL_40K = "sample_data/tokenisers/bpe-40k_oscar-nl-clean"
NL_REF = "sample_data/references/nl_morph.tsv"
EN_REF = "sample_data/references/en_morph.tsv"


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Examples kept as written; every optional argument's help ends with its default (flags:
    off), unless the help already says it or there is none to say (``None``: the help says
    what happens instead)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.required or action.default in (None, argparse.SUPPRESS):
            return text
        if action.nargs == 0 and isinstance(action.const, bool):
            return f"{text} (default: {'on' if action.default else 'off'})"
        return text + " (default: %(default)s)"


def _at_least(minimum: int):
    """An argparse type: an integer >= ``minimum``."""

    def integer(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text}")
        return value

    return integer


def _examples(prog: str, *commands: str) -> str:
    return "examples (from the repository root; outputs go to out/):\n" + "\n".join(
        f"  {prog} {command}" for command in commands
    )


def _command(sub, name: str, summary: str, epilog: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=summary, description=summary, epilog=epilog, formatter_class=HelpFormatter)


def _tokeniser_arguments(p: argparse.ArgumentParser) -> None:
    from core.families.registry import PRETOKENISERS

    p.add_argument("--tokeniser", required=True, metavar="PATH", help=TOKENISER_HELP)
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


def _json_flag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--json", action="store_true", help=f"print {what} as JSON instead of text")


def _unaligned_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--unaligned",
        choices=["exclude", "raise"],
        default="exclude",
        help="reference words the tokeniser cannot align (its normalisation changes their length): "
        "exclude them and say how many, or stop with an error",
    )


def _add_inspect(sub, prog: str) -> None:
    p = _command(
        sub,
        "inspect",
        "what a tokeniser file holds: family, sizes, pipeline, specials, unknowns",
        _examples(prog, f"inspect --tokeniser {NL_4K}", f"inspect --tokeniser {NL_40K} --json"),
    )
    _tokeniser_arguments(p)
    _json_flag(p, "the summary")


def _add_segment(sub, prog: str) -> None:
    p = _command(
        sub,
        "segment",
        "tokenise words as they appear in running text (any format --tokeniser reads, SentencePiece .model included)",
        _examples(
            prog,
            f"segment --tokeniser {NL_4K} bruidsjurk standaardtarief",
            "segment --tokeniser sample_data/scenarios/a1_scenario2a.json --trace bruids",
            f"segment --tokeniser {NL_40K} --json --words-file {NL_REF}",
        ),
    )
    _tokeniser_arguments(p)
    _json_flag(p, "a list of {word, tokens}")
    p.add_argument("--trace", action="store_true", help="include every applied merge and the merge trees")
    p.add_argument("--words-file", metavar="PATH", help="a text file of words, whitespace separated (default: none)")
    p.add_argument(
        "--text",
        help="segment this running text as a whole, not word by word: BoundlessBPE supermerges span words "
        "(default: none)",
    )
    p.add_argument(
        "words",
        nargs="*",
        help="words to segment, each as in running text (' ' + word) (default: none; "
        "give words, --words-file or --text)",
    )


def _add_train(sub, prog: str) -> None:
    from core.families.registry import ALGORITHMS, PRETOKENISERS

    p = _command(
        sub,
        "train",
        "train a tokeniser of any family: " + ", ".join(ALGORITHMS),
        _examples(
            prog,
            "sample-text --out out/text.txt",
            "train --algorithm unigram --corpus out/text.txt --vocab-size 2000 --out out/unigram.json",
            "train --algorithm picky --corpus out/text.txt --vocab-size 2000 --option threshold=0.8 "
            "--out out/picky.json --json-report out/picky-report.json",
            "train --algorithm boundless --list-options",
        ),
    )
    p.add_argument(
        "--algorithm",
        required=True,
        choices=list(ALGORITHMS),
        help="; ".join(f"{name}: {description}" for name, (_, _, description) in ALGORITHMS.items()),
    )
    p.add_argument(
        "--list-options",
        action="store_true",
        help="print the --option keys of --algorithm with their defaults and meaning, and exit",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--corpus", metavar="PATH", help="a text file, one document per line (required, or --counts)")
    source.add_argument(
        "--counts",
        metavar="PATH",
        help="a word<TAB>count file, each word as in running text, or a counts .parquet written by count "
        "(required, or --corpus)",
    )
    p.add_argument("--vocab-size", type=int, help="the size of the vocabulary to train (required)")
    p.add_argument("--out", metavar="PATH", help="the trained tokeniser, project JSON (required)")
    p.add_argument(
        "--json-report", metavar="PATH", help="also write the training log and summary as JSON here (default: none)"
    )
    p.add_argument(
        "--pretokeniser",
        choices=list(PRETOKENISERS),
        help="default: boundless for BoundlessBPE, bytelevel (GPT-2) otherwise; a counts .parquet's own "
        "(given, it must be that one)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an algorithm option, VALUE read as JSON when it parses (e.g. threshold=0.8); repeatable; "
        "--algorithm X --list-options lists X's keys (default: the algorithm's own defaults)",
    )
    p.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="bpe and boundless: write the merges so far to DIR every --checkpoint-every seconds and on Ctrl-C; "
        "the same command with the same DIR resumes from there (default: none; other algorithms refuse it)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="seconds between two checkpoints (default: 300)",
    )
    p.set_defaults(usage_error=p.error)


def _add_train_bpe(sub, prog: str) -> None:
    p = _command(
        sub,
        "train-bpe",
        "train BPE on word counts (merges identical to HF BpeTrainer)",
        _examples(
            prog,
            "train-bpe --counts sample_data/counts/en_wordfreq.tsv --vocab-size 2000 --marker Ġ "
            "--out out/en-bpe-2k.json",
            "train-bpe --counts sample_data/counts/nl_wordfreq.tsv --vocab-size 2000 --hf --out out/nl-tokenizer.json",
        ),
    )
    p.add_argument("--counts", required=True, metavar="PATH", help="a word<TAB>count file")
    p.add_argument("--vocab-size", type=int, required=True, help="alphabet + merges, as HF counts it")
    p.add_argument("--marker", choices=list(MARKERS), default="▁", help="word-start marker prepended to each word")
    p.add_argument("--min-frequency", type=int, default=0, help="pairs seen fewer times are never merged")
    p.add_argument("--out", required=True, metavar="PATH", help="the trained tokeniser")
    p.add_argument("--hf", action="store_true", help="write an HF tokenizer.json instead of project JSON")


def _add_evaluate(sub, prog: str) -> None:
    p = _command(
        sub,
        "evaluate",
        "morphological precision, recall and F1 of split positions against a reference",
        _examples(
            prog,
            f"evaluate --tokeniser {NL_4K} --reference {NL_REF}",
            f"evaluate --tokeniser {NL_4K} --reference {NL_REF} --weights sample_data/counts/nl_wordfreq.tsv --json",
        ),
    )
    _tokeniser_arguments(p)
    p.add_argument("--reference", required=True, metavar="PATH", help=REFERENCE_FORMATS)
    p.add_argument(
        "--weights", metavar="PATH", help="word<TAB>count file for frequency weighting (default: every word once)"
    )
    p.add_argument("--free", action="store_true", help="whole-word (free morph) boundaries only")
    _unaligned_argument(p)
    _json_flag(p, "the scores")


def _add_graph(sub, prog: str) -> None:
    p = _command(
        sub,
        "graph",
        "the merge-graph neighbourhood of a type",
        _examples(
            prog,
            f"graph --tokeniser {NL_40K} --type Ġbruids --depth 1",
            f"graph --tokeniser {NL_40K} --type Ġbruids --reference {NL_REF} --json",
        ),
    )
    _tokeniser_arguments(p)
    p.add_argument("--type", required=True, help="the type at the centre, as the vocabulary writes it (e.g. Ġbruids)")
    p.add_argument("--depth", type=_at_least(0), default=2, help="merge steps from the centre")
    p.add_argument(
        "--max-nodes", type=_at_least(1), default=60, help="types kept: the merge tree first, then the nearest"
    )
    p.add_argument(
        "--siblings-per-parent",
        type=_at_least(0),
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
    _json_flag(p, "the neighbourhood")


def _edit_arguments(p: argparse.ArgumentParser) -> None:
    """The options knockout and rebpe share."""
    _tokeniser_arguments(p)
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
    _unaligned_argument(p)
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


def _add_knockout(sub, prog: str) -> None:
    p = _command(
        sub,
        "knockout",
        "BPE-knockout: remove the merges whose blame ratio reaches --threshold [knockout Alg. 1]",
        _examples(
            prog,
            f"knockout --tokeniser {NL_4K} --reference {NL_REF} --out out/nl-knockout.json "
            "--report out/nl-knockout-report.json",
            f"knockout --tokeniser {NL_4K} --reference {NL_REF} --holdout 0.8 --out out/nl-knockout-holdout.json",
        ),
    )
    _edit_arguments(p)
    p.add_argument("--min-vocab-size", type=int, default=0, help="never shrink the vocabulary below this size")
    p.add_argument("--tuples-once", action="store_true", help="count each merge at most once per word")
    p.add_argument("--cascade", action="store_true", help="remove descendants instead of making tuple merges")


def _add_rebpe(sub, prog: str) -> None:
    p = _command(
        sub,
        "rebpe",
        "ReBPE: knockout, reparation, reification (and annealing) until stable [rebpe Alg. 1]",
        _examples(
            prog,
            f"rebpe --tokeniser {EN_4K} --reference {EN_REF} --out out/en-rebpe.json --report out/en-rebpe-report.json",
            f"rebpe --tokeniser {EN_4K} --reference {EN_REF} --anneal --reparation undo --out out/en-rebpe-undo.json",
        ),
    )
    _edit_arguments(p)
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


def _add_blocked(sub, prog: str) -> None:
    p = _command(
        sub,
        "blocked",
        "tuple merges that can never apply, and the types they make unreachable [rebpe App. A.1]",
        _examples(
            prog,
            "blocked --tokeniser sample_data/scenarios/a1_scenario2b_ii.json",
            f"knockout --tokeniser {NL_4K} --reference {NL_REF} --out out/nl-knockout.json",
            f"blocked --tokeniser out/nl-knockout.json --reference {NL_REF} --limit 20",
        ),
    )
    _tokeniser_arguments(p)
    p.add_argument(
        "--reference", metavar="PATH", help="reference file: an example word for each blocked merge (default: none)"
    )
    p.add_argument("--limit", type=_at_least(0), default=200, help="blocked merges listed in the text output (0: all)")
    _json_flag(p, "the whole report")


def _add_sample_text(sub, prog: str) -> None:
    p = _command(
        sub,
        "sample-text",
        "write English running text, one document per line, as a --corpus for train: the reference-manual "
        "topics CPython ships (pydoc_data, about 450 KB; PSF licence)",
        _examples(prog, "sample-text --out out/text.txt"),
    )
    p.add_argument("--out", required=True, metavar="PATH", help="the text file to write")


def _positive_float(text: str) -> float:
    """An argparse type: a number > 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text}")
    return value


def _add_stats(sub, prog: str) -> None:
    p = _command(
        sub,
        "stats",
        "corpus statistics of a tokeniser (token frequencies, Zipf, Rényi efficiency, bytes per token) over a "
        "corpus of any size, counted in chunks in parallel, as a stats.json the distributions page opens",
        _examples(
            prog,
            "sample-text --out out/text.txt",
            f"stats --tokeniser {EN_4K} --corpus out/text.txt --out out/en-stats.json",
            f"stats --tokeniser {NL_40K} --corpus sample_data/references --workers 2 --chunk-mb 0.1 "
            "--out out/nl-stats.json",
        ),
    )
    _tokeniser_arguments(p)
    p.add_argument(
        "--corpus",
        required=True,
        metavar="PATH_OR_GLOB",
        help="a text file (one line tokenised at a time), a folder of them, or a glob (quote it; ** allowed)",
    )
    _counting_engine_arguments(p)
    p.add_argument("--out", required=True, metavar="PATH", help="the stats.json to write")


def _counting_engine_arguments(p: argparse.ArgumentParser) -> None:
    """Where chunks are counted: --workers or --dask, and --chunk-mb."""
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=_at_least(1), help="processes counting chunks (default: all cores)")
    engine.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="count on a Dask cluster instead: local (a LocalCluster here) or tcp://HOST:PORT; the files must "
        "be readable at the same paths by its workers; such a run cannot be resumed (default: no Dask)",
    )
    p.add_argument("--chunk-mb", type=_positive_float, default=16, help="size of the chunks counted apart, in MB")


def _add_count(sub, prog: str) -> None:
    from core.families.registry import PRETOKENISERS

    p = _command(
        sub,
        "count",
        "count the pretokens of a corpus of any size in chunks, in parallel, into a counts.parquet that "
        "train --counts reads (with --sequences also the runs BoundlessBPE's supermerges need [boundless App. B]); "
        "an interrupted run resumes when the same command is run again",
        _examples(
            prog,
            "sample-text --out out/text.txt",
            "count --corpus out/text.txt --workers 2 --chunk-mb 0.1 --out out/counts.parquet",
            "train --algorithm bpe --counts out/counts.parquet --vocab-size 2000 --out out/bpe-counted.json",
            "count --corpus out/text.txt --pretokeniser boundless --out out/boundless-counts.parquet",
            "train --algorithm boundless --counts out/boundless-counts.parquet --vocab-size 1000 "
            "--out out/boundless-counted.json",
        ),
    )
    p.add_argument(
        "--corpus",
        required=True,
        metavar="PATH_OR_GLOB",
        help="a text file (one document per line), a folder of them, or a glob (quote it; ** allowed)",
    )
    p.add_argument(
        "--pretokeniser", choices=list(PRETOKENISERS), default="bytelevel", help="how lines are cut into pretokens"
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
    for add in (
        _add_inspect,
        _add_segment,
        _add_train,
        _add_train_bpe,
        _add_evaluate,
        _add_graph,
        _add_knockout,
        _add_rebpe,
        _add_blocked,
        _add_sample_text,
        _add_stats,
        _add_count,
    ):
        add(sub, prog)
    return parser
