"""Scenario schema: every input of the model, validated by pydantic.

All checks happen here (DESIGN.md section 1 and 5). Units live in field names (``_w``, ``_kw``, ``_usd``,
``_ms``, ``_s``, ``_per_kwh``, ``_years``, ``_rps``) and shares end in ``_fraction`` and lie in [0, 1].
Cross-field rules name both fields and both values. The numeric core never sees these objects: the
evaluation chain (:mod:`rackcost.chain`) unpacks them into numpy arrays.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, ValidationError, model_validator

from rackcost.distributions import Distribution
from rackcost.yaml_paths import MISSING, lookup, parse_path

__all__ = [
    "Claim",
    "Costs",
    "DemandPoint",
    "Facility",
    "Figure",
    "FacilityOverride",
    "Fleet",
    "Hardware",
    "OperatingPoint",
    "Performance",
    "Provenance",
    "ProvenanceClass",
    "ROUTING_WORDS",
    "Routing",
    "SLO",
    "Scenario",
    "System",
    "UNCERTAIN_PATHS",
    "UNCERTAIN_WHERE",
    "Uncertainty",
    "Workload",
    "annotation_at",
    "model_in",
    "is_uncertain_path",
]

PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegativeFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Source = Annotated[str | None, Field(default=None, description="Where the figures of this block come from.")]


def _raise(problems: list[tuple[str, str]]) -> None:
    """Raise one ValueError listing cross-field problems, one ``path: message`` per line.

    ``path`` is relative to the model being validated; the loader turns each line into its own problem with the
    full YAML path and line.
    """
    if problems:
        raise ValueError("\n".join(f"{path}: {message}" for path, message in problems))


class _Block(BaseModel):
    """Base of every scenario block: unknown keys are errors, values are checked on assignment too."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)


class ProvenanceClass(StrEnum):
    """Who ran the benchmark behind a figure."""

    vendor = "vendor"
    collaborative = "collaborative"
    independent = "independent"
    assumption = "assumption"


class TokenBasis(StrEnum):
    """Which tokens a throughput figure counts."""

    total = "total"
    output = "output"


class Routing(StrEnum):
    """How the load balancer spreads requests over a fleet's replicas, and so which queue the model solves."""

    pooled = "pooled"
    least_outstanding = "least_outstanding"
    power_of_two = "power_of_two"
    round_robin = "round_robin"
    random = "random"


ROUTING_WORDS = {
    "pooled": "one central queue over every slot of the fleet (M/M/k)",
    "least_outstanding": "each request to the replica with the fewest outstanding requests, modelled as one M/M/k "
    "over every slot",
    "power_of_two": "each request to the less loaded of two replicas drawn at random (simulation only)",
    "round_robin": "requests to the replicas in turn (simulation only)",
    "random": "each request to a replica drawn at random: independent M/M/c queues at lambda / N (exact)",
}
"""What each router does and how the model treats it, in words, for output headers."""


class Workload(_Block):
    """The requests the fleet serves."""

    model: str = Field(description="Model name, e.g. deepseek-ai/DeepSeek-R1.")
    revision: str | None = Field(default=None, description="Model revision or release date.")
    precision: str = Field(description="Numeric format of weights/activations, e.g. fp8, mxfp4.")
    input_tokens_per_request: PositiveFloat = Field(description="Input (prompt) tokens per request, ISL [tokens].")
    output_tokens_per_request: PositiveFloat = Field(description="Output tokens per request, OSL [tokens].")
    output_tokens_cv_fraction: NonNegativeFloat | None = Field(
        default=None,
        description="Coefficient of variation of output length (OSL spread) [-]. Scales the reported p99 queueing "
        "wait by the Allen-Cunneen factor (1 + min(cv, 1)^2) / 2; never used for sizing or acceptance, where it was "
        "found optimistic for small pools and heavy tails. Absent: exponential service, as the M/M/k assumes.",
    )
    source: Source = None


