"""Tests for rackcost.model.queues.routing: which queue each router makes of the fleet (issue 10, item 2).

Oracles: ``reference`` (textbook Erlang C by recursion, the M/M/k wait tail and quantile), the Erlang C sum
written out below, a small exact simulation of the FIFO many-server queue, and the Pollaczek-Khinchin formula.
"""

from __future__ import annotations

import doctest
import heapq
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.errors import ScenarioError
from rackcost.model.queues import queueing, routing
from rackcost.model.queues.routing import RoutingNotAnalytic
from rackcost.model.sim import simulation as sim
from rackcost.model.strategies import Routing
from rackcost.scenario import schema
from reference import TWO_SYSTEMS, wait_exceedance, wait_quantile

SETTINGS = settings(max_examples=60, deadline=None)
ANALYTIC = sorted(r.value for r in Routing if r.analytic)
POOLED = sorted(r.value for r in Routing if r.one_queue)
REFUSED = ["power_of_two", "round_robin"]

slots = st.integers(min_value=1, max_value=48)
replica_counts = st.integers(min_value=1, max_value=24)
utilisations = st.floats(min_value=0.02, max_value=0.97)
services = st.floats(min_value=0.05, max_value=30.0)
# no budget, or one from a microsecond: queueing.capacity_at_slo overflows (a RuntimeWarning) on a subnormal budget
budgets = st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=5.0))
exceedances = st.floats(min_value=1e-4, max_value=0.5)


# --------------------------------------------------------------------------- oracles


def erlang_c_sum(k: int, a: float) -> float:
    """C = (a^k/k! k/(k-a)) / (sum_{i<k} a^i/i! + a^k/k! k/(k-a)), a < k, each term in log space.

    Source: Kleinrock (1975), Queueing Systems Vol. 1, Eq. (3.40) (Erlang C); the terms are divided by the
    largest so that the sum neither over- nor underflows.
    """
    logs = [i * math.log(a) - math.lgamma(i + 1) for i in range(k)]
    log_top = k * math.log(a) - math.lgamma(k + 1) + math.log(k / (k - a))
    m = max(*logs, log_top)
    top = math.exp(log_top - m)
    return top / (math.fsum(math.exp(x - m) for x in logs) + top)


def mmc_exceedance_sum(t: float, c: int, lam: float, s: float) -> float:
    """One M/M/c: P(W > t) = C(c, lambda S) exp(-(c/S - lambda) t) (Kleinrock 1975, Sec. 3.5), C from the sum."""
    return erlang_c_sum(c, lam * s) * math.exp(-(c / s - lam) * t)


def random_feasible(n: int, lam: float, s: float, c: int, t: float, eps: float, tol: float) -> bool:
    """Whether ``n`` replicas fed at random meet P(W > t) <= eps (1 + tol): every one is an M/M/c at lambda/n."""
    return lam / n * s < c and wait_exceedance(t, c, lam / n, s) <= eps * (1.0 + tol)


def pooled_feasible(n: int, lam: float, s: float, c: int, t: float, eps: float, tol: float) -> bool:
    """Whether ``n`` replicas as one M/M/(n c) meet P(W > t) <= eps (1 + tol)."""
    return lam * s < n * c and wait_exceedance(t, n * c, lam, s) <= eps * (1.0 + tol)


FEASIBLE = {"pooled": pooled_feasible, "least_outstanding": pooled_feasible, "random": random_feasible}


def fifo_waits(arrivals_s: np.ndarray, services_s: np.ndarray, servers: int) -> np.ndarray:
    """Waits of a FIFO queue with ``servers`` servers: each request takes the server that frees first.

    The exact many-server recursion (Kiefer and Wolfowitz, "On the theory of queues with many servers",
    Trans. AMS 78, 1955): keep the servers' free times in a heap; a request arriving at ``x`` waits
    ``max(0, earliest free - x)``.
    """
    free = [0.0] * servers
    waits = np.empty(arrivals_s.size)
    for i, (x, b) in enumerate(zip(arrivals_s.tolist(), services_s.tolist(), strict=True)):
        start = max(free[0], x)
        waits[i] = start - x
        heapq.heapreplace(free, start + b)
    return waits


