"""Unigram tokenisation (Kudo 2018) as described by [unigram] (Land & Pinter): training by EM
with loss-based or Flat Score Pruning, Viterbi segmentation, lattices, subword sampling, and
SentencePiece ``.model`` files of unigram type."""

from core.unigram.lattice import Arc, Lattice
from core.unigram.model import UnigramTokeniser
from core.unigram.options import SENTENCEPIECE, UnigramOptions
from core.unigram.sentencepiece_model import load_sentencepiece_model, parse_sentencepiece_model
from core.unigram.trainer import train

__all__ = [
    "SENTENCEPIECE",
    "Arc",
    "Lattice",
    "UnigramOptions",
    "UnigramTokeniser",
    "load_sentencepiece_model",
    "parse_sentencepiece_model",
    "train",
]
