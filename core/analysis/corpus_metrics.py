"""Corpus-level token-distribution metrics: counts, Zipf curves, entropies, efficiency, compression.

Everything here is a function of one :class:`CorpusStats`, the unigram token counts a segmenter
produces on a corpus, plus the sizes of that corpus and of the segmenter's vocabulary:

* the token-frequency curve of [boundless §4, Fig. 4] (and Fig. 8, App. C):
  ``log10(count + 1)`` of every vocabulary type, most to least frequent, unused types at 0;
* the fraction of the vocabulary used at least once ([boundless §4, Fig. 5]);
* Rényi entropy and Rényi efficiency ``H_α(p) / log |V|`` (Zouhar et al. 2023, "Tokenization and
  the noiseless channel", with α = 2.5 as they recommend; [boundless §4, Fig. 6, App. E]);
* Shannon entropy ([scaffold §5.3, Eq. 4]) and redundancy (Eq. 5);
* bytes and characters per token ([boundless §4, Fig. 7]; [scaffold Table 8]);
* the rank/frequency (Zipf) curve and a log-log least-squares fit ([knockout §2],
  "Redundancy": log f against log r falls on a straight line for a Zipfian distribution).

The vocabulary V
----------------
Both normalisations (Rényi efficiency, redundancy) divide by ``log |V|`` where V is the *whole*
vocabulary of the segmenter, used or not: Zouhar et al. divide by the log-size of the tokeniser's
vocabulary Δ, and [scaffold Eq. 5] by ``log2 |V|`` of "a vocabulary of (normal) tokens V"
(its Table 7 bears this out: 11.2382 / (1 - 0.2491) = 14.966 = log2 of about 32,000, the 32K
vocabulary of that experiment, not the number of types seen). :func:`token_counts` takes V from
the segmenter (``vocab_size`` when it has one, which for :class:`core.bpe.model.BTETokeniser` is the
HF count: the types plus special tokens; otherwise ``vocabulary``, as on
:class:`core.families.trimmed.TrimmedBPE`, or ``types``, each with ``specials`` added).

A segmenter may emit tokens that are not in its vocabulary (a character-level BPE passes through
characters outside its alphabet). Such *out-of-vocabulary* types are counted in
``CorpusStats.oov_types`` and join V for the normalisations, so the distribution always lives on
the set whose log-size normalises it and ``0 <= efficiency <= 1``: ``|V| = vocab_size +
oov_types`` (:attr:`CorpusStats.support_size`). Fig. 5's fraction of the vocabulary used counts
only the declared vocabulary.

Logarithms: entropies default to base 2 (bits, [scaffold Eq. 4]); the efficiency and the
redundancy are ratios and so do not depend on the base; the token-frequency curve uses base 10
("log10(count + 1)" in the caption of [boundless Fig. 4]); the Zipf fit uses base 10 too.

Pure Python; numpy is not needed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Real

from core.counting.token_frequencies import token_frequencies
from core.errors import InputError

#: Lines between two calls of the ``progress`` callback of :func:`token_counts`.
PROGRESS_EVERY = 1000

#: Rényi order recommended by Zouhar et al. (2023) and used by [boundless §4 / App. E].
DEFAULT_ALPHA = 2.5


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{name} must be a non-negative integer, got {value!r}")
    return value


@dataclass(frozen=True)
class CorpusStats:
    """Unigram token counts of one segmenter over one corpus, with the corpus and vocabulary sizes.

    ``tokens``       number of tokens produced (= sum of ``counts``);
    ``characters``   Unicode code points of the input text, line breaks between lines excluded;
    ``bytes``        UTF-8 bytes of the same text;
    ``vocab_size``   size of the segmenter's declared vocabulary (all types, used or not);
    ``counts``       token type -> number of occurrences (only types that occur, all > 0);
    ``oov_types``    how many of the types in ``counts`` are outside the declared vocabulary.
    """

    tokens: int
    characters: int
    bytes: int
    vocab_size: int
    counts: dict[str, int] = field(hash=False)
    oov_types: int = 0

    def __post_init__(self) -> None:
        for name in ("tokens", "characters", "bytes", "vocab_size", "oov_types"):
            _check_count(name, getattr(self, name))
        if not isinstance(self.counts, Mapping):
            raise InputError(f"counts must be a mapping from token to count, got {type(self.counts).__name__}")
        counts: dict[str, int] = {}
        for token, count in self.counts.items():
            if not isinstance(token, str):
                raise InputError(f"token types must be strings, got {token!r}")
            _check_count(f"count of {token!r}", count)
            if count:
                counts[token] = count
        object.__setattr__(self, "counts", counts)  # a private copy without zero entries
        if sum(counts.values()) != self.tokens:
            raise InputError(f"tokens ({self.tokens}) differs from the sum of the counts ({sum(counts.values())})")
        if self.oov_types > len(counts):
            raise InputError(f"oov_types ({self.oov_types}) exceeds the number of types that occur ({len(counts)})")
        if len(counts) - self.oov_types > self.vocab_size:
            raise InputError(
                f"{len(counts) - self.oov_types} in-vocabulary types occur but vocab_size is "
                f"{self.vocab_size}; count the others in oov_types"
            )

    @classmethod
    def from_counts(
        cls,
        counts: Mapping[str, int],
        vocab_size: int | None = None,
        *,
        characters: int = 0,
        bytes: int = 0,
        oov_types: int = 0,
    ) -> CorpusStats:
        """Stats from bare counts; ``vocab_size`` defaults to the number of types that occur."""
        nonzero = sum(1 for c in counts.values() if c)
        return cls(
            tokens=sum(counts.values()),
            characters=characters,
            bytes=bytes,
            vocab_size=nonzero - oov_types if vocab_size is None else vocab_size,
            counts=dict(counts),
            oov_types=oov_types,
        )

    @property
    def types_used(self) -> int:
        """Number of distinct types that occur (in-vocabulary and out-of-vocabulary)."""
        return len(self.counts)

    @property
    def support_size(self) -> int:
        """|V| of the normalisations: the declared vocabulary plus the out-of-vocabulary types."""
        return self.vocab_size + self.oov_types

    def to_json(self) -> dict:
        """A JSON-ready dict; ``counts`` ordered by descending count, then by token."""
        ordered = sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
        return {
            "tokens": self.tokens,
            "characters": self.characters,
            "bytes": self.bytes,
            "vocab_size": self.vocab_size,
            "oov_types": self.oov_types,
            "counts": dict(ordered),
        }

    @classmethod
    def from_json(cls, data: Mapping) -> CorpusStats:
        """Inverse of :meth:`to_json`."""
        if not isinstance(data, Mapping):
            raise InputError("corpus stats must be a JSON object")
        missing = [k for k in ("tokens", "characters", "bytes", "vocab_size", "counts") if k not in data]
        if missing:
            raise InputError(f"corpus stats lack {', '.join(missing)}")
        return cls(
            tokens=data["tokens"],
            characters=data["characters"],
            bytes=data["bytes"],
            vocab_size=data["vocab_size"],
            counts=data["counts"],
            oov_types=data.get("oov_types", 0),
        )


# --- counting -------------------------------------------------------------------------------------
def _declared_vocabulary(tokeniser) -> tuple[int, frozenset[str] | None]:
    """(|V|, V or None) of a segmenter; see the module docstring for the order of attributes."""
    specials = getattr(tokeniser, "specials", None)
    if specials is None:  # a wrapper such as TrimmedBPE: its base tokeniser's specials
        specials = getattr(getattr(tokeniser, "tokeniser", None), "specials", ())
    types = getattr(tokeniser, "vocabulary", None)
    if types is None:
        types = getattr(tokeniser, "types", None)
    vocabulary = frozenset(types) | frozenset(specials or ()) if types is not None else None
    size = getattr(tokeniser, "vocab_size", None)
    if size is None:
        if vocabulary is None:
            raise InputError(
                "the segmenter has neither vocab_size nor types/vocabulary: pass vocabulary= to token_counts"
            )
        size = len(vocabulary)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise InputError(f"vocab_size must be a non-negative integer, got {size!r}")
    return size, vocabulary


def _strip_line_break(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line


def token_counts(
    tokeniser,
    lines: Iterable[str],
    *,
    progress: Callable[[int], None] | None = None,
    vocabulary: Iterable[str] | None = None,
) -> CorpusStats:
    """Tokenise every line with ``tokeniser.tokenise`` and count the token types.

    ``tokeniser`` is any object with ``tokenise(text) -> list[str]`` (BTETokeniser, TrimmedBPE, ...)
    and a vocabulary (``vocab_size``, ``vocabulary`` or ``types``; or pass ``vocabulary=``, which
    then defines V). Each item of ``lines`` is one line, tokenised on its own; one trailing line
    break ("\\n", "\\r\\n" or "\\r", as left by iterating over a file) is removed first, so the breaks
    between lines are neither tokenised nor counted, while anything left inside an item is both.
    ``characters`` counts code points and ``bytes`` UTF-8 bytes of the text that was tokenised
    (before any normalisation the pre-tokeniser applies).

    ``progress(n)``, if given, is called with the number of lines done since its previous call
    (every :data:`PROGRESS_EVERY` lines and at the end), so ``tqdm.update`` fits.

    An empty corpus gives ``tokens == 0``; the metrics then raise :class:`InputError`.
    """
    tokenise = getattr(tokeniser, "tokenise", None)
    if not callable(tokenise):
        raise InputError(f"{type(tokeniser).__name__} has no tokenise(text) method")
    declared: frozenset[str] | None
    if vocabulary is not None:
        if isinstance(vocabulary, str):
            raise InputError("vocabulary must be a collection of token types, not one string")
        declared = frozenset(vocabulary)
        size = len(declared)
    else:
        size, declared = _declared_vocabulary(tokeniser)
    counter, characters, n_bytes, _ = tally_lines(tokenise, lines, progress=progress)
    return _stats(counter, characters, n_bytes, size, declared)


def tally_lines(
    tokenise: Callable[[str], Iterable[str]],
    lines: Iterable[str],
    *,
    progress: Callable[[int], None] | None = None,
) -> tuple[Counter[str], int, int, int]:
    """(token counts, characters, bytes, lines) of ``lines``: the counting of :func:`token_counts`,
    which says how each line is read; parts of a corpus tallied apart add up to the whole."""
    counter: Counter[str] = Counter()
    characters = n_bytes = 0
    pending = number = 0
    for number, line in enumerate(lines, 1):
        if not isinstance(line, str):
            raise InputError(f"expected a line of text, got {type(line).__name__}", "<corpus>", number)
        line = _strip_line_break(line)
        try:
            n_bytes += len(line.encode("utf-8"))
        except UnicodeEncodeError as err:
            raise InputError(f"text is not encodable as UTF-8 ({err.reason})", "<corpus>", number) from None
        characters += len(line)
        counter.update(tokenise(line))
        pending += 1
        if progress is not None and pending >= PROGRESS_EVERY:
            progress(pending)
            pending = 0
    if progress is not None and pending:
        progress(pending)
    return counter, characters, n_bytes, number


def stats_of_tally(tokeniser, counter: Mapping[str, int], characters: int, n_bytes: int) -> CorpusStats:
    """The :class:`CorpusStats` of a tally (:func:`tally_lines`, summed over parts) made with
    ``tokeniser``, whose vocabulary gives V as in :func:`token_counts`."""
    return _stats(counter, characters, n_bytes, *_declared_vocabulary(tokeniser))


def _stats(
    counter: Mapping[str, int], characters: int, n_bytes: int, size: int, declared: frozenset[str] | None
) -> CorpusStats:
    # With only a size known, at least the excess of types over it is out of the vocabulary.
    oov = sum(1 for token in counter if token not in declared) if declared is not None else max(0, len(counter) - size)
    return CorpusStats(
        tokens=sum(counter.values()),
        characters=characters,
        bytes=n_bytes,
        vocab_size=size,
        counts=dict(counter),
        oov_types=oov,
    )


def word_count_stats(tokeniser, word_counts: Mapping[str, int]) -> CorpusStats:
    """:func:`token_counts` of a corpus given as word counts (``word -> count``, e.g. a wordfreq list):
    each word is tokenised once as in running text and its tokens counted ``count`` times
    (:func:`core.counting.token_frequencies.token_frequencies`). ``characters`` and ``bytes`` are the
    words' own, each counted ``count`` times; the spaces between words are not counted."""
    size, declared = _declared_vocabulary(tokeniser)
    counter = token_frequencies(tokeniser, word_counts)
    try:
        n_bytes = sum(len(word.encode("utf-8")) * count for word, count in word_counts.items())
    except UnicodeEncodeError as err:
        raise InputError(f"a word is not encodable as UTF-8 ({err.reason})", "<word counts>") from None
    return _stats(counter, sum(len(word) * count for word, count in word_counts.items()), n_bytes, size, declared)


