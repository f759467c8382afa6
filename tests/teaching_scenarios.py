"""The teaching tokenisers of [rebpe App. A.1] for tests: one by name, the paper's two words as a
reference, and ReBPE on it."""

from __future__ import annotations

from core.edits.rebpe import run_rebpe
from core.formats.samples import scenario_paths
from core.formats.tokeniser_files import load_tokeniser
from core.references.files import parse_references

BRUID = "bruids\tbruid s\nbruid\tbruid\n"


def scenario(name: str):
    return load_tokeniser(scenario_paths()[name])


def scenario_run(name: str):
    tokeniser = scenario(name)
    return tokeniser, run_rebpe(tokeniser, parse_references(BRUID, format="tsv").entries)
