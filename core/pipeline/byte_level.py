"""GPT-2 byte-level alphabet and the HF ``ByteLevel`` pre-tokeniser.

Implements the byte-level pre-tokenisation that [boundless App. A] compares against: split
with ``GPT2_PATTERN`` (Listing 3, T-1..T-6), then write every UTF-8 byte as one printable
character. Bytes that are printable Latin-1 characters (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``)
stand for themselves; the other 68 bytes, in increasing order, become U+0100, U+0101, ...
(so space -> ``Ġ``, newline -> ``Ċ``). Semantics follow HF ``tokenizers.pre_tokenizers.ByteLevel``.
"""

from __future__ import annotations

from core.errors import InputError
from core.options import check_bool
from core.pipeline.base import Pretoken
from core.pipeline.normalisation import NormalisedPretokeniser, check_normaliser
from core.pipeline.patterns import compile_pattern
from core.pipeline.spec_checks import check_text, spec_arguments
from core.pipeline.visible import escape_controls


def _byte_table() -> dict[int, str]:
    printable = {*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)}
    table, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(0x100 + extra)
            extra += 1
    return table


#: byte value -> its character in the GPT-2 byte alphabet (256 entries).
BYTE_TO_CHAR: dict[int, str] = _byte_table()
#: inverse of :data:`BYTE_TO_CHAR`.
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_CHAR.items()}
#: the byte character of a space, the word-start marker of byte-level tokenisers.
BYTE_SPACE = BYTE_TO_CHAR[ord(" ")]
_GPT2 = compile_pattern("gpt2")


#: str.translate table from Latin-1 characters (one per byte) to byte characters.
_LATIN1_TO_BYTE_CHARS = {b: BYTE_TO_CHAR[b] for b in range(256)}


def bytes_to_byte_chars(data: bytes) -> str:
    return data.decode("latin-1").translate(_LATIN1_TO_BYTE_CHARS)


def text_to_byte_chars(text: str) -> str:
    """``text`` as UTF-8 bytes written in the byte alphabet (lone surrogates pass through)."""
    return bytes_to_byte_chars(text.encode("utf-8", "surrogatepass"))


#: str.translate table from byte characters to the Latin-1 character of their byte; the characters
#: U+0080..U+00FF that are *not* byte characters go to U+FFFF, which Latin-1 cannot encode.
_BYTE_CHARS_TO_LATIN1 = {ord(c): chr(b) for c, b in CHAR_TO_BYTE.items()} | {
    c: "\uffff" for c in range(0x80, 0x100) if chr(c) not in CHAR_TO_BYTE
}


def byte_chars_to_bytes(chars: str, strict: bool = False) -> bytes:
    """Bytes of a byte-character string.

    A character outside the alphabet (e.g. in a special token) is kept as its own UTF-8 bytes,
    or raises InputError if ``strict``.
    """
    try:  # fast path: byte characters, and ASCII outside the alphabet (its UTF-8 is its Latin-1)
        return chars.translate(_BYTE_CHARS_TO_LATIN1).encode("latin-1")
    except UnicodeEncodeError:
        pass
    out = bytearray()
    for c in chars:
        b = CHAR_TO_BYTE.get(c)
        if b is not None:
            out.append(b)
        elif strict:
            raise InputError(f"character {c!r} (U+{ord(c):04X}) is not in the GPT-2 byte alphabet")
        else:
            out += c.encode("utf-8", "surrogatepass")
    return bytes(out)


def byte_chars_to_text(chars: str) -> str:
    """Text of a byte-character string; invalid UTF-8 becomes U+FFFD."""
    return byte_chars_to_bytes(chars).decode("utf-8", "replace")


def display_byte_chars(chars: str, space: str = BYTE_SPACE) -> str:
    """A byte-level token for people: bytes decoded, spaces shown as ``space``, control
    characters escaped, and bytes that do not form a whole UTF-8 character (a token that ends or
    starts inside a multi-byte character) shown as ``\\xNN``."""
    text = byte_chars_to_bytes(chars).decode("utf-8", "backslashreplace")
    return escape_controls(text).replace(" ", space)


class ByteLevel(NormalisedPretokeniser):
    """HF ``ByteLevel`` pre-tokeniser: optional prefix space, GPT-2 regex split, byte mapping.

    ``add_prefix_space`` adds a space (source -1) in front of non-empty text that does not start
    with one. ``use_regex=False`` keeps the whole text as one pretoken. ``trim_offsets`` only
    matters to HF's offset post-processing; it is kept so the HF JSON round-trips.
    """

    kind = "bytelevel"
    marker = BYTE_SPACE

    def __init__(
        self,
        add_prefix_space: bool = False,
        use_regex: bool = True,
        trim_offsets: bool = True,
        normaliser: tuple[str, ...] = (),
    ):
        self.add_prefix_space = check_bool("add_prefix_space", add_prefix_space)
        self.use_regex = check_bool("use_regex", use_regex)
        self.trim_offsets = check_bool("trim_offsets", trim_offsets)
        self.normaliser = check_normaliser(normaliser)

    def _prepared(self, text: str) -> tuple[str, int]:
        """Normalised text with the optional prefix space, and the offset that space adds."""
        text = self.normalise(check_text(text))
        if text and self.add_prefix_space and not text.startswith(" "):
            return " " + text, 1
        return text, 0

    def pretokenise(self, text: str) -> list[str]:
        """Fast path without source offsets (segmentation needs only the strings)."""
        return [text_to_byte_chars(piece) for piece in self.pieces(text)]

    def pieces(self, text: str) -> list[str]:
        text, _ = self._prepared(text)
        if not text:
            return []
        return _GPT2.findall(text) if self.use_regex else [text]

    def encode_piece(self, piece: str) -> str:
        return text_to_byte_chars(piece)

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        text, offset = self._prepared(text)
        if not text:
            return []
        spans = [m.span() for m in _GPT2.finditer(text)] if self.use_regex else [(0, len(text))]
        pretokens = []
        for start, end in spans:
            piece = text[start:end]
            if piece.isascii():  # one byte per character: sources are the positions themselves
                sources = tuple(i - offset if i >= offset else -1 for i in range(start, end))
                pretokens.append(Pretoken(text_to_byte_chars(piece), sources))
                continue
            chars: list[str] = []
            byte_sources: list[int] = []
            for i in range(start, end):
                encoded = text_to_byte_chars(text[i])
                chars.append(encoded)
                byte_sources.extend([i - offset if i >= offset else -1] * len(encoded))
            pretokens.append(Pretoken("".join(chars), tuple(byte_sources)))
        return pretokens

    def decode(self, tokens: list[str]) -> str:
        """UTF-8 text of the tokens' bytes (invalid sequences -> U+FFFD). With
        ``add_prefix_space`` one leading space is dropped, like HF's Metaspace decoder does for
        its prefix (HF's ByteLevel decoder keeps it)."""
        text = byte_chars_to_text("".join(tokens))
        if self.add_prefix_space and text.startswith(" "):
            text = text[1:]
        return text

    def display(self, token: str) -> str:
        return display_byte_chars(token)

    def to_spec(self) -> dict:
        return {
            "kind": self.kind,
            "add_prefix_space": self.add_prefix_space,
            "use_regex": self.use_regex,
            "trim_offsets": self.trim_offsets,
            "normaliser": list(self.normaliser),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> ByteLevel:
        return cls(**spec_arguments(spec, cls.kind, ("add_prefix_space", "use_regex", "trim_offsets", "normaliser")))
