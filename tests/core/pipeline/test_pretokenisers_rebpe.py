"""The ReBPE preprocessing pipeline ([rebpe App. B.1], "Preprocessing", steps 1-9)."""

from __future__ import annotations

import unicodedata

import pytest
import regex
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.pipeline import ReBPEPipeline, pretokeniser_from_spec

P = ReBPEPipeline()


def pre(text, **options):
    return ReBPEPipeline(**options).pretokenise(text)


def test_running_example():
    assert pre("Schrödinger's cat can't run 1234567 well-known ...") == [
        "↑",
        "_schrödinger",
        "'s",
        "_cat",
        "_ca",
        "n't",
        "_run",
        "_1",
        "234",
        "567",
        "_well",
        "-",
        "known",
        "_...",
    ]


def test_footnote_5():
    # the footnote shows the string after step 6: "_Шрѣдингер" -> [↑, _шрѣдингер]
    assert pre("Шрѣдингер") == ["↑", "_шрѣдингер"]
    assert P.decode(pre("Шрѣдингер")) == "Шрѣдингер"


def test_step_1_nfkc():
    assert pre("ﬁne ²") == ["_fine", "_2"]
    assert pre("ＡＢＣ") == ["↑", "_abc"]
    assert P.normalise("e\u0301") == "é"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello, world!", ["↑", "_hello", ",", "_world", "!"]),
        ("wait...what?!", ["_wait", "...", "what", "?!"]),
        ("(x)", ["_(", "x", ")"]),
        ("'quoted' dogs' ’tis", ["_'", "quoted", "'", "_dogs", "'", "_’", "tis"]),
        ("a+b=c $5", ["_a", "+", "b", "=", "c", "_$", "5"]),  # ASCII symbols count as punctuation
        ("x€y a↑b", ["_x€y", "_a↑b"]),  # other symbols do not
        ("e.g.", ["_e", ".", "g", "."]),
    ],
)
def test_step_2_punctuation(text, expected):
    assert pre(text) == expected


def test_step_2_options():
    assert pre("?!!...", punctuation_runs="same") == ["_?", "!!", "..."]
    assert pre("?!.", punctuation_runs="single") == ["_?", "!", "."]
    assert pre("x€y", split_symbols=True) == ["_x", "€", "y"]


def test_step_3_whitespace():
    assert pre("  a \t b\n\nc\u3000d\u00a0e  ") == ["_a", "_b", "_c", "_d", "_e"]
    assert pre(" \n\t ") == [] and pre("") == []


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "I've we'll they're it's he'd I'm don't",
            ["↑", "_i", "'ve", "_we", "'ll", "_they", "'re", "_it", "'s", "_he", "'d", "↑", "_i", "'m", "_do", "n't"],
        ),
        ("can’t it’s", ["_ca", "n’t", "_it", "’s"]),
        ("CAN'T", ["↑", "_ca", "↑", "n't"]),
        ("should've'd", ["_should", "'ve", "'d"]),
        ("'s n't", ["_'", "s", "_n'", "t"]),  # nothing to split off from; step 5 (tie: left) applies
    ],
)
def test_step_4_contractions(text, expected):
    assert pre(text) == expected


def test_step_4_can_be_switched_off():
    assert pre("can't", contractions=False) == ["_can'", "t"]  # step 5: the longer side wins


@pytest.mark.parametrize(
    "text, expected",
    [
        ("l'homme", ["_l", "'homme"]),
        ("aujourd'hui", ["_aujourd'", "hui"]),
        ("rock'n'roll", ["_rock'", "n", "'roll"]),
        ("l'a", ["_l'", "a"]),  # tie: left
        ("a''b", ["_a''b"]),  # apostrophe next to an apostrophe: no split point
        ("y'all'd", ["_y", "'all", "'d"]),
    ],
)
def test_step_5_other_apostrophes(text, expected):
    assert pre(text) == expected


def test_step_5_shorter_option():
    assert pre("l'homme porta'ns", apostrophe_to="shorter") == ["_l'", "homme", "_porta", "'ns"]


def test_step_6_prefix():
    assert pre("cat. dog") == ["_cat", ".", "_dog"]
    assert pre("cat. dog", prefix="piece") == ["_cat", "_.", "_dog"]
    assert pre("can't 1234", prefix="piece") == ["_ca", "_n't", "_1", "234"]
    assert pre("x y", marker="▁") == ["▁x", "▁y"]


@pytest.mark.parametrize(
    "text, options, expected",
    [
        ("1234567", {}, ["_1", "234", "567"]),
        ("123", {}, ["_123"]),
        ("1234", {}, ["_1", "234"]),
        ("abc12345def", {}, ["_abc", "12", "345", "def"]),
        ("abc12345def", {"isolate_digits": False}, ["_abc12", "345def"]),
        ("1234567", {"digit_group_size": 2}, ["_1", "23", "45", "67"]),
        ("1234567", {"digit_group_size": 0}, ["_1234567"]),
        ("١٢٣٤", {}, ["_١", "٢٣٤"]),
    ],
)
def test_step_7_digits(text, options, expected):
    assert pre(text, **options) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("well-known", ["_well", "-", "known"]),
        ("a--b-c", ["_a", "--", "b", "-", "c"]),
        ("pre- -ish -", ["_pre-", "_-ish", "_-"]),
        ("x\u2010y", ["_x", "\u2010", "y"]),
        ("COVID-19", ["↑", "_covid-", "19"]),  # step 7 isolates the digits before step 8 looks
    ],
)
def test_step_8_hyphens(text, expected):
    assert pre(text) == expected


