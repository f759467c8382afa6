"""The pre-tokenisers the papers compare, and the papers' example texts, for side-by-side views.

[boundless App. A] (Listing 3: GPT-2, GPT-4, Punct and BOUNDLESS_PATTERN; App. A.3 code
names, App. A.4 whitespace runs, App. A.5 numbers) and [rebpe App. B.1] (the ReBPE pipeline).
"""

from __future__ import annotations

from core.pipeline.base import Pretokeniser
from core.pipeline.named import PRETOKENISERS

#: name -> (example text, where the paper discusses it).
EXAMPLES: dict[str, tuple[str, str]] = {
    "Code names": ("XMLHttpRequest snake_case camelCase CONSTANT", "[boundless §3.5, App. A.3]"),
    "Runs of whitespace": ("Hello    world \n\n \n ", "[boundless App. A.4]"),
    "Numbers": ("1234567 and 3.14159", "[boundless App. A.5]"),
    "Contractions": ("They'll say it's John’s, won't they?", "[boundless App. A.1] (T-1, F-1, B-1)"),
    "Dutch compound": ("De bruidsmeisjes droegen bruidsjurken.", "[rebpe §1] (_bruids/ids)"),
}


#: display name -> name in :data:`core.pipeline.named.PRETOKENISERS`, in the order the papers introduce them
COMPARED = {
    "GPT-2": "regex-gpt2",
    "GPT-4": "regex-gpt4",
    "Punct": "regex-punct",
    "BOUNDLESS_PATTERN": "regex-boundless",
    "ReBPE pipeline": "rebpe",
    "HF ByteLevel (GPT-2 bytes)": "bytelevel",
}


def compared_pretokenisers() -> dict[str, Pretokeniser]:
    """Display name -> pre-tokeniser, in the order of :data:`COMPARED`."""
    return {title: PRETOKENISERS[name]() for title, name in COMPARED.items()}


def pretokenise_all(text: str, pretokenisers: dict[str, Pretokeniser] | None = None) -> dict[str, list[str]]:
    """Every pre-tokeniser's pretokens of ``text``."""
    chosen = compared_pretokenisers() if pretokenisers is None else pretokenisers
    return {name: p.pretokenise(text) for name, p in chosen.items()}
