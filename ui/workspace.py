"""What the user has loaded, shared by every page: tokeniser, reference segmentations, corpus.

Streamlit glue (the only UI module pages share). :func:`current` gives the loaded :class:`Workspace`:
the choices (``ui/workspace_choices.py``: the shipped samples and this session's uploads and paths,
added by ``ui/workspace_uploads.py``) loaded by ``ui/tokeniser_loading.py`` and
``ui/references_corpora.py``. The choices are kept in session state (not only in the choosers'
widget keys, which Streamlit drops on pages that do not show them) and written into the URL on every
page (``ui/workspace_links.py``). A URL value this session did not write (a link opened, or followed
within the app) is validated and becomes the choice; one that names nothing available leaves the
session's choice as it was (a new session: the default), with a warning saying why.

Pages that need a merge graph ask :meth:`Workspace.with_merge_graph`, which raises
``core.tokeniser.CapabilityError`` (one line for a notice) for families without one.

It also keeps ``app.py``'s navigation in charge (:func:`ensure_app_navigation`): on a freshly
started server Streamlit treats ``pages/`` as a legacy multipage folder until ``st.navigation`` has
run once, so a first request to ``/merge_graph`` would run that page file alone. Importing this
module (every page does) or calling :func:`current` reroutes such a run through ``app.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core.errors import InputError
from core.references.files import ReferenceSet
from core.tokeniser import Tokeniser
from ui.references_corpora import corpus_counts, corpus_lines, counts_for, load_reference_choice, sample_counts
from ui.tokeniser_loading import load_tokeniser_choice, merge_graph_view
from ui.workspace_choices import (
    DEFAULT_CORPUS,
    DEFAULT_REFERENCE,
    DEFAULT_TOKENISER,
    SAMPLE_COUNTS,
    choices,
    uploads,
)
from ui.workspace_links import LINKED_KEY, MISSES_KEY, follow, sync_url
from viz.escaping import code_span

CHOICES_KEY = "workspace_choices"  # session state: the choices by kind (see selected())
DEBUGGED_WORD = "debugged_word"  # session state: (tokeniser choice, word) the Word debugger shows last


def ensure_app_navigation() -> None:
    """Reroute a legacy multipage run through ``app.py``.

    Until ``st.navigation`` has run once in a server process, Streamlit treats ``pages/`` as a v1
    multipage folder: the first request to ``/<file stem>`` runs ``pages/<file stem>.py`` on its
    own, without ``app.py``'s page config and navigation. Switching the legacy mode off and
    rerunning makes the same request go through ``app.py``, whose ``st.navigation`` then picks the
    page by its ``url_path`` (which therefore equals the file stem, see ``app.py``).
    """
    if PagesManager.uses_pages_directory and get_script_run_ctx() is not None:
        PagesManager.uses_pages_directory = False
        st.rerun()


@dataclass(frozen=True)
class Workspace:
    tokeniser_name: str
    tokeniser: Tokeniser
    reference_name: str
    references: ReferenceSet
    corpus_name: str
    tokeniser_key: str = ""  # identifies the tokeniser's content (name, plus a digest for uploads)
    reference_key: str = ""
    merge_graph_of: str = ""  # set on a merge-graph view of a family that is not BPE itself: its kind
    corpus_key: str = ""

    def corpus_lines(self, limit: int | None = None) -> list[str]:
        return corpus_lines(self.corpus_name, limit)

    def corpus_counts(self) -> dict[str, int]:
        """Whitespace-separated word counts of the corpus (cached by its content key)."""
        return corpus_counts(self.corpus_key or self.corpus_name, self.corpus_lines)

    @property
    def counts_name(self) -> str | None:
        """The shipped word counts in the tokeniser's language (None for an upload)."""
        return counts_for(self.tokeniser_name)

    def counts_sources(self) -> tuple[list[str], str]:
        """The word counts a page can read (the shipped ones, then the corpus counted) and the
        default: the shipped counts in the tokeniser's language, else the corpus."""
        sources = [*SAMPLE_COUNTS, f"corpus: {self.corpus_name}"]
        return sources, self.counts_name if self.counts_name in sources else sources[-1]

    def word_counts(self, source: str) -> tuple[str, Callable[[], Mapping[str, int]]]:
        """A content key and a reader of the word counts of ``source`` (one of :meth:`counts_sources`):
        shipped counts by name, the corpus by its content key (two sessions' uploads of one name differ)."""
        if source in SAMPLE_COUNTS:
            return source, lambda: sample_counts(source)
        return f"corpus: {self.corpus_key or self.corpus_name}", self.corpus_counts

    @property
    def metadata(self) -> Mapping:
        """The tokeniser's metadata, read-only (families without any give an empty mapping)."""
        metadata = getattr(self.tokeniser, "metadata", None)
        return metadata if isinstance(metadata, Mapping) else {}

    def with_merge_graph(self, needed_for: str) -> Workspace:
        """This workspace with the tokeniser's merge graph (a ``BTETokeniser``) as its tokeniser.

        BPE is its own merge graph (the same workspace comes back); Scaffold-BPE, PickyBPE and
        BoundlessBPE give their merge lists as one (a separate cache key, and ``merge_graph_of``
        names the family). Raises ``CapabilityError`` (an ``InputError`` whose one-line message
        starts with ``needed_for``) for a family without one, e.g. Unigram.
        """
        if self.merge_graph_of:
            return self
        graph = merge_graph_view(self.tokeniser_key or self.tokeniser_name, self.tokeniser, needed_for)
        if graph is self.tokeniser:
            return self
        return replace(
            self,
            tokeniser=graph,
            tokeniser_key=(self.tokeniser_key or self.tokeniser_name) + "#merge-graph",
            merge_graph_of=self.tokeniser.kind,
        )

    def graph_note(self) -> str | None:
        """A caption for views drawn on the merge graph of another family (None for BPE)."""
        if not self.merge_graph_of:
            return None
        return (
            f"This {self.merge_graph_of} tokeniser is shown through its merge graph (the merges it learnt, "
            "read as BPE): its own segmentation can differ (e.g. scaffold tokens demolished, PickyBPE "
            "removals, BoundlessBPE supermerges and deletions)."
        )


