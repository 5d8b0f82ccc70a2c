"""The Monte Carlo's fast paths (issue 24, item 5) give the figures of the plain forms they replace, bit for bit.

Each test computes the plain form here (the code the fast path replaced, written out) and compares every element
with ``np.array_equal``: a fast path may only change the cost of a figure, never the figure.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackcost.analysis import montecarlo
from rackcost.model.energy import power
from rackcost.model.queues import erlang
from rackcost.model.queues.occupancy import conditional_wait_rate
from rackcost.model.replica.performance import LoadCurve, in_service_concurrency, piecewise_linear_many


def plain_piecewise(knots, values, at):
    """``piecewise_linear_many`` as it was: a search for the segment and a gather by (row, segment)."""
    x, q = np.asarray(knots, dtype=float), np.atleast_2d(np.asarray(at, dtype=float))
    hi = np.searchsorted(x, q).clip(1, x.size - 1)
    lo = hi - 1
    w = ((q - x[lo]) / (x[hi] - x[lo])).clip(0.0, 1.0)
    out = []
    for y in (np.atleast_2d(np.asarray(v, dtype=float)) for v in values):
        if y.shape[0] == 1:
            out.append((1.0 - w) * y[0][lo] + w * y[0][hi])
            continue
        shape = np.broadcast_shapes(q.shape, (y.shape[0], 1))
        lo_b, hi_b, w_b = (np.broadcast_to(a, shape) for a in (lo, hi, w))
        rows = np.broadcast_to(np.arange(y.shape[0])[:, None], shape)
        out.append((1.0 - w_b) * y[rows, lo_b] + w_b * y[rows, hi_b])
    return out


def plain_in_service(curve, x):
    """``in_service_concurrency`` as it was: every segment's root on an (n, P, K-1) stack, the least by ``min``."""
    knots = curve.concurrency
    s = np.atleast_2d(curve.service_s)
    n = max(x.shape[0], s.shape[0])
    x = np.broadcast_to(x, (n, x.shape[1]))[:, :, None]
    s = np.broadcast_to(s, (n, s.shape[1]))[:, None, :]
    below = x[..., 0] * s[..., 0]
    best = np.where(below <= knots[0], below, np.inf)
    if knots.size > 1:
        slope = (s[..., 1:] - s[..., :-1]) / (knots[1:] - knots[:-1])
        intercept = s[..., :-1] - slope * knots[:-1]
        denominator = 1.0 - x * slope
        with np.errstate(divide="ignore", invalid="ignore"):
            root = x * intercept / denominator
        inside = (denominator > 0) & (root >= knots[:-1]) & (root <= knots[1:])
        best = np.minimum(best, np.where(inside, root, np.inf).min(axis=-1))
    return np.minimum(best, curve.limit)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 24), st.integers(1, 5), st.integers(0, 2**32 - 1), st.booleans())
