"""The systems a scenario compares: who measured them, their operating points or claim, hardware, costs, and how
they are paid for (owned, rented or an API). Part of the scenario schema (:mod:`rackcost.scenario.schema`)."""

from enum import StrEnum
from typing import Literal, Self

from pydantic import ConfigDict, Field, model_validator

from rackcost.model.strategies import Payment
from rackcost.scenario.fields import (
    AcceleratorCount,
    AcceleratorW,
    CarbonGPerKwh,
    Concurrency,
    Fraction,
    Interactivity,
    JoulesPerToken,
    KwPerAccelerator,
    LatencyMs,
    Name,
    Pue,
    RackKw,
    Rps,
    ScenarioBlock,
    Source,
    Throughput,
    Tokens,
    UsdPerKw,
    UsdPerKwh,
    UsdPerKwMonth,
    UsdPerMillionTokens,
    Years,
)
from rackcost.scenario.hardware_blocks import Billing, Costs, Finance, Hardware, Rent
from rackcost.scenario.memory_blocks import Memory
from rackcost.scenario.pool_blocks import Pools, Roles

__all__ = [
    "Api",
    "Billing",
    "Claim",
    "Costs",
    "Finance",
    "FacilityOverride",
    "Hardware",
    "OperatingPoint",
    "Performance",
    "Provenance",
    "ProvenanceClass",
    "Rent",
    "System",
    "TokenBasis",
]


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


class FacilityOverride(ScenarioBlock):
    """Facility figures that differ for one system (e.g. a liquid-cooled hall); unset fields inherit."""

    pue: Pue | None = Field(default=None, description="As facility.pue; 1 to 5 [-].")
    electricity_usd_per_kwh: UsdPerKwh | None = Field(default=None, description="As facility; 0 to 10 [USD/kWh].")
    carbon_g_per_kwh: CarbonGPerKwh | None = Field(
        default=None, description="As facility (a hall on another grid); 0 to 3,000 [g CO2e/kWh]."
    )
    rack_power_limit_kw: RackKw | None = Field(default=None, description="As facility; 0.1 to 1e4 [kW].")
    colocation_usd_per_kw_month: UsdPerKwMonth | None = Field(
        default=None, description="As facility; 0 to 1e5 [USD/kW-month]."
    )
    build_usd_per_kw: UsdPerKw | None = Field(default=None, description="As facility; 0 to 1e7 [USD/kW].")
    build_life_years: Years | None = Field(default=None, description="As facility; 0.1 to 100 [years].")
    source: Source = None


class Provenance(ScenarioBlock):
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


class OperatingPoint(ScenarioBlock):
    """One measured operating point of a serving replica."""

    concurrency: Concurrency | None = Field(
        default=None,
        description="Requests in flight per replica; derived by Little's law when omitted; 1e-3 to 1e7 [requests].",
    )
    throughput_tokens_per_s: Throughput = Field(
        description="Throughput on the block's token basis, per replica or per accelerator; 1e-3 to 1e10 [tokens/s]."
    )
    tpot_ms: LatencyMs | None = Field(default=None, description="Time per output token; 1e-3 to 1e7 [ms].")
    interactivity_tokens_per_s: Interactivity | None = Field(
        default=None, description="Output tokens per second per user = 1000 / TPOT; 1e-4 to 1e6 [tokens/s]."
    )
    ttft_ms: LatencyMs = Field(
        description="Time to first token at this point, without fleet queueing; 1e-3 to 1e7 [ms]."
    )
    power_w_per_accelerator: AcceleratorW | None = Field(
        default=None,
        description="Measured accelerator (board) power at this point; overrides busy power; 1 to 1e5 [W].",
    )
    peak_power_w_per_accelerator: AcceleratorW | None = Field(
        default=None,
        description="Measured peak accelerator (board) power at this point, at least power_w_per_accelerator; "
        "1 to 1e5 [W].",
    )
    energy_j_per_output_token: JoulesPerToken | None = Field(
        default=None, description="Measured board energy per output token at this point; 1e-6 to 1e6 [J/token]."
    )
    output_throughput_tokens_per_s: Throughput | None = Field(
        default=None,
        description="Measured output tokens/s at this point, per replica or per accelerator as the block's "
        "throughput; 1e-3 to 1e10 [tokens/s].",
    )

    @model_validator(mode="after")
    def _one_latency_form(self) -> Self:
        if (self.tpot_ms is None) == (self.interactivity_tokens_per_s is None):
            raise ValueError("give exactly one of tpot_ms and interactivity_tokens_per_s")
        mean, peak = self.power_w_per_accelerator, self.peak_power_w_per_accelerator
        if mean is not None and peak is not None and peak < mean:
            raise ValueError(
                f"peak_power_w_per_accelerator ({peak:g} W) must be at least power_w_per_accelerator ({mean:g} W)"
            )
        return self

    @property
    def tpot_ms_value(self) -> float:
        """Time per output token [ms], whichever way it was given."""
        if self.tpot_ms is not None:
            return self.tpot_ms
        assert self.interactivity_tokens_per_s is not None  # _one_latency_form: one of the two is given
        return 1000.0 / self.interactivity_tokens_per_s


