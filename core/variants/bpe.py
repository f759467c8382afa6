"""Plain BPE/BTE behind the variant interface (:mod:`core.variants.base`).

Training is :func:`core.train_bpe.train_bpe` (HF-identical; Sennrich et al. 2016, Alg. 1); the
trace lists the merges in the order BTE segmentation applies them (bpe-knockout.txt §3.2).
"""
from __future__ import annotations

from core.model import BTETokeniser
from core.train_bpe import tokeniser_from_training, train_bpe
from core.variants.base import Trace, TraceEvent, TrainingCorpus, TrainingEvent, TrainingRun, initial_alphabet


def bte_trace(tokeniser: BTETokeniser, text: str) -> Trace:
    """Every merge applied while tokenising ``text``, pretoken by pretoken; ``extra["pretokens"]``
    holds each pretoken's full trace (merge trees, the merge behind every removed boundary)."""
    pretokens = tuple(tokeniser.pretokeniser.pretokenise(text))
    done: list[str] = []
    pending = [list(p) for p in pretokens]
    events = []
    traces = [tokeniser.trace_pretoken(p) for p in pretokens]
    for k, trace in enumerate(traces):
        for step in trace.steps:
            state = (*done, *step.tokens, *(t for rest in pending[k + 1:] for t in rest))
            events.append(TraceEvent("merge", f"{' + '.join(step.merge.parts)} (rank {step.merge.rank})",
                                     state, step.merge.rank))
        done.extend(trace.tokens)
    return Trace(text, pretokens, tuple(ch for p in pretokens for ch in p), tuple(events),
                 {"pretokens": [t.to_json() for t in traces]})


def train(corpus: TrainingCorpus, vocab_size: int, *, progress=None, min_frequency: int = 0) -> TrainingRun:
    """HF-identical BPE on the corpus's pretoken counts (with all 256 bytes in the alphabet of a
    byte-level tokeniser); one "merge" event per merge."""
    result = train_bpe(corpus.pretoken_counts, vocab_size, min_frequency=min_frequency, progress=progress,
                       initial_alphabet=initial_alphabet(corpus.pretokeniser))
    tokeniser = tokeniser_from_training(result, corpus.pretokeniser, name="bpe")
    base = len(result.alphabet) + len(result.special_tokens)
    events = tuple(TrainingEvent(i, "merge", f"{left} + {right}", count, base + i + 1)
                   for i, ((left, right), count) in enumerate(zip(result.merges, result.merge_counts)))
    return TrainingRun(tokeniser, events, {"merges": len(result.merges)})
