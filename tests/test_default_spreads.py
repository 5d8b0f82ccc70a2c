"""Default spreads (rackcost.analysis.default_spreads, docs/uncertainty.md "Default spreads"): each input a scenario
gives as a plain number is drawn from a spread chosen from its provenance and the model's fitted errors; against
closed forms, with the scenario's own distributions winning."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

import rackcost
from rackcost.analysis.default_spreads import (
    INTERPOLATION_MAPE,
    MAPE_TO_SIGMA,
    PROVENANCE_SIGMA,
    LogSpread,
    default_spreads,
    provenance_of,
    spreads_for,
)
from rackcost.analysis.montecarlo import draw_samples, evaluate_samples
from rackcost.model.energy.power_law import fit_for
from rackcost.scenario.yaml_paths import lookup
from two_systems import two_systems_scenario as scenario

ROOT = Path(__file__).resolve().parents[1]
PRICE = "facility.electricity_usd_per_kwh"


# ------------------------------------------------------------------------------------------- the spread's shape


@pytest.mark.parametrize("sigma", [0.05, 0.1, 0.3, 1.0])
def test_a_log_spread_is_the_lognormal_of_its_value(sigma: float) -> None:
    """Closed form: the lognormal of median v and log-sd s has the q-quantile v exp(s ndtri(q)): the median is v,
    P95 / v = v / P5 = exp(1.6449 s)."""
    spread = LogSpread(0.081, sigma)
    q = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
    np.testing.assert_allclose(spread.ppf(q), 0.081 * np.exp(sigma * ndtri(q)), rtol=1e-12)
    assert spread.central == 0.081 and spread.ppf(0.5) == pytest.approx(0.081, rel=1e-15)


def test_a_log_spread_stays_inside_its_field_and_keeps_its_median() -> None:
    """A PUE (at least 1) spreads in its overhead, a fraction (at most 1) in its shortfall: every draw inside."""
    pue = LogSpread(1.15, 0.3, low=1.0)
    np.testing.assert_allclose(pue.ppf([0.05, 0.5, 0.95]), 1 + 0.15 * np.exp(0.3 * ndtri([0.05, 0.5, 0.95])))
    availability = LogSpread(0.97, 0.3, low=0.01, high=1.0)
    draws = availability.ppf(np.linspace(0, 1, 10_001))
    assert draws.min() > 0.01 and draws.max() < 1.0
    assert availability.ppf(0.5) == pytest.approx(0.97, rel=1e-12)
    low, high = availability.support()
    assert 0.01 < low < 0.97 < high < 1.0


@settings(max_examples=40, deadline=None)
@given(
    st.floats(0.01, 1.0),
    st.floats(1.0, 3.0),
    st.floats(0.001, 0.999),
    st.sampled_from([(0.0, math.inf), (1.0, math.inf), (0.0, 1.0)]),
)
def test_a_wider_spread_moves_every_quantile_away_from_the_value(sigma, factor, q, bounds) -> None:
    """Each quantile of the spread is monotone in sigma (exp and expit are increasing): widening never narrows."""
    low, high = bounds
    value = 0.5 if high == 1.0 else low + 0.2
    narrow, wide = LogSpread(value, sigma, low, high).ppf(q), LogSpread(value, sigma * factor, low, high).ppf(q)
    if q > 0.5:
        assert wide >= narrow >= value - 1e-12
    else:
        assert wide <= narrow <= value + 1e-12


def test_widening_the_spreads_never_narrows_the_blended_cost_interval() -> None:
    """The model's response: the blended cost per accepted request rises with the electricity price (the fleet is
    sized without it, the energy cost is kWh x price), so its P5-P95 under a price spread is the cost at the
    price's P5 and P95 (a monotone map keeps order statistics); a wider spread of the same seeded uniforms has
    lower P5 and higher P95 prices, so the cost interval contains the narrower one."""
    sc = scenario()
    u = np.random.default_rng(3).random(4_000)
    intervals = []
    for sigma in (0.05, 0.1, 0.2, 0.4):
        values = {PRICE: LogSpread(0.10, sigma).ppf(u)}
        cost = evaluate_samples(sc, values, u.size)["A"]["blended_usd_per_accepted_request@system"]
        intervals.append(np.percentile(cost, [5, 95]))
    for (lo1, hi1), (lo2, hi2) in zip(intervals, intervals[1:], strict=False):
        assert lo2 <= lo1 and hi2 >= hi1 and hi2 - lo2 > hi1 - lo1


# ------------------------------------------------------------------------------------------- what gets a default


def test_every_given_input_gets_a_default_from_its_provenance() -> None:
    """System A is independent, B vendor; the facility and demand carry no label: assumption. An input at a bound
    of its field (none here) or left at the schema's default has none."""
    sc = scenario()
    spreads = default_spreads(sc)
    data = sc.model_dump()
    for path, spread in spreads.items():  # centred on the figure: rackcost evaluate's numbers are unchanged
        assert spread.central == (lookup(data, path) if "power_exponent" not in path else fit_for(None).exponent)
    assert spreads["facility.pue"].basis == "assumption"
    assert spreads["facility.pue"].distribution.sigma == PROVENANCE_SIGMA["assumption"]
    assert spreads["systems[0].costs.capex_usd_per_node"].basis == "independent"
    plain = default_spreads(sc, interpolation=False)  # (with the fitted errors, the busy power adds the law's)
    assert plain["systems[1].hardware.accelerator_busy_w"].distribution.sigma == PROVENANCE_SIGMA["vendor"]
    assert "fleet.replica_availability_fraction" not in spreads  # not given: the schema's 1.0, a bound anyway
    assert "systems[1].costs.maintenance_fraction_per_year" not in spreads  # not given
    assert not any(path.startswith("uncertainty.") for path in spreads)


