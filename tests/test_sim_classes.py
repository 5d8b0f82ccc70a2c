"""The simulator serves request classes (issue 23, item 6): its per-request draws match the analytic model's
moments, and the analytic per-class figures agree with the simulated ones near 90% utilisation."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rackcost
from rackcost.analysis.referee import capacity_check
from rackcost.analysis.referee_classes import class_laws
from rackcost.model.classes import cdf_moments, mix_service_scv
from rackcost.model.sim_classes import LengthLaw, draw_class_requests, draw_lengths
from rackcost.model.sim_engines import KvLimit, event_engine, fixed_model
from rackcost.scenario.loading import scenario_from_dict, scenario_to_data
from reference import DATA

AGREEMENT = DATA / "class_agreement.yaml"
THREE_CLASSES = DATA / "three_classes.yaml"
TTFT_TOLERANCE_FRACTION = 0.10
"""The analytic p99 TTFT of every class within this share of the simulated one (issue 23, "Done when")."""
ACCEPTED_TOLERANCE_FRACTION = 0.01
"""The analytic accepted share of every class within this of the simulated one (1 percentage point)."""


@pytest.mark.parametrize(
    ("tokens", "cumulative"),
    [([100, 300], [0.5, 1.0]), ([20, 60, 1200, 1600], [0.0, 0.6, 0.6, 1.0]), ([2000, 4000, 8000], [0.1, 0.5, 1.0])],
)
def test_a_cdf_table_is_sampled_as_cdf_moments_reads_it(tokens: list[float], cumulative: list[float]) -> None:
    mean, variance = cdf_moments(tokens, cumulative)
    law = LengthLaw("cdf", mean, table_tokens=np.array(tokens, float), table_cumulative_fraction=np.array(cumulative))
    x = draw_lengths(np.random.default_rng(3), law, 400_000)
    assert x.min() >= tokens[0] and x.max() <= tokens[-1]
    assert x.mean() == pytest.approx(mean, rel=0.01)
    assert x.var() == pytest.approx(variance, rel=0.02)


@pytest.mark.parametrize("kind", ["lognormal", "gamma"])
def test_named_lengths_have_their_mean_and_cv(kind: str) -> None:
    x = draw_lengths(np.random.default_rng(4), LengthLaw(kind, 800.0, 0.6), 400_000)
    assert x.mean() == pytest.approx(800.0, rel=0.01)
    assert x.std() / x.mean() == pytest.approx(0.6, rel=0.02)


@pytest.mark.parametrize("path", [AGREEMENT, THREE_CLASSES])
def test_drawn_work_has_the_analytic_mix_mean_and_scv(path) -> None:
    """Mean work 1 and the spread the analytic model summarises (law of total variance), drawn request by request:
    the three-class scenario's reasoning class of plain numbers included (exponential about its mean)."""
    laws = class_laws(rackcost.load_scenario(path))
    assert laws is not None
    ttft_ms, tpot_ms = 400.0, 25.0
    drawn = draw_class_requests(np.random.default_rng(5), laws, 1_000_000, ttft_ms, tpot_ms)
    scv = float(mix_service_scv(laws.mix, ttft_ms, tpot_ms))
    assert drawn.work.mean() == pytest.approx(1.0, abs=0.01)
    assert drawn.work.var() / drawn.work.mean() ** 2 == pytest.approx(scv, rel=0.05)
    shares = np.bincount(drawn.klass, minlength=len(laws.mix)) / drawn.klass.size
    np.testing.assert_allclose(shares, laws.mix.share_fraction, atol=0.002)
    mean_ratio = [drawn.ttft_ratio[drawn.klass == k].mean() for k in range(len(laws.mix))]
    assert float(np.sum(laws.mix.share_fraction * np.array(mean_ratio))) == pytest.approx(1.0, abs=0.01)


@pytest.fixture(scope="module")
def ninety() -> list[dict]:
    """The agreement fixture at its demand point near 90% utilisation (analytic 88.4%)."""
    scenario = rackcost.load_scenario(AGREEMENT)
    return rackcost.simulate(scenario, demand_point="ninety", requests=4_000_000, replications=10, seed=1)


def test_the_fixture_is_near_90_percent_utilisation(ninety: list[dict]) -> None:
    mix = ninety[0]
    assert mix["class"] is None and 0.85 <= mix["analytic_utilization_fraction"] <= 0.9
    assert mix["simulated_utilization_fraction"] == pytest.approx(mix["analytic_utilization_fraction"], abs=0.01)
    assert not mix["warnings"]


@pytest.mark.parametrize("name", ["light", "heavy", "bimodal"])
def test_analytic_class_figures_agree_with_the_simulator_near_90_percent(ninety: list[dict], name: str) -> None:
    row = next(r for r in ninety if r["class"] == name)
    simulated = row["simulated_ttft_p99_ms"]
    assert abs(row["analytic_ttft_p99_ms"] - simulated) <= TTFT_TOLERANCE_FRACTION * simulated, row
    accepted = row["simulated_accepted_fraction"]
    assert abs(row["analytic_accepted_fraction"] - accepted) <= ACCEPTED_TOLERANCE_FRACTION, row
    assert row["simulated_tpot_p99_ms"] == pytest.approx(row["analytic_tpot_p99_ms"], rel=0.01)


