"""Steps 3 to 8 of a disaggregated system: each pool's operating point, fleet, power and cost, and the system's
(the rules are :mod:`rackcost.model.fleets.disaggregation`'s, docs/model.md "Disaggregated prefill and
decode").

1. :func:`choose_pools`: the decode pool's operating point first, then the prefill pool's at the decode pool's TPOT.
   Each is the aggregated search (:func:`rackcost.model.replica.operating_point.search_operating_point`: fewest
   replicas, exactly) on the pool's own curve, budget and share of the misses.
2. :func:`run_pools`: each pool's steps 5 to 8 by :func:`rackcost.model.fleets.fleet.run_fleet`, the same function as an
   aggregated fleet's, with the pool's SLO (:func:`pool_slo`), then the system's figures from both
   (:func:`combine_fleets`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from rackcost.model.fleets.disaggregation import harmonic_tokens_per_kwh, joint_accepted_rps, split_miss_target
from rackcost.model.fleets.fleet import run_fleet
from rackcost.model.inputs import FleetPolicy, PoolInputs, SampledInputs, SloInputs, SystemInputs
from rackcost.model.outcomes import ChosenPoint, DemandOutcome, FleetOutcome
from rackcost.model.replica.operating_point import SearchRule, queueing_budget_s, search_operating_point
from rackcost.model.replica.performance import Curve
from rackcost.model.strategies import DEFAULT_ROUTING, IdlePolicy

__all__ = ["PooledChosen", "PooledFleet", "choose_pools", "combine_demand", "combine_fleets", "pool_slo", "run_pools"]

ROLES = ("prefill", "decode")


@dataclass(frozen=True)
class PooledChosen(ChosenPoint):
    """A disaggregated system's chosen operating points: the system's (the decode pool's point with the TTFT of
    the prefill pool's point and the transfer; the prefill pool's budget; both pools' replicas), and each pool's.

    Attributes
    ----------
    prefill, decode
        Each pool's chosen point (the prefill pool's at the decode pool's TPOT; the decode pool's budget is 0).
    prefill_inputs
        The prefill pool's inputs with the decode pool's TPOT at its chosen point, for the end-to-end budget.
    """

    # keyword-only: ChosenPoint ends with fields that have defaults
    prefill: ChosenPoint = field(kw_only=True)
    decode: ChosenPoint = field(kw_only=True)
    prefill_inputs: SystemInputs = field(kw_only=True)


@dataclass(frozen=True)
class PooledFleet(FleetOutcome):
    """A disaggregated system's fleet: the system's figures (:func:`combine_fleets`) and each pool's fleet."""

    prefill: FleetOutcome | None = None
    decode: FleetOutcome | None = None

    def pool(self, role: str) -> FleetOutcome:
        """The ``prefill`` or ``decode`` pool's fleet."""
        fleet = self.prefill if role == "prefill" else self.decode
        assert fleet is not None  # combine_fleets sets both
        return fleet


def _with_tpot(curve: Curve, tpot_ms: float) -> Curve:
    return replace(curve, tpot_ms=np.full(curve.tpot_ms.shape, tpot_ms))


def _search(
    inp: SystemInputs,
    ok: np.ndarray,
    budget_s: np.ndarray,
    sizing_rps: float,
    attainment_fraction: float,
    max_utilization_fraction: float,
    routing: str,
    variability: float,
) -> ChosenPoint:
    """The aggregated search (:func:`rackcost.model.replica.operating_point.choose_point`'s) on one pool's
    candidates."""
    cand = inp.coarse
    host_share_w = inp.host_w_per_replica
    apr = inp.accelerators_per_replica
    busy = (
        cand.power_w_per_accelerator
        if cand.power_w_per_accelerator is not None
        else np.full(cand.concurrency.shape, inp.busy_w)
    )
    v = variability
    best, n = search_operating_point(
        cand.concurrency if v == 1.0 else cand.concurrency / v,
        cand.service_s,
        np.where(ok, budget_s, 0.0),
        ok,
        apr * busy + host_share_w,
        apr * inp.idle_w + host_share_w,
        sizing_rps if v == 1.0 else sizing_rps / v,
        attainment_fraction,
        max_utilization_fraction,
        SearchRule(routing),
    )
    return ChosenPoint(cand.take(np.array([best])), float(busy[best]), float(budget_s[best]), n)


