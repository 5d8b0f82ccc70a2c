"""Tests for rackcost.model.replica.operating_point: SLO feasibility, queueing budget, the chosen point (DESIGN.md step
3)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.evaluation.chain import choose_points
from rackcost.model.fleets.sizing import sized_replicas
from rackcost.model.inputs import SloInputs, SystemInputs
from rackcost.model.queues import queueing
from rackcost.model.queues import routing as routes
from rackcost.model.replica.operating_point import (
    FIRST_BATCH_CANDIDATES,
    MAX_INTEGER_CANDIDATES,
    candidate_curve,
    choose_point,
    e2e_ms,
    feasible,
    queueing_budget_s,
    replicas_lower_bound,
    search_concurrencies,
    search_operating_point,
)
from rackcost.model.replica.performance import Curve, build_curve, interpolate_curve
from reference import TWO_SYSTEMS

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


def choose_operating_point(
    concurrency, service_s, budget_s, is_feasible, busy_w, idle_w, sizing_rps, attainment, u_max=1.0, routing="pooled"
):
    """The exhaustive reference of :func:`search_operating_point`: every feasible candidate's replica count (the
    public :func:`rackcost.model.queues.routing.replicas_needed` and :func:`sized_replicas`), then the fewest replicas,
    the lower power at the sizing demand ``N (P_idle + (P_busy - P_idle) lambda S / (N c))``, the higher concurrency.
    The power is written in the library's order of operations, so that equal keys compare bit for bit."""
    idx = np.flatnonzero(is_feasible)
    if idx.size == 0:
        raise ValueError("no operating point meets the SLO")
    c, s = concurrency[idx], service_s[idx]
    n = routes.replicas_needed(routing, sizing_rps, s, c, budget_s[idx], 1.0 - attainment)
    n = sized_replicas(n, sizing_rps, s, c, u_max)
    utilization = sizing_rps * s / (n * c)
    power = n * (idle_w + (busy_w[idx] - idle_w) * utilization)
    best = idx[np.lexsort((-c, power, n))[0]]
    replicas = np.zeros(concurrency.shape, dtype=np.int64)
    replicas[idx] = n
    return int(best), replicas


