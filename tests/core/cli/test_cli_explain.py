"""``python -m core explain``: the Word debugger's answer on the command line, with ids and ranks."""

from __future__ import annotations

import json

import pytest

from core.formats.samples import DUTCH_40K, SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser
from tests.core.cli.test_cli import run
from tests.real_tokenisers import real_file

NL_REF = str(SAMPLE_DIR / "references" / "nl_morph.tsv")


def test_explain_names_the_crossing_merge_the_trap_and_the_ids():
    done = run("explain", "--tokeniser", str(DUTCH_40K), "--reference", NL_REF, "bruidsjurk")
    tok = load_tokeniser(DUTCH_40K)
    lines = done.stdout.splitlines()
    assert lines[0] == "bruidsjurk  ->  Ġbruids jurk   (reference: bruid s jurk)"
    assert f"  'Ġbruids'  id {tok.token_id('Ġbruids')}  formed by Ġbru + ids (rank 15545)" in lines
    assert "      'ids'  <- id + s (rank 1234, step 5)" in lines
    assert any("first merge that crossed a reference boundary is “id” + “s” → “ids”" in line for line in lines)
    assert any("Knocking out “ids” gives “Ġbruid” “s” “jurk”." in line for line in lines)


def test_explain_json_gives_every_token_its_id_and_tree():
    done = run("explain", "--tokeniser", str(DUTCH_40K), "--json", "gidsen", "bruidsjurk")
    tok = load_tokeniser(DUTCH_40K)
    data = json.loads(done.stdout)
    assert [d["word"] for d in data] == ["gidsen", "bruidsjurk"]
    for item in data:
        assert [t["token"] for t in item["tokens"]] == tok.tokenise_word(item["word"])
        assert [t["id"] for t in item["tokens"]] == [tok.token_id(t["token"]) for t in item["tokens"]]
        assert [t["token"] for t in item["trees"]] == item["explanation"]["tokens"]


@pytest.mark.real
def test_a_whole_word_type_under_ignore_merges_says_so():
    done = run("explain", "--tokeniser", str(real_file("llama3", "tokenizer.json")), "token")
    assert "  'Ġtoken'  id 4037  emitted whole: the pretoken is a type and ignore_merges is on; its own merge is " in (
        done.stdout
    )
    assert "(rank 9702)" in done.stdout
