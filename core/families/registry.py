"""Every tokeniser family in one table: algorithm names -> trainers, saved formats -> classes.

No paper section: plumbing for ``train --algorithm``, ``segment`` and the explorer pages. Modules
are imported on first use, so loading one family never pays for the others.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Iterable, Mapping
from typing import TypeGuard

from core.counting.corpus import TrainingCorpus
from core.errors import InputError, excerpt
from core.families.base import TrainingRun
from core.gc_pause import cyclic_gc_paused
from core.options import check_iterable, check_word_counts, described
from core.pipeline.base import Pretokeniser
from core.pipeline.named import PRETOKENISERS, named_pretokeniser
from core.tokeniser import Tokeniser, check_pretokeniser

#: algorithm -> (module with ``train``, fixed options, description)
ALGORITHMS: dict[str, tuple[str, dict, str]] = {
    "bpe": ("core.families.bpe", {}, "BPE (Sennrich et al. 2016; merges identical to HF tokenizers)"),
    "scaffold": ("core.families.scaffold", {}, "Scaffold-BPE ([scaffold Alg. 1-2])"),
    "picky": ("core.families.picky", {}, "PickyBPE ([rebpe §2.1]; IoS removal during training)"),
    "boundless": ("core.families.boundless.trainer", {}, "BoundlessBPE ([boundless]; supermerges across pretokens)"),
    "unigram": ("core.families.unigram.trainer", {"pruning": "loss"}, "Unigram ([unigram Alg. 1]; loss-based pruning)"),
    "unigram-fsp": (
        "core.families.unigram.trainer",
        {"pruning": "fsp"},
        "Unigram with Flat Score Pruning ([unigram §4])",
    ),
}


def default_pretokeniser(algorithm: str) -> Pretokeniser:
    """BoundlessBPE's own pattern for BoundlessBPE ([boundless App. A]), GPT-2 byte-level
    pre-tokenisation for the others."""
    return PRETOKENISERS["boundless" if algorithm == "boundless" else "bytelevel"]()


def _named(pretokeniser: Pretokeniser | str) -> Pretokeniser:
    """A pre-tokeniser object, or the one a name of :data:`core.pipeline.named.CHOICES` names."""
    check_pretokeniser(pretokeniser, names=True)
    return named_pretokeniser(pretokeniser) if isinstance(pretokeniser, str) else pretokeniser


def is_counts_file(corpus: object) -> TypeGuard[str | os.PathLike]:
    """Whether ``corpus`` is the path of a counts file written by ``count`` (ending in .parquet)."""
    return isinstance(corpus, (str, os.PathLike)) and os.fspath(corpus).lower().endswith(".parquet")


def counts_corpus(
    algorithm: str, path: str | os.PathLike, pretokeniser: Pretokeniser | str | None = None
) -> TrainingCorpus:
    """The training corpus of a counts file (:mod:`core.counting.count_files`); ``pretokeniser``,
    if given, must be the one it was counted with. BoundlessBPE needs the file's supermerge runs."""
    from core.counting.count_files import load_counts

    check_algorithm(algorithm)
    corpus = load_counts(path, None if pretokeniser is None else _named(pretokeniser))
    if algorithm == "boundless" and corpus.sequences is None:
        raise InputError(
            "no supermerge runs in this counts file, and BoundlessBPE needs them: count the corpus again "
            "with --sequences (count_corpus(..., sequences=True))",
            os.fspath(path),
        )
    return corpus


def training_corpus(
    algorithm: str,
    corpus: Mapping[str, int] | Iterable[str] | str | os.PathLike,
    pretokeniser: Pretokeniser | str | None = None,
) -> TrainingCorpus:
    """Word counts (word -> count, each word as in running text) or texts (one document each),
    pre-tokenised by ``pretokeniser`` (an object or a name of :data:`core.pipeline.named.CHOICES`; default the
    algorithm's own); or the path of a counts file (:func:`counts_corpus`)."""
    check_algorithm(algorithm)
    if is_counts_file(corpus):
        return counts_corpus(algorithm, corpus, pretokeniser)
    if isinstance(corpus, os.PathLike):
        raise InputError("expected a counts file written by count (.parquet), texts or word counts", os.fspath(corpus))
    if isinstance(corpus, Mapping):
        return TrainingCorpus.from_word_counts(check_word_counts(corpus), _chosen(algorithm, pretokeniser))
    if not isinstance(corpus, str):  # one string is one document (TrainingCorpus.from_texts)
        check_iterable(corpus, "corpus", "texts (str), or word counts, or the path of a counts .parquet")
    return TrainingCorpus.from_texts(corpus, _chosen(algorithm, pretokeniser))


