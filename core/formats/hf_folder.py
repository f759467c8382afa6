"""An HF tokenizer folder, as ``transformers``' ``save_pretrained`` leaves one: ``tokenizer.json``,
``tokenizer_config.json`` and (when the source had one) ``special_tokens_map.json``.

The configuration files of the source folder are copied, with the ids of ``added_tokens_decoder``
set to the tokeniser's current ids (they change only with compacted ids); a source without a
``tokenizer_config.json`` (GPT-2's ``vocab.json`` + ``merges.txt``) gets a minimal one naming
``PreTrainedTokenizerFast`` and the added tokens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.formats.hf_json import tokeniser_to_hf_json
from core.formats.output_files import write_text

CONFIG = "tokenizer_config.json"
SPECIAL_TOKENS_MAP = "special_tokens_map.json"


def is_folder_target(path: str | Path) -> bool:
    """Whether an ``--hf-out`` path names a folder (anything not ending in ``.json``)."""
    return not str(path).lower().endswith(".json")


def source_folder(tokeniser_path: str | Path) -> Path:
    """The folder a tokeniser was loaded from (the path itself, or the folder of a file)."""
    path = Path(tokeniser_path)
    return path if path.is_dir() else path.parent


def hf_folder_files(tokeniser: BTETokeniser, source: str | Path | None = None) -> dict[str, str]:
    """File name -> text of the folder (what :func:`write_hf_folder` writes, e.g. to zip for a
    download). ``source``: the folder whose configuration files are copied (None: none)."""
    source = Path(source) if source is not None else None
    exported = tokeniser_to_hf_json(tokeniser)
    config = _read_json(source / CONFIG) if source is not None and (source / CONFIG).is_file() else None
    configured = _config(config, exported["added_tokens"], tokeniser.token_ids())
    files = {
        "tokenizer.json": json.dumps(exported, ensure_ascii=False) + "\n",
        CONFIG: json.dumps(configured, ensure_ascii=False, indent=2) + "\n",
    }
    if source is not None and (source / SPECIAL_TOKENS_MAP).is_file():
        files[SPECIAL_TOKENS_MAP] = (source / SPECIAL_TOKENS_MAP).read_text(encoding="utf-8")
    return files


def write_hf_folder(tokeniser: BTETokeniser, folder: str | Path, source: str | Path | None = None) -> list[Path]:
    """Write :func:`hf_folder_files` into ``folder`` (made if missing); the files written."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError("is a file; expected a folder to write tokenizer.json and its configuration to", str(folder))
    files = hf_folder_files(tokeniser, source)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        write_text(folder / name, text)
    return [folder / name for name in files]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"cannot read the tokenizer configuration: {err}", str(path)) from None
    if not isinstance(value, dict):
        raise InputError("expected a JSON object (the tokenizer configuration)", str(path))
    return value


def _config(config: dict[str, Any] | None, added_tokens: list[dict[str, Any]], ids: dict[str, int]) -> dict[str, Any]:
    """The source configuration (or a minimal one) with ``added_tokens_decoder`` keyed by the
    current ids; an entry whose token is no longer in the vocabulary is left out."""
    config = dict(config) if config is not None else {"tokenizer_class": "PreTrainedTokenizerFast"}
    decoder: dict[str, Any] = {}
    for entry in (config.get("added_tokens_decoder") or {}).values():
        content = entry.get("content") if isinstance(entry, dict) else None
        if content in ids:
            decoder[str(ids[content])] = entry
    for token in added_tokens:  # added tokens the source configuration did not list
        decoder.setdefault(str(token["id"]), {k: v for k, v in token.items() if k != "id"})
    config["added_tokens_decoder"] = dict(sorted(decoder.items(), key=lambda kv: int(kv[0])))
    return config
