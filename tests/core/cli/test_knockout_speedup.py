"""What the faster ``knockout``/``rebpe`` process (issue 33) must keep: the saved JSON byte for byte
as ``json.dumps`` writes it, the tiktoken merges as :class:`Merge` makes them, the F1 before and
after as :func:`evaluate_morphology` measures it, and the merge-graph check's verdict."""

from __future__ import annotations

import json

import pytest

from core.bpe.merges import Merge, merges_of_splits
from core.bpe.model import BTETokeniser
from core.cli import main
from core.cli.common import load_reference_entries
from core.cli.edit_run import _sound
from core.edits.blame import holdout_split
from core.formats.samples import SAMPLE_DIR
from core.formats.tokeniser_files import indented_json, load_tokeniser
from core.pipeline.whitespace import WhitespaceSplit
from core.references.evaluation import evaluate_morphology

VALUES = [
    {},
    [],
    'é\n"\\',
    7,
    None,
    {"a": [1, 2.5, True, None, "x", [], {}], "b": {"c": [[1, ["a", "b"]], [0.5, ["c", "d", "e"]]]}},
    [[3, []], [4, ["a", 1]], (5, ["x"]), [True, ["y"]], [6, ("a", "b")], [7, ["a"], "z"]],
    [float("nan"), float("inf"), -0.0, 1e300, 10**30],
    {"k": {1: 2, "j": []}},
    {"tuple": (1, (2, "a")), "nested": [[[]]]},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
@pytest.mark.parametrize("indent", [1, 2])
def test_indented_json_is_json_dumps(value, indent):
    assert indented_json(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


def test_indented_json_of_a_tokeniser_is_json_dumps(dutch40k):
    obj = dutch40k.to_json()
    assert indented_json(obj, 1) == json.dumps(obj, ensure_ascii=False, indent=1)


def test_indented_json_refuses_what_json_dumps_refuses():
    with pytest.raises(TypeError):
        indented_json({"a": {1, 2}}, 1)


def test_merges_of_splits_are_merges_of_the_shared_strings():
    ranks = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5, "cab": 6}
    merges = merges_of_splits(ranks.items(), ranks)
    expected = [(3, ("a", "b")), (4, ("b", "c")), (5, ("a", "bc")), (5, ("ab", "c")), (6, ("c", "ab"))]
    assert merges == [Merge(rank, parts) for rank, parts in expected]
    assert all(not m.is_tuple and m.result == "".join(m.parts) for m in merges)
    shared = {id(token) for token in ranks}
    assert all({id(m.result), *map(id, m.parts)} <= shared for m in merges)


def test_a_part_outside_v_is_still_reported():
    broken = BTETokeniser(["a", "b"], [Merge(0, ("a", "b")), Merge(1, ("ab", "c"))], WhitespaceSplit())
    assert not _sound(broken) and broken.check_invariants()
    assert _sound(BTETokeniser(["a", "b"], [Merge(0, ("a", "b"))], WhitespaceSplit()))


@pytest.mark.parametrize("extra", [[], ["--holdout", "0.5"], ["--free"]], ids=["whole", "holdout", "free"])
def test_the_reported_f1_is_evaluate_morphology(tmp_path, extra):
    tokeniser = SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json"
    reference = SAMPLE_DIR / "references" / "nl_morph.tsv"
    out, report = tmp_path / "ko.json", tmp_path / "report.json"
    args = ["knockout", "--tokeniser", str(tokeniser), "--reference", str(reference)]
    assert main([*args, "--out", str(out), "--report", str(report), *extra]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    free = "--free" in extra
    entries = load_reference_entries(str(reference), free)
    if "--holdout" in extra:
        entries = holdout_split(entries, 0.5, 0)[1]
    assert data["before"] == evaluate_morphology(load_tokeniser(tokeniser), entries, free=free).to_json()
    assert data["after"] == evaluate_morphology(load_tokeniser(out), entries, free=free).to_json()
