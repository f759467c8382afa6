"""The public Python API checks its arguments (issue 32 point 4): a wrong type or value raises
InputError naming the argument, never an AttributeError or KeyError from deep inside, and nothing
returns a made-up result (an F1 on 0 words, a knockout of a string's characters)."""

from __future__ import annotations

import random
import time

import pytest

import core
from core.errors import InputError
from core.families.registry import training_corpus
from core.formats.samples import SAMPLE_DIR, reference_paths, tokeniser_paths
from core.pipeline.named import named_pretokeniser
from core.references.files import ReferenceEntry
from core.tokeniser import CapabilityError


@pytest.fixture(scope="module")
def bpe():
    return core.load_tokeniser(tokeniser_paths()["nl-bpe-4k-wordfreq"])


@pytest.fixture(scope="module")
def unigram():
    return core.train("unigram", {"hello": 5, "world": 3, "help": 2, "held": 4, "word": 2}, 300).tokeniser


@pytest.fixture(scope="module")
def entries():
    return core.load_references(reference_paths()["nl_morph"]).entries[:40]


NOT_TOKENISERS = [None, "tokenizer.json", ["a", "b"], {"kind": "bpe"}, 3, object()]


@pytest.mark.parametrize("value", NOT_TOKENISERS, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize(
    "call",
    [
        lambda t, e, p: core.summarise(t),
        lambda t, e, p: core.require(t, "merge_graph", "my_function"),
        lambda t, e, p: core.run_knockout(t, e),
        lambda t, e, p: core.run_rebpe(t, e),
        lambda t, e, p: core.knock_out(t, ["▁de"]),
        lambda t, e, p: core.neighbourhood(t, "▁de"),
        lambda t, e, p: core.save_tokeniser(t, p / "out.json"),
        lambda t, e, p: core.evaluate_morphology(t, e),
    ],
    ids=["summarise", "require", "run_knockout", "run_rebpe", "knock_out", "neighbourhood", "save", "evaluate"],
)
def test_what_is_no_tokeniser_is_refused_naming_the_argument(call, value, entries, tmp_path):
    with pytest.raises(InputError, match="tokeniser must be a tokeniser .*got " + type(value).__name__):
        call(value, entries, tmp_path)
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    "call",
    [
        lambda t, e: core.run_knockout(t, e),
        lambda t, e: core.knock_out(t, ["he"]),
        lambda t, e: core.neighbourhood(t, "he"),
        lambda t, e: core.require(t, "merge_graph", "my_function"),
    ],
    ids=["run_knockout", "knock_out", "neighbourhood", "require"],
)
def test_a_unigram_tokeniser_is_refused_where_a_merge_graph_is_needed(call, unigram, entries):
    with pytest.raises(CapabilityError, match=r"needs a merge graph.*the unigram tokeniser"):
        call(unigram, entries)


def test_a_unigram_tokeniser_is_summarised_evaluated_and_saved(unigram, entries, tmp_path):
    assert core.summarise(unigram)["family"] == "unigram"
    assert core.evaluate_morphology(unigram, entries).words > 0
    core.save_tokeniser(unigram, tmp_path / "u.json")
    assert core.load_tokeniser(tmp_path / "u.json").vocabulary == unigram.vocabulary


@pytest.mark.parametrize("references", [[], (), iter([])])
def test_no_reference_words_is_an_error_not_a_perfect_score(bpe, references):
    with pytest.raises(InputError, match="no reference words to evaluate"):
        core.evaluate_morphology(bpe, references)