def test_piecewise_segments_by_comparison_equal_the_search(knots: int, points: int, seed: int, stacked: bool) -> None:
    """Up to and beyond 16 knots, at knots, between them and past both ends; per-sample rows and one row; a
    stacked leading axis (the occupancy spread's two ends)."""
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.uniform(0.5, 50.0, knots))
    n = 7
    q = rng.uniform(x[0] - 10.0, x[-1] + 10.0, (2, n, points) if stacked else (n, points))
    q.flat[:: max(1, q.size // 5)] = rng.choice(x, size=q.flat[:: max(1, q.size // 5)].size)  # exactly at knots
    rows = rng.uniform(0.1, 5.0, (n, knots))
    one = rng.uniform(0.1, 5.0, knots)
    values = (rows, one, rows[::-1])
    for fast, plain in zip(piecewise_linear_many(x, values, q), plain_piecewise(x, values, q), strict=True):
        assert fast.shape == plain.shape
        assert np.array_equal(fast, plain)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_in_service_by_segment_equals_the_stacked_roots(knots: int, points: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    c = np.cumsum(rng.uniform(1.0, 100.0, knots))
    n = 9
    service = np.cumsum(rng.uniform(0.0, 2.0, (n, knots)), axis=1) + 0.5  # nondecreasing in the occupancy
    curve = LoadCurve(c, service, np.zeros(knots), np.zeros(knots), None, float(c[-1]))
    x = rng.uniform(0.0, 2.0 * c[-1] / service[:, -1:].max(), (n, points))
    assert np.array_equal(in_service_concurrency(curve, x), plain_in_service(curve, x))


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-3, 1e12), st.floats(0.0, 1.0))
def test_a_load_whose_ratio_rounds_to_at_most_one_is_never_high(k: float, share: float) -> None:
    """The skipped test (``erlang._erlang_b_core``): where ``a / k`` rounds to at most 1, ``a`` is below
    ``k + 1 + sqrt(k + 1)``; at the largest such load too (``a = k (1 + 2**-53)`` rounds to ``k`` or just above)."""
    for a in (k * share, k, np.nextafter(k, np.inf), k * (1.0 + 2.0**-53)):
        if a / k <= 1.0:
            assert not a > k + 1.0 + np.sqrt(k + 1.0)


def test_erlang_b_hot_path_equals_the_general_one_on_stable_queues() -> None:
    """Erlang C's hot path (every queue stable, the bound test skipped) against the general path: the same bits."""
    rng = np.random.default_rng(24)
    k = rng.uniform(0.5, 60_000.0, 20_000)
    a = k * rng.uniform(0.0, 1.0, k.size)
    a[::97] = k[::97]  # a = k exactly
    fast = erlang._erlang_b_core(k, a)
    # the plain path: the same core with one high element appended (so that the test runs), that element dropped
    plain = erlang._erlang_b_core(np.append(k, 1.0), np.append(a, 10.0))[:-1]
    assert np.array_equal(fast, plain)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_it_power_with_shared_terms_equals_each_call(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, p = 5, 3
    active = rng.integers(0, 40, (n, p))
    idle = rng.integers(0, 5, (n, p))
    parked = rng.integers(0, 5, (n, p))
    args = (8, 4, rng.integers(20, 60, (n, 1)), rng.integers(1, 5, (n, 1)))
    per = tuple(rng.uniform(10.0, 2_000.0, (n, 1)) for _ in range(5))
    at = power.fleet_it_power_at(active, idle, parked, *args, *per)
    for serving_w in (rng.uniform(100.0, 1_500.0, (n, p)), rng.uniform(100.0, 1_500.0, (n, p))):
        plain = power.fleet_it_power_w(active, idle, parked, *args, serving_w, *per)
        assert np.array_equal(at(serving_w), plain)


def test_central_queues_read_the_pooled_rate_only() -> None:
    """Where every queue is central the per-replica rate is skipped: the figures are those of a mixed call."""
    rng = np.random.default_rng(5)
    n, c = rng.integers(1, 50, 200).astype(float), rng.uniform(1.0, 64.0, 200)
    s, v = rng.uniform(0.5, 30.0, 200), rng.uniform(1.0, 3.0, 200)
    lam = n * c / s * rng.uniform(0.0, 0.99, 200)
    central = conditional_wait_rate(True, True, n, c, lam, s, v)
    mixed = conditional_wait_rate(True, np.arange(200) % 2 == 0, n, c, lam, s, v)
    assert np.array_equal(central[::2], mixed[::2])


def test_blocks_aim_at_the_cache_size_but_keep_enough_samples() -> None:
    per_sample = 6  # the default scenario: 2 systems x 3 demand points
    assert montecarlo._block_size(100_000, per_sample, 1, None) == montecarlo.CACHE_CELLS // per_sample
    # many points: the blocks keep MIN_SAMPLES_PER_BLOCK samples, within CHUNK_CELLS
    many = 60
    assert montecarlo._block_size(100_000, many, 1, None) == montecarlo.MIN_SAMPLES_PER_BLOCK
    assert montecarlo._block_size(100_000, 2_000, 1, None) == montecarlo.CHUNK_CELLS // 2_000


# ---- per-call overhead of a central evaluation (issue: "speed is lost in per-call overhead"): each fast path below
# gives the plain form's figures, bit for bit, and a central evaluation no longer calls numpy's Python-level helpers
# that cost more than the arithmetic on its few elements


def plain_crf(r, n):
    """``finance.capital_recovery_factor`` as it was: both forms, chosen elementwise."""
    r, n = np.asarray(r, dtype=float), np.asarray(n, dtype=float)
    safe_r = np.where(r > 0, r, 1.0)
    with np.errstate(under="ignore"):
        small = n * r < 1e-8
        exact = safe_r / -np.expm1(-n * np.log1p(np.where(small, 1.0, safe_r)))
        series = 1.0 / n + r * (n + 1.0) / (2.0 * n)
    return np.where(small, series, exact)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(), (1, 1), (5, 1), (5, 3)]))