def _choose(conc, service, budget, ok, busy_w, idle_w=100.0, rps=100.0, u_max=0.5, search=choose_operating_point):
    return search(
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


# --------------------------------------------------------------------------- the exact search (branch and bound)


def test_search_agrees_with_the_exhaustive_choice_on_the_cases_above() -> None:
    # the cases of the tests above, by branch and bound: same index, and the exhaustive count at it
    cases = [
        (CONC, SERVICE, BUDGET, [True, True, True], [4000.0, 4000.0, 4000.0]),
        (CONC, SERVICE, BUDGET, [True, True, False], [4000.0, 4000.0, 4000.0]),
        (CONC, SERVICE, BUDGET, [True, True, True], [4000.0, 4000.0, 40_000.0]),
        ([32.0, 32.0], [4.0, 4.0], [1.0, 1.0], [True, True], [3000.0, 2000.0]),
        ([32.0, 32.0], [4.0, 4.0], [1.0, 1.0], [True, True], [2000.0, 3000.0]),
        ([32.0, 64.0], [4.0, 8.0], [1.0, 1.0], [True, True], [3000.0, 2900.0]),
    ]
    for case in cases:
        best, replicas = _choose(*case)
        assert _choose(*case, search=search_operating_point) == (best, replicas[best])


def test_search_tie_on_replicas_and_power_goes_to_higher_concurrency() -> None:
    # c = 32, S = 4 s and c = 64, S = 8 s at 100 rps, u_max = 0.5: 25 replicas each (see the test above), both at
    # u = 0.5 exactly, and the same busy power: fleet power 25 x (100 + 2,900 x 0.5) W on both, bit for bit.
    # The tie goes to the higher concurrency, whichever comes first, in both searches.
    for conc, service in [([32.0, 64.0], [4.0, 8.0]), ([64.0, 32.0], [8.0, 4.0])]:
        args = (conc, service, [1.0, 1.0], [True, True], [3000.0, 3000.0])
        best, replicas = _choose(*args)
        assert replicas.tolist() == [25, 25] and conc[best] == 64.0
        assert _choose(*args, search=search_operating_point) == (best, 25)


def test_search_tie_across_batches_goes_to_higher_concurrency() -> None:
    # A tie the first batch cannot see. At 100 rps, u_max = 1, 99% within the budget:
    #   A: c = 1, S = 0.0625 s, budget 10 ms: bound floor(6.25) + 1 = 7, but the wait SLO needs 13 replicas;
    #   B: c = 32, S = 4 s, budget 1,000 s: bound floor(12.5) + 1 = 13 and 13 meet the SLO;
    #   15 fillers c = 1.01..1.15, S = 0.1 c: bound 11, each needing more than 13.
    # A and B need 13 replicas at the same fleet power, bit for bit: utilisation 6.25/13 and 12.5/13 (a power of
    # two apart) times busy - idle = 4,000 and 2,000 W. Sorted by bound, A and the fillers fill the first batch
    # and B comes after: the search must still compare B's bound key with A's and take B, the higher
    # concurrency, as the exhaustive choice does.
    fillers = 1.0 + np.arange(1, FIRST_BATCH_CANDIDATES) / 100.0
    conc = np.concatenate([[1.0, 32.0], fillers])
    service = np.concatenate([[0.0625, 4.0], 0.1 * fillers])
    budget = np.concatenate([[0.01, 1000.0], np.zeros(fillers.size)])
    busy = np.concatenate([[4100.0, 2100.0], np.full(fillers.size, 2100.0)])
    args = (conc, service, budget, np.ones(conc.size, bool), busy, 100.0, 100.0, 0.99, 1.0)
    assert replicas_lower_bound(conc, service, 100.0, 1.0).tolist() == [7, 13] + [11] * fillers.size
    best, replicas = choose_operating_point(*args)
    assert replicas[:2].tolist() == [13, 13] and np.all(replicas[2:] > 13)
    assert best == 1
    assert search_operating_point(*args) == (1, 13)


def test_search_raises_when_nothing_is_feasible() -> None:
    with pytest.raises(ValueError, match="no operating point meets the SLO"):
        _choose(CONC, SERVICE, BUDGET, [False, False, False], [4000.0] * 3, search=search_operating_point)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 8 * FIRST_BATCH_CANDIDATES),
    st.integers(0, 2**32 - 1),
    st.floats(0.1, 500.0),
    st.floats(0.8, 1.0),
    st.sampled_from([0.9, 0.99, 0.999]),
)
def test_property_search_equals_exhaustive(size: int, seed: int, rps: float, u_max: float, attainment: float) -> None:
    # Random candidates with values drawn from short lists, so that equal replica counts and equal fleet powers
    # (the tie-breaks) are common; S / c from a short list makes lambda S / (N c) and so the fleet power equal
    # bit for bit across concurrencies at the same count. Sizes up to several batches, budgets down to 0 and a
    # high utilisation ceiling (the SLO then needs more than the lower bound, which settles less): branch and
    # bound must return the exhaustive choice exactly, ties included.
    rng = np.random.default_rng(seed)
    conc = rng.permutation(np.arange(1.0, size + 1.0))  # unique, like the integers of a range
    service = rng.choice([1.0, 2.0, 4.0, 8.0], size) * conc / 8.0
    budget = rng.choice([0.0, 0.01, 0.05, 0.5], size)
    busy = rng.choice([2000.0, 3000.0], size)
    ok = rng.random(size) < 0.8
    ok[rng.integers(size)] = True
    args = (conc, service, budget, ok, busy, 100.0, rps, attainment, u_max)
    best, replicas = choose_operating_point(*args)
    assert search_operating_point(*args) == (best, int(replicas[best]))


