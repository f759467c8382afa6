"""Landing page: load a shipped tokeniser and segment words, with the merges applied."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import InputError
from core.formats.tokeniser_files import load_tokeniser
from core.samples import tokeniser_paths
from viz.tokens import token_chips_html

PATHS = {name: str(path) for name, path in tokeniser_paths().items()}


@st.cache_resource(show_spinner="Loading tokeniser…")
def cached_tokeniser(path: str):
    return load_tokeniser(path)


st.title("Segment a word")
st.caption("BPE/BTE segmentation as in running text: the tokeniser's own pre-tokeniser is applied to "
           "a space followed by the word, then the lowest-ranked applicable merge fires until none applies.")

names = list(PATHS)
name = st.selectbox("Tokeniser", names, key="tokeniser", bind="query-params")
try:
    tokeniser = cached_tokeniser(PATHS[name])
except InputError as err:
    st.error(f"Could not load {name}: {err}")
    st.stop()

col1, col2, col3, col4 = st.columns(4)
col1.metric("Types |V|", f"{len(tokeniser.types):,}")
col2.metric("Merges", f"{len(tokeniser.merges):,}")
col3.metric("Tuple merges", f"{len(tokeniser.tuple_merges):,}")
col4.metric("Alphabet", f"{len(tokeniser.alphabet):,}")
if tokeniser.metadata.get("title"):
    st.info(f"**{tokeniser.metadata['title']}** ({tokeniser.metadata.get('section', '')}). "
            f"{tokeniser.metadata.get('explanation', '')}")

default_words = "bruids bruidsjurk gids"
words = st.text_input("Words (separated by spaces)", value=default_words, key="word", bind="query-params")
for word in words.split()[:20]:
    st.markdown(f"**{word}**")
    tokens = tokeniser.tokenise_word(word)
    st.markdown(token_chips_html(tokens, tokeniser.pretokeniser.display), unsafe_allow_html=True)
    rows = []
    for pretoken in tokeniser.pretokeniser.pretokenise(" " + word):
        trace = tokeniser.trace_pretoken(pretoken)
        for step in trace.steps:
            rows.append({"rank": step.merge.rank, "merge": " + ".join(step.merge.parts),
                         "result": step.merge.result, "tuple merge": step.merge.is_tuple,
                         "tokens after": " ".join(step.tokens)})
    with st.expander(f"{len(rows)} merges applied"):
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
