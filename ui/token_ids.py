"""Token ids for the pages: each tokeniser's id table, built once per content key and shared."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

import streamlit as st


@st.cache_resource(show_spinner=False, max_entries=8)
def id_table(_tokeniser, tokeniser_key: str) -> Mapping[str, int]:
    """Token -> id of the tokeniser whose content key is ``tokeniser_key``."""
    return MappingProxyType(dict(_tokeniser.token_ids()))


def id_lookup(tokeniser, tokeniser_key: str) -> Callable[[str], int | None]:
    """A token's id: from ``token_ids()`` (built once per tokeniser), else ``token_id`` where the
    family has one (an unknown character's unk id)."""
    table, own = id_table(tokeniser, tokeniser_key), getattr(tokeniser, "token_id", None)
    return lambda token: table[token] if token in table else own(token) if callable(own) else None
