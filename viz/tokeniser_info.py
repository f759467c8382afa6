"""What the explorer says about a tokeniser: URL-safe names, facts, notes, a legend for its markers.

Pure functions (no Streamlit). Text meant for ``st.markdown``/``st.caption`` is our own wording;
whatever comes from a file (markers, a scenario's title and explanation) goes through
:func:`viz.escaping.md_escape` or :func:`viz.escaping.code_span`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from core.bpe.model import BTETokeniser
from viz.escaping import code_span, md_escape

#: Short notes on the tokenisers that are not scenarios (scenarios carry their own metadata).
NOTES = {
    "nl-40k": (
        "**nl-40k** is the Dutch baseline tokeniser of the BPE-knockout paper (Bauwens & Delobelle 2024, "
        "§4.1): byte-level BPE trained on the Dutch part of the OSCAR web corpus the way RoBERTa/RobBERT "
        "tokenisers are trained, with |V| = 40,000 (5 special tokens, 256 byte types, 39,739 merges). "
        "It has the merges of the paper's Figure 1 (`id s`, `Ġbru id`, `Ġbru ids`): try *bruidsjurk* and "
        "*gids*. Shipped unchanged from the `bpe-knockout` package (Apache-2.0)."
    ),
    "nl-bpe-4k-wordfreq": (
        "**nl-bpe-4k-wordfreq** is a small Dutch BPE (4,000 types, character alphabet, Metaspace `▁`) that "
        "this project trained on the 40,000 most frequent Dutch words of `wordfreq`; its merges are "
        "identical to those of HF `BpeTrainer` on the same counts."
    ),
    "en-bpe-4k-wordfreq": (
        "**en-bpe-4k-wordfreq** is a small English BPE (4,000 types, character alphabet, Metaspace `▁`) that "
        "this project trained on the 40,000 most frequent English words of `wordfreq`; its merges are "
        "identical to those of HF `BpeTrainer` on the same counts."
    ),
}


#: What a shipped tokeniser is, for the choosers (scenarios use their own metadata title).
SHORT_DESCRIPTIONS = {
    "nl-40k": "Dutch byte-level BPE, |V| 40,000 (BPE-knockout paper)",
    "nl-bpe-4k-wordfreq": "Dutch BPE, |V| 4,000 (trained here on wordfreq)",
    "en-bpe-4k-wordfreq": "English BPE, |V| 4,000 (trained here on wordfreq)",
}


def choice_label(name: str, metadata: Mapping | None = None) -> str:
    """``name · what it is`` for a chooser: a known sample's description, or a scenario's title."""
    if name in SHORT_DESCRIPTIONS:
        return f"{name} · {SHORT_DESCRIPTIONS[name]}"
    title = (metadata or {}).get("title")
    return f"{name} · {title}" if title else name


def short_name(name: str) -> str:
    """The URL-friendly name of a shipped tokeniser: its label without a trailing ``(...)`` remark,
    e.g. ``"nl-40k (BPE-knockout paper)"`` -> ``"nl-40k"``."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", name).strip() or name


def tokeniser_choices(paths: Mapping[str, Path | str]) -> dict[str, str]:
    """Short name -> path (as a string) for every shipped tokeniser, in the given order.

    Raises ValueError if two labels shorten to the same name (the URL would be ambiguous).
    """
    choices: dict[str, str] = {}
    for name, path in paths.items():
        key = short_name(name)
        if key in choices:
            raise ValueError(f"tokenisers {name!r} and another both shorten to {key!r}")
        choices[key] = str(path)
    return choices


def valid_choice(value: object, choices: Mapping[str, object], default: str) -> str:
    """``value`` if it names a choice, otherwise ``default`` (values from a URL are untrusted)."""
    return value if isinstance(value, str) and value in choices else default


def vocab_size_parts(tokeniser) -> tuple[int, int]:
    """(types, special tokens outside them): the two parts of ``tokeniser.vocab_size``, |V| as HF
    counts it (a loaded Unigram model's control and unknown pieces count as special tokens)."""
    types = len(tokeniser.vocabulary)
    return types, max(0, tokeniser.vocab_size - types)


