"""tiktoken rank files (``.tiktoken``, Llama 3's ``tokenizer.model``) and Mistral's Tekken JSON as
:class:`core.bpe.model.BTETokeniser` objects.

No paper section (file formats). A rank file has one token per line, ``<base64 bytes> <rank>``.
tiktoken (``CoreBPE``) cuts text at special tokens, splits each stretch with the encoding's regex,
emits a piece whole when it is a token and otherwise merges its bytes, always joining the adjacent
pair whose concatenation has the lowest rank, the leftmost on ties.

As a merge list: tokens are written in GPT-2 byte characters
(:func:`core.pipeline.byte_level.bytes_to_byte_chars`), the alphabet is the single-byte
tokens, every split of a token into two tokens is a merge ranked by the token's rank (all of one
token's merges share it; the engine fires equal ranks leftmost first), ``ignore_merges=True``
(a piece that is a token stays whole) and ids are ranks. The pre-tokeniser is
``RegexSplit(pattern, byte_level=True)`` behind
:class:`core.pipeline.special_tokens.SpecialTokenSplit` for the encoding's special tokens.

The split pattern and special tokens are not in the file: they come from the ``pattern``
argument, an encoding name of :data:`ENCODINGS` (OpenAI's tiktoken_ext ``openai_public``:
gpt2/r50k_base, p50k_base, p50k_edit, cl100k_base, o200k_base, o200k_harmony; Whisper's gpt2 and
multilingual (99 languages); Llama 3 with its 256 special tokens; Llama 4's pattern, without its
special tokens) or a regex (no special tokens), and otherwise from the number of tokens in the
file, which ``metadata["detected"]`` reports with the reason. The encodings' patterns live in
:mod:`core.pipeline.real_patterns`; a regex that is none of the known patterns runs with a
time limit, which ``metadata["detected"]`` says too.

Tekken (``tekken_*.json``, mistral_common): ``vocab`` entries (``rank``, base64 ``token_bytes``)
cut to ``default_vocab_size - default_num_special_tokens``, ``config.pattern``, and special tokens
taking ids 0 .. n-1 before the ordinary tokens (an ordinary token's id is its rank + n). Mistral
does not look for special tokens in text, so neither does the pre-tokeniser here.
"""

from __future__ import annotations

import base64
import binascii
import re
from itertools import accumulate
from operator import itemgetter
from pathlib import Path

from core.bpe.merges import merges_of_splits
from core.bpe.model import BTETokeniser
from core.errors import InputError, ensure, excerpt
from core.limits import MAX_TOKEN_BYTES, check_line_length, check_split_bytes, check_token_length
from core.pipeline.byte_level import bytes_to_byte_chars
from core.pipeline.limited_regex import limit_note
from core.pipeline.real_patterns import CL100K_PATTERN, LLAMA3_PATTERN, O200K_PATTERN, R50K_PATTERN, WHISPER_PATTERN
from core.pipeline.regex_split import RegexSplit
from core.pipeline.special_tokens import SpecialTokenSplit

ENDOFTEXT = "<|endoftext|>"
FIM = ("<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>")
ENDOFPROMPT = "<|endofprompt|>"

#: Whisper's language tokens, in its order (``whisper/tokenizer.py`` LANGUAGES).
WHISPER_LANGUAGES = [
    "en",
    "zh",
    "de",
    "es",
    "ru",
    "ko",
    "fr",
    "ja",
    "pt",
    "tr",
    "pl",
    "ca",
    "nl",
    "ar",
    "sv",
    "it",
    "id",
    "hi",
    "fi",
    "vi",
    "he",
    "uk",
    "el",
    "ms",
    "cs",
    "ro",
    "da",
    "hu",
    "ta",
    "no",
    "th",
    "ur",
    "hr",
    "bg",
    "lt",
    "la",
    "mi",
    "ml",
    "cy",
    "sk",
    "te",
    "fa",
    "lv",
    "bn",
    "sr",
    "az",
    "sl",
    "kn",
    "et",
    "mk",
    "br",
    "eu",
    "is",
    "hy",
    "ne",
    "mn",
    "bs",
    "kk",
    "sq",
    "sw",
    "gl",
    "mr",
    "pa",
    "si",
    "km",
    "sn",
    "yo",
    "so",
    "af",
    "oc",
    "ka",
    "be",
    "tg",
    "sd",
    "gu",
    "am",
    "yi",
    "lo",
    "uz",
    "fo",
    "ht",
    "ps",
    "tk",
    "nn",
    "mt",
    "sa",
    "lb",
    "my",
    "bo",
    "tl",
    "mg",
    "as",
    "tt",
    "haw",
    "ln",
    "ha",
    "ba",
    "jw",
    "su",
    "yue",
]


