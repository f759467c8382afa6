"""HF ``tokenizers`` pre-tokenizers (the ``pre_tokenizer`` field of a tokenizer.json).

Implements the semantics of ``tokenizers`` 0.23 (Rust ``src/pre_tokenizers``,
``NormalizedString::split``, ``PreTokenizedString``): Sequence (any length and nesting), Split
(``{"String": s}`` literal or ``{"Regex": r}``, time-limited unless a known pattern; behaviours
Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous; ``invert``), ByteLevel,
Metaspace, Digits, Punctuation, Whitespace, WhitespaceSplit, UnicodeScripts, CharDelimiterSplit,
BertPreTokenizer and FixedLength.

A pre-tokenizer maps a list of pieces ``(text, sources)`` to a new list; empty pieces are dropped
(as ``PreTokenizedString.split`` does). ``sources`` index the original text (-1 for inserted
characters) or are None when the caller does not need them (the fast path). Each step works on
every piece independently; the only step that looks at a piece's position is Metaspace with
``prepend_scheme: "first"``, which prepends the replacement only to a piece that starts at
offset 0 of the original text (so not after an added token, nor to later pieces of an earlier
Split).

Character classes follow Rust: whitespace is ``White_Space``; Digits uses ``\\p{N}``
(``char::is_numeric``); Punctuation and BertPreTokenizer use ASCII punctuation plus ``\\p{P}``;
UnicodeScripts uses the scripts HF's table knows (others count as "Any", like unassigned
characters), with Hiragana, Katakana and U+30FC counted as Han and the space as "Any"; as in HF,
"Any" characters before the first character with a script are dropped.
Script data and regexes come from the ``regex`` module, so characters whose Unicode data changed
between Python's and HF's Unicode versions may be classified differently.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import regex

from core.pipeline.byte_level import text_to_byte_chars
from core.pipeline.huggingface.normalizers import (
    check_keys,
    compile_hf_pattern,
    describe_value,
    fail,
    field,
    find_matches,
    single_char,
)
from core.pipeline.limited_regex import LimitedPattern
from core.pipeline.metaspace import PREPEND_SCHEMES
from core.pipeline.patterns import GPT2_PATTERN, compile_pattern

#: ``(text, sources)``; sources None on the fast path.
Piece = tuple[str, "list[int] | None"]

BEHAVIOURS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


def slice_piece(piece: Piece, spans) -> list[Piece]:
    text, src = piece
    if src is None:
        return [(text[s:e], None) for s, e in spans if e > s]
    return [(text[s:e], src[s:e]) for s, e in spans if e > s]


def _events(n: int, matches: list[tuple[int, int]], invert: bool) -> list[tuple[int, int, bool]]:
    """HF ``find_matches``: matches and the gaps between them, flagged, in order."""
    out, prev = [], 0
    for s, e in matches:
        if prev != s:
            out.append((prev, s, invert))
        out.append((s, e, not invert))
        prev = e
    if prev != n:
        out.append((prev, n, invert))
    return out


def split_spans(n: int, matches: list[tuple[int, int]], behaviour: str, invert: bool = False) -> list[tuple[int, int]]:
    """The spans ``NormalizedString::split`` keeps for a string of length ``n``."""
    events = _events(n, matches, invert)
    if behaviour == "Isolated":
        return [(s, e) for s, e, _ in events]
    if behaviour == "Removed":
        return [(s, e) for s, e, m in events if not m]
    acc: list[list[int]] = []
    previous = False
    if behaviour == "Contiguous":
        for s, e, m in events:
            if m == previous and acc:
                acc[-1][1] = e
            else:
                acc.append([s, e])
            previous = m
    elif behaviour == "MergedWithPrevious":
        for s, e, m in events:
            if m and not previous and acc:
                acc[-1][1] = e
            else:
                acc.append([s, e])
            previous = m
    else:  # MergedWithNext
        for s, e, m in reversed(events):
            if m and not previous and acc:
                acc[-1][0] = s
            else:
                acc.append([s, e])
            previous = m
        acc.reverse()
    return [(s, e) for s, e in acc]


def split_piece(
    piece: Piece, pattern: regex.Pattern | LimitedPattern, behaviour: str, invert: bool = False, per_char: bool = False
) -> list[Piece]:
    """Split a piece on the matches of ``pattern`` (``per_char``: a one-character class whose
    runs may be found as longer matches and are cut into single characters)."""
    text = piece[0]
    if not text:
        return []
    if per_char:
        matches = [(i, i + 1) for s, e in (m.span() for m in pattern.finditer(text)) for i in range(s, e)]
    else:
        matches = find_matches(pattern, text)
    if not matches and not invert:
        return [piece]  # one unmatched stretch: every behaviour keeps it
    return slice_piece(piece, split_spans(len(text), matches, behaviour, invert))


class HFPreTokenizer(ABC):
    type_name = ""
    #: True when the step needs real sources (piece positions) even on the fast path.
    needs_sources = False

    @abstractmethod
    def pre_tokenize(self, pieces: list[Piece]) -> list[Piece]:
        """The pieces after this step."""

    def steps(self) -> list[HFPreTokenizer]:
        return [self]

    def describe(self) -> str:
        return self.type_name


class PieceWise(HFPreTokenizer):
    """A step that cuts every piece on its own."""

    def pre_tokenize(self, pieces: list[Piece]) -> list[Piece]:
        out: list[Piece] = []
        for piece in pieces:
            out.extend(self.split(piece))
        return out

    @abstractmethod
    def split(self, piece: Piece) -> list[Piece]:
        """The pieces one piece is cut into."""


class Sequence(HFPreTokenizer):
    type_name = "Sequence"

    def __init__(self, items: list[HFPreTokenizer]):
        self.items = items
        self.needs_sources = any(p.needs_sources for p in items)

    def pre_tokenize(self, pieces: list[Piece]) -> list[Piece]:
        for p in self.items:
            pieces = p.pre_tokenize(pieces)
        return pieces

    def steps(self) -> list[HFPreTokenizer]:
        return [s for p in self.items for s in p.steps()]

    def describe(self) -> str:
        return " → ".join(s.describe() for s in self.steps()) or "none"


class Split(PieceWise):
    type_name = "Split"

    def __init__(self, pattern: regex.Pattern | LimitedPattern, pattern_json: dict, behaviour: str, invert: bool):
        self.pattern, self.pattern_json = pattern, pattern_json
        self.behaviour, self.invert = behaviour, invert

    def split(self, piece: Piece) -> list[Piece]:
        return split_piece(piece, self.pattern, self.behaviour, self.invert)

    def describe(self) -> str:
        ((kind, pat),) = self.pattern_json.items()
        shown = "regex" if kind == "Regex" and len(pat) > 12 else repr(pat)
        return f"Split({shown}, {self.behaviour}{', invert' if self.invert else ''})"


_GPT2 = compile_pattern(GPT2_PATTERN)


def byte_level_piece(piece: Piece) -> Piece:
    """A piece written in the GPT-2 byte alphabet (sources repeated per UTF-8 byte)."""
    text, src = piece
    out = text_to_byte_chars(text)
    if src is None or len(out) == len(text):
        return out, src
    sources: list[int] = []
    for c, s in zip(text, src, strict=True):
        sources.extend([s] * len(c.encode("utf-8", "surrogatepass")))
    return out, sources


class ByteLevel(HFPreTokenizer):
    type_name = "ByteLevel"

    def __init__(self, add_prefix_space: bool, trim_offsets: bool, use_regex: bool):
        self.add_prefix_space, self.trim_offsets, self.use_regex = add_prefix_space, trim_offsets, use_regex

    def pre_tokenize(self, pieces: list[Piece]) -> list[Piece]:
        out: list[Piece] = []
        for text, src in pieces:
            if self.add_prefix_space and not text.startswith(" "):
                text = " " + text
                src = None if src is None else [-1, *src]
            if self.use_regex:
                out.extend(split_piece((text, src), _GPT2, "Isolated"))
            elif text:
                out.append((text, src))
        return [byte_level_piece(p) for p in out]

    def describe(self) -> str:
        flags = [f for f, on in (("prefix space", self.add_prefix_space), ("GPT-2 regex", self.use_regex)) if on]
        return f"ByteLevel({', '.join(flags)})" if flags else "ByteLevel"


class Metaspace(HFPreTokenizer):
    type_name = "Metaspace"

    def __init__(self, replacement: str, prepend_scheme: str, split: bool):
        self.replacement, self.prepend_scheme, self.split_ = replacement, prepend_scheme, split
        self.needs_sources = prepend_scheme == "first"
        self._pattern = regex.compile(regex.escape(replacement))

    def pre_tokenize(self, pieces: list[Piece]) -> list[Piece]:
        r = self.replacement
        out: list[Piece] = []
        for index, (text, src) in enumerate(pieces):
            text = text.replace(" ", r)
            prepend = False
            if self.prepend_scheme != "never" and not text.startswith(r):
                prepend = self.prepend_scheme == "always" or _origin(pieces, index) == 0
            if prepend:
                text = r + text
                src = None if src is None else [-1, *src]
            if self.split_:
                out.extend(split_piece((text, src), self._pattern, "MergedWithNext"))
            elif text:
                out.append((text, src))
        return out

    def describe(self) -> str:
        return f"Metaspace({self.replacement!r}, {self.prepend_scheme}{', split' if self.split_ else ''})"


def _origin(pieces: list[Piece], index: int) -> int:
    """Where piece ``index`` starts in the original text (HF ``offsets_original().0``): its
    first real character. Inserted characters share HF's alignment of their neighbour, so a
    piece of inserted characters only takes the next real character's position (or the
    previous one's)."""
    src = pieces[index][1]
    if src is None:
        return 0 if index == 0 else -1
    for s in src:
        if s >= 0:
            return s
    for _, later in pieces[index + 1 :]:
        for s in later or ():
            if s >= 0:
                return s
    for _, earlier in reversed(pieces[:index]):
        for s in reversed(earlier or ()):
            if s >= 0:
                return s
    return 0