class SLO(_Block):
    """Latency service-level objective; a request served within it is *accepted*."""

    ttft_limit_ms: PositiveFloat = Field(description="Time-to-first-token limit, queueing included [ms].")
    tpot_limit_ms: PositiveFloat = Field(description="Time-per-output-token (inter-token) limit [ms].")
    e2e_limit_ms: PositiveFloat | None = Field(
        default=None, description="Optional end-to-end latency limit, queueing included [ms]."
    )
    attainment_fraction: float = Field(
        default=0.99,
        gt=0,
        lt=1,
        allow_inf_nan=False,
        description="Share of requests that must be accepted at the sizing (peak) demand, e.g. 0.99.",
    )
    source: Source = None


class DemandPoint(_Block):
    """One level of demand and how many hours a day the fleet sees it."""

    name: str = Field(min_length=1, description="Name, conventionally quiet, normal or peak.")
    arrival_rps: PositiveFloat = Field(description="Poisson arrival rate of requests [requests/s].")
    hours_per_day: Annotated[float, Field(gt=0, le=24, allow_inf_nan=False)] = Field(
        description="Hours per day at this demand [h]; all points add up to 24."
    )
    source: Source = None


class FacilityOverride(_Block):
    """Facility figures that differ for one system (e.g. a liquid-cooled hall); unset fields inherit."""

    pue: Annotated[float, Field(ge=1, le=5, allow_inf_nan=False)] | None = None
    electricity_usd_per_kwh: NonNegativeFloat | None = None
    rack_power_limit_kw: PositiveFloat | None = None
    colocation_usd_per_kw_month: NonNegativeFloat | None = None
    build_usd_per_kw: NonNegativeFloat | None = None
    build_life_years: PositiveFloat | None = None
    source: Source = None


class Facility(_Block):
    """The building the fleet stands in."""

    pue: Annotated[float, Field(ge=1, le=5, allow_inf_nan=False)] = Field(
        description="Power usage effectiveness: facility power / IT power [-]."
    )
    electricity_usd_per_kwh: NonNegativeFloat = Field(description="Electricity price [USD/kWh].")
    rack_power_limit_kw: PositiveFloat = Field(description="Power a rack position may be provisioned for [kW].")
    max_racks: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="Rack positions available; a fleet that needs more is flagged."
    )
    colocation_usd_per_kw_month: NonNegativeFloat = Field(
        default=0.0, description="Colocation charge per provisioned (rated) IT kW per month [USD/kW-month]."
    )
    build_usd_per_kw: NonNegativeFloat = Field(
        default=0.0, description="Cost to build facility capacity per provisioned IT kW [USD/kW]."
    )
    build_life_years: PositiveFloat = Field(
        default=15.0, description="Life over which facility build cost is recovered [years]."
    )
    source: Source = None


class Fleet(_Block):
    """How the fleet is sized and run."""

    idle_policy: Literal["powered", "park"] = Field(
        default="powered",
        description="powered: every replica is on and serving; park: replicas beyond what a demand point needs "
        "draw parked power.",
    )
    routing: Routing = Field(
        default=Routing.least_outstanding,
        description="How requests reach replicas. pooled: one central queue, any free slot takes the next request "
        "(one M/M/k over all slots); least_outstanding: each request to the replica with the fewest in flight "
        "(modelled as pooled, within about 2% of a simulation on capacity at SLO from 32 slots); random: each "
        "request to a replica drawn at random (N independent M/M/c queues at lambda/N: exact, pessimistic); "
        "power_of_two (the less loaded of two random replicas) and round_robin (replicas in turn): no analytic "
        "form, evaluated only by rackcost simulate.",
    )
    spare_replicas: Annotated[int, Field(ge=0)] = Field(default=0, description="Replicas added for redundancy.")
    replica_availability_fraction: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = Field(
        default=1.0, description="Share of time a replica is up; the sized fleet is divided by it."
    )
    max_utilization_fraction: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = Field(
        default=1.0, description="Ceiling on slot utilisation at the sizing demand."
    )
    power_utilization_exponent: PositiveFloat = Field(
        default=1.0, description="Accelerator power = idle + (busy - idle) * utilisation ** exponent."
    )
    replicas: Annotated[int, Field(ge=1)] | None = Field(
        default=None,
        description="Evaluate an existing fleet of this many replicas per system instead of sizing one.",
    )
    sizing_demand_point: str | None = Field(
        default=None, description="Demand point the fleet is sized for; default the highest arrival rate."
    )
    source: Source = None


