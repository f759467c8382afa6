"""Loaders for morphological reference segmentations (the gold standard of [knockout §4.1]).

A reference set maps each word to its *morphs*, substrings that concatenate to the word, and,
when the source says so, to its *free morphs*: the coarser whole-word (compound) segmentation
used for the paper's "whole-word boundary" metric. Words are kept exactly as written (no
lowercasing, no Unicode normalisation), so ``Apple`` and ``apple`` are different words.

Formats (the ``format`` argument):

``"tsv"``
    Flat ``word<TAB>m1 m2 ...`` with an optional third column holding the free morphs the same way
    (``reanimatietechniek<TAB>re anim atie techn iek<TAB>reanimatie techniek``). Morphs are
    separated by spaces (runs of spaces are tolerated). Lines starting with ``#`` are comments,
    so a word that starts with ``#`` cannot be stored in this format. Every free-morph boundary
    must also be a morph boundary.
``"morphynet"``
    MorphyNet v1 rows (Batsuren et al.). Derivational: ``source, target, source POS, target POS,
    affix, prefix|suffix``; the target is segmented as ``affix + source`` (prefix) or
    ``source + affix`` (suffix). Inflectional: ``lemma, form, features, segmentation`` with
    ``lemma|ending`` (split at every ``|``) or ``-`` for an uninflected form, which becomes a
    single morph when the form equals the lemma. The parts must concatenate to the word; they
    are compared case-insensitively and cut from the word's own spelling (``Aachen``+``er`` on
    target ``Aachener``). No recursive expansion of the base and no spelling alignment
    (``happiness`` is rejected, not turned into ``happi ness``). Free morphs are unknown (None): a
    base may itself be a compound.
``"celex"``
    ``word<TAB>tree`` with a CELEX StrucLab tree whose leaves are the surface-aligned morphs, e.g.
    ``((((re)[V|.V],(anim)[V])[V],(atie)[N|V.])[N],((techn)[A],(iek)[N|A.])[N])[N]``. The leaves
    in order must concatenate to the word exactly (canonical, unaligned CELEX leaves such as
    ``animeer`` are rejected). Whitespace between tree tokens is ignored and tags are optional.
    Free morphs: a node whose tag contains ``|`` is bound. A prefix (``|.y``) is glued to the
    first free morph of its right sibling. A suffix (``|x.``) or an interfix (``|x.y``, or
    any other ``|`` tag) is glued to the last free morph of its left sibling. A bound node
    with no sibling on that side is glued to the other side. What is left are the compound
    boundaries: ``reanimatie techniek``, ``keizers kroon`` from
    ``((keizer)[N],(s)[N|N.N],(kroon)[N])[N]``.
``"sigmorphon"``
    SIGMORPHON 2022 word level: ``word<TAB>m1 @@m2 @@m3[<TAB>category]``, where the category
    has three bits (inflection, derivation, compound). The morphs must concatenate to the word
    (the task's canonical morphemes often do not, and those rows are rejected). Free morphs come
    from the category only where it settles them: compound bit 0 means no compound boundary,
    so the free morphs are ``(word,)``. Category ``001`` (compounding only) makes every morph
    boundary a compound boundary (a linking element then counts as a free morph of its own).
    Other categories with the compound bit set, and rows without a category, give None.
``"auto"``
    Sniffs the format from the first non-blank, non-comment lines and raises InputError
    describing what it saw when it cannot decide (for example a JSON tokenizer file, a
    word-count file, or lines without tabs).

Words and morphs may not contain whitespace, control characters or U+FEFF (a byte-order mark).
Bad lines never raise. A line with the wrong number of columns, an empty word, a morph with
whitespace, or morphs that do not concatenate to the word goes to ``ReferenceSet.rejected``
with a reason, and so does a repeated word (the first occurrence is kept). InputError is raised
for input that is not a reference file at all: empty, binary, not UTF-8, over ``max_bytes``,
or a file in which not a single line gives an entry. Blank lines are skipped; a UTF-8 BOM and
``\\r`` line ends are removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from core.errors import InputError, excerpt
from core.formats.corpora import (
    BAD_WORD_CHAR,
    char_kind,
    check_no_nul,
    decode_utf8,
    read_bytes,
    source_name,
    split_lines,
    word_problem,
)
from core.limits import MAX_LINE_CHARS  # longer lines are rejected unread (a JSON or binary blob, not an entry)

__all__ = [
    "FORMATS",
    "InvalidEntry",
    "ReferenceEntry",
    "ReferenceSet",
    "Rejection",
    "load_references",
    "parse_reference_bytes",
    "parse_references",
    "sniff_format",
]

FORMATS = ("tsv", "morphynet", "celex", "sigmorphon")
FORMAT_DESCRIPTIONS = {
    "tsv": "'word<TAB>morph morph ...' with an optional third column of free morphs",
    "morphynet": (
        "MorphyNet rows with 6 derivational columns (source, target, source POS, target POS, "
        "affix, prefix|suffix) or 4 inflectional columns (lemma, form, features, lemma|ending or -)"
    ),
    "celex": "'word<TAB>((morph)[TAG],(morph)[TAG])[TAG]' CELEX trees with surface-aligned leaves",
    "sigmorphon": "'word<TAB>m1 @@m2 @@m3<TAB>category' (SIGMORPHON 2022 word level)",
}
#: Deeper CELEX trees are rejected (real ones nest fewer than 10 levels).
MAX_TREE_DEPTH = 100
#: How many content lines the "auto" format looks at.
SNIFF_LINES = 50
_TEXT_PREVIEW = 200
_MORPH_BAD_CHAR = BAD_WORD_CHAR  # morphs follow the same character rule as words
_CATEGORY = re.compile(r"[01]{3}")


class _Reject(Exception):
    """Internal: the current line becomes a Rejection with this reason."""


# --------------------------------------------------------------------------------------------
# Data classes
# --------------------------------------------------------------------------------------------


def _split_positions(parts: tuple[str, ...]) -> frozenset[int]:
    positions = []
    offset = 0
    for part in parts[:-1]:
        offset += len(part)
        positions.append(offset)
    return frozenset(positions)


def _joined(parts) -> str:
    text = "+".join(repr(p) for p in parts)
    return text if len(text) <= 80 else text[:77] + "..."


def _segmentation_problem(word: str, morphs: tuple[str, ...], free_morphs: tuple[str, ...] | None) -> str | None:
    """Why (word, morphs, free_morphs) is not a valid entry, or None. Reasons read
    ``category: detail``; ReferenceSet.summary groups rejections by the category."""
    problem = word_problem(word)
    if problem is not None:
        return "empty word" if not word else f"bad word: {problem}"
    for label, parts in (("morphs", morphs), ("free morphs", free_morphs)):
        if parts is None:
            continue
        if not parts:
            return f"empty segmentation: no {label}"
        if "".join(parts) == word and "" not in parts:
            continue  # the word's characters were checked above, so the morphs' are fine too
        for part in parts:
            if not part:
                return f"empty morph: {label} {_joined(parts)}"
            bad = _MORPH_BAD_CHAR.search(part)
            if bad:
                kind = char_kind(bad.group())
                return f"morph contains {kind}: {excerpt(part)} (U+{ord(bad.group()):04X})"
        return (
            f"{label} do not concatenate to the word: {_joined(parts)} "
            f"gives {excerpt(''.join(parts))}, not {excerpt(word)}"
        )
    if free_morphs is not None:
        stray = _split_positions(free_morphs) - _split_positions(morphs)
        if stray:
            return (
                f"free-morph boundary inside a morph: position {min(stray)} of {excerpt(word)} "
                f"splits {_joined(free_morphs)} but not {_joined(morphs)}"
            )
    return None


class InvalidEntry(ValueError):
    """Raised by ReferenceEntry for inconsistent data; ``reason`` reads ``category: detail``."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class ReferenceEntry:
    """One reference word.

    ``morphs`` concatenate to ``word``. ``free_morphs`` is the whole-word (compound)
    segmentation when the source gives it: it also concatenates to ``word`` and only splits at
    morph boundaries. ``(word,)`` means "known: no compound boundary", and None means
    unknown. ``line`` is the 1-based line in the source (0 when built by hand). The word is
    kept as written (no lowercasing). Construction raises :class:`InvalidEntry` (a ValueError) on
    inconsistent data.
    """

    word: str
    morphs: tuple[str, ...]
    free_morphs: tuple[str, ...] | None = None
    line: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.morphs, str) or isinstance(self.free_morphs, str):
            raise InvalidEntry("bad word: morphs must be a sequence of strings, not one string")
        if not isinstance(self.morphs, tuple):
            object.__setattr__(self, "morphs", tuple(self.morphs))
        if self.free_morphs is not None and not isinstance(self.free_morphs, tuple):
            object.__setattr__(self, "free_morphs", tuple(self.free_morphs))
        if not isinstance(self.word, str) or not all(isinstance(m, str) for m in self.morphs):
            raise InvalidEntry("bad word: word and morphs must be strings")
        if self.free_morphs is not None and not all(isinstance(m, str) for m in self.free_morphs):
            raise InvalidEntry("bad word: free morphs must be strings")
        problem = _segmentation_problem(self.word, self.morphs, self.free_morphs)
        if problem is not None:
            raise InvalidEntry(problem)

    def boundaries(self, free: bool = False) -> frozenset[int]:
        """Split positions as character offsets in 1..len(word)-1 (an offset ``k`` splits
        ``word[:k]`` from ``word[k:]``). ``free=True`` uses the free morphs and raises
        ValueError when they are unknown (``free_morphs is None``)."""
        if not free:
            return _split_positions(self.morphs)
        if self.free_morphs is None:
            raise ValueError(f"free morphs of {self.word!r} are unknown (free_morphs is None)")
        return _split_positions(self.free_morphs)