class _CharClassSplit(PieceWise):
    """Split on every character of a class with a fixed behaviour."""

    def __init__(self, pattern: regex.Pattern, behaviour: str, type_name: str):
        self.pattern, self.behaviour, self.type_name = pattern, behaviour, type_name

    def split(self, piece: Piece) -> list[Piece]:
        return split_piece(piece, self.pattern, self.behaviour, per_char=True)


_DIGITS = regex.compile(r"\p{N}+")
_PUNCT = regex.compile(r"[\p{P}!-/:-@\[-`{-~]+")
_WS_RUN = regex.compile(r"\s+")
_WHITESPACE_WORDS = compile_pattern("whitespace")


class Digits(_CharClassSplit):
    def __init__(self, individual_digits: bool):
        self.individual_digits = individual_digits
        super().__init__(_DIGITS, "Isolated" if individual_digits else "Contiguous", "Digits")

    def describe(self) -> str:
        return "Digits(individual)" if self.individual_digits else "Digits"


class Punctuation(_CharClassSplit):
    def __init__(self, behaviour: str):
        super().__init__(_PUNCT, behaviour, "Punctuation")

    def describe(self) -> str:
        return f"Punctuation({self.behaviour})"


class Whitespace(PieceWise):
    type_name = "Whitespace"

    def split(self, piece: Piece) -> list[Piece]:
        text = piece[0]
        return slice_piece(piece, [m.span() for m in _WHITESPACE_WORDS.finditer(text)])


