r"""The split patterns of the real tokenisers we load, as their files state them.

No paper section (file formats). Together with the paper's patterns
(:data:`core.pipeline.patterns.NAMED_PATTERNS`) these are the *known* patterns, which run
without a time limit; any other pattern from a file or the command line runs with one
(:mod:`core.pipeline.limited_regex`).

* tiktoken encodings (OpenAI's ``tiktoken_ext.openai_public``, Whisper, Llama 3): r50k/p50k,
  cl100k, o200k (also GPT-4o's and gpt-oss's tokenizer.json, and Llama 4), Whisper, Llama 3
  (also its tokenizer.json);
* tokenizer.json ``Split`` patterns: Qwen2/2.5/3, DeepSeek-V3 (three Splits in a row), CLIP (and
  its normalizer's ``Replace`` of ``\s+``);
* Mistral's Tekken ``config.pattern``;
* BoundlessBPE's ``ULTIMATE_PATTERN`` (the authors' code, kensho-technologies/boundlessbpe).
"""

from __future__ import annotations

R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
#: DeepSeek-V3's three Splits: digit groups, CJK runs, then words; its file writes the line
#: breaks of the third as the characters themselves, not as ``\r\n`` escapes.
DEEPSEEK_V3_PATTERNS = (
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^""" + "\r\n" + r"""\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"""
    r"""| ?[\p{P}\p{S}]+[""" + "\r\n" + r"""]*|\s*[""" + "\r\n" + r"""]+|\s+(?!\S)|\s+""",
)
CLIP_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""
#: CLIP's normalizer ``Replace``: runs of whitespace become one space.
CLIP_WHITESPACE_PATTERN = r"\s+"
TEKKEN_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*""",
        r"""\p{N}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
#: kensho-technologies/boundlessbpe ``regexconstants.ULTIMATE_PATTERN`` (v2): contraction,
#: _snake, XML|Http, Http/http, CONSTANT, other letters, right-aligned digit groups, optional
#: space + punctuation/symbols, whitespace, separators/controls, marks, leftovers.
ULTIMATE_PATTERN = "|".join(
    [
        r" ?(?:\p{L}\p{M}*)+['\u2019](?:\p{L}\p{M}*)+",
        r"_(?:\p{Ll}\p{M}*)+",
        r" ?(?:\p{Lu}\p{M}*)+(?=(?:\p{Lu}\p{M}*)(?:\p{Ll}\p{M}*))",
        r" ?(?:\p{Lu}\p{M}*)?(?:\p{Ll}\p{M}*)+",
        r" ?(?:\p{Lu}\p{M}*)+",
        r" ?(?:[\p{Lt}\p{Lm}\p{Lo}]\p{M}*)+",
        r"(?:\p{N}\p{M}*){1,3}(?=(?:(?:\p{N}\p{M}*){3})*(?:(?:\P{N}\p{M}*)|$))",
        r" ?(?:[\p{P}\p{S}]\p{M}*)+",
        r"[^\S\r\n]*[\n\r]+|[^\S\r\n]+",
        r"(?:[\p{Z}\p{C}]\p{M}*)+",
        r"\p{M}+",
        r".+",
    ]
)

REAL_PATTERNS = frozenset(
    {
        R50K_PATTERN,
        CL100K_PATTERN,
        O200K_PATTERN,
        WHISPER_PATTERN,
        LLAMA3_PATTERN,
        QWEN2_PATTERN,
        *DEEPSEEK_V3_PATTERNS,
        CLIP_PATTERN,
        CLIP_WHITESPACE_PATTERN,
        TEKKEN_PATTERN,
        ULTIMATE_PATTERN,
    }
)
