"""Morphological Pr/Re/F1 ([knockout §4.1]) and the boundary alignment behind it."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.formats.samples import reference_paths, scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import ByteLevel, Metaspace, ReBPEPipeline
from core.pipeline.byte_level import BYTE_TO_CHAR
from core.references.alignment import align_word
from core.references.evaluation import evaluate_morphology, morph_scores, predicted_splits
from core.references.files import ReferenceEntry, load_references, parse_references


def scenario(name, after=False):
    tok = load_tokeniser(scenario_paths()[name])
    if after:
        tok = tok.with_merges([Merge(r, tuple(p)) for r, p in tok.metadata["after_knockout_merges"]])
    return tok


REFS = parse_references("bruids\tbruid s\nbruid\tbruid\n", "refs.tsv")


def test_knockout_scenario_recovers_the_interfix_boundary():
    before = evaluate_morphology(scenario("a1_scenario1"), REFS.entries)
    assert (before.tp, before.fp, before.fn, before.words) == (0, 0, 1, 2)
    assert (before.precision, before.recall, before.f1) == (1.0, 0.0, 0.0)
    after = evaluate_morphology(scenario("a1_scenario1", after=True), REFS.entries)
    assert (after.tp, after.fp, after.fn) == (1, 0, 0) and after.f1 == 1.0


def test_false_positive_and_weights():
    # scenario 2a before knockout: bruid -> [_bru, id]: predicted split 3 is a false positive.
    tok = scenario("a1_scenario2a")
    assert predicted_splits(tok, "bruid") == {3}
    scores = evaluate_morphology(tok, REFS.entries, weights={"bruid": 10})
    assert (scores.tp, scores.fp, scores.fn) == (0, 10, 1)
    assert scores.precision == 0.0 and scores.recall == 0.0 and scores.f1 == 0.0


def test_morph_scores_micro_averages_weighted_counts():
    s = morph_scores([(1, 1, 1, 0), (2, 1, 0, 1)], excluded=3)  # tp 3, fp 1, fn 2 over 2 words
    assert s.precision == 0.75 and s.recall == 0.6 and s.f1 == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert (s.tp, s.fp, s.fn, s.words, s.excluded) == (3, 1, 2, 2, 3)
    assert morph_scores([]).f1 == 1.0


def test_byte_level_boundaries_inside_a_character_are_not_splits():
    tok = BTETokeniser(list(BYTE_TO_CHAR.values()), [], ByteLevel())
    assert tok.tokenise_word("één") == ["Ġ", "Ã", "©", "Ã", "©", "n"]
    assert predicted_splits(tok, "één") == {1, 2}


def test_capital_marker_and_hyphen_pretokens():
    pre = ReBPEPipeline()
    aligned = align_word(pre, "Bruids")
    assert [p.text for p in aligned.pretokens] == ["↑", "_bruids"]
    assert aligned.pretoken_splits == frozenset()
    assert aligned.pretokens[1].boundary_positions == (None, 1, 2, 3, 4, 5)
    hyphen = align_word(pre, "well-known")
    assert [p.text for p in hyphen.pretokens] == ["_well", "-", "known"]
    assert hyphen.pretoken_splits == {4, 5}


def test_free_morph_evaluation_uses_whole_word_boundaries():
    refs = parse_references("bruidsjurk\tbruid s jurk\tbruids jurk\n", "r.tsv")
    tok = BTETokeniser("_bruidsjk", [Merge(0, ("_", "b"))], ReBPEPipeline())  # characters except _b
    all_morphs = evaluate_morphology(tok, refs.entries)
    free = evaluate_morphology(tok, refs.entries, free=True)
    assert (all_morphs.tp, all_morphs.fp, all_morphs.fn) == (2, 7, 0)
    assert (free.tp, free.fp, free.fn) == (1, 8, 0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["ab", "b", "ba", "abc", "c"]), min_size=1, max_size=5),
    st.text(alphabet="abc", min_size=1, max_size=12),
)
def test_metaspace_splits_are_token_starts(merges_text, word):
    merges, types = [], set("abc▁")
    for i, m in enumerate(dict.fromkeys(merges_text)):
        if len(m) >= 2 and all(ch in types for ch in m):
            merges.append(Merge(i, (m[:-1], m[-1])) if m[:-1] in types else Merge(i, tuple(m)))
            types.add(m)
    tok = BTETokeniser("▁abc", merges, Metaspace())
    tokens = tok.tokenise_word(word)
    starts, offset = set(), -1  # the first token starts with ▁, which is not a word character
    for t in tokens:
        if 0 < offset < len(word):
            starts.add(offset)
        offset += len(t)
    assert predicted_splits(tok, word) == starts


def test_shipped_references_evaluate_without_rejections():
    for name, path in reference_paths().items():
        refs = load_references(path)
        assert refs.rejected == [] and len(refs.entries) >= 800, name
        assert all(isinstance(e, ReferenceEntry) and e.free_morphs is not None for e in refs.entries)
    required = {
        "bruidsjurk",
        "beleidsmaker",
        "gids",
        "bruids",
        "standaardtarief",
        "twintiger",
        "subtropisch",
        "masterthesis",
        "bibliotheken",
        "reanimatietechniek",
    }
    assert required <= set(load_references(reference_paths()["nl_morph"]).words())
    assert "horseshoe" in load_references(reference_paths()["en_morph"]).words()


def boundaries_by_definition(sources: tuple[int, ...], n: int) -> tuple[int | None, ...]:
    """Boundary k of a pretoken stands for split b - 1 of the word when its characters come from
    different characters a != b of " " + word, both of the word, b not its first."""
    return tuple(b - 1 if 0 <= a != b and 1 < b <= n else None for a, b in pairwise(sources))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([ByteLevel, ReBPEPipeline, Metaspace]), st.text(alphabet="abAB-é ü1", min_size=1, max_size=10))
def test_boundary_positions_follow_the_sources_of_each_pretoken(pipeline, word):
    """The slice read off for a pretoken of the word's own characters in a row equals the definition."""
    pre = pipeline()
    aligned = align_word(pre, word)
    pretokens = pre.pretokenise_with_sources(" " + word)
    assert [p.text for p in aligned.pretokens] == [p.text for p in pretokens]
    for got, pretoken in zip(aligned.pretokens, pretokens, strict=True):
        assert got.boundary_positions == boundaries_by_definition(pretoken.sources, len(word))
