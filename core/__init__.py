"""Core engine for structured subword tokenisers (BPE/BTE, knockout, ReBPE, ...), and its Python API.

UI-free: nothing here imports streamlit, plotly or pyvis. Every name in ``__all__`` is importable
from ``core``; each is loaded on first use, so ``import core`` stays fast. A session::

    from pathlib import Path
    import core
    tok = core.load_tokeniser("sample_data/tokenisers/bpe-40k_oscar-nl-clean/tokenizer.json")
    trace = tok.trace_text(" bruidsjurk")  # as in running text; trace.tokens, trace.events
    word = tok.tokenise_word("bruidsjurk")  # a word inside running text, as `segment` prints it: Ġbruids jurk
    text = tok.tokenise("bruidsjurk")  # a text that starts with the word, as HF encodes it: bru ids jurk
    entries = core.load_references("sample_data/references/nl_morph.tsv").entries
    knocked = core.run_knockout(tok, entries, core.KnockoutConfig(threshold=0.5))  # [knockout §3]
    rebpe = core.run_rebpe(tok, entries, core.ReBPEConfig())  # [rebpe Alg. 1]; .steps: every phase
    print(core.evaluate_morphology(rebpe.tokeniser, entries).summary())
    run = core.train("bpe", core.load_word_counts("sample_data/counts/en_wordfreq.tsv"), 1000)
    Path("out").mkdir(exist_ok=True)
    core.save_tokeniser(run.tokeniser, "out/en-bpe-1k.json")  # project JSON; hf=True: tokenizer.json
    binary, how = core.finish(knocked.tokeniser, "cascade")  # tuple merges settled for HF
    core.write_hf_folder(binary, "out/nl-knockout-hf", "sample_data/tokenisers/bpe-40k_oscar-nl-clean")

``viz.notebook`` draws traces, merge trees, merge graphs and Unigram lattices inline in Jupyter.
The reference of every name is ``docs/api.md``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # what the lazy loader below hands out, for type checkers and editors
    from core.analysis.explain import explain_word, trace_word
    from core.analysis.summary import summarise
    from core.bpe.graph import neighbourhood
    from core.bpe.model import BTETokeniser, Merge
    from core.counting.corpus import TrainingCorpus
    from core.edits.blocked import find_blocked_merges
    from core.edits.finishing import finish
    from core.edits.id_compaction import compact_ids
    from core.edits.knockout import knock_out
    from core.edits.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig, run_knockout, run_rebpe
    from core.edits.removal import least_frequent_types
    from core.edits.steps import StepReport
    from core.errors import InputError
    from core.families.base import TrainingRun
    from core.families.registry import algorithm_options
    from core.formats.corpora import iter_text_lines, load_word_counts
    from core.formats.hf_folder import write_hf_folder
    from core.formats.tokeniser_files import load_tokeniser, save_tokeniser
    from core.pipeline.base import Pretokeniser
    from core.references.evaluation import MorphScores, evaluate_morphology
    from core.references.files import ReferenceEntry, load_references
    from core.tokeniser import Tokeniser, require
    from core.trace import Trace, TraceEvent

#: public name -> the module that defines it (imported on first use)
_EXPORTS = {
    "AnnealConfig": "core.edits.rebpe",
    "BTETokeniser": "core.bpe.model",
    "InputError": "core.errors",
    "KnockoutConfig": "core.edits.rebpe",
    "Merge": "core.bpe.model",
    "MorphScores": "core.references.evaluation",
    "ReBPEConfig": "core.edits.rebpe",
    "ReferenceEntry": "core.references.files",
    "StepReport": "core.edits.steps",
    "Tokeniser": "core.tokeniser",
    "Trace": "core.trace",
    "TraceEvent": "core.trace",
    "TrainingCorpus": "core.counting.corpus",
    "TrainingRun": "core.families.base",
    "algorithm_options": "core.families.registry",
    "compact_ids": "core.edits.id_compaction",
    "evaluate_morphology": "core.references.evaluation",
    "explain_word": "core.analysis.explain",
    "find_blocked_merges": "core.edits.blocked",
    "finish": "core.edits.finishing",
    "iter_text_lines": "core.formats.corpora",
    "knock_out": "core.edits.knockout",
    "least_frequent_types": "core.edits.removal",
    "load_references": "core.references.files",
    "load_tokeniser": "core.formats.tokeniser_files",
    "load_word_counts": "core.formats.corpora",
    "neighbourhood": "core.bpe.graph",
    "require": "core.tokeniser",
    "run_knockout": "core.edits.rebpe",
    "run_rebpe": "core.edits.rebpe",
    "save_tokeniser": "core.formats.tokeniser_files",
    "summarise": "core.analysis.summary",
    "trace_word": "core.analysis.explain",
    "write_hf_folder": "core.formats.hf_folder",
}

__all__ = [
    "AnnealConfig",
    "BTETokeniser",
    "InputError",
    "KnockoutConfig",
    "Merge",
    "MorphScores",
    "ReBPEConfig",
    "ReferenceEntry",
    "StepReport",
    "Tokeniser",
    "Trace",
    "TraceEvent",
    "TrainingCorpus",
    "TrainingRun",
    "__version__",
    "algorithm_options",
    "compact_ids",
    "evaluate_morphology",
    "explain_word",
    "find_blocked_merges",
    "finish",
    "iter_text_lines",
    "knock_out",
    "least_frequent_types",
    "load_references",
    "load_tokeniser",
    "load_word_counts",
    "neighbourhood",
    "require",
    "run_knockout",
    "run_rebpe",
    "save_tokeniser",
    "summarise",
    "trace_word",
    "train",
    "write_hf_folder",
]


def __getattr__(name: str) -> Any:
    """PEP 562: import a public name's module when the name is first used."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (what tab completion offers)."""
    return list(__all__)