class Provenance(_Block):
    """Who produced a system's figures, so a reader knows what has and has not been reproduced."""

    provenance_class: ProvenanceClass = Field(
        alias="class", description="vendor, collaborative, independent or assumption."
    )
    reported_by: str | None = None
    date: str | None = None
    source: str = Field(min_length=1, description="Where the figures were published.")
    software_stack: str | None = None
    proprietary_software: bool = Field(
        default=False, description="Whether the gains depend on software a buyer cannot get."
    )
    notes: str | None = None

    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class OperatingPoint(_Block):
    """One measured operating point of a serving replica."""

    concurrency: PositiveFloat | None = Field(
        default=None,
        description="Requests in flight per replica [requests]; derived by Little's law when omitted.",
    )
    throughput_tokens_per_s: PositiveFloat = Field(
        description="Throughput on the block's token basis, per replica or per accelerator [tokens/s]."
    )
    tpot_ms: PositiveFloat | None = Field(default=None, description="Time per output token [ms].")
    interactivity_tokens_per_s: PositiveFloat | None = Field(
        default=None, description="Output tokens per second per user = 1000 / TPOT [tokens/s]."
    )
    ttft_ms: PositiveFloat = Field(description="Time to first token at this point, without fleet queueing [ms].")
    power_w_per_accelerator: PositiveFloat | None = Field(
        default=None,
        description="Measured accelerator (board) power at this point; overrides busy power [W].",
    )

    @model_validator(mode="after")
    def _one_latency_form(self) -> OperatingPoint:
        if (self.tpot_ms is None) == (self.interactivity_tokens_per_s is None):
            raise ValueError("give exactly one of tpot_ms and interactivity_tokens_per_s")
        return self

    @property
    def tpot_ms_value(self) -> float:
        """Time per output token [ms], whichever way it was given."""
        return self.tpot_ms if self.tpot_ms is not None else 1000.0 / self.interactivity_tokens_per_s


class Claim(_Block):
    """A vendor's headline: tokens per second per kW on a stated power basis."""

    tokens_per_s_per_kw: PositiveFloat = Field(description="Headline throughput per kW [tokens/s/kW].")
    token_basis: TokenBasis = Field(default=TokenBasis.total, description="Which tokens the claim counts.")
    power_basis: str = Field(description="What the kW counts, e.g. package, board, all-in, facility.")
    power_basis_kw_per_accelerator: PositiveFloat = Field(
        description="kW per accelerator on that basis, to turn the claim into throughput [kW]."
    )
    tpot_ms: PositiveFloat | None = Field(
        default=None,
        description="TPOT at the claimed point; with ttft_ms makes the claim an operating point [ms].",
    )
    ttft_ms: PositiveFloat | None = Field(default=None, description="TTFT at the claimed point [ms].")
    concurrency: PositiveFloat | None = Field(default=None, description="Concurrency at the claimed point.")
    source: Source = None

    @model_validator(mode="after")
    def _latency_pair(self) -> Claim:
        if (self.tpot_ms is None) != (self.ttft_ms is None):
            raise ValueError("give both tpot_ms and ttft_ms (the claim becomes an operating point) or neither")
        return self


