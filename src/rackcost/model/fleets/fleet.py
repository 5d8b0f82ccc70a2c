"""Steps 5 to 8 of the model at a chosen operating point, for ``n`` samples at once.

:func:`run_fleet` runs the named steps in order, each a small function over plain arrays:

1. :func:`load_curve`, :func:`performance_at_point`: the curve with sampled figures, and the chosen point on it
   (step 2);
2. :func:`size_fleet`: replicas for the sizing demand, then redundancy (step 5);
3. :func:`pack_fleet`: nodes and racks under the rack power limit, provisioned IT power (step 5);
4. :func:`rackcost.model.fleets.demand.serve_demand`: the same fleet at each demand point (step 6);
5. :func:`wall_power`: IT and facility power at each demand point (step 7);
6. :func:`fleet_costs`, :func:`rent_usd_per_hour`: capex, capital, fixed opex and energy per hour, or the rent of a
   rented system (step 8).

The leading sample axis is ``n = 1`` for :func:`rackcost.evaluate` and many for :mod:`rackcost.analysis.montecarlo`;
sharing these steps is what makes a degenerate distribution give exactly the deterministic result.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.costs import finance
from rackcost.model.energy import grid, power
from rackcost.model.fleets.demand import DemandSteps, FleetCapacity, capacity_with_steps, serve_at_capacity
from rackcost.model.fleets.sizing import nodes_per_rack_allowed, pack_racks, provisioned_replicas, sized_replicas
from rackcost.model.inputs import FleetPolicy, SampledInputs, SloInputs, SystemInputs
from rackcost.model.outcomes import ChosenPoint, DemandOutcome, FleetOutcome
from rackcost.model.queues import rate_swing, stretch_rule
from rackcost.model.queues.burstiness import arrival_variability
from rackcost.model.queues.erlang import broadcast_to_few
from rackcost.model.replica.performance import LoadCurve, piecewise_linear
from rackcost.units import HOURS_PER_DAY, SECONDS_PER_HOUR, W_PER_KW

__all__ = [
    "FleetSize",
    "Packing",
    "fleet_costs",
    "load_curve",
    "minimum_hours_shortfall",
    "pack_fleet",
    "rent_usd_per_hour",
    "performance_at_point",
    "run_fleet",
    "size_fleet",
    "slo_point_tokens_per_facility_kwh",
    "wall_power",
]

Array = NDArray[np.float64]


def load_curve(inp: SystemInputs, chosen: ChosenPoint, sampled: SampledInputs) -> LoadCurve:
    """The system's curve with its sampled service times and power, limited at the chosen concurrency (step 2)."""
    curve = inp.curve
    return LoadCurve(
        concurrency=curve.concurrency,
        service_s=sampled.service_s_points,
        ttft_ms=curve.ttft_ms,
        tpot_ms=curve.tpot_ms,
        power_w_per_accelerator=sampled.power_w_points,
        limit=chosen.concurrency,
    )


def performance_at_point(load: LoadCurve, sampled: SampledInputs) -> tuple[Array, Array, Array]:
    """Slot holding time, request rate per replica and accelerator busy power at the chosen point, per sample.

    Returns
    -------
    service_s, request_rps, busy_w : ndarray ``(n, 1)``
        [s, requests/s, W]: busy power is the measured power at the point where the curve has it, else the
        hardware's.
    """
    service_s = load.service_at(np.full((sampled.n, 1), load.limit))
    if load.power_w_per_accelerator is None:
        busy_w = sampled.busy_w
    else:
        busy_w = piecewise_linear(load.concurrency, load.power_w_per_accelerator, np.full((sampled.n, 1), load.limit))
    return service_s, load.limit / service_s, busy_w


@dataclass(frozen=True)
class FleetSize:
    """Replicas of a fleet per sample, ``(n, 1)`` each (see :func:`size_fleet`)."""

    sizing_rps: Array
    slo_replicas: NDArray[np.int64]
    serving_replicas: NDArray[np.int64]
    provisioned_replicas: NDArray[np.int64]


