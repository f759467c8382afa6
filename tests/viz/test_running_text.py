"""viz/running_text.py: tokens of running text placed on the text, and their chips."""

from __future__ import annotations

import itertools
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bpe.merges import Merge
from core.bpe.model import BTETokeniser
from core.bpe.unknowns import UnknownPolicy, byte_token
from core.pipeline.metaspace import Metaspace
from tests.apptest_support import running_chips as parse
from viz.running_text import running_text_html, text_tokens, token_spans, word_at


def byte_fallback_bpe() -> BTETokeniser:
    """SentencePiece-style BPE: ▁ marker, a, b, c and all 256 byte tokens."""
    alphabet = ["▁", "a", "b", "c", *(byte_token(b) for b in range(256))]
    return BTETokeniser(
        alphabet,
        [Merge(0, ("a", "b")), Merge(1, ("▁", "ab"))],
        Metaspace(),
        unknown=UnknownPolicy(byte_fallback=True, unk_token="<unk>"),
        specials=["<unk>"],
    )


def unk_bpe() -> BTETokeniser:
    return BTETokeniser(
        ["▁", "a", "b", "c"],
        [Merge(0, ("a", "b")), Merge(1, ("▁", "ab"))],
        Metaspace(),
        unknown=UnknownPolicy(unk_token="<unk>", fuse_unk=True),
        specials=["<unk>"],
    )


def pieces_of(tokeniser, text):
    return text_tokens(tokeniser.pretokeniser, text, tokeniser.tokenise(text), tokeniser.token_id)


# --- placing tokens on the text -------------------------------------------------------------------


def test_byte_level_tokens_of_one_character_are_marked_partial(dutch40k):
    text = "De jurk 東 kost €5,\n\nok"
    pieces = pieces_of(dutch40k, text)
    assert [p.token for p in pieces] == dutch40k.tokenise(text)
    assert [p.id for p in pieces] == [dutch40k.token_id(t) for t in dutch40k.tokenise(text)]
    by_token = {p.token: p for p in pieces}
    assert by_token["Ġjurk"].span == (2, 7) and by_token["Ġjurk"].word == "jurk"
    east = [p for p in pieces if p.surface == "東"]
    assert len(east) == 3 and all(p.partial and p.is_bytes for p in east)  # E6 9D B1, one token per byte
    assert "".join(p.token for p in east) == "æĿ±"
    assert not by_token["Ġjurk"].partial and not by_token["Ġjurk"].is_bytes
    assert [p.surface for p in pieces if "\n" in p.surface] == ["\n", "\n"]
    assert [p.word for p in pieces if p.token == "Ċ"] == [None, None]  # whitespace belongs to no word
    assert by_token["ok"].word == "ok" and by_token[","].word == "€5,"


def test_byte_fallback_tokens_take_one_byte_each():
    tokeniser = byte_fallback_bpe()
    text = "ab cé ab"
    pieces = pieces_of(tokeniser, text)
    assert [p.token for p in pieces] == ["▁ab", "▁", "c", "<0xC3>", "<0xA9>", "▁ab"]
    assert [p.surface for p in pieces] == ["ab", " ", "c", "é", "é", " ab"]
    assert [p.partial for p in pieces] == [False, False, False, True, True, False]
    assert [p.word for p in pieces] == ["ab", None, "cé", "cé", "cé", "ab"]
    assert [p.id for p in pieces] == [tokeniser.token_id(p.token) for p in pieces]


def test_a_lone_byte_fallback_token_is_bytes_without_being_partial():
    tokeniser = byte_fallback_bpe()
    [marker, newline] = pieces_of(tokeniser, "\n")
    assert marker.token == "▁" and marker.span is None  # inserted by the pre-tokeniser
    assert newline.token == "<0x0A>" and newline.surface == "\n"
    assert not newline.partial and newline.is_bytes


def test_an_unk_token_stands_for_the_run_it_replaces():
    tokeniser = unk_bpe()
    pieces = pieces_of(tokeniser, "ab cxyc ab")
    assert [(p.token, p.surface) for p in pieces] == [
        ("▁ab", "ab"),
        ("▁", " "),
        ("c", "c"),
        ("<unk>", "xy"),
        ("c", "c"),
        ("▁ab", " ab"),
    ]
    assert pieces[3].id == tokeniser.token_id("<unk>") == 0
    assert [(p.token, p.surface) for p in pieces_of(tokeniser, "ab cxy")][-1] == ("<unk>", "xy")


