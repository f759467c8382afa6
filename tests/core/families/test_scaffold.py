"""Scaffold-BPE ([scaffold Alg. 1-2]): tests/fixtures/TEST_VECTORS.md V6, the tie and priority options,
agreement with our plain BPE trainer, encoding/trace/save properties, input checks."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bpe.trainer import train_bpe
from core.counting.corpus import TrainingCorpus
from core.errors import InputError
from core.families.scaffold import ScaffoldBPE, train
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR
from core.pipeline import Metaspace, WhitespaceSplit
from core.tokeniser import Tokeniser

# TEST_VECTORS.md V6 (tests/fixtures/scaffold_arizona.tsv), no prefix, target 17.
ARIZONA = {"arizona": 10, "zona": 1, "arid": 2, "on": 3}
V6_MERGES = [("o", "n"), ("a", "r"), ("ar", "i"), ("z", "on"), ("zon", "a"), ("ari", "zona"), ("ari", "d")]
# tests/fixtures/scaffold_arizona_sim.txt: per merge step (pair count, f(left), f(right),
# f(Q.head) after the update), and |V| after every step.
V6_MERGE_FIGURES = {
    0: (14, 0, 0, 12),
    1: (12, 11, 0, 12),
    2: (12, 0, 0, 11),
    3: (11, 0, 3, 11),
    4: (11, 0, 0, 10),
    5: (10, 2, 1, 3),
    8: (2, 0, 0, 1),
}
V6_SIZES = [8, 9, 9, 9, 9, 8, 9, 10, 10, 11]
V6_EVENTS = [
    (0, "merge", "o + n -> on"),
    (1, "merge", "a + r -> ar"),
    (2, "merge", "ar + i -> ari"),
    (2, "scaffold", "scaffold ar"),
    (3, "merge", "z + on -> zon"),
    (3, "scaffold", "scaffold on"),
    (4, "merge", "zon + a -> zona"),
    (4, "scaffold", "scaffold zon"),
    (5, "merge", "ari + zona -> arizona"),
    (5, "scaffold", "scaffold ari"),
    (5, "scaffold", "scaffold zona"),
    (6, "readmit", "readmit on"),
    (7, "readmit", "readmit ari"),
    (8, "merge", "ari + d -> arid"),
    (8, "scaffold", "scaffold ari"),
    (9, "readmit", "readmit zona"),
]


def arizona(**options):
    return train(TrainingCorpus(WhitespaceSplit(), ARIZONA), options.pop("vocab_size", 17), **options)


def merge_pairs(tokeniser: ScaffoldBPE) -> list[tuple[str, ...]]:
    return [m.parts for m in tokeniser.bte.merges]


# --- V6 -------------------------------------------------------------------------------------------
def test_v6_training_events():
    run = arizona()
    assert [(e.step, e.kind, e.label) for e in run.events] == V6_EVENTS
    last_size = {e.step: e.vocab_size for e in run.events}
    assert [last_size[step] for step in range(10)] == V6_SIZES
    for e in run.events:
        if e.kind == "merge":
            assert (e.count, e.detail["f_left"], e.detail["f_right"], e.detail["head"]) == V6_MERGE_FIGURES[e.step]
    assert [e.count for e in run.events if e.kind != "merge"] == [0, 3, 0, 2, 1, 3, 2, 0, 1]
    tokeniser = run.tokeniser
    assert merge_pairs(tokeniser) == V6_MERGES
    assert tokeniser.scaffold_tokens == {"ar", "ari", "zon"}
    assert tokeniser.vocabulary == set("adinorz") | {"on", "zona", "arizona", "arid"}
    assert tokeniser.vocab_size == 11 == run.summary["normal_tokens"]
    assert run.summary["stopped"] == "head frequency 0 < 1"  # target 17 is unreachable


def test_v6_encoding():
    tokeniser = arizona().tokeniser
    expected = {
        "zon": ["z", "on"],
        "ona": ["on", "a"],
        "arizona": ["arizona"],
        "zona": ["zona"],
        "arid": ["arid"],
        "on": ["on"],
    }
    for word, tokens in expected.items():
        assert tokeniser.tokenise(word) == tokens
        assert tokeniser.tokenise_word(word) == tokens
    assert tokeniser.bte.segment_pretoken("zon") == ("zon",)  # Scaffolding uses all of E
    assert tokeniser.demolish("ari") == ("a", "r", "i")  # ar is scaffold too: recurse
    assert tokeniser.demolish("on") == ("on",)


def test_v6_transcription_matches_the_fixture_files():
    from tests.conftest import FIXTURES

    assert load_word_counts(FIXTURES / "scaffold_arizona.tsv") == ARIZONA
    lines = (FIXTURES / "scaffold_arizona_sim.txt").read_text(encoding="utf-8").splitlines()
    steps = [line.split("; ") for line in lines if line.startswith("step ")]
    assert [int(fields[-1].removeprefix("|V|=")) for fields in steps] == V6_SIZES
    figures = {
        int(fields[0].split(":")[0].removeprefix("step ")): (
            int(fields[0].rsplit("=", 1)[1].rstrip(")")),
            *(int(f.rsplit("=", 1)[1]) for f in fields[1].split(", ")),
        )
        for fields in steps
        if " merge " in fields[0]
    }
    assert figures == V6_MERGE_FIGURES
    merges = next(line for line in lines if line.startswith("merges: ")).removeprefix("merges: ")
    assert merges == repr(V6_MERGES)


def test_v6_pair_first_differs():
    run = arizona(tie="pair-first")
    # step 7: the pair (ari, d) = 2 beats the scaffold token ari (2); ari is never re-added.
    assert [(e.step, e.kind, e.label) for e in run.events] == [
        *V6_EVENTS[:12],
        (7, "merge", "ari + d -> arid"),
        (8, "readmit", "readmit zona"),
    ]
    assert [e.vocab_size for e in run.events][-3:] == [9, 10, 11]
    # With a target of 10 the rules give different tokenisers.
    first, pair = arizona(vocab_size=10).tokeniser, arizona(vocab_size=10, tie="pair-first").tokeniser
    assert merge_pairs(first) == V6_MERGES[:6] and merge_pairs(pair) == V6_MERGES
    assert first.scaffold_tokens == {"ar", "zon", "zona"}
    assert pair.scaffold_tokens == {"ar", "zon", "zona", "ari"}
    assert first.vocab_size == pair.vocab_size == 10
    assert first.tokenise("arid zona") == ["ari", "d", "z", "on", "a"]
    assert pair.tokenise("arid zona") == ["arid", "z", "on", "a"]


def test_scaffold_priority_marked():
    # pair-first: ari is marked with f=2, then loses both occurrences to arid. Ranked by its
    # current frequency (0) it stays scaffold; ranked by the marked frequency it is re-added.
    current = arizona(tie="pair-first").tokeniser
    run = arizona(tie="pair-first", scaffold_priority="marked")
    assert current.scaffold_tokens == {"ar", "ari", "zon"}
    assert run.tokeniser.scaffold_tokens == {"ar", "zon"}
    assert [(e.kind, e.label, e.count) for e in run.events[-2:]] == [
        ("readmit", "readmit ari", 2),
        ("readmit", "readmit zona", 1),
    ]


def test_min_frequency_and_unprotected_atoms():
    run = arizona(min_frequency=3)
    assert run.events[-1].label == "readmit on" and run.summary["stopped"] == "head frequency 2 < 3"
    loose = arizona(protect_atoms=False)
    marked = {e.detail["token"] for e in loose.events if e.kind == "scaffold"}
    assert {"o", "n", "r", "z"} <= marked  # f = 0 after their merges, below the head
    tokeniser = loose.tokeniser
    assert "z" in tokeniser.scaffold_tokens and "z" not in tokeniser.vocabulary
    assert tokeniser.tokenise("zon") == ["z", "on"]  # an atom cannot be demolished


def test_trace_text():
    tokeniser = arizona().tokeniser
    trace = tokeniser.trace_text("zon arizona ona")
    assert trace.problems() == []
    assert list(trace.tokens) == tokeniser.tokenise("zon arizona ona") == ["z", "on", "arizona", "on", "a"]
    assert [e.kind for e in trace.events] == ["merge"] * 9 + ["demolish"]
    assert trace.events[-1].label == "zon -> z on"
    assert trace.events[1].tokens == ("zon", *"arizona", *"ona")
    assert trace.extra["scaffolded"] == ["zon", "arizona", "on", "a"]


def test_demolition_takes_the_shortest_child_sequence():
    saved = {
        "format": "variant:scaffold",
        "version": 1,
        "name": "abc",
        "pretokeniser": WhitespaceSplit().to_spec(),
        "alphabet": ["a", "b", "c"],
        "merges": [["a", "b"], ["b", "c"], ["ab", "c"], ["a", "bc"]],
        "scaffold_tokens": ["ab", "abc"],
    }
    tokeniser = ScaffoldBPE.from_json(saved, "abc.json")
    assert tokeniser.bte.segment_pretoken("abc") == ("abc",)
    assert tokeniser.demolish("abc") == ("a", "bc")  # not a b c via the scaffold ab
    assert tokeniser.tokenise("abc ab") == ["a", "bc", "a", "b"]


# --- agreement with plain BPE ---------------------------------------------------------------------
CORPORA = st.dictionaries(st.text(alphabet="abcd", min_size=1, max_size=9), st.integers(1, 20), min_size=1, max_size=7)
OPTIONS = st.fixed_dictionaries(
    {
        "tie": st.sampled_from(["scaffold-first", "pair-first"]),
        "protect_atoms": st.booleans(),
        "scaffold_priority": st.sampled_from(["current", "marked"]),
    }
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CORPORA, st.integers(0, 25), OPTIONS)
def test_merges_are_plain_bpe_merges(words, extra, options):
    """Alg. 1 only adds scaffold items to Q: the pairs merged, in order, are plain BPE's; Scaffold-BPE
    just learns more of them (|E| >= |V|). Run to the end, both learn the same list."""
    corpus = TrainingCorpus(WhitespaceSplit(), words)
    base = len({ch for w in words for ch in w})
    run = train(corpus, base + extra, **options)
    plain = train_bpe(words, base + extra).merges
    assert merge_pairs(run.tokeniser)[: len(plain)] == list(plain)
    assert merge_pairs(train(corpus, 10**6, **options).tokeniser) == list(train_bpe(words, 10**6).merges)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CORPORA, st.integers(0, 25), OPTIONS)
def test_training_invariants(words, extra, options):
    corpus = TrainingCorpus(WhitespaceSplit(), words)
    base = len({ch for w in words for ch in w})
    run = train(corpus, base + extra, **options)
    tokeniser = run.tokeniser
    assert tokeniser.vocab_size <= base + extra
    if run.summary["stopped"] == "vocab_size reached":
        assert tokeniser.vocab_size == base + extra
    assert tokeniser.vocab_size == (run.events[-1].vocab_size if run.events else base)
    if options["protect_atoms"]:
        assert not tokeniser.scaffold_tokens & set(tokeniser.bte.alphabet)
    # Replaying the merges on the corpus gives the frequencies the events report, and every
    # marking happened below the head.
    segmented = {w: list(w) for w in words}
    for event in run.events:
        if event.kind == "scaffold":
            assert event.count < event.detail["head"]
        if event.kind != "merge":
            continue
        left, right = event.detail["left"], event.detail["right"]
        for w, tokens in segmented.items():
            out, i = [], 0
            while i < len(tokens):
                if i + 1 < len(tokens) and tokens[i] == left and tokens[i + 1] == right:
                    out.append(left + right)
                    i += 2
                else:
                    out.append(tokens[i])
                    i += 1
            segmented[w] = out
        freq = {left: 0, right: 0}
        for w, tokens in segmented.items():
            for t in tokens:
                if t in freq:
                    freq[t] += words[w]
        assert (event.detail["f_left"], event.detail["f_right"]) == (freq[left], freq[right])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CORPORA, st.integers(0, 25), OPTIONS, st.lists(st.text(alphabet="abcde ", max_size=15), max_size=4))
def test_encoding_properties(words, extra, options, texts):
    corpus = TrainingCorpus(WhitespaceSplit(), words)
    tokeniser = train(corpus, len({ch for w in words for ch in w}) + extra, **options).tokeniser
    assert isinstance(tokeniser, Tokeniser)
    for token in tokeniser.scaffold_tokens:
        pieces = tokeniser.demolish(token)
        assert "".join(pieces) == token
        assert all(p in tokeniser.vocabulary or len(p) == 1 for p in pieces)
    for text in [*words, *texts]:
        tokens = tokeniser.tokenise(text)
        assert "".join(tokens) == "".join(text.split())
        assert all(t in tokeniser.vocabulary or len(t) == 1 for t in tokens)
        trace = tokeniser.trace_text(text)
        assert trace.problems() == [] and list(trace.tokens) == tokens
    loaded = ScaffoldBPE.from_json(json.loads(json.dumps(tokeniser.to_json())), "saved.json")
    assert loaded.to_json() == tokeniser.to_json()
    assert all(loaded.tokenise(t) == tokeniser.tokenise(t) for t in [*words, *texts])


def test_english_sample_slice():
    counts = load_word_counts(SAMPLE_DIR / "counts" / "en_wordfreq.tsv")
    top = dict(list(counts.items())[:3000])
    corpus = TrainingCorpus.from_word_counts(top, Metaspace())
    calls = []
    run = train(corpus, 600, progress=lambda done, total: calls.append((done, total)))
    tokeniser = run.tokeniser
    assert tokeniser.vocab_size == 600 and run.summary["stopped"] == "vocab_size reached"
    assert tokeniser.scaffold_tokens and run.summary["readmissions"]
    plain = train_bpe(corpus.pretoken_counts, 600).merges
    assert merge_pairs(tokeniser)[: len(plain)] == list(plain) and len(tokeniser.bte.merges) > len(plain)
    assert calls[-1] == (600 - len(tokeniser.bte.alphabet),) * 2
    for word in list(top)[:500]:
        tokens = tokeniser.tokenise_word(word)
        assert "".join(tokens) == "\u2581" + word and set(tokens) <= tokeniser.vocabulary


# --- input checks ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, message",
    [
        ({"tie": "random"}, "tie must be one of"),
        ({"scaffold_priority": "first"}, "scaffold_priority must be one of"),
        ({"protect_atoms": "yes"}, "protect_atoms"),
        ({"min_frequency": -1}, "min_frequency"),
        ({"vocab_size": 3}, "smaller than the 7 alphabet characters"),
        ({"vocab_size": True}, "vocab_size must be an integer"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(InputError, match=message):
        arizona(**options)


def test_bad_corpus():
    with pytest.raises(InputError, match="TrainingCorpus"):
        train(ARIZONA, 10)
    with pytest.raises(InputError, match="count must be a positive integer"):
        train(TrainingCorpus(WhitespaceSplit(), {"ab": 0}), 10)


def _saved(**changes):
    saved = arizona().tokeniser.to_json()
    saved.update(changes)
    return saved


@pytest.mark.parametrize(
    "obj, message",
    [
        ([], "expected a JSON object"),
        (_saved(format="variant:picky"), 'expected "format": "variant:scaffold"'),
        (_saved(version=2), "unsupported version"),
        (_saved(name=3), "field 'name'"),
        (_saved(pretokeniser={"kind": "nope"}), "field 'pretokeniser': unknown pretokeniser kind"),
        (_saved(alphabet="adinorz"), "field 'alphabet'"),
        (_saved(merges=[["o", "n"], ["o"]]), "field 'merges' item 1"),
        (_saved(merges=[["o", "x"]]), "field 'merges' item 0"),
        (_saved(merges=[["o", "n"], ["o", "n"]]), "appears twice"),
        (_saved(scaffold_tokens=["arizonas"]), "not types of the merge list"),
        (_saved(scaffold_tokens=[1]), "field 'scaffold_tokens'"),
    ],
)
def test_bad_json(obj, message):
    with pytest.raises(InputError, match=message) as info:
        ScaffoldBPE.from_json(obj, "bad.json")
    assert info.value.source == "bad.json"
