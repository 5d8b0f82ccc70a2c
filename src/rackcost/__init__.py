"""rackcost: what an inference system really costs per accepted request.

Library face::

    import rackcost
    scenario = rackcost.load_scenario("scenarios/deepseek-r1-jalapeno-vs-gb300.yaml")
    result = rackcost.evaluate(scenario)
    result.points, result.systems, result.comparison, result.warnings

Building blocks are plain functions over numpy arrays in :mod:`rackcost.queueing`, :mod:`rackcost.power`,
:mod:`rackcost.finance`, :mod:`rackcost.performance` and :mod:`rackcost.sizing`.
"""

from __future__ import annotations

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
from rackcost.montecarlo import breakeven, tornado, uncertainty
from rackcost.results import Result
from rackcost.schema import Scenario

__version__ = "0.1.0"

__all__ = [
    "Problem",
    "Result",
    "Scenario",
    "ScenarioError",
    "bundled_scenario_path",
    "breakeven",
    "bundled_scenarios",
    "evaluate",
    "finance",
    "load_scenario",
    "power",
    "queueing",
    "scenario_from_dict",
    "scenario_from_yaml",
    "scenario_to_yaml",
    "tornado",
    "uncertainty",
]