# --------------------------------------------------------------------------- the names


def test_one_enum_names_the_routers_for_the_schema_the_model_and_the_simulator() -> None:
    assert schema.Routing is Routing and sim.ROUTINGS == tuple(Routing)
    assert [r.value for r in Routing] == ["pooled", "least_outstanding", "power_of_two", "round_robin", "random"]
    assert set(ANALYTIC) | set(REFUSED) == {r.value for r in Routing}
    assert POOLED == ["least_outstanding", "pooled"] and ANALYTIC == ["least_outstanding", "pooled", "random"]
    assert [r.value for r in Routing if r.state_blind] == ["round_robin", "random"]
    assert [r.value for r in Routing if r.central_queue] == ["pooled"]
    assert all(r.words and r.value in str(r) for r in Routing)
    assert schema.Fleet().routing == "least_outstanding"


def _two_systems(**fleet: object) -> dict:
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    data["fleet"] = {**(data.get("fleet") or {}), **fleet}
    return data


@pytest.mark.parametrize("name", ANALYTIC)
def test_a_scenario_names_its_routing(name: str) -> None:
    scenario = rackcost.scenario_from_dict(_two_systems(routing=name), "two_systems.yaml")
    assert scenario.fleet.routing == name and type(scenario.fleet.routing) is str  # a registered router's name


@pytest.mark.parametrize("name", REFUSED)
def test_a_scenario_naming_a_router_without_analytic_form_is_refused_at_load(name: str) -> None:
    with pytest.raises(ScenarioError) as info:
        rackcost.scenario_from_dict(_two_systems(routing=name), "two_systems.yaml")
    (problem,) = info.value.problems
    assert problem.path == "fleet.routing" and f"rackcost simulate --routing {name}" in problem.message


def test_an_unknown_routing_is_a_scenario_error_at_its_path() -> None:
    with pytest.raises(ScenarioError) as info:
        rackcost.scenario_from_dict(_two_systems(routing="sticky"), "two_systems.yaml")
    assert "fleet.routing" in str(info.value)
    assert "least_outstanding" in str(info.value)


def test_the_numeric_core_module_needs_no_pydantic() -> None:
    code = "import sys, rackcost.model.queues.routing; "
    code += "bad = {'pydantic', 'yaml', 'pandas', 'rackcost.scenario.schema'} & set(sys.modules); "
    code += "assert not bad, bad"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)


def test_every_function_has_a_runnable_example() -> None:
    functions = {name for name in routing.__all__ if callable(getattr(routing, name))}
    with_examples = {t.name.rsplit(".", 1)[-1] for t in doctest.DocTestFinder().find(routing) if t.examples}
    assert functions - {"RoutingNotAnalytic"} <= with_examples


# --------------------------------------------------------------------------- refused and unknown routings

CALLS = {
    "replicas_needed": lambda r: routing.replicas_needed(r, 10.0, 1.0, 8, 0.1, 0.01),
    "capacity_at_slo": lambda r: routing.capacity_at_slo(r, 4, 8, 1.0, 0.1, 0.01),
    "wait_tail": lambda r: routing.wait_tail(r, 0.1, 0.99, 4, 8, 10.0, 1.0),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("name", REFUSED)
def test_routers_without_a_closed_form_are_refused_and_pointed_to_simulate(name: str, call: str) -> None:
    with pytest.raises(RoutingNotAnalytic) as info:
        CALLS[call](name)
    assert isinstance(info.value, ValueError)  # the lead turns it into a scenario error like any other
    assert info.value.routing == name
    message = str(info.value)
    assert "no analytic form" in message
    assert f"rackcost simulate --routing {name}" in message


@pytest.mark.parametrize("call", CALLS)
def test_an_unknown_routing_is_a_value_error_listing_the_routers(call: str) -> None:
    with pytest.raises(ValueError, match="routing must be one of") as info:
        CALLS[call]("sticky")
    assert not isinstance(info.value, RoutingNotAnalytic)
    assert all(name in str(info.value) for name in Routing)


@pytest.mark.parametrize("name", ANALYTIC)
def test_replicas_must_be_whole_and_at_least_one(name: str) -> None:
    with pytest.raises(ValueError, match="replicas must be >= 1"):
        routing.capacity_at_slo(name, [2, 0], 8, 1.0, 0.1, 0.01)
    with pytest.raises(ValueError, match="replicas must be integers"):
        routing.wait_tail(name, 0.1, 0.99, 2.5, 8, 1.0, 1.0)


def test_random_wait_tail_needs_a_stable_queue_at_every_replica() -> None:
    # 2 replicas of 4 slots, S = 1 s: 8 requests/s saturate them
    with pytest.raises(ValueError, match="stable"):
        routing.wait_tail("random", 0.1, 0.99, 2, 4, 8.0, 1.0)


def test_random_sizing_rejects_a_negative_or_nan_rate() -> None:
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="arrival_rps"):
            routing.replicas_needed("random", bad, 1.0, 8, 0.1, 0.01)


