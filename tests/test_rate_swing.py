"""Short rate swings within a demand point (issue 21, item 1): the pointwise stationary approximation.

Sources: the approximation (the cycle average of the stationary accepted share, weighted by arrivals) is Green and
Kolesar, "The pointwise stationary approximation for queues with nonstationary arrivals", *Management Science*
37(1), 1991; the quadrature is Gauss-Chebyshev (Abramowitz and Stegun 25.4.38), checked against
:func:`scipy.integrate.quad`; the thinning sampler is Lewis and Shedler, *Naval Research Logistics Quarterly* 26(3),
1979, whose count in a window is Poisson with mean the integral of the rate. Closed forms: M/M/1 with no wait budget
accepts ``1 - rho``, so a swing that never sheds accepts ``1 - rho (1 + a^2 / 2)`` (``E[(1 + aU)^2] = 1 + a^2/2``
for ``U = sin`` of a uniform phase); the M/M/k tail is Erlang C (test_queueing.py).
"""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.special import stdtrit
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from rackcost.evaluation.columns import column_names
from rackcost.model.queues import queueing
from rackcost.model.queues import routing as routes
from rackcost.model.queues.rate_swing import (
    PHASES,
    RateShape,
    cycle_accepted_share,
    phase_nodes,
    swing_capacity_rps,
    swing_replicas_needed,
    swing_too_fast,
)
from rackcost.model.sim import simulation as sim
from rackcost.model.sim.sim_arrivals import SwingArrivals, swing_arrival_s
from reference import TWO_SYSTEMS

BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
runner = CliRunner()


def evaluate(swing: dict | None, point: str = "peak", **fleet) -> rackcost.Result:
    data = copy.deepcopy(BASE)
    for d in data["demand"]:
        if d["name"] == point and swing is not None:
            d["rate_swing"] = swing
    data["fleet"].update(fleet)
    return rackcost.evaluate(rackcost.scenario_from_dict(data))


def rows(result: rackcost.Result) -> dict[tuple[str, str], dict]:
    return {(r["system"], r["demand_point"]): r for r in result.records["points"]}


# ------------------------------------------------------------------------------------------- closed forms


def test_the_nodes_integrate_the_arcsine_law_exactly():
    # E[U^(2m)] = (2m)! / (4^m m!^2) for U = sin(uniform phase), exact up to degree 2 PHASES - 1
    u = phase_nodes()
    for m in range(1, 8):
        exact = math.factorial(2 * m) / (4**m * math.factorial(m) ** 2)
        assert np.mean(u ** (2 * m)) == pytest.approx(exact, rel=1e-13)
        assert abs(np.mean(u ** (2 * m - 1))) < 1e-15


def test_mm1_without_shedding_accepts_one_minus_rho_times_one_plus_half_a_squared():
    # one slot, S = 1 s, no budget: accepted share 1 - x at rate x; never above capacity (0.5 at a 50% target)
    for a in (0.0, 0.1, 0.3, 0.5):
        share = float(cycle_accepted_share("pooled", 0.2, 1, 1.0, 1.0, 0.0, 0.5, a))
        assert share == pytest.approx(1 - 0.2 * (1 + a * a / 2), rel=1e-13)


def test_the_quadrature_matches_scipy_quad_on_an_mmk_cycle_that_sheds():
    # 4 replicas x 8 slots, S = 2 s, 0.3 s budget, 1% target, +/-30% around 95% of capacity: part of the cycle sheds
    n, c, s, t, eps, a = 4, 8.0, 2.0, 0.3, 0.01, 0.3
    cap = float(queueing.capacity_at_slo(n * c, s, t, eps))
    lam = 0.95 * cap

    def accepted(theta: float) -> float:
        x = min(lam * (1 + a * math.sin(theta)), cap)
        return x * (1.0 - float(queueing.wait_exceedance(t, n * c, x, s)))

    kinks = [math.asin((cap / lam - 1) / a), math.pi - math.asin((cap / lam - 1) / a)]
    exact = quad(accepted, 0.0, 2 * math.pi, points=kinks, epsabs=1e-13, limit=200)[0] / (2 * math.pi) / lam
    share = float(cycle_accepted_share("pooled", lam, n, c, s, t, eps, a))
    assert share == pytest.approx(exact, abs=2e-5)
    assert share < float(cycle_accepted_share("pooled", lam, n, c, s, t, eps, 0.0))


