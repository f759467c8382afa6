"""HF ``tokenizer.json`` files with a BPE model <-> :class:`core.bpe.model.BTETokeniser`.

No paper section (file format); semantics are those of HF ``tokenizers`` (``models/bpe``):

- ``model``: ``vocab`` (token -> id), ``merges`` (``"a b"`` strings or ``["a", "b"]`` pairs, rank =
  position), ``ignore_merges`` (a pretoken that is a vocabulary entry is emitted whole),
  ``byte_fallback`` / ``unk_token`` / ``fuse_unk`` (:mod:`core.bpe.unknowns`; with none of them an
  unknown character is dropped, as HF does), ``end_of_word_suffix`` (CLIP's ``</w>``: the last
  character of every pretoken carries it), ``dropout`` (kept as a setting).
  ``continuing_subword_prefix`` (WordPiece-style ``##`` inside BPE) is refused: a merge's result
  would not be the concatenation of its parts, which the merge graph assumes.
- ``normalizer``, ``pre_tokenizer``, ``added_tokens`` and ``decoder``: the whole pipeline in front of
  the model, :func:`core.pipeline.huggingface.fields.from_hf`.

Types are the vocabulary's entries; the alphabet is the entries no merge forms (byte-fallback
tokens and unreachable leftovers included). A special added token (``<s>``, Llama 3's
``<|begin_of_text|>``) stays outside V unless a merge uses it; a non-special added token in
``model.vocab`` is a type (Gemma 3's ``"\n"``, which merges use).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from operator import attrgetter, itemgetter, methodcaller
from typing import Any, cast

from core.bpe.merges import Merge, binary_merges, check_merge_count
from core.bpe.model import BTETokeniser
from core.bpe.unknowns import UnknownPolicy
from core.errors import InputError, ensure, excerpt
from core.formats.merges_txt import vocab_from_json
from core.pipeline.huggingface.fields import from_hf, hf_pipeline_json
from core.pipeline.limited_regex import limit_note


def tokeniser_from_hf_json(obj: dict[str, Any], source: str = "<tokenizer.json>", name: str = "") -> BTETokeniser:
    model = obj.get("model")
    if not isinstance(model, dict):
        raise InputError("field 'model' must be an object (is this a tokenizer.json?)", source)
    kind = model.get("type", "BPE")
    ensure(
        kind == "BPE",
        f"model.type {excerpt(kind, 40)} is not supported here: only BPE models load from a "
        "tokenizer.json (Unigram models load from their SentencePiece .model file)",
        source,
    )
    ensure(
        not model.get("continuing_subword_prefix"),
        f"model.continuing_subword_prefix = {excerpt(model.get('continuing_subword_prefix'), 40)} is not "
        "supported: with it a merge's result is not the concatenation of its parts, which the merge graph needs",
        source,
    )
    vocab = vocab_from_json(model.get("vocab"), source, "model.vocab")
    merges = _merges(model.get("merges"), vocab, source)
    added = obj.get("added_tokens") or []
    ensure(isinstance(added, list), f"added_tokens must be a list, found {type(added).__name__}", source)
    bad = next(
        (
            i
            for i, t in enumerate(added)
            if not (isinstance(t, dict) and isinstance(t.get("content"), str) and t["content"])
        ),
        None,
    )
    ensure(
        bad is None,
        f"added_tokens[{bad}] must be an object with a non-empty 'content' string, found "
        f"{excerpt(added[bad] if bad is not None else None)}",
        source,
    )
    suffix = model.get("end_of_word_suffix") or ""
    ensure(isinstance(suffix, str), "model.end_of_word_suffix must be a string or null", source)
    try:
        pretokeniser = from_hf(obj.get("normalizer"), obj.get("pre_tokenizer"), added, obj.get("decoder"))
    except InputError as err:
        raise InputError(err.message, source) from None
    unk = model.get("unk_token")
    ensure(unk is None or isinstance(unk, str), "model.unk_token must be a string or null", source)
    dropout = model.get("dropout")
    ensure(
        dropout is None or (isinstance(dropout, (int, float)) and not isinstance(dropout, bool) and 0 <= dropout <= 1),
        f"model.dropout must be null or a number in [0, 1], got {excerpt(dropout, 40)}",
        source,
    )
    unknown = UnknownPolicy(
        unk_token=unk,
        fuse_unk=bool(model.get("fuse_unk")),
        byte_fallback=bool(model.get("byte_fallback")),
        drop_unknown=True,
        defer_unk=True,
    )
    specials = [t["content"] for t in added]
    special = {t["content"] for t in added if t.get("special")}
    # special tokens no merge uses (read off the parts without building their set: a million)
    in_vocab = special & vocab.keys()  # only a token of model.vocab can be a merge's part
    used = in_vocab.intersection(chain.from_iterable(map(attrgetter("parts"), merges))) if in_vocab else set()
    outside = special - used
    unformed = vocab.keys() - set(map(attrgetter("result"), merges)) - outside
    alphabet = sorted(filter(unformed.__contains__, vocab), key=vocab.__getitem__)
    ids = dict(vocab)
    for token in added:
        ids.setdefault(token["content"], token.get("id") if isinstance(token.get("id"), int) else len(ids))
    note = limit_note(pretokeniser.limited_patterns)
    metadata: dict[str, Any] = {"hf": {**_carried_fields(obj), "specials_in_vocab": sorted(outside & vocab.keys())}}
    if note:
        metadata["detected"] = [note]
    try:
        return BTETokeniser(
            alphabet,
            merges,
            pretokeniser,
            specials=specials,
            type_ids=ids,
            ignore_merges=bool(model.get("ignore_merges", False)),
            name=name,
            unknown=unknown,
            end_of_word_suffix=suffix,
            dropout=dropout,
            metadata=metadata,
        )
    except InputError as err:
        raise InputError(err.message, source) from None


# top-level fields of a tokenizer.json the merge graph does not model, written back as they were
_CARRIED = ("version", "truncation", "padding", "post_processor")
# model settings whose empty string HF reads as null: an export writes the source's spelling
_EMPTY_AS_NULL = ("continuing_subword_prefix", "end_of_word_suffix")


def _carried_fields(obj: dict[str, Any]) -> dict[str, Any]:
    model = obj["model"]
    return {
        **{key: obj[key] for key in _CARRIED if key in obj},
        "model": {key: model[key] for key in _EMPTY_AS_NULL if model.get(key) == ""},
    }


def _merges(raw_merges, vocab: dict[str, int], source: str) -> list[Merge]:
    ensure(isinstance(raw_merges, list), f"model.merges must be a list, found {type(raw_merges).__name__}", source)
    check_merge_count(len(raw_merges), source)
    kinds = set(map(type, raw_merges))
    if kinds <= {str}:
        pairs = list(map(tuple, map(methodcaller("split", " "), raw_merges)))
    elif kinds == {list}:
        pairs = list(map(tuple, raw_merges))
    else:
        pairs = None
    # checked with set operations first (a real file has hundreds of thousands of merges); the
    # slow loop below only runs to name the culprit
    if pairs is not None and set(map(len, pairs)) <= {2} and "" not in vocab:
        # the merges' strings become the vocabulary's (core.bpe.merges.Merge: one copy of each token)
        canonical = cast("Callable[[str], str]", dict(zip(vocab, vocab, strict=True)).get)  # None: checked below
        try:
            lefts = list(map(canonical, map(itemgetter(0), pairs)))
            rights = list(map(canonical, map(itemgetter(1), pairs)))
            results = list(map(canonical, map("".join, pairs)))
        except TypeError:  # a part that is no string: the loop below names it
            pass
        else:
            if all(lefts) and all(rights) and all(results):  # "" is no token, so only a missing one is falsy
                return binary_merges(range(len(pairs)), zip(lefts, rights, strict=True), results)
    merges = []
    for i, raw in enumerate(raw_merges):
        if isinstance(raw, str):
            parts = tuple(raw.split(" "))
        elif isinstance(raw, list) and all(isinstance(p, str) for p in raw):
            parts = tuple(raw)
        else:
            raise InputError(
                f"model.merges[{i}] must be a string 'a b' or a list of strings, found {excerpt(raw)}", source
            )
        if len(parts) != 2 or not all(parts):
            raise InputError(f"model.merges[{i}] = {excerpt(raw)} is not a pair of tokens", source)
        if parts[0] not in vocab or parts[1] not in vocab or parts[0] + parts[1] not in vocab:
            missing = [p for p in (*parts, "".join(parts)) if p not in vocab]
            raise InputError(
                f"model.merges[{i}] = {excerpt(raw)} uses tokens missing from model.vocab: {excerpt(missing)}", source
            )
        merges.append(Merge(i, parts))
    return merges


def hf_json_problem(tokeniser: BTETokeniser, *, tuples_allowed: bool = False) -> str | None:
    """Why no HF tokenizer.json can express ``tokeniser`` (and for how many merges), or None.

    HF BPE merges are pairs with one strict order: a tuple merge (knockout's rewiring,
    [knockout §3.2]) and merges sharing a rank (tiktoken / SentencePiece files, where the
    leftmost of equal ranks fires first) have no equivalent; nor do multi-character atoms. With
    ``tuples_allowed`` tuple merges are no problem (``core.edits.finishing`` settles them)."""
    tuples = tokeniser.tuple_merges
    if tuples and not tuples_allowed:
        return (
            f"{len(tuples)} tuple merge{'s' * (len(tuples) != 1)} remain (e.g. '{tuples[0]}' at rank "
            f"{tuples[0].rank}); a tokenizer.json holds binary merges only (ReBPE's reparation and "
            "reification turn many tuples back into binary merges)"
        )
    if tokeniser.atoms:
        return (
            f"{len(tokeniser.atoms)} multi-character atoms (e.g. {excerpt(tokeniser.atoms[0], 40)}) cannot be "
            "written as an HF tokenizer.json"
        )
    ranks = [m.rank for m in tokeniser.merges]
    if len(set(ranks)) != len(ranks):
        counts: dict = {}
        for rank in ranks:
            counts[rank] = counts.get(rank, 0) + 1
        shared = sum(n for n in counts.values() if n > 1)
        groups = sum(n > 1 for n in counts.values())
        return (
            f"{shared} merges share a rank with another merge ({groups} ranks; tiktoken / SentencePiece "
            "style, where the leftmost of equal ranks fires first); a tokenizer.json orders every merge "
            "strictly, so it would segment differently"
        )
    try:
        hf_pipeline_json(tokeniser.pretokeniser, tokeniser.specials, tokeniser.token_ids())
    except InputError as err:
        return err.message
    return None


def tokeniser_to_hf_json(tokeniser: BTETokeniser) -> dict[str, Any]:
    """A tokenizer.json that HF ``tokenizers`` loads and that segments as ``tokeniser`` does, with
    the tokeniser's ids (``token_ids``: the loaded ids, kept through every edit) for every type
    and added token. The fields the merge graph does not model (post-processor, padding, ...) are
    those of the loaded file, with the ids of the special tokens they name brought up to date."""
    problem = hf_json_problem(tokeniser)
    if problem is not None:
        raise InputError(f"cannot be written as an HF tokenizer.json: {problem}; save as project JSON instead")
    ids = tokeniser.token_ids()
    pipeline = hf_pipeline_json(tokeniser.pretokeniser, tokeniser.specials, ids)
    added = [{**token, "id": ids[token["content"]]} for token in pipeline["added_tokens"]]
    carried = tokeniser.metadata.get("hf") or {}
    in_vocab = tokeniser.types.union(carried.get("specials_in_vocab", ()))  # as the loaded file had them
    model_vocab = {t: i for t, i in ids.items() if t in in_vocab}
    if _ids_hf_gives(model_vocab, added) != {a["content"]: a["id"] for a in added}:
        # HF numbers added tokens outside model.vocab on from len(model.vocab): with the gaps
        # removed types leave, that would move them, so they go into model.vocab with their ids
        model_vocab = dict(sorted({**model_vocab, **{a["content"]: a["id"] for a in added}}.items(), key=itemgetter(1)))
    unknown = tokeniser.unknown
    model = {
        "type": "BPE",
        "dropout": tokeniser.dropout,
        "unk_token": unknown.unk_token,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": tokeniser.end_of_word_suffix or None,
        "fuse_unk": unknown.fuse_unk,
        "byte_fallback": unknown.byte_fallback,
        "ignore_merges": tokeniser.ignore_merges,
        "vocab": model_vocab,
        "merges": [list(m.parts) for m in tokeniser.merges],
    }
    for key, value in (carried.get("model") or {}).items():
        if key in _EMPTY_AS_NULL and model.get(key) is None:
            model[key] = value
    return {
        "version": carried.get("version", "1.0"),
        "truncation": carried.get("truncation"),
        "padding": carried.get("padding"),
        "added_tokens": added,
        "normalizer": pipeline["normalizer"],
        "pre_tokenizer": pipeline["pre_tokenizer"],
        "post_processor": with_current_ids(carried.get("post_processor"), ids),
        "decoder": pipeline["decoder"],
        "model": model,
    }


def _ids_hf_gives(model_vocab: dict[str, int], added: list[dict[str, Any]]) -> dict[str, int]:
    """The ids HF ``tokenizers`` gives the added tokens of a file (``AddedVocabulary::add_tokens``):
    the model's id for a token in ``model.vocab``, else the next id from len(model.vocab) on."""
    given: dict[str, int] = {}
    next_id = len(model_vocab)
    for token in added:
        content = token["content"]
        if content in given:
            continue
        if content in model_vocab:
            given[content] = model_vocab[content]
        else:
            given[content] = next_id
            next_id += 1
    return given


def with_current_ids(value: Any, ids: dict[str, int]) -> Any:
    """A post-processor (or any JSON) with the ids of the tokens it names set from ``ids``:
    TemplateProcessing's ``{"tokens": [...], "ids": [...]}`` and Bert/Roberta's ``[token, id]``.
    InputError when it names a token that has no id any more."""

    def id_of(token: str) -> int:
        ensure(token in ids, f"the post-processor names {excerpt(token, 40)}, which is no longer in the vocabulary")
        return ids[token]

    if isinstance(value, dict):
        out = {key: with_current_ids(item, ids) for key, item in value.items()}
        tokens = value.get("tokens")
        if isinstance(tokens, list) and isinstance(value.get("ids"), list) and all(isinstance(t, str) for t in tokens):
            out["ids"] = [id_of(t) for t in tokens]
        return out
    if isinstance(value, list):
        if len(value) == 2 and isinstance(value[0], str) and type(value[1]) is int:
            return [value[0], id_of(value[0])]
        return [with_current_ids(item, ids) for item in value]
    return value