class WhitespaceSplit(PieceWise):
    type_name = "WhitespaceSplit"

    def split(self, piece: Piece) -> list[Piece]:
        text, src = piece
        if src is None:
            return [(w, None) for w in _WS_RUN.split(text) if w]
        spans, done = [], 0
        for m in _WS_RUN.finditer(text):
            spans.append((done, m.start()))
            done = m.end()
        spans.append((done, len(text)))
        return slice_piece(piece, spans)


class CharDelimiterSplit(PieceWise):
    type_name = "CharDelimiterSplit"

    def __init__(self, delimiter: str):
        self.delimiter = delimiter

    def split(self, piece: Piece) -> list[Piece]:
        text, src = piece
        if src is None:
            return [(w, None) for w in text.split(self.delimiter) if w]
        spans, done = [], 0
        for i, c in enumerate(text):
            if c == self.delimiter:
                spans.append((done, i))
                done = i + 1
        spans.append((done, len(text)))
        return slice_piece(piece, spans)

    def describe(self) -> str:
        return f"CharDelimiterSplit({self.delimiter!r})"


class BertPreTokenizer(PieceWise):
    type_name = "BertPreTokenizer"

    def split(self, piece: Piece) -> list[Piece]:
        return [q for p in WhitespaceSplit().split(piece) for q in split_piece(p, _PUNCT, "Isolated", per_char=True)]


