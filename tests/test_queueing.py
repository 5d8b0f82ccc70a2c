"""Tests for rackcost.model.queues.queueing (M/M/k formulas and sizing)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import lambertw

from rackcost.model.queues.queueing import (
    capacity_at_slo,
    erlang_b,
    erlang_c,
    log_erlang_c_in_rate,
    offered_load,
    replicas_needed,
    wait_exceedance,
    wait_exceedance_checked,
    wait_quantile,
    wait_tail,
)

SETTINGS = settings(max_examples=60, deadline=None)


# --------------------------------------------------------------------------- references


def erlang_b_recursion(n: int, a: float) -> float:
    """Textbook recursion B(0,a)=1, B(n,a) = a B(n-1,a) / (n + a B(n-1,a)).

    Source: Kleinrock (1975), Queueing Systems Vol. 1, Sec. 3.6; also
    Iversen, Teletraffic Engineering and Network Planning (DTU/ITU-D, 2015),
    Eq. (4.29).
    """
    b = 1.0
    for i in range(1, n + 1):
        b = a * b / (i + a * b)
    return b


def erlang_b_log_recursion(n: int, a: np.ndarray) -> np.ndarray:
    """Same recursion on L_n = log(1/B_n): 1/B_n = 1 + (n/a) / B_{n-1} (Iversen 2015, Eq. (4.30)).

    Written in log form with logaddexp so that it neither under- nor overflows at n = 5000.
    """
    log_inv_b = np.zeros_like(a)
    for i in range(1, n + 1):
        log_inv_b = np.logaddexp(0.0, np.log(i / a) + log_inv_b)
    return np.exp(-log_inv_b)


def erlang_c_sum(k: int, a: float) -> float:
    """C = (a^k/k! * k/(k-a)) / (sum_{i<k} a^i/i! + a^k/k! * k/(k-a)), a < k.

    Source: Kleinrock (1975), Queueing Systems Vol. 1, Eq. (3.40) (Erlang C formula).
    """
    top = a**k / math.factorial(k) * k / (k - a)
    return top / (math.fsum(a**i / math.factorial(i) for i in range(k)) + top)


def erlang_c_from_b(k: int, a: float) -> float:
    """C = B / (1 - (a/k)(1 - B)) with B from the recursion above, a < k: the sum's value without its overflow at
    large k.

    Source: Kleinrock (1975), Queueing Systems Vol. 1, Sec. 3.5 (the Erlang B/C relation); Gross, Shortle, Thompson
    and Harris, Fundamentals of Queueing Theory, 4th ed. (Wiley, 2008), Sec. 2.3 (M/M/c).
    """
    b = erlang_b_recursion(k, a)
    return b / (1.0 - (a / k) * (1.0 - b))


def exceedance_closed_form(t: float, k: float, lam: float, s: float) -> float:
    """P(W > t) = C(k, a) exp(-(k/S - lambda) t) in M/M/k, a = lambda S < k, t >= 0; 1 for a >= k (the queue grows
    without bound) and for t < 0 (every wait is >= 0).

    Source: Kleinrock (1975), Queueing Systems Vol. 1, Sec. 3.5 (waiting-time distribution of M/M/m); Gross,
    Shortle, Thompson and Harris, Fundamentals of Queueing Theory, 4th ed. (Wiley, 2008), Sec. 2.3 (M/M/c,
    W_q(t) = 1 - C exp(-(c mu - lambda) t)).
    """
    a = lam * s
    if a >= k or t < 0:
        return 1.0
    assert k == int(k), "the recursion is for a whole number of servers"
    return erlang_c_from_b(int(k), a) * math.exp(-(k / s - lam) * t)


def quantile_closed_form(q: float, k: float, lam: float, s: float) -> float:
    """The q-quantile of W, the inverse of the tail above: 0 where C <= 1 - q (P(W = 0) = 1 - C >= q), else
    ln(C / (1 - q)) / (k/S - lambda); inf for a >= k. Source: as :func:`exceedance_closed_form`."""
    a = lam * s
    if a >= k:
        return math.inf
    assert k == int(k), "the recursion is for a whole number of servers"
    c = erlang_c_from_b(int(k), a)
    return math.log(c / (1.0 - q)) / (k / s - lam) if c > 1.0 - q else 0.0


# --------------------------------------------------------------------------- Erlang B


@pytest.mark.parametrize("a", [0.05, 0.5, 1.0, 3.7, 10.0, 42.0, 150.0, 199.5, 250.0, 1000.0])
def test_erlang_b_matches_recursion_integer_k(a: float) -> None:
    ns = np.arange(1, 201)
    expected = np.array([erlang_b_recursion(int(n), a) for n in ns])
    got = erlang_b(ns, a)
    assert got.shape == ns.shape
    # atol only matters where the plain recursion itself underflows towards 0.
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-300)


def test_erlang_b_published_value() -> None:
    # Standard Erlang B table (e.g. Iversen 2015, Teletraffic Engineering and Network
    # Planning, Table of the Erlang B formula): n = 10 trunks, A = 5 erlang -> E = 0.0184.
    # Exact value from the recursion above: 0.018384570336648...
    assert float(erlang_b(10, 5)) == pytest.approx(0.01838457033664814, rel=1e-12)
    assert round(float(erlang_b(10, 5)), 4) == 0.0184
    # B(1, a) = a / (1 + a) (Kleinrock 1975, Eq. (3.44) with m = 1).
    assert float(erlang_b(1, 3.0)) == pytest.approx(0.75, rel=1e-14)


def test_erlang_b_zero_load_and_ranges() -> None:
    assert float(erlang_b(3.0, 0.0)) == 0.0
    assert float(erlang_b(1e-3, 0.0)) == 0.0


def test_erlang_b_large_k_matches_log_recursion() -> None:
    a = np.array([3000.0, 4500.0, 4900.0, 4999.0, 5000.0, 5001.0, 5100.0, 5200.0, 6000.0, 20000.0])
    expected = erlang_b_log_recursion(5000, a)
    np.testing.assert_allclose(erlang_b(5000, a), expected, rtol=1e-10)


@pytest.mark.parametrize("a", [0.999e6, 1e6, 1.05e6, 1e8])
def test_erlang_b_large_k_finite(a: float) -> None:
    b = float(erlang_b(1e6, a))
    assert np.isfinite(b)
    assert 0.0 <= b <= 1.0
    if a > 1e6:
        # Overload (fluid) limit: B -> (a - k)/a for a > k, k large (Jagerman 1974).
        assert b == pytest.approx((a - 1e6) / a, rel=2e-3)
    else:
        assert 0.0 < b < 2e-3


def test_erlang_b_grid_never_nan() -> None:
    k = np.logspace(-3, 7, 41)[:, None]
    a = np.concatenate([[0.0], np.logspace(-6, 8, 57)])[None, :]
    b = erlang_b(k, a)
    assert b.shape == (41, 58)
    assert np.all(np.isfinite(b))
    assert np.all((b >= 0.0) & (b <= 1.0))
    # Monotone increasing in a for every k (Jagerman 1974).
    assert np.all(np.diff(b, axis=1) >= -1e-12)


@pytest.mark.parametrize("k", [1e3, 1e6, 1e7])
def test_erlang_b_continuous_across_a_equals_k(k: float) -> None:
    below = erlang_b(k, k * (1 - 1e-12))
    above = erlang_b(k, k * (1 + 1e-12))
    assert float(above) >= float(below)
    assert float(above) == pytest.approx(float(below), rel=1e-6)
    # Also across the a-range where the implementation changes evaluation method.
    a = np.linspace(k, k + 3 * np.sqrt(k), 2001)
    log_b = np.log(erlang_b(k, a))
    step = np.diff(log_b)
    assert np.all(step > 0)
    # Smooth: no jump anywhere, i.e. consecutive steps differ far less than the steps themselves.
    assert np.max(np.abs(np.diff(step))) < 1e-2 * np.min(step)


def test_erlang_b_non_integer_k_continuous_and_monotone() -> None:
    k = np.linspace(3.0, 4.0, 1001)
    for a in (0.5, 3.5, 8.0):
        b = erlang_b(k, a)
        assert np.all(np.diff(b) < 0)  # more servers, less blocking
        ratio = b[1:] / b[:-1]
        assert np.all(ratio > 0.99)  # no jump on a 1e-3 grid in k
        assert np.max(np.abs(np.diff(ratio))) < 1e-4
        assert b[0] == pytest.approx(erlang_b_recursion(3, a), rel=1e-12)
        assert b[-1] == pytest.approx(erlang_b_recursion(4, a), rel=1e-12)


def test_erlang_b_on_an_array_that_takes_every_path_matches_the_recursion() -> None:
    # one array with no load, a negligible load (a/k < 1e-15), loads at or below 1, loads near k and loads far above
    # k + 1 + sqrt(k + 1) (the continued fraction): the elements of each kind are found in one pass, and each must
    # still be the textbook value. rtol 1e-12: the library is within 3e-15 of the recursion here (measured).
    k = np.array([3.0, 1e3, 1.0, 2.0, 5.0, 1.0, 4.0, 20.0, 2.0, 10.0])
    a = np.array([0.0, 1e-13, 0.5, 1.0, 4.9, 10.0, 60.0, 21.0, 0.01, 9.5])
    expected = [erlang_b_recursion(int(ki), float(ai)) if ai > 0 else 0.0 for ki, ai in zip(k, a, strict=True)]
    assert (a > k + 1 + np.sqrt(k + 1)).any() and ((a > 0) & (a <= 1)).any()  # the mix meant
    np.testing.assert_allclose(erlang_b(k, a), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("smallest_k", [1, 15])
def test_erlang_b_from_fifteen_slots_up_is_exact_to_the_stirling_series(smallest_k: int) -> None:
    # From k = 15 on, log k! comes from the Stirling series 1/(12k) - 1/(360k^3) + 1/(1260k^5) - 1/(1680k^7)
    # (Abramowitz and Stegun 1964, 6.1.41); its last term is 3.5e-12 of B at k = 15 and the one before 1.0e-9.
    # Against the recursion (exact to a few ulps over 40 steps) the library is within 2.5e-14 here (measured), so
    # rtol 2e-13 sees a wrong term of the series, on an array of k >= 15 only (one code path) and one from k = 1.
    ns = np.arange(smallest_k, 41)
    for a in (3.0, 8.0, 15.0, 20.0):
        expected = np.array([erlang_b_recursion(int(n), a) for n in ns])
        np.testing.assert_allclose(erlang_b(ns, a), expected, rtol=2e-13, atol=0)


@pytest.mark.parametrize(
    ("k", "a"), [(0.5, 0.3), (2.5, 3.0), (7.25, 4.0), (0.01, 2.0), (12.3, 40.0), (1e-3, 2e-3), (0.3, 0.35)]
)
def test_erlang_b_non_integer_k_integral_representation(k: float, a: float) -> None:
    # Jagerman (1974): 1/B(k, a) = a * int_0^inf exp(-a y) (1 + y)^k dy, for real k > 0.
    integral, _ = quad(lambda y: math.exp(-a * y) * (1 + y) ** k, 0, np.inf, epsabs=0, epsrel=1e-13)
    assert float(erlang_b(k, a)) == pytest.approx(1.0 / (a * integral), rel=1e-9)


# --------------------------------------------------------------------------- Erlang C


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 13, 20, 30])
def test_erlang_c_matches_sum(k: int) -> None:
    a = np.array([0.01, 0.25, 0.5, 0.8, 0.95, 0.999]) * k
    expected = np.array([erlang_c_sum(k, float(x)) for x in a])
    np.testing.assert_allclose(erlang_c(k, a), expected, rtol=1e-10)


def test_erlang_c_unstable_is_one() -> None:
    np.testing.assert_array_equal(erlang_c(4.0, [4.0, 5.0, 1e8]), [1.0, 1.0, 1.0])


# A mix of stable and unstable queues in one array (a >= k is unstable: every arrival waits), with a = 0 (no one
# waits), a == k exactly and loads just below k, over small k where the textbook sum is exact to a few ulps.
MIXED_K = np.array([2.0, 2.0, 1.0, 3.0, 5.0, 2.0, 4.0, 7.0, 30.0, 1.0])
MIXED_A = np.array([1.0, 3.0, 0.5, 3.0, 0.0, 2.0, 3.999, 6.3, 29.0, 7.5])


def _erlang_c_expected(k: np.ndarray, a: np.ndarray) -> np.ndarray:
    return np.array([erlang_c_sum(int(ki), float(ai)) if ai < ki else 1.0 for ki, ai in zip(k, a, strict=True)])


def test_erlang_c_beside_an_unstable_queue_is_still_the_textbook_value() -> None:
    # C(2, 1) = 1/3 (Kleinrock 1975, Eq. (3.40), worked in test_mm2_hand_worked_example) whether or not the array
    # also holds an unstable queue such as k = 2, a = 3, which takes another code path for the whole array.
    np.testing.assert_allclose(erlang_c([2.0, 2.0], [1.0, 3.0]), [1 / 3, 1.0], rtol=1e-14)
    np.testing.assert_allclose(erlang_c([2.0, 2.0], [3.0, 1.0]), [1.0, 1 / 3], rtol=1e-14)


def test_erlang_c_on_an_array_mixing_stable_and_unstable_queues_matches_the_sum() -> None:
    # rtol 1e-12: the sum and the library agree to ~3e-16 here; a changed formula moves C by far more
    expected = _erlang_c_expected(MIXED_K, MIXED_A)
    assert set(expected) >= {0.0, 1.0}  # the array does mix the cases
    np.testing.assert_allclose(erlang_c(MIXED_K, MIXED_A), expected, rtol=1e-12, atol=0)
    # and every pair of a k column against an a row, most of them unstable
    grid = erlang_c(MIXED_K[:, None], MIXED_A[None, :])
    assert grid.shape == (10, 10)
    kk, aa = np.broadcast_arrays(MIXED_K[:, None], MIXED_A[None, :])
    np.testing.assert_allclose(grid.ravel(), _erlang_c_expected(kk.ravel(), aa.ravel()), rtol=1e-12, atol=0)


@pytest.mark.parametrize("k", [1.0, 2.0, 30.0, 19.409465973890086, 402.92472755952576, 4590.870093378721])
def test_erlang_c_at_saturation_is_exactly_one_alone_and_beside_stable_queues(k: float) -> None:
    # a = k is unstable: C = 1 exactly (the docstring's promise). The stable formula B / (1 - (a/k)(1 - B)) is 1 at
    # a = k only up to rounding: at these k it gives 1 - 1.2e-15 (k = 402.9...) or 1 - 2.2e-16, so the queue must
    # be classed unstable, not merely computed.
    assert float(erlang_c(k, k)) == 1.0
    mixed = erlang_c([k, k, 1.0], [k, 0.5 * k, 0.5])
    assert mixed[0] == 1.0
    np.testing.assert_allclose(mixed[1:], [float(erlang_c(k, 0.5 * k)), 0.5], rtol=1e-14)


def test_erlang_c_of_zero_load_is_zero_beside_any_load() -> None:
    # no arrivals, no wait: C(k, 0) = 0 exactly, alone, beside a stable load and beside an unstable one
    assert float(erlang_c(3.0, 0.0)) == 0.0
    np.testing.assert_array_equal(erlang_c(3.0, [0.0, 1.0])[0], 0.0)
    np.testing.assert_array_equal(erlang_c(3.0, [0.0, 9.0]), [0.0, 1.0])


def test_erlang_c_two_servers_closed_form() -> None:
    # C(2, a) = a^2 / (2 + a) for a < 2: Kleinrock (1975), Eq. (3.40) with m = 2, summed by hand:
    # (a^2/2 * 2/(2-a)) / (1 + a + a^2/(2-a)) = a^2 / ((1+a)(2-a) + a^2) = a^2 / (2 + a)
    a = np.array([0.0, 0.1, 0.5, 1.0, 1.5, 1.99, 2.0, 2.5])
    expected = np.where(a < 2, a**2 / (2 + a), 1.0)
    np.testing.assert_allclose(erlang_c(2.0, a), expected, rtol=1e-13, atol=0)


def test_mm2_hand_worked_example() -> None:
    # M/M/2 with lambda = 1/s, S = 1 s (a = 1 erlang), hand-worked from Kleinrock (1975)
    # Eq. (3.40): C = (1/2 * 2/1) / (1 + 1 + 1) = 1/3, and Sec. 3.5:
    # P(W > t) = C exp(-(k/S - lambda) t) = exp(-t)/3; wait quantile
    # w_q = S/(k - a) log(C/(1 - q)) = log(10/3) for q = 0.9.
    assert float(erlang_c(2, 1.0)) == pytest.approx(1 / 3, rel=1e-14)
    t = np.array([0.0, 0.1, 1.0, 5.0])
    np.testing.assert_allclose(wait_exceedance(t, 2, 1.0, 1.0), np.exp(-t) / 3, rtol=1e-14)
    assert float(wait_quantile(0.9, 2, 1.0, 1.0)) == pytest.approx(math.log(10 / 3), rel=1e-14)
    assert float(wait_quantile(0.5, 2, 1.0, 1.0)) == 0.0  # C = 1/3 <= 1 - q
    assert float(offered_load(1.0, 1.0)) == 1.0


@SETTINGS
@given(
    k=st.floats(1e-3, 1e7),
    rho=st.floats(0.0, 3.0),
)
def test_erlang_c_at_least_b_and_in_unit_interval(k: float, rho: float) -> None:
    a = rho * k
    b = float(erlang_b(k, a))
    c = float(erlang_c(k, a))
    assert 0.0 <= b <= 1.0
    assert 0.0 <= c <= 1.0
    assert c >= b


# --------------------------------------------------------------------------- wait distribution


@SETTINGS
@given(
    k=st.floats(0.5, 1e6),
    rho=st.floats(0.01, 0.999),
    service_s=st.floats(1e-3, 100.0),
    t1=st.floats(0.0, 10.0),
    dt=st.floats(1e-3, 10.0),
)
def test_wait_exceedance_decreasing_in_t(k: float, rho: float, service_s: float, t1: float, dt: float) -> None:
    lam = rho * k / service_s
    p = wait_exceedance(np.array([t1, t1 + dt]), k, lam, service_s)
    assert np.all((p >= 0) & (p <= 1))
    assert p[1] <= p[0]


@SETTINGS
@given(
    k=st.floats(0.5, 1e6),
    rho=st.floats(0.0, 1.2),
    step=st.floats(1e-3, 1.0),
    service_s=st.floats(1e-3, 100.0),
    t=st.floats(0.0, 5.0),
)
def test_wait_exceedance_increasing_in_lambda(k: float, rho: float, step: float, service_s: float, t: float) -> None:
    lam = np.array([rho, rho * (1 + step) + step]) * k / service_s
    p = wait_exceedance(t, k, lam, service_s)
    assert p[1] >= p[0] * (1 - 1e-12)


def test_wait_exceedance_unstable_is_one() -> None:
    np.testing.assert_array_equal(wait_exceedance([0.0, 3.0], 10.0, 20.0, 0.5), [1.0, 1.0])
    assert float(wait_quantile(0.99, 10.0, 25.0, 0.5)) == np.inf


@SETTINGS
@given(
    k=st.floats(1.0, 1e5),
    rho=st.floats(0.05, 0.999),
    service_s=st.floats(1e-3, 10.0),
    q=st.floats(0.0, 0.9999),
)
def test_wait_quantile_inverts_exceedance(k: float, rho: float, service_s: float, q: float) -> None:
    lam = rho * k / service_s
    w = float(wait_quantile(q, k, lam, service_s))
    c = float(erlang_c(k, rho * k))
    if c <= 1 - q:
        assert w == 0.0
    else:
        assert w > 0.0
        assert float(wait_exceedance(w, k, lam, service_s)) == pytest.approx(1 - q, rel=1e-8)


# --------------------------------------------------------------------------- the M/M/k wait against its closed form

SERVICE_S = 0.8  # not 1 s, so that k/S and k*S, lambda*S and lambda/S differ


def test_wait_exceedance_matches_the_closed_form_on_mixed_arrays() -> None:
    # P(W > t) = C exp(-(k/S - lambda) t), 1 where a >= k (Kleinrock 1975, Sec. 3.5; Gross et al. 2008, Sec. 2.3).
    # rtol 1e-12: C as in the Erlang C tests, the exponential to an ulp.
    t = np.array([0.0, 0.05, 0.3, 2.0])[:, None]
    k = MIXED_K[None, :]
    lam = MIXED_A[None, :] / SERVICE_S
    got = wait_exceedance(t, k, lam, SERVICE_S)
    assert got.shape == (4, 10)
    tt, kk, ll = np.broadcast_arrays(t, k, lam)
    expected = [exceedance_closed_form(*x, SERVICE_S) for x in zip(tt.ravel(), kk.ravel(), ll.ravel(), strict=True)]
    np.testing.assert_allclose(got.ravel(), expected, rtol=1e-12, atol=0)


def test_wait_quantile_matches_the_closed_form_on_mixed_arrays() -> None:
    # q = 0 is allowed (the 0-quantile is no wait), quantiles on both sides of C, inf where a >= k
    q = np.array([0.0, 0.5, 0.9, 0.999])[:, None]
    k = MIXED_K[None, :]
    lam = MIXED_A[None, :] / SERVICE_S
    got = wait_quantile(q, k, lam, SERVICE_S)
    qq, kk, ll = np.broadcast_arrays(q, k, lam)
    expected = np.array(
        [quantile_closed_form(*x, SERVICE_S) for x in zip(qq.ravel(), kk.ravel(), ll.ravel(), strict=True)]
    )
    assert np.isinf(expected).any() and (expected == 0).any() and ((expected > 0) & np.isfinite(expected)).any()
    np.testing.assert_allclose(got.ravel(), expected, rtol=1e-12, atol=0)


def test_wait_quantile_of_a_saturated_queue_is_infinite_even_at_q_zero() -> None:
    # a = k (S = 1 s so that lambda S is k exactly): the queue grows without bound, so every quantile of the wait is
    # inf, the 0-quantile included (a stable queue's is 0)
    np.testing.assert_array_equal(wait_quantile(0.0, [2.0, 3.0, 3.0], [2.0, 3.0, 1.0], 1.0), [np.inf, np.inf, 0.0])


# stable queues only, as wait_tail requires: C from 0 to nearly 1
TAIL_K = np.array([1.0, 2.0, 3.0, 5.0, 8.0, 20.0, 4.0])
TAIL_A = np.array([0.5, 1.0, 0.3, 4.5, 0.0, 19.0, 3.999])


@pytest.mark.parametrize("q", [0.0, 0.5, 0.9, 0.99, 0.9999])
def test_wait_tail_matches_the_closed_forms(q: float) -> None:
    # the tail P(W > t) and the q-quantile in one call; t < 0 is a certain miss (every wait is >= 0)
    t = np.array([-3.0, 0.0, 0.1, 1.0, 7.0])[:, None]
    lam = TAIL_A / SERVICE_S
    exceedance, quantile = wait_tail(t, q, TAIL_K, lam, SERVICE_S)
    assert exceedance.shape == quantile.shape == (5, 7)
    tt, kk, ll = np.broadcast_arrays(t, TAIL_K, lam)
    cases = list(zip(tt.ravel(), kk.ravel(), ll.ravel(), strict=True))
    np.testing.assert_allclose(
        exceedance.ravel(), [exceedance_closed_form(ti, ki, li, SERVICE_S) for ti, ki, li in cases], rtol=1e-12
    )
    expected_q = [quantile_closed_form(q, ki, li, SERVICE_S) for _, ki, li in cases]
    np.testing.assert_allclose(quantile.ravel(), expected_q, rtol=1e-12, atol=0)


def test_wait_tail_quantile_is_zero_where_c_is_at_most_one_minus_q_and_positive_past_it() -> None:
    # P(W = 0) = 1 - C: with 1 - q a hair (1e-12) above C the q-quantile is no wait; a hair below, it is the closed
    # form ln(C / (1 - q)) / (k/S - lambda), about 1e-12 / (k/S - lambda) (to 1e-3: rounding of a ratio 1 + 1e-12)
    k, lam = 2.0, 1.0 / SERVICE_S
    c = float(erlang_c(k, 1.0))
    _, at = wait_tail(0.0, 1 - c * (1 + 1e-12), k, lam, SERVICE_S)
    assert float(at) == 0.0
    _, past = wait_tail(0.0, 1 - c * (1 - 1e-12), k, lam, SERVICE_S)
    assert float(past) == pytest.approx(-math.log1p(-1e-12) / (k / SERVICE_S - lam), rel=1e-3)
    _, above = wait_tail(0.0, 0.9, k, lam, SERVICE_S)
    assert float(above) == pytest.approx(quantile_closed_form(0.9, 2, lam, SERVICE_S), rel=1e-13)


def test_wait_tail_is_wait_exceedance_and_wait_quantile_in_one_call() -> None:
    # its docstring's promise; the quantile is the same formula rearranged (S/(k - a) vs 1/(k/S - lambda)), so it
    # agrees to rounding: k - a = 0.001 at k = 4 amplifies an ulp of k/S 4,000 times (4e-13 measured); the tail to
    # the bit
    t = np.array([0.0, 0.2, 1.5])[:, None]
    lam = TAIL_A / SERVICE_S
    exceedance, quantile = wait_tail(t, 0.95, TAIL_K, lam, SERVICE_S)
    np.testing.assert_array_equal(exceedance, wait_exceedance(t, TAIL_K, lam, SERVICE_S))
    np.testing.assert_allclose(
        quantile, np.broadcast_to(wait_quantile(0.95, TAIL_K, lam, SERVICE_S), (3, 7)), rtol=1e-11
    )


@pytest.mark.parametrize(
    ("k", "a"),
    [(2.0, 2.0), (2.0, 2.5), ([2.0, 2.0], [1.0, 2.0]), ([3.0, 1.0], [1.0, 1.0 + 1e-12])],
    ids=["a == k", "a > k", "one saturated element", "one element just over"],
)
def test_wait_tail_refuses_an_unstable_queue(k, a) -> None:
    with pytest.raises(ValueError, match="stable queue"):
        wait_tail(0.5, 0.99, k, np.asarray(a) / SERVICE_S, SERVICE_S)


def test_wait_tail_refuses_nan_anywhere() -> None:
    # wait_tail checks no range (it is the fast path of the sizing) but must not let a NaN through
    with pytest.raises(ValueError, match="NaN"):
        wait_tail([0.1, np.nan], 0.99, 2.0, 1.0, SERVICE_S)
    with pytest.raises(ValueError, match="NaN"):
        wait_tail(0.1, 0.99, [2.0, np.nan], 1.0, SERVICE_S)


def test_offered_load_is_rate_times_service_time() -> None:
    # Little's law a = lambda S (Kleinrock 1975, Sec. 2.1) on values where lambda / S would differ
    np.testing.assert_allclose(offered_load([2.0, 0.0, 3.0], [0.5, 4.0, 1.5]), [1.0, 0.0, 4.5], rtol=1e-15)


# --------------------------------------------------------------------------- capacity_at_slo


@pytest.mark.parametrize("k", [1.0, 7.5, 100.0, 1e4, 1e6])
@pytest.mark.parametrize("budget", [0.0, 0.05, 1.0])
@pytest.mark.parametrize("eps", [1e-4, 0.01, 0.2])
def test_capacity_at_slo_is_tight(k: float, budget: float, eps: float) -> None:
    service_s = 0.8
    lam = float(capacity_at_slo(k, service_s, budget, eps))
    assert 0.0 < lam < k / service_s
    assert float(wait_exceedance(budget, k, lam, service_s)) <= eps
    assert float(wait_exceedance(budget, k, lam * (1 + 1e-6), service_s)) > eps


def test_capacity_at_slo_mm1_closed_form() -> None:
    # M/M/1 (Kleinrock 1975, Sec. 3.2): C = rho, P(W > t) = rho exp(-(1 - rho) t / S).
    # With t = 0: lambda* = eps / S. Tolerance 2e-9: capacity_at_slo returns the root less a 1e-9 relative
    # margin, so that every evaluation path agrees the returned rate meets the SLO.
    assert float(capacity_at_slo(1.0, 2.0, 0.0, 0.1)) == pytest.approx(0.05, rel=2e-9)


def test_capacity_at_slo_broadcasts() -> None:
    out = capacity_at_slo(np.array([10.0, 100.0])[:, None], 1.0, np.array([0.0, 0.5, 1.0]), 0.01)
    assert out.shape == (2, 3)
    assert np.all(np.diff(out, axis=1) > 0)  # looser budget, more capacity
    assert np.all(out[1] > out[0])


MARGIN = 2e-9
"""capacity_at_slo keeps its answer on the feasible side: the root less a relative margin of 1e-9, verified against
eps less 1e-9 of it (its comments); 2e-9 of each leaves room for the root's own accuracy."""


