"""SentencePiece ``.model`` files (core.unigram.sentencepiece_model): models trained here with the
``sentencepiece`` package segment exactly as SentencePiece does; other files are refused."""
from __future__ import annotations

import json

import pytest

from core.errors import InputError
from core.samples import running_text
from core.unigram import UnigramTokeniser, load_sentencepiece_model, parse_sentencepiece_model

spm = pytest.importorskip("sentencepiece")

TEXT = [" ".join(line.split()) for line in running_text()]
LINES = TEXT[:2500]  # training text; the comparisons use all of TEXT (unknown characters too)


def train_spm(tmp_path, model_type="unigram", **extra):
    corpus = tmp_path / "train.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    options = dict(input=str(corpus), model_prefix=str(tmp_path / model_type), model_type=model_type,
                   vocab_size=400, character_coverage=1.0, normalization_rule_name="identity",
                   byte_fallback=False, hard_vocab_limit=False, num_threads=1, minloglevel=2)
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
    with pytest.raises(InputError, match="upload.model"):
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
    for bad in (b"", b"not a model at all", data[:len(data) // 2], b"\x0f\x01"):
        with pytest.raises(InputError) as err:
            parse_sentencepiece_model(bad, "bad.model")
        assert "bad.model" in str(err.value)
    with pytest.raises(InputError, match="no such file"):
        load_sentencepiece_model(tmp_path / "missing.model")
