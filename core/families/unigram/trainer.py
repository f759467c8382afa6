"""Unigram training: [unigram Algorithm 1] ("SentencePiece Implementation") line by line.

    Initialize V <- V_seed(C, n_seed)                          :func:`train` via core.families.unigram.seed
    n_inter <- alpha_inter * n
    loop:
        N_em times: E-step (forward-backward expected counts)  :meth:`Trainer.e_step`
                    fast prune (c < tau_mp), M-step (digamma)  :meth:`Trainer.m_step`
        if |V| <= n_inter: break                               (option stop_check="after_em")
        n_new <- max(n_inter, alpha_prune * |V|)               :meth:`Trainer.prune_target`
        prune to n_new by loss (§3.3) or flat score (§4.3)    :meth:`Trainer.prune`
        (stop_check="after_prune", SentencePiece 0.2.3: the size test comes here instead)
    finalise: Flat Score Pruning to n (§3.4)                   :meth:`Trainer.finalise`

E-step (§3.2): expected count c_j = sum over pretokens of count x posterior of every arc of
piece j; the objective is Eq. 2, -sum count * log Z / sum count * |pretoken| (marginal NLL per
atomic token, i.e. per character of the pretokens); ``tokens`` is the count-weighted number of
Viterbi tokens. M-step: pieces with c_j < tau_mp are removed (never the required characters),
counts are clamped at 0.01 (script_tok ``MIN_EXPECTED_COUNT``) and
log p_j = digamma(c_j) - digamma(sum c) (SentencePiece's Bayesian EM) or log(c_j / sum c).

Pruning (§3.3, SentencePiece ``PruneSentencePieces``, script_tok ``prune_tokens``): Viterbi over
the corpus gives every piece's usage f_i; a piece whose own best segmentation is not itself
(or f_i = 0) is removed; a piece with no other segmentation is kept; for the others the
alternative is the Viterbi path over the piece's own string without the singleton, and
loss_i = (f_i / F) * (log p_i - log p_alt) with log p_i = log(f_i / F),
log p_alt = sum_{a in alt} log(f_a + f_i) - |alt| log(F + f_i (|alt| - 1)), F = sum f. The
pieces with the highest loss are kept (ties: seed order). With ``pruning="fsp"`` every round
keeps the highest log p instead (Flat Score Pruning).

Options and their provenance: :mod:`core.families.unigram.options`. Pretokens longer than
``max_pretoken_length`` are cut before everything else (:func:`cut_long_pretokens`), as
SentencePiece leaves out sentences longer than its ``max_sentence_length``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import numpy as np

from core.bpe.trainer import _collect_word_counts
from core.counting.corpus import TrainingCorpus
from core.counting.corpus import initial_alphabet as byte_alphabet
from core.deadline import Heartbeat
from core.errors import InputError
from core.families.base import TrainingEvent, TrainingRun
from core.families.unigram.batch import Lattices
from core.families.unigram.options import Atoms, Pruning, Seed, SizeBasis, StopCheck, UnigramOptions
from core.families.unigram.seed import (
    PieceRules,
    char_counts,
    counted_text_seed,
    full_text_seed,
    pretoken_seed,
    select_seed,
)
from core.options import check_int

#: SentencePiece's penalty for an unknown character: its arc scores min_score - UNK_PENALTY.
UNK_PENALTY = 10.0
#: script_tok clamps expected counts before the M-step (digamma(0) would be -inf).
MIN_CLAMPED_COUNT = 0.01
#: SentencePiece ``kMinScorePenaltyDelta`` for characters put back at finalisation.
MIN_SCORE_PENALTY_DELTA = 1e-4


def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) for x > 0: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the
    asymptotic series (absolute error below 1e-13)."""
    x = np.array(x, dtype=np.float64)
    out = np.zeros_like(x)
    small = x < 10
    while small.any():
        out[small] -= 1.0 / x[small]
        x[small] += 1.0
        small = x < 10
    inv2 = 1.0 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return out + np.log(x) - 0.5 / x - series


