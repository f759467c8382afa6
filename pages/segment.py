"""Landing page: pick a shipped tokeniser, type words, see their tokens and the merges applied.

Thin on purpose: segmentation is core's, every piece of HTML and every table row comes from viz/.
The tokeniser and the words live in the URL (``?tokeniser=nl-40k&word=bruidsjurk``), so a link
reproduces the view.
"""
from __future__ import annotations

import streamlit as st

from core.errors import InputError
from core.formats.tokeniser_files import load_tokeniser
from core.samples import tokeniser_paths
from viz.tables import merge_rows, scenario_rows
from viz.tokeniser_info import (
    marker_legend,
    markers,
    md_escape,
    tokeniser_choices,
    tokeniser_facts,
    tokeniser_note,
    valid_choice,
)
from viz.tokens import PAGE_CSS, alphabet_html, code_span, segmentation_html, split_words

CHOICES = tokeniser_choices(tokeniser_paths())  # short name -> path
DEFAULT = next(iter(CHOICES))
DEFAULT_WORDS = "bruidsjurk"
MAX_WORDS = 20


@st.cache_resource(show_spinner="Loading tokeniser…")
def cached_tokeniser(path: str):
    """Shared by every session: never mutate it (edits build new tokenisers)."""
    return load_tokeniser(path)


st.html(PAGE_CSS)
st.title("Segment a word")
st.caption("Each word is tokenised as in running text: the tokeniser's own pre-tokeniser sees a space "
           "followed by the word, then the lowest-ranked applicable merge fires until none applies. "
           "The address bar keeps the tokeniser and the words, so a link reproduces this view.")

asked = st.query_params.get("tokeniser")  # read before the widget: Streamlit drops invalid values
if asked and asked not in CHOICES:
    st.warning(f"The link asks for tokeniser “{md_escape(asked[:80])}”, which is not shipped; "
               f"showing {md_escape(DEFAULT)} instead.")

left, right = st.columns([1, 2])
name = left.selectbox("Tokeniser", list(CHOICES), key="tokeniser", bind="query-params",
                      help="The shipped tokenisers: the Dutch 40k of the BPE-knockout paper, two small "
                           "wordfreq BPEs, and the teaching scenarios of the ReBPE paper (App. A).")
name = valid_choice(name, CHOICES, DEFAULT)
text = right.text_input("Words (separated by spaces)", value=DEFAULT_WORDS, key="word", bind="query-params",
                        placeholder="e.g. bruidsjurk gids", help=f"At most {MAX_WORDS} words are shown.")

try:
    tokeniser = cached_tokeniser(CHOICES[name])
except InputError as err:
    st.error(f"Could not load {md_escape(name)}: {md_escape(err)}")
    st.stop()

note = tokeniser_note(name, tokeniser.metadata)
if note:
    st.info(note[1])
for column, (label, value) in zip(st.columns(4), tokeniser_facts(tokeniser)):
    column.metric(label, value)
st.caption(marker_legend(tokeniser.pretokeniser))

display = tokeniser.pretokeniser.display
chip_options = dict(types=tokeniser.types, ids=tokeniser.type_ids, markers=markers(tokeniser.pretokeniser))
has_tuples = bool(tokeniser.tuple_merges)
words, total = split_words(text, MAX_WORDS)
if not words:
    st.info("Type one or more words above, for example `bruidsjurk gids`.")
elif total > len(words):
    st.caption(f"Showing the first {len(words)} of {total} words.")

for word in words:
    with st.container(border=True):
        try:
            tokens = tokeniser.tokenise_word(word)
            traces = [tokeniser.trace_pretoken(p) for p in tokeniser.pretokeniser.pretokenise(" " + word)]
        except InputError as err:
            st.error(f"Cannot segment {code_span(word)}: {md_escape(err)}")
            continue
        chips, merges = st.columns([2, 3])
        with chips:
            st.html(segmentation_html(word, tokens, display, **chip_options))
        with merges:
            rows = merge_rows(traces, display, fmt=code_span, tuple_column=has_tuples)
            if rows:
                st.caption(f"{len(rows)} merge{'s' if len(rows) != 1 else ''} applied, in the order they fired")
                st.table(rows, hide_index=True)
            else:
                st.caption("No merge applies: every symbol stays a token of its own.")

if tokeniser.metadata.get("words"):
    st.subheader("The paper's words")
    st.caption("The segmentations the paper states for this scenario, before and after the knockout, next "
               "to what this (before-knockout) tokeniser gives.")
    st.table(scenario_rows(tokeniser.metadata, tokeniser.tokenise_word, display, fmt=code_span), hide_index=True)

with st.expander(f"Alphabet ({len(tokeniser.alphabet):,} symbols)"):
    st.html(alphabet_html(tokeniser.alphabet, display))
