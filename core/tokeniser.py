"""The one interface every tokeniser family implements, and the capabilities some add.

No paper section: plumbing, shaped like HF ``tokenizers`` (a model behind a normaliser and a
pre-tokeniser, the same for BPE and Unigram). Every family (BTE/BPE, Scaffold-BPE, PickyBPE,
BoundlessBPE, Unigram) is a :class:`Tokeniser`; the CLI, the metrics and every page take one.

What only some families can do is a *capability*, asked for by name with :func:`require`:

- ``merge_graph``: a :class:`core.bpe.model.BTETokeniser` over the family's merges (V, M_i, M_o of
  [knockout §3.1]), for the graph, blame, knockout, ReBPE and blocked merges. BPE/BTE is its
  own merge graph; Scaffold-BPE offers its merge list (with its scaffold tokens still in V);
  PickyBPE and BoundlessBPE offer theirs when they define one (``merge_graph()``); TrimmedBPE
  and BPE-dropout (:mod:`core.families.trimmed`, :mod:`core.families.dropout`) offer the BPE they wrap.

A tokeniser without the capability gets :class:`CapabilityError`, an :class:`InputError` whose
one-line message names the family, the command and what it needs (CLI: exit 2; pages: a notice).

Saved files: every family writes ``to_json()`` with a ``"format"`` key that
:data:`core.families.registry.SAVED_FORMATS` maps to the class whose ``from_json(obj, source)`` reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from core.errors import InputError
from core.options import described
from core.pipeline.base import Pretokeniser
from core.trace import Trace


@runtime_checkable
class Tokeniser(Protocol):
    """What every family provides: identity, pipeline, vocabulary, segmentation, a trace, and
    its own JSON (``from_json`` is a classmethod of each class)."""

    kind: str
    name: str

    @property
    def pretokeniser(self) -> Pretokeniser: ...

    @property
    def vocabulary(self) -> frozenset[str]: ...

    @property
    def vocab_size(self) -> int: ...

    def token_ids(self) -> Mapping[str, int]: ...

    def tokenise(self, text: str) -> list[str]:
        """The tokens of running text ``text``, as HF's ``encode`` gives them: nothing is put before
        it, so a byte-level or Metaspace word at its start has no word-start marker
        (``tokenise("bruidsjurk")``: ``bru ids jurk``); see :meth:`tokenise_word`."""
        ...

    def tokenise_word(self, word: str) -> list[str]:
        """The tokens of ``word`` as it appears inside running text: ``tokenise(" " + word)``
        (``Ġbruids jurk``), what ``python -m core segment``, the metrics and the explorer use."""
        ...

    def trace_text(self, text: str) -> Trace: ...

    def to_json(self) -> dict: ...


class SegmentsWords(Protocol):
    """What word statistics need: a word tokenised as in running text, or one pretoken segmented
    (a BTE tokeniser, a TrimmedBPE, or a memo of either such as ``core.analysis.compare.Segmentations``)."""

    def tokenise_word(self, word: str) -> list[str]: ...

    def segment_pretoken(self, pretoken: str) -> tuple[str, ...]: ...


def specials_of(tokeniser: Tokeniser) -> tuple[str, ...]:
    """Special tokens (outside the vocabulary's structure); none for families without them."""
    return tuple(getattr(tokeniser, "specials", ()))


def ids_in_order(tokens) -> dict[str, int]:
    """Ids 0, 1, ... in the given order (families that keep no ids of their own)."""
    return {token: i for i, token in enumerate(dict.fromkeys(tokens))}


class CapabilityError(InputError):
    """A command or page needs something this tokeniser family does not have."""


#: capability -> what it is for (used in messages)
CAPABILITIES = {
    "merge_graph": "a merge graph (ranked merges: BPE, BTE, Scaffold-BPE, PickyBPE, BoundlessBPE, TrimmedBPE, "
    "BPE-dropout)",
}


def check_tokeniser(value: Any, name: str = "tokeniser") -> Tokeniser:
    """``value`` if it is a :class:`Tokeniser` (any family); else InputError naming the argument."""
    if not isinstance(value, Tokeniser):
        raise InputError(f"{name} must be a tokeniser (from load_tokeniser or train), got {described(value)}")
    return value


def check_pretokeniser(value: Any, name: str = "pretokeniser", *, names: bool = False) -> Any:
    """``value`` if it is None or a :class:`Pretokeniser` (or, with ``names``, a name of one, looked
    up by the caller); else InputError naming the argument."""
    if value is None or isinstance(value, Pretokeniser) or (names and isinstance(value, str)):
        return value
    expected = (
        "a Pretokeniser or the name of one"
        if names
        else "a Pretokeniser (e.g. core.pipeline.named.named_pretokeniser(name))"
    )
    raise InputError(f"{name} must be {expected}, got {described(value)}")


def require(tokeniser: Tokeniser, capability: str, needed_for: str, *, name: str = "tokeniser"):
    """The ``capability`` view of ``tokeniser`` or CapabilityError: "<needed_for> needs ...";
    InputError (:func:`check_tokeniser`, naming the argument ``name``) for what is no tokeniser.

    ``merge_graph`` returns a :class:`core.bpe.model.BTETokeniser`.
    """
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r}")
    check_tokeniser(tokeniser, f"{needed_for}: {name}" if needed_for else name)
    view = _merge_graph(tokeniser) if capability == "merge_graph" else None
    if view is None:
        called = f" {tokeniser.name!r}" if getattr(tokeniser, "name", "") else ""
        raise CapabilityError(
            f"{needed_for} needs {CAPABILITIES[capability]}; the {tokeniser.kind} tokeniser{called} has none"
        )
    return view


def has(tokeniser: Tokeniser, capability: str) -> bool:
    try:
        require(tokeniser, capability, "")
    except CapabilityError:
        return False
    return True


def _merge_graph(tokeniser) -> Any:
    """The family's ``merge_graph()`` (a BTE tokeniser returns itself), or None."""
    view = getattr(tokeniser, "merge_graph", None)
    return view() if callable(view) else None