# --------------------------------------------------------------------------- pooled = queueing


@pytest.mark.parametrize("name", POOLED)
def test_pooled_routings_are_queueings_pooled_forms_exactly(name: str) -> None:
    rng = np.random.default_rng(7)
    lam = rng.uniform(1.0, 400.0, size=(5, 3))
    s = rng.uniform(0.5, 20.0, size=(5, 1))
    c = rng.integers(1, 64, size=(5, 1)).astype(float)
    t = rng.uniform(0.0, 2.0, size=(5, 1))
    eps = 0.01
    n = queueing.replicas_needed(lam, s, c, t, eps)
    assert np.array_equal(routing.replicas_needed(name, lam, s, c, t, eps), n)
    assert np.array_equal(
        routing.capacity_at_slo(name, n, c, s, t, eps, feasible_rps=lam),
        queueing.capacity_at_slo(n * c, s, t, eps, lam),
    )
    assert np.array_equal(routing.capacity_at_slo(name, n, c, s, t, eps), queueing.capacity_at_slo(n * c, s, t, eps))
    for got, want in zip(
        routing.wait_tail(name, t, 0.99, n, c, lam, s), queueing.wait_tail(t, 0.99, n * c, lam, s), strict=True
    ):
        assert np.array_equal(got, want)


# --------------------------------------------------------------------------- random = N independent M/M/c


@SETTINGS
@given(c=slots, n=replica_counts, rho=utilisations, s=services, t=budgets, q=st.sampled_from([0.5, 0.9, 0.99]))
def test_random_is_n_independent_mmc_queues_at_lambda_over_n(
    c: int, n: int, rho: float, s: float, t: float, q: float
) -> None:
    lam = rho * n * c / s  # the whole fleet's rate; each replica sees rho c / S
    exceedance, quantile = routing.wait_tail("random", t, q, n, c, lam, s)
    assert float(exceedance) == pytest.approx(mmc_exceedance_sum(t, c, lam / n, s), rel=1e-9, abs=1e-300)
    assert float(quantile) == pytest.approx(wait_quantile(q, c, lam / n, s), rel=1e-9, abs=1e-12)


@SETTINGS
@given(c=slots, n=replica_counts, rho=utilisations, s=services, t=budgets)
def test_a_pooled_fleet_never_waits_longer_than_the_same_fleet_at_random(
    c: int, n: int, rho: float, s: float, t: float
) -> None:
    lam = rho * n * c / s
    random_exceedance, random_p99 = routing.wait_tail("random", t, 0.99, n, c, lam, s)
    pooled_exceedance, pooled_p99 = routing.wait_tail("pooled", t, 0.99, n, c, lam, s)
    assert pooled_exceedance <= random_exceedance * (1.0 + 1e-12)
    assert pooled_p99 <= random_p99 * (1.0 + 1e-12) + 1e-15
    if n == 1:  # one replica: no routing decision to make
        assert pooled_exceedance == pytest.approx(float(random_exceedance), rel=1e-12)


