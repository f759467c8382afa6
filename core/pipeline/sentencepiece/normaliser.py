"""SentencePiece's normaliser (``NormalizerSpec``) as a pre-tokeniser.

Follows SentencePiece ``normalizer.cc`` (``Normalizer::Normalize``) step by step:

1. the text is consumed left to right in *prefixes*: a user-defined piece (longest first) is
   copied unchanged, else the longest rule of the precompiled charsmap
   (:mod:`core.pipeline.sentencepiece.charsmap`) is replaced by its string, else one character is copied;
2. with ``remove_extra_whitespaces``: leading prefixes that normalise to exactly one space are
   dropped, spaces at the start of a prefix's output that follows an output ending in a space are
   dropped (runs of spaces collapse to one), and trailing spaces (``▁`` when escaping, whatever
   produced it) are removed at the end;
3. with ``add_dummy_prefix`` one space is put in front (source -1) of non-empty text;
4. with ``escape_whitespaces`` every space U+0020 of the output becomes ``▁`` U+2581.

Text that is empty or only spaces normalises to nothing (no dummy prefix). ``sources`` index the
text as given (``sources_in_original``): a character produced by a rule gets the index of the
first character the rule consumed.

Splitting (``split``): "each" cuts before every ``▁`` (each pretoken but possibly the first starts
with it), which is exact for a model whose pieces hold ``▁`` only as their first character;
"runs" cuts only before a ``▁`` that follows another character, so a run of ``▁`` stays with the
word after it (exact when no piece holds ``▁`` after a character other than ``▁``, e.g. Llama 2's
pieces of several ``▁``); "none" keeps the whole normalised text as one pretoken, as
SentencePiece's encoders see it. ``treat_whitespace_as_suffix`` models are not supported. User-defined pieces are only
protected from normalisation here; the model takes them as atoms.
"""

from __future__ import annotations

from itertools import pairwise

from core.errors import InputError
from core.options import check_bool, check_choice
from core.pipeline.base import Pretoken, Pretokeniser
from core.pipeline.sentencepiece.charsmap import Charsmap, charsmap_pieces
from core.pipeline.spec_checks import check_text, spec_arguments
from core.pipeline.visible import escape_controls

SPACE_SYMBOL = "\u2581"
SPLIT_MODES = ("each", "runs", "none")


