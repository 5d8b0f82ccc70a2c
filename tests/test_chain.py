"""Tests for rackcost.evaluation.chain.evaluate: the whole method end to end (DESIGN.md section 2, steps 1-10)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost import ScenarioError
from rackcost.model.energy.power_law import GENERIC
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.schema import Scenario
from reference import TWO_SYSTEMS, crf, find_non_finite, smallest_replicas, wait_exceedance, wait_quantile

BASE: Scenario = rackcost.load_scenario(TWO_SYSTEMS)
SETTINGS = settings(max_examples=30, deadline=None)

# Sums, products and quotients of a handful of values: a few ulps at most.
RTOL_FLOAT = 1e-12
# Where the library's Erlang C (incomplete gamma, log space) meets the textbook recursion in reference.py.
RTOL_QUEUE = 1e-9


def variant(**changes) -> Scenario:
    """A deep copy of tests/data/two_systems.yaml with ``changes`` applied (dotted names, validated on set)."""
    scenario = BASE.model_copy(deep=True)
    for dotted, value in changes.items():
        *parents, leaf = dotted.split("__")
        obj = scenario
        for part in parents:
            obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
        setattr(obj, leaf, value)
    return scenario


def with_rates(rates: list[float], **changes) -> Scenario:
    scenario = variant(**changes)
    for point, rate in zip(scenario.demand, rates, strict=True):
        point.arrival_rps = rate
    return scenario


def rows(result: rackcost.Result, table: str = "points") -> list[dict]:
    return result.records[table]


def by_key(result: rackcost.Result) -> dict[tuple[str, str], dict]:
    return {(r["system"], r["demand_point"]): r for r in rows(result)}


# Three demand levels: quiet <= normal <= peak, the peak 0.5 to 200 rps.
@st.composite
def demand_rates(draw, max_quiet_share: float = 1.0) -> list[float]:
    peak = draw(st.floats(0.5, 200.0))
    quiet = peak * draw(st.floats(0.01, max_quiet_share))
    normal = quiet + (peak - quiet) * draw(st.floats(0.0, 1.0))
    return [quiet, normal, peak]


# --------------------------------------------------------------------------- invariants over random scenarios


@SETTINGS
@given(
    rates=demand_rates(),
    policy=st.sampled_from(["powered", "park"]),
    replicas=st.one_of(st.none(), st.integers(1, 6)),
    price=st.floats(0.0, 1.0),
    attainment=st.floats(0.5, 0.999),
    exponent=st.floats(0.5, 3.0),
)
def test_property_accepted_within_offered_and_everything_finite(
    rates, policy, replicas, price, attainment, exponent
) -> None:
    scenario = with_rates(
        rates,
        fleet__idle_policy=policy,
        fleet__replicas=replicas,
        facility__electricity_usd_per_kwh=price,
        slo__attainment_fraction=attainment,
        fleet__power_utilization_exponent=exponent,
    )
    result = rackcost.evaluate(scenario)
    for r in rows(result):
        assert 0.0 <= r["accepted_rps"] <= r["offered_rps"], r
        assert r["rejected_rps"] == pytest.approx(r["offered_rps"] - r["accepted_rps"], rel=RTOL_FLOAT, abs=1e-15)
        assert r["active_replicas"] <= r["provisioned_replicas"]
    data = result.to_dict()
    assert find_non_finite(data) == []
    json.dumps(data, allow_nan=False)  # raises on NaN or infinity


@SETTINGS
@given(rates=demand_rates(), factor=st.floats(1.0, 10.0, exclude_min=True))
def test_property_more_demand_never_needs_fewer_replicas(rates, factor) -> None:
    low = rackcost.evaluate(with_rates(rates))
    high = rackcost.evaluate(with_rates([r * factor for r in rates]))
    for a, b in zip(rows(low, "systems"), rows(high, "systems"), strict=True):
        assert b["provisioned_replicas"] >= a["provisioned_replicas"], (a["system"], a, b)


@SETTINGS
@given(
    rates=demand_rates(), p1=st.floats(0.0, 2.0), p2=st.floats(0.0, 2.0), policy=st.sampled_from(["powered", "park"])
)
def test_property_higher_electricity_price_never_lowers_cost(rates, p1, p2, policy) -> None:
    lo, hi = sorted((p1, p2))
    cheap = by_key(
        rackcost.evaluate(with_rates(rates, facility__electricity_usd_per_kwh=lo, fleet__idle_policy=policy))
    )
    dear = by_key(rackcost.evaluate(with_rates(rates, facility__electricity_usd_per_kwh=hi, fleet__idle_policy=policy)))
    for key, row in cheap.items():
        assert dear[key]["usd_per_accepted_request"] >= row["usd_per_accepted_request"] * (1 - RTOL_FLOAT), key


@SETTINGS
@given(
    rates=demand_rates(),
    index=st.sampled_from([0, 1]),
    c1=st.floats(0.0, 200_000.0),
    c2=st.floats(0.0, 200_000.0),
)
def test_property_higher_capex_never_lowers_cost(rates, index, c1, c2) -> None:
    lo, hi = sorted((c1, c2))
    field = f"systems__{index}__costs__capex_usd_per_accelerator"
    cheap = by_key(rackcost.evaluate(with_rates(rates, **{field: lo})))
    dear = by_key(rackcost.evaluate(with_rates(rates, **{field: hi})))
    for key, row in cheap.items():
        assert dear[key]["usd_per_accepted_request"] >= row["usd_per_accepted_request"] * (1 - RTOL_FLOAT), key


# Why quiet costs at least as much per accepted request as peak (powered fleet, the file's capex):
# cost/h = K + e1 * lambda (K: capital, fixed opex and idle energy; e1 lambda: energy that rises with load).
# accepted_quiet <= lambda_q = rho lambda_p and accepted_peak >= 0.99 lambda_p (the fleet meets 99 %
# attainment at peak). cost_q >= K/lambda_q + e1 and cost_p <= (K/lambda_p + e1)/0.99, so cost_q >= cost_p
# when K (1/rho - 1/0.99) >= 0.0101 e1 lambda_p. With rho <= 0.9 that is K >= 0.1 x (load energy at peak),
# which holds by a wide margin here: capital alone is ~$8.6/h per replica of A and ~$3.4/h per replica of B,
# their load energy at most 8 x 500 W x 1.2 x $1/kWh = $4.8/h and 4 x 320 W x 1.2 x $1 = $1.5/h.
@SETTINGS
@given(rates=demand_rates(max_quiet_share=0.9), price=st.floats(0.0, 1.0))
def test_property_quiet_never_cheaper_per_request_than_peak(rates, price) -> None:
    result = rackcost.evaluate(with_rates(rates, facility__electricity_usd_per_kwh=price))
    points = by_key(result)
    for system in ("A", "B"):
        quiet, peak = points[system, "quiet"], points[system, "peak"]
        assert quiet["usd_per_accepted_request"] >= peak["usd_per_accepted_request"] * (1 - RTOL_FLOAT), system


# With a linear power curve (exponent 1) and a load-independent service time (system B: one operating point), the
# fleet's accelerator power is N_on idle + (busy - idle) a/c + N_parked parked: parking moves replicas from idle to
# parked power and the load term stays the same, so with parked <= idle park never draws more than powered.
# System A's operating point moves with load: packing the load onto fewer replicas raises their batch and so
# every request's service time, which raises the load term; whether parking saves then depends on the numbers
# (with parked = idle it does not), so the property is stated for B only.
@SETTINGS
@given(rates=demand_rates(), parked_share=st.floats(0.0, 1.0))
def test_property_park_never_draws_more_than_powered(rates, parked_share) -> None:
    changes = {
        "systems__0__hardware__accelerator_parked_w": 100.0 * parked_share,
        "systems__1__hardware__accelerator_parked_w": 80.0 * parked_share,
    }
    powered = by_key(rackcost.evaluate(with_rates(rates, fleet__idle_policy="powered", **changes)))
    park = by_key(rackcost.evaluate(with_rates(rates, fleet__idle_policy="park", **changes)))
    for key, row in powered.items():
        if key[0] == "B":
            assert park[key]["it_power_kw"] <= row["it_power_kw"] * (1 + RTOL_FLOAT), key
        assert park[key]["provisioned_replicas"] == row["provisioned_replicas"]


# --------------------------------------------------------------------------- the chosen operating point


def test_littles_law_on_the_chosen_point() -> None:
    result = rackcost.evaluate(BASE)
    for row in rows(result, "systems"):
        # Little: c = mu S for every chosen point
        assert row["concurrency"] == pytest.approx(row["requests_per_s_per_replica"] * row["service_s"], rel=RTOL_FLOAT)
        # token accounting: total tokens/s = rps x (ISL + OSL), output = rps x OSL
        assert row["total_tokens_per_s_per_replica"] == pytest.approx(row["requests_per_s_per_replica"] * 1500.0)
        assert row["output_tokens_per_s_per_replica"] == pytest.approx(row["requests_per_s_per_replica"] * 500.0)
        # and the point meets the SLO before queueing: TPOT <= 50 ms, TTFT < 2,000 ms
        assert row["tpot_ms"] <= 50.0 and row["ttft_ms"] < 2000.0
        assert row["queueing_budget_ms"] == pytest.approx(2000.0 - row["ttft_ms"], rel=RTOL_FLOAT)


def test_chosen_point_of_a_lies_on_its_service_time_curve() -> None:
    # System A's measured points (c, rps = total/1500, TPOT, TTFT): (8, 2, 20, 300), (32, 6, 30, 500),
    # (128, 12, 60, 1500). Whatever concurrency is chosen, its service time S = c / rps and latencies are the
    # linear interpolation in c between the neighbouring measured points, and its rate is c / S (DESIGN.md step 2).
    row = next(r for r in rows(rackcost.evaluate(BASE), "systems") if r["system"] == "A")
    c = row["concurrency"]
    knots = [(8.0, 2.0, 20.0, 300.0), (32.0, 6.0, 30.0, 500.0), (128.0, 12.0, 60.0, 1500.0)]
    assert 8.0 <= c <= 128.0
    left, right = next((a, b) for a, b in zip(knots, knots[1:], strict=False) if a[0] <= c <= b[0])
    w = (c - left[0]) / (right[0] - left[0])
    service = (1 - w) * left[0] / left[1] + w * right[0] / right[1]
    rps = c / service
    tpot, ttft = (left[i] + w * (right[i] - left[i]) for i in (2, 3))
    assert row["requests_per_s_per_replica"] == pytest.approx(rps, rel=1e-10)
    assert row["tpot_ms"] == pytest.approx(tpot, rel=1e-10)
    assert row["ttft_ms"] == pytest.approx(ttft, rel=1e-10)
    assert row["service_s"] == pytest.approx(c / rps, rel=1e-10)


# --------------------------------------------------------------------------- a worked example, system B


def test_worked_example_system_b() -> None:
    # System B of tests/data/two_systems.yaml by hand (DESIGN.md steps 1-8):
    #   claim 4,000 tokens/s/kW x 0.5 kW x 4 accelerators = 8,000 total tokens/s per replica
    #   mu = 8,000 / (1,000 + 500) = 16/3 rps; c = 16; S = c / mu = 3 s; budget = 2,000 - 400 = 1,600 ms
    #   replicas: smallest N with P(W > 1.6 s) <= 1 % on 16 N slots at 20 rps (textbook M/M/k tail)
    result = rackcost.evaluate(BASE)
    sysrow = next(r for r in rows(result, "systems") if r["system"] == "B")
    mu, s, budget = 16.0 / 3.0, 3.0, 1.6
    assert sysrow["requests_per_s_per_replica"] == pytest.approx(mu, rel=RTOL_FLOAT)
    assert sysrow["service_s"] == pytest.approx(s, rel=RTOL_FLOAT)
    assert sysrow["queueing_budget_ms"] == pytest.approx(1600.0, rel=RTOL_FLOAT)
    n = smallest_replicas(20.0, s, 16, budget, 0.01)
    assert sysrow["provisioned_replicas"] == n
    #   one replica per 4-accelerator node; node rated 4 x 500 + 800 = 2,800 W; a 40 kW rack holds
    #   floor((40,000 - 1,000) / 2,800) = 13 > 8 slots -> 8 nodes per rack -> ceil(n / 8) racks
    racks = -(-n // 8)
    assert (sysrow["nodes"], sysrow["racks"]) == (n, racks)
    #   capex: n x (4 x $20,000 + $40,000); capital per hour with A/P(8 %, 5 y)
    capex = n * (4 * 20_000.0 + 40_000.0)
    assert sysrow["capex_usd"] == pytest.approx(capex, rel=RTOL_FLOAT)
    capital = capex * crf(0.08, 5.0) / 8760.0
    #   fixed opex: colocation $150/kW-month on rated kW = n x 2.8 kW + racks x 1 kW (no maintenance for B)
    prov_kw = n * 2.8 + racks * 1.0
    assert sysrow["provisioned_it_kw"] == pytest.approx(prov_kw, rel=RTOL_FLOAT)
    fixed = prov_kw * 150.0 * 12.0 / 8760.0
    points = by_key(result)
    for name, lam in [("quiet", 5.0), ("normal", 12.0), ("peak", 20.0)]:
        row = points["B", name]
        k = 16 * n
        u = lam * s / k
        # the fitted power law (no accelerator named: the fit of both families, rackcost.model.energy.power_law.GENERIC,
        # fitted on the ML.ENERGY leaderboard's H100 and B200 runs): idle + (busy - idle) * u ** alpha
        alpha = GENERIC.exponent
        it_w = 4 * n * (80.0 + (400.0 - 80.0) * u**alpha) + n * 800.0 + racks * 1000.0
        fac_kw = it_w * 1.2 / 1000.0
        total = capital + fixed + fac_kw * 0.10
        accepted = lam * (1.0 - wait_exceedance(budget, k, lam, s))
        assert row["utilization_fraction"] == pytest.approx(u, rel=RTOL_FLOAT)
        assert row["it_power_kw"] == pytest.approx(it_w / 1000.0, rel=RTOL_FLOAT)
        assert row["facility_power_kw"] == pytest.approx(fac_kw, rel=RTOL_FLOAT)
        assert row["capital_usd_per_hour"] == pytest.approx(capital, rel=1e-10)  # crf() uses expm1: ~1e-15 apart
        assert row["fixed_opex_usd_per_hour"] == pytest.approx(fixed, rel=RTOL_FLOAT)
        assert row["total_usd_per_hour"] == pytest.approx(total, rel=1e-10)
        assert row["accepted_rps"] == pytest.approx(accepted, rel=RTOL_QUEUE)
        assert row["usd_per_accepted_request"] == pytest.approx(total / (accepted * 3600.0), rel=RTOL_QUEUE)
        assert row["usd_per_million_accepted_output_tokens"] == pytest.approx(
            total / (accepted * 500.0 * 3600.0) * 1e6, rel=RTOL_QUEUE
        )
        assert row["output_tokens_per_kwh"] == pytest.approx(accepted * 500.0 * 3600.0 / fac_kw, rel=RTOL_QUEUE)
        assert row["ttft_p99_ms"] == pytest.approx(400.0 + 1000.0 * wait_quantile(0.99, k, lam, s), rel=RTOL_QUEUE)
        # capacity at SLO: within the SLO at it, outside just above it
        cap = row["capacity_at_slo_rps"]
        assert wait_exceedance(budget, k, cap, s) <= 0.01 * (1 + RTOL_QUEUE)
        assert wait_exceedance(budget, k, cap * (1 + 1e-6), s) > 0.01
        assert row["spare_capacity_fraction"] == pytest.approx((cap - lam) / cap, rel=RTOL_FLOAT)
    # tokens per facility kWh at the SLO point: one replica flat out with its share of host and rack overhead,
    # 4 x 400 W + 800 W x 4/4 + 1,000 W x 4 / (4 x 8) = 2,525 W IT -> 3.03 kW at the wall; 8,000 tokens/s.
    assert sysrow["slo_point_total_tokens_per_facility_kwh"] == pytest.approx(8000.0 * 3600.0 / 3.03, rel=RTOL_FLOAT)


# --------------------------------------------------------------------------- tables agree with each other


def test_blended_cost_recomputed_from_points() -> None:
    result = rackcost.evaluate(BASE)
    for sysrow in rows(result, "systems"):
        pts = [r for r in rows(result) if r["system"] == sysrow["system"]]
        # DESIGN.md step 8: blended = cost per day / accepted requests per day, hours as weights
        cost = sum(r["total_usd_per_hour"] * r["hours_per_day"] for r in pts)
        accepted = sum(r["accepted_rps"] * 3600.0 * r["hours_per_day"] for r in pts)
        assert sum(r["hours_per_day"] for r in pts) == 24.0
        assert sysrow["blended_usd_per_accepted_request"] == pytest.approx(cost / accepted, rel=RTOL_FLOAT)
        assert sysrow["usd_per_day"] == pytest.approx(cost, rel=RTOL_FLOAT)


def test_claim_ratio_is_system_claim_over_baseline_claim() -> None:
    # Baseline A has no claim: its headline is the curve's peak total throughput per kW of rated accelerator
    # power, 18,000 tokens/s / (8 x 0.7 kW) = 3,214.29 tokens/s/kW. B claims 4,000 tokens/s/kW.
    # The row's kind says 'derived' (not 'claim') because one side of the ratio is not a vendor claim.
    result = rackcost.evaluate(BASE)
    (claim,) = [r for r in rows(result, "comparison") if r["metric"].startswith("headline")]
    assert (claim["system"], claim["baseline"]) == ("B", "A")
    assert claim["kind"] == "derived"
    assert claim["system_value"] == pytest.approx(4000.0, rel=RTOL_FLOAT)
    assert claim["baseline_value"] == pytest.approx(18000.0 / 5.6, rel=RTOL_FLOAT)
    assert claim["advantage_ratio"] == pytest.approx(4000.0 / (18000.0 / 5.6), rel=RTOL_FLOAT)


def test_cost_rows_of_the_comparison_match_the_points() -> None:
    result = rackcost.evaluate(BASE)
    points = by_key(result)
    for r in rows(result, "comparison"):
        if r["metric"].startswith("cost per accepted request at "):
            point = r["metric"].removeprefix("cost per accepted request at ")
            sv, bv = points["B", point]["usd_per_accepted_request"], points["A", point]["usd_per_accepted_request"]
            assert (r["system_value"], r["baseline_value"]) == (sv, bv)
            # advantage > 1 means the system is cheaper: baseline cost / system cost
            assert r["advantage_ratio"] == pytest.approx(bv / sv, rel=RTOL_FLOAT)


# --------------------------------------------------------------------------- named outcomes


def test_fixed_small_fleet_is_overloaded_with_admission_control_warning() -> None:
    result = rackcost.evaluate(variant(fleet__replicas=1))
    points = by_key(result)
    peak = points["A", "peak"]
    assert peak["provisioned_replicas"] == 1
    assert peak["status"].startswith("overloaded")
    assert peak["accepted_rps"] <= peak["capacity_at_slo_rps"] < peak["offered_rps"]
    assert peak["rejected_rps"] >= peak["offered_rps"] - peak["capacity_at_slo_rps"]
    assert peak["spare_capacity_fraction"] < 0
    assert any("A at peak" in w and "admission control" in w for w in result.warnings), result.warnings
    # rows within capacity stay 'ok'
    for r in rows(result):
        assert (r["status"] == "ok") == (r["offered_rps"] <= r["capacity_at_slo_rps"]), r


def test_an_slo_no_system_meets_is_a_named_error() -> None:
    # with no system left to evaluate there is no answer but the reasons, each at its YAML path
    with pytest.raises(ScenarioError) as info:
        rackcost.evaluate(variant(slo__tpot_limit_ms=1.0))
    assert [p.path for p in info.value.problems] == ["systems[0].performance", "systems[1].performance"]
    assert all("its fastest TPOT is" in p.message and "over the 1 ms limit" in p.message for p in info.value.problems)


def test_a_node_over_the_rack_limit_leaves_its_system_out_and_the_others_evaluated() -> None:
    # A's node is rated 8 x 700 + 1,500 = 7.1 kW; with 1 kW of rack overhead a 5 kW rack cannot hold it (by 3.1 kW).
    # B's fits: it is evaluated, A is listed as unserved with why, and warned about first (issue 22)
    result = rackcost.evaluate(variant(facility__rack_power_limit_kw=5.0))
    (unserved,) = result.unserved
    assert unserved["system"] == "A" and unserved["path"] == "systems[0].hardware"
    assert unserved["limit"] == "rack_power" and "over the rack power limit of 5 kW" in unserved["reason"]
    assert "by 3.1 kW" in unserved["reason"]
    assert {r["system"] for r in result.records["systems"]} == {"B"}
    assert {r["system"] for r in result.records["points"]} == {"B"}
    assert result.warnings[0].startswith("A is not evaluated:")
    assert result.to_dict()["unserved"] == [unserved]
    # B's figures are those of a scenario without A
    data = scenario_to_data(variant(facility__rack_power_limit_kw=5.0))
    data["systems"] = [s for s in data["systems"] if s["name"] == "B"]
    data.pop("figures", None)
    alone = rackcost.evaluate(rackcost.scenario_from_dict(data)).records["systems"]
    assert result.records["systems"] == alone


def test_a_system_that_cannot_meet_the_slo_never_blocks_the_others() -> None:
    # the bundled default at a 5 ms TPOT limit: GB300 NVL72's fastest measured TPOT is 5.907 ms, Jalapeño's
    # fastest is below it (issue 22: "System X cannot meet a 5 ms TPOT" is itself the finding)
    data = scenario_to_data(rackcost.load_scenario("deepseek-r1-jalapeno-vs-gb300.yaml"))
    data["slo"]["tpot_limit_ms"] = 5.0
    result = rackcost.evaluate(rackcost.scenario_from_dict(data))
    (unserved,) = result.unserved
    assert unserved == {
        "system": "GB300 NVL72",
        "path": "systems[0].performance",
        "limit": "slo",
        "reason": "no operating point of 'GB300 NVL72' meets the SLO (TPOT <= 5 ms, TTFT < 2000 ms): its fastest "
        "TPOT is 5.907 ms, 18% over the 5 ms limit",
    }
    assert [r["system"] for r in result.records["systems"]] == ["Jalapeño"]
    assert result.records["comparison"] == []  # one system left: nothing to compare


def test_comparability_warning_on_provenance() -> None:
    result = rackcost.evaluate(BASE)
    assert any("different provenance class (vendor vs independent)" in w for w in result.warnings)


def test_tiny_cost_of_capital_gives_finite_results() -> None:
    # cost_of_capital_fraction = 1e-20 is a valid input (ge=0) meaning "essentially free money": the result
    # must be the r -> 0 limit (capital = capex / life), not an infinity or a crash.
    result = rackcost.evaluate(
        variant(systems__0__costs__cost_of_capital_fraction=1e-20, systems__1__costs__cost_of_capital_fraction=1e-20)
    )
    zero = rackcost.evaluate(
        variant(systems__0__costs__cost_of_capital_fraction=0.0, systems__1__costs__cost_of_capital_fraction=0.0)
    )
    assert find_non_finite(result.to_dict()) == []
    for a, b in zip(rows(result, "systems"), rows(zero, "systems"), strict=True):
        assert a["capital_usd_per_hour"] == pytest.approx(b["capital_usd_per_hour"], rel=1e-12)


# --------------------------------------------------------------------------- routing, named (issue 10)


def test_random_routing_needs_at_least_the_pooled_fleet_and_is_named() -> None:
    pooled = rackcost.evaluate(variant(fleet__routing="least_outstanding"))
    random = rackcost.evaluate(variant(fleet__routing="random"))
    assert (pooled.routing, random.routing) == ("least_outstanding", "random")
    for a, b in zip(rows(pooled, "systems"), rows(random, "systems"), strict=True):
        assert b["routing"] == "random" and a["routing"] == "least_outstanding"
        assert b["slo_replicas"] >= a["slo_replicas"], a["system"]
    # capacity at SLO of independent replicas is at most that of the pooled queue over the same slots
    for a, b in zip(rows(pooled, "points"), rows(random, "points"), strict=True):
        if a["provisioned_replicas"] == b["provisioned_replicas"]:
            assert b["capacity_at_slo_rps"] <= a["capacity_at_slo_rps"] * (1 + RTOL_FLOAT)


@pytest.mark.parametrize("routing", ["power_of_two", "round_robin"])
def test_routings_without_an_analytic_form_are_refused_with_a_pointer_to_simulate(routing: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        rackcost.evaluate(variant(fleet__routing=routing))
    (problem,) = exc.value.problems
    assert problem.path == "fleet.routing"
    assert f"rackcost simulate --routing {routing}" in problem.message
    # and a file that names it is refused at load, where the dashboard shows the message under the field
    data = scenario_to_data(BASE)
    data["fleet"]["routing"] = routing
    with pytest.raises(ScenarioError, match="fleet.routing"):
        rackcost.scenario_from_dict(data, "routed.yaml")


def test_an_evaluation_builds_each_part_when_first_read_and_keeps_it() -> None:
    """``rackcost.evaluation.chain.evaluation`` splits the scenario; the chosen points, the outcomes and the tables are
    built as they are read, once: an analysis that needs only the chosen points (the Monte Carlo) runs no fleet."""
    from rackcost.evaluation.chain import evaluation

    sc = rackcost.load_scenario(TWO_SYSTEMS)
    once = evaluation(sc)
    assert evaluation(once) is once
    assert not {"chosen", "outcomes", "apis", "result"} & set(vars(once))
    chosen = once.chosen
    assert "outcomes" not in vars(once) and once.chosen is chosen
    assert once.result.to_json() == rackcost.evaluate(sc).to_json()
    assert once.outcomes is once.outcomes and once.result is once.result
    assert once.kept("x", lambda: [1]) is once.kept("x", lambda: [2])


@pytest.mark.parametrize("name", [p.name for p in rackcost.bundled_scenarios()])
def test_power_per_rack_times_racks_is_the_fleets_power_beside_the_rack_limit(name: str) -> None:
    """Each hardware system's mean IT kW per rack x racks x 24 h x PUE is the day's wall energy (energy = sum_j wall
    kW_j x h_j, wall = IT x PUE: model.md step 7); its peak per rack x racks is the largest peak IT power of any point,
    at least the mean; the rack limit is the scenario's for an owned system, none for a rented one or an API."""
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path(name))
    result = rackcost.evaluate(scenario)
    for row in result.records["systems"]:
        system = next(s for s in scenario.systems if s.name == row["system"])
        mean, peak, limit = (
            row[k] for k in ("mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw")
        )
        if system.api is not None:
            assert (mean, peak, limit) == (None, None, None)
            continue
        points = [p for p in result.records["points"] if p["system"] == row["system"]]
        pue = points[0]["facility_power_kw"] / points[0]["it_power_kw"]
        assert mean * row["racks"] * 24 * pue == pytest.approx(row["facility_energy_kwh_per_day"], rel=1e-9)
        assert peak * row["racks"] == pytest.approx(max(p["peak_it_power_kw"] for p in points), rel=1e-12)
        assert peak >= mean
        own = system.facility.rack_power_limit_kw if system.facility is not None else None
        rack_limit = own or scenario.facility.rack_power_limit_kw
        assert limit == (rack_limit if system.payment.owned else None)
