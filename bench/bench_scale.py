"""Counting and training at scale: our `count` and trainers against HF `tokenizers` and SentencePiece.

What it measures
    The varied corpus of ``scripts/build_scale_corpus.py`` (10 MB shards; ``--sizes`` in MB takes the first
    size/10 shards, linked into a folder of their own). Per size, every run is a separate process, timed
    by wall clock, its peak memory the largest sum of RSS over its process tree (psutil, sampled every
    0.2 s, so Dask's and the pool's workers count):

    * ``count``: ``python -m core count --corpus DIR --pretokeniser bytelevel --workers 2 --out ...``;
      ``count-dask``: the same with ``--dask local`` (a LocalCluster), and whether its counts equal the
      pool's; ``count-boundless``: ``--pretokeniser boundless`` (with the supermerge runs
      [boundless App. B]); ``count-sentencepiece``: the counts Unigram trains on (SentencePiece's own
      preprocessing: spaces collapsed, a dummy prefix, one ``▁word`` a pretoken).
    * ``hf-bpe``: HF ``tokenizers`` ``BpeTrainer`` on the same files, GPT-2's ``ByteLevel`` pre-tokenizer
      (no prefix space), ``initial_alphabet=ByteLevel.alphabet()``, vocabulary ``--vocab-size``.
    * ``bpe``: ``train --algorithm bpe --counts counts.parquet``; its merges against HF's (all equal, or
      the first index where they differ).
    * ``spm-unigram`` / ``unigram``: SentencePiece's unigram trainer on the files (the settings of
      ``bench_unigram.py``, vocabulary + its 3 meta pieces) and ``train --algorithm unigram --counts``
      from those counts with SentencePiece's options (``SENTENCEPIECE``, 0.2.3's loop, its seed
      computed from the counts: ``seed=counted_text``); each tokenises the corpus's held-out sample
      (``heldout.txt``, in no shard; white space runs collapsed as SentencePiece's normaliser does) and
      the token counts are compared.
    * ``boundless``: ``train --algorithm boundless --counts`` from the boundless counts; time, peak
      memory and the supermerge fraction, supermerges / (merges + supermerges), overall and per interval
      of 8,192 operations as the paper's Fig. 3 plots it ([boundless §4]: 31.3 % over a vocabulary of
      131,072, 44.4 % in its last interval; the fraction grows with the vocabulary).

    Targets (printed, never asserted; they are set for 1,000 MB): counting with 2 workers <= 2x HF's BPE
    training; Dask LocalCluster <= 1.3x the pool; BPE <= 2x HF with the same merges; Unigram <= 2x
    SentencePiece with a token count within 1 %; BoundlessBPE under 3,600 s and 16 GB.

How to run (from the repository root; build the corpus first, ~1 GB in ~/.cache)
    python scripts/build_scale_corpus.py
    python bench/bench_scale.py --sizes 50                         # every part on 50 MB
    python bench/bench_scale.py --sizes 50,200,1000 --json scale.json
    python bench/bench_scale.py --sizes 200 --parts count,dask     # some parts only
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, environment, environment_line, load_note, print_table, write_json
from core.families.unigram.options import SENTENCEPIECE

DEFAULT_CORPUS = Path.home() / ".cache" / "structured-tokenisers" / "scale-corpus"
PARTS = ("count", "dask", "hf", "bpe", "unigram", "boundless")
INTERVAL = 8192  # operations per interval in [boundless] Fig. 3
PAPER_FIG3 = "31.3 % of operations up to |V| 131,072; 44.4 % in the last interval"
#: SentencePiece's trainer emulated from the counts (core.families.unigram.options)
UNIGRAM_OPTIONS = {**SENTENCEPIECE, "seed": "counted_text"}
TARGETS = {"count/hf": 2.0, "dask/pool": 1.3, "bpe/hf": 2.0, "unigram/spm": 2.0, "tokens": 0.01}
BOUNDLESS_SECONDS, BOUNDLESS_MB = 3600.0, 16_000.0


@dataclass
class Run:
    """One measured process: wall seconds, peak RSS of its process tree, exit status, its log."""

    size_mb: int
    name: str
    seconds: float = 0.0
    peak_mb: float = 0.0
    returncode: int | None = None
    log: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def tree_rss(proc) -> int:
    import psutil

    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            continue
    return total


def measure(run: Run, command: list[str], log: Path) -> Run:
    """Run ``command`` to its end, sampling the RSS of its process tree every 0.2 s."""
    import psutil

    peak = 0
    with log.open("w", encoding="utf-8") as out:
        start = time.perf_counter()
        proc = psutil.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        while proc.poll() is None:
            peak = max(peak, tree_rss(proc))
            time.sleep(0.2)
        run.seconds = time.perf_counter() - start
    run.peak_mb, run.returncode, run.log = peak / 1e6, proc.returncode, str(log)
    status = "ok" if run.ok else f"FAILED (exit {run.returncode}; see {log})"
    print(f"# {run.size_mb} MB {run.name}: {run.seconds:.1f} s, peak {run.peak_mb:,.0f} MB, {status}", flush=True)
    return run


class Bench:
    """The runs of one size: each part's command, and what the parts share (counts, HF merges)."""

    def __init__(self, args: argparse.Namespace, size_mb: int, corpus: Path, work: Path) -> None:
        self.args, self.size = args, size_mb
        self.work = work / f"{size_mb}mb"
        self.work.mkdir(parents=True, exist_ok=True)
        self.data = self.work / "corpus"
        self.files = link_shards(corpus, size_mb, self.data)
        self.runs: dict[str, Run] = {}

    def python(self, name: str, argv: list[str]) -> Run:
        run = measure(Run(self.size, name), [sys.executable, *argv], self.work / f"{name}.log")
        self.runs[name] = run
        return run

    def count(self, pretokeniser: str, *, dask: bool = False) -> Path:
        name = f"count-{pretokeniser}" + ("-dask" if dask else "")
        out = self.work / f"{name}.parquet"
        if name in self.runs:
            return out
        for stale in (out, out.with_name(out.stem + ".sequences.parquet"), out.with_name(out.name + ".parts")):
            shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink(missing_ok=True)
        engine = ["--dask", "local"] if dask else ["--workers", str(self.args.workers)]
        argv = ["-m", "core", "count", "--corpus", str(self.data), "--pretokeniser", pretokeniser, *engine]
        run = self.python(name, [*argv, "--out", str(out)])
        if run.ok:
            run.extra.update(count_figures(out))
        return out

    def train(self, algorithm: str, counts: Path, options: dict | None = None) -> Run:
        out = self.work / f"{algorithm}.json"
        report = self.work / f"{algorithm}-report.json"
        argv = ["-m", "core", "train", "--algorithm", algorithm, "--counts", str(counts)]
        for key, value in (options or {}).items():
            argv += ["--option", f"{key}={json.dumps(value)}"]
        argv += ["--vocab-size", str(self.args.vocab_size), "--out", str(out), "--json-report", str(report)]
        run = self.python(algorithm, argv)
        run.extra["model"], run.extra["report"] = str(out), str(report)
        return run

    def peer(self, kind: str) -> Run:
        out = self.work / ("hf-bpe.json" if kind == "hf" else "spm-unigram")
        argv = [str(Path(__file__).resolve()), "--worker", kind, "--data", str(self.data), "--out", str(out)]
        run = self.python(
            "hf-bpe" if kind == "hf" else "spm-unigram", [*argv, "--vocab-size", str(self.args.vocab_size)]
        )
        run.extra["model"] = str(out) if kind == "hf" else str(out) + ".model"
        return run

    def part_count(self) -> None:
        self.count("bytelevel")

    def part_dask(self) -> None:
        if not dask_available():
            print("# dask: skipped (`count --dask` or the dask extra is not available)")
            return
        pool, dask = self.count("bytelevel"), self.count("bytelevel", dask=True)
        if self.runs["count-bytelevel-dask"].ok and self.runs["count-bytelevel"].ok:
            self.runs["count-bytelevel-dask"].extra["identical"] = same_counts(pool, dask)

    def part_hf(self) -> None:
        self.peer("hf")

    def part_bpe(self) -> None:
        run = self.train("bpe", self.count("bytelevel"))
        hf = self.runs.get("hf-bpe")
        if run.ok and hf is not None and hf.ok:
            run.extra["merges"] = compare_merges(Path(run.extra["model"]), Path(hf.extra["model"]))

    def part_unigram(self) -> None:
        spm_run = self.peer("spm")
        run = self.train("unigram", self.count("sentencepiece"), UNIGRAM_OPTIONS)
        if run.ok and spm_run.ok:
            heldout = held_out_lines(self.args.corpus)
            run.extra["heldout_tokens"] = our_tokens(Path(run.extra["model"]), heldout)
            spm_run.extra["heldout_tokens"] = spm_tokens(Path(spm_run.extra["model"]), heldout)

    def part_boundless(self) -> None:
        run = self.train("boundless", self.count("boundless"))
        if run.ok:
            run.extra.update(supermerge_fractions(Path(run.extra["report"])))