def _capacity_bounds(root_at: Callable[[float], float], eps: float, k: float, service_s: float) -> tuple[float, float]:
    """Where capacity_at_slo's answer must lie, given the rate root_at(e) at which P(W > t) = e: at most the root
    at eps (it meets the SLO), at least the root at eps (1 - MARGIN) less MARGIN of itself, less 2e-10 of the
    bracket k/S, to which the iteration finds the root (1e-10 of it, doubled)."""
    return root_at(eps * (1 - MARGIN)) * (1 - MARGIN) - 2e-10 * k / service_s, root_at(eps)


@pytest.mark.parametrize("service_s", [0.05, 2.0, 100.0])  # k/S from 20 down to 0.01: the bracket's scale
@pytest.mark.parametrize("eps", [1e-5, 0.1, 0.3])
def test_capacity_at_slo_mm1_without_a_budget_is_eps_over_s(service_s: float, eps: float) -> None:
    # M/M/1 (Kleinrock 1975, Sec. 3.2): C = rho, so with t = 0 the SLO rho <= eps gives lambda* = eps / S
    low, high = _capacity_bounds(lambda e: e / service_s, eps, 1.0, service_s)
    assert low <= float(capacity_at_slo(1.0, service_s, 0.0, eps)) <= high


@pytest.mark.parametrize(
    ("service_s", "budget", "eps"), [(0.8, 1.0, 0.01), (2.0, 0.5, 0.2), (0.5, 3.0, 1e-4), (20.0, 0.5, 1e-4)]
)
def test_capacity_at_slo_mm1_with_a_budget_is_the_lambert_w_root(service_s: float, budget: float, eps: float) -> None:
    # M/M/1 (Kleinrock 1975, Sec. 3.2): P(W > t) = rho exp(-(1 - rho) t / S) = eps. With u = rho t / S this is
    # u e^u = eps (t/S) e^(t/S), so rho = (S/t) W0(eps (t/S) e^(t/S)) and lambda* = rho / S
    # (W0: the principal branch of Lambert's W; Corless et al., Adv. Comput. Math. 5, 329-359, 1996).
    x = budget / service_s

    def root_at(e: float) -> float:
        return float(lambertw(e * x * math.exp(x)).real) / budget

    low, high = _capacity_bounds(root_at, eps, 1.0, service_s)
    assert low <= float(capacity_at_slo(1.0, service_s, budget, eps)) <= high


