"""The kinds of capacity source (rackcost.model.buying.source_kinds): one definition each, read by the schema, the
program, the plan's evaluation and its tables. A toy kind defined here, ``prepaid``, and one call of ``register`` are
all it takes to plan with a new kind: it runs through the schema, ``rackcost.plan`` (program, realised plan, tables and
the report's words), ``rackcost.evaluate`` and ``rackcost.simulate`` (the day's fleets, and the plan's referee that
simulates each source's fleet), and is gone again once unregistered."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import yaml

import rackcost
from rackcost.analysis.plan_check import check_hours
from rackcost.errors import ScenarioError
from rackcost.model.buying import source_kinds
from rackcost.model.buying.plan import DemandBlocks, PlanProblem, PlanSource, check_plan, solve_plan
from rackcost.model.buying.plan_brute import brute_force_plan
from rackcost.model.buying.source_kinds import Holding, SourceKind, kind_named, kind_names, register, unregister
from rackcost.model.strategies import Payment
from rackcost.reporting.plan_section import holdings
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.schema import Scenario

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]

PREPAID = SourceKind(
    "prepaid",
    Payment.rent_reserved,
    Holding.bought,
    "prepaid",
    ("replicas", "replicas", "replicas"),
    "a system's replicas paid ahead for the rest of the horizon at a fixed price per accelerator-hour, never released",
)
"""The toy kind: rented replicas (the source's price per accelerator-hour) held as owned racks are, added from the
lead time on and kept to the horizon's end."""


@pytest.fixture
def prepaid():
    register(PREPAID)  # the one registration
    yield PREPAID
    unregister(PREPAID.name)


def _scenario(*sources: dict) -> Scenario:
    data = yaml.safe_load((DATA / "plan_small.yaml").read_text(encoding="utf-8"))
    data["plan"]["sources"] = list(sources)
    return rackcost.scenario_from_dict(data, "plan.yaml")


PREPAID_A = {"name": "prepaid A", "kind": "prepaid", "system": "A", "usd_per_accelerator_hour": 1.5}
API = {"name": "API", "kind": "api", "system": "API"}


def test_the_built_in_kinds_are_the_schemas_and_the_docs():
    assert kind_names() == ("owned", "reserved", "on_demand", "spot", "api")
    schema = Scenario.model_json_schema()
    kinds = [d["properties"]["kind"] for d in schema["$defs"].values() if d.get("title") == "CapacitySource"]
    assert kinds[0]["enum"] == list(kind_names())
    row = next(line for line in (ROOT / "docs" / "glossary.md").read_text().splitlines() if "`sources[].kind`" in line)
    assert all(f"`{name}`" in row for name in kind_names()), row


def test_a_kind_is_one_object_through_copies_and_pickles():
    scenario = _scenario(API)
    kind = scenario.plan.sources[0].kind
    assert kind is kind_named("api") is source_kinds.API
    assert copy.deepcopy(scenario).plan.sources[0].kind is kind
    assert pickle.loads(pickle.dumps(scenario)).plan.sources[0].kind is kind
    assert scenario_to_data(scenario)["plan"]["sources"][0]["kind"] == "api"  # written as its name


def test_register_refuses_a_taken_name_a_bad_name_and_a_fleet_held_as_a_rate():
    with pytest.raises(ValueError, match="registered already"):
        register(source_kinds.SPOT)
    with pytest.raises(ValueError, match="lower-case word"):
        register(SourceKind("Pre-paid", Payment.rent_reserved, Holding.bought, "x", ("a", "b", "c"), "x"))
    with pytest.raises(ValueError, match="continuous rate"):
        register(SourceKind("rented_rate", Payment.rent_reserved, Holding.rate, "x", ("a", "b", "c"), "x"))
    with pytest.raises(ValueError, match="built-in"):
        unregister("owned")


def test_an_unregistered_kind_is_refused_at_its_yaml_path():
    with pytest.raises(ScenarioError) as caught:
        _scenario(PREPAID_A)
    assert "plan.sources[0].kind" in str(caught.value)
    assert "'owned', 'reserved', 'on_demand', 'spot' or 'api', got 'prepaid'" in str(caught.value)


def test_the_toy_kind_reads_the_fields_of_its_payment_and_holding(prepaid):
    assert "prepaid" in Scenario.model_json_schema()["$defs"]["CapacitySource"]["properties"]["kind"]["enum"]
    source = _scenario({**PREPAID_A, "lead_time_quarters": 1, "initial_units": 2}).plan.sources[0]
    assert source.kind is prepaid
    with pytest.raises(ScenarioError, match="only for spot sources, not prepaid"):
        _scenario({**PREPAID_A, "preemptions_per_hour": 0.1})
    with pytest.raises(ScenarioError, match="a prepaid source needs its price per accelerator-hour"):
        _scenario({"name": "p", "kind": "prepaid", "system": "A"})


def test_the_toy_kind_in_the_program_matches_brute_force(prepaid):
    # the program holds it by the bought law (units never fall, none before the lead time), which brute force
    # enumerates from the problem's statement (rackcost.model.buying.plan_brute)
    blocks = DemandBlocks(hours=[[1000.0, 1190.0], [1000.0, 1190.0]], demand_rps=[[30.0, 5.0], [50.0, 8.0]],
                          mean_rps=[[25.0, 4.0], [40.0, 6.0]])  # fmt: skip
    sources = (
        PlanSource("pre", "prepaid", 20.0, 10.0, 1e-6, lead_time_quarters=1, initial_units=1),
        PlanSource("od", "on_demand", 20.0, 30.0, 1e-6),
    )
    problem = PlanProblem(sources, blocks, discount_factor=[1.0, 0.98])
    solution = solve_plan(problem, mip_rel_gap=0.0)
    assert check_plan(problem, solution).ok
    assert solution.objective_usd == pytest.approx(brute_force_plan(problem).objective_usd, rel=1e-9)
    held = solution.quarter_units["pre"]
    assert held[0] == 1 and held[1] >= held[0]  # the initial unit only until the lead time, then never fewer
    with pytest.raises(ValueError, match="term_quarters applies to reserved sources only"):
        PlanProblem((PlanSource("p", "prepaid", 1.0, 1.0, term_quarters=2),), blocks, [1.0, 1.0])


def test_the_toy_kind_runs_through_plan_and_evaluate_and_is_gone_once_unregistered(prepaid):
    scenario = _scenario(PREPAID_A, API)
    result = rackcost.plan(scenario)
    figures = result.sources[0]
    assert figures.source.kind is prepaid and (figures.replicas_per_unit, figures.accelerators_per_unit) == (1, 8)
    # rent covering power and space (its default): a held replica costs its accelerators x the price per hour
    assert figures.usd_per_unit_hour == pytest.approx(8 * 1.5, rel=1e-12)
    assert result.to_json()["sources"][0]["kind"] == "prepaid"
    replicas = result.periods["prepaid A: replicas"].to_numpy()
    assert replicas.max() > 0 and (np.diff(replicas) >= 0).all()  # the bought law: never released
    assert result.realised.unserved_rps.max() == 0.0
    assert any(line.startswith("prepaid A (prepaid, system A)") for line in holdings(result))
    evaluated = rackcost.evaluate(scenario)  # the plan's sources do not change the day's evaluation
    assert set(evaluated.systems["system"]) == {"A", "B", "API"}
    unregister(prepaid.name)
    with pytest.raises(ScenarioError, match="got 'prepaid'"):
        _scenario(PREPAID_A)


def test_the_toy_kind_runs_through_simulate(prepaid):
    """What the simulator does with a plan: ``rackcost.simulate`` simulates the day's fleets, which no plan source
    changes (the same rows, bit for bit, as with the system's reserved source in its place); the plan's referee
    (``rackcost plan --check-hours``: analysis.plan_check) simulates each source's fleet at the units and load the
    plan gives it, the toy's fleet rented at its price included."""
    reserved = {"name": "prepaid A", "kind": "reserved", "system": "A", "usd_per_accelerator_hour": 1.5}
    day = [rackcost.simulate(_scenario(s, API), requests=2_000, replications=2, seed=1) for s in (PREPAID_A, reserved)]
    assert day[0] and json.dumps(day[0]) == json.dumps(day[1])
    rows = check_hours(rackcost.plan(_scenario(PREPAID_A, API)), hours=2, requests=2_000, replications=2)
    parts = [p for row in rows for p in row["sources"] if p["source"] == "prepaid A"]
    assert parts and all(p["units"] >= 1 and p["load_rps"] > 0 for p in parts)
    assert all(0.0 <= p["simulated_accepted_fraction"] <= 1.0 for p in parts)
