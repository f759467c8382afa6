"""tiktoken rank files and Mistral's Tekken JSON (core.formats.tiktoken_files) segment exactly as
``tiktoken`` does: real files (Whisper's gpt2/multilingual, Llama 3, o200k rebuilt from gpt-4o's
tokenizer.json, Tekken) and small random rank tables."""

from __future__ import annotations

import base64
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.formats.samples import running_text
from core.formats.tiktoken_files import (
    ENCODINGS,
    R50K_PATTERN,
    parse_tekken_json,
    parse_tiktoken_bytes,
    read_ranks,
    tokeniser_from_ranks,
)
from core.pipeline.byte_level import byte_chars_to_bytes
from tests.real_tokenisers import file_bytes, real_bytes

tiktoken = pytest.importorskip("tiktoken")

LINES = list(running_text())
EXTRA = [
    "  leading and  double  spaces ",
    "tabs\tand\nnewlines\n\nx  \n",
    "1234567 3.14159 +-*/ 2024-01-01",
    "café naïve résumé Ångström",
    "emoji 😀👍🏽 👩\u200d👩\u200d👧 family",
    "日本語のテキスト、中文文本",
    "हिन्दी पाठ",
    "النص العربي",
    "<|endoftext|> hi<|begin_of_text|>x<|eot_id|><|endofprompt|>",
    "I'll've DON'T it's WE'RE",
    " " * 20 + "x" + " " * 17 + "y\n\n\n  ",
    "\u200b\u200d\ufeff",
    "a" * 60,
    "\r\n\r\n",
    "ﬁ ① ｶﾞ",
    "",
    "<|0.00|><|en|><|transcribe|>",
]


def tokens_as_bytes(tok: BTETokeniser, text: str) -> list[bytes]:
    specials = set(tok.specials)
    return [t.encode() if t in specials else byte_chars_to_bytes(t, strict=True) for t in tok.tokenise(text)]


def check(tok: BTETokeniser, enc, texts) -> int:
    ids = tok.type_ids
    for text in texts:
        expected = enc.encode(text, allowed_special="all")
        assert [ids[t] for t in tok.tokenise(text)] == expected, text
        assert tokens_as_bytes(tok, text) == [enc.decode_single_token_bytes(i) for i in expected], text
    return len(texts)


def reference(tok: BTETokeniser, data: bytes, encoding: str):
    pattern, specials, _ = ENCODINGS[encoding]
    return tiktoken.Encoding(
        encoding, pat_str=pattern, mergeable_ranks=read_ranks(data, "<test>"), special_tokens=specials
    )


@pytest.mark.real
@pytest.mark.parametrize(
    "name,pattern,expected,step",
    [
        ("gpt2.tiktoken", None, "r50k_base", 4),
        ("gpt2.tiktoken", "whisper_gpt2", "whisper_gpt2", 9),
        ("multilingual.tiktoken", None, "whisper_multilingual", 4),
        pytest.param("tokenizer.model", None, "llama3", 3, marks=pytest.mark.slow),
        pytest.param("o200k_base.tiktoken", None, "o200k_base", 3, marks=pytest.mark.slow),
        ("cl100k_base.tiktoken", None, "cl100k_base", 3),
        ("p50k_base.tiktoken", "p50k_base", "p50k_base", 9),
    ],
)
def test_real_rank_files(name, pattern, expected, step):
    data = file_bytes(name)
    start = time.perf_counter()
    tok = parse_tiktoken_bytes(data, name, pattern=pattern)
    seconds = time.perf_counter() - start
    print(f"{name} ({expected}): loaded in {seconds:.2f} s, {len(tok.merges)} merges")
    assert tok.metadata["encoding"] == expected
    if pattern is None:
        assert any("detected" in d for d in tok.metadata["detected"])
    assert tok.ignore_merges and len(tok.alphabet) == 256
    enc = reference(tok, data, expected)
    words = sorted({w for line in LINES for w in line.split()})[:: step * 3]
    assert check(tok, enc, [" " + w for w in words]) == len(words)
    texts = LINES[:: step * 2] + EXTRA
    assert check(tok, enc, texts) == len(texts)


