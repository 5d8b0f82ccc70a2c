"""The request-class and pool fuzzer (tests/fuzzing_classes.py) at a small budget: random class mixes (shares,
length distributions, prefix hits, own SLOs) and random prefill/decode curves through load and evaluate, each
keeping the contract (no traceback; finite numbers or an explicit null; accepted <= offered; a sized fleet meets
every class's target at its sizing point). ``benchmarks/fuzz_classes.py`` runs the same strategies at a large
budget, with counts."""

from __future__ import annotations

from hypothesis import given, settings

from fuzzing_classes import check_scenario, class_mixes, pool_scenarios


@settings(max_examples=40, deadline=None)  # an evaluation with classes takes 20-300 ms
@given(class_mixes())
def test_class_mixes_evaluate_within_the_contract_or_are_refused(data: dict) -> None:
    assert check_scenario(data) in ("evaluated", "refused")


@settings(max_examples=40, deadline=None)
@given(pool_scenarios())
def test_pool_curves_evaluate_within_the_contract_or_are_refused(data: dict) -> None:
    assert check_scenario(data) in ("evaluated", "refused")
