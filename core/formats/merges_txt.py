"""GPT-2 style ``merges.txt`` (+ optional ``vocab.json``) <-> :class:`core.bpe.model.BTETokeniser`.

No paper section (file format). One merge ``a b`` per line, rank = line order (a first line
``#version`` skipped; lines end at ``\\n``, as HF ``tokenizers`` reads them); a line ``a b c`` is a
tuple merge ([knockout §3.2]). With a vocab.json, every merge's parts and result must be in it (HF
``tokenizers`` refuses the files otherwise). Lines longer than :data:`core.limits.MAX_LINE_CHARS`
and files of more than :data:`core.bpe.merges.MAX_MERGES` merges are refused. The files say nothing
about pre-tokenisation, so unless the caller names one it is *inferred* from the characters of
the vocabulary, and the choice and its reason are recorded in ``metadata["detected"]``. Special
tokens (named by ``special_tokens_map.json`` / ``tokenizer_config.json`` beside the files, else
the vocabulary's ``<...>`` entries, as said in ``detected``) are matched whole in text, as
``transformers`` does:

- byte-level (GPT-2 ``ByteLevel``) when ``Ġ`` occurs and at least 99 % of the distinct characters
  are GPT-2 byte characters (a few odd entries, e.g. added special tokens, do not flip it);
- Metaspace when ``▁`` occurs;
- otherwise whitespace splitting.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from itertools import chain
from pathlib import Path

from core.bpe.merges import MAX_MERGES, Merge, check_merge_count
from core.bpe.model import BTETokeniser
from core.errors import InputError, excerpt
from core.limits import MAX_LINE_CHARS, check_line_length
from core.pipeline import ByteLevel, Metaspace, WhitespaceSplit
from core.pipeline.byte_level import BYTE_TO_CHAR
from core.pipeline.special_tokens import SpecialTokenSplit

#: share of the vocabulary's distinct characters that must be byte characters for byte-level
BYTE_LEVEL_SHARE = 0.99


def parse_merges_txt(
    text: str,
    source: str = "<merges.txt>",
    *,
    vocab: dict[str, int] | None = None,
    pretokeniser=None,
    name: str = "",
    specials: list[str] | None = None,
) -> BTETokeniser:
    """``specials``: the special tokens, when files beside it name them (else entries ``<...>``)."""
    check_merges_count(text, source)
    merges = read_merges(text, source, dict(zip(vocab, vocab, strict=True)) if vocab is not None else {}, vocab)
    if not merges:
        raise InputError("no merges found: expected lines 'a b'", source)
    results = {m.result for m in merges}
    if vocab is not None:
        alphabet = sorted((t for t in vocab if t not in results), key=vocab.__getitem__)
    else:
        alphabet = sorted(set(chain.from_iterable(results)))
    guessed_specials = specials is None
    if specials is None:
        specials = [t for t in alphabet if len(t) > 1 and t.startswith("<") and t.endswith(">")]
    special_set = set(specials)
    alphabet = [t for t in alphabet if t not in special_set]
    detected = []
    if pretokeniser is None:
        pretokeniser, reason = guess_pretokeniser(alphabet)
        detected.append(f"pre-tokeniser {pretokeniser.kind} inferred: {reason} (override with --pretokeniser)")
    if specials and guessed_specials:
        detected.append(
            f"{len(specials)} entries of the form <...> taken as special tokens and matched in text: "
            + ", ".join(excerpt(s, 40) for s in specials[:5])
            + (" ..." if len(specials) > 5 else "")
        )
    if specials and not getattr(pretokeniser, "normaliser", ()):
        pretokeniser = SpecialTokenSplit(pretokeniser, specials)
    try:
        return BTETokeniser(
            alphabet,
            merges,
            pretokeniser,
            specials=specials,
            type_ids=vocab,
            name=name,
            metadata={"detected": detected} if detected else None,
        )
    except InputError as err:
        raise InputError(err.message, source) from None


def read_merges(text: str, source: str, shared: dict[str, str], vocab: Collection[str] | None = None) -> list[Merge]:
    """The merges of a merges.txt, ranked by line (see the module docstring; a ``\\r`` before the
    ``\\n`` is dropped); ``shared``: the strings the merges reuse (:class:`core.bpe.merges.Merge`);
    ``vocab``: the tokens of its vocab.json, which must hold every merge's parts and result."""
    merges: list[Merge] = []
    add = merges.append
    for line_no, line in enumerate(_lines(text), 1):
        if line[-1:] == "\r":
            line = line[:-1]
        if not line.strip() or (line_no == 1 and line.startswith("#version")):
            continue
        if len(line) > MAX_LINE_CHARS:
            check_line_length(line, source, line_no)
        parts = line.split(" ")
        if len(parts) < 2 or "" in parts:
            raise InputError(
                f"expected a merge 'a b' (two or more tokens separated by single spaces), found {excerpt(line)}",
                source,
                line_no,
            )
        if vocab is not None:
            _check_in_vocab(parts, vocab, source, line_no)
        add(Merge(len(merges), tuple(parts), shared))
    return merges