@pytest.mark.parametrize("eps", [1e-4, 0.01, 0.3, 0.9])
def test_capacity_at_slo_mm2_without_a_budget_is_the_quadratic_root(eps: float) -> None:
    # With t = 0 the SLO is C(2, a) = a^2 / (2 + a) <= eps (see test_erlang_c_two_servers_closed_form), so
    # a* = (eps + sqrt(eps^2 + 8 eps)) / 2 and lambda* = a* / S.
    service_s = 0.8

    def root_at(e: float) -> float:
        return (e + math.sqrt(e * e + 8 * e)) / 2 / service_s

    low, high = _capacity_bounds(root_at, eps, 2.0, service_s)
    assert low <= float(capacity_at_slo(2.0, service_s, 0.0, eps)) <= high


CAPACITY_CASES = [
    (k, s, t, eps)
    for k in (1, 3, 20, 100, 1000)
    for s in (0.8, 2.5)  # above and below 1 s, so that a / S and a * S differ in either direction
    for t in (0.0, 0.05, 1.0)
    for eps in (1e-4, 0.01, 0.2, 0.7)
]


def _brent_root(k: int, service_s: float, t: float) -> Callable[[float], float]:
    """The rate at which the closed-form P(W > t) equals e, by Brent's method to 1e-15 (scipy's brentq)."""

    def root_at(e: float) -> float:
        f = lambda lam: exceedance_closed_form(t, k, lam, service_s) - e  # noqa: E731
        return brentq(f, 0.0, k / service_s * (1 - 1e-15), rtol=1e-15)

    return root_at