@pytest.mark.real
@pytest.mark.slow
def test_llama3_special_tokens():
    tok = parse_tiktoken_bytes(real_bytes("llama3-tiktoken", "tokenizer.model"), "tokenizer.model")
    ids = tok.type_ids
    assert ids["<|begin_of_text|>"] == 128000 and ids["<|eot_id|>"] == 128009
    assert ids["<|reserved_special_token_245|>"] == 128255 and len(tok.specials) == 256
    assert tok.tokenise("<|start_header_id|>user<|end_header_id|>") == [
        "<|start_header_id|>",
        "user",
        "<|end_header_id|>",
    ]


@pytest.mark.real
@pytest.mark.slow
def test_tekken():
    obj = json.loads(real_bytes("mistral-tekken", "tekken_240911.json"))
    tok = parse_tekken_json(obj, "tekken_240911.json")
    config = obj["config"]
    n_special = config["default_num_special_tokens"]
    size = config["default_vocab_size"] - n_special
    ranks = {base64.b64decode(v["token_bytes"]): v["rank"] for v in obj["vocab"][:size]}
    enc = tiktoken.Encoding("tekken", pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={})
    ids = tok.type_ids
    for text in LINES[::25] + EXTRA:
        assert [ids[t] - n_special for t in tok.tokenise(text)] == enc.encode(text, disallowed_special=()), text


# --- small random rank tables ----------------------------------------------------------------------
BYTES = [bytes([b]) for b in range(256)]
SMALL = st.lists(
    st.binary(
        min_size=2,
        max_size=5,
    ).map(lambda b: bytes(x % 6 + 97 if x % 3 else 32 for x in b)),
    min_size=1,
    max_size=60,
    unique=True,
)


@settings(max_examples=80, deadline=None)
@given(
    tokens=SMALL, order=st.randoms(use_true_random=False), text=st.text(st.sampled_from("abcdef  \n'xé1"), max_size=40)
)
def test_random_rank_tables(tokens, order, text):
    multi = [t for t in tokens if len(t) > 1]
    order.shuffle(multi)
    ranks = {b: i for i, b in enumerate(BYTES)}
    for token in multi:
        ranks.setdefault(token, len(ranks))
    tok = tokeniser_from_ranks(ranks, R50K_PATTERN, {"<|x|>": len(ranks)})
    enc = tiktoken.Encoding("random", pat_str=R50K_PATTERN, mergeable_ranks=ranks, special_tokens={"<|x|>": len(ranks)})
    check(tok, enc, [text, text + "<|x|>" + text])


def test_pattern_argument_and_errors():
    ranks = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256)) + b"IGE= 256\n"
    tok = parse_tiktoken_bytes(ranks, "small.tiktoken")
    assert "cl100k_base assumed" in tok.metadata["detected"][0]
    assert tok.tokenise(" a a") == ["Ġa", "Ġa"]
    harmony = parse_tiktoken_bytes(ranks, "small.tiktoken", pattern="o200k_harmony")
    assert harmony.type_ids["<|channel|>"] == 200005 and harmony.type_ids["<|reserved_201087|>"] == 201087
    assert harmony.tokenise("<|start|>a<|message|>") == ["<|start|>", "a", "<|message|>"]
    custom = parse_tiktoken_bytes(ranks, "small.tiktoken", pattern=r"\S+|\s+")
    assert custom.metadata["encoding"] == "custom" and custom.specials == ()
    with pytest.raises(InputError, match=r"bad\.tiktoken:3: .*not base64"):
        parse_tiktoken_bytes(b"IQ== 0\nIg== 1\n!!!! 2\n", "bad.tiktoken")
    with pytest.raises(InputError, match=r"bad\.tiktoken:2: expected"):
        parse_tiktoken_bytes(b"IQ== 0\nIg==\n", "bad.tiktoken")
    with pytest.raises(InputError, match="repeated"):
        parse_tiktoken_bytes(b"IQ== 0\nIQ== 1\n", "bad.tiktoken")
    for empty in (b"", b"\n \n"):
        with pytest.raises(InputError, match=r"empty\.tiktoken: no tokens"):
            parse_tiktoken_bytes(empty, "empty.tiktoken")
    with pytest.raises(InputError, match="not a valid regex"):
        parse_tiktoken_bytes(ranks, "small.tiktoken", pattern="(unclosed")
