"""The project's structure, as docs/architecture.md draws it:

- the packages are layered, bottom-up (``LAYERS``), and a module imports only from its own layer
  or lower ones: inside ``core/`` the engine's rooms, then ``viz`` < ``ui`` < ``pages``/``app``;
- no import cycle anywhere, imports inside functions and under ``TYPE_CHECKING`` included;
- ``core/`` keeps at most ``MAX_LOOSE_MODULES`` modules at its root;
- the engine stays UI-free: nothing under core/ imports streamlit, plotly or pyvis;
- text is escaped for HTML in one module, viz/escaping.py.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parent.parent / "core"
UI = {"streamlit", "plotly", "pyvis"}

# --- layers and cycles ------------------------------------------------------------------------------
#: bottom-up; a module belongs to the longest prefix that names it
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core.errors", "core.options", "core.limits", "core.deadline", "core.gc_pause", "core.trace"),
    ("core.pipeline",),
    ("core.tokeniser",),
    ("core.counting",),
    ("core.bpe",),
    ("core.families",),
    ("core.formats",),
    ("core.references",),
    ("core.edits",),
    ("core.analysis",),
    ("core",),  # the package itself (core/__init__.py: the lazy public API), not its submodules
    ("core.cli", "core.__main__"),
    ("viz",),
    ("ui",),
    ("pages", "app"),
)
#: the project's own code (tests excluded; a virtual environment in .venv/ is not the project's)
PROJECT_FOLDERS = ("core", "viz", "ui", "pages", "bench", "scripts")
LAYERED_FOLDERS = ("core", "viz", "ui", "pages")
MAX_LOOSE_MODULES = 8


def layer_of(module: str) -> int | None:
    """The index in LAYERS of the longest prefix naming ``module`` (None: no layer names it);
    ``core`` names only the package itself."""
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            names = module == prefix or (prefix != "core" and module.startswith(prefix + "."))
            if names and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(root: Path, path: Path, known: set[str]) -> Iterator[str]:
    """Every module of ``known`` that ``path`` imports, at any depth of its code (functions,
    ``TYPE_CHECKING`` blocks), absolute or relative."""
    me = module_name(root, path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            candidates = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for name in candidates:
            while name and name not in known:  # `import a.b.c` depends on a.b.c (or the longest known prefix)
                name = name.rpartition(".")[0]
            if name and name != me:
                yield name
                break


def import_graph(root: Path, folders=LAYERED_FOLDERS) -> dict[str, set[str]]:
    """module -> the project modules it imports, over ``folders`` (and app.py) under ``root``."""
    paths = [path for folder in folders for path in (root / folder).rglob("*.py")]
    paths += [root / "app.py"] if (root / "app.py").is_file() else []
    names = {module_name(root, path): path for path in paths}
    return {name: set(imported_modules(root, path, set(names))) for name, path in names.items()}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """ "a -> b" for every import of a higher layer, and every module no layer names."""
    found = [f"{module}: in no layer" for module in graph if layer_of(module) is None]
    for module, targets in graph.items():
        here = layer_of(module)
        found += [
            f"{module} -> {target}"
            for target in sorted(targets)
            if here is not None and (there := layer_of(target)) is not None and there > here
        ]
    return sorted(found)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while (member := stack.pop()) != module:
                on_stack.discard(member)
                component.append(member)
            on_stack.discard(module)
            if component:
                cycles.append(sorted([module, *component]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


@pytest.fixture(scope="module")
def project_graph() -> dict[str, set[str]]:
    return import_graph(CORE.parent)


def test_every_module_imports_only_its_own_layer_or_lower(project_graph):
    assert upward_imports(project_graph) == []


def test_no_import_cycles(project_graph):
    assert import_cycles(project_graph) == []


def test_core_keeps_few_loose_modules():
    loose = sorted(path.name for path in CORE.glob("*.py") if path.name != "__init__.py")
    assert len(loose) <= MAX_LOOSE_MODULES, loose


def test_the_layer_and_cycle_checks_can_fail(tmp_path):
    """A made-up tree with an upward import (inside a function), an unlayered module and a
    cycle through a ``TYPE_CHECKING`` import: each is found."""
    files = {
        "core/__init__.py": "",
        "core/errors.py": "def f():\n    from core.bpe import model\n",
        "core/bpe/__init__.py": "",
        "core/bpe/model.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .graph import G\n",
        "core/bpe/graph.py": "from core.bpe.model import M\n",
        "core/stray.py": "",
        "viz/__init__.py": "import core.errors\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path)
    assert upward_imports(graph) == ["core.errors -> core.bpe.model", "core.stray: in no layer"]
    assert import_cycles(graph) == [["core.bpe.graph", "core.bpe.model"]]


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


# --- tests read nothing outside the repository ------------------------------------------------------
TESTS = ROOT / "tests"
FIXTURES = TESTS / "fixtures"
#: what reaching outside the repository looks like in a test source, code or citation (the real
#: tokenisers' cache is reached only through tests/real_tokenisers.py, which spells none of these)
OUTSIDE = {
    "the development folder beside the repository": r"\.\./shared|\bshared/",
    "a path part named shared": r"""/\s*["']shared["']|["']shared["']\s*[/,)]""",
    "the repository's parent": r"\bROOT\.parent\b",
    "an old real-tokeniser folder": r"/tmp/realtok",
}
CLIMB = r"Path\(__file__\)(?:\.resolve\(\))?((?:\.parent\b)+|\.parents\[(\d+)\])"


