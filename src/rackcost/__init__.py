"""rackcost: what an inference system really costs per accepted request.

Library face::

    import rackcost
    scenario = rackcost.load_scenario("scenarios/deepseek-r1-jalapeno-vs-gb300.yaml")
    result = rackcost.evaluate(scenario)
    result.points, result.systems, result.comparison, result.warnings
    hours = rackcost.evaluate_hours(scenario, hourly_rps)  # every hour of a horizon: .hours, .days, .years, .horizon
    fleet = rackcost.evaluate_models("deepseek-r1-and-gpt-oss-120b-on-gb200")  # several models: .models, .fleets
    html = rackcost.models_report("deepseek-r1-and-gpt-oss-120b-on-gb200")  # their decision report
    mix = rackcost.hardware_mix(scenario)  # the cheapest mix of its systems, each request class to one system

Building blocks are plain functions over numpy arrays in :mod:`rackcost.queueing`, :mod:`rackcost.power`,
:mod:`rackcost.finance`, :mod:`rackcost.performance` and :mod:`rackcost.sizing`: short names of modules of
:mod:`rackcost.model`, the numeric core (``rackcost.queueing is rackcost.model.queues.queueing``), both as attributes
and as import paths (``from rackcost.queueing import erlang_c``).

The package is layered, one subpackage per layer (docs/architecture.md): :mod:`rackcost.scenario` (files in, their
checks, the bridge to the model), :mod:`rackcost.model` (the pure core), :mod:`rackcost.evaluation` (the chain and
its tables), :mod:`rackcost.analysis` (Monte Carlo, sensitivity, sweeps, the referee), :mod:`rackcost.reporting`,
:mod:`rackcost.importers` and :mod:`rackcost.cli`, over three leaf modules (``units``, ``errors``, ``display``).

The names below are loaded on first use (PEP 562), so ``import rackcost`` is cheap and a command or a building
block pulls in only the libraries it needs (``rackcost schema`` needs neither numpy nor scipy).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# the documented short paths of the numeric core's modules: rackcost.<name> is rackcost.model.<subpackage>.<name>
_CORE_MODULES = {
    "finance": "rackcost.model.costs.finance",
    "performance": "rackcost.model.replica.performance",
    "power": "rackcost.model.energy.power",
    "queueing": "rackcost.model.queues.queueing",
    "sizing": "rackcost.model.fleets.sizing",
}

# public name -> module that defines it (a module maps to itself)
_LAZY = {
    "Problem": "rackcost.errors",
    "ScenarioError": "rackcost.errors",
    "Result": "rackcost.evaluation.results",
    "Scenario": "rackcost.scenario.schema",
    "evaluate": "rackcost.evaluation.chain",
    "plan": "rackcost.evaluation.planning",
    "evaluate_hours": "rackcost.evaluation.horizon",
    "evaluate_models": "rackcost.evaluation.models",
    "load_models": "rackcost.scenario.models_doc",
    "bundled_scenario_path": "rackcost.scenario.loading",
    "bundled_scenarios": "rackcost.scenario.loading",
    "load_scenario": "rackcost.scenario.loading",
    "scenario_from_dict": "rackcost.scenario.loading",
    "scenario_from_yaml": "rackcost.scenario.loading",
    "scenario_to_yaml": "rackcost.scenario.loading",
    "breakeven": "rackcost.analysis.sensitivity",
    "report": "rackcost.reporting.write",
    "models_report": "rackcost.reporting.write",
    "tornado": "rackcost.analysis.sensitivity",
    "simulate": "rackcost.analysis.referee",
    "sweep": "rackcost.analysis.sweep.run",
    "site_budget": "rackcost.analysis.site_budget",
    "hardware_mix": "rackcost.analysis.hardware_mix",
    "uncertainty": "rackcost.analysis.montecarlo",
    "probability_cheaper": "rackcost.analysis.pairs",
    "how_sure": "rackcost.reporting.how_sure",
    **_CORE_MODULES,
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
    "evaluate_hours",
    "evaluate_models",
    "finance",
    "hardware_mix",
    "how_sure",
    "load_models",
    "load_scenario",
    "models_report",
    "performance",
    "plan",
    "power",
    "probability_cheaper",
    "queueing",
    "report",
    "scenario_from_dict",
    "scenario_from_yaml",
    "scenario_to_yaml",
    "simulate",
    "site_budget",
    "sizing",
    "sweep",
    "tornado",
    "uncertainty",
]

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ loads these on first use
    from rackcost.analysis.hardware_mix import hardware_mix
    from rackcost.analysis.montecarlo import uncertainty
    from rackcost.analysis.pairs import probability_cheaper
    from rackcost.analysis.referee import simulate
    from rackcost.analysis.sensitivity import breakeven, tornado
    from rackcost.analysis.site_budget import site_budget
    from rackcost.analysis.sweep.run import sweep
    from rackcost.errors import Problem, ScenarioError
    from rackcost.evaluation.chain import evaluate
    from rackcost.evaluation.horizon import evaluate_hours
    from rackcost.evaluation.models import evaluate_models
    from rackcost.evaluation.planning import plan
    from rackcost.evaluation.results import Result
    from rackcost.model.costs import finance
    from rackcost.model.energy import power
    from rackcost.model.fleets import sizing
    from rackcost.model.queues import queueing
    from rackcost.model.replica import performance
    from rackcost.reporting.how_sure import how_sure
    from rackcost.reporting.write import models_report, report
    from rackcost.scenario.loading import (
        bundled_scenario_path,
        bundled_scenarios,
        load_scenario,
        scenario_from_dict,
        scenario_from_yaml,
        scenario_to_yaml,
    )
    from rackcost.scenario.models_doc import load_models
    from rackcost.scenario.schema import Scenario


def __getattr__(name: str) -> Any:
    """Load a public name on first use and keep it in the module namespace."""
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'rackcost' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if name in _CORE_MODULES else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _CoreAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import rackcost.queueing`` gives the module ``rackcost.model.queues.queueing`` itself (one module, two
    names)."""

    def find_spec(self, fullname: str, path: Any = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname.startswith("rackcost.") and fullname[len("rackcost.") :] in _CORE_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return importlib.import_module(_CORE_MODULES[spec.name.rpartition(".")[2]])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was imported under its own name by :meth:`create_module`."""


if not any(isinstance(finder, _CoreAlias) for finder in sys.meta_path):
    sys.meta_path.append(_CoreAlias())
