"""Unigram ([unigram]): lattices against brute force, the EM step and prune loss of
tests/fixtures/TEST_VECTORS.md V9, SentencePiece's finalisation and segmentations (V11), training, the saved
format, sampling and bad input."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import math
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.counting.corpus import TrainingCorpus
from core.errors import InputError
from core.families.unigram import SENTENCEPIECE, Lattice, UnigramTokeniser, train
from core.families.unigram.batch import Lattices
from core.families.unigram.options import UnigramOptions
from core.families.unigram.trainer import Trainer, corpus_statistics, digamma
from core.pipeline import Metaspace, WhitespaceSplit
from tests.conftest import FIXTURES


# --- brute force ----------------------------------------------------------------------------------
def segmentations(word: str):
    """Every way to cut ``word`` into non-empty pieces."""
    for cuts in itertools.product((False, True), repeat=len(word) - 1):
        pieces, start = [], 0
        for i, cut in enumerate(cuts, 1):
            if cut:
                pieces.append(word[start:i])
                start = i
        yield [*pieces, word[start:]]


def scored(word: str, pieces: dict[str, float]):
    """(segmentation, log P) for every segmentation using only ``pieces``."""
    return [(seg, sum(pieces[p] for p in seg)) for seg in segmentations(word) if all(p in pieces for p in seg)]


@st.composite
def vocab_and_word(draw):
    """Random log-probabilities for every character of "abc" plus some longer pieces, and a word."""
    alphabet = "abc"
    logp = st.floats(-6.0, -0.05)
    pieces = {ch: draw(logp) for ch in alphabet}
    for piece in draw(st.lists(st.text(alphabet, min_size=2, max_size=4), max_size=8)):
        pieces[piece] = draw(logp)
    return pieces, draw(st.text(alphabet, min_size=1, max_size=8))


def build(word, pieces):
    return Lattice.build(word, pieces.get, max(map(len, pieces)), min(pieces.values()) - 10)


# --- lattice: Viterbi, n-best, forward-backward ---------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(vocab_and_word())
def test_viterbi_and_nbest_are_optimal(case):
    pieces, word = case
    lattice = build(word, pieces)
    path, score = lattice.viterbi()
    brute = sorted((s for _, s in scored(word, pieces)), reverse=True)
    assert "".join(a.token for a in path) == word and all(a.token in pieces for a in path)
    assert score == pytest.approx(brute[0]) and sum(a.log_prob for a in path) == pytest.approx(score)
    best = lattice.nbest(4)
    assert [s for _, s in best] == pytest.approx(brute[:4])
    assert len({tuple(a.token for a in p) for p, _ in best}) == len(best)


@settings(max_examples=150, deadline=None)
@given(vocab_and_word())
def test_forward_backward_against_brute_force(case):
    pieces, word = case
    lattice = build(word, pieces)
    paths = scored(word, pieces)
    z = sum(math.exp(s) for _, s in paths)
    assert lattice.log_partition() == pytest.approx(math.log(z))
    assert lattice.backward()[0] == pytest.approx(math.log(z))
    # arc marginals = posterior probability that the arc is on the path
    for arc, marginal in zip(lattice.arcs, lattice.arc_marginals(), strict=True):
        inside = sum(math.exp(s) for seg, s in paths if arc.token in seg and _has_arc(seg, arc.start, arc.end))
        assert marginal == pytest.approx(inside / z, abs=1e-9)
    # boundary marginals: brute force, arcs ending there, expected number of tokens
    boundary = lattice.boundary_marginals()
    for j in range(len(word) + 1):
        brute = sum(math.exp(s) for seg, s in paths if j in _cuts(seg)) / z
        assert boundary[j] == pytest.approx(brute, abs=1e-9)
        ending = sum(m for a, m in zip(lattice.arcs, lattice.arc_marginals(), strict=True) if a.end == j)
        assert ending == pytest.approx(boundary[j] if j else 0.0, abs=1e-9)
    expected_tokens = sum(len(seg) * math.exp(s) for seg, s in paths) / z
    assert sum(boundary[1:]) == pytest.approx(expected_tokens)


def _cuts(seg):
    return set(itertools.accumulate([0] + [len(p) for p in seg]))


def _has_arc(seg, start, end):
    cuts = list(itertools.accumulate([0] + [len(p) for p in seg]))
    return any(a == start and b == end for a, b in itertools.pairwise(cuts))


def test_viterbi_tie_takes_the_longest_last_token():
    pieces = {"a": math.log(0.5), "b": math.log(0.5), "ab": 2 * math.log(0.5)}
    path, _ = build("ab", pieces).viterbi()
    assert [a.token for a in path] == ["ab"]


@settings(max_examples=60, deadline=None)
@given(vocab_and_word(), st.integers(0, 2**32 - 1))
def test_sampling_with_large_alpha_is_viterbi(case, seed):
    pieces, word = case
    lattice = build(word, pieces)
    brute = sorted((s for _, s in scored(word, pieces)), reverse=True)
    if len(brute) > 1 and brute[0] - brute[1] < 1e-3:
        return  # near-tie: the limit is a mixture
    viterbi = [a.token for a in lattice.viterbi()[0]]
    assert [a.token for a in lattice.sample(1e5, random.Random(seed))] == viterbi


def test_sampling_frequencies_follow_the_distribution():
    pieces = {"a": math.log(0.3), "b": math.log(0.3), "ab": math.log(0.4), "c": math.log(0.1)}
    lattice = build("abc", pieces)
    rng = random.Random(7)
    draws = [tuple(a.token for a in lattice.sample(1.0, rng)) for _ in range(4000)]
    z = 0.4 * 0.1 + 0.3 * 0.3 * 0.1
    assert draws.count(("ab", "c")) / len(draws) == pytest.approx(0.04 / z, abs=0.03)
    uniform = [tuple(a.token for a in lattice.sample(0.0, rng)) for _ in range(4000)]
    assert uniform.count(("ab", "c")) / len(uniform) == pytest.approx(0.5, abs=0.03)


# --- the vectorised lattices used in training equal the per-word ones -----------------------------
@settings(max_examples=60, deadline=None)
@given(
    vocab_and_word(),
    st.lists(st.text("abc", min_size=1, max_size=9), min_size=1, max_size=8),
    st.integers(1, 40),
    st.booleans(),
)
def test_batch_lattices_equal_single_lattices(case, words, batch_nodes, whole):
    """Posteriors, log Z and Viterbi paths of the batched lattices (any batch size, with or
    without the arcs that span a whole string) equal those of one lattice per word."""
    pieces = case[0]
    ids = {p: i for i, p in enumerate(pieces)}
    words = list(dict.fromkeys(words))
    lattices = Lattices(words, ids, max(map(len, pieces)), whole=whole, batch_nodes=batch_nodes)
    score = np.array(list(pieces.values()))
    weight = np.arange(1.0, len(words) + 1)
    expected, log_z = lattices.marginals(score, weight)
    best, owners, path_pieces = lattices.viterbi(score)
    brute = np.zeros(len(pieces))
    tokens = list(pieces)
    for k, word in enumerate(words):
        if not whole and len(word) == 1:  # its only arc spans it
            assert log_z[k] == best[k] == -math.inf and k not in owners
            continue
        lattice = build(word, {p: s for p, s in pieces.items() if whole or p != word})
        assert log_z[k] == pytest.approx(lattice.log_partition())
        for arc, marginal in zip(lattice.arcs, lattice.arc_marginals(), strict=True):
            brute[ids[arc.token]] += weight[k] * marginal
        path, logp = lattice.viterbi()
        assert [tokens[p] for p in path_pieces[owners == k][::-1]] == [a.token for a in path]
        assert best[k] == pytest.approx(logp)
    assert expected == pytest.approx(brute)


def test_dropped_arcs_are_gone_from_every_pass():
    """``keep`` drops the arcs of pieces and strings for good: later passes see neither."""
    pieces = {"a": math.log(0.3), "b": math.log(0.3), "ab": math.log(0.4)}
    lattices = Lattices(["ab", "abab", "b"], {p: i for i, p in enumerate(pieces)}, 2, batch_nodes=3)
    assert lattices.n_arcs == 3 + 6 + 1
    lattices.keep(np.array([True, True, False]), np.array([True, True, False]))
    assert lattices.n_arcs == 2 + 4
    score = np.array(list(pieces.values()))
    _, log_z = lattices.marginals(score, np.ones(3))
    assert log_z == pytest.approx([2 * math.log(0.3), 4 * math.log(0.3), -math.inf])
    lattices.keep(np.array([True, True, True]))  # nothing more to drop: dropped arcs stay dropped
    assert lattices.n_arcs == 2 + 4
    lattices.keep(np.array([True, False, True]))
    assert lattices.n_arcs == 1 + 2
    lattices.keep(np.array([True, False, True]))
    assert lattices.n_arcs == 1 + 2


# --- V9: one EM step and the prune loss by hand ---------------------------------------------------
def v9_trainer(**options):
    seed = {"a": math.log(0.2), "b": math.log(0.3), "ab": math.log(0.5)}
    return Trainer({"ab": 10}, seed, UnigramOptions(**options))


def test_v9_e_step():
    trainer = v9_trainer()
    stats = trainer.e_step()
    a, b, ab = (trainer.ids[p] for p in ("a", "b", "ab"))
    assert stats.expected[ab] == pytest.approx(8.928571, abs=1e-6)
    assert stats.expected[a] == stats.expected[b] == pytest.approx(1.071429, abs=1e-6)
    assert stats.objective == pytest.approx(0.289909, abs=1e-6)  # per atomic token (Eq. 2)
    assert stats.objective * 2 == pytest.approx(0.579818, abs=1e-6)  # per word: -log 0.56
    assert stats.tokens == 10  # Viterbi = [ab]


def test_v9_m_step_digamma_and_maximum_likelihood():
    trainer = v9_trainer()
    trainer.m_step(trainer.e_step().expected)
    logp = trainer.vocabulary()
    assert logp["ab"] == pytest.approx(-0.226315, abs=1e-6)
    assert logp["a"] == logp["b"] == pytest.approx(-2.824011, abs=1e-6)
    mle = v9_trainer(digamma=False)
    mle.m_step(mle.e_step().expected)
    assert mle.vocabulary()["ab"] == pytest.approx(-0.215111, abs=1e-6)
    assert mle.vocabulary()["a"] == pytest.approx(-2.335375, abs=1e-6)


def test_v9_prune_loss():
    trainer = v9_trainer()
    loss, candidate = trainer.pruning_losses()
    assert list(candidate) == [False, False, True]  # a, b are characters: required
    assert loss[trainer.ids["ab"]] == pytest.approx(1.386294, abs=1e-6)


def test_digamma_values():
    x = np.array([0.01, 0.5, 1.0, 2.5, 7.0, 1e6])
    euler = 0.5772156649015329
    expected = [
        -100.56088545786867,
        -euler - 2 * math.log(2),
        -euler,
        0.7031566406452432,
        1.8727843350984671,
        13.815510057964275,
    ]
    assert digamma(x) == pytest.approx(expected, rel=1e-12)


# --- V11: SentencePiece (tests/fixtures/spm_unigram_*.txt) ----------------------------------------
def read_spm_output(name):
    """(pieces with scores, [(count, word, segmentation)], per-word and per-char marginal NLL)."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    pieces = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].isdigit():
            pieces[parts[1]] = float(parts[2])
    rows = [(int(c), seg.split()) for c, seg in re.findall(r"^#   (\d+)\t(.+)$", text, re.MULTILINE)]
    nll = re.search(r"marginal NLL: per word=(\S+)  per char=(\S+)", text)
    tokens = int(re.search(r"viterbi token count: ours=(\d+)", text).group(1))
    return pieces, rows, float(nll.group(1)), float(nll.group(2)), tokens


