"""The scenario's systems edited as plain data (rackcost.scenario.system_edits): copy, remove, and switch how one is
paid for, each result a valid scenario whose every number a ``figures:`` entry covers (issue 22, item 4)."""

from __future__ import annotations

import copy

import pytest
import yaml

import rackcost
from rackcost.scenario import edits, system_edits
from rackcost.scenario.distributions import central_of
from rackcost.scenario.system_edits import DEFAULT_SOURCE, Missing, Switch

OWN_RENT_API = "deepseek-r1-own-vs-rent-vs-api.yaml"


def bundled(name: str | None = None) -> dict:
    path = rackcost.bundled_scenario_path() if name is None else rackcost.bundled_scenario_path(name)
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def numeric_leaves_uncovered(data: dict) -> list[str]:
    """Numbers no ``figures:`` entry covers (what tests/test_scenarios.py asks of the bundled files)."""
    figures = data.get("figures") or {}
    return [
        path
        for path, value in edits.leaf_values(data).items()
        if isinstance(value, int | float | dict)
        and not isinstance(value, bool)
        and not any(path == k or path.startswith((k + ".", k + "[")) for k in figures)
    ]


def owned_prices(data: dict) -> dict[str, float]:
    result = rackcost.evaluate(rackcost.scenario_from_dict(copy.deepcopy(data)))
    return system_edits.owned_usd_per_accelerator_hour(result.records["systems"])


def blended(data: dict) -> dict[str, float]:
    result = rackcost.evaluate(rackcost.scenario_from_dict(copy.deepcopy(data)))
    return {r["system"]: r["blended_usd_per_accepted_request"] for r in result.records["systems"]}


def switched(data: dict, index: int, payment: str, **options) -> dict:
    plan = system_edits.plan_payment(data, index, payment, **options)
    assert isinstance(plan, Switch), plan
    out = system_edits.with_payment(data, index, payment, plan)
    rackcost.scenario_from_dict(copy.deepcopy(out))  # valid
    return out


def test_unique_names_count_up():
    assert system_edits.unique_name("A", ["A"], "copy") == "A (copy)"
    assert system_edits.unique_name("A", ["A", "A (copy)", "A (copy 2)"], "copy") == "A (copy 3)"
    long = "x" * 200
    assert len(system_edits.unique_name(long, [long], "rented")) == 200


def test_a_copy_takes_its_figures_along_and_a_removal_renumbers_the_rest():
    data = bundled()
    out = system_edits.copy_system(data, 0, "GB300 NVL72 (copy)")
    assert [s["name"] for s in out["systems"]] == ["GB300 NVL72", "Jalapeño", "GB300 NVL72 (copy)"]
    mine = {k.removeprefix("systems[0]"): v for k, v in data["figures"].items() if k.startswith("systems[0]")}
    theirs = {k.removeprefix("systems[2]"): v for k, v in out["figures"].items() if k.startswith("systems[2]")}
    assert theirs == mine and mine
    assert numeric_leaves_uncovered(out) == []
    rackcost.scenario_from_dict(copy.deepcopy(out))
    assert data == bundled()  # the argument is untouched

    out["baseline_system"] = "GB300 NVL72"
    removed = system_edits.remove_system(out, 0)
    assert [s["name"] for s in removed["systems"]] == ["Jalapeño", "GB300 NVL72 (copy)"]
    assert "baseline_system" not in removed  # it named the system removed
    assert {k.removeprefix("systems[1]"): v for k, v in removed["figures"].items() if k.startswith("systems[1]")} == (
        mine
    )
    assert numeric_leaves_uncovered(removed) == []
    rackcost.scenario_from_dict(copy.deepcopy(removed))
    with pytest.raises(ValueError, match="only system"):
        system_edits.remove_system(system_edits.remove_system(removed, 0), 0)
    with pytest.raises(IndexError):
        system_edits.remove_system(removed, 5)


