"""The server's upload store (ui/upload_store.py): round trips, atomic writes, a size budget, and
files that are bad on disk read as "not in the store", never as an exception."""

from __future__ import annotations

import json
import os

import pytest

from core.errors import InputError
from ui import upload_store
from ui.storage import MB
from ui.upload_store import BUDGET_ENV, Upload, digest

LIMIT = 10 * MB


@pytest.fixture(autouse=True)
def store_dir(tmp_path, monkeypatch):
    """A store of its own for each test (its folder of corpora)."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    return tmp_path / "uploads" / "corpus"


def corpus(text: str, name: str = "c.txt") -> Upload:
    return Upload("corpus", ((name, text.encode()),))


def merges_pair(pretokeniser: str | None = None) -> Upload:
    return Upload(
        "tokeniser", (("merges.txt", b"a b\nab c\n"), ("vocab.json", b'{"a": 0, "b": 1, "c": 2}')), pretokeniser
    )


def test_an_upload_comes_back_as_it_went_in(store_dir):
    upload = corpus("de bruid\n", "tekst.txt")
    upload_id = upload_store.put(upload)
    assert upload_id == digest(b"de bruid\n") and upload_store.has("corpus", upload_id)
    assert upload_store.get("corpus", upload_id, LIMIT) == upload
    assert json.loads((store_dir / f"{upload_id}.json").read_text()) == {
        "kind": "corpus",
        "names": ["tekst.txt"],
        "pretokeniser": None,
    }


def test_a_merges_pair_keeps_both_files_and_its_pretokeniser(store_dir):
    inferred, metaspace = merges_pair(), merges_pair("metaspace")
    assert inferred.id == digest(b"a b\nab c\n", b'{"a": 0, "b": 1, "c": 2}')
    assert metaspace.id != inferred.id  # read another way: another entry
    for upload in (inferred, metaspace):
        assert upload_store.get("tokeniser", upload_store.put(upload), LIMIT) == upload
    sidecar = json.loads((store_dir.parent / "tokeniser" / f"{metaspace.id}.json").read_text())
    assert sidecar["names"] == ["merges.txt", "vocab.json"] and sidecar["pretokeniser"] == "metaspace"


def test_storing_the_same_file_twice_writes_it_once(store_dir):
    upload = corpus("x\n")
    upload_store.put(upload)
    written = (store_dir / f"{upload.id}.0").stat().st_ino
    upload_store.put(corpus("x\n", "other-name.txt"))
    assert (store_dir / f"{upload.id}.0").stat().st_ino == written
    assert upload_store.get("corpus", upload.id, LIMIT).files[0][0] == "c.txt"  # the first name is kept


def test_a_write_that_fails_leaves_no_entry_and_no_temporary_file(store_dir, monkeypatch):
    upload = corpus("half written\n")
    replace = os.replace

    def fail_on_sidecar(source, target):
        if str(target).endswith(".json"):
            raise OSError(28, "No space left on device")
        replace(source, target)

    monkeypatch.setattr(os, "replace", fail_on_sidecar)
    with pytest.raises(OSError):
        upload_store.put(upload)
    assert not upload_store.has("corpus", upload.id) and upload_store.get("corpus", upload.id, LIMIT) is None
    assert not list(store_dir.glob("*.tmp"))
    monkeypatch.setattr(os, "replace", replace)
    assert upload_store.get("corpus", upload_store.put(upload), LIMIT) == upload  # a later put completes it


def test_the_least_recently_used_entries_go_first(store_dir, monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "1")  # 1 MB
    third = 400 * 1024
    old, used, new = (corpus(letter * third, f"{letter}.txt") for letter in "abc")
    for age, upload in ((300, old), (200, used)):
        upload_store.put(upload)
        for path in store_dir.glob(upload.id + ".*"):
            os.utime(path, (path.stat().st_atime - age, path.stat().st_mtime - age))
    assert upload_store.get("corpus", used.id, LIMIT) == used  # reading it marks it as used
    upload_store.put(new)
    assert not upload_store.has("corpus", old.id) and not list(store_dir.glob(old.id + ".*"))
    assert upload_store.has("corpus", used.id) and upload_store.has("corpus", new.id)
    assert sum(path.stat().st_size for path in store_dir.parent.rglob("*") if path.is_file()) <= MB


def test_an_upload_over_the_whole_budget_is_refused(monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "1")
    with pytest.raises(InputError, match=f"at most 1 MB of uploads \\({BUDGET_ENV}\\)"):
        upload_store.put(corpus("x" * (MB + 1)))
    monkeypatch.setenv(BUDGET_ENV, "lots")
    with pytest.raises(InputError, match=f"{BUDGET_ENV} must be a whole number of megabytes"):
        upload_store.put(corpus("x"))


@pytest.mark.parametrize(
    "sidecar",
    [
        b"{not json",
        b"\xff\xfe\x00",
        b"[]",
        b"[" * 100_000 + b"]" * 100_000,
        json.dumps({"kind": "model-weights", "names": ["c.txt"]}).encode(),
        json.dumps({"kind": "corpus", "names": "c.txt"}).encode(),
        json.dumps({"kind": "corpus", "names": ["a", "b", "c"]}).encode(),
        json.dumps({"kind": "corpus", "names": [""]}).encode(),
        json.dumps({"kind": "corpus", "names": ["c.txt"], "pretokeniser": 3}).encode(),
    ],
)
def test_a_bad_sidecar_reads_as_absent_and_is_removed(store_dir, sidecar):
    upload_id = upload_store.put(corpus("de gids\n"))
    (store_dir / f"{upload_id}.json").write_bytes(sidecar)
    assert upload_store.get("corpus", upload_id, LIMIT) is None
    assert not list(store_dir.glob(upload_id + ".*"))


def test_changed_missing_or_oversized_files_read_as_absent(store_dir):
    changed, missing, large = corpus("one\n"), corpus("two\n"), corpus("three" * 100)
    for upload in (changed, missing, large):
        upload_store.put(upload)
    (store_dir / f"{changed.id}.0").write_bytes(b"tampered\n")
    (store_dir / f"{missing.id}.0").unlink()
    assert (
        upload_store.get("corpus", changed.id, LIMIT) is None and upload_store.get("corpus", missing.id, LIMIT) is None
    )
    assert upload_store.get("corpus", large.id, max_bytes=100) is None
    assert not list(store_dir.glob(changed.id + ".*")) and not list(store_dir.glob(missing.id + ".*"))


@pytest.mark.parametrize("upload_id", ["../../etc/passwd", "0" * 31, "0" * 33, "A" * 32, "", "upload:" + "0" * 32])
def test_only_well_formed_ids_are_looked_up(upload_id):
    assert upload_store.get("corpus", upload_id, LIMIT) is None and not upload_store.has("corpus", upload_id)


def test_a_folder_that_cannot_be_made_reads_as_empty_and_refuses_writes(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(blocker))
    upload = corpus("x\n")
    assert not upload_store.has("corpus", upload.id) and upload_store.get("corpus", upload.id, LIMIT) is None
    with pytest.raises(OSError):
        upload_store.put(upload)


def test_one_file_can_be_stored_as_two_kinds():
    text = b"bruids\tbruid s\n"
    as_corpus, as_references = Upload("corpus", (("c.txt", text),)), Upload("reference", (("r.tsv", text),))
    assert upload_store.put(as_corpus) == upload_store.put(as_references) == digest(text)
    assert upload_store.get("corpus", digest(text), LIMIT) == as_corpus
    assert upload_store.get("reference", digest(text), LIMIT) == as_references
    assert upload_store.get("tokeniser", digest(text), LIMIT) is None and not upload_store.has("model", digest(text))
