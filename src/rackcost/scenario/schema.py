"""Scenario schema: every input of the model, validated by pydantic.

The blocks of the scenario live here; the systems it compares in :mod:`rackcost.scenario.systems` and the field
types both use in :mod:`rackcost.scenario.fields` (re-exported here, so this module is the schema's one face).

All checks happen here (docs/glossary.md; docs/model.md, Errors). Units live in field names (``_w``, ``_kw``, ``_usd``,
``_ms``, ``_s``, ``_per_kwh``, ``_years``, ``_rps``) and shares end in ``_fraction`` and lie in [0, 1].
Cross-field rules name both fields and both values. The numeric core never sees these objects: the
evaluation chain (:mod:`rackcost.evaluation.chain`) unpacks them into numpy arrays.
"""

import math
import re
from typing import Annotated, Any, Self, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, ValidationError, model_validator
from pydantic_core import ErrorDetails, InitErrorDetails

from rackcost.errors import plain_message
from rackcost.model.queues.routers import router_names
from rackcost.model.strategies import DEFAULT_ROUTING, IdlePolicy, Routing, SubHourSizing
from rackcost.scenario.class_blocks import ClassSlo, Lengths, RequestClass, class_problems, token_moments
from rackcost.scenario.demand_blocks import ArrivalDispersion, DemandPoint, RateSwing
from rackcost.scenario.distributions import Distribution
from rackcost.scenario.facility_blocks import Facility, HourlyGrid
from rackcost.scenario.fields import (
    AttainmentFraction,
    Count,
    CvFraction,
    Derate,
    Exponent,
    LatencyMs,
    Name,
    PositiveFraction,
    RouterName,
    ScenarioBlock,
    Source,
    SpareCount,
    Tokens,
    UsdPerMillionTokens,
    model_in,
    raise_problems,
)
from rackcost.scenario.grid_csv import grid_from_csv
from rackcost.scenario.hardware_blocks import finance_problems
from rackcost.scenario.memory_blocks import Architecture, Memory, memory_problems
from rackcost.scenario.plan_blocks import PlanBlock, plan_problems
from rackcost.scenario.pool_blocks import pool_problems
from rackcost.scenario.profile_blocks import PROFILE_NOTE, DemandProfile, demand_from_profile, demand_json_schema
from rackcost.scenario.scaling_blocks import Scaling, scaling_problems
from rackcost.scenario.systems import (
    Api,
    Billing,
    Claim,
    Costs,
    FacilityOverride,
    Finance,
    Hardware,
    OperatingPoint,
    Performance,
    Provenance,
    ProvenanceClass,
    Rent,
    System,
    TokenBasis,
)
from rackcost.scenario.yaml_paths import MISSING, format_path, lookup, parse_path

__all__ = [
    "ArrivalDispersion",
    "Architecture",
    "Claim",
    "ClassSlo",
    "Costs",
    "Finance",
    "DemandPoint",
    "DemandProfile",
    "FIGURE_NOT_GIVEN",
    "Facility",
    "Figure",
    "FacilityOverride",
    "HourlyGrid",
    "Fleet",
    "Hardware",
    "OperatingPoint",
    "Performance",
    "Provenance",
    "ProvenanceClass",
    "RateSwing",
    "RequestClass",
    "Api",
    "Billing",
    "Rent",
    "Revenue",
    "IdlePolicy",
    "Lengths",
    "Memory",
    "Routing",
    "SLO",
    "Scenario",
    "System",
    "TokenBasis",
    "UNCERTAIN_PATHS",
    "UNCERTAIN_WHERE",
    "Uncertainty",
    "Workload",
    "annotation_at",
    "model_in",
    "is_uncertain_path",
]


