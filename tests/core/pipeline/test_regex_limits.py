r"""Regexes from files and the command line: known patterns run as they are, any other one with a
time limit per call (InputError naming the pattern, the limit and the text's length), and
loading says which. A known hard case: a Split pattern ``(?:\S|\S\S)+\d``
that backtracks for half a minute on a 38-character word."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import regex

from core.errors import InputError
from core.formats.samples import running_text
from core.formats.tiktoken_files import ENCODINGS, parse_tiktoken_bytes
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import RegexSplit, limited_regex
from core.pipeline.huggingface.equivalents import simple_equivalent
from core.pipeline.huggingface.pipeline import HFPipeline
from core.pipeline.limited_regex import MAX_EXPANDED_SIZE, LimitedPattern, expanded_size
from core.pipeline.patterns import KNOWN_PATTERNS, NAMED_PATTERNS, compile_regex
from core.pipeline.special_tokens import SpecialTokenSplit
from core.pipeline.whitespace import WhitespaceSplit

ROOT = Path(__file__).resolve().parents[3]
REDOS = r"(?:\S|\S\S)+\d"
WORD = "a" * 38
#: slow on the 22-character text huggingface.py probes Split patterns with (seconds, unlimited)
SLOW_ON_PROBE = r"(?:.|\s|[\s\S]){1,30}\p{Nd}{4}"


def split_json(pattern: str, behavior: str = "Isolated") -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


@pytest.fixture
def redos_file(tmp_path) -> Path:
    path = tmp_path / "tokenizer.json"
    path.write_text(
        json.dumps(
            {
                "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
                "pre_tokenizer": split_json(REDOS),
            }
        ),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def short_limit(monkeypatch):
    """A 0.05 s limit, so that tests of the slow path stay quick."""
    monkeypatch.setattr(limited_regex, "TIME_LIMIT", 0.05)


def run_cli(*args, env: dict | None = None):
    return subprocess.run(
        [sys.executable, "-m", "core", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_the_testers_redos_file_loads_and_segmenting_the_word_is_refused(redos_file):
    tokeniser = load_tokeniser(redos_file)
    with pytest.raises(InputError) as caught:
        tokeniser.tokenise(WORD)
    message = str(caught.value)
    assert f"'{REDOS}' took more than 1 s on a 38-character text" in message
    assert "not one of the known ones, so it runs with a time limit" in message


def test_after_one_timeout_the_pattern_is_refused_without_running(short_limit):
    """A page that segments many lines pays the limit once, not once per line."""
    split = RegexSplit(REDOS)
    assert split.pretokenise("ab1 ab2") == ["ab1", "ab2"]
    with pytest.raises(InputError, match="took more than"):
        split.pretokenise(WORD)
    pattern = split.limited_patterns[0]
    pattern.compiled = None  # running it again would fail with AttributeError, not InputError
    with pytest.raises(InputError, match="refused on every text since"):
        split.pretokenise("ab1 ab2")


def test_the_hf_split_step_and_the_normalizer_replace_are_limited_too(short_limit):
    pipeline = HFPipeline.from_json(None, split_json(REDOS), [{"id": 3, "content": "<x>"}])
    with pytest.raises(
        InputError,
        match=r"pre_tokenizer\.pattern\.Regex '.*' took more than 0\.05 s "
        r"on a 38-character text",
    ):
        pipeline.pretokenise_with_sources(WORD)  # the HF steps themselves, not the fast path
    replace = {"type": "Replace", "pattern": {"Regex": REDOS}, "content": "-"}
    pipeline = HFPipeline.from_json(replace, None)
    assert pipeline.normalise("ab1 cd") == "- cd"
    with pytest.raises(InputError, match=r"normalizer\.pattern\.Regex '.*' took more than 0\.05 s"):
        pipeline.normalise(WORD)
    decoder = {"type": "Replace", "pattern": {"Regex": REDOS}, "content": "-"}
    with pytest.raises(InputError, match=r"decoder\.pattern\.Regex '.*' took more than 0\.05 s"):
        HFPipeline.from_json(None, None, None, decoder).decode([WORD])


def test_the_limit_grows_with_the_length_of_the_text(short_limit):
    long_text = "a" * (2 * limited_regex.CHARACTERS_PER_LIMIT + 5)
    with pytest.raises(InputError, match=r"more than 0\.15 s on a 200,005-character text"):
        RegexSplit(REDOS).pretokenise(long_text)


def test_loading_notes_the_custom_pattern(redos_file):
    notes = load_tokeniser(redos_file).metadata["detected"]
    assert len(notes) == 1
    assert notes[0].startswith(f"custom regex '{REDOS}': not one of the known tokenisers' patterns")
    assert "time limit of 1 s per call" in notes[0]


def test_known_patterns_are_not_wrapped_and_leave_no_note():
    assert not any(isinstance(compile_regex(p), LimitedPattern) for p in KNOWN_PATTERNS)
    assert set(NAMED_PATTERNS.values()) | {p for p, _, _ in ENCODINGS.values()} <= KNOWN_PATTERNS
    assert all(RegexSplit(name).limited_patterns == () for name in NAMED_PATTERNS)
    ranks = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))
    cl100k = parse_tiktoken_bytes(ranks, "small.tiktoken", pattern="cl100k_base")
    assert not any("custom regex" in note for note in cl100k.metadata["detected"])
    custom = compile_regex(r"\S+")
    assert isinstance(custom, LimitedPattern) and custom.text == r"\S+"


@pytest.mark.real
def test_the_real_tokenisers_patterns_are_known():
    """Every regex in the cached real tokenizer.json files and Tekken's pattern is a known one."""
    from tests.real_tokenisers import real_file

    for name in ("gpt4o", "gptoss", "llama3", "qwen3", "deepseek_v3", "clip", "claude", "gemma3", "llama2"):
        obj = json.loads(real_file(name, "tokenizer.json").read_text(encoding="utf-8"))
        pipeline = HFPipeline.from_json(obj.get("normalizer"), obj.get("pre_tokenizer"), None, obj.get("decoder"))
        assert pipeline.limited_patterns == (), name
    tekken = json.loads(real_file("mistral-tekken", "tekken_240911.json").read_text(encoding="utf-8"))
    assert tekken["config"]["pattern"] in KNOWN_PATTERNS


