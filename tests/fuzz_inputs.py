"""Inputs for the loader and CLI fuzzers (tests/core/formats/test_loader_fuzz.py, tests/core/cli/test_cli_fuzz.py and
scripts/fuzz_report.py): a small valid file of every kind the loaders read, seeded mutations of
them, and what each loader is called with.

A mutation is one or more of: truncation, bit flips, byte insertion, deletion, a NUL byte, a BOM,
CRLF line ends, invalid UTF-8, a lone surrogate (raw, and as a JSON escape), a line of up to 1 MB,
a number of 5,000 digits, and (JSON) nesting 1,000 deep. :data:`EXPANSION_CASES` are small files
whose work grows far beyond their size (issue 32), each refused with an error naming the limit.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import random
import re
import struct
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from core.formats.samples import SAMPLE_DIR

SCENARIO = json.loads((SAMPLE_DIR / "scenarios" / "a1_scenario1.json").read_text(encoding="utf-8"))
HF_SMALL = {
    "model": {
        "type": "BPE",
        "vocab": {"a": 0, "b": 1, "ab": 2, "<0x41>": 3, "<unk>": 4},
        "merges": ["a b"],
        "byte_fallback": True,
        "unk_token": "<unk>",
        "fuse_unk": True,
    },
    "normalizer": {
        "type": "Sequence",
        "normalizers": [{"type": "NFKC"}, {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "}],
    },
    "pre_tokenizer": {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated", "invert": False},
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True},
        ],
    },
    "added_tokens": [
        {
            "id": 5,
            "content": "<s>",
            "special": True,
            "normalized": False,
            "lstrip": True,
            "rstrip": False,
            "single_word": False,
        }
    ],
    "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
}
TEKKEN = {
    "config": {"pattern": r"\w+|\s+", "default_vocab_size": 259, "default_num_special_tokens": 3},
    "vocab": [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode()} for i in range(256)],
    "special_tokens": [{"rank": i, "token_str": s} for i, s in enumerate(("<unk>", "<s>", "</s>"))],
}
#: the words of SCENARIO and the reference seeds
WORDS = ("bruids", "gids", "bruid", "ids")

#: kind -> the loader family that reads it
TOKENISER_KINDS = ("tokenizer.json", "project.json", "merges.txt", "ranks.tiktoken", "tekken.json", "m.model")
REFERENCE_KINDS = ("references.tsv", "morphynet.tsv", "celex.tsv", "sigmorphon.tsv")
TEXT_KINDS = ("counts.tsv", "corpus.txt")


def sentencepiece_model(folder: Path) -> bytes | None:
    """A small SentencePiece BPE model trained here (None without the sentencepiece package)."""
    try:
        import sentencepiece as spm
    except ImportError:
        return None
    (folder / "text.txt").write_text("the cat sat on the mat\n" * 50 + "a b c d e f g\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(folder / "text.txt"),
        model_prefix=str(folder / "m"),
        vocab_size=30,
        model_type="bpe",
        minloglevel=2,
        hard_vocab_limit=False,
    )
    return (folder / "m.model").read_bytes()


def seed_files() -> dict[str, bytes]:
    """kind -> the bytes of a small valid file of that kind (see the module constants)."""
    seeds = {
        "tokenizer.json": json.dumps(HF_SMALL).encode(),
        "project.json": json.dumps(SCENARIO).encode(),
        "merges.txt": "#version: 0.2\nĠ t\nh e\nĠt he\n".encode(),
        "vocab.json": json.dumps(
            {"Ġ": 0, "t": 1, "h": 2, "e": 3, "Ġt": 4, "he": 5, "Ġthe": 6}, ensure_ascii=False
        ).encode(),
        "ranks.tiktoken": b"".join(b"%s %d\n" % (base64.b64encode(bytes([b])), b) for b in range(256))
        + b"%s 256\n" % base64.b64encode(b"ab"),
        "tekken.json": json.dumps(TEKKEN).encode(),
        "references.tsv": b"bruids\tbruid s\ngids\tgids\nbruid\tbruid\n",
        "morphynet.tsv": b"bruid\tbruids\tN\tN\ts\tsuffix\ngids\tgidsen\tN\tN\ten\tsuffix\n",
        "celex.tsv": b"bruids\t((bruid)[N],(s)[N|N.])[N]\ngids\t(gids)[N]\n",
        "sigmorphon.tsv": b"bruids\tbruid @@s\t010\ngids\tgids\t000\n",
        "counts.tsv": b"bruids\t5\ngids\t3\nbruid\t2\n",
        "corpus.txt": b"de bruids gids\nbruid ids gids\n",
    }
    with tempfile.TemporaryDirectory() as folder:
        model = sentencepiece_model(Path(folder))
    if model is not None:
        seeds["m.model"] = model
    return seeds


# --- mutations ---------------------------------------------------------------------------------------
def _flip(data: bytearray, rng: random.Random) -> None:
    if data:
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)


def _insert(data: bytearray, rng: random.Random, piece: bytes | None = None) -> None:
    at = rng.randrange(len(data) + 1)
    data[at:at] = piece if piece is not None else bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))


def _delete(data: bytearray, rng: random.Random) -> None:
    if data:
        start = rng.randrange(len(data))
        del data[start : start + rng.randint(1, 20)]


def _truncate(data: bytearray, rng: random.Random) -> None:
    del data[rng.randrange(len(data) + 1) :]


def _crlf(data: bytearray, rng: random.Random) -> None:
    data[:] = bytes(data).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def _bom(data: bytearray, rng: random.Random) -> None:
    data[:0] = b"\xef\xbb\xbf"


def _long_line(data: bytearray, rng: random.Random) -> None:
    size = rng.choice((10_001, 100_000, 1_000_000))
    _insert(data, rng, rng.choice((b"a", b" a", b"\xc3\xa9", b"(")) * (size // 2))


def _special(data: bytearray, rng: random.Random) -> None:
    _insert(
        data,
        rng,
        rng.choice(
            (
                b"\x00",
                b"\xff",
                b"\xc3",
                b"\xc0\xaf",
                b"\xed\xa0\x80",
                b"\\ud800",
                b"\\udc00x",
                b"9" * 5000,
                b"-1",
                b"1e999",
                b"[" * 1000,
                b'{"a":' * 1000,
                b"\t",
                b"\r",
                b"\xe2\x80\xa8",
                b"\xc2\x85",
                b"\n\n",
                b"#",
                b"  ",
                b"@@",
            )
        ),
    )


MUTATIONS: tuple[Callable[[bytearray, random.Random], None], ...] = (
    _flip,
    _flip,
    _insert,
    _delete,
    _truncate,
    _special,
    _special,
    _crlf,
    _bom,
    _long_line,
)


def mutate(data: bytes, rng: random.Random) -> bytes:
    """``data`` after one to three random mutations (``_long_line`` at most once in ten inputs)."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        mutation = rng.choice(MUTATIONS)
        if mutation is _long_line and rng.random() < 0.9:
            mutation = _flip
        mutation(out, rng)
    return bytes(out)


