"""The vocabulary audit: types the whole pipeline never produces from their own string, and why.

A type is *unreachable from its own string* when decoding its id and encoding the text again does
not give that id back: the round trip ``encode(decode([id])) == [id]`` that HF ``tokenizers``,
SentencePiece and tiktoken users run to find "glitch tokens" (types that keep an embedding row but
are never trained). No paper of ../papers defines it; the *merge order* cause is ReBPE's blocked
merges ([rebpe §3.1, App. A.1]: :mod:`core.edits.blocked`), the others are the rest of the HF
pipeline (normaliser, pre-tokeniser, added tokens, byte fallback, decoder). Each failing type gets
the first cause that explains it, in the order of the pipeline (:data:`CAUSES`):

1. ``special``: a control, unknown or added piece outside the model's vocabulary (SentencePiece's
   ``<s>`` and ``<unk>`` decode to nothing or to `` ⁇ ``);
2. ``byte-fallback``: a ``<0xNN>`` piece, emitted only for characters the vocabulary lacks;
2. ``partial-utf8``: its bytes are no whole UTF-8 text, so its decoded text holds U+FFFD (byte-level
   types made of part of a character; they may still come out inside a longer character);
3. ``added-token``: its text holds an added (special) token, which is split off before any merge;
4. ``normaliser``: the normaliser changes its text (case, NFKC, ...), so the model never sees it;
5. ``pre-tokeniser``: the pre-tokeniser cuts its text into several pretokens (e.g. a regex that
   puts Thai vowel marks apart from their letters);
6. ``word-internal``: the text comes back as one pretoken with a word-start marker in front
   (``the`` becomes ``▁the``), or the model ends it with its end-of-word suffix (``!`` becomes
   ``!</w>``): a piece of the inside of words, which the round trip cannot show alone (it may well
   be produced inside longer words; when the model does not produce it from its own string either,
   the cause is the model's, below);
7. ``decoder``: the text comes back as another single pretoken (the decoder dropped or changed
   characters, e.g. stripped spaces);
8. ``merge-order`` (merge-graph families) / ``model`` (others): the pretoken reaches the model
   intact and the model segments it otherwise: a merge order blocks it ([rebpe App. A.1]) or
   Viterbi prefers another path;
9. ``other``: none of the above (none is known on the real tokenisers the tests fetch).

*Idle* types (with a corpus): types never emitted on it, and types formed as an intermediate far
more often than emitted (``formed / max(emitted, 1) >= residue_ratio``: "intermediate merge
residues"); a type's emitted count is TrimmedBPE's frequency ([rebpe §2.1]). No Streamlit here.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from core.analysis.merge_usage import pretoken_counts
from core.bpe.model import BTETokeniser
from core.errors import InputError
from core.options import check_number
from core.pipeline.byte_level import byte_chars_to_bytes
from core.tokeniser import CapabilityError, Tokeniser, check_tokeniser, has, require, specials_of
from core.trace import MAX_TRACE_CHARS

#: cause key -> (short label, what it means), in the order the causes are tested.
CAUSES = {
    "partial-utf8": (
        "partial UTF-8 bytes",
        "Its bytes are part of a character, no text of their own: decoding it gives U+FFFD. It can be "
        "emitted only inside a longer character whose other bytes no merge joins to it.",
    ),
    "special": (
        "special piece",
        "A control, unknown or added piece outside the model's vocabulary: the pipeline emits it by its own "
        "rules (for the unknown, for markup), never as the encoding of its text.",
    ),
    "byte-fallback": (
        "byte fallback",
        "A <0xNN> byte piece: emitted only for a character the vocabulary lacks, never for its own text.",
    ),
    "added-token": (
        "an added token shadows it",
        "Its text holds an added (special) token, which the pipeline splits off before any merge.",
    ),
    "normaliser": (
        "the normaliser changes it",
        "The normaliser rewrites its text (case, Unicode normal form, ...) before the model sees it.",
    ),
    "pre-tokeniser": (
        "the pre-tokeniser cuts it",
        "The pre-tokeniser cuts its text into several pretokens, so no merge can join them.",
    ),
    "word-internal": (
        "only inside words",
        "Its text comes back with a word-start marker in front (or the end-of-word suffix behind): a piece "
        "of the inside of words, which the round trip cannot show alone (it may be produced inside longer "
        "words).",
    ),
    "decoder": (
        "decoded to another string",
        "Decoding changes its text (spaces stripped, or nothing left), so encoding the text gives another pretoken.",
    ),
    "merge-order": (
        "a merge order blocks it",
        "Its own string reaches the model whole, but earlier merges take its characters first "
        "([rebpe App. A.1], blocked merges).",
    ),
    "model": (
        "the model prefers another segmentation",
        "Its own string reaches the model whole, but the model segments it otherwise.",
    ),
    "other": ("other", "The round trip fails for a reason none of the other causes names."),
}
_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")
#: Types between two progress reports.
PROGRESS_EVERY = 4096

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Finding:
    """One type its own string does not produce: its text, what encoding that text gives, the cause."""

    type: str
    id: int
    cause: str
    #: the type's own string: ``decode([id])``
    text: str
    #: what encoding ``text`` gives (tokens, and their ids; None for a token without one)
    tokens: tuple[str, ...]
    ids: tuple[int | None, ...]
    #: cause-specific evidence (JSON-serialisable): the pretokens, the normalised text, the segmentation
    evidence: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return CAUSES[self.cause][0]

    def to_json(self) -> dict:
        return {
            "type": self.type,
            "id": self.id,
            "cause": self.cause,
            "text": self.text,
            "encodes_to": list(self.tokens),
            "encodes_to_ids": list(self.ids),
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class Usage:
    """A type idle on a corpus: never emitted, or formed far more often than emitted."""

    type: str
    id: int
    cause: str  # "never emitted" or "residue"
    emitted: int
    formed: int

    @property
    def ratio(self) -> float:
        return self.formed / max(self.emitted, 1)

    def to_json(self) -> dict:
        return {
            "type": self.type,
            "id": self.id,
            "cause": self.cause,
            "evidence": {"emitted": self.emitted, "formed": self.formed, "formed_per_emitted": round(self.ratio, 3)},
        }


IDLE_CAUSES = {
    "never emitted": "Never a token of the corpus's segmentation (TrimmedBPE's frequency 0, [rebpe §2.1]).",
    "residue": "Formed as an intermediate far more often than emitted (an intermediate merge residue).",
}


@dataclass(frozen=True)
class Audit:
    """The audit of one tokeniser: the unreachable types (id order), and with a corpus the idle ones."""

    types_checked: int
    unreachable: tuple[Finding, ...]
    seconds: float
    idle: tuple[Usage, ...] | None = None
    corpus_pretokens: int = 0
    residue_ratio: float = 0.0
    #: corpus pretoken occurrences too long to trace, whose merges the formed counts leave out
    untraced: int = 0

    def counts(self) -> dict[str, int]:
        """Unreachable types per cause (:data:`CAUSES` order, causes with none left out)."""
        found = Counter(f.cause for f in self.unreachable)
        return {cause: found[cause] for cause in CAUSES if found[cause]}

    def idle_counts(self) -> dict[str, int]:
        found = Counter(u.cause for u in self.idle or ())
        return {cause: found[cause] for cause in IDLE_CAUSES if found[cause]}

    def to_json(self) -> dict:
        out = {
            "types_checked": self.types_checked,
            "seconds": round(self.seconds, 3),
            "unreachable_counts": self.counts(),
            "unreachable": [f.to_json() for f in self.unreachable],
        }
        if self.idle is not None:
            out["corpus_pretokens"] = self.corpus_pretokens
            out["residue_ratio"] = self.residue_ratio
            out["untraced_pretokens"] = self.untraced
            out["idle_counts"] = self.idle_counts()
            out["idle"] = [u.to_json() for u in self.idle]
        return out


# --- the round trip -------------------------------------------------------------------------------
def round_trip(tokeniser: Tokeniser, type_: str) -> tuple[str, list[str]]:
    """The type's own string (its decoded text) and the tokens encoding that text gives."""
    text = tokeniser.pretokeniser.decode([type_])
    try:
        return text, tokeniser.tokenise(text)
    except InputError:  # a text the tokeniser refuses (none is known): it does not come back
        return text, []


