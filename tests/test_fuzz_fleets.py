"""The fuzzer of fleets as they are run (tests/fuzzing_fleets.py) at a small budget: mutated models documents,
models documents of random shape under every rule and placement, and autoscaling blocks over a weekly profile, each
keeping the contract (no traceback; problems at a file and YAML path; finite figures; accepted <= offered; the
models' costs add up to the fleets'). ``benchmarks/fuzz_fleets.py`` runs the same strategies at a large budget, with
counts."""

from __future__ import annotations

from hypothesis import given, settings

from fuzzing import Case
from fuzzing_fleets import (
    check_models_outcome,
    check_scaling_outcome,
    models_documents,
    mutated_models_documents,
    scaling_scenarios,
)


@settings(max_examples=60, deadline=None)  # most mutations are refused at load, in a few ms
@given(mutated_models_documents())
def test_mutated_models_documents_evaluate_within_the_contract_or_are_refused(case: Case) -> None:
    assert check_models_outcome(case.text) in ("ok", "refused", "unserved")


@settings(max_examples=25, deadline=None)  # four evaluations of each model: 0.1-1 s an example
@given(models_documents())
def test_models_documents_of_any_shape_keep_the_contract_under_every_rule_and_placement(data: dict) -> None:
    assert check_models_outcome(data) in ("ok", "refused", "unserved")


@settings(max_examples=20, deadline=None)  # a three-year profile: 0.2-1 s an example
@given(scaling_scenarios())
def test_autoscaling_blocks_evaluate_within_the_contract_or_are_refused(text: str) -> None:
    assert check_scaling_outcome(text) in ("ok", "refused")
