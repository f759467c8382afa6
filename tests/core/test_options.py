"""Checked settings: every options/config dataclass of core/ rejects a bad value when it is built,
with an InputError naming the option, the value and the choices (core.options)."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core.bpe.model import BTETokeniser, Merge
from core.edits.rebpe import AnnealConfig, KnockoutConfig, ReBPEConfig, repair
from core.errors import InputError
from core.families.unigram.options import UnigramOptions
from core.options import check_choice
from core.pipeline.rebpe_pipeline import ReBPEPipeline

CORE = Path(__file__).resolve().parents[2] / "core"

#: Every public options class of core/ and its string-mode fields (each a typing.Literal).
OPTION_CLASSES = {
    KnockoutConfig: ("unit", "blame"),
    AnnealConfig: ("when",),
    ReBPEConfig: ("reparation",),
    UnigramOptions: ("pruning", "seed", "atoms", "size_basis", "stop_check"),
}


def _choices(cls, name) -> tuple[str, ...]:
    hint = typing.get_type_hints(cls)[name]
    assert typing.get_origin(hint) is typing.Literal, f"{cls.__name__}.{name} is not a Literal"
    return typing.get_args(hint)


MODES = [(cls, name, _choices(cls, name)) for cls, names in OPTION_CLASSES.items() for name in names]
VALID = [(cls, name, value) for cls, name, choices in MODES for value in choices]


def test_every_options_dataclass_of_core_is_listed():
    found = set()
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ClassDef)
                and node.name.endswith(("Config", "Options"))
                and any("dataclass" in ast.unparse(d) for d in node.decorator_list)
            ):
                module = "core." + ".".join(path.relative_to(CORE).with_suffix("").parts)
                found.add(f"{module}.{node.name}")
    assert found == {f"{cls.__module__}.{cls.__name__}" for cls in OPTION_CLASSES}


@pytest.mark.parametrize("cls", list(OPTION_CLASSES), ids=lambda c: c.__name__)
def test_the_mode_fields_are_exactly_the_literal_fields(cls):
    hints = typing.get_type_hints(cls)
    literal = {f.name for f in dataclasses.fields(cls) if typing.get_origin(hints[f.name]) is typing.Literal}
    assert literal == set(OPTION_CLASSES[cls])
    assert not [f.name for f in dataclasses.fields(cls) if hints[f.name] is str], "a mode typed plain str"
    cls()  # the defaults are valid


@pytest.mark.parametrize("cls, name, value", VALID, ids=lambda x: getattr(x, "__name__", str(x)))
def test_every_valid_mode_is_accepted(cls, name, value):
    assert getattr(cls(**{name: value}), name) == value


@st.composite
def misspellings(draw):
    cls, name, choices = draw(st.sampled_from(MODES))
    valid = draw(st.sampled_from(choices))
    i = draw(st.integers(0, len(valid) - 1))
    if draw(st.booleans()):
        wrong = valid[:i] + valid[i + 1 :]  # a letter dropped
    else:
        letter = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz_ ").filter(lambda c: c != valid[i]))
        wrong = valid[:i] + letter + valid[i + 1 :]  # a letter changed
    assume(wrong not in choices)
    return cls, name, choices, wrong


@given(misspellings())
def test_a_misspelt_mode_is_rejected_naming_the_field_value_and_choices(case):
    cls, name, choices, wrong = case
    with pytest.raises(InputError) as err:
        cls(**{name: wrong})
    message = str(err.value)
    assert f"{cls.__name__}.{name}" in message and repr(wrong) in message
    assert all(repr(choice) in message for choice in choices)


@pytest.mark.parametrize("cls, name", [(cls, name) for cls, name, _ in MODES], ids=str)
@pytest.mark.parametrize("value", [None, 1, ("type",), "", "NONE"])
def test_a_mode_of_the_wrong_kind_is_rejected(cls, name, value):
    with pytest.raises(InputError, match=rf"{cls.__name__}\.{name}"):
        cls(**{name: value})


def test_the_issue_example():
    with pytest.raises(InputError) as err:
        AnnealConfig(when="befor")
    assert str(err.value) == "AnnealConfig.when must be one of 'none', 'before', 'after', 'both'; got 'befor'"


@pytest.mark.parametrize(
    "cls, options, name",
    [
        (KnockoutConfig, {"threshold": -0.1}, "threshold"),
        (KnockoutConfig, {"threshold": float("nan")}, "threshold"),
        (KnockoutConfig, {"threshold": "0.5"}, "threshold"),
        (KnockoutConfig, {"min_vocab_size": -1}, "min_vocab_size"),
        (KnockoutConfig, {"min_vocab_size": 2.0}, "min_vocab_size"),
        (KnockoutConfig, {"tuples_once": 1}, "tuples_once"),
        (KnockoutConfig, {"cascade": "no"}, "cascade"),
        (AnnealConfig, {"min_applications": -1}, "min_applications"),
        (AnnealConfig, {"min_ratio": float("nan")}, "min_ratio"),
        (AnnealConfig, {"min_ratio": -0.5}, "min_ratio"),
        (AnnealConfig, {"max_vocab_size": True}, "max_vocab_size"),
        (ReBPEConfig, {"knockout": {"threshold": 0.5}}, "knockout"),
        (ReBPEConfig, {"anneal": "before"}, "anneal"),
        (ReBPEConfig, {"reify": None}, "reify"),
        (ReBPEConfig, {"fix": 0}, "fix"),
        (ReBPEConfig, {"link": "yes"}, "link"),
        (ReBPEConfig, {"expand": 1}, "expand"),
        (ReBPEConfig, {"max_iterations": 0}, "max_iterations"),
        (ReBPEConfig, {"epsilon": 0.0}, "epsilon"),
        (ReBPEConfig, {"epsilon": 0.5}, "epsilon"),
        (UnigramOptions, {"alpha_prune": 1.0}, "alpha_prune"),
        (UnigramOptions, {"seed_size": 0}, "seed_size"),
    ],
)
def test_numbers_and_flags_are_range_checked(cls, options, name):
    with pytest.raises(InputError, match=rf"{cls.__name__}\.{name}"):
        cls(**options)


@pytest.mark.parametrize(
    "cls, options",
    [
        (KnockoutConfig, {"threshold": 0}),
        (KnockoutConfig, {"min_vocab_size": 0}),
        (KnockoutConfig, {"threshold": 1.01}),  # above 1: knocks out nothing (core.edits.diagnostics sweeps use it)
        (AnnealConfig, {"min_ratio": 0.0}),
        (AnnealConfig, {"min_ratio": 1.5}),
        (AnnealConfig, {"min_applications": 0}),
        (ReBPEConfig, {"max_iterations": 1}),
        (ReBPEConfig, {"epsilon": 0.25}),
    ],
)
def test_the_ends_of_the_ranges_are_accepted(cls, options):
    cls(**options)


def test_repair_rejects_an_unknown_mode_with_input_error():
    tok = BTETokeniser("abc", [Merge(0, ("a", "b")), Merge(1, ("a", "b", "c"))], ReBPEPipeline())
    with pytest.raises(InputError, match="reparation must be one of 'limited', 'undo'; got 'limted'"):
        repair(tok, "limted")


def test_check_choice_without_an_owner_reads_as_before():
    with pytest.raises(InputError, match=r"^tie must be one of 'a', 'b'; got 'c'$"):
        check_choice("tie", "c", ("a", "b"))
