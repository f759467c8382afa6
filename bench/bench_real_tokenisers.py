"""Real LLM tokenisers: our loader and segmentation against each file's reference library.

What it measures
    For every tokeniser that ``scripts/fetch_real_tokenisers.py`` put in its cache (Llama 2/3,
    Gemma 3, Qwen 3, DeepSeek V3, GPT-4o, Claude, gpt-oss, Mistral, Whisper, CLIP, GPT-2, the tiktoken
    encodings, SentencePiece test models), on the 40,000 words of
    ``sample_data/counts/en_wordfreq.tsv``, one word at a time as in running text:

    * ours: ``load_tokeniser(path)`` (+ ``tokeniser.engine`` where there is one, compiling the merge
      tables), then ``tokeniser.tokenise_word(word)`` for each word: (a) cold, the first pass on
      the fresh tokeniser, (b) cached, a second pass;
    * reference, by the manifest's ``reference``: HF ``tokenizers`` (``Tokenizer.from_file``;
      GPT-2's vocab.json + merges.txt as ``models.BPE.from_file`` behind ``ByteLevel``),
      ``sentencepiece`` (``SentencePieceProcessor``) or ``tiktoken`` (an ``Encoding`` from the rank
      file and the manifest's ``pat_str``/``special_tokens``; Tekken's ranks from its JSON):
      ``encode(" " + word)`` one by one (no added special tokens, ``encode_ordinary`` for tiktoken),
      cold and cached as ours, and the batch call over the whole list on a fresh tokeniser
      (``encode_batch`` / ``encode`` of a list / ``encode_ordinary_batch``; all cores).

    Running text: the first ``--lines`` (default 2,000) non-empty lines of
    :func:`core.formats.samples.running_text` (the reference-manual topics every CPython ships),
    one call per line on a freshly loaded tokeniser (cold): ``tokeniser.tokenise(line)`` and the
    reference's ``encode(line)`` (no added special tokens), in µs per line.

    Targets (issue 33, printed next to the ratios, never asserted), where the reference is HF
    ``tokenizers``: load <= 1.5x, cold words and cold running text <= 2x.

    Each side of each tokeniser runs in its own fresh interpreter (``--worker``), so one side's
    heap never slows the other and the peak memory is its own: ``resource.getrusage`` maxrss at the
    end minus maxrss after imports and reading the words (the interpreter's baseline). The number
    of words whose token *count* differs between the two sides is printed for information (a
    correctness check belongs in the tests; the two may differ on purpose, e.g. special tokens).

    A tokeniser that our loader cannot read (yet) shows ``not loaded: <message>``; a reference
    library that is not installed (tiktoken is not in requirements-dev.txt) shows
    ``no reference: <message>``. Figures are the best of ``--repeats`` repetitions (default 1: the
    largest files take a while to load); the targets are printed, never asserted.

How to run (from the repository root, after ``python scripts/fetch_real_tokenisers.py``)
    python bench/bench_real_tokenisers.py                       # every cached tokeniser, about 70 s
    python bench/bench_real_tokenisers.py --only gpt2 --only clip --words 10000
    python bench/bench_real_tokenisers.py --repeats 3 --json real.json
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import importlib.util
import json
import resource
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, environment, environment_line, load_note, print_table, timed, verdict, write_json

WORDS = ROOT / "sample_data" / "counts" / "en_wordfreq.tsv"


def _fetcher():
    spec = importlib.util.spec_from_file_location(
        "fetch_real_tokenisers", ROOT / "scripts" / "fetch_real_tokenisers.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def target(entry: dict, cache: Path) -> Path:
    """What our loader is given: the folder for vocab.json + merges.txt, else the first file."""
    files = [f["file"] for f in entry["files"]]
    folder = cache / entry["name"]
    return folder if "merges.txt" in files else folder / files[0]


def read_words(limit: int) -> list[str]:
    from core.formats.corpora import load_word_counts

    return list(load_word_counts(WORDS))[:limit]


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# -- reference libraries -------------------------------------------------------------------------


def load_reference(entry: dict, path: Path):
    """(encode one text -> tokens, encode a list of texts -> token lists) for the reference."""
    if path.is_dir():
        from tokenizers import Tokenizer, models, pre_tokenizers

        hf = Tokenizer(models.BPE.from_file(str(path / "vocab.json"), str(path / "merges.txt")))
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        return _hf(hf)
    if entry["reference"] == "tokenizers":
        from tokenizers import Tokenizer

        return _hf(Tokenizer.from_file(str(path)))
    if entry["reference"] == "sentencepiece":
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
        return (lambda text: sp.encode(text, out_type=str)), (lambda texts: sp.encode(texts, out_type=str))
    if entry["family"] == "tiktoken":
        import tiktoken

        info = entry.get("tiktoken", {})
        if path.suffix == ".json":  # Mistral's Tekken: ranks and pattern inside the JSON
            tekken = json.loads(path.read_bytes())
            config = tekken["config"]
            n = config["default_vocab_size"] - config["default_num_special_tokens"]
            ranks = {base64.b64decode(v["token_bytes"]): v["rank"] for v in tekken["vocab"][:n]}
            info = {"pat_str": config["pattern"], "special_tokens": {}}
        else:
            from tiktoken.load import load_tiktoken_bpe

            ranks = load_tiktoken_bpe(str(path))
        enc = tiktoken.Encoding(
            entry["name"], pat_str=info["pat_str"], mergeable_ranks=ranks, special_tokens=info.get("special_tokens", {})
        )
        return enc.encode_ordinary, enc.encode_ordinary_batch
    raise ValueError(f"no reference loader for {entry['reference']!r}")


def _hf(hf):
    return (
        (lambda text: hf.encode(text, add_special_tokens=False).tokens),
        (lambda texts: [e.tokens for e in hf.encode_batch(texts, add_special_tokens=False)]),
    )


# -- one side of one tokeniser, in a fresh interpreter -------------------------------------------


def read_lines(limit: int) -> list[str]:
    from core.formats.samples import running_text

    return list(islice(running_text(), limit))


def run_worker(side: str, name: str, limit: int, line_limit: int) -> dict:
    fetcher = _fetcher()
    entry = json.loads((fetcher.cache_dir(None) / "manifest.json").read_text(encoding="utf-8"))
    entry = next(e for e in entry["entries"] if e["name"] == name)
    path = target(entry, fetcher.cache_dir(None))
    words = read_words(limit)
    texts = [" " + w for w in words]
    lines = read_lines(line_limit)
    if side == "ours":
        from core.formats.tokeniser_files import load_tokeniser
    else:  # import the library before the baseline, as core is imported on our side
        with contextlib.suppress(ImportError):  # reported by load_reference
            importlib.import_module(
                {"tokenizers": "tokenizers", "sentencepiece": "sentencepiece"}.get(entry["reference"], "tiktoken")
            )
    base = maxrss_mb()
    out: dict = {"baseline_mb": base}
    try:
        if side == "ours":

            def load():
                tokeniser = load_tokeniser(path)
                getattr(tokeniser, "engine", None)  # compile the merge tables now, as part of loading
                return tokeniser

            out["load"], tokeniser = timed(load)
            one = tokeniser.tokenise_word
            out["cold"], tokens = timed(lambda: [one(w) for w in words])
            out["cached"], _ = timed(lambda: [one(w) for w in words])
            del tokeniser, one
            _, encode_text = timed(lambda: load().tokenise)
            out["text"], text_tokens = timed(lambda: [encode_text(line) for line in lines])
        else:
            out["load"], (one, _) = timed(lambda: load_reference(entry, path))
            out["cold"], tokens = timed(lambda: [one(t) for t in texts])
            out["cached"], _ = timed(lambda: [one(t) for t in texts])
            _, (_, fresh_batch) = timed(lambda: load_reference(entry, path))
            out["batch"], _ = timed(lambda: fresh_batch(texts))
            _, (encode_text, _) = timed(lambda: load_reference(entry, path))
            out["text"], text_tokens = timed(lambda: [encode_text(line) for line in lines])
    except Exception as err:
        # InputError: its message without the file name (the row names the tokeniser)
        out["error"] = getattr(err, "message", None) or f"{type(err).__name__}: {err}"
        return out
    out["lengths"] = [len(t) for t in tokens]
    out["text_lengths"] = [len(t) for t in text_tokens]
    out["peak_mb"] = maxrss_mb() - base
    return out


def spawn(side: str, name: str, limit: int, line_limit: int, timeout: float) -> dict:
    command = [
        sys.executable,
        __file__,
        "--worker",
        side,
        "--only",
        name,
        "--words",
        str(limit),
        "--lines",
        str(line_limit),
    ]
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:g} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": f"worker exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1]}"}
    return json.loads(lines[-1])


def best(reps: list[dict]) -> dict:
    good = [r for r in reps if "error" not in r]
    if not good:
        return reps[0]
    out = dict(good[0])
    for key in ("load", "cold", "cached", "batch", "text", "peak_mb"):
        if key in out:
            out[key] = min(r[key] for r in good)
    return out


# -- table ---------------------------------------------------------------------------------------


def _short(message: str, width: int = 60) -> str:
    message = " ".join(message.split())
    return message if len(message) <= width else message[: width - 1] + "…"


#: issue 33's targets, against HF ``tokenizers``: (what, limit)
TARGETS = {"load": 1.5, "cold": 2.0, "text": 2.0}


def report(results: list[dict], n: int, n_lines: int) -> None:
    def us(seconds, count=n):
        return f"{seconds / count * 1e6:.2f}"

    def ratio(a, b):
        return f"{a / b:.2f}" if b else "n/a"

    load_rows, word_rows, text_rows, target_rows, notes = [], [], [], [], []
    for r in results:
        ours, ref, name, family = r["ours"], r["ref"], r["name"], r["family"]
        if "error" in ours:
            notes.append(f"# {name}: not loaded: {ours['error']}")
        if "error" in ref:
            notes.append(f"# {name}: no reference: {ref['error']}")
        load_rows.append(
            [
                name,
                family,
                f"{ours['load']:.3f}" if "load" in ours and "error" not in ours else "",
                f"{ref['load']:.3f}" if "error" not in ref else "",
                ratio(ours["load"], ref["load"]) if "error" not in ours and "error" not in ref else "",
                f"{ours['peak_mb']:.0f}" if "error" not in ours else "",
                f"{ref['peak_mb']:.0f}" if "error" not in ref else "",
            ]
        )
        if "error" in ours:
            word_rows.append([name, "not loaded: " + _short(ours["error"]), "", "", "", "", "", "", "", ""])
            continue
        row = [name, us(ours["cold"]), "", "", us(ours["cached"]), "", "", "", "", ""]
        text_row = [name, us(ours["text"], n_lines), "", "", ""]
        if "error" not in ref:
            differ = r["count_differs"]
            row = [
                name,
                us(ours["cold"]),
                us(ref["cold"]),
                ratio(ours["cold"], ref["cold"]),
                us(ours["cached"]),
                us(ref["cached"]),
                ratio(ours["cached"], ref["cached"]),
                us(ref["batch"]),
                ratio(ours["cached"], ref["batch"]),
                f"{differ:,}",
            ]
            text_row = [
                name,
                us(ours["text"], n_lines),
                us(ref["text"], n_lines),
                ratio(ours["text"], ref["text"]),
                f"{r['text_count_differs']:,}",
            ]
            if r["reference"] == "tokenizers":
                target_rows.append([name, *(verdict(ours[key] / ref[key], limit) for key, limit in TARGETS.items())])
        word_rows.append(row)
        text_rows.append(text_row)
    print_table(
        ["load and memory", "family", "ours (s)", "ref (s)", "ours/ref", "peak ours (MB)", "peak ref (MB)"], load_rows
    )
    print()
    print_table(
        [
            "per word (µs/word)",
            "cold ours",
            "cold ref",
            "ours/ref",
            "cached ours",
            "cached ref",
            "ours/ref",
            "ref batch",
            "cached/batch",
            "count differs",
        ],
        word_rows,
    )
    print()
    print_table(["running text, cold (µs/line)", "ours", "ref", "ours/ref", "count differs"], text_rows)
    if target_rows:
        print()
        print_table(["issue 33 (vs HF tokenizers)", "load", "cold words", "cold running text"], target_rows)
    print(
        "# ref = the manifest's reference library; batch = its batch call over all words on a fresh "
        "tokeniser (all cores); peak = maxrss minus the interpreter's baseline, each side in its own process; "
        "count differs = words (lines) whose number of tokens differs (information only)"
    )
    for note in notes:
        print(note)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="only this tokeniser (repeatable)")
    parser.add_argument("--words", type=int, default=40_000, help="number of words (default 40,000)")
    parser.add_argument("--lines", type=int, default=2_000, help="lines of running text (default 2,000)")
    parser.add_argument("--repeats", type=int, default=1, help="repetitions, best reported (default 1)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per side and repetition (default 900)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    parser.add_argument("--worker", choices=("ours", "ref"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(run_worker(args.worker, args.only[0], args.words, args.lines)))
        return 0
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    fetcher = _fetcher()
    cache = fetcher.cache_dir(None)
    manifest_path = cache / "manifest.json"
    if not manifest_path.is_file():
        print(f"error: no {manifest_path}; run python scripts/fetch_real_tokenisers.py first", file=sys.stderr)
        return 2
    entries = json.loads(manifest_path.read_text(encoding="utf-8"))["entries"]
    if args.only:
        unknown = set(args.only) - {e["name"] for e in entries}
        if unknown:
            parser.error(f"not in {manifest_path}: {', '.join(sorted(unknown))}")
        entries = [e for e in entries if e["name"] in args.only]
    n = len(read_words(args.words))
    env = environment()
    print(environment_line(env))
    print(
        f"# {n:,} words from {WORDS.relative_to(ROOT)}; {len(entries)} tokenisers from {cache}; "
        f"best of {args.repeats} repetition(s), each side in a fresh interpreter"
    )

    results = []
    for entry in entries:
        started = time.perf_counter()
        reps = {"ours": [], "ref": []}
        for r in range(args.repeats):
            for side in ("ref", "ours") if r % 2 else ("ours", "ref"):
                reps[side].append(spawn(side, entry["name"], n, args.lines, args.timeout))
        ours, ref = best(reps["ours"]), best(reps["ref"])
        differ, text_differ = (
            sum(a != b for a, b in zip(ours[key], ref[key], strict=True)) if key in ours and key in ref else None
            for key in ("lengths", "text_lengths")
        )
        results.append(
            {
                "name": entry["name"],
                "family": entry["family"],
                "reference": entry["reference"],
                "ours": ours,
                "ref": ref,
                "count_differs": differ,
                "text_count_differs": text_differ,
                "repetitions": reps,
            }
        )
        print(f"# {entry['name']}: done in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    print()
    report(results, n, len(read_lines(args.lines)))
    note = load_note()
    if note:
        print(note)
    for r in results:  # keep the JSON small: token counts only as the number of differing words
        for rep in (r["ours"], r["ref"], *r["repetitions"]["ours"], *r["repetitions"]["ref"]):
            rep.pop("lengths", None)
            rep.pop("text_lengths", None)
    write_json(
        args.json,
        {
            "benchmark": "bench_real_tokenisers",
            "environment": env,
            "words": n,
            "repeats": args.repeats,
            "results": results,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