def test_crf_without_a_small_rate_equals_both_forms(seed: int, shape: tuple[int, ...]) -> None:
    """Capital recovery factor (Grant, Ireson and Leavenworth, A/P): the exact form alone where no rate is small."""
    from rackcost.model.costs.finance import capital_recovery_factor

    rng = np.random.default_rng(seed)
    r = rng.choice([0.0, 1e-12, 1e-3, 0.08, 0.5], shape) * rng.uniform(0.5, 2.0, shape)
    n = rng.uniform(0.5, 40.0, shape)
    fast, plain = capital_recovery_factor(r, n), plain_crf(r, n)
    assert fast.shape == plain.shape and np.array_equal(fast, plain)


def test_per_accepted_without_broadcasting_equals_the_broadcast_division() -> None:
    from rackcost.model.costs.metrics import per_accepted

    rng = np.random.default_rng(3)
    cost, amount = rng.uniform(0.0, 10.0, (4, 3)), rng.uniform(0.0, 2.0, (4, 3))
    amount[::2, 1] = 0.0
    for c, a in ((cost, amount), (cost[:, :1], amount), (cost, amount[0]), (5.0, amount), (cost, 0.0)):
        cb, ab = np.broadcast_arrays(np.asarray(c, dtype=float), np.asarray(a, dtype=float))
        plain = np.divide(cb, ab, out=np.full(cb.shape, np.nan), where=ab > 0)
        assert np.array_equal(per_accepted(c, a), plain, equal_nan=True)


def test_arrival_variability_of_plain_numbers_equals_the_arrays() -> None:
    """``v = (c_a^2 + c_s^2) / 2`` (module docstring of model.burstiness): a Python float's sum is numpy's, and bad
    values are refused alike."""
    from rackcost.model.queues.burstiness import arrival_variability

    for ca, cs in ((1.0, 1.0), (0.3, 2.7), (1e300, 3e300), (0.1, 0.2)):
        fast = arrival_variability(ca, cs)
        assert fast.shape == () and fast == arrival_variability(np.array(ca), np.array(cs))
    for bad in (float("nan"), -1.0, float("inf"), np.array([1.0, np.nan]), np.array([0.0, -np.inf])):
        with pytest.raises(ValueError, match="finite and >= 0"):
            arrival_variability(bad)
    assert arrival_variability(np.array([])).shape == (0,)


@pytest.mark.parametrize(
    ("check", "good", "bad"),
    [
        (erlang.check_positive, [1e-300, 1e300], [0.0, -1.0, np.inf, np.nan]),
        (erlang.check_nonnegative, [0.0, 1e300], [-1e-300, np.inf, -np.inf, np.nan]),
        (erlang.check_open_unit, [1e-300, 1.0 - 1e-16], [0.0, 1.0, np.nan]),
    ],
)
def test_checks_by_least_and_greatest_refuse_what_each_element_would(check, good, bad) -> None:
    check("x", np.array(good))
    check("x", np.array([], dtype=float))
    for value in bad:
        for arr in (np.array(value), np.array([good[0], value]), np.array([[value, good[-1]]])):
            with pytest.raises(ValueError, match="^x must"):
                check("x", arr)
    with pytest.raises(ValueError, match="must not contain NaN"):
        erlang.as_float("x", [1.0, np.nan])


def test_accelerator_power_without_a_broadcast_view_equals_it() -> None:
    rng = np.random.default_rng(8)
    u = rng.uniform(0.0, 1.0, (4, 3))
    for exponent in (1.0, 0.07, np.full((4, 1), 0.07), np.array([[1.0], [0.5], [1.0], [0.1]])):
        e = np.asarray(exponent, dtype=float)
        shape = u if (e == 1.0).all() else u**e
        plain = 80.0 + (np.full((4, 1), 700.0) - 80.0) * np.broadcast_to(shape, np.broadcast_shapes(u.shape, e.shape))
        assert np.array_equal(power.accelerator_power_w(u, 80.0, np.full((4, 1), 700.0), exponent), plain)


def test_a_central_evaluation_calls_no_python_level_broadcast_helper() -> None:
    """``np.broadcast_arrays``, ``np.broadcast_shapes`` and ``np.issubdtype`` cost more than the arithmetic on a
    central evaluation's few elements (several microseconds each, in Python); the steps of the numeric core that
    called them (metrics, power, routing, occupancy) test the shapes and dtypes they need directly. Counted with
    cProfile (a count, not a time: the same on every machine)."""
    import cProfile
    import pstats

    import rackcost

    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path())
    rackcost.evaluate(scenario)
    profile = cProfile.Profile()
    profile.enable()
    rackcost.evaluate(scenario)
    profile.disable()
    helpers = {"broadcast_arrays", "broadcast_shapes", "issubdtype"}
    calls = {
        f"{name} from {caller[0].rsplit('rackcost/', 1)[-1]}:{caller[2]}": count[1]
        for (_, _, name), (*_, callers) in pstats.Stats(profile).stats.items()  # type: ignore[attr-defined]
        if name in helpers
        for caller, count in callers.items()
    }
    assert calls == {}