def test_reference_words_all_left_out_is_an_error_saying_why(bpe):
    unknown_free = [ReferenceEntry("bruidsjurk", ("bruid", "s", "jurk"))]  # free morphs not known
    assert core.evaluate_morphology(bpe, unknown_free).words == 1
    with pytest.raises(InputError, match="no reference words to evaluate; with free=True"):
        core.evaluate_morphology(bpe, unknown_free, free=True)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t, e: core.run_knockout(t, []), "reference_entries: no reference words"),
        (lambda t, e: core.run_rebpe(t, e, evaluation_entries=[]), "evaluation_entries: no reference words"),
        (lambda t, e: core.evaluate_morphology(t, "bruidsjurk"), "references must be an iterable .*one string"),
        (lambda t, e: core.evaluate_morphology(t, ["bruidsjurk"]), "references must hold only ReferenceEntry"),
        (lambda t, e: core.evaluate_morphology(t, None), "references must be an iterable .*NoneType"),
        (lambda t, e: core.evaluate_morphology(t, e, free="yes"), "free must be true or false"),
        (lambda t, e: core.run_knockout(t, e, config="fast"), "config must be a KnockoutConfig, got str"),
        (lambda t, e: core.run_rebpe(t, e, core.KnockoutConfig()), "config must be a ReBPEConfig"),
    ],
)
def test_reference_and_config_arguments_are_checked(bpe, entries, call, message):
    with pytest.raises(InputError, match=message):
        call(bpe, entries)


@pytest.mark.parametrize("weight", [float("nan"), -1, 0, float("inf"), "10", None, True])
@pytest.mark.parametrize("function", ["evaluate_morphology", "run_knockout"])
def test_weights_must_be_positive_numbers(bpe, entries, function, weight):
    word = entries[0].word
    with pytest.raises(InputError, match=rf"weights\['{word}'\] must be a number > 0.0 and < inf"):
        getattr(core, function)(bpe, entries, weights={word: weight})


def test_weights_must_be_a_mapping_of_words(bpe, entries):
    with pytest.raises(InputError, match="weights must be a mapping"):
        core.evaluate_morphology(bpe, entries, weights=[1, 2])
    with pytest.raises(InputError, match="weights must map words"):
        core.evaluate_morphology(bpe, entries, weights={1: 2})


def test_positive_weights_still_weigh(bpe, entries):
    word = entries[0].word
    plain = core.evaluate_morphology(bpe, entries)
    weighted = core.evaluate_morphology(bpe, entries, weights={word: 2.5})
    assert weighted.words == plain.words
    assert weighted.tp + weighted.fp + weighted.fn > plain.tp + plain.fp + plain.fn


def test_knock_out_refuses_one_string_and_says_to_pass_a_list(bpe):
    assert "▁de" in bpe.types
    with pytest.raises(
        InputError, match=r"types must be an iterable of types \(str\), got one string '▁de': pass a list"
    ):
        core.knock_out(bpe, "▁de")
    knocked, edit = core.knock_out(bpe, ["▁de"])
    assert "▁de" in edit.types_removed and "▁de" not in knocked.types


@pytest.mark.parametrize(
    ("types", "message"),
    [(None, "NoneType"), ({"▁de": 1}, "dict"), ([1], "only types .*int"), (5, "int")],
)
def test_knock_out_refuses_other_type_collections(bpe, types, message):
    with pytest.raises(InputError, match="types must .*" + message):
        core.knock_out(bpe, types)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"depth": -1}, "depth must be an integer >= 0, got -1"),
        ({"depth": 1.5}, "depth must be an integer"),
        ({"depth": float("nan")}, "depth must be an integer"),
        ({"max_nodes": 0}, "max_nodes must be an integer >= 1"),
        ({"siblings_per_parent": -2}, "siblings_per_parent must be an integer >= 0"),
        ({"center": "no such type"}, "center must be a type of the tokeniser, got str 'no such type'"),
        ({"center": None}, "center must be a type of the tokeniser, got NoneType"),
        ({"follow": "some"}, "follow must be one of"),
    ],
)
def test_neighbourhood_arguments_are_checked(bpe, arguments, message):
    with pytest.raises(InputError, match=message):
        core.neighbourhood(bpe, **{"center": "▁de", **arguments})


