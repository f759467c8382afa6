"""Unigram tokenisation (Kudo 2018) as described by [unigram] (Land & Pinter): training by EM
with loss-based or Flat Score Pruning, Viterbi segmentation, lattices and subword sampling
(SentencePiece ``.model`` files of unigram type: :mod:`core.formats.sentencepiece.unigram`)."""

from core.families.unigram.lattice import Arc, Lattice
from core.families.unigram.model import UnigramTokeniser
from core.families.unigram.options import SENTENCEPIECE, UnigramOptions
from core.families.unigram.trainer import train

__all__ = [
    "SENTENCEPIECE",
    "Arc",
    "Lattice",
    "UnigramOptions",
    "UnigramTokeniser",
    "train",
]