def test_random_routing_matches_a_simulation_of_random_splitting() -> None:
    # 4 replicas of 2 slots at 80% load, exponential service: requests are sent to a replica drawn at random
    # and each replica is a FIFO queue over its 2 slots; a central queue over all 8 slots beside it. 120,000
    # requests, 30 batch means for the error bars; seed fixed.
    rng = np.random.default_rng(2026)
    n, c, s, t, requests = 4, 2, 1.0, 0.5, 120_000
    lam = 0.8 * n * c / s
    arrivals = np.cumsum(rng.exponential(1.0 / lam, requests))
    service = rng.exponential(s, requests)
    replica = rng.integers(0, n, requests)
    random_waits = np.empty(requests)
    for r in range(n):
        mine = replica == r
        random_waits[mine] = fifo_waits(arrivals[mine], service[mine], c)
    pooled_waits = fifo_waits(arrivals, service, n * c)
    warm = requests // 20
    for name, waits in (("random", random_waits), ("pooled", pooled_waits)):
        batches = np.array_split(waits[warm:] > t, 30)
        means = np.array([b.mean() for b in batches])
        half_width = 4.0 * means.std(ddof=1) / math.sqrt(means.size)  # about 4 standard errors
        analytic, _ = routing.wait_tail(name, t, 0.99, n, c, lam, s)
        assert abs(means.mean() - float(analytic)) <= half_width, (name, means.mean(), float(analytic), half_width)
    # and the two routers differ by far more than the error bars: the choice matters
    random_tail = float(routing.wait_tail("random", t, 0.99, n, c, lam, s)[0])
    pooled_tail = float(routing.wait_tail("pooled", t, 0.99, n, c, lam, s)[0])
    assert random_tail > 1.5 * pooled_tail


# --------------------------------------------------------------------------- capacity at SLO


@SETTINGS
@given(name=st.sampled_from(ANALYTIC), c=slots, n=replica_counts, s=services, t=budgets, eps=exceedances)
def test_capacity_at_slo_is_the_largest_rate_meeting_the_slo(
    name: str, c: int, n: int, s: float, t: float, eps: float
) -> None:
    capacity = float(routing.capacity_at_slo(name, n, c, s, t, eps))
    assert capacity > 0
    assert FEASIBLE[name](n, capacity, s, c, t, eps, tol=1e-12)
    assert not FEASIBLE[name](n, capacity * (1.0 + 1e-6), s, c, t, eps, tol=0.0)


@SETTINGS
@given(c=slots, n=replica_counts, s=services, t=budgets, eps=exceedances)
def test_random_capacity_is_n_times_one_replicas(c: int, n: int, s: float, t: float, eps: float) -> None:
    fleet = float(routing.capacity_at_slo("random", n, c, s, t, eps))
    one = float(queueing.capacity_at_slo(c, s, t, eps))
    assert fleet == pytest.approx(n * one, rel=1e-12)


@SETTINGS
# hints as the callers give them (the sizing demand against the fleet's capacity); a hint below about 1e-10 N c / S
# with no budget ends queueing.capacity_at_slo's Newton on its first step (reported to its owner)
@given(
    c=slots,
    n=replica_counts,
    s=services,
    t=budgets,
    eps=exceedances,
    hint=st.one_of(st.just(0.0), st.floats(0.01, 1.5)),
)
def test_a_feasible_rate_hint_changes_no_capacity(c: int, n: int, s: float, t: float, eps: float, hint: float) -> None:
    for name in ANALYTIC:
        plain = float(routing.capacity_at_slo(name, n, c, s, t, eps))
        hinted = float(routing.capacity_at_slo(name, n, c, s, t, eps, feasible_rps=hint * plain))
        # still verified to meet the SLO; queueing.capacity_at_slo stops within a relative 1e-10 of the bracket's
        # top (N c / S, not the root) and keeps a 1e-9 margin, so from another start it may land a little lower
        assert FEASIBLE[name](n, hinted, s, c, t, eps, tol=1e-12)
        assert hinted == pytest.approx(plain, rel=1e-6)
    # random: the fleet's hint reaches each replica as its share
    per_replica = queueing.capacity_at_slo(c, s, t, eps, hint * plain / n)
    assert float(routing.capacity_at_slo("random", n, c, s, t, eps, feasible_rps=hint * plain)) == n * per_replica


# --------------------------------------------------------------------------- replicas needed


