"""Errors raised on bad input: each names the file, the line and what was expected, and quotes
at most a short excerpt of the input (:func:`excerpt`)."""

from __future__ import annotations

import reprlib

#: the most characters of the input an error message quotes
EXCERPT_CHARS = 80
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 3, 4, 4, EXCERPT_CHARS, 40


def shorten(text: str, limit: int = 200) -> str:
    """``text`` (a message that may hold input, e.g. a problem found in a loaded file) cut to
    ``limit`` characters, with ``…`` when cut."""
    return text if len(text) <= limit else text[:limit] + "…"


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr`` of ``value`` as an error message quotes it: text and bytes cut to ``limit``
    characters, a structure to a few items, with ``…`` where something was left out."""
    if isinstance(value, (str, bytes)):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    try:
        text = _SHORT.repr(value)
    except ValueError:  # an int of more than 4,300 digits has no repr
        text = f"<{type(value).__name__}>"
    return shorten(text, limit)


#: the longest message an InputError keeps; the middle of a longer one is left out (a safety net:
#: messages quote the input through :func:`excerpt`, and the fuzzers flag any message near this long)
MAX_MESSAGE_CHARS = 2_000


class InputError(ValueError):
    """A malformed file or value.

    ``source`` is a file name (or a label such as ``"<upload>"``), ``line`` is 1-based or None.
    ``str(err)`` reads ``source:line: message`` so the CLI and the UI can show it as is.
    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        if isinstance(message, str) and len(message) > MAX_MESSAGE_CHARS:
            head = MAX_MESSAGE_CHARS * 2 // 3
            message = message[:head] + " … " + message[-(MAX_MESSAGE_CHARS - head - 3) :]
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}:{self.line}: " if self.line is not None else f"{self.source}: "
        return where + self.message


def ensure(condition: bool, message: str, source: str | None = None) -> None:
    """InputError(message, source) unless ``condition``: the readers' field checks."""
    if not condition:
        raise InputError(message, source)