def test_capacity_at_slo_matches_the_root_of_the_closed_form_in_one_vectorised_call() -> None:
    # every case in one call, so that elements converge at different iterations and the feasibility check of the
    # last step runs on a subset
    k, s, t, eps = (np.array(x, dtype=float) for x in zip(*CAPACITY_CASES, strict=True))
    got = capacity_at_slo(k, s, t, eps)
    for i, (ki, si, ti, ei) in enumerate(CAPACITY_CASES):
        low, high = _capacity_bounds(_brent_root(ki, si, ti), ei, ki, si)
        assert low <= got[i] <= high, (ki, si, ti, ei)


@pytest.mark.parametrize("hint", [0.0, 0.5, 0.999999, 1.0, 1.5, 3.0])
def test_capacity_at_slo_with_a_feasible_rps_hint_right_or_wrong_has_the_same_answer(hint: float) -> None:
    # the hint is a fraction of the true capacity: below it (a feasible start), at it, or above it (wrong: checked
    # and only used to narrow the bracket); the answer meets the same bounds
    service_s = 0.8
    cases = [(3, 0.05, 0.01), (100, 0.0, 0.2), (1000, 1.0, 1e-4), (20, 0.05, 0.7)]
    roots = [_brent_root(k, service_s, t) for k, t, _ in cases]
    k, t, eps = (np.array(x, dtype=float) for x in zip(*cases, strict=True))
    hints = hint * np.array([root_at(e) for root_at, e in zip(roots, eps, strict=True)])
    got = capacity_at_slo(k, service_s, t, eps, feasible_rps=hints)
    for i, root_at in enumerate(roots):
        low, high = _capacity_bounds(root_at, eps[i], k[i], service_s)
        assert low <= got[i] <= high, (cases[i], hint)


