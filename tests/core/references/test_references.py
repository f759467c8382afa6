"""Reference segmentation loaders: exact parses of every format, rejections, bad input."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.references.files import (
    ReferenceEntry,
    ReferenceSet,
    Rejection,
    load_references,
    parse_reference_bytes,
    parse_references,
)

# [knockout §4.1]: the aligned CELEX tree of reanimatietechniek (the paper prints it with
# spaces between the morph and its tag; real CELEX files have none).
REANIMATIE_TREE = "((((re) [V|.V], (anim) [V]) [V], (atie) [N|V.]) [N], ((techn) [A], (iek) [N|A.]) [N]) [N]"
CELEX_SAMPLE = (
    f"reanimatietechniek\t{REANIMATIE_TREE}\n"
    "keizerskroon\t((keizer)[N],(s)[N|N.N],(kroon)[N])[N]\n"
    "kelderverdieping\t((kelder)[N],(((ver)[V|.A],(diep)[A])[V],(ing)[N|V.])[N])[N]\n"
    "bezienswaardigheid\t"
    "((((be)[V|.V],(zien)[V])[V],(s)[A|V.A],((waard)[N],(ig)[A|N.])[A])[A],(heid)[N|A.])[N]\n"
    "horseshoe\t((horse)[N],(shoe)[N])[N]\n"
    "happiness\t((happy)[A],(ness)[N|A.])[N]\n"
    "kat\t(kat)[N]\n"
)


def entry_tuples(refs: ReferenceSet):
    return [(e.word, e.morphs, e.free_morphs, e.line) for e in refs.entries]


def assert_input_error(excinfo, source: str, line: int | None):
    err = excinfo.value
    assert isinstance(err, InputError)
    assert err.source == source
    assert err.line == line
    if line is None:
        assert str(err).startswith(f"{source}: ")
    else:
        assert str(err).startswith(f"{source}:{line}: ")


# --------------------------------------------------------------------------------------------
# tsv
# --------------------------------------------------------------------------------------------


def test_tsv_exact():
    text = (
        "\ufeff# reference sample\n"
        "horseshoe\thorse shoe\thorse shoe\r\n"
        "\n"
        "Unhappiness\tUn happi  ness\n"
        "reanimatietechniek\tre anim atie techn iek\treanimatie techniek\n"
        "kat\tkat\t\n"
    )
    refs = parse_references(text, "refs.tsv")
    assert refs.format == "tsv"
    assert refs.source == "refs.tsv"
    assert refs.rejected == []
    assert entry_tuples(refs) == [
        ("horseshoe", ("horse", "shoe"), ("horse", "shoe"), 2),
        ("Unhappiness", ("Un", "happi", "ness"), None, 4),  # case kept as written
        ("reanimatietechniek", ("re", "anim", "atie", "techn", "iek"), ("reanimatie", "techniek"), 5),
        ("kat", ("kat",), None, 6),
    ]
    assert refs.words() == ["horseshoe", "Unhappiness", "reanimatietechniek", "kat"]
    assert refs.summary() == "4 entries; 0 rejected"


def test_boundaries_reanimatietechniek():
    entry = ReferenceEntry("reanimatietechniek", ("re", "anim", "atie", "techn", "iek"), ("reanimatie", "techniek"), 1)
    # "4 positives and 13 negatives" ([knockout §4.1])
    assert entry.boundaries() == frozenset({2, 6, 10, 15})
    assert len(entry.word) - 1 - len(entry.boundaries()) == 13
    assert entry.boundaries(free=True) == frozenset({10})
    assert ReferenceEntry("kat", ("kat",)).boundaries() == frozenset()
    with pytest.raises(ValueError):
        ReferenceEntry("kat", ("k", "at")).boundaries(free=True)


@pytest.mark.parametrize(
    "args",
    [
        ("abc", ("a", "bd")),
        ("", ()),
        ("abc", ()),
        ("abc", ("a", "", "bc")),
        ("a c", ("a", " c")),
        ("abc", ("a", "bc"), ("ab", "c")),  # free boundary inside a morph
        ("abc", ("a", "bc"), ("abd",)),
        ("abc", "abc"),  # a string, not a sequence of morphs
    ],
)
def test_entry_validation(args):
    with pytest.raises(ValueError):
        ReferenceEntry(*args)


def test_entry_accepts_lists():
    entry = ReferenceEntry("ab", ["a", "b"], ["ab"], 3)
    assert entry.morphs == ("a", "b") and entry.free_morphs == ("ab",)


def test_tsv_rejections_and_summary():
    text = (
        "abc\ta bc\n"  # 1 ok
        "abd\ta bc\n"  # 2 does not concatenate
        "onlyword\n"  # 3 wrong columns
        "x\ty\tz\tw\n"  # 4 wrong columns
        "\ta\n"  # 5 empty word
        "abc\tab c\n"  # 6 duplicate of line 1
        "ab\u00a0c\tab\u00a0 c\n"  # 7 word with a no-break space
        "xyz\tx\u00a0y z\n"  # 8 morph with whitespace
        "abe\tab e\tabe x\n"  # 9 free morphs do not concatenate
        "abf\tabf\tab f\n"  # 10 free boundary inside a morph
        "qq\tq q\n"  # 11 ok
        "pqr\tp q\n"  # 12 does not concatenate
        "stu\ts t\n"  # 13 does not concatenate
        "vwx\tv w\n"  # 14 does not concatenate
    )
    refs = parse_references(text, "mixed.tsv", format="tsv")
    assert refs.words() == ["abc", "qq"]
    assert [(r.line, r.kind) for r in refs.rejected] == [
        (2, "morphs do not concatenate to the word"),
        (3, "wrong number of columns"),
        (4, "wrong number of columns"),
        (5, "empty word"),
        (6, "duplicate word"),
        (7, "bad word"),
        (8, "morph contains whitespace"),
        (9, "free morphs do not concatenate to the word"),
        (10, "free-morph boundary inside a morph"),
        (12, "morphs do not concatenate to the word"),
        (13, "morphs do not concatenate to the word"),
        (14, "morphs do not concatenate to the word"),
    ]
    assert all(isinstance(r, Rejection) and r.source == "mixed.tsv" for r in refs.rejected)
    duplicate = refs.rejected[4]
    assert "first on line 1" in duplicate.reason
    assert duplicate.text == "abc\tab c"
    assert "found 1" in refs.rejected[1].reason and "found 4" in refs.rejected[2].reason
    summary = refs.summary(examples=2)
    assert summary.startswith(
        "2 entries; 12 rejected (morphs do not concatenate to the word: 4, e.g. line 2 'abd', line 12 'pqr' ...;"
    )
    assert "wrong number of columns: 2, e.g. line 3 'onlyword', line 4 'x'" in summary
    assert "duplicate word: 1, e.g. line 6 'abc'" in summary
    assert refs.summary(examples=0).startswith("2 entries; 12 rejected (morphs do not concatenate to the word: 4; ")
    assert str(refs.rejected[0]).startswith("mixed.tsv:2: morphs do not concatenate")


def test_summary_singular():
    refs = parse_references("ab\ta b\nab\tab\n")
    assert refs.summary() == "1 entry; 1 rejected (duplicate word: 1, e.g. line 2 'ab')"


def test_to_tsv_exact_and_hash_words():
    refs = ReferenceSet(
        [ReferenceEntry("ab", ("a", "b"), ("ab",), 1), ReferenceEntry("cd", ("cd",), None, 2)],
        [],
        "x",
        "celex",
    )
    assert refs.to_tsv() == "ab\ta b\tab\ncd\tcd\n"
    bad = ReferenceSet([ReferenceEntry("#tag", ("#", "tag"), None, 4)], [], "x.tsv", "sigmorphon")
    with pytest.raises(InputError) as excinfo:
        bad.to_tsv()
    assert_input_error(excinfo, "x.tsv", 4)


# --------------------------------------------------------------------------------------------
# CELEX
# --------------------------------------------------------------------------------------------


def test_celex_exact():
    refs = parse_references(CELEX_SAMPLE, "celex.txt")
    assert refs.format == "celex"
    assert entry_tuples(refs) == [
        ("reanimatietechniek", ("re", "anim", "atie", "techn", "iek"), ("reanimatie", "techniek"), 1),
        ("keizerskroon", ("keizer", "s", "kroon"), ("keizers", "kroon"), 2),  # interfix goes left
        ("kelderverdieping", ("kelder", "ver", "diep", "ing"), ("kelder", "verdieping"), 3),
        # the suffix heid joins the last free morph of its compound sibling
        (
            "bezienswaardigheid",
            ("be", "zien", "s", "waard", "ig", "heid"),
            ("beziens", "waardigheid"),
            4,
        ),
        ("horseshoe", ("horse", "shoe"), ("horse", "shoe"), 5),
        ("kat", ("kat",), ("kat",), 7),
    ]


def test_celex_canonical_leaves_are_rejected():
    refs = parse_references(CELEX_SAMPLE, "celex.txt")
    assert "happiness" not in refs.words()
    assert refs.summary() == (
        "6 entries; 1 rejected (morphs do not concatenate to the word: 1, e.g. line 6 'happiness')"
    )


def test_celex_stacked_and_odd_attachments():
    text = (
        # two prefixes before a stem, then a suffix
        "unrewritable\t((un)[A|.A],(re)[V|.V],(writ)[V],(able)[A|V.])[A]\n"
        # a suffix with no left sibling glues right, a prefix with no right sibling glues left
        "abcd\t((ab)[N|N.],(cd)[N],(x)[V|.N])[N]\n"
        # no tags at all: plain free morphs
        "horseshoe\t((horse),(shoe))\n"
    )
    refs = parse_references(text, "odd.txt", format="celex")
    assert entry_tuples(refs)[:1] == [("unrewritable", ("un", "re", "writ", "able"), ("unrewritable",), 1)]
    assert [r.line for r in refs.rejected] == [2]  # 'ab'+'cd'+'x' != 'abcd'
    assert entry_tuples(refs)[1] == ("horseshoe", ("horse", "shoe"), ("horse", "shoe"), 3)
    refs = parse_references("abcdx\t((ab)[N|N.],(cd)[N],(x)[V|.N])[N]\n", format="celex")
    assert entry_tuples(refs) == [("abcdx", ("ab", "cd", "x"), ("abcdx",), 1)]


@pytest.mark.parametrize(
    "tree, expected",
    [
        ("((horse)[N],(shoe)[N]", "expected ',' or ')' at character 22, found the end of the tree"),
        ("((horse)[N],(shoe)[N])[N] x", "expected the end of the tree at character 27, found 'x'"),
        ("((horse)[N];(shoe)[N])[N]", "expected ',' or ')' at character 12, found ';'"),
        ("((horse)[N],()[N])[N]", "empty morph"),
        ("((horse)[N,(shoe)[N])[N]", "malformed CELEX tree"),
        ("horse shoe", "expected '(' at character 1, found 'h'"),
        ("(" * 2000 + "x" + ")" * 2000, "nested deeper than 100 levels"),
        ("((hor se)[N],(shoe)[N])[N]", "morph contains whitespace"),
    ],
    ids=lambda value: value[:30] if isinstance(value, str) else None,
)
def test_celex_malformed_trees_are_rejected(tree, expected):
    """Bad trees are rejections (never exceptions, never a RecursionError)."""
    refs = parse_references(f"horseshoe\t((horse)[N],(shoe)[N])[N]\nhorseshoe2\t{tree}\n", "c.txt", "celex")
    assert refs.words() == ["horseshoe"]
    (rejection,) = refs.rejected
    assert rejection.line == 2
    assert expected in rejection.reason, rejection.reason


# --------------------------------------------------------------------------------------------
# MorphyNet
# --------------------------------------------------------------------------------------------

MORPHYNET_SAMPLE = (
    "slow\tslowly\tJ\tR\tly\tsuffix\n"
    "happy\tunhappy\tJ\tJ\tun\tprefix\n"
    "happy\thappiness\tJ\tN\tness\tsuffix\n"  # not concatenative: rejected
    "Aachen\tAachener\tN\tN\ter\tsuffix\n"
    "europe\tEuropean\tN\tJ\tan\tsuffix\n"  # case differs: cut from the target
    "kind\tkindly\tJ\tR\tly\tinfix\n"  # bad affix type
    "slowish\tslowly\tJ\tR\tly\tsuffix\n"  # not concatenative (also a second 'slowly')
    "slow\tslowly\tJ\tR\tly\tsuffix\n"  # duplicate of line 1
    "microtome\tmicrotomes\tN|PL\tmicrotome|s\n"
    "microtome\tmicrotome\tN|SG\t-\n"
    "go\twent\tV|PST\t-\n"  # uninflected but form != lemma
    "run\truns\tV|PRS;3;SG\trun|z\n"  # parts do not concatenate
    "play\tplayers\tN|PL\tplay|er|s\n"
)


def test_morphynet_exact():
    refs = parse_references(MORPHYNET_SAMPLE, "deu.derivational.v1.tsv")
    assert refs.format == "morphynet"
    assert entry_tuples(refs) == [
        ("slowly", ("slow", "ly"), None, 1),
        ("unhappy", ("un", "happy"), None, 2),
        ("Aachener", ("Aachen", "er"), None, 4),
        ("European", ("Europe", "an"), None, 5),
        ("microtomes", ("microtome", "s"), None, 9),
        ("microtome", ("microtome",), None, 10),
        ("players", ("play", "er", "s"), None, 13),
    ]
    assert [(r.line, r.kind) for r in refs.rejected] == [
        (3, "morphs do not concatenate to the word"),
        (6, "bad affix type"),
        (7, "morphs do not concatenate to the word"),
        (8, "duplicate word"),
        (11, "no concatenative segmentation"),
        (12, "morphs do not concatenate to the word"),
    ]
    assert "first on line 1" in refs.rejected[3].reason
    assert "'happy'+'ness' gives 'happyness', not 'happiness'" in refs.rejected[0].reason


def test_morphynet_wrong_columns():
    refs = parse_references("slow\tslowly\tJ\tR\tly\tsuffix\nslow\tslowly\tJ\n", "m.tsv", "morphynet")
    (rejection,) = refs.rejected
    assert rejection.line == 2
    assert rejection.reason == (
        "wrong number of columns: expected 6 (derivational) or 4 (inflectional) tab-separated columns, found 3"
    )


# --------------------------------------------------------------------------------------------
# SIGMORPHON 2022
# --------------------------------------------------------------------------------------------

SIGMORPHON_SAMPLE = (
    "inaccuracies\tin @@accurate @@cy @@s\t110\n"  # canonical morphemes: rejected
    "horseshoes\thorse @@shoe @@s\t101\n"
    "horseshoe\thorse @@shoe\t001\n"
    "unkindly\tun @@kind @@ly\t010\n"
    "cat\tcat\t000\n"
    "dogs\tdog @@s\t1x0\n"  # bad category
    "walked\twalk @@ed\n"  # no category column
    "redness\tred @@ness\t010\textra\n"  # wrong columns
    "firetrucks\tfire @@truck @@s\t011\n"
)


def test_sigmorphon_exact():
    refs = parse_references(SIGMORPHON_SAMPLE, "eng.word.dev.tsv")
    assert refs.format == "sigmorphon"
    assert entry_tuples(refs) == [
        ("horseshoes", ("horse", "shoe", "s"), None, 2),
        ("horseshoe", ("horse", "shoe"), ("horse", "shoe"), 3),
        ("unkindly", ("un", "kind", "ly"), ("unkindly",), 4),
        ("cat", ("cat",), ("cat",), 5),
        ("walked", ("walk", "ed"), None, 7),
        ("firetrucks", ("fire", "truck", "s"), None, 9),
    ]
    assert [(r.line, r.kind) for r in refs.rejected] == [
        (1, "morphs do not concatenate to the word"),
        (6, "bad category"),
        (8, "wrong number of columns"),
    ]
    assert "'in'+'accurate'+'cy'+'s'" in refs.rejected[0].reason


def test_sigmorphon_bad_morphs():
    refs = parse_references("ab\ta @@b\t000\naxb\ta @@ @@xb\t000\naxc\tax c\t000\n", "s.tsv", "sigmorphon")
    assert refs.words() == ["ab"]
    assert [r.kind for r in refs.rejected] == ["empty morph", "morph contains whitespace"]


# --------------------------------------------------------------------------------------------
# Sniffing and bad input
# --------------------------------------------------------------------------------------------


def test_auto_sniffing_mixed_tsv_with_comment_lines():
    assert parse_references("# comment\nab\ta b\n").format == "tsv"
    assert parse_references(CELEX_SAMPLE).format == "celex"
    assert parse_references(MORPHYNET_SAMPLE).format == "morphynet"
    assert parse_references(SIGMORPHON_SAMPLE).format == "sigmorphon"


def test_auto_cannot_decide_says_what_it_saw():
    with pytest.raises(InputError) as excinfo:
        parse_references("The quick brown fox.\nJumps over the dog.\n", "story.txt")
    assert_input_error(excinfo, "story.txt", 1)
    message = str(excinfo.value)
    assert "2 lines with 1 column (no tab)" in message
    assert "'The quick brown fox.'" in message
    assert "expected one of: tsv:" in message


def test_json_upload_is_an_input_error():
    model = {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}
    tokenizer_json = json.dumps({"model": model}, indent=2)
    with pytest.raises(InputError) as excinfo:
        parse_reference_bytes(tokenizer_json.encode(), "tokenizer.json")
    assert_input_error(excinfo, "tokenizer.json", 1)
    assert "JSON" in str(excinfo.value)
    for fmt in ("tsv", "celex", "morphynet", "sigmorphon"):
        with pytest.raises(InputError) as excinfo:
            parse_reference_bytes(tokenizer_json.encode(), "tokenizer.json", format=fmt)
        assert_input_error(excinfo, "tokenizer.json", 1)
        assert f"no valid {fmt} entries" in str(excinfo.value)
    minified = json.dumps({"vocab": {f"w{i}": i for i in range(3000)}})
    with pytest.raises(InputError) as excinfo:
        parse_references(minified, "vocab.json", format="tsv")
    assert_input_error(excinfo, "vocab.json", 1)


def test_word_count_file_is_an_input_error():
    with pytest.raises(InputError) as excinfo:
        parse_references("the\t1234\nof\t999\n", "counts.tsv")
    assert_input_error(excinfo, "counts.tsv", 1)
    assert "word-count file" in str(excinfo.value)


def test_nothing_parses_names_first_problem():
    with pytest.raises(InputError) as excinfo:
        parse_references("\n\nabc\tx y\nabd\tq\n", "bad.tsv", format="tsv")
    assert_input_error(excinfo, "bad.tsv", 3)
    message = str(excinfo.value)
    assert "no valid tsv entries in 2 lines" in message
    assert "expected 'word<TAB>morph morph ...'" in message
    assert "morphs do not concatenate to the word" in message


def test_wrong_columns_everywhere_is_an_input_error():
    with pytest.raises(InputError) as excinfo:
        parse_references("a\tb\tc\td\te\n", "five.tsv", format="tsv")
    assert_input_error(excinfo, "five.tsv", 1)
    assert "wrong number of columns: expected 2 or 3" in str(excinfo.value)
    assert "found 5" in str(excinfo.value)


def test_binary_junk():
    junk = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"
    with pytest.raises(InputError) as excinfo:
        parse_reference_bytes(junk, "image.png")
    assert_input_error(excinfo, "image.png", 1)
    assert "not valid UTF-8: byte 0x89" in str(excinfo.value)
    # valid UTF-8 but binary: a NUL character on line 2
    with pytest.raises(InputError) as excinfo:
        parse_reference_bytes(b"ab\ta b\nc\x00d\tcd\n", "blob.bin")
    assert_input_error(excinfo, "blob.bin", 2)
    assert "NUL" in str(excinfo.value)
    with pytest.raises(InputError) as excinfo:
        parse_reference_bytes("ab\ta b\n".encode("utf-16"), "utf16.tsv")
    assert "UTF-16" in str(excinfo.value)


def test_invalid_utf8_reports_line():
    data = b"ab\ta b\ncd\tc d\n" + b"e\xe9f\te \xe9f\n"
    with pytest.raises(InputError) as excinfo:
        parse_reference_bytes(data, "latin1.tsv")
    assert_input_error(excinfo, "latin1.tsv", 3)
    assert "byte 0xe9 at byte column 2" in str(excinfo.value)


def test_empty_and_comment_only():
    for text in ("", "\n\n  \n", "\ufeff"):
        with pytest.raises(InputError) as excinfo:
            parse_references(text, "empty.tsv")
        assert_input_error(excinfo, "empty.tsv", None)
        assert "empty file" in str(excinfo.value)
    for fmt in ("auto", "tsv"):
        with pytest.raises(InputError) as excinfo:
            parse_references("# only\n# comments\n", "c.tsv", format=fmt)
        assert "comment" in str(excinfo.value)


def test_unknown_format_name():
    with pytest.raises(InputError) as excinfo:
        parse_references("ab\ta b\n", "x.tsv", format="xml")
    assert "unknown reference format 'xml'" in str(excinfo.value)


def test_oversize(tmp_path):
    data = ("ab\ta b\n" * 100).encode()
    with pytest.raises(InputError) as excinfo:
        parse_reference_bytes(data, "big.tsv", max_bytes=99)
    assert_input_error(excinfo, "big.tsv", None)
    assert "700 bytes" in str(excinfo.value) and "99 bytes" in str(excinfo.value)
    path = tmp_path / "big.tsv"
    path.write_bytes(data)
    with pytest.raises(InputError) as excinfo:
        load_references(path, max_bytes=500)
    assert_input_error(excinfo, str(path), None)
    assert "700 bytes" in str(excinfo.value) and "500 bytes" in str(excinfo.value)
    assert len(load_references(path, max_bytes=700).rejected) == 99  # duplicates


def test_load_references_files(tmp_path):
    path = tmp_path / "celex.txt"
    path.write_text(CELEX_SAMPLE.replace("\n", "\r\n"), encoding="utf-8-sig")
    refs = load_references(path)
    assert refs.source == str(path)
    assert refs.format == "celex"
    assert refs.words()[0] == "reanimatietechniek"
    with pytest.raises(InputError) as excinfo:
        load_references(tmp_path / "missing.tsv")
    assert_input_error(excinfo, str(tmp_path / "missing.tsv"), None)
    with pytest.raises(InputError):
        load_references(tmp_path)  # a directory
    with pytest.raises(InputError):
        load_references(None)


def test_overlong_line_rejected():
    refs = parse_references("ab\ta b\n" + "x" * 20_000 + "\tx\n", "long.tsv")
    assert refs.rejected[0].kind == "line too long"
    assert len(refs.rejected[0].text) == 200


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

morph_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=5
).filter(lambda m: not any(c.isspace() or c == "\ufeff" for c in m))


@st.composite
def reference_entries(draw):
    morphs = draw(st.lists(morph_text, min_size=1, max_size=5))
    word = "".join(morphs)
    cuts = ReferenceEntry(word, tuple(morphs)).boundaries()
    free = None
    if draw(st.booleans()):
        kept = sorted(draw(st.sets(st.sampled_from(sorted(cuts)))) if cuts else set())
        edges = [0, *kept, len(word)]
        free = tuple(word[a:b] for a, b in itertools.pairwise(edges))
    return word, tuple(morphs), free


@st.composite
def reference_sets(draw):
    rows = draw(
        st.lists(reference_entries(), min_size=1, max_size=20, unique_by=lambda row: row[0]).filter(
            lambda rows: not any(word.startswith("#") for word, _, _ in rows)
        )
    )
    entries = [ReferenceEntry(word, morphs, free, i) for i, (word, morphs, free) in enumerate(rows, 1)]
    return ReferenceSet(entries, [], "<text>", "tsv")


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(reference_sets())
def test_round_trip_tsv(refs):
    again = parse_references(refs.to_tsv(), format="tsv")
    assert again.entries == refs.entries
    assert again.rejected == []
    again = parse_reference_bytes(refs.to_tsv().encode("utf-8"), "<upload>", format="tsv")
    assert again.entries == refs.entries


@settings(max_examples=100)
@given(
    st.lists(
        st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=4), min_size=1, max_size=4),
        min_size=1,
        max_size=10,
        unique_by=lambda morphs: "".join(morphs),
    )
)
def test_round_trip_tsv_auto(rows):
    refs = ReferenceSet([ReferenceEntry("".join(m), tuple(m), None, i) for i, m in enumerate(rows, 1)])
    assert parse_references(refs.to_tsv()).entries == refs.entries


noise = st.text(alphabet=st.sampled_from("ab c\t\n\r()[],|.@#-{}0\x00\u00a0é"), max_size=120)


@settings(max_examples=300)
@given(noise, st.sampled_from(["auto", "tsv", "celex", "morphynet", "sigmorphon"]))
def test_fuzz_text_only_input_errors(text, fmt):
    try:
        refs = parse_references(text, "fuzz.txt", format=fmt)
    except InputError as err:
        assert str(err).startswith("fuzz.txt")
        return
    assert refs.entries
    for entry in refs.entries:
        assert "".join(entry.morphs) == entry.word
    for rejection in refs.rejected:
        assert rejection.source == "fuzz.txt" and rejection.line >= 1


@settings(max_examples=200)
@given(st.binary(max_size=200), st.sampled_from(["auto", "tsv", "celex"]))
def test_fuzz_bytes_only_input_errors(data, fmt):
    try:
        parse_reference_bytes(data, "fuzz.bin", format=fmt, max_bytes=150)
    except InputError as err:
        assert str(err).startswith("fuzz.bin")


# --------------------------------------------------------------------------------------------
# Real files: the shipped references (sample_data/references/)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["en_morph", "nl_morph"])
def test_shipped_reference_files(name):
    from core.formats.samples import reference_paths

    refs = load_references(reference_paths()[name])
    assert refs.format == "tsv"
    assert refs.rejected == []
    assert len(refs.entries) > 1_000
    assert all(len(entry.morphs) >= 1 for entry in refs.entries)
    assert refs.summary() == f"{len(refs.entries)} entries; 0 rejected"
