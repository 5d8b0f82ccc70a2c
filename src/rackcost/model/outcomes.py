"""What the steps of the model compute, as typed containers (the results object of the evaluation chain).

Each field is written by one named step; the step is named beside it. The containers hold numbers only, so the
chain (:mod:`rackcost.evaluation.chain`), the Monte Carlo (:mod:`rackcost.analysis.montecarlo`) and the tables
(:mod:`rackcost.evaluation.results`) share them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost.model.costs.api import ApiOutcome
from rackcost.model.inputs import SystemInputs
from rackcost.model.queues.dispersion import real_traffic_scv
from rackcost.model.replica.performance import Curve

__all__ = ["ApiSystemOutcome", "ChosenPoint", "DemandOutcome", "FleetOutcome", "Metrics", "SystemOutcome"]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class ChosenPoint:
    """The SLO-feasible operating point that needs the fewest replicas for the sizing demand (docs/model.md, step 3).

    Attributes
    ----------
    point
        The chosen point, as a one-point curve.
    busy_w
        Accelerator power at the point with every slot busy: the measured power there, else the hardware's [W].
    budget_s
        Queueing budget the SLO leaves at the point [s].
    slo_replicas
        Replicas the SLO and the utilisation ceiling need at the sizing demand [-].
    more_constraints
        With request classes of other attainment targets: each further (queueing budget [s], miss target [-]) the
        queue must keep at the point (:func:`rackcost.model.replica.operating_point.slo_budgets_s`); ``budget_s`` is the
        strictest target's. Empty otherwise.
    service_scv
        With request classes: the mix's service-time SCV at the point
        (:func:`rackcost.model.workload.classes.mix_service_scv`),
        which the fleet keeps at every demand point; None: the workload's (``FleetPolicy.service_scv``) [-].
    arrival_scv
        Where a demand point's burstiness is a measured dispersion: every point's arrival SCV as this system sees it
        at its chosen point's service time (:func:`rackcost.model.queues.dispersion.effective_arrival_scv`), which the
        fleet keeps at every demand point; None: the points' own (``FleetPolicy.arrival_scv``) [-].
    """

    point: Curve
    busy_w: float
    budget_s: float
    slo_replicas: int
    more_constraints: tuple[tuple[float, float], ...] = ()
    service_scv: float | None = None
    arrival_scv: tuple[float, ...] | None = None

    @property
    def concurrency(self) -> float:
        """Slots per replica at the point [requests]."""
        return float(self.point.concurrency[0])

    @property
    def ttft_ms(self) -> float:
        """TTFT at the point, before queueing [ms]."""
        return float(self.point.ttft_ms[0])

    @cached_property  # read once per point and served SCV by the warnings: computed once (a 4,001-point average)
    def real_traffic_scv(self) -> float:
        """The arrival SCV a public production trace reads at the point's service time
        (:func:`rackcost.model.queues.dispersion.real_traffic_scv`): what the margin check serves the fleet at, and its
        key in ``FleetOutcome.served_at_scv`` [-]."""
        return float(real_traffic_scv(float(self.point.service_s[0])))


@dataclass(frozen=True)
class DemandOutcome:
    """What a fleet does at each demand point; one entry per point.

    Attributes
    ----------
    offered_rps, admitted_rps, accepted_rps, rejected_rps
        Arrivals; admitted by admission control; served within the SLO; not served within it [requests/s].
    rejected_fraction
        rejected / offered [-].
    active_replicas
        Replicas serving [-].
    utilization_fraction
        Slot utilisation of the serving replicas [-].
    capacity_at_slo_rps
        Largest arrival rate every provisioned replica together serves within the SLO [requests/s].
    spare_capacity_fraction
        (capacity - offered) / capacity; negative when the point is above capacity [-].
    wait_p99_ms
        99th percentile of the queueing wait at the admitted rate [ms].
    overloaded
        True where admission control drops load.
    in_service_concurrency
        Requests in service per serving replica: where the load puts the operating point [requests].
    service_s
        Slot holding time there [s].
    ttft_ms, tpot_ms
        TTFT before fleet queueing and TPOT there, or None when the operating point does not move with load [ms].
    ttft_p99_ms, tpot_p99_ms
        99th percentiles of TTFT (queueing included) and TPOT over the occupancy a request starts at
        (:mod:`rackcost.model.queues.occupancy`), or None when the operating point does not move with load [ms].
    class_miss_fraction
        With request classes: the share of each class's admitted requests that wait past its own budget, ``(n,
        points, K)`` [-]; None without classes.
    class_ttft_p99_ms
        With request classes: each class's p99 TTFT, its own TTFT at the p99 occupancy plus the same wait as
        ``ttft_p99_ms``, ``(n, points, K)`` [ms]; None without classes.
    """

    offered_rps: NDArray[np.float64]
    admitted_rps: NDArray[np.float64]
    accepted_rps: NDArray[np.float64]
    rejected_rps: NDArray[np.float64]
    rejected_fraction: NDArray[np.float64]
    active_replicas: NDArray[np.int64]
    utilization_fraction: NDArray[np.float64]
    capacity_at_slo_rps: NDArray[np.float64]
    spare_capacity_fraction: NDArray[np.float64]
    wait_p99_ms: NDArray[np.float64]
    overloaded: NDArray[np.bool_]
    in_service_concurrency: NDArray[np.float64]
    service_s: NDArray[np.float64]
    ttft_ms: NDArray[np.float64] | None = None
    tpot_ms: NDArray[np.float64] | None = None
    ttft_p99_ms: NDArray[np.float64] | None = None
    tpot_p99_ms: NDArray[np.float64] | None = None
    class_miss_fraction: NDArray[np.float64] | None = None
    class_ttft_p99_ms: NDArray[np.float64] | None = None

    def sample(self, index: int) -> DemandOutcome:
        """Sample ``index`` of every ``(n, points)`` array, kept as a ``(1, points)`` array (one sample)."""
        rows: dict[str, Any] = {k: None if v is None else v[[index]] for k, v in vars(self).items()}
        return DemandOutcome(**rows)

    def first_sample(self) -> DemandOutcome:
        """The first sample's row of every ``(n, points)`` array: one entry per demand point."""
        # every field is an array or None, and its row keeps the field's type
        rows: dict[str, Any] = {k: None if v is None else v[0] for k, v in vars(self).items()}
        return DemandOutcome(**rows)