class Workload(ScenarioBlock):
    """The requests the fleet serves."""

    model: str = Field(description="Model name, e.g. deepseek-ai/DeepSeek-R1.")
    revision: str | None = Field(default=None, description="Model revision or release date.")
    precision: str = Field(description="Numeric format of weights/activations, e.g. fp8, mxfp4.")
    # required without classes; with classes the mix's means, filled in by _shape_or_classes (not marked as given,
    # so a scenario written back to YAML leaves them out). Typed float: a validated workload never holds None here
    input_tokens_per_request: Tokens = Field(  # type: ignore[assignment]  # None only until the validator below
        default=None,
        description="Input (prompt) tokens per request, ISL; 1 to 1e7 [tokens]. Required without classes; with "
        "classes the mix's mean (derived; given, it must agree).",
    )
    output_tokens_per_request: Tokens = Field(  # type: ignore[assignment]  # as input_tokens_per_request
        default=None,
        description="Output tokens per request, OSL; 1 to 1e7 [tokens]. Required without classes; with classes the "
        "mix's mean (derived; given, it must agree).",
    )
    output_tokens_cv_fraction: CvFraction | None = Field(
        default=None,
        description="Coefficient of variation of output length (OSL spread) [-]. Its square is the service time's "
        "squared coefficient of variation, which stretches the conditional queueing wait by (c_a^2 + cv^2) / "
        "(c_a^2 + 1) in sizing, acceptance, capacity at SLO and the reported p99 alike. Absent: exponential service "
        "(cv 1), as the M/M/k assumes. 0 to 10. Not with classes (give each class's lengths instead).",
    )
    classes: list[RequestClass] | None = Field(
        default=None,
        min_length=1,
        description="Request classes the workload mixes, each {name, share_fraction, input_tokens, output_tokens, "
        "prefix_hit_fraction?, slo?}; a token count is a number or a per-request length distribution {lengths: "
        "fixed | lognormal | gamma | cdf, ...}. Absent: one class of input/output_tokens_per_request.",
    )
    architecture: Architecture | None = Field(
        default=None,
        description="The model's shape for the KV-cache memory limit of systems with a memory block: parameters, "
        "layers and kv_heads + head_dim, or kv_lora_rank + qk_rope_head_dim for an MLA cache.",
    )
    source: Source = None

    @model_validator(mode="after")
    def _shape_or_classes(self) -> Self:
        if self.classes is None:
            missing = [
                name
                for name in ("input_tokens_per_request", "output_tokens_per_request")
                if getattr(self, name) is None
            ]
            raise_problems([(name, "required field is missing (or give workload.classes)") for name in missing])
            return self
        problems = class_problems(self.classes)
        if self.output_tokens_cv_fraction is not None:
            problems.append(
                (
                    "output_tokens_cv_fraction",
                    "not with classes: give each class's output_tokens as a length distribution, e.g. {lengths: "
                    "gamma, mean: 1000, cv: 0.5}",
                )
            )
        if not problems:
            shares = [c.share_fraction for c in self.classes]
            for name, field in (
                ("input_tokens_per_request", "input_tokens"),
                ("output_tokens_per_request", "output_tokens"),
            ):
                mean = math.fsum(
                    s * token_moments(getattr(c, field))[0] for s, c in zip(shares, self.classes, strict=True)
                )
                given = getattr(self, name) if name in self.model_fields_set else None  # a derived one is not given
                if given is None:
                    self.__dict__[name] = mean  # derived: not validated again, and not marked as given
                elif not math.isclose(given, mean, rel_tol=1e-9):
                    problems.append(
                        (
                            name,
                            f"with classes it is the mix's mean, {mean:,.6g} tokens, got {given:,.6g}: remove it (a "
                            "curve measured at another shape says so in systems[i].performance.benchmark_*_tokens)",
                        )
                    )
        raise_problems(problems)
        return self


