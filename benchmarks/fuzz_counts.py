"""Shared harness of the fuzz scripts: run each surface's strategy through its contract and count the outcomes.

Each ``benchmarks/fuzz_*.py`` script names its surfaces (a strategy of cases and the check that returns an outcome
label, raising where the contract breaks) and calls :func:`count_surfaces`; hypothesis then stops a broken contract
with its shrunk example, and each surface prints its counts and its wall time. The strategies and checks are the
ones the CI tests run with a few dozen examples (``tests/fuzzing*.py``).
"""

from __future__ import annotations

import collections
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TESTS = Path(__file__).resolve().parents[1] / "tests"
"""The test folder, where the strategies and contracts live (put on ``sys.path`` by :func:`use_test_helpers`)."""


def use_test_helpers() -> None:
    """Make ``tests/fuzzing*.py`` importable from a benchmark script."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))


@dataclass(frozen=True)
class Surface:
    """One surface of a fuzz run.

    Attributes
    ----------
    name
        What is fuzzed, as printed (``"class mixes"``).
    cases
        A strategy of argument tuples for ``check`` (``st.tuples(...)``).
    check
        The contract: returns an outcome label (``"ok"``, ``"refused"``...) or raises where the contract breaks.
    examples
        How many examples to run [-].
    """

    name: str
    cases: st.SearchStrategy[tuple[Any, ...]]
    check: Callable[..., str]
    examples: int


def count_outcomes(surface: Surface) -> collections.Counter[str]:
    """Run one surface's examples through its check and count the outcome labels."""
    tally: collections.Counter[str] = collections.Counter()

    @settings(max_examples=surface.examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(surface.cases)
    def run(case: tuple[Any, ...]) -> None:
        tally[surface.check(*case)] += 1

    run()
    return tally


def count_surfaces(surfaces: Sequence[Surface]) -> dict[str, collections.Counter[str]]:
    """Run every surface with warnings as errors (as pytest runs the CI examples) and print its counts.

    Returns
    -------
    dict
        The outcome counts of each surface, by name.
    """
    warnings.simplefilter("error")
    counts: dict[str, collections.Counter[str]] = {}
    for surface in surfaces:
        if surface.examples < 1:
            continue
        start = time.perf_counter()
        tally = counts[surface.name] = count_outcomes(surface)
        print(
            f"{surface.name}: {sum(tally.values()):,} examples {dict(sorted(tally.items()))} "
            f"in {time.perf_counter() - start:.1f} s",
            flush=True,
        )
    return counts


def examples_from_argv(default: int, position: int = 1) -> int:
    """The example count given as the script's ``position``-th argument, else ``default`` [-]."""
    if len(sys.argv) <= position:
        return default
    if not sys.argv[position].isdigit():
        sys.exit(f"usage: {Path(sys.argv[0]).name} [EXAMPLES ...]   (default {default:,})")
    return int(sys.argv[position])
