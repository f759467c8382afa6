"""The edit commands' HF export end to end: ``--hf-out`` folders, ``--finish``, ``--ids compact``
and the ``remove`` command, checked against HF ``tokenizers`` on the shipped sample data."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer

from core.formats.samples import SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser
from tests.core.cli.test_cli import run
from tests.real_tokenisers import real_file

EN_4K = str(SAMPLE_DIR / "tokenisers" / "en-bpe-4k-wordfreq.json")
EN_REF = str(SAMPLE_DIR / "references" / "en_morph.tsv")
EN_COUNTS = str(SAMPLE_DIR / "counts" / "en_wordfreq.tsv")
WORDS = [w.split("\t")[0] for w in (SAMPLE_DIR / "counts" / "en_wordfreq.tsv").read_text().splitlines()[:3000]]


def agree_with_hf(project, tokenizer_json) -> None:
    ours, hf = load_tokeniser(project), Tokenizer.from_file(str(tokenizer_json))
    ids = ours.token_ids()
    for word in WORDS:
        encoding = hf.encode(" " + word)
        assert encoding.tokens == ours.tokenise(" " + word), word
        assert encoding.ids == [ids[t] for t in encoding.tokens], word


def test_knockout_to_an_hf_folder_finishes_by_cascade_and_keeps_every_id(tmp_path):
    out, hf, report = tmp_path / "ko.json", tmp_path / "hf", tmp_path / "r.json"
    done = run(
        "knockout",
        "--tokeniser",
        EN_4K,
        "--reference",
        EN_REF,
        "--out",
        str(out),
        "--hf-out",
        str(hf),
        "--report",
        str(report),
    )
    assert sorted(p.name for p in hf.iterdir()) == ["tokenizer.json", "tokenizer_config.json"]
    data = json.loads(report.read_text())
    finishing = data["finishing"]
    assert data["finish"] == "cascade" and finishing["tuples_cascaded"] > 0 and finishing["types_added"] == 0
    assert finishing["vocab_size_after"] == data["vocab_size_after"] < finishing["vocab_size_before"]
    assert finishing["f1_after"] == data["after"]["f1"]
    assert "finishing (cascade)" in done.stderr and f"|V| {finishing['vocab_size_before']} -> " in done.stderr
    source = load_tokeniser(EN_4K).token_ids()
    assert all(source[t] == i for t, i in load_tokeniser(out).token_ids().items())  # no id moved
    agree_with_hf(out, hf / "tokenizer.json")


def test_rebpe_with_intermediates_and_compact_ids_writes_the_id_map(tmp_path):
    out, hf = tmp_path / "re.json", tmp_path / "hf"
    done = run(
        "rebpe",
        "--tokeniser",
        EN_4K,
        "--reference",
        EN_REF,
        "--out",
        str(out),
        "--hf-out",
        str(hf),
        "--finish",
        "intermediates",
        "--ids",
        "compact",
    )
    assert "finishing (intermediates)" in done.stderr and "ids compacted" in done.stderr
    id_map = json.loads((hf / "id_map.json").read_text())
    edited = load_tokeniser(out).token_ids()
    source = load_tokeniser(EN_4K).token_ids()
    assert sorted(edited.values()) == list(range(len(edited))) == list(range(id_map["size_after"]))
    assert id_map["size_before"] == len(source)
    for token, old in source.items():
        assert id_map["old_to_new"][old] == edited.get(token)
    assert all(edited[t] == i for t, i in id_map["added"].items())
    agree_with_hf(out, hf / "tokenizer.json")


def test_remove_listed_types_and_name_a_bad_line(tmp_path):
    types = tmp_path / "types.txt"
    types.write_text("▁the\n▁nation\nnotatype\n", encoding="utf-8")
    args = ["remove", "--tokeniser", EN_4K, "--types", str(types), "--out", str(tmp_path / "x.json")]
    failed = run(*args, check=False)
    assert failed.returncode == 2 and f"{types}:3: 'notatype' is not a type" in failed.stderr
    source = load_tokeniser(EN_4K)
    chosen = [t for t in source.produced_by if t.startswith("▁")][-5:]
    types.write_text("".join(t + "\n" for t in chosen), encoding="utf-8")
    hf = tmp_path / "one.json"
    done = run(*args, "--hf-out", str(hf))
    assert "5 types chosen, 5 removed" in done.stderr
    removed = load_tokeniser(tmp_path / "x.json")
    assert removed.types.isdisjoint(chosen) and removed.tuple_merges == ()
    agree_with_hf(tmp_path / "x.json", hf)


def test_remove_the_least_frequent_types_down_to_a_size(tmp_path):
    out, report = tmp_path / "small.json", tmp_path / "r.json"
    run(
        "remove",
        "--tokeniser",
        EN_4K,
        "--counts",
        EN_COUNTS,
        "--size",
        "3500",
        "--cascade",
        "--reference",
        EN_REF,
        "--out",
        str(out),
        "--report",
        str(report),
    )
    data = json.loads(report.read_text())
    assert data["chosen"] == 500 and data["vocab_size_after"] <= 3500 and data["tuple_merges_made"] == 0
    assert set(data["before"]) == set(data["after"]) and load_tokeniser(out).vocab_size == data["vocab_size_after"]
    missing = run("remove", "--tokeniser", EN_4K, "--counts", EN_COUNTS, "--out", str(out), check=False)
    assert missing.returncode == 2 and "--counts and --size go together" in missing.stderr


def test_remove_takes_the_trimmed_types_of_a_trimmed_bpe(tmp_path):
    from core.families.trimmed import TrimmedBPE
    from core.formats.corpora import load_word_counts

    trimmed = TrimmedBPE.from_corpus(load_tokeniser(EN_4K), load_word_counts(EN_COUNTS), threshold=20)
    path, out, hf = tmp_path / "trimmed.json", tmp_path / "o.json", tmp_path / "hf"
    path.write_text(json.dumps(trimmed.to_json()), encoding="utf-8")
    done = run("remove", "--tokeniser", str(path), "--out", str(out), "--hf-out", str(hf))
    assert f"{len(trimmed.trimmed)} types chosen, {len(trimmed.trimmed)} removed" in done.stderr
    assert load_tokeniser(out).types.isdisjoint(trimmed.trimmed)
    agree_with_hf(out, hf / "tokenizer.json")
    plain = run("remove", "--tokeniser", EN_4K, "--out", str(out), check=False)
    assert plain.returncode == 2 and "say which types go" in plain.stderr


@pytest.mark.real
def test_a_rank_file_edit_is_refused_for_hf_with_the_reason_and_no_finishing_hint(tmp_path):
    path = real_file("spm-botchan-bpe", "botchan_en_bpe_1000.model")
    chosen = [t for t in load_tokeniser(path).produced_by if len(t) > 3][:3]
    (tmp_path / "types.txt").write_text("".join(t + "\n" for t in chosen), encoding="utf-8")
    out, hf = tmp_path / "o.json", tmp_path / "hf"
    done = run(
        "remove",
        "--tokeniser",
        str(path),
        "--types",
        str(tmp_path / "types.txt"),
        "--out",
        str(out),
        "--hf-out",
        str(hf),
        check=False,
    )
    assert done.returncode == 2 and out.is_file() and not (hf / "tokenizer.json").exists()
    assert "share a rank with another merge" in done.stderr and "--finish" not in done.stderr
