"""Every page on every tokeniser family (AppTest): BPE, Scaffold-BPE, PickyBPE, BoundlessBPE, a
SentencePiece unigram and BPE ``.model``, a tiktoken rank file and an HF tokenizer.json, each
loaded into the Workspace as a user would (an upload, whatever its file name). No page may show an
exception or an error; where a family has no merge graph, the pages that need one say so in one
line. Also: loading by path and by ``hf:`` id on this machine (a changed file reloads, a bad path
keeps what was loaded).
"""

from __future__ import annotations

import base64
import io
import json
import os
import re

import pytest
from streamlit.testing.v1 import AppTest

from app import PAGES
from core.counting.corpus import TrainingCorpus
from core.families import registry
from core.formats.hf_json import tokeniser_to_hf_json
from core.formats.samples import running_text
from core.formats.tokeniser_files import load_tokeniser, parse_tokeniser_bytes
from core.pipeline.byte_level import byte_chars_to_bytes
from core.tokeniser import has, require
from tests.apptest_support import APP, assert_clean
from ui.workspace_choices import SAMPLE_TOKENISERS

pytestmark = pytest.mark.usefixtures("module_streamlit_caches")

TIMEOUT = 120
WORKSPACE = "pages/workspace.py"
#: pages that need a merge graph, and the start of the one-line notice each shows without one
NEEDS_GRAPH = {
    "pages/merge_graph.py": "The merge graph needs a merge graph",
    "pages/stepper.py": "The knockout & ReBPE stepper needs a merge graph",
    "pages/blocked_merges.py": "Blocked merges needs a merge graph",
    "pages/distributions.py": "Merge blame needs a merge graph",
    "pages/word_debugger.py": "Debugging a word step by step (tree, blame, comparison) needs a merge graph",
}
#: small, fast settings for the pages that train (their keys are also URL parameters)
PAGE_QUERY = {
    "pages/train_compare.py": {"size": "280", "lines": "200", "algorithms": "bpe"},
    "pages/training_dynamics.py": {"algorithm": "bpe", "size": "280", "lines": "50"},
    "pages/unigram.py": {"size": "300", "lines": "200"},
    "pages/word_debugger.py": {"word": "the tokenisation", "variants": "true"},
}
OTHER_PAGES = [page for page, _, _ in PAGES if page != WORKSPACE]


# --- the tokeniser files ------------------------------------------------------------------------------
def _lines(n: int = 300) -> list[str]:
    return list(running_text())[:n]


def _trained(algorithm: str, size: int = 320):
    corpus = TrainingCorpus.from_texts(_lines(), registry.default_pretokeniser(algorithm))
    return registry.train(algorithm, corpus, size).tokeniser


def _project_json(algorithm: str) -> bytes:
    """What ``python -m core train --algorithm ALGORITHM --out x.json`` writes."""
    return json.dumps(_trained(algorithm).to_json(), ensure_ascii=False).encode()


def _sentencepiece(model_type: str) -> bytes:
    spm = pytest.importorskip("sentencepiece")
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(_lines(2000)), model_writer=out, vocab_size=200, model_type=model_type, minloglevel=2
    )
    return out.getvalue()


def _tiktoken_ranks() -> bytes:
    """A tiktoken rank file: the 256 bytes, then a small byte-level BPE's types in merge order."""
    bpe = _trained("bpe")
    ranks = [bytes([b]) for b in range(256)] + [byte_chars_to_bytes(m.result) for m in bpe.merges]
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for rank, token in enumerate(dict.fromkeys(ranks)))


def _hf_json() -> bytes:
    return json.dumps(tokeniser_to_hf_json(_trained("bpe")), ensure_ascii=False).encode()


#: family -> (file name as uploaded, maker). Names are deliberately unusual: files are recognised by content.
FAMILIES = {
    "scaffold": ("scaffold-bpe.json", lambda: _project_json("scaffold")),
    "picky": ("picky.json", lambda: _project_json("picky")),
    "boundless": ("boundless.json", lambda: _project_json("boundless")),
    "sentencepiece-unigram": ("tokenizer.model.v1", lambda: _sentencepiece("unigram")),
    "sentencepiece-bpe": ("spm-bpe.model", lambda: _sentencepiece("bpe")),
    "tiktoken": ("ranks.bin", _tiktoken_ranks),
    "hf-tokenizer-json": ("my-tokenizer", _hf_json),
}
NO_MERGE_GRAPH = {"sentencepiece-unigram"}


@pytest.fixture(scope="module")
def family_files() -> dict[str, tuple[str, bytes]]:
    return {family: (name, make()) for family, (name, make) in FAMILIES.items()}


# --- helpers --------------------------------------------------------------------------------------------
def workspace_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(WORKSPACE)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def upload_tokeniser(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="upload_tokeniser").set_value((name, data, "application/octet-stream"))
    return at.run()


