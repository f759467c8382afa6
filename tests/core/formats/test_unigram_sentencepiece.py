"""SentencePiece ``.model`` files (core.formats.sentencepiece.unigram): models trained here with the
``sentencepiece`` package segment exactly as SentencePiece does; other files are refused."""

from __future__ import annotations

import json
import math

import pytest

from core.errors import InputError
from core.families.unigram import UnigramTokeniser
from core.formats.samples import running_text
from core.formats.sentencepiece.unigram import load_sentencepiece_model, parse_sentencepiece_model

spm = pytest.importorskip("sentencepiece")

TEXT = [" ".join(line.split()) for line in running_text()]
LINES = TEXT[:2500]  # training text; the comparisons use all of TEXT (unknown characters too)


def train_spm(tmp_path, model_type="unigram", **extra):
    corpus = tmp_path / "train.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    options = dict(
        input=str(corpus),
        model_prefix=str(tmp_path / model_type),
        model_type=model_type,
        vocab_size=400,
        character_coverage=1.0,
        normalization_rule_name="identity",
        byte_fallback=False,
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
    )
    options.update(extra)
    spm.SentencePieceTrainer.train(**options)
    path = tmp_path / f"{model_type}.model"
    return path, spm.SentencePieceProcessor(model_file=str(path))


def test_identical_segmentations_and_scores(tmp_path):
    path, sp = train_spm(tmp_path)
    tok = load_sentencepiece_model(path)
    normal = [i for i in range(sp.get_piece_size()) if not (sp.is_control(i) or sp.is_unknown(i))]
    assert tok.pieces == {sp.id_to_piece(i): sp.get_score(i) for i in normal}
    for line in TEXT[::3]:
        assert tok.tokenise(line) == sp.encode(line, out_type=str)
    words = sorted({w for line in TEXT for w in line.split()})
    assert len(words) > 8000
    for word in words:  # includes ties broken by float32 rounding and runs of unknown characters
        assert tok.tokenise_word(word) == sp.encode(word, out_type=str)
    again = UnigramTokeniser.from_json(json.loads(json.dumps(tok.to_json())), "saved.json")
    assert again.float32 and again.pieces == tok.pieces


def test_model_files_load_like_any_tokeniser(tmp_path):
    from core.formats.tokeniser_files import load_tokeniser, parse_tokeniser_bytes

    path, sp = train_spm(tmp_path)
    for tok in (load_tokeniser(path), parse_tokeniser_bytes(path.read_bytes(), "upload.model")):
        assert isinstance(tok, UnigramTokeniser)
        assert tok.tokenise(TEXT[5]) == sp.encode(TEXT[5], out_type=str)
    with pytest.raises(InputError, match=r"upload\.model"):
        parse_tokeniser_bytes(b"not a model", "upload.model")


def test_without_dummy_prefix(tmp_path):
    path, sp = train_spm(tmp_path, add_dummy_prefix=False)
    tok = load_sentencepiece_model(path)
    assert tok.pretokeniser.add_dummy_prefix is False
    for line in TEXT[::17]:
        assert tok.tokenise(line) == sp.encode(line, out_type=str)


