"""rackcost: what an inference system really costs per accepted request.

Library face::

    import rackcost
    scenario = rackcost.load_scenario("scenarios/deepseek-r1-jalapeno-vs-gb300.yaml")
    result = rackcost.evaluate(scenario)
    result.points, result.systems, result.comparison, result.warnings

Building blocks are plain functions over numpy arrays in :mod:`rackcost.queueing`, :mod:`rackcost.power`,
:mod:`rackcost.finance`, :mod:`rackcost.performance` and :mod:`rackcost.sizing`.

The names below are loaded on first use (PEP 562), so ``import rackcost`` is cheap and a command or a building
block pulls in only the libraries it needs (``rackcost schema`` needs neither numpy nor scipy).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it (a submodule maps to itself)
_LAZY = {
    "Problem": "rackcost.errors",
    "ScenarioError": "rackcost.errors",
    "Result": "rackcost.results",
    "Scenario": "rackcost.schema",
    "evaluate": "rackcost.chain",
    "bundled_scenario_path": "rackcost.loading",
    "bundled_scenarios": "rackcost.loading",
    "load_scenario": "rackcost.loading",
    "scenario_from_dict": "rackcost.loading",
    "scenario_from_yaml": "rackcost.loading",
    "scenario_to_yaml": "rackcost.loading",
    "breakeven": "rackcost.sensitivity",
    "report": "rackcost.reporting",
    "tornado": "rackcost.sensitivity",
    "simulate": "rackcost.referee",
    "sweep": "rackcost.sweep_run",
    "site_budget": "rackcost.site_report",
    "uncertainty": "rackcost.montecarlo",
    "finance": "rackcost.finance",
    "power": "rackcost.power",
    "queueing": "rackcost.queueing",
}

__all__ = [
    "Problem",
    "Result",
    "Scenario",
    "ScenarioError",
    "breakeven",
    "bundled_scenario_path",
    "bundled_scenarios",
    "evaluate",
    "finance",
    "load_scenario",
    "power",
    "queueing",
    "report",
    "scenario_from_dict",
    "scenario_from_yaml",
    "scenario_to_yaml",
    "simulate",
    "site_budget",
    "sweep",
    "tornado",
    "uncertainty",
]

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ loads these on first use
    from rackcost import finance, power, queueing
    from rackcost.chain import evaluate
    from rackcost.errors import Problem, ScenarioError
    from rackcost.loading import (
        bundled_scenario_path,
        bundled_scenarios,
        load_scenario,
        scenario_from_dict,
        scenario_from_yaml,
        scenario_to_yaml,
    )
    from rackcost.montecarlo import uncertainty
    from rackcost.referee import simulate
    from rackcost.reporting import report
    from rackcost.results import Result
    from rackcost.schema import Scenario
    from rackcost.sensitivity import breakeven, tornado
    from rackcost.site_report import site_budget
    from rackcost.sweep_run import sweep


def __getattr__(name: str) -> Any:
    """Load a public name on first use and keep it in the module namespace."""
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'rackcost' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if module_name == f"rackcost.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
