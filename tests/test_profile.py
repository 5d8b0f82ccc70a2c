"""Tests for demand over time: rackcost.model.workload.profile (the expansion, growth, named points, calendar) and
``demand: {profile: ...}`` in a scenario file (rackcost.scenario.profile_blocks): closed forms, invariants, every bad
input as a load error naming the file, the YAML path and what was expected, and the round trip of a dump."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost import ScenarioError
from rackcost.model.workload import profile as core
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.schema import Scenario
from reference import DATA, TWO_SYSTEMS

PROFILE_WEEK = DATA / "profile_week.yaml"
PROFILE_WEEK_CSV = DATA / "profile_week_csv.yaml"
BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))


def scenario_file(tmp_path: Path, demand: object, name: str = "profile.yaml", **extra: object) -> Path:
    """two_systems.yaml with ``demand`` replaced (and top-level keys added), written to ``tmp_path``."""
    data = {**BASE, "demand": demand, **extra}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def problems_of(path: Path) -> list[rackcost.Problem]:
    with pytest.raises(ScenarioError) as info:
        rackcost.load_scenario(path)
    for p in info.value.problems:
        assert p.file == str(path)
    return info.value.problems


def only_problem(path: Path, yaml_path: str, *words: str) -> rackcost.Problem:
    """The load's one problem: at ``yaml_path``, its message containing every word."""
    problems = problems_of(path)
    assert [p.path for p in problems] == [yaml_path], [str(p) for p in problems]
    for word in words:
        assert word in problems[0].message, problems[0].message
    return problems[0]


WEEK = [float(v) for v in range(1, 169)]


# --------------------------------------------------------------------------- the pure expansion: closed forms


def test_a_flat_profile_with_40_percent_a_year_ends_year_1_at_1_4x() -> None:
    # (1 + g)^(t / 8760): 1.4 at t = 8,760 h, the start of year 2; the last hour of year 1 at 1.4^(8759/8760)
    rates = core.hourly_rates_rps(np.ones(168), core.GrowthRates.per_year(0.4), 2)
    assert rates.shape == (17520,)
    assert rates[0] == 1.0
    assert rates[8760] == pytest.approx(1.4, rel=1e-14)
    assert rates[8759] == pytest.approx(1.4 ** (8759 / 8760), rel=1e-14)
    assert rates[-1] == pytest.approx(1.4 ** (17519 / 8760), rel=1e-14)
    assert np.all(np.diff(rates) > 0)


def test_per_quarter_growth_compounds_per_2190_hours() -> None:
    factors = core.growth_factors([0, 2190, 4380, 8760], core.GrowthRates.per_quarter(0.1))
    np.testing.assert_allclose(factors, [1.0, 1.1, 1.21, 1.1**4], rtol=1e-14)


def test_a_table_compounds_each_years_own_rate_continuously() -> None:
    # year 1 at +100%, year 2 at -50%: 1 -> 2 at the boundary, then 2 * 0.5^(t/8760 - 1), back to 1 at 2 years
    growth = core.GrowthRates.per_year_table([1.0, -0.5])
    factors = core.growth_factors([0, 4380, 8760, 8760 + 4380, 17519], growth)
    np.testing.assert_allclose(factors[:4], [1.0, 2**0.5, 2.0, 2 * 0.5**0.5], rtol=1e-14)
    assert factors[4] == pytest.approx(2 * 0.5 ** (8759 / 8760), rel=1e-14)


def test_growth_of_minus_100_percent_takes_demand_to_zero_without_nan() -> None:
    factors = core.growth_factors(np.arange(0, 17520, 1000), core.GrowthRates.per_year(-1.0))
    assert factors[0] == 1.0 and np.all(factors[1:] == 0.0) and np.all(np.isfinite(factors))


def test_a_week_is_tiled_into_8760_hours_and_every_year_starts_on_monday() -> None:
    rates = core.hourly_rates_rps(WEEK, None, 2)
    hours = np.arange(rates.size)
    np.testing.assert_array_equal(rates, np.asarray(WEEK)[core.hour_of_week(hours)])
    assert rates[8736] == WEEK[0]  # 52 weeks = 8,736 h: the 365th day is a Monday
    assert rates[8759] == WEEK[23]
    assert rates[8760] == WEEK[0]  # year 2 starts on a Monday again


