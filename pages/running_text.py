"""Running text side by side: several tokenisers on the same text, as the tokeniser playgrounds show it.

No paper section: a view. Each chosen tokeniser (the shipped samples and this session's uploads and
paths, ``ui.workspace_choices``) tokenises the same text; its tokens are chips with their ids
(``viz.running_text``), with the token count and characters per token above them. From the second
tokeniser on, a token whose stretch of the text is no token of the first is ringed in red
(``viz.running_text.differing``). The choices and the text are in the URL (``?side=…&side=…&text=…``).
"""

from __future__ import annotations

import streamlit as st

from core.errors import InputError
from ui.comparisons import Chosen, choice_from_link, choice_link, load_choice
from ui.token_ids import id_lookup
from ui.tokeniser_loading import tokeniser_label
from ui.url_state import write_to_url
from ui.workspace import current
from ui.workspace_choices import choices
from viz.escaping import code_span, md_escape
from viz.running_text import RUNNING_TEXT_CSS, differing, running_text_html, text_tokens
from viz.tokeniser_info import markers
from viz.tokens import PAGE_CSS, facts_html

CHOSEN_KEY, TEXT_KEY = "running_text_tokenisers", "running_text_text"
MAX_TOKENISERS = 4
MAX_TEXT_CHARS = 5_000  # typed text beyond this is cut (the URL keeps at most MAX_URL_CHARS)
MAX_URL_CHARS = 1_000
DEFAULT_TEXT = (
    "The bride's gown (bruidsjurk) and understanding: 12,345.67 tokens!\n"
    "def tokenise(text):\n    return text.split()  # naïve 🙂"
)

ws = current()
st.html(PAGE_CSS + RUNNING_TEXT_CSS)
st.title("Running text side by side")
st.caption(
    "The same text through several tokenisers at once: each token with its id, the counts above. "
    "From the second tokeniser on, a **red ring** marks a token whose stretch of the text the first "
    "tokeniser does not make into one token. Hover a token for its code points. Load more "
    "tokenisers (uploads, paths, hf: ids) on the Workspace page."
)

options = choices("tokeniser")
if CHOSEN_KEY not in st.session_state:  # first run: the link's choices, else the workspace's and one more
    linked = [choice_from_link(raw) for raw in st.query_params.get_all("side")]
    chosen = [c for c in dict.fromkeys(linked) if c in options][:MAX_TOKENISERS]
    if not chosen:
        chosen = [ws.tokeniser_name, *(o for o in options if o != ws.tokeniser_name)][:2]
    st.session_state[CHOSEN_KEY] = chosen
if TEXT_KEY not in st.session_state:
    st.session_state[TEXT_KEY] = (st.query_params.get("text") or DEFAULT_TEXT)[:MAX_TEXT_CHARS]

picked = st.multiselect(
    "Tokenisers (the first is the one the others are compared with)",
    options,
    key=CHOSEN_KEY,
    format_func=tokeniser_label,
    max_selections=MAX_TOKENISERS,
)
text = st.text_area("Text", key=TEXT_KEY, height=110, max_chars=MAX_TEXT_CHARS)

links = [choice_link(name) for name in picked]  # (URL value or None, what the link cannot carry or None)
st.query_params["side"] = [value for value, _ in links if value is not None]
unlinked = [lost for _, lost in links if lost]
write_to_url("text", text if len(text) <= MAX_URL_CHARS else None, default=DEFAULT_TEXT)
if unlinked:
    st.caption("This view's link cannot carry " + "; ".join(md_escape(t) for t in unlinked) + ".")

if not picked:
    st.info("Choose one or more tokenisers.")
    st.stop()
if not text:
    st.info("Type or paste some text.")
    st.stop()


def tokenised(chosen: Chosen, text: str):
    tokeniser = chosen.tokeniser
    tokens = tokeniser.tokenise(text)
    return text_tokens(tokeniser.pretokeniser, text, tokens, id_lookup(tokeniser, chosen.key))


rows = []
for name in picked:
    try:
        chosen = load_choice(ws, name)
        rows.append((name, chosen, tokenised(chosen, text)))
    except InputError as err:
        st.error(f"{code_span(tokeniser_label(name))}: {md_escape(err)}")

first = rows[0][2] if rows else []
for position, (name, chosen, pieces) in enumerate(rows):
    differs = differing(pieces, first) if position else set()
    with st.container(border=True):
        st.markdown(f"**{md_escape(tokeniser_label(name))}**")
        facts = [
            ("tokens", f"{len(pieces):,}"),
            ("characters per token", f"{len(text) / len(pieces):.2f}" if pieces else "-"),
            ("|V|", f"{chosen.tokeniser.vocab_size:,}"),
        ]
        if position:
            facts.append(("tokens cut unlike the first", f"{len(differs):,}"))
        st.html(facts_html(facts))
        st.html(
            running_text_html(
                pieces,
                chosen.tokeniser.pretokeniser.display,
                types=chosen.tokeniser.vocabulary,
                markers=markers(chosen.tokeniser.pretokeniser),
                differs=differs,
            )
        )