def _outside_reads(source: str, name: str) -> list[str]:
    """Where ``source`` (the test module at ``name``, relative to the repository) reaches outside the
    repository: a pattern of OUTSIDE, or ``Path(__file__)`` climbed above the repository's root."""
    import re

    depth = len(name.split("/"))  # tests/x.py: .parent.parent (.parents[1]) is the root, one more is outside
    found = []
    for number, line in enumerate(source.splitlines(), 1):
        found += [f"{name}:{number}: {what}" for what, pattern in OUTSIDE.items() if re.search(pattern, line)]
        for chain, index in re.findall(CLIMB, line):
            if (int(index) + 1 if index else chain.count(".parent")) > depth:
                found.append(f"{name}:{number}: Path(__file__) above the repository")
    return found


def test_tests_read_nothing_outside_the_repository():
    """Every input of a test is in the repository (tests/fixtures/, sample_data/, ...) or, for real
    tokenisers, in the fetch script's cache through tests/real_tokenisers.py; no test source builds a
    path to, or cites a file of, the development folder beside the repository. This file excepted:
    it spells out the patterns and the examples below."""
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if path != Path(__file__).resolve():
            offenders += _outside_reads(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    assert offenders == []


def test_the_outside_check_can_fail():
    """The check above finds each way a test used to reach outside, and nothing that only looks alike."""
    hand_made = (
        'SHARED = ROOT.parent / "shared"\n'
        'DATA = Path(__file__).resolve().parents[2] / "shared" / "data"\n'
        "where = os.path.join(ROOT, '..', 'shared')\n"
        "# TEST_VECTORS.md V5 = shared/reference/out/chizhov_picky_traces.txt\n"
        'text = Path("../shared/reference/TEST_VECTORS.md").read_text()\n'
        'candidates.append(Path("/tmp/realtok/x") / name / "tokenizer.json")\n'
        "up = Path(__file__).parent.parent.parent\n"
    )
    hits = [hit.split(": ", 1)[1] for hit in _outside_reads(hand_made, "tests/hand.py")]
    assert hits == [
        "a path part named shared",  # line 1
        "the repository's parent",
        "a path part named shared",  # line 2
        "Path(__file__) above the repository",
        "a path part named shared",  # line 3
        "the development folder beside the repository",  # line 4
        "the development folder beside the repository",  # line 5
        "an old real-tokeniser folder",  # line 6
        "Path(__file__) above the repository",  # line 7
    ], hits
    alike = (
        'row = {"a": "x", "shared": 1, "only a": 1}\n'  # a table column called shared
        'SHARED = [(0, ("a", "b")), (1, ("b", "c"))]\n'  # merges two tokenisers share
        "ROOT = Path(__file__).resolve().parent.parent\n"
        'text = (FIXTURES / "chizhov_picky_traces.txt").read_text()\n'
        "# caches shared by every worker; the unshared/ folder\n"
    )
    assert _outside_reads(alike, "tests/alike.py") == []
    assert _outside_reads("ROOT = Path(__file__).parents[2]\n", "tests/e2e/x.py") == []


def test_fixtures_are_listed_used_and_cited_files_exist():
    """Every file of tests/fixtures/ is in its README and read or cited by a test, and every
    ``tests/fixtures/<file>`` a test or the fixtures' TEST_VECTORS.md names exists there."""
    import re

    sources = "\n".join(path.read_text(encoding="utf-8") for path in sorted(TESTS.rglob("*.py")))
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    names = {path.name for path in FIXTURES.iterdir() if path.is_file()}
    data = sorted(names - {"README.md", "TEST_VECTORS.md"})
    assert data, FIXTURES
    assert [name for name in data if f"`{name}`" not in readme] == []
    assert [name for name in data if name not in sources] == []
    cited = re.findall(r"tests/fixtures/([\w.*-]*\w)", sources + (FIXTURES / "TEST_VECTORS.md").read_text("utf-8"))
    patterns = {name: re.escape(name).replace(r"\*", r"[\w.-]*") for name in set(cited)}
    assert [name for name, p in sorted(patterns.items()) if not any(re.fullmatch(p, n) for n in names)] == []


def test_only_tests_marked_real_read_real_tokeniser_files():
    """The quick subset (``not real``) never needs the fetch: an unmarked test asking for a real
    file fails at once, whether or not the file is in the cache."""
    from tests.real_tokenisers import real_entry, real_file

    with pytest.raises(pytest.fail.Exception, match=r"mark it @pytest.mark.real"):
        real_file("gpt2", "vocab.json")
    with pytest.raises(pytest.fail.Exception, match=r"mark it @pytest.mark.real"):
        real_entry("gpt2")