def unreachable_types(tokeniser: Tokeniser, progress: Progress | None = None) -> list[Finding]:
    """Every type whose own string does not encode to it, with its cause, in id order."""
    check_tokeniser(tokeniser)
    ids = tokeniser.token_ids()
    by_id = sorted(ids.items(), key=lambda item: item[1])
    found = []
    for done, (type_, id_) in enumerate(by_id):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(by_id))
        text, tokens = round_trip(tokeniser, type_)
        if tokens != [type_]:
            found.append(_classified(tokeniser, type_, id_, text, tokens, ids))
    if progress is not None:
        progress(len(by_id), len(by_id))
    return found


def _classified(
    tokeniser: Tokeniser, type_: str, id_: int, text: str, tokens: list[str], ids: Mapping[str, int]
) -> Finding:
    cause, evidence = _cause(tokeniser, type_, text)
    return Finding(type_, id_, cause, text, tuple(tokens), tuple(ids.get(t) for t in tokens), evidence)


def _cause(tokeniser: Tokeniser, type_: str, text: str) -> tuple[str, dict]:
    """The first cause of :data:`CAUSES` that explains why ``text`` does not encode to ``type_``."""
    pretokeniser = tokeniser.pretokeniser
    if type_ not in tokeniser.vocabulary:
        return "special", {}
    unknown = getattr(tokeniser, "unknown", None)
    if unknown is not None and unknown.byte_fallback and _BYTE_PIECE.fullmatch(type_):
        return "byte-fallback", {"byte": type_[1:5]}
    if "\ufffd" in text and "\ufffd" not in type_:
        raw = _byte_level_bytes(type_)
        if raw is None or not _is_utf8(raw):
            return "partial-utf8", {"bytes": None if raw is None else raw.hex(" ")}
    if type_ not in specials_of(tokeniser):
        added = [p for p, is_added in pretokeniser.pretokenise_marked(text) if is_added]
        if added:
            return "added-token", {"added_tokens": added}
    if not text:
        return "decoder", {"pretoken": None}
    normalised = pretokeniser.normalise(text)
    pretokens = [p for p, is_added in pretokeniser.pretokenise_marked(text) if not is_added]
    if pretokens == [type_]:
        return _model_cause(tokeniser, type_)
    if _letters(normalised, pretokeniser.marker) != _letters(text, pretokeniser.marker):
        return "normaliser", {"normalised": normalised}
    if len(pretokens) != 1:
        return "pre-tokeniser", {"pretokens": pretokens}
    marker = pretokeniser.marker
    if marker and pretokens[0] == marker + type_:
        cause, evidence = _model_cause(tokeniser, type_)  # blocked even inside words?
        return (cause if cause in ("merge-order", "model") else "word-internal"), {"pretoken": pretokens[0], **evidence}
    return "decoder", {"pretoken": pretokens[0]}