class Performance(_Block):
    """Operating points of one serving replica, and/or a vendor claim that becomes one."""

    token_basis: TokenBasis = Field(default=TokenBasis.total, description="Tokens counted by throughput figures.")
    throughput_per: Literal["replica", "accelerator"] = Field(
        default="replica", description="Whether throughput figures are per replica or per accelerator."
    )
    points: list[OperatingPoint] = Field(default_factory=list)
    claim: Claim | None = None
    benchmark_model: str | None = Field(default=None, description="Model the curve was measured on.")
    benchmark_revision: str | None = None
    benchmark_precision: str | None = None
    benchmark_input_tokens: PositiveFloat | None = Field(
        default=None, description="ISL the curve was measured at; default the workload's [tokens]."
    )
    benchmark_output_tokens: PositiveFloat | None = Field(
        default=None, description="OSL the curve was measured at; default the workload's [tokens]."
    )
    framework: str | None = None
    speculative_decoding: str | None = None

    @model_validator(mode="after")
    def _has_a_point(self) -> Performance:
        if not self.points and (self.claim is None or self.claim.tpot_ms is None):
            raise ValueError("give operating points, or a claim with tpot_ms and ttft_ms so it becomes one")
        concurrencies = [p.concurrency for p in self.points]
        if any(c is None for c in concurrencies) and any(c is not None for c in concurrencies):
            raise ValueError("give concurrency for every operating point or for none")
        known = [c for c in concurrencies if c is not None]
        if len(set(known)) != len(known):
            raise ValueError(f"operating points repeat a concurrency: {sorted(known)}")
        return self


class Hardware(_Block):
    """Packaging and power of one system."""

    accelerators_per_replica: Annotated[int, Field(ge=1)] = Field(description="Accelerators one replica spans.")
    accelerators_per_node: Annotated[int, Field(ge=1)] = Field(description="Accelerators in one node (tray).")
    nodes_per_rack: Annotated[int, Field(ge=1)] = Field(description="Node slots in one rack.")
    accelerator_rated_w: PositiveFloat = Field(
        description="Rated (nameplate) accelerator power; provisioning only [W]."
    )
    accelerator_busy_w: PositiveFloat = Field(description="Sustained accelerator power when every slot is busy [W].")
    accelerator_idle_w: NonNegativeFloat = Field(description="Accelerator power when powered and idle [W].")
    accelerator_parked_w: NonNegativeFloat | None = Field(
        default=None, description="Accelerator power when parked (sleep); default the idle power [W]."
    )
    host_w_per_node: NonNegativeFloat = Field(
        default=0.0, description="CPUs, memory, NICs, fans of one node while it is on [W]."
    )
    host_rated_w_per_node: NonNegativeFloat | None = Field(
        default=None, description="Host nameplate power for provisioning; default host_w_per_node [W]."
    )
    host_parked_w_per_node: NonNegativeFloat | None = Field(
        default=None,
        description="Host power of a parked node; default host_w_per_node (parking saves nothing "
        "on the host unless stated) [W].",
    )
    rack_overhead_w: NonNegativeFloat = Field(
        default=0.0, description="Switches, fans, CDU and power conversion of one rack, always on [W]."
    )
    source: Source = None

    @model_validator(mode="after")
    def _power_order(self) -> Hardware:
        problems = []
        if self.accelerator_idle_w > self.accelerator_busy_w:
            problems.append(
                (
                    "accelerator_idle_w",
                    f"must not exceed accelerator_busy_w ({self.accelerator_busy_w:g}), "
                    f"got {self.accelerator_idle_w:g}",
                )
            )
        if self.accelerator_busy_w > self.accelerator_rated_w:
            problems.append(
                (
                    "accelerator_busy_w",
                    f"must not exceed accelerator_rated_w ({self.accelerator_rated_w:g}), "
                    f"got {self.accelerator_busy_w:g}",
                )
            )
        _raise(problems)
        return self


