"""Plain BPE/BTE behind the family interface (:mod:`core.families.base`).

Training is :func:`core.bpe.trainer.train_bpe` (HF-identical; Sennrich et al. 2016, Alg. 1); the
tokeniser is a :class:`core.bpe.model.BTETokeniser`, whose trace lists the merges in the order BTE
segmentation applies them ([knockout §3.2]).
"""

from __future__ import annotations

from core.bpe.trainer import tokeniser_from_training, train_bpe
from core.counting.corpus import TrainingCorpus, initial_alphabet
from core.families.base import TrainingEvent, TrainingRun

#: what each option of :func:`train` means (``train --algorithm ... --list-options``); a test keeps
#: its keys equal to the keyword options of ``train``
OPTION_HELP: dict[str, str] = {
    "min_frequency": "pairs seen fewer times are never merged (HF BpeTrainer's min_frequency)",
}


def train(
    corpus: TrainingCorpus, vocab_size: int, *, progress=None, min_frequency: int = 0, checkpoint=None
) -> TrainingRun:
    """HF-identical BPE on the corpus's pretoken counts (with all 256 bytes in the alphabet of a
    byte-level tokeniser); one "merge" event per merge. ``checkpoint``: resume and record
    (:mod:`core.bpe.checkpoint`)."""
    result = train_bpe(
        corpus.pretoken_counts,
        vocab_size,
        min_frequency=min_frequency,
        progress=progress,
        checkpoint=checkpoint,
        initial_alphabet=initial_alphabet(corpus.pretokeniser),
    )
    tokeniser = tokeniser_from_training(result, corpus.pretokeniser, name="bpe")
    base = len(result.alphabet) + len(result.special_tokens)
    events = tuple(
        TrainingEvent(i, "merge", f"{left} + {right}", count, base + i + 1)
        for i, ((left, right), count) in enumerate(zip(result.merges, result.merge_counts, strict=True))
    )
    return TrainingRun(tokeniser, events, {"merges": len(result.merges)})