@dataclass(frozen=True)
class Rejection:
    """A source line that gave no entry. ``reason`` reads ``category: detail``."""

    source: str
    line: int
    text: str
    reason: str

    @property
    def kind(self) -> str:
        """The reason's category (the part before the first ``:``)."""
        return self.reason.split(":", 1)[0]

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


@dataclass
class ReferenceSet:
    """Entries in file order, the rejected lines, the source name and the resolved format."""

    entries: list[ReferenceEntry]
    rejected: list[Rejection] = field(default_factory=list)
    source: str = "<text>"
    format: str = "tsv"

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        counts = f"{len(self.entries):,} entries, {len(self.rejected):,} rejected"
        return f"<ReferenceSet {self.source} ({self.format}): {counts}>"

    def words(self) -> list[str]:
        """The entry words in file order."""
        return [entry.word for entry in self.entries]

    def by_word(self) -> dict[str, ReferenceEntry]:
        """word -> entry (words are unique after parsing)."""
        return {entry.word: entry for entry in self.entries}

    def summary(self, examples: int = 3) -> str:
        """One line for the UI, grouping rejections by category with up to ``examples`` lines
        each, e.g. ``"812 entries; 3 rejected (morphs do not concatenate to the word: 3, e.g.
        line 7 'abc', line 9 'abd', line 12 'x')"``."""
        head = f"{len(self.entries)} entr{'y' if len(self.entries) == 1 else 'ies'}"
        if not self.rejected:
            return f"{head}; 0 rejected"
        groups: dict[str, list[Rejection]] = {}
        for rejection in self.rejected:
            groups.setdefault(rejection.kind, []).append(rejection)
        parts = []
        for kind, group in groups.items():
            part = f"{kind}: {len(group)}"
            shown = group[: max(examples, 0)]
            if shown:
                lines = ", ".join(f"line {r.line} {excerpt(r.text.split(chr(9), 1)[0], 30)}" for r in shown)
                part += f", e.g. {lines}" + (" ..." if len(group) > len(shown) else "")
            parts.append(part)
        return f"{head}; {len(self.rejected)} rejected ({'; '.join(parts)})"

    def to_tsv(self) -> str:
        """The entries in the flat ``"tsv"`` format, one per line, in order, without a header, so
        ``parse_references(s.to_tsv(), format="tsv")`` gives equal entries (same line numbers
        too, when the entries are numbered 1..n). Raises InputError if a word starts with ``#``,
        which the format would read as a comment."""
        out = []
        for entry in self.entries:
            if entry.word.startswith("#"):
                raise InputError(
                    f"cannot write {excerpt(entry.word)} as TSV: a line starting with '#' is a comment",
                    self.source,
                    entry.line or None,
                )
            row = f"{entry.word}\t{' '.join(entry.morphs)}"
            if entry.free_morphs is not None:
                row += f"\t{' '.join(entry.free_morphs)}"
            out.append(row)
        return "".join(row + "\n" for row in out)


