"""core.counting.pretoken_index: which items have a pretoken containing a string, against a plain scan."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.counting.pretoken_index import PretokenIndex

TEXT = st.text(alphabet="ab\0", max_size=5)


def holders(items: list[list[str]], string: str) -> set[int]:
    return {i for i, pretokens in enumerate(items) if any(string in p for p in pretokens)}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(TEXT, max_size=3), max_size=6), st.lists(TEXT, max_size=5))
def test_answers_are_those_of_a_scan_of_every_pretoken(items, strings):
    index = PretokenIndex(items)
    for string in strings:
        assert index.containing(string) == holders(items, string)
        exact = [i for i, pretokens in enumerate(items) if string in pretokens]
        found = holders(items, string)
        assert index.first_containing(string) == (exact[0] if exact else min(found, default=None))
    expected = set().union(*(holders(items, s) for s in strings))
    for many in (0, 10**9):  # the index of pieces; a search per string
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("core.counting.pretoken_index.MANY_STRINGS", many)
            assert index.containing_any(strings) == expected


def test_owners_and_an_exact_pretoken_first():
    index = PretokenIndex([["_bruids"], ["_bruid", "s"], ["_bruid"]])
    assert dict(index.owners) == {"_bruids": {0}, "_bruid": {1, 2}, "s": {1}}
    assert index.containing("bruid") == {0, 1, 2} and index.containing("ids") == {0}
    assert index.first_containing("_bruid") == 1  # the word that has it whole, before one holding it
    assert index.first_containing("uid") == 0 and index.first_containing("x") is None
