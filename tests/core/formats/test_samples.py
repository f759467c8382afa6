"""The shipped sample data is complete and loads offline."""

from __future__ import annotations

from core.bpe.trainer import tokeniser_from_training, train_bpe_from_text
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR, count_paths, running_text, tokeniser_paths
from core.formats.tokeniser_files import load_tokeniser
from core.pipeline import Metaspace


def test_every_shipped_tokeniser_loads_and_is_sound():
    paths = tokeniser_paths()
    assert len(paths) >= 11
    for name, path in paths.items():
        tok = load_tokeniser(path)
        assert tok.check_invariants() == [], name
        assert "".join(tok.pretokeniser.decode(tok.tokenise_word("bruidsjurk"))).strip().lower() == "bruidsjurk"


def test_word_counts_are_wordfreq_lists():
    counts = {name: load_word_counts(path) for name, path in count_paths().items()}
    assert set(counts) == {"nl_wordfreq", "en_wordfreq"}
    assert counts["nl_wordfreq"]["bruidsjurk"] == 1000 and counts["en_wordfreq"]["horseshoe"] == 1445
    assert all(len(c) == 40_000 and all(w.isalpha() for w in c) for c in counts.values())


def test_dutch_40k_ships_with_its_licence():
    assert "Apache License" in (SAMPLE_DIR / "tokenisers" / "bpe-40k_oscar-nl-clean" / "LICENSE").read_text()


def test_running_text_comes_from_the_standard_library_and_trains():
    lines = list(running_text())
    assert sum(map(len, lines)) > 300_000
    result = train_bpe_from_text(lines[:2000], Metaspace(), 400)
    tok = tokeniser_from_training(result, Metaspace())
    assert len(tok.merges) == 400 - len(result.alphabet)
    assert tok.tokenise("the statement") == ["▁the", "▁statement"]