def size_fleet(
    sampled: SampledInputs,
    policy: FleetPolicy,
    slo: SloInputs,
    concurrency: float,
    service_s: Array,
    budget_s: float,
    slo_replicas: int | None = None,
    more_constraints: tuple[tuple[float, float], ...] = (),
) -> FleetSize:
    """Replicas for the sizing demand (SLO and utilisation ceiling), then redundancy (docs/model.md, 5. Fleet sizing).

    The replicas the SLO needs serve; those added for availability (``/ availability``) and the spares stand by,
    so capacity is never counted on a replica that is down for repair. A replica count given by the scenario
    serves whole.

    Parameters
    ----------
    sampled, policy, slo
        The system's sampled inputs, the fleet policy and the SLO.
    concurrency, service_s, budget_s
        Slots per replica [requests], slot holding time per sample [s], queueing budget [s].
    slo_replicas
        The replicas the SLO needs, when already known (central values); else sized per sample.
    more_constraints
        Further (budget [s], miss target [-]) pairs of request classes with other attainment targets
        (``ChosenPoint.more_constraints``): the fleet meets each, so its count is the largest.
    """
    rates = sampled.arrival_rps
    n = sampled.n
    if policy.sizing_index is None:
        # the largest rate column by column: the same values as rates.max(axis=1, keepdims=True), whose reduction
        # along the short points axis took 1 ms for 25,000 samples of 3 points, against 0.04 ms
        sizing_rps = functools.reduce(np.maximum, [rates[:, j : j + 1] for j in range(rates.shape[1])]).copy()
    else:
        sizing_rps = rates[:, [policy.sizing_index]]
    if slo_replicas is not None:
        slo_n = np.full((n, 1), slo_replicas, dtype=np.int64)
    else:
        v = policy.sizing_variability(rates)  # bursty arrivals: M/M/c with slots and rates / v (model.burstiness)
        # spread service: each budget judged at the stretch of the fleet's own load, as acceptance judges it
        # (model.stretch_rule: one rule for sizing, capacity and acceptance)
        stretch = 1.0 if policy.service_scv == 1.0 else policy.sizing_stretch(rates)
        ceiling = sized_replicas(1, sizing_rps, service_s, concurrency, sampled.max_utilization_fraction)
        needed = stretch_rule.replicas_needed(
            policy.routing,
            sizing_rps / v,
            service_s,
            concurrency / v,
            budget_s,
            slo.miss_target_fraction,
            stretch,
            v,
            ceiling,
        )
        for more_budget_s, more_miss in more_constraints:  # request classes of other attainment targets
            more = stretch_rule.replicas_needed(
                policy.routing,
                sizing_rps / v,
                service_s,
                concurrency / v,
                more_budget_s,
                more_miss,
                stretch,
                v,
                ceiling,
            )
            needed = np.maximum(needed, more)
        slo_n = sized_replicas(needed, sizing_rps, service_s, concurrency, sampled.max_utilization_fraction)
    swung = None
    if _moves(policy):  # a rate swing at the sizing point: its busiest window or its average
        swung = rate_swing.swing_slo_replicas(
            policy,
            rates,
            sizing_rps,
            service_s,
            concurrency,
            budget_s,
            slo.miss_target_fraction,
            sampled.max_utilization_fraction,
        )
    if swung is not None:
        slo_n = swung
    if policy.fixed_replicas is not None:
        n_prov = np.full((n, 1), int(policy.fixed_replicas), dtype=np.int64)
        serving = n_prov
    else:
        n_prov = provisioned_replicas(slo_n, sampled.availability_fraction, policy.spare_replicas)
        serving = slo_n
    return FleetSize(sizing_rps, slo_n, serving, n_prov)


@dataclass(frozen=True)
class Packing:
    """Nodes and racks of a fleet per sample, ``(n, 1)`` each (see :func:`pack_fleet`)."""

    nodes_per_rack_effective: NDArray[np.int64]
    nodes: NDArray[np.int64]
    racks: NDArray[np.int64]
    provisioned_it_kw: Array


