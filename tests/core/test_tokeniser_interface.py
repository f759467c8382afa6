"""One Tokeniser interface for every family, capabilities, and loading by content, folder and
``hf:`` id; the CLI asks for the capability it needs and says in one line what is missing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.bpe.model import BTETokeniser
from core.counting.corpus import TrainingCorpus
from core.errors import InputError
from core.families import registry
from core.families.dropout import DropoutBPE
from core.families.registry import from_saved_json
from core.families.trimmed import TrimmedBPE
from core.formats.corpora import load_word_counts
from core.formats.samples import DUTCH_40K, SAMPLE_DIR
from core.formats.tokeniser_files import load_tokeniser, parse_tokeniser_bytes, sniff
from core.tokeniser import CapabilityError, Tokeniser, has, require

ROOT = Path(__file__).resolve().parents[2]
COUNTS = dict(list(load_word_counts(SAMPLE_DIR / "counts" / "en_wordfreq.tsv").items())[:1500])


@pytest.fixture(scope="module")
def families() -> dict:
    out = {"bpe": load_tokeniser(DUTCH_40K)}
    for algorithm in ("scaffold", "picky", "unigram"):
        corpus = TrainingCorpus.from_word_counts(COUNTS, registry.default_pretokeniser(algorithm))
        out[algorithm] = registry.train(algorithm, corpus, 350).tokeniser
    out["trimmed"] = TrimmedBPE.from_corpus(out["bpe"], dict(list(COUNTS.items())[:300]), 5)
    out["dropout"] = DropoutBPE(out["bpe"], 0.0, seed=3)
    text = [" ".join(list(COUNTS)[i : i + 40]) for i in range(0, 800, 40)]
    out["boundless"] = registry.train(
        "boundless", TrainingCorpus.from_texts(text, registry.default_pretokeniser("boundless")), 350
    ).tokeniser
    return out


def run(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True)


def test_every_family_is_a_tokeniser_and_round_trips(families):
    for kind, tokeniser in families.items():
        assert isinstance(tokeniser, Tokeniser), kind
        ids = tokeniser.token_ids()
        assert set(tokeniser.vocabulary) <= set(ids) and len(set(ids.values())) == len(ids), kind
        again = from_saved_json(json.loads(json.dumps(tokeniser.to_json())), "x.json")
        assert type(again) is type(tokeniser) and again.tokenise("the unhappiest 42") == tokeniser.tokenise(
            "the unhappiest 42"
        ), kind
        trace = tokeniser.trace_text("the unhappiest 42")
        assert trace.problems() == [] and list(trace.tokens) == tokeniser.tokenise("the unhappiest 42"), kind


def test_every_family_refuses_a_lone_surrogate_at_its_position(families):
    """Not dropped silently (HF refuses such text): every family's tokenise and tokenise_word."""
    for kind, tokeniser in families.items():
        for call, name in ((tokeniser.tokenise, "text"), (tokeniser.tokenise_word, "word")):
            with pytest.raises(InputError, match=rf"{name} holds a lone surrogate U\+D800 at position 2\b"):
                call("ab\ud800c")
        assert tokeniser.tokenise("ab c"), kind


def test_dropout_samples_and_trimming_decomposes(families):
    sampler = DropoutBPE(families["bpe"], 0.5, seed=1)
    samples = {tuple(sampler.tokenise_word("bruidsjurken")) for _ in range(30)}
    assert len(samples) > 1 and all("".join(s) == "Ġbruidsjurken" for s in samples)
    assert DropoutBPE(families["bpe"], 1.0).tokenise_word("gids") == list("Ġgids")
    trimmed = families["trimmed"]
    word = next(w for w in COUNTS if trimmed.tokenise_word(w) != families["bpe"].tokenise_word(w))
    events = trimmed.trace_text(" " + word).events
    assert events[-1].kind == "decompose" and list(events[-1].tokens) == trimmed.tokenise_word(word)


def test_capabilities(families):
    for kind in ("bpe", "scaffold", "picky", "boundless", "trimmed", "dropout"):
        graph = require(families[kind], "merge_graph", "graph")
        assert isinstance(graph, BTETokeniser) and graph.check_invariants() == [], kind
    assert require(families["bpe"], "merge_graph", "x") is families["bpe"]
    assert require(families["scaffold"], "merge_graph", "x").types >= families["scaffold"].vocabulary
    assert not has(families["unigram"], "merge_graph")
    with pytest.raises(CapabilityError, match=r"^'knockout' needs a merge graph .*unigram"):
        require(families["unigram"], "merge_graph", "'knockout'")