def _letters(text: str, marker: str | None) -> str:
    """``text`` without its spaces and word-start markers: what a normaliser must keep."""
    if marker:
        text = text.replace(marker, " ")
    return "".join(text.split())


def _model_cause(tokeniser: Tokeniser, type_: str) -> tuple[str, dict]:
    segmented = list(tokeniser.segment_pretoken(type_)) if hasattr(tokeniser, "segment_pretoken") else []
    if segmented == [type_]:
        return "other", {"segmentation": segmented}
    suffix = getattr(getattr(tokeniser, "engine", None), "suffix", "")
    if suffix and segmented == [type_ + suffix]:  # a word always ends with the suffix
        return "word-internal", {"pretoken": type_ + suffix}
    if not has(tokeniser, "merge_graph"):
        return "model", {"segmentation": segmented}
    graph = require(tokeniser, "merge_graph", "")
    merge = graph.merge_of(type_)
    evidence: dict = {"segmentation": segmented, "merge": None, "at_its_turn": None}
    if merge is not None:
        evidence["merge"] = {"parts": list(merge.parts), "rank": merge.rank}
        evidence["at_its_turn"] = list(graph.segment_limited(type_, merge.rank))
    return "merge-order", evidence


def _byte_level_bytes(type_: str) -> bytes | None:
    """The bytes a byte-level type stands for (None when it is not spelled in the byte alphabet)."""
    try:
        return byte_chars_to_bytes(type_, strict=True)
    except InputError:
        return None


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# --- idle types on a corpus -----------------------------------------------------------------------
def word_pretokens(tokeniser: Tokeniser, word_counts: Mapping[str, int]) -> Counter:
    """Pretoken counts of word counts, each word as in running text (the pre-tokeniser on ``" " + word``)."""
    counts: Counter = Counter()
    pretokenise = tokeniser.pretokeniser.pretokenise
    for word, n in word_counts.items():
        for pretoken in pretokenise(" " + word):
            counts[pretoken] += n
    return counts