class FixedLength(PieceWise):
    type_name = "FixedLength"

    def __init__(self, length: int):
        self.length = length

    def split(self, piece: Piece) -> list[Piece]:
        n, k = len(piece[0]), self.length
        if k == 0:
            return []
        return slice_piece(piece, [(i, min(i + k, n)) for i in range(0, n, k)])

    def describe(self) -> str:
        return f"FixedLength({self.length})"


# Scripts known to HF's table (tokenizers src/pre_tokenizers/unicode_scripts/scripts.rs).
_SCRIPTS = [
    "Adlam",
    "Ahom",
    "AnatolianHieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "BassaVah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "CanadianAboriginal",
    "Carian",
    "CaucasianAlbanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Duployan",
    "EgyptianHieroglyphs",
    "Elbasan",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "ImperialAramaic",
    "Inherited",
    "InscriptionalPahlavi",
    "InscriptionalParthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "KayahLi",
    "Kharoshthi",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "LinearA",
    "LinearB",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "MeeteiMayek",
    "MendeKikakui",
    "MeroiticCursive",
    "MeroiticHieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "NewTaiLue",
    "Newa",
    "Nko",
    "Ogham",
    "OlChiki",
    "OldHungarian",
    "OldItalic",
    "OldNorthArabian",
    "OldPermic",
    "OldPersian",
    "OldSouthArabian",
    "OldTurkic",
    "Oriya",
    "Osage",
    "Osmanya",
    "PahawhHmong",
    "Palmyrene",
    "PauCinHau",
    "PhagsPa",
    "Phoenician",
    "PsalterPahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "SoraSompeng",
    "Sundanese",
    "SylotiNagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "TaiLe",
    "TaiTham",
    "TaiViet",
    "Takri",
    "Tamil",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Ugaritic",
    "Vai",
    "WarangCiti",
    "Yi",
]
_SCRIPT_RUNS: regex.Pattern | None = None


def _script_runs() -> regex.Pattern:
    global _SCRIPT_RUNS
    if _SCRIPT_RUNS is None:
        branches = []
        for name in _SCRIPTS:
            if name == "Han":
                branches.append(r"([\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc]+)")
            elif name == "Common":
                branches.append(r"([^\P{sc=Common} \u30fc]+)")
            else:
                branches.append(rf"(\p{{sc={name}}}+)")
        _SCRIPT_RUNS = regex.compile("|".join(branches))
    return _SCRIPT_RUNS


class UnicodeScripts(PieceWise):
    type_name = "UnicodeScripts"

    def split(self, piece: Piece) -> list[Piece]:
        text = piece[0]
        cuts, last = [], None
        for m in _script_runs().finditer(text):
            if m.lastindex != last:
                cuts.append(m.start())
            last = m.lastindex
        # like HF, pieces start at the first character with a script: leading "Any" characters
        # (spaces, unassigned) are dropped, and so is a piece without any script
        bounds = [*cuts, len(text)]
        return slice_piece(piece, list(pairwise(bounds)))


# --------------------------------------------------------------------------- JSON

PRE_TOKENIZER_TYPES = (
    "Sequence",
    "Split",
    "ByteLevel",
    "Metaspace",
    "Digits",
    "Punctuation",
    "Whitespace",
    "WhitespaceSplit",
    "UnicodeScripts",
    "CharDelimiterSplit",
    "BertPreTokenizer",
    "FixedLength",
)


