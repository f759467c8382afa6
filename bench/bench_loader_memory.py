"""What a loaded tokeniser costs in memory: bytes per merge and peak RSS, ours against HF ``tokenizers``.

What it measures
    For each file, in a fresh interpreter each (``--worker``): the resident set size (``VmRSS``)
    after importing and after loading the file and building the segmentation engine (ours:
    ``load_tokeniser(path)`` then one ``tokenise``; HF: ``Tokenizer.from_file``, or
    ``models.BPE.from_file`` for vocab.json + merges.txt), the peak (``VmHWM``) and the seconds
    taken. *Bytes per merge* is (RSS after loading - RSS after imports) / merges: the
    figure to estimate a tokeniser's footprint from its number of merges.

    Files: synthetic GPT-2-style merges.txt + vocab.json pairs made here (GPT-2's own 50,000
    merges, extended with merges of two random short tokens into a new one until the size is
    reached): one of 1,000,000 lines and one of 50 MB (about 3.6 million merges, beyond
    ``core.bpe.merges.MAX_MERGES``: the loader refuses it, and it is measured once as shipped, the
    refusal, and once with the limit lifted, ``--lift-limit``); then the real tokenisers of
    ``scripts/fetch_real_tokenisers.py`` that are cached (GPT-2, Llama 3, Gemma 3, GPT-4o, o200k,
    Mistral v3). HF figures only where HF reads the same file.

How to run (from the repository root; the real tokenisers need the fetch script first)
    python bench/bench_loader_memory.py                 # about 3 minutes, most of it the 50 MB file
    python bench/bench_loader_memory.py --skip-50mb --json memory.json
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, environment, environment_line, load_note, print_table, write_json

REAL = (
    ("gpt2", "merges.txt"),
    ("llama3", "tokenizer.json"),
    ("gemma3", "tokenizer.json"),
    ("gpt4o", "tokenizer.json"),
    ("tiktoken-o200k", "o200k_base.tiktoken"),
    ("mistral-v3", "mistral_instruct_tokenizer_240323.model.v3"),
)


def status_mb(field: str) -> float:
    """``VmRSS`` (resident now) or ``VmHWM`` (the peak) of this process, in MB. Not ``getrusage``:
    its maxrss survives ``exec``, so a worker would inherit the parent's peak."""
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":")) / 1024


def run_worker(side: str, path: Path, lift_limit: bool) -> dict:
    """Load ``path`` on one side in this (fresh) interpreter and report the figures as a dict."""
    if side == "ours":
        import core.bpe.merges
        import core.formats.merges_txt
        from core.errors import InputError
        from core.formats.tokeniser_files import load_tokeniser

        if lift_limit:
            core.bpe.merges.MAX_MERGES = core.formats.merges_txt.MAX_MERGES = 10**9
        base = status_mb("VmRSS")
        started = time.perf_counter()
        try:
            tokeniser = load_tokeniser(path)
            tokeniser.tokenise("Hello world")  # builds the engine
        except InputError as err:
            return {
                "refused": str(err)[:160],
                "seconds": time.perf_counter() - started,
                "peak_mb": status_mb("VmHWM") - base,
            }
        merges = len(tokeniser.merges)
    else:
        from tokenizers import Tokenizer, models

        base = status_mb("VmRSS")
        started = time.perf_counter()
        if path.name == "merges.txt":
            tokeniser = Tokenizer(models.BPE.from_file(str(path.parent / "vocab.json"), str(path)))
        else:
            tokeniser = Tokenizer.from_file(str(path))
        tokeniser.encode("Hello world")
        merges = None
    seconds = time.perf_counter() - started
    return {
        "merges": merges,
        "seconds": seconds,
        "rss_mb": status_mb("VmRSS") - base,
        "peak_mb": status_mb("VmHWM") - base,
    }


def spawn(side: str, path: Path, lift_limit: bool = False) -> dict:
    command = [sys.executable, __file__, "--worker", side, str(path)] + (["--lift-limit"] if lift_limit else [])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1:] or ["?"]}
    return json.loads(done.stdout)