class SLO(ScenarioBlock):
    """Latency service-level objective; a request served within it is *accepted*."""

    ttft_limit_ms: LatencyMs = Field(description="Time-to-first-token limit, queueing included; 1e-3 to 1e7 [ms].")
    tpot_limit_ms: LatencyMs = Field(description="Time-per-output-token (inter-token) limit; 1e-3 to 1e7 [ms].")
    e2e_limit_ms: LatencyMs | None = Field(
        default=None, description="Optional end-to-end latency limit, queueing included; 1e-3 to 1e7 [ms]."
    )
    # an objective met by fewer than half the requests is no objective (and 1 - 1e-308 rounds to 1: no tail left);
    # closer to 1 than 1 - 1e-9 asks for a wait quantile no queue model resolves in double precision
    attainment_fraction: AttainmentFraction = Field(
        default=0.99,
        description="Share of requests that must be accepted at the sizing (peak) demand, e.g. 0.99; 0.5 to 1 - 1e-9.",
    )
    source: Source = None


class Fleet(ScenarioBlock):
    """How the fleet is sized and run."""

    idle_policy: IdlePolicy = Field(
        default=IdlePolicy.powered,
        description="powered: every replica is on and serving; park: replicas beyond what a demand point needs "
        "draw parked power.",
    )
    sub_hour_sizing: SubHourSizing = Field(
        default=SubHourSizing.busiest_window,
        description="Where the sizing point's rate moves within its hour (rate_swing, sub_hour): busiest_window "
        "(default): the fleet carries every window at the SLO, as a stack that queues every request needs (a queue "
        "an overloaded window builds outlasts it); hour_average: the hour's accepted share meets the target, the "
        "busier windows' overload shed by admission control.",
    )
    routing: RouterName = Field(
        default=DEFAULT_ROUTING,
        description="How requests reach replicas: the name of a registered router (rackcost.model.queues.routers). "
        "pooled: one central queue, any free slot takes the next request (one M/M/k over all slots); least_outstanding "
        "(default): each request to the replica with the fewest in flight (modelled as pooled, within about 2% of a "
        "simulation on capacity at SLO from 32 slots); random: each request to a replica drawn at random (N "
        "independent M/M/c queues at lambda/N: exact, pessimistic); power_of_two (the less loaded of two random "
        "replicas) and round_robin (replicas in turn): no analytic form, evaluated only by rackcost simulate.",
        json_schema_extra=lambda schema: schema.update(enum=list(router_names())),
    )
    spare_replicas: SpareCount = Field(default=0, description="Replicas added for redundancy; 0 to 1e6.")
    # the fleet is divided by these two: a share near zero would size an endless fleet
    replica_availability_fraction: PositiveFraction = Field(
        default=1.0, description="Share of time a replica is up; the sized fleet is divided by it; 0.01 to 1."
    )
    max_utilization_fraction: PositiveFraction = Field(
        default=1.0, description="Ceiling on slot utilisation at the sizing demand; 0.01 to 1."
    )
    power_utilization_exponent: Exponent | None = Field(
        default=None,
        description="Accelerator power = idle + (busy - idle) * utilisation ** exponent, for every system without "
        "measured power or its own hardware.power_exponent; default the law fitted to public measurements for "
        "each system's hardware.accelerator (rackcost power fit); 1 is linear; 0 to 10.",
    )
    replicas: Count | None = Field(
        default=None,
        description="Evaluate an existing fleet of this many replicas per system instead of sizing one; 1 to 1e6.",
    )
    sizing_demand_point: str | None = Field(
        default=None, description="Demand point the fleet is sized for; default the highest arrival rate."
    )
    scaling: Scaling | None = Field(
        default=None, description="Replicas that park scale with a delay over a demand profile (docs/model.md)."
    )
    source: Source = None


class Figure(ScenarioBlock):
    """Where one figure (or every figure under a YAML path) comes from."""

    provenance: ProvenanceClass = Field(description="vendor, collaborative, independent or assumption.")
    source: str = Field(min_length=1, description="Publication, dataset or reasoning the figure comes from.")
    why: str | None = Field(default=None, description="For an assumption: why this value was chosen.")

    @model_validator(mode="after")
    def _assumption_says_why(self) -> Self:
        if self.provenance is ProvenanceClass.assumption and not self.why:
            raise ValueError("an assumption must say why it was chosen (field 'why')")
        return self


