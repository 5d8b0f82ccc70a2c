"""Every hour of a horizon (rackcost.evaluate_hours, issue 24 items 1-2): the same numbers as evaluate at the
scenario's own points, the period sums, the net present value against its closed form, and the invariants."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.errors import ScenarioError
from rackcost.evaluation.horizon import HOUR_COLUMNS, evaluate_hours
from rackcost.model.workload import horizon as cal
from rackcost.scenario.schema import Scenario

OWN_RENT_API = "deepseek-r1-own-vs-rent-vs-api.yaml"
"""The bundled scenario with an owned, a reserved, an on-demand and an API system."""

POINT_COLUMNS = {
    "offered_rps": "offered_rps",
    "accepted_rps": "accepted_rps",
    "rejected_rps": "rejected_rps",
    "utilization_fraction": "utilization_fraction",
    "active_replicas": "active_replicas",
    "facility_power_kw": "facility_power_kw",
    "cost_usd": "total_usd_per_hour",
}
"""A column of the hours table -> the column of ``evaluate``'s points table it equals (an hour lasts 1 h)."""


@functools.cache
def _scenario(name: str) -> Scenario:
    return rackcost.load_scenario(rackcost.bundled_scenario_path(name))


@pytest.mark.parametrize("name", [OWN_RENT_API, "deepseek-r1-b200-vs-gb200-request-classes.yaml"])
def test_the_scenarios_own_points_as_hours_give_evaluates_points(name: str) -> None:
    """Each hour at one of the scenario's demand rates, sized for the busiest, is that point of evaluate
    (rtol 1e-9: the same functions on the same numbers; the API's utilisation, NaN there, is 0 here)."""
    scenario = _scenario(name)
    rates = np.array([d.arrival_rps for d in scenario.demand])
    hours = evaluate_hours(scenario, rates).hours
    points = rackcost.evaluate(scenario).points
    assert list(hours.system.cat.categories) == list(points.system.unique())
    for ours, theirs in POINT_COLUMNS.items():
        expected = np.nan_to_num(points[theirs].to_numpy(dtype=float))
        np.testing.assert_allclose(hours[ours].to_numpy(dtype=float), expected, rtol=1e-9, atol=0.0, err_msg=ours)
    np.testing.assert_allclose(hours.accepted_requests, points.accepted_rps * 3600.0, rtol=1e-12)


