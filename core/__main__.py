"""``python -m core``: the command line (see core.cli), the same program as ``structok``."""

from core.cli import main

raise SystemExit(main(prog="python -m core"))