@settings(max_examples=200, deadline=None)
@given(
    st.floats(0.5, 5000.0),
    st.floats(0.01, 100.0),
    st.one_of(st.just(0.0), st.floats(1e-6, 10.0)),
    st.floats(0.3, 1.0),
    st.sampled_from([0.5, 0.9, 0.99, 0.999]),
    st.floats(0.0, 1e4),
)
def test_property_lower_bound_never_exceeds_the_count(
    conc: float, service_s: float, budget_s: float, u_max: float, attainment: float, rps: float
) -> None:
    # the bound the search prunes with holds for the counts the library computes, not only for exact numbers
    n = sized_replicas(
        queueing.replicas_needed(rps, service_s, conc, budget_s, 1.0 - attainment), rps, service_s, conc, u_max
    )
    bound = replicas_lower_bound(conc, service_s, rps, u_max)
    assert 1 <= bound <= n
    # and it is the closed form: N > lambda S / c, N >= lambda S / (c u_max)
    load = rps * service_s
    assert bound * conc > load and bound >= load / (conc * u_max) * (1.0 - 1e-12)


# --------------------------------------------------------------------------- the candidates: integers


def _curve(conc, rps=None, tpot=None, ttft=None, power=None, isl: float = 1000.0, osl: float = 100.0) -> Curve:
    n = len(conc)
    rps = [2.0 * (i + 1) for i in range(n)] if rps is None else rps
    return build_curve(
        conc,
        np.asarray(rps, float) * osl,
        "output",
        [20.0 + i for i in range(n)] if tpot is None else tpot,
        [200.0 * (i + 1) for i in range(n)] if ttft is None else ttft,
        isl,
        osl,
        power,
    )


def test_integer_range_searches_every_integer() -> None:
    np.testing.assert_array_equal(search_concurrencies(_curve([4.0, 8.0, 64.0])), np.arange(4.0, 65.0))


def test_non_integer_range_searches_the_integers_inside_only() -> None:
    # Little's law gives non-integer concurrencies; the measured ends 3.7 and 17.448 are not candidates
    got = search_concurrencies(_curve([3.7, 9.0, 17.448]))
    np.testing.assert_array_equal(got, np.arange(4.0, 18.0))


def test_single_point_is_used_as_it_is() -> None:
    curve = _curve([17.448])
    np.testing.assert_array_equal(search_concurrencies(curve), [17.448])
    cand = candidate_curve(curve)
    for name in ("concurrency", "request_rps", "tpot_ms", "ttft_ms", "total_tokens_per_s"):
        np.testing.assert_array_equal(getattr(cand, name), getattr(curve, name), err_msg=name)


def test_range_without_an_integer_keeps_its_measured_points() -> None:
    np.testing.assert_array_equal(search_concurrencies(_curve([2.3, 2.9])), [2.3, 2.9])


def test_wide_range_falls_back_to_log_spaced_integers() -> None:
    # 10^6 integers: MAX_INTEGER_CANDIDATES log-spaced ones (fewer once rounding merges the lowest), integers,
    # both ends kept, consecutive at the low end where the log spacing is below one
    got = search_concurrencies(_curve([1.0, 1e6]))
    assert got.size <= MAX_INTEGER_CANDIDATES
    assert got[0] == 1.0 and got[-1] == 1e6
    np.testing.assert_array_equal(got, np.round(got))
    assert np.all(np.diff(got) > 0)
    # ln(10^6) / 10^5 = 1.4e-4 relative spacing: below one up to about 7,000
    np.testing.assert_array_equal(got[:5000], np.arange(1.0, 5001.0))