def facts(at: AppTest) -> dict[str, str]:
    found = {}
    for element in at.get("html"):
        for label, value in re.findall(
            r'<div class="fact"[^>]*><div[^>]*>([^<]*)</div><div[^>]*>([^<]*)</div>', element.proto.body
        ):
            found[label] = value
    return found


def unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def notices(at: AppTest) -> list[str]:
    return [unescaped(e.value) for e in (*at.info, *at.warning)]


def open_page(at: AppTest, page: str) -> AppTest:
    for key, value in PAGE_QUERY.get(page, {}).items():
        at.query_params[key] = value
    at.switch_page(page)
    return at.run()


# --- every family, every page -----------------------------------------------------------------------------
SAMPLE_BPE = "en-bpe-4k-wordfreq"  # a shipped BPE, chosen by name (no upload)


QUICK_FAMILIES = {"bpe-sample", "sentencepiece-unigram", "tiktoken"}  # the others run with the slow tests


@pytest.mark.parametrize(
    "family", [f if f in QUICK_FAMILIES else pytest.param(f, marks=pytest.mark.slow) for f in ["bpe-sample", *FAMILIES]]
)
def test_every_page_works_on_every_family(family, family_files):
    if family == "bpe-sample":
        name, choice = SAMPLE_BPE, SAMPLE_BPE
        expected = load_tokeniser(SAMPLE_TOKENISERS[SAMPLE_BPE])
        at = workspace_app(reference="en_morph", tokeniser=SAMPLE_BPE)
    else:
        name, data = family_files[family]
        choice = f"upload: {name}"
        try:
            expected = parse_tokeniser_bytes(data, name, name=name)
        except Exception as err:
            if family == "sentencepiece-bpe":
                pytest.skip(f"the SentencePiece BPE loader does not load this model yet: {err}")
            raise
        at = workspace_app(reference="en_morph")
        upload_tokeniser(at, name, data)
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == choice
    shown = facts(at)
    assert shown["Family"] == expected.kind
    assert shown["|V|"] == f"{expected.vocab_size:,}"
    assert ("Merges" in shown) == (family not in NO_MERGE_GRAPH)
    assert at.code and "family: " + expected.kind in at.code[0].value  # everything the loader found
    several = has(expected, "merge_graph") and require(expected, "merge_graph", "").multi_merge_types > 0
    for page in OTHER_PAGES:
        open_page(at, page)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not at.error, (page, [e.value for e in at.error])
        told = [n for n in notices(at) if "needs a merge graph" in n or "needs every type formed" in n]
        if family in NO_MERGE_GRAPH and page in NEEDS_GRAPH:
            assert len(told) == 1 and NEEDS_GRAPH[page] in told[0] and "\n" not in told[0], (page, told)
        else:  # knockout and ReBPE run also where a type is formed by several merges
            assert not told, (page, told, several)
    # the choice survived the tour
    at.switch_page(WORKSPACE).run()
    assert at.selectbox(key="ws_tokeniser").value == choice


def test_word_debugger_on_a_family_without_a_merge_graph_shows_tokens_and_its_trace(family_files):
    name, data = family_files["sentencepiece-unigram"]
    at = workspace_app()
    upload_tokeniser(at, name, data)
    at.query_params["word"] = "tokenisation"
    at.switch_page("pages/word_debugger.py").run()
    assert_clean(at)
    chips = [h.value for h in at.html if "tok-word" in h.value]
    assert chips, "the tokens are shown for every family"
    assert any("How the unigram tokeniser segments" in e.label for e in at.expander)
    assert sum("needs a merge graph" in n for n in notices(at)) == 1


def test_scaffold_pages_use_its_merge_graph_and_say_so(family_files):
    name, data = family_files["scaffold"]
    at = workspace_app(reference="en_morph")
    upload_tokeniser(at, name, data)
    at.switch_page("pages/merge_graph.py").run()
    assert_clean(at)
    assert any("shown through its merge graph" in unescaped(c.value) for c in at.caption)
    at.query_params["word"] = "the"
    at.query_params["variants"] = "true"
    at.switch_page("pages/word_debugger.py").run()
    assert_clean(at)
    assert any("How the scaffold tokeniser segments" in e.label for e in at.expander)
    assert any("scaffold (loaded)" in h.value for h in at.html)


def test_a_loaded_unigram_model_offers_its_own_lattice(family_files):
    name, data = family_files["sentencepiece-unigram"]
    at = workspace_app()
    upload_tokeniser(at, name, data)
    for key, value in {**PAGE_QUERY["pages/unigram.py"], "model": "loaded", "word": "tokenisation"}.items():
        at.query_params[key] = value
    at.switch_page("pages/unigram.py").run()
    assert_clean(at)
    assert any("segmentation lattice" in h.value for h in at.html)
    table = at.dataframe[-1].value
    assert "loaded" in list(table["tokeniser"])


