"""``python -m core`` end to end: segment (= HF encode), train-bpe (= HF BpeTrainer), train (what it says about
the result), evaluate, graph."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from core.formats.samples import DUTCH_40K, SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser
from tests.core.families.test_boundless import OFTHE  # TEST_VECTORS V8's corpus

ROOT = Path(__file__).resolve().parents[3]


def run(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_segment_json_equals_hf(tmp_path):
    words = ["bruidsjurk", "gids", "één", "Brussel", "café-eigenaar", "standaardtarief"]
    words_file = tmp_path / "words.txt"
    words_file.write_text("\n".join(words[3:]) + "\n", encoding="utf-8")
    out = json.loads(
        run("segment", "--tokeniser", str(DUTCH_40K), "--json", "--words-file", str(words_file), *words[:3]).stdout
    )
    hf = Tokenizer.from_file(str(DUTCH_40K))
    assert [item["word"] for item in out] == words[:3] + words[3:]
    assert all(item["tokens"] == hf.encode(" " + item["word"]).tokens for item in out)


def test_segment_trace_of_scenario():
    out = json.loads(
        run(
            "segment",
            "--tokeniser",
            str(SAMPLE_DIR / "scenarios" / "a1_scenario2a.json"),
            "--json",
            "--trace",
            "bruids",
        ).stdout
    )
    trace = out[0]["trace"]
    assert out[0]["tokens"] == ["_bruids"] == trace["tokens"]
    assert [e["label"].split(" (")[0] for e in trace["events"]] == [
        "i + d",
        "id + s",
        "_ + b",
        "_b + r",
        "_br + u",
        "_bru + ids",
    ]
    assert trace["events"][1]["tokens"] == ["_", "b", "r", "u", "ids"]
    pretoken = trace["detail"]["pretokens"][0]
    assert [s["merge"] for s in pretoken["steps"]] == ["i d", "id s", "_ b", "_b r", "_br u", "_bru ids"]
    assert pretoken["boundary_merges"][-1] == "id s"


def test_train_bpe_matches_hf_trainer(tmp_path):
    counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    counts_file = tmp_path / "counts.tsv"
    counts_file.write_text("".join(f"{w}\t{c}\n" for w, c in counts.items()), encoding="utf-8")
    out = tmp_path / "tok.json"
    run("train-bpe", "--counts", str(counts_file), "--vocab-size", "22", "--marker", "▁", "--out", str(out), "--hf")
    hf = Tokenizer.from_file(str(out))  # what we wrote is a valid HF tokenizer.json
    assert [tuple(m) for m in json.loads(out.read_text())["model"]["merges"]] == [
        tuple(m.split())
        for m in ["e s", "es t", "l o", "▁ lo", "▁lo w", "e w", "n ew", "▁ new", "▁new est", "d est", "i dest"]
    ]
    assert hf.encode(" widest").tokens == ["▁", "w", "idest"] == load_tokeniser(out).tokenise_word("widest")


def test_train_bpe_on_wordfreq_counts_equals_hf_trainer(tmp_path):
    """Merge-for-merge agreement with HF BpeTrainer on (scaled) wordfreq counts."""
    from tokenizers import models, pre_tokenizers, trainers

    lines = (SAMPLE_DIR / "counts" / "en_wordfreq.tsv").read_text(encoding="utf-8").splitlines()[:1500]
    counts = {w: max(1, int(c) // 10_000) for w, c in (line.split("\t") for line in lines)}
    counts_file = tmp_path / "counts.tsv"
    counts_file.write_text("".join(f"{w}\t{c}\n" for w, c in counts.items()), encoding="utf-8")
    out = tmp_path / "tok.json"
    run("train-bpe", "--counts", str(counts_file), "--vocab-size", "700", "--marker", "Ġ", "--out", str(out))
    ours = [m.parts for m in load_tokeniser(out).merges]

    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=700, min_frequency=0, show_progress=False, special_tokens=[])
    hf.train_from_iterator((" ".join(["Ġ" + w] * c) for w, c in counts.items()), trainer=trainer)
    theirs = [tuple(m) for m in json.loads(hf.to_str())["model"]["merges"]]
    assert len(ours) > 600 and ours == theirs


def test_evaluate_json_keys_and_weights():
    args = [
        "evaluate",
        "--tokeniser",
        str(SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json"),
        "--reference",
        str(SAMPLE_DIR / "references" / "nl_morph.tsv"),
        "--json",
    ]
    plain = json.loads(run(*args).stdout)
    assert set(plain) == {"precision", "recall", "f1", "tp", "fp", "fn", "words", "excluded"}
    assert plain["words"] >= 800 and 0 < plain["f1"] < 1
    assert plain["precision"] == pytest.approx(plain["tp"] / (plain["tp"] + plain["fp"]))
    weighted = json.loads(run(*args, "--weights", str(SAMPLE_DIR / "counts" / "nl_wordfreq.tsv")).stdout)
    assert weighted["tp"] > plain["tp"] and weighted["words"] == plain["words"]


def test_graph_json():
    out = json.loads(run("graph", "--tokeniser", str(DUTCH_40K), "--type", "Ġbruids", "--depth", "1", "--json").stdout)
    roles = {t["type"]: t["role"] for t in out["types"]}
    assert roles["Ġbruids"] == "center" and roles["ids"] == "ancestor" and roles["Ġgids"] == "half-sibling"


@pytest.mark.parametrize(
    "args, message",
    [
        (["segment", "--tokeniser", "nope.json", "x"], "nope.json: no such file"),
        (["graph", "--tokeniser", str(DUTCH_40K), "--type", "bruids"], "did you mean 'Ġbruids'"),
        (["evaluate", "--tokeniser", str(DUTCH_40K), "--reference", str(DUTCH_40K)], "tokenizer.json"),
    ],
)
def test_errors_name_the_file_and_exit_2(args, message):
    proc = run(*args, check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_counts_line_is_named(tmp_path):
    bad = tmp_path / "counts.tsv"
    bad.write_text("low\t5\nlower\tmany\n", encoding="utf-8")
    proc = run("train-bpe", "--counts", str(bad), "--vocab-size", "20", "--out", str(tmp_path / "o.json"), check=False)
    assert proc.returncode == 2 and "counts.tsv:2:" in proc.stderr


def test_rebpe_says_why_annealing_changed_nothing_and_that_the_result_is_the_same(tmp_path):
    """The README's --anneal example on the Dutch 40k: its 1,146 words are mostly one token each."""
    edit = ["rebpe", "--tokeniser", str(DUTCH_40K), "--reference", str(SAMPLE_DIR / "references" / "nl_morph.tsv")]
    edit += ["--max-iterations", "1"]
    plain, annealed, report = tmp_path / "plain.json", tmp_path / "annealed.json", tmp_path / "report.json"
    run(*edit, "--out", str(plain))
    stderr = run(*edit, "--out", str(annealed), "--anneal", "--report", str(report)).stderr
    assert annealed.read_bytes() == plain.read_bytes()
    found = json.loads(report.read_text())["steps"][0]["annealing"]
    assert (found["words"], found["added"], found["frequent"]) == (1146, 0, 0) and found["pairs"] > 0
    [note] = [line for line in stderr.splitlines() if line.startswith("annealing ")]
    assert note.startswith("annealing added no merge: a pair of adjacent tokens qualifies with ≥ 3 amenable")
    assert f"{found['split_words']:,} of the 1,146 reference words are split into several tokens" in note
    assert "; the most amenable pair is " in note and note.endswith(
        f"; so {annealed} is what rebpe writes without --anneal"
    )


