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

No merge can involve an unknown character (every part of a merge is a type), so the segmentation
engine merges as if the characters were there and this policy maps them afterwards; only dropping
happens before merging, because HF merges across a dropped character.
"""
from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass


def byte_token(byte: int) -> str:
    """The byte-fallback token of one byte: ``<0x0A>``."""
    return f"<0x{byte:02X}>"


@dataclass(frozen=True)
class UnknownPolicy:
    unk_token: str | None = None
    fuse_unk: bool = False
    byte_fallback: bool = False
    drop_unknown: bool = False

    @property
    def is_default(self) -> bool:
        return self == UnknownPolicy()

    def drop(self, symbols: list[str], known: Container[str]) -> list[str]:
        """The symbols to merge: unknown ones removed when the policy drops them."""
        if self.drop_unknown and self.unk_token is None and not self.byte_fallback:
            return [s for s in symbols if s in known]
        return symbols

    def replace(self, tokens: tuple[str, ...], known: Container[str]) -> tuple[str, ...]:
        """``tokens`` with every unknown one replaced by its byte tokens or the unk token."""
        if all(t in known for t in tokens):
            return tokens
        out: list[str] = []
        previous_unk = False
        for token in tokens:
            if token in known:
                out.append(token)
                previous_unk = False
                continue
            if self.byte_fallback:
                pieces = [byte_token(b) for b in token.encode("utf-8", "surrogatepass")]
                if all(p in known for p in pieces):
                    out.extend(pieces)
                    previous_unk = False
                    continue
            if self.unk_token is None:
                if not self.drop_unknown:
                    out.append(token)
                continue
            if not (self.fuse_unk and previous_unk):
                out.append(self.unk_token)
            previous_unk = True
        return tuple(out)

    def to_json(self) -> dict:
        return {"unk_token": self.unk_token, "fuse_unk": self.fuse_unk, "byte_fallback": self.byte_fallback,
                "drop_unknown": self.drop_unknown}

    def describe(self) -> str:
        parts = []
        if self.byte_fallback:
            parts.append("byte fallback <0xNN>")
        if self.unk_token is not None:
            parts.append(f"unk {self.unk_token!r}" + (" (fused)" if self.fuse_unk else ""))
        if not parts:
            parts.append("dropped" if self.drop_unknown else "kept as their own tokens")
        return "unknown characters: " + ", then ".join(parts)