@dataclass(frozen=True)
class FleetOutcome:
    """Steps 5 to 8 for ``n`` samples: per-system arrays ``(n, 1)``, per-demand-point arrays ``(n, points)``.

    Attributes
    ----------
    request_rps, service_s, busy_w
        At the chosen point, per sample (step 2 with sampled throughput and power): requests/s per replica
        [requests/s], slot holding time [s], accelerator busy power [W].
    slo_replicas, serving_replicas, provisioned_replicas
        Step 5: replicas the SLO needs at the sizing demand, those that serve (the SLO's; replicas added for
        availability stand by), and installed with redundancy [-].
    nodes, racks, nodes_per_rack_effective, provisioned_it_kw
        Step 5, rack packing: nodes, racks, node slots used per rack under the rack power limit [-], and IT power
        provisioned on rated power [kW].
    demand
        Step 6: what the fleet does at each demand point.
    it_power_kw, facility_power_kw
        Step 7: wall power at each demand point, IT and facility (x PUE) [kW].
    peak_it_power_kw, peak_facility_power_kw
        Step 7: the same at the serving accelerators' peak power [kW].
    capex_usd, capital_usd_per_hour, fixed_opex_usd_per_hour, energy_usd_per_hour
        Step 8: fleet capex [USD], its annualised cost, fixed opex and energy [USD/h].
    rent_usd_per_hour
        Step 8 for a rented system: the rent at each demand point (zero when owned) [USD/h].
    carbon_g_per_hour
        Step 8's carbon: facility power x the grid's carbon intensity at each demand point [g CO2e/h].
    slo_point_total_tokens_per_facility_kwh
        Step 9's modelled efficiency: total tokens per facility kWh of one replica flat out at the chosen point,
        with its share of hosts and rack overhead [tokens/kWh].
    served_at_scv
        What the same fleet would do at every demand point had its arrivals this squared coefficient of variation
        (central evaluations only; empty otherwise).
    demand_without_swing
        Where a demand point has a rate swing: the same fleet at every point's constant mean rate (what the swing
        moves; :mod:`rackcost.model.queues.rate_swing`); None without a swing.
    served_at_swing
        What the same fleet would do at every demand point had its rate this swing amplitude (central evaluations
        only; empty otherwise).
    """

    request_rps: NDArray[np.float64]
    service_s: NDArray[np.float64]
    busy_w: NDArray[np.float64]
    slo_replicas: NDArray[np.int64]
    serving_replicas: NDArray[np.int64]
    provisioned_replicas: NDArray[np.int64]
    nodes: NDArray[np.int64]
    racks: NDArray[np.int64]
    nodes_per_rack_effective: NDArray[np.int64]
    provisioned_it_kw: NDArray[np.float64]
    demand: DemandOutcome
    it_power_kw: NDArray[np.float64]
    facility_power_kw: NDArray[np.float64]
    peak_it_power_kw: NDArray[np.float64]
    peak_facility_power_kw: NDArray[np.float64]
    capex_usd: NDArray[np.float64]
    capital_usd_per_hour: NDArray[np.float64]
    fixed_opex_usd_per_hour: NDArray[np.float64]
    energy_usd_per_hour: NDArray[np.float64]
    rent_usd_per_hour: NDArray[np.float64]
    carbon_g_per_hour: NDArray[np.float64]
    slo_point_total_tokens_per_facility_kwh: NDArray[np.float64]
    served_at_scv: dict[float, DemandOutcome] = field(default_factory=dict)
    demand_without_swing: DemandOutcome | None = None
    served_at_swing: dict[float, DemandOutcome] = field(default_factory=dict)


