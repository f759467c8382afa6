"""The audit's unreachable types of every fetched real tokeniser are exactly the types whose own
string does not come back from their reference library's round trip: HF ``tokenizers``
(``encode(decode([id])) == [id]``), SentencePiece (the same on ids) and tiktoken (the token's bytes
decoded with U+FFFD for partial UTF-8, encoded again); and each gets a cause other than "other".
"""

from __future__ import annotations

import base64
import json

import pytest

from core.analysis.audit import CAUSES, unreachable_types
from core.formats.tiktoken_files import ENCODINGS
from core.formats.tokeniser_files import load_tokeniser
from tests.core.formats.test_real_tokenisers import HF_FILES, SENTENCEPIECE, TIKTOKEN
from tests.real_tokenisers import real_entry, real_file

pytestmark = pytest.mark.real


def audited(path, **options) -> dict[int, str]:
    """id -> cause of every unreachable type our audit finds."""
    found = unreachable_types(load_tokeniser(path, **options))
    assert all(f.cause in CAUSES for f in found)
    assert [f for f in found if f.cause == "other"] == []
    return {f.id: f.cause for f in found}


@pytest.mark.parametrize("name", sorted(HF_FILES))
def test_tokenizer_json_audit_equals_the_tokenizers_round_trip(name):
    from tokenizers import Tokenizer

    path = real_file(name, "tokenizer.json")
    reference = Tokenizer.from_file(str(path))
    size = reference.get_vocab_size(with_added_tokens=True)
    ids = [i for i in range(size) if reference.id_to_token(i) is not None]  # o200k has holes
    texts = [reference.decode([i], skip_special_tokens=False) for i in ids]
    encodings = reference.encode_batch(texts, add_special_tokens=False)
    expected = {i for i, encoding in zip(ids, encodings, strict=True) if encoding.ids != [i]}
    assert set(audited(path)) == expected


def test_gpt2_folder_audit_equals_the_tokenizers_round_trip():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab, merges = real_file("gpt2", "vocab.json"), real_file("gpt2", "merges.txt")
    reference = Tokenizer(models.BPE.from_file(str(vocab), str(merges)))
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    reference.decoder = decoders.ByteLevel()
    reference.add_special_tokens(["<|endoftext|>"])  # as GPT-2's own tokenizer.json lists it
    ids = range(reference.get_vocab_size())
    expected = {i for i in ids if reference.encode(reference.decode([i], skip_special_tokens=False)).ids != [i]}
    causes = audited(vocab.parent)
    assert set(causes) == expected
    assert set(causes.values()) == {"partial-utf8"}  # GPT-2: 344 types of part of a character


@pytest.mark.parametrize("name", sorted(SENTENCEPIECE))
def test_sentencepiece_audit_equals_its_round_trip(name):
    import sentencepiece

    path = real_file(name, SENTENCEPIECE[name])
    reference = sentencepiece.SentencePieceProcessor(model_file=str(path))
    expected = {i for i in range(reference.get_piece_size()) if reference.encode(reference.decode([i])) != [i]}
    causes = audited(path)
    assert set(causes) == expected
    control = {i for i in range(reference.get_piece_size()) if reference.is_control(i) or reference.is_unknown(i)}
    assert {i for i, cause in causes.items() if cause == "special"} == control


@pytest.mark.parametrize("name", sorted(TIKTOKEN))
def test_rank_file_audit_equals_the_tiktoken_round_trip(name):
    import tiktoken

    path = real_file(name, TIKTOKEN[name])
    pattern = "p50k_base" if name == "tiktoken-p50k" else None
    ours = load_tokeniser(path, pattern=pattern)
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (
            line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("=")
        )
    }
    encoding = tiktoken.Encoding(
        name,
        pat_str=real_entry(name).get("pat_str") or ENCODINGS[ours.metadata["encoding"]][0],
        mergeable_ranks=ranks,
        special_tokens={t: ours.type_ids[t] for t in ours.specials},
    )
    expected = {
        i
        for token, i in ranks.items()
        if encoding.encode(token.decode("utf-8", "replace"), allowed_special="all") != [i]
    }
    assert set(audited(path, pattern=pattern)) == expected


def test_tekken_audit_equals_the_tiktoken_round_trip():
    import tiktoken

    path = real_file("mistral-tekken", "tekken_240911.json")
    obj = json.loads(path.read_bytes())
    config = obj["config"]
    n_special = config["default_num_special_tokens"]
    size = config["default_vocab_size"] - n_special
    ranks = {base64.b64decode(v["token_bytes"]): v["rank"] for v in obj["vocab"][:size]}
    encoding = tiktoken.Encoding("tekken", pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={})
    expected = {
        rank + n_special
        for token, rank in ranks.items()
        if encoding.encode(token.decode("utf-8", "replace"), disallowed_special=()) != [rank]
    }
    assert set(audited(path)) == expected  # the control tokens below n_special have no text of their own
