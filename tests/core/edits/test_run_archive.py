"""Run archives (core/edits/archive.py) and the result cache on disk (ui/result_cache.py): a finished
run, a blocked-merge scan and a reparation read back equal to what was computed; the cache is keyed
by content; a damaged cache file is computed again, never a traceback."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from core.bpe.model import BTETokeniser
from core.edits import archive as run_archive
from core.edits.archive import NotArchivable, read_archive, write_archive
from core.edits.blocked import find_blocked_merges
from core.edits.knockout import id_lineage, retired_ids
from core.edits.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig
from core.edits.scenarios import scenario_reference_tsv
from core.formats.samples import SAMPLE_DIR, scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import ReferenceEntry, ReferenceSet, load_references, parse_references
from ui import rebpe_runs, result_cache
from ui.rebpe_runs import (
    KNOCKOUT_ONLY,
    ComputedRun,
    blocked_content_key,
    compute_reparation,
    compute_run,
    run_content_key,
    stored_blocked_report,
    stored_reparation,
    stored_run,
)

STEP_FIELDS = (
    "phase",
    "iteration",
    "removed",
    "added",
    "rewired",
    "types_removed",
    "types_added",
    "changed_words",
    "metrics",
    "vocab_size",
    "tuple_merges",
    "origins",
    "details",
    "seconds",
    "annealing",
)
#: annealing before and after, knockout, reparation, reification (fractional ranks): every kind of step
FULL = ReBPEConfig(anneal=AnnealConfig(when="both"))


@pytest.fixture(scope="module")
def nl4k() -> BTETokeniser:
    return load_tokeniser(SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json")


@pytest.fixture(scope="module")
def nl_morph() -> ReferenceSet:
    return load_references(SAMPLE_DIR / "references" / "nl_morph.tsv")


@pytest.fixture(scope="module")
def full_run(nl4k, nl_morph) -> ComputedRun:
    return compute_run(("full",), nl4k, nl_morph, FULL)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """An empty disk cache, and no precomputed results (so every result is computed or cached here)."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(result_cache, "PRECOMPUTED_DIR", tmp_path / "no-precomputed")
    return tmp_path / "results"


