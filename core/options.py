"""Checks for settings: option dataclasses and constructor arguments (no paper section; plumbing).

Every check raises :class:`core.errors.InputError` naming the setting (``owner.name`` when an
owner, such as the options class, is given), the value found and what was expected, e.g.
``AnnealConfig.when must be one of 'none', 'before', 'after', 'both'; got 'befor'``. Modes are
declared as a ``typing.Literal`` and checked against ``typing.get_args`` of it, so the type and the
check cannot drift apart.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from core.errors import InputError, excerpt


def _label(name: str, owner: str | None) -> str:
    return f"{owner}.{name}" if owner else name


def check_choice(name: str, value: Any, choices: Iterable[str], owner: str | None = None) -> str:
    """``value`` if it is one of ``choices``; InputError naming the setting, the value and the choices."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{_label(name, owner)} must be one of {', '.join(map(repr, choices))}; got {excerpt(value)}")
    return value


def check_bool(name: str, value: Any, owner: str | None = None) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{_label(name, owner)} must be true or false, got {excerpt(value)}")
    return value


def check_int(name: str, value: Any, minimum: int = 0, owner: str | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{_label(name, owner)} must be an integer >= {minimum}, got {excerpt(value)}")
    return int(value)


def check_number(
    name: str,
    value: Any,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
    owner: str | None = None,
) -> float:
    """A real number (not a bool, not NaN) in the interval from ``low`` to ``high``, each end
    closed unless ``low_open`` / ``high_open``."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isnan(value)
    ok = ok and (low < value if low_open else low <= value) and (value < high if high_open else value <= high)
    if not ok:
        ends = [
            f"{'>' if low_open else '>='} {low}" if low != -math.inf else "",
            f"{'<' if high_open else '<='} {high}" if high != math.inf else "",
        ]
        bounds = " and ".join(b for b in ends if b)
        raise InputError(
            f"{_label(name, owner)} must be a number{' ' + bounds if bounds else ''}, got {excerpt(value)}"
        )
    return value