class Revenue(ScenarioBlock):
    """What the served tokens sell for: a market price per million tokens (optional)."""

    usd_per_million_input_tokens: UsdPerMillionTokens = Field(description="Price of input tokens; 0 to 10,000 [USD/M].")
    usd_per_million_output_tokens: UsdPerMillionTokens = Field(
        description="Price of output tokens; 0 to 10,000 [USD/M]."
    )
    source: Source = None


class Uncertainty(ScenarioBlock):
    """Scenario-wide uncertainty settings."""

    # throughput is multiplied by the derate: near zero it would size an endless fleet
    throughput_derate: dict[ProvenanceClass, Derate] = Field(
        default_factory=dict,
        description="Multiplier on the throughput of every system whose provenance class is the key, e.g. "
        "{vendor: {dist: triangular, low: 0.7, mode: 0.9, high: 1.0}}: figures not independently repeated; "
        "0.01 to 2 [-].",
    )
    source: Source = None


# Where a distribution may stand instead of a number. The operating point, the packaging and the SLO are decided
# on central values, so structural integers, latencies, token counts and SLO limits stay plain numbers.
_FACILITY_UNCERTAIN = (
    r"(pue|electricity_usd_per_kwh|colocation_usd_per_kw_month|build_usd_per_kw|build_life_years|carbon_g_per_kwh"
    r"|carbon_usd_per_tonne)"
)
UNCERTAIN_PATHS = [
    r"demand\[\d+\]\.arrival_rps",
    rf"facility\.{_FACILITY_UNCERTAIN}",
    rf"systems\[\d+\]\.facility\.{_FACILITY_UNCERTAIN}",
    r"finance\.(service_life_years|cost_of_capital_fraction)",
    r"fleet\.(replica_availability_fraction|max_utilization_fraction|power_utilization_exponent)",
    r"systems\[\d+\]\.hardware\.(accelerator_busy_w|accelerator_idle_w|accelerator_parked_w|host_w_per_node"
    r"|host_parked_w_per_node|rack_overhead_w|power_exponent)",
    r"systems\[\d+\]\.costs\.(capex_usd_per_accelerator|capex_usd_per_node|capex_usd_per_rack"
    r"|networking_capex_fraction|installation_capex_fraction|service_life_years|cost_of_capital_fraction"
    r"|maintenance_fraction_per_year|software_usd_per_accelerator_year|operations_usd_per_rack_year)",
    r"systems\[\d+\]\.performance\.points\[\d+\]\.(throughput_tokens_per_s|power_w_per_accelerator)",
    r"systems\[\d+\]\.rent\.usd_per_accelerator_hour",
    r"systems\[\d+\]\.api\.(usd_per_million_input_tokens|usd_per_million_output_tokens"
    r"|usd_per_million_cached_input_tokens|cached_input_fraction)",
    r"uncertainty\.throughput_derate\.(vendor|collaborative|independent|assumption)",
]
UNCERTAIN_WHERE = (
    "distributions are allowed on demand arrival rates; facility PUE, electricity price, facility costs, carbon "
    "intensity and carbon price; fleet "
    "availability, utilisation ceiling and power exponent; accelerator busy/idle/parked power, power exponent, host "
    "power and rack overhead; every cost figure and rental price; operating-point throughput and measured power; and "
    "uncertainty.throughput_derate "
    "(the operating point, packaging, latencies and SLO are decided on central values)"
)
_UNCERTAIN = re.compile("|".join(f"(?:{p})" for p in UNCERTAIN_PATHS))
_CLASS_TOKENS = re.compile(r"workload\.classes\[\d+\]\.(input|output)_tokens")
LENGTHS_NOT_DIST = (
    "{dist: ...} is uncertainty about one parameter (drawn by the Monte Carlo), not allowed here; for how a class's "
    "requests vary in length write a per-request length distribution, {lengths: lognormal, mean: ..., cv: ...} "
    "(or fixed, gamma, cdf)"
)


def is_uncertain_path(path: str) -> bool:
    """Whether a distribution may stand at this YAML path (see :data:`UNCERTAIN_PATHS`)."""
    return _UNCERTAIN.fullmatch(path) is not None