class SentencePieceNormaliser(Pretokeniser):
    kind = "sentencepiece"
    sources_in_original = True

    def __init__(
        self,
        charsmap: Charsmap | str | bytes | None = None,
        rule: str = "identity",
        *,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        split: str = "each",
        user_defined: tuple[str, ...] | list[str] = (),
    ):
        if isinstance(charsmap, str):
            charsmap = Charsmap.from_base64(charsmap) if charsmap else None
        elif isinstance(charsmap, (bytes, bytearray)):
            charsmap = Charsmap.from_bytes(bytes(charsmap)) if charsmap else None
        elif charsmap is not None and not isinstance(charsmap, Charsmap):
            raise InputError(f"charsmap must be a Charsmap, base64 text, bytes or None, got {charsmap!r}")
        self.charsmap: Charsmap | None = charsmap
        if not isinstance(rule, str):
            raise InputError(f"rule must be a string (the normalisation rule's name), got {rule!r}")
        self.rule = rule
        self.add_dummy_prefix = check_bool("add_dummy_prefix", add_dummy_prefix)
        self.remove_extra_whitespaces = check_bool("remove_extra_whitespaces", remove_extra_whitespaces)
        self.escape_whitespaces = check_bool("escape_whitespaces", escape_whitespaces)
        self.split = check_choice("split", split, SPLIT_MODES)
        if (
            isinstance(user_defined, str)
            or not isinstance(user_defined, (list, tuple))
            or not all(isinstance(p, str) and p for p in user_defined)
        ):
            raise InputError(f"user_defined must be a list of non-empty strings, got {user_defined!r}")
        self.user_defined: tuple[str, ...] = tuple(dict.fromkeys(user_defined))
        self._protected_set = frozenset(self.user_defined)
        self._protected_lengths = sorted({len(p) for p in self.user_defined}, reverse=True)
        self.marker = SPACE_SYMBOL if self.escape_whitespaces else " "

    # --- normalisation -------------------------------------------------------------------------
    def _protected(self, text: str, i: int) -> int:
        for length in self._protected_lengths:
            if text[i : i + length] in self._protected_set:
                return length
        return 0

    def normalise_with_sources(self, text: str) -> tuple[str, tuple[int, ...]]:
        """The normalised text (``▁`` for spaces when escaping) and the source of each character."""
        text = check_text(text)
        steps = charsmap_pieces(self.charsmap, text, self._protected if self.user_defined else None)
        remove = self.remove_extra_whitespaces
        k = 0
        if remove:  # leading prefixes that normalise to exactly one space
            while k < len(steps) and steps[k][2] == " ":
                k += 1
        if k == len(steps):
            return "", ()
        chars: list[str] = []
        sources: list[int] = []
        if self.add_dummy_prefix:
            chars.append(" ")
            sources.append(-1)
        prev_space = remove
        for start, _, output in steps[k:]:
            if prev_space:
                output = output.lstrip(" ")
            if output:
                chars.extend(output)
                sources.extend([start] * len(output))
                prev_space = output.endswith(" ")
            if not remove:
                prev_space = False
        space = " "
        if self.escape_whitespaces:
            chars = [SPACE_SYMBOL if c == " " else c for c in chars]
            space = SPACE_SYMBOL
        if remove:
            end = len(chars)
            while end and chars[end - 1] == space:
                end -= 1
            del chars[end:], sources[end:]
        return "".join(chars), tuple(sources)

    def normalise(self, text: str) -> str:
        return self.normalise_with_sources(text)[0]

    def pretokenise_with_sources(self, text: str) -> list[Pretoken]:
        normalised, sources = self.normalise_with_sources(text)
        if not normalised:
            return []
        if self.split == "none":
            return [Pretoken(normalised, sources)]
        marker = self.marker
        runs = self.split == "runs"
        cuts = [0] + [
            i
            for i in range(1, len(normalised))
            if normalised[i] == marker and not (runs and normalised[i - 1] == marker)
        ]
        cuts.append(len(normalised))
        return [Pretoken(normalised[a:b], sources[a:b]) for a, b in pairwise(cuts)]

    def pretokenise(self, text: str) -> list[str]:
        return [p.text for p in self.pretokenise_with_sources(text)]

    # --- display -------------------------------------------------------------------------------
    def decode(self, tokens: list[str]) -> str:
        """SentencePiece's decoding of pieces: ``▁`` becomes a space and, with
        ``add_dummy_prefix``, the space at the very start is dropped (normalisation itself is
        not undone)."""
        text = "".join(tokens)
        if self.escape_whitespaces:
            text = text.replace(SPACE_SYMBOL, " ")
        if self.add_dummy_prefix and text.startswith(" "):
            text = text[1:]
        return text

    def display(self, token: str) -> str:
        return escape_controls(token)

    # --- specs ---------------------------------------------------------------------------------
    def to_spec(self) -> dict:
        return {
            "kind": self.kind,
            "charsmap": self.charsmap.to_base64() if self.charsmap else None,
            "rule": self.rule,
            "add_dummy_prefix": self.add_dummy_prefix,
            "remove_extra_whitespaces": self.remove_extra_whitespaces,
            "escape_whitespaces": self.escape_whitespaces,
            "split": self.split,
            "user_defined": list(self.user_defined),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> SentencePieceNormaliser:
        args = spec_arguments(
            spec,
            cls.kind,
            (
                "charsmap",
                "rule",
                "add_dummy_prefix",
                "remove_extra_whitespaces",
                "escape_whitespaces",
                "split",
                "user_defined",
            ),
        )
        charsmap = args.pop("charsmap", None)
        if charsmap is not None and not isinstance(charsmap, str):
            raise InputError(f"charsmap must be base64 text or null, got {charsmap!r}")
        return cls(charsmap, **args)

    def __hash__(self) -> int:
        return hash(
            (
                self.charsmap,
                self.rule,
                self.add_dummy_prefix,
                self.remove_extra_whitespaces,
                self.escape_whitespaces,
                self.split,
                self.user_defined,
            )
        )

    def describe(self) -> str:
        return (
            f"SentencePiece normaliser: rule {self.rule}, add_dummy_prefix={self.add_dummy_prefix}, "
            f"remove_extra_whitespaces={self.remove_extra_whitespaces}, split={self.split}"
        )

    def short_description(self) -> str:
        return f"SentencePiece ({self.rule})"

    def __repr__(self) -> str:
        return (
            f"SentencePieceNormaliser(rule={self.rule!r}, add_dummy_prefix={self.add_dummy_prefix}, "
            f"remove_extra_whitespaces={self.remove_extra_whitespaces}, "
            f"escape_whitespaces={self.escape_whitespaces}, split={self.split}, "
            f"user_defined={len(self.user_defined)})"
        )