def test_renting_a_gpu_inferencex_prices_starts_at_its_published_rental_tier():
    data = bundled(OWN_RENT_API)
    out = switched(data, 0, "rent")
    assert out["systems"][0]["rent"] == {"usd_per_accelerator_hour": 3.3}  # InferenceX gb200:rental-3-year
    assert "costs" not in out["systems"][0]
    figure = out["figures"]["systems[0].rent"]
    assert figure["provenance"] == "assumption" and figure["source"].startswith(DEFAULT_SOURCE)
    assert "rental-3-year price for gb200" in figure["source"] and figure["why"]
    assert not [k for k in out["figures"] if k.startswith("systems[0].costs")]  # the costs' figures went with them
    assert numeric_leaves_uncovered(out) == []


def test_renting_a_system_without_a_published_price_starts_level_with_owning_it():
    data = bundled()
    prices = owned_prices(data)
    out = switched(data, 1, "rent", owned_usd_per_accelerator_hour=prices)
    price = out["systems"][1]["rent"]["usd_per_accelerator_hour"]
    assert price == pytest.approx(prices["Jalapeño"], abs=0.01) and price >= prices["Jalapeño"]  # up to the cent
    assert "what owning Jalapeño costs per accelerator-hour" in out["figures"]["systems[1].rent"]["source"]
    before, after = blended(data)["Jalapeño"], blended(out)["Jalapeño"]
    assert before <= after == pytest.approx(before, rel=0.01)  # reserved, power included: the same cost per day
    assert numeric_leaves_uncovered(out) == []
    # without last results (and no tier, no rented system of its accelerator) the price is asked for
    missing = system_edits.plan_payment(data, 1, "rent")
    assert isinstance(missing, Missing)
    assert missing.fields == ("rent.usd_per_accelerator_hour",) and "rental price" in missing.reason
    given = switched(data, 1, "rent", given={"usd_per_accelerator_hour": 2.0})
    assert given["systems"][1]["rent"] == {"usd_per_accelerator_hour": 2.0}
    assert "systems[1].rent" not in given.get("figures", {})  # the user's value: labelled as an edit by sync


def test_a_rented_copy_is_priced_like_the_owned_system_it_copies():
    data = bundled()
    copied = system_edits.copy_system(data, 1, "Jalapeño (rented)")
    plan = system_edits.plan_payment(
        copied, 2, "rent", owned_usd_per_accelerator_hour=owned_prices(data), priced_like="Jalapeño"
    )
    assert isinstance(plan, Switch)
    out = system_edits.with_payment(copied, 2, "rent", plan)
    costs = blended(out)
    assert costs["Jalapeño"] <= costs["Jalapeño (rented)"] == pytest.approx(costs["Jalapeño"], rel=0.01)
    assert numeric_leaves_uncovered(out) == []


def test_owning_copies_the_costs_of_the_same_accelerator_or_asks_for_them():
    data = bundled(OWN_RENT_API)
    out = switched(data, 1, "own")  # GB200 NVL72 rented, reserved: the owned GB200's costs
    assert out["systems"][1]["costs"] == data["systems"][0]["costs"] and "rent" not in out["systems"][1]
    assert "copied from system GB200 NVL72 owned" in out["figures"]["systems[1].costs"]["source"]
    assert numeric_leaves_uncovered(out) == []
    rented = switched(bundled(), 1, "rent", given={"usd_per_accelerator_hour": 2.0})
    missing = system_edits.plan_payment(rented, 1, "own")
    assert isinstance(missing, Missing)
    assert missing.fields == ("costs.capex_usd_per_accelerator", "costs.service_life_years")
    assert "no neutral default" in missing.reason
    # the costs it had before (the stash), or the file's (loaded), come back
    stashed = switched(rented, 1, "own", stash={"costs": bundled()["systems"][1]["costs"]})
    assert stashed["systems"][1] == bundled()["systems"][1]
    plan = system_edits.plan_payment(rented, 1, "own", loaded=bundled())
    assert isinstance(plan, Switch) and plan.baseline == {"costs"}
    assert (
        plan.figures["costs.capex_usd_per_accelerator"]
        == bundled()["figures"]["systems[1].costs.capex_usd_per_accelerator"]
    )