def _remembered() -> dict[str, str]:
    """The choices, also kept outside the widgets: Streamlit drops a widget key's value when a page
    that does not show the widget reruns (a fragment run, then a page switch, loses it)."""
    return st.session_state.setdefault(CHOICES_KEY, {})


def chosen(kind: str) -> str | None:
    """The current choice as this session last made it (unvalidated; None before any)."""
    return st.session_state.get(f"ws_{kind}") or _remembered().get(kind)


def selected(kind: str, default: str) -> str:
    """The current choice: a URL value this session did not write (a link: :func:`follow`), else the
    chooser, else the remembered one, else the default (validated)."""
    asked = st.query_params.get(kind)
    linked = st.session_state.setdefault(LINKED_KEY, {})
    misses = st.session_state.setdefault(MISSES_KEY, {})
    if asked is not None and asked != linked.get(kind):
        linked[kind] = asked
        try:
            value = follow(kind, asked)
            misses.pop(kind, None)
        except InputError as err:  # keep what the session had; a new session starts at the default
            kept = chosen(kind)
            value = kept if kept in choices(kind) else default
            misses[kind] = (f"{err} {'Keeping' if value == kept else 'Showing'} {code_span(value)} instead.", value)
    else:
        value = chosen(kind)
        if value not in choices(kind):
            value = default
    select(kind, value)
    return value


def select(kind: str, name: str) -> None:
    st.session_state[f"ws_{kind}"] = name
    _remembered()[kind] = name


def current(notices: bool = True) -> Workspace:
    """The loaded workspace; writes the choices into the URL (:func:`sync_url`; ``notices=False``
    for a second call in one run, whose notices the first showed). Shows st.error and stops on
    failure."""
    ensure_app_navigation()
    names = {
        "tokeniser": selected("tokeniser", DEFAULT_TOKENISER),
        "reference": selected("reference", DEFAULT_REFERENCE),
        "corpus": selected("corpus", DEFAULT_CORPUS),
    }
    try:
        tokeniser, tokeniser_key = load_tokeniser_choice(names["tokeniser"])
        references, reference_key = load_reference_choice(names["reference"])
    except InputError as err:
        st.error(str(err))
        st.stop()
    sync_url(names, notices)
    corpus = uploads().get(("corpus", names["corpus"]))
    corpus_key = names["corpus"] + ("@" + corpus.id if corpus is not None else "")
    return Workspace(
        names["tokeniser"],
        tokeniser,
        names["reference"],
        references,
        names["corpus"],
        tokeniser_key,
        reference_key,
        corpus_key=corpus_key,
    )


ensure_app_navigation()  # a page importing this module on a fresh server goes through app.py
