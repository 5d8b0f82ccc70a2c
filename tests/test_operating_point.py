"""Tests for rackcost.operating_point: SLO feasibility, queueing budget, the chosen point (DESIGN.md step 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rackcost.operating_point import choose_operating_point, e2e_ms, feasible, queueing_budget_s

RTOL_FLOAT = 1e-12


# --------------------------------------------------------------------------- feasibility


def test_tpot_limit_is_inclusive() -> None:
    # DESIGN.md step 3: TPOT <= limit is feasible.
    ok = feasible([500.0, 500.0, 500.0], [49.0, 50.0, 50.001], 500.0, 2000.0, 50.0)
    np.testing.assert_array_equal(ok, [True, True, False])


def test_ttft_limit_is_strict() -> None:
    # DESIGN.md step 3: TTFT < limit; at TTFT == limit the queueing budget is 0 and nothing can wait.
    ok = feasible([1999.0, 2000.0, 2001.0], [20.0, 20.0, 20.0], 500.0, 2000.0, 50.0)
    np.testing.assert_array_equal(ok, [True, False, False])


def test_e2e_limit() -> None:
    # e2e = TTFT + (OSL - 1) TPOT: 500 + 100 x 20 = 2,500 ms at OSL 101.
    assert float(e2e_ms(500.0, 20.0, 101.0)) == pytest.approx(2500.0, rel=RTOL_FLOAT)
    ok = feasible([500.0] * 3, [20.0] * 3, 101.0, 2000.0, 50.0, e2e_limit_ms=None)
    assert ok.all()
    # limits 3,000 (2,500 below it), 2,500 (equal: no slack, strict like TTFT) and 2,400 (exceeded)
    for limit, expected in [(3000.0, True), (2500.0, False), (2400.0, False)]:
        assert bool(feasible(500.0, 20.0, 101.0, 2000.0, 50.0, limit)) is expected, limit


# --------------------------------------------------------------------------- queueing budget


def test_budget_is_ttft_slack() -> None:
    # budget = TTFT limit - TTFT: 2,000 - 500 = 1,500 ms = 1.5 s
    assert float(queueing_budget_s(500.0, 20.0, 101.0, 2000.0)) == pytest.approx(1.5, rel=RTOL_FLOAT)


def test_budget_is_min_of_ttft_and_e2e_slack() -> None:
    # e2e 2,500 ms at OSL 101. Limit 3,000 -> e2e slack 500 ms < TTFT slack 1,500 ms -> 0.5 s;
    # limit 10,000 -> e2e slack 7,500 ms > 1,500 ms -> 1.5 s.
    got = queueing_budget_s([500.0, 500.0], [20.0, 20.0], 101.0, 2000.0, 3000.0)
    np.testing.assert_allclose(got, [0.5, 0.5], rtol=RTOL_FLOAT)
    assert float(queueing_budget_s(500.0, 20.0, 101.0, 2000.0, 10_000.0)) == pytest.approx(1.5, rel=RTOL_FLOAT)


def test_budget_negative_where_infeasible() -> None:
    assert float(queueing_budget_s(2500.0, 20.0, 101.0, 2000.0)) == pytest.approx(-0.5, rel=RTOL_FLOAT)


# --------------------------------------------------------------------------- choice


def _choose(conc, service, budget, ok, busy_w, idle_w=100.0, rps=100.0, u_max=0.5):
    return choose_operating_point(
        np.asarray(conc, float),
        np.asarray(service, float),
        np.asarray(budget, float),
        np.asarray(ok, bool),
        np.asarray(busy_w, float),
        idle_w,
        rps,
        0.99,
        u_max,
    )


# Three candidates at 100 rps with u_max = 0.5 and a 1 s budget: c = 8, 32, 128 slots holding requests
# S = 2, 4, 10 s, i.e. mu = c / S = 4, 8, 12.8 rps per replica. The ceiling needs ceil(lambda S / (c u_max))
# = ceil(100 / (0.5 mu)) = 50, 25, 16 replicas. That many replicas also meet the wait SLO: their slots serve
# k/S = 2 lambda, so P(W > 1 s) <= exp(-(k/S - lambda) t) = exp(-100) << 0.01 (C <= 1, DESIGN.md step 4).
# So the replica counts are exactly the ceiling counts.
CONC, SERVICE, BUDGET = [8.0, 32.0, 128.0], [2.0, 4.0, 10.0], [1.0, 1.0, 1.0]


def test_choose_fewest_replicas() -> None:
    for c, s, n in zip(CONC, SERVICE, [50, 25, 16], strict=True):  # the derivation above, spelled out
        assert n == math.ceil(100.0 * s / (c * 0.5)) and math.exp(-(n * c / s - 100.0) * 1.0) < 1e-40
    best, replicas = _choose(CONC, SERVICE, BUDGET, [True, True, True], [4000.0, 4000.0, 4000.0])
    np.testing.assert_array_equal(replicas, [50, 25, 16])
    assert best == 2


def test_choose_skips_infeasible_and_reports_zero_replicas_there() -> None:
    best, replicas = _choose(CONC, SERVICE, BUDGET, [True, True, False], [4000.0, 4000.0, 4000.0])
    np.testing.assert_array_equal(replicas, [50, 25, 0])
    assert best == 1


def test_fewest_replicas_beats_lower_power() -> None:
    # candidate 2 draws 10x the power per replica but needs fewer replicas: replicas decide first.
    best, _ = _choose(CONC, SERVICE, BUDGET, [True, True, True], [4000.0, 4000.0, 40_000.0])
    assert best == 2


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_tie_on_replicas_goes_to_lower_power(order: tuple[int, int]) -> None:
    # Two candidates identical but for busy power (3,000 W vs 2,000 W per replica): same replica count,
    # the 2,000 W one wins whichever comes first.
    busy = np.array([3000.0, 2000.0])[list(order)]
    best, replicas = _choose([32.0, 32.0], [4.0, 4.0], [1.0, 1.0], [True, True], busy)
    assert replicas[0] == replicas[1] == 25
    assert busy[best] == 2000.0


def test_tie_broken_by_fleet_power_not_replica_power() -> None:
    # Same 25 replicas at 100 rps (ceil(100 x 4 / (32 x 0.5)) = 25 and ceil(100 x 8 / (64 x 0.5)) = 25), but
    # different utilisation: candidate 0 runs u = 100 x 4 / (25 x 32) = 0.5, candidate 1 u = 100 x 8 /
    # (25 x 64) = 0.5 too; give candidate 1 a lower busy power -> it wins on fleet power
    # 25 x (100 + (busy - 100) x 0.5).
    best, replicas = _choose([32.0, 64.0], [4.0, 8.0], [1.0, 1.0], [True, True], [3000.0, 2900.0])
    assert replicas.tolist() == [25, 25]
    assert best == 1


def test_no_feasible_point_raises() -> None:
    with pytest.raises(ValueError, match="no operating point meets the SLO"):
        _choose(CONC, SERVICE, BUDGET, [False, False, False], [4000.0] * 3)
