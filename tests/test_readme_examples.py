"""Every shell example of the README runs as pasted, and writes nothing outside ``out/``.

The examples are the commands of the fenced ``sh`` blocks under the README's sections "Load your own
tokeniser" and "Command line" (continuation lines joined, comment lines dropped). Each section's run in
README order with ``bash -e`` in its own copy of the repository (its files, without ``out/`` and the
caches; the two sections run side by side under xdist), so each example must make its own inputs first
within its section and a stale ``out/`` cannot help; ``python3`` is the
interpreter running the tests. Afterwards nothing outside ``out/`` may be new or changed.

Examples that read the real tokenisers of ``scripts/fetch_real_tokenisers.py`` or use the
``sentencepiece`` package are left out, with the reason, when those are missing; under ``CI=true``
that is a failure instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import running_in_ci

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RUN_SECTIONS = ("Load your own tokeniser", "Command line")
#: not part of the repository's files: never copied, never compared
NOT_COPIED = (
    ".git",
    ".venv",
    "out",
    "test-artifacts",
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".benchmarks",
    "build",
)
REAL_CACHE = Path.home() / ".cache" / "structured-tokenisers" / "real"
WRITE_OPTIONS = ("--out", "--report", "--json-report", "--hf-out")


def readme_examples(text: str, sections: tuple[str, ...] = RUN_SECTIONS) -> list[str]:
    """The commands of the ``sh`` blocks under ``sections``, in order."""
    commands: list[str] = []
    section, block, pending = "", None, ""
    for line in text.splitlines():
        if block is None and line.startswith("## "):
            section = line[3:].strip()
        elif line.strip().startswith("```"):
            block = line.strip()[3:].strip() if block is None else None
        elif block == "sh" and section in sections:
            pending += line.strip()
            if pending.endswith("\\"):
                pending = pending[:-1].rstrip() + " "
                continue
            if pending and not pending.startswith("#"):
                commands.append(pending)
            pending = ""
    return commands


def missing_requirement(command: str) -> str | None:
    """Why ``command`` cannot run on this machine (None: it can)."""
    if ".cache/structured-tokenisers/real" in command and not (REAL_CACHE / "manifest.json").is_file():
        return f"the real tokenisers are not in {REAL_CACHE} (python3 scripts/fetch_real_tokenisers.py)"
    if ("sentencepiece" in command or "out/spm" in command) and importlib.util.find_spec("sentencepiece") is None:
        return "the sentencepiece package is not installed (pip install sentencepiece)"
    return None


def repository_files(root: Path) -> dict[str, str]:
    """Every file of the copy outside NOT_COPIED, by relative path, with its sha256."""
    ignored = shutil.ignore_patterns(*NOT_COPIED)
    files: dict[str, str] = {}
    for folder, subfolders, names in os.walk(root):
        skip = ignored(folder, subfolders + names)
        subfolders[:] = [name for name in subfolders if name not in skip]
        for name in names:
            if name not in skip:
                path = Path(folder) / name
                files[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


# --- what the README shows (quick) -------------------------------------------------------------

EXAMPLES = readme_examples(README.read_text(encoding="utf-8"))


def test_the_readme_has_its_examples() -> None:
    text = README.read_text(encoding="utf-8")
    for section in RUN_SECTIONS:
        assert f"\n## {section}\n" in text, f"README has no section {section!r}"
    assert len(EXAMPLES) >= 20
    assert not [c for c in EXAMPLES if "[--" in c or "path/to" in c], "examples with placeholders"


def test_the_readme_examples_write_only_under_out() -> None:
    for command in EXAMPLES:
        for option in WRITE_OPTIONS:
            for target in re.findall(rf"{option}[ =](\S+)", command):
                assert target.startswith("out/"), f"{option} {target} outside out/: {command}"
        for prefix in re.findall(r"model_prefix='([^']*)'", command):
            assert prefix.startswith("out/"), command
        if command.startswith(("mkdir", "cp ")):
            assert command.split()[-1].startswith("out/"), command


def test_the_parser_joins_continuations_and_reads_only_the_example_sections() -> None:
    text = (
        "## Quick start\n```sh\npip install x\n```\n## Command line\n"
        "```sh\n# comment\npython3 -m core a \\\n    --b c\n```\n```python\nprint(1)\n```\n"
    )
    assert readme_examples(text) == ["python3 -m core a --b c"]


# --- running them (slow) -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("section", RUN_SECTIONS)
def test_every_readme_example_runs_as_pasted(section: str, tmp_path: Path) -> None:
    examples = readme_examples(README.read_text(encoding="utf-8"), (section,))
    assert examples, f"no examples under {section!r}"
    runnable, left_out = [], []
    for command in examples:
        reason = missing_requirement(command)
        if reason is None:
            runnable.append(command)
        elif running_in_ci():
            pytest.fail(f"{reason}; under CI every README example must run: {command}")
        else:
            left_out.append(f"{command}  ({reason})")

    copy = tmp_path / "repository"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    before = repository_files(copy)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in runnable:
        result = subprocess.run(
            ["bash", "-e", "-c", command], cwd=copy, env=env, capture_output=True, text=True, timeout=600
        )
        assert result.returncode == 0, (
            f"exit {result.returncode}: {command}\nstdout:\n{result.stdout[-2000:]}\nstderr:\n{result.stderr[-2000:]}"
        )

    after = repository_files(copy)
    written = sorted(path for path in after.keys() - before.keys())
    changed = sorted(path for path in before.keys() & after.keys() if before[path] != after[path])
    removed = sorted(before.keys() - after.keys())
    assert not written, f"README examples wrote outside out/: {written}"
    assert not changed, f"README examples changed repository files: {changed}"
    assert not removed, f"README examples removed repository files: {removed}"
    assert (copy / "out").is_dir()
    if left_out:
        pytest.skip(f"ran {len(runnable)} of {len(examples)} examples; left out:\n" + "\n".join(left_out))
