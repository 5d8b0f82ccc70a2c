"""A parking fleet's hours with replicas that scale with a delay (``fleet.scaling``; docs/model.md, "Autoscaling
with a delay"): :func:`scaled_fleet` runs :mod:`rackcost.model.fleets.autoscale` on the profile's grid of steps
and :func:`apply_scaling` moves ``park``'s hourly figures by what the delay loses and what the warm replicas cost."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rackcost.model.costs import finance
from rackcost.model.energy import grid, power
from rackcost.model.fleets.autoscale import ScaledReplicas, delay_steps, scale_replicas, step_grid
from rackcost.model.fleets.demand import DemandSteps, capacity_with_steps
from rackcost.model.fleets.sizing import sized_replicas
from rackcost.model.inputs import FleetPolicy, SampledInputs, SloInputs, SystemInputs
from rackcost.model.outcomes import ChosenPoint, FleetOutcome
from rackcost.model.queues.burstiness import arrival_variability
from rackcost.model.strategies import IdlePolicy
from rackcost.scenario.scaling_blocks import Scaling
from rackcost.units import GRAMS_PER_KG, SECONDS_PER_HOUR

__all__ = ["SCALING_COLUMNS", "ScaledFleet", "apply_scaling", "scaled_fleet"]

Array = NDArray[np.float64]

SCALING_COLUMNS = ("ramp_lost_rps", "warm_headroom_replicas", "warming_replicas")
"""Figures per hour of a scaling fleet, means over the hour's steps (0 for every other system): the arrivals the
scale-up delay loses [requests/s], the serving replicas held beyond the needed ones by the scale-down delay or the
minimum [-] and the replicas loading [-]."""


@dataclass(frozen=True)
class ScaledFleet:
    """A fleet's replicas on the scaling grid and the capacity table they were judged by.

    Attributes
    ----------
    replicas
        Every step's replicas (:class:`rackcost.model.fleets.autoscale.ScaledReplicas`).
    step_rps
        Every step's arrival rate [requests/s].
    step_s
        The step's length [s].
    capacity_rps
        Capacity at SLO of ``n`` serving replicas, ``n = 0 .. fleet`` [requests/s].
    slots, service_s, budget_s
        The chosen operating point's slots per replica [-], slot holding time and queueing budget [s]: what the
        simulator serves the steps with (:func:`rackcost.model.sim.sim_autoscale.simulate_ramp`).
    """

    replicas: ScaledReplicas
    step_rps: Array
    step_s: float
    capacity_rps: Array
    slots: float
    service_s: float
    budget_s: float

    def per_hour(self, values: NDArray[np.generic]) -> Array:
        """Each hour's mean of a figure per step, ``(hours,)``."""
        per = round(SECONDS_PER_HOUR / self.step_s)
        return np.asarray(values, dtype=float).reshape(-1, per).mean(axis=1)


def capacity_table(chosen: ChosenPoint, fleet: FleetOutcome, policy: FleetPolicy, slo: SloInputs) -> Array:
    """Capacity at SLO of ``n`` serving replicas of the fleet for ``n = 0 .. serving`` (the searches the fleet's
    own capacity comes from, one per count in one vectorised call) [requests/s]."""
    serving = int(np.asarray(fleet.serving_replicas).reshape(-1)[0])
    counts = np.arange(1, serving + 1, dtype=np.int64).reshape(-1, 1)
    scv = (policy.arrival_scv or (1.0,))[0]
    steps = DemandSteps.of(
        policy.routing, arrival_variability(np.array([[scv]])), policy.stretch_at((scv,)), chosen.more_constraints
    )
    service_s = np.asarray(fleet.service_s, dtype=float).reshape(-1)[:1].reshape(1, 1)
    found = capacity_with_steps(
        np.ones(counts.shape),
        counts,
        chosen.concurrency,
        service_s,
        chosen.budget_s,
        slo.attainment_fraction,
        IdlePolicy.powered,
        1.0,
        None,
        steps,
    )
    capacity = np.broadcast_to(found.capacity_rps, (serving, 1)).reshape(-1)
    return np.concatenate([[0.0], np.maximum.accumulate(capacity)])


