"""Measured board power at the operating points, end to end (docs/model.md step 7).

A point's ``power_w_per_accelerator`` (e.g. InferenceX ``avg_power_w``) replaces the hardware's
``accelerator_busy_w``: a serving accelerator draws the measured power at the concurrency in service, linear in
concurrency between measured points and from idle (at zero load) up to the lowest one; standby accelerators draw
idle power, and hosts, rack overhead and PUE come on top. These tests run that path through ``evaluate``.
"""

from __future__ import annotations

import math

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.model.energy.power_law import GENERIC
from reference import TWO_SYSTEMS

# System A of tests/data/two_systems.yaml measured at concurrency 8 / 32 / 128; its hardware says 600 W busy,
# 100 W idle, 700 W rated. The measured powers are deliberately not 600 W anywhere, so a result that ignored them
# (or read the hardware's busy power) cannot pass.
MEASURED_W = (300.0, 450.0, 650.0)
# Sums and products of a handful of values, and one log: a few ulps at most.
RTOL_FLOAT = 1e-12


def _data(measured_w: tuple[float, float, float] = MEASURED_W) -> dict:
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    for point, watts in zip(data["systems"][0]["performance"]["points"], measured_w, strict=True):
        point["power_w_per_accelerator"] = watts
    return data


def _evaluate(measured_w: tuple[float, float, float] = MEASURED_W) -> rackcost.Result:
    return rackcost.evaluate(rackcost.scenario_from_dict(_data(measured_w), "measured_power.yaml"))


def _measured_at(concurrency: float, data: dict) -> float:
    """Measured power at a concurrency: linear in concurrency between the measured points; below the lowest, the
    fitted power law from idle (docs/model.md step 7): idle + (P_lowest - idle) * (n / c_lowest) ** alpha, alpha
    the fit of both families (system A names no accelerator; rackcost.model.energy.power_law.GENERIC)."""
    idle = data["systems"][0]["hardware"]["accelerator_idle_w"]
    points = sorted(data["systems"][0]["performance"]["points"], key=lambda p: p["concurrency"])
    lowest = points[0]
    if concurrency < lowest["concurrency"]:
        rise = (concurrency / lowest["concurrency"]) ** GENERIC.exponent
        return idle + (lowest["power_w_per_accelerator"] - idle) * rise
    for lo, hi in zip(points, points[1:], strict=False):
        if lo["concurrency"] <= concurrency <= hi["concurrency"]:
            w = (concurrency - lo["concurrency"]) / (hi["concurrency"] - lo["concurrency"])
            return lo["power_w_per_accelerator"] + w * (hi["power_w_per_accelerator"] - lo["power_w_per_accelerator"])
    raise AssertionError(f"concurrency {concurrency} outside the measured points")


def _system(result: rackcost.Result, name: str) -> dict:
    (row,) = [r for r in result.records["systems"] if r["system"] == name]
    return row


def test_busy_power_is_the_measured_power_interpolated_at_the_chosen_point():
    data = _data()
    row = _system(_evaluate(), "A")
    c = row["concurrency"]
    assert 32 < c < 128, "the fixture's point lies between two measurements, so interpolation is exercised"
    expected = _measured_at(c, data)
    assert row["busy_power_w_per_accelerator"] == pytest.approx(expected, rel=RTOL_FLOAT)
    assert abs(expected - data["systems"][0]["hardware"]["accelerator_busy_w"]) > 1.0
    # a system without measured power keeps its hardware busy power
    assert _system(_evaluate(), "B")["busy_power_w_per_accelerator"] == 400.0


def test_wall_power_of_every_demand_point_is_the_closed_form():
    # docs/model.md step 7: per serving accelerator the measured power at the concurrency in service (computed here
    # from the YAML, not read from the result); standby accelerators at idle (powered policy); hosts by whole nodes
    # on; racks x overhead; x PUE.
    data = _data()
    data["fleet"]["replica_availability_fraction"] = 0.9  # some replicas stand by
    result = rackcost.evaluate(rackcost.scenario_from_dict(data))
    hw = data["systems"][0]["hardware"]
    idle, host, overhead = hw["accelerator_idle_w"], hw["host_w_per_node"], hw["rack_overhead_w"]
    apr, apn = hw["accelerators_per_replica"], hw["accelerators_per_node"]
    rows = [r for r in result.records["points"] if r["system"] == "A"]
    assert [r["demand_point"] for r in rows] == ["quiet", "normal", "peak"]
    for r in rows:
        active = r["active_replicas"]
        standby = r["provisioned_replicas"] - active
        assert standby > 0
        serving_w = _measured_at(r["in_service_concurrency"], data)
        accelerators_w = active * apr * serving_w + standby * apr * idle
        hosts_w = math.ceil((active + standby) * apr / apn) * host
        it_w = accelerators_w + hosts_w + r["racks"] * overhead
        assert r["it_power_kw"] == pytest.approx(it_w / 1000.0, rel=RTOL_FLOAT), r["demand_point"]
        assert r["facility_power_kw"] == pytest.approx(it_w * data["facility"]["pue"] / 1000.0, rel=RTOL_FLOAT)
    # the load differs between the points, so each reads the measured curve at a different concurrency
    assert len({r["in_service_concurrency"] for r in rows}) == 3


def test_measured_power_changes_the_energy_and_not_the_fleet_size():
    # the fewest replicas do not depend on power; among concurrencies that need as many, power breaks the tie, so
    # the measured power may move the chosen concurrency but never the fleet
    measured = _system(_evaluate(), "A")
    rated_busy = _system(rackcost.evaluate(rackcost.load_scenario(TWO_SYSTEMS)), "A")
    for key in ("provisioned_replicas", "nodes", "racks", "capex_usd", "provisioned_it_kw"):
        assert measured[key] == rated_busy[key], key
    assert measured["facility_energy_kwh_per_day"] != rated_busy["facility_energy_kwh_per_day"]


# Measured powers of system A above its idle (100 W) and, scaled by up to 1.1, below its rated power (700 W).
watts = st.floats(110.0, 630.0)


@settings(max_examples=30, deadline=None)
@given(measured=st.tuples(watts, watts, watts), factor=st.floats(1.0, 1.1))
def test_a_higher_measured_power_never_lowers_cost(measured, factor):
    # Every point draws more above idle by one factor. The operating point is chosen by fewest replicas, then by
    # least power at the sizing demand; scaling the above-idle power of every point by one factor keeps that
    # order, so the choice stands and only the energy bill can grow. (Raising one point, or adding the same watts
    # to every point, can move the choice to a point that accepts more requests and so lower the cost per
    # accepted request: a property of the choice rule, not of the power model.)
    idle = _data()["systems"][0]["hardware"]["accelerator_idle_w"]
    higher = tuple(idle + factor * (w - idle) for w in measured)
    low, high = _system(_evaluate(measured), "A"), _system(_evaluate(higher), "A")
    assert high["concurrency"] == low["concurrency"]
    assert high["busy_power_w_per_accelerator"] >= low["busy_power_w_per_accelerator"]
    assert high["facility_energy_kwh_per_day"] >= low["facility_energy_kwh_per_day"]
    assert high["blended_usd_per_accepted_request"] >= low["blended_usd_per_accepted_request"]
    if factor >= 1.001:  # a visible increase must reach the bill (the measured power is used at all)
        assert high["facility_energy_kwh_per_day"] > low["facility_energy_kwh_per_day"]
