"""SentencePiece ``.model`` files of BPE type (core.formats.sentencepiece.bpe) segment exactly as
``sentencepiece`` does: real files (the sentencepiece test model, Mistral's Llama-2-style models
with byte fallback and user-defined pieces) and tiny models trained here; plus unigram models
loaded through the same normaliser."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.formats.samples import running_text
from core.formats.sentencepiece.load import parse_sentencepiece_bytes
from tests.real_tokenisers import file_bytes, real_bytes

spm = pytest.importorskip("sentencepiece")

LINES = list(running_text())
EXTRA = [
    "  leading and  double  spaces ",
    "tabs\tand\nnewlines\n\nx",
    "1234567 3.14159 +-*/ 2024-01-01",
    "café naïve résumé Ångström",
    "emoji 😀👍🏽 👩\u200d👩\u200d👧 family",
    "日本語のテキスト、中文文本",
    "हिन्दी पाठ",
    "النص العربي",
    "<s> </s> [INST] [REF] <unk> [/REF]",
    "▁already▁escaped",
    "ﬁ ① ｶﾞ ＡＢＣ",
    " " * 20 + "x" + " " * 17 + "y",
    "\u200b\u200d\ufeff",
    "a" * 50,
    "",
    "   ",
]
SPACES = [" " * n + "a" for n in range(35)] + ["a" + " " * n + "b" for n in range(35)]


def reference_tokens(sp, text: str) -> list[str]:
    """SentencePiece's pieces (a run of unknown characters shows its own text, with the unk id)."""
    return sp.encode(text, out_type=str)


def check_agreement(tok: BTETokeniser, sp, texts) -> int:
    agreed = 0
    for text in texts:
        ours = tok.tokenise(text)
        assert ours == reference_tokens(sp, text), text
        assert [tok.token_id(t) for t in ours] == sp.encode(text), text
        agreed += 1
    return agreed


def load(data: bytes, name: str) -> tuple[BTETokeniser, spm.SentencePieceProcessor]:
    tok = parse_sentencepiece_bytes(data, name)
    assert isinstance(tok, BTETokeniser)
    return tok, spm.SentencePieceProcessor(model_proto=data)


# --- real files ----------------------------------------------------------------------------------
@pytest.mark.real
@pytest.mark.parametrize(
    "name,step",
    [("botchan_en_bpe_1000.model", 3), ("tokenizer.model.v1", 5), ("mistral_instruct_tokenizer_241114.model.v7", 7)],
)
def test_real_models(name, step):
    tok, sp = load(file_bytes(name), name)
    words = sorted({w for line in LINES for w in line.split()})[::step]
    assert check_agreement(tok, sp, [" " + w for w in words]) == len(words)
    texts = LINES[::step] + EXTRA + SPACES
    assert check_agreement(tok, sp, texts) == len(texts)
    assert tok.metadata["detected"]


@pytest.mark.real
def test_llama2_style_details():
    tok, sp = load(real_bytes("mistral-v1", "tokenizer.model.v1"), "tokenizer.model.v1")
    assert tok.pretokeniser.split == "runs"  # pieces of several ▁ (scored -1e9, all tied)
    assert tok.unknown.byte_fallback and tok.unknown.unk_token == "<unk>"
    assert {"<s>", "</s>", "<unk>"} <= set(tok.specials)
    assert tok.tokenise("🦙") == ["▁", "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>"] == reference_tokens(sp, "🦙")
    assert any("share a score" in d for d in tok.metadata["detected"])


@pytest.mark.real
def test_user_defined_pieces_are_atoms():
    tok, sp = load(real_bytes("mistral-v7", "mistral_instruct_tokenizer_241114.model.v7"), "v7")
    text = "see [REF]12[/REF] and [REFERENCE_DOC_3]x"
    assert "[REF]" in tok.tokenise(text) and "[/REF]" in tok.tokenise(text)
    assert tok.tokenise(text) == reference_tokens(sp, text)