def assert_same_run(loaded: ComputedRun, original: ComputedRun) -> None:
    assert len(loaded.steps) == len(original.steps)
    # out of order first: each step's tokeniser is rebuilt from the one before on first use
    for index in (len(original.steps) // 2, 1, *range(len(original.steps))):
        a, b = original.steps[index], loaded.steps[index]
        for name in STEP_FIELDS:
            assert getattr(b, name) == getattr(a, name), (index, name)
        assert b.tokeniser.to_json() == a.tokeniser.to_json(), index
    assert loaded.tokeniser.to_json() == original.tokeniser.to_json()
    assert loaded.tokeniser is loaded.steps[-1].tokeniser
    # what derive() remembers about ids comes back too: later edits give the same ids
    assert id_lineage(loaded.tokeniser) == id_lineage(original.tokeniser)
    for index in range(len(original.steps)):
        assert retired_ids(loaded.steps[index].tokeniser) == retired_ids(original.steps[index].tokeniser), index
    assert (loaded.initial, loaded.unaligned, loaded.words, loaded.seconds) == (
        original.initial,
        original.unaligned,
        original.words,
        original.seconds,
    )
    ranks = [type(m.rank) for s in original.steps for m in s.tokeniser.merges]
    assert [type(m.rank) for s in loaded.steps for m in s.tokeniser.merges] == ranks


def round_trip(run: ComputedRun, tmp_path) -> ComputedRun:
    path = tmp_path / "run.json.gz"
    write_archive(path, "run", "k", run_archive.run_to_json(run.start, run.parts()))
    return ComputedRun(run.key, run.start, *run_archive.run_from_json(read_archive(path, "run", "k"), run.start))


def test_a_run_with_every_kind_of_step_reads_back_equal(full_run, tmp_path):
    phases = {s.phase for s in full_run.steps}
    assert phases == {"annealing", "knockout", "reparation", "reification"}
    assert any(isinstance(m.rank, float) for s in full_run.steps for m in s.added)  # reified: r - ε
    assert all((s.annealing is not None) == (s.phase == "annealing") for s in full_run.steps)
    assert_same_run(round_trip(full_run, tmp_path), full_run)


def test_a_scenario_without_loaded_ids_reads_back_equal(tmp_path):
    tokeniser = load_tokeniser(scenario_paths()["a1_scenario2a"])
    assert tokeniser.type_ids is None and tokeniser.metadata  # the first step gets ids: a full delta
    references = parse_references(scenario_reference_tsv(tokeniser), "scenario", format="tsv")
    run = compute_run(("scenario",), tokeniser, references, ReBPEConfig())
    assert_same_run(round_trip(run, tmp_path), run)


def test_a_step_that_changes_nothing_keeps_the_tokeniser_object(full_run, tmp_path):
    loaded = round_trip(full_run, tmp_path)
    same = [i for i in range(1, len(full_run.steps)) if full_run.steps[i].tokeniser is full_run.steps[i - 1].tokeniser]
    assert same
    assert all(loaded.steps[i].tokeniser is loaded.steps[i - 1].tokeniser for i in same)


def test_blocked_report_and_reparation_read_back_equal(nl4k, nl_morph):
    knocked = compute_run(("knockout",), nl4k, nl_morph, KNOCKOUT_ONLY).tokeniser
    words = nl_morph.words()
    report = find_blocked_merges(knocked, words)
    assert report.blocked
    assert run_archive.blocked_from_json(json.loads(json.dumps(report.to_json()))) == report
    result = compute_reparation(knocked, "limited", words)
    assert result.repaired
    body = json.loads(json.dumps(run_archive.reparation_to_json(knocked, result)))
    back = run_archive.reparation_from_json(body, knocked)
    assert back.tokeniser.to_json() == result.tokeniser.to_json()
    assert (back.repaired, back.changed_words, back.blocked_after) == (
        result.repaired,
        result.changed_words,
        result.blocked_after,
    )


def test_a_tokeniser_changing_more_than_its_merges_is_not_archivable(nl4k):
    renamed = BTETokeniser(nl4k.alphabet, nl4k.merges, nl4k.pretokeniser, specials=("<other>",))
    with pytest.raises(NotArchivable):
        run_archive.tokeniser_delta(nl4k, renamed, run_archive.MergeTable())


# --- keys ------------------------------------------------------------------------------------------
def test_the_key_follows_content_not_names_or_objects(nl4k, nl_morph):
    base = run_content_key(nl4k, nl_morph, ReBPEConfig())
    again = load_tokeniser(SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json")
    renamed_refs = ReferenceSet(list(nl_morph.entries), source="another name")
    assert run_content_key(again, renamed_refs, ReBPEConfig()) == base
    one_merge_less = nl4k.with_merges(nl4k.merges[:-1])
    first, *rest = nl_morph.entries
    other_refs = ReferenceSet([ReferenceEntry(first.word, (first.word,)), *rest])
    assert (
        len(
            {
                base,
                run_content_key(one_merge_less, nl_morph, ReBPEConfig()),
                run_content_key(nl4k, other_refs, ReBPEConfig()),
                run_content_key(nl4k, nl_morph, ReBPEConfig(knockout=KnockoutConfig(threshold=0.6))),
                run_content_key(nl4k, nl_morph, KNOCKOUT_ONLY),
            }
        )
        == 5
    )
    assert blocked_content_key(nl4k, ["a", "b"]) != blocked_content_key(nl4k, ["a", "c"])


def test_a_tokeniser_is_digested_once(nl4k, monkeypatch):
    tokeniser = nl4k.with_merges(nl4k.merges)
    calls = []
    real = BTETokeniser.to_json
    monkeypatch.setattr(BTETokeniser, "to_json", lambda self, *a: calls.append(1) or real(self, *a))
    first = run_archive.tokeniser_digest(tokeniser)
    assert run_archive.tokeniser_digest(tokeniser) == first and len(calls) == 1


# --- the cache on disk --------------------------------------------------------------------------------
def counting(compute):
    calls = []

    def wrapped():
        calls.append(1)
        return compute()

    return wrapped, calls


def test_a_run_is_computed_once_then_read_from_disk(nl4k, nl_morph, full_run, cache_dir):
    compute, calls = counting(lambda: full_run)
    first = stored_run(("k",), nl4k, nl_morph, FULL, compute)
    assert first is full_run and len(calls) == 1
    assert [p.name for p in cache_dir.iterdir()] == [result_cache.file_name(run_content_key(nl4k, nl_morph, FULL))]
    loaded = stored_run(("k",), nl4k, nl_morph, FULL, compute)  # a server restart: memory is empty, the disk is not
    assert len(calls) == 1 and loaded is not full_run
    assert_same_run(loaded, full_run)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other version", "other key", "bad body", "empty"])
def test_a_damaged_cache_file_is_computed_again(nl4k, nl_morph, full_run, cache_dir, damage):
    compute, calls = counting(lambda: full_run)
    stored_run(("k",), nl4k, nl_morph, FULL, compute)
    path = cache_dir / result_cache.file_name(run_content_key(nl4k, nl_morph, FULL))
    data = path.read_bytes()
    obj = json.loads(gzip.decompress(data))
    if damage == "garbage":
        path.write_bytes(b"not a gzip file at all")
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        obj.update(
            {
                "other version": {"version": obj["version"] + 1},
                "other key": {"key": "0" * 64},
                "bad body": {"steps": [{"phase": "knockout"}]},
            }[damage]
        )
        path.write_bytes(gzip.compress(json.dumps(obj).encode()))
    again = stored_run(("k",), nl4k, nl_morph, FULL, compute)
    assert len(calls) == 2 and again is full_run
    assert_same_run(stored_run(("k",), nl4k, nl_morph, FULL, compute), full_run)  # rewritten whole
    assert len(calls) == 2


def test_blocked_scans_and_reparations_are_cached_on_disk(nl4k, nl_morph, cache_dir, monkeypatch):
    knocked = compute_run(("knockout",), nl4k, nl_morph, KNOCKOUT_ONLY).tokeniser
    words = tuple(nl_morph.words())
    report = stored_blocked_report(knocked, words)
    result = stored_reparation(knocked, "limited", words)

    def refuse(*args, **kwargs):
        raise AssertionError("computed although cached on disk")

    monkeypatch.setattr(rebpe_runs, "find_blocked_merges", refuse)
    monkeypatch.setattr(rebpe_runs, "repair", refuse)
    assert stored_blocked_report(knocked, words) == report
    again = stored_reparation(knocked, "limited", words)
    assert again.tokeniser.to_json() == result.tokeniser.to_json() and again.repaired == result.repaired


def test_a_result_that_cannot_be_archived_is_returned_not_kept(cache_dir):
    def refuse(value):
        raise NotArchivable("no")

    assert result_cache.through("run", "a" * 64, lambda: "value", refuse, lambda obj: obj) == "value"
    assert not list(cache_dir.glob("*" + result_cache.SUFFIX))


def test_the_cache_keeps_within_its_budget(cache_dir):
    body = {"payload": "x" * 4000}
    for index, name in enumerate("abc"):
        result_cache.store("blob", name * 64, lambda: body)
        path = cache_dir / result_cache.file_name(name * 64)
        stamp = 1_000_000 + index
        os.utime(path, (stamp, stamp))
    size = (cache_dir / result_cache.file_name("a" * 64)).stat().st_size
    result_cache.prune(cache_dir, 2 * size)
    assert sorted(p.name[0] for p in cache_dir.glob("*" + result_cache.SUFFIX)) == ["b", "c"]