def test_the_swing_capacity_is_the_root_of_the_cycle_share():
    # one M/M/1 slot, half may wait, +/-50%: accepted rate x (1 - x) up to 0.5 and 1/4 above; root by quad + brentq
    from scipy.optimize import brentq

    def share(lam: float) -> float:
        g = lambda th: min(lam * (1 + 0.5 * math.sin(th)), 0.5) * (1 - min(lam * (1 + 0.5 * math.sin(th)), 0.5))  # noqa: E731
        return quad(g, 0, 2 * math.pi, points=[math.pi / 2], limit=200)[0] / (2 * math.pi) / lam

    root = brentq(lambda x: share(x) - 0.5, 0.34, 0.5, xtol=1e-13)
    assert float(swing_capacity_rps("pooled", 1, 1.0, 1.0, 0.0, 0.5, 0.5)) == pytest.approx(root, rel=1e-5)


def test_amplitude_zero_is_the_constant_rate_model_bit_for_bit():
    lam, s, c, t, eps = 37.0, 3.0, 8.0, 0.4, 0.01
    for routing in ("pooled", "random"):
        assert int(swing_replicas_needed(routing, lam, s, c, t, eps, 0.0)) == int(
            routes.replicas_needed(routing, lam, s, c, t, eps)
        )
        cap = routes.capacity_at_slo(routing, 20, c, s, t, eps)
        assert float(swing_capacity_rps(routing, 20, c, s, t, eps, 0.0)) == float(cap)
    plain = evaluate(None)
    zero = evaluate({"amplitude_fraction": 0.0, "period_s": 60})
    for key, row in rows(plain).items():
        other = dict(rows(zero)[key])
        assert other.pop("rate_swing_amplitude_fraction") == 0.0
        assert json.dumps(other) == json.dumps(row)  # every figure, bit for bit
    assert plain.warnings == zero.warnings


def test_a_point_without_a_swing_keeps_its_figures_when_another_swings():
    plain, swung = (
        rows(evaluate(None, fixed := "normal", replicas=6)),
        rows(evaluate({"amplitude_fraction": 0.3, "period_s": 600}, fixed, replicas=6)),
    )
    for key, row in plain.items():
        if key[1] != fixed:
            other = dict(swung[key])
            other.pop("rate_swing_amplitude_fraction")
            assert json.dumps(other) == json.dumps(row)


# ------------------------------------------------------------------------------------------- invariants

POOL = st.tuples(
    st.sampled_from(["pooled", "random"]),
    st.integers(1, 60),  # replicas
    st.integers(1, 300),  # slots a replica
    st.floats(0.5, 30.0),  # service time [s]
    st.one_of(st.just(0.0), st.floats(0.01, 3.0)),  # budget [s]
    st.sampled_from([0.01, 0.05, 0.1]),
)


@settings(max_examples=150)
@given(POOL, st.floats(0.2, 1.0), st.floats(0.0, 0.9))
def test_a_swing_that_does_not_shed_never_raises_the_accepted_share(pool, load, a):
    # Jensen: the accepted rate x (1 - P(W > t | x)) is concave in x below capacity (the tail is convex in the rate)
    routing, n, c, s, t, eps = pool
    cap = float(routes.capacity_at_slo(routing, n, float(c), s, t, eps))
    lam = load * cap / (1 + a)  # the top of the swing within capacity
    still = float(cycle_accepted_share(routing, lam, n, float(c), s, t, eps, 0.0))
    swung = float(cycle_accepted_share(routing, lam, n, float(c), s, t, eps, a))
    assert swung <= still + 1e-12