class Costs(_Block):
    """Capital and operating costs of one system."""

    capex_usd_per_accelerator: NonNegativeFloat = Field(description="Accelerator purchase price [USD].")
    capex_usd_per_node: NonNegativeFloat = Field(default=0.0, description="Node chassis, CPUs, memory [USD].")
    capex_usd_per_rack: NonNegativeFloat = Field(
        default=0.0, description="Rack, in-rack switches, power shelves, CDU [USD]."
    )
    networking_capex_fraction: Fraction = Field(
        default=0.0, description="Scale-out networking as a share of hardware capex [-]."
    )
    installation_capex_fraction: Fraction = Field(
        default=0.0, description="Installation and integration as a share of hardware capex [-]."
    )
    service_life_years: PositiveFloat = Field(description="Years over which capex is recovered [years].")
    cost_of_capital_fraction: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] = Field(
        default=0.0, description="Annual cost of capital (discount rate) [1/year]."
    )
    maintenance_fraction_per_year: Fraction = Field(
        default=0.0, description="Maintenance and support per year as a share of capex [1/year]."
    )
    software_usd_per_accelerator_year: NonNegativeFloat = Field(
        default=0.0, description="Software licences per accelerator per year [USD/year]."
    )
    operations_usd_per_rack_year: NonNegativeFloat = Field(
        default=0.0, description="Operations labour per rack per year [USD/year]."
    )
    source: Source = None


class System(_Block):
    """One system compared: its performance, who measured it, its hardware and its costs."""

    name: str = Field(min_length=1)
    performance: Performance
    provenance: Provenance
    hardware: Hardware
    costs: Costs
    facility: FacilityOverride | None = None


class Figure(_Block):
    """Where one figure (or every figure under a YAML path) comes from."""

    provenance: ProvenanceClass = Field(description="vendor, collaborative, independent or assumption.")
    source: str = Field(min_length=1, description="Publication, dataset or reasoning the figure comes from.")
    why: str | None = Field(default=None, description="For an assumption: why this value was chosen.")

    @model_validator(mode="after")
    def _assumption_says_why(self) -> Figure:
        if self.provenance is ProvenanceClass.assumption and not self.why:
            raise ValueError("an assumption must say why it was chosen (field 'why')")
        return self


class Uncertainty(_Block):
    """Scenario-wide uncertainty settings."""

    throughput_derate: dict[ProvenanceClass, Annotated[float, Field(gt=0, le=2, allow_inf_nan=False)]] = Field(
        default_factory=dict,
        description="Multiplier on the throughput of every system whose provenance class is the key, e.g. "
        "{vendor: {dist: triangular, low: 0.7, mode: 0.9, high: 1.0}}: figures not independently repeated [-].",
    )
    source: Source = None


# Where a distribution may stand instead of a number. The operating point, the packaging and the SLO are decided
# on central values, so structural integers, latencies, token counts and SLO limits stay plain numbers.
_FACILITY_UNCERTAIN = r"(pue|electricity_usd_per_kwh|colocation_usd_per_kw_month|build_usd_per_kw|build_life_years)"
UNCERTAIN_PATHS = [
    r"demand\[\d+\]\.arrival_rps",
    rf"facility\.{_FACILITY_UNCERTAIN}",
    rf"systems\[\d+\]\.facility\.{_FACILITY_UNCERTAIN}",
    r"fleet\.(replica_availability_fraction|max_utilization_fraction|power_utilization_exponent)",
    r"systems\[\d+\]\.hardware\.(accelerator_busy_w|accelerator_idle_w|accelerator_parked_w|host_w_per_node"
    r"|host_parked_w_per_node|rack_overhead_w)",
    r"systems\[\d+\]\.costs\.(capex_usd_per_accelerator|capex_usd_per_node|capex_usd_per_rack"
    r"|networking_capex_fraction|installation_capex_fraction|service_life_years|cost_of_capital_fraction"
    r"|maintenance_fraction_per_year|software_usd_per_accelerator_year|operations_usd_per_rack_year)",
    r"systems\[\d+\]\.performance\.points\[\d+\]\.(throughput_tokens_per_s|power_w_per_accelerator)",
    r"uncertainty\.throughput_derate\.(vendor|collaborative|independent|assumption)",
]
UNCERTAIN_WHERE = (
    "distributions are allowed on demand arrival rates; facility PUE, electricity price and facility costs; fleet "
    "availability, utilisation ceiling and power exponent; accelerator busy/idle/parked power, host power and rack "
    "overhead; every cost figure; operating-point throughput and measured power; and uncertainty.throughput_derate "
    "(the operating point, packaging, latencies and SLO are decided on central values)"
)
_UNCERTAIN = re.compile("|".join(f"(?:{p})" for p in UNCERTAIN_PATHS))