def choose_pools(
    inp: SystemInputs,
    slo: SloInputs,
    sizing_rps: float,
    max_utilization_fraction: float,
    routing: str = DEFAULT_ROUTING,
    arrival_variability: float = 1.0,
) -> PooledChosen:
    """Each pool's operating point: the fewest replicas for the sizing demand, each on its part of the SLO.

    **Decode first:** among the decode candidates whose TPOT meets the TPOT limit, whose KV caches fit (where the
    pool gives its memory) and, with an end-to-end limit, whose ``(OSL - 1) x TPOT`` leaves the fastest prefill and
    the transfer room, the one that needs the fewest replicas with no wait (budget 0) at the decode pool's share of
    the misses. **Then prefill:** among the prefill candidates whose prefill time plus the transfer is under the
    TTFT limit (and the end-to-end limit with the chosen TPOT), the one that needs the fewest replicas for its
    budget (:func:`rackcost.model.fleets.disaggregation.prefill_budget_s`) at the rest of the misses. Both pools see the
    sizing rate and the arrivals' variability (the decode pool is fed by the prefill pool's departures, Poisson
    when the arrivals are, by Burke's theorem, and no burstier than its arrivals otherwise). The output length's
    spread does not enter: the decode pool's budget is 0, and a prefill's work does not depend on the output.

    Raises
    ------
    ValueError
        If a pool has no candidate that meets its part of the SLO (the evaluation reports the system unserved
        first, :func:`rackcost.scenario.feasibility.unserved_systems`).
    """
    pools = inp.pools
    if pools is None:
        raise ValueError(f"{inp.name!r} is not disaggregated")
    miss_p, miss_d = split_miss_target(slo.miss_target_fraction, pools.decode_miss_share)
    osl = slo.output_tokens
    prefill, decode = pools.prefill, pools.decode
    fastest_ms = float(np.min(prefill.coarse.ttft_ms))
    dc = decode.coarse
    ok_d = dc.tpot_ms <= slo.tpot_limit_ms
    if slo.e2e_limit_ms is not None:
        ok_d &= fastest_ms + (osl - 1.0) * dc.tpot_ms < slo.e2e_limit_ms
    if decode.kv_memory is not None:
        ok_d &= decode.kv_memory.fits(dc.concurrency)
    rest = (max_utilization_fraction, routing, arrival_variability)
    chosen_d = _search(decode, ok_d, np.zeros(dc.concurrency.shape), sizing_rps, 1.0 - miss_d, *rest)
    tpot_d = float(chosen_d.point.tpot_ms[0])
    prefill = replace(prefill, curve=_with_tpot(prefill.curve, tpot_d), coarse=_with_tpot(prefill.coarse, tpot_d))
    pc = prefill.coarse
    budget_p = queueing_budget_s(pc.ttft_ms, pc.tpot_ms, osl, slo.ttft_limit_ms, slo.e2e_limit_ms)
    ok_p = (pc.ttft_ms < slo.ttft_limit_ms) & (budget_p > 0)
    chosen_p = _search(prefill, ok_p, budget_p, sizing_rps, 1.0 - miss_p, *rest)
    system_point = replace(chosen_d.point, ttft_ms=chosen_p.point.ttft_ms.copy())
    return PooledChosen(
        point=system_point,
        busy_w=chosen_d.busy_w,
        budget_s=chosen_p.budget_s,
        slo_replicas=chosen_p.slo_replicas + chosen_d.slo_replicas,
        prefill=chosen_p,
        decode=chosen_d,
        prefill_inputs=prefill,
    )


