r"""Pre-tokenisation regexes of [boundless Appendix A], Listing 3 (and §3.5 / Listing 2).

The four patterns are the branches of Listing 3 joined with ``|``, each commented with its label.
The listing as printed in the paper text has transcription damage, repaired here so that the
patterns compile and reproduce the paper's own examples (§3.5/App. A.3 ``XMLHttpRequest ...``,
App. A.4 ``Hello world ...``, App. A.5 ``1234567``):

* ``[^s\p{L}\p{N}]`` (T-4, F-4, P-3) is ``[^\s\p{L}\p{N}]``; ``[^r\n...]`` (F-2) is ``[^\r\n...]``.
* ``\s+(?!\\S)`` (T-5, F-6, P-5) is ``\s+(?!\S)`` (a raw ``\\S`` would be a literal backslash).
* Branches printed as ``r"?..."`` (B-1, B-3 ... B-8, B-10) start with ``" ?"`` (optional space),
  as Listing 2 and the stated outputs (``' snake'``, ``' CONSTANT'``) require.
* B-7 (numbers) is the right-to-left grouping the prose describes (``'1234567'`` ->
  ``['1', '234', '567']``): 1-3 digits followed by a multiple of three digits and then a
  non-digit or the end.
* B-9 (whitespace) is ``[^\S\r\n]*[\n\r]+|[^\S\r\n]+``: horizontal whitespace ending in line
  breaks, or a run of horizontal whitespace (App. A.4 output ``' \n\n', ' \n', ' '``).

F-1 keeps the listing's case-sensitive ``'(?:...)`` (tiktoken's cl100k uses ``(?i:...)``).
All four patterns match every character of any text, so splitting with them loses nothing.
:data:`WHITESPACE_PATTERN` is HF's ``Whitespace`` pre-tokenizer regex (not from the paper); it
skips whitespace.

Patterns are run with the ``regex`` module; HF runs ``Split`` patterns with Oniguruma. For the
patterns here both agree on every character assigned in Python's Unicode tables (the tests
check this); characters assigned in newer Unicode versions may be classified differently.

:func:`compile_regex` compiles every pattern that comes from a file or the command line: the
known ones (:data:`KNOWN_PATTERNS`: these and the real tokenisers' patterns of
:mod:`core.pipeline.real_patterns`) as they are, any other one as a
:class:`core.pipeline.limited_regex.LimitedPattern`, which runs with a time limit.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from core.errors import InputError
from core.pipeline.letter_runs import LetterRunCut
from core.pipeline.limited_regex import LimitedPattern, check_size, pattern_excerpt
from core.pipeline.real_patterns import REAL_PATTERNS, ULTIMATE_PATTERN

GPT2_PATTERN = "|".join(
    [
        r"'(?:[sdmt]|ll|ve|re)",  # T-1, English contractions
        r" ?\p{L}+",  # T-2, words
        r" ?\p{N}+",  # T-3, digits
        r" ?[^\s\p{L}\p{N}]+",  # T-4, not letters, digits, or whitespace
        r"\s+(?!\S)",  # T-5, all-but-last whitespace
        r"\s+",  # T-6, whitespace
    ]
)

GPT4_PATTERN = "|".join(
    [
        r"'(?:[sdmt]|ll|ve|re)",  # F-1, English contractions
        r"[^\r\n\p{L}\p{N}]?+\p{L}+",  # F-2, words, w/ opt non-alphanumeric
        r"\p{N}{1,3}",  # F-3, digits
        r" ?[^\s\p{L}\p{N}]++[\r\n]*",  # F-4, not letters, digits, or whitespace
        r"\s*[\r\n]",  # F-5, whitespace with line-ending
        r"\s+(?!\S)",  # F-6, all-but-last whitespace
        r"\s+",  # F-7, all whitespace
    ]
)

PUNCT_PATTERN = "|".join(
    [
        r" ?\p{L}+",  # P-1, words
        r"\p{N}{1,3}",  # P-2, digits
        r" ?[^\s\p{L}\p{N}]++[\r\n]*",  # P-3, not letters, digits, or whitespace
        r"\s*[\r\n]",  # P-4, whitespace with line-ending
        r"\s+(?!\S)",  # P-5, all-but-last whitespace
        r"\s+",  # P-6, whitespace
    ]
)

BOUNDLESS_PATTERN = "|".join(
    [
        r" ?(?:\p{L}\p{M}*)+['\u2019](?:\p{L}\p{M}*)+",  # B-1, contraction, allow curly apostrophe
        r"_(?:\p{L}\p{M}*)+",  # B-2, snake_case, with underscore at front
        r" ?(?:\p{Lu}\p{M}*)+(?=(?:\p{Lu}\p{M}*)(?:\p{Ll}\p{M}*))",  # B-3, uppercase followed by upper+lower
        r" ?(?:\p{Lu}\p{M}*)?(?:\p{Ll}\p{M}*)+",  # B-4, optional uppercase, and one or more lowercase
        r" ?(?:\p{Lu}\p{M}*)+",  # B-5, all uppercase acronym CONSTANT
        r" ?(?:[\p{Lt}\p{Lm}\p{Lo}]\p{M}*)+",  # B-6, titlecase, modifier, or uncased letters
        r" ?(?:\p{N}\p{M}*){1,3}(?=(?:(?:\p{N}\p{M}*){3})*(?:\P{N}|$))",  # B-7, numbers
        r" ?(?:[\p{P}\p{S}]\p{M}*)+",  # B-8, punctuation and symbols
        r"[^\S\r\n]*[\n\r]+|[^\S\r\n]+",  # B-9, whitespace
        r" ?(?:[\p{Z}\p{C}]\p{M}*)+",  # B-10, separator or control
        r"\p{M}+",  # B-11, leftover marks, just for bad utf-8
    ]
)

#: HF ``pre_tokenizers.Whitespace`` (``\w+|[^\w\s]+`` in Rust's regex crate): runs of word
#: characters or of other non-space characters. ``\w`` is spelt out as the Unicode (UTS #18)
#: word class because Oniguruma, which runs HF ``Split`` patterns, reads ``\w`` differently
#: (it includes e.g. ``¼``); spelt out, all three engines agree.
_WORD_CLASS = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"
WHITESPACE_PATTERN = rf"[{_WORD_CLASS}]+|[^{_WORD_CLASS}\s]+"

#: Pattern names usable in specs and the UI.
NAMED_PATTERNS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "punct": PUNCT_PATTERN,
    "boundless": BOUNDLESS_PATTERN,
    "whitespace": WHITESPACE_PATTERN,
}
#: Named patterns that match every character of every text (findall == partition).
COVERING_PATTERNS = frozenset({"gpt2", "gpt4", "punct", "boundless"})
#: Patterns that run without a time limit: ours and those of the real tokenisers we load.
KNOWN_PATTERNS = frozenset(NAMED_PATTERNS.values()) | REAL_PATTERNS
#: patterns whose first branch reads to the end of a letter run (see :mod:`letter_runs`)
LETTER_RUN_PATTERNS = frozenset({BOUNDLESS_PATTERN, ULTIMATE_PATTERN})


def pattern_name(pattern: str) -> str | None:
    """The name of ``pattern`` if it is one of :data:`NAMED_PATTERNS` (by name or text)."""
    if pattern in NAMED_PATTERNS:
        return pattern
    return next((name for name, text in NAMED_PATTERNS.items() if text == pattern), None)


def compile_pattern(pattern: str) -> regex.Pattern | LimitedPattern:
    """:func:`compile_regex` of a pattern name or a raw pattern; InputError if it does not compile
    or is a bare word that is not a known name (most likely a misspelt name)."""
    if not isinstance(pattern, str) or not pattern:
        raise InputError(f"pattern must be a pattern name ({', '.join(NAMED_PATTERNS)}) or a regex, got {pattern!r}")
    if pattern not in NAMED_PATTERNS and regex.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", pattern):
        raise InputError(
            f"unknown pattern name {pattern!r}; known: {', '.join(NAMED_PATTERNS)} "
            f"(a bare word is read as a name; write (?:{pattern}) for that literal regex)"
        )
    return compile_regex(NAMED_PATTERNS.get(pattern, pattern))


def compile_regex(
    text: str, flags: str = "", role: str = "pre-tokeniser pattern"
) -> regex.Pattern | LimitedPattern | LetterRunCut:
    """``text`` (with inline ``flags`` such as ``(?m)`` put in front) compiled: as it is when
    ``text`` is one of :data:`KNOWN_PATTERNS`, otherwise as a LimitedPattern that names itself
    ``role`` in messages; the BoundlessBPE patterns cut long letter runs (:mod:`letter_runs`).
    InputError if it does not compile or is too large to compile."""
    known = text in KNOWN_PATTERNS
    if not known:
        check_size(text, role)
    try:
        compiled = _compile(flags + text)
    except regex.error as err:
        raise InputError(f"{role} '{pattern_excerpt(flags + text)}' is not a valid regex: {err}") from None
    if not known:
        return LimitedPattern(compiled, text, role)
    return LetterRunCut(compiled) if text in LETTER_RUN_PATTERNS and not flags else compiled


@lru_cache(maxsize=64)
def _compile(text: str) -> regex.Pattern:
    return regex.compile(text)
