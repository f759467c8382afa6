"""Differential checks for the fast paths of ``TokenisedReference.update`` (issue 33).

When an edit adds many merges (``SUBSTRING_LOOKUP_MIN``, ``SUBSTRING_LOOKUP_RATIO``), the words to re-trace are found by
substring look-ups instead of ``PretokenIndex.containing_any``; both must find the same words, and
knockout must give exactly the same run either way (Dutch 40k; GPT-2 under ``real``)."""

from __future__ import annotations

import random

import pytest

import core.edits.reference_state as reference_state
from core.edits.rebpe import run_knockout
from core.edits.reference_state import TokenisedReference
from core.formats.samples import DUTCH_40K, SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references
from tests.real_tokenisers import real_file

NL_MORPH = SAMPLE_DIR / "references" / "nl_morph.tsv"


def _run_summary(tokeniser_path, monkeypatch, threshold: int) -> list:
    monkeypatch.setattr(reference_state, "SUBSTRING_LOOKUP_MIN", threshold)
    monkeypatch.setattr(reference_state, "SUBSTRING_LOOKUP_RATIO", 0 if threshold == 0 else 4)
    tokeniser = load_tokeniser(tokeniser_path)
    run = run_knockout(tokeniser, load_references(NL_MORPH).entries)
    return [
        (
            s.phase,
            s.removed,
            s.rewired,
            s.types_removed,
            s.changed_words,
            s.metrics,
            s.vocab_size,
            [w.segmentations for w in run.reference.words],
        )
        for s in run.steps
    ]


def test_substring_lookups_find_the_same_words(monkeypatch) -> None:
    monkeypatch.setattr(reference_state, "SUBSTRING_LOOKUP_RATIO", 0)
    tokeniser = load_tokeniser(DUTCH_40K)
    reference = TokenisedReference(tokeniser, load_references(NL_MORPH).entries)
    types = sorted(tokeniser.types)
    rng = random.Random(33)
    for size in (601, 2000, 5000):
        strings = set(rng.sample(types, size)) | {"\0", "x" * 200}
        expected = reference.pretokens.containing_any(strings)
        assert reference._containing_any(strings) == expected
        assert expected  # the check is not vacuous


def _same_run_both_ways(path, monkeypatch) -> None:
    fast = _run_summary(path, monkeypatch, 0)
    slow = _run_summary(path, monkeypatch, 10**9)
    assert fast == slow


def test_knockout_same_on_both_paths_dutch(monkeypatch) -> None:
    _same_run_both_ways(DUTCH_40K, monkeypatch)


@pytest.mark.real
def test_knockout_same_on_both_paths_gpt2(monkeypatch) -> None:
    _same_run_both_ways(real_file("gpt2", "merges.txt"), monkeypatch)
