"""Tests for rackcost.model.replica.performance: token accounting, Little's law, the curve (DESIGN.md steps 1-3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackcost.model.replica.performance import (
    build_curve,
    candidate_concurrencies,
    interpolate_curve,
    littles_law_concurrency,
    requests_per_s,
    service_time_s,
)

# Closed forms of a few operations on round numbers: a few ulps at most.
RTOL_FLOAT = 1e-12

ISL, OSL = 1000.0, 500.0


def curve_a():
    """System A of tests/data/two_systems.yaml: (c, total tokens/s, TPOT ms, TTFT ms), with power."""
    return build_curve(
        [8.0, 32.0, 128.0],
        [3000.0, 9000.0, 18000.0],
        "total",
        [20.0, 30.0, 60.0],
        [300.0, 500.0, 1500.0],
        ISL,
        OSL,
        [300.0, 450.0, 600.0],
    )


# --------------------------------------------------------------------------- token accounting


def test_requests_per_s_total_and_output_basis_agree() -> None:
    # DESIGN.md step 1: rps = total tokens/s / (ISL + OSL) = output tokens/s / OSL.
    # 9,000 total tokens/s at 1,000 + 500 tokens/request = 6 rps; the same 6 rps emit 3,000 output tokens/s.
    assert float(requests_per_s(9000.0, "total", ISL, OSL)) == pytest.approx(6.0, rel=RTOL_FLOAT)
    assert float(requests_per_s(3000.0, "output", ISL, OSL)) == pytest.approx(6.0, rel=RTOL_FLOAT)
    # docstring example: 8k/1k at 9,216 total tokens/s is 1 rps
    assert float(requests_per_s(9216.0, "total", 8192, 1024)) == pytest.approx(1.0, rel=RTOL_FLOAT)


def test_requests_per_s_rejects_unknown_basis() -> None:
    with pytest.raises(ValueError, match="token_basis"):
        requests_per_s(1000.0, "input", ISL, OSL)


@settings(max_examples=100, deadline=None)
@given(st.floats(1.0, 1e7), st.floats(1.0, 1e5), st.floats(1.0, 1e5))
def test_property_token_accounting_consistent(rps: float, isl: float, osl: float) -> None:
    total = rps * (isl + osl)
    output = rps * osl
    assert float(requests_per_s(total, "total", isl, osl)) == pytest.approx(rps, rel=1e-12)
    assert float(requests_per_s(output, "output", isl, osl)) == pytest.approx(rps, rel=1e-12)


def test_curve_tokens_follow_request_rate() -> None:
    curve = curve_a()
    np.testing.assert_allclose(curve.request_rps, [2.0, 6.0, 12.0], rtol=RTOL_FLOAT)  # 3000/1500 etc.
    np.testing.assert_allclose(curve.total_tokens_per_s, [3000.0, 9000.0, 18000.0], rtol=RTOL_FLOAT)
    np.testing.assert_allclose(curve.output_tokens_per_s, [1000.0, 3000.0, 6000.0], rtol=RTOL_FLOAT)


def test_curve_from_output_basis_counts_total_tokens() -> None:
    # 2,000 output tokens/s at OSL 500 = 4 rps = 4 x 1,500 = 6,000 total tokens/s.
    curve = build_curve([16.0], [2000.0], "output", [10.0], [400.0], ISL, OSL)
    assert float(curve.request_rps[0]) == pytest.approx(4.0, rel=RTOL_FLOAT)
    assert float(curve.total_tokens_per_s[0]) == pytest.approx(6000.0, rel=RTOL_FLOAT)


# --------------------------------------------------------------------------- Little's law


def test_littles_law_concurrency_hand_example() -> None:
    # L = lambda W (Little 1961) with W = TTFT + (OSL - 1) TPOT: 2 rps x (0.5 s + 100 x 0.02 s) = 2 x 2.5 = 5.
    assert float(littles_law_concurrency(2.0, 500.0, 20.0, 101.0)) == pytest.approx(5.0, rel=RTOL_FLOAT)


def test_build_curve_derives_concurrency_by_littles_law() -> None:
    # No concurrency given: c = rps x (TTFT + (OSL - 1) TPOT). 6 rps x (0.5 + 499 x 0.03) s = 6 x 15.47 = 92.82.
    curve = build_curve(None, [9000.0], "total", [30.0], [500.0], ISL, OSL)
    assert float(curve.concurrency[0]) == pytest.approx(6.0 * (0.5 + 499 * 0.030), rel=RTOL_FLOAT)
    # and then S = c / mu is exactly the request's holding time TTFT + (OSL - 1) TPOT
    assert float(curve.service_s[0]) == pytest.approx(0.5 + 499 * 0.030, rel=RTOL_FLOAT)


def test_service_time_is_concurrency_over_rate() -> None:
    # S = c / mu (Little): 16 slots at 5.333 rps hold each request 3 s (system B of two_systems.yaml:
    # 4,000 tokens/s/kW x 0.5 kW x 4 accelerators = 8,000 tokens/s / 1,500 tokens = 16/3 rps).
    assert float(service_time_s(16.0, 8000.0 / 1500.0)) == pytest.approx(3.0, rel=RTOL_FLOAT)
    curve = curve_a()
    np.testing.assert_allclose(curve.service_s, [8 / 2, 32 / 6, 128 / 12], rtol=RTOL_FLOAT)


def test_build_curve_sorts_points_by_concurrency() -> None:
    curve = build_curve(
        [128.0, 8.0, 32.0], [18000.0, 3000.0, 9000.0], "total", [60, 20, 30], [1500, 300, 500], ISL, OSL
    )
    np.testing.assert_array_equal(curve.concurrency, [8.0, 32.0, 128.0])
    np.testing.assert_allclose(curve.tpot_ms, [20.0, 30.0, 60.0])
    np.testing.assert_allclose(curve.request_rps, [2.0, 6.0, 12.0], rtol=RTOL_FLOAT)


# --------------------------------------------------------------------------- interpolation


def test_interpolation_at_linear_midpoint() -> None:
    # DESIGN.md step 2: between measured points the service time S = c / mu and the latencies are linear in c, and
    # throughput is c / S(c). Midway between 8 and 32 (c = 20): S = (8/2 + 32/6) / 2 = 14/3 s, so
    # rps = 20 / (14/3) = 30/7; TPOT (20 + 30)/2 = 25 ms, TTFT (300 + 500)/2 = 400 ms, power (300 + 450)/2 = 375 W;
    # tokens follow the rate: 1,500 and 500 per request.
    mid = interpolate_curve(curve_a(), [20.0])
    assert float(mid.service_s[0]) == pytest.approx(14.0 / 3.0, rel=RTOL_FLOAT)
    assert float(mid.request_rps[0]) == pytest.approx(30.0 / 7.0, rel=RTOL_FLOAT)
    assert float(mid.tpot_ms[0]) == pytest.approx(25.0, rel=RTOL_FLOAT)
    assert float(mid.ttft_ms[0]) == pytest.approx(400.0, rel=RTOL_FLOAT)
    assert float(mid.power_w_per_accelerator[0]) == pytest.approx(375.0, rel=RTOL_FLOAT)
    assert float(mid.total_tokens_per_s[0]) == pytest.approx(1500.0 * 30.0 / 7.0, rel=RTOL_FLOAT)
    assert float(mid.output_tokens_per_s[0]) == pytest.approx(500.0 * 30.0 / 7.0, rel=RTOL_FLOAT)


def test_service_time_is_interpolated_not_throughput() -> None:
    # At c = 80, halfway between 32 and 128: S = (32/6 + 128/12) / 2 = 8 s, so rps = 80 / 8 = 10. Interpolating
    # throughput instead would give 9.0 (linear in c) or 9.97 (linear in log c), and service times 8.9 s or 8.03 s
    # that do not lie between the neighbours' in proportion to the batch.
    pt = interpolate_curve(curve_a(), [80.0])
    assert float(pt.service_s[0]) == pytest.approx(8.0, rel=RTOL_FLOAT)
    assert float(pt.request_rps[0]) == pytest.approx(10.0, rel=RTOL_FLOAT)
    assert float(pt.tpot_ms[0]) == pytest.approx(45.0, rel=RTOL_FLOAT)
    assert float(pt.ttft_ms[0]) == pytest.approx(1000.0, rel=RTOL_FLOAT)


def test_interpolation_returns_measured_values_at_measured_concurrencies() -> None:
    curve = curve_a()
    at = interpolate_curve(curve, curve.concurrency)
    for name in ("request_rps", "total_tokens_per_s", "output_tokens_per_s", "tpot_ms", "ttft_ms"):
        # np.interp at a knot returns the knot value; only the c / (c / mu) round trip of the rate can move it.
        np.testing.assert_allclose(getattr(at, name), getattr(curve, name), rtol=RTOL_FLOAT, err_msg=name)
    np.testing.assert_allclose(at.power_w_per_accelerator, curve.power_w_per_accelerator, rtol=RTOL_FLOAT)


@pytest.mark.parametrize("c", [7.9, 4.0, 128.5, 1000.0])
def test_interpolation_refuses_to_extrapolate(c: float) -> None:
    with pytest.raises(ValueError, match="no extrapolation"):
        interpolate_curve(curve_a(), [16.0, c])


def test_single_point_curve_evaluates_only_at_its_point() -> None:
    curve = build_curve([16.0], [8000.0], "total", [10.0], [400.0], ISL, OSL)
    pt = interpolate_curve(curve, [16.0])
    assert float(pt.request_rps[0]) == pytest.approx(8000.0 / 1500.0, rel=RTOL_FLOAT)
    with pytest.raises(ValueError):
        interpolate_curve(curve, [17.0])


@settings(max_examples=100, deadline=None)
@given(st.floats(0.0, 1.0))
def test_property_interpolation_monotone_between_knots(w: float) -> None:
    # c = 32 + 96 w lies between the knots 32 and 128 with linear weight w: S and TPOT are (1 - w) left + w right
    # (Burden & Faires, Numerical Analysis, linear interpolation), throughput c / S(c).
    c = 32.0 + 96.0 * w
    pt = interpolate_curve(curve_a(), [c])
    service = (1.0 - w) * 32.0 / 6.0 + w * 128.0 / 12.0
    # 1e-12: w is recovered from c after one multiply-add
    assert float(pt.service_s[0]) == pytest.approx(service, rel=1e-12)
    assert float(pt.request_rps[0]) == pytest.approx(c / service, rel=1e-12)
    assert float(pt.tpot_ms[0]) == pytest.approx(30.0 + 30.0 * w, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.floats(8.0, 128.0), st.floats(8.0, 128.0))
def test_property_service_time_never_falls_as_concurrency_rises(a: float, b: float) -> None:
    """Measured service times rise with concurrency (4, 5.33, 10.67 s), so the interpolated one does too."""
    lo, hi = sorted((a, b))
    pts = interpolate_curve(curve_a(), [lo, hi])
    assert pts.service_s[0] <= pts.service_s[1] * (1 + 1e-12)


# --------------------------------------------------------------------------- candidate concurrencies


def test_candidate_concurrencies_small_range_every_integer() -> None:
    assert candidate_concurrencies(4.0, 8.0).tolist() == [4.0, 5.0, 6.0, 7.0, 8.0]
    # non-integer ends are kept as they are, the integers between them added
    assert candidate_concurrencies(2.5, 5.5).tolist() == [2.5, 3.0, 4.0, 5.0, 5.5]


@settings(max_examples=150, deadline=None)
@given(st.floats(0.5, 5000.0), st.floats(0.0, 1e5), st.integers(2, 64))
def test_property_candidates_within_range_and_include_ends(low: float, span: float, count: int) -> None:
    high = low + span
    grid = candidate_concurrencies(low, high, count)
    assert grid[0] == low and grid[-1] == high
    assert np.all(grid >= low) and np.all(grid <= high)
    assert np.all(np.diff(grid) > 0)  # sorted and unique
    if high - low <= count:
        # every integer engine cap in the range is a candidate
        ints = np.arange(math.ceil(low), math.floor(high) + 1)
        assert set(ints.tolist()) <= set(grid.tolist())
    else:
        assert len(grid) <= count + 2