def test_a_huge_depth_stops_where_the_graph_ends(bpe):
    started = time.perf_counter()
    huge = core.neighbourhood(bpe, "▁de", depth=10**30, max_nodes=10**9)
    assert time.perf_counter() - started < 5
    whole = core.neighbourhood(bpe, "▁de", depth=len(bpe.merges) + 1, max_nodes=10**9)
    assert huge.roles == whole.roles and huge.distances == whole.distances
    assert huge.depth == 10**30 and max(huge.distances.values()) > 1


@pytest.mark.parametrize(("text", "position"), [("a\ud800b", 1), ("\udfff", 0), ("één\udc80", 3)])
def test_a_lone_surrogate_is_refused_at_its_position(bpe, text, position):
    for call, name in ((bpe.tokenise, "text"), (bpe.tokenise_word, "word"), (bpe.trace_text, "text")):
        with pytest.raises(InputError, match=rf"{name} holds a lone surrogate U\+D[89A-F].. at position {position}\b"):
            call(text)


def test_text_that_is_no_string_is_refused(bpe):
    with pytest.raises(InputError, match="text must be a string, got bytes"):
        bpe.tokenise(b"bruidsjurk")
    assert bpe.tokenise("één bruidsjurk") == bpe.tokenise("één bruidsjurk")  # non-ASCII text still runs


@pytest.mark.parametrize("pretokeniser", [object(), 3, ["bytelevel"], core])
def test_what_is_no_pretokeniser_is_refused(pretokeniser):
    message = "pretokeniser must be a Pretokeniser or the name of one, got " + type(pretokeniser).__name__
    with pytest.raises(InputError, match=message):
        core.train("bpe", {"hello": 3, "world": 2}, 300, pretokeniser=pretokeniser)
    with pytest.raises(InputError, match=message):
        training_corpus("bpe", ["hello world"], pretokeniser)


@pytest.mark.parametrize("pretokeniser", [object(), "metaspace", core])
def test_load_tokeniser_refuses_what_is_no_pretokeniser_object(pretokeniser):
    with pytest.raises(InputError, match=r"pretokeniser must be a Pretokeniser \(e\.g\. core\.pipeline\.named"):
        core.load_tokeniser(tokeniser_paths()["nl-bpe-4k-wordfreq"], pretokeniser=pretokeniser)


def test_a_pretokeniser_object_or_name_is_taken():
    by_name = training_corpus("bpe", {"hello": 3}, "metaspace")
    by_object = training_corpus("bpe", {"hello": 3}, named_pretokeniser("metaspace"))
    assert by_name.pretoken_counts == by_object.pretoken_counts == {"▁hello": 3}


@pytest.mark.parametrize(
    ("algorithm", "corpus", "message"),
    [
        ("bpe", None, "corpus must be an iterable of texts .*NoneType"),
        ("bpe", 42, "corpus must be an iterable of texts .*int"),
        ("bpe", {"hello": float("nan")}, r"corpus\['hello'\] must be an integer >= 1, got nan"),
        ("bpe", {"hello": -3}, r"corpus\['hello'\] must be an integer >= 1, got -3"),
        ("bpe", {"": 3}, "corpus must map words .*found the key str ''"),
        ("bpe", {None: 3}, "corpus must map words .*NoneType"),
        (None, {"hello": 3}, "unknown algorithm None"),
        (["bpe"], {"hello": 3}, "unknown algorithm"),
    ],
)
def test_training_corpus_arguments_are_checked(algorithm, corpus, message):
    with pytest.raises(InputError, match=message):
        training_corpus(algorithm, corpus)


def test_train_takes_only_a_training_corpus():
    from core.families.registry import train

    with pytest.raises(InputError, match=r"corpus must be a TrainingCorpus .*got dict"):
        train("bpe", {"hello": 3}, 300)


# --- property: any argument either works or is refused with InputError/TypeError/ValueError --------