# --- what each kind is loaded with ----------------------------------------------------------------------
SAMPLE_TEXT = "Hello <s> wörld 😀 123\nde bruids gids"


def load(kind: str, data: bytes, name: str, seeds: dict[str, bytes]) -> None:
    """Load ``data`` (a file of ``kind`` called ``name``) the way the app and the CLI do, and use
    the result; raises InputError (or anything else, which the fuzzers report)."""
    from core.formats.corpora import iter_text_lines, parse_word_count_bytes
    from core.formats.tokeniser_files import parse_merges_vocab_bytes, parse_tokeniser_bytes
    from core.references.files import parse_reference_bytes

    if kind in TOKENISER_KINDS:
        tokeniser = parse_tokeniser_bytes(data, name)
        tokeniser.tokenise(SAMPLE_TEXT)
    elif kind == "vocab.json":
        parse_merges_vocab_bytes(seeds["merges.txt"], "merges.txt", data, name).tokenise(SAMPLE_TEXT)
    elif kind in REFERENCE_KINDS:
        parse_reference_bytes(data, name)
    elif kind == "counts.tsv":
        parse_word_count_bytes(data, name)
    elif kind == "corpus.txt":
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / name
            path.write_bytes(data)
            for _ in iter_text_lines(path):
                pass
    else:
        raise ValueError(f"unknown kind {kind!r}")