class Claim(ScenarioBlock):
    """A vendor's headline: tokens per second per kW on a stated power basis."""

    tokens_per_s_per_kw: Throughput = Field(description="Headline throughput per kW; 1e-3 to 1e10 [tokens/s/kW].")
    token_basis: TokenBasis = Field(default=TokenBasis.total, description="Which tokens the claim counts.")
    power_basis: str = Field(description="What the kW counts, e.g. package, board, all-in, facility.")
    power_basis_kw_per_accelerator: KwPerAccelerator = Field(
        description="kW per accelerator on that basis, to turn the claim into throughput; 1e-3 to 1e3 [kW]."
    )
    tpot_ms: LatencyMs | None = Field(
        default=None,
        description="TPOT at the claimed point; with ttft_ms makes the claim an operating point; 1e-3 to 1e7 [ms].",
    )
    ttft_ms: LatencyMs | None = Field(default=None, description="TTFT at the claimed point; 1e-3 to 1e7 [ms].")
    concurrency: Concurrency | None = Field(
        default=None, description="Concurrency at the claimed point; 1e-3 to 1e7 [requests]."
    )
    source: Source = None

    @model_validator(mode="after")
    def _latency_pair(self) -> Self:
        if (self.tpot_ms is None) != (self.ttft_ms is None):
            raise ValueError("give both tpot_ms and ttft_ms (the claim becomes an operating point) or neither")
        return self


class Performance(ScenarioBlock):
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
    benchmark_input_tokens: Tokens | None = Field(
        default=None, description="ISL the curve was measured at; default the workload's; 1 to 1e7 [tokens]."
    )
    benchmark_output_tokens: Tokens | None = Field(
        default=None, description="OSL the curve was measured at; default the workload's; 1 to 1e7 [tokens]."
    )
    framework: str | None = None
    speculative_decoding: str | None = None
    decode_accelerators_per_replica: AcceleratorCount | None = Field(
        default=None,
        description="Accelerators of a disaggregated replica that run decode; InferenceX charges output tokens to "
        "these alone; 1 to 1e5.",
    )
    roles: Roles | None = Field(
        default=None,
        description="A measured disaggregated replica's prefill and decode workers and their accelerators (an "
        "InferenceX multi-node row); the curve stays the whole replica's, as measured.",
    )

    @model_validator(mode="after")
    def _has_a_point(self) -> Self:
        if not self.points and (self.claim is None or self.claim.tpot_ms is None):
            raise ValueError("give operating points, or a claim with tpot_ms and ttft_ms so it becomes one")
        concurrencies = [p.concurrency for p in self.points]
        if any(c is None for c in concurrencies) and any(c is not None for c in concurrencies):
            raise ValueError("give concurrency for every operating point or for none")
        known = [c for c in concurrencies if c is not None]
        if len(set(known)) != len(known):
            raise ValueError(f"operating points repeat a concurrency: {sorted(known)}")
        if self.token_basis is TokenBasis.total:
            for i, p in enumerate(self.points):
                out = p.output_throughput_tokens_per_s
                if out is not None and out > p.throughput_tokens_per_s * (1 + 1e-9):
                    raise ValueError(
                        f"points[{i}]: output_throughput_tokens_per_s ({out:g}) exceeds throughput_tokens_per_s "
                        f"({p.throughput_tokens_per_s:g}), which counts input and output tokens"
                    )
        return self