# --- curves ---------------------------------------------------------------------------------------
def zipf_curve(stats: CorpusStats) -> list[tuple[int, int]]:
    """(rank, count) of the types that occur, counts descending, ranks from 1.

    The rank/frequency view of [knockout §2] "Redundancy" (Zipf 1949); unused types are left
    out (see :func:`token_frequency_curve` for those). Ties keep an arbitrary but fixed order.
    """
    return list(enumerate(sorted(stats.counts.values(), reverse=True), 1))


def token_frequency_curve(stats: CorpusStats) -> list[tuple[int, float]]:
    """(rank, log10(count + 1)) over *all* |V| types, most to least frequent, ranks from 1.

    [boundless §4, Fig. 4] (and Fig. 8): "log10(count + 1) for each token, sorted from most
    to least frequent ... The +1 is to allow plotting of 0 counts". Base 10 as in the caption.
    The vocabulary types that never occur form the tail at value 0; out-of-vocabulary types that
    occur are included, so the curve has :attr:`CorpusStats.support_size` points.
    """
    values = sorted(stats.counts.values(), reverse=True)
    values += [0] * (stats.support_size - len(values))
    return [(rank, math.log10(count + 1)) for rank, count in enumerate(values, 1)]


# --- entropies ------------------------------------------------------------------------------------
def _require_tokens(stats: CorpusStats, what: str) -> None:
    if not isinstance(stats, CorpusStats):
        raise InputError(f"expected CorpusStats, got {type(stats).__name__}")
    if stats.tokens == 0:
        raise InputError(f"{what} is undefined for an empty corpus (zero tokens)")


