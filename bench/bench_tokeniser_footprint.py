"""The memory of one loaded tokeniser: measured, and as the app's tokeniser store estimates it.

What it measures
    For the shipped tokenisers and every real file that ``scripts/fetch_real_tokenisers.py`` put in
    its cache, each in a fresh interpreter (``--worker``): the bytes tracemalloc sees a tokeniser
    keep once it is in use (loaded, a word segmented, the merge-graph indexes and the segmentation
    engine built: ``ui.tokeniser_store.measured_bytes``; loaded once before, so imports are not
    counted), next to ``ui.tokeniser_store.footprint``, the estimate the app's byte budget uses
    (``EXPLORER_TOKENISER_CACHE_MB``, default ``DEFAULT_BUDGET_MB``). A ratio estimate/measured
    near 1 (at or above it: the budget is then conservative) is what the constants aim for;
    nothing is asserted.

How to run (from the repository root)
    python bench/bench_tokeniser_footprint.py               # every file at hand, a few minutes
    python bench/bench_tokeniser_footprint.py --only gpt2 --only nl-40k --json footprint.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from _common import ensure_root_on_path, print_table, write_json

ensure_root_on_path()

from core.errors import InputError  # noqa: E402
from core.formats.locations import tokeniser_file_in  # noqa: E402
from core.formats.samples import tokeniser_paths  # noqa: E402
from tests.real_tokenisers import _fetcher  # noqa: E402


def files() -> dict[str, Path]:
    """name -> file: the shipped BPEs, then every real tokeniser in the cache."""
    found = {name.split(" ")[0]: path for name, path in tokeniser_paths().items() if not name.startswith("a")}
    cache = _fetcher().cache_dir(None)
    for entry in _fetcher().MANIFEST:
        folder = cache / entry["name"]
        if folder.is_dir():
            try:
                found[entry["name"]] = tokeniser_file_in(folder)
            except InputError:  # a folder this loader does not pick a file from (SentencePiece)
                model = sorted(folder.glob("*.model"))
                if model:
                    found[entry["name"]] = model[0]
    return found


def worker(path: str) -> None:
    from core.formats.tokeniser_files import load_tokeniser
    from ui.tokeniser_store import footprint, measured_bytes

    load_tokeniser(path)
    tokeniser, measured = measured_bytes(lambda: load_tokeniser(path))
    print(
        json.dumps(
            {
                "family": tokeniser.kind,
                "merges": len(getattr(tokeniser, "merges", ()) or ()),
                "types": len(tokeniser.vocabulary),
                "measured": measured,
                "estimate": footprint(tokeniser),
            }
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", help="a name from the table (repeatable)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return 0
    rows, figures = [], {}
    for name, path in files().items():
        if args.only and name not in args.only:
            continue
        done = subprocess.run([sys.executable, __file__, "--worker", str(path)], capture_output=True, text=True)
        if done.returncode:
            rows.append(
                [name, "not loaded: " + (done.stderr.strip().splitlines() or ["?"])[-1][:60], "", "", "", "", ""]
            )
            continue
        got = json.loads(done.stdout.strip().splitlines()[-1])
        figures[name] = got
        rows.append(
            [
                name,
                got["family"],
                f"{got['merges']:,}",
                f"{got['types']:,}",
                f"{got['measured'] / 2**20:,.1f}",
                f"{got['estimate'] / 2**20:,.1f}",
                f"{got['estimate'] / got['measured']:.2f}",
            ]
        )
    print_table(["tokeniser", "family", "merges", "types", "measured MB", "estimate MB", "estimate/measured"], rows)
    write_json(args.json, {"figures": figures})
    return 0


if __name__ == "__main__":
    sys.exit(main())
