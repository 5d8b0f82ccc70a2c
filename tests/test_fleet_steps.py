"""The named steps of the chain one by one (docs/architecture.md): unpack, the chosen point per sample, sizing,
packing, the derived metrics, and the plan that the chain and the Monte Carlo share."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.evaluation.chain import choose_points, evaluate_systems, run_samples
from rackcost.model.fleets.fleet import load_curve, performance_at_point
from rackcost.model.replica.performance import LoadCurve, in_service_concurrency, piecewise_linear
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.unpack import sampled_inputs, system_inputs
from reference import TWO_SYSTEMS

SCENARIO = rackcost.load_scenario(TWO_SYSTEMS)
# quotients and products of a few values: a few ulps
RTOL_FLOAT = 1e-12


def test_piecewise_linear_interpolates_per_sample_and_holds_at_the_ends() -> None:
    knots = np.array([8.0, 32.0, 128.0])
    values = np.array([[1.0, 2.0, 6.0], [2.0, 4.0, 12.0]])  # the second sample is twice the first
    got = piecewise_linear(knots, values, np.array([[4.0, 20.0, 80.0, 200.0]]))
    np.testing.assert_allclose(got[0], [1.0, 1.5, 4.0, 6.0], rtol=RTOL_FLOAT)  # held below 8 and above 128
    np.testing.assert_allclose(got[1], 2.0 * got[0], rtol=RTOL_FLOAT)


def _load(service_s: list[float], limit: float, knots: list[float] | None = None) -> LoadCurve:
    k = np.array(knots if knots is not None else [8.0, 32.0, 128.0][: len(service_s)])
    return LoadCurve(k, np.array([service_s]), np.full(k.size, 100.0), np.full(k.size, 10.0), None, limit)


def test_in_service_concurrency_is_littles_law_on_the_curve() -> None:
    """c = x S(c): check the returned c against the curve it was solved on, where it is not saturated."""
    load = _load([1.0, 2.0, 6.0], 128.0)
    x = np.array([[0.5, 4.0, 12.0, 16.0, 20.0, 30.0]])
    c = in_service_concurrency(load, x)
    unsaturated = c < 128.0
    np.testing.assert_allclose(c[unsaturated], (x * load.service_at(c))[unsaturated], rtol=1e-12)
    assert c[0, 0] == pytest.approx(0.5)  # below the lowest point: S held at 1 s
    # S(c) = 2 + (c - 32) / 24 on [32, 128]: c = 30 S(c) has no root below 128 (30 x 6 = 180 > 128): saturated
    assert c[0, -1] == 128.0


def test_in_service_concurrency_single_point_is_the_load_independent_formula() -> None:
    """A curve of one point: c = lambda/N x S, as the model computed before the operating point moved with load."""
    load = _load([2.5], 16.0, knots=[16.0])
    x = np.array([[0.4, 2.0, 6.0]])
    np.testing.assert_allclose(in_service_concurrency(load, x), np.minimum(x * 2.5, 16.0), rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.1, 5.0), min_size=3, max_size=3),
    st.floats(0.01, 100.0),
    st.floats(1.0, 3.0),
)
def test_in_service_concurrency_rises_with_load(increments: list[float], rate: float, factor: float) -> None:
    load = _load(list(np.cumsum(increments)), 128.0)  # service time rising with concurrency
    low, high = in_service_concurrency(load, np.array([[rate, rate * factor]]))[0]
    assert low <= high + 1e-9


def test_central_samples_give_the_chosen_point_exactly() -> None:
    planned = choose_points(SCENARIO)
    for index, (inp, chosen) in enumerate(zip(planned.systems, planned.chosen, strict=True)):
        sampled = sampled_inputs(SCENARIO, index, inp, {}, 3)
        service, rps, busy = performance_at_point(load_curve(inp, chosen, sampled), sampled)
        assert rps.shape == (3, 1) and busy.shape == (3, 1)
        assert np.allclose(service, float(chosen.point.service_s[0]), rtol=RTOL_FLOAT, atol=0)
        assert np.allclose(rps, float(chosen.point.request_rps[0]), rtol=RTOL_FLOAT, atol=0)
        assert np.all(busy == inp.busy_w)  # no measured power in this scenario: the hardware's busy power


def test_sampled_throughput_of_every_point_scales_the_point_rate() -> None:
    """Scaling every measured point's throughput by f divides every service time by f, so the rate scales by f."""
    planned = choose_points(SCENARIO)
    inp, chosen = planned.systems[0], planned.chosen[0]
    f = np.array([0.5, 1.0, 2.0])
    values = {
        f"systems[0].performance.points[{k}].throughput_tokens_per_s": f * p.throughput_tokens_per_s
        for k, p in enumerate(SCENARIO.systems[0].performance.points)
    }
    sampled = sampled_inputs(SCENARIO, 0, inp, values, 3)
    _, rps, _ = performance_at_point(load_curve(inp, chosen, sampled), sampled)
    expected = f * float(chosen.point.request_rps[0])
    assert np.allclose(rps.ravel(), expected, rtol=RTOL_FLOAT, atol=0)