def test_near_capacity_of_a_large_pool_a_swing_can_raise_the_share_the_model_admits():
    # documented limit: just below capacity of many slots the accepted rate falls as the admitted rate rises (misses
    # grow faster than admissions), so shedding the crests and filling the troughs accepts more; this is why the
    # sizing search starts at the constant-rate count (a swing never needs fewer replicas)
    args = ("random", 131, 195.0, 22.04, 2.111, 0.1)
    cap = float(routes.capacity_at_slo(*args))
    lam = 0.9982 * cap
    assert float(cycle_accepted_share(args[0], lam, *args[1:], 0.04)) > float(
        cycle_accepted_share(args[0], lam, *args[1:], 0.0)
    )
    assert int(swing_replicas_needed(args[0], lam, args[3], args[2], args[4], args[5], 0.04)) >= int(
        routes.replicas_needed(args[0], lam, args[3], args[2], args[4], args[5])
    )


@settings(max_examples=100)
@given(POOL, st.floats(0.1, 2.0), st.floats(0.0, 0.9), st.floats(0.0, 0.9))
@example(("random", 1, 1, 1.0, 0.0, 0.1), 1.0, 0.0, 0.0)  # sheds 1.4e-9: the capacity's margin inside its root
def test_more_amplitude_never_needs_fewer_replicas(pool, scale, a1, a2):
    routing, _, c, s, t, eps = pool
    lam = scale * 50.0 * c / s  # 5 to 100 replicas' worth of erlangs
    lo, hi = sorted((a1, a2))
    n_lo = int(swing_replicas_needed(routing, lam, s, float(c), t, eps, lo))
    n_hi = int(swing_replicas_needed(routing, lam, s, float(c), t, eps, hi))
    assert int(routes.replicas_needed(routing, lam, s, float(c), t, eps)) <= n_lo <= n_hi
    # the count is the fewest whose cycle average meets the target (to the 1e-9 margin the capacity at SLO keeps
    # inside its root: under random routing the fleet's capacity is N times one replica's, so it may shed 1e-9)
    assert float(cycle_accepted_share(routing, lam, n_hi, float(c), s, t, eps, hi)) >= 1 - eps - 1e-8
    if n_hi > int(routes.replicas_needed(routing, lam, s, float(c), t, eps)):
        assert float(cycle_accepted_share(routing, lam, n_hi - 1, float(c), s, t, eps, hi)) < 1 - eps


def test_the_evaluated_fleet_is_sized_for_its_swing_and_meets_the_target():
    still = rows(evaluate(None))
    swung = evaluate({"amplitude_fraction": 0.3, "period_s": 600})
    systems = {r["system"]: r for r in swung.records["systems"]}
    plain_systems = {r["system"]: r for r in evaluate(None).records["systems"]}
    for (system, point), row in rows(swung).items():
        assert row["rate_swing_amplitude_fraction"] == (0.3 if point == "peak" else 0.0)
        assert systems[system]["provisioned_replicas"] >= plain_systems[system]["provisioned_replicas"]
        if point == "peak":
            assert row["accepted_rps"] / row["offered_rps"] >= 0.99 - 1e-12
            assert row["capacity_at_slo_rps"] >= row["offered_rps"]
        assert row["accepted_rps"] <= row["offered_rps"] and math.isfinite(row["usd_per_accepted_request"])
    assert any(systems[s]["provisioned_replicas"] > plain_systems[s]["provisioned_replicas"] for s in systems), (
        "a +/-30% swing at peak should add replicas somewhere"
    )
    assert still  # the plain evaluation ran


def test_a_swing_on_a_fixed_fleet_warns_with_the_figures_and_the_too_fast_warning():
    result = evaluate({"amplitude_fraction": 0.4, "period_s": 1.0}, replicas=5)
    moved = [w for w in result.warnings if "rate swing over 1 s moves the accepted share" in w]
    assert moved and "demand[2].rate_swing" in moved[0]
    assert any("shorter than 20 mean service times" in w for w in result.warnings)
    assert tuple(result.records["points"][0]) == column_names("points", revenue=False, rate_swing=True)


def test_park_policy_and_the_monte_carlo_run_with_a_swing():
    parked = rows(evaluate({"amplitude_fraction": 0.3, "period_s": 600}, idle_policy="park"))
    assert all(r["active_replicas"] <= r["provisioned_replicas"] for r in parked.values())
    assert parked[("A", "peak")]["accepted_rps"] / parked[("A", "peak")]["offered_rps"] >= 0.99 - 1e-12
    data = copy.deepcopy(BASE)
    data["demand"][2]["rate_swing"] = {"amplitude_fraction": 0.3, "period_s": 600}
    data["demand"][2]["arrival_rps"] = {"dist": "uniform", "low": 18, "high": 22}
    out = rackcost.uncertainty(rackcost.scenario_from_dict(data), samples=50, seed=1)
    assert out is not None