def test_knockout_and_rebpe_commands_write_reports_and_tokenisers(tmp_path):
    scenario = str(SAMPLE_DIR / "scenarios" / "a1_scenario2a.json")
    refs = tmp_path / "refs.tsv"
    refs.write_text("bruids\tbruid s\nbruid\tbruid\n", encoding="utf-8")
    out, report = tmp_path / "ko.json", tmp_path / "ko_report.json"
    run("knockout", "--tokeniser", scenario, "--reference", str(refs), "--out", str(out), "--report", str(report))
    data = json.loads(report.read_text())
    assert data["knocked_out"] == [{"merge": "id s", "blame": 1, "applications": 1}]
    assert (data["vocab_size_before"], data["vocab_size_after"]) == (13, 12)
    assert (
        set(data["before"])
        == set(data["after"])
        == {"precision", "recall", "f1", "tp", "fp", "fn", "words", "excluded"}
    )
    assert data["seconds"] >= 0
    assert json.loads(run("segment", "--tokeniser", str(out), "--json", "bruids").stdout)[0]["tokens"] == ["_bruids"]

    out, report = tmp_path / "re.json", tmp_path / "re_report.json"
    run("rebpe", "--tokeniser", scenario, "--reference", str(refs), "--out", str(out), "--report", str(report))
    data = json.loads(report.read_text())
    assert data["after"]["f1"] == 1.0 and [s["phase"] for s in data["steps"]][:3] == [
        "knockout",
        "reparation",
        "reification",
    ]
    assert all("metrics" in s for s in data["steps"])
    assert json.loads(run("segment", "--tokeniser", str(out), "--json", "bruids").stdout)[0]["tokens"] == [
        "_bruid",
        "s",
    ]
    evaluation = json.loads(run("evaluate", "--tokeniser", str(out), "--reference", str(refs), "--json").stdout)
    assert evaluation["f1"] == 1.0


