"""Tests for rackcost.model.fleets.demand: one provisioned fleet at each demand point (DESIGN.md step 6)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackcost.model.fleets.demand import serve_demand
from rackcost.model.inputs import SloInputs
from rackcost.model.replica.performance import LoadCurve
from reference import smallest_replicas, wait_exceedance, wait_quantile

RTOL_FLOAT = 1e-12
# capacity_at_slo is found by a bracketing root search stopped at 1e-10 relative width (queueing.py,
# _CAPACITY_RTOL); comparisons against it allow 1e-9.
RTOL_CAPACITY = 1e-9


# A fleet of 10 replicas x 10 slots, each request holding its slot S = 2 s, 1 s of queueing budget, 99 %
# attainment: 100 slots can carry at most k/S = 50 rps.
FLEET = dict(serving_replicas=10, concurrency=10.0, service_s=2.0, budget_s=1.0, attainment_fraction=0.99)


# --------------------------------------------------------------------------- invariants


@settings(max_examples=80, deadline=None)
@given(
    rates=st.lists(st.floats(1e-3, 2000.0), min_size=1, max_size=4),
    n_prov=st.integers(1, 60),
    c=st.floats(1.0, 128.0),
    s=st.floats(0.2, 30.0),
    # the chain's budgets are (TTFT limit - TTFT) / 1000 for feasible points, never subnormal: 0 or >= 1e-9 s
    # (sub-1e-308 budgets overflow S / t inside rackcost.model.queues.queueing; that module has its own tests)
    budget=st.one_of(st.just(0.0), st.floats(1e-9, 5.0)),
    attainment=st.floats(0.5, 0.999),
    policy=st.sampled_from(["powered", "park"]),
)
def test_property_accepted_never_exceeds_offered(rates, n_prov, c, s, budget, attainment, policy) -> None:
    out = serve_demand(rates, n_prov, c, s, budget, attainment, policy)
    lam = np.asarray(rates)
    assert np.all(out.accepted_rps >= 0.0)
    assert np.all(out.accepted_rps <= out.admitted_rps)
    assert np.all(out.admitted_rps <= lam)
    assert np.all(out.accepted_rps <= lam)  # accepted <= offered, always
    np.testing.assert_allclose(out.rejected_rps, lam - out.accepted_rps, rtol=RTOL_FLOAT, atol=0.0)
    np.testing.assert_allclose(out.rejected_fraction, out.rejected_rps / lam, rtol=RTOL_FLOAT)
    assert np.all((out.rejected_fraction >= 0.0) & (out.rejected_fraction <= 1.0))
    # nothing beyond what the whole fleet carries within the SLO is accepted
    assert np.all(out.accepted_rps <= out.capacity_at_slo_rps * (1 + RTOL_CAPACITY))
    # slots never over-full, replicas within the fleet
    assert np.all((out.utilization_fraction >= 0.0) & (out.utilization_fraction < 1.0))
    assert np.all((out.active_replicas >= 1) & (out.active_replicas <= n_prov))
    for arr in (out.accepted_rps, out.capacity_at_slo_rps, out.spare_capacity_fraction, out.wait_p99_ms):
        assert np.all(np.isfinite(arr))


# --------------------------------------------------------------------------- idle policies


def test_powered_every_replica_active() -> None:
    out = serve_demand([1.0, 20.0, 45.0], **FLEET, idle_policy="powered")
    np.testing.assert_array_equal(out.active_replicas, [10, 10, 10])
    # slot utilisation = lambda S / (N c) = 2 / 100, 40 / 100, 90 / 100
    np.testing.assert_allclose(out.utilization_fraction, [0.02, 0.40, 0.90], rtol=RTOL_FLOAT)


def test_park_active_is_smallest_meeting_slo() -> None:
    rates = [1.0, 20.0, 45.0]
    out = serve_demand(rates, **FLEET, idle_policy="park")
    # independent linear search with the textbook M/M/k tail (reference.py): smallest N with
    # P(W > 1 s) <= 0.01 on N x 10 slots.
    expected = [min(smallest_replicas(lam, 2.0, 10, 1.0, 0.01), 10) for lam in rates]
    np.testing.assert_array_equal(out.active_replicas, expected)
    assert expected[0] < expected[1] < expected[2]  # the points really differ
    # utilisation of the serving replicas only: lambda S / (N_active c)
    np.testing.assert_allclose(
        out.utilization_fraction, [lam * 2.0 / (n * 10.0) for lam, n in zip(rates, expected, strict=True)]
    )


@settings(max_examples=40, deadline=None)
@given(lam=st.floats(0.01, 200.0), c=st.integers(1, 32), s=st.floats(0.5, 10.0), budget=st.floats(0.05, 3.0))
def test_property_park_active_matches_linear_search(lam: float, c: int, s: float, budget: float) -> None:
    eps = 0.01
    n_prov = 1000
    out = serve_demand([lam], n_prov, float(c), s, budget, 1.0 - eps, "park")
    got = int(out.active_replicas[0])
    needed = smallest_replicas(lam, s, c, budget, eps)
    expected = min(needed, n_prov)  # park never activates more replicas than are provisioned
    if needed > n_prov:
        assert got == n_prov and bool(out.overloaded[0])
        return
    if got != expected:
        # only acceptable on a numerical tie: the count where they differ sits on P(W > t) = eps to ~1e-9
        edge = min(got, expected)
        p = wait_exceedance(budget, edge * c, lam, s)
        assert p == pytest.approx(eps, rel=1e-9), (got, expected, p)
    # and the active replicas do meet the SLO at this point
    assert wait_exceedance(budget, got * c, lam, s) <= eps * (1 + 1e-9)


def test_park_capped_at_provisioned() -> None:
    # 100 rps needs more than 10 replicas (k/S = 50 rps): all 10 serve and the point is overloaded.
    out = serve_demand([100.0], **FLEET, idle_policy="park")
    assert int(out.active_replicas[0]) == 10
    assert bool(out.overloaded[0])


def test_unknown_policy() -> None:
    with pytest.raises(ValueError, match="idle_policy"):
        serve_demand([1.0], **FLEET, idle_policy="sleep")


# --------------------------------------------------------------------------- capacity, overload, spare


def test_capacity_at_slo_is_the_largest_rate_meeting_the_slo() -> None:
    out = serve_demand([1.0, 20.0], **FLEET)
    cap = float(out.capacity_at_slo_rps[0])
    assert np.all(out.capacity_at_slo_rps == cap)  # one fleet, one capacity
    # textbook M/M/k tail on 100 slots: within the SLO at the capacity, outside it just above
    assert wait_exceedance(1.0, 100, cap, 2.0) <= 0.01 * (1 + 1e-9)
    assert wait_exceedance(1.0, 100, cap * (1 + 1e-6), 2.0) > 0.01
    assert 0.0 < cap < 50.0  # below k / S


def test_overloaded_point_is_flagged_and_capped_at_capacity() -> None:
    out = serve_demand([20.0, 60.0, 200.0], **FLEET)
    cap = float(out.capacity_at_slo_rps[0])
    np.testing.assert_array_equal(out.overloaded, [False, True, True])
    # admission control admits exactly the capacity; accepted cannot exceed it
    np.testing.assert_allclose(out.admitted_rps[1:], [cap, cap], rtol=RTOL_FLOAT)
    assert np.all(out.accepted_rps[1:] <= cap)
    # everything above capacity is rejected, plus the admitted requests that miss the SLO
    assert np.all(out.rejected_rps[1:] >= np.array([60.0, 200.0]) - cap)
    # at the capacity the miss share is the target, so accepted = cap x (1 - P(W > t)) >= 0.99 cap
    assert np.all(out.accepted_rps[1:] >= 0.99 * cap * (1 - RTOL_CAPACITY))


def test_spare_capacity_fraction() -> None:
    out = serve_demand([5.0, 20.0, 200.0], **FLEET)
    cap = out.capacity_at_slo_rps
    # (capacity - offered) / capacity, negative above capacity
    np.testing.assert_allclose(out.spare_capacity_fraction, (cap - [5.0, 20.0, 200.0]) / cap, rtol=RTOL_FLOAT)
    assert out.spare_capacity_fraction[2] < 0.0


def test_accepted_rate_and_p99_wait_match_textbook_mmk() -> None:
    # 40 rps on 100 slots of 2 s: a = 80 erlang. accepted = lambda (1 - P(W > 1 s)); p99 wait from the
    # inverse tail; both from the textbook formulas in reference.py (Kleinrock 1975, Sec. 3.5).
    out = serve_demand([40.0], **FLEET)
    miss = wait_exceedance(1.0, 100, 40.0, 2.0)
    assert float(out.accepted_rps[0]) == pytest.approx(40.0 * (1 - miss), rel=1e-10)
    # the recursion and the library's incomplete-gamma route agree to ~1e-12; 1e-9 leaves margin
    assert float(out.wait_p99_ms[0]) == pytest.approx(1000.0 * wait_quantile(0.99, 100, 40.0, 2.0), rel=1e-9)
    assert float(out.wait_p99_ms[0]) > 0.0  # C(100, 80) > 1 %, so the p99 wait is not trivially zero


# --------------------------------------------------------------------------- the operating point moves with load


def _slo(ttft_limit_ms: float = 2000.0) -> SloInputs:
    return SloInputs(ttft_limit_ms, 100.0, None, 0.99, 100)


def _load(limit: float = 10.0) -> LoadCurve:
    # service 1 s at 2 requests, 2 s at 10 (limit); TTFT 200 -> 1000 ms, TPOT 10 -> 20 ms
    return LoadCurve(
        np.array([2.0, 10.0]),
        np.array([[1.0, 2.0]]),
        np.array([200.0, 1000.0]),
        np.array([10.0, 20.0]),
        None,
        limit,
    )


def test_a_single_point_curve_gives_the_load_independent_result() -> None:
    """With one operating point nothing can move: the same numbers as the fixed-point model."""
    single = LoadCurve(np.array([10.0]), np.array([[2.0]]), np.array([1000.0]), np.array([20.0]), None, 10.0)
    rates = [[1.0, 20.0, 45.0]]
    moved = serve_demand(rates, **FLEET, load=single, slo=_slo())
    fixed = serve_demand(rates, **FLEET)
    for name in ("accepted_rps", "utilization_fraction", "wait_p99_ms", "capacity_at_slo_rps"):
        np.testing.assert_allclose(getattr(moved, name), getattr(fixed, name), rtol=RTOL_FLOAT)
    np.testing.assert_allclose(moved.ttft_ms, 1000.0)  # TTFT limit 2 s - 1 s budget: the point's TTFT


def test_at_zero_load_the_lowest_point_holds() -> None:
    out = serve_demand([[1e-9]], **(FLEET | {"budget_s": 1.0}), load=_load(), slo=_slo())
    assert float(out.ttft_ms[0, 0]) == 200.0  # the lowest measured point's TTFT, held below it
    assert float(out.service_s[0, 0]) == 1.0
    assert float(out.in_service_concurrency[0, 0]) == pytest.approx(1e-10)  # 1e-9 / 10 replicas x 1 s


def test_the_in_service_point_is_littles_law_and_sets_utilisation() -> None:
    # 6 rps on 10 replicas: x = 0.6 per replica; below 2 requests S is held at 1 s, so c = 0.6 x 1 = 0.6.
    # 30 rps: x = 3; on [2, 10] S(c) = 0.75 + c / 8, so c = 3 (0.75 + c / 8) gives c = 2.25 / 0.625 = 3.6.
    out = serve_demand([[6.0, 30.0]], **FLEET, load=_load(), slo=_slo())
    c = out.in_service_concurrency[0]
    assert c[0] == pytest.approx(0.6, rel=RTOL_FLOAT)
    assert c[1] == pytest.approx(3.6, rel=RTOL_FLOAT)
    np.testing.assert_allclose(out.utilization_fraction[0], c / 10.0, rtol=1e-12)  # in service / slots
    np.testing.assert_allclose(out.service_s[0], _load().service_at(c[None, :])[0], rtol=RTOL_FLOAT)


@settings(max_examples=60, deadline=None)
@given(low=st.floats(0.01, 20.0), factor=st.floats(1.0, 5.0))
def test_property_p99_ttft_and_utilisation_rise_with_load(low: float, factor: float) -> None:
    out = serve_demand([[low, low * factor]], **FLEET, load=_load(), slo=_slo())
    ttft_p99 = out.ttft_ms[0] + out.wait_p99_ms[0]
    assert ttft_p99[0] <= ttft_p99[1] + 1e-9
    assert out.utilization_fraction[0, 0] <= out.utilization_fraction[0, 1] + 1e-12
    assert np.all(out.accepted_rps <= np.array([[low, low * factor]]))