def _pool(unigram) -> list:
    rng = random.Random(32)
    values = [
        None,
        "",
        "▁de",
        "a\ud800b",
        b"bytes",
        [],
        ["▁de", "▁het"],
        [1, None],
        (),
        {},
        {"▁de": 1},
        {"▁de": float("nan")},
        {"▁de": -1},
        {None: 1},
        0,
        -1,
        7,
        10**30,
        1.5,
        -0.5,
        float("nan"),
        float("inf"),
        True,
        object(),
        unigram,
        core.KnockoutConfig(),
        named_pretokeniser("metaspace"),
        SAMPLE_DIR,
    ]
    alphabet = "ab▁é\ud800\x00 \n"
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(6)]
    values += [[rng.choice(["▁de", "x", 3, None]) for _ in range(rng.randint(0, 3))] for _ in range(4)]
    return values


def _slots(bpe, entries, tmp_path) -> list:
    """(name, call with one argument replaced by the fuzzed value) for every checked argument."""
    few, path = entries[:5], tokeniser_paths()["nl-bpe-4k-wordfreq"]
    return [
        ("summarise", lambda v: core.summarise(v)),
        ("require", lambda v: core.require(v, "merge_graph", "f")),
        ("run_knockout.tokeniser", lambda v: core.run_knockout(v, few)),
        ("run_knockout.entries", lambda v: core.run_knockout(bpe, v)),
        ("run_knockout.config", lambda v: core.run_knockout(bpe, few, v)),
        ("run_knockout.weights", lambda v: core.run_knockout(bpe, few, weights=v)),
        ("run_rebpe.config", lambda v: core.run_rebpe(bpe, few, v)),
        ("knock_out.tokeniser", lambda v: core.knock_out(v, ["▁de"])),
        ("knock_out.types", lambda v: core.knock_out(bpe, v)),
        ("neighbourhood.tokeniser", lambda v: core.neighbourhood(v, "▁de")),
        ("neighbourhood.center", lambda v: core.neighbourhood(bpe, v)),
        ("neighbourhood.depth", lambda v: core.neighbourhood(bpe, "▁de", depth=v)),
        ("neighbourhood.max_nodes", lambda v: core.neighbourhood(bpe, "▁de", max_nodes=v)),
        ("save_tokeniser", lambda v: core.save_tokeniser(v, tmp_path / "fuzz.json")),
        ("evaluate.tokeniser", lambda v: core.evaluate_morphology(v, few)),
        ("evaluate.references", lambda v: core.evaluate_morphology(bpe, v)),
        ("evaluate.weights", lambda v: core.evaluate_morphology(bpe, few, weights=v)),
        ("evaluate.free", lambda v: core.evaluate_morphology(bpe, few, free=v)),
        ("tokenise", lambda v: bpe.tokenise(v)),
        ("tokenise_word", lambda v: bpe.tokenise_word(v)),
        ("load_tokeniser.pretokeniser", lambda v: core.load_tokeniser(path, pretokeniser=v)),
        ("train.corpus", lambda v: core.train("bpe", v, 300)),
        ("train.vocab_size", lambda v: core.train("bpe", {"hello": 2}, v)),
        ("training_corpus.algorithm", lambda v: training_corpus(v, {"hello": 2})),
        ("training_corpus.corpus", lambda v: training_corpus("bpe", v)),
        ("training_corpus.pretokeniser", lambda v: training_corpus("bpe", {"hello": 2}, v)),
    ]


def test_any_argument_works_or_is_refused_cleanly(bpe, unigram, entries, tmp_path):
    outcomes: dict[str, int] = {"ok": 0, "refused": 0}
    unexpected = []
    for name, call in _slots(bpe, entries, tmp_path):
        for value in _pool(unigram):
            try:
                call(value)
            except (InputError, TypeError, ValueError) as err:
                outcomes["refused"] += 1
                assert len(str(err)) < 500, (name, value, err)
            except Exception as err:
                unexpected.append(f"{name}({value!r}): {type(err).__name__}: {err}")
            else:
                outcomes["ok"] += 1
    assert unexpected == []
    assert outcomes["refused"] > outcomes["ok"] > 20
