"""Tests for rackcost.model.fleets.demand_steps: each step of serving a demand point alone, against its closed form, and
their composition (rackcost.model.fleets.demand.DemandSteps).

Every closed form is of the M/M/1 queue (one replica of one slot, or of ``v`` slots that bursty arrivals turn into
one): ``P(W > t) = rho exp(-(mu - lambda) t)`` and the ``q``-quantile of the wait ``ln(rho / (1 - q)) / (mu -
lambda)`` (L. Kleinrock, *Queueing Systems* I, 1975, section 3.2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rackcost.model.fleets.demand import DemandSteps, capacity_with_steps, serve_demand
from rackcost.model.fleets.demand_steps import (
    BurstyArrivals,
    ExponentialService,
    FixedPoint,
    MovingPoint,
    NoPercentiles,
    OneClass,
    PointFigures,
    PointQueue,
    PoissonArrivals,
    RequestClasses,
    SpreadService,
    StartPercentiles,
    arrivals_of,
    spread_of,
)
from rackcost.model.inputs import SloInputs
from rackcost.model.replica.performance import LoadCurve
from rackcost.model.workload import classes as mc

RTOL = 1e-12
LAMBDA, S = 0.5, 1.0  # rho = 0.5 on one slot of 1 s: mu - lambda = 0.5/s
# one replica of one slot, a budget of 1 s, 50% attainment: its capacity at SLO is above 0.5 rps, nothing is dropped
ONE_SLOT = dict(serving_replicas=1, concurrency=1.0, service_s=S, budget_s=1.0, attainment_fraction=0.5)


def _mm1_exceedance(rho: float, rate_gap: float, t_s: float) -> float:
    return rho * math.exp(-rate_gap * t_s)


def _mm1_quantile_s(rho: float, rate_gap: float, q: float) -> float:
    return math.log(rho / (1.0 - q)) / rate_gap


def _flat_load(ttft_ms: float) -> LoadCurve:  # a curve of one point: 1 slot, 1 s, the TTFT and TPOT held
    return LoadCurve(np.array([1.0]), np.array([[S]]), np.array([ttft_ms]), np.array([10.0]), None, 1.0)


# --------------------------------------------------------------------------- the composition, chosen once


def test_the_steps_are_chosen_once_from_the_inputs() -> None:
    plain = DemandSteps.of()
    assert isinstance(plain.arrivals, PoissonArrivals) and isinstance(plain.spread, ExponentialService)
    fixed = plain.serving(None, None)
    assert (type(fixed.point), type(fixed.classes), type(fixed.percentiles)) == (FixedPoint, OneClass, NoPercentiles)
    slo = SloInputs(2000.0, 100.0, None, 0.99, 100)
    moving = DemandSteps.of("pooled", [1.0, 2.0], [1.0, 2.5]).serving(_flat_load(500.0), slo)
    assert isinstance(moving.steps.arrivals, BurstyArrivals) and isinstance(moving.steps.spread, SpreadService)
    assert (type(moving.point), type(moving.classes), type(moving.percentiles)) == (
        MovingPoint,
        OneClass,
        StartPercentiles,
    )
    assert type(plain.serving(_flat_load(500.0), slo, percentiles=False).percentiles) is NoPercentiles


# --------------------------------------------------------------------------- burstiness


def test_poisson_arrivals_leave_the_queue_as_it_is() -> None:
    a = arrivals_of([1.0, 1.0])
    x = np.array([3.0, 4.0])
    assert isinstance(a, PoissonArrivals)
    assert a.slots(x) is x and a.rate(x) is x and a.capacity(x) is x and a.known_feasible(x) is x


def test_bursty_arrivals_are_the_mm_c_queue_of_c_over_v_slots_at_lambda_over_v() -> None:
    # c = 2 slots at variability v = 2 (arrival SCV 3) are the M/M/1 queue at lambda / 2
    # (rackcost.model.queues.burstiness:
    # P(W > t) ~= C(c / v, a / v) exp(-(c / S - lambda) t / v), Whitt 1993): rho = 0.5, mu - lambda = 0.5/s
    a = arrivals_of(2.0)
    assert isinstance(a, BurstyArrivals)
    assert a.slots(np.array(2.0)) == 1.0 and a.rate(np.array(1.0)) == 0.5 and a.capacity(np.array(0.7)) == 1.4
    assert a.known_feasible(np.array(1.0)) is None  # a rate of the arrivals says nothing of the scaled queue
    out = serve_demand([1.0], **(ONE_SLOT | {"concurrency": 2.0}), steps=DemandSteps.of(arrival_variability=2.0))
    assert out.admitted_rps[0] == 1.0
    expected = 1.0 * (1.0 - _mm1_exceedance(0.5, 0.5, 1.0))
    assert out.accepted_rps[0] == pytest.approx(expected, rel=RTOL)
    assert out.wait_p99_ms[0] == pytest.approx(1000.0 * _mm1_quantile_s(0.5, 0.5, 0.99), rel=RTOL)


# --------------------------------------------------------------------------- the service's spread


def test_exponential_service_leaves_budgets_and_waits_as_they_are() -> None:
    spread = spread_of(1.0)
    budget = np.array([1.0, 2.0])
    assert isinstance(spread, ExponentialService)
    assert spread.judge(budget, np.array(1.0)) is budget and spread.stretched(budget, np.array(1.0)) is budget


def test_a_spread_service_on_one_server_stretches_the_mm1_wait_by_kingmans_factor() -> None:
    # on one server Kimura's interpolation is Kingman's (1 + c_s^2) / 2
    # (rackcost.model.queues.burstiness.point_wait_stretch,
    # Cosmetatos's r = 1/2), so with a stretch of 2.5 (c_s^2 = 4): P(W > t) = rho exp(-(mu - lambda) t / 2.5), and
    # the p99 wait is 2.5 times the M/M/1 one
    stretch = 2.5
    out = serve_demand([LAMBDA], **ONE_SLOT, steps=DemandSteps.of(wait_stretch=stretch))
    assert out.admitted_rps[0] == LAMBDA
    expected = LAMBDA * (1.0 - _mm1_exceedance(0.5, 0.5, 1.0 / stretch))
    assert out.accepted_rps[0] == pytest.approx(expected, rel=RTOL)
    assert out.wait_p99_ms[0] == pytest.approx(1000.0 * stretch * _mm1_quantile_s(0.5, 0.5, 0.99), rel=RTOL)
    spread = spread_of([stretch])
    assert isinstance(spread, SpreadService)
    budgets = np.array([[1.0, 5.0]])
    np.testing.assert_array_equal(spread.judge(budgets, np.array([2.0]), axis=True), [[0.5, 2.5]])


# --------------------------------------------------------------------------- request classes


def _two_classes(ttft_limits_ms: tuple[float, float], shares: tuple[float, float]) -> mc.ClassMix:
    two = np.ones(2)
    return mc.ClassMix(
        names=("a", "b"),
        share_fraction=np.array(shares),
        input_tokens=100 * two,
        output_tokens=10 * two,
        prefix_hit_fraction=0 * two,
        input_tokens_cv=0 * two,
        output_tokens_cv=0 * two,
        spread_stated=np.array([False, False]),
        ttft_limit_ms=np.array(ttft_limits_ms),
        tpot_limit_ms=50 * two,
        e2e_limit_ms=np.inf * two,
        attainment_fraction=0.9 * two,
    )


def test_request_classes_accept_each_class_within_its_own_budget_in_one_queue() -> None:
    # two classes of the same lengths (each class's TTFT is the point's) and TTFT limits 1.2 s and 3 s at a TTFT of
    # 200 ms: budgets 1 s and 2.8 s in one M/M/1 queue, accepted lambda sum_k p_k (1 - rho exp(-(mu - lambda) b_k))
    mix = _two_classes((1200.0, 3000.0), (0.25, 0.75))
    assert np.all(mix.ttft_ratio == 1.0)
    queue = PointQueue("pooled", np.array([1]), np.array(1.0), np.array([LAMBDA]), np.array(S), arrivals_of(1.0))
    point = PointFigures(np.array([0.5]), np.array([S]), np.array([9.0]), np.array([200.0]), np.array([10.0]))
    accepted = RequestClasses(mix).accept(queue, point, spread_of(1.0), np.array(1.0))
    assert accepted.class_miss_fraction is not None
    for miss, budget_s in zip(accepted.class_miss_fraction[0], (1.0, 2.8), strict=True):
        assert miss == pytest.approx(_mm1_exceedance(0.5, 0.5, budget_s), rel=RTOL)
    expected = LAMBDA * sum(p * (1.0 - _mm1_exceedance(0.5, 0.5, b)) for p, b in ((0.25, 1.0), (0.75, 2.8)))
    assert accepted.accepted_rps[0] == pytest.approx(expected, rel=RTOL)
    assert accepted.wait_p99_s[0] == pytest.approx(_mm1_quantile_s(0.5, 0.5, 0.99), rel=RTOL)


def test_one_class_is_the_queue_at_the_points_budget() -> None:
    queue = PointQueue("pooled", np.array([1]), np.array(1.0), np.array([LAMBDA]), np.array(S), arrivals_of(1.0))
    point = PointFigures(np.array([0.5]), np.array([S]), np.array([1.0]), None, None)
    accepted = OneClass().accept(queue, point, spread_of(1.0), np.array(1.0))
    assert accepted.class_miss_fraction is None
    assert accepted.accepted_rps[0] == pytest.approx(LAMBDA * (1.0 - _mm1_exceedance(0.5, 0.5, 1.0)), rel=RTOL)


# --------------------------------------------------------------------------- percentiles


def test_the_reported_p99_ttft_is_the_points_ttft_plus_the_mm1_p99_wait_and_can_be_left_out() -> None:
    # a flat curve holds the TTFT at every occupancy; on one slot the share that waits is rho and its wait decays at
    # mu - lambda (rackcost.model.queues.occupancy.waiting_share): the p99 TTFT is TTFT + ln(rho / 0.01) / (mu - lambda)
    load, slo = _flat_load(500.0), SloInputs(2000.0, 100.0, None, 0.99, 100)
    steps = DemandSteps.of()
    with_p99 = serve_demand([[LAMBDA]], **ONE_SLOT, load=load, slo=slo, steps=steps)
    assert with_p99.ttft_p99_ms is not None and with_p99.tpot_p99_ms is not None
    expected_ms = 500.0 + 1000.0 * _mm1_quantile_s(0.5, 0.5, 0.99)
    assert with_p99.ttft_p99_ms[0, 0] == pytest.approx(expected_ms, rel=RTOL)
    assert with_p99.tpot_p99_ms[0, 0] == 10.0
    # without the percentiles step every other figure is the same, bit for bit
    without = steps.serving(load, slo, percentiles=False)
    cap = capacity_with_steps([[LAMBDA]], 1, 1.0, S, 1.0, 0.5, "powered", 1.0, None, steps)
    plain = without.serve([[LAMBDA]], cap, 1.0, S, 1.0)
    assert plain.ttft_p99_ms is None and plain.tpot_p99_ms is None
    for name in ("accepted_rps", "wait_p99_ms", "utilization_fraction", "ttft_ms", "capacity_at_slo_rps"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(with_p99, name))