def is_uncertain_path(path: str) -> bool:
    """Whether a distribution may stand at this YAML path (see :data:`UNCERTAIN_PATHS`)."""
    return _UNCERTAIN.fullmatch(path) is not None


_DISTRIBUTION = TypeAdapter(Distribution)


def _extract_distributions(data: Any, path: str, found: dict[str, Any], problems: list[tuple[str, str]]) -> Any:
    """Copy of ``data`` with every ``{dist: ...}`` mapping replaced by its central value, collected in ``found``."""
    if isinstance(data, dict) and "dist" in data:
        try:
            dist = _DISTRIBUTION.validate_python(data)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                loc = [
                    str(p)
                    for p in err["loc"]
                    if not str(p).startswith(("triangular", "uniform", "normal", "lognormal", "choice"))
                ]
                where = ".".join([path, *loc]) if loc else path
                message = str(err.get("ctx", {}).get("error", err["msg"]))
                if err["type"] == "union_tag_invalid":
                    message = "dist must be one of triangular, uniform, normal, lognormal, choice"
                problems.append((where, message))
            return 0.0
        if not is_uncertain_path(path):
            problems.append((path, f"a distribution is not allowed here; {UNCERTAIN_WHERE}"))
        found[path] = dist
        return dist.central
    if isinstance(data, dict):
        return {
            k: _extract_distributions(v, f"{path}.{k}" if path else str(k), found, problems) for k, v in data.items()
        }
    if isinstance(data, list):
        return [_extract_distributions(v, f"{path}[{i}]", found, problems) for i, v in enumerate(data)]
    return data