@pytest.mark.parametrize(
    ("swing", "path", "words"),
    [
        ({"amplitude_fraction": 0.95, "period_s": 60}, "demand[2].rate_swing.amplitude_fraction", "0.9"),
        ({"amplitude_fraction": 0.2, "period_s": 0}, "demand[2].rate_swing.period_s", "0.001"),
        ({"amplitude_fraction": 0.2}, "demand[2].rate_swing.period_s", "required"),
        ({"amplitude_fraction": 0.2, "period_s": 60, "phase": 1}, "demand[2].rate_swing.phase", "unknown key"),
    ],
)
def test_a_bad_rate_swing_names_its_path_and_what_was_expected(swing, path, words):
    data = copy.deepcopy(BASE)
    data["demand"][2]["rate_swing"] = swing
    with pytest.raises(rackcost.ScenarioError) as info:
        rackcost.scenario_from_dict(data)
    problem = next(p for p in info.value.problems if p.path == path)
    assert words in problem.message.lower()


def test_too_fast_is_twenty_service_times():
    assert swing_too_fast(199.0, 10.0) and not swing_too_fast(200.0, 10.0)


# ------------------------------------------------------------------------------------------- the simulator


def test_thinning_counts_match_the_integral_of_the_rate_in_every_window():
    # Lewis and Shedler 1979: the count in a window is Poisson with mean int lambda(t) dt; over 400 periods of 10 s,
    # each quarter-period's mean count against lambda T / 4 (1 + 2 a cos(...) / pi ...) integrated exactly
    lam, a, period = 50.0, 0.6, 10.0
    t = swing_arrival_s(np.random.default_rng(7), 210_000, lam, SwingArrivals(a, period))
    t = t[t < 400 * period]
    for q in range(4):
        lo, hi = q * period / 4, (q + 1) * period / 4
        exact = lam * (hi - lo) + lam * a * period / (2 * math.pi) * (
            math.cos(2 * math.pi * lo / period) - math.cos(2 * math.pi * hi / period)
        )
        counts = np.array([np.sum((t >= k * period + lo) & (t < k * period + hi)) for k in range(400)])
        assert abs(counts.mean() - exact) < 5 * math.sqrt(exact / 400), (q, counts.mean(), exact)
    capped = swing_arrival_s(np.random.default_rng(8), 100_000, lam, SwingArrivals(a, period, cap_rps=60.0))
    rate = (capped.size - 1) / (capped[-1] - capped[0])
    exact_capped = quad(lambda th: min(lam * (1 + a * math.sin(th)), 60.0), 0, 2 * math.pi, limit=200)[0] / (
        2 * math.pi
    )
    assert rate == pytest.approx(exact_capped, rel=0.01)


def test_the_simulated_swing_agrees_with_the_pointwise_stationary_approximation_when_it_is_slow():
    # 4 replicas x 5 slots, S = 1 s, +/-20% around 14 rps over 200 s (200 service times: the approximation holds),
    # no shedding: the share of requests waiting within 0.2 s over the cycle
    n, c, s, t, a, lam = 4, 5, 1.0, 0.2, 0.2, 14.0
    analytic = float(cycle_accepted_share("pooled", lam, n, float(c), s, t, 0.3, a))
    assert analytic < float(cycle_accepted_share("pooled", lam, n, float(c), s, t, 0.3, 0.0)) - 0.01
    fleet = sim.SimFleet(n, sim.fixed_model(c, s, 0.0), "pooled")
    summary = sim.replicate(6, 11, fleet, sim.RenewalArrivals(lam, 240_000, swing=SwingArrivals(a, 200.0)), t)
    est = summary.estimates["accepted_fraction"]
    k = summary.per_replication["accepted_fraction"].size
    half = summary.halfwidths["accepted_fraction"] * stdtrit(k - 1, 0.9995) / stdtrit(k - 1, 0.975)
    assert abs(est - analytic) <= half + 0.002, (est, half, analytic)


