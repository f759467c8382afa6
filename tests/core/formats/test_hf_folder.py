"""An HF folder (core.formats.hf_folder) loads in transformers as the source folder would: its
configuration copied with the special tokens' current ids, segmentation and ids as ours."""

from __future__ import annotations

import json

from tokenizers import Tokenizer
from transformers import AutoTokenizer

from core.edits.finishing import finish
from core.edits.id_compaction import compact_ids
from core.edits.knockout import knock_out
from core.formats.hf_folder import hf_folder_files, write_hf_folder
from core.formats.samples import SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser

TEXT = "The unbelievable governments of the Netherlands <s> reorganised </s> themselves"


def source_folder(tmp_path):
    """The English 4k sample with two special tokens, as transformers would save it."""
    hf = Tokenizer.from_file(str(SAMPLE_DIR / "tokenisers" / "en-bpe-4k-wordfreq.json"))
    hf.add_special_tokens(["<s>", "</s>"])
    folder = tmp_path / "source"
    folder.mkdir()
    hf.save(str(folder / "tokenizer.json"))
    decoder = {
        str(hf.token_to_id(t)): {
            "content": t,
            "special": True,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "single_word": False,
        }
        for t in ("<s>", "</s>")
    }
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "added_tokens_decoder": decoder,
        "model_max_length": 512,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text('{"bos_token": "<s>", "eos_token": "</s>"}', encoding="utf-8")
    return folder


def test_an_edited_folder_with_compact_ids_loads_in_transformers(tmp_path):
    source = source_folder(tmp_path)
    tok = load_tokeniser(source)
    removed = sorted(tok.produced_by, key=len)[-300:]
    edited, _ = finish(knock_out(tok, removed)[0], "cascade")
    compacted, id_map = compact_ids(edited, tok)
    out = tmp_path / "out"
    written = write_hf_folder(compacted, out, source)
    assert sorted(p.name for p in written) == ["special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"]
    config = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    ids = compacted.token_ids()
    assert {v["content"]: int(k) for k, v in config["added_tokens_decoder"].items()} == {
        "<s>": ids["<s>"],
        "</s>": ids["</s>"],
    }
    assert config["model_max_length"] == 512 and ids["<s>"] == id_map.old_to_new[tok.token_ids()["<s>"]]
    assert ids["<s>"] < tok.token_ids()["<s>"]  # compacted: the specials moved down with the gaps closed
    loaded = AutoTokenizer.from_pretrained(str(out))
    assert (loaded.bos_token, loaded.bos_token_id, loaded.eos_token_id) == ("<s>", ids["<s>"], ids["</s>"])
    encoded = loaded(TEXT, add_special_tokens=False)["input_ids"]
    assert loaded.convert_ids_to_tokens(encoded) == compacted.tokenise(TEXT)
    assert encoded == [ids[t] for t in compacted.tokenise(TEXT)]


def test_without_a_source_configuration_a_minimal_one_names_the_added_tokens(tmp_path):
    source = source_folder(tmp_path)
    (source / "tokenizer_config.json").unlink()
    (source / "special_tokens_map.json").unlink()
    tok = load_tokeniser(source)
    files = hf_folder_files(tok, source)
    assert sorted(files) == ["tokenizer.json", "tokenizer_config.json"]
    config = json.loads(files["tokenizer_config.json"])
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast"
    assert [v["content"] for v in config["added_tokens_decoder"].values()] == ["<s>", "</s>"]
    assert json.loads(files["tokenizer.json"])["added_tokens"][0]["id"] == tok.token_ids()["<s>"]
