"""Hostile files: every loader answers with a clean InputError naming the file, never another exception.

Seeded mutations (tests/fuzz_inputs.py: truncation, bit flips, inserted bytes, NUL, BOM, CRLF,
invalid UTF-8, lone surrogates, long lines, huge numbers, deep nesting) of a file of every kind
the loaders read (tokenisers of every format, vocab.json, references of every format, word
counts, corpora), random JSON in the places a tokenizer.json, project file or Tekken file expects
structure, hand-made hostile files, and the big ones (a 1 MB line, a 1M-line merges file).
"""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe import merges as merges_module
from core.bpe.merges import Merge
from core.errors import EXCERPT_CHARS, InputError, excerpt
from core.formats import merges_txt
from core.formats.tokeniser_files import parse_merges_vocab_bytes, parse_tokeniser_bytes
from core.limits import MAX_JSON_DEPTH, MAX_LINE_CHARS, MAX_TOKEN_BYTES
from tests.fuzz_inputs import HF_SMALL, SAMPLE_TEXT, SCENARIO, TEKKEN, mutate, outcome, seed_files


@pytest.fixture(scope="module")
def seeds() -> dict[str, bytes]:
    return seed_files()


@pytest.mark.slow
def test_mutated_files_of_every_kind_load_or_are_refused_cleanly(seeds):
    rng = random.Random(11)
    bad = []
    for kind in sorted(seeds):
        for _ in range(1000):
            data = mutate(seeds[kind], rng)
            result, detail = outcome(kind, data, kind, seeds)
            if result not in ("loaded", "clean"):
                bad.append(f"{kind}: {result}: {detail} <- {excerpt(data, 120)}")
    assert bad == []


def test_the_mutations_reach_the_interesting_cases(seeds):
    """The fuzzing above is only worth something if mutations both break files and leave some valid."""
    rng = random.Random(11)
    results = [outcome("merges.txt", mutate(seeds["merges.txt"], rng), "merges.txt", seeds)[0] for _ in range(200)]
    assert results.count("clean") > 20 and results.count("loaded") > 20


def load_or_refuse(data: bytes, name: str) -> None:
    try:
        tokeniser = parse_tokeniser_bytes(data, name)
    except InputError as err:
        assert str(err).startswith(name + ":") and len(str(err)) < 1000, err
        return
    with contextlib.suppress(InputError):  # a corrupt table found only when a rule is used (e.g. a charsmap's offsets)
        tokeniser.tokenise(SAMPLE_TEXT)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["model", "normalizer", "pre_tokenizer", "added_tokens", "decoder"]), JSON_VALUES)
def test_any_json_in_a_tokenizer_json_field(field, value):
    load_or_refuse(json.dumps({**HF_SMALL, field: value}).encode(), "tokenizer.json")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(
        [
            "type",
            "vocab",
            "merges",
            "unk_token",
            "dropout",
            "end_of_word_suffix",
            "byte_fallback",
            "continuing_subword_prefix",
            "ignore_merges",
        ]
    ),
    JSON_VALUES,
)
def test_any_json_in_a_tokenizer_json_model_field(field, value):
    load_or_refuse(json.dumps({**HF_SMALL, "model": {**HF_SMALL["model"], field: value}}).encode(), "tokenizer.json")


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            "alphabet",
            "merges",
            "specials",
            "pretokeniser",
            "type_ids",
            "unknown",
            "atoms",
            "metadata",
            "dropout",
            "end_of_word_suffix",
            "version",
        ]
    ),
    JSON_VALUES,
)
def test_any_json_in_a_project_field(field, value):
    load_or_refuse(json.dumps({**SCENARIO, field: value}).encode(), "project.json")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["config", "vocab", "special_tokens"]), JSON_VALUES)
def test_any_json_in_a_tekken_field(field, value):
    load_or_refuse(json.dumps({**TEKKEN, field: value}).encode(), "tekken.json")


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_any_json_as_a_vocab_json(value):
    try:
        parse_merges_vocab_bytes("Ġ t\n".encode(), "merges.txt", json.dumps(value).encode(), "vocab.json")
    except InputError as err:
        assert str(err).startswith(("vocab.json:", "merges.txt:")), err


