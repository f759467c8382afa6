"""Resumable training (core.bpe.checkpoint): a run interrupted after some steps and resumed from
its checkpoint gives exactly the tokeniser of an uninterrupted run, for BPE and BoundlessBPE;
other checkpoints are refused with what differs, other trainers refuse --checkpoint."""

from __future__ import annotations

import itertools
import json

import pytest

from core import cli
from core.bpe.checkpoint import FILE, TrainingCheckpoint, fingerprint
from core.bpe.trainer import train_bpe
from core.cli import training
from core.counting.corpus import TrainingCorpus
from core.errors import InputError
from core.families import registry
from core.formats.samples import running_text
from core.formats.tokeniser_files import save_tokeniser

LINES = list(itertools.islice(running_text(), 300))
VOCAB = {"bpe": 900, "boundless": 700}


class Stop(KeyboardInterrupt):
    """Ctrl-C, pressed by a progress callback once ``done`` reaches ``after``."""


def stopping_at(after: int):
    def progress(done: int, total: int) -> None:
        if done >= after:
            raise Stop

    return progress


def corpus_of(algorithm: str) -> TrainingCorpus:
    return TrainingCorpus.from_texts(LINES, registry.default_pretokeniser(algorithm))


def checkpoint_in(folder, algorithm, corpus, vocab_size, **options):
    run = fingerprint(algorithm, corpus, vocab_size, {**registry.algorithm_options(algorithm), **options})
    return TrainingCheckpoint(folder, run, every=1e9)


def saved(run, path) -> str:
    save_tokeniser(run.tokeniser, path)
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("algorithm", ["bpe", "boundless"])
def test_an_interrupted_run_resumes_to_the_uninterrupted_result(algorithm, tmp_path):
    corpus, vocab = corpus_of(algorithm), VOCAB[algorithm]
    whole = registry.train(algorithm, corpus, vocab)
    checkpoint = checkpoint_in(tmp_path / "ck", algorithm, corpus, vocab)
    with pytest.raises(Stop):
        registry.train(algorithm, corpus, vocab, progress=stopping_at(200), checkpoint=checkpoint)
    steps = checkpoint.save()
    assert 200 <= steps < len(whole.events)

    resumed_checkpoint = checkpoint_in(tmp_path / "ck", algorithm, corpus_of(algorithm), vocab)
    assert len(resumed_checkpoint.operations) == steps
    resumed = registry.train(algorithm, corpus_of(algorithm), vocab, checkpoint=resumed_checkpoint)
    assert resumed.events == whole.events
    assert resumed.summary == whole.summary
    assert saved(resumed, tmp_path / "resumed.json") == saved(whole, tmp_path / "whole.json")


def test_boundless_checkpoints_hold_merges_and_supermerges_but_no_deletions(tmp_path):
    corpus = corpus_of("boundless")
    checkpoint = checkpoint_in(tmp_path, "boundless", corpus, 600)
    run = registry.train("boundless", corpus, 600, checkpoint=checkpoint)
    operations = checkpoint.source()
    assert {kind for kind, *_ in operations} == {"merge", "supermerge"}
    assert run.summary["deletions"] > 0
    assert len(operations) == run.summary["merges"] + run.summary["supermerges"]


def test_checkpoints_are_written_every_so_many_seconds(tmp_path):
    corpus = corpus_of("bpe")
    run = fingerprint("bpe", corpus, 900, registry.algorithm_options("bpe"))
    now = itertools.count()  # one second per reading of the clock
    checkpoint = TrainingCheckpoint(tmp_path, run, every=3, clock=lambda: next(now))
    seen: list[int] = []

    def progress(done, total):
        if (tmp_path / FILE).exists():
            seen.append(len(json.loads((tmp_path / FILE).read_text())["operations"]))

    result = registry.train("bpe", corpus, 900, progress=progress, checkpoint=checkpoint)
    assert seen and seen == sorted(seen) and seen[-1] < len(result.events)
    merges = [list(m.parts) for m in result.tokeniser.merges]
    written = json.loads((tmp_path / FILE).read_text())
    assert written["run"] == run and [op[:2] for op in written["operations"]] == merges[: len(written["operations"])]