def test_capacity_at_slo_hint_outside_the_bracket_is_ignored() -> None:
    # a hint at or past k/S (where the queue is unstable), or below 0, is clipped into the bracket, not trusted
    service_s, k, t, eps = 0.8, 20.0, 0.05, 0.01
    low, high = _capacity_bounds(_brent_root(20, service_s, t), eps, k, service_s)
    for hint in (k / service_s, 10 * k / service_s, -1.0):
        assert low <= float(capacity_at_slo(k, service_s, t, eps, feasible_rps=hint)) <= high


@pytest.mark.parametrize(("k", "rho"), [(3.0, 0.3), (3.0, 0.9), (50.0, 0.5), (50.0, 0.95), (2000.5, 0.97)])
@pytest.mark.parametrize("t", [0.0, 0.2])
def test_newton_slope_of_the_capacity_search_is_the_derivative_of_log_exceedance(k: float, rho: float, t: float):
    # capacity_at_slo's Newton step uses d log P(W > t) / d lambda in closed form (the Erlang B equation
    # dB/da = B (k/a - 1 + B), Jagerman 1974). Against a central difference of wait_exceedance with step
    # h = 1e-5 lambda: truncation error O(h^2) and rounding 1e-16 / h are both below 1e-7 of the slope.
    from rackcost.model.queues.queueing import _fixed_slots_exceedance

    service_s = 0.7
    lam = rho * k / service_s
    exceed = _fixed_slots_exceedance(np.array([t]), np.array([k]), np.array([service_s]))
    log_p, slope = exceed(np.array([lam]), with_slope=True)
    h = 1e-5 * lam
    up, down = (math.log(float(wait_exceedance(t, k, x, service_s))) for x in (lam + h, lam - h))
    assert float(log_p[0]) == pytest.approx(math.log(float(wait_exceedance(t, k, lam, service_s))), rel=1e-12)
    assert float(slope[0]) == pytest.approx((up - down) / (2 * h), rel=1e-7)
    # without the slope it is P itself
    assert float(exceed(np.array([lam]))[0]) == pytest.approx(float(wait_exceedance(t, k, lam, service_s)), rel=1e-12)