def nested(depth: int) -> str:
    """A JSON object ``depth`` objects deep."""
    return '{"model":' + '{"a":' * (depth - 1) + "1" + "}" * depth


@pytest.mark.parametrize(
    "data, words",
    [
        (b"[" * 1000 + b"]" * 1000, f"nesting deeper than {MAX_JSON_DEPTH} levels"),
        (nested(1000).encode(), f"nesting deeper than {MAX_JSON_DEPTH} levels"),
        (nested(MAX_JSON_DEPTH + 1).encode(), f"nesting deeper than {MAX_JSON_DEPTH} levels"),  # json.loads copes
        (nested(MAX_JSON_DEPTH).encode(), "model.vocab"),  # within the limit: refused for its shape
        (('{"format": "bte-tokeniser", "version": ' + "9" * 5000 + "}").encode(), "4300 digits"),
        (json.dumps({**SCENARIO, "merges": 5}).encode(), "'merges' must be a list"),
        (json.dumps({**HF_SMALL, "added_tokens": 5}).encode(), "added_tokens must be a list, found int"),
        (json.dumps({**HF_SMALL, "added_tokens": [{"content": "<s>"}, {"id": 3}]}).encode(), "added_tokens[1]"),
        (json.dumps({**HF_SMALL, "model": {**HF_SMALL["model"], "merges": 5}}).encode(), "model.merges must be a list"),
        (
            json.dumps({**HF_SMALL, "model": {**HF_SMALL["model"], "merges": [["a", "b"], [["a"], "b"]]}}).encode(),
            "model.merges[1]",
        ),
        (
            json.dumps({**HF_SMALL, "model": {**HF_SMALL["model"], "vocab": {"a": 0, "b": "1"}}}).encode(),
            "model.vocab['b']: expected an integer id, found '1'",
        ),
        (json.dumps({**HF_SMALL, "model": {**HF_SMALL["model"], "vocab": {"\ud800": 0}}}).encode(), "lone surrogate"),
        (
            json.dumps(
                {**HF_SMALL, "decoder": {"type": "Replace", "pattern": {"String": "\udc00"}, "content": ""}}
            ).encode(),
            "$.decoder.pattern.String",
        ),
        (json.dumps({**HF_SMALL, "decoder": {"type": "Metaspace", "x" * 100_000: 1}}).encode(), "unknown field"),
        (
            json.dumps(
                {
                    **TEKKEN,
                    "config": {**TEKKEN["config"], "default_vocab_size": 1, "default_num_special_tokens": 0},
                    "vocab": [{"rank": 0, "token_bytes": "YWFh" * 400}],
                }
            ).encode(),
            f"more than {MAX_TOKEN_BYTES:,}, the limit",
        ),
        ("#version: 0.2\nĠ t\n".encode() + b"a " * 600_000 + b"\n", f"line longer than {MAX_LINE_CHARS:,} characters"),
        ("Ġ t\n".encode() + b"x" * 1_000_000, f"line longer than {MAX_LINE_CHARS:,} characters (1,000,000): 'xxx"),
        (b"YQ== 0\nYg== 1\n" + b"Yw== " + b"9" * 5000 + b"\n", "a rank of at most 18 digits"),
        (b"YQ== 0\nYg== 1\n" + b"YWFh" * 400 + b" 2\n", f"more than {MAX_TOKEN_BYTES:,}, the limit"),
        (b"YQ== 0\nYg== 1\n" + b"YWFh" * 3000 + b" 2\n", f"line longer than {MAX_LINE_CHARS:,} characters"),
    ],
    ids=[
        "deep list",
        "deep object",
        "just too deep",
        "deep but allowed",
        "huge number",
        "project merges 5",
        "added_tokens 5",
        "added_tokens entry",
        "model.merges 5",
        "merge of a list",
        "vocab id",
        "surrogate key",
        "surrogate value",
        "long field name",
        "tekken long token",
        "1 MB merges line",
        "1 MB token",
        "huge rank",
        "long rank token",
        "1 MB rank line",
    ],
)
def test_hand_made_hostile_files(data, words):
    name = "hostile.json" if data[:1] in b"[{" else "hostile.txt"
    with pytest.raises(InputError) as err:
        parse_tokeniser_bytes(data, name)
    message = str(err.value)
    assert words in message and message.startswith(name + ":") and len(message) < 1000