class Scenario(_Block):
    """One scenario file: a workload, an SLO, a day of demand, a facility and the systems compared.

    Numeric inputs given as distributions are validated, replaced by their central value for the deterministic
    model, and kept in :attr:`distributions` (YAML path -> distribution) for :mod:`rackcost.uncertainty`.
    """

    _distributions: dict[str, Any] = PrivateAttr(default_factory=dict)

    name: str = Field(min_length=1)
    description: str | None = None
    workload: Workload
    slo: SLO
    demand: list[DemandPoint] = Field(min_length=1)
    facility: Facility
    fleet: Fleet = Field(default_factory=Fleet)
    systems: list[System] = Field(min_length=1)
    baseline_system: str | None = Field(default=None, description="System others are compared with; default the first.")
    uncertainty: Uncertainty = Field(default_factory=Uncertainty)
    figures: dict[str, Figure] = Field(
        default_factory=dict,
        description="Source and provenance of figures, keyed by YAML path (e.g. 'systems[0].hardware' covers every "
        "figure under it, 'facility.pue' just one).",
    )

    @model_validator(mode="wrap")
    @classmethod
    def _distributions_to_central(cls, data: Any, handler: Any) -> Scenario:
        if not isinstance(data, dict):
            return handler(data)
        found: dict[str, Any] = {}
        problems: list[tuple[str, str]] = []
        central = _extract_distributions(data, "", found, problems)
        _raise(problems)
        model = handler(central)
        model._distributions = found
        _raise(_support_problems(model, found))
        return model

    @property
    def distributions(self) -> dict[str, Any]:
        """Inputs given as distributions: YAML path -> distribution (their central value is in the field)."""
        return dict(self._distributions)

    @model_validator(mode="before")
    @classmethod
    def _figures_name_given_values(cls, data: object) -> object:
        """Each key of ``figures`` must name a value the scenario itself gives (not a default)."""
        if isinstance(data, dict) and isinstance(data.get("figures"), dict):
            _raise(
                [
                    (f"figures.{path}", "not a YAML path at which this scenario gives a value")
                    for path in data["figures"]
                    if lookup(data, str(path)) is MISSING
                ]
            )
        return data

    @model_validator(mode="after")
    def _cross_checks(self) -> Scenario:
        problems: list[tuple[str, str]] = []
        names = [d.name for d in self.demand]
        if len(set(names)) != len(names):
            problems.append(("demand", f"demand point names must be unique, got {names}"))
        hours = sum(d.hours_per_day for d in self.demand)
        if not math.isclose(hours, 24.0, abs_tol=1e-6):
            problems.append(("demand", f"hours_per_day must add up to 24, got {hours:g}"))
        system_names = [s.name for s in self.systems]
        if len(set(system_names)) != len(system_names):
            problems.append(("systems", f"system names must be unique, got {system_names}"))
        if self.baseline_system is not None and self.baseline_system not in system_names:
            problems.append(("baseline_system", f"must name a system ({system_names}), got {self.baseline_system!r}"))
        if self.fleet.sizing_demand_point is not None and self.fleet.sizing_demand_point not in names:
            problems.append(
                (
                    "fleet.sizing_demand_point",
                    f"must name a demand point ({names}), got {self.fleet.sizing_demand_point!r}",
                )
            )
        _raise(problems)
        return self

    @property
    def baseline_name(self) -> str:
        """Name of the baseline system [-]."""
        return self.baseline_system or self.systems[0].name

    @property
    def sizing_point(self) -> DemandPoint:
        """The demand point the fleet is sized for: ``fleet.sizing_demand_point``, else the highest arrival rate."""
        if self.fleet.sizing_demand_point is not None:
            return next(d for d in self.demand if d.name == self.fleet.sizing_demand_point)
        return max(self.demand, key=lambda d: d.arrival_rps)


def _support_problems(model: BaseModel, found: dict[str, Any]) -> list[tuple[str, str]]:
    """A distribution whose support leaves the field's bounds (e.g. a power below zero) is a problem."""
    problems = []
    for path, dist in found.items():
        annotation = annotation_at(model, path)
        if annotation is None:
            continue
        adapter = TypeAdapter(annotation)
        for end in dist.support():
            try:
                adapter.validate_python(end)
            except ValidationError as exc:
                msg = exc.errors(include_url=False)[0]["msg"]
                problems.append((path, f"the distribution reaches {end:g}, outside the field's range ({msg})"))
                break
    return problems


def annotation_at(model: BaseModel, path: str) -> Any:
    """The (Annotated) type of the field at a YAML path, with its constraints, or None."""
    parts = [p for p in parse_path(path) if isinstance(p, str)]
    owner: Any = type(model)
    for i, part in enumerate(parts):
        if not (isinstance(owner, type) and issubclass(owner, BaseModel)):
            return None
        if part not in owner.model_fields:
            return None
        field = owner.model_fields[part]
        if i == len(parts) - 2 and getattr(field.annotation, "__origin__", None) is dict:
            return field.annotation.__args__[1]  # a mapping keyed by name (uncertainty.throughput_derate.vendor)
        if i == len(parts) - 1:
            return Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
        owner = model_in(field.annotation)
    return None


def model_in(annotation: Any) -> Any:
    """The pydantic model inside an annotation (``Model``, ``list[Model]``, ``Model | None``), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = model_in(arg)
        if found is not None:
            return found
    return None