def _check_base(base: object) -> float:
    if isinstance(base, bool) or not isinstance(base, Real) or not math.isfinite(base) or base <= 0 or base == 1:
        raise InputError(f"logarithm base must be a positive number other than 1, got {base!r}")
    return float(base)


def _check_alpha(alpha: object) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or math.isnan(alpha):
        raise InputError(f"Rényi order α must be a number, got {alpha!r}")
    if alpha < 0:
        raise InputError(f"Rényi order α must be >= 0, got {alpha!r}")
    return float(alpha)


def _log_probabilities(stats: CorpusStats) -> list[tuple[float, float]]:
    """(p, ln p) of every type that occurs, p = count / tokens (maximum-likelihood estimate)."""
    log_total = math.log(stats.tokens)
    return [(count / stats.tokens, math.log(count) - log_total) for count in stats.counts.values()]


def _shannon_nats(stats: CorpusStats) -> float:
    return max(0.0, -math.fsum(p * log_p for p, log_p in _log_probabilities(stats)))


def shannon_entropy(stats: CorpusStats, base: float = 2) -> float:
    """H(T) = -Σ_i p(t_i) log p(t_i) of the unigram token distribution ([scaffold Eq. 4]).

    p(t) is the relative frequency of t in the tokenised corpus ("maximum likelihood", §5.3);
    types that never occur contribute 0. Bits by default, as in Eq. 4 (log2).
    """
    _require_tokens(stats, "Shannon entropy")
    return _shannon_nats(stats) / math.log(_check_base(base))


