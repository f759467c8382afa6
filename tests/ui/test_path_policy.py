"""Loading by path reads only inside the folders the server allows (``ui.path_policy``, issue 32 point 1):
off by default; paths outside, links out of an allowed folder, FIFOs and devices refused before any file
is opened, and no refusal quotes a file's content."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core.errors import InputError
from core.formats.samples import DUTCH_40K, scenario_paths
from tests.apptest_support import assert_clean, run_page
from ui.path_policy import ENV, allowed_folders, check_allowed

SECRET = "machine example.com login alice password hunter2"


@pytest.fixture
def allowed(tmp_path, monkeypatch) -> Path:
    """An allowed folder holding a copy of a scenario tokeniser, and a secret outside it."""
    folder = tmp_path / "allowed"
    folder.mkdir()
    shutil.copy(scenario_paths()["a1_scenario2a"], folder / "scenario.json")
    (tmp_path / ".netrc").write_text(SECRET + "\n")
    monkeypatch.setenv(ENV, str(folder))
    return folder


def refusal(spec: str, companions: tuple[str, ...] = ()) -> str:
    with pytest.raises(InputError) as caught:
        check_allowed(spec, companions)
    return str(caught.value)


def test_off_unless_folders_are_allowed(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert allowed_folders() == ()
    for spec in (str(DUTCH_40K), "/etc/hosts", "hf:openai-community/gpt2"):
        assert "loading by path or hf: id is off" in refusal(spec)
    monkeypatch.setenv(ENV, "/no/such/folder")  # a folder that does not exist allows nothing
    assert allowed_folders() == ()


@pytest.mark.parametrize("outside", ["/etc/passwd", "/etc/hosts", "/proc/self/environ", "~/.ssh/known_hosts"])
def test_server_files_outside_the_allowed_folders_are_refused(allowed, outside):
    message = refusal(outside)
    assert "outside the folders this server may read" in message and ENV in message
    assert "root:" not in message and "PATH=" not in message  # nothing of the file's content


def test_a_secret_beside_the_allowed_folder_is_never_quoted(allowed, tmp_path):
    message = refusal(str(tmp_path / ".netrc"))
    assert "outside" in message and "hunter2" not in message
    assert "outside" in refusal(str(allowed / ".." / ".netrc"))  # .. is resolved first


def test_links_out_of_an_allowed_folder_are_refused(allowed, tmp_path):
    (allowed / "link.json").symlink_to(tmp_path / ".netrc")
    assert "outside" in refusal(str(allowed / "link.json"))
    model = allowed / "model"
    model.mkdir()
    (model / "tokenizer.json").symlink_to(tmp_path / ".netrc")  # what loading the folder would read
    assert "links outside" in refusal(str(model))
    (allowed / "vocab.json").symlink_to(tmp_path / ".netrc")  # a companion file loading reads too
    assert "links outside" in refusal(str(allowed / "scenario.json"), ("vocab.json",))


def test_fifos_and_devices_are_never_opened(allowed, monkeypatch):
    fifo = allowed / "merges.txt"
    os.mkfifo(fifo)
    assert "not a regular file" in refusal(str(fifo))  # returns at once: a FIFO opened would block
    monkeypatch.setenv(ENV, os.pathsep.join([str(allowed), "/dev"]))
    assert "not a regular file" in refusal("/dev/zero")


def test_files_inside_pass(allowed):
    check_allowed(str(allowed / "scenario.json"))
    check_allowed(str(allowed))  # a folder without a tokeniser file: loading says so, not the policy


def test_hf_ids_need_the_hugging_face_cache_allowed(allowed, tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    snapshot = cache / "models--org--name" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    assert "Hugging Face cache is not among" in refusal("hf:org/name")
    monkeypatch.setenv(ENV, os.pathsep.join([str(allowed), str(cache)]))
    check_allowed("hf:org/name")


def test_the_workspace_refuses_a_path_outside_and_keeps_the_tokeniser(allowed):
    at = run_page("pages/workspace.py", timeout=90, via_app=True, tokeniser="a1_scenario1")
    before = at.selectbox(key="ws_tokeniser").value
    for spec in ("/etc/passwd", str(allowed.parent / ".netrc")):
        at.text_input(key="ws_path").set_value(spec)
        at.button(key="ws_path_load").click().run()
        assert not at.exception
        shown = " ".join(e.value for e in at.error)
        assert "outside the folders this server may read" in shown and "hunter2" not in shown and "root:" not in shown
        assert at.selectbox(key="ws_tokeniser").value == before
    at.text_input(key="ws_path").set_value(str(allowed / "scenario.json"))
    at.button(key="ws_path_load").click().run()
    assert_clean(at)
    assert at.selectbox(key="ws_tokeniser").value.startswith("path: ")


def test_the_workspace_says_how_to_allow_paths_when_off(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    at = run_page("pages/workspace.py", timeout=90, via_app=True)
    assert_clean(at)
    assert at.text_input(key="ws_path").disabled and at.button(key="ws_path_load").disabled
    assert any("Loading by path is off" in c.value and ENV in c.value for c in at.caption)
