"""The model's inputs as plain numbers and numpy arrays: what the numeric core reads, and nothing pydantic.

:mod:`rackcost.scenario.unpack` fills these from a validated :class:`~rackcost.scenario.schema.Scenario`; the steps of
the model
(:mod:`rackcost.model.replica.operating_point`, :mod:`rackcost.model.fleets.fleet`, :mod:`rackcost.model.costs.metrics`)
read only these. Two kinds:

- central values, decided once per scenario (the curve, the packaging, the SLO): :class:`SystemInputs`,
  :class:`SloInputs`, :class:`FleetPolicy`;
- values that may vary from sample to sample in the Monte Carlo: :class:`SampledInputs`, every figure an array with a
  leading sample axis of length ``n`` (``n = 1`` for :func:`rackcost.evaluate`). Per-system figures have shape
  ``(n, 1)`` and per-demand-point figures ``(n, points)``, so that they broadcast against each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from rackcost.model.energy.power import PEAK_TO_MEAN_POWER
from rackcost.model.queues.burstiness import arrival_variability, wait_stretch
from rackcost.model.replica.memory import KvMemory
from rackcost.model.replica.performance import Curve
from rackcost.model.strategies import DEFAULT_ROUTING, IdlePolicy, Payment, SubHourSizing
from rackcost.model.workload.classes import ClassMix

__all__ = ["CostInputs", "FleetPolicy", "PoolInputs", "SampledInputs", "SloInputs", "SystemInputs"]

Column = NDArray[np.float64]
"""A figure per sample, shape ``(n, 1)``."""


@dataclass(frozen=True)
class SloInputs:
    """The latency SLO and the workload's output length (docs/model.md, 3. SLO-feasible operating point).

    Attributes
    ----------
    ttft_limit_ms, tpot_limit_ms
        Time-to-first-token limit, queueing included, and inter-token limit [ms].
    e2e_limit_ms
        End-to-end limit, or None [ms].
    attainment_fraction
        Share of requests that must meet the SLO at the sizing demand [-].
    output_tokens
        Output tokens per request, OSL [tokens].
    output_tokens_cv_fraction
        Coefficient of variation of the output length, or None (exponential service) [-]. Its square is the
        service time's SCV, which stretches the conditional wait (:attr:`FleetPolicy.service_scv`) in sizing,
        acceptance and the reported wait alike (docs/model.md, Routing: service-time spread).
    classes
        The workload's request classes (:class:`rackcost.model.workload.classes.ClassMix`), or None for one class of the
        workload's shape. With classes every SLO check and budget is each class's (its own limits, else those
        above), ``output_tokens`` is the mix's mean and ``attainment_fraction`` the strictest class's target (the
        first of :func:`rackcost.model.workload.classes.slo_groups`).
    """

    ttft_limit_ms: float
    tpot_limit_ms: float
    e2e_limit_ms: float | None
    attainment_fraction: float
    output_tokens: float
    output_tokens_cv_fraction: float | None = None
    classes: ClassMix | None = None

    @property
    def miss_target_fraction(self) -> float:
        """Share of requests allowed to miss the SLO at the sizing demand [-]."""
        return 1.0 - self.attainment_fraction


@dataclass(frozen=True)
class FleetPolicy:
    """How the fleet is provisioned and run, beyond the sampled fractions (docs/model.md, steps 5 and 6).

    Attributes
    ----------
    idle_policy
        What replicas a demand point does not need do (:class:`~rackcost.model.strategies.IdlePolicy`).
    fixed_replicas
        A replica count given by the scenario instead of sizing, or None.
    spare_replicas
        Replicas added for redundancy [-].
    sizing_index
        Index of the demand point the fleet is sized for, or None for the highest arrival rate.
    routing
        How the load balancer spreads requests (:mod:`rackcost.model.queues.routing`): which queue the model solves.
    hours_per_day
        Hours of each demand point [h] (a rented fleet's daily minimum needs them).
    arrival_scv
        Squared coefficient of variation of each demand point's inter-arrival times (1: Poisson; empty: all 1)
        [-] (:mod:`rackcost.model.queues.burstiness`).
    service_scv
        Squared coefficient of variation of the slot holding time (1: exponential, the default; the output
        length's ``cv^2`` where the workload gives one) [-] (:mod:`rackcost.model.queues.burstiness`).
    rate_swing_amplitude_fraction, rate_swing_period_s
        Each demand point's short rate swing, ``lambda (1 + a sin(2 pi t / T))``: its amplitude ``a`` [-] (0: no
        swing; empty: none anywhere) and period ``T`` [s] (:mod:`rackcost.model.queues.rate_swing`).
    sub_hour_rate_ratios
        Each demand point's windows within its hour, as each window's rate over the hour's mean (equal windows;
        an empty tuple: a constant rate; empty: none anywhere) [-] (``demand[i].sub_hour``; served as a
        :class:`rackcost.model.queues.rate_swing.RateShape` by the pointwise stationary approximation).
    sub_hour_sizing
        What a moving rate at the sizing point is sized for: every window at the SLO, or the hour's average
        (:class:`~rackcost.model.strategies.SubHourSizing`); also what capacity at SLO means under it.
    """

    idle_policy: IdlePolicy
    fixed_replicas: int | None
    spare_replicas: int
    sizing_index: int | None
    routing: str = DEFAULT_ROUTING
    hours_per_day: tuple[float, ...] = ()
    arrival_scv: tuple[float, ...] = ()
    service_scv: float = 1.0
    rate_swing_amplitude_fraction: tuple[float, ...] = ()
    rate_swing_period_s: tuple[float, ...] = ()
    sub_hour_rate_ratios: tuple[tuple[float, ...], ...] = ()
    sub_hour_sizing: SubHourSizing = SubHourSizing.busiest_window

    def variability(self, points: int) -> NDArray[np.float64]:
        """The G/G/c variability of each of ``points`` demand points, ``(1, points)`` [-]."""
        scv = self.arrival_scv or (1.0,) * points
        return arrival_variability(np.asarray(scv, dtype=float)).reshape(1, -1)

    def stretch(self, points: int) -> NDArray[np.float64]:
        """How much the service's spread stretches each demand point's conditional wait, ``(1, points)`` [-]
        (:func:`rackcost.model.queues.burstiness.wait_stretch`; exactly 1 for exponential service)."""
        if self.service_scv == 1.0:  # exponential service, every scenario without an output spread: no work
            return np.ones((1, points))
        scv = self.arrival_scv or (1.0,) * points
        return wait_stretch(np.asarray(scv, dtype=float), self.service_scv).reshape(1, -1)

    def stretch_at(self, arrival_scvs: tuple[float, ...]) -> NDArray[np.float64]:
        """The wait stretch with arrivals at each of ``arrival_scvs`` and this service, ``(len, 1)`` [-]."""
        if self.service_scv == 1.0:
            return np.ones((len(arrival_scvs), 1))
        return wait_stretch(np.asarray(arrival_scvs, dtype=float), self.service_scv).reshape(-1, 1)

    def sizing_stretch(self, rates: NDArray[np.float64]) -> NDArray[np.float64]:
        """The wait stretch at each sample's sizing point, ``(n, 1)`` [-]."""
        s = self.stretch(rates.shape[1])
        index = np.argmax(rates, axis=1) if self.sizing_index is None else np.full(rates.shape[0], self.sizing_index)
        return np.asarray(s[0, index], dtype=float).reshape(-1, 1)

    def sizing_variability(self, rates: NDArray[np.float64]) -> NDArray[np.float64]:
        """The variability at each sample's sizing point, ``(n, 1)`` [-] (the highest rate, or ``sizing_index``)."""
        v = self.variability(rates.shape[1])
        index = np.argmax(rates, axis=1) if self.sizing_index is None else np.full(rates.shape[0], self.sizing_index)
        return np.asarray(v[0, index], dtype=float).reshape(-1, 1)


