"""The BoundlessBPE patterns cut long letter runs: exactly the matches of the whole text."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from core.pipeline import letter_runs
from core.pipeline.letter_runs import LetterRunCut, cuts
from core.pipeline.patterns import BOUNDLESS_PATTERN, GPT2_PATTERN, compile_regex
from core.pipeline.real_patterns import ULTIMATE_PATTERN

# lower, upper, titlecase, modifier, other letters, marks, apostrophes, underscore, digits, space, punctuation
PIECES = ["a", "b", "é", "A", "B", "É", "ǅ", "ʰ", "中", "\u0301", "'", "\u2019", "_", "1", "7", " ", "\n", ".", "-"]


@pytest.fixture
def short_runs(monkeypatch):
    """Cut after every 3 letters, so small texts exercise the cuts."""
    monkeypatch.setattr(letter_runs, "CUT_EVERY", 3)


@pytest.mark.parametrize("pattern", [ULTIMATE_PATTERN, BOUNDLESS_PATTERN])
@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(PIECES), max_size=60).map("".join))
def test_cut_runs_give_the_matches_of_the_whole_text(pattern, text):
    letter_runs.CUT_EVERY, saved = 3, letter_runs.CUT_EVERY  # hypothesis runs the body many times
    try:
        ours = [m.span() for m in compile_regex(pattern).finditer(text)]
    finally:
        letter_runs.CUT_EVERY = saved
    assert ours == [m.span() for m in regex.finditer(pattern, text)]


def test_the_boundless_patterns_are_cut_and_others_not():
    assert isinstance(compile_regex(ULTIMATE_PATTERN), LetterRunCut)
    assert isinstance(compile_regex(BOUNDLESS_PATTERN), LetterRunCut)
    assert isinstance(compile_regex(GPT2_PATTERN), regex.Pattern)


def test_cuts_fall_between_lower_and_upper_case_in_long_runs_only(short_runs):
    assert cuts("abcdEfghIjkl") == [4, 8]
    assert cuts("abcdEfgh'") == []  # an apostrophe follows: the contraction branch may match
    assert cuts("_abcdEfgh") == []  # Listing 3's snake case takes the whole run
    assert cuts("abcdefgh ABCDEFGH") == []  # no lower-to-upper change
    assert cuts("abc\u0301dEf") == [5]  # after the mark of the lower-case letter
