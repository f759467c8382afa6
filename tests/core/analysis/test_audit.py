"""The vocabulary audit ([rebpe App. A.1] for merge order; the rest of the HF pipeline): one small
tokenizer.json per cause, each also checked against HF ``tokenizers``' own round trip; random
merge lists against HF and against the blocked-merge analysis; idle types on a corpus."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from core.analysis.audit import CAUSES, audit, idle_types, unreachable_types, word_pretokens
from core.analysis.merge_usage import pretoken_counts
from core.bpe.model import BTETokeniser, Merge
from core.edits.blocked import find_blocked_merges
from core.errors import InputError
from core.families.unigram.model import UnigramTokeniser
from core.formats.hf_json import tokeniser_from_hf_json
from core.pipeline import WhitespaceSplit
from core.pipeline.byte_level import bytes_to_byte_chars
from core.trace import MAX_TRACE_CHARS
from tests.strategies import ALPHABET, hf_bpe, merge_lists


def tokenizer_json(vocab, merges, *, normalizer=None, pre_tokenizer=None, decoder=None, added=(), **model):
    """A tokenizer.json value: BPE over ``vocab`` (a list: ids in order) with ``merges`` ("a b")."""
    return {
        "version": "1.0",
        "added_tokens": [
            {
                "id": len(vocab) + k,
                "content": t,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for k, t in enumerate(added)
        ],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(vocab)}, "merges": list(merges), **model},
    }


def hf_round_trip(obj) -> set[str]:
    """The types HF's own round trip does not give back."""
    from tokenizers import Tokenizer

    hf = Tokenizer.from_str(json.dumps(obj))
    found = set()
    for type_, id_ in hf.get_vocab(with_added_tokens=True).items():
        if hf.encode(hf.decode([id_], skip_special_tokens=False), add_special_tokens=False).ids != [id_]:
            found.add(type_)
    return found


def causes(obj) -> dict[str, str]:
    """type -> cause of what the audit lists, after checking the list against HF's round trip."""
    found = {f.type: f.cause for f in unreachable_types(tokeniser_from_hf_json(obj))}
    assert set(found) == hf_round_trip(obj)
    return found


WHITESPACE = {"type": "WhitespaceSplit"}
METASPACE = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}


def test_merge_order_blocks_a_type_and_says_what_took_its_characters():
    # a+b fires before a+bc can: "abc" becomes [ab, c] ([rebpe App. A.1], scenario 2b)
    obj = tokenizer_json(["a", "b", "c", "ab", "bc", "abc"], ["a b", "b c", "a bc"], pre_tokenizer=WHITESPACE)
    assert causes(obj) == {"abc": "merge-order"}
    (finding,) = unreachable_types(tokeniser_from_hf_json(obj))
    assert (finding.id, finding.text, finding.tokens, finding.ids) == (5, "abc", ("ab", "c"), (3, 2))
    assert finding.evidence == {
        "segmentation": ["ab", "c"],
        "merge": {"parts": ["a", "bc"], "rank": 2},
        "at_its_turn": ["ab", "c"],
    }


def test_the_normaliser_changes_a_capital():
    obj = tokenizer_json(["a", "A", "b", "ab"], ["a b"], normalizer={"type": "Lowercase"}, pre_tokenizer=WHITESPACE)
    assert causes(obj) == {"A": "normaliser"}


def test_the_pre_tokeniser_cuts_digits_apart():
    obj = tokenizer_json(
        ["1", "2", "12"],
        ["1 2"],
        pre_tokenizer={"type": "Digits", "individual_digits": True},
    )
    assert causes(obj) == {"12": "pre-tokeniser"}
    (finding,) = unreachable_types(tokeniser_from_hf_json(obj))
    assert finding.evidence == {"pretokens": ["1", "2"]}


def test_an_added_token_shadows_a_type_that_holds_it():
    obj = tokenizer_json(["a", "b", "c", "ab", "abc"], ["a b", "ab c"], pre_tokenizer=WHITESPACE, added=["bc"])
    assert causes(obj) == {"abc": "added-token"}
    (finding,) = unreachable_types(tokeniser_from_hf_json(obj))
    assert finding.tokens == ("a", "bc") and finding.evidence == {"added_tokens": ["bc"]}


