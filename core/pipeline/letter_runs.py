r"""The BoundlessBPE patterns in linear time on long runs of letters (no paper section: performance).

The first branch of both BoundlessBPE patterns ([boundless App. A] Listing 3 B-1, and the
authors' ``ULTIMATE_PATTERN``), contractions ``" ?(?:\p{L}\p{M}*)+['’](?:\p{L}\p{M}*)+"``, is
tried at the start of every pretoken and reads to the end of the run of letters before it fails.
A run of n letters holding many pretokens (text without whitespace, where every capital starts
one) therefore costs O(n²): 100,000 such letters took 4 s, a million several minutes.

In a run of letters with no apostrophe on either side, that branch cannot match or run through
it (after an apostrophe it reads the whole run: ``a'aaaA`` is one pretoken); and no other branch
joins a lower-case letter (with its marks) to an upper-case letter after it (B-3 and B-5 take
upper-case letters only, B-4 at most one upper-case letter before lower-case ones, B-6 neither
kind). The snake-case branch (B-2) joins them after an ``_`` in Listing 3, so a run after ``_``
is left whole. Every such lower-to-upper position is a pretoken boundary; the text is cut at one
of them every :data:`CUT_EVERY` characters of a long run, and the pieces split one by one give
exactly the matches of the whole text (no branch looks behind, and each piece ends with a
lower-case letter, where no lookahead of the patterns reaches past it).
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

CUT_EVERY = 2_000  # characters of a letter run between cuts
DIGIT_CUT_EVERY = 300  # digits of a run between cuts (a multiple of 3)
_LETTER_RUN = regex.compile(r"(?:\p{L}\p{M}*)++")
_LOWER_THEN_UPPER = regex.compile(r"\p{Ll}\p{M}*+(?=\p{Lu})")
_APOSTROPHES = frozenset("'\u2019")
_DIGIT_RUN = regex.compile(r"(?:\p{N}\p{M}*)++")
_MARK = regex.compile(r"\p{M}")


class _Span:
    """A match position in the whole text (what the pre-tokenisers read of a match)."""

    __slots__ = ("end", "start")

    def __init__(self, start: int, end: int):
        self.start, self.end = start, end

    def span(self) -> tuple[int, int]:
        return self.start, self.end


class LetterRunCut:
    """A compiled BoundlessBPE pattern whose ``finditer`` and ``findall`` cut long letter runs."""

    def __init__(self, compiled: regex.Pattern):
        self.compiled = compiled
        self.groups = compiled.groups

    def findall(self, text: str) -> list[str]:
        return [text[slice(*match.span())] for match in self.finditer(text)]

    def finditer(self, text: str) -> Iterator:
        if len(text) <= CUT_EVERY:
            yield from self.compiled.finditer(text)
            return
        start = 0
        for cut in (*cuts(text), len(text)):
            for match in self.compiled.finditer(text, start, cut):
                yield _Span(*match.span())
            start = cut

    def search(self, text: str, pos: int = 0):
        return self.compiled.search(text, pos)


def cuts(text: str) -> list[int]:
    """Positions, at least :data:`CUT_EVERY` characters apart within a letter run, where the text
    can be cut without changing its pretokens (see the module docstring)."""
    found = []
    for run in _LETTER_RUN.finditer(text):
        start, end = run.span()
        next_to_apostrophe = text[end : end + 1] in _APOSTROPHES or text[start - 1 : start] in _APOSTROPHES
        if end - start <= CUT_EVERY or next_to_apostrophe or text[start - 1 : start] == "_":
            continue
        position = start + CUT_EVERY
        while position < end:
            cut = _LOWER_THEN_UPPER.search(text, position - 1, end)
            if cut is None:
                break
            found.append(cut.end())
            position = cut.end() + CUT_EVERY
    return sorted(found + digit_cuts(text))


def digit_cuts(text: str) -> list[int]:
    """Positions, :data:`DIGIT_CUT_EVERY` digits apart, inside runs of digits without marks,
    a multiple of 3 digits before the run's end: the numbers branch (B-7) groups a run in threes
    from its end with a lookahead that reads to that end (O(n²) on one run), and both sides of
    such a cut see the same number of digits modulo 3 before the run ends (or the cut, ``$``)."""
    found: list[int] = []
    for run in _DIGIT_RUN.finditer(text):
        start, end = run.span()
        if end - start > CUT_EVERY and not _MARK.search(text, start, end):
            found.extend(range(end - 3 * ((end - start - 1) // 3), end, DIGIT_CUT_EVERY))
    return found
