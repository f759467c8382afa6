"""Real LLM tokeniser files and shared test inputs for the differential tests (a helper, not a test).

* ``real_file(name, filename)``: the path of a file that ``scripts/fetch_real_tokenisers.py`` put
  in its cache (``$REAL_TOKENISERS_DIR``, default ``~/.cache/structured-tokenisers/real``). When it
  is missing the test is skipped, but under ``CI=true`` it fails: CI runs the fetch script first.
  Only a test marked ``@pytest.mark.real`` may ask for one (else it fails), so the quick subset
  (``-m "not browser and not slow and not real"``) never needs the fetch.
* ``real_entry(name)``: that tokeniser's entry of the cache's ``manifest.json`` (licence, family,
  and for tiktoken files the ``pat_str`` and ``special_tokens`` to build an ``Encoding`` with).
* ``RUNNING_TEXTS``: running-text lines that stress pre-tokenisers and normalisers.
* ``WORDS``: about 2,000 words, drawn with a fixed seed from wordfreq's English, Dutch and German
  lists, plus odd words; computed on first use (``from tests.real_tokenisers import WORDS``).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import random
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fetch_real_tokenisers.py"


@functools.cache
def _fetcher():
    spec = importlib.util.spec_from_file_location("fetch_real_tokenisers", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: the test being set up or run in this process (tests/conftest.py sets it)
current_test: list[pytest.Item] = []


def _check_marked() -> None:
    if current_test and current_test[0].get_closest_marker("real") is None:
        pytest.fail(f"{current_test[0].nodeid} reads a real tokeniser file: mark it @pytest.mark.real")


def _missing(what: str, name: str):
    reason = f"{what} is missing; run: python scripts/fetch_real_tokenisers.py --only {name}"
    if os.environ.get("CI") == "true":
        pytest.fail(reason + " (CI runs the fetch script before the tests)")
    pytest.skip(reason)


def real_file(name: str, filename: str) -> Path:
    """``<cache>/<name>/<filename>``; skips the test if absent (fails under CI=true)."""
    _check_marked()
    fetcher = _fetcher()
    entry = fetcher.BY_NAME.get(name)
    if entry is None or filename not in [f["file"] for f in entry["files"]]:
        pytest.fail(f"{name}/{filename} is not in the manifest of {_SCRIPT.name}")
    path = fetcher.cache_dir(None) / name / filename
    if not path.is_file():
        _missing(str(path), name)
    return path


def real_bytes(name: str, filename: str) -> bytes:
    """The bytes of :func:`real_file`."""
    return real_file(name, filename).read_bytes()


def file_bytes(filename: str) -> bytes:
    """The bytes of the one cached file called ``filename`` (e.g. ``gpt2.tiktoken``)."""
    names = [name for name, entry in _fetcher().BY_NAME.items() if filename in [f["file"] for f in entry["files"]]]
    if len(names) != 1:
        pytest.fail(f"{filename!r} names {len(names)} files of the manifest; expected one")
    return real_bytes(names[0], filename)


def real_entry(name: str) -> dict:
    """The cache's manifest.json entry for ``name`` (skip or fail as :func:`real_file`)."""
    _check_marked()
    fetcher = _fetcher()
    if name not in fetcher.BY_NAME:
        pytest.fail(f"{name} is not in the manifest of {_SCRIPT.name}")
    path = fetcher.cache_dir(None) / "manifest.json"
    entries = {e["name"]: e for e in json.loads(path.read_text(encoding="utf-8"))["entries"]} if path.is_file() else {}
    if name not in entries:
        _missing(f"the entry {name!r} of {path}", name)
    return entries[name]