_DISTRIBUTION = TypeAdapter(Distribution)


def _extract_distributions(
    data: Any, path: str, found: dict[str, Any], problems: list[tuple[str, str]], bad: set[str] | None = None
) -> Any:
    """Copy of ``data`` with every ``{dist: ...}`` mapping replaced by its central value, collected in ``found``.

    An invalid distribution adds its problems and its path to ``bad``; its place holds 0.0, so the rest of the
    scenario can still be validated (the field errors at a ``bad`` path are then left out: one root cause).
    """
    if isinstance(data, dict) and "dist" in data:
        try:
            dist = _DISTRIBUTION.validate_python(data)
        except ValidationError as exc:
            if bad is not None:
                bad.add(path)
            for err in exc.errors(include_url=False):
                loc = [
                    str(p)
                    for p in err["loc"]
                    if not str(p).startswith(("triangular", "uniform", "normal", "lognormal", "choice"))
                ]
                where = ".".join([path, *loc]) if loc else path
                message = plain_message(str(err.get("ctx", {}).get("error", err["msg"])))
                if err["type"] == "union_tag_invalid":
                    message = "dist must be one of triangular, uniform, normal, lognormal, choice"
                problems.append((where, message))
            return 0.0
        if _CLASS_TOKENS.fullmatch(path):
            problems.append((path, LENGTHS_NOT_DIST))
        elif not is_uncertain_path(path):
            problems.append((path, f"a distribution is not allowed here; {UNCERTAIN_WHERE}"))
        found[path] = dist
        return dist.central
    if isinstance(data, dict):
        return {
            k: _extract_distributions(v, f"{path}.{k}" if path else str(k), found, problems, bad)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_extract_distributions(v, f"{path}[{i}]", found, problems, bad) for i, v in enumerate(data)]
    return data


