"""Corpus and word-count loaders: exact parses, bad input, round trips."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.formats.corpora import (
    decode_utf8,
    iter_text_lines,
    load_word_counts,
    parse_word_count_bytes,
    parse_word_counts,
    save_word_counts,
    word_counts_from_text,
)
from core.limits import MAX_COUNT


def assert_input_error(excinfo, source: str, line: int | None):
    err = excinfo.value
    assert isinstance(err, InputError)
    assert (err.source, err.line) == (source, line)
    prefix = f"{source}:{line}: " if line is not None else f"{source}: "
    assert str(err).startswith(prefix)


# --------------------------------------------------------------------------------------------
# Running text
# --------------------------------------------------------------------------------------------


def test_iter_text_lines(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes("\ufeffDe kat\r\n\nzit op de mat.\n  spaties  \u2028blijven\nlaatste".encode())
    assert list(iter_text_lines(path)) == [
        "De kat",
        "",
        "zit op de mat.",
        "  spaties  \u2028blijven",  # only \n ends a line
        "laatste",
    ]
    assert next(iter(iter_text_lines(str(path), max_bytes=10_000))) == "De kat"


def test_iter_text_lines_is_lazy_and_reports_bad_utf8_line(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(b"one\ntwo\nth\xffree\nfour\n")
    lines = iter_text_lines(path)
    assert next(lines) == "one"
    assert next(lines) == "two"
    with pytest.raises(InputError) as excinfo:
        next(lines)
    assert_input_error(excinfo, str(path), 3)
    assert "byte 0xff at byte column 3" in str(excinfo.value)


def test_iter_text_lines_binary_and_utf16(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(b"text\nmore\x00\x01\x02\n")
    with pytest.raises(InputError) as excinfo:
        list(iter_text_lines(path))
    assert_input_error(excinfo, str(path), 2)
    assert "NUL" in str(excinfo.value)
    utf16 = tmp_path / "utf16.txt"
    utf16.write_text("hallo wereld\n", encoding="utf-16")
    with pytest.raises(InputError) as excinfo:
        list(iter_text_lines(utf16))
    assert_input_error(excinfo, str(utf16), 1)
    assert "UTF-16" in str(excinfo.value)


def test_iter_text_lines_size_and_missing(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("a b c\n" * 100, encoding="utf-8")
    with pytest.raises(InputError) as excinfo:
        iter_text_lines(path, max_bytes=100)  # raised at once, before iterating
    assert_input_error(excinfo, str(path), None)
    assert "600 bytes" in str(excinfo.value) and "100 bytes" in str(excinfo.value)
    with pytest.raises(InputError) as excinfo:
        iter_text_lines(tmp_path / "nope.txt")
    assert_input_error(excinfo, str(tmp_path / "nope.txt"), None)
    with pytest.raises(InputError):
        iter_text_lines(tmp_path)


def test_real_corpus_streams(tmp_path):
    """The running text the explorer ships (``core.formats.samples.running_text``, 450 KB) as a file."""
    from core.formats.samples import running_text

    text = list(running_text())
    path = tmp_path / "running_text.txt"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    lines = list(iter_text_lines(path))
    assert lines == text and len(lines) > 5_000
    counts = word_counts_from_text(lines)
    assert counts["the"] > 1000


# --------------------------------------------------------------------------------------------
# Counting
# --------------------------------------------------------------------------------------------


def test_word_counts_from_text():
    lines = ["de kat  zit", "", "de\tmat\n"]
    assert word_counts_from_text(lines) == Counter({"de": 2, "kat": 1, "zit": 1, "mat": 1})
    assert word_counts_from_text("a b\na\n") == Counter({"a": 2, "b": 1})

    def by_letters(line: str) -> list[str]:
        return ["▁" + word for word in line.split(" ")]

    assert word_counts_from_text(["a  b"], pretokenise=by_letters) == Counter({"▁a": 1, "▁": 1, "▁b": 1})
    assert word_counts_from_text(["a,b"], pretokenise=lambda line: ["", *line.split(",")]) == Counter({"a": 1, "b": 1})


# --------------------------------------------------------------------------------------------
# Word-count files
# --------------------------------------------------------------------------------------------


def test_parse_word_counts_exact():
    text = "\ufeffword\tcount\r\nde\t120\n\nKat\t7\r\n#\t3\ngids 12\n€\t 9 \n"
    counts = parse_word_counts(text, "counts.tsv")
    assert counts == {"de": 120, "Kat": 7, "#": 3, "gids": 12, "€": 9}
    assert list(counts) == ["de", "Kat", "#", "gids", "€"]


def test_header_only_on_first_line():
    assert parse_word_counts("a\t1\n") == {"a": 1}
    assert parse_word_counts("term freq\nb 2\n") == {"b": 2}
    with pytest.raises(InputError) as excinfo:
        parse_word_counts("a\t1\nword\tcount\n", "c.tsv")
    assert_input_error(excinfo, "c.tsv", 2)


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("kat\t0", "count must be positive, found 0"),
        ("kat\t-3", "positive whole number of ASCII digits, found '-3'"),
        ("kat\t1.5", "found '1.5'"),
        ("kat\t1e3", "found '1e3'"),
        ("kat\t1,000", "found '1,000'"),
        ("kat\t", "found ''"),
        ("kat\tveel", "found 'veel'"),
        ("kat\t٣", "found '٣'"),  # not an ASCII digit
        ("kat\t" + "9" * 5000, "5000 digits (too many)"),
        ("kat\t3\textra", "found 3 tab-separated columns"),
        ("de kat\t3", "contains whitespace"),
        ("\t3", "empty word"),
        ("kat", "expected 'word<TAB>count'"),
        ("de kat 3", "expected 'word<TAB>count'"),
        ("kat  3", "expected 'word<TAB>count'"),
        ("   12 kat", "count before word"),
        ("k\x07t\t3", "control character"),
        ("\ufeffkat\t3", "byte-order mark"),
    ],
)
def test_bad_count_lines(line, fragment):
    with pytest.raises(InputError) as excinfo:
        parse_word_counts(f"de\t5\n\n{line}\nmat\t2\n", "counts.tsv")
    assert_input_error(excinfo, "counts.tsv", 3)
    assert fragment in str(excinfo.value), str(excinfo.value)


def test_duplicates_name_both_lines():
    with pytest.raises(InputError) as excinfo:
        parse_word_counts("de\t5\nkat\t2\nde 7\n", "counts.tsv")
    assert_input_error(excinfo, "counts.tsv", 3)
    assert "duplicate word 'de': already on line 1" in str(excinfo.value)
    # case is kept, so these are different words
    assert parse_word_counts("De\t5\nde\t2\n") == {"De": 5, "de": 2}


def test_empty_count_files():
    for text in ("", "\n\n", "\ufeff", "count\tfreq\n"):
        with pytest.raises(InputError) as excinfo:
            parse_word_counts(text, "empty.tsv")
        assert_input_error(excinfo, "empty.tsv", None)
        assert "no word counts" in str(excinfo.value)


def test_word_count_bytes():
    assert parse_word_count_bytes(b"kat\t3\n", "up.tsv") == {"kat": 3}
    with pytest.raises(InputError) as excinfo:
        parse_word_count_bytes(b"de\t5\nkat\t2\nm\xe4t\t3\n", "latin1.tsv")
    assert_input_error(excinfo, "latin1.tsv", 3)
    assert "not valid UTF-8" in str(excinfo.value)
    with pytest.raises(InputError) as excinfo:
        parse_word_count_bytes(b"de\t5\n" * 10, "big.tsv", max_bytes=20)
    assert_input_error(excinfo, "big.tsv", None)
    assert "50 bytes" in str(excinfo.value) and "20 bytes" in str(excinfo.value)
    with pytest.raises(InputError) as excinfo:
        parse_word_count_bytes(b"\x89PNG\r\n\x1a\n\x00\x00", "img.png")
    assert_input_error(excinfo, "img.png", 1)
    with pytest.raises(InputError) as excinfo:
        parse_word_count_bytes(b'{\n  "model": {"vocab": {"a": 0}}\n}\n', "tokenizer.json")
    assert_input_error(excinfo, "tokenizer.json", 1)
    with pytest.raises(InputError) as excinfo:
        parse_word_count_bytes(b"a\t1\nb\x00\t2\n", "nul.tsv")
    assert_input_error(excinfo, "nul.tsv", 2)


def test_decode_errors_say_what_was_expected():
    for data, line in ((b"{}\n\xff", 2), (b"{\x00}", 1)):
        with pytest.raises(InputError) as excinfo:
            decode_utf8(data, "special_tokens_map.json", expected="a JSON file")
        assert_input_error(excinfo, "special_tokens_map.json", line)
        assert "expected a JSON file" in str(excinfo.value)


def test_long_lines_are_quoted_short():
    """A 1 MB line streams like any other, and an error about it quotes a short excerpt."""
    line = "ab" * 500_000
    with pytest.raises(InputError) as excinfo:
        parse_word_counts(f"kat\t3\n{line}\t4\tx\n", "long.tsv")
    assert_input_error(excinfo, "long.tsv", 2)
    assert len(str(excinfo.value)) < 300 and "…" in str(excinfo.value)


def test_save_and_load_exact(tmp_path):
    path = tmp_path / "counts.tsv"
    save_word_counts({"b": 2, "a": 2, "zeta": 10, "Ä": 1}, path)
    assert path.read_bytes() == "zeta\t10\na\t2\nb\t2\nÄ\t1\n".encode()
    assert load_word_counts(path) == {"zeta": 10, "a": 2, "b": 2, "Ä": 1}
    assert load_word_counts(str(path), max_bytes=100) == {"zeta": 10, "a": 2, "b": 2, "Ä": 1}
    with pytest.raises(InputError) as excinfo:
        load_word_counts(path, max_bytes=5)
    assert "5 bytes" in str(excinfo.value)
    with pytest.raises(InputError) as excinfo:
        load_word_counts(tmp_path / "missing.tsv")
    assert_input_error(excinfo, str(tmp_path / "missing.tsv"), None)


@pytest.mark.parametrize(
    "counts", [{"a b": 1}, {"": 1}, {"\ufeffa": 1}, {"a": 0}, {"a": -1}, {"a": 1.5}, {"a": True}, {1: 2}, {}]
)
def test_save_refuses_what_cannot_be_loaded(tmp_path, counts):
    path = tmp_path / "counts.tsv"
    with pytest.raises(InputError):
        save_word_counts(counts, path)
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []


words = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda w: not any(c.isspace() or ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c == "\ufeff" for c in w)
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(words, st.integers(min_value=1, max_value=MAX_COUNT // 400), min_size=1, max_size=30))
def test_round_trip_word_counts(tmp_path_factory, counts):
    path = tmp_path_factory.mktemp("rt") / "counts.tsv"
    save_word_counts(counts, path)
    loaded = load_word_counts(path)
    assert loaded == counts
    assert list(loaded.items()) == sorted(counts.items(), key=lambda item: (-item[1], item[0]))


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from("ab c\t\n\r0123-.\x00é#"), max_size=80))
def test_fuzz_word_counts_only_input_errors(text):
    try:
        counts = parse_word_counts(text, "fuzz.tsv")
    except InputError as err:
        assert str(err).startswith("fuzz.tsv")
        return
    assert counts and all(isinstance(n, int) and n > 0 for n in counts.values())
