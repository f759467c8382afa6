r"""Regexes from files and the command line that are not known patterns, run with a time limit.

No paper section (hardening). A pattern a tokeniser file states can backtrack catastrophically
(``(?:\S|\S\S)+\d`` takes half a minute on a 38-character word) and nothing interrupts the
``regex`` engine from outside, so every call of :class:`LimitedPattern` passes the engine's
``timeout=`` and turns a timeout into :class:`InputError`. Which patterns are known, and so run
without it, :func:`core.pipeline.patterns.compile_regex` decides.

The limit is :func:`time_limit` seconds per call (:data:`TIME_LIMIT`, or the environment
variable ``TOKENISER_REGEX_TIME_LIMIT`` when set, read as each pattern is compiled) for a text of
up to :data:`CHARACTERS_PER_LIMIT` characters, and as much again for every further started
:data:`CHARACTERS_PER_LIMIT`, so that long texts pass (a pattern that does not backtrack takes a
few hundredths of a second per 100,000 characters).
The ``regex`` module counts the processor time of the whole process (C ``clock()``), checked
before each match and every 256 steps of backtracking; on a busy multi-threaded server the limit
can therefore come sooner in wall-clock time.

Compiling cannot be interrupted either, and the ``regex`` module writes counted repeats out
(``x{4294967294}`` asks for gigabytes), so :func:`check_size` refuses a custom pattern whose
repeats, written out, exceed :data:`MAX_EXPANDED_SIZE` elements (Oniguruma, which HF runs
patterns with, refuses any single count above that number).
"""

from __future__ import annotations

import os

import regex

from core.errors import InputError
from core.pipeline.visible import escape_controls

#: Seconds of processor time one call may take on up to CHARACTERS_PER_LIMIT characters.
TIME_LIMIT = 1.0
LIMIT_VARIABLE = "TOKENISER_REGEX_TIME_LIMIT"
CHARACTERS_PER_LIMIT = 100_000
#: Elements a custom pattern may have once its counted repeats are written out.
MAX_EXPANDED_SIZE = 100_000
_COUNT = regex.compile(r"\{(\d*),?(\d*)\}")
_BRACED_ESCAPES = frozenset("pPNxuUgk")
_EXCERPT = 40


def time_limit() -> float:
    """:data:`TIME_LIMIT`, or ``TOKENISER_REGEX_TIME_LIMIT`` when set (InputError unless it is a
    positive number of seconds)."""
    text = os.environ.get(LIMIT_VARIABLE)
    if text is None:
        return TIME_LIMIT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise InputError(f"{LIMIT_VARIABLE} must be a positive number of seconds, got {text!r}")
    return value


def pattern_excerpt(pattern: str) -> str:
    """A pattern for messages: cut to a readable length, control characters escaped, and
    backslashes left single (``repr`` would double them)."""
    shown = escape_controls(pattern)
    return shown if len(shown) <= _EXCERPT else shown[: _EXCERPT - 1] + "…"