def plain_replicas_feasible(n, c, lam, s, t, eps):
    """``queueing._replicas_feasible`` as it was: the tail of every queue evaluated, unstable ones made safe."""
    from rackcost.model.queues.queueing import wait_exceedance_checked

    k = n.astype(np.float64) * c
    a = lam * s
    stable = k > a
    k_safe = np.where(stable, k, np.maximum(a, 1.0) * 2.0)
    p = wait_exceedance_checked(t, k_safe, np.where(stable, lam, 0.0), s)
    return stable & (p <= eps)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 4.0))
def test_sizing_decided_by_erlang_c_bounds_equals_the_tail(seed: int, decades: float) -> None:
    """The sizing bisection's answers from bounds on Erlang C, where they settle them, are the tail's own: queues of
    1 to 10^4 slots a replica, loads from none to past saturation, budgets of 0 and more, targets of 1e-4 to 0.5."""
    from rackcost.model.queues.queueing import _replicas_feasible

    rng = np.random.default_rng(seed)
    m = 2_000
    c = 10 ** rng.uniform(0.0, decades, m)
    n = rng.integers(0, 60, m)
    s = 10 ** rng.uniform(-1.0, 2.0, m)
    lam = n * c / s * rng.uniform(0.0, 1.3, m) * (rng.random(m) > 0.05)
    t = np.where(rng.random(m) < 0.3, 0.0, 10 ** rng.uniform(-3.0, 1.0, m))
    eps = 10 ** rng.uniform(-4.0, -0.3, m)
    assert np.array_equal(_replicas_feasible(n, c, lam, s, t, eps), plain_replicas_feasible(n, c, lam, s, t, eps))


@settings(max_examples=60, deadline=None)
@given(st.floats(1.0, 1e5), st.floats(1e-6, 0.999999))
def test_erlang_c_bounds_hold_the_erlang_c(k: float, share: float) -> None:
    """``erlang_c_bounds`` bracket the Erlang C the model computes (to its rounding) wherever ``0 < a < k``; on one
    server they bracket the closed form ``C = a`` (M/M/1) to the saddle-point Poisson term's accuracy, 1e-10 at
    the smallest loads (``(a - k) / k`` rounds there), and meet it where the geometric bound is tiny."""
    ks, a = np.array([k, 1.0]), np.array([k * share, share])
    lower, upper = erlang.erlang_c_bounds(ks, a)
    c = erlang.erlang_c_checked(ks, a)
    assert (lower <= c * (1.0 + 1e-12)).all() and (c <= upper * (1.0 + 1e-12)).all()
    assert lower[1] <= share * (1.0 + 1e-9) and share <= upper[1] * (1.0 + 1e-9)
    if share < 1e-3:
        assert upper[1] - lower[1] <= 1e-5 * share


def test_normal_quantile_asked_once_per_level_equals_ndtri() -> None:
    """``occupancy._normal_quantile`` is scipy's ``ndtri`` of every element, bit for bit, whatever the mix of a
    repeated level, other levels, the ends and NaN."""
    from scipy.special import ndtri

    from rackcost.model.queues.occupancy import _normal_quantile

    rng = np.random.default_rng(7)
    mixed = np.where(rng.random(5_000) < 0.9, 0.99, rng.random(5_000)).reshape(50, 100)
    for p in (mixed, np.array([0.99]), np.array(0.5), np.array([np.nan, 0.3, np.nan]), np.array([0.0, 1.0, 0.99])):
        assert np.array_equal(_normal_quantile(p), ndtri(p), equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_day_sums_column_by_column_equal_numpys(points: int, seed: int, fortran: bool) -> None:
    """``metrics._point_sum`` is ``values.sum(axis=-1)`` bit for bit, on 1 to 12 points (numpy's own sum from 8),
    values of every scale and sign, negative zeros, and a layout it leaves to numpy."""
    from rackcost.model.costs.metrics import _point_sum

    rng = np.random.default_rng(seed)
    values = rng.standard_normal((500, points)) * 10 ** rng.uniform(-8, 8, (500, points))
    values[::7] = -0.0
    values = np.asfortranarray(values) if fortran else values
    assert np.array_equal(_point_sum(values), values.sum(axis=-1))
    assert np.array_equal(np.signbit(_point_sum(values)), np.signbit(values.sum(axis=-1)))