def test_a_token_after_dropped_characters_is_placed_where_it_occurs():
    # "x" was dropped as unknown: "ab" continues two characters later
    assert token_spans(unk_bpe().pretokeniser, "cxab", ["▁", "c", "ab"]) == [None, (0, 1), (2, 4)]


def test_word_at():
    assert word_at("a bb, c", (1, 3)) == "bb,"
    assert word_at("a bb, c", (1, 2)) is None
    assert word_at("a bb, c", None) is None


@settings(max_examples=60, deadline=None)
@given(st.text(st.sampled_from("ab é東😀 \n\t,.Z"), max_size=30))
def test_every_character_is_covered_in_order(dutch40k, text):
    """Byte-level BPE drops nothing: the spans go forward and cover the whole text."""
    tokens = dutch40k.tokenise(text)
    spans = token_spans(dutch40k.pretokeniser, text, tokens)
    assert len(spans) == len(tokens) and None not in spans
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in itertools.pairwise(spans))
    assert sorted({i for start, end in spans for i in range(start, end)}) == list(range(len(text)))


# --- the chips ------------------------------------------------------------------------------------


def test_chips_carry_ids_links_and_classes(dutch40k):
    text = "jurk 東"
    pieces = pieces_of(dutch40k, text)
    markup = running_text_html(
        pieces,
        dutch40k.pretokeniser.display,
        types=dutch40k.types,
        graph_link={"tokeniser": "nl-40k"},
        tree_link={"tokeniser": "nl-40k", "input": "words"},
    )
    chips = parse(markup)
    assert [c["token"] for c in chips] == [p.token for p in pieces]
    assert [c["id"] for c in chips] == [str(p.id) for p in pieces]
    assert [c["text"] for c in chips] == ["jurk", "Ġ", "\\xe6", "\\x9d", "\\xb1"]
    assert ["rt-bytes" in c["classes"] for c in chips] == [False, False, True, True, True]
    assert len({c["classes"][1] for c in chips[:4]}) == 4  # alternating colours
    graph = urlsplit(chips[0]["links"]["rt-graph"])
    assert graph.path == "merge_graph" and parse_qs(graph.query) == {"tokeniser": ["nl-40k"], "type": ["jurk"]}
    tree = urlsplit(chips[2]["links"]["rt-tree"])
    assert tree.path == "" and parse_qs(tree.query) == {"tokeniser": ["nl-40k"], "input": ["words"], "word": ["東"]}
    assert "rt-tree" not in chips[1]["links"]  # a space is no word


def test_ids_instead_of_text_and_line_breaks(dutch40k):
    pieces = pieces_of(dutch40k, "ok\n\nja")
    chips = parse(running_text_html(pieces, dutch40k.pretokeniser.display, show_ids=True))
    assert [c["text"] for c in chips] == [str(p.id) for p in pieces]
    assert running_text_html(pieces).count("<br>") == 2
    assert "rt-links" not in running_text_html(pieces)  # no links asked for


def test_hostile_tokens_are_escaped():
    hostile = "<img src=x onerror=alert(1)>"
    tokeniser = BTETokeniser(sorted(set(hostile)), [], Metaspace(split=False, prepend_scheme="never"))
    pieces = pieces_of(tokeniser, hostile)
    markup = running_text_html(pieces, types=frozenset(), graph_link={"x": '"><b>'}, tree_link={})
    assert "<img" not in markup and "<b>" not in markup
    assert all("rt-unknown" in c["classes"] for c in parse(markup))
    assert re.search(r'href="merge_graph\?x=%22%3E%3Cb%3E&amp;type=%3C"', markup)


@pytest.mark.parametrize("word, linked", [("a" * 200, True), ("a" * 201, False)])
def test_long_words_get_no_tree_link(word, linked):
    tokeniser = BTETokeniser(["▁", "a"], [], Metaspace())
    chips = parse(running_text_html(pieces_of(tokeniser, word), tree_link={}))
    assert ("rt-tree" in chips[1]["links"]) is linked