def test_the_fitted_errors_widen_the_curve_points_and_spread_the_law_exponent() -> None:
    """A measured throughput between other points carries the interpolation's error in quadrature with its
    provenance spread (independent lognormal errors: log-variances add); the law's exponent its per-curve range."""
    spreads = default_spreads(scenario())
    point = spreads["systems[0].performance.points[1].throughput_tokens_per_s"]
    error = MAPE_TO_SIGMA * INTERPOLATION_MAPE["throughput_tokens_per_s"]
    assert point.distribution.sigma == pytest.approx(math.hypot(PROVENANCE_SIGMA["independent"], error))
    assert point.basis == "independent + interpolation"
    law = spreads["systems[0].hardware.power_exponent"].distribution
    fit = fit_for(None)
    assert (law.low, law.mode, law.high) == (fit.exponent_low, fit.exponent, fit.exponent_high)
    without = default_spreads(scenario(), interpolation=False)
    assert without["systems[0].performance.points[1].throughput_tokens_per_s"].distribution.sigma == 0.1
    assert "systems[0].hardware.power_exponent" not in without


def test_the_busy_power_the_fitted_law_is_anchored_at_carries_the_laws_held_out_error() -> None:
    """A busy figure read as the fitted law's anchor is one measured point: measured points scatter about the law's
    fitted anchor by its held-out error (generic fit here: no accelerator named), added in quadrature to the
    figure's provenance spread. Not where the system gives its own exponent or the fleet one, nor where every
    point of the curve measures power (the busy figure is then not the anchor)."""
    sc = scenario()
    law = fit_for(None)
    busy = default_spreads(sc)["systems[1].hardware.accelerator_busy_w"]
    assert busy.basis == "vendor + law residual" and f"{law.mape_held_out:.2%}" in busy.source
    expected = math.hypot(PROVENANCE_SIGMA["vendor"], MAPE_TO_SIGMA * law.mape_held_out)
    assert busy.distribution.sigma == pytest.approx(expected, rel=1e-12)
    data = sc.model_dump(exclude_unset=True)
    data["systems"][1]["hardware"]["power_exponent"] = 0.5
    assert default_spreads(rackcost.scenario_from_dict(data))["systems[1].hardware.accelerator_busy_w"].basis == (
        "vendor"
    )
    data["systems"][1]["hardware"].pop("power_exponent")
    data["fleet"]["power_utilization_exponent"] = 1.0
    assert default_spreads(rackcost.scenario_from_dict(data))["systems[1].hardware.accelerator_busy_w"].basis == (
        "vendor"
    )
    measured = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-b200-measured-power.yaml"))
    assert not any(s.basis.endswith("law residual") for s in default_spreads(measured).values())


def test_the_lognormal_error_of_a_measured_mape() -> None:
    """E|exp(s Z) - 1| = exp(s^2/2) (2 Phi(s) - 1) + ... ~ s sqrt(2/pi) for small s: check by quadrature that the
    sigma chosen from the interpolation's 9.89% gives that mean absolute error within 3% of it."""
    sigma = MAPE_TO_SIGMA * INTERPOLATION_MAPE["throughput_tokens_per_s"]
    z = ndtri((np.arange(200_000) + 0.5) / 200_000)
    assert np.mean(np.abs(np.exp(sigma * z) - 1.0)) == pytest.approx(0.0989, rel=0.03)


def test_provenance_is_the_longest_figures_key_then_the_system() -> None:
    def label(data: dict) -> None:
        data["figures"] = {
            "systems[0].hardware": {"provenance": "vendor", "source": "datasheet"},
            "systems[0].hardware.accelerator_idle_w": {"provenance": "assumption", "source": "x", "why": "y"},
            "facility.pue": {"provenance": "independent", "source": "survey"},
        }

    sc = scenario(label)
    assert provenance_of(sc, "systems[0].hardware.accelerator_busy_w") == "vendor"
    assert provenance_of(sc, "systems[0].hardware.accelerator_idle_w") == "assumption"
    assert provenance_of(sc, "systems[0].costs.capex_usd_per_node") == "independent"  # the system's class
    assert provenance_of(sc, "facility.pue") == "independent"
    assert provenance_of(sc, "facility.electricity_usd_per_kwh") is None
    spreads = default_spreads(sc)
    assert spreads["facility.pue"].distribution.sigma == 0.1
    assert "no provenance given" in spreads[PRICE].source