#: What |V| means everywhere in the explorer (a column's help; :func:`vocab_size_help` adds the numbers).
VOCAB_SIZE_RULE = "|V| counts special tokens as HF does"
VOCAB_SIZE_HELP = f"{VOCAB_SIZE_RULE}: the types plus the special tokens."


def vocab_size_help(tokeniser) -> str:
    """Hover text for a |V| figure: what |V| counts, with this tokeniser's numbers, e.g. "|V| counts
    special tokens as HF does: 39,995 types in the merge graph + 5 special tokens = 40,000"."""
    types, specials = vocab_size_parts(tokeniser)
    counted = f"{VOCAB_SIZE_RULE}: {types:,} types" + (
        " in the merge graph" if isinstance(tokeniser, BTETokeniser) else ""
    )
    if not specials:
        return f"{counted}, no special tokens."
    return f"{counted} + {specials:,} special token{'s' if specials != 1 else ''} = {tokeniser.vocab_size:,}."


def tokeniser_facts(tokeniser) -> list[tuple[str, str]]:
    """(label, formatted value) pairs for the facts row: |V|, types, merges, tuple merges, alphabet."""
    return [
        ("|V|", f"{tokeniser.vocab_size:,}"),
        ("Types", f"{len(tokeniser.types):,}"),
        ("Merges", f"{len(tokeniser.merges):,}"),
        ("Tuple merges", f"{len(tokeniser.tuple_merges):,}"),
        ("Alphabet", f"{len(tokeniser.alphabet):,}"),
    ]


def markers(pretokeniser) -> tuple[str, ...]:
    """The marker strings a pre-tokeniser puts in tokens (word start, capital), for fading in chips."""
    found = (pretokeniser.marker, getattr(pretokeniser, "capital_marker", None))
    return tuple(m for m in found if isinstance(m, str) and m)


def marker_legend(pretokeniser) -> str:
    """One markdown line on how to read this tokeniser's chips (pre-tokeniser, markers, bytes)."""
    kind = pretokeniser.kind or type(pretokeniser).__name__
    parts = [f"Pre-tokeniser {code_span(pretokeniser.short_description())}"]
    marker = pretokeniser.marker
    byte_level = kind == "bytelevel" or getattr(pretokeniser, "byte_level", False)
    if byte_level:
        parts.append(f"{code_span(marker or 'Ġ')} = the space byte, i.e. a word start")
        parts.append("`\\xNN` = a byte that is not a whole character")
    elif marker:
        parts.append(f"{code_span(marker)} = word start")
    else:
        parts.append("no word-start marker (each word is a bare string)")
    capital = getattr(pretokeniser, "capital_marker", None)
    if capital:
        parts.append(f"{code_span(capital)} = the next word was capitalised (text is lower-cased)")
    if not byte_level:
        parts.append("`\\xNN` = a control character")
    parts.append("`␣` = a space")
    parts.append("dashed red border = not a type of this tokeniser")
    parts.append("the small number = the token's id (a merge's rank is written #1234)")
    return "**How to read the chips:** " + " · ".join(parts) + "."


def tokeniser_note(name: str, metadata: Mapping) -> tuple[str, str] | None:
    """``("info", markdown)`` for a scenario (title, section, explanation, knockout) or a known
    tokeniser, None otherwise."""
    if metadata.get("title"):
        text = f"**{md_escape(metadata['title'])}**"
        if metadata.get("section"):
            text += f" ({md_escape(metadata['section'])})"
        if metadata.get("explanation"):
            text += f"  \n{md_escape(metadata['explanation'])}"
        if metadata.get("knockout"):
            text += f"  \nMerge knocked out in the paper: {code_span(str(metadata['knockout']))}."
        return ("info", text)
    if name in NOTES:
        return ("info", NOTES[name])
    return None
