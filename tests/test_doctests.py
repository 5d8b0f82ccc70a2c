"""The numpydoc Examples of the library run as tests, and every formula of the formula modules has one.

pytest runs the examples itself (``--doctest-modules`` on ``src/rackcost`` in pyproject.toml); these tests keep
that configuration and the examples from quietly going away.
"""

from __future__ import annotations

import doctest
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from rackcost.model.costs import finance
from rackcost.model.energy import power
from rackcost.model.fleets import disaggregation
from rackcost.model.queues import erlang, queueing
from rackcost.model.replica import memory
from rackcost.model.workload import classes

ROOT = Path(__file__).resolve().parents[1]


def test_pytest_runs_the_examples_of_the_library() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in config["addopts"].split()
    assert "src/rackcost" in config["testpaths"]


@pytest.mark.parametrize(
    "module", [erlang, queueing, finance, power, memory, disaggregation, classes], ids=lambda m: m.__name__
)
def test_every_formula_has_a_runnable_example(module: ModuleType) -> None:
    """Every public formula defined in the module (not re-exported from another, nor an array check)."""
    formulas = {
        name
        for name in module.__all__
        if callable(getattr(module, name))
        and getattr(getattr(module, name), "__module__", None) == module.__name__
        and not name.startswith(("as_", "check_"))
        and not isinstance(getattr(module, name), type)
    }
    with_examples = {t.name.rsplit(".", 1)[-1] for t in doctest.DocTestFinder().find(module) if t.examples}
    assert formulas <= with_examples, sorted(formulas - with_examples)