# --------------------------------------------------------------------------------------------
# Line parsers: each returns (word, morphs, free_morphs) or raises _Reject
# --------------------------------------------------------------------------------------------

Parsed = tuple[str, tuple[str, ...], "tuple[str, ...] | None"]


def _columns(line: str, allowed: tuple[int, ...], expected: str) -> list[str]:
    columns = line.split("\t")
    if " " in line:
        columns = [column.strip(" ") for column in columns]
    # A trailing tab (an empty last column) is tolerated when it makes the count right.
    while len(columns) > min(allowed) and columns[-1] == "" and len(columns) not in allowed:
        columns.pop()
    if len(columns) not in allowed:
        raise _Reject(f"wrong number of columns: expected {expected}, found {len(columns)}")
    return columns


def _space_separated(column: str) -> tuple[str, ...]:
    parts = column.split(" ")
    if "" in parts:  # runs of spaces, or spaces at either end
        return tuple(part for part in parts if part)
    return tuple(parts)


def _parse_tsv(line: str) -> Parsed:
    columns = _columns(line, (2, 3), "2 or 3 tab-separated columns (word, morphs[, free morphs])")
    free = _space_separated(columns[2]) if len(columns) == 3 and columns[2] else None
    return columns[0], _space_separated(columns[1]), free


