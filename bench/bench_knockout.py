"""Knockout and ReBPE speed: our engine against the authors' ``bpe-knockout``, same inputs, same run.

What it measures
    One byte-level 40k BPE tokeniser and one reference segmentation file, run through

    * ours, plain BPE-knockout: ``core.edits.rebpe.run_knockout(tokeniser, entries)``;
    * ours, full ReBPE as the authors implement it:
      ``core.edits.rebpe.run_rebpe(tokeniser, entries, ReBPEConfig(reparation="undo"))``;
    * the authors' implementation (``bpe_knockout``, in its own venv ``$PEERS_VENV``) through
      ``shared/tools/run_knockout_peer.py --mode knockout|rebpe --reify FIX_AND_LINK_AND_MAKE``.

    Our time is the whole run: building the traced reference (``TokenisedReference``: aligning and
    segmenting every reference word, with the merge that removed each boundary) plus every phase.
    Loading the tokeniser and reference files is excluded: every repetition runs in a fresh
    interpreter, as the CLI does (so compiling the merge tables is inside the timing, and the heap
    of an earlier repetition does not slow a later one), on a freshly loaded tokeniser and the
    parsed reference entries. The figure is the best (minimum) of ``--repeats`` repetitions; the share spent on the
    initial tracing (the run's time minus the time of its phases, ``StepReport.seconds``) is shown
    next to it.

    The peer's time is the ``"seconds"`` its harness reports per run: the time of the authors'
    ``vocabulariseFromModest`` call (blame + knockout, + reparation/reification for ReBPE; their
    loading, the evaluation before and after and Python start-up are excluded). Its subprocess wall
    time (including importing torch/transformers, loading and evaluation) is printed for
    information only. The peer caches results on disk, so every peer run gets a fresh temporary
    working directory. It runs ``--peer-repeats`` times (default 1: its German ReBPE run takes a
    minute or two); with more, the best is shown.

    Ratios are peer seconds / our seconds. Targets (printed next to them, never asserted): knockout
    at least 25x faster than the peer, full ReBPE at least 40x faster (issue 33).

    Agreement, checked in the same run: the number of merges knocked out per round (and whether the
    sets are identical), |V| after without special tokens (the peer's ``vocab_size_after`` leaves
    them out) and the segmentation of every reference word after the run. The exit status is 1 when
    ours and the peer disagree on any of these, otherwise 0 (also when the peer was not run). Morph
    Pr/Re/F1 after are printed too, for information: the peer's evaluation decodes every byte-level
    token on its own, so on a word with a token that ends inside a multi-byte UTF-8 character
    (``Québecer`` -> ``Qu Ã ©  be cer``) its character offsets drift, and its scores differ from ours
    even when every segmentation is identical; the number of such words is printed.

Inputs
    ``--tokeniser``: the German 40k ``tokenizer.json`` shipped in the ``bpe-knockout`` wheel
    (``$PEERS_VENV/lib/python3.11/site-packages/bpe_knockout/_data/base-models/
    bpe-40k_oscar-de-clean/tokenizer.json``) when it is there, else the shipped Dutch 40k
    (``core.formats.samples.DUTCH_40K``). ``--reference``: ``../shared/data/morphynet_deu.deriv.segs.tsv``
    (18,905 German derivations, relative to the repository root) with the German tokeniser, else
    ``sample_data/references/nl_morph.tsv``. The inputs used are printed.

The peer
    Set ``PEERS_VENV`` to a venv with ``bpe-knockout`` installed as ``shared/tools/README.md``
    says. Without it (or when it is broken) the script says so and times ours only.

How to run (from the repository root; about 5-6 minutes with the German defaults, mostly the peer)
    PEERS_VENV=/tmp/peers_venv python bench/bench_knockout.py
    PEERS_VENV=/tmp/peers_venv python bench/bench_knockout.py --repeats 5 --json knockout.json
    python bench/bench_knockout.py          # ours only, Dutch 40k + nl_morph.tsv
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, load_note, print_table, summarise, timed, write_json
from core.edits.rebpe import ReBPEConfig, run_knockout, run_rebpe
from core.formats.samples import DUTCH_40K, SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline.byte_level import byte_chars_to_bytes
from core.references.files import load_references

PEER_SCRIPT = ROOT.parent / "shared" / "tools" / "run_knockout_peer.py"
GERMAN_40K_IN_WHEEL = Path(
    "lib/python3.11/site-packages/bpe_knockout/_data/base-models/bpe-40k_oscar-de-clean/tokenizer.json"
)
GERMAN_REFERENCE = ROOT.parent / "shared" / "data" / "morphynet_deu.deriv.segs.tsv"
DUTCH_REFERENCE = SAMPLE_DIR / "references" / "nl_morph.tsv"
PEER_SETUP = (
    'python3 -m venv "$PEERS_VENV" && "$PEERS_VENV/bin/pip" install bpe-knockout tktkt '
    'pickybpe-bauwenst modest_bauwenst "transformers<5" "datasets<4.4" scipy colorama torch==2.13.0'
)
MODES = {
    # mode: (label, our run, peer --mode, target: peer/ours at least)
    "knockout": ("BPE-knockout", lambda tok, entries: run_knockout(tok, entries), "knockout", 25.0),
    "rebpe": (
        "ReBPE (reparation=undo)",
        lambda tok, entries: run_rebpe(tok, entries, ReBPEConfig(reparation="undo")),
        "rebpe",
        40.0,
    ),
}


def shown(path: Path) -> str:
    """A path relative to the repository root where that reads naturally (../shared/...)."""
    path = Path(path).resolve()
    for base, prefix in ((ROOT, ""), (ROOT.parent, "../")):
        try:
            return prefix + str(path.relative_to(base))
        except ValueError:
            pass
    return str(path)


def peers_venv() -> Path | None:
    value = os.environ.get("PEERS_VENV", "").strip()
    return Path(value) if value else None


def default_inputs(args) -> tuple[Path, Path, str]:
    """(tokeniser, reference, description) from the flags and what is available."""
    venv = peers_venv()
    german = venv / GERMAN_40K_IN_WHEEL if venv else None
    german_ok = german is not None and german.is_file() and GERMAN_REFERENCE.is_file()
    if args.tokeniser:
        tokeniser = Path(args.tokeniser)
        what = "given"
    elif german_ok:
        tokeniser, what = german, "German 40k from the bpe-knockout wheel"
    else:
        tokeniser, what = DUTCH_40K, "shipped Dutch 40k (German 40k of the bpe-knockout wheel not found)"
    if args.reference:
        reference = Path(args.reference)
    elif german_ok and tokeniser == german:
        reference = GERMAN_REFERENCE
    else:
        reference = DUTCH_REFERENCE
    return tokeniser, reference, what


def check_peer() -> tuple[Path | None, str | None, str]:
    """(python of the peer venv or None, bpe_knockout version, message)."""
    venv = peers_venv()
    how = f"set PEERS_VENV to a venv made as shared/tools/README.md says: {PEER_SETUP}"
    if venv is None:
        return None, None, f"# peer NOT run: PEERS_VENV is not set; {how}"
    python = venv / "bin" / "python"
    if not python.is_file():
        return None, None, f"# peer NOT run: {python} does not exist (PEERS_VENV={venv}); {how}"
    if not PEER_SCRIPT.is_file():
        return None, None, f"# peer NOT run: the harness {PEER_SCRIPT} is missing"
    try:
        probe = subprocess.run(
            [str(python), "-c", "import bpe_knockout, tktkt; print(bpe_knockout.__version__)"],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tempfile.gettempdir(),
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return None, None, f"# peer NOT run: cannot start {python} ({err}); {how}"
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return None, None, f"# peer NOT run: importing bpe_knockout in {venv} fails ({last}); {how}"
    version = probe.stdout.strip()
    return python, version, f"# peer: bpe_knockout {version} in {venv}, via {shown(PEER_SCRIPT)}"


def run_peer_once(python: Path, tokeniser: Path, reference: Path, mode: str, timeout: float) -> dict:
    """One run of the authors' implementation in a fresh working directory.

    Returns {"seconds", "wall", "run": the harness's runs[0], "error"}."""
    with tempfile.TemporaryDirectory(prefix="bench_knockout_peer_") as work:
        out = Path(work) / "peer.json"
        command = [
            str(python),
            str(PEER_SCRIPT),
            "--merges",
            str(tokeniser.resolve()),
            "--reference",
            str(reference.resolve()),
            "--mode",
            mode,
            "--reify",
            "FIX_AND_LINK_AND_MAKE",
            "--out",
            str(out),
        ]
        started = time.perf_counter()
        try:
            done = subprocess.run(
                command, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:g} s", "wall": time.perf_counter() - started}
        wall = time.perf_counter() - started
        if done.returncode != 0 or not out.is_file():
            tail = " | ".join(done.stderr.strip().splitlines()[-3:])
            return {"error": f"exit status {done.returncode}: {tail}", "wall": wall}
        result = json.loads(out.read_text(encoding="utf-8"))
    run = result["runs"][0]
    return {"seconds": float(run["seconds"]), "wall": wall, "run": run}


def ours_once(tokeniser_path: Path, reference_path: Path, mode: str) -> dict[str, float]:
    """{"<mode>_ours": seconds, "<mode>_ours_tracing": seconds} of one run in a fresh interpreter
    (as the CLI runs it: the heap left by an earlier run in the same process slows the next one
    by up to a fifth), loading not timed. The child is this script with ``--child``."""
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        mode,
        "--tokeniser",
        str(tokeniser_path),
        "--reference",
        str(reference_path),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def child(mode: str, tokeniser_path: Path, reference_path: Path) -> None:
    """The timed run of ``ours_once``, printed as JSON."""
    entries = load_references(reference_path).entries
    tokeniser = load_tokeniser(tokeniser_path)
    seconds, run = timed(lambda: MODES[mode][1](tokeniser, entries))
    phases = sum(step.seconds for step in run.steps)
    print(json.dumps({f"{mode}_ours": seconds, f"{mode}_ours_tracing": max(0.0, seconds - phases)}))


def rounds_ours(run) -> list[list[str]]:
    return [sorted(str(m) for m in step.removed) for step in run.steps if step.phase == "knockout"]


def rounds_peer(peer_run: dict) -> list[list[str]]:
    return [sorted(m["merge"] for m in event["merges"]) for event in peer_run["knocked_out_merges"]]


def splits_a_character(run, word: str) -> bool:
    """Whether a byte-level token of ``word`` (after the run) starts or ends inside a multi-byte
    UTF-8 character. The peer's evaluation decodes every token on its own (``undo_per_token``),
    which turns such a character into two U+FFFD, so its character offsets drift on that word."""
    pretokeniser = run.tokeniser.pretokeniser
    if pretokeniser.kind != "bytelevel" and not getattr(pretokeniser, "byte_level", False):
        return False  # a byte-level pipeline from a tokenizer.json has kind "hf" and byte_level set
    for token in run.tokeniser.tokenise_word(word):
        try:
            byte_chars_to_bytes(token).decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False


def agreement(mode: str, run, peer_run: dict) -> tuple[list[list[str]], dict]:
    """Table rows and a JSON record comparing our run with the peer's.

    Ours and the peer agree when the knockout rounds, |V| after and every segmentation after are
    the same. Pr/Re/F1 after are shown for information: with identical segmentations they can
    still differ, on words with a token inside a multi-byte character (see splits_a_character)."""
    label = MODES[mode][0]
    ours_r, peer_r = rounds_ours(run), rounds_peer(peer_run)
    same_rounds = ours_r == peer_r
    if same_rounds:
        rounds_note = "yes, identical sets"
    elif [len(r) for r in ours_r] == [len(r) for r in peer_r]:
        rounds_note = "NO: same counts, different sets"
    else:
        rounds_note = "NO"
    v_ours, v_peer = len(run.tokeniser.types), peer_run["vocab_size_after"]
    words = peer_run.get("segmentations_after") or {}
    differ = [w for w, tokens in words.items() if run.tokeniser.tokenise_word(w) != list(tokens)]
    m_ours, m_peer = run.steps[-1].metrics, peer_run["metrics_after"]["morph"]
    f1_same = all(abs(getattr(m_ours, k) - m_peer[k]) < 1e-9 for k in ("precision", "recall", "f1"))
    split = sum(splits_a_character(run, entry_word) for entry_word in words) if not f1_same else 0
    if f1_same:
        metrics_note = "same"
    elif not differ and split:
        metrics_note = f"differ: evaluation, {split} words split a character *"
    else:
        metrics_note = "differ"
    rows = [
        [
            f"{label}: merges knocked out per round",
            str([len(r) for r in ours_r]),
            str([len(r) for r in peer_r]),
            rounds_note,
        ],
        [f"{label}: |V| after (no special tokens)", f"{v_ours:,}", f"{v_peer:,}", "yes" if v_ours == v_peer else "NO"],
        [
            f"{label}: segmentations after",
            f"{len(words) - len(differ):,}/{len(words):,} same",
            "",
            "yes" if not differ else f"NO, e.g. {differ[:3]}",
        ],
        [
            f"{label}: morph Pr/Re/F1 after",
            f"{m_ours.precision:.4f}/{m_ours.recall:.4f}/{m_ours.f1:.4f}",
            f"{m_peer['precision']:.4f}/{m_peer['recall']:.4f}/{m_peer['f1']:.4f}",
            metrics_note,
        ],
    ]
    record = {
        "rounds_ours": [len(r) for r in ours_r],
        "rounds_peer": [len(r) for r in peer_r],
        "rounds_identical": same_rounds,
        "vocab_size_after_ours": v_ours,
        "vocab_size_after_peer": v_peer,
        "segmentations_compared": len(words),
        "segmentations_differing": len(differ),
        "segmentations_differing_examples": differ[:10],
        "metrics_identical": f1_same,
        "metrics_ours": {
            "precision": m_ours.precision,
            "recall": m_ours.recall,
            "f1": m_ours.f1,
            "tp": m_ours.tp,
            "fp": m_ours.fp,
            "fn": m_ours.fn,
        },
        "metrics_peer": m_peer,
        "words_with_a_token_inside_a_character": split,
        "agree": same_rounds and v_ours == v_peer and not differ,
    }
    return rows, record


def at_least(value: float | None, limit: float, peer_seconds: float | None = None) -> str:
    """Target check (peer/ours at least ``limit``), printed next to a ratio, never asserted; when
    missed, the time ours would need."""
    if value is None:
        return f"target >= {limit:g}: n/a (peer not run)"
    if value >= limit:
        return f"target >= {limit:g}: met"
    return f"target >= {limit:g}: MISSED (needs ours <= {peer_seconds / limit:.2f})"


def parse_args(argv) -> tuple[argparse.Namespace, list[str]]:
    """The command line and the modes it asks for (exits with usage on a bad value)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tokeniser",
        help="tokenizer.json / merges.txt (default: German 40k from the "
        "bpe-knockout wheel in $PEERS_VENV, else the shipped Dutch 40k)",
    )
    parser.add_argument(
        "--reference",
        help="reference segmentations (default: ../shared/data/"
        "morphynet_deu.deriv.segs.tsv with the German tokeniser, else sample_data/references/nl_morph.tsv)",
    )
    parser.add_argument(
        "--repeats", "--repeat", type=int, default=3, help="repetitions of our runs, best reported (default 3)"
    )
    parser.add_argument(
        "--peer-repeats",
        type=int,
        default=1,
        help="runs of the peer per mode, best reported (default 1; each German ReBPE run takes minutes)",
    )
    parser.add_argument("--peer-timeout", type=float, default=900, help="seconds before a peer run is abandoned")
    parser.add_argument("--modes", default="knockout,rebpe", help="comma-separated subset of knockout,rebpe")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    parser.add_argument("--child", choices=list(MODES), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return args, []
    if args.repeats < 1 or args.peer_repeats < 1:
        parser.error("--repeats and --peer-repeats must be at least 1")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in MODES for m in modes):
        parser.error(f"--modes takes a comma-separated subset of {','.join(MODES)}")
    return args, modes


def print_header(args, env: dict, inputs: tuple[Path, Path, str], base, references, peer_line: str) -> None:
    tokeniser_path, reference_path, what = inputs
    print(f"# Python {env['python']} ({env['implementation']}), {env['cpus']} CPUs, {env['machine']}")
    print(
        f"# tokeniser: {shown(tokeniser_path)} ({what}); |V| {len(base.types):,} + {len(base.specials)} special "
        f"tokens, {len(base.merges):,} merges, pre-tokeniser {base.pretokeniser.kind}"
    )
    print(
        f"# reference: {shown(reference_path)}; {len(references.entries):,} words "
        f"({len(references.rejected)} lines rejected)"
    )
    print(peer_line)
    print(
        f"# ours: best of {args.repeats} repetitions, whole run incl. tracing the reference, loading excluded; "
        f"peer: {'best of ' + str(args.peer_repeats) + ' runs' if args.peer_repeats > 1 else '1 run'} per mode, "
        f"its reported 'seconds' (vocabulariseFromModest)"
    )
    sys.stdout.flush()


def peer_runs(python: Path, tokeniser_path: Path, reference_path: Path, mode: str, args) -> list[dict]:
    """``--peer-repeats`` runs of the peer in ``mode``, stopping at the first failure."""
    outcomes = []
    for _ in range(args.peer_repeats):
        outcome = run_peer_once(python, tokeniser_path, reference_path, MODES[mode][2], args.peer_timeout)
        outcomes.append(outcome)
        if "error" in outcome:
            print(f"# peer {mode} run FAILED: {outcome['error']}")
            break
    return outcomes


def mode_result(mode: str, best: dict[str, float], peer_outcomes: list[dict], run) -> dict:
    """One mode's table row, ratio and, when the peer ran, its figures and the agreement check."""
    label, _, _, target = MODES[mode]
    ours, tracing = best[f"{mode}_ours"], best[f"{mode}_ours_tracing"]
    good = [o for o in peer_outcomes if "error" not in o]
    result: dict = {"ratio": None, "peer_seconds": None, "peer_cells": ["n/a", "n/a", "n/a"]}
    if good:
        best_peer = min(good, key=lambda o: o["seconds"])
        result["peer_seconds"] = best_peer["seconds"]
        result["ratio"] = best_peer["seconds"] / ours
        result["peer_cells"] = [f"{best_peer['seconds']:.2f}", f"{best_peer['wall']:.1f}", f"{result['ratio']:.1f}x"]
        result["peer_json"] = [{k: v for k, v in o.items() if k != "run"} for o in peer_outcomes]
        result["agreement"] = agreement(mode, run, best_peer["run"])
    result["verdict"] = None if result["ratio"] is None else result["ratio"] >= target
    result["row"] = [
        label,
        f"{ours:.2f}",
        f"{tracing:.2f} ({tracing / ours:.0%})",
        *result["peer_cells"],
        at_least(result["ratio"], target, result["peer_seconds"]),
    ]
    return result


def print_tables(rows: list[list[str]], ratios: dict, agree_rows: list[list[str]], agree_json: dict) -> None:
    print()
    print_table(["run (seconds)", "ours", "of which tracing", "peer", "peer wall", "peer/ours", "target"], rows)
    if any(ratio is not None for ratio in ratios.values()):
        print(
            "# peer = the authors' reported seconds (vocabulariseFromModest); peer wall = its whole subprocess, "
            "incl. imports, loading and evaluation (information only)"
        )
    if agree_rows:
        print()
        print_table(["agreement (same run)", "ours", "peer", "agree"], agree_rows)
        if any(
            r["words_with_a_token_inside_a_character"] and not r["segmentations_differing"] for r in agree_json.values()
        ):
            print(
                "# * information only, not a disagreement: the segmentations are identical, but the peer's "
                "evaluation decodes each byte-level token on its own, so a token that ends inside a multi-byte "
                "character becomes U+FFFD U+FFFD and its boundary offsets drift on those words"
            )
    note = load_note()
    if note:
        print(note)


def main(argv=None) -> int:
    args, modes = parse_args(argv)
    if args.child:
        child(args.child, Path(args.tokeniser), Path(args.reference))
        return 0

    tokeniser_path, reference_path, what = default_inputs(args)
    base = load_tokeniser(tokeniser_path)
    references = load_references(reference_path)
    entries = references.entries
    python, peer_version, peer_line = check_peer()
    env = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "loadavg_1min_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "peers_venv": os.environ.get("PEERS_VENV"),
        "bpe_knockout": peer_version,
    }
    print_header(args, env, (tokeniser_path, reference_path, what), base, references, peer_line)

    peer: dict[str, list[dict]] = {}
    reps: list[dict[str, float]] = [{} for _ in range(args.repeats)]
    last_run = {}
    for mode in modes:
        if python is not None:
            peer[mode] = peer_runs(python, tokeniser_path, reference_path, mode, args)
        for r in range(args.repeats):
            reps[r].update(ours_once(tokeniser_path, reference_path, mode))
        last_run[mode] = MODES[mode][1](load_tokeniser(tokeniser_path), entries)  # for the agreement checks
    best, median = summarise(reps)

    results = {mode: mode_result(mode, best, peer.get(mode, []), last_run[mode]) for mode in modes}
    agreements = {mode: r["agreement"] for mode, r in results.items() if "agreement" in r}
    agree_rows = [row for rows_a, _ in agreements.values() for row in rows_a]
    agree_json = {mode: record for mode, (_, record) in agreements.items()}
    ratios = {mode: r["ratio"] for mode, r in results.items()}
    print_tables([r["row"] for r in results.values()], ratios, agree_rows, agree_json)
    write_json(
        args.json,
        {
            "benchmark": "bench_knockout",
            "environment": env,
            "tokeniser": str(tokeniser_path),
            "reference": str(reference_path),
            "reference_words": len(entries),
            "repeats": args.repeats,
            "peer_repeats": args.peer_repeats,
            "seconds_best": best,
            "seconds_median": median,
            "peer": {mode: r["peer_json"] for mode, r in results.items() if "peer_json" in r},
            "ratios_peer_over_ours": ratios,
            "targets": {
                "knockout_peer_over_ours_min": MODES["knockout"][3],
                "rebpe_peer_over_ours_min": MODES["rebpe"][3],
                "met": {mode: r["verdict"] for mode, r in results.items()},
            },
            "agreement": agree_json,
            "repetitions": reps,
        },
    )
    return 0 if all(record["agree"] for record in agree_json.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
