"""One scoring routine: every score (evaluate, knockout/ReBPE before, after and per step, the sweep)
scores the same words, and words the tokeniser cannot align follow the explicit policy."""

from __future__ import annotations

import json

import pytest

from core.bpe.model import BTETokeniser, Merge
from core.cli import main
from core.edits.diagnostics import threshold_sweep
from core.edits.rebpe import KnockoutConfig, ReBPEConfig, run_knockout, run_rebpe
from core.edits.reference_state import TokenisedReference
from core.errors import InputError
from core.formats.tokeniser_files import parse_tokeniser_bytes
from core.pipeline import ReBPEPipeline
from core.references.evaluation import evaluate_morphology
from core.references.files import parse_references

# The ReBPE pipeline normalises with NFKC ([rebpe App. B.1]): the ligature "ﬁ" becomes "fi", so
# "ﬁne" changes length and cannot be aligned.
MERGES = [
    ("_", "b"),
    ("r", "u"),
    ("_b", "ru"),
    ("i", "d"),
    ("_bru", "id"),
    ("f", "i"),
    ("n", "e"),
    ("_", "fi"),
    ("_fi", "ne"),
    ("_bruid", "s"),
]
REFERENCE = "bruids\tbruid s\nﬁne\tﬁne\nfine\tfi ne\nbruid\tbruid\n"


@pytest.fixture(scope="module")
def tokeniser():
    return BTETokeniser("_abcdefghijklmnopqrstuvwxyz", [Merge(i, m) for i, m in enumerate(MERGES)], ReBPEPipeline())


@pytest.fixture(scope="module")
def entries():
    return parse_references(REFERENCE, "r.tsv").entries


def test_unalignable_word_is_excluded_and_counted_everywhere(tokeniser, entries):
    scores = evaluate_morphology(tokeniser, entries)
    assert (scores.words, scores.excluded) == (3, 1)
    traced = TokenisedReference(tokeniser, entries)
    assert traced.unaligned == ("ﬁne",)
    assert traced.scores() == scores
    assert threshold_sweep(traced, [0.5])[0]["excluded"] == 1


def test_raise_policy_names_the_word_and_the_policy(tokeniser, entries):
    with pytest.raises(InputError, match=r"ﬁne.*'raise'"):
        evaluate_morphology(tokeniser, entries, unaligned="raise")
    with pytest.raises(InputError, match="unaligned"):
        evaluate_morphology(tokeniser, entries, unaligned="skip")


@pytest.mark.parametrize(
    "run",
    [
        lambda t, e: run_knockout(t, e, KnockoutConfig(threshold=0.5)),
        lambda t, e: run_rebpe(t, e, ReBPEConfig(max_iterations=3)),
    ],
)
def test_before_and_every_step_score_the_same_words(tokeniser, entries, run):
    before = evaluate_morphology(tokeniser, entries)
    result = run(tokeniser, entries)
    assert result.steps
    for step in result.steps:
        assert (step.metrics.words, step.metrics.excluded) == (before.words, before.excluded)
    assert evaluate_morphology(result.tokeniser, entries) == result.steps[-1].metrics


def test_cli_reports_the_excluded_words(tokeniser, tmp_path, capsys):
    (tmp_path / "t.json").write_text(json.dumps(tokeniser.to_json()), encoding="utf-8")
    (tmp_path / "r.tsv").write_text(REFERENCE, encoding="utf-8")
    args = ["evaluate", "--tokeniser", str(tmp_path / "t.json"), "--reference", str(tmp_path / "r.tsv")]
    assert main(args) == 0
    assert "3 words; 1 excluded: cannot be aligned" in capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["excluded"] == 1
    assert main([*args, "--unaligned", "raise"]) == 2
    assert "ﬁne" in capsys.readouterr().err


@pytest.mark.parametrize("model", [{"byte_fallback": True}, {"unk_token": "<unk>", "fuse_unk": True}])
def test_unknown_characters_score_on_the_surface_segmentation(model):
    """Byte-fallback and unk tokens do not spell the word: both scoring paths place the tokens
    that do, and agree (a fuzzer once found an IndexError here)."""
    vocab = {"▁": 0, "a": 1, "b": 2, "ab": 3, "▁ab": 4, "<unk>": 5, "<0xC3>": 6, "<0xA9>": 7}
    data = json.dumps(
        {
            "model": {"type": "BPE", "vocab": vocab, "merges": ["a b", "▁ ab"], **model},
            "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        }
    ).encode()
    tokeniser = parse_tokeniser_bytes(data, "unknowns.json")
    entries = parse_references("abéab\tab é ab\néab\té ab\nab\tab\n", "r.tsv").entries
    scores = evaluate_morphology(tokeniser, entries)
    assert scores == TokenisedReference(tokeniser, entries).scores()
    assert (scores.words, scores.excluded) == (3, 0)
    assert (scores.tp, scores.fp, scores.fn) == (3, 0, 0)  # _ab|é|ab and é|ab: every split found