@dataclass(frozen=True)
class Metrics:
    """Derived figures of one system: per demand point ``(n, points)``, per day ``(n,)``.

    Attributes
    ----------
    total_usd_per_hour
        Capital + fixed opex + energy (+ rent, for a rented system) [USD/h].
    usd_per_accepted_request
        total / accepted requests per hour [USD/request].
    usd_per_million_accepted_output_tokens, usd_per_million_accepted_input_tokens
        total / accepted output (input) tokens per hour x 1e6 [USD/M tokens].
    usd_per_million_accepted_total_tokens
        total / accepted input + output tokens per hour x 1e6 [USD/M tokens].
    useful_output_tokens_per_s
        Output tokens of accepted requests [tokens/s].
    output_tokens_per_kwh
        Useful output tokens per facility kWh [tokens/kWh].
    ttft_p99_ms
        99th percentile of TTFT at the occupancy a request starts at plus its queueing wait
        (:mod:`rackcost.model.queues.occupancy`); without a load curve, TTFT at the chosen point plus the p99 wait [ms].
    usd_per_day, accepted_requests_per_day, facility_energy_kwh_per_day
        Sums over the day, each demand point weighted by its hours [USD, requests, kWh].
    blended_usd_per_accepted_request, blended_usd_per_million_accepted_output_tokens
    blended_usd_per_million_accepted_input_tokens, blended_usd_per_million_accepted_total_tokens
        The day's cost over the day's accepted requests, and output tokens x 1e6 [USD/request, USD/M tokens].
    carbon_g_per_accepted_request, carbon_kg_per_day, blended_carbon_g_per_accepted_request
        Carbon per accepted request at each point, the day's carbon, and the day's over its accepted requests
        [g CO2e/request, kg CO2e, g CO2e/request].
    """

    total_usd_per_hour: Array
    usd_per_accepted_request: Array
    usd_per_million_accepted_output_tokens: Array
    usd_per_million_accepted_input_tokens: Array
    usd_per_million_accepted_total_tokens: Array
    useful_output_tokens_per_s: Array
    output_tokens_per_kwh: Array
    ttft_p99_ms: Array
    usd_per_day: Array
    accepted_requests_per_day: Array
    facility_energy_kwh_per_day: Array
    blended_usd_per_accepted_request: Array
    blended_usd_per_million_accepted_output_tokens: Array
    blended_usd_per_million_accepted_input_tokens: Array
    blended_usd_per_million_accepted_total_tokens: Array
    carbon_g_per_accepted_request: Array
    carbon_kg_per_day: Array
    blended_carbon_g_per_accepted_request: Array


