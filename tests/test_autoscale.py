"""Autoscaling with a delay (rackcost.model.fleets.autoscale, fleet.scaling, the horizon evaluation and the ramp
simulator).

Closed forms: with capacity linear in the replicas (``c`` requests/s each, the fleet exactly sized), a step of the
rate from ``a`` to ``b`` with a scale-up delay ``d`` loses ``(b - a) d`` requests (the replicas for the rise serve
``d`` after they are asked for: a fluid queue's loss over a provisioning lag, as in M. Harchol-Balter, *Performance
Modeling and Design of Computer Systems*, Cambridge University Press, 2013, ch. 27 "Power Optimization
Application": setup times); with no delay every figure is ``park``'s; a forecast that looks as far ahead as the delay
loses nothing. Properties: a longer scale-up delay never accepts more, a longer scale-down delay never loses more.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.analysis.referee_scaling import ramp_check
from rackcost.evaluation.horizon import evaluate_hours
from rackcost.model.fleets.autoscale import delay_steps, scale_replicas, step_grid
from rackcost.model.sim.sim_autoscale import simulate_ramp

PROFILE_WEEK = Path(__file__).parent / "data" / "profile_week.yaml"
RISING_HOUR = 7
"""The first rising hour of the week's profile: 5 requests/s at 06:00, 12 at 07:00."""


@functools.cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(PROFILE_WEEK.read_text(encoding="utf-8"))
    data["demand"]["horizon_years"] = 1
    for system in data["systems"]:  # parking saves power (by default it draws the idle power)
        system["hardware"].update(accelerator_parked_w=10.0, host_parked_w_per_node=100.0)
    return data


def _scenario(fleet: dict[str, Any]) -> rackcost.Scenario:
    data = dict(_data(), fleet=fleet)
    return rackcost.scenario_from_dict(data, "autoscale test")


@functools.cache
def _horizon(kind: str) -> Any:
    fleets = {
        "powered": {"idle_policy": "powered"},
        "park": {"idle_policy": "park"},
        "instant": {"idle_policy": "park", "scaling": {"scale_up_delay_s": 0}},
        "five_minutes": {"idle_policy": "park", "scaling": {"scale_up_delay_s": 300, "scale_down_delay_s": 600}},
        "forecast": {"idle_policy": "park", "scaling": {"scale_up_delay_s": 300, "forecast_lead_s": 300}},
    }
    scenario = _scenario(fleets[kind])
    assert scenario.demand_profile is not None
    return evaluate_hours(scenario, scenario.demand_profile.hourly_rates_rps())


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(1, 20),
    rise=st.integers(1, 20),
    c=st.floats(0.5, 50.0),
    delay=st.integers(0, 30),
    before=st.integers(1, 40),
)
def test_a_step_loses_the_rise_times_the_delay(a: int, rise: int, c: float, delay: int, before: int) -> None:
    b = a + rise
    fleet = b + 3
    capacity = c * np.arange(fleet + 1)
    rates = np.concatenate([np.full(before, a * c), np.full(delay + 10, b * c)])
    r = scale_replicas(rates, capacity, 0, 0, delay, 0)
    assert r.lost_rps.sum() == pytest.approx((b - a) * c * delay, rel=1e-9)
    assert np.all(r.available <= r.needed) and np.all(r.warming == r.needed - r.available)


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(st.floats(0.0, 30.0), min_size=2, max_size=80),
    up=st.integers(0, 10),
    down=st.integers(0, 10),
    more=st.integers(1, 10),
)
def test_a_longer_up_delay_never_accepts_more_and_a_longer_down_delay_never_loses_more(
    steps: list[float], up: int, down: int, more: int
) -> None:
    capacity = np.concatenate([[0.0], np.cumsum(np.full(12, 3.0))])
    base = scale_replicas(steps, capacity, 1, 0, up, down)
    slower = scale_replicas(steps, capacity, 1, 0, up + more, down)
    held = scale_replicas(steps, capacity, 1, 0, up, down + more)
    assert np.all(slower.lost_rps >= base.lost_rps - 1e-12)
    assert np.all(held.lost_rps <= base.lost_rps + 1e-12)
    assert np.all(held.requested >= base.requested)
    none = scale_replicas(steps, capacity, 1, 0, 0, 0)
    assert np.all(none.available == none.needed) and not none.lost_rps.any()