def _behaviour(obj: dict, path: str, default: Any = ...) -> str:
    value = field(obj, "behavior", path, str, default)
    if value not in BEHAVIOURS:
        raise fail(f"{path}.behavior", f"{describe_value(value)} is not one of {', '.join(BEHAVIOURS)}")
    return value


def pre_tokenizer_from_json(obj: Any, path: str = "pre_tokenizer") -> HFPreTokenizer | None:
    """The pre-tokenizer an HF ``pre_tokenizer`` JSON value describes (None for null)."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise fail(path, f"expected an object or null, got {describe_value(obj)}")
    kind = obj.get("type")
    if kind not in PRE_TOKENIZER_TYPES:
        raise fail(f"{path}.type", f"{describe_value(kind)} is not one of {', '.join(PRE_TOKENIZER_TYPES)}")
    if kind == "Sequence":
        check_keys(obj, path, ("pretokenizers",))
        inner = field(obj, "pretokenizers", path, list)
        return Sequence(
            [
                p
                for i, item in enumerate(inner)
                if (p := pre_tokenizer_from_json(item, f"{path}.pretokenizers[{i}]")) is not None
            ]
        )
    if kind == "Split":
        check_keys(obj, path, ("pattern", "behavior", "invert"))
        pattern, pattern_json = compile_hf_pattern(obj.get("pattern"), f"{path}.pattern")
        return Split(pattern, pattern_json, _behaviour(obj, path), field(obj, "invert", path, bool, False))
    if kind == "ByteLevel":
        check_keys(obj, path, ("add_prefix_space", "trim_offsets", "use_regex"))
        return ByteLevel(
            field(obj, "add_prefix_space", path, bool, True),
            field(obj, "trim_offsets", path, bool, True),
            field(obj, "use_regex", path, bool, True),
        )
    if kind == "Metaspace":
        return _metaspace_from_json(obj, path)
    if kind == "Digits":
        check_keys(obj, path, ("individual_digits",))
        return Digits(field(obj, "individual_digits", path, bool, False))
    if kind == "Punctuation":
        check_keys(obj, path, ("behavior",))
        return Punctuation(_behaviour(obj, path, "Isolated"))
    if kind == "CharDelimiterSplit":
        check_keys(obj, path, ("delimiter",))
        return CharDelimiterSplit(single_char(obj, "delimiter", path))
    if kind == "FixedLength":
        return _fixed_length_from_json(obj, path)
    check_keys(obj, path, ())
    return _WITHOUT_OPTIONS[kind]()


def _metaspace_from_json(obj: dict, path: str) -> Metaspace:
    """``Metaspace``; the older ``add_prefix_space: false`` means the scheme "never"."""
    check_keys(obj, path, ("replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"))
    replacement = single_char(obj, "replacement", path, "▁")
    scheme = field(obj, "prepend_scheme", path, str, None)
    if scheme is not None and scheme not in PREPEND_SCHEMES:
        raise fail(f"{path}.prepend_scheme", f"{describe_value(scheme)} is not one of {', '.join(PREPEND_SCHEMES)}")
    legacy = field(obj, "add_prefix_space", path, bool, None)
    if legacy is False:
        if scheme not in (None, "never"):
            raise fail(f"{path}.add_prefix_space", f"false contradicts prepend_scheme {describe_value(scheme)}")
        scheme = "never"
    return Metaspace(replacement, scheme or "always", field(obj, "split", path, bool, True))


def _fixed_length_from_json(obj: dict, path: str) -> FixedLength:
    check_keys(obj, path, ("length",))
    length = field(obj, "length", path, int, 5)
    if length < 0:
        raise fail(f"{path}.length", f"must be >= 0, got {length}")
    return FixedLength(length)


#: the pre-tokenizers that take no options, by type
_WITHOUT_OPTIONS: dict[str, Callable[[], HFPreTokenizer]] = {
    "Whitespace": Whitespace,
    "WhitespaceSplit": WhitespaceSplit,
    "UnicodeScripts": UnicodeScripts,
    "BertPreTokenizer": BertPreTokenizer,
}
