"""``audit``: the unreachable types with their causes (text and JSON), --cause, --corpus, and
--types-out feeding ``remove --types``; the merge-order causes equal ``blocked``'s unreachable types."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from core.formats.samples import SAMPLE_DIR

NL_4K = str(SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json")
NL_REF = str(SAMPLE_DIR / "references" / "nl_morph.tsv")


def run_json(capsys, *args) -> dict:
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def knocked(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("audit") / "nl-knockout.json"
    assert main(["knockout", "--tokeniser", NL_4K, "--reference", NL_REF, "--out", str(out)]) == 0
    return str(out)


def test_merge_order_causes_are_the_blocked_analysis_unreachable_types(knocked, capsys):
    report = run_json(capsys, "audit", "--tokeniser", knocked, "--json")
    blocked = run_json(capsys, "blocked", "--tokeniser", knocked, "--json")
    merge_order = [r for r in report["unreachable"] if r["cause"] == "merge-order"]
    assert {r["type"] for r in merge_order} == set(blocked["unreachable_types"]) != set()
    assert report["unreachable_counts"]["merge-order"] == len(merge_order)
    record = merge_order[0]
    assert set(record) == {"type", "id", "cause", "text", "encodes_to", "encodes_to_ids", "evidence"}
    assert record["encodes_to"] != [record["type"]] and "".join(record["encodes_to"]).replace("▁", "") == record[
        "text"
    ].replace(" ", "")
    assert record["evidence"]["segmentation"] != [record["type"]]


def test_types_out_feeds_remove_which_leaves_nothing_blocked(knocked, tmp_path, capsys):
    types = tmp_path / "unreachable.txt"
    report = run_json(
        capsys, "audit", "--tokeniser", knocked, "--cause", "merge-order", "--json", "--types-out", str(types)
    )
    assert set(report["unreachable_counts"]) == {"merge-order"}
    listed = types.read_text(encoding="utf-8").splitlines()
    assert listed == [r["type"] for r in report["unreachable"]]
    removed = tmp_path / "removed.json"
    assert main(["remove", "--tokeniser", knocked, "--types", str(types), "--out", str(removed)]) == 0
    capsys.readouterr()
    after = run_json(capsys, "audit", "--tokeniser", str(removed), "--cause", "merge-order", "--json")
    assert after["unreachable"] == []


def test_text_output_names_each_cause_with_examples_and_the_corpus_idle_types(capsys):
    assert main(["audit", "--tokeniser", NL_4K, "--corpus", NL_REF, "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "4,000 types checked" in out
    assert "only inside words" in out and "encodes to" in out and "more (--limit 0 lists all" in out
    assert "never emitted" in out and "pretokens):" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--residue-ratio", "0.5"], "residue_ratio"),
        (["--corpus", "/nonexistent/corpus-*.txt"], "no corpus files"),
        (["--types-out", NL_4K], "overwrite an input"),
    ],
)
def test_bad_arguments_are_refused_with_the_option(args, message, capsys):
    extra = ["--corpus", NL_REF] if args[0] == "--residue-ratio" else []
    assert main(["audit", "--tokeniser", NL_4K, *extra, *args]) == 2
    assert message in capsys.readouterr().err
