"""What a workspace chooses from: the shipped samples (tokenisers, references, corpora, word counts)
and the uploads and paths this session added (kept in ``st.session_state``, so never dropped)."""

from __future__ import annotations

import streamlit as st

from core.formats.samples import count_paths, reference_paths, tokeniser_paths
from viz.tokeniser_info import tokeniser_choices

SAMPLE_TOKENISERS = tokeniser_choices(tokeniser_paths())  # short name -> path
SAMPLE_REFERENCES = {name: str(path) for name, path in reference_paths().items()}
SAMPLE_CORPORA = ("python-docs (English, stdlib pydoc_data)",)
DEFAULT_TOKENISER = next(iter(SAMPLE_TOKENISERS))
DEFAULT_REFERENCE = "nl_morph"
DEFAULT_CORPUS = SAMPLE_CORPORA[0]
SAMPLE_COUNTS = {name: str(path) for name, path in count_paths().items()}  # nl_wordfreq, en_wordfreq
SCENARIOS = [name for name in SAMPLE_TOKENISERS if name.startswith(("a1_", "a3_"))]  # [rebpe App. A]
UPLOAD_PREFIX = "upload: "
PATH_PREFIX = "path: "  # a tokeniser named by a path on the machine that runs the app
HUB_PREFIX = "hf: "  # ... or by hf:ORG/NAME in its local Hugging Face cache
SESSION_PREFIXES = (UPLOAD_PREFIX, PATH_PREFIX, HUB_PREFIX)  # choices a session adds to the samples
MAX_UPLOAD_BYTES = 200 * 1024 * 1024


def is_session_choice(name: str) -> bool:
    """An upload or a path: a choice this session added (its name alone does not say its content)."""
    return name.startswith(SESSION_PREFIXES)


def uploads() -> dict[tuple[str, str], object]:
    """This session's uploads and paths by (kind, choice name): an ``Upload`` under its kind, and
    ``tokeniser-path`` entries (spec, pre-tokeniser). Kept in session state (not a widget's), so never
    dropped."""
    return st.session_state.setdefault("uploads", {})


def samples(kind: str) -> list[str]:
    return {"tokeniser": list(SAMPLE_TOKENISERS), "reference": list(SAMPLE_REFERENCES), "corpus": list(SAMPLE_CORPORA)}[
        kind
    ]


def choices(kind: str) -> list[str]:
    kinds = (kind, "tokeniser-path") if kind == "tokeniser" else (kind,)
    return samples(kind) + [name for (k, name) in uploads() if k in kinds]
