"""The input fuzzer (tests/fuzzing_inputs.py) at a small budget: hostile names through load, evaluate and every CSV
table; CSV tables through ``import csv``; traces through the simulator's reader; sweep files through
``run_sweep``. ``benchmarks/fuzz_inputs.py``
runs the same strategies at a large budget, with counts."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings

from fuzzing_inputs import (
    check_csv_table,
    check_named_scenario,
    check_sweep,
    check_trace,
    csv_tables,
    named_scenarios,
    sweep_files,
    traces,
)


@settings(max_examples=40)
@given(named_scenarios())
def test_hostile_names_evaluate_to_safe_csv_or_a_clear_refusal(text: str) -> None:
    assert check_named_scenario(text) in ("evaluated", "refused")


@settings(max_examples=80)
@given(csv_tables())
def test_csv_tables_import_or_skip_with_reasons(table: tuple[str, bytes]) -> None:
    assert check_csv_table(*table) in ("imported", "nothing")


@settings(max_examples=80)
@given(traces())
def test_traces_are_read_or_refused_naming_the_file(tmp_path_factory, text: str) -> None:
    assert check_trace(text, Path(tmp_path_factory.mktemp("trace"))) in ("read", "refused")


@settings(max_examples=25, deadline=None)  # a sweep that runs takes 0.1-0.5 s
@given(sweep_files())
def test_sweep_files_run_to_finite_tables_or_are_refused(tmp_path_factory, text: str) -> None:
    assert check_sweep(text, Path(tmp_path_factory.mktemp("sweep"))) in ("ran", "refused")
