"""The sample data shipped in ``sample_data/`` (see its README for sources and licences)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from core.errors import InputError

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"
DUTCH_40K = SAMPLE_DIR / "tokenisers" / "bpe-40k_oscar-nl-clean" / "tokenizer.json"


def scenario_paths() -> dict[str, Path]:
    """The teaching tokenisers of [rebpe App. A.1] and A.3, by file stem."""
    return {p.stem: p for p in sorted((SAMPLE_DIR / "scenarios").glob("*.json"))}


def tokeniser_paths() -> dict[str, Path]:
    """Every shipped tokeniser: the Dutch 40k, our wordfreq-trained BPEs, the scenarios."""
    paths = {"nl-40k (BPE-knockout paper)": DUTCH_40K}
    for path in sorted((SAMPLE_DIR / "tokenisers").glob("*.json")):
        paths[path.stem] = path
    paths.update(scenario_paths())
    return paths


def reference_paths() -> dict[str, Path]:
    return {p.stem: p for p in sorted((SAMPLE_DIR / "references").glob("*.tsv"))}


def count_paths() -> dict[str, Path]:
    return {p.stem: p for p in sorted((SAMPLE_DIR / "counts").glob("*.tsv"))}


def running_text() -> Iterator[str]:
    """English running text that every CPython installation ships: the reference-manual topics
    of the standard library's ``pydoc_data`` package (about 460 KB; PSF licence)."""
    from pydoc_data.topics import topics

    for name in sorted(topics):
        yield from (line for line in topics[name].splitlines() if line.strip())


#: The single-line corpora of :func:`pathological_text`.
PATHOLOGICAL_KINDS = ("line", "repeat", "word", "nospace", "letters")


def pathological_text(kind: str, size: int) -> str:
    """One line of ``size`` characters that stresses trainers: ``line`` (:func:`running_text`
    joined by spaces), ``repeat`` (``aaaa...``), ``word`` (``the the the ...``), ``nospace`` (the
    running text without whitespace) or ``letters`` (only its letters: one pretoken)."""
    if kind == "repeat":
        return "a" * size
    if kind == "word":
        return ("the " * (size // 4 + 1))[:size]
    text = " ".join(running_text())
    if kind == "nospace":
        text = "".join(text.split())
    elif kind == "letters":
        text = "".join(ch for ch in text if ch.isalpha())
    elif kind != "line":
        raise InputError(f"unknown kind {kind!r}; choose one of {', '.join(PATHOLOGICAL_KINDS)}")
    return (text * (size // len(text) + 1))[:size]