@pytest.mark.parametrize(("k", "rho"), [(1.0, 0.5), (3.0, 0.3), (3.0, 0.9), (50.0, 0.5), (50.0, 0.95), (2000.5, 0.97)])
def test_log_erlang_c_in_rate_is_log_c_and_its_derivative(k: float, rho: float) -> None:
    # log C(k, lambda S) against the textbook recursion (integer k; erlang_c beyond it) and its slope against a
    # central difference of log erlang_c with step h = 1e-5 lambda (truncation O(h^2) and rounding 1e-16 / h both
    # below 1e-7 of the slope); off the fast path (a load of k or more) the slope is None and C is 1
    service_s = 0.7
    lam = rho * k / service_s
    log_c = log_erlang_c_in_rate(np.array([k]), np.array([service_s]))
    value, slope = log_c(np.array([lam]))
    exact = erlang_c_from_b(int(k), lam * service_s) if k == int(k) else float(erlang_c(k, lam * service_s))
    assert float(value[0]) == pytest.approx(math.log(exact), rel=1e-12)
    h = 1e-5 * lam
    up, down = (math.log(float(erlang_c(k, x * service_s))) for x in (lam + h, lam - h))
    assert slope is not None
    assert float(slope[0]) == pytest.approx((up - down) / (2 * h), rel=1e-7)
    value, slope = log_c(np.array([1.5 * k / service_s]))
    assert slope is None and float(value[0]) == 0.0


def test_wait_exceedance_checked_is_wait_exceedance_without_its_checks() -> None:
    t, k, lam, s = (np.array(x) for x in ([0.0, 0.5, 2.0], [1.0, 16.5, 64.0], [0.5, 20.0, 30.0], [1.0, 0.7, 2.0]))
    assert wait_exceedance_checked(t, k, lam, s).tolist() == wait_exceedance(t, k, lam, s).tolist()


# --------------------------------------------------------------------------- replicas_needed


def _feasible(n: int, lam: float, s: float, c: float, t: float, eps: float) -> bool:
    k = n * c
    return k > lam * s and float(wait_exceedance(t, k, lam, s)) <= eps


@pytest.mark.parametrize(
    ("lam", "s", "c", "t", "eps"),
    [
        (0.5, 1.0, 1.0, 0.0, 0.05),
        (10.0, 2.0, 4.0, 0.5, 0.01),
        (33.0, 0.7, 2.5, 0.0, 0.001),
        (1e3, 1.0, 8.0, 0.1, 0.01),
        (1e5, 3.0, 16.0, 2.0, 1e-3),
        (1e6, 1.0, 64.0, 0.0, 0.01),
        (1e6, 1.0, 100.0, 1e-3, 0.05),
        # fewer than one slot per replica, with a budget of a few service times: the bound from C <= 1 decides
        (375.0, 0.8, 0.5, 0.8 * math.log(100) / 5, 0.01),
    ],
)
def test_replicas_needed_is_minimal(lam: float, s: float, c: float, t: float, eps: float) -> None:
    n = int(replicas_needed(lam, s, c, t, eps))
    assert _feasible(n, lam, s, c, t, eps)
    if n > 1:
        assert not _feasible(n - 1, lam, s, c, t, eps)


def test_replicas_needed_zero_demand_and_dtype() -> None:
    out = replicas_needed(0.0, 1.0, 4.0, 0.1, 0.01)
    assert out.dtype == np.int64
    assert int(out) == 1


def test_replicas_needed_small_and_huge_k() -> None:
    # k ~ 100 and k ~ 1e6 slots with 1 slot per replica.
    s, t, eps = 1.0, 0.05, 0.01
    for a in (80.0, 0.99e6):
        n = int(replicas_needed(a / s, s, 1.0, t, eps))
        assert n > a
        assert _feasible(n, a, s, 1.0, t, eps)
        assert not _feasible(n - 1, a, s, 1.0, t, eps)
    # Pooling: the relative headroom shrinks with scale (square-root staffing, Halfin-Whitt 1981).
    n_small = int(replicas_needed(80.0, s, 1.0, t, eps))
    n_big = int(replicas_needed(0.99e6, s, 1.0, t, eps))
    assert (n_big - 0.99e6) / 0.99e6 < (n_small - 80.0) / 80.0