RUNNING_TEXTS: list[str] = [
    "",
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    " leading space",
    "trailing space ",
    "   three spaces either side   ",
    "runs  of   spaces    between     words",
    " ",
    "\t\n \r\n",
    "tabs\tbetween\twords\t\tand a double tab",
    "line one\nline two\n\nline four\n",
    "windows\r\nline endings\r\n\r\n",
    "\n\n\nleading newlines",
    "digits 0 1 22 333 4444 55555 and 1234567890123456789",
    "prices: $3.50, €1,234.56, 12% off; pi = 3.14159265358979",
    "dates 2024-01-31 and times 12:34:56, version 3.11.7",
    "punctuation!!! ?? ... --- (round) [square] {curly} <angle> \"double\" 'single'",
    "contractions: it's, we've, they're, I'm, you'll, he'd, can't, won't, IT'S, We'VE",
    "Café naïve résumé façade coöperatie Zürich straße",  # NFC
    "Cafe\u0301 nai\u0308ve re\u0301sume\u0301 fac\u0327ade coo\u0308peratie Zu\u0308rich",  # NFD
    "emoji 😀 👍 🎉 and ❤️ with a variation selector",
    "skin tones 👍🏻 👍🏽 👍🏿, ZWJ sequences 👨‍👩‍👧‍👦 👩‍💻 🏳️‍🌈",
    "flags 🇳🇱 🇩🇪 🇯🇵 🇺🇸 and a keycap 1️⃣",
    "中文文本：我爱自然语言处理。",
    "日本語のテキスト：ひらがな、カタカナ、漢字。",
    "한국어 문장입니다. 안녕하세요!",
    "हिन्दी में एक वाक्य। नमस्ते दुनिया",
    "النص العربي: مرحبا بالعالم",
    "עברית: שלום עולם",
    "ภาษาไทยไม่มีช่องว่างระหว่างคำ",
    "Ελληνικά και русский текст, İstanbul",
    "math: ∀x ∈ ℝ, x² ≥ 0; ∑ᵢ i = n(n+1)/2 ≈ ∞ ≠ −1 ± √2",
    "def tokenise(word):\n    if not word:\n        return []\n    return [c for c in word]  # chars\n",
    "    indented by four spaces\n\tand by a tab\n        and by eight",
    "URLs: https://example.com/path?query=1&b=two#frag, www.example.org, me@example.com",
    "special tokens in the text: <|endoftext|> <s> </s> <unk> <pad> [CLS] <|im_start|>",
    "<|endoftext|>",
    "<s>Hello</s><unk>",
    "ALL CAPS and MiXeD cAsE, camelCaseWords and snake_case_words",
    "a veryveryveryveryveryveryveryverylongwordwithoutanyspacesinthemiddle",
    "Dutch bruidsjurk gidsen ijsje; German Donaudampfschifffahrtsgesellschaft",
    "ligatures ﬁ ﬂ, full-width ＡＢＣ１２３, NBSP\u00a0here, zero\u200bwidth, soft\u00adhyphen",
    "\u3000ideographic space, em\u2003space and the end of a line\u2028",
    "mixed scripts: hello世界мир🌍 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀 \ue000",
    "repeated punctuation ,,,,,;;;;;::::: and dashes – — ‒",
    "markup <p>a</p> <b> </b>\n<div> </div> <br> <i>x</i> > </span>",
]

_ODD_WORDS = [
    "café",
    "cafe\u0301",
    "naïve",
    "Zürich",
    "straße",
    "ĳs",
    "coöperatie",
    "İstanbul",
    "ǅemal",
    "ﬁne",
    "ＡＢＣ",
    "😀",
    "👍🏽",
    "👨‍👩‍👧",
    "🇳🇱",
    "❤️",
    "2024",
    "3.14159",
    "1,000,000",
    "12345678901234567890",
    "COVID-19",
    "e-mail",
    "don't",
    "o'clock",
    "x²",
    "Ⅻ",
    "東京",
    "ありがとう",
    "한국어",
    "नमस्ते",
    "مرحبا",
    "שלום",
    "สวัสดี",
    "Москва",
    "Ελλάδα",
    "<unk>",
    "<s>",
    "</s>",
    "<|endoftext|>",
    "▁",
    "Ġ",
    "</w>",
    "##ing",
    "camelCase",
    "snake_case",
    "ALLCAPS",
    "antidisestablishmentarianism",
    "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz",
    "a" * 60,
    "zero\u200bwidth",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "𓀀",
    "\ue000",
]
_WORDS_PER_LANGUAGE = 650
_SEED = 11


@functools.cache
def _words() -> tuple[str, ...]:
    import wordfreq

    rng = random.Random(_SEED)
    words = []
    for language in ("en", "nl", "de"):
        words += rng.sample(wordfreq.top_n_list(language, 20_000), _WORDS_PER_LANGUAGE)
    return tuple(dict.fromkeys(words + _ODD_WORDS))


def __getattr__(name: str):
    if name == "WORDS":
        return list(_words())
    raise AttributeError(name)