def link_shards(corpus: Path, size_mb: int, folder: Path) -> list[Path]:
    """The first size/shard_mb shards of the corpus, linked into ``folder`` (a corpus of its own)."""
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    n = max(1, round(size_mb / manifest["shard_mb"]))
    shards = [corpus / s["file"] for s in manifest["shards"][:n]]
    if len(shards) < n:
        print(f"# note: {size_mb} MB needs {n} shards; the corpus in {corpus} has {len(shards)}: all of them are used")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for shard in shards:
        (folder / shard.name).symlink_to(shard)
    return shards


def dask_available() -> bool:
    helped = subprocess.run([sys.executable, "-m", "core", "count", "--help"], cwd=ROOT, capture_output=True, text=True)
    probe = subprocess.run([sys.executable, "-c", "import dask.bag, distributed"], capture_output=True)
    return "--dask" in helped.stdout and probe.returncode == 0


def count_figures(path: Path) -> dict:
    """Distinct pretokens (rows), their total, bytes and lines, from the counts file's metadata."""
    import pyarrow.parquet as pq

    meta = pq.read_metadata(path)
    info = json.loads((meta.metadata or {}).get(b"structured_tokenisers", b"{}"))
    return {"distinct_pretokens": meta.num_rows, **{k: info.get(k) for k in ("pretokens", "bytes", "lines")}}


