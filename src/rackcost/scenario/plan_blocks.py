"""The ``plan`` block: the capacity sources a buying plan may mix (``rackcost plan``, :mod:`~.evaluation.planning`).

Each source serves the same workload under the same SLO with one of the scenario's systems: owned racks of a system
with ``costs`` (bought in whole racks, with a lead time), reserved, on-demand or spot rent of a system's replicas (a
price per accelerator-hour given here), or an API system (its prices and rate limit are the system's ``api`` block).
Part of the scenario schema (:mod:`rackcost.scenario.schema`); cross-checks against the systems are
:func:`plan_problems`.
"""

from collections.abc import Sequence
from typing import Annotated, Any, Self

from pydantic import Field, GetCoreSchemaHandler, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from rackcost.model.buying.source_kinds import KIND_FIELDS, SourceKind, kind_named, kind_names, kinds
from rackcost.scenario.fields import (
    NOT_BOOL,
    Fraction,
    Name,
    ScenarioBlock,
    Source,
    UsdPerAcceleratorHour,
    raise_problems,
)

__all__ = ["CapacitySource", "KindName", "PlanBlock", "plan_problems"]

Quarters = Annotated[int, Field(ge=0, le=40), NOT_BOOL]
TermQuarters = Annotated[int, Field(ge=1, le=40), NOT_BOOL]
UnitCount = Annotated[int, Field(ge=0, le=1_000_000), NOT_BOOL]
MaxUnits = Annotated[int, Field(ge=1, le=1_000_000), NOT_BOOL]
Minutes = Annotated[float, Field(ge=0, le=1440, allow_inf_nan=False), NOT_BOOL]
PerHour = Annotated[float, Field(ge=0, le=10, allow_inf_nan=False), NOT_BOOL]
GapFraction = Annotated[float, Field(ge=0, le=0.05, allow_inf_nan=False), NOT_BOOL]
Seconds = Annotated[float, Field(ge=0.1, le=3600, allow_inf_nan=False), NOT_BOOL]
Blocks = Annotated[int, Field(ge=1, le=500), NOT_BOOL]


def _registered_kind(value: object) -> SourceKind:
    """A kind's name (or its object) read as the registered :class:`~rackcost.model.buying.source_kinds.SourceKind`."""
    if isinstance(value, SourceKind):
        return value
    if isinstance(value, str) and value in kind_names():
        return kind_named(value)
    names = [repr(n) for n in kind_names()]
    got = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise ValueError(f"input should be {', '.join(names[:-1])} or {names[-1]}, got {got}")


class _KindField:
    """The pydantic type of ``kind``: the registered kinds' names, read when a block is validated (so a kind
    registered after this module is imported is accepted) and listed when the JSON Schema is written.

    A pydantic ``Literal`` or ``Enum`` of the names would be fixed when the model is built, at import, and miss
    every kind registered later; this type asks the registry each time instead, and writes the kind as its name.
    """

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _registered_kind,
            serialization=core_schema.plain_serializer_function_ser_schema(str, return_schema=core_schema.str_schema()),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "enum": list(kind_names())}


KindName = Annotated[SourceKind, _KindField]
"""A source's kind: written as a registered kind's name, read as its object."""