def scaled_fleet(
    scaling: Scaling,
    chosen: ChosenPoint,
    fleet: FleetOutcome,
    policy: FleetPolicy,
    slo: SloInputs,
    sampled: SampledInputs,
    rates: Array,
    window_ratios: Array | None,
) -> ScaledFleet:
    """The fleet's replicas on every step of the profile under ``scaling`` (one sample)."""
    step_rps, step_s = step_grid(rates, window_ratios)
    capacity = capacity_table(chosen, fleet, policy, slo)
    target = scaling.target_utilization_fraction
    ceiling_fraction = float(np.asarray(sampled.max_utilization_fraction).reshape(-1)[0]) if target is None else target
    service_s = float(np.asarray(fleet.service_s).reshape(-1)[0])
    ceiling = sized_replicas(1, step_rps, service_s, chosen.concurrency, ceiling_fraction)
    lead = delay_steps(scaling.forecast_lead_s, step_s)
    if lead:  # a forecast: each step asks for the most any step of the next `lead` needs
        ceiling = np.maximum(ceiling, _ahead(ceiling, lead))
        step_ahead = _ahead(step_rps, lead)
    else:
        step_ahead = step_rps
    up, down = delay_steps(scaling.scale_up_delay_s, step_s), delay_steps(scaling.scale_down_delay_s, step_s)
    asked = scale_replicas(step_ahead, capacity, ceiling, scaling.min_replicas, up, down)
    if lead:  # replicas asked for the forecast; the loss is judged at the rate that comes
        carried = np.minimum(step_rps, capacity[np.minimum(asked.needed, capacity.size - 1)])
        lost = np.maximum(carried - capacity[asked.available], 0.0)
        asked = ScaledReplicas(asked.needed, asked.requested, asked.available, asked.warming, lost)
    return ScaledFleet(asked, step_rps, step_s, capacity, chosen.concurrency, service_s, float(chosen.budget_s))


def _ahead(values: NDArray[np.generic], lead: int) -> NDArray[np.generic]:
    """The largest of each step's value and the ``lead`` steps after it (the last value held past the end)."""
    padded = np.concatenate([values, np.full(lead, values[-1])])
    return np.lib.stride_tricks.sliding_window_view(padded, lead + 1).max(axis=1)


def apply_scaling(
    out: dict[str, Array],
    scaled: ScaledFleet,
    scaling: Scaling,
    inp: SystemInputs,
    sampled: SampledInputs,
) -> None:
    """Move ``park``'s hourly figures in ``out`` (one system's rows) by the scaling: the arrivals lost to the ramp
    (at most the hour's accepted ones) leave the accepted ones; replicas held up idle beyond the needed ones draw
    idle power, loading ones warm-up power (both instead of parked power, with their share of hosts), and replicas
    ``park`` would have serving that are still loading give up their idle baseline (their work falls to the others,
    or is lost); the energy, its carbon and, rented on demand, the rent of the extra replicas follow."""
    r = scaled.replicas
    # never more than park accepts in the hour: the steps judge what park carries by the capacity at SLO of the
    # replicas it needs, the hour by its own acceptance (its arrivals' variability, its windows), and where one hour's
    # rate towers over the day before it, nearly all of it is lost and the two differ by more than park's margin
    lost = np.minimum(scaled.per_hour(r.lost_rps), np.maximum(out["accepted_rps"], 0.0))
    headroom = scaled.per_hour(r.idle_headroom)
    warming = scaled.per_hour(r.warming)
    short = scaled.per_hour(np.maximum(r.needed - r.available, 0))
    out["accepted_rps"] -= lost
    out["rejected_rps"] += lost
    out["accepted_requests"] -= lost * SECONDS_PER_HOUR
    out["active_replicas"] += scaled.per_hour(r.available - r.needed)
    apr, apn = inp.accelerators_per_replica, inp.accelerators_per_node
    one = _scalar
    parked_w = apr * one(sampled.parked_w) + one(sampled.host_parked_w) * apr / apn
    idle_w = apr * one(sampled.idle_w) + one(sampled.host_w) * apr / apn
    warm_acc_w = one(sampled.idle_w) if scaling.warmup_w_per_accelerator is None else scaling.warmup_w_per_accelerator
    warm_w = apr * warm_acc_w + one(sampled.host_w) * apr / apn
    extra_it_w = (headroom - short) * (idle_w - parked_w) + warming * (warm_w - parked_w)
    extra_kw = power.facility_power_kw(extra_it_w, one(sampled.pue))
    out["facility_power_kw"] += extra_kw
    price = np.reshape(sampled.electricity_usd_per_kwh, -1)
    if np.any(sampled.carbon_usd_per_tonne):
        price = price + np.reshape(grid.carbon_usd_per_kwh(sampled.carbon_g_per_kwh, sampled.carbon_usd_per_tonne), -1)
    out["cost_usd"] += np.reshape(finance.energy_usd_per_hour(extra_kw, price), -1)
    out["carbon_kg"] += np.reshape(grid.carbon_g_per_hour(extra_kw, sampled.carbon_g_per_kwh), -1) / GRAMS_PER_KG
    if inp.payment.active_only and sampled.rent_usd_per_accelerator_hour is not None:
        rent = one(sampled.rent_usd_per_accelerator_hour) * apr
        out["cost_usd"] += rent * (headroom + warming - short)
    out["ramp_lost_rps"][...] = lost
    out["warm_headroom_replicas"][...] = headroom
    out["warming_replicas"][...] = warming


def _scalar(value: object) -> float:
    """The first element of a per-sample column (one sample)."""
    return float(np.asarray(value, dtype=float).reshape(-1)[0])