def same_counts(a: Path, b: Path) -> bool:
    import pyarrow.parquet as pq

    ta, tb = (pq.read_table(p, columns=["pretoken", "count"]).sort_by("pretoken") for p in (a, b))
    return ta.equals(tb)


def compare_merges(ours: Path, hf: Path) -> dict:
    """Whether our merges equal HF's; else the index of the first difference and both merges there."""
    mine = [tuple(parts) for _, parts in json.loads(ours.read_text(encoding="utf-8"))["merges"]]
    raw = json.loads(hf.read_text(encoding="utf-8"))["model"]["merges"]
    theirs = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in raw]
    first = next((i for i, (x, y) in enumerate(zip(mine, theirs, strict=False)) if x != y), None)
    if first is None and len(mine) == len(theirs):
        return {"equal": True, "merges": len(mine)}
    at = first if first is not None else min(len(mine), len(theirs))
    return {
        "equal": False,
        "first_difference": at,
        "ours": " ".join(mine[at]) if at < len(mine) else None,
        "hf": " ".join(theirs[at]) if at < len(theirs) else None,
        "merges": [len(mine), len(theirs)],
    }


def held_out_lines(corpus: Path) -> list[str]:
    """The corpus's held-out sample, white space runs collapsed (as SentencePiece's normaliser does)."""
    path = corpus / "heldout.txt"
    if not path.exists():
        sys.exit(f"{path} is missing: rebuild the corpus with scripts/build_scale_corpus.py")
    lines = (" ".join(line.split()) for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def our_tokens(model: Path, lines: list[str]) -> int:
    from core import load_tokeniser

    tokeniser = load_tokeniser(model)
    return sum(len(tokeniser.tokenise(line)) for line in lines)


def spm_tokens(model: Path, lines: list[str]) -> int:
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_file=str(model))
    return sum(len(ids) for ids in processor.encode(lines))


