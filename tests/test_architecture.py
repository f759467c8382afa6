"""The engine stays UI-free: nothing under core/ imports streamlit, plotly or pyvis."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "core"
UI = {"streamlit", "plotly", "pyvis"}


def test_core_sources_never_import_ui_libraries():
    offenders = []
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in UI]
    assert offenders == []


def test_importing_the_whole_engine_loads_no_ui_library():
    modules = sorted("core." + ".".join(p.relative_to(CORE).with_suffix("").parts)
                     for p in CORE.rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    code = ("import sys\n" + "".join(f"import {m}\n" for m in modules)
            + f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(UI)!r}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=CORE.parent, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