@dataclass(frozen=True)
class SystemInputs:
    """One system's central inputs: its performance curve, packaging, power and facility figures.

    Attributes
    ----------
    name
        The system's name.
    curve
        Operating points of one replica, throughput already per replica and derated (docs/model.md, steps 1, 2).
    coarse
        ``curve`` at the candidate concurrencies of the operating-point search (every integer in its measured
        range: :func:`rackcost.model.replica.operating_point.candidate_curve`), computed once.
    concurrency_derived
        True where the file gave no concurrency and Little's law derived it.
    accelerators_per_replica, accelerators_per_node, nodes_per_rack
        Packaging [-].
    rated_w, busy_w, idle_w, parked_w
        Accelerator power: rated (provisioning only), busy, idle and parked [W].
    host_w, host_rated_w, host_parked_w
        Host power per node: running, rated and parked [W].
    rack_overhead_w
        Switches, fans, CDU and conversion per rack [W].
    pue, price_usd_per_kwh, rack_power_limit_w, colocation_usd_per_kw_month, build_usd_per_kw, build_life_years
        The facility as this system sees it (its override, else the scenario's) [-, USD/kWh, W, USD/kW-month,
        USD/kW, years].
    headline_tokens_per_s_per_kw, headline_power_basis, headline_is_claim
        The headline figure of the claim-vs-decision table [tokens/s/kW], its power basis, and whether a vendor
        claimed it (else it is derived from the curve's peak on rated accelerator power).
    payment
        ``own`` (capex and opex), ``rent reserved`` or ``rent on_demand``.
    rent_includes_power_and_facility
        For a rented system: whether the rental price covers energy and facility.
    rent_minimum_hours_per_day
        Rented on demand: the hours a day every replica started that day is billed at least [h].
    carbon_g_per_kwh, carbon_usd_per_tonne
        The grid's flat carbon intensity and the carbon price [g CO2e/kWh, USD/t] (:mod:`rackcost.model.energy.grid`).
    peak_to_mean_power
        A serving accelerator's peak over mean power: the mean of the curve's measured ratios where its points
        carry both, else :data:`rackcost.model.energy.power.PEAK_TO_MEAN_POWER` [-].
    kv_memory
        The replica's memory for the KV cache at the workload's context
        (:class:`rackcost.model.replica.memory.KvMemory`),
        or None: no memory limit (the system gives no ``memory`` block). Operating points whose requests' caches
        do not fit are left out of the search (:func:`rackcost.model.replica.operating_point.choose_point`).
    pools
        A disaggregated system's two pools (:class:`PoolInputs`), or None for an aggregated one. The figures above
        are then its decode pool's, with the TTFT of its fastest prefill and the KV transfer: the system as the
        tables and warnings read it.

    Attributes below ``headline_is_claim`` have defaults so that code building inputs by hand need not name them.
    """

    name: str
    curve: Curve
    coarse: Curve
    concurrency_derived: bool
    accelerators_per_replica: int
    accelerators_per_node: int
    nodes_per_rack: int
    rated_w: float
    busy_w: float
    idle_w: float
    parked_w: float
    host_w: float
    host_rated_w: float
    host_parked_w: float
    rack_overhead_w: float
    pue: float
    price_usd_per_kwh: float
    rack_power_limit_w: float
    colocation_usd_per_kw_month: float
    build_usd_per_kw: float
    build_life_years: float
    headline_tokens_per_s_per_kw: float
    headline_power_basis: str
    headline_is_claim: bool
    payment: Payment = Payment.own
    rent_includes_power_and_facility: bool = True
    rent_minimum_hours_per_day: float = 0.0
    carbon_g_per_kwh: float = 0.0
    carbon_usd_per_tonne: float = 0.0
    peak_to_mean_power: float = PEAK_TO_MEAN_POWER
    kv_memory: KvMemory | None = None
    pools: PoolInputs | None = None

    @property
    def node_rated_w(self) -> float:
        """Rated power of one node: accelerators plus host [W]."""
        return self.accelerators_per_node * self.rated_w + self.host_rated_w

    @property
    def host_w_per_replica(self) -> float:
        """A replica's share of its nodes' host power [W]."""
        return self.host_w * self.accelerators_per_replica / self.accelerators_per_node