def _cut_like(word: str, parts: list[str]) -> tuple[str, ...] | None:
    """``parts`` as slices of ``word`` if they spell it, exactly or up to letter case."""
    if "".join(parts) == word:
        return tuple(parts)
    pieces = []
    offset = 0
    for part in parts:
        piece = word[offset : offset + len(part)]
        if piece.lower() != part.lower():
            return None
        pieces.append(piece)
        offset += len(part)
    return tuple(pieces) if offset == len(word) else None


def _not_concatenating(word: str, parts: list[str], note: str = "") -> _Reject:
    return _Reject(
        f"morphs do not concatenate to the word: {_joined(parts)} gives "
        f"{excerpt(''.join(parts))}, not {excerpt(word)}{note}"
    )


def _parse_morphynet(line: str) -> Parsed:
    columns = _columns(line, (4, 6), "6 (derivational) or 4 (inflectional) tab-separated columns")
    if len(columns) == 6:
        source, target, _source_pos, _target_pos, affix, affix_type = columns
        if affix_type not in ("prefix", "suffix"):
            raise _Reject(f"bad affix type: expected 'prefix' or 'suffix', found {excerpt(affix_type)}")
        if not source or not affix:
            raise _Reject("empty morph: empty source word or affix")
        parts = [affix, source] if affix_type == "prefix" else [source, affix]
        morphs = _cut_like(target, parts) if target else None
        if target and morphs is None:
            raise _not_concatenating(target, parts, f" ({affix_type} {excerpt(affix)})")
        return target, morphs or tuple(parts), None
    lemma, form, _features, segmentation = columns
    if segmentation == "-":
        if form and lemma.lower() != form.lower():
            raise _Reject(
                f"no concatenative segmentation: uninflected ('-') but the form {excerpt(form)} "
                f"differs from the lemma {excerpt(lemma)}"
            )
        return form, (form,), None
    parts = [part for part in segmentation.split("|") if part]
    if not parts:
        raise _Reject(f"empty segmentation: {excerpt(segmentation)}")
    morphs = _cut_like(form, parts) if form else None
    if form and morphs is None:
        raise _not_concatenating(form, parts)
    return form, morphs or tuple(parts), None


