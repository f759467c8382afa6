"""Errors raised on bad input: each names the file, the line and what was expected."""
from __future__ import annotations


class InputError(ValueError):
    """A malformed file or value.

    ``source`` is a file name (or a label such as ``"<upload>"``), ``line`` is 1-based or None.
    ``str(err)`` reads ``source:line: message`` so the CLI and the UI can show it as is.
    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}:{self.line}: " if self.line is not None else f"{self.source}: "
        return where + self.message