@pytest.mark.parametrize(
    "name",
    [
        "spm_unigram_sennrich_tsv.txt",
        "spm_unigram_hug_tsv.txt",
        "spm_unigram_cats_text.txt",
        "spm_unigram_ab_degenerate.txt",
    ],
)
def test_v11_segmentations_and_nll_of_sentencepiece_models(name):
    pieces, rows, nll_word, nll_char, tokens = read_spm_output(name)
    tokeniser = UnigramTokeniser(pieces, Metaspace())
    counts = {}
    for count, seg in rows:
        word = "".join(seg)
        assert list(tokeniser.segment_pretoken(word)) == seg
        counts[word] = count
    objective, n_tokens = corpus_statistics(tokeniser, counts)
    words, chars = sum(counts.values()), sum(c * len(w) for w, c in counts.items())
    assert n_tokens == tokens
    assert objective == pytest.approx(nll_char, abs=2e-6)
    assert objective * chars / words == pytest.approx(nll_word, abs=2e-6)


def test_v11_degenerate_em_and_finalisation_as_sentencepiece():
    # SentencePiece 0.2.3 on "ab"x10, vocab 8: seeds a b ▁ (count 10 each), ▁ab, ab (freq x len);
    # EM sizes 3 then 1 (obj 0.89599, 0.165312 per word); finalise puts the characters back at
    # min_score + k * 1e-4 in frequency order (a, b, ▁), so "ab" encodes as [▁ a b].
    scores = {"a": 10, "b": 10, "▁": 10, "▁ab": 30, "ab": 20}
    total = sum(scores.values())
    trainer = Trainer({"▁ab": 10}, {p: math.log(s / total) for p, s in scores.items()}, UnigramOptions(**SENTENCEPIECE))
    sizes, objectives = [], []
    for _ in range(2):
        stats = trainer.e_step()
        trainer.m_step(stats.expected)
        sizes.append(trainer.size)
        objectives.append(stats.objective * 3)  # per word: 3 characters per word
    assert sizes == [3, 1]
    assert objectives == pytest.approx([0.89599, 0.165312], abs=1e-5)
    trainer.finalise(5)
    assert trainer.vocabulary() == pytest.approx({"▁": 2e-4, "b": 1e-4, "a": 0.0, "▁ab": 0.0})
    assert UnigramTokeniser(trainer.vocabulary(), Metaspace()).tokenise("ab") == ["▁", "a", "b"]