def _parse_sigmorphon(line: str) -> Parsed:
    columns = _columns(line, (2, 3), "2 or 3 tab-separated columns (word, m1 @@m2 ..., category)")
    word, segmentation = columns[0], columns[1]
    morphs = tuple(segmentation.split(" @@"))
    free: tuple[str, ...] | None = None
    if len(columns) == 3 and columns[2]:
        category = columns[2]
        if not _CATEGORY.fullmatch(category):
            raise _Reject(f"bad category: expected three 0/1 digits such as '110', found {excerpt(category)}")
        if category[2] == "0":
            free = (word,)
        elif category == "001":
            free = morphs
    if "".join(morphs) != word and not any(not m or _MORPH_BAD_CHAR.search(m) for m in morphs):
        raise _not_concatenating(
            word, list(morphs), " (SIGMORPHON morphs are canonical; only concatenating rows are kept)"
        )
    return word, morphs, free


@dataclass
class _CelexNode:
    text: str | None  # leaf morph, or None for an inner node
    children: list[_CelexNode]
    tag: str

    def leaves(self) -> list[str]:
        if self.text is not None:
            return [self.text]
        return [leaf for child in self.children for leaf in child.leaves()]

    @property
    def attachment(self) -> str:
        """'free', 'prefix' (tag |.y) or 'suffix' (tag |x. or interfix |x.y: glue left)."""
        if "|" not in self.tag:
            return "free"
        code = self.tag.rsplit("|", 1)[1].strip()
        return "prefix" if code.startswith(".") else "suffix"

    def free_morphs(self) -> list[str]:
        """[knockout §4.1] "whole-word boundaries": glue bound morphemes to siblings."""
        if self.text is not None:
            return [self.text]
        # (morphs, attachment); a bound child's morphs glued into one
        items = [
            (morphs if attachment == "free" else ["".join(morphs)], attachment)
            for morphs, attachment in ((child.free_morphs(), child.attachment) for child in self.children)
        ]
        # Suffixes and interfixes join the last free morph of their left neighbour.
        merged: list[tuple[list[str], str]] = []
        for item in items:
            if item[1] == "suffix" and merged:
                merged[-1][0][-1] += item[0][0]
            else:
                merged.append(item)
        # Prefixes join the first free morph of their right neighbour (right to left, so that
        # stacked prefixes all reach the stem).
        right_to_left: list[tuple[list[str], str]] = []
        for item in reversed(merged):
            if item[1] == "prefix" and right_to_left:
                right_to_left[-1][0][0] = item[0][0] + right_to_left[-1][0][0]
            else:
                right_to_left.append(item)
        items = right_to_left[::-1]
        # A bound node with no neighbour on its side (a suffix first, a prefix last) takes the
        # other side.
        while len(items) > 1:
            index = next((i for i, item in enumerate(items) if item[1] != "free"), None)
            if index is None:
                break
            bound = items.pop(index)[0][0]
            if index < len(items):
                items[index][0][0] = bound + items[index][0][0]
            else:
                items[index - 1][0][-1] += bound
        return [morph for item in items for morph in item[0]]