def pool_slo(slo: SloInputs, pools: PoolInputs, role: str) -> SloInputs:
    """A pool's part of the SLO, as its fleet reads it (:func:`rackcost.model.fleets.fleet.run_fleet`).

    The prefill pool: the system's limits, at its share of the misses (its curve's TTFT includes the transfer, its
    TPOT is the decode pool's). The decode pool: its share of the misses and no wait budget (a TTFT limit of 0 over
    a curve whose TTFT is 0; no end-to-end limit, which the prefill pool's budget already holds).
    """
    miss_p, miss_d = split_miss_target(slo.miss_target_fraction, pools.decode_miss_share)
    if role == "prefill":
        return replace(slo, attainment_fraction=1.0 - miss_p)
    return replace(slo, attainment_fraction=1.0 - miss_d, ttft_limit_ms=0.0, e2e_limit_ms=None)


def pool_policy(policy: FleetPolicy, inp: SystemInputs, role: str) -> FleetPolicy:
    """A pool's fleet policy: a pool rented on demand runs only what each point needs (as a system does); the
    output length's spread is the decode pool's alone (a prefill's work does not depend on the output)."""
    if inp.payment.active_only:
        policy = replace(policy, idle_policy=IdlePolicy.park)
    if role == "prefill":
        policy = replace(policy, service_scv=1.0)
    return policy


def run_pools(
    inp: SystemInputs,
    chosen: PooledChosen,
    sampled: dict[str, SampledInputs],
    policy: FleetPolicy,
    slo: SloInputs,
    resize: bool = True,
    serve_with: dict[str, SampledInputs] | None = None,
    fragility_scvs: tuple[float, ...] = (),
    swing_amplitudes: tuple[float, ...] = (),
) -> PooledFleet:
    """Steps 5 to 8 of each pool (:func:`rackcost.model.fleets.fleet.run_fleet`), and the system's figures from both.

    Parameters
    ----------
    inp, chosen
        The system's inputs (:attr:`SystemInputs.pools` holds the pools) and chosen points (:func:`choose_pools`).
    sampled, serve_with
        Each pool's sampled inputs (and its one central sample, when only prices vary), by role.
    policy, slo, resize, fragility_scvs, swing_amplitudes
        As :func:`rackcost.model.fleets.fleet.run_fleet`'s; each pool reads its own part (:func:`pool_slo`,
        :func:`pool_policy`).
    """
    pools = inp.pools
    assert pools is not None  # choose_pools made ``chosen`` for a disaggregated system
    fleets = {}
    for role, pool_inp, pool_chosen in (
        ("prefill", chosen.prefill_inputs, chosen.prefill),
        ("decode", pools.decode, chosen.decode),
    ):
        fleets[role] = run_fleet(
            pool_inp,
            pool_chosen,
            sampled[role],
            pool_policy(policy, pool_inp, role),
            pool_slo(slo, pools, role),
            resize,
            None if serve_with is None else serve_with[role],
            fragility_scvs,
            swing_amplitudes,
        )
    return combine_fleets(fleets["prefill"], fleets["decode"])