@SETTINGS
@given(
    name=st.sampled_from(ANALYTIC),
    c=slots,
    load=st.floats(min_value=0.0, max_value=400.0),
    s=services,
    t=budgets,
    eps=exceedances,
)
def test_replicas_needed_is_the_fewest_meeting_the_slo(
    name: str, c: int, load: float, s: float, t: float, eps: float
) -> None:
    lam = load / s  # load erlangs
    n = int(routing.replicas_needed(name, lam, s, c, t, eps))
    assert n >= 1
    # within a relative 1e-9 of the exceedance target, where the library and the textbook sum may round apart
    assert FEASIBLE[name](n, lam, s, c, t, eps, tol=1e-9)
    assert n == 1 or not FEASIBLE[name](n - 1, lam, s, c, t, eps, tol=-1e-9)


def test_the_example_in_the_model_docs() -> None:
    # docs/model.md, Routing: 100 requests/s, 0.5 s budget, 1% misses; 10 slots and S = 20 s, 132 slots and S = 60 s
    text = (Path(__file__).resolve().parents[1] / "docs" / "model.md").read_text(encoding="utf-8")
    assert "pooled needs 208 replicas and random 480" in text and "47 and 57" in text
    for c, s, pooled, random in ((10, 20.0, 208, 480), (132, 60.0, 47, 57)):
        assert int(routing.replicas_needed("pooled", 100.0, s, c, 0.5, 0.01)) == pooled
        assert int(routing.replicas_needed("random", 100.0, s, c, 0.5, 0.01)) == random


def test_random_sizing_at_an_exact_boundary_takes_the_fewest() -> None:
    # one-slot replicas, 1 erlang, no budget, half may wait: at random each M/M/1 waits with probability
    # rho = 1/N, exactly 1/2 at N = 2 (the capacity at SLO sits 1e-9 inside that rate, N - 1 is checked directly)
    assert int(routing.replicas_needed("random", 1.0, 1.0, 1, 0.0, 0.5)) == 2
    assert int(routing.replicas_needed("random", 1.0, 1.0, 1, 0.0, 0.3)) == 4  # rho <= 0.3: ceil(1 / 0.3)
    assert int(routing.replicas_needed("random", 0.0, 1.0, 1, 0.0, 0.3)) == 1  # no demand: one replica


@SETTINGS
@given(c=slots, load=st.floats(min_value=0.0, max_value=2000.0), s=services, t=budgets, eps=exceedances)
def test_random_needs_at_least_as_many_replicas_as_pooled_and_serves_at_most_as_much(
    c: int, load: float, s: float, t: float, eps: float
) -> None:
    lam = load / s
    n_random = int(routing.replicas_needed("random", lam, s, c, t, eps))
    n_pooled = int(routing.replicas_needed("pooled", lam, s, c, t, eps))
    assert n_random >= n_pooled
    for n in {n_random, n_pooled}:
        random_capacity = float(routing.capacity_at_slo("random", n, c, s, t, eps))
        pooled_capacity = float(routing.capacity_at_slo("pooled", n, c, s, t, eps))
        # each is a relative 1e-9 inside its own exact root (queueing.capacity_at_slo's margin)
        assert random_capacity <= pooled_capacity * (1.0 + 1e-9)


@SETTINGS
@given(
    name=st.sampled_from(ANALYTIC),
    c=st.floats(min_value=1.0, max_value=300.0),
    loads=st.lists(st.floats(min_value=0.0, max_value=5000.0), min_size=2, max_size=12),
    s=services,
    t=budgets,
    eps=exceedances,
)
def test_more_demand_never_needs_fewer_replicas(
    name: str, c: float, loads: list[float], s: float, t: float, eps: float
) -> None:
    lam = np.sort(np.asarray(loads)) / s
    n = routing.replicas_needed(name, lam, s, c, t, eps)
    assert np.all(np.diff(n) >= 0), (lam, n)


@SETTINGS
@given(name=st.sampled_from(ANALYTIC), c=slots, s=services, t=budgets, eps=exceedances)
def test_more_replicas_never_serve_less(name: str, c: int, s: float, t: float, eps: float) -> None:
    capacity = routing.capacity_at_slo(name, np.arange(1, 40), c, s, t, eps)
    assert np.all(np.diff(capacity) > 0)