def test_v11_required_characters_are_never_dropped_by_default():
    corpus = TrainingCorpus.from_word_counts({"ab": 10}, Metaspace())
    run = train(corpus, 4)
    assert run.tokeniser.vocabulary == {"▁", "a", "b", "▁ab"}
    assert run.tokeniser.tokenise("ab") == ["▁ab"]


# --- training -------------------------------------------------------------------------------------
SENTENCES = [
    "the cat sat on the mat",
    "the dog sat on the log",
    "a cat and a dog sat together",
    "the cats sat on the mats",
    "dogs and cats are not logs",
] * 4


@pytest.mark.parametrize(
    ("options", "size"),
    [
        ({}, 24),
        ({"pruning": "fsp"}, 24),
        # the M-step leaves 19 pieces; SentencePiece 0.2.3 still prunes (the 2 unused ones) before
        # finalising, which puts back 6 dropped characters: 23, fewer than asked (hard_vocab_limit off)
        (SENTENCEPIECE, 23),
        ({**SENTENCEPIECE, "stop_check": "after_em"}, 24),
        ({"seed_recovery": True}, 24),
        ({"size_basis": "additional", "digamma": False, "em_iterations": 1}, 24),
    ],
)
def test_training_run(options, size):
    corpus = TrainingCorpus.from_texts(SENTENCES, Metaspace())
    progress = []
    run = train(corpus, 24, progress=lambda done, total: progress.append((done, total)), **options)
    tok = run.tokeniser
    assert tok.kind == "unigram" and tok.vocab_size == size
    assert set("".join(corpus.pretoken_counts)) <= tok.vocabulary
    rounds = run.summary["rounds"]
    assert rounds and all(set(r) == {"vocab_size", "objective", "tokens"} for r in rounds)
    assert rounds[-1]["vocab_size"] == size
    round_events = [e for e in run.events if e.kind == "round"]
    assert [e.detail for e in round_events] == rounds
    objective, tokens = corpus_statistics(tok, corpus.pretoken_counts)
    assert (run.summary["objective"], run.summary["tokens"]) == pytest.approx((objective, tokens))
    assert tokens == sum(c * len(tok.segment_pretoken(w)) for w, c in corpus.pretoken_counts.items())
    by_hand = -sum(c * build(w, tok.pieces).log_partition() for w, c in corpus.pretoken_counts.items())
    assert objective == pytest.approx(by_hand / sum(c * len(w) for w, c in corpus.pretoken_counts.items()))
    assert progress[-1][0] == progress[-1][1] > 0  # every piece beyond the target removed