@pytest.mark.parametrize("command", ["graph", "knockout", "rebpe", "blocked"])
def test_cli_says_in_one_line_what_a_family_lacks(tmp_path, families, command):
    path = tmp_path / "uni.json"
    path.write_text(json.dumps(families["unigram"].to_json()), encoding="utf-8")
    extra = {
        "graph": ["--type", "the"],
        "blocked": [],
        "knockout": ["--reference", str(SAMPLE_DIR / "references" / "en_morph.tsv"), "--out", str(tmp_path / "o")],
        "rebpe": ["--reference", str(SAMPLE_DIR / "references" / "en_morph.tsv"), "--out", str(tmp_path / "o")],
    }
    proc = run(command, "--tokeniser", str(path), *extra[command])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(f"error: '{command}' needs a merge graph")


def test_inspect_reports_what_was_detected(tmp_path):
    proc = run("inspect", "--tokeniser", str(DUTCH_40K), "--json")
    summary = json.loads(proc.stdout)
    assert summary["family"] == "bpe" and summary["vocab_size"] == 40_000 and summary["merges"] == 39_739
    assert summary["specials"] == 5 and summary["types_with_several_merges"] == 0
    # merges.txt alone: the pre-tokeniser is inferred, and said so
    merges = tmp_path / "merges.txt"
    hf = json.loads(DUTCH_40K.read_text(encoding="utf-8"))
    merges.write_text("#version: 0.2\n" + "\n".join(hf["model"]["merges"][:2000]) + "\n", encoding="utf-8")
    proc = run("inspect", "--tokeniser", str(merges))
    assert proc.returncode == 0 and "pre-tokeniser bytelevel inferred" in proc.stderr
    assert "detected: pre-tokeniser bytelevel inferred" in proc.stdout
    proc = run("segment", "--tokeniser", str(merges), "--pretokeniser", "whitespace", "--json", "gids")
    assert proc.returncode == 0 and "inferred" not in proc.stderr


def test_one_odd_entry_does_not_flip_the_guess():
    hf = json.loads(DUTCH_40K.read_text(encoding="utf-8"))
    text = "\n".join([*hf["model"]["merges"][:3000], "€ x"])  # € is not a GPT-2 byte character
    tok = parse_tokeniser_bytes(text.encode(), "merges.txt")
    assert tok.pretokeniser.kind == "bytelevel" and "1 other characters ignored" in tok.metadata["detected"][0]


def test_files_are_recognised_by_content(tmp_path, families):
    assert sniff(DUTCH_40K.read_bytes()) == "json"
    assert sniff(b"IQ== 0\nIg== 1\nIw== 2\n") == "tiktoken"
    assert sniff("#version: 0.2\nĠ t\nh e\n".encode()) == "merges"
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({"a": 0, "b": 1}), encoding="utf-8")
    with pytest.raises(InputError, match=r"vocab\.json .* alone: .*merges\.txt"):
        load_tokeniser(vocab)


def test_folders_and_hf_ids(tmp_path, monkeypatch):
    folder = tmp_path / "saved"
    folder.mkdir()
    shutil.copy(DUTCH_40K, folder / "tokenizer.json")
    assert load_tokeniser(folder).tokenise_word("bruidsjurk") == ["Ġbruids", "jurk"]
    cache = tmp_path / "hub"
    snapshot = cache / "models--org--dutch" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (cache / "models--org--dutch" / "refs").mkdir()
    (cache / "models--org--dutch" / "refs" / "main").write_text("abc123")
    shutil.copy(DUTCH_40K, snapshot / "tokenizer.json")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    assert load_tokeniser("hf:org/dutch").tokenise_word("gids") == ["Ġgids"]
    with pytest.raises(InputError, match=r"org/other is not in the local Hugging Face cache \(looked in .*hub"):
        load_tokeniser("hf:org/other")
    with pytest.raises(InputError, match="revision 'v2' of org/dutch is not cached"):
        load_tokeniser("hf:org/dutch@v2")
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    assert load_tokeniser("hf:org/dutch").vocab_size == 40_000


def test_model_imports_nothing_above_it():
    import ast

    allowed = {
        "core.errors",
        "core.options",  # checks of public arguments (imports core.errors only)
        "core.gc_pause",  # the standard library's gc only
        "core.bpe.merges",
        "core.pipeline.base",
        "core.pipeline.specs",
        "core.bpe.segmentation",
        "core.trace",
        "core.bpe.unknowns",
        "core.bpe.serialisation",
    }
    for module in ("bpe/model", "bpe/serialisation", "bpe/segmentation", "bpe/merges", "trace", "bpe/unknowns"):
        tree = ast.parse((ROOT / "core" / f"{module}.py").read_text(encoding="utf-8"))
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("core")
        }
        assert imported <= allowed, (module, imported - allowed)