# --- outcomes -----------------------------------------------------------------------------------------------
#: the longest acceptable error message (the longest legitimate ones list the reference formats)
MAX_MESSAGE_CHARS = 1_000


def message_problem(message: str, names: tuple[str, ...]) -> str | None:
    """Why an error message is not clean (None when it is): it must start with one of the file
    ``names`` (``FILE:LINE:`` or ``FILE:``) and quote at most a short excerpt of the input."""
    if len(message) > MAX_MESSAGE_CHARS:
        return f"message of {len(message):,} characters"
    if not any(message.startswith(name + ":") or (message.startswith(name) and name.endswith("/")) for name in names):
        return f"message names no file: {message[:100]!r}"
    return None


def outcome(kind: str, data: bytes, name: str, seeds: dict[str, bytes]) -> tuple[str, str]:
    """("loaded" | "clean" | "unclear" | "crash", detail) of loading ``data`` as ``kind``."""
    from core.errors import InputError

    try:
        load(kind, data, name, seeds)
    except InputError as err:
        source = str(err.source or "")
        # a vocab.json that lacks a token a merge uses: the merge's line in merges.txt is named
        named = source.endswith(name) or (kind == "vocab.json" and source == "merges.txt" and err.line is not None)
        problem = message_problem(str(err), (source,) if named else (name,))
        return ("clean", "" if err.line is None else "line") if problem is None else ("unclear", problem)
    except Exception as err:
        return "crash", f"{type(err).__name__}: {str(err)[:150]}"
    return "loaded", ""


# --- work that grows far beyond the file (issue 32) ------------------------------------------------------
def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes([*out, n])


def model_proto_bytes(pieces: Iterable[tuple[str, float]], model_type: int = 1) -> bytes:
    """A SentencePiece ``.model`` (protobuf wire format): ``<unk>`` and the normal ``pieces`` with their
    scores, a trainer spec naming ``model_type`` (1 unigram, 2 BPE), the default normaliser spec."""
    out = bytearray()
    for piece, score, kind in [("<unk>", 0.0, 2), *((p, s, 1) for p, s in pieces)]:
        raw = piece.encode()
        entry = b"\x0a" + _varint(len(raw)) + raw + b"\x15" + struct.pack("<f", score) + b"\x18" + _varint(kind)
        out += b"\x0a" + _varint(len(entry)) + entry
    trainer = b"\x18" + _varint(model_type)
    return bytes(out + b"\x12" + _varint(len(trainer)) + trainer)