def pack_fleet(inp: SystemInputs, sampled: SampledInputs, replicas: NDArray[np.int64]) -> Packing:
    """Replicas into nodes and racks, by node slots and by the rack power limit on rated power (docs/model.md, step 5).

    A node rated over the rack limit is refused when the scenario loads; here at least one node fits a rack.
    """
    apr, apn = inp.accelerators_per_replica, inp.accelerators_per_node
    overhead = sampled.rack_overhead_w
    per_rack = np.maximum(
        nodes_per_rack_allowed(inp.nodes_per_rack, inp.node_rated_w, overhead, inp.rack_power_limit_w), 1
    )
    nodes, racks = pack_racks(replicas, apr, apn, per_rack)
    rated_w = power.provisioned_it_power_w(replicas * apr, nodes, racks, inp.rated_w, inp.host_rated_w, overhead)
    return Packing(per_rack, nodes, racks, rated_w / W_PER_KW)


def wall_power(
    inp: SystemInputs,
    sampled: SampledInputs,
    policy: FleetPolicy,
    load: LoadCurve,
    busy_w: Array,
    replicas: NDArray[np.int64],
    packing: Packing,
    demand: DemandOutcome,
) -> tuple[Array, Array, Array, Array]:
    """IT and facility power at each demand point, mean and peak (docs/model.md, 7. Wall power) [kW, kW, kW, kW].

    A serving accelerator draws the measured power at the concurrency in service where the curve has measured
    power (rising from idle at zero load to the lowest measured point by the power law, then linearly between the
    measured points), else ``idle + (busy - idle) * u**exponent`` at its slot utilisation, the exponent the
    system's (:func:`rackcost.scenario.unpack.power_exponent`: by default the law fitted to public measurements).
    Standby replicas draw idle power under the
    ``powered`` policy; under ``park`` every replica a point does not need is parked. Hosts count whole nodes;
    facility power is IT power times PUE. Rated power never enters energy.

    The peak is the same sum with each serving accelerator at its peak
    (:func:`rackcost.model.energy.power.peak_accelerator_power_w`: the mean times the curve's measured peak-to-mean
    ratio or :data:`~rackcost.model.energy.power.PEAK_TO_MEAN_POWER`, held at the rated power); idle and parked
    accelerators, hosts and rack overheads at their power."""
    active = demand.active_replicas
    if load.power_w_per_accelerator is None:
        active_w = power.accelerator_power_w(
            demand.utilization_fraction, sampled.idle_w, busy_w, sampled.power_utilization_exponent
        )
    else:
        in_service = demand.in_service_concurrency
        lowest = float(load.concurrency[0])
        rise = power.accelerator_power_w(
            in_service / lowest,
            sampled.idle_w,
            load.power_w_per_accelerator[:, :1],
            sampled.power_utilization_exponent,
        )
        along = piecewise_linear(load.concurrency, load.power_w_per_accelerator, np.maximum(in_service, lowest))
        active_w = np.where(in_service < lowest, rise, along)
    others = replicas - active
    idle, parked = (0, others) if policy.idle_policy.parks else (others, 0)

    it_w = power.fleet_it_power_at(  # the mean and the peak share every term but the serving accelerators'
        active,
        idle,
        parked,
        inp.accelerators_per_replica,
        inp.accelerators_per_node,
        packing.nodes,
        packing.racks,
        sampled.idle_w,
        sampled.parked_w,
        sampled.host_w,
        sampled.host_parked_w,
        sampled.rack_overhead_w,
    )

    mean_w = it_w(active_w)
    peak_w = it_w(power.peak_accelerator_power_w(active_w, inp.rated_w, inp.peak_to_mean_power))
    return (
        mean_w / W_PER_KW,
        power.facility_power_kw(mean_w, sampled.pue),
        peak_w / W_PER_KW,
        power.facility_power_kw(peak_w, sampled.pue),
    )