def _system(curve: Curve, busy_w: float = 600.0, idle_w: float = 100.0) -> SystemInputs:
    return SystemInputs(
        name="test",
        curve=curve,
        coarse=candidate_curve(curve),
        concurrency_derived=False,
        accelerators_per_replica=8,
        accelerators_per_node=8,
        nodes_per_rack=4,
        rated_w=700.0,
        busy_w=busy_w,
        idle_w=idle_w,
        parked_w=idle_w,
        host_w=2000.0,
        host_rated_w=2000.0,
        host_parked_w=2000.0,
        rack_overhead_w=3000.0,
        pue=1.2,
        price_usd_per_kwh=0.1,
        rack_power_limit_w=130_000.0,
        colocation_usd_per_kw_month=150.0,
        build_usd_per_kw=10_000.0,
        build_life_years=15.0,
        headline_tokens_per_s_per_kw=1.0,
        headline_power_basis="rated",
        headline_is_claim=False,
    )


def test_chosen_point_is_an_integer_inside_a_non_integer_range() -> None:
    # Throughput rises with concurrency and every point meets a loose SLO, so more slots need fewer replicas:
    # the best is the top of the range, 17, not the measured (Little's law) 17.448.
    inp = _system(_curve([3.7, 9.0, 17.448]))
    slo = SloInputs(
        ttft_limit_ms=10_000.0, tpot_limit_ms=100.0, e2e_limit_ms=None, attainment_fraction=0.99, output_tokens=100
    )
    chosen = choose_point(inp, slo, 50.0, 0.8)
    assert chosen.concurrency == 17.0


def test_claim_point_is_chosen_as_it_is() -> None:
    curve = _curve([17.448], rps=[3.0], tpot=[25.0], ttft=[400.0])
    slo = SloInputs(
        ttft_limit_ms=2000.0, tpot_limit_ms=50.0, e2e_limit_ms=None, attainment_fraction=0.99, output_tokens=100
    )
    chosen = choose_point(_system(curve), slo, 30.0, 0.8)
    assert chosen.concurrency == 17.448 and chosen.ttft_ms == 400.0
    assert float(chosen.point.request_rps[0]) == 3.0
    # the count is the library's at that point: queueing budget 2,000 - 400 ms
    service_s = 17.448 / 3.0
    slo_n = queueing.replicas_needed(30.0, service_s, 17.448, 1.6, 0.01)
    assert chosen.slo_replicas == int(sized_replicas(slo_n, 30.0, service_s, 17.448, 0.8))


def test_measured_points_between_integers_are_reported_at_load(tmp_path: Path) -> None:
    # Points at 2.5 (TTFT 1,900 ms) and 8 (5,000 ms): only the measured 2.5 meets TTFT < 2,000 ms; at 3, the
    # first integer, TTFT is 2,387 ms interpolated in log concurrency (2,182 ms linearly): no integer does.
    text = TWO_SYSTEMS.read_text(encoding="utf-8")
    old = text[text.index("        - {concurrency: 8,") : text.index("    hardware:")]
    new = (
        "        - {concurrency: 2.5, throughput_tokens_per_s: 3000, tpot_ms: 20, ttft_ms: 1900}\n"
        "        - {concurrency: 8, throughput_tokens_per_s: 9000, tpot_ms: 30, ttft_ms: 5000}\n"
    )
    path = tmp_path / "between.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    # the system is left out with why, the other evaluated (issue 22: not an input error)
    (unserved,) = rackcost.evaluate(rackcost.load_scenario(path)).unserved
    assert unserved["path"] == "systems[0].performance" and unserved["limit"] == "slo"
    assert "measured points at concurrency 2.5 do" in unserved["reason"]
    assert "no integer in the measured range (2.5-8)" in unserved["reason"]


# --------------------------------------------------------------------------- fewest replicas, by brute force