def _whisper_specials(first_id: int, num_languages: int = 99) -> dict[str, int]:
    names = [
        ENDOFTEXT,
        "<|startoftranscript|>",
        *(f"<|{code}|>" for code in WHISPER_LANGUAGES[:num_languages]),
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nospeech|>",
        "<|notimestamps|>",
        *(f"<|{i * 0.02:.2f}|>" for i in range(1501)),
    ]
    return {name: first_id + i for i, name in enumerate(names)}


def _llama3_specials(first_id: int = 128000) -> dict[str, int]:
    named = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|step_id|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",
        "<|eot_id|>",
        "<|python_tag|>",
        "<|image|>",
    ]
    names = named + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
    return {name: first_id + i for i, name in enumerate(names)}


def _harmony_specials() -> dict[str, int]:
    named = {
        "<|startoftext|>": 199998,
        ENDOFTEXT: 199999,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|call|>": 200012,
        ENDOFPROMPT: 200018,
    }
    reserved = {f"<|reserved_{i}|>": i for i in (200000, 200001, 200004, 200009, 200010, 200011)}
    reserved |= {f"<|reserved_{i}|>": i for i in range(200013, 201088)}
    return named | reserved


#: name -> (split pattern, special tokens -> ids, number of ordinary tokens in its rank file).
ENCODINGS: dict[str, tuple[str, dict[str, int], int]] = {
    "r50k_base": (R50K_PATTERN, {ENDOFTEXT: 50256}, 50256),
    "gpt2": (R50K_PATTERN, {ENDOFTEXT: 50256}, 50256),
    "p50k_base": (R50K_PATTERN, {ENDOFTEXT: 50256}, 50280),
    "p50k_edit": (R50K_PATTERN, {ENDOFTEXT: 50256, **dict(zip(FIM, (50281, 50282, 50283), strict=True))}, 50280),
    "cl100k_base": (
        CL100K_PATTERN,
        {ENDOFTEXT: 100257, **dict(zip(FIM, (100258, 100259, 100260), strict=True)), ENDOFPROMPT: 100276},
        100256,
    ),
    "o200k_base": (O200K_PATTERN, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}, 199998),
    "o200k_harmony": (O200K_PATTERN, _harmony_specials(), 199998),
    "whisper_gpt2": (WHISPER_PATTERN, _whisper_specials(50256), 50256),
    "whisper_multilingual": (WHISPER_PATTERN, _whisper_specials(50257), 50257),
    "llama3": (LLAMA3_PATTERN, _llama3_specials(), 128000),
    "llama4": (O200K_PATTERN, {}, 200000),
}
#: token count -> the encoding assumed for a rank file given without ``pattern``.
_BY_SIZE = {
    50256: "r50k_base",
    50280: "p50k_base",
    50257: "whisper_multilingual",
    100256: "cl100k_base",
    199998: "o200k_base",
    128000: "llama3",
    200000: "llama4",
}
_FALLBACK = "cl100k_base"
_RANK_LINE = re.compile(rb"^([A-Za-z0-9+/]+={0,2}) ([0-9]{1,18})\r?$", re.MULTILINE)


def read_ranks(data: bytes, source: str, empty: list[int] | None = None) -> dict[bytes, int]:
    """``{token bytes: rank}`` of a rank file; InputError naming the line for anything else.

    A line whose token is empty (``=``: Whisper's multilingual.tiktoken ends with one) holds no
    token; its rank is appended to ``empty``."""
    ranks = _well_formed_ranks(data)
    return ranks if ranks is not None else _ranks_line_by_line(data, source, empty)


def _well_formed_ranks(data: bytes) -> dict[bytes, int] | None:
    """The ranks read at C speed when every line is well formed and no token is empty, too long
    or repeated and no rank repeated; else None (:func:`_ranks_line_by_line` then names the line)."""
    rows = _RANK_LINE.findall(data)
    if not rows or 2 * len(rows) != len(data.split()):
        return None
    try:
        tokens = [binascii.a2b_base64(token, strict_mode=True) for token, _ in rows]
    except (binascii.Error, ValueError):
        return None
    if not all(tokens) or max(map(len, tokens)) > MAX_TOKEN_BYTES:
        return None
    ranks = dict(zip(tokens, map(int, (rank for _, rank in rows)), strict=True))
    if len(ranks) == len(rows) and len(set(ranks.values())) == len(rows):
        return ranks
    return None