def test_word_internal_pieces_and_the_bare_marker_under_metaspace():
    obj = tokenizer_json(
        ["▁", "a", "b", "▁a", "ab", "▁ab"],
        ["▁ a", "a b", "▁a b"],
        pre_tokenizer=METASPACE,
        decoder={"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
    )
    assert causes(obj) == {"a": "word-internal", "b": "word-internal", "ab": "word-internal", "▁": "decoder"}


def test_byte_fallback_pieces_of_characters_the_vocabulary_has():
    vocab = ["<0x61>", "<0x62>", "a", "b", "ab"]
    obj = tokenizer_json(vocab, ["a b"], pre_tokenizer=WHITESPACE, byte_fallback=True, decoder={"type": "ByteFallback"})
    assert causes(obj) == {"<0x61>": "byte-fallback", "<0x62>": "byte-fallback"}


def test_partial_utf8_bytes_of_a_byte_level_vocabulary():
    e_acute = bytes_to_byte_chars("é".encode())  # two bytes: each alone is part of a character
    vocab = [bytes_to_byte_chars(bytes([b])) for b in range(256)] + [e_acute]
    obj = tokenizer_json(
        vocab,
        [f"{e_acute[0]} {e_acute[1]}"],
        pre_tokenizer={"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        decoder={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    )
    found = causes(obj)
    assert found[e_acute[0]] == found[e_acute[1]] == "partial-utf8"
    assert e_acute not in found
    assert set(found.values()) == {"partial-utf8"}
    assert len(found) == 128  # every byte from 0x80 up is part of a character


def test_every_cause_has_a_label_and_an_explanation():
    assert all(label and len(why) > 40 for label, why in CAUSES.values())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(merge_lists())
def test_random_merge_lists_agree_with_tokenizers_and_with_the_blocked_merges(merges):
    ours = BTETokeniser(ALPHABET, [Merge(r, tuple(p)) for r, p in enumerate(merges)], WhitespaceSplit())
    found = {f.type: f.cause for f in unreachable_types(ours)}
    hf = hf_bpe(ALPHABET, merges)
    expected = {t for t, i in hf.get_vocab().items() if hf.encode(t).ids != [i]}
    assert set(found) == expected
    assert set(found.values()) <= {"merge-order"}
    assert set(found) == set(find_blocked_merges(ours).unreachable_types)


def test_idle_types_on_a_corpus_never_emitted_and_residues():
    # "ab" is formed inside every "abc" but emitted alone only once
    tok = BTETokeniser("abcd", [Merge(0, ("a", "b")), Merge(1, ("ab", "c"))], WhitespaceSplit())
    counts = pretoken_counts(tok, ["abc abc abc abc abc abc abc abc abc abc abc ab", "a"])
    assert counts == word_pretokens(tok, {"abc": 11, "ab": 1, "a": 1}) == {"abc": 11, "ab": 1, "a": 1}
    idle, untraced = idle_types(tok, counts, residue_ratio=5)
    assert untraced == 0
    rows = {u.type: (u.cause, u.emitted, u.formed) for u in idle}
    assert rows == {
        "b": ("never emitted", 0, 0),
        "c": ("never emitted", 0, 0),
        "d": ("never emitted", 0, 0),
        "ab": ("residue", 1, 12),
    }
    assert idle_types(tok, {"abc": 1, "ab": 1}, residue_ratio=5)[0][-1].type == "d"  # ab: 2 formed / 1 emitted


def test_pretokens_too_long_to_trace_are_emitted_but_not_traced_and_counted_as_such():
    tok = BTETokeniser("ab", [Merge(0, ("a", "b"))], WhitespaceSplit())
    long = "ab" * (MAX_TRACE_CHARS // 2 + 1)
    idle, untraced = idle_types(tok, {long: 3, "a": 1})
    assert untraced == 3
    assert {u.type: (u.emitted, u.formed) for u in idle} == {"b": (0, 0)}


def test_the_audit_reports_counts_and_json():
    obj = tokenizer_json(["a", "b", "c", "ab", "bc", "abc"], ["a b", "b c", "a bc"], pre_tokenizer=WHITESPACE)
    report = audit(tokeniser_from_hf_json(obj), ["ab c"], residue_ratio=2)
    assert report.types_checked == 6 and report.counts() == {"merge-order": 1}
    assert report.idle_counts() == {"never emitted": 4}
    data = json.loads(json.dumps(report.to_json()))
    assert data["unreachable"][0]["type"] == "abc" and data["unreachable"][0]["cause"] == "merge-order"
    assert {r["type"] for r in data["idle"]} == {"a", "b", "bc", "abc"}


def test_an_empty_corpus_is_refused():
    tok = BTETokeniser("ab", [Merge(0, ("a", "b"))], WhitespaceSplit())
    with pytest.raises(InputError, match="no text"):
        idle_types(tok, pretoken_counts(tok, ["", "  "]))


def test_a_unigram_piece_viterbi_never_chooses_is_the_models_cause():
    # a + b scores -2, the piece ab only -10: Viterbi never takes it (and the tokeniser has no merge graph)
    tok = UnigramTokeniser({"a": -1.0, "b": -1.0, "ab": -10.0}, WhitespaceSplit())
    (finding,) = unreachable_types(tok)
    assert (finding.type, finding.cause, finding.tokens) == ("ab", "model", ("a", "b"))
    assert finding.evidence == {"segmentation": ["a", "b"]}
