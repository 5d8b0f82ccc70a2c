"""The systems a scenario can be evaluated with, and those it cannot serve with (issue 22: one system that cannot
meet the SLO never blocks the others).

:func:`servable` splits a validated scenario: the hardware systems whose operating points meet the SLO and whose
nodes fit a rack stay, each other one is left out with why (:class:`rackcost.scenario.feasibility.UnservedSystem`).
The evaluation runs on what stays; :class:`rackcost.Result` lists what was left out (``Result.unserved``) and says
it in a warning, so the library, the CLI, the report and the dashboard all mark it the same way.
"""

from __future__ import annotations

import copy

from rackcost.errors import ScenarioError
from rackcost.model.inputs import SystemInputs
from rackcost.scenario.edits import subset_systems
from rackcost.scenario.feasibility import UnservedSystem, unserved_systems
from rackcost.scenario.loading import problem_at, scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import system_inputs

__all__ = ["servable", "unserved_warning"]


def unserved_warning(unserved: UnservedSystem) -> str:
    """The warning that marks a system left out of the evaluation."""
    return f"{unserved.system} is not evaluated: {unserved.reason} ({unserved.path}); the other systems are"


def servable(
    scenario: Scenario,
) -> tuple[Scenario, tuple[UnservedSystem, ...], tuple[SystemInputs, ...] | None]:
    """The scenario without the systems it cannot serve with, and those systems with why.

    Parameters
    ----------
    scenario
        A validated scenario.

    Returns
    -------
    (Scenario, tuple of UnservedSystem, tuple of SystemInputs or None)
        The scenario itself when every system can be evaluated; else a copy with only the others (figures and the
        baseline follow them: a baseline left out gives way to the first system left in). Then the hardware
        systems' inputs of the scenario returned, when it is the one given (the check unpacked them: the chain
        need not again), else None.

    Raises
    ------
    ScenarioError
        When no system is left: each one's reason, at its YAML path.
    """
    inputs = tuple(system_inputs(scenario, scenario.systems[i]) for i in scenario.hardware_indices)
    unserved = tuple(unserved_systems(scenario, list(inputs)))
    if not unserved:
        return scenario, (), inputs
    out = {u.system for u in unserved}
    keep = tuple(s.name for s in scenario.systems if s.name not in out)
    if not keep:
        raise ScenarioError([problem_at(scenario, u.loc, u.path, u.reason) for u in unserved])
    data = subset_systems(copy.deepcopy(scenario_to_data(scenario)), keep)
    return scenario_from_dict(data, scenario.origin_file), unserved, None