class Api(ScenarioBlock):
    """Calling a model API instead of running hardware: a price per million tokens, no fleet of one's own."""

    usd_per_million_input_tokens: UsdPerMillionTokens = Field(description="Price of input tokens; 0 to 10,000 [USD/M].")
    usd_per_million_output_tokens: UsdPerMillionTokens = Field(
        description="Price of output tokens; 0 to 10,000 [USD/M]."
    )
    usd_per_million_cached_input_tokens: UsdPerMillionTokens | None = Field(
        default=None, description="Price of input tokens served from the provider's prompt cache [USD/M]."
    )
    cached_input_fraction: Fraction = Field(
        default=0.0, description="Share of input tokens that hit the prompt cache (needs the cached price) [-]."
    )
    rate_limit_rps: Rps | None = Field(
        default=None,
        description="Requests per second the provider accepts; above it requests are refused (default: no limit) "
        "[requests/s].",
    )
    source: Source = None

    @model_validator(mode="after")
    def _cached_price_when_cached(self) -> Self:
        if self.cached_input_fraction > 0 and self.usd_per_million_cached_input_tokens is None:
            raise ValueError(
                "cached_input_fraction: a share of cached input tokens needs usd_per_million_cached_input_tokens"
            )
        return self


class System(ScenarioBlock):
    """One system compared: its performance, who measured it, its hardware and how it is paid for, or an API."""

    name: Name = Field(description="Name of the system; printable, at most 200 characters.")
    catalog: str | None = Field(
        default=None,
        description="A catalogue entry (`rackcost catalog`, e.g. b200) whose figures fill what this system's hardware "
        "and memory blocks leave out, each with its source; a figure the system gives wins.",
    )
    performance: Performance | None = Field(default=None, description="Operating points (not for an API system).")
    provenance: Provenance
    hardware: Hardware | None = Field(default=None, description="The hardware (not for an API system).")
    api: Api | None = Field(default=None, description="An API called instead of hardware: prices per million tokens.")
    costs: Costs | None = Field(default=None, description="Owning it: capex and opex (give costs or rent).")
    rent: Rent | None = Field(
        default=None, description="Renting it: a price per accelerator-hour (give costs or rent)."
    )
    facility: FacilityOverride | None = None
    memory: Memory | None = Field(
        default=None,
        description="Its accelerator memory (HBM, weights, reserve): operating points whose KV cache does not fit "
        "are left out; absent: no memory limit.",
    )
    pools: Pools | None = Field(
        default=None,
        description="Disaggregated serving, in place of performance: a prefill pool and a decode pool, each sized, "
        "powered and costed on its own, and the KV transfer between them.",
    )

    @model_validator(mode="after")
    def _one_way_to_pay(self) -> Self:
        if self.api is not None:
            blocks = ("performance", "hardware", "costs", "rent", "facility", "memory", "pools")
            extra = [name for name in blocks if getattr(self, name)]
            if extra:
                raise ValueError(f"an API system has prices, not {', '.join(extra)}: remove them or remove api")
            return self
        if self.pools is not None and self.performance is not None:
            raise ValueError(
                "performance: a disaggregated system's curves are its pools' (pools.prefill.points and "
                "pools.decode.points): remove performance, or remove pools for an aggregated system"
            )
        needed = ("hardware",) if self.pools is not None else ("performance", "hardware")
        missing = [name for name in needed if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a system needs {' and '.join(missing)} (or an api block, for an API)")
        if (self.costs is None) == (self.rent is None):
            given = "both costs and rent" if self.costs is not None else "neither costs nor rent"
            raise ValueError(f"a system is either owned (costs) or rented (rent): give exactly one, got {given}")
        return self

    def hardware_blocks(self) -> tuple[Performance, Hardware]:
        """Its performance and hardware blocks, which every system but an API one or a disaggregated one has
        (``_one_way_to_pay``; a disaggregated system's curves are its ``pools``')."""
        if self.pools is not None:
            raise ValueError(f"{self.name!r} is disaggregated: its curves are in pools, not performance")
        if self.performance is None or self.hardware is None:
            raise ValueError(f"{self.name!r} is an API system: it has no performance or hardware")
        return self.performance, self.hardware

    @property
    def payment(self) -> Payment:
        """How the system is paid for: ``own``, ``rent reserved``, ``rent on_demand`` or ``api``."""
        if self.api is not None:
            return Payment.api
        if self.rent is None:
            return Payment.own
        return Payment.rent_on_demand if self.rent.billing is Billing.on_demand else Payment.rent_reserved