def _replace_chain() -> bytes:
    step = {"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}
    return json.dumps({**HF_SMALL, "normalizer": {"type": "Sequence", "normalizers": [step] * 30}}).encode()


def _runs_tiktoken() -> bytes:
    lines = [b"%s %d" % (base64.b64encode(bytes([b])), b) for b in range(256)]
    runs = (bytes([letter]) * k for letter in b"abc" for k in range(2, 1_001))
    lines += [b"%s %d" % (base64.b64encode(run), rank) for rank, run in enumerate(runs, 256)]
    return b"\n".join(lines) + b"\n"


#: label -> (kind, the file's bytes, text to tokenise, the limit the error names)
EXPANSION_CASES: dict[str, tuple[str, Callable[[], bytes], str, str]] = {
    "normaliser of 30 Replace a -> aa": ("tokenizer.json", _replace_chain, "a", "the limit is 64 times"),
    "unigram pieces a .. a * 1,024 on a 100,000-character word": (
        "m.model",
        lambda: model_proto_bytes(("a" * k, -1.0) for k in range(1, 1_025)),
        "a" * 100_000,
        "MAX_LATTICE_ARCS",
    ),
    "unigram model of 400 pieces of 1,024 characters": (
        "m.model",
        lambda: model_proto_bytes((f"{k:04d}" + "x" * 1_020, -1.0) for k in range(400)),
        "x",
        "MAX_PREFIX_CHARS",
    ),
    "tiktoken runs of a, b, c up to 1,000 bytes": ("ranks.tiktoken", _runs_tiktoken, "aaa", "MAX_SPLIT_BYTES"),
    "SentencePiece BPE runs of a, b, c up to 1,000 characters": (
        "m.model",
        lambda: model_proto_bytes(((c * k, -float(k)) for c in "abc" for k in range(1, 1_001)), model_type=2),
        "aaa",
        "MAX_SPLIT_BYTES",
    ),
}


def expansion_outcome(kind: str, data: bytes, text: str) -> tuple[str, str]:
    """("clean", message) when loading ``data`` (a file called ``kind``) or tokenising ``text`` with
    it ends in an InputError with a short message, naming the file when loading fails; else
    ("loaded" | "unclear" | "crash", detail)."""
    from core.errors import InputError
    from core.formats.tokeniser_files import parse_tokeniser_bytes

    try:
        tokeniser = parse_tokeniser_bytes(data, kind)
    except InputError as err:
        problem = message_problem(str(err), (kind,))
        return ("clean", str(err)) if problem is None else ("unclear", problem)
    except Exception as err:
        return "crash", f"{type(err).__name__}: {str(err)[:150]}"
    try:
        tokeniser.tokenise(text)
    except InputError as err:
        return ("clean", str(err)) if len(str(err)) <= MAX_MESSAGE_CHARS else ("unclear", str(err)[:150])
    except Exception as err:
        return "crash", f"{type(err).__name__}: {str(err)[:150]}"
    return "loaded", ""


# --- the command line ------------------------------------------------------------------------------------------
#: (label, arguments, kinds of the file put in place of {X}); {T}, {R}, {C}, {W}: valid tokeniser,
#: reference, corpus and counts files; {O}: an output file in a fresh folder
CLI_CASES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("segment", ("segment", "--tokeniser", "{X}", "bruids"), (*TOKENISER_KINDS, "vocab.json")),
    ("segment --words-file", ("segment", "--tokeniser", "{T}", "--words-file", "{X}"), ("corpus.txt",)),
    ("inspect", ("inspect", "--tokeniser", "{X}"), (*TOKENISER_KINDS, "vocab.json")),
    ("evaluate", ("evaluate", "--tokeniser", "{T}", "--reference", "{X}"), REFERENCE_KINDS),
    (
        "evaluate --weights",
        ("evaluate", "--tokeniser", "{T}", "--reference", "{R}", "--weights", "{X}"),
        ("counts.tsv",),
    ),
    ("graph --reference", ("graph", "--tokeniser", "{T}", "--type", "_bru", "--reference", "{X}"), REFERENCE_KINDS),
    ("graph --corpus", ("graph", "--tokeniser", "{T}", "--type", "_bru", "--corpus", "{X}"), ("corpus.txt",)),
    ("knockout", ("knockout", "--tokeniser", "{T}", "--reference", "{X}", "--out", "{O}"), REFERENCE_KINDS),
    (
        "knockout --tokeniser",
        ("knockout", "--tokeniser", "{X}", "--reference", "{R}", "--out", "{O}"),
        ("project.json", "tokenizer.json", "merges.txt"),
    ),
    (
        "rebpe",
        ("rebpe", "--tokeniser", "{T}", "--reference", "{X}", "--out", "{O}", "--max-iterations", "2"),
        REFERENCE_KINDS,
    ),
    ("blocked", ("blocked", "--tokeniser", "{X}", "--reference", "{R}"), ("project.json", "tokenizer.json")),
    (
        "train --corpus",
        ("train", "--algorithm", "bpe", "--corpus", "{X}", "--vocab-size", "280", "--out", "{O}"),
        ("corpus.txt",),
    ),
    (
        "train --counts",
        (
            "train",
            "--algorithm",
            "bpe",
            "--pretokeniser",
            "whitespace",
            "--counts",
            "{X}",
            "--vocab-size",
            "30",
            "--out",
            "{O}",
        ),
        ("counts.tsv",),
    ),
    ("train-bpe", ("train-bpe", "--counts", "{X}", "--vocab-size", "30", "--out", "{O}"), ("counts.tsv",)),
)