def _check_in_vocab(parts: list[str], vocab: Collection[str], source: str, line_no: int) -> None:
    """InputError when a merge's part or result is not in the vocabulary (HF ``tokenizers`` refuses
    such a merge: "Token ... out of vocabulary")."""
    for token in (*parts, "".join(parts)):
        if token not in vocab:
            raise InputError(
                f"merge {excerpt(' '.join(parts), 60)} uses {excerpt(token, 40)}, which its vocab.json lacks "
                "(a merge's parts and its result must be in the vocabulary)",
                source,
                line_no,
            )


def check_merges_count(text: str, source: str) -> None:
    """InputError for a merges.txt of more than :data:`core.bpe.merges.MAX_MERGES` merges, before any
    is built (and before its vocab.json is read): lines are counted only when there are that many."""
    if text.count("\n") >= MAX_MERGES:
        lines = _lines(text)
        first = next(lines, "")
        merges = sum(map(bool, map(str.strip, lines))) + bool(first.strip() and not first.startswith("#version"))
        check_merge_count(merges, source)


def _lines(text: str, chunk: int = 1 << 20) -> Iterator[str]:
    """The lines of ``text`` split at ``\\n``, a chunk at a time: a large file's millions of lines
    are never all in one list."""
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start + chunk)
        stop = end if stop < 0 else stop
        yield from text[start:stop].split("\n")
        start = stop + 1


def guess_pretokeniser(alphabet) -> tuple:
    """(pre-tokeniser, why) for a vocabulary whose files do not say."""
    chars = {ch for entry in alphabet for ch in entry}
    byte_chars = set(BYTE_TO_CHAR.values())
    inside = len(chars & byte_chars)
    if "Ġ" in chars and inside >= BYTE_LEVEL_SHARE * len(chars):
        odd = sorted(chars - byte_chars)
        note = f"; {len(odd)} other characters ignored: {''.join(odd[:10])!r}" if odd else ""
        return ByteLevel(), f"'Ġ' occurs and {inside} of {len(chars)} characters are GPT-2 byte characters{note}"
    if "▁" in chars:
        return Metaspace(), "'▁' occurs in the vocabulary"
    return WhitespaceSplit(), (
        f"neither 'Ġ' with GPT-2 byte characters ({inside} of {len(chars)}) nor '▁' "
        "occurs, so words are split at whitespace"
    )


def merges_txt(tokeniser: BTETokeniser) -> str:
    """Serialise merges as merges.txt (tuple merges as ``a b c``)."""
    lines = ["#version: 0.2"]
    for merge in tokeniser.merges:
        if any(" " in p for p in merge.parts):
            raise InputError(f"merge {excerpt(merge.parts)} has a part containing a space; merges.txt cannot hold it")
        lines.append(str(merge))
    return "\n".join(lines) + "\n"


def save_merges_and_vocab(tokeniser: BTETokeniser, folder: str | Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "merges.txt").write_text(merges_txt(tokeniser), encoding="utf-8")
    (folder / "vocab.json").write_text(json.dumps(tokeniser.token_ids(), ensure_ascii=False), encoding="utf-8")


def vocab_from_json(vocab, source: str, field: str = "vocab") -> dict[str, int]:
    """``vocab`` when it maps token strings to integer ids; InputError naming ``field`` otherwise."""
    if not isinstance(vocab, dict):
        raise InputError(
            f"{field} must be an object mapping token strings to integer ids, found {type(vocab).__name__}", source
        )
    if set(map(type, vocab.values())) <= {int}:
        return vocab
    bad = next(t for t, i in vocab.items() if type(i) is not int)
    raise InputError(f"{field}[{excerpt(bad, 40)}]: expected an integer id, found {excerpt(vocab[bad], 40)}", source)