def test_an_api_takes_another_apis_prices_or_the_revenue_prices_or_asks():
    data = bundled(OWN_RENT_API)
    out = switched(data, 0, "api")
    system = out["systems"][0]
    assert system["api"] == data["systems"][3]["api"] and system["provenance"] == data["systems"][3]["provenance"]
    assert not {"performance", "hardware", "costs"} & set(system)
    assert out["figures"]["systems[0].api"]["source"].startswith(DEFAULT_SOURCE)  # copied, to be reviewed
    assert numeric_leaves_uncovered(out) == []
    without_api = system_edits.remove_system(data, 3)
    out = switched(without_api, 0, "api")
    assert out["systems"][0]["api"] == {
        "usd_per_million_input_tokens": 0.55,
        "usd_per_million_output_tokens": 2.19,
    }  # the revenue block's
    assert out["systems"][0]["provenance"]["class"] == "assumption"
    assert "revenue prices" in out["figures"]["systems[0].api"]["source"]
    missing = system_edits.plan_payment(bundled(), 0, "api")
    assert isinstance(missing, Missing) and missing.fields == (
        "api.usd_per_million_input_tokens",
        "api.usd_per_million_output_tokens",
    )


def test_from_an_api_to_hardware_copies_the_first_hardware_system_or_says_why_not():
    data = bundled(OWN_RENT_API)
    out = switched(data, 3, "own")
    system = out["systems"][3]
    assert system["performance"] == data["systems"][0]["performance"]
    assert system["costs"] == data["systems"][0]["costs"] and "api" not in system
    assert system["provenance"] == data["systems"][0]["provenance"]
    assert numeric_leaves_uncovered(out) == []
    rented = switched(data, 3, "rent")
    assert rented["systems"][3]["rent"] == {"usd_per_accelerator_hour": 3.3}
    only_apis = {**data, "systems": [data["systems"][3], {**data["systems"][3], "name": "other"}]}
    only_apis["figures"] = {}
    missing = system_edits.plan_payment(only_apis, 0, "own")
    assert isinstance(missing, Missing) and missing.fields == () and "YAML tab" in missing.reason


def test_the_baseline_keeps_every_block_it_had():
    data = bundled()
    plan = system_edits.plan_payment(data, 1, "rent", given={"usd_per_accelerator_hour": 2.0})
    assert isinstance(plan, Switch) and plan.baseline_only().blocks == {}
    plan = system_edits.plan_payment(data, 1, "rent", owned_usd_per_accelerator_hour=owned_prices(data))
    assert isinstance(plan, Switch)
    kept = system_edits.with_payment(data, 1, "rent", plan.baseline_only(), keep=True)
    assert kept["systems"][1]["costs"] == data["systems"][1]["costs"] and "rent" in kept["systems"][1]


def test_a_switch_back_with_the_figures_of_the_file_reads_as_unedited():
    data = bundled()
    rented = switched(data, 1, "rent", given={"usd_per_accelerator_hour": 2.0})
    back = switched(rented, 1, "own", stash={"costs": data["systems"][1]["costs"]})
    assert edits.sync_figures(back, data)["figures"] == data["figures"]


def test_distributions_are_named_in_words_and_have_a_central_value():
    triangle = {"dist": "triangular", "low": 1.1, "mode": 1.15, "high": 1.3}
    assert edits.described(triangle) == "a triangular distribution (low 1.1, mode 1.15, high 1.3)"
    assert edits.edited_figure(triangle, None)["source"].endswith("the file gave " + edits.described(triangle))
    assert central_of(triangle) == 1.15
    assert central_of({"dist": "lognormal", "median": 18000, "sigma": 0.5}) == 18000
    assert central_of({**triangle, "mode": 1.4}) is None  # outside [low, high]: not a distribution
