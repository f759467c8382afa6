"""Compact ids (core.edits.id_compaction): 0..n-1 in id order, and a map that says where every old
id went."""

from __future__ import annotations

from core.bpe.model import Merge
from core.edits.finishing import finish
from core.edits.id_compaction import compact_ids
from core.edits.knockout import derive, knock_out
from tests.core.edits.test_knockout import toy


def test_compacted_ids_close_the_gaps_in_order_and_the_map_follows_every_token():
    tok = toy()
    old = tok.token_ids()
    knocked, _ = knock_out(tok, ["ids"], cascade=True)  # ids, _bruids, _beleids, _gids leave V
    grown = derive(knocked, [*knocked.merges, Merge(99, ("jurk", "s"))])
    compacted, id_map = compact_ids(grown, tok)
    new = compacted.token_ids()
    assert sorted(new.values()) == list(range(len(new)))
    order = sorted(grown.token_ids(), key=grown.token_ids().__getitem__)
    assert sorted(new, key=new.__getitem__) == order  # the relative order of all tokens is kept
    assert id_map.size_before == len(old) and id_map.size_after == len(new)
    for token, old_id in old.items():
        assert id_map.old_to_new[old_id] == new.get(token)  # None exactly for the tokens that left
    assert [old_id for old_id, n in enumerate(id_map.old_to_new) if n is None] == sorted(
        old[t] for t in ("ids", "_bruids", "_beleids", "_gids")
    )
    assert id_map.added == {"jurks": len(new) - 1}
    assert id_map.kept == tuple(old[t] for t in order if t in old)
    assert id_map.to_json()["old_to_new"] == list(id_map.old_to_new)


def test_compacting_a_finished_tokeniser_keeps_its_segmentation():
    tok = toy()
    finished, _ = finish(knock_out(tok, ["ids"])[0], "cascade")
    compacted, _ = compact_ids(finished, tok)
    for word in ["bruidsjurk", "beleidsmaker", "gids"]:
        assert compacted.tokenise_word(word) == finished.tokenise_word(word)
