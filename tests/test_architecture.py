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
    modules = sorted(
        "core." + ".".join(p.relative_to(CORE).with_suffix("").parts)
        for p in CORE.rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py")
    )
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(UI)!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=CORE.parent, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- escaping: one module ---------------------------------------------------------------------------
ROOT = CORE.parent
ESCAPING = ROOT / "viz" / "escaping.py"
ESCAPE_MODULES = {"markupsafe", "xml.sax.saxutils", "cgi", "bleach"}
SPECIAL = set("<>&\"'\u2028\u2029")


def _hand_escapes(source: str, name: str, ui_side: bool) -> list[str]:
    """What ``source`` (a module called ``name``) does to escape text by hand instead of calling
    viz/escaping.py; ``ui_side``: also flag helper functions named like an escape."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and node.attr == "escape" and getattr(node.value, "id", "") == "html":
            found.append(f"{where}: html.escape")
        elif isinstance(node, ast.ImportFrom) and node.module == "html" and any(a.name == "escape" for a in node.names):
            found.append(f"{where}: from html import escape")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"{where}: import {n}" for n in names if n in ESCAPE_MODULES or n.split(".")[0] == "markupsafe"]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            literals = [a.value for a in node.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if node.func.attr == "replace" and literals and len(literals[0]) <= 2 and SPECIAL & set(literals[0]):
                found.append(f"{where}: .replace({literals[0]!r}, ...)")
            if node.func.attr == "sub" and any(text.startswith("\\\\") for text in literals):
                found.append(f"{where}: a backslash-escaping .sub()")
        elif ui_side and isinstance(node, ast.FunctionDef) and "esc" in node.name.lower():
            found.append(f"{where}: def {node.name}")
    return found


#: the project's own code (tests excluded; a virtual environment in .venv/ is not the project's)
PROJECT_FOLDERS = ("core", "viz", "ui", "pages", "bench", "scripts")


def test_text_is_escaped_only_in_viz_escaping():
    """html.escape, markupsafe, ``.replace("<", ...)``, backslash-escaping ``re.sub`` and helpers named
    like an escape appear nowhere but viz/escaping.py (tests excluded): one function per output context."""
    offenders = []
    sources = [ROOT / "app.py", *(path for folder in PROJECT_FOLDERS for path in (ROOT / folder).rglob("*.py"))]
    for path in sources:
        parts = path.relative_to(ROOT).parts
        if path != ESCAPING:
            offenders += _hand_escapes(
                path.read_text(encoding="utf-8"), "/".join(parts), parts[0] in ("viz", "pages", "ui", "app.py")
            )
    assert offenders == []


def test_the_escaping_check_can_fail():
    """The check above finds each kind of hand-made escaping, and nothing in code that only looks alike."""
    hand_made = (
        "import html\nimport markupsafe\nfrom xml.sax.saxutils import quoteattr\nimport re\n"
        "def _esc(t):\n    return html.escape(t)\n"
        "a = t.replace('<', '&lt;')\nb = t.replace('&', '&amp;').replace('\"', '&quot;')\n"
        "c = re.sub(r'([*_])', r'\\\\\\1', t)\n"
        "d = t.replace('ab', 'c').replace('<link href=x>', '')\n"  # not escaping: left alone
    )
    hits = _hand_escapes(hand_made, "hand.py", ui_side=True)
    assert len(hits) == 8, hits
    assert not _hand_escapes("def escape_controls(t):\n    return t\n", "core.py", ui_side=False)
    assert _hand_escapes(ESCAPING.read_text(encoding="utf-8"), "viz/escaping.py", ui_side=True)
