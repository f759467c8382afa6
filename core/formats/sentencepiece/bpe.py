"""SentencePiece ``.model`` files of BPE type as :class:`core.bpe.model.BTETokeniser` objects.

No paper section (file format). SentencePiece's BPE encoder (``bpe_model.cc``,
``Model::SampleEncode`` without dropout) starts from the characters of the normalised text, a
user-defined piece (longest match) being one *frozen* symbol that never merges, and repeatedly
joins the adjacent pair whose concatenation is a piece with the highest score, the leftmost pair
on ties. A symbol that is no piece is unknown: its UTF-8 bytes become ``<0xNN>`` pieces with
``byte_fallback``, otherwise a run of them is one unknown piece (id of ``<unk>``; ``encode(...,
out_type=str)`` shows the characters themselves).

As a merge list (the representation tiktoken files get too): every split of a mergeable piece
(NORMAL or UNUSED) into two mergeable pieces, neither user-defined, is a merge, and all merges
forming one piece share its rank, the piece's position in descending score order. The engine
fires the lowest rank first and equal ranks leftmost first, which is SentencePiece's order as
long as different pieces have different scores. Pieces that share a score (Llama 2 / Mistral:
their runs of ``▁``, all scored -1e9) are ranked longest first: for runs of one character that
makes the engine grow the leftmost symbol first, as SentencePiece does; ``metadata["detected"]``
names them.

Other parts of the file: the alphabet is the single-character pieces, the user-defined pieces
(also ``atoms``) and the byte pieces; UNKNOWN and CONTROL pieces (``<unk>``, ``<s>``, ``</s>``) are
specials, never matched in text; ids are piece ids; unknown characters follow
``UnknownPolicy(unk_token=<unk>, fuse_unk=True, byte_fallback=..., show_surface=True)`` (a run of
unknown characters is one token showing its text, with the unk id). UNUSED pieces, which
SentencePiece forms and then splits back, are refused. The pre-tokeniser is the file's normaliser
(:mod:`core.formats.sentencepiece.model_proto`).
"""

from __future__ import annotations

from collections import Counter

from core.bpe.merges import merges_of_splits
from core.bpe.model import BTETokeniser
from core.bpe.unknowns import UnknownPolicy, byte_token
from core.errors import InputError, excerpt
from core.formats.sentencepiece.model_proto import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    ModelProto,
    read_model_proto,
)
from core.limits import check_split_bytes


def bpe_from_model_proto(proto: ModelProto, name: str = "") -> BTETokeniser:
    source = proto.source
    unused = proto.of_type(UNUSED)
    if unused:
        raise InputError(
            f"{len(unused)} unused pieces (e.g. {excerpt(unused[0], 40)}): SentencePiece re-splits them "
            "after merging, which a merge list cannot express",
            source,
        )
    unk = proto.unk_piece
    user_defined = proto.of_type(USER_DEFINED)
    scored = [(piece, score, i) for i, (piece, score, kind) in enumerate(proto.pieces) if kind == NORMAL]
    mergeable = {piece for piece, _, _ in scored}
    byte_pieces = proto.of_type(BYTE)
    if proto.byte_fallback:
        missing = [b for b in range(256) if byte_token(b) not in set(byte_pieces)]
        if missing:
            raise InputError(
                f"byte_fallback is set but {len(missing)} byte pieces are missing (e.g. {byte_token(missing[0])})",
                source,
            )

    # Ranks: descending score; pieces sharing a score longest first, then by id.
    multi = [(piece, score, i) for piece, score, i in scored if len(piece) > 1]
    multi.sort(key=lambda row: (-row[1], -len(row[0]), row[2]))
    shared = Counter(score for _, score, _ in multi)
    tied = [piece for piece, score, _ in multi if shared[score] > 1]
    check_split_bytes((piece for piece, _, _ in multi), source)
    try:
        merges = merges_of_splits(((piece, rank) for rank, (piece, _, _) in enumerate(multi)), mergeable)
    except InputError as err:
        raise InputError(err.message, source) from None
    results = {m.result for m in merges}
    unreachable = [piece for piece, _, _ in multi if piece not in results]
    singles = [piece for piece, _, _ in scored if len(piece) == 1]
    alphabet = [*singles, *(p for p in user_defined if p not in results), *unreachable, *byte_pieces]
    specials = proto.of_type(UNKNOWN, CONTROL)

    detected = proto.detected
    pretokeniser = proto.pretokeniser([*mergeable, *user_defined])
    if tied:
        detected.append(
            f"{len(tied)} pieces share a score with another (e.g. {excerpt(tied[0], 40)}); SentencePiece "
            "takes the leftmost of such pairs, the merge list the longest piece first"
        )
    if unreachable:
        detected.append(
            f"{len(unreachable)} pieces no two pieces join into (e.g. {excerpt(unreachable[0], 40)}): "
            "kept in the alphabet, never produced from text"
        )
    if user_defined:
        detected.append(f"{len(user_defined)} user-defined pieces matched whole (e.g. {excerpt(user_defined[0], 40)})")
    detected.append(
        "unknown characters: " + ("<0xNN> byte pieces" if proto.byte_fallback else f"{excerpt(unk, 40)}, one per run")
    )
    metadata = {"format": "sentencepiece-bpe", "normaliser": proto.rule(), "detected": list(detected)}
    try:
        return BTETokeniser(
            alphabet,
            merges,
            pretokeniser,
            specials=specials,
            type_ids=proto.ids,
            name=name,
            metadata=metadata,
            atoms=user_defined,
            unknown=UnknownPolicy(unk_token=unk, fuse_unk=True, byte_fallback=proto.byte_fallback, show_surface=True),
        )
    except InputError as err:
        raise InputError(err.message, source) from None


def parse_sentencepiece_bpe(data: bytes, source: str = "<model>", name: str = "") -> BTETokeniser:
    """A BPE ``ModelProto`` as a tokeniser; InputError for anything else."""
    proto = read_model_proto(data, source)
    if proto.model_type != "bpe":
        raise InputError(f"this is a SentencePiece {proto.model_type} model, not a BPE one", source)
    return bpe_from_model_proto(proto, name)