def test_a_sized_random_fleet_serves_its_sizing_demand() -> None:
    # the sizing demand is never above the capacity at SLO of the fleet sized for it, so the sizing point is
    # not reported overloaded (ceil(lambda / r1) replicas serve N r1 >= lambda)
    rng = np.random.default_rng(11)
    lam = rng.uniform(0.1, 5000.0, 500)
    s = rng.uniform(0.5, 20.0, 500)
    c = rng.integers(1, 256, 500).astype(float)
    t = rng.uniform(0.0, 2.0, 500)
    n = routing.replicas_needed("random", lam, s, c, t, 0.01)
    capacity = routing.capacity_at_slo("random", n, c, s, t, 0.01, feasible_rps=lam)
    assert np.all(capacity >= lam * (1.0 - 1e-9))


# --------------------------------------------------------------------------- broadcasting


@pytest.mark.parametrize("name", ANALYTIC)
def test_a_leading_sample_axis_broadcasts_like_queueing(name: str) -> None:
    # shapes as in fleet.py / demand.py: per sample (n, 1) against the demand points (n, points)
    rng = np.random.default_rng(3)
    samples, points = 4, 3
    lam = rng.uniform(10.0, 900.0, size=(samples, points))
    s = rng.uniform(1.0, 10.0, size=(samples, 1))
    c = rng.integers(4, 64, size=(samples, 1)).astype(float)
    t = rng.uniform(0.05, 1.0, size=(samples, 1))
    eps = 0.01
    n = routing.replicas_needed(name, lam, s, c, t, eps)
    assert n.shape == (samples, points) and n.dtype == np.int64
    n_prov = n.max(axis=1, keepdims=True) + 1  # (n, 1), like the provisioned fleet
    capacity = routing.capacity_at_slo(name, n_prov, c, s, t, eps)
    assert capacity.shape == (samples, 1)
    exceedance, p99 = routing.wait_tail(name, t, 0.99, n, c, lam, s)
    assert exceedance.shape == p99.shape == (samples, points)
    for i in range(samples):
        one = routing.capacity_at_slo(name, int(n_prov[i, 0]), c[i, 0], s[i, 0], t[i, 0], eps)
        assert float(capacity[i, 0]) == pytest.approx(float(one), rel=1e-9)  # queueing's Newton stops at 1e-10
        for j in range(points):
            args = (lam[i, j], s[i, 0], c[i, 0], t[i, 0], eps)
            assert int(n[i, j]) == int(routing.replicas_needed(name, *args))
            one = routing.wait_tail(name, t[i, 0], 0.99, int(n[i, j]), c[i, 0], lam[i, j], s[i, 0])
            assert (float(exceedance[i, j]), float(p99[i, j])) == (float(one[0]), float(one[1]))


def test_one_routing_default_everywhere():
    """The schema, the fleet policy, the model's functions and the simulator assumed different routers when given
    none (``pooled`` in the model, ``least_outstanding`` in the schema): one constant now, and every default is it."""
    import inspect

    from rackcost.analysis import referee, referee_arrivals
    from rackcost.evaluation import results
    from rackcost.model import inputs
    from rackcost.model.fleets import demand, disaggregation, pool_fleet
    from rackcost.model.replica import operating_point
    from rackcost.model.sim import sim_engines
    from rackcost.model.strategies import DEFAULT_ROUTING, IdlePolicy
    from rackcost.scenario.schema import Fleet

    policy = inputs.FleetPolicy(IdlePolicy.powered, None, 0, None)
    assert Fleet().routing is DEFAULT_ROUTING and policy.routing is DEFAULT_ROUTING
    defaults = []
    for module in (
        demand,
        disaggregation,
        operating_point,
        pool_fleet,
        sim_engines,
        results,
        referee,
        referee_arrivals,
    ):
        for _, fn in inspect.getmembers(module, inspect.isfunction):
            for name, parameter in inspect.signature(fn).parameters.items():
                if "routing" in name and parameter.default is not inspect.Parameter.empty and parameter.default:
                    defaults.append((module.__name__, fn.__name__, parameter.default))
    assert defaults and all(d == DEFAULT_ROUTING for *_, d in defaults), defaults