def fleet_costs(
    inp: SystemInputs,
    sampled: SampledInputs,
    replicas: NDArray[np.int64],
    packing: Packing,
    facility_power_kw: Array,
) -> tuple[Array, Array, Array, Array]:
    """Capex, and capital, fixed opex and energy per hour (docs/model.md, 8. Cost).

    Returns
    -------
    capex_usd, capital_usd_per_hour, fixed_opex_usd_per_hour : ndarray ``(n, 1)``
        [USD, USD/h, USD/h].
    energy_usd_per_hour : ndarray ``(n, points)``
        [USD/h].
    """
    k = sampled.costs
    accelerators = replicas * inp.accelerators_per_replica
    capex = finance.fleet_capex_usd(
        accelerators,
        packing.nodes,
        packing.racks,
        k.capex_usd_per_accelerator,
        k.capex_usd_per_node,
        k.capex_usd_per_rack,
        k.networking_capex_fraction,
        k.installation_capex_fraction,
    )
    capital = finance.capital_usd_per_hour(capex, k.cost_of_capital_fraction, k.service_life_years)
    fixed = finance.fixed_opex_usd_per_hour(
        capex,
        k.maintenance_fraction_per_year,
        accelerators,
        k.software_usd_per_accelerator_year,
        packing.racks,
        k.operations_usd_per_rack_year,
        packing.provisioned_it_kw,
        sampled.colocation_usd_per_kw_month,
        sampled.build_usd_per_kw,
        k.cost_of_capital_fraction,
        sampled.build_life_years,
    )
    price = sampled.electricity_usd_per_kwh
    if np.any(sampled.carbon_usd_per_tonne):  # carbon priced into every kWh the owner pays for
        price = price + grid.carbon_usd_per_kwh(sampled.carbon_g_per_kwh, sampled.carbon_usd_per_tonne)
    energy = finance.energy_usd_per_hour(facility_power_kw, price)
    return capex, capital, fixed, energy


def rent_usd_per_hour(
    inp: SystemInputs,
    sampled: SampledInputs,
    replicas: NDArray[np.int64],
    active_replicas: NDArray[np.int64],
    hours_per_day: ArrayLike = (),
) -> Array:
    """What a rented system pays per hour at each demand point (docs/model.md, 8. Cost: payment models) [USD/h].

    Reserved: the provisioned accelerators, every hour. On demand: the accelerators of the replicas each demand
    point needs (the park rule; scaled per replica, the granularity at which a serving stack adds capacity), plus,
    with a minimum of hours a day per started replica, the replica-hours that minimum adds
    (:func:`minimum_hours_shortfall`) as a charge spread over the day. Zero for an owned system.
    """
    price = sampled.rent_usd_per_accelerator_hour
    if price is None:
        return np.zeros(active_replicas.shape)
    if not inp.payment.active_only:
        return price * np.broadcast_to(replicas, active_replicas.shape) * inp.accelerators_per_replica
    usage = price * active_replicas * inp.accelerators_per_replica
    if inp.rent_minimum_hours_per_day <= 0:
        return usage
    shortfall_h = minimum_hours_shortfall(active_replicas, hours_per_day, inp.rent_minimum_hours_per_day)
    # the replica-hours the minimum adds, a charge of the day: spread over its 24 hours
    return usage + price * inp.accelerators_per_replica * shortfall_h / HOURS_PER_DAY