def test_step_8_after_non_isolated_digits():
    assert pre("COVID-19", isolate_digits=False) == ["↑", "_covid", "-", "19"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("McDonald iPhone NASA", ["↑", "_mcdonald", "_iphone", "↑", "_nasa"]),
        ("Well-Known", ["↑", "_well", "-", "↑", "known"]),
        ("Émile ǅ", ["↑", "_émile", "↑", "_dž"]),  # NFKC turns the titlecase digraph into D + ž
        ("ΟΔΟΣ", ["↑", "_οδος"]),  # final sigma
    ],
)
def test_step_9_case(text, expected):
    assert pre(text) == expected


def test_step_9_switched_off_and_other_markers():
    assert pre("Hello World", lowercase=False) == ["_Hello", "_World"]
    assert pre("Hello", capital_marker="^") == ["^", "_hello"]


def test_sources():
    pretokens = P.pretokenise_with_sources("Can't İz")
    assert [(p.text, p.sources) for p in pretokens] == [
        ("↑", (-1,)),
        ("_ca", (-1, 0, 1)),
        ("n't", (2, 3, 4)),
        ("↑", (-1,)),
        ("_i̇z", (-1, 6, 6, 7)),
    ]
    nfkc = P.pretokenise_with_sources("ﬁ x")  # sources index the NFKC text "fi x"
    assert [p.sources for p in nfkc] == [(-1, 0, 1), (-1, 3)]


def test_decode():
    tokens = ["↑", "_schr", "ödinger", "'s", "_cat", "_ca", "n't", "_1", "234", "_well", "-", "known", "_..."]
    assert P.decode(tokens) == "Schrödinger's cat can't 1234 well-known ..."
    assert P.decode(["_", "↑", "a"]) == "A"
    assert P.decode(["↑", "_ß"]) == "ẞ"
    assert ReBPEPipeline(prefix="piece").decode(pre("cat. dog", prefix="piece")) == "cat . dog"  # lossy


# -- properties -------------------------------------------------------------------------------------

ASSIGNED_CHAR = st.characters(blacklist_categories=("Cs", "Cn"))
PIECES = st.sampled_from(
    [
        " ",
        "  ",
        "\n",
        "\t",
        "'",
        "’",
        "-",
        "--",
        "'s",
        "n't",
        "’ll",
        "1234567",
        "12",
        "...",
        ",",
        "(",
        ")",
        "Hello",
        "world",
        "Шрѣдингер",
        "l'homme",
        "well-known",
        "e\u0301",
        "ﬁ",
        "²",
        "😀",
        "中文",
        "ǅ",
        "İ",
        "_",
        "↑",
        "\u00a0",
        "\x00",
    ]
)
TEXT = st.lists(st.one_of(ASSIGNED_CHAR, PIECES), max_size=20).map("".join)
WHITE = regex.compile(r"\p{White_Space}+")
OPTIONS = st.fixed_dictionaries(
    {
        "prefix": st.sampled_from(["word", "piece"]),
        "punctuation_runs": st.sampled_from(["run", "same", "single"]),
        "split_symbols": st.booleans(),
        "contractions": st.booleans(),
        "apostrophe_to": st.sampled_from(["longer", "shorter"]),
        "digit_group_size": st.integers(0, 4),
        "isolate_digits": st.booleans(),
        "lowercase": st.booleans(),
    }
)


def words_of(text):
    return [w for w in WHITE.split(unicodedata.normalize("NFKC", text)) if w]


@settings(max_examples=200, deadline=None)
@given(TEXT, OPTIONS)
def test_sources_property(text, options):
    p = ReBPEPipeline(**options)
    norm = p.normalise(text)
    flat = []
    for pretoken in p.pretokenise_with_sources(text):
        assert pretoken.text and len(pretoken.sources) == len(pretoken.text)
        if pretoken.sources == (-1,) and pretoken.text == p.capital_marker:
            continue
        body, sources = pretoken.text, pretoken.sources
        if sources[0] == -1:
            assert body.startswith(p.marker)
            body, sources = body[len(p.marker) :], sources[len(p.marker) :]
        for c, s in zip(body, sources, strict=True):
            assert 0 <= s < len(norm)
            # lowercasing is done per word: a capital sigma at a word end becomes final sigma
            lowered = norm[s].lower() + ("ς" if norm[s] == "Σ" else "")
            assert c == norm[s] or (p.lowercase and c in lowered)
        flat.extend(sources)
    assert flat == sorted(flat)
    assert set(flat) == {i for i, c in enumerate(norm) if not WHITE.fullmatch(c)}
    assert pretokeniser_from_spec(p.to_spec()) == p


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_decode_restores_whitespace_normalised_nfkc_text(text):
    norm = unicodedata.normalize("NFKC", text)
    assume("_" not in norm)
    p = ReBPEPipeline(lowercase=False)
    assert p.decode(p.pretokenise(text)) == " ".join(words_of(text))


CASED = st.lists(st.sampled_from([*list("aBcDxYzÉéЖжШщ0123-'’.,!?( "), "n't", "'S", " ", "  "]), max_size=25).map(
    "".join
)


@settings(max_examples=200, deadline=None)
@given(CASED)
def test_decode_restores_first_capitals(text):
    decoded = P.decode(P.pretokenise(text))
    expected = " ".join(words_of(text))
    assert decoded.lower() == expected.lower()
    assert [w[0] for w in decoded.split(" ") if w] == [w[0] for w in expected.split(" ") if w]
