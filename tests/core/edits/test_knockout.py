"""Blame ([knockout §3.4]) and knockout (Alg. 1): hand-checked counts, the paper's story,
order independence (footnote 5) and the merge-graph invariants after knockout."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.edits.blame import compute_blame, holdout_split, select_for_knockout
from core.edits.knockout import knock_out
from core.edits.rebpe import KnockoutConfig, run_knockout
from core.edits.reference_state import TokenisedReference
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import ReBPEPipeline, WhitespaceSplit
from core.references.files import parse_references

# A toy in the spirit of [knockout App. A.5]: bruidsjurk, beleidsmaker and gids all apply id+s.
TOY_MERGES = [
    "i d",
    "id s",
    "_ b",
    "_b r",
    "_br u",
    "_bru ids",
    "j u",
    "ju r",
    "jur k",
    "_b e",
    "_be l",
    "_bel e",
    "_bele ids",
    "m a",
    "ma k",
    "e r",
    "mak er",
    "_ g",
    "_g ids",
]
TOY_REFS = "bruidsjurk\tbruid s jurk\nbeleidsmaker\tbe leid s mak er\ngids\tgids\n"


def toy():
    merges = [Merge(i, tuple(m.split())) for i, m in enumerate(TOY_MERGES)]
    return BTETokeniser(sorted({c for m in merges for p in m.parts for c in p}), merges, ReBPEPipeline())


def test_toy_segmentations():
    tok = toy()
    assert tok.tokenise_word("bruidsjurk") == ["_bruids", "jurk"]
    assert tok.tokenise_word("beleidsmaker") == ["_beleids", "maker"]
    assert tok.tokenise_word("gids") == ["_gids"]


def test_hand_checked_blame_counts():
    refs = parse_references(TOY_REFS, "toy.tsv").entries
    blames = {str(m): b for m, b in compute_blame(TokenisedReference(toy(), refs)).items()}
    assert (blames["id s"].blame, blames["id s"].applications) == (2, 3)  # App. A.5: R = 2/3
    assert (blames["_bru ids"].blame, blames["_bru ids"].applications) == (0, 1)
    assert (blames["_bele ids"].blame, blames["_bele ids"].applications) == (0, 1)  # joins e|i, inside leid
    assert (blames["mak er"].blame, blames["mak er"].applications) == (1, 1)
    assert (blames["_b e"].blame, blames["_b e"].applications) == (0, 1)  # the _|b boundary is no word split
    assert (blames["_be l"].blame, blames["_be l"].applications) == (1, 1)  # be|leid
    assert (blames["i d"].blame, blames["i d"].applications) == (0, 3)
    weighted = TokenisedReference(toy(), refs, weights={"bruidsjurk": 10, "beleidsmaker": 10, "gids": 30})
    idS = next(b for m, b in compute_blame(weighted).items() if str(m) == "id s")
    assert (idS.blame, idS.applications) == (20, 50) and idS.ratio < 0.5  # App. A.5's weighted example


def test_knockout_removes_blamed_merges_and_rewires_children():
    refs = parse_references(TOY_REFS, "toy.tsv").entries
    run = run_knockout(toy(), refs)
    step = run.steps[0]
    assert {str(m) for m in step.removed} == {"id s", "_be l", "mak er"}
    assert {d["merge"]: (d["blame"], d["applications"]) for d in step.details} == {
        "id s": (2, 3),
        "_be l": (1, 1),
        "mak er": (1, 1),
    }
    tok = run.tokeniser
    assert tok.merge_of("_bruids") == Merge(5, ("_bru", "id", "s"))
    assert tok.merge_of("_gids") == Merge(18, ("_g", "id", "s"))
    assert "ids" not in tok.types and tok.check_invariants() == []
    assert tok.tokenise_word("gids") == ["_gids"]  # the triplet _g+id+s still applies
    assert tok.tokenise_word("bruidsjurk") == ["_bruids", "jurk"]  # ... and so does _bru+id+s (scenario 2a)


def test_threshold_and_min_vocab_size():
    refs = parse_references(TOY_REFS, "toy.tsv").entries
    ref = TokenisedReference(toy(), refs)
    blames = compute_blame(ref)
    assert all(b.ratio >= 0.7 for b in select_for_knockout(blames, 0.7))
    assert "id s" not in {str(b.merge) for b in select_for_knockout(blames, 0.7)}
    assert len(select_for_knockout(blames, 0.5, max_removals=2)) == 2
    run = run_knockout(toy(), refs, KnockoutConfig(min_vocab_size=len(toy().types) - 1))
    assert len(run.steps[0].removed) == 1


def test_holdout_split_is_reproducible_and_disjoint():
    items = list(range(100))
    train, test = holdout_split(items, 0.8, seed=3)
    assert len(train) == 80 and set(train).isdisjoint(test) and sorted(train + test) == items
    assert holdout_split(items, 0.8, seed=3) == (train, test)


@pytest.mark.parametrize("name", sorted(scenario_paths()))
def test_knockout_of_the_marked_merge_gives_the_papers_listing(name):
    tok = load_tokeniser(scenario_paths()[name])
    knocked, edit = knock_out(tok, [tok.metadata["knockout"].replace(" ", "")])
    assert knocked.merges == tuple(Merge(r, tuple(p)) for r, p in tok.metadata["after_knockout_merges"])
    assert [str(m) for m in edit.removed] == [tok.metadata["knockout"]]


@st.composite
def tokeniser_and_words(draw):
    alphabet = list("abcd")
    types, merges = list(alphabet), []
    for _ in range(draw(st.integers(1, 16))):
        left, right = draw(st.sampled_from(types)), draw(st.sampled_from(types))
        if left + right not in types:
            merges.append(Merge(len(merges), (left, right)))
            types.append(left + right)
    words = draw(st.lists(st.text(alphabet="abcd", min_size=2, max_size=10), min_size=1, max_size=8, unique=True))
    return BTETokeniser(alphabet, merges, ReBPEPipeline()), words


@settings(max_examples=80, deadline=None)
@given(tokeniser_and_words(), st.randoms(use_true_random=False))
def test_knockout_is_order_independent_and_keeps_invariants(case, rng):
    tok, _ = case
    results = [m.result for m in tok.merges]
    chosen = rng.sample(results, k=rng.randint(0, len(results)))
    first, _ = knock_out(tok, chosen)
    shuffled = list(chosen)
    rng.shuffle(shuffled)
    second, _ = knock_out(tok, shuffled)
    assert first.merges == second.merges  # footnote 5
    assert first.check_invariants() == []
    assert set(first.types) == set(tok.types) - set(chosen)
    assert {m.rank for m in first.merges} == {m.rank for m in tok.merges if m.result not in chosen}


@settings(max_examples=60, deadline=None)
@given(tokeniser_and_words(), st.integers(0, 2**32 - 1))
def test_incremental_reference_matches_fresh_tracing(case, seed):
    tok, words = case
    rng = random.Random(seed)
    lines = []
    for word in words:
        cuts = sorted(rng.sample(range(1, len(word)), k=rng.randint(0, len(word) - 1)))
        pieces = [word[i:j] for i, j in zip([0, *cuts], [*cuts, len(word)], strict=True)]
        lines.append(f"{word}\t{' '.join(pieces)}")
    refs = parse_references("\n".join(lines) + "\n", "r.tsv").entries
    run = run_knockout(tok, refs)
    fresh = TokenisedReference(run.tokeniser, refs)
    assert [s.tokens for s in run.reference.words] == [s.tokens for s in fresh.words]
    assert run.reference.scores() == fresh.scores()


@settings(max_examples=40, deadline=None)
@given(tokeniser_and_words(), st.lists(st.text(alphabet="_abcd", min_size=1, max_size=4), max_size=12))
def test_both_substring_searches_find_the_same_words(case, strings):
    tok, words = case
    refs = parse_references("".join(f"{w}\t{w}\n" for w in words), "r.tsv").entries
    reference = TokenisedReference(tok, refs)
    expected = {
        i for i, s in enumerate(reference.words) if any(x in p.text for p in s.aligned.pretokens for x in strings)
    }
    for many in (0, 10**9):  # the index of pieces; a search per string
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("core.counting.pretoken_index.MANY_STRINGS", many)
            assert reference.pretokens.containing_any(strings) == expected
    assert reference.pretokens.containing_any(strings) == expected  # the memoised answers


def test_cascading_removal_drops_descendants_instead_of_making_tuples():
    tok = load_tokeniser(scenario_paths()["a1_scenario2a"])
    cascaded, edit = knock_out(tok, ["ids"], cascade=True)
    assert {str(m) for m in edit.removed} == {"id s", "_bru ids"} and edit.rewired == ()
    assert cascaded.tuple_merges == () and cascaded.tokenise_word("bruids") == ["_bru", "id", "s"]


def test_a_rewired_merge_that_equals_a_later_unchanged_one_absorbs_it():
    """abc is formed twice (multi-merge): by ab + c (rank 1) and by the tuple a + b + c (rank 2).
    Knocking out ab rewires rank 1 to a + b + c: the lower-ranked of the two equal merges stays and
    rank 2 is collapsed into it (a hypothesis case once made a tokeniser with both)."""
    merges = [Merge(0, ("a", "b")), Merge(1, ("ab", "c")), Merge(2, ("a", "b", "c"))]
    tok = BTETokeniser("abc", merges, WhitespaceSplit())
    new, edit = knock_out(tok, ["ab"])
    assert new.merges == (Merge(1, ("a", "b", "c")),)
    assert edit.collapsed == (Merge(2, ("a", "b", "c")),)
    assert new.check_invariants() == [] and new.tokenise("abc") == ["abc"]
