"""ReBPE ([rebpe Alg. 1-2]): the _bruids story on the App. A scenarios, reparation and
reification details, annealing, ablations, invariants after every phase, convergence."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.edits.blame import compute_blame
from core.edits.rebpe import AnnealConfig, ReBPEConfig, Run, annealing_phase, reify, repair, run_rebpe
from core.edits.reference_state import TokenisedReference
from core.edits.steps import PairCount
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import ReBPEPipeline
from core.references.files import parse_references

REFS = parse_references("bruids\tbruid s\nbruid\tbruid\ngids\tgids\n", "r.tsv").entries


def scenario(name, after=False):
    tok = load_tokeniser(scenario_paths()[name])
    if after:
        tok = tok.with_merges([Merge(r, tuple(p)) for r, p in tok.metadata["after_knockout_merges"]])
    return tok


@pytest.mark.parametrize(
    "name",
    [
        "a1_scenario1",
        "a1_scenario2a",
        "a1_scenario2b_i_first",
        "a1_scenario2b_i_second",
        "a1_scenario2b_ii",
        "a1_scenario3a",
    ],
)
def test_rebpe_ends_with_bruid_s(name):
    run = run_rebpe(scenario(name), REFS)
    assert run.tokeniser.tokenise_word("bruids") == ["_bruid", "s"]
    assert run.tokeniser.tokenise_word("bruid") == ["_bruid"]
    assert run.tokeniser.check_invariants() == []


def test_scenario_3b_keeps_the_triplet_that_gids_needs():
    run = run_rebpe(scenario("a1_scenario3b"), REFS)
    assert run.tokeniser.tokenise_word("bruids") == ["_bruids"]
    assert run.tokeniser.merge_of("ids") == Merge(4, ("i", "d", "s"))


def test_scenario_2a_story_step_by_step():
    run = run_rebpe(scenario("a1_scenario2a"), REFS)
    phases = [
        (s.phase, [str(m) for m in s.removed], [str(m) for m in s.added], [(str(a), str(b)) for a, b in s.rewired])
        for s in run.steps
        if s.changed
    ]
    assert phases == [
        ("knockout", ["id s"], [], [("_bru ids", "_bru id s")]),
        ("reification", [], ["_bru id"], [("_bru id s", "_bruid s")]),
        ("knockout", ["_bruid s"], [], []),
    ]
    reified = next(s for s in run.steps if s.phase == "reification" and s.added)
    assert reified.added[0].rank == pytest.approx(5 - 0.001)
    assert reified.origins["_bruid"] == "reified"
    assert [w for w, _, _ in reified.changed_words] == ["bruid"]


def test_reparation_replaces_blocked_tuples_with_what_limitedbpe_finds():
    for name, expected in [
        ("a1_scenario2b_i_first", ("_bruid", "s")),
        ("a1_scenario2b_i_second", ("_br", "uid", "s")),
        ("a1_scenario2b_ii", ("_br", "uids")),
        ("a1_scenario3a", ("id", "s")),
    ]:
        tok = scenario(name, after=True)
        _repaired, changes = repair(tok)
        assert changes[0][1].parts == expected, name
        assert changes[0][1].rank == changes[0][0].rank


def test_reification_links_existing_submerges_and_respects_blacklist_and_switches():
    tok = BTETokeniser(
        "abcd",
        [
            Merge(0, ("a", "b")),
            Merge(1, ("c", "d")),
            Merge(2, ("a", "b", "c", "d")),
            Merge(3, ("b", "c")),
            Merge(4, ("ab", "c")),
        ],
        ReBPEPipeline(),
    )
    new, created, _rewired, reused = reify(tok, set())
    assert created == [] and reused == {"ab", "cd"}
    assert new.merge_of("abcd") == Merge(2, ("ab", "cd"))  # (b, c) is ranked after the tuple: not linked
    new, created, _, _ = reify(tok, {("a", "b"), ("c", "d")})
    assert new.merge_of("abcd").parts == ("a", "b", "c", "d")
    assert [m.parts for m in created] == [] or created[0].parts == ("b", "c")
    no_link, created, _, _ = reify(tok, set(), link=False, expand=False)
    assert no_link.merges == tok.merges


def test_reification_creates_merges_just_before_the_earliest_tuple():
    tok = BTETokeniser(
        "abcxy", [Merge(0, ("x", "y")), Merge(1, ("a", "b", "c")), Merge(2, ("x", "a", "b"))], ReBPEPipeline()
    )
    new, created, _rewired, _ = reify(tok, set())
    assert next((m.parts, m.rank) for m in created) == (("a", "b"), pytest.approx(1 - 0.001))
    assert new.merge_of("abc").parts == ("ab", "c") and new.merge_of("xab").parts == ("x", "ab")
    assert len({m.rank for m in new.merges}) == len(new.merges)
    assert new.check_invariants() == []


def test_annealing_adds_pairs_the_reference_never_splits():
    tok = BTETokeniser("_abc", [Merge(0, ("_", "a"))], ReBPEPipeline())
    refs = parse_references("abc\tabc\nab\tab\nabcab\tabc ab\nbca\tb c a\n", "r.tsv").entries
    run = Run(tok, TokenisedReference(tok, refs))
    step = annealing_phase(run, AnnealConfig(when="before", min_applications=2, min_ratio=0.8))
    added = {str(m): m.rank for m in step.added}
    # (_a, b): 3 applications, all amenable; (b, c): in abc, abcab (amenable) and bca (a wanted split) -> 2/3 < 0.8
    assert "_a b" in added and "b c" not in added and min(added.values()) == 1
    assert step.origins["_ab"] == "annealed"


#: pairs in _a b c | _a b | _a b c a b | _ b c a: (_a, b) 3 of 3 amenable, (b, c) 2 of 3 (bca wants b|c),
#: (c, a) 0 of 2 (both wanted), (a, b) 1 of 1, (_, b) 1 of 1
ANNEAL_REFS = parse_references("abc\tabc\nab\tab\nabcab\tabc ab\nbca\tb c a\n", "r.tsv").entries


JOIN_UNDERSCORE_A = (Merge(0, ("_", "a")),)


def annealed(config: AnnealConfig, merges=JOIN_UNDERSCORE_A):
    tok = BTETokeniser("_abc", list(merges), ReBPEPipeline())
    return tok, annealing_phase(Run(tok, TokenisedReference(tok, ANNEAL_REFS)), config)


def test_annealing_says_how_many_pairs_each_threshold_kept():
    _, step = annealed(AnnealConfig(min_applications=2, min_ratio=0.8))
    found = step.annealing
    counts = (found.words, found.split_words, found.pairs, found.amenable, found.frequent, found.qualifying)
    assert counts == (4, 4, 5, 4, 2, 1) and (found.existing, found.over_budget, found.added) == (0, 0, 1)
    assert found.most_amenable == found.best_ratio == PairCount(("_a", "b"), 3, 3)
    assert found.summary().startswith("annealing added 1 merge: a pair of adjacent tokens qualifies with ≥ 2 ")
    assert found.summary().endswith(
        "5 distinct adjacent pairs, 4 of them amenable at least once, 2 at least 2 times; 1 qualifies"
    )
    assert step.to_json()["annealing"]["most_amenable"] == {"pair": ("_a", "b"), "amenable": 3, "applications": 3}


@pytest.mark.parametrize(
    ("config", "why"),
    [
        (AnnealConfig(min_applications=4), "; the most amenable pair is '_a' + 'b': 3 of 3 applications amenable"),
        (
            AnnealConfig(min_applications=2, min_ratio=1.5),
            "; the best ratio among those is 1.00, for '_a' + 'b': 3 of 3 applications amenable",
        ),
        (AnnealConfig(min_applications=2, max_vocab_size=4), "; 1 qualifies, 1 left out at max_vocab_size 4"),
    ],
)
def test_annealing_that_adds_nothing_says_which_threshold_stopped_it(config, why):
    tok, step = annealed(config)
    assert not step.changed and step.tokeniser is tok
    assert step.annealing.added == 0
    assert step.annealing.summary().startswith("annealing added no merge: ") and step.annealing.summary().endswith(why)


def test_annealing_counts_a_qualifying_pair_that_already_is_a_type():
    # _ab is a type (through a b), yet _a and b stay side by side: (_, a) fires first
    merges = (Merge(0, ("_", "a")), Merge(1, ("a", "b")), Merge(2, ("_", "ab")))
    _, step = annealed(AnnealConfig(min_applications=2), merges)
    assert (step.annealing.qualifying, step.annealing.existing, step.annealing.added) == (1, 1, 0)
    assert step.annealing.summary().endswith("; 1 qualifies, 1 already is a type")


def test_annealing_finds_no_pair_when_every_word_is_one_token():
    tok = BTETokeniser("_ab", [Merge(0, ("_", "a")), Merge(1, ("_a", "b"))], ReBPEPipeline())
    refs = parse_references("ab\tab\n", "r.tsv").entries
    step = annealing_phase(Run(tok, TokenisedReference(tok, refs)), AnnealConfig())
    assert (step.annealing.pairs, step.annealing.most_amenable) == (0, None)
    assert step.annealing.summary().endswith("; each of the 1 reference words is one token, so no pair was found")


def test_the_run_tells_each_phase_as_it_starts():
    told: list[tuple[str, int]] = []
    config = ReBPEConfig(anneal=AnnealConfig(when="both"))
    run = run_rebpe(scenario("a1_scenario2a"), REFS, config, on_phase=lambda phase, i: told.append((phase, i)))
    assert {s.phase for s in run.steps} == {"annealing", "knockout", "reparation", "reification"}
    assert told == [("tracing", 0)] + [(s.phase, s.iteration) for s in run.steps]


@st.composite
def rebpe_cases(draw):
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    alphabet = list("abcd")
    types, merges = list(alphabet), []
    for _ in range(rng.randint(3, 20)):
        left, right = rng.choice(types), rng.choice(types)
        if left + right not in types:
            merges.append(Merge(len(merges), (left, right)))
            types.append(left + right)
    lines, seen = [], set()
    for _ in range(rng.randint(2, 10)):
        word = "".join(rng.choice("abcd") for _ in range(rng.randint(2, 9)))
        if word in seen:
            continue
        seen.add(word)
        cuts = sorted(rng.sample(range(1, len(word)), k=rng.randint(0, len(word) - 1)))
        lines.append(word + "\t" + " ".join(word[i:j] for i, j in zip([0, *cuts], [*cuts, len(word)], strict=True)))
    refs = parse_references("\n".join(lines) + "\n", "r.tsv").entries
    config = ReBPEConfig(
        anneal=AnnealConfig(when=draw(st.sampled_from(["none", "before", "both"])), min_applications=1),
        expand=draw(st.booleans()),
        link=draw(st.booleans()),
        fix=draw(st.booleans()),
        max_iterations=30,
    )
    return BTETokeniser(alphabet, merges, ReBPEPipeline()), refs, config


@settings(max_examples=60, deadline=None)
@given(rebpe_cases())
def test_every_phase_keeps_the_graph_sound_and_the_run_converges(case):
    tok, refs, config = case
    run = run_rebpe(tok, refs, config)
    for step in run.steps:
        assert step.tokeniser.check_invariants() == [], step.phase
        assert len({m.rank for m in step.tokeniser.merges}) == len(step.tokeniser.merges)
        for entry in refs:
            assert "".join(step.tokeniser.tokenise_word(entry.word)) == "_" + entry.word
    knockouts = [s for s in run.steps if s.phase == "knockout"]
    assert knockouts and max(s.iteration for s in knockouts) <= config.max_iterations + 1
    assert [s.phase for s in run.steps if s.phase != "annealing"][-1] in ("knockout", "reification", "reparation")
    last_non_anneal = [s for s in run.steps if s.phase != "annealing"][-1]
    assert last_non_anneal.phase == "knockout" or not last_non_anneal.changed
    if not config.expand:
        assert all(not s.added for s in run.steps if s.phase == "reification")
    fresh = TokenisedReference(run.tokeniser, refs)
    assert run.reference.scores() == fresh.scores()
    for once in (False, True):  # blame kept up to date through every edit == blame counted afresh
        assert compute_blame(run.reference, tuples_once=once) == compute_blame(fresh, tuples_once=once)


def test_authors_reparation_undoes_later_merges_on_the_full_segmentation():
    # b+c (rank 0) takes the b before the triplet a+b+c (rank 1) can fire: both variants repair
    # the triplet into what precedes it, [a, bc].
    tok = BTETokeniser("abcx", [Merge(0, ("b", "c")), Merge(1, ("a", "b", "c")), Merge(2, ("x", "a"))], ReBPEPipeline())
    for mode in ("limited", "undo"):
        _repaired, changes = repair(tok, mode)
        assert [(str(a), str(b)) for a, b in changes] == [("a b c", "a bc")], mode
    with pytest.raises(ValueError):
        repair(tok, "other")
