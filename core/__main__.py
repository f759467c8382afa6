"""``python -m core``: the command line (see core.cli)."""

from core.cli import main

raise SystemExit(main())
