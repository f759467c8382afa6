"""Shared test helpers: random merge lists and the HF BPE model built from them."""

from __future__ import annotations

from hypothesis import strategies as st

ALPHABET = "abcd"
WORDS = st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=14), min_size=1, max_size=6)


@st.composite
def merge_lists(draw, shuffle=True):
    """Random binary merge lists over "abcd", built in training order (parts precede merges);
    with ``shuffle`` sometimes permuted, so lists out of training order are covered too."""
    types = list(ALPHABET)
    merges = []
    for _ in range(draw(st.integers(1, 14))):
        left, right = draw(st.sampled_from(types)), draw(st.sampled_from(types))
        if (left, right) not in merges:
            merges.append((left, right))
            if left + right not in types:
                types.append(left + right)
    if shuffle and draw(st.booleans()):
        merges = draw(st.permutations(merges))
    return merges


def hf_bpe(alphabet, merges):
    """HF `tokenizers` BPE with exactly these merges, splitting on whitespace."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {}
    for t in [*alphabet, *("".join(m) for m in merges)]:
        vocab.setdefault(t, len(vocab))
    hf = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m) for m in merges], dropout=None))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return hf
