"""Loaders for running text and word-count files.

Running text (:func:`iter_text_lines`) is streamed line by line, so corpora larger than memory
can be counted. Word-count files hold one ``word<TAB>count`` pair per line
(:func:`parse_word_counts`, :func:`load_word_counts`, :func:`save_word_counts`).

Format decisions, all of them deliberate:

* Encoding is UTF-8 only. A leading UTF-8 BOM is dropped, and so is a ``\\r`` before each line end.
  Lines end at ``\\n`` only; other Unicode line separators (``\\x85``, ``\\u2028``) stay inside the
  line, so our line numbers match what ``grep -n`` shows. Invalid UTF-8 and NUL
  bytes (binary or UTF-16 files) raise :class:`~core.errors.InputError` with the line number.
* Words are kept exactly as written: no lowercasing, no Unicode normalisation.
* Word counts: each line is ``word<TAB>count``. A line **without any tab** may instead be
  ``word count`` with exactly one space, the way many published frequency lists are written.
  The word must be non-empty and contain no whitespace, control character or U+FEFF. The
  count must be a positive decimal integer of ASCII digits (no sign, separators, decimals or
  exponents), and the text they describe (each count times the word's length + 1) may hold at most
  :data:`~core.limits.MAX_COUNT` characters; a line
  may hold at most :data:`~core.limits.MAX_LINE_CHARS` characters. Blank lines are skipped. A
  first line whose count field is a column name (``count``, ``counts``, ``freq``,
  ``frequency``, ``n``) is taken as a header and skipped. ``#`` has no special meaning, because
  ``#`` is a legitimate pretoken. A word listed twice is an error that names both lines; counts
  are never summed silently.
* :func:`save_word_counts` writes tab-separated lines sorted by count (descending) and then by word,
  and :func:`load_word_counts` reads them back to an equal dict. It refuses (InputError) what
  could not be read back: an empty table, bad words, counts that are not positive ints.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import BinaryIO

from core.counting.chunks import MAX_TEXT_LINE_BYTES
from core.errors import InputError, excerpt
from core.formats.input_files import open_input, source_name
from core.limits import MAX_COUNT, MAX_TABLE_BYTES, check_line_length

__all__ = [
    "decode_utf8",
    "iter_text_lines",
    "load_word_counts",
    "parse_word_count_bytes",
    "parse_word_counts",
    "read_bytes",
    "save_word_counts",
    "source_name",
    "split_lines",
    "word_counts_from_text",
    "word_problem",
]

#: Column names that mark the first line of a word-count file as a header.
HEADER_COUNT_NAMES = frozenset({"count", "counts", "freq", "frequency", "n"})
_COUNT = re.compile(r"[0-9]{1,40}")
#: Whitespace (str.isspace) and C0/C1 control characters are never part of a word.
#: U+FEFF is refused too: read as a byte-order mark at the start of a file, it would not round-trip.
BAD_WORD_CHAR = re.compile(r"[\s\x00-\x1f\x7f-\x9f\ufeff]")
_EXPECTED_COUNTS = "expected 'word<TAB>count' (or 'word count' with a single space) per line"


# --------------------------------------------------------------------------------------------
# Shared byte-level helpers (also used by core.references.files)
# --------------------------------------------------------------------------------------------


def _utf16_hint(data: bytes) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return " (the file starts with a UTF-16 byte-order mark; save it as UTF-8)"
    return ""


def _size_error(size: int, max_bytes: int, source: str) -> InputError:
    return InputError(f"file too large: {size} bytes, the limit is {max_bytes} bytes", source)


def decode_utf8(data: bytes, source: str, max_bytes: int | None = None, expected: str = "a UTF-8 text file") -> str:
    """Decode ``data`` as UTF-8 and drop a leading BOM.

    Raises InputError naming the line (and byte column) of the first invalid byte, the size and
    the limit when ``len(data) > max_bytes``, and the line of a NUL byte (binary or UTF-16 data);
    each says what was ``expected``.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError(f"expected bytes, got {type(data).__name__}", source)
    data = bytes(data)
    if max_bytes is not None and len(data) > max_bytes:
        raise _size_error(len(data), max_bytes, source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise InputError(
            f"not valid UTF-8: byte 0x{data[err.start]:02x} at byte column {column} "
            f"({err.reason}); expected {expected}{_utf16_hint(data)}",
            source,
            line,
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    check_no_nul(text, source, expected)
    return text


def check_no_nul(text: str, source: str, expected: str = "a UTF-8 text file") -> None:
    """Raise InputError on the line of the first NUL character: text files never contain one."""
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise InputError(
            f"binary data (NUL character); expected {expected} (is this a binary or UTF-16 file?)",
            source,
            line,
        )


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` split at ``\\n``, with a trailing ``\\r`` and a leading BOM removed."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_bytes(path, max_bytes: int | None = None) -> bytes:
    """All bytes of the file at ``path``; never more than ``max_bytes`` (InputError if larger)."""
    source = source_name(path)
    with open_input(path, max_bytes) as handle:
        try:
            data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
        except OSError as err:
            raise InputError(f"cannot read file: {err.strerror or err}", source) from None
    if max_bytes is not None and len(data) > max_bytes:
        # Only reached for files whose size fstat cannot tell (pipes, growing files).
        raise InputError(f"file too large: more than {max_bytes} bytes, the limit is {max_bytes} bytes", source)
    return data


# --------------------------------------------------------------------------------------------
# Running text
# --------------------------------------------------------------------------------------------


def iter_text_lines(path, max_bytes: int | None = None) -> Iterator[str]:
    """Stream the lines of a UTF-8 text file, without line endings.

    Opening the file and checking its size happen at once (InputError for a missing file or one
    larger than ``max_bytes``); decoding happens while iterating, so an invalid UTF-8 sequence or
    a NUL byte raises InputError with its line number only when that line is reached. Blank lines
    are yielded as ``""``; text is not otherwise altered.
    """
    source = source_name(path)
    return _stream_lines(open_input(path, max_bytes), source, max_bytes)


def _stream_lines(handle: BinaryIO, source: str, max_bytes: int | None) -> Iterator[str]:
    with handle:
        total = 0
        line_no = 0
        while True:
            try:
                raw = handle.readline(MAX_TEXT_LINE_BYTES + 1)
            except OSError as err:
                raise InputError(f"cannot read file: {err.strerror or err}", source, line_no + 1) from None
            if not raw:
                return
            line_no += 1
            if len(raw) > MAX_TEXT_LINE_BYTES and not raw.endswith(b"\n"):
                raise InputError(f"line longer than {MAX_TEXT_LINE_BYTES:,} bytes, the limit", source, line_no)
            total += len(raw)
            if max_bytes is not None and total > max_bytes:
                raise InputError(
                    f"file too large: more than {max_bytes} bytes, the limit is {max_bytes} bytes",
                    source,
                    line_no,
                )
            if b"\x00" in raw:
                raise InputError(
                    "binary data (NUL byte); expected a UTF-8 text file (is this a binary or UTF-16 file?)",
                    source,
                    line_no,
                )
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(
                    f"not valid UTF-8: byte 0x{raw[err.start]:02x} at byte column {err.start + 1} "
                    f"({err.reason}); expected a UTF-8 text file{_utf16_hint(raw) if line_no == 1 else ''}",
                    source,
                    line_no,
                ) from None
            if line_no == 1 and text.startswith("\ufeff"):
                text = text[1:]
            if text.endswith("\n"):
                text = text[:-1]
            if text.endswith("\r"):
                text = text[:-1]
            yield text


def word_counts_from_text(lines: Iterable[str], pretokenise: Callable[[str], list[str]] | None = None) -> Counter:
    """Count the words of running text.

    ``pretokenise`` splits one line into words (for example ``Pretokeniser.pretokenise``); the
    default is ``str.split`` (split at whitespace). Empty strings are not counted. A single
    ``str`` passed as ``lines`` is taken as a whole text and split at ``\\n`` (not iterated per
    character).
    """
    if isinstance(lines, str):
        lines = split_lines(lines)
    split = pretokenise if pretokenise is not None else str.split
    counts: Counter = Counter()
    for line in lines:
        counts.update(word for word in split(line) if word)
    return counts


# --------------------------------------------------------------------------------------------
# Word counts
# --------------------------------------------------------------------------------------------


def char_kind(char: str) -> str:
    """How error messages name a character that may not appear in a word or morph."""
    if char == "\ufeff":
        return "a byte-order mark"
    return "whitespace" if char.isspace() else "a control character"


def word_problem(word: str) -> str | None:
    """Why ``word`` cannot be a word in a counts or reference file, or None if it can."""
    if not word:
        return "empty word"
    bad = BAD_WORD_CHAR.search(word)
    if bad:
        return f"word {excerpt(word)} contains {char_kind(bad.group())} (U+{ord(bad.group()):04X})"
    return None


def _parse_count_line(line: str, line_no: int, source: str) -> tuple[str, str]:
    """Split one line into (word, count field); InputError when it has the wrong shape."""
    if "\t" in line:
        fields = line.split("\t")
        if len(fields) != 2:
            raise InputError(
                f"{_EXPECTED_COUNTS}; found {len(fields)} tab-separated columns in {excerpt(line)}",
                source,
                line_no,
            )
        return fields[0], fields[1].strip(" ")
    fields = line.split(" ")
    if len(fields) == 2 and fields[0] and fields[1]:
        return fields[0], fields[1]
    hint = ""
    tokens = line.split()
    if len(tokens) == 2 and tokens[0].isdigit() and not tokens[1].isdigit():
        hint = " (count before word, as 'uniq -c' writes? put the word first)"
    raise InputError(f"{_EXPECTED_COUNTS}; found {excerpt(line)}{hint}", source, line_no)


def parse_word_counts(text: str, source: str = "<text>") -> dict[str, int]:
    """Parse ``word<TAB>count`` lines into a dict (insertion order = file order).

    See the module docstring for the exact rules (single-space lines, header, duplicates). Every
    problem raises :class:`~core.errors.InputError` naming ``source``, the line and what was
    expected; an empty file is an error too.
    """
    if not isinstance(text, str):
        raise InputError(f"expected text, got {type(text).__name__}", source)
    check_no_nul(text, source)
    counts: dict[str, int] = {}
    first_line: dict[str, int] = {}
    seen_content = False
    total = 0
    for line_no, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        check_line_length(line, source, line_no)
        word, count_text = _parse_count_line(line, line_no, source)
        if not seen_content:
            seen_content = True
            if count_text.lower() in HEADER_COUNT_NAMES:
                continue
        problem = word_problem(word)
        if problem is not None:
            raise InputError(f"{problem}; {_EXPECTED_COUNTS}", source, line_no)
        if not _COUNT.fullmatch(count_text):
            too_long = count_text.isascii() and count_text.isdigit()
            what = f"{len(count_text)} digits (too many)" if too_long else excerpt(count_text)
            raise InputError(f"count must be a positive whole number of ASCII digits, found {what}", source, line_no)
        count = int(count_text)
        if count <= 0:
            raise InputError(f"count must be positive, found {count_text}", source, line_no)
        total += count * (len(word) + 1)  # the characters and word ends of the text counted
        if total > MAX_COUNT:
            what = "count is" if count > MAX_COUNT else "the counts up to here describe a text of"
            unit = "" if count > MAX_COUNT else " characters"
            raise InputError(f"{what} more than {MAX_COUNT:,}{unit} (2**63-1), the limit", source, line_no)
        if word in counts:
            raise InputError(
                f"duplicate word {excerpt(word)}: already on line {first_line[word]}; each word must appear once",
                source,
                line_no,
            )
        counts[word] = count
        first_line[word] = line_no
    if not counts:
        raise InputError(f"no word counts found (empty file); {_EXPECTED_COUNTS}", source)
    return counts


def parse_word_count_bytes(data: bytes, source: str, max_bytes: int | None = None) -> dict[str, int]:
    """:func:`parse_word_counts` for raw bytes (uploads): size limit and UTF-8 errors with line."""
    return parse_word_counts(decode_utf8(data, source, max_bytes), source)


def load_word_counts(path, max_bytes: int | None = MAX_TABLE_BYTES) -> dict[str, int]:
    """Read a word-count file (see :func:`parse_word_counts`); ``max_bytes`` caps the file size."""
    source = source_name(path)
    return parse_word_count_bytes(read_bytes(path, max_bytes), source, max_bytes)


def save_word_counts(counts: Mapping[str, int], path) -> None:
    """Write ``word<TAB>count`` lines, by count descending, then by word (code-point order).

    The file is UTF-8 without BOM and is replaced atomically. Raises InputError (a ValueError)
    before writing anything if a word or a count could not be read back by
    :func:`load_word_counts`.
    """
    source = source_name(path)
    items = list(counts.items())
    for word, count in items:
        if not isinstance(word, str):
            raise InputError(f"word must be a string, got {type(word).__name__}: {word!r}", source)
        problem = word_problem(word)
        if problem is not None:
            raise InputError(f"cannot save: {problem}", source)
        if isinstance(count, bool) or not isinstance(count, int) or not 0 < count <= MAX_COUNT:
            raise InputError(f"cannot save: count of {excerpt(word)} must be a positive int, found {count!r}", source)
    if not items:
        raise InputError("cannot save an empty word-count table (it could not be loaded back)", source)
    items.sort(key=lambda item: (-item[1], item[0]))
    body = "".join(f"{word}\t{count}\n" for word, count in items)
    directory = os.path.dirname(os.path.abspath(os.fsdecode(path)))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".wordcounts-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(body)
            os.chmod(tmp, 0o644)  # mkstemp creates 0600; a saved table is an ordinary file
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as err:
        raise InputError(f"cannot write file: {err.strerror or err}", source) from None