def _renyi_nats(stats: CorpusStats, alpha: float) -> float:
    """H_α in nats, computed stably; clamped to the exact bounds 0 <= H_α <= ln(support)."""
    log_support = math.log(len(stats.counts))
    if alpha == 1:
        value = _shannon_nats(stats)
    elif alpha == 0:
        value = log_support
    elif math.isinf(alpha):  # min-entropy: -ln max p
        value = math.log(stats.tokens) - math.log(max(stats.counts.values()))
    else:
        logs = _log_probabilities(stats)
        if abs(alpha - 1) < 0.25:
            # Σ p^α = 1 + Σ p (e^{(α-1) ln p} - 1): no cancellation in 1/(1-α) · ln Σ p^α near α = 1.
            log_sum = math.log1p(math.fsum(p * math.expm1((alpha - 1) * log_p) for p, log_p in logs))
        else:
            # ln Σ e^{α ln p}, shifted by the largest term so that no term underflows.
            top = max(log_p for _, log_p in logs)
            log_sum = alpha * top + math.log(math.fsum(math.exp(alpha * (log_p - top)) for _, log_p in logs))
        value = log_sum / (1 - alpha)
    return min(max(value, 0.0), log_support)


def renyi_entropy(stats: CorpusStats, alpha: float, base: float = 2) -> float:
    """Rényi entropy H_α(p) = 1/(1-α) · log Σ_i p(t_i)^α of the unigram token distribution.

    The entropy behind Zouhar et al.'s (2023) Rényi efficiency ([boundless §4, App. E]).
    Limits: α = 0 gives log of the number of types that occur (Hartley entropy); α = 1 the Shannon
    entropy of [scaffold Eq. 4] (the α → 1 limit); α = ∞ the min-entropy -log max p.
    H_α is non-increasing in α. Bits by default; α < 0 raises :class:`InputError`.
    """
    _require_tokens(stats, "Rényi entropy")
    alpha = _check_alpha(alpha)
    return _renyi_nats(stats, alpha) / math.log(_check_base(base))