def test_min_replicas_stay_up_and_the_fleet_bounds_the_count() -> None:
    r = scale_replicas([0.0, 0.0, 100.0], [0.0, 1.0, 2.0, 3.0], 0, 2, 1, 0)
    assert r.needed.tolist() == [0, 0, 3] and r.requested.tolist() == [2, 2, 3] and r.available.tolist() == [2, 2, 2]
    assert r.lost_rps.tolist() == [0.0, 0.0, 1.0]  # park carries 3 of the 100, the delay loses 1 of them
    assert r.idle_headroom.tolist() == [2, 2, 0]  # the minimum is up and idle where park would run none


def test_the_grid_cuts_each_window_into_steps_of_a_minute_and_delays_round_up() -> None:
    rates, step_s = step_grid([10.0, 20.0], [[0.5, 1.5], [1.0, 1.0]])
    assert step_s == 60.0 and rates.size == 120
    assert rates[:30].tolist() == [5.0] * 30 and rates[30:60].tolist() == [15.0] * 30
    assert delay_steps(300.0, 60.0) == 5 and delay_steps(301.0, 60.0) == 6 and delay_steps(0.0, 60.0) == 0


def test_no_delay_is_park_hour_by_hour() -> None:
    park, instant = _horizon("park").hours, _horizon("instant").hours
    for column in ("accepted_rps", "rejected_rps", "active_replicas", "facility_power_kw", "cost_usd", "carbon_kg"):
        assert np.array_equal(park[column].to_numpy(), instant[column].to_numpy()), column
    assert not instant["ramp_lost_rps"].any() and not instant["warming_replicas"].any()


def test_a_five_minute_delay_loses_the_rising_hour_and_costs_between_park_and_powered() -> None:
    park, delayed, powered = (_horizon(k) for k in ("park", "five_minutes", "powered"))
    for system in ("A", "B"):
        p, d, w = (r.hours[r.hours.system == system] for r in (park, delayed, powered))
        rising = d.iloc[RISING_HOUR]
        assert rising.accepted_rps < p.iloc[RISING_HOUR].accepted_rps
        assert rising.ramp_lost_rps > 0 and rising.warming_replicas > 0
        # after a fall (18:00, 20 to 16 requests/s) the scale-down delay keeps replicas up and idle
        assert d.iloc[18].warm_headroom_replicas > 0
        runs = (("p", park), ("d", delayed), ("w", powered))
        totals = {k: r.horizon.set_index("system").loc[system] for k, r in runs}
        assert totals["p"].cost_usd < totals["d"].cost_usd < totals["w"].cost_usd
        per_request = [totals[k].usd_per_accepted_request for k in ("p", "d", "w")]
        assert per_request[0] < per_request[1] < per_request[2]
        # the lost requests are what leaves the accepted ones
        lost = d.ramp_lost_rps.sum() * 3600.0
        assert totals["p"].accepted_requests - totals["d"].accepted_requests == pytest.approx(lost, rel=1e-9)


def test_a_forecast_as_long_as_the_delay_loses_nothing_and_warms_earlier() -> None:
    park, forecast = _horizon("park"), _horizon("forecast")
    assert not forecast.hours["ramp_lost_rps"].any()
    assert np.array_equal(park.hours.accepted_rps.to_numpy(), forecast.hours.accepted_rps.to_numpy())
    assert (forecast.horizon.cost_usd.to_numpy() >= park.horizon.cost_usd.to_numpy()).all()


def test_model_and_simulator_agree_within_two_points_on_the_rising_hour() -> None:
    scenario = _scenario({"idle_policy": "park", "scaling": {"scale_up_delay_s": 300}})
    checks = ramp_check(scenario, RISING_HOUR, 1, seed=1)
    assert [c.system for c in checks] == ["A", "B"]
    for c in checks:
        assert c.model_delayed_fraction < c.model_instant_fraction
        assert c.sim_delayed_fraction < c.sim_instant_fraction
        assert abs(c.model_delayed_fraction - c.sim_delayed_fraction) < 0.02
        assert abs(c.model_instant_fraction - c.sim_instant_fraction) < 0.02
        # a stack that admits by the budget serves the overload at full throughput: never less than the model
        assert c.sim_budget_delayed_fraction >= c.sim_delayed_fraction


