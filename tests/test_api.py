"""An API system (issue 12, payment models): closed forms through evaluate and the Monte Carlo, bad input."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

import rackcost
from rackcost import ScenarioError
from reference import TWO_SYSTEMS

BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
# the fixture's requests: 1,000 input and 500 output tokens
ISL, OSL = 1000, 500
# sums and products of a few values
RTOL_FLOAT = 1e-12


def with_api(**api) -> dict:
    data = copy.deepcopy(BASE)
    data.pop("figures", None)
    prices = {"usd_per_million_input_tokens": 0.55, "usd_per_million_output_tokens": 2.19} | api
    data["systems"].append({"name": "API", "provenance": {"class": "vendor", "source": "a price list"}, "api": prices})
    return data


def rows(result: rackcost.Result, system: str) -> list[dict]:
    return [r for r in result.records["points"] if r["system"] == system]


def test_api_cost_per_request_is_its_tokens_at_the_prices() -> None:
    # (ISL x p_in + OSL x p_out) / 1e6 = (1,000 x 0.55 + 500 x 2.19) / 1e6 = $0.001645 per request
    result = rackcost.evaluate(rackcost.scenario_from_dict(with_api()))
    for r in rows(result, "API"):
        assert r["accepted_rps"] == r["offered_rps"] and r["rejected_rps"] == 0.0
        assert r["usd_per_accepted_request"] == pytest.approx(0.001645, rel=RTOL_FLOAT)
        assert r["api_usd_per_hour"] == pytest.approx(0.001645 * r["offered_rps"] * 3600, rel=RTOL_FLOAT)
        assert r["usd_per_million_accepted_output_tokens"] == pytest.approx(0.001645 / OSL * 1e6, rel=RTOL_FLOAT)
        assert r["usd_per_million_accepted_total_tokens"] == pytest.approx(0.001645 / 1500 * 1e6, rel=RTOL_FLOAT)
        # no fleet: no power, racks or latency of its own
        assert (r["racks"], r["facility_power_kw"], r["ttft_p99_ms"]) == (0, 0.0, None)
    (system,) = [s for s in result.records["systems"] if s["system"] == "API"]
    assert system["payment"] == "api"
    assert system["blended_usd_per_accepted_request"] == pytest.approx(0.001645, rel=RTOL_FLOAT)


def test_cached_input_tokens_are_priced_at_the_cache_price() -> None:
    # 40% of input tokens at $0.14: input price (0.6 x 0.55 + 0.4 x 0.14) = 0.386 per M
    data = with_api(usd_per_million_cached_input_tokens=0.14, cached_input_fraction=0.4)
    r = rows(rackcost.evaluate(rackcost.scenario_from_dict(data)), "API")[0]
    assert r["usd_per_accepted_request"] == pytest.approx((ISL * 0.386 + OSL * 2.19) / 1e6, rel=RTOL_FLOAT)


def test_a_rate_limit_refuses_the_excess() -> None:
    # the fixture's demand is 5 / 12 / 20 requests/s: a limit of 10 refuses 2 at normal and 10 at peak
    result = rackcost.evaluate(rackcost.scenario_from_dict(with_api(rate_limit_rps=10)))
    points = rows(result, "API")
    assert [r["accepted_rps"] for r in points] == [5.0, 10.0, 10.0]
    assert [r["rejected_rps"] for r in points] == [0.0, 2.0, 10.0]
    assert points[2]["status"].startswith("rate limited")
    assert all(r["accepted_rps"] <= r["offered_rps"] for r in points)


def test_the_monte_carlo_samples_api_prices_and_demand() -> None:
    data = with_api()
    data["systems"][2]["api"]["usd_per_million_output_tokens"] = {"dist": "uniform", "low": 1.0, "high": 3.0}
    scenario = rackcost.scenario_from_dict(data)
    u = rackcost.uncertainty(scenario, samples=2000, seed=1, workers=1)
    price = u.samples["inputs"]["systems[2].api.usd_per_million_output_tokens"]
    cost = u.samples["API"]["blended_usd_per_accepted_request@system"]
    np.testing.assert_allclose(cost, (ISL * 0.55 + OSL * price) / 1e6, rtol=RTOL_FLOAT)
    # and the API against an owned system, break-even on its output price, checked by evaluating at it
    be = rackcost.breakeven(scenario, "systems[2].api.usd_per_million_output_tokens", system="API", low=0.01, high=50.0)
    assert be.value is not None
    data["systems"][2]["api"]["usd_per_million_output_tokens"] = be.value
    blended = {
        s["system"]: s["blended_usd_per_accepted_request"]
        for s in rackcost.evaluate(rackcost.scenario_from_dict(data)).records["systems"]
    }
    assert blended["API"] == pytest.approx(blended["A"], rel=1e-6)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            lambda s: s.update(hardware=copy.deepcopy(BASE["systems"][0]["hardware"])),
            "an API system has prices, not hardware",
        ),
        (lambda s: s["api"].update(usd_per_million_output_tokens=-1), "must be >= 0"),
        (lambda s: s["api"].update(cached_input_fraction=0.5), "needs usd_per_million_cached_input_tokens"),
        (lambda s: s.pop("api"), "needs performance and hardware"),
    ],
)
def test_bad_api_systems_are_refused_at_their_path(change, says) -> None:
    data = with_api()
    change(data["systems"][2])
    with pytest.raises(ScenarioError) as exc:
        rackcost.scenario_from_dict(data, "api.yaml")
    assert any(says in p.message and p.path.startswith("systems[2]") for p in exc.value.problems), exc.value


def test_the_bundled_own_rent_api_scenario_prints_the_ways_side_by_side() -> None:
    result = rackcost.evaluate(
        rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml"))
    )
    assert [s["payment"] for s in result.records["systems"]] == ["own", "rent reserved", "rent on_demand", "api"]
    # DeepSeek's published prices: 8,192 x $0.55 + 1,024 x $2.19 per million = $0.00674816 a request
    api = [s for s in result.records["systems"] if s["payment"] == "api"][0]
    assert api["blended_usd_per_accepted_request"] == pytest.approx(0.00674816, rel=RTOL_FLOAT)


def test_revenue_margin_and_payback_are_their_closed_forms() -> None:
    data = with_api()
    data["revenue"] = {"usd_per_million_input_tokens": 1.0, "usd_per_million_output_tokens": 4.0}
    result = rackcost.evaluate(rackcost.scenario_from_dict(data))
    per_request = (ISL * 1.0 + OSL * 4.0) / 1e6  # $0.003 a request
    for p in result.records["points"]:
        assert p["revenue_usd_per_hour"] == pytest.approx(p["accepted_rps"] * 3600 * per_request, rel=RTOL_FLOAT)
        assert p["margin_usd_per_hour"] == pytest.approx(p["revenue_usd_per_hour"] - p["total_usd_per_hour"])
    hours = {d["name"]: d["hours_per_day"] for d in data["demand"]}
    for s in result.records["systems"]:
        points = [p for p in result.records["points"] if p["system"] == s["system"]]
        revenue = sum(p["revenue_usd_per_hour"] * hours[p["demand_point"]] for p in points)
        assert s["revenue_usd_per_day"] == pytest.approx(revenue, rel=RTOL_FLOAT)
        assert s["margin_usd_per_year"] == pytest.approx((revenue - s["usd_per_day"]) * 365, rel=RTOL_FLOAT)
        if s["payment"] == "own":
            cash = sum((p["total_usd_per_hour"] - p["capital_usd_per_hour"]) * hours[p["demand_point"]] for p in points)
            assert s["payback_years"] == pytest.approx(s["capex_usd"] / ((revenue - cash) * 365), rel=RTOL_FLOAT)
        else:
            assert s["payback_years"] is None  # nothing bought: nothing to pay back
    # without a revenue block the columns are not there
    plain = rackcost.evaluate(rackcost.scenario_from_dict(with_api()))
    assert "revenue_usd_per_hour" not in plain.records["points"][0]