def _log_vocabulary(stats: CorpusStats, what: str) -> float:
    if stats.support_size < 2:
        raise InputError(f"{what} needs a vocabulary of at least 2 types (log |V| = 0), got {stats.support_size}")
    return math.log(stats.support_size)


def renyi_efficiency(stats: CorpusStats, alpha: float = DEFAULT_ALPHA) -> float:
    """Rényi efficiency H_α(p) / log |V| (Zouhar et al. 2023; α = 2.5 as they recommend).

    [boundless §4] (Fig. 6) and App. E (Fig. 9) report it with α = 2.5. |V| is the size of the
    segmenter's whole vocabulary, used types or not, plus any out-of-vocabulary types that occur
    (:attr:`CorpusStats.support_size`); so the value is 1 exactly for a uniform distribution over
    all of V and drops as the distribution gets less uniform or types go unused. In [0, 1].
    """
    _require_tokens(stats, "Rényi efficiency")
    alpha = _check_alpha(alpha)
    log_v = _log_vocabulary(stats, "Rényi efficiency")
    return min(1.0, _renyi_nats(stats, alpha) / log_v)


def redundancy(stats: CorpusStats) -> float:
    """R(T) = 1 - H(T) / max{H(T)} = 1 - H(T) / log2 |V| ([scaffold §5.3, Eq. 5]).

    H(T) is the Shannon entropy of Eq. 4 and |V| the size of the vocabulary (plus out-of-vocabulary
    types that occur, :attr:`CorpusStats.support_size`), not the number of types seen: scaffold-bpe's
    Table 7 (H = 11.2382, R = 0.2491) implies log2 |V| = 14.966, i.e. its 32K vocabulary.
    Equals 1 - Rényi efficiency at α = 1. In [0, 1].
    """
    _require_tokens(stats, "redundancy")
    log_v = _log_vocabulary(stats, "redundancy")
    return max(0.0, 1.0 - _shannon_nats(stats) / log_v)


# --- compression and coverage ---------------------------------------------------------------------
def bytes_per_token(stats: CorpusStats) -> float:
    """UTF-8 bytes of the corpus / number of tokens ([boundless §4, Fig. 7]; [scaffold]
    Table 8, "Compression Rate (bytes per token)"). Line breaks between lines are not counted."""
    _require_tokens(stats, "bytes per token")
    return stats.bytes / stats.tokens


def characters_per_token(stats: CorpusStats) -> float:
    """Unicode code points of the corpus / number of tokens (the character analogue of Fig. 7)."""
    _require_tokens(stats, "characters per token")
    return stats.characters / stats.tokens