def synthetic_merges(
    folder: Path, *, lines: int | None = None, size: int | None = None, seed_folder: Path | None = None
) -> Path:
    """A merges.txt + vocab.json: GPT-2's (when cached) extended with merges of two random short
    tokens (at most 6 characters) into a new token, until ``lines`` merges or ``size`` bytes."""
    if seed_folder is not None and (seed_folder / "merges.txt").is_file():
        vocab = json.loads((seed_folder / "vocab.json").read_text(encoding="utf-8"))
        merges = (seed_folder / "merges.txt").read_text(encoding="utf-8").splitlines()
    else:
        letters = "abcdefghijklmnopqrstuvwxyzĠ"
        vocab = {ch: i for i, ch in enumerate(letters)}
        merges = ["#version: 0.2"]
    rng = random.Random(0)
    short = [t for t in vocab if len(t) <= 6]
    written = sum(len(line.encode()) + 1 for line in merges)
    while (lines is not None and len(merges) - 1 < lines) or (size is not None and written < size):
        left, right = rng.choice(short), rng.choice(short)
        token = left + right
        if token in vocab:
            continue
        vocab[token] = len(vocab)
        merges.append(f"{left} {right}")
        written += len(left.encode()) + len(right.encode()) + 2
        if len(token) <= 6:
            short.append(token)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "merges.txt").write_text("\n".join(merges) + "\n", encoding="utf-8")
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    return folder / "merges.txt"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-50mb", action="store_true", help="leave out the 50 MB file (about 2 minutes)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    parser.add_argument("--worker", nargs=2, metavar=("SIDE", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--lift-limit", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(run_worker(args.worker[0], Path(args.worker[1]), args.lift_limit)))
        return 0

    sys.path.insert(0, str(ROOT / "scripts"))
    from fetch_real_tokenisers import cache_dir

    cache = cache_dir(None)
    print(environment_line(environment()))
    rows, results = [], []
    with tempfile.TemporaryDirectory() as tmp:
        files = [
            (
                "synthetic 1M lines",
                synthetic_merges(Path(tmp) / "1m", lines=1_000_000, seed_folder=cache / "gpt2"),
                False,
            )
        ]
        if not args.skip_50mb:
            big = synthetic_merges(Path(tmp) / "50mb", size=50_000_000, seed_folder=cache / "gpt2")
            files += [("synthetic 50 MB", big, False), ("synthetic 50 MB, limit lifted", big, True)]
        files += [(name, cache / name / file, False) for name, file in REAL if (cache / name / file).is_file()]
        for label, path, lift in files:
            ours = spawn("ours", path, lift)
            hf = spawn("hf", path) if path.suffix in (".txt", ".json") and not lift else {}
            results.append({"file": label, "bytes": path.stat().st_size, "ours": ours, "hf": hf})
            rows.append(_row(label, path, ours, hf))
            print(f"# {label}: done", file=sys.stderr, flush=True)
    print_table(
        [
            "file",
            "MB",
            "merges",
            "ours s",
            "ours MB",
            "ours peak MB",
            "bytes/merge",
            "HF s",
            "HF MB",
            "HF peak MB",
            "HF bytes/merge",
        ],
        rows,
    )
    print("# MB: RSS grown by loading (+ the engine); peak: VmHWM minus RSS after imports; each in a fresh process")
    note = load_note()
    if note:
        print(note)
    if args.json:
        write_json(args.json, {"environment": environment(), "results": results})
    return 0


def _row(label: str, path: Path, ours: dict, hf: dict) -> list[str]:
    size = path.stat().st_size + ((path.parent / "vocab.json").stat().st_size if path.name == "merges.txt" else 0)
    if "refused" in ours or "failed" in ours:
        why = ours.get("refused") or ours["failed"][0]
        first = [
            label,
            f"{size / 1e6:.0f}",
            f"refused: {why[why.find(': ') + 2 :][:40]}",
            f"{ours.get('seconds', 0):.1f}",
            "-",
            f"{ours.get('peak_mb', 0):.0f}",
            "-",
        ]
    else:
        merges = ours["merges"]
        first = [
            label,
            f"{size / 1e6:.0f}",
            f"{merges:,}",
            f"{ours['seconds']:.1f}",
            f"{ours['rss_mb']:.0f}",
            f"{ours['peak_mb']:.0f}",
            f"{ours['rss_mb'] * 2**20 / merges:.0f}",
        ]
    if "rss_mb" not in hf:
        return [*first, "-", "-", "-", "-"]
    merges = ours.get("merges") or (path.read_bytes().count(b"\n") - 1 if path.name == "merges.txt" else None)
    per_merge = f"{hf['rss_mb'] * 2**20 / merges:.0f}" if merges else "-"
    return [*first, f"{hf['seconds']:.1f}", f"{hf['rss_mb']:.0f}", f"{hf['peak_mb']:.0f}", per_merge]


if __name__ == "__main__":
    sys.exit(main())