class EStep:
    """Expected counts per piece id, Eq. 2 objective, Viterbi token count."""

    def __init__(self, expected: np.ndarray, objective: float, tokens: float):
        self.expected, self.objective, self.tokens = expected, objective, tokens


class Trainer:
    """The state of Alg. 1: pieces (ids = seed order), their log p, which are alive."""

    def __init__(
        self,
        counts: dict[str, int],
        seed: dict[str, float],
        options: UnigramOptions,
        characters: dict[str, int] | None = None,
        beat: Heartbeat | None = None,
    ):
        """``characters``: every character with its frequency (default: those of ``counts``
        and ``options.initial_alphabet``); one missing from ``seed`` starts out dropped.
        ``beat`` hears the work of the lattice passes."""
        self.options = options
        chars = characters if characters is not None else corpus_characters(counts, options)
        seed = {**seed, **{ch: -np.inf for ch in chars if ch not in seed}}
        self.pieces = list(seed)
        self.ids = {p: i for i, p in enumerate(self.pieces)}
        self.logp = np.array([seed[p] for p in self.pieces], dtype=np.float64)
        self.alive = np.isfinite(self.logp)
        self.is_char = np.array([len(p) == 1 for p in self.pieces])
        self.required = self.is_char & (options.atoms == "required")
        #: finalisation order of the characters: frequency descending, then code point
        self.char_order = sorted(chars, key=lambda c: (-chars[c], c))
        words = list(counts)
        self.weight = np.array([counts[w] for w in words], dtype=np.float64)
        self.atoms_total = float(sum(counts[w] * len(w) for w in words))
        self.beat = beat or Heartbeat(None)
        self.corpus = Lattices(words, self.ids, options.max_piece_length, self.beat)
        self._pieces_lattice: tuple[Lattices, np.ndarray] | None = None

    @property
    def size(self) -> int:
        return int(self.alive.sum())

    def vocabulary(self) -> dict[str, float]:
        return {self.pieces[i]: float(self.logp[i]) for i in np.flatnonzero(self.alive)}

    # --- lattices over the corpus -----------------------------------------------------------------
    def _scores(self) -> np.ndarray:
        """The score of every piece's arcs: log p, or for a character that is no piece the
        unknown score (SentencePiece atoms only; -inf otherwise). Arcs of pieces that are gone
        (characters excepted) are dropped from the corpus lattices for good."""
        self.corpus.keep(self.alive | self.is_char)
        unk = float(self.logp[self.alive].min()) - UNK_PENALTY
        unknown = np.where(self.is_char & (self.options.atoms == "prunable"), unk, -np.inf)
        return np.where(self.alive, self.logp, unknown)

    def e_step(self) -> EStep:
        score = self._scores()
        expected, log_z = self.corpus.marginals(score, self.weight)
        expected[~self.alive] = 0.0
        objective = float(-(self.weight * log_z).sum() / self.atoms_total)
        _, owners, _ = self.corpus.viterbi(score)
        return EStep(expected, objective, float(self.weight[owners].sum()))

    def m_step(self, expected: np.ndarray) -> int:
        """Early prune (c < tau_mp) and re-estimate log p; returns the number of pieces dropped."""
        drop = self.alive & ~self.required & (expected < self.options.min_expected_count)
        self.alive &= ~drop
        counts = np.maximum(expected[self.alive], MIN_CLAMPED_COUNT)
        total = counts.sum()
        logp = digamma(counts) - digamma(np.array(total)) if self.options.digamma else np.log(counts / total)
        self.logp[:] = -np.inf
        self.logp[self.alive] = logp
        return int(drop.sum())

    # --- pruning -------------------------------------------------------------------------------------
    def prune_target(self, n_inter: int) -> int:
        size, opts = self.size, self.options
        if opts.size_basis == "total":
            return max(n_inter, int(opts.alpha_prune * size))
        additional = size - int(self.is_char[self.alive].sum())
        return max(n_inter, additional - int(additional * (1 - opts.alpha_prune)))

    def usage(self) -> np.ndarray:
        """Count-weighted number of times each piece is on a Viterbi path of the corpus."""
        _, owners, pieces = self.corpus.viterbi(self._scores())
        known = self.alive[pieces]
        return np.bincount(pieces[known], self.weight[owners[known]], minlength=len(self.pieces))

    def alternatives(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every piece, the best segmentation of its own string without itself: (log p of
        that path, -inf when none), and the paths as parallel arrays (piece, alternative piece).
        The lattices of the pieces alive at the first call are built once; later vocabularies
        are subsets of it."""
        if self._pieces_lattice is None:
            alive = np.flatnonzero(self.alive)
            strings = [self.pieces[i] for i in alive]
            lattice = Lattices(
                strings, dict(zip(strings, alive, strict=True)), self.options.max_piece_length, self.beat, whole=False
            )
            self._pieces_lattice = (lattice, alive)
        lattice, string_piece = self._pieces_lattice
        lattice.keep(self.alive, self.alive[string_piece])
        best, owners, pieces = lattice.viterbi(np.where(self.alive, self.logp, -np.inf))
        alt_logp = np.full(len(self.pieces), -np.inf)
        alt_logp[string_piece] = best
        return alt_logp, string_piece[owners], pieces

    def pruning_losses(self) -> tuple[np.ndarray, np.ndarray]:
        """(loss of every piece, which pieces are candidates for removal by loss). Pieces that
        are not candidates are removed outright when unused or not their own best
        segmentation (``self.alive`` is updated), kept otherwise (required, or no alternative)."""
        freq = self.usage()
        alt_logp, alt_owner, alt_piece = self.alternatives()
        total = freq[self.alive].sum()
        has_alt = np.isfinite(alt_logp)
        optional = self.alive & ~self.required
        self.alive &= ~(optional & ((freq == 0) | (has_alt & (alt_logp > self.logp))))
        candidate = self.alive & ~self.required & has_alt
        f_alt = freq[alt_piece] + freq[alt_owner]
        sum_log = np.bincount(alt_owner, np.log(np.maximum(f_alt, 1e-300)), minlength=len(self.pieces))
        n_alt = np.bincount(alt_owner, minlength=len(self.pieces))
        with np.errstate(divide="ignore", invalid="ignore"):
            logp_piece = np.log(freq) - math.log(total)
            logp_alt = sum_log - n_alt * np.log(total + freq * (n_alt - 1))
            loss = np.where(candidate, (freq / total) * (logp_piece - logp_alt), np.nan)
        return loss, candidate

    def prune(self, target: int) -> int:
        """One pruning step to ``target`` pieces; returns the number removed."""
        before = self.size
        if self.options.pruning == "fsp":
            self._keep_best(self.logp, target)
        else:
            loss, candidate = self.pruning_losses()
            self._keep_best(np.where(candidate, loss, np.inf), target, fixed=self.alive & ~candidate, by_string=False)
        return before - self.size

    def _keep_best(
        self, value: np.ndarray, target: int, fixed: np.ndarray | None = None, by_string: bool = True
    ) -> None:
        """Keep ``fixed`` (default: the required pieces), then the highest ``value`` until
        ``target`` pieces (ties: piece string, or seed order)."""
        fixed = self.required & self.alive if fixed is None else fixed
        rest = np.flatnonzero(self.alive & ~fixed)
        tie = [self.pieces[i] for i in rest] if by_string else rest
        order = sorted(range(len(rest)), key=lambda k: (-value[rest[k]], tie[k]))
        room = max(0, target - int(fixed.sum()))
        self.alive[:] = fixed
        self.alive[rest[order[:room]]] = True
        self.logp[~self.alive] = -np.inf

    def finalise(self, vocab_size: int) -> None:
        """§3.4 (SentencePiece ``FinalizeSentencePieces``): the characters first (a dropped one
        scores min_score + k * 1e-4, k = 0, 1, ... in frequency order), then the highest log p."""
        min_score = float(self.logp[self.alive].min())
        penalty = 0.0
        for ch in self.char_order:
            i = self.ids[ch]
            if not self.alive[i]:
                self.alive[i] = True
                self.logp[i] = min_score + penalty
                penalty += MIN_SCORE_PENALTY_DELTA
            self.required[i] = True
        self._keep_best(self.logp, vocab_size)


# --- the whole of Algorithm 1 ------------------------------------------------------------------------
def seed_vocabulary(
    corpus: TrainingCorpus,
    counts: dict[str, int],
    vocab_size: int,
    options: UnigramOptions,
    beat: Heartbeat | None = None,
    characters: dict[str, int] | None = None,
) -> dict[str, float]:
    """V_seed(C, n_seed) with log p = log(score / sum of scores); ``characters`` as
    :func:`corpus_characters` gives them (computed when not given)."""
    rules = PieceRules(options.max_piece_length, options.split_by_script, corpus.pretokeniser.marker)
    atoms = len(characters if characters is not None else corpus_characters(counts, options))
    if options.seed_size is not None:
        size = options.seed_size
    elif options.size_basis == "total":
        size = int(options.seed_factor * vocab_size)
    else:
        size = atoms + int(options.seed_factor * (vocab_size - atoms))
    if options.seed == "pretokens":
        candidates = pretoken_seed(counts, rules, options.seed_recovery, beat)
    elif options.seed == "counted_text":
        candidates = counted_text_seed(counts, rules, options.seed_recovery, beat, limit=size)
    else:
        candidates = full_text_seed(counts, corpus.documents, rules, options.seed_recovery, beat, limit=size)
    return select_seed(candidates, size, options.initial_alphabet)


def cut_long_pretokens(counts: dict[str, int], documents, limit: int) -> tuple[dict[str, int], tuple | None]:
    """The corpus C of Alg. 1 as (counts, documents) with every pretoken longer than ``limit``
    characters cut into pieces of ``limit`` characters (the last one shorter); unchanged when
    none is that long (option ``max_pretoken_length``, :mod:`core.families.unigram.options`)."""
    if all(len(p) <= limit for p in counts):
        return counts, documents

    def cut(pretoken: str) -> list[str]:
        return [pretoken[i : i + limit] for i in range(0, len(pretoken), limit)]

    cut_counts: Counter[str] = Counter()
    for pretoken, count in counts.items():
        for piece in cut(pretoken):
            cut_counts[piece] += count
    if documents is not None:
        documents = tuple(tuple(piece for p in d for piece in cut(p)) for d in documents)
    return dict(cut_counts), documents


def corpus_statistics(tokeniser, counts: dict[str, int]) -> tuple[float, float]:
    """(Eq. 2 objective, Viterbi token count) of a :class:`UnigramTokeniser` on pretoken counts;
    characters that are not pieces are unknown arcs scored as the tokeniser scores them (each
    counts as one token here, where ``tokenise`` joins runs of them)."""
    options = UnigramOptions(atoms="prunable", max_piece_length=tokeniser.max_piece_length)
    stats = Trainer(_collect_word_counts(counts), tokeniser.pieces, options).e_step()
    return stats.objective, stats.tokens


def inter_size(vocab_size: int, atoms: int, options: UnigramOptions) -> int:
    if options.size_basis == "total":
        return int(options.alpha_inter * vocab_size)
    return atoms + int(options.alpha_inter * (vocab_size - atoms))


def corpus_characters(counts: dict[str, int], options: UnigramOptions) -> dict[str, int]:
    """Every character of the corpus with its count, plus ``initial_alphabet`` (count 0)."""
    chars = char_counts(counts)
    for ch in options.initial_alphabet:
        chars.setdefault(ch, 0)
    return chars


_DEFAULT = UnigramOptions()


#: what each option of :func:`train` means (``train --algorithm ... --list-options``); a test keeps
#: its keys equal to the keyword options of ``train``
OPTION_HELP: dict[str, str] = {
    "seed": "seed candidates: pretokens (suffixes of the unique pretokens), full_text (SentencePiece) or "
    "counted_text (SentencePiece's seed of the text behind a counts file)",
    "seed_recovery": "maximal valid prefix recovery in the seed [unigram Alg. 3]",
    "seed_factor": "β_seed: seed size = β_seed × vocabulary size [unigram Alg. 1]",
    "seed_size": "an absolute seed size (SentencePiece: 1000000); overrides seed_factor",
    "max_piece_length": "l_max: the longest piece, in characters",
    "max_pretoken_length": "longer pretokens are cut into parts of this many characters",
    "split_by_script": "reject seed pieces that mix Unicode scripts (SentencePiece)",
    "em_iterations": "N_em: EM iterations per pruning round",
    "alpha_prune": "α_prune: each pruning round keeps this share of the vocabulary",
    "alpha_inter": "α_inter: pruning stops at α_inter × vocabulary size, then the vocabulary is finalised",
    "min_expected_count": "τ_mp: the M-step drops pieces with a lower expected count",
    "digamma": "M-step with exp(digamma(count)) instead of the count itself (maximum likelihood)",
    "atoms": "required: characters are never dropped; prunable: they can be, as in SentencePiece",
    "size_basis": "total: the factors apply to the whole vocabulary (the paper); additional: to its "
    "non-character part (the authors' code)",
    "max_rounds": "at most this many pruning rounds",
    "stop_check": "after_em: stop when EM leaves α_inter × vocabulary size pieces (the paper); "
    "after_prune: stop after the pruning step that reaches it (SentencePiece 0.2.3)",
    "initial_alphabet": "characters always in the vocabulary (null: the 256 bytes for a byte-level "
    "pre-tokeniser, else none)",
}


def train(
    corpus: TrainingCorpus,
    vocab_size: int,
    *,
    progress: Callable[[int, int], None] | None = None,
    pruning: Pruning = _DEFAULT.pruning,
    seed: Seed = _DEFAULT.seed,
    seed_recovery: bool = _DEFAULT.seed_recovery,
    seed_factor: float = _DEFAULT.seed_factor,
    seed_size: int | None = _DEFAULT.seed_size,
    max_piece_length: int = _DEFAULT.max_piece_length,
    max_pretoken_length: int = _DEFAULT.max_pretoken_length,
    split_by_script: bool = _DEFAULT.split_by_script,
    em_iterations: int = _DEFAULT.em_iterations,
    alpha_prune: float = _DEFAULT.alpha_prune,
    alpha_inter: float = _DEFAULT.alpha_inter,
    min_expected_count: float = _DEFAULT.min_expected_count,
    digamma: bool = _DEFAULT.digamma,
    atoms: Atoms = _DEFAULT.atoms,
    size_basis: SizeBasis = _DEFAULT.size_basis,
    max_rounds: int = _DEFAULT.max_rounds,
    stop_check: StopCheck = _DEFAULT.stop_check,
    initial_alphabet: tuple[str, ...] | None = None,
) -> TrainingRun:
    """Train a Unigram tokeniser with ``vocab_size`` pieces on ``corpus`` (Alg. 1); the options
    are those of :class:`UnigramOptions`. ``initial_alphabet=None`` takes all 256 bytes for a
    byte-level pre-tokeniser (every text stays encodable), else none.

    Events: one "round" per E-step (detail: vocab_size, objective, tokens, for the vocabulary
    the E-step ran on) and one "prune" per removal (M-step early prune, pruning step,
    finalisation); the last round is the final vocabulary. ``summary["rounds"]`` lists the
    rounds as {vocab_size, objective, tokens}. ``progress(done, total)``: pieces removed from the
    seed and seed size - ``vocab_size`` (total 0 while seeding, then fixed), after each E-step and
    removal and during long phases (it may raise to stop training)."""
    from core.families.unigram.model import UnigramTokeniser

    opts = UnigramOptions(
        pruning=pruning,
        seed=seed,
        seed_recovery=seed_recovery,
        seed_factor=seed_factor,
        seed_size=seed_size,
        max_piece_length=max_piece_length,
        max_pretoken_length=max_pretoken_length,
        split_by_script=split_by_script,
        em_iterations=em_iterations,
        alpha_prune=alpha_prune,
        alpha_inter=alpha_inter,
        min_expected_count=min_expected_count,
        digamma=digamma,
        atoms=atoms,
        size_basis=size_basis,
        max_rounds=max_rounds,
        stop_check=stop_check,
        initial_alphabet=byte_alphabet(corpus.pretokeniser) if initial_alphabet is None else initial_alphabet,
    )
    vocab_size = int(check_int("vocab_size", vocab_size, 1))
    counts, documents = cut_long_pretokens(
        _collect_word_counts(corpus.pretoken_counts), corpus.documents, opts.max_pretoken_length
    )
    corpus = TrainingCorpus(corpus.pretokeniser, counts, documents)
    chars = corpus_characters(counts, opts)
    if vocab_size < len(chars):
        raise InputError(
            f"vocab_size {vocab_size} is smaller than the {len(chars)} characters of the corpus "
            f"(every character must stay a piece)"
        )
    beat = Heartbeat(progress, 0)  # total 0 while seeding: not known yet
    trainer = Trainer(counts, seed_vocabulary(corpus, counts, vocab_size, opts, beat, chars), opts, chars, beat)
    n_inter = inter_size(vocab_size, len(chars), opts)
    log = _Log(beat, trainer.size, vocab_size)
    for round_number in range(1, opts.max_rounds + 1):
        for sub in range(1, opts.em_iterations + 1):
            size = trainer.size
            stats = trainer.e_step()
            log.round(f"EM {round_number}.{sub}", size, stats)
            dropped = trainer.m_step(stats.expected)
            log.removal(f"M-step: {dropped} pieces with expected count < tau_mp", dropped, trainer.size)
        if opts.stop_check == "after_em" and trainer.size <= n_inter:
            break
        before = trainer.size
        removed = trainer.prune(trainer.prune_target(n_inter))
        log.removal(f"{opts.pruning} prune {before} -> {trainer.size}", removed, trainer.size)
        if opts.stop_check == "after_prune" and trainer.size <= n_inter:
            break
    before = trainer.size
    trainer.finalise(vocab_size)
    log.removal(f"finalise {before} -> {trainer.size}", before - trainer.size, trainer.size)
    final = trainer.e_step()
    log.round("final", trainer.size, final)
    tokeniser = UnigramTokeniser(trainer.vocabulary(), corpus.pretokeniser)
    return TrainingRun(
        tokeniser,
        tuple(log.events),
        {
            "rounds": log.rounds,
            "objective": final.objective,
            "tokens": final.tokens,
            "seed_size": len(trainer.pieces),
            "options": opts.to_json(),
        },
    )


class _Log:
    """Training events, the rounds table and progress reports."""

    def __init__(self, beat: Heartbeat, seed_size: int, vocab_size: int):
        self.beat = beat
        self.seed_size = seed_size
        beat.total = max(0, seed_size - vocab_size)  # pieces to remove, fixed from the first report
        self.events: list[TrainingEvent] = []
        self.rounds: list[dict] = []

    def round(self, label: str, size: int, stats: EStep) -> None:
        row = {"vocab_size": size, "objective": stats.objective, "tokens": stats.tokens}
        self.rounds.append(row)
        self.events.append(TrainingEvent(len(self.events), "round", label, stats.tokens, size, dict(row)))
        self.report(size)

    def report(self, size: int) -> None:
        """Pieces removed from the seed so far (never more than the total, never fewer than before)."""
        self.beat.report(min(self.beat.total, max(self.beat.done, self.seed_size - size)))

    def removal(self, label: str, removed: int, size: int) -> None:
        if removed:
            self.events.append(TrainingEvent(len(self.events), "prune", label, removed, size))
            self.report(size)
