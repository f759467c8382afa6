"""Size and depth limits of the tokeniser loaders, each named in the error of a file that passes it.

No paper section (plumbing). Every limit is far above what a real file needs (the figures are the
largest among the real tokenisers of ``scripts/fetch_real_tokenisers.py``), and below what would
cost a server minutes or gigabytes: a JSON file nested deeper than a few hundred levels would
exhaust Python's recursion limit in the parsers behind ``json.loads``. The number of merges is
limited for every loader by :data:`core.bpe.merges.MAX_MERGES`, a line of running text by
:data:`core.counting.chunks.MAX_TEXT_LINE_BYTES`.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.errors import InputError, excerpt

#: nesting of a JSON file (tokenizer.json files nest at most 6 levels)
MAX_JSON_DEPTH = 200
#: characters in one line of a merges.txt, tiktoken rank file or reference file (the longest real
#: merge, Claude's, has 1,025)
MAX_LINE_CHARS = 10_000
#: bytes of a file read into memory whole (word counts, reference segmentations; the largest
#: shipped one has a few MB)
MAX_TABLE_BYTES = 512 << 20
#: the characters (and word ends) of the text a word-count file describes, the sum of each count
#: times its word's length + 1: what a 64-bit signed integer holds (trainers keep pair and
#: character counts in C longs and numpy int64 arrays)
MAX_COUNT = 2**63 - 1
#: bytes of one token of a file whose merges are every split of a token into two (tiktoken ranks,
#: SentencePiece pieces), which costs the token's length squared (the longest real one has 128)
MAX_TOKEN_BYTES = 1_024
#: bytes copied to split every token of such a file into two at every place, n (n - 1) for a token
#: of n bytes, summed (o200k_base: 11 million; runs "a" .. "a" * 1,000 of three letters, a 2 MB
#: file: 1 billion, 1.5 million merges and 1.5 GB)
MAX_SPLIT_BYTES = 100_000_000


def check_line_length(line: str | bytes, source: str, line_no: int) -> None:
    """InputError when a line of a tokeniser text file is longer than :data:`MAX_LINE_CHARS`."""
    if len(line) > MAX_LINE_CHARS:
        raise InputError(
            f"line longer than {MAX_LINE_CHARS:,} characters ({len(line):,}): {excerpt(line, 40)}", source, line_no
        )


def check_token_length(token: str | bytes, source: str, where: str, line: int | None = None) -> None:
    """InputError when a token to be split into merges is longer than :data:`MAX_TOKEN_BYTES`."""
    size = len(token.encode("utf-8", "surrogatepass") if isinstance(token, str) else token)
    if size > MAX_TOKEN_BYTES:
        raise InputError(
            f"{where} {excerpt(token, 40)} has {size:,} bytes, more than {MAX_TOKEN_BYTES:,}, the "
            "limit (real tokens have at most 128)",
            source,
            line,
        )


def check_split_bytes(tokens: Iterable[str | bytes], source: str) -> None:
    """InputError, before any token is split, when splitting ``tokens`` into merges would copy
    more than :data:`MAX_SPLIT_BYTES` bytes (lengths of ``str`` tokens count as bytes: each is
    one byte character)."""
    size = sum(len(token) * (len(token) - 1) for token in tokens)
    if size > MAX_SPLIT_BYTES:
        raise InputError(
            f"splitting the tokens into merges would copy {size:,} bytes, more than {MAX_SPLIT_BYTES:,}, "
            "the limit (MAX_SPLIT_BYTES; real files need at most 11 million): too many long tokens",
            source,
        )