def write_inputs(folder: Path, seeds: dict[str, bytes]) -> dict[str, str]:
    """The valid files of {T}, {R}, {C} and {W} in ``folder``, by placeholder."""
    paths = {"T": "project.json", "R": "references.tsv", "C": "corpus.txt", "W": "counts.tsv"}
    for kind in paths.values():
        (folder / kind).write_bytes(seeds[kind])
    return {key: str(folder / kind) for key, kind in paths.items()}


def cli_outcome(
    args: tuple[str, ...], kind: str, data: bytes, folder: Path, valid: dict[str, str], seeds: dict[str, bytes]
) -> tuple[str, str]:
    """(outcome, detail) of ``python -m core ARGS`` run in this process with ``data`` as the file
    {X} of ``kind``: "clean" is exit status 2 with an error naming that file, "loaded" is 0."""
    case = Path(tempfile.mkdtemp(dir=folder))
    target = case / kind
    target.write_bytes(data)
    if kind == "vocab.json":  # a merges.txt with this vocab.json beside it
        (case / "merges.txt").write_bytes(seeds["merges.txt"])
        target = case / "merges.txt"
    (case / "out").mkdir()
    code, error = run_cli([a.format(X=target, O=case / "out" / "o.json", **valid) for a in args])
    if code == 0:
        return "loaded", ""
    if code != 2 or error is None:
        return "crash", error or f"exit status {code}"
    names = (str(target), str(case / kind))
    problem = message_problem(error, names)
    if problem is not None:
        return "unclear", problem
    return "clean", "line" if any(re.match(re.escape(name) + r":\d+:", error) for name in names) else ""


def run_cli(argv: list[str]) -> tuple[int, str | None]:
    """(exit status, the message after ``error: ``) of ``python -m core ARGV`` in this process; an
    exception escaping ``main`` gives (-1, its type and text)."""
    from core.cli import main

    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exit_:  # argparse: "prog: error: ..."
        code = exit_.code if isinstance(exit_.code, int) else 1
    except Exception as exc:
        return -1, f"{type(exc).__name__}: {str(exc)[:150]}"
    errors = [line.split("error: ", 1)[1] for line in err.getvalue().splitlines() if "error: " in line]
    return code, errors[-1] if errors else None


