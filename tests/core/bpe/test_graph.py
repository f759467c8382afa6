"""The merge graph of [knockout §3.1] (Fig. 11 and Fig. 1 views) and type neighbourhoods."""

from __future__ import annotations

from core.bpe.graph import (
    ANCESTOR,
    CENTER,
    DESCENDANT,
    HALF_SIBLING,
    merge_graph,
    merge_node,
    neighbourhood,
    type_graph,
    type_node,
)
from core.bpe.model import Merge
from core.formats.tokeniser_files import load_tokeniser
from tests.core.formats.test_scenarios import SCENARIOS, after_knockout


def test_alternating_graph_of_scenario_2a_after_knockout():
    tok = after_knockout(load_tokeniser(SCENARIOS["a1_scenario2a"]))
    graph = merge_graph(tok)
    triplet = Merge(5, ("_bru", "id", "s"))
    assert graph.nodes[merge_node(triplet)]["tuple"] is True
    assert set(graph.predecessors(merge_node(triplet))) == {type_node("_bru"), type_node("id"), type_node("s")}
    assert list(graph.successors(merge_node(triplet))) == [type_node("_bruids")]
    # bipartite: every arc joins a type and a merge
    assert all(graph.nodes[a]["kind"] != graph.nodes[b]["kind"] for a, b in graph.edges)
    # M_i / M_o read off the graph agree with the model's indexes
    for type_ in tok.types:
        node = type_node(type_)
        if node in graph:
            assert {graph.nodes[m]["rank"] for m in graph.successors(node)} == {
                m.rank for m in tok.used_by.get(type_, ())
            }
            assert {graph.nodes[m]["rank"] for m in graph.predecessors(node)} == {
                m.rank for m in tok.produced_by.get(type_, ())
            }


def test_repeated_part_keeps_positions():
    tok = load_tokeniser(SCENARIOS["a1_scenario1"]).with_merges([Merge(0, ("_", "b")), Merge(1, ("_b", "_b"))])
    graph = merge_graph(tok)
    assert graph.edges[type_node("_b"), merge_node(Merge(1, ("_b", "_b")))]["positions"] == [0, 1]
    assert type_graph(tok).number_of_edges("_b", "_b_b") == 2


def test_neighbourhood_of_bruids_in_the_dutch_40k(dutch40k):
    hood = neighbourhood(dutch40k, "Ġbruids", depth=2, max_nodes=500)
    assert hood.roles["Ġbruids"] == CENTER
    assert hood.roles["Ġbru"] == ANCESTOR and hood.roles["ids"] == ANCESTOR
    assert hood.roles["id"] == ANCESTOR and hood.distances["id"] == 2
    assert hood.roles["Ġgids"] == HALF_SIBLING and hood.roles["Ġbruid"] == HALF_SIBLING
    assert {str(m) for m in hood.merges} >= {"id s", "Ġbru ids", "g ids"}
    assert not hood.truncated


def test_neighbourhood_descendants_and_cap(dutch40k):
    hood = neighbourhood(dutch40k, "ids", depth=1, max_nodes=500)
    assert hood.roles["Ġgids"] == DESCENDANT and hood.roles["Ġbruids"] == DESCENDANT
    capped = neighbourhood(dutch40k, "ids", depth=3, max_nodes=10)
    assert len(capped.roles) == 10 and capped.truncated
    assert set(capped.to_json()) == {"center", "depth", "truncated", "found", "types", "merges"}


def test_the_cut_keeps_ancestors_and_caps_half_siblings(dutch40k):
    whole = neighbourhood(dutch40k, "Ġbruids", depth=2, max_nodes=1000)
    assert whole.found == len(whole.roles) == 35 and not whole.truncated
    small = neighbourhood(dutch40k, "Ġbruids", depth=2, max_nodes=7, siblings_per_parent=6)
    assert set(small.roles) == {"Ġbruids", "Ġbru", "ids", "Ġb", "ru", "id", "s"}  # the merge tree first
    assert small.truncated and small.found == 35
    capped = neighbourhood(dutch40k, "Ġbruids", depth=2, max_nodes=100, siblings_per_parent=2)
    siblings = [t for t, role in capped.roles.items() if role == HALF_SIBLING]
    assert siblings == ["Ġarbeids", "Ġbrug", "Ġgids", "Ġbruin"]  # two per parent, lowest ranks first
    assert capped.truncated and capped.found == 35
