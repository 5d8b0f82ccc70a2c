"""The scenario's ``finance`` block: the service life and cost of capital every owned system shares unless its own
``costs`` give them (rackcost.scenario.hardware_blocks ``Finance``, ``finance_term``, ``finance_problems``; read by
rackcost.scenario.unpack, the horizon's and the plan's discount rate, and the dashboard's system edits).

Set once or set on every system, the terms are the same numbers, so the results must be equal bit for bit; a
system's own term wins over the scenario's; a distribution on a scenario-wide term is one draw shared by every
system that inherits it (the buyer has one cost of capital), not one per system.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.errors import ScenarioError
from rackcost.evaluation.horizon import _discount_rate
from rackcost.scenario.system_edits import required_fields
from rackcost.scenario.unpack import sampled_inputs, system_inputs

TERMS = ("service_life_years", "cost_of_capital_fraction")


def _data(name: str = "deepseek-r1-jalapeno-vs-gb300.yaml") -> dict[str, Any]:
    path = next(p for p in rackcost.bundled_scenarios() if p.name == name)
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _shared(data: dict[str, Any], **terms: Any) -> dict[str, Any]:
    """The scenario with its owned systems' terms removed and ``terms`` given once under ``finance``."""
    out = copy.deepcopy(data)
    for system in out["systems"]:
        for term in TERMS:
            (system.get("costs") or {}).pop(term, None)
    out["finance"] = dict(terms)
    figures = out.get("figures") or {}
    for key in [k for k in figures if any(k.endswith(f".costs.{term}") for term in TERMS)]:
        figure = figures.pop(key)  # a term's source moves with it, once
        if key.rsplit(".", 1)[1] in terms:
            figures.setdefault(f"finance.{key.rsplit('.', 1)[1]}", figure)
    return out


@pytest.mark.parametrize("name", [p.name for p in rackcost.bundled_scenarios()])
def test_terms_given_once_give_the_results_of_terms_given_per_system(name: str) -> None:
    data = _data(name)
    owned = [s["costs"] for s in data["systems"] if s.get("costs")]
    lives = {c["service_life_years"] for c in owned}
    rates = {c.get("cost_of_capital_fraction", 0.0) for c in owned}
    if len(lives) != 1 or len(rates) != 1:
        pytest.skip(f"{name}: its owned systems' terms differ, so they cannot be given once")
    once = _shared(data, service_life_years=lives.pop(), cost_of_capital_fraction=rates.pop())
    before = rackcost.evaluate(rackcost.scenario_from_dict(data, name)).to_dict()
    after = rackcost.evaluate(rackcost.scenario_from_dict(once, name)).to_dict()
    assert after == before


def test_a_systems_own_term_wins_over_the_scenarios() -> None:
    data = _data()
    per_system = copy.deepcopy(data)
    per_system["systems"][0]["costs"]["service_life_years"] = 3.0
    per_system["systems"][1]["costs"]["service_life_years"] = 6.0
    mixed = _shared(data, service_life_years=6.0, cost_of_capital_fraction=0.08)
    mixed["systems"][0]["costs"]["service_life_years"] = 3.0
    a = rackcost.evaluate(rackcost.scenario_from_dict(per_system)).to_dict()
    b = rackcost.evaluate(rackcost.scenario_from_dict(mixed)).to_dict()
    assert a == b
    shorter = rackcost.evaluate(rackcost.scenario_from_dict(_shared(data, service_life_years=6.0))).to_dict()
    assert shorter != a  # the override changed something (else the test could not fail)


def test_an_owned_system_without_a_service_life_anywhere_is_one_clear_error() -> None:
    data = _shared(_data())  # no finance terms at all
    with pytest.raises(ScenarioError) as info:
        rackcost.scenario_from_dict(data, "s.yaml")
    paths = [p.path for p in info.value.problems]
    assert paths == ["systems[0].costs.service_life_years", "systems[1].costs.service_life_years"]
    assert all("finance.service_life_years" in p.message for p in info.value.problems)


def test_cost_of_capital_defaults_to_zero_when_neither_gives_it() -> None:
    data = _shared(_data(), service_life_years=5.0)
    zero = _shared(_data(), service_life_years=5.0, cost_of_capital_fraction=0.0)
    assert (
        rackcost.evaluate(rackcost.scenario_from_dict(data)).to_dict()
        == rackcost.evaluate(rackcost.scenario_from_dict(zero)).to_dict()
    )


def test_a_scenario_wide_distribution_is_one_draw_for_every_inheriting_system() -> None:
    data = _shared(
        _data(), service_life_years=5.0, cost_of_capital_fraction={"dist": "uniform", "low": 0.02, "high": 0.15}
    )
    scenario = rackcost.scenario_from_dict(data)
    assert "finance.cost_of_capital_fraction" in scenario.distributions
    draws = np.linspace(0.02, 0.15, 7)
    values = {"finance.cost_of_capital_fraction": draws}
    for i, system in enumerate(scenario.systems):
        sampled = sampled_inputs(scenario, i, system_inputs(scenario, system), values, draws.size)
        assert np.array_equal(sampled.costs.cost_of_capital_fraction.ravel(), draws)
    result = rackcost.uncertainty(scenario, samples=400, seed=1)
    assert result.n == 400


def test_the_horizon_and_the_plan_discount_at_the_scenarios_rate() -> None:
    scenario = rackcost.scenario_from_dict(
        _shared(_data(), service_life_years=5.0, cost_of_capital_fraction=0.11), "s.yaml"
    )
    assert _discount_rate(scenario, None) == (0.11, "finance.cost_of_capital_fraction")
    plan = _data("deepseek-r1-three-year-buying-plan.yaml")
    from rackcost.evaluation.planning import discount_rate

    plan.get("plan", {}).pop("discount_fraction_per_year", None)
    assert discount_rate(rackcost.scenario_from_dict(_shared(plan, service_life_years=4.0))) == 0.0
    assert (
        discount_rate(rackcost.scenario_from_dict(_shared(plan, service_life_years=4.0, cost_of_capital_fraction=0.09)))
        == 0.09
    )


def test_switching_a_system_to_owned_asks_for_a_life_only_where_finance_has_none() -> None:
    assert required_fields("own") == ("capex_usd_per_accelerator", "service_life_years")
    assert required_fields("own", {"finance": {"service_life_years": 5}}) == ("capex_usd_per_accelerator",)
    assert required_fields("rent", {"finance": {"service_life_years": 5}}) == ("usd_per_accelerator_hour",)


@settings(max_examples=25, deadline=None)
@given(low=st.floats(0.0, 0.3), step=st.floats(0.001, 0.3))
def test_a_higher_shared_cost_of_capital_never_lowers_the_cost_per_accepted_request(low: float, step: float) -> None:
    # the capital recovery factor r(1+r)^n / ((1+r)^n - 1) increases with r (any life n > 0), and capital is a
    # non-negative share of the cost, so a dearer rate never makes a request cheaper
    def costs(rate: float) -> list[float]:
        scenario = rackcost.scenario_from_dict(_shared(_data(), service_life_years=5.0, cost_of_capital_fraction=rate))
        rows = rackcost.evaluate(scenario).to_dict()["systems"]
        return [r["blended_usd_per_accepted_request"] for r in rows]

    for a, b in zip(costs(low), costs(low + step), strict=True):
        assert b >= a
