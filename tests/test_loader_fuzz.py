"""Hostile tokeniser files: every loader answers with a clean InputError, never another exception.

Seeded mutations (byte flips, cuts, insertions, truncation) of one file of each kind the loaders
recognise, random JSON values in the places a tokenizer.json or project file expects structure,
and hand-made cases (deep nesting, huge numbers, wrong types, lone surrogates).
"""
from __future__ import annotations

import base64
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from core.errors import InputError
from core.formats.tokeniser_files import parse_tokeniser_bytes
from core.samples import DUTCH_40K, SAMPLE_DIR

SCENARIO = json.loads((SAMPLE_DIR / "scenarios" / "a1_scenario1.json").read_text(encoding="utf-8"))
HF_SMALL = {
    "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<0x41>": 3, "<unk>": 4}, "merges": ["a b"],
              "byte_fallback": True, "unk_token": "<unk>", "fuse_unk": True},
    "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "NFKC"}, {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "}]},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated", "invert": False},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True}]},
    "added_tokens": [{"id": 5, "content": "<s>", "special": True, "normalized": False, "lstrip": True,
                      "rstrip": False, "single_word": False}],
    "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
}


def sentencepiece_model(tmp_path_factory) -> bytes:
    spm = pytest.importorskip("sentencepiece")
    folder = tmp_path_factory.mktemp("spm")
    (folder / "text.txt").write_text("the cat sat on the mat\n" * 50 + "a b c d e f g\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(folder / "text.txt"), model_prefix=str(folder / "m"), vocab_size=30,
                                   model_type="bpe", minloglevel=2, hard_vocab_limit=False)
    return (folder / "m.model").read_bytes()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, bytes]:
    return {
        "tokenizer.json": json.dumps(HF_SMALL).encode(),
        "project.json": json.dumps(SCENARIO).encode(),
        "merges.txt": "#version: 0.2\nĠ t\nh e\nĠt he\n".encode(),
        "ranks.tiktoken": b"".join(b"%s %d\n" % (base64.b64encode(bytes([b])), b) for b in range(256)),
        "m.model": sentencepiece_model(tmp_path_factory),
        "dutch.json": DUTCH_40K.read_bytes()[:200_000],  # a cut-off real file
    }


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        if op < 0.4 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op < 0.6 and b:
            del b[rng.randrange(len(b)):rng.randrange(len(b) + 1)]
        elif op < 0.8:
            at = rng.randrange(len(b) + 1)
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))
        else:
            b = b[:rng.randrange(len(b) + 1)]
    return bytes(b)


def load_or_refuse(data: bytes, name: str) -> None:
    try:
        tokeniser = parse_tokeniser_bytes(data, name)
    except InputError as err:
        assert str(err).startswith(name), err  # the message names the file
        return
    try:
        tokeniser.tokenise("Hello <s> wörld 😀 123\n")
    except InputError:  # a corrupt table found only when a rule is used (e.g. a charsmap's offsets)
        pass


def test_mutated_files_load_or_are_refused_cleanly(seeds):
    rng = random.Random(11)
    names = sorted(seeds)
    for _ in range(3000):
        name = rng.choice(names)
        load_or_refuse(mutate(seeds[name], rng), name)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                      max_size=3), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["model", "normalizer", "pre_tokenizer", "added_tokens", "decoder"]), JSON_VALUES)
def test_any_json_in_a_tokenizer_json_field(field, value):
    load_or_refuse(json.dumps({**HF_SMALL, field: value}).encode(), "tokenizer.json")


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["alphabet", "merges", "specials", "pretokeniser", "type_ids", "unknown", "atoms",
                        "metadata", "dropout", "end_of_word_suffix", "version"]), JSON_VALUES)
def test_any_json_in_a_project_field(field, value):
    load_or_refuse(json.dumps({**SCENARIO, field: value}).encode(), "project.json")


@pytest.mark.parametrize("data, words", [
    (b"[" * 1000 + b"]" * 1000, ""),  # "nested too deeply", or refused for its shape where the
    (('{"model":' * 1000 + "1" + "}" * 1000).encode(), ""),  # recursion limit lets json parse it
    (('{"format": "bte-tokeniser", "version": ' + "9" * 5000 + "}").encode(), "4300 digits"),
    (json.dumps({**SCENARIO, "merges": 5}).encode(), "'merges' must be a list"),
    (json.dumps({**HF_SMALL, "added_tokens": 5}).encode(), "added_tokens"),
    (json.dumps({**HF_SMALL, "model": {**HF_SMALL["model"], "vocab": {"\ud800": 0}}}).encode(), "lone surrogate"),
    (json.dumps({**HF_SMALL, "decoder": {"type": "Replace", "pattern": {"String": "\udc00"}, "content": ""}}).encode(),
     "$.decoder.pattern.String"),
], ids=["deep list", "deep object", "huge number", "merges 5", "added_tokens 5", "surrogate key", "surrogate value"])
def test_hand_made_hostile_files(data, words):
    with pytest.raises(InputError) as err:
        parse_tokeniser_bytes(data, "hostile.json")
    assert words in str(err.value) and str(err.value).startswith("hostile.json")
