"""Blocked merges when a type has several merges: alternatives, ``ignore_merges``, real files.

[rebpe App. A.2]: only one merge ever forms a type; converted tiktoken / SentencePiece files list
every split, so the others never fire. They are *alternatives* (a summary with examples), not
blocked merges; the App. A.1 scenario classes stay for the latter (tests/core/edits/test_blocked.py).
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.cli import main
from core.edits.blocked import find_blocked_merges, forming_merges, is_blocked, summary_lines
from core.pipeline import WhitespaceSplit
from tests.real_tokenisers import real_file


def tok(merges, *, ignore_merges=False, alphabet="abc") -> BTETokeniser:
    return BTETokeniser(
        alphabet, [Merge(r, tuple(p)) for r, p in merges], WhitespaceSplit(), ignore_merges=ignore_merges
    )


# tiktoken style: abc has every split whose parts are types, at abc's rank
SHARED = [(0, ("a", "b")), (1, ("b", "c")), (2, ("a", "bc")), (2, ("ab", "c"))]


def test_shared_rank_alternative_is_not_blocked():
    t = tok(SHARED)
    assert t.tokenise("abc") == ["abc"] and t.primary_merge("abc") == Merge(2, ("ab", "c"))
    report = find_blocked_merges(t)
    assert report.blocked == () and report.unreachable_types == ()
    assert (report.alternatives, report.alternative_types, report.lowest_ranked_not_primary) == (1, 1, 1)
    (example,) = report.alternative_examples
    assert (example.type, str(example.primary), [str(m) for m in example.alternatives]) == ("abc", "ab c", ["a bc"])
    assert is_blocked(t, Merge(2, ("a", "bc")))  # it can never apply ...
    assert summary_lines(report) == [  # ... but it is counted as an alternative, not as a blocked merge
        "0 blocked merges; 0 unreachable types",
        "1 alternative merge of 1 type never fire on the type's own string: another merge forms the type "
        "([rebpe App. A.2]), so they are not blocked merges; for 1 type the lowest-ranked merge is such an "
        "alternative",
    ]


def test_one_merge_per_type_has_no_alternatives():
    """The reduction to the paper: with one merge per type every merge is primary or blocked."""
    t = tok([(0, ("a", "b")), (1, ("b", "c")), (2, ("a", "bc"))])
    report = find_blocked_merges(t)
    assert report.alternatives == 0 and report.alternative_examples == ()
    (entry,) = report.blocked
    assert entry.merge == Merge(2, ("a", "bc")) and t.segment_limited("abc", 2) != entry.merge.parts


def test_ignore_merges_type_emitted_whole_is_reachable():
    merges = [(0, ("a", "b")), (1, ("b", "c")), (2, ("a", "bc"))]  # abc's own string ends as [ab, c]
    plain = find_blocked_merges(tok(merges))
    assert plain.unreachable_types == ("abc",) and plain.whole_only_types == ()
    whole = tok(merges, ignore_merges=True)
    assert whole.tokenise("abc") == ["abc"]
    report = find_blocked_merges(whole)
    assert report.unreachable_types == () and report.whole_only_types == ("abc",)
    assert [str(b.merge) for b in report.blocked] == ["a bc"]  # its merge still never fires
    assert summary_lines(report)[0] == "1 blocked merge (0 tuple merges); 0 unreachable types"
    assert (
        "1 type no merge forms is emitted whole for its own pretoken (ignore_merges), so reachable: 'abc'"
        in summary_lines(report)
    )


def test_cli_text_and_json_name_what_they_count(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(tok([(0, ("a", "b")), (1, ("b", "c")), (2, ("a", "bc"))]).to_json()))
    assert main(["blocked", "--tokeniser", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "1 blocked merge (0 tuple merges); 1 unreachable type: 'abc'"
    path.write_text(json.dumps(tok(SHARED).to_json()))
    assert main(["blocked", "--tokeniser", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "0 blocked merges; 0 unreachable types"
    assert "1 alternative merge of 1 type never fire" in out and "'abc'" in out and "a + bc" in out
    assert main(["blocked", "--tokeniser", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["blocked"] == [] and data["alternatives"]["count"] == 1
    (example,) = data["alternatives"]["examples"]
    assert example["type"] == "abc" and example["primary"]["parts"] == ["ab", "c"]
    assert [a["parts"] for a in example["alternatives"]] == [["a", "bc"]]
    assert example["lowest_ranked_is_primary"] is True  # shared rank: it ties with its alternative


# --- the fast per-type decision equals the engine's, on tiktoken-style lists ----------------------
@st.composite
def ranked_vocabularies(draw):
    """A tiktoken-style tokeniser: ranked strings over 'abc' (longer ones made of earlier or later
    types), every split into two types a merge at the result's rank."""
    ranked = list(dict.fromkeys(draw(st.lists(st.text("abc", min_size=2, max_size=6), min_size=1, max_size=14))))
    types = set("abc") | set(ranked)
    merges = [
        Merge(rank, (s[:k], s[k:]))
        for rank, s in enumerate(ranked)
        for k in range(1, len(s))
        if s[:k] in types and s[k:] in types
    ]
    if not merges:
        merges = [Merge(0, ("a", "b"))]
    return BTETokeniser("abc", merges, WhitespaceSplit(), ignore_merges=draw(st.booleans()))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranked_vocabularies())
def test_property_shared_ranks(t):
    report = find_blocked_merges(t)
    blocked = {b.merge for b in report.blocked}
    alternatives = {m for e in report.alternative_examples for m in e.alternatives}
    never = {m for m in t.merges if m not in t.trace_pretoken(m.result, max_rank=math.inf).merges_applied}
    assert not blocked & alternatives and blocked | alternatives == never
    assert len(alternatives) == report.alternatives
    for type_, merges in t.produced_by.items():
        formed = t.engine.forming_merge(type_)
        assert (formed is None) == all(m in blocked for m in merges)
        if formed is not None:
            assert formed not in blocked and formed not in alternatives
    for type_ in report.unreachable_types + report.whole_only_types:
        assert not t.self_formed(type_)
        assert (type_ in report.whole_only_types) == (t.ignore_merges and t.tokenise(type_) == [type_])


# --- a real file ---------------------------------------------------------------------------------
@pytest.mark.real
def test_real_r50k_alternatives_are_not_blocked_and_whole_types_are_reachable():
    from core.formats.tokeniser_files import load_tokeniser

    t = load_tokeniser(real_file("tiktoken-r50k", "r50k_base.tiktoken"))
    assert t.ignore_merges and t.multi_merge_types > 30_000
    report = find_blocked_merges(t)
    forming = forming_merges(t)
    assert report.alternatives == sum(len(ms) - 1 for ty, ms in t.produced_by.items() if forming[ty] is not None)
    for entry in report.blocked:  # nothing listed as blocked has a merge forming its type
        assert forming[entry.merge.result] is None and not t.self_formed(entry.merge.result)
    assert report.alternatives > 50_000 and report.alternative_types > 30_000
    # every type the tokeniser emits whole for its own text is reachable
    unreachable = set(report.unreachable_types)
    decode = t.pretokeniser.decode
    for type_ in list(t.produced_by)[::25]:
        if t.tokenise(decode([type_])) == [type_]:
            assert type_ not in unreachable
    for type_ in report.unreachable_types:
        assert t.tokenise(decode([type_])) != [type_]
    # the fast decision agrees with the engine on a sample of types
    for type_ in list(t.produced_by)[::20]:
        assert forming[type_] == t.engine.forming_merge(type_), type_