def test_the_simulator_refuses_a_swing_of_a_bursty_stream():
    with pytest.raises(ValueError, match="arrival_scv must be 1 with a rate swing"):
        sim.run_fleet_once(
            np.random.default_rng(0),
            sim.SimFleet(1, sim.fixed_model(2, 1.0, 0.0), "pooled"),
            sim.RenewalArrivals(1.0, 100, 4.0, SwingArrivals(0.2, 60.0)),
        )


def test_simulate_takes_the_scenario_swing_and_the_option(tmp_path):
    data = copy.deepcopy(BASE)
    data["demand"][2]["rate_swing"] = {"amplitude_fraction": 0.2, "period_s": 300}
    scenario = rackcost.scenario_from_dict(data)
    own = rackcost.simulate(scenario, system="A", demand_point="peak", requests=4_000, replications=2)
    assert own[0]["rate_swing_amplitude_fraction"] == 0.2 and own[0]["rate_swing_period_s"] == 300
    evaluated = rows(rackcost.evaluate(scenario))[("A", "peak")]
    assert own[0]["analytic_accepted_fraction"] == pytest.approx(evaluated["accepted_rps"] / evaluated["offered_rps"])
    fixed = copy.deepcopy(BASE)
    fixed["fleet"]["replicas"] = 4  # system B at 95% accepted without a swing, 85% with +/-40%
    plain = rackcost.scenario_from_dict(fixed)
    override = rackcost.simulate(
        plain, system="B", demand_point="peak", requests=4_000, replications=2, rate_swing=(0.4, 300.0)
    )
    constant = rows(rackcost.evaluate(plain))[("B", "peak")]
    assert override[0]["analytic_accepted_fraction"] < constant["accepted_rps"] / constant["offered_rps"] - 0.05
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(BASE), encoding="utf-8")
    bad = runner.invoke(app, ["simulate", str(path), "--rate-swing", "0.2"])
    assert bad.exit_code == 1 and "AMPLITUDE:PERIOD" in bad.output
    bursty = runner.invoke(
        app, ["simulate", str(path), "--rate-swing", "0.2:60", "--arrival-scv", "4", "--requests", "200"]
    )
    assert bursty.exit_code == 1 and "Poisson process only" in bursty.output
    ok = runner.invoke(
        app,
        [
            "simulate",
            str(path),
            "--system",
            "A",
            "--point",
            "peak",
            "--rate-swing",
            "0.2:300",
            "--requests",
            "2000",
            "--replications",
            "2",
        ],
    )
    assert ok.exit_code == 0 and "rate swing +/-20% over 300 s" in ok.output


def test_phases_is_a_power_of_two_folded_midpoint_rule():
    # the nodes are the midpoint rule's sin values on 2 PHASES phases, each taken twice a cycle
    theta = (np.arange(2 * PHASES) + 0.5) * math.pi / PHASES
    assert np.allclose(np.sort(np.sin(theta)), np.sort(np.repeat(phase_nodes(), 2)), atol=1e-14)


def test_a_bursty_stream_that_swings_is_the_gg_c_queue_at_every_phase():
    # Whitt 2004 (rackcost.model.queues.burstiness): at each phase M/M/c with slots and rates divided by v = (ca^2 + 1)
    # / 2
    n, c, s, t, eps, a, scv = 6, 16.0, 4.0, 0.5, 0.01, 0.25, 4.0
    v = (scv + 1) / 2
    cap = v * float(queueing.capacity_at_slo(n * c / v, s, t, eps))
    lam = 0.9 * cap
    x = np.minimum(lam * (1 + a * phase_nodes()), cap)
    by_hand = float(np.mean(x * (1 - queueing.wait_exceedance(t, n * c / v, x / v, s)))) / lam
    assert float(cycle_accepted_share("pooled", lam, n, c, s, t, eps, a, v)) == pytest.approx(by_hand, rel=1e-9)
    both = int(swing_replicas_needed("pooled", lam, s, c, t, eps, a, v))
    assert both >= int(swing_replicas_needed("pooled", lam, s, c, t, eps, a))
    assert both >= int(swing_replicas_needed("pooled", lam, s, c, t, eps, 0.0, v))


