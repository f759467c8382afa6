"""The vocabulary audit on every fetched real tokeniser: how long it takes, what it finds per cause.

Real files from ``scripts/fetch_real_tokenisers.py``'s cache (``$REAL_TOKENISERS_DIR``, default
``~/.cache/structured-tokenisers/real``), every tokeniser its manifest lists. Per tokeniser:

- **load**: ``load_tokeniser``;
- **audit**: ``core.analysis.audit.audit`` (decode and encode again every type, then the cause of
  each failure); the target is "well under a minute" on 262k types, printed as ``<= 30 s``;
- **HF round trip**: for a tokenizer.json, the same round trip in HF ``tokenizers`` (``decode`` one id
  at a time, ``encode_batch``), for the ratio; its count must equal ours (the tests check every file);
- the number of types not produced by their own string, and per cause.

Exit status 1 when no tokeniser is fetched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import load_note, print_table, timed, verdict, write_json

CACHE = Path(os.environ.get("REAL_TOKENISERS_DIR", Path.home() / ".cache/structured-tokenisers/real"))
LIMIT = 30.0
#: the file of each tokeniser to load (a folder for GPT-2's vocab.json + merges.txt)
SKIP = {"tokenizer_config.json", "vocab.json", "merges.txt", "bpe_simple_vocab_16e6.txt.gz"}


def files() -> dict[str, Path]:
    manifest = json.loads((CACHE / "manifest.json").read_text(encoding="utf-8"))
    found = {}
    for entry in manifest["entries"]:
        names = [f["file"] for f in entry["files"]]
        folder = CACHE / entry["name"]
        path = folder if "vocab.json" in names else folder / next(n for n in names if n not in SKIP)
        if path.exists():
            found[entry["name"]] = path
    return found


def hf_round_trip(path: Path) -> tuple[float, int] | None:
    """Seconds and failures of HF's own round trip for a tokenizer.json (None for other files)."""
    if path.name != "tokenizer.json":
        return None
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(path))

    def run() -> int:
        ids = [i for i in range(reference.get_vocab_size(with_added_tokens=True)) if reference.id_to_token(i)]
        texts = [reference.decode([i], skip_special_tokens=False) for i in ids]
        encodings = reference.encode_batch(texts, add_special_tokens=False)
        return sum(e.ids != [i] for i, e in zip(ids, encodings, strict=True))

    return timed(run)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="these tokenisers (default: every one fetched)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here")
    args = parser.parse_args()
    from core.analysis.audit import CAUSES, audit
    from core.formats.tokeniser_files import load_tokeniser

    chosen = {n: p for n, p in files().items() if not args.only or n in args.only}
    if not chosen:
        print(f"no real tokeniser in {CACHE}: run python scripts/fetch_real_tokenisers.py", file=sys.stderr)
        return 1
    if note := load_note():
        print(note)
    rows, figures = [], {}
    for name, path in chosen.items():
        load, tokeniser = timed(lambda path=path: load_tokeniser(path))
        seconds, report = timed(lambda tokeniser=tokeniser: audit(tokeniser))
        hf = hf_round_trip(path)
        counts = report.counts()
        rows.append(
            [
                name,
                f"{report.types_checked:,}",
                f"{load:.1f}",
                f"{seconds:.1f}",
                "-" if hf is None else f"{hf[0]:.1f} ({seconds / hf[0]:.1f}x)",
                f"{len(report.unreachable):,}"
                + ("" if hf is None or hf[1] == len(report.unreachable) else " (HF differs)"),
                ", ".join(f"{CAUSES[c][0]} {n:,}" for c, n in counts.items()),
            ]
        )
        figures[name] = {"types": report.types_checked, "load_s": load, "audit_s": seconds, "counts": counts}
        figures[name]["hf_round_trip_s"] = None if hf is None else hf[0]
    print_table(["tokeniser", "types", "load s", "audit s", "HF round trip s", "unreachable", "per cause"], rows)
    slowest = max(f["audit_s"] for f in figures.values())
    print(f"slowest audit {slowest:.1f} s ({verdict(slowest, LIMIT)})")
    write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