def test_blocked_command_json():
    out = json.loads(
        run("blocked", "--tokeniser", str(SAMPLE_DIR / "scenarios" / "a1_scenario2b_ii.json"), "--json").stdout
    )
    assert [b["scenario"] for b in out["blocked"]] == ["2b(ii)"] and out["unreachable_types"] == ["uids"]


@pytest.mark.parametrize(
    "options, note",
    [
        (
            (),
            "note: |V| 278 for a target of 290: 12 of the 290 vocabulary slots (256 bytes + 28 merges + 6 supermerges) "
            "belong to tokens deleted during training (12 deletions). As in the authors' code, a deleted token keeps "
            "its slot; [boundless §3.1] speaks of deletions freeing up space, which the option "
            "deleted_slots=freed trains.",
        ),
        (("--option", "deleted_slots=freed"), None),
    ],
)
def test_train_says_why_boundless_ends_under_its_target(tmp_path, options, note):
    corpus, out = tmp_path / "of_the.txt", tmp_path / "boundless.json"
    corpus.write_text("\n".join(OFTHE) + "\n", encoding="utf-8")
    stderr = run(
        "train", "--algorithm", "boundless", "--corpus", str(corpus), "--vocab-size", "290", "--out", str(out), *options
    ).stderr.splitlines()
    size = 278 if note else 290
    assert f"boundless: |V| = {size} in" in stderr[0] and load_tokeniser(out).vocab_size == size
    assert [line for line in stderr if line.startswith("note:")] == ([note] if note else [])


def test_blocked_names_the_unreachable_types_and_what_it_counts():
    out = run("blocked", "--tokeniser", str(SAMPLE_DIR / "scenarios" / "a1_scenario2b_ii.json")).stdout.splitlines()
    assert out[0] == "1 blocked merge (0 tuple merges); 1 unreachable type: 'uids'"
    assert out[1].split() == ["rank", "5", "uid", "+", "s", "[2b(ii)]", "finds", "u", "ids"]


@pytest.mark.parametrize("holdout", [None, "0.75"])
def test_knockout_says_which_reference_the_f1_was_measured_on(tmp_path, holdout):
    reference = SAMPLE_DIR / "references" / "nl_morph.tsv"
    words = sum(1 for line in reference.read_text(encoding="utf-8").splitlines() if line.strip())
    out, report = tmp_path / "new" / "folders" / "ko.json", tmp_path / "reports" / "ko.json"
    args = ["knockout", "--tokeniser", str(SAMPLE_DIR / "tokenisers" / "nl-bpe-4k-wordfreq.json")]
    args += ["--reference", str(reference), "--out", str(out), "--report", str(report)]
    stderr = run(*args, *(["--holdout", holdout] if holdout else [])).stderr
    data = json.loads(report.read_text())  # both missing folders were made
    assert out.exists() and data["evaluated_on"]["reference"] == str(reference)
    evaluated = data["after"]["words"]
    if holdout is None:
        assert evaluated == words and data["evaluated_on"]["blame_words"] == words
        assert f" on {reference} ({words} words; blame used the same reference); " in stderr
    else:
        blamed = data["evaluated_on"]["blame_words"]
        assert blamed + evaluated == words and blamed == round(0.75 * words)
        assert f" on the held-out 25% of {reference} ({evaluated} words; blame used the other {blamed} words); " in (
            stderr
        )


def test_a_vocab_json_alone_points_to_its_merges_txt(tmp_path):
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({"a": 0, "b": 1, "ab": 2}), encoding="utf-8")
    proc = run("inspect", "--tokeniser", str(vocab), check=False)
    assert proc.returncode == 2 and proc.stderr.startswith(f"error: {vocab}: this looks like a vocab.json")
    assert "merges.txt" in proc.stderr and "field 'model'" not in proc.stderr
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\n", encoding="utf-8")
    loaded = run("segment", "--tokeniser", str(tmp_path / "merges.txt"), "--json", "--pretokeniser", "whitespace", "ab")
    assert json.loads(loaded.stdout)[0]["tokens"] == ["ab"]  # the merges.txt finds the vocab.json beside it


def test_sample_text_writes_the_running_text_one_document_per_line(tmp_path):
    from core.formats.samples import running_text

    out = tmp_path / "out" / "text.txt"
    stderr = run("sample-text", "--out", str(out)).stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == list(running_text()) and len(lines) > 5000 and all(line.strip() for line in lines)
    assert f"{len(lines):,} lines of English running text (PSF licence) -> {out}" in stderr
