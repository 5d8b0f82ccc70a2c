"""Renting instead of owning (issue 12, payment models): closed forms through evaluate, bad input, break-even."""

from __future__ import annotations

import copy

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost import ScenarioError
from reference import TWO_SYSTEMS

BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
# sums and products of a few values
RTOL_FLOAT = 1e-12


def own_and_rent(billing: str = "reserved", price: float = 2.5, **rent) -> dict:
    """System A owned, and the same hardware and curve rented as 'A rented'."""
    data = copy.deepcopy(BASE)
    rented = copy.deepcopy(data["systems"][0])
    rented["name"] = "A rented"
    del rented["costs"]
    rented["rent"] = {"usd_per_accelerator_hour": price, "billing": billing, **rent}
    data["systems"] = [data["systems"][0], rented]
    data.pop("figures", None)
    return data


def rows(result: rackcost.Result, system: str) -> list[dict]:
    return [r for r in result.records["points"] if r["system"] == system]


def test_reserved_rent_is_the_price_of_every_provisioned_accelerator_every_hour() -> None:
    data = own_and_rent(price=2.5)
    data["fleet"]["replica_availability_fraction"] = 0.9
    result = rackcost.evaluate(rackcost.scenario_from_dict(data))
    (system,) = [s for s in result.records["systems"] if s["system"] == "A rented"]
    assert system["payment"] == "rent reserved"
    for r in rows(result, "A rented"):
        assert r["rent_usd_per_hour"] == pytest.approx(2.5 * system["accelerators"], rel=RTOL_FLOAT)
        # the price covers power and facility: no capital, opex or energy line; the total is the rent
        assert (r["capital_usd_per_hour"], r["fixed_opex_usd_per_hour"], r["energy_usd_per_hour"]) == (0.0, 0.0, 0.0)
        assert r["total_usd_per_hour"] == r["rent_usd_per_hour"]
        assert r["facility_power_kw"] > 0.0  # the wall power is still reported
    # the owned twin pays no rent
    assert all(r["rent_usd_per_hour"] == 0.0 for r in rows(result, "A"))


def test_on_demand_rent_follows_the_replicas_each_point_needs() -> None:
    result = rackcost.evaluate(rackcost.scenario_from_dict(own_and_rent("on_demand", price=2.5)))
    points = rows(result, "A rented")
    owned = rows(
        rackcost.evaluate(
            rackcost.scenario_from_dict(own_and_rent("on_demand", 2.5) | {"fleet": {"idle_policy": "park"}})
        ),
        "A",
    )
    for r, park in zip(points, owned, strict=True):
        # the replicas the park rule activates at that point, each of 8 accelerators, at $2.5 an hour
        assert r["active_replicas"] == park["active_replicas"]
        assert r["rent_usd_per_hour"] == pytest.approx(2.5 * 8 * r["active_replicas"], rel=RTOL_FLOAT)
    assert points[0]["rent_usd_per_hour"] < points[-1]["rent_usd_per_hour"]  # quiet pays less than peak


def test_a_price_without_power_and_facility_adds_the_energy_line() -> None:
    result = rackcost.evaluate(rackcost.scenario_from_dict(own_and_rent(includes_power_and_facility=False)))
    owned, rented = rows(result, "A"), rows(result, "A rented")
    for a, b in zip(owned, rented, strict=True):
        assert b["energy_usd_per_hour"] == pytest.approx(a["energy_usd_per_hour"], rel=RTOL_FLOAT)
        assert b["capital_usd_per_hour"] == 0.0


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda s: s.update(costs={"capex_usd_per_accelerator": 1, "service_life_years": 5}), "both costs and rent"),
        (lambda s: s.pop("rent"), "neither costs nor rent"),
        (lambda s: s["rent"].update(usd_per_accelerator_hour=0), "must be >= 0.01"),
        (lambda s: s["rent"].update(billing="hourly"), "reserved"),
    ],
)
def test_a_system_pays_one_way_with_a_sensible_price(change, says) -> None:
    data = own_and_rent()
    change(data["systems"][1])
    with pytest.raises(ScenarioError) as exc:
        rackcost.scenario_from_dict(data, "rent.yaml")
    assert any(says in p.message and p.path.startswith("systems[1]") for p in exc.value.problems), exc.value