def _weekly(hours: int, growth_per_year: float = 0.4) -> np.ndarray:
    h = np.arange(hours)
    week = 1.0 + 0.5 * np.sin(2 * np.pi * (h % 24) / 24) * np.where((h // 24) % 7 < 5, 1.0, 0.6)
    return 80.0 * week * (1.0 + growth_per_year) ** (h / 8760.0)


def test_the_hours_table_is_small_and_its_columns_are_typed() -> None:
    """4 systems x 8,760 h: float64 figures, int32 calendar, the system a categorical (3.0 MB)."""
    out = evaluate_hours(_scenario(OWN_RENT_API), _weekly(8760))
    t = out.hours
    assert tuple(t.columns) == HOUR_COLUMNS and len(t) == 4 * 8760
    assert t.system.dtype.name == "category"
    assert {str(t[c].dtype) for c in ("hour", "year", "quarter", "month", "day")} == {"int32"}
    assert {str(t[c].dtype) for c in HOUR_COLUMNS[6:]} == {"float64"}
    assert t.memory_usage(deep=True).sum() < 5e6
    for table in (out.hours, out.days, out.months, out.years, out.horizon):
        numbers = table.select_dtypes("number").to_numpy(dtype=float)
        assert np.isfinite(numbers).all()
    assert out.skipped == {}


def test_periods_add_up_to_the_hours_and_the_calendar_is_the_issues() -> None:
    """Sums over days, months and years equal the sums over the hours; day d holds hours 24d..24d+23, month m
    730m.., year y 8760y..; a horizon stopping inside a day gives that day its own hours."""
    hours = 8760 + 30  # a year and 30 h: a last day of 6 h, a last month of 30 h
    out = evaluate_hours(_scenario(OWN_RENT_API), _weekly(hours))
    h = out.hours
    for table, period, length in ((out.days, "day", 24), (out.months, "month", 730), (out.years, "year", 8760)):
        assert table.groupby("system", observed=True).cost_usd.sum().to_dict() == pytest.approx(
            h.groupby("system", observed=True).cost_usd.sum().to_dict(), rel=1e-12
        )
        np.testing.assert_allclose(table.accepted_requests.sum(), h.accepted_requests.sum(), rtol=1e-12, err_msg=period)
        by_hand = h.groupby(["system", h.hour // length], observed=True).offered_rps.mean().to_numpy()
        np.testing.assert_allclose(table.offered_rps.to_numpy(), by_hand, rtol=1e-12)
        np.testing.assert_allclose(table.usd_per_accepted_request, table.cost_usd / table.accepted_requests)
    assert out.days.hours.iloc[-1] == 6 and out.months.hours.iloc[-1] == 30
    assert out.years.hours.tolist()[:2] == [8760, 30]
    c = cal.calendar(3 * 8760)
    assert (c.quarter[[0, 2189, 2190, 8760 + 2190]] == [0, 0, 1, 5]).all()
    assert (c.month[[729, 730, 8760]] == [0, 1, 12]).all() and (c.year[[8759, 8760]] == [0, 1]).all()


def test_a_flat_profile_costs_8760_hours_a_year() -> None:
    """Flat demand: every hour costs the same, so a year costs 8,760 x the hour and the horizon's cost per accepted
    request is the hour's."""
    out = evaluate_hours(_scenario(OWN_RENT_API), np.full(2 * 8760, 150.0), cost_of_capital_fraction=0.0)
    first = out.hours[out.hours.hour == 0].set_index("system")
    years = out.years.set_index(["system", "year"])
    for system, row in first.iterrows():
        for year in (0, 1):
            assert years.loc[(system, year), "cost_usd"] == pytest.approx(8760 * row.cost_usd, rel=1e-12)
        horizon = out.horizon.set_index("system").loc[system]
        assert horizon.usd_per_accepted_request == pytest.approx(row.cost_usd / row.accepted_requests, rel=1e-12)
        assert horizon.npv_cost_usd == pytest.approx(horizon.cost_usd, rel=1e-12)  # r = 0: the total


@pytest.mark.parametrize("rate", [0.0, 0.08, 0.25])
def test_npv_of_a_flat_cost_is_the_annuity_due(rate: float) -> None:
    """Flat cost c per hour discounted hourly at (1 + r)^(-h/8760), h = 0..N-1: the annuity due
    c (1 - v^N) / (1 - v), v = (1 + r)^(-1/8760) (e.g. Brealey, Myers & Allen, Principles of Corporate Finance,
    ch. 2: the present value of an annuity); c N at r = 0. The levelised cost per request is then the hour's."""
    out = evaluate_hours(_scenario(OWN_RENT_API), np.full(3 * 8760, 150.0), cost_of_capital_fraction=rate)
    first = out.hours[out.hours.hour == 0].set_index("system")
    v = (1.0 + rate) ** (-1.0 / 8760.0)
    factor = 3 * 8760 if rate == 0 else (1.0 - v ** (3 * 8760)) / (1.0 - v)
    for _, row in out.horizon.iterrows():
        hour = first.loc[row.system]
        assert row.npv_cost_usd == pytest.approx(hour.cost_usd * factor, rel=1e-10)
        assert row.npv_cost_usd == pytest.approx(cal.flat_npv_usd(hour.cost_usd, 3 * 8760, rate), rel=1e-10)
        assert row.levelised_usd_per_accepted_request == pytest.approx(
            hour.cost_usd / hour.accepted_requests, rel=1e-10
        )
        assert row.discount_rate_fraction == rate
    assert cal.discount_factors(8761, rate)[8760] == pytest.approx(1.0 / (1.0 + rate), rel=1e-12)


def test_the_discount_rate_defaults_to_the_first_owned_systems_cost_of_capital() -> None:
    scenario = _scenario(OWN_RENT_API)
    out = evaluate_hours(scenario, np.full(48, 100.0))
    assert out.discount_rate_source == "systems[0].costs.cost_of_capital_fraction"
    assert out.discount_rate_fraction == scenario.systems[0].costs.cost_of_capital_fraction  # type: ignore[union-attr]
    assert evaluate_hours(scenario, np.full(48, 100.0), cost_of_capital_fraction=0.03).discount_rate_source == (
        "argument"
    )


@pytest.mark.parametrize(
    ("rates", "path"),
    [
        (np.ones((2, 3)), "hourly_rps"),
        (np.array([]), "hourly_rps"),
        (np.array([1.0, -2.0, 3.0]), "hourly_rps[1]"),
        (np.array([1.0, 2.0, np.nan]), "hourly_rps[2]"),
        (np.array([0.0, 2.0]), "hourly_rps[0]"),
        ("many", "hourly_rps"),
    ],
)
def test_bad_hours_are_refused_with_the_hour_named(rates: object, path: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        evaluate_hours(_scenario(OWN_RENT_API), rates)  # type: ignore[arg-type]
    assert caught.value.problems[0].path == path


@pytest.mark.parametrize("rate", [1e300, 1e12, 1e7 * (1 + 1e-12), np.inf])
def test_an_hour_above_a_scenarios_highest_rate_is_refused_like_a_demand_point(rate: float) -> None:
    # a scenario's demand rate is at most 1e7 requests/s (scenario.fields.Rps); an hour at 1e300 gave an
    # invalid-cast warning (an error under pytest) and a 1-replica fleet accepting 8.9 requests/s, and 1e12 gave
    # 9e10 replicas: each is refused with the hour named and the bound given
    with pytest.raises(ScenarioError) as caught:
        evaluate_hours(_scenario(OWN_RENT_API), np.array([1.0, 2.0, rate]))
    problem = caught.value.problems[0]
    assert problem.path == "hourly_rps[2]" and "1e+07" in problem.message


def test_the_highest_rate_a_scenario_allows_is_an_hour_too() -> None:
    out = evaluate_hours(_scenario(OWN_RENT_API), np.array([1e-6, 1e7]))
    assert np.isfinite(out.hours.cost_usd).all() and (out.hours.accepted_rps <= out.hours.offered_rps).all()


def test_a_bad_discount_rate_and_a_non_scenario_are_refused() -> None:
    with pytest.raises(ScenarioError, match="above -1"):
        evaluate_hours(_scenario(OWN_RENT_API), np.ones(3), cost_of_capital_fraction=-1.0)
    with pytest.raises(TypeError, match="evaluate_hours"):
        evaluate_hours("scenario.yaml", np.ones(3))  # type: ignore[arg-type]


def test_a_disaggregated_system_is_skipped_by_name() -> None:
    name = "deepseek-r1-b200-aggregated-vs-disaggregated.yaml"
    out = evaluate_hours(_scenario(name), np.array([20.0, 40.0]))
    assert list(out.skipped) == ["DGX B200 disaggregated"] and "disaggregated" in out.skipped["DGX B200 disaggregated"]
    assert "DGX B200 disaggregated" not in set(out.hours.system)


def test_evaluate_hours_is_a_public_name() -> None:
    assert rackcost.evaluate_hours is evaluate_hours


@settings(max_examples=25)
@given(
    base=st.lists(st.floats(5.0, 240.0), min_size=3, max_size=24),
    hour=st.integers(0, 23),
    more=st.floats(0.0, 1.0),
)
def test_more_demand_in_an_hour_never_lowers_what_it_accepts(base: list[float], hour: int, more: float) -> None:
    """Raising one hour's demand towards the busiest hour's (so the fleet stays the one sized for that) never lowers
    that hour's accepted rate; accepted never exceeds offered; every figure is finite."""
    rates = np.array(base)
    j = hour % rates.size
    bumped = rates.copy()
    bumped[j] += more * (rates.max() - rates[j])
    scenario = _scenario(OWN_RENT_API)
    before, after = (evaluate_hours(scenario, r).hours for r in (rates, bumped))
    for table in (before, after):
        assert (table.accepted_rps <= table.offered_rps * (1 + 1e-12)).all()
        assert np.isfinite(table.select_dtypes("number").to_numpy(dtype=float)).all()
    at_j = before.hour == j
    gain = after.accepted_rps[at_j].to_numpy() - before.accepted_rps[at_j].to_numpy()
    assert (gain >= -1e-9 * before.accepted_rps[at_j].to_numpy()).all()
