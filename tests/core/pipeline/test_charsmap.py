"""SentencePiece's precompiled charsmap (core.pipeline.sentencepiece.charsmap) and normaliser
(core.pipeline.sentencepiece.normaliser) against the ``sentencepiece`` library, and the
charsmap against HF ``tokenizers.normalizers.Precompiled`` where HF means to agree."""

from __future__ import annotations

import itertools

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.formats.sentencepiece import protobuf
from core.pipeline.sentencepiece.charsmap import Charsmap
from core.pipeline.sentencepiece.normaliser import SentencePieceNormaliser
from tests.real_tokenisers import file_bytes

spm = pytest.importorskip("sentencepiece")

RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
TRICKY = [
    " ",
    "  ",
    "\u3000",
    "\t",
    "\n",
    "a",
    "B",
    "▁",
    "ﬁ",
    "①",
    "ｶ",
    "\uff9e",
    "\u200b",
    "é",
    "e\u0301",
    "\u00a0",
    "\u2002",
    "1",
    ".",
    "😀",
    "\u200d",
    "क",
    "ि",
    "Å",
    "ⅶ",
    "\u0308",
    "ｱ",
    "Ａ",
]
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
TRICKY_TEXT = st.lists(st.sampled_from(TRICKY), max_size=14).map("".join)


def sp_normaliser(rule="identity", **options) -> spm.SentencePieceNormalizer:
    defaults = dict(add_dummy_prefix=False, escape_whitespaces=False, remove_extra_whitespaces=False)
    return spm.SentencePieceNormalizer(rule_name=rule, **(defaults | options))


def blob_of(normaliser) -> bytes:
    return protobuf.message(normaliser.serialized_normalizer_spec(), "spec", "<test>").get(2, b"")


REFERENCE = {rule: sp_normaliser(rule) for rule in RULES}
CHARSMAPS = {rule: Charsmap.from_bytes(blob_of(n)) for rule, n in REFERENCE.items()}


def reference(rule: str, text: str) -> tuple[str, tuple[int, ...]]:
    out, offsets = REFERENCE[rule].normalize(text, with_offsets=True)
    return out, tuple(offsets[:-1])  # the library gives each output character's source character


def test_exact_cases():
    nmt = CHARSMAPS["nmt_nfkc"]
    assert nmt.normalise_with_sources("ﬁ①x") == ("fi1x", (0, 0, 1, 2))
    assert nmt.normalise("ｱｲ  ﬁ x\u3000y\u200b①") == "アイ  fi x y 1"  # nmt: zero-width space -> space
    assert CHARSMAPS["nfkc_cf"].normalise("ÅNGSTRÖM ﬀ") == "ångström ff"
    # A lone surrogate is three invalid UTF-8 bytes: three U+FFFD, one per byte.
    assert nmt.normalise_with_sources("a\ud800b") == ("a\ufffd\ufffd\ufffdb", (0, 1, 1, 1, 2))
    assert Charsmap.from_base64(nmt.to_base64()) == nmt


@pytest.mark.parametrize("blob", [b"", b"\x01\x00\x00", b"\xff\xff\xff\x00abcd", b"\x06\x00\x00\x00abcdefgh"])
def test_malformed_blobs_are_refused(blob):
    with pytest.raises(InputError, match="charsmap"):
        Charsmap.from_bytes(blob)
    with pytest.raises(InputError, match="base64"):
        Charsmap.from_base64("not base64!")


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(RULES), st.one_of(TEXT, TRICKY_TEXT))
def test_charsmap_equals_sentencepiece(rule, text):
    assert CHARSMAPS[rule].normalise_with_sources(text) == reference(rule, text)


def _single_character_graphemes(text: str) -> bool:
    return all(len(g) == 1 for g in regex.findall(r"\X", text))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(RULES), st.one_of(TEXT, TRICKY_TEXT))
