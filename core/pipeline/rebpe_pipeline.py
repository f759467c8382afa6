"""The ReBPE preprocessing pipeline of [rebpe Appendix B.1], paragraph "Preprocessing".

Steps, applied to every whitespace-separated string of the NFKC text (steps 2 and 3 commute:
punctuation pieces never contain whitespace, and an apostrophe "surrounded by non-space" is
exactly one strictly inside such a string):

1. NFKC normalisation (:meth:`ReBPEPipeline.normalise`; sources index this text).
2. Split on punctuation, except hyphens and apostrophes with a non-space character on both sides.
3. Split on whitespace (Unicode White_Space), dropping it.
4. Split English contractions off the end of a string: ``'ve 'll 're 's 'd 'm n't`` (straight
   ``'`` or curly ``’`` apostrophe, any letter case), repeatedly, never leaving an empty rest.
5. Split other apostrophes that have a character on both sides inside a string; each sticks to
   the longer neighbour (option ``apostrophe_to``; a tie goes left).
6. Prefix the word-start marker ``_``.
7. Group digits in runs of ``digit_group_size`` from the right.
8. Isolate runs of hyphens (``-`` U+002D, ``‐`` U+2010) with a character on each side.
9. Lowercase; a string whose first non-marker character is a capital (lowercasing changes it)
   is preceded by a separate capital-marker pretoken ``↑`` (footnote 5: ``_Шрѣдингер`` ->
   ``[↑, _шрѣдингер]``).

Choices the paper leaves open, each an option of :class:`ReBPEPipeline` (defaults first):

* ``prefix``: "word" -- only the first piece of each whitespace-separated string carries the
  marker, because it marks a word start (so :meth:`~ReBPEPipeline.decode` can restore spacing);
  "piece" -- every string left after step 5 gets it (literal reading of step 6). Digit groups and
  hyphens split off in steps 7-8 never get it (those steps come after step 6).
* ``punctuation_runs``: "run" -- a maximal run of punctuation stays one string (the F1 filter's
  extra step 3 "isolate groups of the same punctuation mark" implies step 2 keeps runs); "same" --
  runs of one repeated mark; "single" -- every mark alone (HF ``Punctuation``).
  Punctuation is Unicode category P* plus ASCII punctuation (``$+<=>^`|~``); ``split_symbols``
  adds every S* character (``€``, ``↑``, emoji).
* ``contractions``: step 4 on/off. Contraction pieces are exempt from step 5.
* ``apostrophe_to``: "longer" as the paper's text says; "shorter" matches its examples
  (French ``l'``, Catalan ``'ns``) better. Only apostrophes with a non-apostrophe on both sides
  inside the string are split points.
* ``digit_group_size`` (0 disables step 7) and ``isolate_digits``: True -- digit groups are
  separated from neighbouring non-digits too (``abc12345`` -> ``abc 12 345``); False -- only
  split inside digit runs (``abc12345`` -> ``abc12 345``). Digits are Unicode Nd.
  Because step 7 precedes step 8, ``COVID-19`` gives ``_covid- 19`` with isolation.
* ``lowercase``: step 9 on/off; ``marker`` and ``capital_marker`` choose the two symbols.
  Lowercasing is per character, so one character can become two (``İ`` -> ``i̇``), both with
  the same source; only the first character's capital is recorded (``NASA`` decodes as
  ``Nasa``).
"""

from __future__ import annotations

import string
import unicodedata
from dataclasses import dataclass
from itertools import pairwise

import regex

from core.errors import InputError
from core.options import check_bool, check_choice, check_int
from core.pipeline.base import Pretoken, Pretokeniser
from core.pipeline.spec_checks import check_marker, check_text, spec_arguments
from core.pipeline.visible import escape_controls

HYPHENS = frozenset("-\u2010")
APOSTROPHES = frozenset("'\u2019")
_ASCII_PUNCTUATION = frozenset(string.punctuation)
_WORD = regex.compile(r"\P{White_Space}+")
_CONTRACTION = regex.compile(r"(?:[nN]['\u2019][tT]|['\u2019](?:[vV][eE]|[lL][lL]|[rR][eE]|[sSdDmM]))\Z")

PREFIX_MODES = ("word", "piece")
PUNCTUATION_RUNS = ("run", "same", "single")
APOSTROPHE_SIDES = ("longer", "shorter")