def test_replicas_needed_vectorised_equals_scalar() -> None:
    lam = np.array([0.0, 0.3, 5.0, 120.0, 4e3, 2.5e5])[:, None]
    c = np.array([1.0, 2.5, 32.0])[None, :]
    t = np.array([[0.0], [0.2], [0.0], [1.0], [0.01], [0.0]])
    vec = replicas_needed(lam, 0.9, c, t, 0.02)
    assert vec.shape == (6, 3)
    assert vec.dtype == np.int64
    for i in range(6):
        for j in range(3):
            assert vec[i, j] == int(replicas_needed(lam[i, 0], 0.9, c[0, j], t[i, 0], 0.02))


@SETTINGS
@given(
    lam=st.floats(0.0, 1e6),
    factor=st.floats(1.0, 10.0),
    s=st.floats(1e-2, 10.0),
    c=st.floats(0.5, 64.0),
    t=st.sampled_from([0.0, 0.01, 0.1, 1.0]),
    eps=st.floats(1e-6, 0.5),
)
def test_replicas_needed_monotone_in_demand(
    lam: float, factor: float, s: float, c: float, t: float, eps: float
) -> None:
    n = replicas_needed(np.array([lam, lam * factor]), s, c, t, eps)
    assert n[0] >= 1
    assert n[1] >= n[0]


def _meets_slo(n: int, lam: float, s: float, c: int, t: float, eps: float) -> bool:
    """N replicas of c slots meet P(W > t) <= eps, by the closed form (integer k = N c only); 0 replicas never do."""
    return n >= 1 and exceedance_closed_form(t, n * c, lam, s) <= eps


def _budget_bound(a: float, s: float, c: int, t: float, eps: float) -> int:
    """Replicas that meet the SLO whatever C is (C <= 1): k >= a + (S/t) ln(1/eps), for t > 0."""
    return math.ceil((a + s / t * math.log(1 / eps)) / c)


# lambda, S, c, t, eps. Loose SLOs (where one replica more than the load is enough), a load that is a whole
# number of replicas, and heavy loads with a budget of a few service times (where the bound k >= a + (S/t) ln(1/eps)
# from C <= 1 is itself the answer) next to the usual cases.
REPLICA_CASES = [
    (lam, s, c, t, eps)
    for lam in (0.0, 0.4, 3.0, 10.5, 47.0)
    for s in (0.7, 2.0)
    for c in (1, 2, 8)
    for t in (0.0, 0.1, 2.0)
    for eps in (1e-3, 0.05, 0.5, 0.95)
] + [
    (a / 0.8, 0.8, 1, 0.8 * math.log(1 / eps) / delta, eps)
    for a in (400.2, 2500.7)
    for eps in (0.01, 0.1)
    for delta in (3.0, 5.0, 8.0)
]


