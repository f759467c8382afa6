"""ui.hf_export's zip: the folder transformers saves, configuration carried over, the id map with compacted ids."""

from __future__ import annotations

import json

from core.edits.id_compaction import compact_ids
from core.edits.knockout import knock_out
from core.formats.tokeniser_files import load_tokeniser
from tests.pages.hf_downloads import assert_hf_agrees, unzipped
from ui.hf_export import export_zip
from ui.workspace_choices import SAMPLE_TOKENISERS


def test_the_zip_carries_the_source_folders_configuration_and_the_id_map(tmp_path):
    tokeniser = load_tokeniser(SAMPLE_TOKENISERS["en-bpe-4k-wordfreq"])
    edited, _ = knock_out(tokeniser, ["▁the"], cascade=True)
    compacted, id_map = compact_ids(edited, tokeniser)
    special_map = '{"unk_token": "<unk>"}\n'
    (tmp_path / "special_tokens_map.json").write_text(special_map, encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_text('{"model_max_length": 512}', encoding="utf-8")
    folder = unzipped(export_zip(compacted, tmp_path, id_map, "en-removed"))
    assert set(folder) == {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "id_map.json"}
    assert folder["special_tokens_map.json"] == special_map
    assert json.loads(folder["tokenizer_config.json"])["model_max_length"] == 512
    assert json.loads(folder["id_map.json"]) == id_map.to_json()
    assert_hf_agrees(folder, compacted, ["the", "theory", "other"])
