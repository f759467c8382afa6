"""Compare our knockout / ReBPE with the authors' implementation on the same inputs.

The peer's output is the JSON written by shared/tools/run_knockout_peer.py (run in its own
throwaway venv; see shared/tools/README.md). This script reruns our engine on the same tokeniser
and reference and prints where the two agree:

    python scripts/compare_with_peer.py PEER.json --tokeniser T.json --reference R.tsv [--rebpe]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.edits.rebpe import ReBPEConfig, run_knockout, run_rebpe
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("peer_json")
    parser.add_argument("--tokeniser", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--rebpe", action="store_true")
    parser.add_argument("--reparation", choices=["limited", "undo"], default="undo")
    args = parser.parse_args()
    peer = json.loads(Path(args.peer_json).read_text(encoding="utf-8"))
    peer_run = peer["runs"][-1 if args.rebpe else 0]
    tokeniser = load_tokeniser(args.tokeniser)
    entries = load_references(args.reference).entries
    started = time.perf_counter()
    run = (
        run_rebpe(tokeniser, entries, ReBPEConfig(reparation=args.reparation))
        if args.rebpe
        else run_knockout(tokeniser, entries)
    )
    seconds = time.perf_counter() - started

    ours_rounds = [sorted(str(m) for m in s.removed) for s in run.steps if s.phase == "knockout"]
    peer_rounds = [sorted(m["merge"] for m in event["merges"]) for event in peer_run["knocked_out_merges"]]
    print(f"knocked out per round  ours {[len(r) for r in ours_rounds]}  peer {[len(r) for r in peer_rounds]}")
    for i, (a, b) in enumerate(zip(ours_rounds, peer_rounds, strict=False), 1):
        print(
            f"  round {i}: identical sets: {a == b}"
            + (
                ""
                if a == b
                else f"  (only ours {len(set(a) - set(b))}, e.g. {sorted(set(a) - set(b))[:4]}; "
                f"only peer {len(set(b) - set(a))}, e.g. {sorted(set(b) - set(a))[:4]})"
            )
        )
    specials = len(tokeniser.specials)
    print(
        f"|V| after (without specials)  ours {run.tokeniser.vocab_size - specials}  peer {peer_run['vocab_size_after']}"
    )
    if peer_run.get("merges_after"):
        ours = [str(m) for m in run.tokeniser.merges]
        theirs = peer_run["merges_after"]
        print(
            f"final merge lists identical (in rank order): {ours == theirs}  "
            f"(as sets: only ours {len(set(ours) - set(theirs))}, only peer {len(set(theirs) - set(ours))})"
        )
    words = peer_run.get("segmentations_after", {})
    differ = [w for w, tokens in words.items() if run.tokeniser.tokenise_word(w) != tokens]
    print(
        f"segmentations after: {len(words) - len(differ)}/{len(words)} identical"
        + (f", e.g. {differ[:5]}" if differ else "")
    )
    ours_m = run.steps[-1].metrics
    peer_m = peer_run["metrics_after"]["morph"]
    print(
        f"Pr/Re/F1 after  ours {ours_m.precision:.4f}/{ours_m.recall:.4f}/{ours_m.f1:.4f}  "
        f"peer {peer_m['precision']:.4f}/{peer_m['recall']:.4f}/{peer_m['f1']:.4f}"
    )
    print(f"seconds  ours {seconds:.2f}  peer {peer_run['seconds']:.2f}  ratio {peer_run['seconds'] / seconds:.1f}x")


if __name__ == "__main__":
    main()