def test_the_simulated_fleet_serves_what_comes_when_it_has_room() -> None:
    run = simulate_ramp([1.0] * 10, [4] * 10, 60.0, 8, 1.0, 0.5, seed=3)
    assert run.accepted_fraction == 1.0 and run.arrivals.sum() > 0
    with pytest.raises(ValueError, match="one replica count per step"):
        simulate_ramp([1.0, 1.0], [1], 60.0, 8, 1.0, 0.5)


@pytest.mark.parametrize(
    ("scaling", "path"),
    [
        ({"scale_up_delay_s": -1}, "fleet.scaling.scale_up_delay_s"),
        ({"scale_up_delay_s": True}, "fleet.scaling.scale_up_delay_s"),
        ({"scale_up_delay_s": 300, "scale_down_delay_s": 1e9}, "fleet.scaling.scale_down_delay_s"),
        ({"scale_up_delay_s": 300, "target_utilization_fraction": 0}, "fleet.scaling.target_utilization_fraction"),
        ({"scale_up_delay_s": 300, "min_replicas": -2}, "fleet.scaling.min_replicas"),
        ({"scale_down_delay_s": 60}, "fleet.scaling.scale_up_delay_s"),
        ({"scale_up_delay_s": 300, "delay": 5}, "fleet.scaling.delay"),
    ],
)
def test_bad_scaling_names_the_field(scaling: dict[str, Any], path: str) -> None:
    with pytest.raises(rackcost.ScenarioError) as err:
        _scenario({"idle_policy": "park", "scaling": scaling})
    assert any(p.path == path for p in err.value.problems), err.value.problems


def test_scaling_needs_a_profile() -> None:
    data = yaml.safe_load(PROFILE_WEEK.read_text(encoding="utf-8"))
    data["demand"] = [{"name": "peak", "arrival_rps": 10.0, "hours_per_day": 24}]
    data["fleet"] = {"idle_policy": "park", "scaling": {"scale_up_delay_s": 300}}
    with pytest.raises(rackcost.ScenarioError) as err:
        rackcost.scenario_from_dict(data, "no profile")
    assert any(p.path == "fleet.scaling" and "demand.profile" in p.message for p in err.value.problems)


