"""The BPE model's project JSON (``"format": "bte-tokeniser"``), kept apart from the model as HF
``tokenizers`` keeps it (``models/bpe/serialization.rs``). No paper section (file format).

Round-trips tuple merges and fractional ranks exactly. :class:`core.bpe.model.BTETokeniser`'s
``to_json`` / ``from_json`` (the interface every family shares) call :func:`project_json` and
:func:`read_project_json`; this module sits below the model, so it reads a model through
:class:`SavedBPE` and builds one with the class it is given.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from core.bpe.merges import Merge
from core.bpe.unknowns import UnknownPolicy
from core.errors import InputError, ensure
from core.pipeline.base import Pretokeniser
from core.pipeline.specs import pretokeniser_from_spec

PROJECT_FORMAT = "bte-tokeniser"
PROJECT_VERSION = 1

Model = TypeVar("Model")


class SavedBPE(Protocol):
    """What the project JSON holds of a BPE model."""

    name: str
    pretokeniser: Pretokeniser
    alphabet: tuple[str, ...]
    specials: tuple[str, ...]
    ignore_merges: bool
    merges: tuple[Merge, ...]
    type_ids: Mapping[str, int] | None
    metadata: Mapping[str, Any]
    unknown: UnknownPolicy
    atoms: tuple[str, ...]
    end_of_word_suffix: str
    dropout: float | None


def project_json(model: SavedBPE, metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``model`` as project JSON, with ``metadata`` instead of its own when given."""
    out: dict[str, Any] = {
        "format": PROJECT_FORMAT,
        "version": PROJECT_VERSION,
        "name": model.name,
        "pretokeniser": model.pretokeniser.to_spec(),
        "alphabet": list(model.alphabet),
        "specials": list(model.specials),
        "ignore_merges": model.ignore_merges,
        "merges": [[m.rank, list(m.parts)] for m in model.merges],
        "type_ids": dict(model.type_ids) if model.type_ids is not None else None,
        "metadata": dict(metadata if metadata is not None else model.metadata),
    }
    if not model.unknown.is_default:
        out["unknown"] = model.unknown.to_json()
    if model.atoms:
        out["atoms"] = list(model.atoms)
    if model.end_of_word_suffix:
        out["end_of_word_suffix"] = model.end_of_word_suffix
    if model.dropout is not None:
        out["dropout"] = model.dropout
    return out


def read_project_json(build: Callable[..., Model], obj: Any, source: str) -> Model:
    """The model a saved project JSON value describes, made by ``build`` (the model's class) from
    its fields; InputError naming ``source`` when ``obj`` is not one."""

    ensure(
        isinstance(obj, dict) and obj.get("format") == PROJECT_FORMAT,
        f'expected a JSON object with "format": "{PROJECT_FORMAT}"',
        source,
    )
    ensure(
        obj.get("version") == PROJECT_VERSION,
        f"unsupported version {obj.get('version')!r} (expected {PROJECT_VERSION})",
        source,
    )
    alphabet = obj.get("alphabet")
    ensure(
        isinstance(alphabet, list) and all(isinstance(a, str) and a for a in alphabet),
        "field 'alphabet' must be a list of non-empty strings",
        source,
    )
    raw_merges = obj.get("merges") or []
    ensure(isinstance(raw_merges, list), "field 'merges' must be a list", source)
    merges = []
    for i, raw in enumerate(raw_merges):
        ok = (
            isinstance(raw, list)
            and len(raw) == 2
            and isinstance(raw[0], numbers.Real)
            and not isinstance(raw[0], bool)
            and isinstance(raw[1], list)
            and len(raw[1]) >= 2
            and all(isinstance(p, str) and p for p in raw[1])
        )
        ensure(
            ok,
            f"merges[{i}] must be [rank, [part, part, ...]] with two or more non-empty parts, found {str(raw)[:80]}",
            source,
        )
        merges.append(Merge(raw[0], tuple(raw[1])))
    spec = obj.get("pretokeniser")
    ensure(isinstance(spec, dict), "field 'pretokeniser' must be an object", source)
    try:
        pretokeniser = pretokeniser_from_spec(spec)
    except InputError as err:
        raise InputError("pretokeniser: " + err.message, source) from None
    type_ids = obj.get("type_ids")
    ensure(
        type_ids is None
        or (
            isinstance(type_ids, dict)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in type_ids.values())
        ),
        "field 'type_ids' must be null or map tokens to integer ids",
        source,
    )
    metadata = obj.get("metadata") or {}
    ensure(isinstance(metadata, dict), "field 'metadata' must be an object", source)
    specials = obj.get("specials") or []
    ensure(
        isinstance(specials, list) and all(isinstance(t, str) for t in specials),
        "field 'specials' must be a list of strings",
        source,
    )
    unknown = UnknownPolicy.from_json(obj.get("unknown") or {}, source)
    atoms = obj.get("atoms") or []
    ensure(
        isinstance(atoms, list) and all(isinstance(a, str) and a for a in atoms),
        "field 'atoms' must be a list of non-empty strings",
        source,
    )
    suffix = obj.get("end_of_word_suffix") or ""
    ensure(isinstance(suffix, str), "field 'end_of_word_suffix' must be a string", source)
    dropout = obj.get("dropout")
    ensure(
        dropout is None or (isinstance(dropout, (int, float)) and not isinstance(dropout, bool) and 0 <= dropout <= 1),
        "field 'dropout' must be null or a number in [0, 1]",
        source,
    )
    try:
        return build(
            alphabet,
            merges,
            pretokeniser,
            specials=specials,
            type_ids=type_ids,
            ignore_merges=bool(obj.get("ignore_merges", False)),
            name=str(obj.get("name") or ""),
            metadata=metadata,
            unknown=unknown,
            atoms=atoms,
            end_of_word_suffix=suffix,
            dropout=dropout,
        )
    except InputError as err:
        raise InputError(err.message, source) from None
