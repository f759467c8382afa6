"""Which words have a pretoken containing a string: where a merge forming that string can fire.

A merge can only fire inside a pretoken that holds the string it forms, so every question "where
can these merges fire?" starts here: the reference words to re-trace after an edit (blame kept up
to date, [knockout §3.4]), the words whose tree a step changed, the pretokens to trace when
counting how often merges fire, an example word for a blocked merge ([rebpe App. A.1]).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

#: joins the pretokens into one text; a string holding it (or the empty string) is looked for
#: pretoken by pretoken
SEPARATOR = "\0"
MANY_STRINGS = 600  # above this many new strings, containing_any matches them all in one pass


def trie_pattern(strings: Iterable[str]) -> re.Pattern:
    """A regular expression matching exactly the (non-empty) ``strings``, as a trie, so that the
    matcher branches on one character at a time instead of trying every string."""
    trie: dict = {}
    for string in strings:
        node = trie
        for char in string:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return re.compile(pattern(trie))


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
        """The items with a pretoken containing one of ``strings``: a memoised search per string for
        a few new strings; for many, one pass of a regular expression that reads the strings as a
        trie over all pretokens (on a 20k-word reference it costs about as much as 600 searches)."""
        wanted = {s for s in strings if len(s) <= self._longest}
        found: set[int] = set()
        if sum(s not in self._memo for s in wanted) > MANY_STRINGS:
            joined = {s for s in wanted if s and SEPARATOR not in s}
            try:
                pattern = trie_pattern(joined)
            except RecursionError:  # a trie deeper than the parser allows (pretokens of hundreds of characters)
                pass
            else:
                starts, pretokens, owners = self._starts, self._pretokens, self.owners
                for match in pattern.finditer(self._text):  # at least one match per pretoken holding one
                    found |= owners[pretokens[bisect_right(starts, match.start()) - 1]]
                wanted -= joined
        found.update(*map(self.containing, wanted))
        return found

    def first_containing(self, string: str) -> int | None:
        """The first item with ``string`` as a pretoken, else the first with a pretoken containing it
        (None when there is none)."""
        exact = self.owners.get(string)
        if exact:
            return min(exact)
        holder = next(self._holding(string), None)
        return None if holder is None else min(self.owners[holder])