def test_bpe_and_malformed_models_are_refused(tmp_path):
    path, _ = train_spm(tmp_path, model_type="bpe")
    with pytest.raises(InputError, match="bpe model"):
        load_sentencepiece_model(path)
    good, _ = train_spm(tmp_path)
    data = good.read_bytes()
    for bad in (b"", b"not a model at all", data[: len(data) // 2], b"\x0f\x01"):
        with pytest.raises(InputError) as err:
            parse_sentencepiece_model(bad, "bad.model")
        assert "bad.model" in str(err.value)
    with pytest.raises(InputError, match="no such file"):
        load_sentencepiece_model(tmp_path / "missing.model")


# --- the running float32 score, unknown characters, byte fallback ---------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from core.families.unigram.lattice import Lattice  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Two models trained once: without and with byte fallback (identity normalisation)."""
    out = {}
    for name, byte_fallback in (("plain", False), ("bytes", True)):
        path, sp = train_spm(tmp_path_factory.mktemp(name), byte_fallback=byte_fallback)
        out[name] = (load_sentencepiece_model(path), sp)
    return out


def alone(tok, text):
    """Each pretoken segmented on its own, from score 0 (not what SentencePiece does)."""
    return [t for p in tok.pretokeniser.pretokenise(text) if p for t in tok.segment_pretoken(p)]


def test_cross_word_tie_is_decided_by_the_running_score(models):
    tok, sp = models["plain"]
    text = "! ***************"  # '▁*' + three pieces of the same multiset; float32 rounding decides
    expected = sp.encode(text, out_type=str)
    assert tok.tokenise(text) == expected == ["▁", "!", "▁*", "**", "**", "**********"]
    assert alone(tok, text) != expected  # starting the second word from 0 breaks the tie the other way
    assert tok.segment_pretoken("▁***************") == tuple(sp.encode("***************", out_type=str))
    assert tok.trace_text(text).events[-1].tokens == tuple(expected)
    # a whole book in one text: 65,000 pretokens, running scores beyond SentencePiece's 1e5 reset
    book = " ".join(TEXT)
    assert tok.tokenise(book) == sp.encode(book, out_type=str)
    assert tok.lattice("▁***************").tie_margin()[0] == 0.0
    assert Lattice.build("ab", {"a": -1.0, "b": -2.0}.get, 1, -20).tie_margin() == (math.inf, 3.0)


@pytest.mark.real
def test_kyoto_digits_tie_across_words():
    from tests.real_tokenisers import real_file

    path = real_file("spm-kyoto-unigram", "kyoto_ja_unigram_8000.model")
    tok, sp = load_sentencepiece_model(path), spm.SentencePieceProcessor(model_file=str(path))
    text = "digits 0 1 22 333 4444 55555 and 1234567890123456789"
    assert tok.tokenise(text) == sp.encode(text, out_type=str)
    assert "▁ 44 44 ▁ 55 55 5 ▁ an d" in " ".join(tok.tokenise(text))
    assert list(tok.segment_pretoken("▁55555")) == sp.encode("55555", out_type=str) == ["▁", "5", "55", "55"]


def test_byte_fallback_and_unknown_runs(models):
    line = "naïve café ж😀ж über ☃☃ done"
    for name, tok_sp in models.items():
        tok, sp = tok_sp
        expected = sp.encode(line, out_type=str)
        assert tok.tokenise(line) == expected, name
        assert [tok.token_id(t) for t in tok.tokenise(line)] == sp.encode(line), name
        for text in TEXT[::5]:
            assert tok.tokenise(text) == sp.encode(text, out_type=str), name
        assert any("unknown characters" in note for note in tok.metadata["detected"])
        assert tok.vocab_size == sp.get_piece_size()
        again = UnigramTokeniser.from_json(json.loads(json.dumps(tok.to_json())), "saved.json")
        assert (again.unknown, again.type_ids, again.metadata) == (tok.unknown, tok.type_ids, tok.metadata)
        assert again.tokenise(line) == expected
    bytes_tok = models["bytes"][0]
    assert bytes_tok.unknown.byte_fallback and "<0xD0>" in bytes_tok.tokenise("ж")
    plain = models["plain"][0]
    assert "ж😀ж" in plain.tokenise(line) and plain.token_id("ж😀ж") == plain.token_id("<unk>") == 0


@pytest.mark.parametrize(
    "change, field",
    [
        ({"unknown": {"unk_token": 3}}, "unknown"),
        ({"unknown": {"fuse_unk": "yes"}}, "unknown"),
        ({"type_ids": {"a": "1"}}, "type_ids"),
        ({"metadata": [1]}, "metadata"),
    ],
)
def test_bad_saved_unknown_fields(change, field):
    from core.pipeline import Metaspace

    obj = UnigramTokeniser({"a": -1.0}, Metaspace(), "t").to_json()
    obj.update(change)
    with pytest.raises(InputError) as err:
        UnigramTokeniser.from_json(obj, "bad.json")
    assert "bad.json" in str(err.value) and field in str(err.value)


ALPHABET = ["a", "e", "s", "t", "h", " ", " ", "*", "=", "-", ".", "1", "ж", "😀", "é", "\u0301"]
#: runs of one character (long runs of "*", "=", "-" are where exactly tied paths are common)
RANDOM_TEXT = st.lists(st.tuples(st.sampled_from(ALPHABET), st.integers(1, 18)), max_size=12).map(
    lambda runs: "".join(ch * n for ch, n in runs)
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(RANDOM_TEXT)
def test_random_text_agrees_with_sentencepiece(models, text):
    """Unknown characters (ж 😀 é, a lone combining accent) with and without byte fallback, and
    ties across words."""
    for tok, sp in models.values():
        assert tok.tokenise(text) == sp.encode(text, out_type=str)
