"""Carbon and the grid's price by the hour (rackcost.model.energy.grid, facility.carbon_* and facility.hourly).

Closed forms: location-based scope-2 emissions are the energy drawn times the grid's average intensity (GHG
Protocol, *Scope 2 Guidance*, World Resources Institute, 2015, ch. 6); a carbon price adds intensity x price to every
kWh the owner pays for. The US 2022 figure the bundled scenarios use is 1,650 million t of CO2 over 4,230,672
million kWh (U.S. EIA, "How much carbon dioxide is produced per kilowatthour of U.S. electricity generation?",
2022 data): 390 g/kWh.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.model.energy import grid
from two_systems import two_systems_scenario

WEEK_DAY = [5.0] * 8 + [12.0] * 10 + [20.0] * 6
"""A day of hourly rates: 8 quiet hours, 10 normal, 6 peak (the two-system scenario's points)."""


def _systems(result: Any) -> dict[str, dict[str, Any]]:
    return {row["system"]: row for row in result.records["systems"]}


def _with_facility(**facility: Any) -> rackcost.Scenario:
    return two_systems_scenario(lambda d: d["facility"].update(facility))


def _profile(hourly: dict[str, Any] | None = None, **facility: Any) -> rackcost.Scenario:
    def mutate(d: dict[str, Any]) -> None:
        d["demand"] = {"profile": {"hourly_arrival_rps": WEEK_DAY * 7}, "horizon_years": 1}
        d["facility"].update(facility)
        if hourly is not None:
            d["facility"]["hourly"] = hourly

    return two_systems_scenario(mutate)


def test_us_2022_intensity_is_eia_tonnes_over_kwh() -> None:
    """EIA: 1,650 million t over 4,230,672 million kWh is 390 g/kWh (0.86 lb/kWh at 453.59 g/lb)."""
    g_per_kwh = 1_650e6 * 1e6 / 4_230_672e6
    assert round(g_per_kwh) == 390
    assert round(g_per_kwh / 453.59237, 2) == 0.86
    # a 1 MW facility on that grid emits 390 kg of CO2 an hour
    assert float(grid.carbon_g_per_hour(1000.0, 390.0)) == 390_000.0


def test_carbon_price_per_kwh_is_intensity_times_price_per_tonne() -> None:
    """390 g/kWh at $190/t (US EPA's 2023 social cost of carbon, 2% discount rate) adds 7.41 c/kWh."""
    assert float(grid.carbon_usd_per_kwh(390.0, 190.0)) == pytest.approx(0.0741, rel=1e-12)
    assert float(grid.carbon_usd_per_kwh(0.0, 190.0)) == 0.0


def test_a_daily_grid_repeats_and_a_weekly_grid_starts_on_monday_every_year() -> None:
    day = np.arange(24.0)
    week = np.arange(168.0)
    assert grid.grid_at_hours(day, [0, 25, 8759]).tolist() == [0.0, 1.0, 23.0]
    # hour 8,760 is Monday 00:00 of year 2, as a demand profile's weeks are
    assert grid.grid_at_hours(week, [167, 168, 8760]).tolist() == [167.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="24 or 168"):
        grid.grid_at_hours([1.0] * 25, [0])


def test_point_means_average_each_points_hours() -> None:
    values = np.array([100.0, 200.0, 300.0, 400.0])
    assert grid.point_means(values, [0, 1, 1, 0], 2, fallback=0.0).tolist() == [250.0, 250.0]


def test_carbon_per_request_is_wall_energy_times_intensity_over_accepted() -> None:
    """Through the whole chain: blended g/request = kWh/day x g/kWh / accepted/day, and per point likewise."""
    result = rackcost.evaluate(_with_facility(carbon_g_per_kwh=390.0))
    for row in result.records["systems"]:
        expected = row["facility_energy_kwh_per_day"] * 390.0 / row["accepted_requests_per_day"]
        assert row["blended_carbon_g_per_accepted_request"] == pytest.approx(expected, rel=1e-12)
        assert row["carbon_kg_per_day"] == pytest.approx(row["facility_energy_kwh_per_day"] * 0.390, rel=1e-12)
    for p in result.records["points"]:
        expected = p["facility_power_kw"] * 390.0 / (p["accepted_rps"] * 3600.0)
        assert p["carbon_g_per_accepted_request"] == pytest.approx(expected, rel=1e-12)


def test_no_intensity_counts_no_carbon_and_changes_no_cost() -> None:
    plain = rackcost.evaluate(two_systems_scenario())
    zero = rackcost.evaluate(_with_facility(carbon_g_per_kwh=0.0, carbon_usd_per_tonne=100.0))
    for name, row in _systems(zero).items():
        assert row["blended_carbon_g_per_accepted_request"] == 0.0
        assert row["usd_per_day"] == _systems(plain)[name]["usd_per_day"]


def test_a_carbon_price_adds_energy_times_intensity_times_price_to_an_owned_fleet() -> None:
    base = _systems(rackcost.evaluate(_with_facility(carbon_g_per_kwh=390.0)))
    priced = _systems(rackcost.evaluate(_with_facility(carbon_g_per_kwh=390.0, carbon_usd_per_tonne=100.0)))
    for name, row in priced.items():
        extra = row["facility_energy_kwh_per_day"] * 390.0 / 1e6 * 100.0
        assert row["usd_per_day"] - base[name]["usd_per_day"] == pytest.approx(extra, rel=1e-9)
        assert row["blended_carbon_g_per_accepted_request"] == base[name]["blended_carbon_g_per_accepted_request"]


def test_a_rental_that_covers_power_emits_carbon_but_pays_no_carbon_price() -> None:
    def rent(d: dict[str, Any]) -> None:
        d["facility"].update(carbon_g_per_kwh=390.0, carbon_usd_per_tonne=100.0)
        a = d["systems"][0]
        del a["costs"]
        a["rent"] = {"usd_per_accelerator_hour": 3.0}

    priced = _systems(rackcost.evaluate(two_systems_scenario(rent)))["A"]
    free = _systems(
        rackcost.evaluate(two_systems_scenario(lambda d: (rent(d), d["facility"].update(carbon_usd_per_tonne=0.0))))
    )["A"]
    assert priced["payment"] != "own"
    assert priced["usd_per_day"] == free["usd_per_day"]
    assert priced["blended_carbon_g_per_accepted_request"] > 0


def test_a_system_on_its_own_grid_reads_its_own_intensity() -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["facility"]["carbon_g_per_kwh"] = 390.0
        d["systems"][1]["facility"] = {"carbon_g_per_kwh": 39.0}

    rows = _systems(rackcost.evaluate(two_systems_scenario(mutate)))
    b = rows["B"]
    assert b["carbon_kg_per_day"] == pytest.approx(b["facility_energy_kwh_per_day"] * 0.039, rel=1e-12)
    assert rows["A"]["carbon_kg_per_day"] == pytest.approx(rows["A"]["facility_energy_kwh_per_day"] * 0.39)


def test_an_hourly_grid_equal_to_the_flat_figure_changes_nothing() -> None:
    flat = rackcost.evaluate(_profile(carbon_g_per_kwh=390.0))
    hourly = rackcost.evaluate(_profile({"carbon_g_per_kwh": [390.0] * 24}, carbon_g_per_kwh=390.0))
    for table in ("points", "systems", "years", "horizon"):
        assert hourly.records[table] == flat.records[table]


def test_each_named_point_reads_the_mean_of_its_hours_and_the_horizon_each_hours_own() -> None:
    """Quiet hours (00-08) at 100 g/kWh, normal (08-18) at 300, peak (18-24) at 600: each point's carbon is its
    wall power times its hours' intensity; the year sums every hour's power x its own intensity."""
    day = [100.0] * 8 + [300.0] * 10 + [600.0] * 6
    scenario = _profile({"carbon_g_per_kwh": day}, carbon_g_per_kwh=390.0)
    result = rackcost.evaluate(scenario)
    by_point = {"quiet": 100.0, "normal": 300.0, "peak": 600.0}
    for p in result.records["points"]:
        expected = p["facility_power_kw"] * by_point[p["demand_point"]] / (p["accepted_rps"] * 3600.0)
        assert p["carbon_g_per_accepted_request"] == pytest.approx(expected, rel=1e-9)
    hours = rackcost.evaluate_hours(scenario, scenario.demand_profile.hourly_rates_rps()).hours
    a = hours[hours["system"] == "A"]
    intensity = np.array(day * 365)
    assert float(a["carbon_kg"].sum()) == pytest.approx(float((a["facility_power_kw"] * intensity).sum()) / 1e3)
    year = {row["system"]: row for row in result.records["years"]}["A"]
    assert year["carbon_kg"] == pytest.approx(float(a["carbon_kg"].sum()), rel=1e-12)
    assert year["carbon_g_per_accepted_request"] == pytest.approx(
        year["carbon_kg"] * 1e3 / year["accepted_requests"], rel=1e-12
    )


def test_an_hourly_price_is_the_bill_of_each_hour() -> None:
    """A price of 0.05 USD/kWh off peak and 0.30 at peak: each point's energy cost is its wall power times its
    hours' price."""
    day = [0.05] * 18 + [0.30] * 6
    result = rackcost.evaluate(_profile({"electricity_usd_per_kwh": day}))
    price = {"quiet": 0.05, "normal": 0.05, "peak": 0.30}
    for p in result.records["points"]:
        assert p["energy_usd_per_hour"] == pytest.approx(p["facility_power_kw"] * price[p["demand_point"]], rel=1e-12)


def test_an_hourly_grid_has_24_or_168_values_and_named_points_read_its_mean_with_a_warning() -> None:
    with pytest.raises(rackcost.ScenarioError) as err:
        _profile({"carbon_g_per_kwh": [390.0] * 25})
    assert any(p.path == "facility.hourly.carbon_g_per_kwh" and "24 values" in p.message for p in err.value.problems)
    with pytest.raises(rackcost.ScenarioError) as err:
        _with_facility(carbon_g_per_kwh=-1.0)
    assert any(p.path == "facility.carbon_g_per_kwh" for p in err.value.problems)
    # named points by hand: no clock, so every point reads the day's mean (here 300 g/kWh), and a warning says so
    day = [100.0] * 12 + [500.0] * 12
    result = rackcost.evaluate(_with_facility(carbon_g_per_kwh=390.0, hourly={"carbon_g_per_kwh": day}))
    for p in result.records["points"]:
        expected = p["facility_power_kw"] * 300.0 / (p["accepted_rps"] * 3600.0)
        assert p["carbon_g_per_accepted_request"] == pytest.approx(expected, rel=1e-12)
    assert any("facility.hourly" in w and "profile" in w for w in result.warnings)


@settings(max_examples=15, deadline=None)
@given(
    low=st.floats(0.0, 1500.0),
    more=st.floats(0.0, 1500.0),
    price=st.floats(0.0, 500.0),
)
def test_more_intensity_never_lowers_carbon_and_a_higher_price_never_lowers_cost(
    low: float, more: float, price: float
) -> None:
    lo = _systems(rackcost.evaluate(_with_facility(carbon_g_per_kwh=low, carbon_usd_per_tonne=price)))
    hi = _systems(rackcost.evaluate(_with_facility(carbon_g_per_kwh=low + more, carbon_usd_per_tonne=price)))
    dear = _systems(rackcost.evaluate(_with_facility(carbon_g_per_kwh=low + more, carbon_usd_per_tonne=price * 2)))
    for name in lo:
        assert hi[name]["blended_carbon_g_per_accepted_request"] >= lo[name]["blended_carbon_g_per_accepted_request"]
        assert hi[name]["usd_per_day"] >= lo[name]["usd_per_day"]
        assert dear[name]["usd_per_day"] >= hi[name]["usd_per_day"]
        assert math.isfinite(hi[name]["blended_carbon_g_per_accepted_request"])


def test_the_bundled_plan_scenario_has_carbon_in_every_table() -> None:
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-three-year-buying-plan"))
    result = rackcost.evaluate(scenario)
    owned = _systems(result)["GB200 NVL72 owned"]
    assert owned["blended_carbon_g_per_accepted_request"] > 0
    assert all(row["carbon_kg"] > 0 for row in result.records["years"] if row["system"] == "GB200 NVL72 owned")
    assert "facility.hourly.carbon_g_per_kwh" in scenario.figures


def test_the_buying_plan_pays_its_carbon_price_hour_by_hour() -> None:
    """The plan minimises cost with carbon priced in: at $190/t (US EPA, *Report on the Social Cost of Greenhouse
    Gases*, 2023, 2% discount rate) every owned or self-powered unit-hour costs more, so the plan's total rises and
    never falls; its carbon-free API source costs the same."""
    path = rackcost.bundled_scenario_path("deepseek-r1-three-year-buying-plan")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    base = rackcost.plan(rackcost.scenario_from_dict(data))
    data["facility"]["carbon_usd_per_tonne"] = 190.0
    priced = rackcost.plan(rackcost.scenario_from_dict(data))
    assert priced.total_cost_usd > base.total_cost_usd
    assert math.isfinite(priced.total_cost_usd)


def _grid_scenario_file(tmp_path: Any, grid_csv: str) -> Any:
    data = yaml.safe_load((Path(__file__).parent / "data" / "two_systems.yaml").read_text(encoding="utf-8"))
    data["demand"] = {"profile": {"hourly_arrival_rps": WEEK_DAY * 7}, "horizon_years": 1}
    data["facility"]["hourly"] = {"csv": "grid.csv", "source": "a test grid"}
    (tmp_path / "grid.csv").write_text(grid_csv, encoding="utf-8")
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_an_hourly_grid_read_from_a_csv_is_the_same_as_inline(tmp_path: Any) -> None:
    day = [100.0] * 8 + [300.0] * 10 + [600.0] * 6
    text = "hour,carbon_g_per_kwh,electricity_usd_per_kwh\n" + "".join(f"{h},{c},0.1\n" for h, c in enumerate(day))
    from_csv = rackcost.load_scenario(_grid_scenario_file(tmp_path, text))
    assert from_csv.facility.hourly is not None and from_csv.facility.hourly.carbon_g_per_kwh == day
    inline = _profile({"carbon_g_per_kwh": day, "electricity_usd_per_kwh": [0.1] * 24})
    assert rackcost.evaluate(from_csv).records["points"] == rackcost.evaluate(inline).records["points"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("hour,carbon\n0,1\n", "neither column"),
        ("carbon_g_per_kwh\n1\n", "no 'hour' column"),
        ("hour,carbon_g_per_kwh\n" + "".join(f"{h},1\n" for h in range(23)), "23 hourly rows"),
        ("hour,carbon_g_per_kwh\n" + "".join(f"{h},{'x' if h == 5 else 1}\n" for h in range(24)), "line 7"),
        ("hour,carbon_g_per_kwh\n" + "".join(f"{h + (h == 3)},1\n" for h in range(24)), "hour must be 3"),
    ],
)
def test_a_bad_grid_csv_is_a_clear_problem_at_its_yaml_path(tmp_path: Any, text: str, words: str) -> None:
    with pytest.raises(rackcost.ScenarioError) as err:
        rackcost.load_scenario(_grid_scenario_file(tmp_path, text))
    assert any(p.path == "facility.hourly.csv" and words in p.message for p in err.value.problems), err.value
