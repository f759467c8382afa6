"""The knockout threshold sweep of the distributions page ([knockout App. A.3]: thresholds 0.05 … 0.95),
kept on disk by the content of the tokeniser and the reference (``ui.result_cache``); the shipped
default workspace's sweep is precomputed (``scripts/precompute_samples.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager

from core.bpe.model import BTETokeniser
from core.edits.archive import content_key, references_digest, tokeniser_digest
from core.edits.diagnostics import threshold_sweep
from core.edits.reference_state import TokenisedReference
from core.references.files import ReferenceSet
from ui import result_cache

THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))  # App. A.3: 0.05 … 0.95


def sweep_key(tokeniser: BTETokeniser, references: ReferenceSet) -> str:
    return content_key("sweep", tokeniser_digest(tokeniser), references_digest(references.entries), repr(THRESHOLDS))


def compute_sweep(reference: TokenisedReference, progress: Callable[[int, float], None] | None = None) -> list[dict]:
    """:func:`core.edits.diagnostics.threshold_sweep` at every threshold, one at a time (``progress(i, t)``
    before each)."""
    rows = []
    for i, t in enumerate(THRESHOLDS):
        if progress is not None:
            progress(i, t)
        rows.append(threshold_sweep(reference, [t])[0])
    return rows


def sweep_rows(
    tokeniser: BTETokeniser,
    references: ReferenceSet,
    reference: TokenisedReference,
    shown: Callable[[], AbstractContextManager[Mapping[str, Callable[..., None]]]],
) -> list[dict]:
    """The sweep of ``reference`` (``tokeniser`` traced on ``references``) from the disk (precomputed
    or cached), else computed in a worker process and kept; ``shown()`` handles its ``progress(i, t)``."""
    return result_cache.through_worker(
        "sweep",
        sweep_key(tokeniser, references),
        lambda send: compute_sweep(reference, lambda i, t: send("progress", i, t)),
        lambda rows: {"rows": rows},
        lambda obj: obj["rows"],
        shown,
    )
