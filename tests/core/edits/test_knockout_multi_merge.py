"""Knockout and ReBPE when a type is formed by several merges.

- reduction to the papers with one merge per type: every knockout unit and blame mode knocks out
  exactly what the paper's procedure does (Dutch 40k + nl_morph.tsv, pinned from before the
  generalisation; the App. A scenarios); the peer golden file is tests/core/edits/test_peer_agreement.py;
- ``knockout_unit``: Σ B / Σ N over a type's merges, or merge by merge (the type stays while
  another merge forms it);
- ``blame`` under ``ignore_merges``: a whole word blames its own tree ("tree") or nothing
  ("applied"), on a hand-made tokeniser and on Llama 3;
- ReBPE on multi-merge and shared-rank tokenisers: invariants after every phase;
- ids carried through every edit; ``--hf-out`` round trip with ``tokenizers``; the CLI options.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.edits.blame import MergeBlame, compute_blame, select_for_knockout, select_types_for_knockout
from core.edits.knockout import knock_out, knock_out_merges
from core.edits.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig, run_knockout, run_rebpe
from core.edits.reference_state import TokenisedReference
from core.formats.hf_json import hf_json_problem, tokeniser_to_hf_json
from core.formats.samples import DUTCH_40K, SAMPLE_DIR, scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import ReBPEPipeline
from core.references.evaluation import evaluate_morphology
from core.references.files import load_references, parse_references
from tests.core.edits.test_knockout import toy
from tests.real_tokenisers import real_file

EN_MORPH = SAMPLE_DIR / "references" / "en_morph.tsv"
NL_MORPH = SAMPLE_DIR / "references" / "nl_morph.tsv"
SETTINGS = [KnockoutConfig(unit=u, blame=b) for u in ("type", "merge") for b in ("tree", "applied")]


def digest(merges) -> str:
    return hashlib.sha256(" ".join(sorted(str(m) for m in merges)).encode()).hexdigest()[:16]


# --- reduction to the paper (one merge per type) ------------------------------------------------------
@pytest.fixture(scope="module")
def dutch():
    return load_tokeniser(DUTCH_40K), load_references(NL_MORPH).entries


@pytest.mark.parametrize("config", SETTINGS, ids=lambda c: f"{c.unit}-{c.blame}")
def test_dutch_40k_knockout_is_the_papers_in_every_setting(dutch, config):
    tokeniser, entries = dutch
    assert tokeniser.multi_merge_types == 0
    step = run_knockout(tokeniser, entries, config).steps[0]
    # pinned from the earlier implementation that allowed one merge per type
    assert (len(step.removed), len(step.rewired), digest(step.removed)) == (832, 5809, "687271d0b7d01e39")
    assert step.metrics.f1 == pytest.approx(0.7547169811320754, abs=1e-12)
    assert len(step.types_removed) == 832
    assert all(set(d) == {"merge", "rank", "blame", "applications", "ratio"} for d in step.details)


@pytest.mark.slow
def test_dutch_40k_rebpe_is_unchanged(dutch):
    tokeniser, entries = dutch
    run = run_rebpe(tokeniser, entries)
    assert len(run.steps) == 21 and len(run.tokeniser.merges) == 41284
    assert hashlib.sha256(repr(run.tokeniser.merges).encode()).hexdigest()[:16] == "256cae378e79aa96"
    assert run.steps[-1].metrics.f1 == pytest.approx(0.9277899343544858, abs=1e-12)


@pytest.mark.parametrize("name", sorted(scenario_paths()))
def test_scenarios_merge_and_type_knockout_agree_with_the_paper(name):
    tok = load_tokeniser(scenario_paths()[name])
    marked = tok.metadata["knockout"]
    expected = tuple(Merge(r, tuple(p)) for r, p in tok.metadata["after_knockout_merges"])
    by_type, _ = knock_out(tok, [marked.replace(" ", "")])
    by_merge, edit = knock_out_merges(tok, [m for m in tok.merges if str(m) == marked])
    assert by_type.merges == by_merge.merges == expected
    assert edit.types_removed == (marked.replace(" ", ""),) and not edit.collapsed


def test_type_selection_is_merge_selection_with_one_merge_per_type():
    refs = parse_references("bruidsjurk\tbruid s jurk\nbeleidsmaker\tbe leid s mak er\ngids\tgids\n", "t").entries
    tok = toy()
    blames = compute_blame(TokenisedReference(tok, refs))
    for threshold in (0.01, 0.5, 0.7, 1.0):
        per_merge = select_for_knockout(blames, threshold)
        per_type = select_types_for_knockout(blames, tok, threshold)
        assert [b.merge for b in per_merge] == [b.merge for b in per_type]
        assert [b.to_json() for b in per_merge] == [b.to_json() for b in per_type]


# --- several merges per type ------------------------------------------------------------------------------
def multi():
    """'abc' is formed by (ab, c) (fires on its own string) and by (a, bc) (an alternative);
    'abcd' uses it; 'xabc' is formed by (x, abc) and (xa, bc)."""
    merges = [
        Merge(0, ("a", "b")),
        Merge(1, ("b", "c")),
        Merge(2, ("ab", "c")),
        Merge(3, ("a", "bc")),
        Merge(4, ("abc", "d")),
        Merge(5, ("x", "a")),
        Merge(6, ("x", "abc")),
        Merge(7, ("xa", "bc")),
    ]
    return BTETokeniser(
        "abcdx",
        merges,
        ReBPEPipeline(),
        type_ids={t: i for i, t in enumerate(["a", "b", "c", "d", "x", "ab", "bc", "abc", "abcd", "xa", "xabc"])},
    )


def test_primary_parts_replace_a_knocked_out_type():
    tok = multi()
    assert tok.primary_merge("abc") == Merge(2, ("ab", "c"))
    new, edit = knock_out(tok, ["abc"])
    assert {str(m) for m in edit.removed} == {"ab c", "a bc"} and edit.types_removed == ("abc",)
    assert Merge(4, ("ab", "c", "d")) in new.merges and new.check_invariants() == []
    # x+abc becomes x+ab+c; xa+bc stays: both still form xabc
    assert Merge(6, ("x", "ab", "c")) in new.merges and Merge(7, ("xa", "bc")) in new.merges
    assert "abc" not in new.type_ids and new.type_ids["abcd"] == tok.type_ids["abcd"]


def test_merge_unit_keeps_the_type_while_another_merge_forms_it():
    tok = multi()
    new, edit = knock_out_merges(tok, [Merge(3, ("a", "bc"))])
    assert edit.removed == (Merge(3, ("a", "bc")),) and edit.types_removed == () and not edit.rewired
    assert "abc" in new.types and new.produced_by["abc"] == (Merge(2, ("ab", "c")),)
    new, edit = knock_out_merges(tok, [Merge(2, ("ab", "c")), Merge(3, ("a", "bc"))])
    assert edit.types_removed == ("abc",) and new.merges == knock_out(tok, ["abc"])[0].merges


def test_rewired_merges_that_become_alike_collapse_into_the_lower_ranked():
    # 'abc' via (ab, c) and (a, bc); knocking out ab and bc makes both (a, b, c)
    tok = BTETokeniser(
        "abc",
        [Merge(0, ("a", "b")), Merge(1, ("b", "c")), Merge(2, ("ab", "c")), Merge(3, ("a", "bc"))],
        ReBPEPipeline(),
    )
    new, edit = knock_out(tok, ["ab", "bc"])
    assert new.merges == (Merge(2, ("a", "b", "c")),) and edit.collapsed == (Merge(3, ("a", "bc")),)
    assert new.check_invariants() == []


def test_type_unit_sums_blame_over_a_types_merges():
    tok = multi()
    ab_c, a_bc = Merge(2, ("ab", "c")), Merge(3, ("a", "bc"))
    blames = {
        ab_c: MergeBlame(ab_c, 1, 1),
        a_bc: MergeBlame(a_bc, 0, 3),
        Merge(0, ("a", "b")): MergeBlame(Merge(0, ("a", "b")), 0, 4),
    }
    assert [str(b.merge) for b in select_for_knockout(blames, 0.5)] == ["ab c"]
    assert select_types_for_knockout(blames, tok, 0.5) == []  # (1 + 0) / (1 + 3) < 0.5
    chosen = select_types_for_knockout(blames, tok, 0.25)
    assert [(b.type, b.blame, b.applications) for b in chosen] == [("abc", 1, 4)]
    assert chosen[0].merge == ab_c and chosen[0].to_json()["type"] == "abc"


# --- blame under ignore_merges ------------------------------------------------------------------------------
IGNORE_REFS = "gids\tgid s\nbruids\tbruid s\nbruid\tbruid\n"


def test_whole_words_blame_their_own_tree_by_default():
    base = toy()
    tok = BTETokeniser(base.alphabet, base.merges, base.pretokeniser, ignore_merges=True)
    refs = parse_references(IGNORE_REFS, "r.tsv").entries
    assert tok.tokenise_word("gids") == ["_gids"] and tok.tokenise_word("bruids") == ["_bruids"]
    tree = run_knockout(tok, refs)
    assert [str(m) for m in tree.steps[0].removed] == ["id s"]
    assert tree.steps[0].details[0]["blame"] == tree.steps[0].details[0]["applications"] == 2
    applied = run_knockout(tok, refs, KnockoutConfig(blame="applied"))
    assert applied.steps[0].removed == ()  # the whole words escape blame
    run = run_rebpe(tok, refs)
    assert [run.tokeniser.tokenise_word(w) for w in ("gids", "bruids", "bruid")] == [
        ["_gid", "s"],
        ["_bruid", "s"],
        ["_bruid"],
    ]
    assert all(s.tokeniser.check_invariants() == [] for s in run.steps)
    # without ignore_merges the two modes are the same
    assert [str(m) for m in run_knockout(base, refs, KnockoutConfig(blame="applied")).steps[0].removed] == [
        str(m) for m in run_knockout(base, refs).steps[0].removed
    ]


def test_a_word_is_retraced_when_its_whole_type_leaves_v():
    base = toy()
    tok = BTETokeniser(base.alphabet, base.merges, base.pretokeniser, ignore_merges=True)
    refs = parse_references(IGNORE_REFS, "r.tsv").entries
    for blame in ("tree", "applied"):
        ref = TokenisedReference(tok, refs, blame=blame)
        new, _ = knock_out(tok, ["_gids"])
        ref.update(new)
        assert ref.words[0].tokens == tuple(new.tokenise_word("gids")) == ("_g", "ids")


# --- ReBPE and invariants on multi-merge / shared-rank tokenisers ------------------------------------------
@st.composite
def multi_merge_tokeniser_and_refs(draw):
    alphabet = list("abcd")
    types, merges = list(alphabet), []
    shared = draw(st.booleans())  # tiktoken style: every split of a type at its rank
    for _ in range(draw(st.integers(2, 14))):
        left, right = draw(st.sampled_from(types)), draw(st.sampled_from(types))
        result = left + right
        if result in types:
            continue
        rank = len(types)
        types.append(result)
        splits = (
            [(result[:k], result[k:]) for k in range(1, len(result)) if result[:k] in types and result[k:] in types]
            if draw(st.booleans())
            else [(left, right)]
        )
        for j, split in enumerate(dict.fromkeys(splits)):
            merges.append(Merge(rank if shared else rank + j / 100, split))
    words = draw(st.lists(st.text(alphabet="abcd", min_size=2, max_size=9), min_size=1, max_size=8, unique=True))
    lines = []
    for w in words:
        cut = draw(st.integers(1, len(w) - 1))
        lines.append(f"{w}\t{w[:cut]} {w[cut:]}")
    return (
        BTETokeniser(
            alphabet,
            merges,
            ReBPEPipeline(),
            ignore_merges=draw(st.booleans()),
            type_ids={t: i for i, t in enumerate(types)},
        ),
        parse_references("\n".join(lines) + "\n", "r.tsv").entries,
    )


@settings(max_examples=60, deadline=None)
@given(multi_merge_tokeniser_and_refs(), st.sampled_from(SETTINGS), st.booleans())
def test_rebpe_keeps_the_invariants_and_ids_on_multi_merge_tokenisers(case, knockout, anneal):
    tok, refs = case
    config = ReBPEConfig(knockout=knockout, anneal=AnnealConfig(when="both" if anneal else "none", min_applications=1))
    run = run_rebpe(tok, refs, config)
    for step in run.steps:  # a type of the original keeps its id (also one that left V and came back)
        assert step.tokeniser.check_invariants() == [], step.phase
        ids = step.tokeniser.type_ids
        assert set(ids) == set(step.tokeniser.types)
        assert all(ids[t] == tok.type_ids[t] for t in step.tokeniser.types & tok.types)
        assert all(ids[t] >= len(tok.type_ids) for t in step.tokeniser.types - tok.types)
        assert len(set(ids.values())) == len(ids)
    fresh = TokenisedReference(run.tokeniser, refs)
    assert [w.tokens for w in fresh.words] == [w.tokens for w in run.reference.words]
    assert fresh.scores() == run.reference.scores()


def test_reparation_respects_shared_ranks():
    # tiktoken style: abc at rank 3 by (ab, c) and (a, bc); knocking out ab leaves (a, b, c) at rank 3
    merges = [
        Merge(0, ("b", "c")),
        Merge(1, ("a", "b")),
        Merge(3, ("ab", "c")),
        Merge(3, ("a", "bc")),
        Merge(4, ("abc", "d")),
        Merge(4, ("ab", "cd")),
        Merge(2, ("c", "d")),
    ]
    tok = BTETokeniser("abcd", merges, ReBPEPipeline())
    refs = parse_references("abcd\tab cd\nabc\ta bc\n", "r.tsv").entries
    run = run_rebpe(tok, refs)
    assert all(s.tokeniser.check_invariants() == [] for s in run.steps)
    fresh = TokenisedReference(run.tokeniser, refs)
    assert [w.tokens for w in fresh.words] == [w.tokens for w in run.reference.words]


# --- real tokenisers: Llama 3 (ignore_merges, 90k multi-merge types) ------------------------------------------
@pytest.fixture(scope="module")
def llama3():
    return load_tokeniser(real_file("llama3", "tokenizer.json"))


@pytest.fixture(scope="module")
def en_entries():
    return load_references(EN_MORPH).entries


@pytest.mark.real
@pytest.mark.slow
def test_llama3_tree_blame_knocks_out_what_applied_blame_misses(llama3, en_entries):
    before = evaluate_morphology(llama3, en_entries).f1
    tree = run_knockout(llama3, en_entries)
    applied = run_knockout(llama3, en_entries, KnockoutConfig(blame="applied"))
    per_merge = run_knockout(llama3, en_entries, KnockoutConfig(unit="merge"))
    counts = {
        name: len(r.steps[0].types_removed) for name, r in (("tree", tree), ("applied", applied), ("merge", per_merge))
    }
    f1 = {name: r.steps[0].metrics.f1 for name, r in (("tree", tree), ("applied", applied), ("merge", per_merge))}
    assert counts["tree"] >= 700 and counts["applied"] <= 60, counts  # measured: 770 vs 49
    assert f1["tree"] > 0.7 > 0.3 > f1["applied"] > before, f1
    assert counts["merge"] < counts["tree"] and f1["merge"] > before
    assert evaluate_morphology(tree.tokeniser, en_entries).f1 == pytest.approx(f1["tree"])
    ids = tree.tokeniser.type_ids
    assert all(ids[t] == llama3.type_ids[t] for t in tree.tokeniser.types)
    assert not set(tree.steps[0].types_removed) & set(ids)
    problem = hf_json_problem(tree.tokeniser)
    assert problem is not None and problem.startswith(f"{len(tree.tokeniser.tuple_merges)} tuple merges remain")


@pytest.mark.real
@pytest.mark.slow
def test_llama3_hf_round_trip_after_knockout(llama3, en_entries):
    tokenizers = pytest.importorskip("tokenizers")
    from tests.real_tokenisers import RUNNING_TEXTS

    run = run_knockout(llama3, en_entries)
    leaves = [t for t in run.steps[0].types_removed if not llama3.used_by.get(t)]  # no tuple merges made
    new, _ = knock_out(llama3, leaves)
    assert len(leaves) > 100 and hf_json_problem(new) is None
    hf = tokenizers.Tokenizer.from_str(json.dumps(tokeniser_to_hf_json(new)))
    texts = [" " + e.word for e in en_entries] + [t for t in RUNNING_TEXTS if t]
    assert [new.tokenise(t) for t in texts] == [hf.encode(t, add_special_tokens=False).tokens for t in texts]
    assert all(hf.token_to_id(t) == llama3.type_ids[t] for t in list(new.types)[::50])
    assert all(hf.token_to_id(t) is None for t in leaves)


def test_shared_ranks_and_pipelines_without_hf_equivalent_are_named():
    shared = BTETokeniser(
        "abc",
        [Merge(0, ("a", "b")), Merge(1, ("b", "c")), Merge(2, ("ab", "c")), Merge(2, ("a", "bc"))],
        ReBPEPipeline(),
    )
    assert hf_json_problem(shared).startswith("2 merges share a rank with another merge (1 ranks")
    with pytest.raises(Exception, match="2 merges share a rank"):
        tokeniser_to_hf_json(shared)
    assert "has no HF tokenizer.json equivalent" in hf_json_problem(toy())


# --- the CLI ---------------------------------------------------------------------------------------------
def cli(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True)


def test_cli_options_report_and_hf_out(tmp_path):
    scenario = str(SAMPLE_DIR / "scenarios" / "a1_scenario2a.json")
    refs = tmp_path / "refs.tsv"
    refs.write_text("bruids\tbruid s\nbruid\tbruid\n", encoding="utf-8")
    out, report, hf = tmp_path / "ko.json", tmp_path / "ko_report.json", tmp_path / "hf.json"
    done = cli(
        "knockout",
        "--tokeniser",
        scenario,
        "--reference",
        str(refs),
        "--out",
        str(out),
        "--report",
        str(report),
        "--knockout-unit",
        "merge",
        "--blame",
        "applied",
        "--hf-out",
        str(hf),
        "--finish",
        "none",
    )
    assert done.returncode == 2 and out.is_file() and not hf.exists()
    assert "1 tuple merge remain" in done.stderr and "was written" in done.stderr and "--finish cascade" in done.stderr
    data = json.loads(report.read_text())
    assert data["settings"] == {"knockout_unit": "merge", "blame": "applied", "threshold": 0.5, "hf_out": str(hf)}
    assert data["hf_out_written"] is False and "tuple merge" in data["hf_out_problem"]
    saved = json.loads(out.read_text())
    implied = load_tokeniser(scenario).token_ids()  # the scenario has no ids: those it implies are kept
    assert saved["format"] == "bte-tokeniser" and "ids" not in saved["type_ids"]
    assert all(implied[t] == i for t, i in saved["type_ids"].items())
    help_text = cli("rebpe", "--help").stdout
    assert "--knockout-unit" in help_text and "--blame" in help_text and "--hf-out" in help_text


@pytest.mark.real
@pytest.mark.slow
def test_cli_hf_out_written_for_a_byte_level_tokeniser(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path = real_file("llama3", "tokenizer.json")
    refs = tmp_path / "refs.tsv"
    refs.write_text("zzzzzz\tzzzzzz\n", encoding="utf-8")  # nothing to blame: the same tokeniser comes back
    out, hf = tmp_path / "out.json", tmp_path / "hf.json"
    done = cli("knockout", "--tokeniser", str(path), "--reference", str(refs), "--out", str(out), "--hf-out", str(hf))
    assert done.returncode == 0, done.stderr
    loaded = tokenizers.Tokenizer.from_file(str(hf))
    ours = load_tokeniser(out)
    for text in (" unhappiness", "Hello world, governing horses!"):
        assert ours.tokenise(text) == loaded.encode(text, add_special_tokens=False).tokens