def test_sentencepiece_0_2_3_stops_after_the_pruning_step():
    # Alg. 1 runs EM once more after the pruning step that reaches n_inter = 26; SentencePiece 0.2.3
    # finalises right after it, from the scores of the EM before (TrainDiscretePruning)
    corpus = TrainingCorpus.from_texts(SENTENCES, Metaspace())
    runs = {stop: train(corpus, 24, stop_check=stop) for stop in ("after_em", "after_prune")}
    labels = {stop: [e.label for e in run.events] for stop, run in runs.items()}
    last_prune = labels["after_em"].index("loss prune 30 -> 26")
    assert labels["after_prune"][: last_prune + 1] == labels["after_em"][: last_prune + 1]
    assert labels["after_em"][last_prune + 1 : -2] == ["EM 2.1", "EM 2.2"]
    assert labels["after_prune"][last_prune + 1 :] == ["finalise 26 -> 24", "final"]
    assert runs["after_em"].tokeniser.pieces != runs["after_prune"].tokeniser.pieces
    assert SENTENCEPIECE["stop_check"] == "after_prune"


def test_em_never_raises_the_objective():
    # plain EM (maximum-likelihood M-step, no early prune) cannot increase the marginal NLL
    corpus = TrainingCorpus.from_texts(SENTENCES, Metaspace())
    run = train(corpus, 30, em_iterations=5, max_rounds=1, digamma=False, min_expected_count=0.0)
    objectives = [r["objective"] for r in run.summary["rounds"][:5]]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(objectives))
    assert objectives[0] > objectives[-1]