def test_the_cited_figures_are_those_of_the_docs() -> None:
    """The interpolation's errors are docs/validation.md's overall row of the bundled scenarios, and each class's
    width is the one docs/uncertainty.md's table gives: the citation cannot drift from the constant."""
    validation = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    row = re.search(r"^\| bundled scenarios \| \d+ distinct curves \|.*$", validation, re.M).group(0).split(" | ")
    assert row[4] == f"{INTERPOLATION_MAPE['throughput_tokens_per_s']:.2%}"
    assert row[10] == f"{INTERPOLATION_MAPE['power_w_per_accelerator']:.2%}"
    for family in ("B200", "H100"):
        assert f"{fit_for(family).mape_held_out:.1%}" in validation
    doc = (ROOT / "docs" / "uncertainty.md").read_text(encoding="utf-8")
    for cls, sigma in PROVENANCE_SIGMA.items():
        assert re.search(rf"^\| {cls} \| {sigma:g} \|", doc, re.M), cls
    # the power law's rows: the exponents' triangulars and the held-out errors (and their log-sd) the code draws
    (law_row,) = re.findall(r"^\| power law \|.*$", doc, re.M)
    (residual_row,) = re.findall(r"^\| \+ law residual \|.*$", doc, re.M)
    for family, law in (("B200", fit_for("B200")), ("H100", fit_for("H100")), ("other", fit_for(None))):
        assert f"{family} {law.exponent_low:g} / {law.exponent:.4g} / {law.exponent_high:.3g}" in law_row, family
        assert f"{family} {law.mape_held_out:.2%} (log-sd {MAPE_TO_SIGMA * law.mape_held_out:.3f})" in residual_row


# ------------------------------------------------------------------------------------------- in the Monte Carlo


def test_a_scenario_without_distributions_is_sampled_from_its_defaults() -> None:
    """Before: no distribution, nothing drawn (every sample the same). Now the blended cost spreads, its median
    near the central cost, and each default is reported with its source."""
    sc = scenario()
    assert sc.distributions == {}
    result = rackcost.uncertainty(sc, 3_000, seed=2)
    assert {r["input"] for r in result.default_spreads} == set(default_spreads(sc))
    assert all(r["source"] and r["p5"] < r["value"] < r["p95"] for r in result.default_spreads)
    row = next(r for r in result.percentiles if (r["system"], r["column"]) == ("A", "blended_usd_per_accepted_request"))
    central = rackcost.evaluate(sc).records["systems"][0]["blended_usd_per_accepted_request"]
    assert row["p5"] < central < row["p95"]
    assert result.central["A"] == pytest.approx(central, rel=1e-9)


def test_the_same_seed_gives_the_same_numbers() -> None:
    sc = scenario()
    one, two = rackcost.uncertainty(sc, 500, seed=7), rackcost.uncertainty(sc, 500, seed=7)
    assert one.percentiles == two.percentiles and one.pairs == two.pairs
    for path, values in one.samples["inputs"].items():
        np.testing.assert_array_equal(values, two.samples["inputs"][path])
    other = rackcost.uncertainty(sc, 500, seed=8)
    assert not np.array_equal(one.samples["inputs"][PRICE], other.samples["inputs"][PRICE])


def test_a_distribution_in_the_yaml_overrides_the_default() -> None:
    """The file's distribution wins at its path; its draws are the same with or without the defaults (each input
    has its own stream); and a scenario with distributions draws only them unless defaults are asked for."""

    def pue(data: dict) -> None:
        data["facility"]["pue"] = {"dist": "uniform", "low": 1.1, "high": 1.3}

    sc = scenario(pue)
    assert "facility.pue" not in default_spreads(sc)
    assert spreads_for(sc, None) == {} and spreads_for(sc, False) == {}
    mixed = draw_samples(sc, 1_000, 5, spreads_for(sc, True))
    alone = draw_samples(sc, 1_000, 5)
    np.testing.assert_array_equal(mixed["facility.pue"], alone["facility.pue"])
    assert mixed["facility.pue"].min() >= 1.1 and mixed["facility.pue"].max() <= 1.3
    assert set(alone) == {"facility.pue"} and PRICE in mixed
    kept = rackcost.uncertainty(sc, 300, seed=1)
    assert kept.default_spreads == [] and kept.distributions == ["facility.pue"]
    assert kept.percentiles == rackcost.uncertainty(sc, 300, seed=1, default_spreads=False).percentiles
    both = rackcost.uncertainty(sc, 300, seed=1, default_spreads=True)
    assert both.distributions == ["facility.pue"] and PRICE in {r["input"] for r in both.default_spreads}
    assert rackcost.uncertainty(scenario(), 300, seed=1, default_spreads=False).default_spreads == []


def test_every_bundled_scenario_without_distributions_gets_a_spread() -> None:
    for path in rackcost.bundled_scenarios():
        sc = rackcost.load_scenario(path)
        if sc.distributions:
            continue
        spreads = default_spreads(sc)
        assert spreads, path.name
        for spread in spreads.values():
            low, high = spread.support()
            assert low <= spread.central <= high, spread.path
