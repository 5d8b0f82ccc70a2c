"""The fuzzer of the analyses beyond ``evaluate``: scenarios at the edges of their ranges through the Monte Carlo,
"how sure", the tornado, break-even, the site budget and the simulator, and the contract each keeps.

Used by ``tests/test_fuzz_faces.py`` (a small budget in CI) and ``benchmarks/fuzz_faces.py`` (a large one, with
counts). The scenarios are :func:`fuzzing.nudged_scenarios` (a bundled scenario with one to three numbers scaled by
0.1 to 10 or set to an end of their range: most of them evaluate, so each analysis sees valid scenarios at its
edges). Contract (:func:`check_faces`): the scenario is refused, or each analysis gives finite figures or refuses
with problems that name the scenario's file and a YAML path (or the whole file), never another exception; a
simulation that would not fit is refused before it runs (``SimulationTooLarge``, with its estimate). Found so far:
the site budget and break-even named ``<scenario>`` for a loaded file, and a replica of 96 million slots took all of
the machine's memory in the simulator.
"""

from __future__ import annotations

import warnings
from typing import Any

import rackcost
from fuzzing import check_problems
from rackcost import ScenarioError
from rackcost.model.sim.sim_work import SimulationTooLarge
from reference import find_non_finite

SITE_KW = (1e-3, 1.0, 50.0, 1e4, 1e7)
"""Site IT power budgets the site budget is asked at, from none to a campus [kW]."""


def _finite(figures: Any, where: str) -> None:
    bad = find_non_finite(figures, where)
    assert bad == [], bad[:5]


def _face(name: str, outcomes: list[str], run: Any, file: str) -> Any:
    """Run one analysis: its result, or None where it refuses within the contract (its outcome is counted)."""
    try:
        found = run()
    except ScenarioError as exc:
        check_problems(exc, file)
        outcomes.append(f"{name} refused")
        return None
    except SimulationTooLarge as exc:
        assert str(exc), "a refusal with no estimate"
        outcomes.append(f"{name} too large")
        return None
    outcomes.append(f"{name} ok")
    return found


def check_faces(text: str, site_kw: float, routing: str, file: str = "fuzz.yaml") -> str:
    """Load a scenario and run every analysis of the module docstring on it; assert the contract. Returns ``refused``
    (at load or evaluation) or the analyses' outcomes joined, ``uncertainty ok, tornado refused, ...``."""
    try:
        scenario = rackcost.scenario_from_yaml(text, file)
        rackcost.evaluate(scenario)
    except ScenarioError as exc:
        check_problems(exc, file)
        return "refused"
    outcomes: list[str] = []
    with warnings.catch_warnings():  # a system the analysis leaves out is said in a warning, as evaluate says it
        warnings.filterwarnings("ignore", message=".* is not evaluated")
        sampled = _face("uncertainty", outcomes, lambda: rackcost.uncertainty(scenario, 64, seed=1, workers=1), file)
        if sampled is not None:
            _finite(sampled.percentiles, "uncertainty.percentiles")
            _finite(sampled.central, "uncertainty.central")
            assert isinstance(rackcost.how_sure(sampled), str)
        ranked = _face("tornado", outcomes, lambda: rackcost.tornado(scenario), file)
        _finite(ranked or [], "tornado")
        price = "facility.electricity_usd_per_kwh"
        _face("breakeven", outcomes, lambda: rackcost.breakeven(scenario, price, grid=9), file)
        site = _face("site", outcomes, lambda: rackcost.site_budget(scenario, site_kw), file)
        _finite(site or [], "site")
        simulated = _face(
            "simulate",
            outcomes,
            lambda: rackcost.simulate(scenario, requests=2000, replications=2, routing=routing),
            file,
        )
        _finite(simulated or [], "simulate")
    return ", ".join(outcomes)