@pytest.mark.xfail(
    strict=True,
    reason="the analytic model judges a class at its mean request: its p99 TTFT is rho_k TTFT + the queue's p99 "
    "wait, without the spread of the class's own input lengths (docs/model.md, 'Request classes', not modelled); "
    "at light load (system B, 'quiet') the simulated p99 TTFT of the chat class (lognormal inputs, cv 1) is about "
    "4.9x the analytic one (1,017 against 209 ms) and of the agentic class (a CDF of 2,000 to 16,000) about 3x",
    raises=AssertionError,
)
def test_a_class_with_spread_inputs_agrees_at_light_load() -> None:
    scenario = rackcost.load_scenario(THREE_CLASSES)
    rows = rackcost.simulate(scenario, system="B", demand_point="quiet", requests=100_000, replications=4)
    chat = next(r for r in rows if r["class"] == "chat")
    simulated = chat["simulated_ttft_p99_ms"]
    assert math.isfinite(simulated)
    assert abs(chat["analytic_ttft_p99_ms"] - simulated) <= TTFT_TOLERANCE_FRACTION * simulated, chat


def test_simulate_and_its_capacity_check_serve_a_disaggregated_system_beside_an_aggregated_one() -> None:
    # the tandem of its pools is tests/test_sim_pools.py's; here only that it is no longer refused
    scenario = rackcost.load_scenario(DATA / "disaggregated.yaml")
    rows = rackcost.simulate(scenario, demand_point="quiet", requests=400, replications=2)
    assert [(r["system"], r.get("layout")) for r in rows] == [("A", None), ("A disaggregated", "disaggregated")]
    rows = capacity_check(scenario, requests=400, replications=2)
    assert [(r["system"], r.get("limiting_pool")) for r in rows] == [("A", None), ("A disaggregated", "decode")]


def _max_held(start: np.ndarray, finish: np.ndarray, held: np.ndarray) -> float:
    """The most KV bytes in service at once on one replica, over the requests' [start, finish) intervals."""
    times = np.concatenate([start, finish])
    delta = np.concatenate([held, -held])
    order = np.lexsort((delta, times))  # at a tie, a finish (negative) before a start
    return float(np.max(np.cumsum(delta[order])))


@pytest.mark.parametrize("routing", ["pooled", "least_outstanding"])
def test_kv_limited_admission_never_holds_more_than_the_free_memory(routing: str) -> None:
    rng = np.random.default_rng(7)
    n = 20_000
    arrivals = np.cumsum(rng.exponential(1 / 7.0, n))
    work = rng.exponential(1.0, n)
    held = rng.lognormal(0.0, 1.0, n)
    model = fixed_model(10, 1.0, 0.1)
    free = 8.0  # about 5 requests of mean 1.65: the memory binds before the 10 slots
    kv = KvLimit(free, held, 1.0)
    start, finish, _, dropped, _ = event_engine(arrivals, work, 1, model, routing, kv=kv)
    assert not dropped.any()
    assert _max_held(start, finish, np.minimum(held, free)) <= free * (1 + 1e-12)
    assert np.all(np.diff(start) >= 0)  # FIFO: the head waits for room, and those behind it
    base = event_engine(arrivals, work, 1, model, routing)
    loose = event_engine(arrivals, work, 1, model, routing, kv=KvLimit(np.inf, held, 1.0))
    np.testing.assert_array_equal(base[0], loose[0])
    assert np.mean(start - arrivals) > np.mean(base[0] - arrivals)  # the memory makes requests wait


def test_a_replica_whose_kv_memory_fills_makes_requests_wait_in_the_simulation() -> None:
    """The fixture with a memory block whose limit at the mix's mean context (29 requests) is above the 20 slots:
    the analytic model sees no KV limit, while in the simulation the spread of the contexts fills the memory
    before the slots and the queue grows (docs/model.md, "Simulation": the accepted share falls about 3 points at
    77% utilisation)."""
    data = scenario_to_data(rackcost.load_scenario(AGREEMENT))
    memory = {"hbm_gib_per_accelerator": 9.2, "weights_gib": 70, "kv_bytes_per_token": 100_000, "reserve_fraction": 0}
    data["systems"][0]["memory"] = memory
    scenario = scenario_from_dict(data, "class_agreement with memory")
    rows = rackcost.simulate(scenario, demand_point="seventy", requests=100_000, replications=4)
    assert all(r["kv_limited_admission"] and "KV-limited admission" in r["note"] for r in rows)
    mix = rows[0]
    assert mix["analytic_accepted_fraction"] > 0.999
    assert mix["simulated_accepted_fraction"] < mix["analytic_accepted_fraction"] - 0.01
    without = rackcost.load_scenario(AGREEMENT)
    plain = rackcost.simulate(without, demand_point="seventy", requests=100_000, replications=4)
    assert not plain[0]["kv_limited_admission"]
    assert plain[0]["simulated_accepted_fraction"] > mix["simulated_accepted_fraction"]
