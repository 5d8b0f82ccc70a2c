"""Fleet options through the public API: ``fleet.sizing_demand_point`` and the ``facility.max_racks`` warning.

The expectations are cross-checks between scenarios: a fleet sized for a named demand point is the fleet of a
scenario whose only demand is that point; rack counts follow from one node per rack.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

import rackcost
from reference import TWO_SYSTEMS

BASE: dict[str, Any] = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
# the test scenario's demand: quiet 5, normal 12, peak 20 requests/s; systems A and B
POINT_COLUMNS = (
    "offered_rps",
    "accepted_rps",
    "rejected_rps",
    "utilization_fraction",
    "capacity_at_slo_rps",
    "active_replicas",
    "provisioned_replicas",
    "racks",
    "it_power_kw",
    "facility_power_kw",
    "total_usd_per_hour",
    "usd_per_accepted_request",
)


def evaluate(data: dict[str, Any]) -> rackcost.Result:
    return rackcost.evaluate(rackcost.scenario_from_dict(data, "test.yaml"))


def edited(**blocks: dict[str, Any]) -> dict[str, Any]:
    """The test scenario with the given keys set in its top-level blocks, e.g. ``fleet={"replicas": 3}``."""
    data = copy.deepcopy(BASE)
    for block, values in blocks.items():
        data[block].update(values)
    return data


def systems(result: rackcost.Result) -> dict[str, dict[str, Any]]:
    return {row["system"]: row for row in result.records["systems"]}


def point(result: rackcost.Result, system: str, name: str) -> dict[str, Any]:
    return next(r for r in result.records["points"] if (r["system"], r["demand_point"]) == (system, name))


def overload_warnings(result: rackcost.Result) -> list[str]:
    return [w for w in result.warnings if "above the fleet's capacity at SLO" in w]


# --------------------------------------------------------------------------- fleet.sizing_demand_point


@pytest.fixture(scope="module")
def sized_for_normal() -> rackcost.Result:
    return evaluate(edited(fleet={"sizing_demand_point": "normal"}))


@pytest.fixture(scope="module")
def only_normal() -> rackcost.Result:
    """The same systems with one demand point, normal's rate all day: its fleet is sized for that rate."""
    data = copy.deepcopy(BASE)
    data["demand"] = [{"name": "normal", "arrival_rps": 12, "hours_per_day": 24}]
    return evaluate(data)


def test_default_sizing_is_for_the_highest_rate_and_serves_every_point() -> None:
    result = evaluate(BASE)
    assert {row["sizing_demand_point"] for row in result.records["systems"]} == {"peak"}
    assert overload_warnings(result) == []
    assert all(row["status"] == "ok" for row in result.records["points"])


def test_a_fleet_sized_for_a_named_point_is_the_fleet_sized_for_that_rate_alone(
    sized_for_normal: rackcost.Result, only_normal: rackcost.Result
) -> None:
    sized, alone, for_peak = systems(sized_for_normal), systems(only_normal), systems(evaluate(BASE))
    for name in ("A", "B"):
        assert sized[name]["sizing_demand_point"] == "normal"
        for column in ("provisioned_replicas", "accelerators", "racks", "capex_usd"):
            assert sized[name][column] == alone[name][column], (name, column)
        # not the default by accident: the peak needs more replicas than normal on this scenario
        assert sized[name]["provisioned_replicas"] < for_peak[name]["provisioned_replicas"]


def test_the_sized_point_is_served_as_if_it_were_the_only_one(
    sized_for_normal: rackcost.Result, only_normal: rackcost.Result
) -> None:
    for name in ("A", "B"):
        in_three = point(sized_for_normal, name, "normal")
        alone = point(only_normal, name, "normal")
        assert in_three["status"] == "ok"
        for column in POINT_COLUMNS:
            assert in_three[column] == alone[column], (name, column)