def minimum_hours_shortfall(active_replicas: ArrayLike, hours_per_day: ArrayLike, minimum_h: float) -> Array:
    """Replica-hours a day that a per-replica minimum adds to the hours replicas really run [replica-h].

    Replica ``j`` (counting from the first started) runs in every demand point where more than ``j`` replicas are
    active, so ``H_j = sum of those points' hours``; it is billed ``max(H_j, minimum)``. With the points sorted by
    their active count ``a_(1) <= ... <= a_(P)``, the replicas between ``a_(k-1)`` and ``a_(k)`` all run the hours
    of points ``k..P``, so the shortfall is ``sum_k (a_(k) - a_(k-1)) max(minimum - sum_{i>=k} h_(i), 0)``.

    Parameters
    ----------
    active_replicas
        Replicas active at each demand point, ``(n, points)`` [-].
    hours_per_day
        Hours of each demand point [h].
    minimum_h
        Hours a day each started replica is billed at least [h].

    Returns
    -------
    ndarray ``(n, 1)``
        Replica-hours a day billed beyond use [replica-h].

    Examples
    --------
    2 replicas for 8 h, 5 for 10 h, 8 for 6 h, a 12 h minimum: replicas 1-2 run 24 h, 3-5 run 16 h, 6-8 run 6 h
    and are billed 6 h more each: 18 replica-hours.

    >>> minimum_hours_shortfall([[2, 5, 8]], [8.0, 10.0, 6.0], 12.0).tolist()
    [[18.0]]
    """
    active = np.atleast_2d(np.asarray(active_replicas, dtype=float))
    hours = np.broadcast_to(np.asarray(hours_per_day, dtype=float), active.shape)
    order = np.argsort(active, axis=1, kind="stable")
    a = np.take_along_axis(active, order, axis=1)
    h = np.take_along_axis(hours, order, axis=1)
    run_h = np.cumsum(h[:, ::-1], axis=1)[:, ::-1]  # hours of points k..P
    steps = np.diff(a, axis=1, prepend=0.0)
    return (steps * np.maximum(minimum_h - run_h, 0.0)).sum(axis=1, keepdims=True)


def slo_point_tokens_per_facility_kwh(
    inp: SystemInputs,
    sampled: SampledInputs,
    chosen: ChosenPoint,
    request_rps: Array,
    busy_w: Array,
    nodes_per_rack: NDArray[np.int64],
) -> Array:
    """Total tokens per facility kWh of one replica flat out at the chosen point, with its share of hosts and
    rack overhead (the modelled side of docs/model.md, 9. Claim vs decision) [tokens/kWh]."""
    apr, apn = inp.accelerators_per_replica, inp.accelerators_per_node
    replica_w = apr * busy_w + sampled.host_w * apr / apn + sampled.rack_overhead_w * apr / (apn * nodes_per_rack)
    tokens_per_request = chosen.point.total_tokens_per_s[0] / chosen.point.request_rps[0]
    return request_rps * tokens_per_request * SECONDS_PER_HOUR / power.facility_power_kw(replica_w, sampled.pue)


def _as_samples(outcome: Any, n: int) -> Any:
    """A dataclass of one sample's arrays as ``n`` samples: each ``(1, m)`` array a read-only ``(n, m)`` view (and
    each ``(1, m, K)`` one, a class axis, an ``(n, m, K)`` view)."""
    views = {
        f.name: np.broadcast_to(value, (n, *value.shape[1:]))
        for f in fields(outcome)
        if isinstance(value := getattr(outcome, f.name), np.ndarray) and value.ndim >= 2 and value.shape[0] == 1
    }
    return replace(outcome, **views)


@dataclass(frozen=True)
class _SizedFleet:
    """The fleet as sized at its chosen point: what serving it at the demand points reads (step 6), once for the
    central row, the SCV rows and every rate swing."""

    serve: SampledInputs
    policy: FleetPolicy
    slo: SloInputs
    load: LoadCurve
    size: FleetSize
    concurrency: float
    service_s: Array
    budget_s: float
    more_constraints: tuple[tuple[float, float], ...] = ()

    def swing(
        self,
        outcome: DemandOutcome,
        amplitude: Array | rate_swing.RateShape,
        variability: ArrayLike,
        stretch: ArrayLike,
    ) -> DemandOutcome:
        """The points with their rate swings (:mod:`rackcost.model.queues.rate_swing`); the same outcome without any."""
        policy = self.policy
        return rate_swing.serve_with_swing(
            outcome,
            amplitude,
            self.size.serving_replicas,
            self.concurrency,
            self.service_s,
            self.budget_s,
            self.slo,
            policy.idle_policy,
            self.serve.max_utilization_fraction,
            self.load,
            policy.routing,
            variability,
            stretch,
            policy.sub_hour_sizing,
        )