def test_a_year_profile_repeats_every_year() -> None:
    year = np.linspace(1.0, 2.0, 8760)
    rates = core.hourly_rates_rps(year, None, 3)
    np.testing.assert_array_equal(rates, np.tile(year, 3))


def test_the_calendar_of_the_horizon() -> None:
    t = np.array([0, 23, 24, 167, 168, 729, 730, 2189, 2190, 8759, 8760, 26279])
    np.testing.assert_array_equal(core.year_index(t), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2])
    np.testing.assert_array_equal(core.quarter_index(t), [0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 4, 11])
    np.testing.assert_array_equal(core.month_index(t), [0, 0, 0, 0, 0, 0, 1, 2, 3, 11, 12, 35])
    np.testing.assert_array_equal(core.day_index(t), [0, 0, 1, 6, 7, 30, 30, 91, 91, 364, 365, 1094])
    np.testing.assert_array_equal(core.hour_of_day(t), [0, 23, 0, 23, 0, 9, 10, 5, 6, 23, 0, 23])
    np.testing.assert_array_equal(core.hour_of_week(t), [0, 23, 24, 167, 0, 57, 58, 5, 6, 23, 0, 23])


def test_named_points_are_percentiles_and_hours_of_the_nearest_rates() -> None:
    # 6 h at 1, 12 h at 2, 6 h at 4: percentiles 0, 50, 100 are 1, 2, 4, and each rate is nearest to itself
    rates, hours = core.named_points([1.0] * 6 + [2.0] * 12 + [4.0] * 6, (0, 50, 100))
    assert rates.tolist() == [1.0, 2.0, 4.0]
    assert hours.tolist() == [6.0, 12.0, 6.0]
    # numpy's linear percentile of 1..100: P5 = 1 + 0.05 * 99 = 5.95, P50 = 50.5
    rates, hours = core.named_points(np.arange(1.0, 101.0))
    np.testing.assert_allclose(rates, [5.95, 50.5, 100.0])
    # nearest to 5.95: 1..28 (midpoint 28.225); to 50.5: 29..75 (midpoint 75.25); to 100: 76..100
    np.testing.assert_allclose(hours, 24 * np.array([28, 47, 25]) / 100, rtol=1e-14)
    assert math.fsum(hours) == 24.0


def test_a_point_nearest_to_almost_no_hours_gets_the_floor_from_the_largest() -> None:
    # the busiest of 26,280 hours alone: 24 / 26,280 h/day is under the 1e-3 a demand point may have
    rates = np.ones(26280)
    rates[100] = 10.0
    points, hours = core.named_points(rates)
    assert points.tolist() == [1.0, 1.0, 10.0]
    assert hours[2] == 1e-3 and hours[1] == 1e-3  # a tie goes to the lower point: normal gets no hour of its own
    assert hours[0] == pytest.approx(24 - 2e-3) and sum(hours) == pytest.approx(24.0, abs=1e-12)


def test_bad_arguments_of_the_core_are_value_errors() -> None:
    with pytest.raises(ValueError, match="168 n .n whole weeks, 1 to 52. or 8,760"):
        core.hourly_rates_rps(np.ones(100), None, 1)
    with pytest.raises(ValueError, match="horizon_years"):
        core.hourly_rates_rps(np.ones(168), None, 11)
    with pytest.raises(ValueError, match=">= -1"):
        core.growth_factors([0, 1], core.GrowthRates.per_year(-1.5))
    with pytest.raises(ValueError, match="increase"):
        core.named_points(np.ones(10), (50, 5, 100))


# --------------------------------------------------------------------------- invariants


rates_168 = st.lists(st.floats(0, 1e4, allow_nan=False), min_size=168, max_size=168)


@settings(max_examples=40, deadline=None)
@given(profile=rates_168, g=st.floats(0, 5), years=st.integers(1, 4), table=st.booleans())
def test_growth_at_or_above_zero_never_lowers_any_hour(profile: list[float], g: float, years: int, table: bool) -> None:
    growth = core.GrowthRates.per_year_table([g] * years) if table else core.GrowthRates.per_year(g)
    grown = core.hourly_rates_rps(profile, growth, years)
    flat = core.hourly_rates_rps(profile, None, years)
    assert np.all(grown >= flat) and np.all(np.isfinite(grown))


