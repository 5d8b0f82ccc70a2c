"""The hardware mix (rackcost.hardware_mix, docs/model.md "A mix of hardware"): the exact search against brute
force, the mix never dearer than a system alone, a closed form with an API system, a system that cannot serve a
class left out of it, and the scenarios the mix refuses or answers trivially."""

from __future__ import annotations

import copy
import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rackcost
from rackcost.errors import ScenarioError
from rackcost.model.fleets.assignment import (
    brute_force_assignment,
    cell_counts,
    cheapest_assignment,
    least_partition,
)
from rackcost.scenario.class_edits import scaled_demand, subset_classes, thinned_index
from two_systems import BASE

ROOT = rackcost.bundled_scenario_path("deepseek-r1-b200-vs-gb200-request-classes").parent
DAY_REQUESTS = (5 * 8 + 12 * 10 + 20 * 6) * 3600.0  # tests/data/two_systems.yaml's demand over a day [requests]
CHEAP_API = {"usd_per_million_input_tokens": 0.01, "usd_per_million_output_tokens": 1.5}
API = {"name": "API", "provenance": {"class": "vendor", "source": "synthetic"}, "api": CHEAP_API}


# ---- the search over cells -------------------------------------------------------------------------------------


@st.composite
def cell_tables(draw: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Random (systems, (slices + 1)^K) cost and accepted tables, some cells infeasible (inf cost), and the slices:
    small enough to brute force."""
    systems = draw(st.integers(1, 3))
    slices = draw(st.sampled_from([1, 1, 2, 3]))
    classes = draw(st.integers(1, {1: 4, 2: 2, 3: 2}[slices]))
    shape = (systems, (slices + 1) ** classes)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    cost = rng.uniform(0.0, 100.0, shape)
    accepted = rng.uniform(0.0, 50.0, shape) * rng.choice([0.0, 1.0], shape, p=[0.1, 0.9])
    cost[rng.random(shape) < draw(st.floats(0.0, 0.6))] = math.inf
    return cost, accepted, slices


@settings(max_examples=300, deadline=None)
@given(cell_tables())
def test_the_search_equals_brute_force(tables: tuple[np.ndarray, np.ndarray, int]) -> None:
    """Dinkelbach over the DP finds the least cost per accepted request that trying all S^(K n) assignments of the
    slices finds (or both find none)."""
    cost, accepted, slices = tables
    found = cheapest_assignment(cost, accepted, slices)
    oracle = brute_force_assignment(cost, accepted, slices)
    assert (found is None) == (oracle is None)
    if found is not None and oracle is not None:
        assert math.isclose(found.usd_per_accepted, oracle.usd_per_accepted, rel_tol=1e-9)
        counts = cell_counts(round(math.log(cost.shape[1], slices + 1)), slices)
        assert (counts[list(found.cells)].sum(axis=0) == slices).all()  # every slice of every class, once
        again = sum(cost[s, cell] for s, cell in enumerate(found.cells) if cell)
        assert math.isclose(again, found.usd_per_day, rel_tol=1e-12)  # the assignment is the one priced


@settings(max_examples=200, deadline=None)
@given(cell_tables())
def test_the_mix_is_never_dearer_than_a_system_alone(tables: tuple[np.ndarray, np.ndarray, int]) -> None:
    cost, accepted, slices = tables
    found = cheapest_assignment(cost, accepted, slices)
    for s in range(cost.shape[0]):
        if math.isfinite(cost[s, -1]) and accepted[s, -1] > 0:
            assert found is not None
            assert found.usd_per_accepted <= cost[s, -1] / accepted[s, -1] * (1 + 1e-12)


def test_the_partition_dp_by_hand() -> None:
    """Three classes, two systems: system 0 takes classes 0 and 1 together for 3 (alone 2 + 2), system 1 class 2
    for 1: least 4; system 1 cannot take class 0 (inf)."""
    inf = math.inf
    # columns: {}, {0}, {1}, {0,1}, {2}, {0,2}, {1,2}, {0,1,2}
    weight = [[0, 2, 2, 3, 9, 9, 9, 20], [0, inf, 5, inf, 1, inf, 7, inf]]
    assert least_partition(weight) == (4.0, (0b011, 0b100))


def test_bad_cell_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="one column per cell"):
        cheapest_assignment(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="at least 0"):
        cheapest_assignment([[0.0, math.nan]], [[0.0, 1.0]])


# ---- the classes cut down -----------------------------------------------------------------------------------------


def test_thinning_a_bursty_count_matches_the_negative_binomial_closed_form() -> None:
    """Binomial thinning of a negative binomial NB(r, q) count is NB(r, q / (q + p (1 - q))) (P. Harremoës, O.
    Johnson, I. Kontoyiannis, "Thinning, entropy, and the law of thin numbers", IEEE Trans. Inf. Theory 56(9),
    2010): its index of dispersion is the thinned one."""
    r, q, p = 3.0, 0.2, 0.35
    whole = stats.nbinom(r, q)
    kept = stats.nbinom(r, q / (q + p * (1.0 - q)))
    assert math.isclose(thinned_index(whole.var() / whole.mean(), p), kept.var() / kept.mean(), rel_tol=1e-12)


def test_thinning_a_bursty_renewal_stream_matches_its_gaps_measured() -> None:
    """A renewal stream of gamma gaps (SCV 4) split at random, 30% kept: the kept gaps, counted from a seeded draw of
    400,000 gaps, have the SCV thinned_index gives (0.3 x 4 + 0.7 = 1.9), within 2% (sampling error about 0.5%)."""
    rng = np.random.default_rng(20261207)
    gaps = rng.gamma(0.25, 4.0, 400_000)  # shape 1/4: SCV 4, mean 1
    times = np.cumsum(gaps)[rng.random(gaps.size) < 0.3]
    kept = np.diff(times)
    assert kept.var() / kept.mean() ** 2 == pytest.approx(thinned_index(4.0, 0.3), rel=0.02)


def _with_classes(data: dict[str, Any]) -> dict[str, Any]:
    """Two classes over tests/data/two_systems.yaml's systems, each curve pinned to the benchmark shape 1000/500."""
    w = data["workload"]
    del w["input_tokens_per_request"], w["output_tokens_per_request"]
    w["classes"] = [
        {"name": "prompt-heavy", "share_fraction": 0.5, "input_tokens": 4000, "output_tokens": 50},
        {"name": "answer-heavy", "share_fraction": 0.5, "input_tokens": 200, "output_tokens": 1000},
    ]
    for system in data["systems"]:
        if "performance" in system:
            system["performance"].update(benchmark_input_tokens=1000, benchmark_output_tokens=500)
    return data


def _class_alone(data: dict[str, Any], name: str) -> dict[str, Any]:
    """By hand: the scenario of one class alone, its share of every demand point's rate, its share 1."""
    out = copy.deepcopy(data)
    [kept] = [c for c in out["workload"]["classes"] if c["name"] == name]
    for point in out["demand"]:
        point["arrival_rps"] *= kept["share_fraction"]
    out["workload"]["classes"] = [{**kept, "share_fraction": 1.0}]
    return out


def test_a_subset_of_classes_renormalises_shares_scales_rates_and_renumbers_figures() -> None:
    data = _with_classes(copy.deepcopy(BASE))
    data["workload"]["classes"].append({"name": "tiny", "share_fraction": 0.0, "input_tokens": 10, "output_tokens": 5})
    data["workload"]["classes"][0]["share_fraction"] = 0.2
    data["workload"]["classes"][1]["share_fraction"] = 0.8
    data["demand"][0]["arrival_scv"] = 5.0
    data["figures"] = {"workload.classes[1].input_tokens": {"provenance": "independent", "source": "x"}}
    out = subset_classes(data, {"answer-heavy": 1.0, "tiny": 1.0}, (1000.0, 500.0))
    shares = [(c["name"], c["share_fraction"]) for c in out["workload"]["classes"]]
    assert shares == [("answer-heavy", 1.0), ("tiny", 0.0)]
    assert [p["arrival_rps"] for p in out["demand"]] == pytest.approx([4.0, 9.6, 16.0])
    assert out["demand"][0]["arrival_scv"] == pytest.approx(0.8 * 5.0 + 0.2)
    assert list(out["figures"]) == ["workload.classes[0].input_tokens"]
    rackcost.scenario_from_dict(out)  # a valid scenario
    with pytest.raises(ValueError, match="share above 0"):
        subset_classes(data, {"tiny": 1.0})


# ---- the mix of a scenario --------------------------------------------------------------------------------------


def test_closed_form_the_api_takes_the_prompt_heavy_class_and_the_rack_the_answer_heavy() -> None:
    """System B and an API priced per token (0.01 $/M input, 1.5 $/M output). The API's cost per request is the
    closed form 4000 x 0.01e-6 + 50 x 1.5e-6 = $0.000115 for a prompt-heavy request (B alone: about $0.0004 by the
    model) and 200 x 0.01e-6 + 1000 x 1.5e-6 = $0.001502 for an answer-heavy one (B alone: about $0.001): each class
    goes to its cheaper system, and the mix's day is the API's closed form plus B's own evaluation of the
    answer-heavy class alone."""
    data = _with_classes(copy.deepcopy(BASE))
    data["systems"] = [data["systems"][1], API]
    mix = rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    assert mix.assignment == {"prompt-heavy": {"API": 1.0}, "answer-heavy": {"B": 1.0}}
    api_usd = 0.5 * DAY_REQUESTS * (4000 * 0.01 + 50 * 1.5) / 1e6
    b_alone = rackcost.scenario_from_dict(_class_alone({**data, "systems": [data["systems"][0]]}, "answer-heavy"))
    b_row = rackcost.evaluate(b_alone).systems.iloc[0]
    assert mix.usd_per_day == pytest.approx(api_usd + b_row["usd_per_day"], rel=1e-12)
    accepted = 0.5 * DAY_REQUESTS + b_row["accepted_requests_per_day"]
    assert mix.usd_per_accepted_request == pytest.approx(mix.usd_per_day / accepted, rel=1e-12)
    assert mix.best_single == "B"
    assert mix.saving_fraction is not None and mix.saving_fraction > 0.0
    [api_fleet] = [f for f in mix.fleets if f.system == "API"]
    assert api_fleet.usd_per_accepted_request == pytest.approx(0.000115, rel=1e-12)


def _brute_force_by_hand(data: dict[str, Any]) -> float:
    """Every assignment of the classes to the systems, each system's fleet evaluated on a scenario written by hand
    (its classes, their shares renormalised, their share of every rate): the least cost per accepted request."""
    systems = len(data["systems"])
    classes = data["workload"]["classes"]
    best = math.inf
    for owner in itertools.product(range(systems), repeat=len(classes)):
        usd = accepted = 0.0
        for s in range(systems):
            kept = [c for c, o in zip(classes, owner, strict=True) if o == s]
            if not kept:
                continue
            share = sum(c["share_fraction"] for c in kept)
            cut = copy.deepcopy(data)
            cut["systems"] = [copy.deepcopy(data["systems"][s])]
            cut["workload"]["classes"] = [{**c, "share_fraction": c["share_fraction"] / share} for c in kept]
            for point in cut["demand"]:
                point["arrival_rps"] *= share
            try:
                row = rackcost.evaluate(rackcost.scenario_from_dict(cut)).systems.iloc[0]
            except ScenarioError:  # this system cannot serve these classes
                usd = math.inf
                break
            usd += row["usd_per_day"]
            accepted += row["accepted_requests_per_day"]
        if math.isfinite(usd):
            best = min(best, usd / accepted)
    return best


@settings(max_examples=6, deadline=None)
@given(
    share=st.sampled_from([0.2, 0.5, 0.8]),
    api_output_usd=st.sampled_from([0.5, 1.5, 6.0]),
    b_capex=st.sampled_from([20000, 60000]),
)
def test_the_mix_of_a_scenario_equals_brute_force_over_hand_written_scenarios(
    share: float, api_output_usd: float, b_capex: int
) -> None:
    data = _with_classes(copy.deepcopy(BASE))
    data["workload"]["classes"][0]["share_fraction"] = share
    data["workload"]["classes"][1]["share_fraction"] = 1.0 - share
    data["systems"][1]["costs"]["capex_usd_per_accelerator"] = b_capex
    data["systems"].append({**API, "api": {**CHEAP_API, "usd_per_million_output_tokens": api_output_usd}})
    mix = rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    assert mix.usd_per_accepted_request == pytest.approx(_brute_force_by_hand(data), rel=1e-9)
    assert mix.evaluations == 3 * 3


def test_a_system_that_cannot_serve_a_class_alone_is_left_out_of_it() -> None:
    """A class whose own TPOT limit (15 ms) is below every point of A's curve (20 ms and up): A serves only the
    other class, and A alone serves nothing."""
    data = _with_classes(copy.deepcopy(BASE))
    data["workload"]["classes"][1]["slo"] = {"tpot_limit_ms": 15}
    data["systems"][1]["costs"]["capex_usd_per_accelerator"] = 200000  # B dear: A would take what it can
    mix = rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    assert mix.assignment == {"prompt-heavy": {"A": 1.0}, "answer-heavy": {"B": 1.0}}
    [a_alone] = [a for a in mix.alone if a.system == "A"]
    assert a_alone.usd_per_accepted_request is None and list(a_alone.cannot_serve) == ["answer-heavy"]
    assert mix.best_single == "B"
    assert mix.evaluations == 2 + 3  # A on {prompt-heavy}, {answer-heavy}; B on all three subsets


def test_the_bundled_class_scenario_mix_is_never_dearer_than_its_best_system_alone() -> None:
    scenario = rackcost.load_scenario("deepseek-r1-b200-vs-gb200-request-classes")
    mix = rackcost.hardware_mix(scenario)
    systems = rackcost.evaluate(scenario).systems.set_index("system")
    for alone in mix.alone:  # each system alone is the evaluation's own figure
        assert alone.usd_per_day == pytest.approx(systems.loc[alone.system, "usd_per_day"], rel=1e-12)
    best = systems["blended_usd_per_accepted_request"].min()
    assert mix.usd_per_accepted_request <= best * (1 + 1e-12)
    assert set(mix.assignment) == {"chat", "reasoning", "agentic"}
    assert mix.evaluations == 2 * 7


def test_without_classes_the_mix_is_the_best_system_alone() -> None:
    scenario = rackcost.scenario_from_dict(copy.deepcopy(BASE))
    mix = rackcost.hardware_mix(scenario)
    systems = rackcost.evaluate(scenario).systems.set_index("system")
    best = systems["blended_usd_per_accepted_request"].idxmin()
    assert mix.assignment == {"(whole workload)": {best: 1.0}} and mix.best_single == best
    assert mix.saving_fraction == 0.0
    assert any("no request classes" in note for note in mix.notes)


def test_one_system_is_a_trivial_mix() -> None:
    data = _with_classes(copy.deepcopy(BASE))
    data["systems"] = data["systems"][:1]
    mix = rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    assert all(systems == {"A": 1.0} for systems in mix.assignment.values()) and len(mix.fleets) == 1
    assert any("one system" in note for note in mix.notes)


def test_a_fleet_given_by_count_is_refused_at_its_path() -> None:
    data = copy.deepcopy(BASE)
    data["fleet"]["replicas"] = 4
    with pytest.raises(ScenarioError) as caught:
        rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    [problem] = caught.value.problems
    assert problem.path == "fleet.replicas" and "remove fleet.replicas" in problem.message


def test_no_system_serving_a_class_is_an_error_naming_each_system() -> None:
    data = _with_classes(copy.deepcopy(BASE))
    data["systems"] = data["systems"][:1]
    data["workload"]["classes"][1]["slo"] = {"tpot_limit_ms": 15}
    idle = {"name": "idle", "share_fraction": 0.0, "input_tokens": 10, "output_tokens": 5}
    data["workload"]["classes"].insert(0, idle)  # left out of the search: the path still counts it
    with pytest.raises(ScenarioError) as caught:
        rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    [problem] = caught.value.problems
    assert problem.path == "workload.classes[2]"
    assert problem.message.startswith("no system can serve class 'answer-heavy' within the SLO: A: ")


def test_not_a_scenario_is_refused() -> None:
    with pytest.raises(TypeError, match="rackcost.hardware_mix"):
        rackcost.hardware_mix("scenario.yaml")  # type: ignore[arg-type]


def test_a_profile_with_a_plan_is_priced_on_its_named_points() -> None:
    """The bundled buying-plan scenario: a demand profile and a plan whose sources name systems; the mix drops both
    (and the plan's figures) and prices each system alone as the evaluation's day does."""
    scenario = rackcost.load_scenario("deepseek-r1-three-year-buying-plan")
    mix = rackcost.hardware_mix(scenario)
    systems = rackcost.evaluate(scenario).systems.set_index("system")
    for alone in mix.alone:
        assert alone.usd_per_day == pytest.approx(systems.loc[alone.system, "usd_per_day"], rel=1e-12)
    assert any("profile" in note for note in mix.notes)


def test_slices_split_one_class_between_systems_as_scenarios_cut_by_hand() -> None:
    """A workload without classes in halves: each system alone, or half the load on each (each half's rate halved
    by hand); the mix is the cheapest of the three, and never dearer than whole classes."""
    data = copy.deepcopy(BASE)
    data["systems"][1]["costs"]["capex_usd_per_accelerator"] = 26000  # B near A: a split may pay
    mix = rackcost.hardware_mix(rackcost.scenario_from_dict(data), slices=2)
    whole = rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    figures = {}
    for s, name in enumerate(["A", "B"]):
        for fraction in (0.5, 1.0):
            cut = copy.deepcopy(data)
            cut["systems"] = [data["systems"][s]]
            for point in cut["demand"]:
                point["arrival_rps"] *= fraction
            row = rackcost.evaluate(rackcost.scenario_from_dict(cut)).systems.iloc[0]
            figures[name, fraction] = (row["usd_per_day"], row["accepted_requests_per_day"])
    candidates = [figures["A", 1.0], figures["B", 1.0], tuple(np.add(figures["A", 0.5], figures["B", 0.5]))]
    assert mix.usd_per_accepted_request == pytest.approx(min(usd / acc for usd, acc in candidates), rel=1e-12)
    assert mix.usd_per_accepted_request <= whole.usd_per_accepted_request * (1 + 1e-12)
    assert mix.evaluations == 2 * 2 and mix.slices == 2
    assert sum(mix.assignment["(whole workload)"].values()) == pytest.approx(1.0)


def test_scaled_demand_thins_the_dispersion() -> None:
    data = {"demand": [{"arrival_rps": 10.0, "arrival_dispersion": {"time_scales_s": [1.0], "index": [3.0]}}]}
    out = scaled_demand(data, 0.5)
    assert out["demand"][0]["arrival_rps"] == 5.0
    assert out["demand"][0]["arrival_dispersion"]["index"] == [thinned_index(3.0, 0.5)] == [2.0]


def test_bad_slices_and_too_many_cells_are_refused() -> None:
    scenario = rackcost.scenario_from_dict(copy.deepcopy(BASE))
    with pytest.raises(ValueError, match="slices must be a whole number"):
        rackcost.hardware_mix(scenario, slices=0)
    with pytest.raises(ScenarioError, match="at most 256"):
        rackcost.hardware_mix(rackcost.load_scenario("deepseek-r1-b200-vs-gb200-request-classes"), slices=6)


def test_half_a_class_on_each_system_is_priced_as_written_by_hand() -> None:
    """B and the per-token API with each class in halves: the search puts half the prompt-heavy load on the API
    (closed form, 0.25 of the day's requests at $0.000115) and the rest with the answer-heavy class on B, whose
    fleet is the scenario written by hand: prompt-heavy 0.25 / 0.75 and answer-heavy 0.5 / 0.75 of 0.75 of the
    rates. A zero-share class is left out, with a note."""
    data = _with_classes(copy.deepcopy(BASE))
    data["systems"] = [data["systems"][1], API]
    data["workload"]["classes"].append({"name": "tiny", "share_fraction": 0.0, "input_tokens": 10, "output_tokens": 5})
    mix = rackcost.hardware_mix(rackcost.scenario_from_dict(data), slices=2)
    assert mix.assignment == {"prompt-heavy": {"B": 0.5, "API": 0.5}, "answer-heavy": {"B": 1.0}}
    by_hand = copy.deepcopy(data)
    by_hand["systems"] = [data["systems"][0]]
    prompt, answer, _ = by_hand["workload"]["classes"]
    by_hand["workload"]["classes"] = [
        {**prompt, "share_fraction": 0.25 / 0.75},
        {**answer, "share_fraction": 0.5 / 0.75},
    ]
    for point in by_hand["demand"]:
        point["arrival_rps"] *= 0.75
    b_row = rackcost.evaluate(rackcost.scenario_from_dict(by_hand)).systems.iloc[0]
    api_usd = 0.25 * DAY_REQUESTS * (4000 * 0.01 + 50 * 1.5) / 1e6
    assert mix.usd_per_day == pytest.approx(b_row["usd_per_day"] + api_usd, rel=1e-12)
    whole = rackcost.hardware_mix(rackcost.scenario_from_dict(data))
    assert mix.usd_per_accepted_request <= whole.usd_per_accepted_request * (1 + 1e-12)
    assert "tiny" not in mix.classes and any("tiny" in note for note in mix.notes)
