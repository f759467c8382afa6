"""What the teaching tokenisers of [rebpe App. A.1] and App. A.3 (``sample_data/scenarios``) hold
besides their merges: the paper's words, split where the knocked-out merge joins, as a small
reference; and the App. A.3 variants, the knocked-out merge list with merges moved.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

from core.bpe.model import BTETokeniser, Merge
from core.errors import InputError
from core.references.alignment import align_word


def scenario_reference_tsv(tokeniser: BTETokeniser) -> str | None:
    """A reference for a teaching scenario, as TSV: each of the paper's words split where the parts of
    the merge the paper knocks out join (``metadata["knockout"]``), e.g. ``id s`` gives
    ``bruids -> bruid s`` and ``bruid -> bruid``. None when the tokeniser is no scenario."""
    metadata = getattr(tokeniser, "metadata", None) or {}
    knockout = str(metadata.get("knockout") or "").split()
    words = [str(w.get("word", "")) for w in metadata.get("words", ()) if isinstance(w, Mapping)]
    words = [w for w in words if w and "\t" not in w and "\n" not in w]
    if len(knockout) < 2 or not words:
        return None
    result = "".join(knockout)
    joins = [sum(len(p) for p in knockout[:k]) for k in range(1, len(knockout))]
    lines = []
    for word in words:
        try:
            aligned = align_word(tokeniser.pretokeniser, word)
        except InputError:
            continue
        splits: set[int] = set()
        for pretoken in aligned.pretokens:
            start = pretoken.text.find(result)
            while start != -1:
                for join in joins:
                    position = pretoken.boundary_positions[start + join - 1]
                    if position is not None:
                        splits.add(position)
                start = pretoken.text.find(result, start + 1)
        cuts = [0, *sorted(splits), len(word)]
        lines.append(f"{word}\t{' '.join(word[a:b] for a, b in pairwise(cuts))}")
    return "".join(line + "\n" for line in lines) or None


def moved_merge_variants(tokeniser: BTETokeniser) -> dict[str, BTETokeniser]:
    """The tokenisers listed in ``metadata["variants"]`` ([rebpe App. A.3]: the knocked-out merge
    list with merges moved to make the triplet binary), ranked in listed order. A variant whose
    listing is malformed (a merge that is not two or more strings, or no valid merge list) is left out."""
    variants = (getattr(tokeniser, "metadata", None) or {}).get("variants")
    if not isinstance(variants, Mapping):
        return {}
    out = {}
    for name, spec in variants.items():
        merges = spec.get("merges") if isinstance(spec, Mapping) else None
        if not isinstance(merges, list) or not all(
            isinstance(parts, list) and len(parts) >= 2 and all(isinstance(p, str) and p for p in parts)
            for parts in merges
        ):
            continue
        try:
            out[str(name)] = tokeniser.with_merges([Merge(rank, tuple(parts)) for rank, parts in enumerate(merges)])
        except InputError:
            continue
    return out