def test_bpe_replay_stops_before_a_merge_that_forms_an_existing_token(tmp_path):
    """The merge ('a', 'b') forms the special token 'ab': the replay leaves it to the search."""
    words = {"abab": 7, "abc": 5, "cab": 4, "bca": 3, "cc": 2}
    whole = train_bpe(words, 12, special_tokens=["ab"])
    run = {"words": "test"}
    checkpoint = TrainingCheckpoint(tmp_path, run, every=1e9)
    with pytest.raises(Stop):
        train_bpe(words, 12, special_tokens=["ab"], progress=stopping_at(1), checkpoint=checkpoint)
    checkpoint.operations = [
        [left, right, count] for (left, right), count in zip(whole.merges, whole.merge_counts, strict=True)
    ]
    checkpoint.save()
    resumed = train_bpe(words, 12, special_tokens=["ab"], checkpoint=TrainingCheckpoint(tmp_path, run, every=1e9))
    assert resumed == whole


def test_a_checkpoint_of_another_run_is_refused_naming_what_differs(tmp_path):
    corpus = corpus_of("bpe")
    checkpoint = checkpoint_in(tmp_path, "bpe", corpus, 900)
    registry.train("bpe", corpus, 900, checkpoint=checkpoint)
    checkpoint.save()
    with pytest.raises(InputError, match=r"vocab_size 1000 here, 900 in the checkpoint"):
        checkpoint_in(tmp_path, "bpe", corpus, 1000)
    with pytest.raises(InputError, match=r"corpus"):
        checkpoint_in(tmp_path, "bpe", TrainingCorpus.from_texts(LINES[:-1], corpus.pretokeniser), 900)
    with pytest.raises(InputError, match=r"options .*min_frequency.* 2"):
        checkpoint_in(tmp_path, "bpe", corpus, 900, min_frequency=2)


def test_a_damaged_checkpoint_is_refused(tmp_path):
    (tmp_path / FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not a training checkpoint"):
        checkpoint_in(tmp_path, "bpe", corpus_of("bpe"), 900)


@pytest.mark.parametrize("algorithm", ["unigram", "picky", "scaffold", "unigram-fsp"])
def test_other_trainers_say_they_cannot_resume(algorithm, tmp_path):
    corpus = corpus_of(algorithm)
    checkpoint = TrainingCheckpoint(tmp_path, {"algorithm": algorithm}, every=1e9)
    with pytest.raises(InputError, match=f"cannot resume {algorithm} training: .*restarts from the beginning"):
        registry.train(algorithm, corpus, 600, checkpoint=checkpoint)


def train_command(tmp_path, out, *extra):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return ["train", "--algorithm", "bpe", "--corpus", str(corpus), "--vocab-size", "900", "--out", str(out), *extra]


def test_the_command_saves_on_ctrl_c_and_resumes(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "ck"
    assert cli.main(train_command(tmp_path, tmp_path / "whole.json")) == 0

    class InterruptedBar(training.ProgressBar):
        def __call__(self, done, total):
            super().__call__(done, total)
            if done >= 300:
                raise Stop

    with monkeypatch.context() as patch:
        patch.setattr(training, "ProgressBar", InterruptedBar)
        assert cli.main(train_command(tmp_path, tmp_path / "resumed.json", "--checkpoint", str(folder))) == 130
    message = capsys.readouterr().err
    steps = len(json.loads((folder / FILE).read_text())["operations"])
    assert f"interrupted after {steps} merges; checkpoint saved in {folder}: run the same command to resume" in message
    assert not (tmp_path / "resumed.json").exists()

    assert cli.main(train_command(tmp_path, tmp_path / "resumed.json", "--checkpoint", str(folder))) == 0
    assert (tmp_path / "resumed.json").read_text() == (tmp_path / "whole.json").read_text().replace("whole", "resumed")


def test_the_command_refuses_a_checkpoint_for_unigram(tmp_path, capsys):
    command = train_command(tmp_path, tmp_path / "u.json", "--checkpoint", str(tmp_path / "ck"))
    command[2] = "unigram"
    assert cli.main(command) == 2
    assert "cannot resume unigram training" in capsys.readouterr().err
    assert not (tmp_path / "ck").exists()


def test_the_command_refuses_a_checkpoint_interval_of_zero(tmp_path, capsys):
    command = train_command(
        tmp_path, tmp_path / "b.json", "--checkpoint", str(tmp_path / "ck"), "--checkpoint-every", "0"
    )
    assert cli.main(command) == 2
    assert "must be a positive number of seconds, got 0" in capsys.readouterr().err