def test_simulate_ramp_prints_model_beside_simulator_and_refuses_without_scaling(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rackcost.cli import app

    path = tmp_path / "ramp.yaml"
    path.write_text(yaml.safe_dump(dict(_data(), fleet={"idle_policy": "park", "scaling": {"scale_up_delay_s": 300}})))
    runner = CliRunner()
    result = runner.invoke(app, ["simulate", str(path), "--ramp", str(RISING_HOUR), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert [r["system"] for r in rows] == ["A", "B"]
    assert all(r["model_delayed_fraction"] < r["model_instant_fraction"] for r in rows)
    table = runner.invoke(app, ["simulate", str(path), "--ramp", str(RISING_HOUR)])
    assert table.exit_code == 0 and "simulated, with the delay" in table.output
    late = runner.invoke(app, ["simulate", str(path), "--ramp", "9000"])
    assert late.exit_code == 1 and "first_hour" in late.output and "Traceback" not in late.output
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump(dict(_data(), fleet={"idle_policy": "park"})))
    refused = runner.invoke(app, ["simulate", str(plain), "--ramp", "7"])
    assert refused.exit_code == 1 and "fleet.scaling" in refused.output


def test_the_report_says_how_the_replicas_scale() -> None:
    from rackcost.reporting.input_sections import scenario_section

    scenario = _scenario({"idle_policy": "park", "scaling": {"scale_up_delay_s": 300, "scale_down_delay_s": 600}})
    text = repr(scenario_section(scenario))
    assert "a replica serves 300 s after it is started and stops 600 s after it is last needed" in text


@settings(max_examples=12, deadline=None)
@given(up_s=st.sampled_from([0.0, 60.0, 300.0, 900.0]), down_s=st.sampled_from([0.0, 300.0, 1800.0]))
def test_scaling_never_accepts_more_nor_costs_less_than_park(up_s: float, down_s: float) -> None:
    scenario = _scenario({"idle_policy": "park", "scaling": {"scale_up_delay_s": up_s, "scale_down_delay_s": down_s}})
    assert scenario.demand_profile is not None
    scaled = evaluate_hours(scenario, scenario.demand_profile.hourly_rates_rps())
    park = _horizon("park")
    assert (scaled.hours.accepted_rps.to_numpy() <= park.hours.accepted_rps.to_numpy() + 1e-9).all()
    assert (scaled.horizon.cost_usd.to_numpy() >= park.horizon.cost_usd.to_numpy() * (1 - 1e-12)).all()
    assert np.isfinite(scaled.hours.select_dtypes("number").to_numpy()).all()


def test_a_rise_inside_an_hour_is_lost_on_its_windows() -> None:
    data = _data()
    hours = len(data["demand"]["profile"]["hourly_arrival_rps"])
    flat = [[1.0] * 6 for _ in range(hours)]
    rising = [*flat[:10], [0.5, 0.5, 0.5, 1.5, 1.5, 1.5], *flat[11:]]  # 10:00 (20 requests/s) rises at half past
    demand = dict(data["demand"], sub_hour={"window_s": 600, "window_rps": rising})
    scaled = {"idle_policy": "park", "scaling": {"scale_up_delay_s": 300}}
    scenario = rackcost.scenario_from_dict(dict(data, fleet=scaled, demand=demand), "windows")
    assert scenario.demand_profile is not None
    windows = scenario.demand_profile.hourly_window_ratios()
    result = evaluate_hours(scenario, scenario.demand_profile.hourly_rates_rps(), window_ratios=windows)
    hourly = evaluate_hours(scenario, scenario.demand_profile.hourly_rates_rps())  # the same hours, each flat
    a, flat_a = (r.hours[r.hours.system == "A"] for r in (result, hourly))
    assert a.iloc[10].ramp_lost_rps > 0 and flat_a.iloc[10].ramp_lost_rps == 0 and a.iloc[11].ramp_lost_rps == 0


def test_the_ramp_never_loses_more_than_park_accepts_in_an_hour() -> None:
    # a one-hour spike of a million requests/s once a week, after a day of a few: with a day's scale-up delay the
    # spike is lost; the steps' capacity at SLO and the hour's acceptance differed, and hours (and a year) accepted
    # a negative rate, at a negative cost per accepted request (found by tests/fuzzing_fleets.py)
    data = _data()
    data["demand"]["profile"]["hourly_arrival_rps"][0] = 1e6
    fleets = {
        "park": {"idle_policy": "park"},
        "a day": {"idle_policy": "park", "scaling": {"scale_up_delay_s": 86_400}},
    }
    scenarios = {kind: rackcost.scenario_from_dict(dict(data, fleet=fleet), "spike") for kind, fleet in fleets.items()}
    profile = scenarios["park"].demand_profile
    assert profile is not None
    rates = profile.hourly_rates_rps()  # a year of weeks: every spike after the first finds the fleet scaled down
    park, day = (evaluate_hours(scenarios[kind], rates).hours for kind in fleets)
    assert (day["ramp_lost_rps"] > 0.5 * day["offered_rps"]).any()  # the spike is lost, most of it
    assert (day["ramp_lost_rps"].to_numpy() <= park["accepted_rps"].to_numpy()).all()
    assert (day["accepted_rps"] >= 0).all() and (day["accepted_requests"] >= 0).all()
    assert np.allclose(day["accepted_rps"] + day["rejected_rps"], day["offered_rps"], rtol=1e-12)
    years = rackcost.evaluate(scenarios["a day"]).records["years"]
    assert all(row["accepted_rps"] >= 0 and row["usd_per_accepted_request"] > 0 for row in years)
