"""The systems a scenario can be evaluated with, and those it cannot serve with (one system that cannot meet
the SLO never blocks the others; docs/model.md, Errors).

:func:`servable` splits a validated scenario: the hardware systems whose operating points meet the SLO and whose
nodes fit a rack stay, each other one is left out with why (:class:`rackcost.scenario.feasibility.UnservedSystem`).
The evaluation runs on what stays; :class:`rackcost.Result` lists what was left out (``Result.unserved``) and says
it in a warning, so the library, the CLI, the report and the dashboard all mark it the same way.
"""

from __future__ import annotations

import copy
import re
import warnings

from rackcost.errors import ScenarioError
from rackcost.model.inputs import SystemInputs
from rackcost.scenario.edits import subset_systems
from rackcost.scenario.feasibility import UnservedSystem, unserved_systems
from rackcost.scenario.loading import problem_at, scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack_pools import any_system_inputs

__all__ = ["UnservedSystemWarning", "check_served", "servable", "renumbered_path", "served_for", "unserved_warning"]


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
    inputs = tuple(any_system_inputs(scenario, scenario.systems[i]) for i in scenario.hardware_indices)
    unserved = tuple(unserved_systems(scenario, list(inputs)))
    if not unserved:
        return scenario, (), inputs
    out = {u.system for u in unserved}
    keep = tuple(s.name for s in scenario.systems if s.name not in out)
    if not keep:
        raise ScenarioError([problem_at(scenario, u.loc, u.path, u.reason) for u in unserved])
    data = subset_systems(copy.deepcopy(scenario_to_data(scenario)), keep)
    return scenario_from_dict(data, scenario.origin_file), unserved, None


class UnservedSystemWarning(UserWarning):
    """A system left out of an analysis because the scenario cannot serve with it; the others are analysed.

    :func:`rackcost.evaluate` lists such systems in ``Result.unserved``; the analyses that return plain rows
    (``tornado``, ``site_budget``, ``simulate``) say it with this warning, one per system (``warnings`` filters
    apply: ``warnings.simplefilter("error", UnservedSystemWarning)`` makes it an error).
    """


def served_for(
    scenario: Scenario, analysis: str, needed: tuple[str | None, ...] = (), warn: bool = True
) -> tuple[Scenario, tuple[UnservedSystem, ...], tuple[SystemInputs, ...] | None]:
    """:func:`servable` for an analysis: a warning per system left out, and an error when the analysis is about one.

    Parameters
    ----------
    scenario
        A validated scenario.
    analysis
        The analysis's name, for the messages (``"break-even"``).
    needed
        Systems the analysis cannot run without (the one simulated, the two a break-even compares); None entries
        are ignored.
    warn
        Whether to warn (:class:`UnservedSystemWarning`); False where the analysis's result lists them itself.

    Returns
    -------
    (Scenario, tuple of UnservedSystem, tuple of SystemInputs or None)
        As :func:`servable`.

    Raises
    ------
    ScenarioError
        When a needed system is left out (its reason, at its YAML path), or no system is left.
    """
    served, unserved, inputs = servable(scenario)
    check_served(scenario, unserved, analysis, needed, warn, stacklevel=4)
    return served, unserved, inputs


def check_served(
    scenario: Scenario,
    unserved: tuple[UnservedSystem, ...],
    analysis: str,
    needed: tuple[str | None, ...] = (),
    warn: bool = True,
    stacklevel: int = 4,
) -> None:
    """:func:`served_for`'s rules on a split already made: an error when a ``needed`` system is among ``unserved``
    (its reason, at its YAML path in ``scenario``, the scenario as given), else a warning per system left out when
    ``warn`` (``stacklevel`` as :func:`warnings.warn`'s, counted from this function)."""
    missing = [u for u in unserved if u.system in needed]
    if missing:
        raise ScenarioError(
            [
                problem_at(
                    scenario, u.loc, u.path, f"{analysis} needs {u.system!r}, which is not evaluated: {u.reason}"
                )
                for u in missing
            ]
        )
    for u in unserved if warn else ():
        warnings.warn(unserved_warning(u), UnservedSystemWarning, stacklevel=stacklevel)


_SYSTEM_PATH = re.compile(r"^systems\[(\d+)\]")


def renumbered_path(path: str, source: Scenario, target: Scenario) -> str | None:
    """A YAML path of ``source`` as the same input's path in ``target``, where a system may have another index.

    :func:`servable` leaves systems out, so ``systems[2]`` of the file may be ``systems[1]`` of the scenario
    analysed; an analysis takes the user's paths in and gives paths out in the file's numbering.

    Returns
    -------
    str or None
        The path with its ``systems[i]`` index renumbered by the system's name (other paths as given), or None
        when that system is not in ``target``.

    Examples
    --------
    >>> from rackcost.scenario.loading import bundled_scenario_path, load_scenario
    >>> sc = load_scenario(bundled_scenario_path("llama-3.3-70b-gaudi25-tp-precision.yaml"))
    >>> renumbered_path("systems[0].costs.capex_usd_per_accelerator", sc, sc)
    'systems[0].costs.capex_usd_per_accelerator'
    >>> renumbered_path("facility.pue", sc, sc)
    'facility.pue'
    """
    found = _SYSTEM_PATH.match(path)
    if found is None or source is target:
        return path
    index = int(found.group(1))
    if index >= len(source.systems):
        return path
    names = [s.name for s in target.systems]
    name = source.systems[index].name
    if name not in names:
        return None
    return f"systems[{names.index(name)}]{path[found.end() :]}"
