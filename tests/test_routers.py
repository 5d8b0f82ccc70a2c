"""Tests of rackcost.model.queues.routers: a router added in one class and one registration runs everywhere a built-in
one does (the scenario schema, rackcost.evaluate, rackcost.simulate and its command's --routing, rackcost.plan, the
prefix-cache replay), and the registry's own rules.

The toy router is the whole of what a new router takes: the class below and the one ``register`` call in the
fixture; nothing else in the package knows its name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from rackcost.errors import ScenarioError
from rackcost.model.queues import routers
from rackcost.model.queues.routers import POOLED, EngineView, Router, register, router_names, router_of, unregister
from rackcost.model.sim import simulation as sim
from rackcost.model.workload.prefix_cache import route_requests
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


def test_a_toy_router_is_accepted_by_the_simulate_command(lowest_index: Router) -> None:
    """--routing reads the registry when the command runs, not a list fixed at import."""
    args = ["simulate", str(TWO_SYSTEMS), "--routing", "lowest_index", "-n", "2000", "--replications", "2"]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert rows and {r["routing"] for r in rows} == {"lowest_index"}


def test_the_simulate_command_refuses_an_unregistered_router_naming_the_registered_ones() -> None:
    result = CliRunner().invoke(app, ["simulate", str(TWO_SYSTEMS), "--routing", "lowest_index"])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())  # the message as words, out of Rich's error box
    assert "'lowest_index' is not a registered router: one of pooled, least_outstanding" in said


def test_a_toy_router_is_replayed_for_the_prefix_cache_by_its_own_pick(lowest_index: Router) -> None:
    """Two replicas of two slots, requests 1 s apart holding a slot 10 s: the toy fills replica 0 first (0, 0, 1,
    1), where pooled starts each on the least occupied replica (0, 1, 0, 1); the fifth waits for the earliest slot
    to free up (replica 0's first, at 10 s) under both, as one central FIFO queue."""
    arrivals = [0.0, 1.0, 2.0, 3.0, 4.0]
    toy = route_requests("lowest_index", 2, 5, arrivals, 10.0, slots_per_replica=2)
    pooled = route_requests("pooled", 2, 5, arrivals, 10.0, slots_per_replica=2)
    assert (toy.tolist(), pooled.tolist()) == ([0, 0, 1, 1, 0], [0, 1, 0, 1, 0])


def test_a_router_without_a_pick_cannot_be_made() -> None:
    """Every router says how it picks a replica (Router.picker is abstract): a class without one fails where it is
    instantiated, naming it, instead of inside a simulation."""

    class NoPick(Router):
        name = "no_pick"
        words = "none"

    with pytest.raises(TypeError, match="NoPick.*picker"):
        NoPick()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="a router is an instance of a Router subclass"):
        register("no_pick")  # type: ignore[arg-type]
