"""Unigram training options: every hyperparameter of [unigram Alg. 1] and every choice on which
the two reference implementations differ (reference-implementations.md §6).

Defaults are the paper's (Alg. 1 and §4: n_seed = beta_seed * n with beta_seed = 10, N_em = 2,
alpha_prune = 0.75, alpha_inter = 1.1, tau_mp = 0.5, digamma on, the pretoken seed without
recovery) and, where the paper leaves a choice open, those of its authors' code (script_tok):

- ``atoms="required"``: characters are never dropped (script_tok ``required``), so every
  pretoken can always be segmented. ``"prunable"`` is SentencePiece: the M-step and the pruning
  step may drop characters like any piece, a missing character is an unknown arc scored
  min_score - 10, and finalisation puts the corpus characters back (score min_score + k * 1e-4 in
  order of frequency, ``FinalizeSentencePieces``).
- ``size_basis="total"``: the paper's n_seed = beta * n, n_inter = alpha_inter * n,
  n_new = max(n_inter, alpha_prune * |V|) (also SentencePiece's). ``"additional"`` is
  script_tok: the factors apply to the non-character part (n_seed = A + beta (n - A),
  n_inter = A + alpha_inter (n - A), n_new = max(n_inter, m - floor((1 - alpha_prune) m)) with
  m = |V| - A, as ``prune_tokens`` computes it; A = number of characters).
- ``max_piece_length=16`` (SentencePiece ``max_sentencepiece_length``; script_tok counts 32
  atomic SCRIPT tokens).
- ``max_pretoken_length=4192`` (SentencePiece ``max_sentence_length``, 4192 bytes; script_tok
  has no limit): a longer pretoken (text without spaces, a run of one character) is cut into
  pieces of at most this many characters before seeding and EM. SentencePiece skips such a
  sentence instead; cutting keeps its text. It bounds the length of every lattice, so each
  forward-backward pass takes as many vectorised steps however long the corpus's lines are.
- ``split_by_script=False``: script_tok has no such rule; SentencePiece rejects seed pieces that
  mix Unicode scripts (``split_by_unicode_script``).

- ``stop_check="after_em"``: Alg. 1 (and SentencePiece up to 0.2.1) stops when the EM
  sub-iterations leave at most n_inter pieces, so the last pruning step is followed by EM.
  ``"after_prune"`` is SentencePiece 0.2.3 (``TrainDiscretePruning``): every round ends with a
  pruning step and the loop stops after the one that reaches n_inter; finalisation then ranks
  the scores of the EM before it. (0.2.3 also drops pieces whose best segmentation is not
  themselves before finalising, ``PruneUnreachableSentencePieces``; the pruning step has already
  removed those, and removing pieces cannot make another piece's alternative better.)
- ``seed``: ``"pretokens"`` (the paper's), ``"full_text"`` (SentencePiece on running text, or on
  TSV word counts when there are no documents) or ``"counted_text"`` (SentencePiece on the
  running text behind a counts file; :func:`core.families.unigram.seed.counted_text_seed`).

:data:`SENTENCEPIECE` is the set of options that emulates SentencePiece's trainer (from a counts
file, with ``seed="counted_text"``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal, get_args

from core.errors import InputError
from core.options import check_bool, check_choice, check_int, check_number

Pruning = Literal["loss", "fsp"]
Seed = Literal["pretokens", "full_text", "counted_text"]
Atoms = Literal["required", "prunable"]
StopCheck = Literal["after_em", "after_prune"]
SizeBasis = Literal["total", "additional"]
PRUNING = get_args(Pruning)
SEEDS = get_args(Seed)
ATOMS = get_args(Atoms)
STOP_CHECKS = get_args(StopCheck)
SIZE_BASES = get_args(SizeBasis)

#: SentencePiece's unigram trainer (0.2.3, the tested wheel) as far as it differs from the defaults.
SENTENCEPIECE = {
    "seed": "full_text",
    "seed_size": 1_000_000,
    "split_by_script": True,
    "atoms": "prunable",
    "size_basis": "total",
    "stop_check": "after_prune",
}


@dataclass(frozen=True)
class UnigramOptions:
    """See the module docstring; Greek names are those of [unigram Alg. 1]."""

    pruning: Pruning = "loss"  # "fsp": Flat Score Pruning in every round (§4.3)
    seed: Seed = "pretokens"  # "full_text": SentencePiece-style seed (Alg. 2); "counted_text": of counts
    seed_recovery: bool = False  # maximal valid prefix recovery (Alg. 3)
    seed_factor: float = 10.0  # beta_seed
    seed_size: int | None = None  # absolute n_seed (SentencePiece: 1e6); overrides seed_factor
    max_piece_length: int = 16  # l_max
    max_pretoken_length: int = 4192  # longer pretokens are cut (SentencePiece max_sentence_length)
    split_by_script: bool = False
    em_iterations: int = 2  # N_em
    alpha_prune: float = 0.75
    alpha_inter: float = 1.1
    min_expected_count: float = 0.5  # tau_mp, early prune in the M-step
    digamma: bool = True  # M-step p ~ exp(digamma(c)) instead of c (maximum likelihood)
    atoms: Atoms = "required"
    size_basis: SizeBasis = "total"
    max_rounds: int = 100  # script_tok max_iterations
    stop_check: StopCheck = "after_em"
    initial_alphabet: tuple[str, ...] = ()

    def __post_init__(self):
        owner = "UnigramOptions"
        check_choice("pruning", self.pruning, PRUNING, owner)
        check_choice("seed", self.seed, SEEDS, owner)
        check_choice("atoms", self.atoms, ATOMS, owner)
        check_choice("size_basis", self.size_basis, SIZE_BASES, owner)
        check_choice("stop_check", self.stop_check, STOP_CHECKS, owner)
        for name in ("seed_recovery", "split_by_script", "digamma"):
            check_bool(name, getattr(self, name), owner)
        check_int("max_piece_length", self.max_piece_length, 1, owner)
        check_int("max_pretoken_length", self.max_pretoken_length, 1, owner)
        check_int("em_iterations", self.em_iterations, 1, owner)
        check_int("max_rounds", self.max_rounds, 1, owner)
        if self.seed_size is not None:
            check_int("seed_size", self.seed_size, 1, owner)
        check_number("seed_factor", self.seed_factor, 1.0, owner=owner)
        check_number("alpha_prune", self.alpha_prune, 0.0, 1.0, high_open=True, owner=owner)
        check_number("alpha_inter", self.alpha_inter, 1.0, owner=owner)
        check_number("min_expected_count", self.min_expected_count, 0.0, owner=owner)
        alphabet = self.initial_alphabet
        if not isinstance(alphabet, (list, tuple)) or not all(isinstance(c, str) and len(c) == 1 for c in alphabet):
            raise InputError(f"UnigramOptions.initial_alphabet must be a list of single characters, got {alphabet!r}")
        object.__setattr__(self, "initial_alphabet", tuple(alphabet))

    def to_json(self) -> dict:
        out = asdict(self)
        out["initial_alphabet"] = list(self.initial_alphabet)
        return out