def _capacities(at: _SizedFleet, scvs: tuple[float, ...]) -> tuple[FleetCapacity, Array, Array]:
    """The capacity of the fleet at its points' own arrivals (row 0) and with every point's arrivals at each of
    ``scvs`` (one row each; one sample: ``serve.n == 1``), and each row's variability and wait stretch,
    ``(1 + len(scvs), points)``; :func:`_serve` serves the rows in one call.

    Every row's capacity search runs in one vectorised call (the search is elementwise, so each row gets the
    figure it has alone, to the search's tolerance: one call rather than two halves the per-call overhead, which
    is most of the cost on a few demand points). Each search starts from a rate the fleet is known to serve: the
    sizing rate for the central row where its arrivals are Poisson, moved by the many-server scaling ``k/S -
    (k/S - rate) sqrt(v)`` for each SCV row (a hint the search checks, so never wrong, and about half the
    iterations of the closed-form start); without a sizing rate (a fixed fleet) the closed-form start.
    """
    serve, policy, size, service_s = at.serve, at.policy, at.size, at.service_s
    if serve.n != 1:
        raise ValueError("the fleet is served at other SCVs for one sample only")
    points = serve.arrival_rps.shape[1]
    rows = len(scvs) + 1
    v_central, stretch_central = policy.variability(points), policy.stretch(points)
    v_scv = arrival_variability(np.asarray(scvs, dtype=float)).reshape(-1, 1)
    # (broadcast_to_few: these are a few elements, one sample's rows, for which numpy's broadcast_to costs more)
    v = np.concatenate([v_central, broadcast_to_few(v_scv, (rows - 1, points))])
    stretch = np.concatenate(
        [broadcast_to_few(stretch_central, (1, points)), broadcast_to_few(policy.stretch_at(scvs), (rows - 1, points))]
    )
    if policy.fixed_replicas is not None:
        hint = np.zeros((rows, 1))
    else:
        top = np.asarray(size.serving_replicas, dtype=float) * at.concurrency / np.asarray(service_s, dtype=float)
        sizing = np.asarray(size.sizing_rps, dtype=float).reshape(1, 1)
        central = sizing if bool((v_central == 1.0).all()) else np.zeros((1, 1))
        hint = np.concatenate([central, np.maximum(top - (top - sizing) * np.sqrt(v_scv), 0.0) / v_scv])
    served = capacity_with_steps(  # the hint is a rate of the queue the variability makes
        broadcast_to_few(serve.arrival_rps, (rows, points)),
        broadcast_to_few(size.serving_replicas, (rows, 1)),
        at.concurrency,
        broadcast_to_few(service_s, (rows, 1)),
        at.budget_s,
        at.slo.attainment_fraction,
        policy.idle_policy,
        broadcast_to_few(serve.max_utilization_fraction, (rows, 1)),
        hint,
        DemandSteps.of(policy.routing, v, stretch, at.more_constraints),
    )
    return served, v, stretch


def _serve(
    at: _SizedFleet, scvs: tuple[float, ...], percentiles: bool = True
) -> tuple[DemandOutcome, tuple[DemandOutcome, ...]]:
    """Step 6: the fleet at each demand point, and the same fleet with every point's arrivals at each of ``scvs``.

    The capacity searches of the central row and the SCV rows run in one call (:func:`_capacities`); what follows
    them is elementwise in the points (:func:`rackcost.model.fleets.demand.serve_at_capacity`), so the rows are served
    in one vectorised call too, each row as it is alone (a variability of 1 divides exactly).
    """
    serve, policy, slo, size = at.serve, at.policy, at.slo, at.size
    concurrency, service_s, budget_s, load = at.concurrency, at.service_s, at.budget_s, at.load
    lam = serve.arrival_rps
    if not scvs:
        v = policy.variability(lam.shape[1])
        stretch = policy.stretch(lam.shape[1])
        steps = DemandSteps.of(policy.routing, v, stretch, at.more_constraints)
        hint = steps.arrivals.known_feasible(None if policy.fixed_replicas is not None else size.sizing_rps)
        fleet = (size.serving_replicas, concurrency, service_s, budget_s, slo.attainment_fraction, policy.idle_policy)
        central = capacity_with_steps(lam, *fleet, serve.max_utilization_fraction, hint, steps)
        served = serve_at_capacity(
            lam, central, concurrency, service_s, budget_s, load, slo, policy.routing, v, stretch, percentiles
        )
        return served, ()
    capacity, v_rows, stretch_rows = _capacities(at, scvs)
    rows = len(scvs) + 1
    served = serve_at_capacity(
        np.repeat(lam, rows, axis=0),
        capacity,
        concurrency,
        np.repeat(service_s, rows, axis=0),
        budget_s,
        load,
        slo,
        policy.routing,
        v_rows,
        stretch_rows,
    )
    return _row(served, 0), tuple(_row(served, r) for r in range(1, rows))