def test_a_claim_scales_with_the_sampled_derate_only() -> None:
    data = scenario_to_data(SCENARIO)
    data["uncertainty"] = {"throughput_derate": {"vendor": 0.8}}
    scenario = rackcost.scenario_from_dict(data)
    planned = choose_points(scenario)
    inp, chosen = planned.systems[1], planned.chosen[1]  # system B is a vendor claim
    derates = np.array([0.4, 0.8, 1.0])
    sampled = sampled_inputs(scenario, 1, inp, {"uncertainty.throughput_derate.vendor": derates}, 3)
    _, rps, _ = performance_at_point(load_curve(inp, chosen, sampled), sampled)
    assert np.allclose(rps.ravel(), derates / 0.8 * float(chosen.point.request_rps[0]), rtol=RTOL_FLOAT, atol=0)


def test_system_inputs_read_the_facility_override() -> None:
    data = scenario_to_data(SCENARIO)
    data["systems"][1]["facility"] = {"pue": 1.5, "electricity_usd_per_kwh": 0.2}
    scenario = rackcost.scenario_from_dict(data)
    a, b = (system_inputs(scenario, s) for s in scenario.systems)
    assert (a.pue, a.price_usd_per_kwh) == (1.2, 0.10)
    assert (b.pue, b.price_usd_per_kwh) == (1.5, 0.2)
    assert b.rack_power_limit_w == 40_000.0  # not overridden: the scenario's


def test_metrics_are_the_closed_forms_of_the_fleet_outcome() -> None:
    planned = choose_points(SCENARIO)
    hours = planned.hours_per_day
    for fleet, m in run_samples(SCENARIO, planned, {}, 1, resize=False):
        d = fleet.demand
        total = fleet.capital_usd_per_hour + fleet.fixed_opex_usd_per_hour + fleet.energy_usd_per_hour
        assert np.array_equal(m.total_usd_per_hour, total)
        per_request = total / (d.accepted_rps * 3600.0)
        assert np.allclose(m.usd_per_accepted_request, per_request, rtol=RTOL_FLOAT, atol=0)
        tokens_per_hour = d.accepted_rps * 500 * 3600.0  # OSL 500
        assert np.allclose(m.usd_per_million_accepted_output_tokens, total / tokens_per_hour * 1e6, rtol=RTOL_FLOAT)
        blended = float(np.sum(total * hours) / (np.sum(d.accepted_rps * hours) * 3600.0))
        assert math.isclose(float(m.blended_usd_per_accepted_request[0]), blended, rel_tol=RTOL_FLOAT)
        assert float(m.facility_energy_kwh_per_day[0]) == pytest.approx(float(np.sum(fleet.facility_power_kw * hours)))


def test_resizing_on_central_values_finds_the_chosen_point_replicas() -> None:
    """The Monte Carlo sizes each sample; on central values it must find what the operating-point search found."""
    planned = choose_points(SCENARIO)
    kept = run_samples(SCENARIO, planned, {}, 1, resize=False)
    resized = run_samples(SCENARIO, planned, {}, 1, resize=True)
    for chosen, (a, _), (b, _) in zip(planned.chosen, kept, resized, strict=True):
        assert int(a.slo_replicas[0, 0]) == chosen.slo_replicas == int(b.slo_replicas[0, 0])
        assert np.array_equal(a.provisioned_replicas, b.provisioned_replicas)


def test_system_outcome_views_read_the_one_sample() -> None:
    for o in evaluate_systems(SCENARIO):
        assert o.provisioned_replicas == int(o.fleet.provisioned_replicas[0, 0]) > 0
        assert o.racks == int(o.fleet.racks[0, 0]) > 0
        assert o.demand.accepted_rps.shape == (len(SCENARIO.demand),)
        assert np.array_equal(o.facility_power_kw, o.fleet.facility_power_kw[0])
        assert o.busy_w == o.chosen.busy_w


def test_cost_per_million_input_and_total_tokens_are_the_closed_forms() -> None:
    """The fixture's requests carry 1,000 input and 500 output tokens: per million input tokens the cost is that per
    million output tokens x 500 / 1,000, per million total tokens x 500 / 1,500; the same over the day."""
    result = rackcost.evaluate(SCENARIO)
    for r in result.records["points"]:
        per_output = r["usd_per_million_accepted_output_tokens"]
        assert r["usd_per_million_accepted_input_tokens"] == pytest.approx(per_output * 500 / 1000, rel=RTOL_FLOAT)
        assert r["usd_per_million_accepted_total_tokens"] == pytest.approx(per_output * 500 / 1500, rel=RTOL_FLOAT)
        per_request = r["usd_per_accepted_request"]
        assert r["usd_per_million_accepted_total_tokens"] == pytest.approx(per_request / 1500 * 1e6, rel=RTOL_FLOAT)
    for r in result.records["systems"]:
        per_output = r["blended_usd_per_million_accepted_output_tokens"]
        assert r["blended_usd_per_million_accepted_input_tokens"] == pytest.approx(per_output / 2, rel=RTOL_FLOAT)
        assert r["blended_usd_per_million_accepted_total_tokens"] == pytest.approx(per_output / 3, rel=RTOL_FLOAT)