def test_charsmap_equals_hf_precompiled(rule, text):
    """HF looks up whole grapheme clusters of < 6 bytes and replaces the cluster by the shortest
    match (``ⅶ̈`` -> ``vii``, where SentencePiece gives ``viï``); on text whose clusters are single
    characters both are SentencePiece's loop."""
    normalizers = pytest.importorskip("tokenizers.normalizers")
    charsmap = CHARSMAPS[rule]
    hf = normalizers.Precompiled(charsmap.blob)
    if _single_character_graphemes(text):
        assert hf.normalize_str(text) == charsmap.normalise(text)


def test_hf_grapheme_difference_is_known():
    normalizers = pytest.importorskip("tokenizers.normalizers")
    charsmap = CHARSMAPS["nfkc"]
    assert charsmap.normalise("ⅶ\u0308") == "vii\u0308" == reference("nfkc", "ⅶ\u0308")[0]
    assert normalizers.Precompiled(charsmap.blob).normalize_str("ⅶ\u0308") == "vii"


OPTIONS = list(itertools.product((True, False), repeat=3))


@pytest.mark.parametrize("rule", ["identity", "nmt_nfkc"])
@pytest.mark.parametrize("dummy,remove,escape", OPTIONS)
def test_normaliser_options_equal_sentencepiece(rule, dummy, remove, escape):
    ref = sp_normaliser(rule, add_dummy_prefix=dummy, remove_extra_whitespaces=remove, escape_whitespaces=escape)
    ours = SentencePieceNormaliser(
        blob_of(ref) or None, rule, add_dummy_prefix=dummy, remove_extra_whitespaces=remove, escape_whitespaces=escape
    )
    assert SentencePieceNormaliser.from_spec(ours.to_spec()) == ours

    @settings(max_examples=60, deadline=None)
    @given(st.one_of(TRICKY_TEXT, TEXT))
    def check(text):
        expected, offsets = ref.normalize(text, with_offsets=True)
        got, sources = ours.normalise_with_sources(text)
        assert got == expected
        # SentencePiece gives the dummy prefix the position of the first kept character; we say -1.
        # Its offsets end with one more entry, the end of the text.
        assert [o for o, s in zip(offsets[:-1], sources, strict=True) if s != -1] == [s for s in sources if s != -1]

    check()


def test_whitespace_handling_exact_cases():
    tok = SentencePieceNormaliser()
    assert tok.normalise("  hello   world  ") == "▁hello▁world"
    assert tok.normalise("   ") == tok.normalise("") == ""
    assert tok.normalise("a ▁") == "▁a"  # trailing ▁ removed whatever produced it
    assert tok.pretokenise("hello   world") == ["▁hello", "▁world"]
    keep = SentencePieceNormaliser(remove_extra_whitespaces=False)
    assert keep.pretokenise(" a  b") == ["▁", "▁a", "▁", "▁b"]
    runs = SentencePieceNormaliser(remove_extra_whitespaces=False, split="runs")
    assert runs.pretokenise(" a  b") == ["▁▁a", "▁▁b"]
    assert SentencePieceNormaliser(split="none").pretokenise("a b") == ["▁a▁b"]
    assert tok.decode(["▁hello", "▁world"]) == "hello world"
    protected = SentencePieceNormaliser(CHARSMAPS["nmt_nfkc"].blob, "nmt_nfkc", user_defined=["ﬁ①"])
    assert protected.normalise("ﬁ① ﬁ") == "▁ﬁ①▁fi"
    with pytest.raises(InputError):
        SentencePieceNormaliser(split="sometimes")


@pytest.mark.real
@pytest.mark.parametrize("name", ["kyoto_ja_unigram_8000.model", "botchan_en_bpe_1000.model"])
def test_model_normalisers_equal_sentencepiece(name, tmp_path):
    from core.formats.sentencepiece.model_proto import read_model_proto

    data = file_bytes(name)
    path = tmp_path / name
    path.write_bytes(data)
    ref = spm.SentencePieceNormalizer(model_file=str(path))
    ours = read_model_proto(data, name).pretokeniser([])
    texts = ["ＡＢＣ　全角ｶﾀｶﾅ  and ﬁ①", "  Leading, trailing  ", "東京都は日本の首都です。", "x\u200by", "½ ⅶ ㍻"]
    for text in texts:
        assert ours.normalise(text) == ref.normalize(text)
