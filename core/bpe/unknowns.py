"""What a BPE model does with characters outside its vocabulary.

No paper section (the papers' tokenisers have a full byte alphabet). HF ``tokenizers`` BPE
(``models/bpe/model.rs``, ``merge_word``) and SentencePiece BPE agree on this order, for each
character that is not a vocabulary entry:

1. ``byte_fallback``: its UTF-8 bytes as ``<0xNN>`` tokens, when every one of them is in the
   vocabulary;
2. otherwise ``unk_token``, one per character, or one per run of such characters with
   ``fuse_unk``;
3. with neither, HF drops the character before merging (``drop_unknown``); the project's own
   tokenisers keep it as a token of its own, which is what a teaching example should show.

SentencePiece encodes a run of unknown characters as one unk id but shows the run's own text as
its piece (``show_surface``): that surface is the token, and its id is the unk token's.

HF emits an unk only when the next known character or the end of the pretoken arrives, so
byte-fallback tokens of a later character come out *before* it (``x é`` -> ``<0xC3> <0xA9>
<unk>``); ``defer_unk`` reproduces that order, SentencePiece keeps the text's order.

No merge can involve an unknown character (every part of a merge is a type), so the segmentation
engine merges as if the characters were there and this policy maps them afterwards; only dropping
happens before merging, because HF merges across a dropped character.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

from core.errors import InputError


def byte_token(byte: int) -> str:
    """The byte-fallback token of one byte: ``<0x0A>``."""
    return f"<0x{byte:02X}>"


@dataclass(frozen=True)
class UnknownPolicy:
    unk_token: str | None = None
    fuse_unk: bool = False
    byte_fallback: bool = False
    drop_unknown: bool = False
    defer_unk: bool = False
    show_surface: bool = False

    @property
    def is_default(self) -> bool:
        return self == UnknownPolicy()

    def drop(self, symbols: list[str], known: frozenset[str]) -> list[str]:
        """The symbols to merge: without an unk token, unknown ones that no byte fallback covers
        are removed when the policy drops them."""
        if not self.drop_unknown or self.unk_token is not None or known.issuperset(symbols):
            return symbols
        return [s for s in symbols if s in known or (self.byte_fallback and self._bytes_known(s, known))]

    @staticmethod
    def _bytes_known(symbol: str, known: Container[str]) -> bool:
        return all(byte_token(b) in known for b in symbol.encode("utf-8", "surrogatepass"))

    def replace(self, tokens: tuple[str, ...], known: frozenset[str]) -> tuple[str, ...]:
        """``tokens`` with every unknown one replaced by its byte tokens or the unk token."""
        if known.issuperset(tokens):
            return tokens
        out: list[str] = []
        unk = self.unk_token or ""  # written only while an unk is pending, which needs an unk token
        pending = False  # an unk not yet written (fused runs, HF's deferred order)
        for token in tokens:
            if token in known:
                if pending and not self.show_surface:
                    out.append(unk)
                pending = False
                out.append(token)
            elif self.byte_fallback and self._bytes_known(token, known):
                if pending and not self.defer_unk and not self.show_surface:
                    out.append(unk)
                pending = pending and self.defer_unk
                out.extend(byte_token(b) for b in token.encode("utf-8", "surrogatepass"))
            else:
                pending = self._unknown(out, token, pending)
        if pending and not self.show_surface:
            out.append(unk)
        return tuple(out)

    def _unknown(self, out: list[str], token: str, pending: bool) -> bool:
        """Write what an unknown token without byte fallback becomes; returns whether an unk is
        now pending."""
        if self.unk_token is None:
            if not self.drop_unknown:
                out.append(token)
            return pending
        if self.show_surface:
            if pending and self.fuse_unk:
                out[-1] += token
            else:
                out.append(token)
            return True
        if pending and not self.fuse_unk:
            out.append(self.unk_token)
        return True

    def to_json(self) -> dict:
        return {
            "unk_token": self.unk_token,
            "fuse_unk": self.fuse_unk,
            "byte_fallback": self.byte_fallback,
            "drop_unknown": self.drop_unknown,
            "defer_unk": self.defer_unk,
            "show_surface": self.show_surface,
        }

    @classmethod
    def from_json(cls, obj, source: str) -> UnknownPolicy:
        """The policy a saved ``"unknown"`` field describes; InputError naming ``source``."""
        flags = [name for name in cls.__dataclass_fields__ if name != "unk_token"]
        if not (
            isinstance(obj, dict)
            and set(obj) <= {"unk_token", *flags}
            and all(isinstance(obj.get(k, False), bool) for k in flags)
            and isinstance(obj.get("unk_token"), (str, type(None)))
        ):
            raise InputError(
                "field 'unknown' must be an object with unk_token (string or null) and "
                + ", ".join(flags)
                + " (true/false)",
                source,
            )
        return cls(**obj)

    def describe(self) -> str:
        parts = []
        if self.byte_fallback:
            parts.append("byte fallback <0xNN>")
        if self.unk_token is not None:
            parts.append(f"unk {self.unk_token!r}" + (" (fused)" if self.fuse_unk else ""))
        if not parts:
            parts.append("dropped" if self.drop_unknown else "kept as their own tokens")
        return ", then ".join(parts)


DEFAULT_UNKNOWN = UnknownPolicy()  # the policy of a tokeniser that declares none
