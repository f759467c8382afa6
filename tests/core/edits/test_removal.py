"""Choosing types to remove (core.edits.removal): TrimmedBPE's frequency criterion with a size,
and lists checked line by line."""

from __future__ import annotations

import pytest

from core.counting.token_frequencies import token_frequencies
from core.edits.removal import check_removable, least_frequent_types, removable
from core.errors import InputError
from tests.core.edits.test_knockout import toy

COUNTS = {"bruidsjurk": 5, "gids": 3, "maker": 2}


def test_least_frequent_types_reach_the_size_lowest_frequency_first():
    tok = toy()
    frequencies = token_frequencies(tok, COUNTS)
    chosen = least_frequent_types(tok, COUNTS, tok.vocab_size - 4)
    assert len(chosen) == 4 and set(chosen) <= set(removable(tok))
    highest_chosen = max(frequencies.get(t, 0) for t in chosen)
    assert all(frequencies.get(t, 0) >= highest_chosen for t in set(removable(tok)) - set(chosen))
    assert "_bruids" not in chosen and "jurk" not in chosen  # tokens of bruidsjurk, seen 5 times
    assert least_frequent_types(tok, COUNTS, tok.vocab_size) == []


def test_ties_go_latest_merge_first():
    tok = toy()
    never = [t for t in removable(tok) if not token_frequencies(tok, COUNTS).get(t)]
    chosen = least_frequent_types(tok, COUNTS, tok.vocab_size - 2)
    ranks = {m.result: m.rank for m in tok.merges}
    assert chosen == sorted(never, key=lambda t: -ranks[t])[:2]


@pytest.mark.parametrize(
    ("types", "message"),
    [(["ids", "ids", "nope"], "'nope' is not a type"), (["_bruids", "_bruids", "j"], "'j' is an alphabet type")],
)
def test_a_list_names_the_line_of_a_type_that_cannot_go(types, message):
    with pytest.raises(InputError, match=message) as raised:
        check_removable(toy(), types, "types.txt")
    assert (raised.value.source, raised.value.line) == ("types.txt", 3)
    assert str(raised.value).startswith("types.txt:3: ")


def test_a_list_loses_only_its_duplicates():
    assert check_removable(toy(), ["ids", "_gids", "ids"]) == ["ids", "_gids"]