# ------------------------------------------------------------------------------------------- sub-hour windows
# A demand point's windows (demand[i].sub_hour) are served by the same pointwise stationary approximation: the
# share is sum_j w_j m_j s(lambda m_j) over the windows' rates m_j (over the mean) and their shares of time w_j.


def windows(ratios, weights=None) -> RateShape:
    m = np.asarray(ratios, dtype=float)
    w = np.full(m.shape, 1.0 / m.shape[-1]) if weights is None else np.asarray(weights, dtype=float)
    return RateShape(m, w, np.asarray(np.any(m != m[..., :1], axis=-1)), np.max(m, axis=-1))


def test_mm1_windows_accept_one_minus_rho_times_the_mean_square_of_the_windows():
    # one M/M/1 slot (S = 1 s, no budget: accepted with probability 1 - x) at a mean of 0.2/s, windows at 0.5 and
    # 1.5 times the mean, none above the capacity 0.5/s at a 50% miss target: E[m (1 - 0.2 m)] = 1 - 0.2 E[m^2]
    share = cycle_accepted_share("pooled", 0.2, 1, 1.0, 1.0, 0.0, 0.5, windows([0.5, 1.5]))
    assert float(share) == pytest.approx(1 - 0.2 * (0.25 + 2.25) / 2, rel=1e-14)


def test_windows_of_a_constant_rate_are_the_stationary_model():
    # a constant-rate hour's windows: PSA = the stationary share at the mean rate (to the rounding of 6 x 1/6)
    for routing in ("pooled", "random", "least_outstanding"):
        flat = cycle_accepted_share(routing, 37.0, 5, 8.0, 3.0, 0.4, 0.01, windows([1.0] * 6))
        still = cycle_accepted_share(routing, 37.0, 5, 8.0, 3.0, 0.4, 0.01, 0.0)
        assert float(flat) == pytest.approx(float(still), rel=1e-15)
        assert int(swing_replicas_needed(routing, 37.0, 3.0, 8.0, 0.4, 0.01, windows([1.0] * 6))) == int(
            routes.replicas_needed(routing, 37.0, 3.0, 8.0, 0.4, 0.01)
        )


def test_windows_at_the_swing_nodes_are_the_swing():
    # the sinusoid is a set of windows: 1 + a u_j at the Gauss-Chebyshev nodes, each 1/32 of the cycle
    a = 0.4
    shape = windows(1.0 + a * phase_nodes())
    for routing in ("pooled", "random"):
        got = cycle_accepted_share(routing, 30.0, 4, 10.0, 2.0, 0.3, 0.01, shape)
        want = cycle_accepted_share(routing, 30.0, 4, 10.0, 2.0, 0.3, 0.01, a)
        assert float(got) == pytest.approx(float(want), rel=1e-14)


def spread(ratios: list[float], k: float) -> list[float]:
    """The windows with their deviations from the mean multiplied by ``k`` (more variation, the same mean)."""
    r = np.asarray(ratios) / np.mean(ratios)
    return list(1.0 + k * (r - 1.0))


RATIOS = st.lists(st.floats(0.2, 2.0), min_size=2, max_size=12)


