"""What a notebook shows for the API's objects at real size (the Dutch 40k tokeniser, its reference, a
knockout and a ReBPE run): one short line that says what the object is, never its megabytes of fields."""

from __future__ import annotations

import pytest

import core
from core.edits.archive import ReparationParts, RunParts
from core.edits.blocked import find_blocked_merges
from core.edits.reference_state import TokenisedReference
from core.formats.samples import SAMPLE_DIR

LIMIT = 1000


@pytest.fixture(scope="module")
def references():
    return core.load_references(SAMPLE_DIR / "references" / "nl_morph.tsv")


@pytest.fixture(scope="module")
def knocked(dutch40k, references):
    return core.run_knockout(dutch40k, references.entries)


@pytest.fixture(scope="module")
def rebpe(dutch40k, references):
    config = core.ReBPEConfig(anneal=core.AnnealConfig(when="before"), max_iterations=2)
    return core.run_rebpe(dutch40k, references.entries, config)


def short(obj) -> str:
    text = repr(obj)
    assert len(text) < LIMIT, (type(obj).__name__, len(text))
    return text


def test_a_step_says_its_phase_iteration_changes_and_scores(knocked):
    step = knocked.steps[0]
    text = short(step)
    assert text.startswith("<StepReport knockout, iteration 1: ")
    assert f"{len(step.removed):,} removed" in text and f"{len(step.changed_words):,} words changed" in text
    assert f"|V| {step.vocab_size:,}, F1 {step.metrics.f1:.4f}" in text


def test_a_run_and_its_steps_say_what_the_run_did(dutch40k, rebpe):
    text = short(rebpe)
    assert text == (
        f"<Run {len(rebpe.steps)} steps, {rebpe.steps[-1].iteration} iterations: |V| 40,000 -> "
        f"{rebpe.tokeniser.vocab_size:,}, F1 {rebpe.steps[-1].metrics.f1:.4f} on 1,146 words>"
    )
    assert len(repr(rebpe.steps)) < LIMIT * 3  # a list of one-line steps
    assert short(rebpe.steps[0]).startswith("<StepReport annealing, iteration 0: no change; |V| 40,000")
    assert short(rebpe.steps[0].annealing).startswith("AnnealingDiagnostics(min_applications=3, min_ratio=0.8, ")


def test_archive_parts_say_what_they_hold(rebpe, references):
    parts = RunParts(tuple(rebpe.steps), rebpe.tokeniser, rebpe.steps[0].metrics, 2.5, (), tuple(references.words()))
    assert short(parts) == (
        f"<RunParts {len(rebpe.steps)} steps: |V| {rebpe.tokeniser.vocab_size:,} at the end, "
        f"F1 {rebpe.steps[0].metrics.f1:.4f} at the start, on 1,146 words; 2.5 s>"
    )
    blocked = find_blocked_merges(rebpe.steps[1].tokeniser)
    reparation = rebpe.steps[2]
    repaired = ReparationParts(reparation.tokeniser, reparation.rewired, reparation.changed_words, blocked)
    assert short(repaired).startswith(f"<ReparationParts {len(reparation.rewired):,} merges repaired, ")


def test_inputs_and_reports_say_their_sizes(dutch40k, references, knocked):
    assert short(dutch40k).startswith("BTETokeniser(name='bpe-40k_oscar-nl-clean', |alphabet|=256, |M|=39739")
    assert short(references) == f"<ReferenceSet {references.source} (tsv): 1,146 entries, 0 rejected>"
    traced = TokenisedReference(dutch40k, references.entries)
    assert (
        short(traced)
        == "<TokenisedReference 1,146 words (0 unaligned), blame 'tree', tokeniser 'bpe-40k_oscar-nl-clean'>"
    )
    blocked = find_blocked_merges(knocked.tokeniser)
    assert short(blocked).startswith(f"<BlockedReport {len(blocked.blocked):,} blocked merges (")
    _, finishing = core.finish(knocked.tokeniser, "cascade")
    assert short(finishing) == f"<Finishing {finishing.summary()}>"


def test_a_trace_and_an_explanation_say_the_tokens(dutch40k):
    text = " ".join(["de bruidsjurk van de bruid was wit en lang"] * 50)
    trace = dutch40k.trace_text(text)
    assert short(trace).startswith("<Trace 'de bruidsjurk van de bruid was wit en la…' -> de Ġbruids jurk Ġvan")
    assert f"({len(trace.tokens):,} tokens); {len(trace.events):,} events>" in short(trace)
    assert short(core.trace_word(dutch40k, "bruidsjurk")) == "<WordTrace 'bruidsjurk' -> Ġbruids jurk: 9 merge steps>"
    explained = core.explain_word(dutch40k, "bruidsjurk", ("bruid", "s", "jurk"))
    assert short(explained).startswith("<Explanation 'bruidsjurk' -> Ġbruids jurk (reference bruid s jurk): ")


def test_a_training_run_says_the_family_and_size():
    run = core.train("bpe", core.load_word_counts(SAMPLE_DIR / "counts" / "en_wordfreq.tsv"), 1000)
    assert short(run) == f"<TrainingRun bpe: |V| 1,000, {len(run.events):,} events>"