class LimitedPattern:
    """A compiled regex whose every call gives up after the time limit with InputError.

    ``text`` is the pattern as its file states it (before flags such as ``(?m)`` are added);
    ``role`` says where it comes from in messages. Offers what the pre-tokenisers and
    normalisers call: ``findall``, ``finditer`` (a list, so the limit covers the whole search)
    and ``search``."""

    def __init__(self, compiled: regex.Pattern, text: str, role: str = "pre-tokeniser pattern"):
        self.compiled, self.text, self.role = compiled, text, role
        self.groups = compiled.groups
        self.limit = time_limit()
        self.failure: InputError | None = None  # the first timeout: later calls repeat it at once

    def findall(self, string: str) -> list:
        return self._call(lambda text, **limit: self.compiled.findall(text, **limit), string)

    def finditer(self, string: str) -> list[regex.Match]:
        return self._call(lambda text, **limit: list(self.compiled.finditer(text, **limit)), string)

    def search(self, string: str, pos: int = 0) -> regex.Match | None:
        return self._call(lambda text, **limit: self.compiled.search(text, pos, **limit), string)

    def _call(self, method, string: str):
        """``method(string)`` under the time limit. After one timeout the pattern is refused on every
        later call without running it, so a page that segments many lines pays the limit once."""
        if self.failure is not None:
            raise InputError(self.failure.message + "; refused on every text since")
        try:
            return method(string, timeout=self._seconds(string))
        except TimeoutError:
            self.failure = self._timed_out(string)
            raise InputError(self.failure.message) from None

    def _seconds(self, string: str) -> float:
        return self.limit * (1 + len(string) // CHARACTERS_PER_LIMIT)

    def _timed_out(self, string: str) -> InputError:
        return InputError(
            f"{self.role} '{pattern_excerpt(self.text)}' took more than "
            f"{self._seconds(string):g} s on a {len(string):,}-character text; the pattern is not "
            f"one of the known ones, so it runs with a time limit ({LIMIT_VARIABLE} sets it)"
        )

    def __repr__(self) -> str:
        return f"LimitedPattern({self.text!r})"


def limit_note(patterns: tuple[LimitedPattern, ...]) -> str | None:
    """The ``metadata["detected"]`` line saying that ``patterns`` (a pre-tokeniser's
    ``limited_patterns``) run with a time limit, or None when there are none."""
    custom = list(dict.fromkeys(p.text for p in patterns))
    if not custom:
        return None
    shown = ", ".join(f"'{pattern_excerpt(text)}'" for text in custom)
    return (
        f"custom regex{'es' * (len(custom) > 1)} {shown}: not one of the known tokenisers' patterns, so "
        f"{'each' if len(custom) > 1 else 'it'} runs with a time limit of {patterns[0].limit:g} s per call "
        f"(per {CHARACTERS_PER_LIMIT:,} characters of text)"
    )


def check_size(pattern: str, role: str) -> None:
    """InputError when ``pattern`` is too large once its counted repeats are written out."""
    size = len(pattern) if len(pattern) > MAX_EXPANDED_SIZE else expanded_size(pattern)
    if size > MAX_EXPANDED_SIZE:
        raise InputError(
            f"{role} '{pattern_excerpt(pattern)}' is too large: about {size:,} elements once its "
            f"counted repeats {{m,n}} are written out; the limit is {MAX_EXPANDED_SIZE:,}"
        )


def expanded_size(pattern: str) -> int:
    """About how many elements ``pattern`` has with its counted repeats ``{m,n}`` written out:
    every character, escape and character class counts one, a repeat multiplies what it repeats
    by its larger bound. Group syntax such as ``?:`` counts too (an overestimate)."""
    sizes, last, i, n = [0], 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        count = _COUNT.match(pattern, i) if c == "{" else None
        if count is not None and any(count.groups()):
            times = max(int(count[1] or 0), int(count[2] or 0))
            sizes[-1] += last * (times - 1)
            last, i = 0, count.end()
            continue
        if c == "(":
            sizes.append(0)
            last, i = 0, i + 1
            continue
        if c == ")" and len(sizes) > 1:
            last = sizes.pop()
            sizes[-1] += last
            i += 1
            continue
        if c == "\\":
            i = _escape_end(pattern, i)
        elif c == "[":
            i = _class_end(pattern, i)
        else:
            i += 1
        last = 1
        sizes[-1] += 1
    return sum(sizes)


def _escape_end(pattern: str, i: int) -> int:
    """Where the escape at ``i`` ends (``\\p{...}`` and the like run to their brace)."""
    if pattern[i + 1 : i + 2] in _BRACED_ESCAPES and pattern[i + 2 : i + 3] == "{":
        close = pattern.find("}", i + 3)
        return len(pattern) if close < 0 else close + 1
    return i + 2


def _class_end(pattern: str, i: int) -> int:
    """Where the character class opening at ``i`` ends (nested sets, escapes, a leading ``]``)."""
    depth, j = 1, i + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    while j < len(pattern) and depth:
        c = pattern[j]
        if c == "\\":
            j = _escape_end(pattern, j)
            continue
        depth += (c == "[") - (c == "]")
        j += 1
    return j