def _ranks_line_by_line(data: bytes, source: str, empty: list[int] | None) -> dict[bytes, int]:
    """:func:`read_ranks` one line at a time, to name the first bad line."""
    ranks: dict[bytes, int] = {}
    seen: set[int] = set()
    for line_no, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        check_line_length(line, source, line_no)
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit() or len(parts[1]) > 18:
            raise InputError(
                f"expected '<base64 token> <rank>' (a rank of at most 18 digits), found {excerpt(line)}",
                source,
                line_no,
            )
        if not parts[0].strip(b"="):
            if empty is not None:
                empty.append(int(parts[1]))
            continue
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise InputError(f"token {excerpt(parts[0], 40)} is not base64", source, line_no) from None
        check_token_length(token, source, "the token", line_no)
        rank = int(parts[1])
        if not token or token in ranks or rank in seen:
            raise InputError(f"empty or repeated token {excerpt(token, 40)} or repeated rank {rank}", source, line_no)
        ranks[token] = rank
        seen.add(rank)
    if not ranks:
        raise InputError("no tokens: expected lines '<base64 token> <rank>'", source)
    return ranks


def tokeniser_from_ranks(
    ranks: dict[bytes, int],
    pattern: str,
    specials: dict[str, int],
    *,
    name: str = "",
    source: str = "<ranks>",
    id_offset: int = 0,
    match_specials: bool = True,
    metadata: dict | None = None,
) -> BTETokeniser:
    """The merge-list form of a tiktoken encoding (see the module docstring); ids are
    ``rank + id_offset`` for ordinary tokens and as given for special tokens."""
    check_split_bytes(ranks, source)
    by_rank = sorted(ranks.items(), key=itemgetter(1))
    tokens = [token for token, _ in by_rank]
    # One translation of all tokens at once, then slices: each byte is one character.
    joined = bytes_to_byte_chars(b"".join(tokens))
    ends = list(accumulate(map(len, tokens)))
    texts = list(map(joined.__getitem__, map(slice, [0, *ends[:-1]], ends)))
    chars = dict(zip(texts, (rank for _, rank in by_rank), strict=True))
    try:
        merges = merges_of_splits(chars.items(), chars)
    except InputError as err:
        raise InputError(err.message, source) from None
    alphabet = sorted((t for t in chars if len(t) == 1), key=chars.__getitem__)
    type_ids = {t: r + id_offset for t, r in chars.items()}
    clash = [s for s in specials if s in type_ids]
    if clash:
        raise InputError(f"special token {excerpt(clash[0], 40)} is also an ordinary token", source)
    type_ids.update(specials)
    try:
        inner = RegexSplit(pattern, byte_level=True)
        note = limit_note(inner.limited_patterns)
        if note:
            metadata = {**(metadata or {}), "detected": [*(metadata or {}).get("detected", ()), note]}
        pretokeniser = SpecialTokenSplit(inner, list(specials) if match_specials else [])
        return BTETokeniser(
            alphabet,
            merges,
            pretokeniser,
            specials=list(specials),
            type_ids=type_ids,
            ignore_merges=True,
            name=name,
            metadata=metadata,
        )
    except InputError as err:
        raise InputError(err.message, source) from None


def _choose_encoding(pattern: str | None, n_tokens: int, detected: list[str]) -> tuple[str, dict[str, int], str]:
    """(regex, special tokens, encoding name or "custom")."""
    if pattern is not None:
        if not isinstance(pattern, str) or not pattern:
            raise InputError(
                f"pattern must be an encoding name ({', '.join(ENCODINGS)}) or a regex, got {excerpt(pattern)}"
            )
        if pattern in ENCODINGS:
            regex_text, specials, _ = ENCODINGS[pattern]
            return regex_text, specials, pattern
        return pattern, {}, "custom"
    name = _BY_SIZE.get(n_tokens)
    if name is None:
        detected.append(
            f"split pattern: {_FALLBACK} assumed (no known encoding has {n_tokens} tokens; pass pattern= to choose)"
        )
        name = _FALLBACK
        return ENCODINGS[name][0], {}, name
    reason = f"{name} detected: the file has {n_tokens} tokens"
    if name == "r50k_base":
        reason += " (as r50k_base/gpt2; Whisper's gpt2.tiktoken is the same file: pass pattern='whisper_gpt2')"
    if name == "llama4":
        reason += " (Llama 4's pattern; its special tokens are not built in)"
    detected.append(reason)
    regex_text, specials, _ = ENCODINGS[name]
    return regex_text, specials, name


