"""Checks for settings and for the arguments of the public Python API (no paper section; plumbing).

Every check raises :class:`core.errors.InputError` naming the setting (``owner.name`` when an
owner, such as the options class, is given), the value found and what was expected, e.g.
``AnnealConfig.when must be one of 'none', 'before', 'after', 'both'; got 'befor'``. Modes are
declared as a ``typing.Literal`` and checked against ``typing.get_args`` of it, so the type and the
check cannot drift apart.

A notebook user passes whatever is at hand, so the public functions (:mod:`core`) check their
arguments with these too (collections, weights, word counts, text; tokenisers with
:func:`core.tokeniser.check_tokeniser` and :func:`core.tokeniser.require`): a wrong value never
surfaces as an ``AttributeError`` deep inside the engine, nor as a made-up result.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

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
            f"{'<' if high_open else '<='} {high}" if high != math.inf or high_open else "",
        ]
        bounds = " and ".join(b for b in ends if b)
        raise InputError(
            f"{_label(name, owner)} must be a number{' ' + bounds if bounds else ''}, got {excerpt(value)}"
        )
    return value


T = TypeVar("T")

#: a lone (unpaired) surrogate: no Unicode character, so text holding one cannot be encoded
_SURROGATE = re.compile("[\ud800-\udfff]")


def described(value: Any) -> str:
    """How a message quotes a wrong argument: its type and a short excerpt."""
    return f"{type(value).__name__} {excerpt(value)}"


def check_iterable(value: Any, name: str, what: str) -> Iterable:
    """``value`` if it is an iterable of ``what`` (a list, a tuple, a set, a generator, ...), unread.

    A single string is refused rather than read as its characters (``knock_out(tok, "▁the")``
    would otherwise look for the types ``▁``, ``t``, ``h``, ``e``); so are mappings and non-iterables."""
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name} must be an iterable of {what}, got one string {excerpt(value)}: pass a list")
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise InputError(f"{name} must be an iterable of {what} (e.g. a list), got {described(value)}")
    return value


def check_instances(items: Iterable[Any], kind: type[T], name: str, what: str) -> list[T]:
    """``items`` (see :func:`check_iterable`) as a list, each an instance of ``kind``."""
    values = list(check_iterable(items, name, what))
    for item in values:
        if not isinstance(item, kind):
            raise InputError(f"{name} must hold only {what}, found {described(item)}")
    return values


def check_weights(weights: Any, name: str = "weights") -> Mapping[str, float] | None:
    """None, or a mapping of words to weights, each a finite number > 0 (as the CLI's word-count
    files, whose counts are positive: :func:`core.formats.corpora.parse_word_counts`)."""
    if weights is None:
        return None
    if not isinstance(weights, Mapping):
        raise InputError(f"{name} must be a mapping of words to counts (e.g. a dict), got {described(weights)}")
    for word, weight in weights.items():
        if not isinstance(word, str):
            raise InputError(f"{name} must map words (str) to counts, found the key {described(word)}")
        check_number(f"{name}[{excerpt(word)}]", weight, 0.0, math.inf, low_open=True, high_open=True)
    return weights


def check_word_counts(counts: Mapping[Any, Any], name: str = "corpus") -> Mapping[str, int]:
    """``counts`` if it maps words (non-empty str) to counts that are positive integers, the rule
    of the CLI's word-count files (:func:`core.formats.corpora.parse_word_counts`)."""
    for word, count in counts.items():
        if not isinstance(word, str) or not word:
            raise InputError(f"{name} must map words (non-empty str) to counts, found the key {described(word)}")
        check_int(f"{name}[{excerpt(word)}]", count, 1)
    return counts


def check_text(text: Any, name: str = "text") -> str:
    """``text`` if it is a string that can be encoded: a lone surrogate (e.g. ``"a\\ud800b"``) is
    refused at its position, as HF ``tokenizers`` refuses it, rather than dropped or passed on."""
    if not isinstance(text, str):
        raise InputError(f"{name} must be a string, got {described(text)}")
    if not text.isascii():
        bad = _SURROGATE.search(text)
        if bad:
            raise InputError(
                f"{name} holds a lone surrogate U+{ord(bad.group()):04X} at position {bad.start()}, "
                "which is no Unicode character"
            )
    return text
