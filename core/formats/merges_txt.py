"""GPT-2 style ``merges.txt`` (+ optional ``vocab.json``) <-> :class:`core.model.BTETokeniser`.

No paper section (file format). One merge ``a b`` per line, rank = line order (``#version``
lines skipped); a line ``a b c`` is a tuple merge (bpe-knockout.txt §3.2). The files say nothing
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
from pathlib import Path

from core.errors import InputError
from core.merges import Merge
from core.model import BTETokeniser
from core.pretokenisers import ByteLevel, Metaspace, WhitespaceSplit
from core.pretokenisers.byte_level import BYTE_TO_CHAR
from core.pretokenisers.special_tokens import SpecialTokenSplit

#: share of the vocabulary's distinct characters that must be byte characters for byte-level
BYTE_LEVEL_SHARE = 0.99


def parse_merges_txt(text: str, source: str = "<merges.txt>", *, vocab: dict[str, int] | None = None,
                     pretokeniser=None, name: str = "", specials: list[str] | None = None) -> BTETokeniser:
    """``specials``: the special tokens, when files beside it name them (else entries ``<...>``)."""
    merges = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or (line_no == 1 and line.startswith("#version")):
            continue
        parts = tuple(line.rstrip("\r").split(" "))
        if len(parts) < 2 or not all(parts):
            raise InputError(f"expected a merge 'a b' (two or more tokens separated by single spaces), "
                             f"found {line[:60]!r}", source, line_no)
        merges.append(Merge(len(merges), parts))
    if not merges:
        raise InputError("no merges found: expected lines 'a b'", source)
    results = {m.result for m in merges}
    if vocab is not None:
        alphabet = sorted((t for t in vocab if t not in results), key=vocab.__getitem__)
    else:
        alphabet = sorted({ch for m in merges for p in m.parts for ch in p})
    guessed_specials = specials is None
    if guessed_specials:
        specials = [t for t in alphabet if len(t) > 1 and t.startswith("<") and t.endswith(">")]
    special_set = set(specials)
    alphabet = [t for t in alphabet if t not in special_set]
    detected = []
    if pretokeniser is None:
        pretokeniser, reason = guess_pretokeniser(alphabet)
        detected.append(f"pre-tokeniser {pretokeniser.kind} inferred: {reason} (override with --pretokeniser)")
    if specials and guessed_specials:
        detected.append(f"{len(specials)} entries of the form <...> taken as special tokens and matched in text: "
                        + ", ".join(specials[:5]) + (" ..." if len(specials) > 5 else ""))
    if specials and not getattr(pretokeniser, "normaliser", ()):
        pretokeniser = SpecialTokenSplit(pretokeniser, specials)
    try:
        return BTETokeniser(alphabet, merges, pretokeniser, specials=specials, type_ids=vocab, name=name,
                            metadata={"detected": detected} if detected else None)
    except InputError as err:
        raise InputError(err.message, source) from None


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
    return WhitespaceSplit(), (f"neither 'Ġ' with GPT-2 byte characters ({inside} of {len(chars)}) nor '▁' "
                               "occurs, so words are split at whitespace")


def merges_txt(tokeniser: BTETokeniser) -> str:
    """Serialise merges as merges.txt (tuple merges as ``a b c``)."""
    lines = ["#version: 0.2"]
    for merge in tokeniser.merges:
        if any(" " in p for p in merge.parts):
            raise InputError(f"merge {merge.parts!r} has a part containing a space; merges.txt cannot hold it")
        lines.append(str(merge))
    return "\n".join(lines) + "\n"


def save_merges_and_vocab(tokeniser: BTETokeniser, folder: str | Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "merges.txt").write_text(merges_txt(tokeniser), encoding="utf-8")
    (folder / "vocab.json").write_text(json.dumps(tokeniser.token_ids(), ensure_ascii=False), encoding="utf-8")


def vocab_from_json(vocab, source: str) -> dict[str, int]:
    if not (isinstance(vocab, dict) and all(isinstance(i, int) and not isinstance(i, bool) for i in vocab.values())):
        raise InputError("vocab.json must map token strings to integer ids", source)
    return vocab