def test_every_point_is_served_by_the_fleet_sized_for_the_named_point(sized_for_normal: rackcost.Result) -> None:
    replicas = {name: row["provisioned_replicas"] for name, row in systems(sized_for_normal).items()}
    capacity = {name: point(sized_for_normal, name, "normal")["capacity_at_slo_rps"] for name in replicas}
    for row in sized_for_normal.records["points"]:
        assert row["provisioned_replicas"] == replicas[row["system"]]
        assert row["capacity_at_slo_rps"] == capacity[row["system"]]
    for name in replicas:
        quiet = point(sized_for_normal, name, "quiet")
        assert quiet["status"] == "ok"
        assert quiet["accepted_rps"] == quiet["offered_rps"] == 5
        assert quiet["active_replicas"] == replicas[name]  # idle_policy powered: every replica serves


def test_a_point_above_the_sized_one_can_be_overloaded_with_the_warning(sized_for_normal: rackcost.Result) -> None:
    warnings = overload_warnings(sized_for_normal)
    for name in ("A", "B"):
        peak = point(sized_for_normal, name, "peak")
        assert peak["capacity_at_slo_rps"] < peak["offered_rps"] == 20
        assert peak["status"].startswith("overloaded")
        assert peak["accepted_rps"] <= peak["capacity_at_slo_rps"]
        assert peak["rejected_rps"] == pytest.approx(peak["offered_rps"] - peak["accepted_rps"], rel=1e-12)
        expected = (
            f"{name} at peak: demand 20 rps is above the fleet's capacity at SLO "
            f"({peak['capacity_at_slo_rps']:.4g} rps); admission control rejects {peak['rejected_rps']:.4g} rps "
            "(overload is shed by admission control at the SLO)"
        )
        assert expected in warnings
    assert len(warnings) == 2  # the points at or below the sized one are not overloaded


def test_an_unknown_sizing_point_is_a_scenario_error() -> None:
    with pytest.raises(rackcost.ScenarioError) as info:
        rackcost.scenario_from_dict(edited(fleet={"sizing_demand_point": "midnight"}), "test.yaml")
    (problem,) = info.value.problems
    assert problem.path == "fleet.sizing_demand_point"
    assert "midnight" in problem.message and "normal" in problem.message


# --------------------------------------------------------------------------- facility.max_racks


def one_node_per_rack() -> dict[str, Any]:
    """The test scenario with system A on one node per rack: A's racks are its replicas (8 accelerators a node)."""
    data = copy.deepcopy(BASE)
    data["systems"][0]["hardware"]["nodes_per_rack"] = 1
    return data


def rack_warnings(result: rackcost.Result) -> list[str]:
    return [w for w in result.warnings if "facility.max_racks" in w]


def test_racks_of_a_fleet_on_one_node_per_rack_are_its_nodes() -> None:
    rows = systems(evaluate(one_node_per_rack()))
    assert rows["A"]["racks"] == rows["A"]["provisioned_replicas"] == 3
    assert rows["B"]["racks"] == 1  # 5 replicas of one 4-accelerator node, 8 nodes a rack


def test_a_fleet_needing_more_racks_than_the_facility_has_is_warned_about() -> None:
    data = one_node_per_rack()
    data["facility"]["max_racks"] = 2
    result = evaluate(data)
    assert rack_warnings(result) == ["A: the fleet needs 3 racks; the facility has 2 (facility.max_racks)"]


@pytest.mark.parametrize("max_racks", [3, 50])
def test_a_fleet_that_fits_gets_no_warning_and_the_same_results(max_racks: int) -> None:
    unlimited = evaluate(one_node_per_rack())
    data = one_node_per_rack()
    data["facility"]["max_racks"] = max_racks
    result = evaluate(data)
    assert rack_warnings(result) == []
    assert result.warnings == unlimited.warnings
    assert result.records == unlimited.records


def test_the_warning_changes_no_number() -> None:
    data = one_node_per_rack()
    data["facility"]["max_racks"] = 1
    result = evaluate(data)
    assert rack_warnings(result) == ["A: the fleet needs 3 racks; the facility has 1 (facility.max_racks)"]  # B fits
    assert result.records == evaluate(one_node_per_rack()).records