def vocabulary_used(stats: CorpusStats) -> float:
    """Fraction of the declared vocabulary that occurs at least once ([boundless §4, Fig. 5]).

    Out-of-vocabulary types are not part of the vocabulary and do not count. Defined on an empty
    corpus (0.0); a zero-size vocabulary raises :class:`InputError`.
    """
    if not isinstance(stats, CorpusStats):
        raise InputError(f"expected CorpusStats, got {type(stats).__name__}")
    if stats.vocab_size == 0:
        raise InputError("fraction of vocabulary used is undefined for an empty vocabulary")
    return (stats.types_used - stats.oov_types) / stats.vocab_size


# --- Zipf -----------------------------------------------------------------------------------------
def zipf_fit(stats: CorpusStats, min_rank: int = 1, max_rank: int | None = None) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line log10 count = slope · log10 rank + intercept.

    Fitted over the ranks min_rank..max_rank (inclusive, 1-based) of :func:`zipf_curve`, i.e. the
    types that occur. [knockout §2] "Redundancy": under Zipf's law (frequency inversely
    proportional to rank) log f and log r fall on a straight line of slope -1; the authors note
    (after Bostrom and Durrett 2020) that BPE's subword types break the law in the tail, which a
    fit restricted by ``max_rank`` against one over all ranks shows. Needs two or more points.
    """
    if not isinstance(stats, CorpusStats):
        raise InputError(f"expected CorpusStats, got {type(stats).__name__}")
    if isinstance(min_rank, bool) or not isinstance(min_rank, int) or min_rank < 1:
        raise InputError(f"min_rank must be an integer >= 1, got {min_rank!r}")
    if max_rank is not None and (isinstance(max_rank, bool) or not isinstance(max_rank, int) or max_rank < min_rank):
        raise InputError(f"max_rank must be an integer >= min_rank ({min_rank}), got {max_rank!r}")
    points = [
        (math.log10(rank), math.log10(count))
        for rank, count in zipf_curve(stats)
        if rank >= min_rank and (max_rank is None or rank <= max_rank)
    ]
    if len(points) < 2:
        raise InputError(
            f"a Zipf fit needs at least 2 ranked types in range, got {len(points)} ({stats.types_used} types occur)"
        )
    n = len(points)
    mean_x = math.fsum(x for x, _ in points) / n
    mean_y = math.fsum(y for _, y in points) / n
    sxx = math.fsum((x - mean_x) ** 2 for x, _ in points)
    sxy = math.fsum((x - mean_x) * (y - mean_y) for x, y in points)
    slope = sxy / sxx  # sxx > 0: the ranks are distinct
    return slope, mean_y - slope * mean_x


# --- everything at once ---------------------------------------------------------------------------
def summary(stats: CorpusStats, alpha: float = DEFAULT_ALPHA) -> dict:
    """All scalar metrics in one flat dict (for tables and JSON).

    Entropies are in bits. ``zipf_slope`` / ``zipf_intercept`` are None when fewer than two types
    occur. Raises :class:`InputError` for an empty corpus or a vocabulary of fewer than 2 types.
    """
    _require_tokens(stats, "a corpus summary")
    alpha = _check_alpha(alpha)
    slope: float | None
    intercept: float | None
    try:
        slope, intercept = zipf_fit(stats)
    except InputError:
        slope = intercept = None
    return {
        "tokens": stats.tokens,
        "characters": stats.characters,
        "bytes": stats.bytes,
        "vocab_size": stats.vocab_size,
        "oov_types": stats.oov_types,
        "types_used": stats.types_used,
        "vocabulary_used": vocabulary_used(stats),
        "bytes_per_token": bytes_per_token(stats),
        "characters_per_token": characters_per_token(stats),
        "shannon_entropy": shannon_entropy(stats),
        "redundancy": redundancy(stats),
        "alpha": alpha,
        "renyi_entropy": renyi_entropy(stats, alpha),
        "renyi_efficiency": renyi_efficiency(stats, alpha),
        "zipf_slope": slope,
        "zipf_intercept": intercept,
    }