def idle_types(tokeniser: Tokeniser, counts: Mapping[str, int], residue_ratio: float = 10.0) -> tuple[list[Usage], int]:
    """Types never emitted on a corpus's pretoken ``counts`` (:func:`core.analysis.merge_usage.pretoken_counts`
    of running text, :func:`word_pretokens` of word counts) and residues (formed at least
    ``residue_ratio`` times per emission; BPE only), in id order; and how many pretoken occurrences
    longer than :data:`~core.trace.MAX_TRACE_CHARS` were not traced (their merges are left out of the
    formed counts). Each pretoken is segmented on its own, so BoundlessBPE's supermerges across
    pretokens are not counted."""
    check_number("residue_ratio", residue_ratio, 1.0)
    if not counts:
        raise InputError("the corpus holds no text to count tokens on")
    emitted: Counter = Counter()
    formed: Counter = Counter()
    segment = getattr(tokeniser, "segment_pretoken", None)
    if segment is None:
        raise CapabilityError(
            f"counting idle types needs pretoken segmentation; the {tokeniser.kind} tokeniser has none"
        )
    traced = tokeniser if isinstance(tokeniser, BTETokeniser) else None  # its own segmentation is its merges'
    untraced = 0
    for pretoken, n in counts.items():
        for token in segment(pretoken):
            emitted[token] += n
        if traced is None:
            continue
        if len(pretoken) > MAX_TRACE_CHARS:  # a trace would be quadratic: its merges go uncounted, and said so
            untraced += n
            continue
        for merge in traced.trace_pretoken(pretoken).merges_applied:
            formed[merge.result] += n
    specials = set(specials_of(tokeniser))
    idle = []
    for type_, id_ in sorted(tokeniser.token_ids().items(), key=lambda item: item[1]):
        if type_ in specials:
            continue
        e, f = emitted[type_], formed[type_]
        if e == 0:
            idle.append(Usage(type_, id_, "never emitted", e, f))
        elif f >= residue_ratio * e and f > e:
            idle.append(Usage(type_, id_, "residue", e, f))
    return idle, untraced


def audit(
    tokeniser: Tokeniser,
    corpus: Iterable[str] | None = None,
    *,
    residue_ratio: float = 10.0,
    progress: Progress | None = None,
) -> Audit:
    """The unreachable types of ``tokeniser`` and, with ``corpus`` (lines of running text), its idle types."""
    started = time.perf_counter()
    unreachable = unreachable_types(tokeniser, progress)
    counts = None if corpus is None else pretoken_counts(tokeniser, corpus)
    idle, untraced = (None, 0) if counts is None else idle_types(tokeniser, counts, residue_ratio)
    return Audit(
        len(tokeniser.token_ids()),
        tuple(unreachable),
        time.perf_counter() - started,
        None if idle is None else tuple(idle),
        0 if counts is None else sum(counts.values()),
        residue_ratio if counts is not None else 0.0,
        untraced,
    )