@settings(max_examples=60, deadline=None)
@given(POOL, st.floats(0.1, 2.0), RATIOS, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_more_sub_hour_variation_never_needs_fewer_replicas(pool, scale, ratios, k1, k2):
    routing, _, c, s, t, eps = pool
    lam = scale * 50.0 * c / s
    lo, hi = sorted((k1, k2))
    n_lo = int(swing_replicas_needed(routing, lam, s, float(c), t, eps, windows(spread(ratios, lo))))
    n_hi = int(swing_replicas_needed(routing, lam, s, float(c), t, eps, windows(spread(ratios, hi))))
    assert int(routes.replicas_needed(routing, lam, s, float(c), t, eps)) <= n_lo <= n_hi
    assert float(cycle_accepted_share(routing, lam, n_hi, float(c), s, t, eps, windows(spread(ratios, hi)))) >= (
        1 - eps - 1e-8
    )


@settings(max_examples=60, deadline=None)
@given(POOL, st.floats(0.05, 3.0), RATIOS)
def test_windows_never_accept_more_than_offered(pool, load, ratios):
    routing, n, c, s, t, eps = pool
    lam = load * n * c / s
    share = float(cycle_accepted_share(routing, lam, n, float(c), s, t, eps, windows(spread(ratios, 1.0))))
    assert 0.0 <= share <= 1.0 + 1e-12


def test_flat_windows_are_the_constant_rate_model_bit_for_bit():
    plain = evaluate(None)
    flat = evaluate(None)
    data = copy.deepcopy(BASE)
    for d in data["demand"]:
        d["sub_hour"] = {"window_s": 600, "rate_ratios": [3.0] * 6}
    flat = rackcost.evaluate(rackcost.scenario_from_dict(data))
    assert json.dumps(flat.records["points"]) == json.dumps(plain.records["points"])
    assert json.dumps(flat.records["systems"]) == json.dumps(plain.records["systems"])


def test_a_point_with_windows_is_sized_for_them_and_meets_the_target():
    still = rows(evaluate(None))
    data = copy.deepcopy(BASE)
    peak = next(d for d in data["demand"] if d["name"] == "peak")
    peak["sub_hour"] = {"window_s": 600, "rate_ratios": [1.12, 1.14, 0.70, 0.89, 1.33, 0.82]}
    moved = rackcost.evaluate(rackcost.scenario_from_dict(data))
    for (system, point), row in rows(moved).items():
        assert row["active_replicas"] >= still[(system, point)]["active_replicas"]
        assert row["accepted_rps"] <= row["offered_rps"]
        if point == "peak":
            assert row["accepted_rps"] / row["offered_rps"] >= 0.99 - 1e-9
    assert any(r["active_replicas"] > still[k]["active_replicas"] for k, r in rows(moved).items())


@pytest.mark.parametrize(
    ("sub_hour", "path", "words"),
    [
        ({"window_s": 600, "rate_ratios": [1.0] * 5}, "sub_hour.rate_ratios", "5 windows"),
        ({"window_s": 700, "rate_ratios": [1.0] * 5}, "sub_hour.window_s", "whole windows"),
        ({"window_s": 600, "rate_ratios": [0.0] * 6}, "sub_hour.rate_ratios", "every window is 0"),
        ({"window_s": 600, "rate_ratios": [1, 1, 1, 1, 1, -1]}, "sub_hour.rate_ratios[5]", "must be >= 0"),
        ({"window_s": 30, "rate_ratios": [1.0] * 120}, "sub_hour.window_s", "must be >= 60"),
    ],
)
def test_bad_sub_hour_windows_name_their_path(sub_hour, path, words):
    data = copy.deepcopy(BASE)
    data["demand"][-1]["sub_hour"] = sub_hour
    with pytest.raises(rackcost.ScenarioError) as info:
        rackcost.scenario_from_dict(data)
    found = [p for p in info.value.problems if p.path.endswith(path)]
    assert found and words in found[0].message, [str(p) for p in info.value.problems]


def test_a_swing_and_windows_on_one_point_are_refused():
    data = copy.deepcopy(BASE)
    data["demand"][-1]["sub_hour"] = {"window_s": 600, "rate_ratios": [1.2, 0.8, 1, 1, 1, 1]}
    data["demand"][-1]["rate_swing"] = {"amplitude_fraction": 0.2, "period_s": 600}
    with pytest.raises(rackcost.ScenarioError, match="not both"):
        rackcost.scenario_from_dict(data)


def test_windows_that_move_a_fixed_fleet_warn_with_the_figures():
    data = copy.deepcopy(BASE)
    data["fleet"]["replicas"] = 5
    data["demand"][-1]["sub_hour"] = {"window_s": 600, "rate_ratios": [1.5, 0.5, 1.3, 0.7, 1.2, 0.8]}
    warnings = [w for w in rackcost.evaluate(rackcost.scenario_from_dict(data)).warnings if "sub-hour" in w]
    assert warnings == [
        "B at peak: the sub-hour windows of 600 s (the busiest 1.50x the hour's mean) move the accepted share from "
        "100.0% at a constant rate to 93.6% (the same fleet, 5 replicas; demand[2].sub_hour sets them)"
    ]


# ------------------------------------------------- what a moving rate is sized for (fleet.sub_hour_sizing)


@settings(max_examples=60, deadline=None)
@given(POOL, st.floats(0.1, 2.0), RATIOS)
def test_the_busiest_window_count_is_the_stationary_count_at_its_rate(pool, scale, ratios):
    # every window at the SLO: exactly the stationary count at the busiest window's rate, never below the count whose
    # hour average meets the target (which lies between the mean's count and this one)
    routing, _, c, s, t, eps = pool
    lam = scale * 50.0 * c / s
    shape = windows(spread(ratios, 1.0))
    busiest = int(swing_replicas_needed(routing, lam, s, float(c), t, eps, shape, every_window=True))
    top = float(shape.top)
    assert busiest == int(routes.replicas_needed(routing, lam * top, s, float(c), t, eps))
    assert busiest >= int(swing_replicas_needed(routing, lam, s, float(c), t, eps, shape))
    # and its capacity at SLO is the stationary capacity over the busiest window's ratio
    capacity = float(routes.capacity_at_slo(routing, busiest, float(c), s, t, eps))
    got = float(swing_capacity_rps(routing, busiest, float(c), s, t, eps, shape, every_window=True))
    assert got == pytest.approx(capacity / top, rel=1e-12) and got >= lam * (1 - 1e-9)


PEAK_RPS = 400.0
"""The peak's rate in these tests: fleets of 50-100 replicas, where a window's few percent is a replica or more."""


def with_sub_hour(ratios: list[float], **fleet) -> rackcost.Result:
    data = copy.deepcopy(BASE)
    peak = next(d for d in data["demand"] if d["name"] == "peak")
    peak["arrival_rps"] = PEAK_RPS
    peak["sub_hour"] = {"window_s": 600, "rate_ratios": ratios}
    data["fleet"].update(fleet)
    return rackcost.evaluate(rackcost.scenario_from_dict(data))


def test_a_scenario_sizes_for_its_busiest_window_unless_it_sheds_the_overload():
    """A queue an overloaded window of minutes builds outlasts it where the stack queues every request (a fleet at
    96% of its slots replayed under a production hour with a 3% hump accepted 84%), so the default sizes every
    window at the SLO; ``hour_average`` keeps the hour's accepted share at the target, as admission control would."""
    ratios = [1.12, 1.14, 0.70, 0.89, 1.33, 0.82]  # ServeGen's busiest hour over its mean (rounded)
    top = max(ratios) / (sum(ratios) / len(ratios))
    busiest = rows(with_sub_hour(ratios))
    average = rows(with_sub_hour(ratios, sub_hour_sizing="hour_average"))
    data = copy.deepcopy(BASE)
    peak_index = next(i for i, d in enumerate(data["demand"]) if d["name"] == "peak")
    data["demand"][peak_index]["arrival_rps"] = PEAK_RPS * top  # the busiest window as a constant hour
    at_top = rows(rackcost.evaluate(rackcost.scenario_from_dict(data)))
    for key, row in busiest.items():
        assert row["active_replicas"] >= average[key]["active_replicas"]
        if key[1] == "peak":
            assert row["active_replicas"] == at_top[key]["active_replicas"]
            assert row["capacity_at_slo_rps"] >= row["offered_rps"] * (1 - 1e-9)
            assert row["accepted_rps"] / row["offered_rps"] >= 0.99 - 1e-9
            assert average[key]["accepted_rps"] / average[key]["offered_rps"] >= 0.99 - 1e-9
    assert any(busiest[k]["active_replicas"] > average[k]["active_replicas"] for k in busiest)


def test_the_report_says_what_a_moving_sizing_point_is_sized_for():
    from rackcost.reporting.input_sections import scenario_section

    def said(sub_hour_sizing: str | None) -> str:
        data = copy.deepcopy(BASE)
        if sub_hour_sizing is not None:
            next(d for d in data["demand"] if d["name"] == "peak")["rate_swing"] = {
                "amplitude_fraction": 0.2,
                "period_s": 600,
            }
            data["fleet"]["sub_hour_sizing"] = sub_hour_sizing
        return repr(scenario_section(rackcost.scenario_from_dict(data)))

    assert "sized for its busiest window" in said("busiest_window")
    assert "sized for the hour's average" in said("hour_average")
    assert "moves within its hour" not in said(None)