def test_fsp_keeps_the_required_characters_then_the_most_probable_pieces():
    seed = {"t": -1.0, "h": -1.0, "e": -1.0, "th": -3.0, "he": -2.0, "the": -4.0}
    trainer = Trainer({"the": 3}, seed, UnigramOptions(pruning="fsp"))
    trainer.prune(5)
    assert trainer.vocabulary() == {"t": -1.0, "h": -1.0, "e": -1.0, "he": -2.0, "th": -3.0}


def test_training_from_word_counts_and_tracing():
    corpus = TrainingCorpus.from_word_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3}, Metaspace())
    tok = train(corpus, 16).tokeniser
    trace = tok.trace_text("lowest newer")
    assert trace.problems() == []
    assert list(trace.tokens) == tok.tokenise("lowest newer")
    assert [e.kind for e in trace.events] == ["viterbi", "viterbi"]
    assert [lat["text"] for lat in trace.extra["lattices"]] == ["▁lowest", "▁newer"]
    lat = trace.extra["lattices"][0]
    assert [lat["arcs"][i]["token"] for i in lat["viterbi"]] == list(tok.segment_pretoken("▁lowest"))
    assert [lat["boundary_marginals"][0], lat["boundary_marginals"][-1]] == pytest.approx([1, 1])
    first = tok.segment_pretoken("▁lowest")
    assert trace.events[0].tokens == first + tuple("▁newer")
    assert tok.tokenise_word("lower") == tok.tokenise(" lower")


def test_runs_of_unknown_characters_are_one_token():
    tok = UnigramTokeniser({"a": -1.0, "b": -2.0, "ab": -1.5}, WhitespaceSplit())
    assert tok.tokenise("abxab xyb") == ["ab", "x", "ab", "xy", "b"]
    assert "x" not in tok.vocabulary
    path, _ = tok.lattice("xy").viterbi()
    assert [(a.token, a.known, a.log_prob) for a in path] == [("x", False, -12.0), ("y", False, -12.0)]
    trace = tok.trace_text("axy")
    assert trace.problems() == [] and trace.tokens == ("a", "xy")


