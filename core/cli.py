"""Command line: ``python -m core segment|train-bpe|evaluate|graph ...``.

Errors in the input go to stderr as ``error: FILE:LINE: problem`` with exit code 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.errors import InputError

MARKERS = {"▁": "▁", "Ġ": "Ġ", "_": "_", "none": None}


def _progress(total: int, description: str, unit: str = "w"):
    """A tqdm bar on stderr for long work (hidden for small jobs)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit=unit, disable=total < 2000, file=sys.stderr, leave=False)


def _read_words(args) -> list[str]:
    words = list(args.words)
    if args.words_file:
        from core.formats.corpora import iter_text_lines

        for line in iter_text_lines(args.words_file):
            words.extend(line.split())
    if not words:
        raise InputError("no words given: pass words as arguments or --words-file FILE")
    return words


def cmd_segment(args) -> int:
    from core.formats.tokeniser_files import load_tokeniser

    tokeniser = load_tokeniser(args.tokeniser)
    words = _read_words(args)
    results = []
    with _progress(len(words), "segmenting") as bar:
        for word in words:
            item = {"word": word, "tokens": tokeniser.tokenise_word(word)}
            if args.trace:
                item["trace"] = [tokeniser.trace_pretoken(p).to_json()
                                 for p in tokeniser.pretokeniser.pretokenise(" " + word)]
            results.append(item)
            bar.update()
    if args.json:
        json.dump(results, sys.stdout, ensure_ascii=False, indent=1 if args.trace else None)
        print()
        return 0
    for item in results:
        print(item["word"] + "\t" + " ".join(tokeniser.pretokeniser.display(t) for t in item["tokens"]))
        for pretoken_trace in item.get("trace", ()):
            for step in pretoken_trace["steps"]:
                print(f"  rank {step['rank']:>8}  {step['merge']:<24} -> {' '.join(step['tokens'])}")
    return 0


def cmd_train_bpe(args) -> int:
    from core.formats.corpora import load_word_counts
    from core.formats.tokeniser_files import save_tokeniser
    from core.pretokenisers import Metaspace, WhitespaceSplit
    from core.train_bpe import tokeniser_from_training, train_bpe

    marker = MARKERS[args.marker]
    counts = load_word_counts(args.counts)
    pretokeniser = WhitespaceSplit() if marker is None else Metaspace(replacement=marker)
    words = {(marker or "") + word: count for word, count in counts.items()}
    with _progress(args.vocab_size, "training", unit="merge") as bar:
        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        result = train_bpe(words, args.vocab_size, min_frequency=args.min_frequency, progress=progress)
    tokeniser = tokeniser_from_training(result, pretokeniser, name=Path(args.out).stem)
    save_tokeniser(tokeniser, args.out, hf=args.hf)
    print(f"{len(result.merges)} merges, |V| = {tokeniser.vocab_size} -> {args.out}", file=sys.stderr)
    return 0


def cmd_evaluate(args) -> int:
    from core.evaluation import evaluate_morphology
    from core.formats.corpora import load_word_counts
    from core.formats.references import load_references
    from core.formats.tokeniser_files import load_tokeniser

    tokeniser = load_tokeniser(args.tokeniser)
    references = load_references(args.reference)
    if references.rejected:
        print(references.summary(), file=sys.stderr)
    weights = load_word_counts(args.weights) if args.weights else None
    with _progress(len(references.entries), "evaluating") as bar:
        scores = evaluate_morphology(tokeniser, references.entries, weights=weights, free=args.free,
                                     progress=bar.update)
    if args.json:
        print(json.dumps(scores.to_json()))
    else:
        print(f"precision {scores.precision:.4f}  recall {scores.recall:.4f}  F1 {scores.f1:.4f}  "
              f"(tp {scores.tp:g}, fp {scores.fp:g}, fn {scores.fn:g}; {scores.words} words)")
    return 0


def cmd_graph(args) -> int:
    from core.formats.tokeniser_files import load_tokeniser
    from core.graph import neighbourhood

    tokeniser = load_tokeniser(args.tokeniser)
    if args.type not in tokeniser.types:
        guesses = [p for text in (args.type, " " + args.type) for p in tokeniser.pretokeniser.pretokenise(text)
                   if p in tokeniser.types]
        hint = f"; did you mean {', '.join(map(repr, dict.fromkeys(guesses)))}?" if guesses else ""
        raise InputError(f"type {args.type!r} is not in the vocabulary{hint}", args.tokeniser)
    hood = neighbourhood(tokeniser, args.type, depth=args.depth, max_nodes=args.max_nodes)
    if args.json:
        print(json.dumps(hood.to_json(), ensure_ascii=False))
        return 0
    print(f"neighbourhood of {args.type!r} (depth {args.depth}{', truncated' if hood.truncated else ''})")
    for type_, role in hood.roles.items():
        print(f"  {role:<12} d={hood.distances[type_]}  {type_}")
    print("merges:")
    for merge in sorted(hood.merges, key=lambda m: m.rank):
        print(f"  {merge.rank:>8}  {' + '.join(merge.parts)} -> {merge.result}{'   (tuple)' if merge.is_tuple else ''}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="Structured subword tokenisers: BPE/BTE engine.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("segment", help="tokenise words as they appear in running text")
    p.add_argument("--tokeniser", required=True, help="tokenizer.json, project JSON, merges.txt or a folder")
    p.add_argument("--json", action="store_true", help="print a JSON array of {word, tokens}")
    p.add_argument("--trace", action="store_true", help="include every applied merge and the merge trees")
    p.add_argument("--words-file", help="a text file of words (whitespace separated)")
    p.add_argument("words", nargs="*")
    p.set_defaults(func=cmd_segment)

    p = sub.add_parser("train-bpe", help="train BPE on word counts (merges identical to HF BpeTrainer)")
    p.add_argument("--counts", required=True, help="word<TAB>count file")
    p.add_argument("--vocab-size", type=int, required=True, help="alphabet + merges, as HF counts it")
    p.add_argument("--marker", choices=list(MARKERS), default="▁", help="word-start marker prepended to each word")
    p.add_argument("--min-frequency", type=int, default=0)
    p.add_argument("--out", required=True)
    p.add_argument("--hf", action="store_true", help="write an HF tokenizer.json instead of project JSON")
    p.set_defaults(func=cmd_train_bpe)

    p = sub.add_parser("evaluate", help="morphological precision/recall/F1 of split positions")
    p.add_argument("--tokeniser", required=True)
    p.add_argument("--reference", required=True, help="reference segmentations (tsv, morphynet, celex, sigmorphon)")
    p.add_argument("--weights", help="word<TAB>count file for frequency weighting")
    p.add_argument("--free", action="store_true", help="whole-word (free morph) boundaries only")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("graph", help="the merge-graph neighbourhood of a type")
    p.add_argument("--tokeniser", required=True)
    p.add_argument("--type", required=True)
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--max-nodes", type=int, default=60)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_graph)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