def parse_tiktoken_bytes(
    data: bytes, source: str = "<ranks>", name: str = "", pattern: str | None = None
) -> BTETokeniser:
    """A tiktoken rank file as a tokeniser. ``pattern``: an encoding name of :data:`ENCODINGS` or a
    split regex; None detects the encoding from the file (reported in ``metadata["detected"]``)."""
    if not isinstance(data, bytes):
        raise InputError("a rank file must be bytes", source)
    empty: list[int] = []
    ranks = read_ranks(data, source, empty)
    detected: list[str] = []
    if empty:
        detected.append(f"{len(empty)} lines with an empty token (rank {empty[0]}) skipped")
    try:
        regex_text, specials, encoding = _choose_encoding(pattern, len(ranks) + len(empty), detected)
    except InputError as err:
        raise InputError(err.message, source) from None
    detected.append(f"{len(specials)} special tokens matched in text" if specials else "no special tokens")
    metadata = {"format": "tiktoken", "encoding": encoding, "detected": detected}
    return tokeniser_from_ranks(ranks, regex_text, specials, name=name, source=source, metadata=metadata)


def load_tiktoken(path: str | Path, pattern: str | None = None) -> BTETokeniser:
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", str(path))
    return parse_tiktoken_bytes(path.read_bytes(), str(path), path.stem, pattern)


def parse_tekken_json(obj: dict, source: str = "<tekken.json>", name: str = "") -> BTETokeniser:
    """Mistral's Tekken tokeniser file (already parsed JSON)."""

    config, vocab = obj.get("config"), obj.get("vocab")
    if not isinstance(config, dict):
        raise InputError("field 'config' must be an object", source)
    if not isinstance(vocab, list) or not vocab:
        raise InputError("field 'vocab' must be a non-empty list", source)
    pattern = config.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise InputError("config.pattern must be a regex", source)
    n_special = config.get("default_num_special_tokens", 0)
    vocab_size = config.get("default_vocab_size", len(vocab) + n_special)
    ensure(
        all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (n_special, vocab_size)),
        "config.default_num_special_tokens and default_vocab_size must be integers >= 0",
        source,
    )
    inner_size = vocab_size - n_special
    ensure(
        0 < inner_size <= len(vocab),
        f"default_vocab_size {vocab_size} does not fit {len(vocab)} tokens and {n_special} special tokens",
        source,
    )
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:inner_size]):
        ensure(
            isinstance(entry, dict) and entry.get("rank") == i and isinstance(entry.get("token_bytes"), str),
            f"vocab[{i}] must be an object with rank {i} and base64 token_bytes",
            source,
        )
        try:
            token = base64.b64decode(entry["token_bytes"], validate=True)
        except (binascii.Error, ValueError):
            raise InputError(f"vocab[{i}].token_bytes is not base64", source) from None
        ensure(bool(token) and token not in ranks, f"vocab[{i}]: empty or repeated token {excerpt(token, 40)}", source)
        check_token_length(token, source, f"vocab[{i}]")
        ranks[token] = i
    specials: dict[str, int] = {}
    special_tokens = obj.get("special_tokens") or []
    ensure(
        isinstance(special_tokens, list),
        f"special_tokens must be a list, found {type(special_tokens).__name__}",
        source,
    )
    for i, entry in enumerate(special_tokens):
        ensure(
            isinstance(entry, dict)
            and isinstance(entry.get("token_str"), str)
            and entry["token_str"]
            and type(entry.get("rank")) is int,
            f"special_tokens[{i}] must have a token_str and an integer rank",
            source,
        )
        specials[entry["token_str"]] = entry["rank"]
    detected = [
        f"Tekken {config.get('version', '?')}: {inner_size} tokens after {n_special} special ids",
        f"{len(specials)} named special tokens (not matched in text, as Mistral encodes)",
    ]
    metadata = {"format": "tekken", "encoding": "custom", "detected": detected}
    return tokeniser_from_ranks(
        ranks, pattern, specials, name=name, source=source, id_offset=n_special, match_specials=False, metadata=metadata
    )