# --- saved format ---------------------------------------------------------------------------------
def test_json_round_trip():
    corpus = TrainingCorpus.from_texts(SENTENCES, Metaspace())
    tok = train(corpus, 30).tokeniser
    obj = json.loads(json.dumps(tok.to_json()))
    assert obj["format"] == "variant:unigram" and obj["version"] == 1
    again = UnigramTokeniser.from_json(obj, "saved.json")
    assert again.pieces == tok.pieces and again.pretokeniser == tok.pretokeniser
    for line in [*SENTENCES[:5], "catalogue of dogs"]:
        assert again.tokenise(line) == tok.tokenise(line)


@pytest.mark.parametrize(
    "change, field",
    [
        ({"format": "variant:bpe"}, "format"),
        ({"version": 2}, "version"),
        ({"pieces": []}, "pieces"),
        ({"pieces": [["a", "x"]]}, "pieces"),
        ({"pieces": [["a", -1.0], ["a", -2.0]]}, "appears twice"),
        ({"pieces": [["", -1.0]]}, "pieces"),
        ({"pieces": [["a", float("nan")]]}, "pieces"),
        ({"pretokeniser": {"kind": "nope"}}, "pretokeniser"),
        ({"name": 3}, "name"),
        ({"float32": "yes"}, "float32"),
    ],
)
def test_bad_saved_files(change, field):
    obj = UnigramTokeniser({"a": -1.0, "b": -1.0}, Metaspace(), "t").to_json()
    obj.update(change)
    with pytest.raises(InputError) as err:
        UnigramTokeniser.from_json(obj, "bad.json")
    assert "bad.json" in str(err.value) and field in str(err.value)


# --- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "vocab_size, options, message",
    [
        (2, {}, "smaller than"),
        (0, {}, "vocab_size"),
        ("10", {}, "vocab_size"),
        (20, {"pruning": "random"}, "pruning"),
        (20, {"seed": "bpe"}, "seed"),
        (20, {"alpha_prune": 1.5}, "alpha_prune"),
        (20, {"alpha_inter": 0.5}, "alpha_inter"),
        (20, {"em_iterations": 0}, "em_iterations"),
        (20, {"digamma": "yes"}, "digamma"),
        (20, {"initial_alphabet": "ab"}, "initial_alphabet"),
    ],
)
def test_bad_training_input(vocab_size, options, message):
    corpus = TrainingCorpus.from_texts(SENTENCES, Metaspace())
    with pytest.raises(InputError, match=message):
        train(corpus, vocab_size, **options)


def test_train_takes_exactly_the_options():
    options = [
        p for p in inspect.signature(train).parameters.values() if p.kind is p.KEYWORD_ONLY and p.name != "progress"
    ]
    # initial_alphabet=None: the corpus's pre-tokeniser decides (all 256 bytes when byte-level)
    assert [(p.name, p.default) for p in options] == [
        (f.name, None if f.name == "initial_alphabet" else f.default) for f in dataclasses.fields(UnigramOptions)
    ]
    with pytest.raises(TypeError):
        train(TrainingCorpus.from_texts(SENTENCES, Metaspace()), 20, learning_rate=1)


def test_bad_counts_and_tokeniser_input():
    with pytest.raises(InputError):
        train(TrainingCorpus(Metaspace(), {"▁a": 0}), 5)
    with pytest.raises(InputError):
        UnigramTokeniser({}, Metaspace())
    with pytest.raises(InputError):
        UnigramTokeniser({"a": float("-inf")}, Metaspace())
    tok = UnigramTokeniser({"a": -1.0}, Metaspace())
    with pytest.raises(InputError):
        tok.sample("a", -1.0)
    with pytest.raises(InputError):
        tok.sample("a", math.inf)
    with pytest.raises(InputError):
        tok.lattice("")
    with pytest.raises(InputError):
        tok.tokenise(None)
