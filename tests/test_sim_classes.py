"""The simulator serves request classes (issue 23, item 6): its per-request draws match the analytic model's
moments, and the analytic per-class figures agree with the simulated ones near 90% utilisation."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import rackcost
from rackcost.analysis.referee import capacity_check
from rackcost.analysis.referee_classes import class_laws
from rackcost.model.sim.sim_classes import LengthLaw, draw_class_requests, draw_lengths
from rackcost.model.sim.sim_engines import KvLimit, SimFleet, event_engine, fixed_model
from rackcost.model.workload.classes import cdf_moments, mix_service_scv
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


@pytest.mark.parametrize(("system", "name"), [("B", "chat"), ("B", "agentic"), ("A", "chat"), ("A", "agentic")])
def test_a_class_with_spread_inputs_agrees_at_light_load(system: str, name: str) -> None:
    """The p99 TTFT of a class whose inputs spread is the p99 of its own prefill plus the queue's wait
    (rackcost.model.queues.class_ttft): at light load (the three-class scenario's ``quiet``, 10% and 22% utilisation)
    its inputs' tail is the whole of it, 4.9x the mean request's for the chat class's lognormal of cv 1. System A's TTFT
    rises with the occupancy a request starts at, system B's does not. 100,000 requests give a half-width of 1-3%."""
    scenario = rackcost.load_scenario(THREE_CLASSES)
    rows = rackcost.simulate(scenario, system=system, demand_point="quiet", requests=100_000, replications=4, seed=1)
    row = next(r for r in rows if r["class"] == name)
    simulated, half = row["simulated_ttft_p99_ms"], row["simulated_ttft_p99_ms_ci95_halfwidth"]
    assert math.isfinite(simulated) and half < 0.05 * simulated
    assert abs(row["analytic_ttft_p99_ms"] - simulated) <= TTFT_TOLERANCE_FRACTION * simulated, row
    assert abs(row["analytic_accepted_fraction"] - row["simulated_accepted_fraction"]) <= ACCEPTED_TOLERANCE_FRACTION


SWEEP_REQUESTS = 400_000
"""Simulated requests per demand point in :func:`sweep` (6 replications): about 4 s of CPU per family."""


def _family(mean: float, name: str) -> dict:
    """An output length of ``mean`` tokens of one family (as ``benchmarks/class_agreement.py`` draws them)."""
    if name == "light":
        return {"lengths": "gamma", "mean": mean, "cv": 0.5}
    if name == "heavy-tailed":
        return {"lengths": "lognormal", "mean": mean, "cv": 1.0}
    # bimodal: 60% short (uniform on 0.04 to 0.12 of a scale), 40% long (2.4 to 3.2), the scale keeping the mean
    table = ((0.04, 0.0), (0.12, 0.6), (2.4, 0.6), (3.2, 1.0))
    scale = mean / (0.6 * 0.08 + 0.4 * 2.8)
    return {"lengths": "cdf", "table": [[round(t * scale, 3), f] for t, f in table]}


@pytest.fixture(scope="module")
def sweep() -> dict[str, list[dict]]:
    """The agreement fixture with every class's outputs of one family at a time, each class keeping its mean,
    simulated at every demand point (52%, 77% and 86-88% utilisation): three families of 3 points, about 12 s."""
    base = rackcost.load_scenario(AGREEMENT)
    assert base.workload.classes is not None
    data = scenario_to_data(base)
    out = {}
    for name in ("light", "heavy-tailed", "bimodal"):
        variant = copy.deepcopy(data)
        for c, given in zip(variant["workload"]["classes"], base.workload.classes, strict=True):
            c["output_tokens"] = _family(float(given.output_tokens.moments()[0]), name)
        for key in ("input_tokens_per_request", "output_tokens_per_request"):
            variant["workload"].pop(key, None)
        scenario = scenario_from_dict(variant, f"class_agreement ({name})")
        out[name] = rackcost.simulate(scenario, requests=SWEEP_REQUESTS, replications=6, seed=2)
    return out


@pytest.mark.parametrize("family", ["light", "heavy-tailed", "bimodal"])
def test_every_class_agrees_at_every_point_up_to_90_percent(sweep: dict[str, list[dict]], family: str) -> None:
    """Issue 23's "Done when": every class's analytic p99 TTFT within 10% of the simulated one and its accepted
    share within 1 percentage point, at every demand point up to 90% utilisation, for light (gamma cv 0.5),
    heavy-tailed (lognormal cv 1) and bimodal output lengths.

    Tolerance: 10% plus the simulation's own 95% half-width, which at 400,000 requests is 0-2% at 52%
    utilisation and 5-20% at 77-88% (the p99 of a queue's wait near saturation is a rare-event figure). The
    assertion fails only where the analytic figure is more than 10% off beyond what the simulator can tell; the
    long run (2,000,000 requests a point, ``benchmarks/class_agreement.py``, quoted in docs/model.md "Simulation")
    is where the 10% itself is checked."""
    rows = [r for r in sweep[family] if r["class"] is not None]
    assert len(rows) == 9 and {r["demand_point"] for r in rows} == {"half", "seventy", "ninety"}
    mix = [r for r in sweep[family] if r["class"] is None]
    assert all(r["analytic_utilization_fraction"] <= 0.9 for r in mix)
    for row in rows:
        simulated, half = row["simulated_ttft_p99_ms"], row["simulated_ttft_p99_ms_ci95_halfwidth"]
        assert abs(row["analytic_ttft_p99_ms"] - simulated) <= TTFT_TOLERANCE_FRACTION * simulated + half, row
        accepted, accepted_half = row["simulated_accepted_fraction"], row["simulated_accepted_fraction_ci95_halfwidth"]
        assert abs(row["analytic_accepted_fraction"] - accepted) <= ACCEPTED_TOLERANCE_FRACTION + accepted_half, row


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
    start, finish, _, dropped, _ = event_engine(SimFleet(1, model, routing, kv=kv), arrivals, work)
    assert not dropped.any()
    assert _max_held(start, finish, np.minimum(held, free)) <= free * (1 + 1e-12)
    assert np.all(np.diff(start) >= 0)  # FIFO: the head waits for room, and those behind it
    base = event_engine(SimFleet(1, model, routing), arrivals, work)
    loose = event_engine(SimFleet(1, model, routing, kv=KvLimit(np.inf, held, 1.0)), arrivals, work)
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
