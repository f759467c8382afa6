"""What a loaded tokeniser is: family, sizes, pipeline, specials, unknown handling, and what the
loader had to infer. No paper section; the ``inspect`` command and the Workspace show it.
"""

from __future__ import annotations

from core.tokeniser import Tokeniser, check_tokeniser, has, require, specials_of


def describe_pretokeniser(pretokeniser) -> str:
    describe = getattr(pretokeniser, "describe", None)
    if callable(describe):
        return describe()
    spec = {k: v for k, v in pretokeniser.to_spec().items() if k != "kind" and v not in (None, [], "")}
    return pretokeniser.kind + (" " + ", ".join(f"{k}={v}" for k, v in spec.items()) if spec else "")


def summarise(tokeniser: Tokeniser) -> dict:
    """A JSON-serialisable summary; ``detected`` lists the settings that were inferred, with why."""
    check_tokeniser(tokeniser)
    specials = specials_of(tokeniser)
    metadata = getattr(tokeniser, "metadata", None) or {}
    summary: dict = {
        "name": tokeniser.name,
        "family": tokeniser.kind,
        "vocab_size": tokeniser.vocab_size,
        "pretokeniser": describe_pretokeniser(tokeniser.pretokeniser),
        "normaliser": describe_normaliser(tokeniser.pretokeniser),
        "specials": len(specials),
        "specials_examples": list(specials[:8]),
        "detected": list(metadata.get("detected", ())),
    }
    if has(tokeniser, "merge_graph"):
        graph = require(tokeniser, "merge_graph", "")
        summary.update(
            types=len(graph.types),
            alphabet=len(graph.alphabet),
            merges=len(graph.merges),
            tuple_merges=len(graph.tuple_merges),
            types_with_several_merges=graph.multi_merge_types,
            ignore_merges=graph.ignore_merges,
            unknown=graph.unknown.describe(),
            byte_fallback=graph.unknown.byte_fallback,
            unk_token=graph.unknown.unk_token,
        )
        if graph.end_of_word_suffix:
            summary["end_of_word_suffix"] = graph.end_of_word_suffix
    return summary


def describe_normaliser(pretokeniser) -> str:
    describe = getattr(pretokeniser, "describe_normaliser", None)
    if callable(describe):
        return describe()
    steps = getattr(pretokeniser, "normaliser", ())
    return ", ".join(steps) if steps else "none"


def summary_lines(summary: dict) -> list[str]:
    """The summary as ``label: value`` lines for a terminal."""
    labels = [
        ("family", "family"),
        ("vocab_size", "|V| with specials"),
        ("types", "types in the merge graph"),
        ("alphabet", "alphabet"),
        ("merges", "merges"),
        ("tuple_merges", "tuple merges"),
        ("types_with_several_merges", "types formed by more than one merge"),
        ("normaliser", "normaliser"),
        ("pretokeniser", "pre-tokeniser"),
        ("specials", "special tokens"),
        ("ignore_merges", "ignore_merges"),
        ("unknown", "unknown characters"),
        ("end_of_word_suffix", "end-of-word suffix"),
    ]
    lines = [
        f"{label}: {summary[key]:,}"
        if isinstance(summary[key], int) and not isinstance(summary[key], bool)
        else f"{label}: {summary[key]}"
        for key, label in labels
        if key in summary
    ]
    if summary["specials_examples"]:
        lines.append("special tokens, e.g.: " + " ".join(summary["specials_examples"]))
    for note in summary["detected"]:
        lines.append(f"detected: {note}")
    return lines
