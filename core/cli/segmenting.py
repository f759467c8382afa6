"""Commands that read a tokeniser and segment with it: ``inspect``, ``segment``, ``evaluate``."""

from __future__ import annotations

import json
import sys

from core.cli.common import (
    NL_4K,
    NL_40K,
    NL_REF,
    REFERENCE_FORMATS,
    add_command,
    add_json_flag,
    add_tokeniser_arguments,
    add_unaligned_argument,
    examples,
    load_tokeniser_argument,
)
from core.cli.progress import ProgressBar
from core.errors import InputError


def add_inspect(sub, prog: str) -> None:
    p = add_command(
        sub,
        "inspect",
        "what a tokeniser file holds: family, sizes, pipeline, specials, unknowns",
        examples(prog, f"inspect --tokeniser {NL_4K}", f"inspect --tokeniser {NL_40K} --json"),
        cmd_inspect,
    )
    add_tokeniser_arguments(p)
    add_json_flag(p, "the summary")


def cmd_inspect(args) -> int:
    from core.analysis.summary import summarise, summary_lines

    tokeniser = load_tokeniser_argument(args)
    with ProgressBar("summarising"):
        summary = summarise(tokeniser)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    else:
        print("\n".join(summary_lines(summary)))
    return 0


def add_segment(sub, prog: str) -> None:
    p = add_command(
        sub,
        "segment",
        "tokenise words as they appear in running text (any format --tokeniser reads, SentencePiece .model included)",
        examples(
            prog,
            f"segment --tokeniser {NL_4K} bruidsjurk standaardtarief",
            "segment --tokeniser sample_data/scenarios/a1_scenario2a.json --trace bruids",
            f"segment --tokeniser {NL_40K} --json --words-file {NL_REF}",
        ),
        cmd_segment,
    )
    add_tokeniser_arguments(p)
    add_json_flag(p, "a list of {word, tokens}")
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
        help="words to segment, each as in running text (' ' + word, as tokenise_word does in Python) "
        "(default: none; give words, --words-file or --text)",
    )


def _read_words(args) -> list[str]:
    """The words given as arguments, then those of ``--words-file``."""
    words = list(args.words)
    if args.words_file:
        from core.formats.corpora import iter_text_lines

        for line in iter_text_lines(args.words_file):
            words.extend(line.split())
    if not words:
        raise InputError(
            "no words given: pass words as arguments or --words-file FILE"
            + (" (the file holds none)" if args.words_file else ""),
            args.words_file,
        )
    return words


def cmd_segment(args) -> int:
    tokeniser = load_tokeniser_argument(args)
    # --text: running text as a whole (BoundlessBPE's supermerges may span words)
    items = [(args.text, args.text)] if args.text is not None else [(word, " " + word) for word in _read_words(args)]
    results = []
    with ProgressBar("segmenting", "word", total=len(items)) as bar:
        for word, text in items:
            item = {"word": word, "tokens": tokeniser.tokenise(text)}
            if args.trace:
                item["trace"] = tokeniser.trace_text(text).to_json()
            results.append(item)
            bar.advance()
    if args.json:
        json.dump(results, sys.stdout, ensure_ascii=False, indent=1 if args.trace else None)
        print()
        return 0
    for item in results:
        print(item["word"] + "\t" + " ".join(tokeniser.pretokeniser.display(t) for t in item["tokens"]))
        for event in item.get("trace", {}).get("events", ()):
            print(f"  {event['kind']:<10} {event['label']:<32} -> {' '.join(event['tokens'])}")
    return 0


def add_evaluate(sub, prog: str) -> None:
    p = add_command(
        sub,
        "evaluate",
        "morphological precision, recall and F1 of split positions against a reference",
        examples(
            prog,
            f"evaluate --tokeniser {NL_4K} --reference {NL_REF}",
            f"evaluate --tokeniser {NL_4K} --reference {NL_REF} --weights sample_data/counts/nl_wordfreq.tsv --json",
        ),
        cmd_evaluate,
    )
    add_tokeniser_arguments(p)
    p.add_argument("--reference", required=True, metavar="PATH", help=REFERENCE_FORMATS)
    p.add_argument(
        "--weights", metavar="PATH", help="word<TAB>count file for frequency weighting (default: every word once)"
    )
    p.add_argument("--free", action="store_true", help="whole-word (free morph) boundaries only")
    add_unaligned_argument(p)
    add_json_flag(p, "the scores")


def cmd_evaluate(args) -> int:
    from core.formats.corpora import load_word_counts
    from core.references.evaluation import evaluate_morphology
    from core.references.files import load_references

    tokeniser = load_tokeniser_argument(args)
    references = load_references(args.reference)
    if references.rejected:
        print(references.summary(), file=sys.stderr)
    weights = load_word_counts(args.weights) if args.weights else None
    with ProgressBar("evaluating", "word", total=len(references.entries)) as bar:
        scores = evaluate_morphology(
            tokeniser,
            references.entries,
            weights=weights,
            free=args.free,
            unaligned=args.unaligned,
            progress=bar.advance,
        )
    print(json.dumps(scores.to_json()) if args.json else scores.summary())
    return 0