@dataclass(frozen=True)
class SystemOutcome:
    """Everything :func:`rackcost.evaluate` computed for one system (one sample: the central values).

    Attributes
    ----------
    inputs
        The system's central inputs.
    chosen
        Step 3: the chosen operating point.
    fleet
        Steps 5 to 8 with a sample axis of length 1 (the scalar views below read it).
    metrics
        The derived figures (:func:`rackcost.model.costs.metrics.derive`), sample axis of length 1.
    """

    inputs: SystemInputs
    chosen: ChosenPoint
    fleet: FleetOutcome
    metrics: Metrics

    @property
    def point(self) -> Curve:
        """The chosen operating point (a one-point curve)."""
        return self.chosen.point

    @property
    def busy_w(self) -> float:
        """Accelerator busy power at the chosen point [W]."""
        return self.chosen.busy_w

    @property
    def budget_s(self) -> float:
        """Queueing budget at the chosen point [s]."""
        return self.chosen.budget_s

    @property
    def slo_replicas(self) -> int:
        """Replicas the SLO needs at the sizing demand [-]."""
        return int(self.fleet.slo_replicas[0, 0])

    @property
    def serving_replicas(self) -> int:
        """Replicas that serve (the rest stand by for availability) [-]."""
        return int(self.fleet.serving_replicas[0, 0])

    @property
    def provisioned_replicas(self) -> int:
        """Replicas installed [-]."""
        return int(self.fleet.provisioned_replicas[0, 0])

    @property
    def nodes(self) -> int:
        """Nodes installed [-]."""
        return int(self.fleet.nodes[0, 0])

    @property
    def racks(self) -> int:
        """Racks installed [-]."""
        return int(self.fleet.racks[0, 0])

    @property
    def nodes_per_rack_effective(self) -> int:
        """Node slots used per rack under the rack power limit [-]."""
        return int(self.fleet.nodes_per_rack_effective[0, 0])

    @property
    def provisioned_it_kw(self) -> float:
        """IT power provisioned on rated power [kW]."""
        return float(self.fleet.provisioned_it_kw[0, 0])

    @property
    def capex_usd(self) -> float:
        """Fleet capex [USD]."""
        return float(self.fleet.capex_usd[0, 0])

    @property
    def capital_usd_per_hour(self) -> float:
        """Annualised capital per hour [USD/h]."""
        return float(self.fleet.capital_usd_per_hour[0, 0])

    @property
    def fixed_opex_usd_per_hour(self) -> float:
        """Fixed opex per hour [USD/h]."""
        return float(self.fleet.fixed_opex_usd_per_hour[0, 0])

    @cached_property  # read about ten times per system by the tables and warnings of one evaluation: built once
    def demand(self) -> DemandOutcome:
        """What the fleet does at each demand point (one entry per point)."""
        return self.fleet.demand.first_sample()

    @property
    def it_power_kw(self) -> NDArray[np.float64]:
        """IT power at each demand point [kW]."""
        return self.fleet.it_power_kw[0]

    @property
    def facility_power_kw(self) -> NDArray[np.float64]:
        """Facility power at each demand point [kW]."""
        return self.fleet.facility_power_kw[0]

    @property
    def peak_it_power_kw(self) -> NDArray[np.float64]:
        """IT power at each demand point with the serving accelerators at their peak [kW]."""
        return self.fleet.peak_it_power_kw[0]

    @property
    def peak_facility_power_kw(self) -> NDArray[np.float64]:
        """Facility power at each demand point with the serving accelerators at their peak [kW]."""
        return self.fleet.peak_facility_power_kw[0]

    @property
    def energy_usd_per_hour(self) -> NDArray[np.float64]:
        """Energy cost at each demand point [USD/h]."""
        return self.fleet.energy_usd_per_hour[0]

    @property
    def rent_usd_per_hour(self) -> NDArray[np.float64]:
        """Rent at each demand point (zero when owned) [USD/h]."""
        return self.fleet.rent_usd_per_hour[0]

    @property
    def slo_point_total_tokens_per_facility_kwh(self) -> float:
        """Total tokens per facility kWh at the chosen point [tokens/kWh]."""
        return float(self.fleet.slo_point_total_tokens_per_facility_kwh[0, 0])


@dataclass(frozen=True)
class ApiSystemOutcome:
    """Everything :func:`rackcost.evaluate` computed for one API system: no plan, no fleet, only what it serves.

    Attributes
    ----------
    index
        The system's index in the scenario's ``systems``.
    served
        What it is offered, accepts (up to a rate limit) and pays at each demand point (sample axis of length 1).
    metrics
        The derived figures (:func:`rackcost.model.costs.metrics.derive_api`), sample axis of length 1.
    class_usd_per_request
        With request classes: what one request of each class costs through the API, ``(n, K)`` [USD/request];
        None without classes.
    """

    index: int
    served: ApiOutcome
    metrics: Metrics
    class_usd_per_request: Array | None = None