@settings(max_examples=40, deadline=None)
@given(
    profile=st.lists(st.floats(0.01, 1e4, allow_nan=False), min_size=168, max_size=168),
    scale=st.floats(1e-3, 1e3),
    g=st.floats(-0.9, 2),
)
def test_scaling_the_profile_scales_every_named_point_and_keeps_the_hours(
    profile: list[float], scale: float, g: float
) -> None:
    growth = core.GrowthRates.per_year(g)
    rates, hours = core.named_points(core.hourly_rates_rps(profile, growth, 2))
    scaled, scaled_hours = core.named_points(core.hourly_rates_rps(np.asarray(profile) * scale, growth, 2))
    np.testing.assert_allclose(scaled, rates * scale, rtol=1e-9)
    # ties of the nearest point may fall either side after rounding: the hours agree but for a few hours
    np.testing.assert_allclose(scaled_hours, hours, atol=24 * 3 / 17520)
    assert math.isclose(math.fsum(hours), 24.0, abs_tol=1e-9) and np.all(hours >= 1e-3)


@settings(max_examples=40, deadline=None)
@given(profile=rates_168.filter(lambda v: max(v) > 0), years=st.integers(1, 10))
def test_the_named_points_rise_and_the_peak_is_the_busiest_hour(profile: list[float], years: int) -> None:
    hourly = core.hourly_rates_rps(profile, core.GrowthRates.per_year(0.4), years)
    rates, hours = core.named_points(hourly)
    assert rates[0] <= rates[1] <= rates[2] == hourly.max()
    assert math.isclose(math.fsum(hours), 24.0, abs_tol=1e-9)


# --------------------------------------------------------------------------- scenario files


def test_the_weekly_fixture_loads_into_three_named_points() -> None:
    scenario = rackcost.load_scenario(PROFILE_WEEK)
    assert [d.name for d in scenario.demand] == ["quiet", "normal", "peak"]
    profile = scenario.demand_profile
    assert profile is not None and profile.horizon_years == 3
    assert len(profile.profile.hourly_arrival_rps or []) == 168
    hourly = profile.hourly_rates_rps()
    assert hourly.shape == (26280,)
    # the busiest hour is the last hour of year 3 at the week's 20 rps (a weekday afternoon), grown by 1.4^(t/8760)
    t = np.arange(26280)
    last_busy = int(t[np.asarray(profile.profile.hourly_arrival_rps)[core.hour_of_week(t)] == 20.0].max())
    assert core.day_index(last_busy) % 7 < 5 and 9 <= core.hour_of_day(last_busy) <= 17
    assert hourly[last_busy] == pytest.approx(20 * 1.4 ** (last_busy / 8760), rel=1e-14)
    assert scenario.demand[2].arrival_rps == hourly.max() == hourly[last_busy]
    assert scenario.sizing_point.name == "peak"
    assert math.isclose(sum(d.hours_per_day for d in scenario.demand), 24.0, abs_tol=1e-9)
    result = rackcost.evaluate(scenario)
    assert set(result.points["demand_point"]) == {"quiet", "normal", "peak"}


def test_the_csv_fixture_is_the_same_scenario_as_the_inline_one() -> None:
    assert rackcost.load_scenario(PROFILE_WEEK_CSV) == rackcost.load_scenario(PROFILE_WEEK)


def test_a_named_points_scenario_has_no_profile() -> None:
    assert rackcost.load_scenario(TWO_SYSTEMS).demand_profile is None