@dataclass(frozen=True)
class CostInputs:
    """One system's cost figures per sample, each of shape ``(n, 1)`` (docs/model.md, 8. Cost; units in the names)."""

    capex_usd_per_accelerator: Column
    capex_usd_per_node: Column
    capex_usd_per_rack: Column
    networking_capex_fraction: Column
    installation_capex_fraction: Column
    service_life_years: Column
    cost_of_capital_fraction: Column
    maintenance_fraction_per_year: Column
    software_usd_per_accelerator_year: Column
    operations_usd_per_rack_year: Column


@dataclass(frozen=True)
class SampledInputs:
    """One system's inputs that may vary per sample; every array has a leading sample axis of length ``n``.

    Attributes
    ----------
    n
        Samples [-].
    arrival_rps
        Arrival rate at each demand point, ``(n, points)`` [requests/s].
    availability_fraction, max_utilization_fraction, power_utilization_exponent
        Fleet fractions and the exponent of utilisation in accelerator power [-].
    service_s_points
        Slot holding time at each measured point of the curve (sorted by concurrency), ``(n, K)``: the central
        ``c / mu`` over the sampled / central throughput of the point and of the provenance class's derate [s].
    power_w_points
        Measured accelerator power at each point of the curve, ``(n, K)``, or None when the points carry none [W].
    busy_w, idle_w, parked_w, host_w, host_parked_w, rack_overhead_w
        Accelerator, host and rack power figures [W].
    pue, electricity_usd_per_kwh, colocation_usd_per_kw_month, build_usd_per_kw, build_life_years
        Facility figures as this system sees them [-, USD/kWh, USD/kW-month, USD/kW, years].
    costs
        Cost figures (zero for a rented system).
    rent_usd_per_accelerator_hour
        Rental price of a rented system, or None [USD/accelerator-h].
    carbon_g_per_kwh
        Grid carbon intensity, ``(n, 1)``, or ``(n, points)`` where an hourly grid gives each point its own
        [g CO2e/kWh]; ``electricity_usd_per_kwh`` may likewise be ``(n, points)``.
    carbon_usd_per_tonne
        Carbon price the owner pays on its energy bill (zero where a rental price covers power) [USD/t].
    """

    n: int
    arrival_rps: NDArray[np.float64]
    availability_fraction: Column
    max_utilization_fraction: Column
    power_utilization_exponent: Column
    service_s_points: NDArray[np.float64]
    power_w_points: NDArray[np.float64] | None
    busy_w: Column
    idle_w: Column
    parked_w: Column
    host_w: Column
    host_parked_w: Column
    rack_overhead_w: Column
    pue: Column
    electricity_usd_per_kwh: Column
    colocation_usd_per_kw_month: Column
    build_usd_per_kw: Column
    build_life_years: Column
    costs: CostInputs
    rent_usd_per_accelerator_hour: Column | None = None
    carbon_g_per_kwh: NDArray[np.float64] = field(default_factory=lambda: np.zeros((1, 1)))
    carbon_usd_per_tonne: Column = field(default_factory=lambda: np.zeros((1, 1)))


@dataclass(frozen=True)
class PoolInputs:
    """A disaggregated system's two pools as plain inputs (:mod:`rackcost.model.fleets.disaggregation`).

    Attributes
    ----------
    prefill
        The prefill pool as a system of its own: its curve holds a slot for the prefill time, its TTFT is the
        prefill time plus the KV transfer (its TPOT is set to the decode pool's once that is chosen).
    decode
        The decode pool as a system of its own: its curve's TTFT is 0 (its part of the SLO is the TPOT limit, and
        it has no wait budget).
    transfer_ms
        Time to send one request's KV cache from prefill to decode [ms].
    kv_bytes_per_request
        The KV bytes of one request's input that are sent [bytes].
    bandwidth_gb_per_s
        Link bandwidth one transfer gets [GB/s].
    decode_miss_share
        Share of the SLO's allowed misses the decode pool is sized for [-].
    """

    prefill: SystemInputs
    decode: SystemInputs
    transfer_ms: float
    kv_bytes_per_request: float
    bandwidth_gb_per_s: float
    decode_miss_share: float