class _CelexTreeParser:
    """Recursive descent over ``node := '(' (morph | node (',' node)*) ')' ['[' tag ']']``."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def _skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _fail(self, expected: str) -> _Reject:
        found = repr(self._peek()) if self._peek() else "the end of the tree"
        return _Reject(f"malformed CELEX tree: expected {expected} at character {self.pos + 1}, found {found}")

    def parse(self) -> _CelexNode:
        node = self._node(0)
        self._skip_spaces()
        if self.pos != len(self.text):
            raise self._fail("the end of the tree")
        return node

    def _node(self, depth: int) -> _CelexNode:
        if depth > MAX_TREE_DEPTH:
            raise _Reject(f"malformed CELEX tree: nested deeper than {MAX_TREE_DEPTH} levels")
        self._skip_spaces()
        if self._peek() != "(":
            raise self._fail("'('")
        self.pos += 1
        self._skip_spaces()
        text: str | None
        if self._peek() == "(":
            children, text = self._children(depth), None
        else:
            children, text = [], self._morph()
        self.pos += 1  # the ')'
        self._skip_spaces()
        return _CelexNode(text, children, self._tag())

    def _children(self, depth: int) -> list[_CelexNode]:
        """``node (',' node)*`` up to (not past) the closing ``)``."""
        children = [self._node(depth + 1)]
        while True:
            self._skip_spaces()
            if self._peek() == ",":
                self.pos += 1
                children.append(self._node(depth + 1))
            elif self._peek() == ")":
                return children
            else:
                raise self._fail("',' or ')'")

    def _morph(self) -> str:
        """A leaf morph up to (not past) the closing ``)``."""
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in "()[],":
            self.pos += 1
        if self._peek() != ")":
            raise self._fail("')' after a morph")
        text = self.text[start : self.pos].strip()
        if not text:
            raise _Reject(f"empty morph: '()' at character {start} of the CELEX tree")
        return text

    def _tag(self) -> str:
        """An optional ``[tag]`` after a node; "" when there is none."""
        if self._peek() != "[":
            return ""
        start = self.pos + 1
        self.pos = start
        while self.pos < len(self.text) and self.text[self.pos] not in "()[],]":
            self.pos += 1
        if self._peek() != "]":
            raise self._fail("']' closing the tag")
        tag = self.text[start : self.pos].strip()
        self.pos += 1
        return tag


def _parse_celex(line: str) -> Parsed:
    columns = _columns(line, (2,), "2 tab-separated columns (word, CELEX tree)")
    word, tree_text = columns
    if not tree_text:
        raise _Reject("empty segmentation: no CELEX tree")
    tree = _CelexTreeParser(tree_text).parse()
    morphs = tree.leaves()
    if "".join(morphs) != word:
        if not any(_MORPH_BAD_CHAR.search(m) for m in morphs):
            raise _not_concatenating(word, morphs, " (CELEX leaves must be aligned to the spelling)")
        return word, tuple(morphs), None  # the whitespace check names the bad morph
    return word, tuple(morphs), tuple(tree.free_morphs())


_LINE_PARSERS: dict[str, Callable[[str], Parsed]] = {
    "tsv": _parse_tsv,
    "morphynet": _parse_morphynet,
    "celex": _parse_celex,
    "sigmorphon": _parse_sigmorphon,
}


# --------------------------------------------------------------------------------------------
# Format sniffing
# --------------------------------------------------------------------------------------------

_CELEX_TREE = re.compile(r"\s*\(.*\)\s*(\[[^\]]*\])?\s*")


def _line_kind(line: str) -> str:
    if len(line) > MAX_LINE_CHARS:
        return f"more than {MAX_LINE_CHARS} characters"
    columns = [column.strip(" ") for column in line.split("\t")]
    while len(columns) > 1 and columns[-1] == "":
        columns.pop()
    n = len(columns)
    if n == 6 and columns[5] in ("prefix", "suffix"):
        return "morphynet"
    if n == 4 and (columns[3] == "-" or "|" in columns[3]):
        return "morphynet"
    if n == 2 and _CELEX_TREE.fullmatch(columns[1]) and "(" in columns[1]:
        return "celex"
    if n in (2, 3) and (" @@" in columns[1] or (n == 3 and _CATEGORY.fullmatch(columns[2]))):
        return "sigmorphon"
    if n == 2 and columns[1].isdigit() and not columns[0].isdigit():
        return "wordcounts"
    if n in (2, 3):
        return "tsv"
    return "1 column (no tab)" if n == 1 else f"{n} columns"


def sniff_format(lines: list[str], source: str = "<text>") -> str:
    """Guess the format from the first :data:`SNIFF_LINES` content lines (blank lines and lines
    starting with ``#`` are skipped). Raises InputError saying what it saw when undecided."""
    content = [(number, line) for number, line in enumerate(lines, 1) if line.strip() and not line.startswith("#")][
        :SNIFF_LINES
    ]
    if not content:
        raise InputError(
            "no entries: the file holds only blank or comment lines; expected " + FORMAT_DESCRIPTIONS["tsv"],
            source,
        )
    first_number, first = content[0]
    stripped = first.lstrip()
    if stripped.startswith(("{", "[")) and "\t" not in first:
        raise InputError(
            "this looks like JSON (a tokenizer.json or vocab.json?), not a reference "
            f"segmentation file; expected one of: {_all_descriptions()}",
            source,
            first_number,
        )
    votes: dict[str, int] = {}
    for _, line in content:
        kind = _line_kind(line)
        votes[kind] = votes.get(kind, 0) + 1
    known = {kind: n for kind, n in votes.items() if kind in FORMATS}
    if votes.get("wordcounts", 0) > sum(known.values()):
        raise InputError(
            "this looks like a word-count file ('word<TAB>count'), not a reference segmentation "
            f"file; expected one of: {_all_descriptions()}",
            source,
            first_number,
        )
    if not known:
        if len(content) == 1:
            seen = next(iter(votes))
        else:
            seen = ", ".join(f"{n} line{'s' if n != 1 else ''} with {kind}" for kind, n in votes.items())
        raise InputError(
            "cannot tell the reference format: "
            + (
                "the only non-blank line has "
                if len(content) == 1
                else f"the first {len(content)} non-blank lines have "
            )
            + f"{seen} (line {first_number}: {excerpt(first)}); expected one of: {_all_descriptions()}",
            source,
            first_number,
        )
    # Most votes wins; on a tie a specific format beats the generic "tsv".
    return max(known, key=lambda kind: (known[kind], kind != "tsv"))


def _all_descriptions() -> str:
    return "; ".join(f"{name}: {text}" for name, text in FORMAT_DESCRIPTIONS.items())


# --------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------


def parse_references(text: str, source: str = "<text>", format: str = "auto") -> ReferenceSet:
    """Parse reference segmentations from ``text`` (see the module docstring for the formats).

    Words and morphs are kept exactly as written: no lowercasing, no Unicode normalisation.

    Bad lines become :class:`Rejection` objects; InputError is raised only when the input is not
    a reference file at all (empty, binary, unknown format, or no line parses).
    """
    if not isinstance(text, str):
        raise InputError(f"expected text, got {type(text).__name__}", source)
    if format != "auto" and format not in FORMATS:
        raise InputError(
            f"unknown reference format {format!r}; expected 'auto' or one of {', '.join(FORMATS)}",
            source,
        )
    check_no_nul(text, source)
    lines = split_lines(text)
    if not any(line.strip() for line in lines):
        raise InputError("empty file: no reference entries", source)
    if format == "auto":
        format = sniff_format(lines, source)
    entries, rejected = _parse_lines(lines, format, source)
    if not entries:
        if rejected:
            first = rejected[0]
            raise InputError(
                f"no valid {format} entries in {len(rejected)} lines; expected "
                f"{FORMAT_DESCRIPTIONS[format]}; the first problem: {first.reason}",
                source,
                first.line,
            )
        raise InputError(
            f"no entries: only comments and blank lines; expected {FORMAT_DESCRIPTIONS[format]}",
            source,
        )
    return ReferenceSet(entries, rejected, source, format)


def _parse_lines(lines: list[str], format: str, source: str) -> tuple[list[ReferenceEntry], list[Rejection]]:
    """The entries of the lines in ``format`` and the lines rejected (with their reasons)."""
    parse_line = _LINE_PARSERS[format]
    entries: list[ReferenceEntry] = []
    rejected: list[Rejection] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip() or (format == "tsv" and line.startswith("#")):
            continue
        try:
            if len(line) > MAX_LINE_CHARS:
                raise _Reject(f"line too long: {len(line)} characters, the limit is {MAX_LINE_CHARS}")
            word, morphs, free = parse_line(line)
            entry = ReferenceEntry(word, morphs, free, number)
            if word in first_line:
                raise _Reject(f"duplicate word: {excerpt(word)} first on line {first_line[word]}")
        except _Reject as reason:
            rejected.append(Rejection(source, number, line[:_TEXT_PREVIEW], str(reason)))
            continue
        except InvalidEntry as invalid:
            rejected.append(Rejection(source, number, line[:_TEXT_PREVIEW], invalid.reason))
            continue
        first_line[word] = number
        entries.append(entry)
    return entries, rejected


def parse_reference_bytes(data: bytes, source: str, format: str = "auto", max_bytes: int | None = None) -> ReferenceSet:
    """:func:`parse_references` for raw bytes (uploads). Checks the size limit first; invalid
    UTF-8 raises InputError with its line number."""
    return parse_references(decode_utf8(data, source, max_bytes), source, format)


def load_references(path, format: str = "auto", max_bytes: int | None = None) -> ReferenceSet:
    """Read a reference file (never more than ``max_bytes`` bytes) and parse it."""
    source = source_name(path)
    return parse_reference_bytes(read_bytes(path, max_bytes), source, format, max_bytes)
