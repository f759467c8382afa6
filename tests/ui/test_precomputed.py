"""The precomputed results in sample_data/precomputed/ (scripts/precompute_samples.py): each file
equals a fresh computation, there is no other file, and with them the pages' runs, blocked-merge
scans and reparations on the default workspace are read, not computed (about 30 s: it recomputes
every result)."""

from __future__ import annotations

import json

import pytest

from core.edits.archive import read_archive
from core.edits.rebpe import ReBPEConfig
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import load_references
from scripts import precompute_samples as precompute
from tests.apptest_support import assert_clean, run_page
from ui import rebpe_runs, result_cache, sweeps
from ui.rebpe_runs import KNOCKOUT_ONLY, blocked_report, cached_run, reparation
from ui.workspace_choices import DEFAULT_REFERENCE, DEFAULT_TOKENISER, SAMPLE_REFERENCES, SAMPLE_TOKENISERS


def without_timings(obj):
    """The archive with every ``seconds`` (a timing, not a result) left out."""
    if isinstance(obj, dict):
        return {k: without_timings(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [without_timings(v) for v in obj]
    return obj


@pytest.fixture(scope="module")
def fresh() -> list:
    return list(precompute.results())


@pytest.mark.slow
def test_every_precomputed_file_equals_a_fresh_computation(fresh):
    assert {r.kind for r in fresh} == {"run", "blocked", "reparation", "sweep"}
    for result in fresh:
        path = result_cache.PRECOMPUTED_DIR / result_cache.file_name(result.key)
        assert path.is_file(), f"{result.what}: missing, run scripts/precompute_samples.py"
        stored = read_archive(path, result.kind, result.key)
        expected = json.loads(
            json.dumps(
                {
                    "format": stored["format"],
                    "version": stored["version"],
                    "kind": result.kind,
                    "key": result.key,
                    **result.body,
                }
            )
        )
        assert without_timings(stored) == without_timings(expected), f"{result.what}: run scripts/precompute_samples.py"


@pytest.mark.slow
def test_there_is_no_stale_file(fresh):
    expected = {result_cache.file_name(r.key) for r in fresh}
    assert {p.name for p in result_cache.PRECOMPUTED_DIR.glob("*" + result_cache.SUFFIX)} == expected


@pytest.mark.slow
def test_the_default_workspace_reads_its_results_instead_of_computing(
    fresh, tmp_path, monkeypatch, fresh_streamlit_caches
):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))  # an empty disk cache: only the shipped files

    def refuse(*args, **kwargs):
        raise AssertionError("computed although precomputed")

    for name in ("compute_run", "run_rebpe", "find_blocked_merges", "repair"):
        monkeypatch.setattr(rebpe_runs, name, refuse)
    tokeniser = load_tokeniser(SAMPLE_TOKENISERS[DEFAULT_TOKENISER])
    references = load_references(SAMPLE_REFERENCES[DEFAULT_REFERENCE])
    words = tuple(e.word for e in references.entries)
    runs = {
        config: cached_run(DEFAULT_TOKENISER, tokeniser, DEFAULT_REFERENCE, references, config)
        for config in (ReBPEConfig(), KNOCKOUT_ONLY, ReBPEConfig(fix=False))
    }
    assert len(runs[ReBPEConfig()].steps) > 10 and len(runs[KNOCKOUT_ONLY].steps) == 1
    knocked = runs[KNOCKOUT_ONLY]
    report = blocked_report((knocked.key, DEFAULT_REFERENCE, len(words)), knocked.tokeniser, words)
    assert report.blocked
    for mode in ("limited", "undo"):
        result = reparation((knocked.key, DEFAULT_REFERENCE, len(words), mode), mode, knocked.tokeniser, words)
        assert result.repaired
    no_fix = runs[ReBPEConfig(fix=False)]
    assert blocked_report((no_fix.key, DEFAULT_REFERENCE, len(words)), no_fix.tokeniser, words).blocked
    assert not list((tmp_path / "results").glob("*")), "nothing computed, so nothing written"


@pytest.mark.parametrize("page", ["pages/stepper.py", "pages/blocked_merges.py"])
def test_pages_open_on_the_default_workspace_without_computing(page, tmp_path, monkeypatch, fresh_streamlit_caches):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))

    def refuse(*args, **kwargs):
        raise AssertionError("computed although precomputed")

    for name in ("compute_run", "run_rebpe", "find_blocked_merges", "repair"):
        monkeypatch.setattr(rebpe_runs, name, refuse)
    at = run_page(page, timeout=60, via_app=True)
    assert_clean(at)
    assert not list((tmp_path / "results").glob("*"))


def test_the_threshold_sweep_view_reads_its_rows_instead_of_computing(tmp_path, monkeypatch, fresh_streamlit_caches):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))

    def refuse(*args, **kwargs):
        raise AssertionError("computed although precomputed")

    monkeypatch.setattr(sweeps, "compute_sweep", refuse)  # where the page's cached run calls it
    at = run_page("pages/distributions.py", timeout=60, via_app=True, view="Threshold sweep")
    assert_clean(at)
    assert any("precision" in c.value for c in at.caption)  # the caption written from the sweep's rows
    assert not list((tmp_path / "results").glob("*"))
