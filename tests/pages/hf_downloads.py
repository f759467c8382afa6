"""What the pages' HF export downloads hold, read back in AppTest (which cannot download): every file
a download button registers while :func:`captured_downloads` is open, by file name, and the checks
the stepper's and the type removal's tests share on an exported HF folder."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from unittest.mock import patch

from streamlit.runtime.media_file_manager import MediaFileManager
from tokenizers import Tokenizer


@contextmanager
def captured_downloads() -> Iterator[dict[str, Callable[[], bytes | str]]]:
    """``{file name: what the download gives}`` for every download button drawn inside (deferred
    data is called only when read, as a click would)."""
    seen: dict[str, Callable[[], bytes | str]] = {}
    add, add_deferred = MediaFileManager.add, MediaFileManager.add_deferred

    def static(self, data, mimetype, coordinates, file_name=None, **kwargs):
        seen[file_name] = lambda: data
        return add(self, data, mimetype, coordinates, file_name, **kwargs)

    def deferred(self, data, mimetype, coordinates, file_name=None, **kwargs):
        seen[file_name] = data
        return add_deferred(self, data, mimetype, coordinates, file_name, **kwargs)

    with patch.object(MediaFileManager, "add", static), patch.object(MediaFileManager, "add_deferred", deferred):
        yield seen


def unzipped(data: bytes) -> dict[str, str]:
    """The files of a zipped folder by name (the folder left out); exactly one folder."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        assert len({name.split("/")[0] for name in names}) == 1, names
        return {name.split("/", 1)[1]: archive.read(name).decode("utf-8") for name in names}


def assert_hf_agrees(folder: dict[str, str], tokeniser, words: Iterable[str]) -> Tokenizer:
    """The folder's tokenizer.json loads in HF ``tokenizers``, holds ``tokeniser``'s ids and
    segments every word (as in running text) as ``tokeniser`` does; returns the HF tokenizer."""
    hf = Tokenizer.from_str(folder["tokenizer.json"])
    assert hf.get_vocab() == tokeniser.token_ids()
    for word in words:
        assert hf.encode(" " + word, add_special_tokens=False).tokens == list(tokeniser.tokenise_word(word)), word
    return hf
