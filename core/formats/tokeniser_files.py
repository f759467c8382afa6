"""Reading and writing tokeniser files.

- HF ``tokenizer.json`` with a BPE model (ByteLevel, Metaspace, whitespace pre-tokenisers), whose
  pre-tokeniser and normaliser settings are honoured;
- ``merges.txt`` (+ optional ``vocab.json``), GPT-2 style; a line of n > 2 parts is a tuple merge;
- the project's own JSON (``"format": "bte-tokeniser"``), which round-trips tuple merges and
  fractional ranks exactly (JSON numbers written with ``repr`` precision);
- the other tokeniser families' JSON (``"format": "variant:<kind>"``, :mod:`core.variants`), and
  SentencePiece ``.model`` files of the unigram type.

Every loader raises :class:`core.errors.InputError` naming the file, the line (or JSON field)
and what was expected.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.model import BTETokeniser, Merge
from core.pretokenisers import ByteLevel, Metaspace, WhitespaceSplit, pretokeniser_from_spec
from core.pretokenisers.byte_level import BYTE_TO_CHAR
from core.pretokenisers.huggingface import from_hf, to_hf
from core.variants.registry import is_variant_format, variant_from_json

PROJECT_FORMAT = "bte-tokeniser"
PROJECT_VERSION = 1
MAX_TOKENISER_BYTES = 200 * 1024 * 1024


# --- generic entry points ------------------------------------------------------------------------
def load_tokeniser(path: str | Path) -> BTETokeniser:
    """Load any supported tokeniser: a file (tokenizer.json, project JSON, merges.txt) or a folder."""
    path = Path(path)
    if path.is_dir():
        for candidate in ("tokenizer.json", "tokeniser.json", "merges.txt"):
            if (path / candidate).is_file():
                return load_tokeniser(path / candidate)
        raise InputError("folder holds no tokenizer.json, tokeniser.json or merges.txt", str(path))
    if not path.is_file():
        raise InputError("no such file", str(path))
    data = path.read_bytes()
    if path.suffix == ".model":
        return parse_tokeniser_bytes(data, str(path), name=path.stem)
    if path.suffix == ".txt":
        vocab_path = path.with_name("vocab.json")
        vocab = _vocab_from_bytes(vocab_path.read_bytes(), str(vocab_path)) if vocab_path.is_file() else None
        return parse_merges_txt(_decode(data, str(path)), str(path), vocab=vocab, name=path.parent.name)
    return parse_tokeniser_bytes(data, str(path), name=path.parent.name if path.name == "tokenizer.json" else path.stem)


def parse_tokeniser_bytes(data: bytes, source: str, name: str = "") -> BTETokeniser:
    """Parse an uploaded tokeniser file: HF tokenizer.json or project JSON (sniffed), or merges.txt."""
    if len(data) > MAX_TOKENISER_BYTES:
        raise InputError(f"file is {len(data):,} bytes; the limit is {MAX_TOKENISER_BYTES:,}", source)
    if source.endswith(".model"):  # a SentencePiece model (protobuf)
        from core.unigram.sentencepiece_model import parse_sentencepiece_model

        return parse_sentencepiece_model(data, source)
    text = _decode(data, source)
    if not text.lstrip().startswith(("{", "[")):
        return parse_merges_txt(text, source, name=name)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON: {err.msg} (column {err.colno})", source, err.lineno) from None
    if not isinstance(obj, dict):
        raise InputError("expected a JSON object (a tokenizer.json or a project tokeniser file)", source)
    if obj.get("format") == PROJECT_FORMAT:
        return tokeniser_from_project_json(obj, source)
    if is_variant_format(obj):
        return variant_from_json(obj, source)
    if "model" in obj:
        return tokeniser_from_hf_json(obj, source, name=name)
    raise InputError("JSON is neither an HF tokenizer.json (no 'model' key) nor a project tokeniser "
                     f"(no \"format\": \"{PROJECT_FORMAT}\")", source)


def parse_merges_vocab_bytes(merges: bytes, source: str, vocab: bytes, vocab_source: str = "vocab.json",
                             name: str = "") -> BTETokeniser:
    """An uploaded merges.txt together with its vocab.json (token -> id)."""
    for data, where in ((merges, source), (vocab, vocab_source)):
        if len(data) > MAX_TOKENISER_BYTES:
            raise InputError(f"file is {len(data):,} bytes; the limit is {MAX_TOKENISER_BYTES:,}", where)
    return parse_merges_txt(_decode(merges, source), source, vocab=_vocab_from_bytes(vocab, vocab_source), name=name)


def save_tokeniser(tokeniser, path: str | Path, *, hf: bool = False) -> None:
    """Write project JSON (any tokeniser family: its ``to_json``), or with ``hf`` an HF
    tokenizer.json (BPE with binary merges only)."""
    if hf and not isinstance(tokeniser, BTETokeniser):
        raise InputError(f"only BPE tokenisers can be written as tokenizer.json, not {tokeniser.kind!r}", str(path))
    obj = tokeniser_to_hf_json(tokeniser) if hf else tokeniser.to_json()
    Path(path).write_text(json.dumps(obj, ensure_ascii=False, indent=1 if not hf else 2) + "\n", encoding="utf-8")


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 text (byte {err.start})", source, line) from None


def _require(condition: bool, message: str, source: str, line: int | None = None) -> None:
    if not condition:
        raise InputError(message, source, line)


# --- HF tokenizer.json ----------------------------------------------------------------------------
def tokeniser_from_hf_json(obj: dict[str, Any], source: str = "<tokenizer.json>", name: str = "") -> BTETokeniser:
    model = obj.get("model")
    _require(isinstance(model, dict), "field 'model' must be an object", source)
    _require(model.get("type", "BPE") == "BPE", f"model type {model.get('type')!r} is not supported (only BPE)", source)
    for unsupported in ("continuing_subword_prefix", "end_of_word_suffix"):
        _require(not model.get(unsupported), f"model.{unsupported} = {model.get(unsupported)!r} is not supported", source)
    _require(not model.get("byte_fallback"), "model.byte_fallback is not supported", source)
    vocab = model.get("vocab")
    _require(isinstance(vocab, dict) and all(isinstance(i, int) for i in vocab.values()),
             "model.vocab must map token strings to integer ids", source)
    raw_merges = model.get("merges")
    _require(isinstance(raw_merges, list), "model.merges must be a list", source)
    merges = []
    for i, raw in enumerate(raw_merges):
        if isinstance(raw, str):
            parts = tuple(raw.split(" "))
        elif isinstance(raw, list) and all(isinstance(p, str) for p in raw):
            parts = tuple(raw)
        else:
            raise InputError(f"model.merges[{i}] must be a string 'a b' or a list of strings, found {raw!r}", source)
        _require(len(parts) == 2 and all(parts), f"model.merges[{i}] = {raw!r} is not a pair of tokens", source)
        missing = [p for p in (*parts, "".join(parts)) if p not in vocab]
        _require(not missing, f"model.merges[{i}] = {raw!r} uses tokens missing from model.vocab: {missing}", source)
        merges.append(Merge(i, parts))
    specials = [t["content"] for t in obj.get("added_tokens") or [] if isinstance(t, dict) and "content" in t]
    try:
        pretokeniser = from_hf(obj.get("normalizer"), obj.get("pre_tokenizer"))
    except InputError as err:
        raise InputError(err.message, source) from None
    results = {m.result for m in merges}
    special_set = set(specials)
    alphabet = sorted((t for t in vocab if t not in results and t not in special_set), key=vocab.__getitem__)
    return _build(alphabet, merges, pretokeniser, source, specials=specials, type_ids=vocab,
                  ignore_merges=bool(model.get("ignore_merges", False)), name=name)


def tokeniser_to_hf_json(tokeniser: BTETokeniser) -> dict[str, Any]:
    tuples = tokeniser.tuple_merges
    if tuples:
        raise InputError(f"{len(tuples)} tuple merges (e.g. '{tuples[0]}') cannot be written as an HF "
                         "tokenizer.json; save as project JSON instead")
    vocab = assign_type_ids(tokeniser)
    normalizer, pre_tokenizer = to_hf(tokeniser.pretokeniser)
    decoder = None
    if isinstance(tokeniser.pretokeniser, ByteLevel):
        decoder = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    elif isinstance(tokeniser.pretokeniser, Metaspace):
        decoder = {"type": "Metaspace", "replacement": tokeniser.pretokeniser.replacement,
                   "prepend_scheme": tokeniser.pretokeniser.prepend_scheme, "split": True}
    added = [{"id": vocab[s], "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for s in tokeniser.specials]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": tokeniser.ignore_merges, "vocab": vocab,
                  "merges": [list(m.parts) for m in tokeniser.merges]},
    }


def assign_type_ids(tokeniser: BTETokeniser) -> dict[str, int]:
    """Ids for specials + V: kept from the loaded vocabulary where possible, new types appended.

    Without a loaded vocabulary: specials, then the alphabet, then merge results in rank order
    (HF's order for a trained tokeniser).
    """
    old = tokeniser.type_ids or {}
    ordered = list(dict.fromkeys([*tokeniser.specials, *tokeniser.alphabet, *(m.result for m in tokeniser.merges)]))
    ids = {t: old[t] for t in ordered if t in old}
    next_id = max(ids.values(), default=-1) + 1
    used = set(ids.values())
    for t in ordered:
        if t not in ids:
            while next_id in used:
                next_id += 1
            ids[t] = next_id
            used.add(next_id)
    return dict(sorted(ids.items(), key=lambda kv: kv[1]))


# --- merges.txt + vocab.json ---------------------------------------------------------------------
def parse_merges_txt(text: str, source: str = "<merges.txt>", *, vocab: dict[str, int] | None = None,
                     pretokeniser=None, name: str = "") -> BTETokeniser:
    """GPT-2 style merges: one ``a b`` per line (``#version`` lines skipped); ``a b c`` is a tuple merge.

    Without ``pretokeniser`` it is guessed from the alphabet: GPT-2 byte characters with ``Ġ`` →
    ByteLevel; ``▁`` → Metaspace; else whitespace splitting.
    """
    merges = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or (line_no == 1 and line.startswith("#version")):
            continue
        parts = tuple(line.rstrip("\r").split(" "))
        _require(len(parts) >= 2 and all(parts),
                 f"expected a merge 'a b' (two or more tokens separated by single spaces), found {line!r}",
                 source, line_no)
        merges.append(Merge(len(merges), parts))
    _require(bool(merges), "no merges found: expected lines 'a b'", source)
    results = {m.result for m in merges}
    if vocab is not None:
        alphabet = sorted((t for t in vocab if t not in results), key=vocab.__getitem__)
    else:
        alphabet = sorted({ch for m in merges for p in m.parts for ch in p})
    specials = [t for t in alphabet if len(t) > 1 and t.startswith("<") and t.endswith(">")]
    alphabet = [t for t in alphabet if t not in specials]
    if pretokeniser is None:
        pretokeniser = guess_pretokeniser(alphabet)
    return _build(alphabet, merges, pretokeniser, source, specials=specials, type_ids=vocab, name=name)


def guess_pretokeniser(alphabet):
    chars = set(alphabet)
    if "Ġ" in chars and chars <= set(BYTE_TO_CHAR.values()):
        return ByteLevel()
    if "▁" in chars:
        return Metaspace()
    return WhitespaceSplit()


def merges_txt(tokeniser: BTETokeniser) -> str:
    """Serialise merges as merges.txt (tuple merges as ``a b c``)."""
    lines = ["#version: 0.2"]
    for merge in tokeniser.merges:
        if any(" " in p for p in merge.parts):
            raise InputError(f"merge {merge.parts!r} has a part containing a space; merges.txt cannot hold it")
        lines.append(str(merge))
    return "\n".join(lines) + "\n"


def save_merges_and_vocab(tokeniser: BTETokeniser, folder: str | Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "merges.txt").write_text(merges_txt(tokeniser), encoding="utf-8")
    (folder / "vocab.json").write_text(json.dumps(assign_type_ids(tokeniser), ensure_ascii=False), encoding="utf-8")


def _vocab_from_bytes(data: bytes, source: str) -> dict[str, int]:
    try:
        vocab = json.loads(_decode(data, source))
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON: {err.msg}", source, err.lineno) from None
    _require(isinstance(vocab, dict) and all(isinstance(i, int) for i in vocab.values()),
             "vocab.json must map token strings to integer ids", source)
    return vocab


# --- project JSON ---------------------------------------------------------------------------------
def tokeniser_to_project_json(tokeniser: BTETokeniser, metadata: dict | None = None) -> dict[str, Any]:
    return {
        "format": PROJECT_FORMAT,
        "version": PROJECT_VERSION,
        "name": tokeniser.name,
        "pretokeniser": tokeniser.pretokeniser.to_spec(),
        "alphabet": list(tokeniser.alphabet),
        "specials": list(tokeniser.specials),
        "ignore_merges": tokeniser.ignore_merges,
        "merges": [[m.rank, list(m.parts)] for m in tokeniser.merges],
        "type_ids": tokeniser.type_ids,
        "metadata": metadata if metadata is not None else tokeniser.metadata,
    }


def tokeniser_from_project_json(obj: dict[str, Any], source: str = "<project json>") -> BTETokeniser:
    _require(obj.get("version") == PROJECT_VERSION,
             f"unsupported version {obj.get('version')!r} (expected {PROJECT_VERSION})", source)
    alphabet = obj.get("alphabet")
    _require(isinstance(alphabet, list) and all(isinstance(a, str) and a for a in alphabet),
             "field 'alphabet' must be a list of non-empty strings", source)
    merges = []
    for i, raw in enumerate(obj.get("merges") or []):
        ok = (isinstance(raw, list) and len(raw) == 2 and isinstance(raw[0], (int, float))
              and not isinstance(raw[0], bool) and isinstance(raw[1], list)
              and len(raw[1]) >= 2 and all(isinstance(p, str) and p for p in raw[1]))
        _require(ok, f"merges[{i}] must be [rank, [part, part, ...]] with two or more non-empty parts, "
                     f"found {raw!r}", source)
        merges.append(Merge(raw[0], tuple(raw[1])))
    spec = obj.get("pretokeniser")
    _require(isinstance(spec, dict), "field 'pretokeniser' must be an object", source)
    try:
        pretokeniser = pretokeniser_from_spec(spec)
    except InputError as err:
        raise InputError("pretokeniser: " + err.message, source) from None
    type_ids = obj.get("type_ids")
    _require(type_ids is None or (isinstance(type_ids, dict) and all(isinstance(v, int) for v in type_ids.values())),
             "field 'type_ids' must be null or map tokens to integer ids", source)
    metadata = obj.get("metadata") or {}
    _require(isinstance(metadata, dict), "field 'metadata' must be an object", source)
    tokeniser = _build(alphabet, merges, pretokeniser, source, specials=obj.get("specials") or [],
                       type_ids=type_ids, ignore_merges=bool(obj.get("ignore_merges", False)),
                       name=str(obj.get("name") or ""), metadata=metadata)
    return tokeniser


def _build(alphabet, merges, pretokeniser, source, **kwargs) -> BTETokeniser:
    try:
        return BTETokeniser(alphabet, merges, pretokeniser, **kwargs)
    except InputError as err:
        raise InputError(err.message, source) from None