@pytest.mark.parametrize("fixture", [PROFILE_WEEK, PROFILE_WEEK_CSV])
def test_a_dumped_profile_scenario_loads_back_the_same(fixture: Path, tmp_path: Path) -> None:
    scenario = rackcost.load_scenario(fixture)
    text = rackcost.scenario_to_yaml(scenario)
    assert "csv" not in text  # a CSV profile dumps its values inline
    assert rackcost.scenario_from_yaml(text) == scenario
    # the dashboard's path: canonical JSON of scenario_to_data, validated again
    again = rackcost.scenario_from_dict(json.loads(json.dumps(scenario_to_data(scenario))))
    assert again == scenario and again.demand_profile == scenario.demand_profile
    assert Scenario.model_validate(scenario.model_dump()) == scenario
    # and a dumped file in another folder (the CSV not beside it) loads too
    path = tmp_path / "dumped.yaml"
    path.write_text(text, encoding="utf-8")
    assert rackcost.load_scenario(path) == scenario


def test_a_sizing_demand_point_may_name_a_point_of_the_profile(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": WEEK}}, fleet={"sizing_demand_point": "normal"})
    assert rackcost.load_scenario(path).sizing_point.name == "normal"


def test_points_growth_table_and_scv_are_taken(tmp_path: Path) -> None:
    demand = {
        "profile": {"hourly_arrival_rps": WEEK},
        "growth": {"per_year_table": [0.5, 0.2]},
        "horizon_years": 2,
        "points": {"quiet": 10, "normal": 60, "peak": 99},
        "arrival_scv": 2.0,
    }
    scenario = rackcost.load_scenario(scenario_file(tmp_path, demand))
    hourly = core.hourly_rates_rps(WEEK, core.GrowthRates.per_year_table([0.5, 0.2]), 2)
    np.testing.assert_allclose([d.arrival_rps for d in scenario.demand], np.percentile(hourly, [10, 60, 99]))
    assert all(d.arrival_scv == 2.0 for d in scenario.demand)


def test_a_csv_with_an_hour_column_and_a_named_rate_column(tmp_path: Path) -> None:
    rows = ["hour,site,rps"] + [f"{i},x,{v}" for i, v in enumerate(WEEK)]
    (tmp_path / "week.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    path = scenario_file(tmp_path, {"profile": {"csv": "week.csv", "column": "rps"}})
    scenario = rackcost.load_scenario(path)
    assert scenario.demand_profile is not None and scenario.demand_profile.profile.hourly_arrival_rps == WEEK


def test_an_idle_hour_makes_a_quiet_point_at_the_lowest_rate_allowed(tmp_path: Path) -> None:
    scenario = rackcost.load_scenario(
        scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": [0.0] * 84 + [5.0] * 84}})
    )
    assert scenario.demand[0].arrival_rps == 1e-6


# --------------------------------------------------------------------------- bad input: file, path, message


def test_a_profile_of_the_wrong_length(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": [1.0] * 100}})
    problem = only_problem(path, "demand.profile.hourly_arrival_rps", "100 values", "168", "8,760")
    assert problem.line is not None


def test_negative_hours_are_named_one_by_one(tmp_path: Path) -> None:
    values = [1.0] * 168
    values[3] = -2.0
    problem = only_problem(
        scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": values}}),
        "demand.profile.hourly_arrival_rps[3]",
        "hour 3",
        "got -2",
    )
    assert problem.line is not None


def test_many_negative_hours_are_listed_five_then_counted(tmp_path: Path) -> None:
    problems = problems_of(scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": [-1.0] * 168}}))
    assert len(problems) == 6 and any("163 more" in p.message for p in problems)


@pytest.mark.parametrize("value", [None, ".nan", ".inf"])
def test_a_missing_or_non_finite_hour(tmp_path: Path, value: str | None) -> None:
    path = scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": WEEK}})
    text = path.read_text(encoding="utf-8").replace("- 4.0\n", f"- {value if value else 'null'}\n", 1)
    path.write_text(text, encoding="utf-8")
    only_problem(path, "demand.profile.hourly_arrival_rps[3]", "must be")


def test_growth_below_minus_100_percent(tmp_path: Path) -> None:
    demand = {"profile": {"hourly_arrival_rps": WEEK}, "growth": {"per_year_fraction": -1.5}}
    only_problem(scenario_file(tmp_path, demand), "demand.growth.per_year_fraction", "-100%", "got -1.5")
    demand = {"profile": {"hourly_arrival_rps": WEEK}, "growth": {"per_year_table": [0.1, -2]}, "horizon_years": 2}
    only_problem(scenario_file(tmp_path, demand), "demand.growth.per_year_table[1]", "at least -1")


@pytest.mark.parametrize(
    ("demand", "path", "words"),
    [
        ({"profile": {"hourly_arrival_rps": WEEK}, "horizon_years": 11}, "demand.horizon_years", ("<= 10",)),
        ({"profile": {"hourly_arrival_rps": WEEK}, "horizon_years": 0}, "demand.horizon_years", (">= 1",)),
        ({"profile": {"hourly_arrival_rps": WEEK}, "growth": {}}, "demand.growth", ("give one of",)),
        (
            {
                "profile": {"hourly_arrival_rps": WEEK},
                "growth": {"per_year_fraction": 0.1, "per_quarter_fraction": 0.1},
            },
            "demand.growth",
            ("per_year_fraction, per_quarter_fraction",),
        ),
        (
            {"profile": {"hourly_arrival_rps": WEEK}, "growth": {"per_year_table": [0.1]}, "horizon_years": 3},
            "demand.growth.per_year_table",
            ("1 years", "horizon has 3"),
        ),
        ({"profile": {"hourly_arrival_rps": WEEK}, "points": {"normal": 2}}, "demand.points", ("quiet < normal",)),
        ({"profile": {"hourly_arrival_rps": WEEK}, "horizn_years": 2}, "demand.horizn_years", ("unknown key",)),
        ({"profile": {"hourly_arrival_rps": [0.0] * 168}}, "demand.profile", ("no demand",)),
        (
            {"profile": {"hourly_arrival_rps": [9e6] * 168}, "growth": {"per_year_fraction": 1}},
            "demand.growth",
            ("1e+07",),
        ),
        ({"profile": {}}, "demand.profile.hourly_arrival_rps", ("inline or a csv",)),
        ({"name": "peak", "arrival_rps": 3, "hours_per_day": 24}, "demand", ("list of named points", "profile")),
        (
            {"profile": {"hourly_arrival_rps": WEEK[:3] + [{"dist": "uniform", "low": 1, "high": 2}] + WEEK[4:]}},
            "demand.profile.hourly_arrival_rps[3]",
            ("distribution is not allowed in a demand profile",),
        ),
    ],
)
def test_bad_profiles(tmp_path: Path, demand: dict[str, object], path: str, words: tuple[str, ...]) -> None:
    only_problem(scenario_file(tmp_path, demand), path, *words)


def test_other_problems_are_said_beside_the_profiles(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": [1.0] * 7}}, name="both.yaml")
    text = path.read_text(encoding="utf-8").replace("pue: 1.2", "pue: 7")
    path.write_text(text, encoding="utf-8")
    assert sorted(p.path for p in problems_of(path)) == ["demand.profile.hourly_arrival_rps", "facility.pue"]


def write_csv(tmp_path: Path, rows: list[str], name: str = "load.csv") -> Path:
    (tmp_path / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    return scenario_file(tmp_path, {"profile": {"csv": name}})


def timestamp_rows(hours: list[int], rate: str = "1") -> list[str]:
    base = np.datetime64("2026-01-05T00:00")
    return ["timestamp,arrival_rps"] + [f"{base + np.timedelta64(h, 'h')},{rate}" for h in hours]


def test_a_timestamp_gap_names_the_line_and_counts_the_missing_hours(tmp_path: Path) -> None:
    path = write_csv(tmp_path, timestamp_rows([h for h in range(170) if h not in (30, 31)]))
    problem = only_problem(path, "demand.profile.csv", "load.csv", "line 32", "after line 31's", "2 hours are missing")
    assert "2026" not in problem.message  # by line, never the file's own text


SECRET_CELL = "secret-token-abc123"


@pytest.mark.parametrize(
    ("header", "name"), [(SECRET_CELL, "the rate"), ("arrival_rps", "arrival_rps"), ("rps", "the rate")]
)
def test_a_one_column_csv_names_its_rate_but_never_quotes_its_header(tmp_path: Path, header: str, name: str) -> None:
    # a one-column CSV headed by a line of text named its rates by that line ("line 2: outside-secret-7f3a9c must be
    # a number"): a sweep may read a file outside its folder whose first line is anything (found by
    # tests/fuzzing_sweeps_profiles.py)
    problem = only_problem(write_csv(tmp_path, [header, "oops"]), "demand.profile.csv", "load.csv", "line 2")
    assert f"line 2: {name} must be a number" in problem.message, problem.message
    assert SECRET_CELL not in problem.message


@pytest.mark.parametrize(
    ("header", "row", "words"),
    [
        ("hour,arrival_rps", f"0,{SECRET_CELL}", ("line 2", "arrival_rps", "got text, not a number")),
        ("hour,arrival_rps", f"{SECRET_CELL},1", ("line 2", "hour must be 0", "got text, not a number")),
        ("timestamp,arrival_rps", f"{SECRET_CELL},1", ("line 2", "ISO 8601", "got text, not a number")),
        ("hour,arrival_rps", "0,-77123", ("line 2", "got a negative number")),
        ("hour,arrival_rps", "0,9123456789", ("line 2", "got a number above the limit")),
        ("hour,arrival_rps", "0,nan", ("line 2", "got NaN")),
        ("hour,arrival_rps", "-4567,1", ("line 2", "hour must be 0", "got an earlier one")),
        ("hour,arrival_rps", "4567,1", ("line 2", "hour must be 0", "got a later one")),
    ],
)
def test_a_bad_cell_is_described_by_its_line_column_and_kind_never_quoted(
    tmp_path: Path, header: str, row: str, words: tuple[str, ...]
) -> None:
    """An error about a CSV's cell names where it is and what kind of value is there, never the value: a sweep's
    scenario may name a file it must not show (issue 33, item 13, where the error quoted 'secret-token-abc123')."""
    problem = only_problem(write_csv(tmp_path, [header, row]), "demand.profile.csv", "load.csv", *words)
    for cell in (c for c in row.split(",") if len(c) > 1):  # (0 and 1 are in every such message's range)
        assert cell not in problem.message, problem.message


def test_a_repeated_timestamp(tmp_path: Path) -> None:
    path = write_csv(tmp_path, timestamp_rows([*range(100), 99, *range(100, 167)]))
    only_problem(path, "demand.profile.csv", "line 102", "not one hour after")


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        (timestamp_rows(list(range(100))), ("100 hourly rows", "168")),
        (["when,arrival_rps", "0,1"], ("no 'timestamp' or 'hour' column",)),
        (["hour,rps", "0,1"], ("no column named 'arrival_rps'",)),
        (["hour,arrival_rps"] + [f"{h},1" for h in (*range(5), *range(6, 169))], ("line 7", "hour 5 is missing")),
        (["hour,arrival_rps"] + [f"{h},{'-3' if h == 9 else '1'}" for h in range(168)], ("line 11", "got a negative")),
        (["hour,arrival_rps"] + [f"{h},{'nan' if h == 9 else '1'}" for h in range(168)], ("line 11", "got NaN")),
        (["hour,arrival_rps"] + [f"{h},{'' if h == 9 else '1'}" for h in range(168)], ("line 11", "is missing")),
        (["timestamp,arrival_rps", "yesterday,1"], ("line 2", "ISO 8601")),
        ([], ("empty",)),
    ],
)
def test_bad_csv_files(tmp_path: Path, rows: list[str], words: tuple[str, ...]) -> None:
    only_problem(write_csv(tmp_path, rows), "demand.profile.csv", "load.csv", *words)


def test_a_missing_csv_file(tmp_path: Path) -> None:
    only_problem(scenario_file(tmp_path, {"profile": {"csv": "nowhere.csv"}}), "demand.profile.csv", "no such file")


def test_a_csv_is_not_read_for_a_scenario_given_as_text(tmp_path: Path) -> None:
    (tmp_path / "load.csv").write_text("hour,arrival_rps\n" + "".join(f"{h},1\n" for h in range(168)))
    text = scenario_file(tmp_path, {"profile": {"csv": "load.csv"}}).read_text(encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        rackcost.scenario_from_yaml(text, "upload.yaml")
    assert [p.path for p in info.value.problems] == ["demand.profile.csv"]
    assert "not loaded from a file" in info.value.problems[0].message


def test_demand_profile_beside_a_profile_is_an_error(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": WEEK}}, demand_profile={"profile": {}})
    only_problem(path, "demand_profile", "remove demand_profile")


def test_the_json_schema_offers_both_forms_of_demand() -> None:
    schema = Scenario.model_json_schema(by_alias=True)
    refs = json.dumps(schema["properties"]["demand"])
    assert "DemandPoint" in refs and "DemandProfile" in refs
    assert {"profile", "growth", "horizon_years", "points"} <= set(schema["$defs"]["DemandProfile"]["properties"])


def test_an_unreadable_csv_and_a_bad_growth_are_both_said(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, {"profile": {"csv": "nowhere.csv"}, "growth": {"per_year_fraction": -3}})
    assert [p.path for p in problems_of(path)] == ["demand.profile.csv", "demand.growth.per_year_fraction"]


def test_monte_carlo_and_a_demand_scale_sweep_run_on_the_named_points(tmp_path: Path) -> None:
    scenario = rackcost.load_scenario(PROFILE_WEEK)
    data = scenario_to_data(scenario)
    data["facility"]["pue"] = {"dist": "uniform", "low": 1.1, "high": 1.4}
    uncertain = rackcost.scenario_from_dict(data)
    assert uncertain.demand_profile == scenario.demand_profile
    result = rackcost.uncertainty(uncertain, samples=64, seed=1)
    assert {r["demand_point"] for r in result.probability_cheaper} == {"quiet", "normal", "peak", "blended"}
    (tmp_path / "week.yaml").write_text(PROFILE_WEEK.read_text(encoding="utf-8"), encoding="utf-8")
    sweep = {
        "name": "scale",
        "scenario": "week.yaml",
        "axes": [{"axis": "demand.scale", "values": [0.5, 2.0], "provenance": "assumption", "why": "t", "source": "t"}],
    }
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump(sweep), encoding="utf-8")
    table = rackcost.sweep(tmp_path / "sweep.yaml")
    assert len(table) == 2 * 2 * 3  # configurations x systems x named points


# --------------------------------------------------------------------------- profiles of several weeks


WEEK_2 = [float(v) for v in range(1001, 1169)]


def test_a_two_week_profile_tiles_as_week1_week2_week1() -> None:
    # 52 weeks and a day: weeks 1, 2, 1, 2, ... and the 365th day is Monday of week 1 again (every year restarts)
    rates = core.hourly_rates_rps(WEEK + WEEK_2, None, 2)
    year = np.concatenate([WEEK, WEEK_2] * 26 + [WEEK[:24]])
    np.testing.assert_array_equal(rates, np.concatenate([year, year]))
    hours = np.arange(rates.size)
    np.testing.assert_array_equal(rates, np.asarray(WEEK + WEEK_2)[core.hour_of_profile(hours, 336)])


def test_a_two_week_profile_loads_with_both_weeks_in_its_points(tmp_path: Path) -> None:
    scenario = rackcost.load_scenario(scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": WEEK + WEEK_2}}))
    assert [d.arrival_rps for d in scenario.demand][-1] == 1168.0  # the busiest hour is in week 2
    assert len(scenario.demand_profile.profile.hourly_arrival_rps) == 336
    csv = tmp_path / "two_weeks.csv"
    csv.write_text("hour,arrival_rps\n" + "".join(f"{h},{v}\n" for h, v in enumerate(WEEK + WEEK_2)), "utf-8")
    from_csv = rackcost.load_scenario(scenario_file(tmp_path, {"profile": {"csv": "two_weeks.csv"}}, "csv.yaml"))
    assert from_csv.demand == scenario.demand


@pytest.mark.parametrize("hours", [200, 167, 8904])
def test_a_length_of_no_whole_weeks_nor_a_year_is_an_error_naming_the_path(tmp_path: Path, hours: int) -> None:
    path = scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": [1.0] * hours}})
    only_problem(path, "demand.profile.hourly_arrival_rps", f"{hours:,} values", "whole number of weeks", "8,760")
    csv = tmp_path / "rates.csv"
    csv.write_text("hour,arrival_rps\n" + "".join(f"{h},1\n" for h in range(hours)), "utf-8")
    only_problem(
        scenario_file(tmp_path, {"profile": {"csv": "rates.csv"}}, "c.yaml"), "demand.profile.csv", "rates.csv"
    )


# --------------------------------------------------------------------------- the windows inside each hour

HOUR_WINDOWS = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
PEAKY = [1.12, 1.14, 0.70, 0.89, 1.33, 0.82]  # ServeGen's busiest hour over its mean (rounded)


def with_windows(busy: list[float] = PEAKY) -> dict[str, object]:
    windows = [[r * h for r in HOUR_WINDOWS] for h in WEEK]
    windows[167] = [r * WEEK[167] for r in busy]  # the busiest hour of the week
    windows[5] = [0.0] * 6  # an idle hour's windows are allowed (its hour is constant)
    return {"profile": {"hourly_arrival_rps": WEEK}, "sub_hour": {"window_s": 600, "window_rps": windows}}


def test_the_named_points_carry_the_windows_of_their_nearest_hour(tmp_path: Path) -> None:
    scenario = rackcost.load_scenario(scenario_file(tmp_path, with_windows()))
    peak = scenario.demand[-1]
    assert peak.sub_hour is not None and peak.sub_hour.window_s == 600
    np.testing.assert_allclose(peak.sub_hour.rate_ratios, np.asarray(PEAKY) / np.mean(PEAKY), rtol=1e-15)
    assert "hour 167" in (peak.sub_hour.source or "")
    assert scenario.demand[0].sub_hour is None  # a flat hour's windows: a constant rate
    dumped = rackcost.scenario_from_dict(scenario_to_data(scenario))
    assert dumped == scenario


def test_a_profile_with_flat_windows_is_the_profile_without_bit_for_bit(tmp_path: Path) -> None:
    plain = rackcost.evaluate(
        rackcost.load_scenario(scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": WEEK}}))
    )
    flat = rackcost.evaluate(rackcost.load_scenario(scenario_file(tmp_path, with_windows(HOUR_WINDOWS), "f.yaml")))
    for table in ("points", "systems", "years", "horizon"):
        assert json.dumps(flat.records[table]) == json.dumps(plain.records[table])


def test_windows_size_the_fleet_and_every_hour_of_the_horizon_uses_them(tmp_path: Path) -> None:
    plain = rackcost.load_scenario(scenario_file(tmp_path, {"profile": {"hourly_arrival_rps": WEEK}}))
    peaky = rackcost.load_scenario(scenario_file(tmp_path, with_windows(), "p.yaml"))
    points = {(r["system"], r["demand_point"]): r for r in rackcost.evaluate(peaky).records["points"]}
    before = {(r["system"], r["demand_point"]): r for r in rackcost.evaluate(plain).records["points"]}
    assert any(points[k]["active_replicas"] > before[k]["active_replicas"] for k in points)
    profile = peaky.demand_profile
    hours = rackcost.evaluate_hours(peaky, profile.hourly_rates_rps(), window_ratios=profile.hourly_window_ratios())
    busiest = hours.hours[hours.hours["hour"] == 167]
    for row in busiest.itertuples():
        peak = points[(row.system, "peak")]
        assert row.active_replicas == peak["active_replicas"]
        assert row.accepted_rps == pytest.approx(peak["accepted_rps"], rel=1e-9)
    assert (hours.hours["accepted_rps"] <= hours.hours["offered_rps"]).all()


def test_windows_of_the_wrong_count_name_their_path(tmp_path: Path) -> None:
    demand = with_windows()
    demand["sub_hour"]["window_rps"][3] = [1.0] * 5  # type: ignore[index]
    only_problem(scenario_file(tmp_path, demand), "demand.sub_hour.window_rps[3]", "5 windows", "6 of 600 s")
    demand = with_windows()
    demand["sub_hour"]["window_rps"] = demand["sub_hour"]["window_rps"][:100]  # type: ignore[index]
    only_problem(scenario_file(tmp_path, demand, "b.yaml"), "demand.sub_hour.window_rps", "100 hours", "168 hours")
