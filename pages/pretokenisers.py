"""Pre-tokenisers side by side: how GPT-2, GPT-4, Punct, BOUNDLESS_PATTERN and the ReBPE pipeline cut
the same text into pretokens ([boundless App. A]; [rebpe App. B.1]).

Whitespace is drawn visibly (␣ ↵ ⇥), so the differences the paper discusses (where a run of
spaces is cut, whether ``_case`` keeps its underscore, digit groups) can be seen at a glance. The
text is in the URL (``?text=...``). Pretokenising is instant, so nothing is cached.
"""

from __future__ import annotations

import streamlit as st

from core.analysis.pretokeniser_gallery import EXAMPLES, compared_pretokenisers
from core.errors import InputError
from core.pipeline.byte_level import ByteLevel
from ui.workspace import ensure_app_navigation
from viz.escaping import html_escape, md_escape
from viz.tokens import PAGE_CSS, token_chips_html

ensure_app_navigation()
MAX_CHARS = 2_000

st.html(PAGE_CSS)
st.title("Pre-tokenisers")
st.caption(
    "The step before BPE: every pre-tokeniser cuts the text into pretokens, and no token can "
    "cross a pretoken boundary (BoundlessBPE's supermerges are the exception). "
    "Spaces show as ␣, line breaks as ↵."
)


def use_example(name: str) -> None:
    st.session_state["text"] = EXAMPLES[name][0]


st.write("Examples from the papers:")
buttons = st.columns(len(EXAMPLES))
for column, (name, (_, where)) in zip(buttons, EXAMPLES.items(), strict=True):
    column.button(name, help=where, on_click=use_example, args=(name,), key=f"example_{name}", width="stretch")

if "text" not in st.session_state and "text" not in st.query_params:
    st.session_state["text"] = EXAMPLES["Code names"][0]
text = st.text_area("Text", key="text", bind="query-params", max_chars=MAX_CHARS, height=90)

rows = []
for name, pretokeniser in compared_pretokenisers().items():
    try:
        pretokens = pretokeniser.pretokenise(text)
    except InputError as err:
        st.error(f"{name}: {md_escape(err)}")
        continue
    # Character-level pretokens are shown as they are (whitespace made visible by the chips);
    # byte-level ones through the pre-tokeniser's own display (Ġ for a space byte).
    display = pretokeniser.display if isinstance(pretokeniser, ByteLevel) else str
    chips = token_chips_html(pretokens, display, markers=[m for m in (pretokeniser.marker,) if m], font_size="1.25rem")
    count = f"{len(pretokens)} pretoken" + ("" if len(pretokens) == 1 else "s")
    rows.append(
        f'<div class="pretok-row" data-name="{html_escape(name)}" style="margin:10px 0">'
        f'<div style="font-weight:600">{html_escape(name)} '
        f'<span style="opacity:0.7;font-weight:400">→ {count}</span></div>{chips}</div>'
    )
if text:
    st.html("".join(rows))
else:
    st.info("Type some text, or pick an example above.")

with st.expander("What the pre-tokenisers are"):
    st.markdown(
        "- **GPT-2**, **GPT-4**, **Punct**: the regexes of [boundless] Listing 3 (T-, F-, P- branches).\n"
        "- **BOUNDLESS_PATTERN** (B- branches): splits code names at case changes (`XML`, `Http`, `Request`), "
        "keeps runs of spaces together and groups digits in threes from the right; BoundlessBPE's supermerges "
        "can join the pieces again.\n"
        "- **ReBPE pipeline** ([rebpe App. B.1]): lower-cases with a capital marker `↑`, marks word starts "
        "with `_`, isolates digits and punctuation.\n"
        "- **HF ByteLevel**: the GPT-2 regex over bytes, spaces drawn as `Ġ` (what the Dutch 40k tokeniser uses)."
    )
