"""Diagnostics: metrics per phase, origins, knockouts by origin (Fig. 4), p_eff,ret (App. A.6),
token-count change (A.4), knocked-out ranks (Fig. 6) and the threshold sweep (App. A.3)."""

from __future__ import annotations

from core.edits.blame import compute_blame
from core.edits.diagnostics import (
    changes_by_origin,
    effective_dropout,
    knocked_out_by_origin,
    knocked_out_ranks,
    metrics_table,
    threshold_sweep,
    tokens_per_word_change,
    vocab_size_per_iteration,
)
from core.edits.knockout import knock_out
from core.edits.rebpe import KnockoutConfig, run_knockout, run_rebpe
from core.edits.reference_state import TokenisedReference
from core.edits.steps import PREEXISTING, REPAIRED
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.references.evaluation import evaluate_morphology
from core.references.files import parse_references
from tests.core.edits.test_knockout import TOY_REFS, toy
from tests.teaching_scenarios import scenario_run

REFS = parse_references(TOY_REFS, "toy.tsv").entries


def test_effective_dropout_is_share_of_applications():
    ref = TokenisedReference(toy(), REFS)
    blames = compute_blame(ref)
    knocked = [m for m in blames if str(m) in ("id s", "_be l", "mak er")]
    total = sum(b.applications for b in blames.values())
    assert effective_dropout(blames, knocked) == (3 + 1 + 1) / total
    assert effective_dropout(blames, []) == 0


def test_threshold_sweep_matches_real_knockouts():
    ref = TokenisedReference(toy(), REFS)
    rows = threshold_sweep(ref, [0.01, 0.5, 0.7, 0.99, 1.01])
    assert [r["removed"] for r in rows] == [3, 3, 2, 2, 0]
    for row in rows:
        run = run_knockout(toy(), REFS, KnockoutConfig(threshold=row["threshold"]))
        assert evaluate_morphology(run.tokeniser, REFS).f1 == row["f1"]


def test_tokens_per_word_change_and_ranks():
    tok = toy()
    knocked, edit = knock_out(tok, ["_bel", "maker"])
    change = tokens_per_word_change(tok, knocked, ["bruidsjurk", "beleidsmaker", "gids"])
    # _bele is now formed by the triplet _be+l+e, so _beleids survives; maker leaves [mak, er]
    assert change == {0: 2, 1: 1}
    assert knocked_out_ranks(tok, edit.removed) == [10, 16]


def test_run_tables_line_up_with_steps():
    tok = load_tokeniser(scenario_paths()["a1_scenario2a"])
    refs = parse_references("bruids\tbruid s\nbruid\tbruid\n", "r.tsv").entries
    run = run_rebpe(tok, refs)
    initial = evaluate_morphology(tok, refs)
    table = metrics_table(run.steps, initial)
    assert table[0]["phase"] == "BPE" and table[0]["f1"] == initial.f1
    assert [r["phase"] for r in table[1:]] == [s.phase for s in run.steps]
    assert table[-1]["f1"] == 1.0 and abs(sum(r["delta_f1"] for r in table[1:]) - (1.0 - initial.f1)) < 1e-12
    origins = changes_by_origin(run.steps)
    assert origins[0]["split by knockout"] == 1 and origins[0]["removed"] == 1
    assert any(row["reified"] == 1 for row in origins)
    sizes = vocab_size_per_iteration(run.steps)
    assert sizes[max(sizes)] == run.tokeniser.vocab_size


def test_knocked_out_by_origin_is_figure_4():
    _, run = scenario_run("a1_scenario2b_ii")
    rows = knocked_out_by_origin(run.steps)
    assert [(r["iteration"], {k: v for k, v in r.items() if k != "iteration" and v}) for r in rows] == [
        (1, {PREEXISTING: 1}),
        (2, {PREEXISTING: 1}),
        (3, {REPAIRED: 1}),
        (4, {}),
    ]
