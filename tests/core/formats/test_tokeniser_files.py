"""Tokeniser files: HF tokenizer.json, merges.txt + vocab.json, project JSON; agreement with HF."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from core.bpe.model import BTETokeniser, Merge
from core.errors import InputError
from core.formats.corpora import load_word_counts
from core.formats.hf_json import tokeniser_to_hf_json
from core.formats.merges_txt import merges_txt, parse_merges_txt, save_merges_and_vocab
from core.formats.samples import DUTCH_40K, SAMPLE_DIR, tokeniser_paths
from core.formats.tokeniser_files import load_tokeniser, parse_tokeniser_bytes, save_tokeniser
from core.pipeline import ByteLevel, Metaspace, ReBPEPipeline, WhitespaceSplit


def test_dutch_40k_holds_the_papers_case(dutch40k):
    assert len(dutch40k.merges) == 39_739 and dutch40k.vocab_size == 40_000
    assert dutch40k.pretokeniser.kind == "hf" and dutch40k.pretokeniser.byte_level
    assert dutch40k.pretokeniser.pre_tokenizer_json["add_prefix_space"] is False
    assert [str(dutch40k.merges[i]) for i in (1234, 11806, 15545)] == ["id s", "Ġbru id", "Ġbru ids"]
    assert dutch40k.check_invariants() == []


def test_dutch_40k_agrees_with_hf_on_3000_words(dutch40k):
    hf = Tokenizer.from_file(str(DUTCH_40K))
    words = list(load_word_counts(SAMPLE_DIR / "counts" / "nl_wordfreq.tsv"))
    words = words[:2000] + words[-1000:] + ["bruidsjurk", "beleidsmaker", "één", "café-eigenaar", "Ĳsselmeer"]
    disagreements = [w for w in words if dutch40k.tokenise_word(w) != hf.encode(" " + w).tokens]
    assert disagreements == []


@pytest.mark.parametrize("name", ["nl-bpe-4k-wordfreq", "en-bpe-4k-wordfreq"])
def test_trained_samples_agree_with_hf(name):
    path = tokeniser_paths()[name]
    ours, hf = load_tokeniser(path), Tokenizer.from_file(str(path))
    language = name[:2]
    words = list(load_word_counts(SAMPLE_DIR / "counts" / f"{language}_wordfreq.tsv"))[::20]
    assert [ours.tokenise_word(w) for w in words] == [hf.encode(" " + w).tokens for w in words]


def test_hf_json_round_trip_is_loadable_by_hf(tmp_path, dutch40k):
    out = tmp_path / "tokenizer.json"
    save_tokeniser(dutch40k, out, hf=True)
    again = load_tokeniser(out)
    assert again.merges == dutch40k.merges and again.type_ids == dutch40k.type_ids
    assert again.specials == dutch40k.specials
    hf = Tokenizer.from_file(str(out))
    for word in ["bruidsjurk", "gids", "Schrödinger", "a  b"]:
        assert hf.encode(" " + word).tokens == dutch40k.tokenise_word(word)


def test_merges_and_vocab_round_trip(tmp_path, dutch40k):
    save_merges_and_vocab(dutch40k, tmp_path)
    again = load_tokeniser(tmp_path / "merges.txt")
    assert again.merges == dutch40k.merges
    assert again.pretokeniser.kind == "special_tokens" and isinstance(again.pretokeniser.inner, ByteLevel)
    assert again.tokenise_word("bruidsjurk") == dutch40k.tokenise_word("bruidsjurk")
    assert again.tokenise("gids<s>") == dutch40k.tokenise("gids<s>") == ["gids", "<s>"]


def tuple_tokeniser():
    merges = [
        Merge(0, ("e", "s")),
        Merge(1.5, ("▁", "l", "o")),
        Merge(2.999999, ("▁lo", "w", "es", "t")),
        Merge(1 / 3, ("w", "e")),
    ]
    return BTETokeniser("▁lowest", merges, Metaspace(), name="tuples")


def test_tuple_merges_refuse_hf_but_round_trip_as_merges_txt():
    tok = tuple_tokeniser()
    with pytest.raises(InputError, match="tuple merges"):
        tokeniser_to_hf_json(tok)
    again = parse_merges_txt(merges_txt(tok))
    assert [m.parts for m in again.merges] == [m.parts for m in tok.merges]


@st.composite
def tokenisers(draw):
    alphabet = draw(st.lists(st.characters(blacklist_categories=("Cs",)), min_size=2, max_size=6, unique=True))
    types, merges, ranks = list(alphabet), [], set()
    for _ in range(draw(st.integers(0, 12))):
        parts = tuple(draw(st.lists(st.sampled_from(types), min_size=2, max_size=4)))
        rank = draw(st.one_of(st.integers(-5, 1000), st.floats(-1e6, 1e6, allow_nan=False)))
        if parts in {m.parts for m in merges} or rank in ranks:
            continue
        ranks.add(rank)
        merges.append(Merge(rank, parts))
        types.append("".join(parts))
    pretokeniser = draw(st.sampled_from([Metaspace(), WhitespaceSplit(), ReBPEPipeline(), ByteLevel()]))
    return BTETokeniser(alphabet, merges, pretokeniser, name=draw(st.text(max_size=5)))


@settings(max_examples=80, deadline=None)
@given(tokenisers())
def test_project_json_round_trips_exactly(tok):
    text = json.dumps(tok.to_json(), ensure_ascii=False)
    again = parse_tokeniser_bytes(text.encode(), "x.json")
    assert again.merges == tok.merges
    assert [type(m.rank) for m in again.merges] == [type(m.rank) for m in tok.merges]
    assert again.alphabet == tok.alphabet and again.pretokeniser == tok.pretokeniser and again.name == tok.name


def test_project_json_keeps_fractional_ranks_exactly(tmp_path):
    tok = tuple_tokeniser()
    save_tokeniser(tok, tmp_path / "t.json")
    again = load_tokeniser(tmp_path / "t.json")
    assert [m.rank for m in again.merges] == [0, 1 / 3, 1.5, 2.999999]
    assert again.merges == tok.merges
    assert again.tokenise_word("lowest") == tok.tokenise_word("lowest") == ["▁lowest"]


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"model": {"type": "Unigram"}}', "only BPE"),
        (b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}, "pre_tokenizer": null}', "missing"),
        (b'{"model": \n{"type": "BPE",, }', ":2: invalid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (
            b'{"format": "bte-tokeniser", "version": 1, "alphabet": ["a"], "merges": [[0, ["a"]]], "pretokeniser": {}}',
            "merges[0]",
        ),
        (b'{"format": "bte-tokeniser", "version": 7}', "unsupported version"),
        (b"#version: 0.2\na b\nab\n", ":3: expected a merge"),
        (b"[1, 2]", "expected a JSON object"),
    ],
)
def test_malformed_files_are_reported(data, message):
    with pytest.raises(InputError) as err:
        parse_tokeniser_bytes(data, "upload.json")
    assert "upload.json" in str(err.value) and message in str(err.value)


def test_missing_file_and_empty_folder(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_tokeniser(tmp_path / "nope.json")
    with pytest.raises(InputError, match="folder holds no"):
        load_tokeniser(tmp_path)


def test_scenario_files_load_with_metadata():
    tok = BTETokeniser.from_json(json.loads((SAMPLE_DIR / "scenarios" / "a1_scenario1.json").read_text()))
    assert tok.metadata["knockout"] == "_bruid s"
    assert isinstance(tok.pretokeniser, ReBPEPipeline)
