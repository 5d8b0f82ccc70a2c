"""Tests for rackcost.model.energy.power: accelerator, fleet IT, provisioned and facility power (DESIGN.md step 7)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackcost.model.energy.power import (
    accelerator_power_w,
    facility_power_kw,
    fleet_it_power_w,
    provisioned_it_power_w,
    rack_power_kw,
)

# Sums and products of a handful of round numbers: a few ulps of rounding at most.
RTOL_FLOAT = 1e-12


# --------------------------------------------------------------------------- one accelerator


@pytest.mark.parametrize(
    ("u", "expected"),
    # DESIGN.md step 7, linear case: idle + (busy - idle) * u with idle 100 W, busy 500 W.
    [(0.0, 100.0), (0.25, 200.0), (0.5, 300.0), (0.75, 400.0), (1.0, 500.0)],
)
def test_accelerator_power_linear_interpolation(u: float, expected: float) -> None:
    assert float(accelerator_power_w(u, 100.0, 500.0)) == pytest.approx(expected, rel=RTOL_FLOAT)


def test_accelerator_power_exponent() -> None:
    # idle + (busy - idle) * u ** e: u = 0.5, e = 2 -> 100 + 400 * 0.25 = 200 W; e = 0.5 -> 100 + 400 * 0.7071.
    assert float(accelerator_power_w(0.5, 100.0, 500.0, 2.0)) == pytest.approx(200.0, rel=RTOL_FLOAT)
    assert float(accelerator_power_w(0.5, 100.0, 500.0, 0.5)) == pytest.approx(100.0 + 400.0 * 0.5**0.5, rel=RTOL_FLOAT)
    # the ends do not depend on the exponent
    for e in (0.3, 1.0, 3.0):
        assert float(accelerator_power_w(0.0, 100.0, 500.0, e)) == pytest.approx(100.0, rel=RTOL_FLOAT)
        assert float(accelerator_power_w(1.0, 100.0, 500.0, e)) == pytest.approx(500.0, rel=RTOL_FLOAT)


def test_accelerator_power_vectorised_and_clipped_to_busy() -> None:
    got = accelerator_power_w(np.array([0.0, 0.5, 1.0, 1.5]), np.array([100.0, 50.0, 100.0, 100.0]), 500.0)
    # utilisation above 1 cannot draw more than busy power: clipped to u = 1.
    np.testing.assert_allclose(got, [100.0, 275.0, 500.0, 500.0], rtol=RTOL_FLOAT)


@settings(max_examples=100, deadline=None)
@given(
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 2000.0),
    st.floats(0.0, 2000.0),
    st.floats(0.1, 5.0),
)
def test_property_power_between_idle_and_busy_and_monotone(
    u1: float, u2: float, idle: float, extra: float, exponent: float
) -> None:
    busy = idle + extra
    lo_u, hi_u = sorted((u1, u2))
    p_lo = float(accelerator_power_w(lo_u, idle, busy, exponent))
    p_hi = float(accelerator_power_w(hi_u, idle, busy, exponent))
    # a convex combination of idle and busy (weight u**e in [0, 1]); 1e-9 W absorbs rounding of ~1e3 W values.
    assert idle - 1e-9 <= p_lo <= p_hi + 1e-9 <= busy + 2e-9


# --------------------------------------------------------------------------- a fleet


FLEET = dict(
    accelerators_per_replica=8,
    accelerators_per_node=8,
    racks=1,
    idle_w=100.0,
    parked_w=50.0,
    host_w_per_node=1500.0,
    host_parked_w_per_node=300.0,
    rack_overhead_w=1000.0,
)


def test_fleet_it_power_powered_all_active() -> None:
    # 3 replicas of 8 accelerators, one node each, all serving at 300 W (100 + 500 x 0.4):
    #   accelerators: 24 x 300 = 7,200 W; hosts: 3 nodes x 1,500 W = 4,500 W; rack: 1,000 W; total 12,700 W
    got = float(fleet_it_power_w(3, 0, 0, nodes=3, active_accelerator_w=300.0, **FLEET))
    assert got == pytest.approx(12_700.0, rel=RTOL_FLOAT)


def test_fleet_it_power_standby_replicas_draw_idle_power_on_powered_nodes() -> None:
    # 2 serving at 300 W and 1 on standby (powered, idle 100 W): 16 x 300 + 8 x 100 + 3 hosts on + rack
    got = float(fleet_it_power_w(2, 1, 0, nodes=3, active_accelerator_w=300.0, **FLEET))
    assert got == pytest.approx(4_800.0 + 800.0 + 4_500.0 + 1_000.0, rel=RTOL_FLOAT)


def test_fleet_it_power_park_counts_whole_nodes() -> None:
    # 3 replicas of 4 accelerators on 8-accelerator nodes (two replicas per node, 2 nodes installed); 1 serving at
    # 300 W, 2 parked: the serving replica's node is on (a node is on when any accelerator on it is powered), the
    # other is parked; hosts are never counted by fractions of a node.
    #   active accelerators: 4 x 300 = 1,200 W; parked: 8 x 50 = 400 W
    #   hosts: 1 node on x 1,500 + 1 node parked x 300 = 1,800 W; rack 1,000 W; total 4,400 W
    fleet = FLEET | {"accelerators_per_replica": 4}
    got = float(fleet_it_power_w(1, 0, 2, nodes=2, active_accelerator_w=300.0, **fleet))
    assert got == pytest.approx(4_400.0, rel=RTOL_FLOAT)


def test_fleet_it_power_vectorised_over_points() -> None:
    # Two demand points: (3 serving at 225 W) and (1 serving at 600 W, 2 parked), 3 one-node replicas:
    #   point 1: 24 x 225 + 3 x 1,500 + 1,000                    = 5,400 + 4,500 + 1,000 = 10,900 W
    #   point 2: 8 x 600 + 16 x 50 + 1 x 1,500 + 2 x 300 + 1,000 = 4,800 + 800 + 2,100 + 1,000 = 8,700 W
    got = fleet_it_power_w(
        np.array([3, 1]), 0, np.array([0, 2]), nodes=3, active_accelerator_w=np.array([225.0, 600.0]), **FLEET
    )
    np.testing.assert_allclose(got, [10_900.0, 8_700.0], rtol=RTOL_FLOAT)


def test_fleet_it_power_nothing_but_overhead_when_everything_draws_zero() -> None:
    fleet = FLEET | {"idle_w": 0.0, "parked_w": 0.0, "host_w_per_node": 0.0}
    fleet |= {"host_parked_w_per_node": 0.0, "racks": 4}
    assert float(fleet_it_power_w(2, 1, 2, nodes=5, active_accelerator_w=0.0, **fleet)) == pytest.approx(4_000.0)


def test_provisioned_it_power_rated_counts_installed_accelerators() -> None:
    # 3 nodes of 8 slots holding 20 accelerators: 20 x 700 W rated + 3 x 2,000 W host + 1,000 W rack = 21,000 W
    # (an empty accelerator slot of the part-filled node draws nothing)
    got = float(provisioned_it_power_w(20, 3, 1, 700.0, 2_000.0, 1_000.0))
    assert got == pytest.approx(21_000.0, rel=RTOL_FLOAT)
    # GB-style rack: 72 x 1,400 + 18 trays x 600 + 10 kW overhead = 100,800 + 10,800 + 10,000 = 121,600 W
    assert float(provisioned_it_power_w(72, 18, 1, 1400.0, 600.0, 10_000.0)) == pytest.approx(121_600.0)


def test_facility_power_is_it_times_pue() -> None:
    # facility kW = IT W x PUE / 1000: 23,800 W x 1.2 = 28.56 kW; 100 kW IT at PUE 1.0 stays 100 kW.
    assert float(facility_power_kw(23_800.0, 1.2)) == pytest.approx(28.56, rel=RTOL_FLOAT)
    np.testing.assert_allclose(
        facility_power_kw(np.array([100_000.0, 50_000.0]), np.array([1.0, 1.5])), [100.0, 75.0], rtol=RTOL_FLOAT
    )


def test_linear_exponent_shortcut_keeps_the_broadcast_shape_and_values() -> None:
    # exponent 1 skips the pow (u ** 1.0 is exactly u); the result must still broadcast against the exponent's shape
    u = np.array([0.0, 0.25, 1.0])
    ones = np.ones((2, 1))
    out = accelerator_power_w(u, 100.0, 500.0, ones)
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out, np.broadcast_to(100.0 + 400.0 * u**1.0, (2, 3)))
    mixed = accelerator_power_w(u, 100.0, 500.0, np.array([[1.0], [2.0]]))
    np.testing.assert_array_equal(mixed[1], 100.0 + 400.0 * u**2.0)


# --------------------------------------------------------------------------- power per rack


@given(
    st.lists(st.tuples(st.floats(0.0, 1e4), st.floats(0.0, 1e4), st.floats(0.5, 24.0)), min_size=1, max_size=6),
    st.integers(1, 500),
)
@settings(max_examples=100, deadline=None)
def test_power_per_rack_times_racks_is_the_fleets_power_and_the_peak_is_at_least_the_mean(points, racks) -> None:
    """Closed form: mean x racks = sum_j P_j h_j / sum_j h_j (the day's mean IT power); peak x racks = max_j peak_j;
    with each point's peak at least its mean, the peak per rack is at least the mean per rack."""
    mean_kw = [m for m, _, _ in points]
    peak_kw = [m + extra for m, extra, _ in points]
    hours = [h for _, _, h in points]
    mean, peak = rack_power_kw(mean_kw, peak_kw, hours, racks)
    day_mean = sum(m * h for m, h in zip(mean_kw, hours, strict=True)) / sum(hours)
    assert mean * racks == pytest.approx(day_mean, rel=RTOL_FLOAT, abs=1e-9)
    assert peak * racks == pytest.approx(max(peak_kw), rel=RTOL_FLOAT)
    assert peak >= mean * (1 - RTOL_FLOAT)