class Scenario(ScenarioBlock):
    """One scenario file: a workload, an SLO, demand (a day, or hours over years), a facility and the systems.

    Inputs given as distributions are validated, replaced by their central value for the deterministic model, and
    kept in :attr:`distributions` (YAML path -> distribution) for :mod:`rackcost.uncertainty`; ``plan``: sources."""

    model_config = ConfigDict(json_schema_extra=demand_json_schema)  # demand: the points, or a profile
    _distributions: dict[str, Any] = PrivateAttr(default_factory=dict)
    _file: str = PrivateAttr(default="<scenario>")  # where it was loaded from, for problems found after loading
    _lines: dict[Any, int] = PrivateAttr(default_factory=dict)  # YAML location -> line, when loaded from text

    name: Name = Field(description="Name of the scenario; printable, at most 200 characters.")
    description: str | None = None
    workload: Workload
    slo: SLO
    demand: list[DemandPoint] = Field(min_length=1)
    demand_profile: DemandProfile | None = Field(default=None, description=PROFILE_NOTE)
    facility: Facility
    finance: Finance = Field(
        default_factory=Finance,
        description="Service life and cost of capital shared by every owned system (each system's costs may "
        "override them).",
    )
    fleet: Fleet = Field(default_factory=Fleet)
    systems: list[System] = Field(min_length=1)
    baseline_system: str | None = Field(default=None, description="System others are compared with; default the first.")
    uncertainty: Uncertainty = Field(default_factory=Uncertainty)
    revenue: Revenue | None = Field(
        default=None,
        description="What accepted tokens sell for: revenue and margin per hour, day and year, owned fleets' payback.",
    )
    plan: PlanBlock | None = Field(default=None, description="Capacity sources for `rackcost plan` (a buying plan).")
    figures: dict[str, Figure] = Field(
        default_factory=dict,
        description="Source and provenance of figures, keyed by YAML path (e.g. 'systems[0].hardware' covers every "
        "figure under it, 'facility.pue' just one).",
    )

    @model_validator(mode="wrap")
    @classmethod
    def _distributions_to_central(cls, data: Any, handler: Any) -> Self:
        """Distributions out (central values in), ``figures`` keys checked, then every field: all problems at once."""
        if not isinstance(data, dict) or "dist" in data:  # a whole file that is one distribution: not a scenario
            return handler(data)
        found: dict[str, Any] = {}
        problems: list[tuple[str, str]] = []
        bad: set[str] = set()
        data = demand_from_profile(data, problems, bad)  # a profile: its named points, the profile kept
        data = grid_from_csv(data, problems)  # an hourly grid's CSV: its values inline
        systems = data.get("systems")
        if isinstance(systems, list) and any(isinstance(s, dict) and "catalog" in s for s in systems):
            # a system's catalogue entry fills what it leaves out (imported here: its models and file cost a cold
            # start about 15 ms, and most scenarios name no entry)
            from rackcost.scenario.catalog import apply_catalog

            data, catalog_problems, unfilled = apply_catalog(data)
            problems += catalog_problems
            bad |= unfilled
        central = _extract_distributions(data, "", found, problems, bad)
        problems += _figure_problems(central)
        try:
            model = handler(central)
        except ValidationError as exc:
            if not problems:
                raise
            raise _merged(exc, problems, bad, central) from None
        model._distributions = found
        raise_problems(problems + _support_problems(model, found))
        return model

    @property
    def distributions(self) -> dict[str, Any]:
        """Inputs given as distributions: YAML path -> distribution (their central value is in the field)."""
        return dict(self._distributions)

    @model_validator(mode="after")
    def _cross_checks(self) -> Self:
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
        problems += memory_problems(self.workload.architecture, [s.memory for s in self.systems])
        problems += pool_problems(self.workload.architecture, self.systems, self.fleet.replicas)
        problems += finance_problems(self._owned_costs(), self.finance)
        problems += plan_problems(self.plan, self.systems, self.demand_profile is not None)
        problems += scaling_problems(self.fleet.scaling, self.demand_profile is not None)
        if self.workload.classes is not None:
            problems += [
                (f"demand[{i}].{key}", f"{what} with workload.classes is not modelled yet: remove {it} or the classes")
                for i, d in enumerate(self.demand)
                for key, what, it in (
                    ("rate_swing", "a rate swing", "the swing"),
                    ("sub_hour", "sub-hour windows", "the windows (a profile's: its sub_hour)"),
                )
                if getattr(d, key) is not None
            ]
            problems += [
                (
                    f"systems[{i}].pools",
                    "disaggregated serving with workload.classes is not modelled yet: give the system a "
                    "performance curve, or remove the classes",
                )
                for i, s in enumerate(self.systems)
                if s.pools is not None
            ]
        if self.fleet.sizing_demand_point is not None and self.fleet.sizing_demand_point not in names:
            problems.append(
                (
                    "fleet.sizing_demand_point",
                    f"must name a demand point ({names}), got {self.fleet.sizing_demand_point!r}",
                )
            )
        raise_problems(problems)
        return self

    def _owned_costs(self) -> list[tuple[str, Costs]]:
        """Every owned system's and pool's ``costs``, with its YAML path."""
        owned = [(f"systems[{i}].costs", s.costs) for i, s in enumerate(self.systems) if s.costs is not None]
        for i, s in enumerate(self.systems):
            for role in ("prefill", "decode"):
                pool = getattr(s.pools, role) if s.pools is not None else None
                if pool is not None and pool.costs is not None:
                    owned.append((f"systems[{i}].pools.{role}.costs", pool.costs))
        return owned

    @property
    def baseline_name(self) -> str:
        """Name of the baseline system [-]."""
        return self.baseline_system or self.systems[0].name

    @property
    def hardware_indices(self) -> list[int]:
        """Indices of the systems that run hardware (every system but the API ones) [-]."""
        return [i for i, s in enumerate(self.systems) if s.api is None]

    def __eq__(self, other: object) -> bool:
        """Equal values and distributions; where each was loaded from does not count."""
        if not isinstance(other, Scenario):
            return NotImplemented
        return self.__dict__ == other.__dict__ and self._distributions == other._distributions

    __hash__ = None  # type: ignore[assignment]  # mutable, as every pydantic model that is not frozen

    def remember_origin(self, file: str, lines: dict[Any, int]) -> None:
        """Keep where the scenario was loaded from (file, YAML location -> line), for problems found later."""
        self._file, self._lines = file, dict(lines)

    @property
    def origin_file(self) -> str:
        """The file the scenario was loaded from, or ``<scenario>`` when built in memory."""
        return self._file

    @property
    def origin_lines(self) -> dict[Any, int]:
        """YAML location -> line of the text it was loaded from (empty when built in memory)."""
        return self._lines

    @property
    def sizing_point(self) -> DemandPoint:
        """The demand point the fleet is sized for: ``fleet.sizing_demand_point``, else the highest arrival rate."""
        if self.fleet.sizing_demand_point is not None:
            return next(d for d in self.demand if d.name == self.fleet.sizing_demand_point)
        return max(self.demand, key=lambda d: d.arrival_rps)


