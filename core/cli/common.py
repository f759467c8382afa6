"""What every command group shares: the help formatter and argument builders, whose examples run
as pasted from the repository root (shipped files under ``sample_data/``, outputs under ``out/``),
loading ``--tokeniser`` and ``--reference``, and checking output files before the work starts.

No paper section (plumbing); the algorithms' sections are cited where an option follows one.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from core.cli.progress import ProgressBar
from core.errors import InputError
from core.formats.input_files import check_input
from core.formats.output_files import check_output_path
from core.limits import MAX_TABLE_BYTES

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
OUTPUT_OPTIONS = ("out", "json_report", "report", "hf_out", "id_map", "types_out")
#: the options naming files a command reads (a folder's files or a glob's matches for some)
INPUT_OPTIONS = ("tokeniser", "reference", "weights", "counts", "types", "words_file", "corpus")


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


def _input_limit(option: str) -> int | None:
    """The size limit of an input file: none for those read a line at a time."""
    if option == "tokeniser":
        from core.formats.tokeniser_files import MAX_TOKENISER_BYTES

        return MAX_TOKENISER_BYTES
    return None if option in ("words_file", "corpus") else MAX_TABLE_BYTES


def check_inputs(args) -> list[str]:
    """The files the input options name, each checked before the work (:func:`check_input`: a
    regular file within its limit; a FIFO or device could block or never end); a folder's files
    and a corpus glob's matches are listed unchecked (their readers skip what is no file)."""
    from core.counting.chunks import corpus_files
    from core.formats.locations import HF_PREFIX

    files: list[str] = []
    for option in INPUT_OPTIONS:
        path = getattr(args, option, None)
        if not path or path.startswith(HF_PREFIX):
            continue
        if option == "corpus" and (os.path.isdir(path) or not os.path.lexists(path)):
            files += corpus_files(path)
        elif os.path.isdir(path):
            files += [str(file) for file in Path(path).iterdir()]
        else:
            check_input(path, _input_limit(option), "--" + option.replace("_", "-"))
            files.append(path)
    return files


def _identity(path: str | Path) -> tuple[int, int] | None:
    """(device, inode) of an existing file, else None: the same file whatever the path naming it."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def prepare_outputs(args, inputs: Sequence[str] = ()) -> None:
    """Make the missing folders of each output file, then check it can be written there and is
    none of the ``inputs`` (an ``--hf-out`` that names a folder is made itself)."""
    from core.formats.hf_folder import CONFIG, SPECIAL_TOKENS_MAP, is_folder_target

    read = {identity for identity in map(_identity, inputs) if identity is not None}
    for option in OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if not path:
            continue
        targets = [path]
        if option == "hf_out" and is_folder_target(path):
            if Path(path).is_file():
                raise InputError("is a file; --hf-out names a folder, or a file ending in .json", path)
            targets = [str(Path(path) / name) for name in ("tokenizer.json", CONFIG, SPECIAL_TOKENS_MAP)]
            path = targets[0]
        folder = Path(path).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot make its folder {str(folder)!r}: {err.strerror or err}", path) from None
        check_output_path(path)
        for target in targets:
            if _identity(target) in read:
                flag = "--" + option.replace("_", "-")
                raise InputError(f"{flag} names a file this command reads; no output may overwrite an input", target)
        if option == "out" and getattr(args, "command", None) == "count":
            _check_count_side_outputs(path, inputs, read)


def _check_count_side_outputs(out: str, inputs: Sequence[str], read: set[tuple[int, int]]) -> None:
    """InputError when ``count --out OUT`` would write or delete an input beside OUT: its runs file
    (OUT.sequences.parquet) or a file in its parts folder (OUT.parts, deleted once OUT is written)."""
    from core.counting.checkpoints import parts_folder
    from core.counting.count_files import sequences_path

    runs = sequences_path(out)
    if _identity(runs) in read:
        raise InputError(
            "is a file this command reads, where count --out writes its runs; no output may overwrite an input", runs
        )
    parts = Path(parts_folder(out)).resolve()
    for path in inputs:
        if Path(path).resolve().is_relative_to(parts):
            raise InputError(
                f"is in {str(parts)!r}, the folder of chunks count --out keeps and then deletes; "
                "no output may overwrite an input",
                path,
            )