def test_a_benign_custom_pattern_splits_exactly_as_the_plain_regex():
    pattern = r" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
    limited = RegexSplit(pattern)
    assert isinstance(limited.limited_patterns[0], LimitedPattern)
    for text in list(running_text())[:300]:
        assert limited.pretokenise(text) == regex.findall(pattern, text)
        assert [p.text for p in limited.pretokenise_with_sources(text)] == regex.findall(pattern, text)


def test_the_load_time_probe_is_limited(short_limit):
    assert simple_equivalent(None, split_json(SLOW_ON_PROBE)) is None
    pipeline = HFPipeline.from_json(None, split_json(SLOW_ON_PROBE))
    assert len(pipeline.limited_patterns) == 1
    assert simple_equivalent(None, split_json(r"\S+")) == RegexSplit(r"\S+", unmatched="keep")


@pytest.mark.parametrize("pattern", [r"x{4294967294}", r"(?:x{10000}){10000}", "a" * (MAX_EXPANDED_SIZE + 1)])
def test_patterns_too_large_to_compile_are_refused_before_compiling(pattern, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(
        json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": split_json(pattern)}),
        encoding="utf-8",
    )
    with pytest.raises(
        InputError,
        match=r"tokenizer\.json: pre_tokenizer\.pattern\.Regex '.*' is too large: "
        r"about [\d,]+ elements",
    ):
        load_tokeniser(path)


def test_expanded_size_counts_repeats_through_groups_escapes_and_classes():
    assert expanded_size(r"x{100000}") == MAX_EXPANDED_SIZE
    assert expanded_size(r"(?:ab){3}c") == 13  # "?:" counts too
    assert expanded_size(r"\p{N}{1,3}") == 3 == expanded_size(r"[]{}a-z]{3}") == expanded_size(r"\x{41}{3}")
    assert expanded_size(r"a{") == 2 and expanded_size(r"a{,}") == 4
    assert isinstance(compile_regex(r"x{100000}"), LimitedPattern)


def test_special_tokens_are_found_leftmost_longest_without_a_regex():
    specials = ["<a>", "<a><b>", "b>", "<"]
    split = SpecialTokenSplit(WhitespaceSplit(), specials)
    pieces = split.pretokenise_with_sources("x<a><b>y <a>b><")
    assert [(p.text, p.added) for p in pieces] == [
        ("x", False),
        ("<a><b>", True),
        ("y", False),
        ("<a>", True),
        ("b>", True),
        ("<", True),
    ]
    assert [p.sources for p in pieces][:2] == [(0,), (1, 2, 3, 4, 5, 6)]
    assert split.may_hold_added_tokens("a<") and not split.may_hold_added_tokens("ax")
    many = SpecialTokenSplit(WhitespaceSplit(), [f"<t{i}>" for i in range(50_000)])
    assert many.pretokenise("a<t49999>b <t7>") == ["a", "<t49999>", "b", "<t7>"]


def test_cli_segment_exits_2_naming_the_pattern(redos_file):
    proc = run_cli("segment", "--tokeniser", str(redos_file), WORD)
    assert proc.returncode == 2
    assert f"note: {redos_file}: custom regex '{REDOS}'" in proc.stderr
    assert f"error: pre-tokeniser pattern '{REDOS}' took more than 1 s on a 39-character text" in proc.stderr


def test_cli_tiktoken_with_a_custom_pattern_and_a_limit_from_the_environment(tmp_path):
    ranks = tmp_path / "small.tiktoken"
    ranks.write_bytes(b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256)))
    env = {limited_regex.LIMIT_VARIABLE: "0.25"}
    proc = run_cli("segment", "--tokeniser", str(ranks), "--pattern", REDOS, WORD, env=env)
    assert proc.returncode == 2
    assert f"custom regex '{REDOS}'" in proc.stderr and "time limit of 0.25 s per call" in proc.stderr
    assert f"pattern '{REDOS}' took more than 0.25 s on a 39-character text" in proc.stderr
    proc = run_cli("segment", "--tokeniser", str(ranks), "--pattern", r"\S+|\s+", "ab", env=env)
    assert proc.returncode == 0 and proc.stdout.split("\t")[1].split() == ["Ġ", "a", "b"]
    proc = run_cli(
        "segment", "--tokeniser", str(ranks), "--pattern", r"\S+|\s+", "ab", env={limited_regex.LIMIT_VARIABLE: "soon"}
    )
    assert proc.returncode == 2 and "TOKENISER_REGEX_TIME_LIMIT must be a positive number of seconds" in proc.stderr
