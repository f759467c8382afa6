"""Regenerate the derived files in sample_data/ (run by developers, not at run time).

    python scripts/make_sample_data.py counts      # wordfreq -> sample_data/counts/{nl,en}_wordfreq.tsv
    python scripts/make_sample_data.py tokenisers  # our BPE trainer on those counts -> sample_data/tokenisers/

Needs the dev requirements (wordfreq). Word counts are wordfreq's frequencies times 1e9, rounded
(pseudo-counts, see sample_data/README.md); only alphabetic entries are kept.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.bpe.trainer import tokeniser_from_training, train_bpe  # noqa: E402
from core.formats.corpora import load_word_counts, save_word_counts  # noqa: E402
from core.formats.samples import SAMPLE_DIR  # noqa: E402
from core.formats.tokeniser_files import save_tokeniser  # noqa: E402
from core.pipeline import Metaspace  # noqa: E402

WORDS_PER_LANGUAGE = 40_000
SAMPLE_VOCAB_SIZE = 4_000


def make_counts() -> None:
    import wordfreq

    for language in ("nl", "en"):
        counts = {}
        for word, freq in wordfreq.get_frequency_dict(language, "large").items():
            if word.isalpha():
                counts[word] = max(1, round(freq * 1e9))
            if len(counts) == WORDS_PER_LANGUAGE:
                break
        save_word_counts(counts, SAMPLE_DIR / "counts" / f"{language}_wordfreq.tsv")
        print(language, len(counts))


def make_tokenisers() -> None:
    for language in ("nl", "en"):
        counts = load_word_counts(SAMPLE_DIR / "counts" / f"{language}_wordfreq.tsv")
        result = train_bpe({"▁" + w: c for w, c in counts.items()}, SAMPLE_VOCAB_SIZE)
        name = f"{language}-bpe-4k-wordfreq"
        tokeniser = tokeniser_from_training(result, Metaspace(replacement="▁"), name=name)
        save_tokeniser(tokeniser, SAMPLE_DIR / "tokenisers" / f"{name}.json", hf=True)
        print(name, len(result.merges))


if __name__ == "__main__":
    {"counts": make_counts, "tokenisers": make_tokenisers}[sys.argv[1]]()
