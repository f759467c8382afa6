"""Where a tokeniser lives: a file, a folder as ``transformers`` saves one, or ``hf:ORG/NAME``.

No paper section (plumbing). ``hf:ORG/NAME[@REVISION]`` is resolved in the local Hugging Face
cache only (``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``; layout
``models--ORG--NAME/snapshots/<commit>/`` with ``refs/<revision>`` naming the commit): nothing is
downloaded, and a model that is not cached gets an error saying where we looked.
"""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import InputError, excerpt

HF_PREFIX = "hf:"

#: tokeniser files in a folder, most specific first
FOLDER_FILES = (
    "tokenizer.json",
    "tokeniser.json",
    "merges.txt",
    "tokenizer.model",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tekken.json",
)
#: files next to a tokeniser that carry its special tokens
SPECIALS_FILES = ("special_tokens_map.json", "tokenizer_config.json")


def hub_cache() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]) / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def resolve_hf_id(spec: str) -> Path:
    """The snapshot folder of ``hf:ORG/NAME[@REVISION]`` in the local cache."""
    model_id, _, revision = spec[len(HF_PREFIX) :].partition("@")
    revision = revision or "main"
    if model_id.count("/") != 1 or not all(model_id.split("/")):
        raise InputError(f"expected hf:ORG/NAME (e.g. hf:openai-community/gpt2), got {excerpt(spec)}")
    cache = hub_cache()
    repo = cache / ("models--" + model_id.replace("/", "--"))
    snapshots = repo / "snapshots"
    if not snapshots.is_dir():
        raise InputError(
            f"{model_id} is not in the local Hugging Face cache (looked in {repo}; set HF_HUB_CACHE "
            "or HF_HOME to use another cache; nothing is downloaded)",
            spec,
        )
    ref = repo / "refs" / revision
    commit = ref.read_text().strip() if ref.is_file() else revision
    folder = snapshots / commit
    if not folder.is_dir():
        available = sorted(p.name for p in snapshots.iterdir())
        if revision == "main" and len(available) == 1:
            return snapshots / available[0]
        raise InputError(
            f"revision {revision!r} of {model_id} is not cached (looked in {snapshots}; "
            f"cached: {', '.join(available) or 'none'})",
            spec,
        )
    return folder


def tokeniser_file_in(folder: Path) -> Path:
    """The file to load from a folder (tokenizer.json first, as ``transformers`` does)."""
    for name in FOLDER_FILES:
        if (folder / name).is_file():
            return folder / name
    rank_files = sorted(folder.glob("*.tiktoken"))
    if rank_files:
        return rank_files[0]
    raise InputError(f"folder holds no tokeniser file (looked for {', '.join(FOLDER_FILES)}, *.tiktoken)", str(folder))


def special_tokens_beside(path: Path) -> list[str]:
    """Special tokens named in ``special_tokens_map.json`` / ``tokenizer_config.json`` next to
    ``path`` (for files that do not list their own, such as merges.txt or a rank file)."""
    from core.formats.corpora import decode_utf8
    from core.formats.json_input import read_json

    found: list[str] = []

    def collect(value) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict) and isinstance(value.get("content"), str):
            found.append(value["content"])
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for name in SPECIALS_FILES:
        file = path.parent / name
        if not file.is_file():
            continue
        config = read_json(decode_utf8(file.read_bytes(), str(file), expected="a JSON file"), str(file))
        if not isinstance(config, dict):
            continue
        for key, value in config.items():
            if key.endswith("_token") or key == "additional_special_tokens":
                collect(value)
        decoder = config.get("added_tokens_decoder")
        if isinstance(decoder, dict):
            collect(list(decoder.values()))
    return list(dict.fromkeys(found))