def combine_demand(prefill: DemandOutcome, decode: DemandOutcome) -> DemandOutcome:
    """The system's demand figures from its two pools at the same demand points.

    Admitted: what both pools admit (the smaller); accepted: those that meet both parts
    (:func:`rackcost.model.fleets.disaggregation.joint_accepted_rps`, each pool's miss share at its own admitted rate);
    capacity at SLO: the smaller. Replicas add up; the batch, service time, utilisation and TPOT are the decode
    pool's, the wait, TTFT and p99 TTFT the prefill pool's (its TTFT includes the transfer).
    """
    admitted = np.minimum(prefill.admitted_rps, decode.admitted_rps)
    accepted = joint_accepted_rps(
        admitted,
        1.0 - prefill.accepted_rps / prefill.admitted_rps,
        1.0 - decode.accepted_rps / decode.admitted_rps,
    )
    offered = prefill.offered_rps
    capacity = np.minimum(prefill.capacity_at_slo_rps, decode.capacity_at_slo_rps)
    rejected = offered - accepted
    return DemandOutcome(
        offered_rps=offered,
        admitted_rps=admitted,
        accepted_rps=accepted,
        rejected_rps=rejected,
        rejected_fraction=rejected / offered,
        active_replicas=prefill.active_replicas + decode.active_replicas,
        utilization_fraction=decode.utilization_fraction,
        capacity_at_slo_rps=capacity,
        spare_capacity_fraction=(capacity - offered) / capacity,
        wait_p99_ms=prefill.wait_p99_ms,
        overloaded=prefill.overloaded | decode.overloaded,
        in_service_concurrency=decode.in_service_concurrency,
        service_s=decode.service_s,
        ttft_ms=prefill.ttft_ms,
        tpot_ms=decode.tpot_ms,
        ttft_p99_ms=prefill.ttft_p99_ms,
        tpot_p99_ms=decode.tpot_p99_ms,
    )


def combine_fleets(prefill: FleetOutcome, decode: FleetOutcome) -> PooledFleet:
    """The system's fleet from its two pools: counts, power and every cost line add up; the demand figures are
    :func:`combine_demand`'s; the chosen point's rate, service time and busy power are the decode pool's; tokens
    per facility kWh at the SLO point combine as each request spends energy in both
    (:func:`rackcost.model.fleets.disaggregation.harmonic_tokens_per_kwh`)."""

    def both(name: str) -> np.ndarray:
        return np.asarray(getattr(prefill, name) + getattr(decode, name))

    def paired(p: dict[float, DemandOutcome], d: dict[float, DemandOutcome]) -> dict[float, DemandOutcome]:
        return {key: combine_demand(p[key], d[key]) for key in p}

    without = None
    if prefill.demand_without_swing is not None or decode.demand_without_swing is not None:
        without = combine_demand(
            prefill.demand_without_swing or prefill.demand, decode.demand_without_swing or decode.demand
        )
    return PooledFleet(
        request_rps=decode.request_rps,
        service_s=decode.service_s,
        busy_w=decode.busy_w,
        slo_replicas=both("slo_replicas"),
        serving_replicas=both("serving_replicas"),
        provisioned_replicas=both("provisioned_replicas"),
        nodes=both("nodes"),
        racks=both("racks"),
        nodes_per_rack_effective=decode.nodes_per_rack_effective,
        provisioned_it_kw=both("provisioned_it_kw"),
        demand=combine_demand(prefill.demand, decode.demand),
        it_power_kw=both("it_power_kw"),
        facility_power_kw=both("facility_power_kw"),
        peak_it_power_kw=both("peak_it_power_kw"),
        peak_facility_power_kw=both("peak_facility_power_kw"),
        capex_usd=both("capex_usd"),
        capital_usd_per_hour=both("capital_usd_per_hour"),
        fixed_opex_usd_per_hour=both("fixed_opex_usd_per_hour"),
        energy_usd_per_hour=both("energy_usd_per_hour"),
        rent_usd_per_hour=both("rent_usd_per_hour"),
        carbon_g_per_hour=both("carbon_g_per_hour"),
        slo_point_total_tokens_per_facility_kwh=harmonic_tokens_per_kwh(
            prefill.slo_point_total_tokens_per_facility_kwh, decode.slo_point_total_tokens_per_facility_kwh
        ),
        served_at_scv=paired(prefill.served_at_scv, decode.served_at_scv),
        demand_without_swing=without,
        served_at_swing=paired(prefill.served_at_swing, decode.served_at_swing),
        prefill=prefill,
        decode=decode,
    )
