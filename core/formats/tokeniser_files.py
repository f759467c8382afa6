"""Loading and saving tokenisers of every family, whatever form they ship in.

No paper section (file formats). A file is recognised by its content, never its suffix:

- JSON with ``"format"``: a project file of any family (:data:`core.families.registry.SAVED_FORMATS`);
- JSON with ``"model"``: an HF ``tokenizer.json`` (:mod:`core.formats.hf_json`);
- other JSON objects: Mistral's Tekken, or a lone ``vocab.json`` (refused with a pointer to its
  ``merges.txt``);
- a protobuf ``ModelProto``: a SentencePiece ``.model`` (BPE or unigram);
- lines ``<base64> <rank>``: a tiktoken rank file (:mod:`core.formats.tiktoken_files`);
- lines ``a b``: a GPT-2 style ``merges.txt``, with the ``vocab.json`` beside it when there is one
  (:mod:`core.formats.merges_txt`).

``load_tokeniser`` also takes a folder as ``transformers`` saves it and ``hf:ORG/NAME`` from the
local Hugging Face cache (:mod:`core.formats.locations`). Every loader raises
:class:`core.errors.InputError` naming the file, the line (or JSON field) and what was expected.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from types import MappingProxyType

from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.families.registry import from_saved_json
from core.formats.hf_json import tokeniser_from_hf_json, tokeniser_to_hf_json
from core.formats.input_files import check_input, open_input
from core.formats.json_input import read_json
from core.formats.locations import HF_PREFIX, resolve_hf_id, special_tokens_beside, tokeniser_file_in
from core.formats.merges_txt import check_merges_count, parse_merges_txt, vocab_from_json
from core.formats.output_files import check_output_path, write_text
from core.gc_pause import cyclic_gc_paused
from core.tokeniser import Tokeniser, check_pretokeniser, check_tokeniser

MAX_TOKENISER_BYTES = 200 * 1024 * 1024
_RANK_LINE = re.compile(rb"[A-Za-z0-9+/]+=* \d+\r?\n")


def load_tokeniser(path: str | Path, *, pretokeniser=None, pattern: str | None = None) -> Tokeniser:
    """Load any supported tokeniser from a file, a folder or ``hf:ORG/NAME``.

    ``pretokeniser`` overrides the inferred pre-tokeniser of files that do not state one
    (merges.txt); ``pattern`` names the split pattern of a tiktoken rank file.
    """
    check_pretokeniser(pretokeniser)
    if isinstance(path, str) and path.startswith(HF_PREFIX):
        folder = resolve_hf_id(path)
        return _with_source(load_tokeniser(folder, pretokeniser=pretokeniser, pattern=pattern), path)
    path = Path(path)
    if os.path.isdir(path):
        path = tokeniser_file_in(path)
    elif path.name == "vocab.json" and os.path.isfile(path.parent / "merges.txt"):
        path = path.parent / "merges.txt"  # GPT-2's pair: the merges read their vocab.json
    check_input(path, MAX_TOKENISER_BYTES)  # "no such file or folder", a FIFO, a name too long, the size
    with open_input(path, MAX_TOKENISER_BYTES) as handle:
        data = handle.read()
    name = path.parent.name if path.stem in ("tokenizer", "tokeniser", "merges") else path.stem
    return parse_tokeniser_bytes(data, str(path), name=name, pretokeniser=pretokeniser, pattern=pattern, beside=path)


def _with_source(tokeniser: Tokeniser, source: str) -> Tokeniser:
    """The tokeniser just loaded, with ``metadata["source"]`` when its metadata names none. Its
    metadata is read-only (a tokeniser is shared by every session), so this is a fresh copy made
    before anyone else sees it; families without metadata come back as they are."""
    metadata = getattr(tokeniser, "metadata", None)
    if metadata is None or "source" in metadata:
        return tokeniser
    sourced = copy.copy(tokeniser)
    vars(sourced)["metadata"] = MappingProxyType({**metadata, "source": source})
    return sourced


def parse_tokeniser_bytes(
    data: bytes,
    source: str,
    name: str = "",
    *,
    pretokeniser=None,
    pattern: str | None = None,
    beside: Path | None = None,
) -> Tokeniser:
    """Parse the bytes of a tokeniser file of any supported kind (see the module docstring).
    ``beside``: the file's path, so a merges.txt finds its vocab.json and special tokens.

    The cyclic garbage collector is paused meanwhile, and what was loaded is frozen: a large file
    makes a million small long-lived objects and no cycles, and the collector's passes over them
    would double the loading time."""
    with cyclic_gc_paused(freeze=True):
        return _parse(data, source, name, pretokeniser, pattern, beside)


def _parse(data: bytes, source: str, name: str, pretokeniser, pattern: str | None, beside: Path | None) -> Tokeniser:
    if len(data) > MAX_TOKENISER_BYTES:
        raise InputError(f"file is {len(data):,} bytes; the limit is {MAX_TOKENISER_BYTES:,}", source)
    kind = sniff(data)
    if kind == "sentencepiece":
        from core.formats.sentencepiece.load import parse_sentencepiece_bytes

        return parse_sentencepiece_bytes(data, source, name=name)
    if kind == "tiktoken":
        from core.formats.tiktoken_files import parse_tiktoken_bytes

        return parse_tiktoken_bytes(data, source, name=name, pattern=pattern)
    if kind == "merges" and ".model" in Path(source).name:
        raise InputError(
            "neither a SentencePiece model (a protobuf ModelProto) nor a tiktoken rank file (lines '<base64> <rank>')",
            source,
        )
    text = _decode(data, source)
    if kind == "merges":
        check_merges_count(text, source)  # before reading a vocab.json as large
        vocab = specials = None
        if beside is not None and os.path.isfile(beside.parent / "vocab.json"):
            vocab_path = beside.parent / "vocab.json"
            with open_input(vocab_path, MAX_TOKENISER_BYTES) as handle:
                vocab = _vocab_from_bytes(handle.read(), str(vocab_path))
            specials = [t for t in special_tokens_beside(beside) if t in vocab] or None
        return parse_merges_txt(text, source, vocab=vocab, pretokeniser=pretokeniser, name=name, specials=specials)
    obj = read_json(text, source)
    if not isinstance(obj, dict):
        raise InputError("expected a JSON object (a tokenizer.json or a project tokeniser file)", source)
    if obj and all(isinstance(v, int) for v in obj.values()):  # (its tokens may be "format", "model" ...)
        raise InputError(
            "this looks like a vocab.json (token -> id) alone: a BPE tokeniser also needs its merges; "
            "load the merges.txt next to it (or their folder), or upload both together",
            source,
        )
    if "format" in obj:
        return from_saved_json(obj, source)
    if "model" in obj:
        return tokeniser_from_hf_json(obj, source, name=name)
    if "vocab" in obj and "config" in obj:
        from core.formats.tiktoken_files import parse_tekken_json

        return parse_tekken_json(obj, source, name=name)
    raise InputError(
        "JSON is neither an HF tokenizer.json (no 'model' key) nor a project tokeniser (no \"format\" key)", source
    )


def sniff(data: bytes) -> str:
    """ "json", "sentencepiece", "tiktoken" or "merges", from the first bytes of a file."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] in (b"{", b"["):
        return "json"
    if data[:1] == b"\n" and not _is_text(data[:4096]):
        return "sentencepiece"
    first_lines = data[:4096].splitlines(keepends=True)[:3]
    if first_lines and all(
        _RANK_LINE.fullmatch(line if line.endswith(b"\n") else line + b"\n") for line in first_lines
    ):
        return "tiktoken"
    return "merges"


def _is_text(sample: bytes) -> bool:
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as err:
        return err.start > len(sample) - 4  # only a character cut at the end of the sample
    return b"\x00" not in sample


def parse_merges_vocab_bytes(
    merges: bytes, source: str, vocab: bytes, vocab_source: str = "vocab.json", name: str = "", pretokeniser=None
) -> BTETokeniser:
    """An uploaded merges.txt together with its vocab.json (token -> id)."""
    for data, where in ((merges, source), (vocab, vocab_source)):
        if len(data) > MAX_TOKENISER_BYTES:
            raise InputError(f"file is {len(data):,} bytes; the limit is {MAX_TOKENISER_BYTES:,}", where)
    text = _decode(merges, source)
    check_merges_count(text, source)  # before reading a vocab.json as large
    with cyclic_gc_paused(freeze=True):  # as parse_tokeniser_bytes
        return parse_merges_txt(
            text, source, vocab=_vocab_from_bytes(vocab, vocab_source), name=name, pretokeniser=pretokeniser
        )


def save_tokeniser(tokeniser: Tokeniser, path: str | Path, *, hf: bool = False) -> None:
    """Write project JSON (any tokeniser family: its ``to_json``), or with ``hf`` an HF
    tokenizer.json (BPE with binary merges only)."""
    check_tokeniser(tokeniser)
    if hf and not isinstance(tokeniser, BTETokeniser):
        raise InputError(f"only BPE tokenisers can be written as tokenizer.json, not {tokeniser.kind!r}", str(path))
    check_output_path(path)
    with cyclic_gc_paused():  # a million short-lived lists and strings: full passes would rescan the model
        obj = tokeniser_to_hf_json(tokeniser) if hf and isinstance(tokeniser, BTETokeniser) else tokeniser.to_json()
        text = indented_json(obj, 1 if not hf else 2)
    write_text(path, text + "\n")


class _NotPlain(Exception):
    """A value :func:`indented_json` leaves to ``json.dumps``."""


_compact = json.JSONEncoder(ensure_ascii=False).encode  # one scalar, as json.dumps writes it
_quoted = json.encoder.encode_basestring  # a string, as ensure_ascii=False writes it


def indented_json(value, indent: int) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=indent)``, byte for byte, several times faster
    on a large tokeniser (the standard library writes indented JSON in Python, one piece at a
    time): strings are encoded at C speed, a merge ``[rank, [part, ...]]`` in one step
    (:func:`_items`). A value with other keys than strings, or of another type than JSON's, goes
    to ``json.dumps`` whole."""
    try:
        return _text(value, "\n", " " * indent)
    except _NotPlain:
        return json.dumps(value, ensure_ascii=False, indent=indent)


def _text(value, newline: str, step: str) -> str:
    """``value`` indented as json.dumps writes it at the depth whose lines start with ``newline``."""
    kind = type(value)
    if kind is str:
        return _quoted(value)
    if kind is int:
        return int.__repr__(value)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = newline + step
        return "[" + inner + ("," + inner).join(_items(value, inner, step)) + newline + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        if not _strings(value):
            raise _NotPlain
        inner = newline + step
        items = [
            _quoted(k)
            + ": "
            + (_quoted(v) if type(v) is str else int.__repr__(v) if type(v) is int else _text(v, inner, step))
            for k, v in value.items()
        ]
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if isinstance(value, str):
        return _quoted(value)
    if value is None or isinstance(value, (bool, int, float)):
        return _compact(value)
    raise _NotPlain


def _items(values, newline: str, step: str) -> list[str]:
    """Each of ``values`` as json.dumps writes it on a line starting with ``newline``; a merge
    ``[rank, [part, ...]]`` (the bulk of a project file) in one step."""
    deeper = newline + step
    opening, middle, between = "[" + deeper, "," + deeper + "[" + deeper + step, "," + deeper + step
    closing = deeper + "]" + newline + "]"
    return [
        _quoted(v)
        if type(v) is str
        else f"{opening}{v[0]}{middle}{between.join(map(_quoted, v[1]))}{closing}"
        if type(v) is list and len(v) == 2 and type(v[0]) is int and type(v[1]) is list and _strings(v[1])
        else _text(v, newline, step)
        for v in values
    ]


def _strings(values) -> bool:
    """Whether ``values`` is not empty and holds only strings (exactly ``str``)."""
    return bool(values) and all(type(v) is str for v in values)


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 text (byte {err.start}); expected a tokenizer.json, a project file, a "
            "merges.txt, a tiktoken rank file or a SentencePiece .model",
            source,
            line,
        ) from None


def _vocab_from_bytes(data: bytes, source: str) -> dict[str, int]:
    return vocab_from_json(read_json(_decode(data, source), source), source)