def _with_swings(
    at: _SizedFleet,
    demand: DemandOutcome,
    fragile: tuple[DemandOutcome, ...],
    fragility_scvs: tuple[float, ...],
    swing_amplitudes: tuple[float, ...],
) -> tuple[DemandOutcome, tuple[DemandOutcome, ...], dict[float, DemandOutcome]]:
    """The served points with each point's own rate swing or sub-hour windows (the SCV rows too), and the same
    fleet with every point swinging at each of ``swing_amplitudes``; without a swing anywhere, the outcomes as
    they are (and nothing below runs, nor the points' variability)."""
    policy, points = at.policy, at.serve.arrival_rps.shape[1]
    if not (swing_amplitudes or _moves(policy)):
        return demand, fragile, {}
    amplitudes = rate_swing.point_shapes(policy, points)  # a swing's, or a point's sub-hour windows
    if not (swing_amplitudes or amplitudes.active.any()):
        return demand, fragile, {}
    point_v, point_stretch = policy.variability(points), policy.stretch(points)
    still = demand
    if amplitudes.active.any():  # without a swing at any point the outcomes are the stationary ones
        demand = at.swing(still, amplitudes, point_v, point_stretch)
        fragile = tuple(
            at.swing(f, amplitudes, arrival_variability(s), policy.stretch_at((s,)))
            for f, s in zip(fragile, fragility_scvs, strict=True)
        )
    return (
        demand,
        fragile,
        {a: at.swing(still, np.full((1, points), a), point_v, point_stretch) for a in swing_amplitudes},
    )


def _moves(policy: FleetPolicy) -> bool:
    """Whether some demand point's rate may move within its hour: a swing amplitude other than 0, or sub-hour
    windows. Where none does, :func:`rackcost.model.queues.rate_swing.point_shapes` finds no point active (zero
    amplitudes are valid ones), so the swing steps change nothing and are not run: two calls of it per fleet saved,
    about 0.1 ms each (measured on this 2-core machine), 0.4 ms of an evaluation of the bundled default."""
    return any(policy.rate_swing_amplitude_fraction) or any(policy.sub_hour_rate_ratios)


def _row(outcome: DemandOutcome, index: int) -> DemandOutcome:
    """Row ``index`` of every array of a demand outcome, as one sample ``(1, points)`` (a view, unlike
    :meth:`DemandOutcome.sample`'s copy: the same figures, for less)."""
    rows: dict[str, Any] = {k: None if a is None else a[index : index + 1] for k, a in vars(outcome).items()}
    return DemandOutcome(**rows)