def supermerge_fractions(report: Path) -> dict:
    """Supermerges / (merges + supermerges), overall and per interval of 8,192 such operations."""
    data = json.loads(report.read_text(encoding="utf-8"))
    kinds = [e["kind"] for e in data.get("events", []) if e["kind"] in ("merge", "supermerge")]
    intervals = [kinds[i : i + INTERVAL] for i in range(0, len(kinds), INTERVAL)]
    merges, supers = data.get("merges", 0), data.get("supermerges", 0)
    return {
        "merges": merges,
        "supermerges": supers,
        "deletions": data.get("deletions", 0),
        "supermerge_fraction": supers / max(1, merges + supers),
        "per_interval": [round(chunk.count("supermerge") / len(chunk), 4) for chunk in intervals],
    }


def worker(argv: list[str]) -> int:
    """The peers' training, in a process of its own: ``--worker hf|spm --data DIR --out PATH``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", choices=["hf", "spm"], required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--vocab-size", type=int, required=True)
    args = parser.parse_args(argv)
    files = sorted(str(p) for p in args.data.iterdir())
    if args.worker == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=args.vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
        )
        tokenizer.train(files, trainer)
        tokenizer.save(args.out)
    else:
        from bench.bench_unigram import train_spm

        out = Path(args.out)
        train_spm(",".join(files), args.vocab_size, str(out.parent))
        shutil.move(out.parent / "unigram.model", str(out) + ".model")
        (out.parent / "unigram.vocab").unlink(missing_ok=True)
    return 0


def ratio(a: Run | None, b: Run | None) -> float | None:
    return a.seconds / b.seconds if a and b and a.ok and b.ok and b.seconds > 0 else None


def target_cell(value: float | None, limit: float, against: str) -> str:
    if value is None:
        return ""
    return f"{value:.2f}x {against} (<= {limit:g}: {'met' if value <= limit else 'MISSED'})"


def notes(bench: Bench) -> dict[str, str]:
    """The ratio and verdict column of the table, per run name."""
    r = bench.runs
    cells = {
        "count-bytelevel": target_cell(ratio(r.get("count-bytelevel"), r.get("hf-bpe")), TARGETS["count/hf"], "hf"),
        "count-bytelevel-dask": target_cell(
            ratio(r.get("count-bytelevel-dask"), r.get("count-bytelevel")), TARGETS["dask/pool"], "pool"
        ),
        "bpe": target_cell(ratio(r.get("bpe"), r.get("hf-bpe")), TARGETS["bpe/hf"], "hf"),
        "unigram": target_cell(ratio(r.get("unigram"), r.get("spm-unigram")), TARGETS["unigram/spm"], "spm"),
    }
    if "count-bytelevel-dask" in r and "identical" in r["count-bytelevel-dask"].extra:
        cells["count-bytelevel-dask"] += "; counts " + (
            "identical" if r["count-bytelevel-dask"].extra["identical"] else "DIFFER"
        )
    if "bpe" in r and "merges" in r["bpe"].extra:
        m = r["bpe"].extra["merges"]
        cells["bpe"] += "; merges " + ("= hf" if m["equal"] else f"DIFFER at {m['first_difference']}")
    if "unigram" in r and "heldout_tokens" in r["unigram"].extra and "spm-unigram" in r:
        ours, theirs = r["unigram"].extra["heldout_tokens"], r["spm-unigram"].extra["heldout_tokens"]
        off = ours / theirs - 1
        verdict = "met" if abs(off) <= TARGETS["tokens"] else "MISSED"
        cells["unigram"] += f"; held-out tokens {ours:,} vs {theirs:,} ({off:+.2%}, within 1 %: {verdict})"
    if "boundless" in r and r["boundless"].ok:
        cells["boundless"] = boundless_cell(r["boundless"])
    for name, run in r.items():
        if name.startswith("count") and "distinct_pretokens" in run.extra:
            cells[name] = f"{run.extra['distinct_pretokens']:,} distinct; " + cells.get(name, "")
    return {k: v.strip(" ;") for k, v in cells.items()}


def boundless_cell(run: Run) -> str:
    met = run.seconds < BOUNDLESS_SECONDS and run.peak_mb < BOUNDLESS_MB
    last = (run.extra.get("per_interval") or [0.0])[-1]
    fraction = run.extra.get("supermerge_fraction", 0.0)
    return f"< 3600 s and 16 GB: {'met' if met else 'MISSED'}; supermerges {fraction:.1%} (last interval {last:.1%})"


def report(benches: list[Bench]) -> None:
    rows = []
    for bench in benches:
        cells = notes(bench)
        for name, run in bench.runs.items():
            status = f"{run.seconds:.1f}" if run.ok else "failed"
            rows.append([f"{bench.size} MB {name}", status, f"{run.peak_mb:,.0f}", cells.get(name, "")])
    print_table(["run", "seconds", "peak MB", "ratio / target / notes"], rows)
    print()
    curve = ["count-bytelevel", "bpe", "count-boundless", "boundless"]
    rows = [[f"{b.size} MB", *(scaling_cell(b.runs.get(n)) for n in curve)] for b in benches]
    print("scaling (seconds / peak MB):")
    print_table(["size", *curve], rows)
    print(f"# paper's Fig. 3: {PAPER_FIG3}; ours is for |V| {benches[0].args.vocab_size:,}")


def scaling_cell(run: Run | None) -> str:
    return f"{run.seconds:.0f} s / {run.peak_mb:,.0f} MB" if run and run.ok else ""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return worker(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of build_scale_corpus.py")
    parser.add_argument("--sizes", default="50,200,1000", help="sizes in MB, comma-separated (default 50,200,1000)")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {','.join(PARTS)}")
    parser.add_argument("--vocab-size", type=int, default=32000, help="vocabulary of every trainer (default 32000)")
    parser.add_argument("--workers", type=int, default=2, help="processes of the counting pool (default 2)")
    parser.add_argument("--work", type=Path, help="folder for counts, models and logs (default: a temporary one)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    if unknown := set(parts) - set(PARTS):
        parser.error(f"unknown --parts {sorted(unknown)}; choose from {','.join(PARTS)}")
    if not (args.corpus / "manifest.json").exists():
        parser.error(f"no corpus in {args.corpus}: build it with scripts/build_scale_corpus.py")
    sizes = [int(s) for s in args.sizes.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    env = environment()
    print(environment_line(env))
    if note := load_note():
        print(note)
    benches = []
    for size in sizes:
        bench = Bench(args, size, args.corpus, work)
        for part in (p for p in PARTS if p in parts):  # HF before BPE, so the merges can be compared
            getattr(bench, f"part_{part}")()
        benches.append(bench)
    report(benches)
    write_json(
        args.json,
        {
            "environment": env,
            "corpus": str(args.corpus),
            "vocab_size": args.vocab_size,
            "targets": TARGETS | {"boundless_seconds": BOUNDLESS_SECONDS, "boundless_peak_mb": BOUNDLESS_MB},
            "paper_fig3": PAPER_FIG3,
            "runs": [asdict(run) for bench in benches for run in bench.runs.values()],
        },
    )
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if any("DIFFER" in cell for b in benches for cell in notes(b).values()) else 0


if __name__ == "__main__":
    sys.exit(main())
