"""Engine budgets (issue 32): work that grows with a user's input is refused past a named limit,
checked before the work, and inputs just under the limit still work."""

from __future__ import annotations

import subprocess
import sys
import threading

import pyarrow as pa
import pytest
import regex

import core
import core.trace
from core.analysis.explain import trace_word
from core.analysis.merge_usage import FireCounter
from core.counting import count_files
from core.counting.pretoken_counts import PRETOKEN_SCHEMA
from core.edits.blocked import find_blocked_merges
from core.errors import InputError
from core.families.boundless.model import BoundlessBPE, boundless_pretokeniser
from core.families.unigram import model as unigram_model_module
from core.families.unigram.lattice import MAX_LATTICE_ARCS, check_lattice_size
from core.families.unigram.model import UnigramTokeniser, check_prefix_chars
from core.formats.samples import DUTCH_40K
from core.formats.tokeniser_files import parse_tokeniser_bytes
from core.limits import MAX_COUNT, MAX_SPLIT_BYTES, check_split_bytes
from core.pipeline import WhitespaceSplit
from core.pipeline.letter_runs import CUT_EVERY, LetterRunCut, digit_cuts
from core.pipeline.patterns import BOUNDLESS_PATTERN
from core.pipeline.real_patterns import ULTIMATE_PATTERN
from core.trace import MAX_TRACE_CHARS
from tests.core.edits.test_blocked import knocked
from tests.fuzz_inputs import EXPANSION_CASES, expansion_outcome, model_proto_bytes


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


def test_callers_of_a_bpe_trace_share_the_trace_limit(bpe, monkeypatch):
    """explain, merge usage and blocked trace pretokens through ``trace_pretoken``, not ``trace_text``."""
    merge = bpe.merges[0]
    word = merge.result * (MAX_TRACE_CHARS // len(merge.result) + 1)
    with pytest.raises(InputError, match="MAX_TRACE_CHARS"):
        trace_word(bpe, word)
    with pytest.raises(InputError, match="MAX_TRACE_CHARS"):
        FireCounter.from_words(bpe, [word]).count(merge)
    assert FireCounter.from_words(bpe, [merge.result * 3]).count(merge) >= 3
    tokeniser = knocked("a1_scenario2b_i_first")
    assert find_blocked_merges(tokeniser).blocked
    monkeypatch.setattr(core.trace, "MAX_TRACE_CHARS", 3)  # the blocked merge forms "_bruids"
    with pytest.raises(InputError, match="MAX_TRACE_CHARS"):
        find_blocked_merges(tokeniser)


@pytest.fixture(scope="module")
def runs():
    """A unigram model whose pieces are the runs "a" .. "a" * 1,024."""
    return parse_tokeniser_bytes(model_proto_bytes(("a" * k, -1.0) for k in range(1, 1_025)), "runs.model")


def test_a_unigram_lattice_past_the_arc_limit_is_refused(runs):
    word = "a" * 1_500  # within the trace limit
    for work in (runs.tokenise, runs.trace_text, lambda text: runs.sample(text, 0.5)):
        with pytest.raises(InputError, match=f"more than {MAX_LATTICE_ARCS:,}.*MAX_LATTICE_ARCS"):
            work(word)
    with pytest.raises(InputError, match="MAX_LATTICE_ARCS"):
        runs.tokenise("a" * 100_000)
    assert runs.tokenise("a" * 300 + " b") == ["▁", "a" * 300, "▁b"]
    longest = {"a": 1_024}
    check_lattice_size("▁" + "a" * 999, 1_024, longest)  # 1 + 999 * 1,000 / 2 arcs
    with pytest.raises(InputError, match="may have 500,501 lattice arcs"):
        check_lattice_size("▁" + "a" * 1_000, 1_024, longest)


def test_a_long_word_of_characters_without_long_pieces_is_not_refused():
    """The bound counts, at each position, only the pieces its character starts."""
    tokeniser = UnigramTokeniser({"a": -1.0, "b": -2.0, "ab" * 8: -3.0}, WhitespaceSplit())
    assert tokeniser.tokenise("b" * 50_000) == ["b"] * 50_000


def test_pieces_with_too_many_prefix_characters_are_refused_at_loading(monkeypatch):
    kind, make, _, _ = EXPANSION_CASES["unigram model of 400 pieces of 1,024 characters"]
    with pytest.raises(InputError, match=r"^m\.model: the pieces have 209,917,729 characters.*MAX_PREFIX_CHARS"):
        parse_tokeniser_bytes(make(), kind)
    runs = ["a" * k for k in range(1, 1_025)]  # shared prefixes count once: 1,024 * 1,025 / 2 characters
    monkeypatch.setattr(unigram_model_module, "MAX_PREFIX_CHARS", 524_800)
    check_prefix_chars(runs)
    monkeypatch.setattr(unigram_model_module, "MAX_PREFIX_CHARS", 524_799)
    with pytest.raises(InputError, match="524,800 characters of distinct prefixes"):
        check_prefix_chars(runs, "runs.model")


def test_a_rank_file_whose_splits_cost_too_much_is_refused():
    kind, make, _, _ = EXPANSION_CASES["tiktoken runs of a, b, c up to 1,000 bytes"]
    with pytest.raises(InputError, match=r"^ranks\.tiktoken: splitting .* 999,999,000 bytes.*MAX_SPLIT_BYTES"):
        parse_tokeniser_bytes(make(), kind)
    check_split_bytes([b"x" * 1_000] * 100, "r.tiktoken")  # 100 * 1,000 * 999 bytes
    with pytest.raises(InputError, match=f"more than {MAX_SPLIT_BYTES:,}"):
        check_split_bytes([b"x" * 1_000] * 101, "r.tiktoken")


@pytest.mark.parametrize("label", list(EXPANSION_CASES))
def test_files_whose_work_grows_far_beyond_them_end_in_a_clean_error(label):
    kind, make, text, limit = EXPANSION_CASES[label]
    done = []
    worker = threading.Thread(target=lambda: done.append(expansion_outcome(kind, make(), text)), daemon=True)
    worker.start()
    worker.join(60)
    assert done, f"{label}: still running after 60 s"
    result, detail = done[0]
    assert result == "clean" and limit in detail, (result, detail)


def _counts_file(path, rows: list[tuple[str, int]]) -> str:
    table = pa.table({"pretoken": [r[0] for r in rows], "count": [r[1] for r in rows]}, schema=PRETOKEN_SCHEMA)
    metadata = {"format": count_files.FORMAT, "version": count_files.VERSION, "pretokeniser": None, "sequences": None}
    count_files.write_table(path, table, metadata)
    return str(path)


def test_counts_parquet_files_have_the_limits_of_word_count_files(tmp_path, monkeypatch):
    half = 2**61
    fits = _counts_file(tmp_path / "fits.parquet", [("a", half), ("b", half - 1)])  # 2 (2**62 - 1) characters
    assert count_files.read_counts(fits)[0].pretokens.num_rows == 2
    for name, rows in (("over.parquet", [("a", half), ("b", half)]), ("product.parquet", [("ab", 2**62)])):
        with pytest.raises(InputError, match=f"describe a text of more than {MAX_COUNT:,} characters"):
            count_files.read_counts(_counts_file(tmp_path / name, rows))
    monkeypatch.setattr(count_files, "MAX_TABLE_BYTES", 100)
    with pytest.raises(InputError, match=r"fits\.parquet: file is [\d,]+ bytes, more than 100, .*MAX_TABLE_BYTES"):
        count_files.read_counts(fits)
