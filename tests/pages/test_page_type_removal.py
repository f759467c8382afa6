"""Removing chosen types on the Merge graph page (ui.type_removal) through AppTest: a list or the least
frequent types, with or without the cascade, bad input, and the HF export of the result."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.edits.finishing import finish
from core.edits.knockout import knock_out
from core.edits.removal import least_frequent_types
from core.formats.corpora import load_word_counts
from core.formats.samples import count_paths
from core.formats.tokeniser_files import load_tokeniser
from tests.apptest_support import assert_clean
from tests.apptest_support import run_page as run_at
from tests.pages.hf_downloads import assert_hf_agrees, captured_downloads, unzipped
from ui.workspace_choices import SAMPLE_TOKENISERS
from viz.escaping import md_escape

PAGE = "pages/merge_graph.py"
TOKENISER = "en-bpe-4k-wordfreq"
TIMEOUT = 90
pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


@pytest.fixture(scope="module")
def english():
    """The tokeniser, and words to segment: the 300 most frequent of its word counts."""
    counts = load_word_counts(count_paths()["en_wordfreq"])
    return load_tokeniser(SAMPLE_TOKENISERS[TOKENISER]), counts, sorted(counts, key=counts.get, reverse=True)[:300]


def open_page() -> AppTest:
    at = run_at(PAGE, timeout=TIMEOUT, tokeniser=TOKENISER, reference="en_morph")
    assert_clean(at)
    return at


def remove(at: AppTest, types: str, cascade: bool = False) -> AppTest:
    at.text_area(key="removal_types").input(types)
    at.checkbox(key="removal_cascade").set_value(cascade)
    return at.button(key="removal_run").click().run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_listed_types_are_removed_and_the_hf_folder_agrees_with_hf(english):
    tokeniser, _, words = english
    at = remove(open_page(), "▁the\n\n▁and\n")  # a blank line is skipped
    assert_clean(at)
    edited, _ = knock_out(tokeniser, ["▁the", "▁and"])
    assert edited.tuple_merges  # words built on them now come from tuple merges
    assert metrics(at) == {
        "|V| after": f"{tokeniser.vocab_size - 2:,}",
        "Types chosen": "2",
        "Types removed": "2",
        "Tuple merges left": f"{len(edited.tuple_merges):,}",
    }
    removed = next(df.value for df in at.dataframe if "why" in df.value.columns)
    ids = tokeniser.token_ids()
    assert removed.to_dict("records") == [
        {"type": "▁the", "id": ids["▁the"], "why": "chosen"},
        {"type": "▁and", "id": ids["▁and"], "why": "chosen"},
    ]
    assert at.radio(key="removal_hf_finish").value == "cascade"
    with captured_downloads() as files:
        at = at.button(key="removal_hf_prepare").click().run()
    assert_clean(at)
    finished, finishing = finish(edited, "cascade")
    assert metrics(at)["|V| after finishing"] == f"{finished.vocab_size:,}"
    assert "F1 after finishing (%)" in metrics(at)  # on the workspace reference, en_morph
    cost = next(c.value for c in at.caption if c.value.startswith("Finishing cost"))
    assert md_escape(finishing.summary()) in cost
    zipped = next(name for name in files if name.endswith("-hf.zip"))
    hf = assert_hf_agrees(unzipped(files[zipped]()), finished, words)
    vocab = hf.get_vocab()
    assert "▁the" not in vocab and all(ids[token] == i for token, i in vocab.items())  # kept ids kept
    assert hf.encode(" the", add_special_tokens=False).tokens == list(finished.tokenise_word("the"))


def test_the_cascade_leaves_no_tuple_merge_and_exports_at_once(english):
    tokeniser, _, words = english
    with captured_downloads() as files:
        at = remove(open_page(), "▁the", cascade=True)
    assert_clean(at)
    edited, edit = knock_out(tokeniser, ["▁the"], cascade=True)
    assert len(edit.types_removed) > 1  # ▁the and every type built on it
    assert metrics(at)["Types removed"] == f"{len(edit.types_removed):,}"
    assert metrics(at)["Tuple merges left"] == "0"
    assert not [b for b in at.button if b.key == "removal_hf_prepare"]  # nothing to finish
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Tokeniser after the removal (HF tokenizer.json)" in labels
    assert "Tokeniser after the removal (project JSON)" in labels
    zipped = next(name for name in files if name.endswith("-hf.zip"))
    assert_hf_agrees(unzipped(files[zipped]()), edited, words)


def test_an_unknown_or_alphabet_type_is_an_error_and_the_last_removal_stays(english):
    tokeniser, _, _ = english
    at = remove(open_page(), "▁the")
    assert metrics(at)["|V| after"] == f"{tokeniser.vocab_size - 1:,}"
    at = remove(at, "▁and\nno-such-type")
    assert not at.exception
    (error,) = at.error
    assert "types to remove\\:2\\:" in error.value and "no\\-such\\-type" in error.value
    assert "is not a type of" in error.value
    assert metrics(at)["|V| after"] == f"{tokeniser.vocab_size - 1:,}"  # the last removal that worked
    assert at.session_state["ws_tokeniser"] == TOKENISER  # what the user loaded stays loaded
    alphabet_type = tokeniser.alphabet[0]
    at = remove(at, alphabet_type)
    (error,) = at.error
    assert "alphabet type" in error.value and "types to remove\\:1\\:" in error.value


def test_the_least_frequent_types_go_until_the_size_asked(english):
    tokeniser, counts, _ = english
    at = open_page()
    at.radio(key="removal_mode").set_value("the least frequent").run()
    at.selectbox(key="removal_counts").set_value("en_wordfreq")
    at.number_input(key="removal_size").set_value(3_900)
    at = at.button(key="removal_run").click().run()
    assert_clean(at)
    chosen = least_frequent_types(tokeniser, counts, 3_900)
    assert len(chosen) == 100
    assert metrics(at)["|V| after"] == "3,900" and metrics(at)["Types chosen"] == "100"
    removed = next(df.value for df in at.dataframe if "why" in df.value.columns)
    assert set(removed["type"]) == set(chosen)
