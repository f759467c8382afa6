"""Packaging: the dependency lists agree with each other and with the lock CI installs from, and
the installed console command is the CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import core

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def requirement_lines(path: Path) -> list[Requirement]:
    """The requirements a ``requirements*.txt`` names itself (comments and ``-r``/``-c`` lines left out)."""
    lines = (line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [Requirement(line) for line in lines if line and not line.startswith("-")]


def by_name(requirements) -> dict[str, str]:
    return {canonicalize_name(r.name): str(r.specifier) for r in map(Requirement, map(str, requirements))}


def locked() -> dict[str, str]:
    pins = {}
    for requirement in requirement_lines(ROOT / "requirements-lock.txt"):
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"requirements-lock.txt: {requirement} is not an exact pin"
        pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def test_requirements_files_equal_the_pyproject_lists():
    assert by_name(requirement_lines(ROOT / "requirements.txt")) == by_name(PYPROJECT["project"]["dependencies"])
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert by_name(requirement_lines(ROOT / "requirements-dev.txt")) == by_name(dev)


def test_the_lock_pins_every_requirement_within_its_range():
    pins = locked()
    wanted = [*PYPROJECT["project"]["dependencies"], *PYPROJECT["project"]["optional-dependencies"]["dev"]]
    for requirement in map(Requirement, wanted):
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is missing from requirements-lock.txt"
        assert requirement.specifier.contains(pins[name]), f"lock pins {name}=={pins[name]}, outside {requirement}"


def test_pytest_has_an_upper_bound_below_the_next_breaking_major():
    (pytest_requirement,) = (
        Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"] if r.startswith("pytest>")
    )
    assert not pytest_requirement.specifier.contains("10.0")


def test_version_is_the_package_version():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "core.__version__"}
    out = subprocess.run([sys.executable, "-m", "core", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.split() == ["structok", core.__version__], out


def test_the_console_command_is_the_cli():
    """``pip install -e .`` (which .ci/run does) installs ``structok``, the same program as ``python -m core``."""
    assert PYPROJECT["project"]["scripts"] == {"structok": "core.cli:main"}
    command = shutil.which("structok", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    if command is None:
        if os.environ.get("CI"):
            pytest.fail("structok is not installed: .ci/run runs `pip install -e .`")
        pytest.skip("structok is not installed (pip install -e .)")
    via_command = subprocess.run([command, "inspect", "--help"], capture_output=True, text=True, cwd=ROOT)
    via_module = subprocess.run([sys.executable, "-m", "core", "inspect", "--help"], capture_output=True, text=True)
    assert via_command.returncode == via_module.returncode == 0
    assert same_help(via_command.stdout) == same_help(via_module.stdout)


def same_help(text: str) -> str:
    """Help text with the program's name and line wrapping (which depends on the name's length) left out."""
    return " ".join(text.replace("python -m core", "PROG").replace("structok", "PROG").split())