def _chosen(algorithm: str, pretokeniser: Pretokeniser | str | None) -> Pretokeniser:
    return _named(pretokeniser) if pretokeniser is not None else default_pretokeniser(algorithm)


def check_algorithm(algorithm: str) -> str:
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {excerpt(algorithm)}; choose one of {', '.join(ALGORITHMS)}")
    return algorithm


def algorithm_options(algorithm: str) -> dict[str, object]:
    """The options ``algorithm``'s trainer takes, with their defaults."""
    module, fixed, _ = ALGORITHMS[check_algorithm(algorithm)]
    parameters = inspect.signature(importlib.import_module(module).train).parameters
    return {
        name: p.default
        for name, p in parameters.items()
        if p.kind is p.KEYWORD_ONLY and name not in ("progress", "checkpoint") and name not in fixed
    }


def option_help(algorithm: str) -> dict[str, str]:
    """What each option of ``algorithm``'s trainer means (its module's ``OPTION_HELP``)."""
    module, _, _ = ALGORITHMS[check_algorithm(algorithm)]
    return importlib.import_module(module).OPTION_HELP


def train(
    algorithm: str, corpus: TrainingCorpus, vocab_size: int, *, progress=None, checkpoint=None, **options
) -> TrainingRun:
    """Train ``algorithm`` on ``corpus`` to ``vocab_size`` types; InputError for an unknown option.
    ``checkpoint``: a :class:`core.bpe.checkpoint.TrainingCheckpoint`, for the trainers that can
    resume (InputError for the others)."""
    if not isinstance(corpus, TrainingCorpus):
        raise InputError(f"corpus must be a TrainingCorpus (training_corpus(...)), got {described(corpus)}")
    known = algorithm_options(algorithm)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InputError(f"{algorithm} has no option {', '.join(unknown)}; its options: {', '.join(known) or 'none'}")
    module, fixed, _ = ALGORITHMS[algorithm]
    trainer = importlib.import_module(module).train
    if checkpoint is not None:
        check_resumable(algorithm)
        options["checkpoint"] = checkpoint
    with cyclic_gc_paused():  # trainers hold millions of small containers and make no cycles
        return trainer(corpus, vocab_size, progress=progress, **fixed, **options)


def check_resumable(algorithm: str) -> None:
    """InputError unless ``algorithm``'s trainer can resume from a checkpoint (takes ``checkpoint``)."""
    module, _, _ = ALGORITHMS[check_algorithm(algorithm)]
    if "checkpoint" not in inspect.signature(importlib.import_module(module).train).parameters:
        from core.bpe.checkpoint import cannot_resume

        raise cannot_resume(algorithm)


#: saved ``format`` -> (module, class name); the class has ``from_json(obj, source)``.
SAVED_FORMATS: dict[str, tuple[str, str]] = {
    "bte-tokeniser": ("core.bpe.model", "BTETokeniser"),
    "variant:scaffold": ("core.families.scaffold", "ScaffoldBPE"),
    "variant:picky": ("core.families.picky", "PickyBPE"),
    "variant:boundless": ("core.families.boundless.model", "BoundlessBPE"),
    "variant:unigram": ("core.families.unigram.model", "UnigramTokeniser"),
    "variant:trimmed": ("core.families.trimmed", "TrimmedBPE"),
    "variant:dropout": ("core.families.dropout", "DropoutBPE"),
}


def from_saved_json(obj, source: str) -> Tokeniser:
    """The tokeniser a saved project file describes (any family); InputError naming ``source``."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", source)
    format_ = obj.get("format")
    spec = SAVED_FORMATS.get(format_) if isinstance(format_, str) else None
    if spec is None:
        raise InputError(f"unknown tokeniser format {excerpt(format_)}; known: {', '.join(SAVED_FORMATS)}", source)
    module, name = spec
    return getattr(importlib.import_module(module), name).from_json(obj, source)