def test_replicas_needed_is_the_least_n_that_meets_the_closed_form_slo() -> None:
    # N meets the SLO and N - 1 does not (Kleinrock 1975, Sec. 3.5, through exceedance_closed_form), on every case
    # in one vectorised call
    lam, s, c, t, eps = (np.array(x, dtype=float) for x in zip(*REPLICA_CASES, strict=True))
    got = replicas_needed(lam, s, c, t, eps)
    assert got.dtype == np.int64 and got.shape == (len(REPLICA_CASES),)
    kinds = set()
    for n, (lam_i, s_i, c_i, t_i, eps_i) in zip(got.tolist(), REPLICA_CASES, strict=True):
        assert _meets_slo(n, lam_i, s_i, c_i, t_i, eps_i), (n, lam_i, s_i, c_i, t_i, eps_i)
        assert not _meets_slo(n - 1, lam_i, s_i, c_i, t_i, eps_i), (n, lam_i, s_i, c_i, t_i, eps_i)
        a_per_replica = lam_i * s_i / c_i
        if n == math.ceil(a_per_replica) and a_per_replica % 1:
            kinds.add("just enough replicas for the load")
        if n == math.floor(a_per_replica) + 1 and n > 1:
            kinds.add("one replica more than the load")
        if t_i > 0 and n == _budget_bound(lam_i * s_i, s_i, c_i, t_i, eps_i) and n > math.floor(a_per_replica) + 1:
            kinds.add("the bound from C <= 1")
    # the cases that catch an off-by-one at either end of the search are there
    assert kinds == {"just enough replicas for the load", "one replica more than the load", "the bound from C <= 1"}


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call",
    [
        lambda: erlang_b(0.0, 1.0),
        lambda: erlang_b(1.0, -1.0),
        lambda: erlang_b(np.nan, 1.0),
        lambda: erlang_c(-2.0, 1.0),
        lambda: wait_exceedance(-1.0, 2.0, 1.0, 1.0),
        lambda: wait_exceedance(1.0, 2.0, 1.0, 0.0),
        lambda: wait_quantile(1.0, 2.0, 1.0, 1.0),
        lambda: capacity_at_slo(2.0, 1.0, 0.1, 0.0),
        lambda: capacity_at_slo(2.0, 1.0, 0.1, 1.0),
        lambda: replicas_needed(-1.0, 1.0, 1.0, 0.1, 0.01),
        lambda: replicas_needed(1.0, 1.0, 0.0, 0.1, 0.01),
        lambda: replicas_needed(1.0, 1.0, 1.0, -0.1, 0.01),
        lambda: replicas_needed(1.0, 1.0, 1.0, 0.1, 1.5),
        lambda: offered_load(-1.0, 1.0),
        # infinities, and one bad element in an otherwise valid array
        lambda: erlang_b(np.inf, 1.0),
        lambda: erlang_b(1.0, np.inf),
        lambda: erlang_b([1.0, np.nan], 1.0),
        lambda: erlang_b([1.0, 0.0], 1.0),
        lambda: erlang_b([1.0, np.inf], 1.0),
        lambda: erlang_b(1.0, [1.0, -1.0]),
        lambda: erlang_b(1.0, [1.0, np.inf]),
        lambda: erlang_c(2.0, np.inf),
        lambda: wait_exceedance(np.inf, 2.0, 1.0, 1.0),
        lambda: wait_exceedance(1.0, 2.0, 1.0, np.inf),
        lambda: wait_quantile([0.5, -0.1], 2.0, 1.0, 1.0),
        lambda: wait_quantile(0.5, np.inf, 1.0, 1.0),
        lambda: capacity_at_slo(2.0, 1.0, 0.1, [0.1, 1.0]),
        lambda: capacity_at_slo(2.0, 1.0, 0.1, [0.1, 0.0]),
        lambda: replicas_needed(np.inf, 1.0, 1.0, 0.1, 0.01),
        lambda: offered_load(np.inf, 1.0),
        lambda: offered_load(1.0, np.inf),
    ],
)
def test_invalid_inputs_raise(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        call()


def test_scalar_in_zero_d_out() -> None:
    for out in (erlang_b(2, 1), erlang_c(2, 1), wait_exceedance(0, 2, 1, 1), capacity_at_slo(2, 1, 0, 0.1)):
        assert isinstance(out, np.ndarray)
        assert out.shape == ()
        assert out.dtype == np.float64


# --------------------------------------------------------------------------- skipping Q(k+1, a) where it is 1.0


def test_skipped_incomplete_gamma_is_exactly_one_and_erlang_b_is_unchanged() -> None:
    # Where the series bound on P(k+1, a) is below 1e-17, 1 - P rounds to 1.0 (half the spacing of doubles below 1
    # is 2**-54 = 5.6e-17), so scipy's own gammaincc must return exactly 1.0 there and Erlang B must equal the
    # plain pmf / Q formula bit for bit. Random pairs over k in [0.05, 2e6] and every load below k + 1.
    from scipy.special import gammaincc

    from rackcost.model.queues.erlang import _incomplete_gamma_needed, _log_poisson_pmf

    rng = np.random.default_rng(20261130)
    n = 300_000
    k = np.exp(rng.uniform(math.log(0.05), math.log(2e6), n))
    a = np.maximum(k * rng.uniform(0.0, 1.0, n) ** rng.uniform(0.01, 3.0, n), 1e-12 * k)
    pmf = np.exp(_log_poisson_pmf(k, a))
    skipped = ~_incomplete_gamma_needed(k, a, pmf) & (pmf > 0)
    assert skipped.sum() > n // 10  # the case is common, so this test is not vacuous
    assert np.all(gammaincc(k[skipped] + 1.0, a[skipped]) == 1.0)
    reference = np.minimum(pmf / gammaincc(k + 1.0, a), 1.0)
    np.testing.assert_array_equal(erlang_b(k, a), reference)


def test_incomplete_gamma_is_computed_near_saturation_and_above_k() -> None:
    from rackcost.model.queues.erlang import _incomplete_gamma_needed, _log_poisson_pmf

    # k = 15,000 slots at 95.9% load is 5 standard deviations from saturation: P(k+1, a) ~ 3e-7, Q != 1
    k = np.array([15_000.0, 15_000.0, 100.0])
    a = np.array([0.959 * 15_000.0, 15_000.5, 101.0])
    assert _incomplete_gamma_needed(k, a, np.exp(_log_poisson_pmf(k, a))).all()


def test_wait_tail_with_a_negative_budget_is_a_certain_miss_without_overflow() -> None:
    # Every wait is >= 0, so P(W > t) = 1 for t < 0; before the guard exp(-rate * t) overflowed (a RuntimeWarning,
    # an error under the test suite's warnings-as-errors) for a large negative budget.
    exceedance, quantile = wait_tail(np.array([-1e6, -1.0, 0.0]), 0.99, 10, 5.0, 1.0)
    assert exceedance[0] == 1.0 and exceedance[1] == 1.0
    assert float(exceedance[2]) == pytest.approx(float(erlang_c(10, 5.0)), rel=1e-15)  # t = 0: P(W > 0) = C
    assert np.all(np.isfinite(quantile))


def test_capacity_at_a_zero_budget_just_under_one_half_is_not_zero():
    # One slot, S = 1 s, budget 0: C = rho on one slot, so the capacity is eps / S (closed form). Found by
    # hypothesis: at eps = 0.5 - 1 ulp Newton stopped 1e-16 above the root, the candidate 1e-9 below it failed the
    # check by an ulp (its two margins cancel where C is linear), and the answer fell back to the lower end, 0.
    from rackcost.model.queues.queueing import capacity_at_slo

    for eps in (0.5 - 2**-53, 0.5, 0.3, 0.49999999):
        assert float(capacity_at_slo(1, 1.0, 0.0, eps)) == pytest.approx(eps, rel=1e-8)


@pytest.mark.parametrize("varying", [1, 2])
def test_capacity_at_slo_solves_repeated_problems_once_with_the_same_figures(varying: int) -> None:
    """Many elements of few distinct problems (a parked fleet's active replicas over the hours of a year; with two
    varying arguments, the slots and the hint) give every element, bit for bit, what the full call gives it: the
    distinct problems are solved once (rackcost.model.queues.queueing._repeated_problems); more than 64 distinct, or a
    small call, are solved as given."""
    from rackcost.model.queues import queueing as q

    rng = np.random.default_rng(3)
    k = rng.integers(1, 9, 3000).astype(float) * 8.0
    hint = np.where(k > 32, 1.0, 0.0) if varying == 2 else None
    many = q.capacity_at_slo(k, 4.0, 0.5, 0.01, hint)
    assert q._repeated_problems(k, 4.0, 0.5, 0.01, hint) is not None
    alone = q._capacity_at_slo(k, 4.0, 0.5, 0.01, hint)
    assert np.array_equal(many, alone)
    values = np.unique(k)  # the distinct problems alone, in one call: each element's figure is its value's
    one = q._capacity_at_slo(values, 4.0, 0.5, 0.01, None if hint is None else np.where(values > 32, 1.0, 0.0))
    assert np.array_equal(many, one[np.searchsorted(values, k)])
    spread = rng.uniform(1.0, 100.0, 3000)
    assert q._repeated_problems(spread, 4.0, 0.5, 0.01, None) is None  # every element distinct: as given
    assert q._repeated_problems(k[:100], 4.0, 0.5, 0.01, None) is None  # small: as given


def test_poisson_cdf_skips_only_where_scipy_gives_exactly_one() -> None:
    # rackcost.model.queues.erlang.poisson_cdf returns 1.0 without scipy where the series bound on P(floor(x) + 1, a) is
    # below 1e-17: scipy's pdtr must give exactly 1.0 there, and the result must be pdtr's everywhere, bit for bit.
    # Random pairs: x in [0, 2e6] (integers and not, as slots divided by a burstiness are), every load up to 1.2 x.
    from scipy.special import pdtr

    from rackcost.model.queues.erlang import poisson_cdf

    rng = np.random.default_rng(20261201)
    n = 300_000
    x = np.exp(rng.uniform(math.log(0.5), math.log(2e6), n))
    x[::2] = np.floor(x[::2])
    a = np.maximum(1.2 * x * rng.uniform(0.0, 1.0, n) ** rng.uniform(0.01, 3.0, n), 1e-12)
    expected = pdtr(x, a)
    assert np.mean(expected == 1.0) > 0.1  # the skipped case is common: the test is not vacuous
    np.testing.assert_array_equal(poisson_cdf(x, a), expected)
