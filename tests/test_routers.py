"""Tests of rackcost.model.routers: a router added in one class and one registration runs everywhere a built-in one
does (the scenario schema, rackcost.evaluate, rackcost.simulate, rackcost.plan), and the registry's own rules.

The toy router is the whole of what a new router takes: the class below and the one ``register`` call in the
fixture; nothing else in the package knows its name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import yaml

import rackcost
from rackcost.errors import ScenarioError
from rackcost.model import routers
from rackcost.model import simulation as sim
from rackcost.model.routers import POOLED, EngineView, Router, register, router_names, router_of, unregister
from rackcost.scenario.schema import Scenario
from reference import TWO_SYSTEMS

DATA = TWO_SYSTEMS.parent


class LowestIndex(Router):
    """A toy: one central queue, and an arrival starts on the free replica with the lowest index (so replica 0 fills
    first); analytic as pooled, since which free slot takes a request does not change an M/M/k queue."""

    name = "lowest_index"
    words = "each request to the free replica with the lowest index, else one central queue (modelled as pooled)"
    queue = POOLED
    central_queue = True

    def picker(self, view: EngineView) -> Callable[[int], int]:
        in_service, slots = view.in_service, view.slots

        def pick(i: int) -> int:
            return next((r for r, n in enumerate(in_service) if n < slots), 0)

        return pick


@pytest.fixture
def lowest_index() -> Iterator[Router]:
    router = register(LowestIndex())  # the one registration
    try:
        yield router
    finally:
        unregister(router.name)
    assert "lowest_index" not in router_names()


def _with_routing(path, routing: str) -> Scenario:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["fleet"] = {**(data.get("fleet") or {}), "routing": routing}
    return rackcost.scenario_from_dict(data, path.name)


def _without(rows: list[dict], key: str) -> list[dict]:
    return [{k: v for k, v in row.items() if k != key} for row in rows]


def test_a_toy_router_is_evaluated_as_the_queue_it_names(lowest_index: Router) -> None:
    """Its analytic queue is the pooled M/M/k and its occupancy law the central queue's: every figure of
    rackcost.evaluate is pooled's, bit for bit, and the tables name it."""
    toy = rackcost.evaluate(_with_routing(TWO_SYSTEMS, "lowest_index")).to_dict()
    pooled = rackcost.evaluate(_with_routing(TWO_SYSTEMS, "pooled")).to_dict()
    assert toy["routing"] == "lowest_index" and {row["routing"] for row in toy["points"]} == {"lowest_index"}
    for table in ("points", "systems", "comparison"):
        assert json.dumps(_without(toy[table], "routing")) == json.dumps(_without(pooled[table], "routing"))


def test_a_toy_router_is_simulated_by_its_own_pick(lowest_index: Router) -> None:
    """Two replicas of two slots whose service slows with occupancy: the toy starts the first two requests both on
    replica 0 (occupancy 1, then 2), where pooled's least-occupied choice starts each alone (1, 1)."""
    model = sim.ReplicaModel(2, np.array([1.0, 1.0, 2.0]), np.array([0.1, 0.1, 0.2]))
    arrivals, work = np.array([0.0, 0.1]), np.array([100.0, 100.0])
    occupancy = {}
    for name in ("lowest_index", "pooled"):
        recorded = [0, 0]
        sim.event_engine(sim.SimFleet(2, model, name), arrivals, work, start_occupancy=recorded)
        occupancy[name] = recorded
    assert occupancy == {"lowest_index": [1, 2], "pooled": [1, 1]}


def test_a_toy_router_runs_through_simulate(lowest_index: Router) -> None:
    scenario = _with_routing(TWO_SYSTEMS, "lowest_index")
    rows = rackcost.simulate(scenario, requests=2_000, replications=2, seed=3)
    assert rows and {r["routing"] for r in rows} == {"lowest_index"}
    assert all(0.0 <= r["simulated_accepted_fraction"] <= 1.0 for r in rows)


def test_a_toy_router_runs_through_plan(lowest_index: Router) -> None:
    """The buying plan over the toy's fleets is pooled's (the solver's own time aside)."""
    plans = []
    for name in ("lowest_index", "pooled"):
        plan = rackcost.plan(_with_routing(DATA / "plan_small.yaml", name)).to_json()
        plan["solver"].pop("solve_s")
        plans.append(json.dumps(plan, default=str))
    assert plans[0] == plans[1]


def test_a_registered_router_is_in_the_schema_and_gone_after(lowest_index: Router) -> None:
    routing = Scenario.model_json_schema(by_alias=True)["$defs"]["Fleet"]["properties"]["routing"]
    assert "lowest_index" in routing["enum"] and routing["default"] == "least_outstanding"
    unregister("lowest_index")
    try:
        with pytest.raises(ScenarioError) as info:
            _with_routing(TWO_SYSTEMS, "lowest_index")
        assert "fleet.routing" in str(info.value) and "least_outstanding" in str(info.value)
    finally:
        register(lowest_index)


def test_the_registry_refuses_a_taken_name_and_keeps_the_built_ins() -> None:
    with pytest.raises(ValueError, match="registered already"):
        register(routers.Pooled())
    with pytest.raises(ValueError, match="built-in"):
        unregister("pooled")
    assert router_names() == ("pooled", "least_outstanding", "power_of_two", "round_robin", "random")
    assert router_names(analytic=True) == ("pooled", "least_outstanding", "random")
    with pytest.raises(ValueError, match="routing must be one of pooled, least_outstanding"):
        router_of("sticky")