# --- tiny trained models ---------------------------------------------------------------------------
TRAINING = [" ".join(line.split()) for line in LINES[:1500]]
CONFIGS = {
    "plain": dict(byte_fallback=False),
    "bytes": dict(byte_fallback=True),
    "user": dict(byte_fallback=False, user_defined_symbols=["<sep>", "##", "ab", "e"]),
    "raw": dict(
        byte_fallback=True,
        remove_extra_whitespaces=False,
        normalization_rule_name="identity",
        split_by_whitespace=False,
        vocab_size=900,
    ),
}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spm_bpe")
    corpus = folder / "train.txt"
    corpus.write_text("\n".join(TRAINING) + "\n", encoding="utf-8")
    models = {}
    for key, extra in CONFIGS.items():
        options = dict(
            input=str(corpus),
            model_prefix=str(folder / key),
            model_type="bpe",
            vocab_size=500,
            character_coverage=0.98,
            num_threads=1,
            minloglevel=2,
            hard_vocab_limit=False,
        )
        options.update(extra)
        spm.SentencePieceTrainer.train(**options)
        data = (folder / f"{key}.model").read_bytes()
        models[key] = load(data, f"{key}.model")
    return models


ALPHABET = [
    *sorted(set("".join(TRAINING[:200]))),
    " ",
    "  ",
    "\n",
    "\t",
    "😀",
    "ж",
    "ß",
    "<sep>",
    "##",
    "ab",
    "▁",
    "ﬁ",
    "\u3000",
]
TEXTS = st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join)


@pytest.mark.parametrize("key", list(CONFIGS))
def test_trained_models_on_running_text(trained, key):
    tok, sp = trained[key]
    texts = LINES[1500::9] + EXTRA + SPACES
    assert check_agreement(tok, sp, texts) == len(texts)


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(list(CONFIGS)), text=TEXTS)
def test_trained_models_on_random_text(trained, key, text):
    tok, sp = trained[key]
    check_agreement(tok, sp, [text])


def test_trained_model_details(trained):
    tok, _ = trained["user"]
    assert set(tok.atoms) == {"<sep>", "##", "ab"}  # single characters need no atom
    assert not any(p in ("<sep>", "##", "ab", "e") for m in tok.merges for p in m.parts)
    raw, _ = trained["raw"]
    inner = [t for t in raw.types if "▁" in t[1:]]  # split_by_whitespace=False: pieces may hold ▁ inside
    assert raw.pretokeniser.split == (
        "each" if not inner else "runs" if all(set(t[: t.rindex("▁")]) <= {"▁"} for t in inner) else "none"
    )


@pytest.mark.parametrize("key", ["user", "raw"])
def test_round_trip_through_project_json(trained, key):
    from core.pipeline.specs import pretokeniser_kinds

    if "sentencepiece" not in pretokeniser_kinds():
        pytest.skip("SentencePieceNormaliser is not registered in core.pipeline.specs yet")
    tok, sp = trained[key]
    again = BTETokeniser.from_json(tok.to_json())
    check_agreement(again, sp, EXTRA + LINES[:50])


# --- unigram models through the same normaliser ------------------------------------------------------
@pytest.mark.real
@pytest.mark.parametrize("name", ["kyoto_ja_unigram_8000.model", "botchan_en_unigram_1000.model"])
def test_real_unigram_models(name):
    data = file_bytes(name)
    tok = parse_sentencepiece_bytes(data, name)
    sp = spm.SentencePieceProcessor(model_proto=data)
    texts = LINES[::11] + EXTRA + ["ＡＢＣ　全角ｶﾀｶﾅ", "東京都は日本の首都です。"]
    assert [tok.tokenise(t) for t in texts] == [sp.encode(t, out_type=str) for t in texts]


def test_malformed_models_are_refused(trained):
    # the last: a piece whose text field is a number
    for bad in (b"", b"\n\x05hello", b"\x0f\x01", b"not a model", b"\n\x02\x08\x05"):
        with pytest.raises(InputError) as err:
            parse_sentencepiece_bytes(bad, "bad.model")
        assert "bad.model" in str(err.value)
