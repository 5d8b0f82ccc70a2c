"""Tests for rackcost.model.costs.finance: capital recovery, capex, fixed opex and energy (DESIGN.md step 8)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackcost.model.costs.finance import (
    HOURS_PER_YEAR,
    capital_recovery_factor,
    capital_usd_per_hour,
    energy_usd_per_hour,
    fixed_opex_usd_per_hour,
    fleet_capex_usd,
)
from reference import crf

SETTINGS = settings(max_examples=150, deadline=None)

# Rounding of a well-conditioned closed form costs a few ulps; 1e-12 leaves three orders of headroom.
RTOL_FLOAT = 1e-12


# --------------------------------------------------------------------------- capital recovery factor


@pytest.mark.parametrize("life", [0.5, 1.0, 3.0, 5.0, 7.5, 10.0, 30.0])
def test_crf_at_zero_rate_is_one_over_life(life: float) -> None:
    # Closed form: lim_{r->0} r(1+r)^n/((1+r)^n - 1) = 1/n (straight-line repayment, no interest).
    assert float(capital_recovery_factor(0.0, life)) == pytest.approx(1.0 / life, rel=RTOL_FLOAT)


@pytest.mark.parametrize(
    ("rate", "life", "table_value"),
    [
        # Standard compound-interest tables, A/P factor (e.g. Grant, Ireson & Leavenworth, Principles of
        # Engineering Economy, 8th ed., Appendix D): 10 %, 10 years -> 0.16275 (0.162745 to six places);
        (0.10, 10.0, 0.162745),
        # 8 %, 5 years -> 0.25046 (0.250456 to six places);
        (0.08, 5.0, 0.250456),
        # 8 %, 15 years -> 0.11683; 5 %, 20 years -> 0.08024.
        (0.08, 15.0, 0.116830),
        (0.05, 20.0, 0.080243),
    ],
)
def test_crf_published_table_values(rate: float, life: float, table_value: float) -> None:
    # The table values are rounded to 6 decimals, so agreement to 5e-7 absolute is all they can show.
    assert float(capital_recovery_factor(rate, life)) == pytest.approx(table_value, abs=5e-7)


def test_crf_one_year_life_is_one_plus_rate() -> None:
    # Closed form: with n = 1 the single payment repays principal and one year of interest: A/P = 1 + r.
    rates = np.array([0.0, 0.03, 0.1, 0.5, 1.0])
    np.testing.assert_allclose(capital_recovery_factor(rates, 1.0), 1.0 + rates, rtol=RTOL_FLOAT)


def test_crf_small_rate_matches_taylor_expansion() -> None:
    # Closed form near r = 0: A/P = 1/n + r (n + 1) / (2 n) + O(r^2) (expand (1+r)^n to second order).
    # With r <= 1e-9 the O(r^2) term is below 1e-18, so the two-term series is exact to double precision and
    # any finite-precision implementation should agree to ~1e-12. Rates this small are valid inputs
    # (costs.cost_of_capital_fraction: ge=0), e.g. a scenario that writes 1e-12 to mean "essentially free".
    life = 5.0
    for rate in [1e-9, 1e-12, 1e-15, 1e-18, 1e-300]:
        expected = 1.0 / life + rate * (life + 1.0) / (2.0 * life)
        with np.errstate(all="raise"):  # a division by zero would be a bug, not a warning to ignore
            got = float(capital_recovery_factor(rate, life))
        assert got == pytest.approx(expected, rel=RTOL_FLOAT), f"rate={rate:g}"


def test_crf_vectorised_broadcasting() -> None:
    rates = np.array([0.0, 0.05, 0.10])[:, None]
    lives = np.array([1.0, 5.0, 10.0, 20.0])[None, :]
    got = capital_recovery_factor(rates, lives)
    assert got.shape == (3, 4)
    expected = np.array([[crf(float(r), float(n)) for n in lives[0]] for r in rates[:, 0]])
    np.testing.assert_allclose(got, expected, rtol=RTOL_FLOAT)


@pytest.mark.parametrize(("rate", "life"), [(-0.01, 5.0), (0.05, 0.0), (0.05, -3.0), ([0.05, -0.1], 5.0)])
def test_crf_rejects_negative_rate_and_non_positive_life(rate: object, life: float) -> None:
    with pytest.raises(ValueError, match="rate_fraction must be finite and >= 0 and life_years finite and > 0"):
        capital_recovery_factor(rate, life)


# Rates span the whole valid domain [0, 1] (schema: cost_of_capital_fraction ge=0, le=1), tiny ones included.
rates = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
lives = st.floats(min_value=0.25, max_value=100.0, allow_nan=False)

# A/P is smooth in r and n with condition number O(1); an implementation that keeps double precision agrees
# with the ordering of exact values to ~1e-15. 1e-9 absorbs rounding between nearly equal inputs while still
# catching a real inversion or a cancellation error (which reaches eps/(n r), e.g. 4e-5 at r = 1e-12).
MONOTONE_RTOL = 1e-9


@SETTINGS
@given(rates, rates, lives)
def test_property_higher_rate_never_lowers_crf(r1: float, r2: float, life: float) -> None:
    lo, hi = sorted((r1, r2))
    with np.errstate(all="raise"):
        crf_lo = float(capital_recovery_factor(lo, life))
        crf_hi = float(capital_recovery_factor(hi, life))
    assert np.isfinite(crf_lo) and np.isfinite(crf_hi)
    assert crf_hi >= crf_lo * (1.0 - MONOTONE_RTOL)


# Rates either 0 or >= 1e-4 here: the small-rate regime is the subject of test_crf_small_rate_matches_taylor
# and test_property_higher_rate_never_lowers_crf; this property isolates the dependence on life.
rates_not_tiny = st.one_of(st.just(0.0), st.floats(min_value=1e-4, max_value=1.0))


@SETTINGS
@given(rates_not_tiny, lives, lives)
def test_property_longer_life_never_raises_crf(rate: float, n1: float, n2: float) -> None:
    short, long = sorted((n1, n2))
    crf_short = float(capital_recovery_factor(rate, short))
    crf_long = float(capital_recovery_factor(rate, long))
    assert crf_long <= crf_short * (1.0 + MONOTONE_RTOL)
    # and it never drops below the interest alone, r (a perpetuity's annuity), nor below 1/n.
    assert crf_long >= rate * (1.0 - MONOTONE_RTOL)
    assert crf_long >= (1.0 / long) * (1.0 - MONOTONE_RTOL)


@SETTINGS
@given(rates_not_tiny, lives)
def test_property_crf_matches_reference(rate: float, life: float) -> None:
    # Relative error of the textbook form is ~eps/(n r) <= 2e-16/(0.25 * 1e-4) ~ 1e-11 at the smallest rates.
    assert float(capital_recovery_factor(rate, life)) == pytest.approx(crf(rate, life), rel=1e-10)


# --------------------------------------------------------------------------- capex, opex, energy


def test_fleet_capex_hand_arithmetic() -> None:
    # 24 accelerators x $30k + 3 nodes x $60k + 1 rack x $10k = 720k + 180k + 10k = $910,000 of hardware;
    # networking 10 % and installation 5 % of hardware on top: 910,000 x 1.15 = $1,046,500.
    got = float(fleet_capex_usd(24, 3, 1, 30_000.0, 60_000.0, 10_000.0, 0.10, 0.05))
    assert got == pytest.approx(1_046_500.0, rel=RTOL_FLOAT)


def test_fleet_capex_without_shares_is_hardware_only_and_vectorised() -> None:
    got = fleet_capex_usd(np.array([8, 16]), np.array([1, 2]), np.array([1, 1]), 30_000.0, 60_000.0, 0.0)
    np.testing.assert_allclose(got, [8 * 30_000 + 60_000, 16 * 30_000 + 2 * 60_000], rtol=RTOL_FLOAT)


def test_capital_per_hour_hand_arithmetic() -> None:
    # $600,000 at 8 %, 5 years: 600,000 x 0.250456 (A/P table) / 8760 h = $17.1545/h.
    # 5e-6 relative: the table factor carries six significant digits.
    assert HOURS_PER_YEAR == 8760.0  # 365 days x 24 h
    assert float(capital_usd_per_hour(600_000.0, 0.08, 5.0)) == pytest.approx(600_000.0 * 0.250456 / 8760.0, rel=5e-6)
    # r = 0: straight line, $876,000 over 10 years = $87,600/year = $10/h exactly.
    assert float(capital_usd_per_hour(876_000.0, 0.0, 10.0)) == pytest.approx(10.0, rel=RTOL_FLOAT)


def test_fixed_opex_hand_arithmetic() -> None:
    # maintenance: 5 % of $1,000,000 capex            =  50,000 $/year
    # software: 24 accelerators x $1,000/year          =  24,000 $/year
    # operations: 2 racks x $50,000/year                = 100,000 $/year
    # colocation: 22.3 kW x $150/kW-month x 12 months   =  40,140 $/year
    # facility build: 22.3 kW x $10,000/kW x A/P(8 %, 15 y) = 223,000 x 0.116830 (table) = 26,053.09 $/year
    per_year = 50_000.0 + 24_000.0 + 100_000.0 + 40_140.0 + 223_000.0 * 0.116830
    got = float(fixed_opex_usd_per_hour(1_000_000.0, 0.05, 24, 1_000.0, 2, 50_000.0, 22.3, 150.0, 10_000.0, 0.08, 15.0))
    # The A/P table value has six significant digits and contributes 11 % of the total: 1e-6 relative covers it.
    assert got == pytest.approx(per_year / 8760.0, rel=1e-6)


_OPEX_ARGS = ("capex", "maint", "acc", "sw", "racks", "ops", "kw", "colo", "build", "rate", "life")


def _opex_alone(**given: float) -> float:
    """fixed_opex_usd_per_hour with every input 0 (life 15 years) except those given."""
    values = {name: 0.0 for name in _OPEX_ARGS} | {"life": 15.0} | given
    return float(fixed_opex_usd_per_hour(*(values[name] for name in _OPEX_ARGS)))


def test_fixed_opex_each_term_alone() -> None:
    # Each term is linear in its inputs, so a term alone is its own hand formula divided by 8760 h.
    assert _opex_alone(capex=876_000.0, maint=0.1) == pytest.approx(10.0, rel=RTOL_FLOAT)  # 87,600 $/year
    assert _opex_alone(acc=100, sw=876.0) == pytest.approx(10.0, rel=RTOL_FLOAT)  # 100 x 876 $/year
    assert _opex_alone(racks=2, ops=43_800.0) == pytest.approx(10.0, rel=RTOL_FLOAT)  # 2 x 43,800 $/year
    # colocation: 73 kW x $100/kW-month x 12 = 87,600 $/year = $10/h
    assert _opex_alone(kw=73.0, colo=100.0) == pytest.approx(10.0, rel=RTOL_FLOAT)
    # build at r = 0: straight line over 15 years: 876 kW x $150/kW / 15 years = 8,760 $/year = $1/h.
    assert _opex_alone(kw=876.0, build=150.0, rate=0.0) == pytest.approx(1.0, rel=RTOL_FLOAT)


def test_energy_per_hour_hand_arithmetic() -> None:
    # 19.1 kW at the wall for one hour is 19.1 kWh; at $0.10/kWh that is $1.91.
    assert float(energy_usd_per_hour(19.1, 0.10)) == pytest.approx(1.91, rel=RTOL_FLOAT)
    np.testing.assert_allclose(energy_usd_per_hour(np.array([0.0, 100.0]), 0.08), [0.0, 8.0], rtol=RTOL_FLOAT)
