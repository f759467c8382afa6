"""A corpus as byte ranges of its files ("chunks"), each read on its own, in any process.

No paper section: plumbing. A chunk owns the lines that *start* inside its byte range, so cutting
a file anywhere loses and repeats nothing. Lines are read as :func:`core.formats.corpora.iter_text_lines`
reads them: UTF-8, a BOM at the start of a file dropped, ``\\n`` and one ``\\r`` before it removed,
NUL bytes and invalid UTF-8 refused with the file and line number.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from core.errors import InputError

#: Default chunk size: large enough that a worker's start-up cost does not matter, small enough
#: that a few chunks per worker fit in memory.
CHUNK_BYTES = 16 << 20
#: bytes of one line of running text (a --corpus or --words-file line: one document), read a line
#: at a time; a longer "line" is a binary or generated file, not text
MAX_TEXT_LINE_BYTES = 16 << 20
#: Chunks of one corpus at most: more cost more to plan and schedule than to count (a corpus of
#: 1.6 TB in chunks of the default size).
MAX_CHUNKS = 100_000


@dataclass(frozen=True)
class Chunk:
    """Bytes ``start`` to ``end`` of the file at ``path``; ``index`` its place in the corpus."""

    path: str
    start: int
    end: int
    index: int

    @property
    def size(self) -> int:
        return self.end - self.start


def corpus_files(corpus: str | os.PathLike | Iterable[str | os.PathLike]) -> list[str]:
    """The files of a corpus: a file, a folder (its files, recursively), a glob (``**`` allowed),
    or a list of these; sorted, each once. InputError when nothing matches."""
    items = [corpus] if isinstance(corpus, (str, os.PathLike)) else list(corpus)
    files: dict[str, None] = {}
    for item in items:
        name = os.fsdecode(item)
        if os.path.isdir(name):
            matches = [os.path.join(root, f) for root, _, names in os.walk(name) for f in names]
        elif os.path.exists(name):
            matches = [name]
        else:
            matches = glob.glob(name, recursive=True)
        for match in sorted(matches):
            if os.path.isfile(match):
                files[match] = None
    if not files:
        raise InputError("no corpus files found (expected a file, a folder or a glob that matches files)", str(corpus))
    return list(files)


def plan_chunks(files: Iterable[str], chunk_bytes: int = CHUNK_BYTES) -> list[Chunk]:
    """Every file cut into ranges of about ``chunk_bytes`` (an empty file gives no chunk)."""
    if chunk_bytes < 1:
        raise InputError(f"chunk size must be at least 1 byte, got {chunk_bytes}")
    sizes: list[tuple[str, int]] = []
    for path in files:
        try:
            sizes.append((path, os.path.getsize(path)))
        except OSError as err:
            raise InputError(f"cannot read file: {err.strerror or err}", path) from None
    if sum(-(-size // chunk_bytes) for _, size in sizes) > MAX_CHUNKS:
        raise InputError(
            f"chunks of {chunk_bytes:,} bytes would cut the corpus ({sum(size for _, size in sizes):,} bytes) "
            f"into more than {MAX_CHUNKS:,} chunks, the limit; choose larger chunks (--chunk-mb)"
        )
    chunks: list[Chunk] = []
    for path, size in sizes:
        for start in range(0, size, chunk_bytes):
            chunks.append(Chunk(path, start, min(start + chunk_bytes, size), len(chunks)))
    return chunks


def fingerprint(files: Iterable[str]) -> list[dict]:
    """Path, size and modification time of each file: a checkpoint is only valid for these."""
    result = []
    for path in files:
        stat = os.stat(path)
        result.append({"path": path, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
    return result


def chunk_bytes_of(chunk: Chunk) -> tuple[int, bytes]:
    """(offset of the first byte, the bytes of the lines starting in the chunk)."""
    try:
        with open(chunk.path, "rb") as handle:
            start = chunk.start
            if start > 0:
                handle.seek(start - 1)
                if handle.read(1) != b"\n":  # the line under way belongs to the previous chunk
                    _rest_of_line(handle, chunk.path, start)
                    start = handle.tell()
            if start >= chunk.end:
                return start, b""
            data = handle.read(chunk.end - start)
            if not data.endswith(b"\n"):
                data += _rest_of_line(handle, chunk.path, start + len(data))
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", chunk.path) from None
    return start, data


def _rest_of_line(handle, path: str, offset: int) -> bytes:
    """The bytes up to the next line end (at most :data:`MAX_TEXT_LINE_BYTES`);
    ``offset``: where ``handle`` stands, to name the line of a longer one in the error."""
    rest = handle.readline(MAX_TEXT_LINE_BYTES + 1)
    if len(rest) > MAX_TEXT_LINE_BYTES:
        raise _line_too_long(path, _line_number(path, offset))
    return rest


def _line_too_long(path: str, line: int) -> InputError:
    return InputError(f"line longer than {MAX_TEXT_LINE_BYTES:,} bytes, the limit", path, line)


def _line_number(path: str, offset: int) -> int:
    """The 1-based line holding byte ``offset`` of ``path`` (read again only to report an error)."""
    lines, block = 1, 1 << 20
    with open(path, "rb") as handle:
        for done in range(0, offset, block):
            lines += handle.read(min(block, offset - done)).count(b"\n")
    return lines


def chunk_lines(chunk: Chunk) -> Iterator[str]:
    """The lines starting in ``chunk``, decoded, without line ends (blank lines as ``""``)."""
    start, data = chunk_bytes_of(chunk)
    if not data:
        return
    nul = data.find(b"\x00")
    if nul != -1:
        raise InputError(
            "binary data (NUL byte); expected a UTF-8 text file (is this a binary or UTF-16 file?)",
            chunk.path,
            _line_number(chunk.path, start + nul),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(
            f"not valid UTF-8: byte 0x{data[err.start]:02x} ({err.reason}); expected a UTF-8 text file",
            chunk.path,
            _line_number(chunk.path, start + err.start),
        ) from None
    if start == 0 and text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for index, line in enumerate(lines):  # a character has at most 4 bytes: most lines are not encoded
        if len(line) > MAX_TEXT_LINE_BYTES // 4 and len(line.encode("utf-8")) > MAX_TEXT_LINE_BYTES:
            raise _line_too_long(chunk.path, _line_number(chunk.path, start) + index)
        yield line[:-1] if line.endswith("\r") else line