# --- merges.txt: inferred pre-tokeniser, the override -------------------------------------------------------
def test_merges_txt_shows_what_was_inferred_and_the_override_rereads_it():
    at = workspace_app()
    upload_tokeniser(at, "merges (1).txt", b"#version: 0.2\nl o\nlo w\nlow e\nlowe r\n")
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "upload: merges (1).txt"
    detected = " ".join(unescaped(m.value) for m in at.markdown)
    assert "Detected while loading" in detected and "pre-tokeniser whitespace_split inferred" in detected.replace(
        "whitespace split", "whitespace_split"
    )
    at.selectbox(key="ws_pretokeniser_override").set_value("metaspace").run()
    assert_clean(at)
    assert "metaspace" in at.code[0].value.lower()
    assert "Detected while loading" not in " ".join(m.value for m in at.markdown)


def test_a_markup_token_in_a_detected_note_is_plain_text():
    at = workspace_app()
    at.file_uploader(key="upload_vocab").set_value(
        ("vocab.json", json.dumps({"<b>": 0, "a": 1, "b": 2, "ab": 3}).encode(), "application/json")
    )
    at.run()
    upload_tokeniser(at, "merges", b"a b\n")
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "upload: merges"
    notes = [m.value for m in at.markdown if "Detected while loading" in m.value]
    assert notes and "<b>" not in notes[0] and r"\<b\>" in notes[0]


# --- by path and by hf: id ------------------------------------------------------------------------------
def test_load_by_path_reloads_a_changed_file_and_a_bad_path_keeps_it(tmp_path, family_files):
    file = tmp_path / "project.json"
    file.write_bytes(family_files["picky"][1])
    at = workspace_app()
    at.text_input(key="ws_path").input(str(file))
    at.button(key="ws_path_load").click().run()
    assert_clean(at)
    choice = f"path: {file.resolve()}"
    assert at.selectbox(key="ws_tokeniser").value == choice
    assert facts(at)["Family"] == "picky"
    # the file changes on disk (another family, another size): the next run reads it again
    file.write_bytes(family_files["scaffold"][1])
    os.utime(file, ns=(file.stat().st_atime_ns, file.stat().st_mtime_ns + 10**9))
    at.run()
    assert_clean(at)
    assert facts(at)["Family"] == "scaffold"
    # a bad path is an error message; the loaded tokeniser stays
    at.text_input(key="ws_path").input(str(tmp_path / "nope" / "tokenizer.json"))
    at.button(key="ws_path_load").click().run()
    assert not at.exception and len(at.error) == 1
    assert "no such file or folder" in unescaped(at.error[0].value) and "stays as it was" in at.error[0].value
    assert at.selectbox(key="ws_tokeniser").value == choice
    assert facts(at)["Family"] == "scaffold"
    at.switch_page("pages/merge_graph.py").run()
    assert_clean(at)


def test_load_a_folder_by_path(tmp_path, family_files):
    (tmp_path / "tokenizer.json").write_bytes(family_files["hf-tokenizer-json"][1])
    at = workspace_app()
    at.text_input(key="ws_path").input(str(tmp_path))
    at.button(key="ws_path_load").click().run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == f"path: {tmp_path.resolve()}"
    assert facts(at)["Family"] == "bpe"


def test_load_by_hf_id_from_the_local_cache(tmp_path, monkeypatch, family_files):
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--someorg--tiny-bpe"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit + "\n")
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "tokenizer.json").write_bytes(family_files["hf-tokenizer-json"][1])
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    at = workspace_app()
    at.text_input(key="ws_path").input("hf:someorg/tiny-bpe")
    at.button(key="ws_path_load").click().run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "hf: someorg/tiny-bpe"
    assert at.query_params["tokeniser"] in ("hf:someorg/tiny-bpe", ["hf:someorg/tiny-bpe"])  # a link carries it
    # a model that is not cached: an error naming where we looked; the choice stays
    at.text_input(key="ws_path").input("hf:someorg/absent")
    at.button(key="ws_path_load").click().run()
    assert (
        not at.exception
        and len(at.error) == 1
        and "not in the local Hugging Face cache" in unescaped(at.error[0].value)
    )
    assert at.selectbox(key="ws_tokeniser").value == "hf: someorg/tiny-bpe"


def test_an_hf_id_holding_a_sentencepiece_unigram_model(tmp_path, monkeypatch, family_files):
    commit = "fedcba9876543210fedcba9876543210fedcba98"
    repo = tmp_path / "hub" / "models--someorg--tiny-unigram"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "tokenizer.model").write_bytes(family_files["sentencepiece-unigram"][1])
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    at = workspace_app()
    at.text_input(key="ws_path").input("hf:someorg/tiny-unigram")
    at.button(key="ws_path_load").click().run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value == "hf: someorg/tiny-unigram"
    assert facts(at)["Family"] == "unigram"
    at.switch_page("pages/merge_graph.py").run()
    assert_clean(at)
    assert any("needs a merge graph" in n for n in notices(at))