FIGURE_NOT_GIVEN = "not a YAML path at which this scenario gives a value"


def _figure_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Each key of ``figures`` must name a value the scenario itself gives (not a default).

    A key is not reported when it misses only because a list on its way is empty or not a list, or a block on its
    way is not a mapping (``systems: []`` with figures of ``systems[0]``): that list or block has its own problem,
    the root cause, and one line for it says more than one per figure.
    """
    figures = data.get("figures")
    if not isinstance(figures, dict):
        return []
    return [
        (f"figures.{path}", FIGURE_NOT_GIVEN)
        for path in figures
        if lookup(data, str(path)) is MISSING and not _parent_invalid(data, str(path))
    ]


def _parent_invalid(data: Any, path: str) -> bool:
    """Whether ``path`` misses because a list on the way is empty or not a list, or a block is not a mapping."""
    for part in parse_path(path):
        if isinstance(part, int):
            if not isinstance(data, list) or not data:
                return True
            if part >= len(data):
                return False
        elif not isinstance(data, dict):
            return data is None or isinstance(data, list)  # a block given empty or as a list: its own problem
        elif part not in data:
            return False
        data = data[part]
    return False


def _merged(exc: ValidationError, problems: list[tuple[str, str]], bad: set[str], data: Any) -> ValidationError:
    """One ValidationError with pydantic's field errors and the scenario-level ``problems`` (as one value error).

    Field errors at the path of an invalid distribution are left out: the distribution's own problem says why.
    """
    errors = [_init_details(e) for e in exc.errors(include_url=False) if _plain_path(e["loc"]) not in bad]
    lines = "\n".join(f"{path}: {message}" for path, message in problems)
    errors.append({"type": "value_error", "loc": (), "input": data, "ctx": {"error": ValueError(lines)}})
    try:
        return ValidationError.from_exception_data(exc.title, errors)
    except (TypeError, KeyError, ValueError):  # an error type that cannot be rebuilt: keep the problems, say them
        extra = [f"{_plain_path(e['loc'])}: {e['msg']}" for e in exc.errors(include_url=False)]
        return ValidationError.from_exception_data(
            exc.title,
            [
                {
                    "type": "value_error",
                    "loc": (),
                    "input": data,
                    "ctx": {"error": ValueError(lines + "\n" + "\n".join(extra))},
                }
            ],
        )


def _init_details(e: ErrorDetails) -> InitErrorDetails:
    """A field error as ValidationError.from_exception_data takes it back."""
    out: InitErrorDetails = {"type": e["type"], "loc": e["loc"], "input": e["input"]}
    if "ctx" in e:
        out["ctx"] = e["ctx"]
    return out


def _plain_path(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a YAML path (union branch names dropped)."""
    return format_path(tuple(p for p in loc if not (isinstance(p, str) and ("[" in p or p.startswith("function-")))))


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
                msg = plain_message(exc.errors(include_url=False)[0]["msg"])
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
            return get_args(field.annotation)[1]  # a mapping keyed by name (uncertainty.throughput_derate.vendor)
        if i == len(parts) - 1:
            return Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
        owner = model_in(field.annotation)
    return None
