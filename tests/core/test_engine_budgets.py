"""Engine budgets (issue 32): work that grows with a user's input is refused past a named limit,
checked before the work, and inputs just under the limit still work."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
import regex

import core
from core.errors import InputError
from core.families.boundless.model import BoundlessBPE, boundless_pretokeniser
from core.formats.samples import DUTCH_40K
from core.pipeline.letter_runs import CUT_EVERY, LetterRunCut, digit_cuts
from core.pipeline.patterns import BOUNDLESS_PATTERN
from core.pipeline.real_patterns import ULTIMATE_PATTERN
from core.trace import MAX_TRACE_CHARS


@pytest.fixture(scope="module")
def bpe():
    return core.load_tokeniser(DUTCH_40K)


def test_a_traced_pretoken_past_the_limit_is_refused(bpe):
    with pytest.raises(InputError, match="MAX_TRACE_CHARS") as error:
        bpe.trace_text("a" * (MAX_TRACE_CHARS + 1))
    assert f"{MAX_TRACE_CHARS:,}" in str(error.value)
    word = "a" * MAX_TRACE_CHARS
    trace = bpe.trace_text(word)
    assert list(trace.tokens) == bpe.tokenise(word) and not trace.problems()


def test_every_family_shares_the_trace_limit():
    tokeniser = BoundlessBPE([("merge", "a", "a")], boundless_pretokeniser())
    with pytest.raises(InputError, match="MAX_TRACE_CHARS"):
        tokeniser.trace_text("a" * (MAX_TRACE_CHARS + 1))
    assert "".join(tokeniser.trace_text("a" * MAX_TRACE_CHARS).tokens) == "a" * MAX_TRACE_CHARS


def test_the_cli_trace_names_the_limit():
    args = [sys.executable, "-m", "core", "segment", "--tokeniser", str(DUTCH_40K), "--trace"]
    proc = subprocess.run([*args, "a" * (MAX_TRACE_CHARS + 1)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "MAX_TRACE_CHARS" in proc.stderr


@pytest.mark.parametrize("pattern", [ULTIMATE_PATTERN, BOUNDLESS_PATTERN])
def test_long_digit_runs_split_as_the_uncut_pattern_and_finish(pattern):
    compiled = regex.compile(pattern)
    cut = LetterRunCut(compiled)
    for n in (CUT_EVERY + 1, CUT_EVERY + 2, CUT_EVERY + 3, 3 * CUT_EVERY + 1):
        for text in ("7" * n, " " + "7" * n + "x", "a'" + "12" * n, "1" * n + "\u0301" + "2" * n):
            assert [m.span() for m in cut.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert digit_cuts("7" * (3 * CUT_EVERY + 1))
    done = []
    worker = threading.Thread(target=lambda: done.append(cut.findall("7" * 200_000)), daemon=True)
    worker.start()
    worker.join(20)
    assert done and "".join(done[0]) == "7" * 200_000