@dataclass
class _Piece:
    """A contiguous substring ``text`` of the NFKC text starting at ``start``."""

    text: str
    start: int
    marked: bool = False  # carries the word-start marker
    contraction: bool = False  # produced by step 4 (exempt from step 5)

    def cut(self, bounds: list[int]) -> list[_Piece]:
        """Pieces between consecutive cut positions (0 and len included); marker on the first."""
        bounds = sorted({0, len(self.text), *bounds})
        return [
            _Piece(self.text[a:b], self.start + a, self.marked and a == 0, self.contraction)
            for a, b in pairwise(bounds)
        ]


class ReBPEPipeline(Pretokeniser):
    """[rebpe App. B.1] "Preprocessing" (steps 1-9); ``marker`` defaults to ``_``."""

    kind = "rebpe"

    def __init__(
        self,
        marker: str = "_",
        capital_marker: str = "↑",
        prefix: str = "word",
        punctuation_runs: str = "run",
        split_symbols: bool = False,
        contractions: bool = True,
        apostrophe_to: str = "longer",
        digit_group_size: int = 3,
        isolate_digits: bool = True,
        lowercase: bool = True,
    ):
        self.marker: str = check_marker("marker", marker)
        self.capital_marker = check_marker("capital_marker", capital_marker)
        if self.capital_marker == self.marker:
            raise InputError("marker and capital_marker must differ")
        self.prefix = check_choice("prefix", prefix, PREFIX_MODES)
        self.punctuation_runs = check_choice("punctuation_runs", punctuation_runs, PUNCTUATION_RUNS)
        self.split_symbols = check_bool("split_symbols", split_symbols)
        self.contractions = check_bool("contractions", contractions)
        self.apostrophe_to = check_choice("apostrophe_to", apostrophe_to, APOSTROPHE_SIDES)
        self.digit_group_size = check_int("digit_group_size", digit_group_size)
        self.isolate_digits = check_bool("isolate_digits", isolate_digits)
        self.lowercase = check_bool("lowercase", lowercase)

    # -- step 1 ----------------------------------------------------------------------------------
    def normalise(self, text: str) -> str:
        return unicodedata.normalize("NFKC", text)

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        text = self.normalise(check_text(text))
        out: list[Pretoken] = []
        for word in _WORD.finditer(text):  # step 3 (see module docstring)
            pieces = self._split_punctuation(_Piece(word.group(), word.start()))  # step 2
            if self.contractions:
                pieces = [q for p in pieces for q in self._split_contractions(p)]  # step 4
            pieces = [q for p in pieces for q in self._split_apostrophes(p)]  # step 5
            for i, piece in enumerate(pieces):  # step 6
                piece.marked = i == 0 or self.prefix == "piece"
            if self.digit_group_size:
                pieces = [q for p in pieces for q in self._group_digits(p)]  # step 7
            pieces = [q for p in pieces for q in self._isolate_hyphens(p)]  # step 8
            for piece in pieces:
                out.extend(self._emit(piece))  # steps 6 and 9
        return out

    # -- step 2 ----------------------------------------------------------------------------------
    def _is_punctuation(self, c: str) -> bool:
        category = unicodedata.category(c)
        return category[0] == "P" or c in _ASCII_PUNCTUATION or (self.split_symbols and category[0] == "S")

    def _split_punctuation(self, piece: _Piece) -> list[_Piece]:
        s = piece.text
        splits = [
            self._is_punctuation(c) and c not in HYPHENS and not (c in APOSTROPHES and 0 < i < len(s) - 1)
            for i, c in enumerate(s)
        ]
        bounds = []
        for i in range(1, len(s)):
            if splits[i] != splits[i - 1] or (
                splits[i]
                and (self.punctuation_runs == "single" or (self.punctuation_runs == "same" and s[i] != s[i - 1]))
            ):
                bounds.append(i)
        return piece.cut(bounds)

    # -- step 4 ----------------------------------------------------------------------------------
    def _split_contractions(self, piece: _Piece) -> list[_Piece]:
        tail: list[_Piece] = []
        while True:
            match = _CONTRACTION.search(piece.text)
            if match is None or match.start() == 0:
                break
            rest, contraction = piece.cut([match.start()])
            contraction.contraction = True
            tail.insert(0, contraction)
            piece = rest
        return [piece, *tail]

    # -- step 5 ----------------------------------------------------------------------------------
    def _split_apostrophes(self, piece: _Piece) -> list[_Piece]:
        s = piece.text
        if piece.contraction:
            return [piece]
        points = [
            i
            for i in range(1, len(s) - 1)
            if s[i] in APOSTROPHES and s[i - 1] not in APOSTROPHES and s[i + 1] not in APOSTROPHES
        ]
        if not points:
            return [piece]
        edges = [-1, *points, len(s)]
        lengths = [edges[k + 1] - edges[k] - 1 for k in range(len(edges) - 1)]  # segments
        bounds = []
        for k, i in enumerate(points):
            left, right = lengths[k], lengths[k + 1]
            to_left = left >= right if self.apostrophe_to == "longer" else left <= right
            bounds.append(i + 1 if to_left else i)
        return piece.cut(bounds)

    # -- step 7 ----------------------------------------------------------------------------------
    def _group_digits(self, piece: _Piece) -> list[_Piece]:
        s, n = piece.text, self.digit_group_size
        bounds = []
        i = 0
        while i < len(s):
            if not s[i].isdecimal():
                i += 1
                continue
            j = i
            while j < len(s) and s[j].isdecimal():
                j += 1
            if self.isolate_digits:
                bounds += [i, j]
            bounds += list(range(j - n, i, -n))
            i = j
        return piece.cut(bounds)

    # -- step 8 ----------------------------------------------------------------------------------
    def _isolate_hyphens(self, piece: _Piece) -> list[_Piece]:
        s = piece.text
        bounds = []
        i = 0
        while i < len(s):
            if s[i] not in HYPHENS:
                i += 1
                continue
            j = i
            while j < len(s) and s[j] in HYPHENS:
                j += 1
            if i > 0 and j < len(s):
                bounds += [i, j]
            i = j
        return piece.cut(bounds)

    # -- steps 6 and 9 ---------------------------------------------------------------------------
    def _emit(self, piece: _Piece) -> list[Pretoken]:
        text = piece.text
        sources = list(range(piece.start, piece.start + len(text)))
        out = []
        if self.lowercase:
            if text[0].lower() != text[0]:
                out.append(Pretoken(self.capital_marker, (-1,)))
            text, sources = _lowercase_with_sources(text, sources)
        if piece.marked:
            text = self.marker + text
            sources = [-1] * len(self.marker) + sources
        out.append(Pretoken(text, tuple(sources)))
        return out

    # -- inverse ---------------------------------------------------------------------------------
    def decode(self, tokens: list[str]) -> str:
        """Text of a token sequence: a token equal to ``capital_marker`` capitalises the next
        character; a ``marker`` at the start of a token becomes a space (none before the first
        word). Whitespace comes back as single spaces, inner capitals stay lowercase, and a
        literal ``_`` at the start of a token is read as a marker (the paper's marker collides
        with the underscore; choose another ``marker`` if that matters)."""
        out: list[str] = []
        capitalise = False
        for token in tokens:
            if self.lowercase and token == self.capital_marker:
                capitalise = True
                continue
            if token.startswith(self.marker):
                token = token[len(self.marker) :]
                if out:
                    out.append(" ")
            if token:
                if capitalise:
                    token = _capitalise(token[0]) + token[1:]
                    capitalise = False
                out.append(token)
        return "".join(out)

    def display(self, token: str) -> str:
        return escape_controls(token)

    def to_spec(self) -> dict:
        return {
            "kind": self.kind,
            "marker": self.marker,
            "capital_marker": self.capital_marker,
            "prefix": self.prefix,
            "punctuation_runs": self.punctuation_runs,
            "split_symbols": self.split_symbols,
            "contractions": self.contractions,
            "apostrophe_to": self.apostrophe_to,
            "digit_group_size": self.digit_group_size,
            "isolate_digits": self.isolate_digits,
            "lowercase": self.lowercase,
        }

    @classmethod
    def from_spec(cls, spec: dict) -> ReBPEPipeline:
        allowed = (
            "marker",
            "capital_marker",
            "prefix",
            "punctuation_runs",
            "split_symbols",
            "contractions",
            "apostrophe_to",
            "digit_group_size",
            "isolate_digits",
            "lowercase",
        )
        return cls(**spec_arguments(spec, cls.kind, allowed))


def _lowercase_with_sources(text: str, sources: list[int]) -> tuple[str, list[int]]:
    """``text.lower()`` with one source per output character (context-dependent final sigma
    included: it never changes lengths)."""
    lowered = text.lower()
    per_char = [len(c.lower()) for c in text]
    if sum(per_char) != len(lowered):  # cannot happen with Python's case mappings; be safe
        lowered = "".join(c.lower() for c in text)
    return lowered, [s for s, n in zip(sources, per_char, strict=True) for _ in range(n)]


def _capitalise(c: str) -> str:
    """The capital that lowercases to ``c`` where one character does (``ß`` -> ``ẞ``)."""
    for candidate in (c.upper(), c.title()):
        if len(candidate) == 1:
            return candidate
    return "\u1e9e" if c == "ß" else c.upper()