class CapacitySource(ScenarioBlock):
    """One way of getting capacity for the same service."""

    name: Name = Field(description="Name of the source, unique within the plan.")
    kind: KindName = Field(
        description="How the source's capacity is paid for and held: owned, reserved, on_demand, spot or api "
        "(docs/glossary.md)."
    )
    system: Name = Field(
        description="The system (in `systems`) it serves with: owned needs a system with `costs`; reserved, "
        "on_demand and spot a system with hardware (its curve and packaging; the price is given here); api an API "
        "system (its prices and rate limit)."
    )
    usd_per_accelerator_hour: UsdPerAcceleratorHour | None = Field(
        default=None, description="Rent: the price per accelerator-hour; 0.01 to 1,000 [USD/accelerator-h]."
    )
    includes_power_and_facility: bool | None = Field(
        default=None,
        description="Rent: the price covers power, cooling and space (default true); false adds the scenario's "
        "energy and facility cost.",
    )
    lead_time_quarters: Quarters | None = Field(
        default=None,
        description="Owned: quarters between ordering and serving; no rack bought in the plan serves before this "
        "quarter of the horizon (default 0); 0 to 40 [quarters].",
    )
    initial_units: UnitCount | None = Field(
        default=None,
        description="Owned: racks already installed at the start; reserved: replicas already reserved (for the "
        "first term). Default 0.",
    )
    max_units: MaxUnits | None = Field(
        default=None,
        description="Most units held at once: owned racks, rented replicas (a provider's quota); default no limit.",
    )
    term_quarters: TermQuarters | None = Field(
        default=None,
        description="Reserved: quarters a reservation is committed for, paid every hour of it (default 4: one "
        "year); 1 to 40 [quarters].",
    )
    startup_minutes: Minutes | None = Field(
        default=None,
        description="On demand: minutes a new replica is paid before it serves (start-up, model load); it starts "
        "once a day on the days it is used (default 0); 0 to 1,440 [min].",
    )
    preemptions_per_hour: PerHour | None = Field(
        default=None, description="Spot: preemptions per replica per hour (default 0); 0 to 10 [1/h]."
    )
    refill_minutes: Minutes | None = Field(
        default=None,
        description="Spot: minutes from a preemption until a replacement serves (default 0); 0 to 1,440 [min].",
    )
    source: Source = None

    @model_validator(mode="after")
    def _fields_of_its_kind(self) -> Self:
        problems = [
            (field, f"only for {' or '.join(k.name for k in kinds() if k.reads(field))} sources, not {self.kind}")
            for field in KIND_FIELDS
            if getattr(self, field) is not None and not self.kind.reads(field)
        ]
        if self.kind.payment.rented and self.usd_per_accelerator_hour is None:
            problems.append(("usd_per_accelerator_hour", f"a {self.kind} source needs its price per accelerator-hour"))
        if self.kind.preempted and self.preemption_loss_fraction >= 1:
            problems.append(
                (
                    "preemptions_per_hour",
                    "with refill_minutes, a spot replica would never serve (preemptions x refill = "
                    f"{self.preemption_loss_fraction:g} of its time; must be below 1)",
                )
            )
        if self.initial_units is not None and self.max_units is not None and self.initial_units > self.max_units:
            problems.append(
                (
                    "initial_units",
                    f"{self.initial_units} units already held is more than max_units = {self.max_units} (the most held "
                    "at once): lower initial_units or raise max_units",
                )
            )
        raise_problems(problems)
        return self

    @property
    def preemption_loss_fraction(self) -> float:
        """Spot: share of held time a replica does not serve (preemptions per hour x refill hours) [-]."""
        return (self.preemptions_per_hour or 0.0) * (self.refill_minutes or 0.0) / 60.0


class PlanBlock(ScenarioBlock):
    """The capacity sources of a buying plan, and how the plan is solved (docs/model.md, "The buying plan")."""

    sources: list[CapacitySource] = Field(min_length=1, description="The sources the plan may mix.")
    blocks_per_quarter: Blocks = Field(
        default=24,
        description="Demand blocks per quarter: the quarter's hours sorted by rate and cut into this many blocks, "
        "each served at its busiest hour; 1 to 500.",
    )
    discount_fraction_per_year: Fraction | None = Field(
        default=None,
        description="Discount rate of the plan's present value; default the owned sources' cost of capital (the "
        "largest), else 0 [1/year].",
    )
    mip_rel_gap_fraction: GapFraction = Field(
        default=1e-3, description="The solver stops within this share of its proven bound; 0 to 0.05 [-]."
    )
    time_limit_s: Seconds = Field(
        default=60.0,
        description="The solver's time budget for the whole plan, shared by all its solves (the mix's rounds and "
        "each single source's); 0.1 to 3,600 [s].",
    )
    source: Source = None


def plan_problems(block: PlanBlock | None, systems: Sequence[Any], has_profile: bool) -> list[tuple[str, str]]:
    """The plan block's problems against the scenario's systems and demand: (YAML path, message) pairs."""
    if block is None:
        return []
    problems: list[tuple[str, str]] = []
    names = [s.name for s in block.sources]
    if len(set(names)) != len(names):
        problems.append(("plan.sources", f"source names must be unique, got {names}"))
    by_name = {s.name: s for s in systems}
    for i, source in enumerate(block.sources):
        path = f"plan.sources[{i}].system"
        system = by_name.get(source.system)
        if system is None:
            problems.append((path, f"must name a system ({sorted(by_name)}), got {source.system!r}"))
        elif not source.kind.has_fleet and system.api is None:
            problems.append((path, f"an {source.kind} source needs an API system (with `api`), got {source.system!r}"))
        elif source.kind.has_fleet and system.api is not None:
            problems.append((path, f"a {source.kind} source needs a system with hardware, got API {source.system!r}"))
        elif source.kind.payment.owned and system.costs is None:
            problems.append((path, f"an {source.kind} source needs a system with `costs`, got {source.system!r}"))
        elif source.kind.has_fleet and system.pools is not None:
            problems.append((path, f"disaggregated systems are not planned yet, got {source.system!r}"))
    if not has_profile:
        problems.append(("plan", "a plan needs demand over time: `demand` as a profile (docs/model.md)"))
    return problems