def test_errors_quote_a_short_excerpt_of_a_long_line():
    with pytest.raises(InputError) as err:
        parse_tokeniser_bytes(f"Ġ t\n{'é' * 5000}\n".encode(), "merges.txt")
    assert str(err.value).startswith("merges.txt:2:") and f"'{'é' * EXCERPT_CHARS}'…" in str(err.value)
    assert excerpt("x" * 81) == repr("x" * 80) + "…" and excerpt("short") == "'short'"
    assert excerpt([list(range(100))] * 50).endswith("…") and len(excerpt({"a": list(range(10**5))})) <= 81


def test_more_merges_than_the_limit_are_refused_before_they_cost_memory(monkeypatch):
    monkeypatch.setattr(merges_module, "MAX_MERGES", 3)
    monkeypatch.setattr(merges_txt, "MAX_MERGES", 3)
    with pytest.raises(InputError) as err:
        parse_tokeniser_bytes(b"a b\nab c\nabc d\nabcd e\nabcde f\n", "merges.txt")
    assert str(err.value).startswith("merges.txt: more than 3 merges, the limit")
    assert len(parse_tokeniser_bytes(b"#version: 0.2\na b\n\nab c\n  \nabc d", "merges.txt").merges) == 3
    with pytest.raises(InputError, match=r"^tokenizer\.json: more than 3 merges"):
        model = {
            **HF_SMALL["model"],
            "vocab": {t: i for i, t in enumerate(["a", "b", "ab", "c", "abc", "d", "abcd"])},
            "merges": ["a b", "ab c", "abc d", "abcd e"],
        }
        parse_tokeniser_bytes(json.dumps({**HF_SMALL, "model": model}).encode(), "tokenizer.json")
    with pytest.raises(InputError, match=r"^ranks\.tiktoken: more than 3 merges"):
        parse_tokeniser_bytes(
            b"".join(
                b"%s %d\n" % (t, i)
                for i, t in enumerate([b"YQ==", b"Yg==", b"YWI=", b"YWJi", b"YWJiYg==", b"YWJiYmI="])
            ),
            "ranks.tiktoken",
        )


def test_a_merges_file_shares_one_string_per_token():
    """Memory: the merges' parts and results are the vocabulary's own strings, and a merge has no
    ``__dict__`` (bench/bench_loader_memory.py measures what a merge costs)."""
    vocab = {"Ġ": 0, "t": 1, "h": 2, "e": 3, "Ġt": 4, "he": 5, "Ġthe": 6}
    tokeniser = parse_merges_vocab_bytes(
        "Ġ t\nh e\nĠt he\n".encode(), "merges.txt", json.dumps(vocab, ensure_ascii=False).encode()
    )
    keys = {t: t for t in tokeniser.type_ids}
    assert all(m.result is keys[m.result] and all(p is keys[p] for p in m.parts) for m in tokeniser.merges)
    first, second, third = tokeniser.merges
    assert third.parts[0] is first.result and third.parts[1] is second.result
    assert not hasattr(first, "__dict__") and first == Merge(0, ("Ġ", "t"))
    assert hash(first) == hash(Merge(0, ("Ġ", "t")))
    with pytest.raises(AttributeError):
        first.rank = 3


@pytest.mark.slow
def test_a_million_line_merges_file_loads():
    lines = "\n".join(f"x{i} y" for i in range(1_000_000))
    tokeniser = parse_tokeniser_bytes(f"#version: 0.2\n{lines}\n".encode(), "merges.txt")
    assert len(tokeniser.merges) == 1_000_000 and tokeniser.merges[-1].result == "x999999y"
