"""Argument and spec validation shared by the pre-tokenisers (no paper section; plumbing).

Every check raises :class:`core.errors.InputError` with a message that says what was found and
what was expected, so a bad spec or a bad constructor argument reads the same in the CLI and UI.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.errors import InputError, excerpt


def check_text(text: Any) -> str:
    """``text`` itself if it is a ``str``; InputError otherwise."""
    if not isinstance(text, str):
        raise InputError(f"expected text (str), got {type(text).__name__}")
    return text


def check_marker(name: str, value: Any, single_char: bool = False) -> str:
    """A non-empty marker string without whitespace (exactly one character if ``single_char``)."""
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise InputError(f"{name} must be a non-empty string without whitespace, got {excerpt(value)}")
    if single_char and len(value) != 1:
        raise InputError(f"{name} must be exactly one character, got {excerpt(value)}")
    return value


def spec_arguments(spec: Any, kind: str, allowed: Iterable[str]) -> dict[str, Any]:
    """Constructor keyword arguments from ``spec`` after checking its kind and its keys."""
    if not isinstance(spec, dict):
        raise InputError(f"a pretokeniser spec must be an object, got {type(spec).__name__}")
    if spec.get("kind") != kind:
        raise InputError(f"spec kind {excerpt(spec.get('kind'))} is not {kind!r}")
    allowed = tuple(allowed)
    unknown = sorted(set(spec) - set(allowed) - {"kind"})
    if unknown:
        raise InputError(
            f"unknown field(s) {', '.join(map(excerpt, unknown[:5]))} in a {kind!r} spec; "
            f"allowed: {', '.join(map(repr, allowed)) or 'none'}"
        )
    return {key: value for key, value in spec.items() if key != "kind"}