@settings(max_examples=25, deadline=None)
@given(st.floats(0.1, 20.0), st.floats(1.0, 3.0), st.sampled_from(["reserved", "on_demand"]))
def test_a_higher_rental_price_never_lowers_cost(price: float, factor: float, billing: str) -> None:
    low = rackcost.evaluate(rackcost.scenario_from_dict(own_and_rent(billing, price)))
    high = rackcost.evaluate(rackcost.scenario_from_dict(own_and_rent(billing, price * factor)))
    for a, b in zip(rows(low, "A rented"), rows(high, "A rented"), strict=True):
        assert b["usd_per_accepted_request"] >= a["usd_per_accepted_request"] * (1 - RTOL_FLOAT)


def test_own_against_rent_break_even_on_the_rental_price() -> None:
    """The rental price at which renting costs what owning does, checked by evaluating both at it."""
    scenario = rackcost.scenario_from_dict(own_and_rent(price=2.5))
    be = rackcost.breakeven(scenario, "systems[1].rent.usd_per_accelerator_hour", low=0.5, high=20.0)
    assert be.value is not None
    data = own_and_rent(price=be.value)
    blended = {
        s["system"]: s["blended_usd_per_accepted_request"]
        for s in rackcost.evaluate(rackcost.scenario_from_dict(data)).records["systems"]
    }
    assert blended["A rented"] == pytest.approx(blended["A"], rel=1e-6)


def test_cost_against_demand_scale_meets_evaluate_at_scale_one_and_shows_each_payment() -> None:
    from rackcost.analysis.explore import cost_against_demand_scale

    scenario = rackcost.scenario_from_dict(own_and_rent("on_demand", 2.5))
    rows_ = cost_against_demand_scale(scenario, low=0.5, high=2.0, points=3)
    assert {(r["system"], r["payment"]) for r in rows_} == {("A", "own"), ("A rented", "rent on_demand")}
    blended = {
        s["system"]: s["blended_usd_per_accepted_request"] for s in rackcost.evaluate(scenario).records["systems"]
    }
    for r in rows_:
        if r["demand_scale"] == pytest.approx(1.0, rel=1e-12):
            # the fleet sized again at scale 1 is the one evaluate sized: the same blended cost
            assert r["blended_usd_per_accepted_request"] == pytest.approx(blended[r["system"]], rel=1e-9)
    with pytest.raises(ValueError, match="0 < low < high"):
        cost_against_demand_scale(scenario, low=2.0, high=1.0)


def test_a_daily_minimum_bills_every_started_replica_at_least_that_many_hours() -> None:
    hours = [d["hours_per_day"] for d in BASE["demand"]]

    def daily_rent(minimum: float) -> tuple[float, list[int]]:
        result = rackcost.evaluate(
            rackcost.scenario_from_dict(own_and_rent("on_demand", 2.5, minimum_hours_per_day=minimum))
        )
        points = rows(result, "A rented")
        return sum(r["rent_usd_per_hour"] * h for r, h in zip(points, hours, strict=True)), [
            r["active_replicas"] for r in points
        ]

    used, active = daily_rent(0.0)
    assert used == pytest.approx(2.5 * 8 * sum(a * h for a, h in zip(active, hours, strict=True)), rel=RTOL_FLOAT)
    # a 24 h minimum bills every replica ever started for the whole day: the busiest point's replicas x 24 h
    whole_day, _ = daily_rent(24.0)
    assert whole_day == pytest.approx(2.5 * 8 * max(active) * 24.0, rel=RTOL_FLOAT)
    # in between, more than what runs and at most the whole day; never less with a longer minimum
    some, _ = daily_rent(12.0)
    assert used <= some <= whole_day


def test_minimum_hours_shortfall_closed_form() -> None:
    from rackcost.model.fleets.fleet import minimum_hours_shortfall

    # replicas 1-2 run 24 h, 3-5 run 16 h, 6-8 run 6 h: with a 20 h minimum 3 x 4 + 3 x 14 = 54 replica-hours more
    assert minimum_hours_shortfall([[2, 5, 8]], [8.0, 10.0, 6.0], 20.0).tolist() == [[54.0]]
    # points in any order give the same; no minimum, no shortfall
    assert minimum_hours_shortfall([[8, 2, 5]], [6.0, 8.0, 10.0], 20.0).tolist() == [[54.0]]
    assert minimum_hours_shortfall([[2, 5, 8]], [8.0, 10.0, 6.0], 0.0).tolist() == [[0.0]]