#: hand-made command lines: {M} a missing path, {D} a folder, {E} an empty file, {B} a binary file,
#: {L} a file of one 1 MB line, {T}, {R}, {C}, {W}, {O} as in CLI_CASES
FILE_OPTIONS = (
    ("segment", "--tokeniser", "{F}", "w"),
    ("segment", "--tokeniser", "{T}", "--words-file", "{F}"),
    ("evaluate", "--tokeniser", "{T}", "--reference", "{F}"),
    ("evaluate", "--tokeniser", "{T}", "--reference", "{R}", "--weights", "{F}"),
    ("graph", "--tokeniser", "{T}", "--type", "_bru", "--corpus", "{F}"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{F}", "--out", "{O}"),
    ("train", "--algorithm", "bpe", "--corpus", "{F}", "--vocab-size", "280", "--out", "{O}"),
    ("train-bpe", "--counts", "{F}", "--vocab-size", "30", "--out", "{O}"),
)
_HUGE = "9" * 5000
CLI_EDGE_CASES: tuple[tuple[str, ...], ...] = (
    *(tuple(a.replace("{F}", f) for a in args) for args in FILE_OPTIONS for f in ("{M}", "{D}", "{E}", "{B}", "{L}")),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "280", "--out", "{M}/o.json"),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "280", "--out", "{D}"),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "280", "--out", "{O}", "--json-report", "{M}/r"),
    ("train-bpe", "--counts", "{W}", "--vocab-size", "30", "--out", "{M}/o.json"),
    ("train-bpe", "--counts", "{W}", "--vocab-size", "30", "--out", "{D}", "--hf"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{M}/o.json"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{O}", "--report", "{M}/r.json"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{O}", "--hf-out", "{M}/h.json"),
    ("rebpe", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{D}"),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "0", "--out", "{O}"),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "-5", "--out", "{O}"),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", _HUGE[:40], "--out", "{O}"),
    ("train", "--algorithm", "nope", "--corpus", "{C}", "--vocab-size", "280", "--out", "{O}"),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "280", "--out", "{O}", "--option", "x"),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "280", "--out", "{O}", "--option", "=1"),
    (
        "train",
        "--algorithm",
        "bpe",
        "--corpus",
        "{C}",
        "--vocab-size",
        "280",
        "--out",
        "{O}",
        "--option",
        "threshold=" + "[" * 1000,
    ),
    (
        "train",
        "--algorithm",
        "bpe",
        "--corpus",
        "{C}",
        "--vocab-size",
        "280",
        "--out",
        "{O}",
        "--option",
        "threshold=" + _HUGE,
    ),
    ("train", "--algorithm", "bpe", "--corpus", "{C}", "--vocab-size", "280", "--out", "{O}", "--option", "nonsense=1"),
    ("train-bpe", "--counts", "{W}", "--vocab-size", "0", "--out", "{O}"),
    ("train-bpe", "--counts", "{W}", "--vocab-size", "30", "--min-frequency", "-1", "--out", "{O}"),
    ("graph", "--tokeniser", "{T}", "--type", "_bru", "--depth", "-1"),
    ("graph", "--tokeniser", "{T}", "--type", "_bru", "--max-nodes", "0"),
    ("graph", "--tokeniser", "{T}", "--type", "_bru", "--siblings-per-parent", "-1"),
    ("graph", "--tokeniser", "{T}", "--type", "x" * 1_000_000),
    ("blocked", "--tokeniser", "{T}", "--limit", "-1"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{O}", "--holdout", "2"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{O}", "--threshold", "nan"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{O}", "--threshold", "-1"),
    ("knockout", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{O}", "--min-vocab-size", "-1"),
    ("rebpe", "--tokeniser", "{T}", "--reference", "{R}", "--out", "{O}", "--max-iterations", "-1"),
    ("segment", "--tokeniser", "{T}", "--text", "a" * 1_000_000),
    ("segment", "--tokeniser", "{T}", "b" * 1_000_000),
    ("segment", "--tokeniser", "{T}", "--pattern", "(", "w"),
    ("segment", "--tokeniser", "hf:nonsense", "w"),
    ("segment", "--tokeniser", "hf:org/not-cached", "w"),
    ("segment", "--tokeniser", "", "w"),
    ("segment", "--tokeniser", "{T}"),
    ("inspect", "--tokeniser", "{T}", "--pretokeniser", "nope"),
)


def edge_case_outcome(args: tuple[str, ...], folder: Path, valid: dict[str, str]) -> tuple[str, str]:
    """(outcome, detail) of one of CLI_EDGE_CASES: "clean" is exit status 2 with an error of at
    most MAX_MESSAGE_CHARS characters, "loaded" is 0."""
    case = Path(tempfile.mkdtemp(dir=folder))
    (case / "folder").mkdir()
    (case / "out").mkdir()
    (case / "empty").write_bytes(b"")
    (case / "binary").write_bytes(bytes(range(256)) * 4)
    (case / "long").write_bytes(b"a" * 1_000_000 + b"\n")
    paths = {
        "M": case / "missing",
        "D": case / "folder",
        "E": case / "empty",
        "B": case / "binary",
        "L": case / "long",
        "O": case / "out" / "o.json",
        **valid,
    }
    code, error = run_cli([a.format(**paths) for a in args])
    if code == 0:
        return "loaded", ""
    if code != 2 or error is None:
        return "crash", error or f"exit status {code}"
    return ("unclear", f"message of {len(error):,} characters") if len(error) > MAX_MESSAGE_CHARS else ("clean", "")