def run_fleet(
    inp: SystemInputs,
    chosen: ChosenPoint,
    sampled: SampledInputs,
    policy: FleetPolicy,
    slo: SloInputs,
    resize: bool = True,
    serve_with: SampledInputs | None = None,
    fragility_scvs: tuple[float, ...] = (),
    swing_amplitudes: tuple[float, ...] = (),
    percentiles: bool = True,
) -> FleetOutcome:
    """Steps 5 to 8 at a chosen operating point for every sample (see the module docstring for the steps).

    Parameters
    ----------
    inp, chosen
        The system's central inputs and its chosen operating point.
    sampled
        The inputs that vary per sample.
    policy, slo
        Fleet policy and SLO.
    resize
        Size the fleet per sample (the Monte Carlo); False keeps the chosen point's SLO replica count (central
        values, where it is already known).
    serve_with
        One sample (``n = 1``) of the inputs that the sizing, packing and serving read, when every sample shares
        them (a sweep over prices): those steps then run once and their arrays are broadcast to the ``n`` samples,
        and only power and cost are evaluated per sample. The figures are the same as evaluating every sample
        (each step is elementwise), at a fraction of the cost: the Erlang C of each demand point runs once.
    fragility_scvs
        Arrival SCVs at which to serve the same fleet again, every demand point at that SCV
        (``FleetOutcome.served_at_scv``): where the answer is fragile to burstiness.
    swing_amplitudes
        Rate-swing amplitudes at which to serve the same fleet again, every demand point with that swing
        (``FleetOutcome.served_at_swing``, one sample only: the simulator's analytic side).
    percentiles
        False: the demand points' reported p99 TTFT and TPOT are left out (``DemandOutcome.ttft_p99_ms`` None;
        :func:`rackcost.model.fleets.demand.serve_at_capacity`), for a caller that reads none of them (every hour of a
        horizon). Only without ``fragility_scvs``.
    """
    c = chosen.concurrency
    serve = sampled if serve_with is None else serve_with
    load = load_curve(inp, chosen, serve)
    service_s, request_rps, busy_w = performance_at_point(load, serve)
    more = chosen.more_constraints
    size = size_fleet(serve, policy, slo, c, service_s, chosen.budget_s, None if resize else chosen.slo_replicas, more)
    packing = pack_fleet(inp, serve, size.provisioned_replicas)
    if not percentiles and fragility_scvs:
        raise ValueError("percentiles=False is for a fleet served at its own points only (no fragility_scvs)")
    at = _SizedFleet(serve, policy, slo, load, size, c, service_s, chosen.budget_s, more)
    still, fragile = _serve(at, fragility_scvs, percentiles)
    demand, fragile, swung = _with_swings(at, still, fragile, fragility_scvs, swing_amplitudes)
    without_swing = None if demand is still else still
    if serve_with is not None:  # one sample served: the same for all n
        n = sampled.n
        load, size, packing, demand = (_as_samples(x, n) for x in (load, size, packing, demand))
        without_swing = None if without_swing is None else _as_samples(without_swing, n)
        service_s, request_rps, busy_w = (
            np.broadcast_to(a, (n, *a.shape[1:])) for a in (service_s, request_rps, busy_w)
        )
    replicas = size.provisioned_replicas
    it_kw, facility_kw, peak_it_kw, peak_facility_kw = wall_power(
        inp, sampled, policy, load, busy_w, replicas, packing, demand
    )
    capex, capital, fixed, energy = fleet_costs(inp, sampled, replicas, packing, facility_kw)
    rent = rent_usd_per_hour(inp, sampled, replicas, demand.active_replicas, policy.hours_per_day)
    return FleetOutcome(
        request_rps=request_rps,
        service_s=service_s,
        busy_w=busy_w,
        slo_replicas=size.slo_replicas,
        serving_replicas=size.serving_replicas,
        provisioned_replicas=replicas,
        nodes=packing.nodes,
        racks=packing.racks,
        nodes_per_rack_effective=packing.nodes_per_rack_effective,
        provisioned_it_kw=packing.provisioned_it_kw,
        demand=demand,
        it_power_kw=it_kw,
        facility_power_kw=facility_kw,
        peak_it_power_kw=peak_it_kw,
        peak_facility_power_kw=peak_facility_kw,
        capex_usd=capex,
        capital_usd_per_hour=capital,
        fixed_opex_usd_per_hour=fixed,
        energy_usd_per_hour=energy,
        rent_usd_per_hour=rent,
        carbon_g_per_hour=grid.carbon_g_per_hour(facility_kw, sampled.carbon_g_per_kwh),
        slo_point_total_tokens_per_facility_kwh=slo_point_tokens_per_facility_kwh(
            inp, sampled, chosen, request_rps, busy_w, packing.nodes_per_rack_effective
        ),
        served_at_scv=dict(zip(fragility_scvs, fragile, strict=True)),
        demand_without_swing=without_swing,
        served_at_swing=swung,
    )
