"""Which words have a pretoken containing a string: where a merge forming that string can fire.

A merge can only fire inside a pretoken that holds the string it forms, so every question "where
can these merges fire?" starts here: the reference words to re-trace after an edit (blame kept up
to date, [knockout §3.4]), the words whose tree a step changed, the pretokens to trace when
counting how often merges fire, an example word for a blocked merge ([rebpe App. A.1]).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from types import MappingProxyType

#: joins the pretokens into one text; a string holding it (or the empty string) is looked for
#: pretoken by pretoken
SEPARATOR = "\0"
MANY_STRINGS = 600  # above this many new strings, containing_any looks them up in the index of pieces
GRAM = 3  # characters per piece in that index


class PretokenIndex:
    """The items (words, lines or pretokens; ``items[i]`` lists the pretokens of item ``i``) that
    have a pretoken containing a given string.

    Each distinct pretoken is kept once, in order of first appearance, and all are joined into one
    text that ``str.find`` scans: one pass per string, however many pretokens. Answers are
    memoised (the pretokens never change, and edits keep asking for the same merge results).
    """

    def __init__(self, items: Iterable[Iterable[str]]):
        owners: dict[str, set[int]] = {}
        for item, pretokens in enumerate(items):
            for pretoken in pretokens:
                owners.setdefault(pretoken, set()).add(item)
        #: pretoken -> the items that have it
        self.owners: Mapping[str, frozenset[int]] = MappingProxyType({p: frozenset(s) for p, s in owners.items()})
        self._pretokens = list(owners)
        self._starts: list[int] = []
        offset = 0
        for pretoken in self._pretokens:
            self._starts.append(offset)
            offset += len(pretoken) + 1
        self._text = SEPARATOR.join(self._pretokens)
        self._longest = max(map(len, self._pretokens), default=0)
        self._memo: dict[str, frozenset[int]] = {}

    def _holding(self, string: str) -> Iterator[str]:
        """The distinct pretokens containing ``string``, in order of first appearance."""
        pretokens = self._pretokens
        if not string or SEPARATOR in string:  # would match between or across pretokens in the joined text
            yield from (p for p in pretokens if string in p)
            return
        text, starts = self._text, self._starts
        position = text.find(string)
        while position != -1:
            k = bisect_right(starts, position) - 1
            yield pretokens[k]
            position = text.find(string, starts[k] + len(pretokens[k]) + 1)

    def containing(self, string: str) -> frozenset[int]:
        """The items with a pretoken containing ``string``."""
        found = self._memo.get(string)
        if found is None:
            owners = self.owners
            found = self._memo[string] = frozenset().union(*(owners[p] for p in self._holding(string)))
        return found

    def containing_any(self, strings: Iterable[str]) -> set[int]:
        """The items with a pretoken containing one of ``strings``: a memoised search per string;
        with many new strings (an edit rewiring thousands of merges), each is looked for only in the
        pretokens holding its rarest piece of GRAM characters (:attr:`_pieces`), instead of one
        scan of all pretokens per string."""
        wanted = {s for s in strings if len(s) <= self._longest}
        memo = self._memo
        new = [s for s in wanted if s not in memo and len(s) >= GRAM]
        if len(new) > MANY_STRINGS:
            pieces, pretokens, owners = self._pieces, self._pretokens, self.owners
            for string in new:
                rarest = min((pieces.get(string[i : i + GRAM], ()) for i in range(len(string) - GRAM + 1)), key=len)
                memo[string] = frozenset().union(*(owners[pretokens[k]] for k in rarest if string in pretokens[k]))
        found: set[int] = set()
        found.update(*map(self.containing, wanted))
        return found

    @cached_property
    def _pieces(self) -> dict[str, list[int]]:
        """Each piece of GRAM characters -> the distinct pretokens (their positions) that hold it."""
        pieces: dict[str, list[int]] = {}
        for k, pretoken in enumerate(self._pretokens):
            for piece in {pretoken[i : i + GRAM] for i in range(len(pretoken) - GRAM + 1)}:
                holders = pieces.get(piece)
                if holders is None:
                    pieces[piece] = [k]
                else:
                    holders.append(k)
        return pieces

    def first_containing(self, string: str) -> int | None:
        """The first item with ``string`` as a pretoken, else the first with a pretoken containing it
        (None when there is none)."""
        exact = self.owners.get(string)
        if exact:
            return min(exact)
        holder = next(self._holding(string), None)
        return None if holder is None else min(self.owners[holder])
