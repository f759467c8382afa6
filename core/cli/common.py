"""What every command group shares: the help formatter and argument builders, whose examples run
as pasted from the repository root (shipped files under ``sample_data/``, outputs under ``out/``),
loading ``--tokeniser`` and ``--reference``, and checking output files before the work starts.

No paper section (plumbing); the algorithms' sections are cited where an option follows one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.cli.progress import ProgressBar
from core.errors import InputError
from core.formats.output_files import check_output_path

#: the console command ``pip install`` makes; ``python -m core`` is the same program
PROGRAM = "structok"

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

#: the options naming files a command writes
OUTPUT_OPTIONS = ("out", "json_report", "report", "hf_out", "id_map")


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


def at_least(minimum: int):
    """An argparse type: an integer >= ``minimum``."""

    def integer(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text}")
        return value

    return integer


def examples(prog: str, *commands: str) -> str:
    return "examples (from the repository root; outputs go to out/):\n" + "\n".join(
        f"  {prog} {command}" for command in commands
    )


def add_command(sub, name: str, summary: str, epilog: str, run) -> argparse.ArgumentParser:
    """The subcommand ``name``, run by ``run(args)``."""
    p = sub.add_parser(name, help=summary, description=summary, epilog=epilog, formatter_class=HelpFormatter)
    p.set_defaults(run=run)
    return p


def add_tokeniser_arguments(p: argparse.ArgumentParser) -> None:
    from core.pipeline.named import CHOICES

    p.add_argument("--tokeniser", required=True, metavar="PATH", help=TOKENISER_HELP)
    p.add_argument(
        "--pretokeniser",
        choices=list(CHOICES),
        help="pre-tokeniser of a merges.txt, instead of the inferred one (default: inferred, and said so)",
    )
    p.add_argument(
        "--pattern",
        help="split pattern of a tiktoken rank file: r50k_base, p50k_base, cl100k_base, "
        "o200k_base, llama3, or a regex (default: detected from the file, and said so)",
    )


def add_json_flag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--json", action="store_true", help=f"print {what} as JSON instead of text")


def add_unaligned_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--unaligned",
        choices=["exclude", "raise"],
        default="exclude",
        help="reference words the tokeniser cannot align (its normalisation changes their length): "
        "exclude them and say how many, or stop with an error",
    )


def tell_detected(path: str, tokeniser) -> None:
    """Print to stderr what the loader inferred about the tokeniser at ``path``."""
    for note in (getattr(tokeniser, "metadata", None) or {}).get("detected", ()):
        print(f"note: {path}: {note}", file=sys.stderr)


def loading(path: str) -> ProgressBar:
    """The progress line while the tokeniser at ``path`` loads (a real one can take seconds)."""
    return ProgressBar(f"loading {path}")


def load_tokeniser_argument(args, capability: str | None = None):
    """The ``--tokeniser`` of a command, with what the loader inferred printed to stderr; with
    ``capability``, that view of it (a one-line error when the family lacks it)."""
    from core.formats.tokeniser_files import load_tokeniser
    from core.pipeline.named import PRETOKENISERS
    from core.tokeniser import require

    override = PRETOKENISERS[args.pretokeniser]() if getattr(args, "pretokeniser", None) else None
    with loading(args.tokeniser):
        tokeniser = load_tokeniser(args.tokeniser, pretokeniser=override, pattern=getattr(args, "pattern", None))
    tell_detected(args.tokeniser, tokeniser)
    if capability is None:
        return tokeniser
    return require(tokeniser, capability, f"'{args.command}'")


def load_reference_entries(path: str, free: bool):
    """The usable entries of a reference file (with ``free``, those with free-morph
    segmentations); what was rejected is summarised on stderr."""
    from core.references.files import load_references

    with ProgressBar(f"reading {path}"):
        references = load_references(path)
    if references.rejected:
        print(references.summary(), file=sys.stderr)
    entries = [e for e in references.entries if not free or e.free_morphs is not None]
    if not entries:
        raise InputError("no usable reference entries" + (" with free-morph segmentations" if free else ""), path)
    return entries


def prepare_outputs(args) -> None:
    """Make the missing folders of each output file, then check it can be written there (an
    ``--hf-out`` that names a folder is made itself)."""
    from core.formats.hf_folder import is_folder_target

    for option in OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if not path:
            continue
        if option == "hf_out" and is_folder_target(path):
            if Path(path).is_file():
                raise InputError("is a file; --hf-out names a folder, or a file ending in .json", path)
            path = str(Path(path) / "tokenizer.json")
        folder = Path(path).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot make its folder {str(folder)!r}: {err.strerror or err}", path) from None
        check_output_path(path)