def train(
    algorithm: str,
    corpus: TrainingCorpus | Mapping[str, int] | Iterable[str] | str | os.PathLike,
    vocab_size: int,
    *,
    pretokeniser: Pretokeniser | str | None = None,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> TrainingRun:
    """Train ``algorithm`` (bpe, scaffold, picky, boundless, unigram, unigram-fsp) to ``vocab_size``
    types, as ``python -m core train`` does; the run's ``tokeniser`` is the result.

    ``corpus``: a :class:`TrainingCorpus`, word counts (word -> count, each word as in running
    text), texts (one document each), or the path of a counts ``.parquet`` written by ``python -m
    core count``. ``pretokeniser``: an object or a name (bytelevel, boundless, metaspace,
    whitespace); default the algorithm's own (a counts file's own, which a given one must equal).
    ``options``: see :func:`algorithm_options`.
    """
    from core.counting.corpus import TrainingCorpus
    from core.errors import InputError
    from core.families import registry

    registry.check_algorithm(algorithm)
    if isinstance(corpus, TrainingCorpus):
        if pretokeniser is not None:
            raise InputError("a TrainingCorpus is already pre-tokenised: pass it without a pretokeniser")
        return registry.train(algorithm, corpus, vocab_size, progress=progress, **options)
    if registry.is_counts_file(corpus):
        prepared = registry.counts_corpus(algorithm, corpus, pretokeniser)
        return registry.train(algorithm, prepared, vocab_size, progress=progress, **options)
    if isinstance(corpus, (str, os.PathLike)):
        raise InputError(
            "train takes texts or word counts (or the path of a counts .parquet), not a path or a single string: "
            "pass core.load_word_counts(path) for a word<TAB>count file, core.iter_text_lines(path) for a corpus "
            "with one document per line, or [text] for one document"
        )
    prepared = registry.training_corpus(algorithm, corpus, pretokeniser)
    return registry.train(algorithm, prepared, vocab_size, progress=progress, **options)
