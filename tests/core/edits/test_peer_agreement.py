"""Agreement with the authors' BPE-knockout/ReBPE implementation, recorded as a golden file.

tests/golden/peer_en4k.json holds what the authors' code (bpe-knockout 2026.10.1 with tktkt 2026.10.0,
run by a development driver kept outside this repository; its command is the file's "source") did with
the shipped English 4k tokeniser and reference: the merges knocked out per round, |V| and Pr/Re/F1 after,
and the final segmentations. With the authors' reparation variant our engine reproduces all of it exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.edits.rebpe import ReBPEConfig, run_knockout, run_rebpe
from core.formats.samples import reference_paths, tokeniser_paths
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "golden" / "peer_en4k.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def inputs():
    return load_tokeniser(tokeniser_paths()["en-bpe-4k-wordfreq"]), load_references(
        reference_paths()["en_morph"]
    ).entries


def rounds(run):
    return [sorted(str(m) for m in s.removed) for s in run.steps if s.phase == "knockout"]


def close(scores, golden):
    return all(abs(getattr(scores, k) - golden[k]) < 1e-12 for k in ("precision", "recall", "f1"))


def test_knockout_matches_the_authors(inputs):
    tokeniser, entries = inputs
    run = run_knockout(tokeniser, entries)
    assert rounds(run) == GOLDEN["knockout"]["rounds"]
    assert run.tokeniser.vocab_size == GOLDEN["knockout"]["vocab_size_after"]
    assert close(run.steps[-1].metrics, GOLDEN["knockout"]["metrics_after"])


def test_rebpe_matches_the_authors(inputs):
    tokeniser, entries = inputs
    run = run_rebpe(tokeniser, entries, ReBPEConfig(reparation="undo"))
    assert rounds(run) == GOLDEN["rebpe"]["rounds"]
    assert run.tokeniser.vocab_size == GOLDEN["rebpe"]["vocab_size_after"]
    assert close(run.steps[-1].metrics, GOLDEN["rebpe"]["metrics_after"])
    assert {w: run.tokeniser.tokenise_word(w) for w in GOLDEN["rebpe"]["segmentations_after"]} == GOLDEN["rebpe"][
        "segmentations_after"
    ]
