"""Distributions a scenario input may take (rackcost.scenario.distributions) and their validation in the schema.

Oracles: the triangular quantile in closed form, and scipy.stats (triang, uniform, norm, truncnorm, lognorm), an
implementation independent of the library's own (which uses scipy.special.ndtri and its own formulas).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml
from pydantic import ValidationError
from scipy import stats

import rackcost
from rackcost.scenario.distributions import Choice, LogNormal, Normal, Triangular, Uniform
from reference import TWO_SYSTEMS

BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
QS = np.array([0.0, 0.001, 0.01, 0.05, 0.2, 0.25, 0.5, 0.6, 0.75, 0.95, 0.99, 0.999, 1.0])
INNER = QS[(QS > 0) & (QS < 1)]


def triangular_quantile(q: float, a: float, c: float, b: float) -> float:
    """Inverse CDF of the triangular distribution on [a, b] with mode c (closed form).

    Source: Johnson, Kotz & Balakrishnan, Continuous Univariate Distributions vol. 2 (1995), ch. 26; the same form
    as Wikipedia "Triangular distribution", section "Generating triangular-distributed random variates":
    F^-1(q) = a + sqrt(q (b-a)(c-a)) for q < (c-a)/(b-a), else b - sqrt((1-q)(b-a)(b-c)).
    """
    if q < (c - a) / (b - a):
        return a + ((b - a) * (c - a) * q) ** 0.5
    return b - ((b - a) * (b - c) * (1 - q)) ** 0.5


# ---------------------------------------------------------------------------------------------------- central


@pytest.mark.parametrize(
    ("dist", "central"),
    [
        (Triangular(dist="triangular", low=1, mode=2, high=5), 2.0),  # the mode
        (Uniform(dist="uniform", low=1, high=5), 3.0),  # the midpoint
        (Normal(dist="normal", mean=4, sd=1), 4.0),  # the mean
        (Normal(dist="normal", mean=4, sd=3, truncate_at_zero=True), 4.0),  # the untruncated mean, as documented
        (LogNormal(dist="lognormal", median=7, sigma=0.5), 7.0),  # the median
        (Choice(dist="choice", values=[1, 2, 3], weights=[0.2, 0.5, 0.3]), 2.0),  # the most likely value
        (Choice(dist="choice", values=[3, 1, 2]), 3.0),  # equal weights: the first
        (Choice(dist="choice", values=[9.5]), 9.5),
    ],
)
def test_central_value(dist, central: float) -> None:
    assert dist.central == central


# ---------------------------------------------------------------------------------------------------- ppf


@pytest.mark.parametrize(("low", "mode", "high"), [(1.0, 2.0, 5.0), (0.0, 0.0, 1.0), (0.0, 1.0, 1.0), (-3, 0.5, 8)])
def test_triangular_ppf_matches_closed_form_and_scipy(low: float, mode: float, high: float) -> None:
    d = Triangular(dist="triangular", low=low, mode=mode, high=high)
    expected = [triangular_quantile(q, low, mode, high) for q in QS]
    np.testing.assert_allclose(d.ppf(QS), expected, rtol=1e-12, atol=1e-12)
    scipy_ppf = stats.triang(c=(mode - low) / (high - low), loc=low, scale=high - low).ppf(QS)
    np.testing.assert_allclose(d.ppf(QS), scipy_ppf, rtol=1e-10, atol=1e-12)
    assert d.ppf(0.0) == low and d.ppf(1.0) == high
    assert d.support() == (low, high)


def test_uniform_ppf_matches_scipy() -> None:
    d = Uniform(dist="uniform", low=0.06, high=0.17)
    np.testing.assert_allclose(d.ppf(QS), stats.uniform(loc=0.06, scale=0.11).ppf(QS), rtol=1e-14)
    assert d.support() == (0.06, 0.17)


def test_normal_ppf_matches_scipy() -> None:
    d = Normal(dist="normal", mean=600, sd=50)
    np.testing.assert_allclose(d.ppf(INNER), stats.norm(loc=600, scale=50).ppf(INNER), rtol=1e-12)
    assert d.support() == (600 - 6 * 50, 600 + 6 * 50)  # practical support, six standard deviations


@pytest.mark.parametrize(("mean", "sd"), [(1.0, 1.0), (0.5, 2.0), (600.0, 200.0)])
def test_truncated_normal_ppf_matches_scipy_truncnorm(mean: float, sd: float) -> None:
    d = Normal(dist="normal", mean=mean, sd=sd, truncate_at_zero=True)
    oracle = stats.truncnorm(a=(0 - mean) / sd, b=np.inf, loc=mean, scale=sd)
    np.testing.assert_allclose(d.ppf(INNER), oracle.ppf(INNER), rtol=1e-9)
    # truncated at zero: the support starts just above zero (the smallest positive float), so fields that must be
    # > 0 accept it
    assert d.support() == (float(np.nextafter(0.0, 1.0)), mean + 6 * sd)


@pytest.mark.parametrize(("mean", "sd"), [(1.0, 1.0), (0.5, 2.0), (600.0, 200.0)])
def test_truncated_normal_never_goes_below_zero(mean: float, sd: float) -> None:
    # q = 0 maps to the truncation point; rounding in ndtri(ndtr(-mean/sd)) must not push it below zero
    d = Normal(dist="normal", mean=mean, sd=sd, truncate_at_zero=True)
    assert np.all(d.ppf(QS) >= 0), d.ppf(QS)


def test_lognormal_ppf_matches_scipy() -> None:
    d = LogNormal(dist="lognormal", median=18000, sigma=0.5)
    # scipy's lognorm(s, scale): log X ~ N(log scale, s), so scale is the median
    np.testing.assert_allclose(d.ppf(INNER), stats.lognorm(s=0.5, scale=18000).ppf(INNER), rtol=1e-12)
    assert d.ppf(0.5) == pytest.approx(18000, rel=1e-15)
    low, high = d.support()
    assert low == pytest.approx(18000 * np.exp(-3.0)) and high == pytest.approx(18000 * np.exp(3.0))


def test_choice_ppf_is_the_discrete_quantile() -> None:
    # values given unsorted; quantile = smallest value whose cumulative probability reaches q
    d = Choice(dist="choice", values=[3.0, 1.0, 2.0], weights=[0.5, 0.2, 0.3])
    cdf = {1.0: 0.2, 2.0: 0.5, 3.0: 1.0}
    for q in QS:
        expected = min(v for v, c in cdf.items() if c >= q - 1e-15)
        assert d.ppf(q) == expected, q
    assert d.support() == (1.0, 3.0)
    # draws through the quantile function hit each value with its weight
    u = np.random.default_rng(1).random(200_000)
    freq = {v: np.mean(d.ppf(u) == v) for v in (1.0, 2.0, 3.0)}
    # binomial standard error sqrt(p(1-p)/n) <= 0.0012; 5 of them
    assert freq == pytest.approx({1.0: 0.2, 2.0: 0.3, 3.0: 0.5}, abs=0.006)


def test_single_value_choice_is_degenerate() -> None:
    d = Choice(dist="choice", values=[0.1])
    assert np.all(d.ppf(QS) == 0.1) and d.support() == (0.1, 0.1) and d.central == 0.1


def test_distributions_are_frozen_and_strict() -> None:
    with pytest.raises(ValidationError):
        Uniform(dist="uniform", low=0, high=1, mode=0.5)  # extra key
    d = Uniform(dist="uniform", low=0, high=1)
    with pytest.raises(ValidationError):
        d.low = 3  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------------- in a scenario


def _load(mutate) -> rackcost.Scenario:
    data = copy.deepcopy(BASE)
    mutate(data)
    return rackcost.scenario_from_dict(data)


def _problems(mutate) -> list[tuple[str, str]]:
    with pytest.raises(rackcost.ScenarioError) as info:
        _load(mutate)
    return [(p.path, p.message) for p in info.value.problems]


def _price(value):
    return lambda d: d["facility"].update(electricity_usd_per_kwh=value)


def test_a_distribution_is_kept_and_its_central_value_is_in_the_field() -> None:
    s = _load(_price({"dist": "triangular", "low": 0.06, "mode": 0.081, "high": 0.17}))
    assert s.facility.electricity_usd_per_kwh == 0.081
    assert s.distributions == {
        "facility.electricity_usd_per_kwh": Triangular(dist="triangular", low=0.06, mode=0.081, high=0.17)
    }
    s = _load(
        lambda d: d["systems"][1]["costs"].update(
            capex_usd_per_accelerator={"dist": "lognormal", "median": 2e4, "sigma": 0.5}
        )
    )
    assert s.systems[1].costs.capex_usd_per_accelerator == 2e4
    assert list(s.distributions) == ["systems[1].costs.capex_usd_per_accelerator"]


@pytest.mark.parametrize(
    ("value", "path", "says"),
    [
        ({"dist": "triangular", "low": 0.1, "mode": 0.05, "high": 0.2}, "", "low <= mode <= high"),
        ({"dist": "triangular", "low": 0.1, "mode": 0.3, "high": 0.2}, "", "low <= mode <= high"),
        ({"dist": "triangular", "low": 0.1, "mode": 0.1, "high": 0.1}, "", "low < high"),
        ({"dist": "triangular", "low": 0.1, "high": 0.2}, ".mode", "required"),
        ({"dist": "uniform", "low": 0.2, "high": 0.1}, "", "low < high"),
        ({"dist": "uniform", "low": 0.1, "high": 0.1}, "", "low < high"),
        ({"dist": "normal", "mean": 0.1, "sd": 0}, ".sd", "must be > 0"),
        ({"dist": "normal", "mean": 0.1, "sd": -0.01}, ".sd", "must be > 0"),
        ({"dist": "lognormal", "median": 0.1, "sigma": 0}, ".sigma", "must be > 0"),
        ({"dist": "lognormal", "median": -0.1, "sigma": 0.3}, ".median", "must be > 0"),
        ({"dist": "choice", "values": [0.1, 0.2], "weights": [1]}, "", "one weight per value"),
        ({"dist": "choice", "values": [0.1, 0.2], "weights": [0, 0]}, "", "weights must not all be zero"),
        ({"dist": "choice", "values": []}, ".values", "at least 1"),
        ({"dist": "beta", "a": 1, "b": 2}, "", "dist must be one of triangular, uniform, normal, lognormal, choice"),
        ({"dist": "uniform", "low": 0.05, "high": 0.2, "mode": 0.1}, ".mode", "not permitted"),
    ],
)
def test_invalid_distribution_is_a_scenario_error_at_its_yaml_path(value: dict, path: str, says: str) -> None:
    problems = _problems(_price(value))
    assert len(problems) == 1, problems
    where, message = problems[0]
    assert where == "facility.electricity_usd_per_kwh" + path
    assert says.lower() in message.lower(), message


def test_every_bad_distribution_is_reported_at_once() -> None:
    def mutate(d):
        d["facility"]["electricity_usd_per_kwh"] = {"dist": "uniform", "low": 0.2, "high": 0.1}
        d["systems"][0]["costs"]["service_life_years"] = {"dist": "normal", "mean": 5, "sd": 0}

    paths = [p for p, _ in _problems(mutate)]
    assert sorted(paths) == ["facility.electricity_usd_per_kwh", "systems[0].costs.service_life_years.sd"]


@pytest.mark.parametrize(
    ("path", "mutate"),
    [
        ("slo.tpot_limit_ms", lambda d: d["slo"].update(tpot_limit_ms={"dist": "uniform", "low": 40, "high": 60})),
        (
            "workload.output_tokens_per_request",
            lambda d: d["workload"].update(output_tokens_per_request={"dist": "choice", "values": [500, 1000]}),
        ),
        (
            "systems[0].hardware.accelerators_per_replica",
            lambda d: d["systems"][0]["hardware"].update(accelerators_per_replica={"dist": "choice", "values": [8]}),
        ),
        ("demand[0].hours_per_day", lambda d: d["demand"][0].update(hours_per_day={"dist": "choice", "values": [8]})),
    ],
)
def test_distribution_at_a_disallowed_path_names_the_path(path: str, mutate) -> None:
    problems = _problems(mutate)
    assert [p for p, _ in problems] == [path]
    assert "not allowed here" in problems[0][1]


@pytest.mark.parametrize(
    ("path", "mutate", "reaches"),
    [
        # a power that reaches below zero: six standard deviations of a normal
        (
            "systems[0].hardware.accelerator_busy_w",
            lambda d: d["systems"][0]["hardware"].update(accelerator_busy_w={"dist": "normal", "mean": 600, "sd": 200}),
            "-600",
        ),
        ("facility.pue", lambda d: d["facility"].update(pue={"dist": "uniform", "low": 0.9, "high": 1.3}), "0.9"),
        (
            "fleet.replica_availability_fraction",
            lambda d: d["fleet"].update(
                replica_availability_fraction={"dist": "triangular", "low": 0.9, "mode": 0.97, "high": 1.05}
            ),
            "1.05",
        ),
    ],
)
def test_distribution_leaving_the_fields_range_is_an_error(path: str, mutate, reaches: str) -> None:
    problems = _problems(mutate)
    assert [p for p, _ in problems] == [path]
    assert f"reaches {reaches}" in problems[0][1] and "outside the field's range" in problems[0][1]


def test_normal_truncated_at_zero_is_accepted_where_the_field_may_be_zero() -> None:
    # truncation at zero is what makes a normal fit a quantity that cannot be negative (the class docstring): its
    # draws are never below zero, so a field whose range starts at 0 accepts it
    s = _load(
        lambda d: d["systems"][0]["hardware"].update(
            host_w_per_node={"dist": "normal", "mean": 20, "sd": 10, "truncate_at_zero": True}
        )
    )
    assert s.systems[0].hardware.host_w_per_node == 20


def test_normal_truncated_at_zero_is_refused_where_the_range_starts_above_zero() -> None:
    # an arrival rate's range starts at 1e-6 requests/s: draws near zero made the cost per accepted token inf
    problems = _problems(
        lambda d: d["demand"][2].update(arrival_rps={"dist": "normal", "mean": 20, "sd": 10, "truncate_at_zero": True})
    )
    assert [p for p, _ in problems] == ["demand[2].arrival_rps"]
    assert "reaches 4.94066e-324" in problems[0][1] and "must be >= 0.000001" in problems[0][1]


@pytest.mark.parametrize(
    "dist",
    [Normal(dist="normal", mean=1.3, sd=0.05), LogNormal(dist="lognormal", median=1.3, sigma=0.04)],
)
def test_every_draw_lies_inside_the_support(dist: Normal | LogNormal) -> None:
    # the support is what the schema checks against the field's range; the extreme quantiles must not leave it
    # (before, q was clipped at 1e-15, 7.9 sd out: a normal PUE of support [1.0, 1.6] drew 0.90)
    low, high = dist.support()
    draws = dist.ppf(np.array([0.0, 1e-15, 1e-12, 0.5, 1 - 1e-12, 1.0]))
    assert np.all(draws >= low) and np.all(draws <= high)
    assert draws[0] == pytest.approx(low, rel=1e-9) and draws[-1] == pytest.approx(high, rel=1e-9)


@pytest.mark.parametrize(
    "derate",
    [
        {"dist": "uniform", "low": 0.5, "high": 3.0},  # above the field's maximum of 2
        {"dist": "normal", "mean": 0.8, "sd": 0.3},  # six sd below the mean is -1.0: a negative throughput
    ],
)
def test_derate_distribution_leaving_its_range_is_an_error(derate: dict) -> None:
    # uncertainty.throughput_derate values are gt=0, le=2 as plain numbers; a distribution must stay inside too
    problems = _problems(lambda d: d.update(uncertainty={"throughput_derate": {"vendor": derate}}))
    assert [p for p, _ in problems] == ["uncertainty.throughput_derate.vendor"]


def test_derate_distribution_inside_its_range_is_accepted() -> None:
    s = _load(
        lambda d: d.update(
            uncertainty={"throughput_derate": {"vendor": {"dist": "triangular", "low": 0.7, "mode": 0.9, "high": 1}}}
        )
    )
    assert s.uncertainty.throughput_derate == {"vendor": 0.9}
    assert list(s.distributions) == ["uncertainty.throughput_derate.vendor"]


def test_round_trip_through_yaml_keeps_the_distributions() -> None:
    def mutate(d):
        d["facility"]["electricity_usd_per_kwh"] = {"dist": "triangular", "low": 0.06, "mode": 0.081, "high": 0.17}
        d["facility"]["pue"] = {"dist": "uniform", "low": 1.1, "high": 1.3}
        d["demand"][2]["arrival_rps"] = {"dist": "normal", "mean": 20, "sd": 2, "truncate_at_zero": True}
        d["systems"][1]["costs"]["capex_usd_per_accelerator"] = {"dist": "lognormal", "median": 2e4, "sigma": 0.5}
        d["systems"][0]["performance"]["points"][1]["throughput_tokens_per_s"] = {
            "dist": "choice",
            "values": [8000, 9000],
            "weights": [1, 3],
        }
        d["uncertainty"] = {"throughput_derate": {"vendor": {"dist": "triangular", "low": 0.7, "mode": 0.9, "high": 1}}}

    s = _load(mutate)
    assert len(s.distributions) == 6
    text = rackcost.scenario_to_yaml(s)
    back = rackcost.scenario_from_yaml(text)
    assert back == s
    assert back.distributions == s.distributions
    # and the text holds the distribution, not the central value
    assert yaml.safe_load(text)["facility"]["pue"] == {"dist": "uniform", "low": 1.1, "high": 1.3}
    assert rackcost.scenario_to_yaml(back) == text