def _brute_force(inp: SystemInputs, slo: SloInputs, rps: float, u_max: float):
    """Every integer of the measured range: feasibility and the count from queueing.replicas_needed directly.

    Returns the integers, their replica counts (0 where infeasible) and fleet powers at the sizing demand.
    """
    ints = np.arange(math.ceil(inp.curve.concurrency[0]), math.floor(inp.curve.concurrency[-1]) + 1.0)
    at = interpolate_curve(inp.curve, ints)
    e2e = at.ttft_ms + (slo.output_tokens - 1) * at.tpot_ms
    ok = (at.tpot_ms <= slo.tpot_limit_ms) & (at.ttft_ms < slo.ttft_limit_ms)
    budget_ms = slo.ttft_limit_ms - at.ttft_ms
    if slo.e2e_limit_ms is not None:
        ok &= e2e < slo.e2e_limit_ms
        budget_ms = np.minimum(budget_ms, slo.e2e_limit_ms - e2e)
    n = np.zeros(ints.shape, dtype=np.int64)
    s = ints / at.request_rps
    if ok.any():
        slo_n = queueing.replicas_needed(rps, s[ok], ints[ok], budget_ms[ok] / 1000.0, 1.0 - slo.attainment_fraction)
        n[ok] = sized_replicas(slo_n, rps, s[ok], ints[ok], u_max)
    busy = inp.busy_w if at.power_w_per_accelerator is None else at.power_w_per_accelerator
    busy_replica = inp.accelerators_per_replica * busy + inp.host_w_per_replica
    idle_replica = inp.accelerators_per_replica * inp.idle_w + inp.host_w_per_replica
    with np.errstate(divide="ignore", invalid="ignore"):
        power = n * idle_replica + (busy_replica - idle_replica) * rps * s / ints
    return ints, n, power


@st.composite
def curves_and_slos(draw):
    """A monotone curve and an SLO near its points.

    2 to 5 points with concurrency, request rate, TPOT and TTFT all rising, at integer concurrencies or not, with
    measured power or not; the limits are drawn relative to the lowest point, so that most draws have feasible
    integers and the boundary (where the queueing budget vanishes) falls inside the range.
    """
    n = draw(st.integers(2, 5))
    conc = sorted(
        draw(
            st.lists(
                st.one_of(st.integers(1, 1500).map(float), st.floats(0.5, 1500.0)),
                min_size=n,
                max_size=n,
                unique_by=lambda x: round(x, 6),
            )
        )
    )
    if conc[-1] < conc[0] * (1 + 1e-6):
        conc = [conc[0], conc[0] * 2.0]
    n = len(conc)

    def rising(first: st.SearchStrategy[float], factor_max: float) -> np.ndarray:
        factors = draw(st.lists(st.floats(1.0, factor_max), min_size=n - 1, max_size=n - 1))
        return np.cumprod([draw(first), *factors])

    rps = rising(st.floats(0.01, 20.0), 3.0)
    tpot = rising(st.floats(5.0, 60.0), 1.5)
    ttft = rising(st.floats(50.0, 3000.0), 3.0)
    power = None
    if draw(st.booleans()):
        power = np.cumsum(
            [draw(st.floats(200.0, 600.0))] + draw(st.lists(st.floats(0.0, 200.0), min_size=n - 1, max_size=n - 1))
        )
    osl = draw(st.integers(1, 2000))
    e2e = None
    if draw(st.booleans()):
        e2e = (ttft[0] + (osl - 1) * tpot[0]) * draw(st.floats(1.01, 5.0))
    slo = SloInputs(
        ttft_limit_ms=ttft[0] * draw(st.floats(1.01, 10.0)),
        tpot_limit_ms=tpot[0] * draw(st.floats(1.01, 2.0)),
        e2e_limit_ms=e2e,
        attainment_fraction=draw(st.sampled_from([0.9, 0.99, 0.999])),
        output_tokens=osl,
    )
    return _curve(conc, rps, tpot, ttft, power), slo


@settings(max_examples=150, deadline=None)
@given(curves_and_slos(), st.floats(0.05, 2000.0), st.one_of(st.just(1.0), st.floats(0.3, 1.0)))
def test_property_no_integer_needs_fewer_replicas(case: tuple[Curve, SloInputs], rps: float, u_max: float) -> None:
    curve, slo = case
    inp = _system(curve)
    ints, n, power = _brute_force(inp, slo, rps, u_max)
    # a range holding no integer is searched over its measured points instead (documented, tested on its own)
    assume(ints.size > 0)
    if not (n > 0).any():
        with pytest.raises(ValueError, match="no operating point meets the SLO"):
            choose_point(inp, slo, rps, u_max)
        return
    chosen = choose_point(inp, slo, rps, u_max)
    c = chosen.concurrency
    assert c == round(c) and ints[0] <= c <= ints[-1]
    i = int(c - ints[0])
    # the chosen integer is feasible and its count is the brute force's
    assert n[i] > 0 and chosen.slo_replicas == n[i]
    # no integer needs fewer replicas
    assert chosen.slo_replicas == n[n > 0].min()
    # ties on replicas go to the lowest fleet power at the sizing demand (to 1e-12: the brute force writes the
    # same law in another order; the exact tie-break is tested against choose_operating_point above)
    tied = n == n[i]
    assert power[i] <= power[tied].min() * (1.0 + 1e-12)


# --------------------------------------------------------------------------- the Gaudi scenario (issue 10, item 3)

GAUDI = next(p for p in rackcost.bundled_scenarios() if p.stem == "llama-3.3-70b-gaudi25-tp-precision")


def test_gaudi_tp2_bf16_picks_the_brute_force_optimum() -> None:
    # The two-pass search chose 10.37 requests (147 SLO replicas, 152 provisioned) and skipped 11, the highest
    # integer meeting TTFT < 2,000 ms (1,366 ms at 8, 2,634 ms at 16 measured; linear in concurrency, 2,000.1 ms at
    # 12). Brute force over every integer 4..64 with the replica count of the search: 11 needs the fewest.
    scenario = rackcost.load_scenario(GAUDI)
    planned = choose_points(scenario)
    u_max = scenario.fleet.max_utilization_fraction
    names = [inp.name for inp in planned.systems]
    chosen = dict(zip(names, planned.chosen, strict=True))
    inp = planned.systems[names.index("Gaudi 2.5 TP2 BF16")]
    ints, n, _ = _brute_force(inp, planned.slo, planned.sizing_rps, u_max)
    best = chosen["Gaudi 2.5 TP2 BF16"]
    assert best.concurrency == 11.0
    assert best.slo_replicas == n[n > 0].min() < 147
    assert np.flatnonzero(n == n[n > 0].min()).tolist() == [int(11 - ints[0])]
    # At TP4 the BF16 and FP8 curves are near identical up to the SLO, and under one rule they choose the same
    # concurrency and need the same replicas.
    bf16, fp8 = chosen["Gaudi 2.5 TP4 BF16"], chosen["Gaudi 2.5 TP4 FP8"]
    assert (bf16.concurrency, bf16.slo_replicas) == (fp8.concurrency, fp8.slo_replicas)
    # At TP2 they differ only on a knife edge: FP8's measured TTFT at 16 is 2,629 ms against BF16's 2,634 ms, so at
    # 12 FP8 is 1.8 ms inside the 2,000 ms limit and BF16 0.1 ms outside. The choice is exact, and the warnings say
    # that a measurement error this small moves it.
    bf16, fp8 = chosen["Gaudi 2.5 TP2 BF16"], chosen["Gaudi 2.5 TP2 FP8"]
    assert (bf16.concurrency, fp8.concurrency) == (11.0, 12.0)
    assert fp8.budget_s * 1000.0 < 0.01 * scenario.slo.ttft_limit_ms
    warnings = rackcost.evaluate(scenario).warnings
    assert any("Gaudi 2.5 TP2 FP8" in w and "within 1% of the limit" in w for w in warnings)
    assert not any("Gaudi 2.5 TP2 BF16" in w and "within 1% of the limit" in w for w in warnings)
