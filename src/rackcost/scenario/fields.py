"""The field types of scenario files: bounded numbers, names and sources, and the base every block derives from.

Every number has a range a real deployment never leaves: besides catching typos, the ranges keep every quotient of
the model finite (a 1e-308 arrival rate made the cost per accepted token inf, a 1e308 throughput NaN service times).
Bounds are wide on purpose: a factor of 100 or more beyond the largest deployment known in 2026. A YAML boolean is
never a number (pydantic's lax mode would read true as 1): ``NOT_BOOL`` refuses it first. Each type is a plain
``Annotated`` alias, so a type checker reads it as the ``float`` or ``int`` it is.
"""

import difflib
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from rackcost.model.queues.routers import router_names
from rackcost.scenario.distributions import NOT_BOOL

__all__ = [
    "CarbonGPerKwh",
    "fields_at",
    "model_in",
    "unknown_key",
    "MAX_NAME_CHARS",
    "MAX_RPS",
    "MIN_RPS",
    "RPS_RANGE",
    "TOKENS_RANGE",
    "AcceleratorCount",
    "AcceleratorIdleW",
    "AcceleratorW",
    "AttainmentFraction",
    "BytesPerElement",
    "Concurrency",
    "Count",
    "CvFraction",
    "Derate",
    "DispersionIndex",
    "DispersionScaleS",
    "ArrivalScv",
    "SwingAmplitudeFraction",
    "SwingPeriodS",
    "Exponent",
    "Fraction",
    "HostW",
    "HoursPerDay",
    "Interactivity",
    "KvBytesPerToken",
    "KwPerAccelerator",
    "LatencyMs",
    "MemoryGib",
    "MinimumHoursPerDay",
    "Name",
    "ParameterCount",
    "PositiveFraction",
    "Pue",
    "RackKw",
    "RackOverheadW",
    "ReserveFraction",
    "RopeDim",
    "RouterName",
    "Rps",
    "ScenarioBlock",
    "ShapeCount",
    "SiteKw",
    "SlotCount",
    "Source",
    "SpareCount",
    "Throughput",
    "Tokens",
    "Usd",
    "UsdPerAcceleratorHour",
    "UsdPerKw",
    "UsdPerKwMonth",
    "UsdPerKwh",
    "UsdPerTonne",
    "UsdPerMillionTokens",
    "UsdPerYear",
    "Years",
    "raise_problems",
]

Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False), NOT_BOOL]
"""A share in [0, 1]."""
TOKENS_RANGE = (1, 10000000.0)
"""Tokens a request may have [tokens] (:data:`Tokens`), for the readers that take them from a file (traces)."""
Tokens = Annotated[float, Field(ge=TOKENS_RANGE[0], le=TOKENS_RANGE[1], allow_inf_nan=False), NOT_BOOL]
"""Tokens per request: 10 million is beyond any context window."""
LatencyMs = Annotated[float, Field(ge=0.001, le=10000000.0, allow_inf_nan=False), NOT_BOOL]
"""1 microsecond to about 2.8 hours."""
Concurrency = Annotated[float, Field(ge=0.001, le=10000000.0, allow_inf_nan=False), NOT_BOOL]
Throughput = Annotated[float, Field(ge=0.001, le=10000000000.0, allow_inf_nan=False), NOT_BOOL]
"""Tokens/s: a millitoken per second to ten billion."""
AcceleratorW = Annotated[float, Field(ge=1, le=100000.0, allow_inf_nan=False), NOT_BOOL]
AcceleratorIdleW = Annotated[float, Field(ge=0, le=100000.0, allow_inf_nan=False), NOT_BOOL]
HostW = Annotated[float, Field(ge=0, le=1000000.0, allow_inf_nan=False), NOT_BOOL]
Years = Annotated[float, Field(ge=0.1, le=100, allow_inf_nan=False), NOT_BOOL]
Usd = Annotated[float, Field(ge=0, le=1000000000.0, allow_inf_nan=False), NOT_BOOL]
"""One item's price: a billion dollars."""
UsdPerYear = Annotated[float, Field(ge=0, le=1000000000.0, allow_inf_nan=False), NOT_BOOL]
Pue = Annotated[float, Field(ge=1, le=5, allow_inf_nan=False), NOT_BOOL]
UsdPerKwh = Annotated[float, Field(ge=0, le=10, allow_inf_nan=False), NOT_BOOL]
CarbonGPerKwh = Annotated[float, Field(ge=0, le=3000, allow_inf_nan=False), NOT_BOOL]
"""Grid carbon intensity: 0 (no emissions counted) to 3,000 g CO2e/kWh (above the dirtiest lignite plant's ~1,100)."""
UsdPerTonne = Annotated[float, Field(ge=0, le=10000, allow_inf_nan=False), NOT_BOOL]
"""A carbon price: 0 to $10,000 a tonne of CO2e (the EU ETS has traded under $110)."""
RackKw = Annotated[float, Field(ge=0.1, le=10000.0, allow_inf_nan=False), NOT_BOOL]
"""A 100 W shelf to a 10 MW rack."""
UsdPerKwMonth = Annotated[float, Field(ge=0, le=100000.0, allow_inf_nan=False), NOT_BOOL]
UsdPerKw = Annotated[float, Field(ge=0, le=10000000.0, allow_inf_nan=False), NOT_BOOL]
Count = Annotated[int, Field(ge=1, le=1_000_000), NOT_BOOL]
CvFraction = Annotated[float, Field(ge=0, le=10, allow_inf_nan=False), NOT_BOOL]
"""A coefficient of variation."""
AttainmentFraction = Annotated[float, Field(ge=0.5, le=1 - 1e-9, allow_inf_nan=False), NOT_BOOL]
"""P50 to just under 1."""
MIN_RPS = 1e-6
"""A scenario's lowest arrival rate: one request every 11.6 days [requests/s]."""
MAX_RPS = 1e7
"""A scenario's highest arrival rate: ten million requests a second [requests/s]."""
RPS_RANGE = (MIN_RPS, MAX_RPS)
"""The arrival rates a demand point takes [requests/s] (:data:`Rps`), for the readers that measure one (traces)."""
Rps = Annotated[float, Field(ge=MIN_RPS, le=MAX_RPS, allow_inf_nan=False), NOT_BOOL]
"""One request every 11.6 days to ten million a second."""
HoursPerDay = Annotated[float, Field(ge=0.001, le=24, allow_inf_nan=False), NOT_BOOL]
"""3.6 s to a whole day."""
SiteKw = Annotated[float, Field(ge=1, le=10000000.0, allow_inf_nan=False), NOT_BOOL]
"""1 kW to 10 GW of IT power."""
SpareCount = Annotated[int, Field(ge=0, le=1_000_000), NOT_BOOL]
PositiveFraction = Annotated[float, Field(ge=0.01, le=1, allow_inf_nan=False), NOT_BOOL]
"""A share the fleet is divided by: near zero it would size an endless fleet."""
ArrivalScv = Annotated[float, Field(ge=0.05, le=100, allow_inf_nan=False), NOT_BOOL]
"""Squared coefficient of variation of inter-arrival times: 1 is Poisson."""
# a measured dispersion curve: windows of 0.1 ms to 116 days; an index from 0 (equal counts) to 1e5 (an hour-long
# trace at thousands of requests/s whose rate drifts by a tenth reads a few thousand at 20 minutes)
DispersionScaleS = Annotated[float, Field(ge=1e-4, le=1e7, allow_inf_nan=False), NOT_BOOL]
DispersionIndex = Annotated[float, Field(ge=0, le=1e5, allow_inf_nan=False), NOT_BOOL]
"""A time scale and the index of dispersion of counts measured at it (``demand[i].arrival_dispersion``)."""
# a short rate swing within a demand point: up to +/-90% (the rate never reaches 0), over a millisecond to 116 days
SwingAmplitudeFraction = Annotated[float, Field(ge=0, le=0.9, allow_inf_nan=False), NOT_BOOL]
SwingPeriodS = Annotated[float, Field(ge=0.001, le=10000000.0, allow_inf_nan=False), NOT_BOOL]
"""Amplitude (share of the mean rate) and period of a sinusoidal rate swing within a demand point."""
Exponent = Annotated[float, Field(ge=0, le=10, allow_inf_nan=False), NOT_BOOL]
"""Of the power law: 0 is flat at the busy power, 1 linear in slot utilisation."""
Interactivity = Annotated[float, Field(ge=0.0001, le=1000000.0, allow_inf_nan=False), NOT_BOOL]
"""Output tokens/s per user."""
JoulesPerToken = Annotated[float, Field(ge=1e-06, le=1000000.0, allow_inf_nan=False), NOT_BOOL]
"""Energy per token, e.g. measured board energy per output token; 1e-6 to 1e6 [J/token]."""
KwPerAccelerator = Annotated[float, Field(ge=0.001, le=1000.0, allow_inf_nan=False), NOT_BOOL]
AcceleratorCount = Annotated[int, Field(ge=1, le=100_000), NOT_BOOL]
SlotCount = Annotated[int, Field(ge=1, le=10_000), NOT_BOOL]
RackOverheadW = Annotated[float, Field(ge=0, le=10000000.0, allow_inf_nan=False), NOT_BOOL]
UsdPerAcceleratorHour = Annotated[float, Field(ge=0.01, le=1000, allow_inf_nan=False), NOT_BOOL]
MinimumHoursPerDay = Annotated[float, Field(ge=0, le=24, allow_inf_nan=False), NOT_BOOL]
UsdPerMillionTokens = Annotated[float, Field(ge=0, le=10000.0, allow_inf_nan=False), NOT_BOOL]
Derate = Annotated[float, Field(ge=0.01, le=2, allow_inf_nan=False), NOT_BOOL]
"""Throughput is multiplied by it: near zero it would size an endless fleet."""
# the model's shape and a replica's memory, for the KV-cache limit (rackcost.model.replica.memory)
ParameterCount = Annotated[float, Field(ge=1e6, le=1e14, allow_inf_nan=False), NOT_BOOL]
"""A model's parameters: a million to a hundred trillion."""
ShapeCount = Annotated[int, Field(ge=1, le=1_000_000), NOT_BOOL]
"""Layers, heads or elements of a head: at least one."""
RopeDim = Annotated[int, Field(ge=0, le=1_000_000), NOT_BOOL]
"""Elements of MLA's decoupled RoPE key: 0 for a latent without one."""
MemoryGib = Annotated[float, Field(ge=0.001, le=10000000.0, allow_inf_nan=False), NOT_BOOL]
"""Accelerator memory or weights: a MiB to ten PiB [GiB]."""
BytesPerElement = Annotated[float, Field(ge=0.05, le=16, allow_inf_nan=False), NOT_BOOL]
"""Bytes of one parameter or cached element: under half a bit (packed 4-bit formats are about 0.53) to FP128."""
KvBytesPerToken = Annotated[float, Field(ge=1, le=1000000000.0, allow_inf_nan=False), NOT_BOOL]
"""KV bytes one token keeps: a byte to a GB."""
ReserveFraction = Annotated[float, Field(ge=0, le=0.95, allow_inf_nan=False), NOT_BOOL]
"""Share of the HBM kept for activations and the runtime: at most 95%, so something is left to share."""

MAX_NAME_CHARS = 200
"""Longest scenario, system or demand-point name [characters]."""


def _printable(value: str) -> str:
    """A name is not blank and has no control characters (tabs, newlines, NUL, line separators)."""
    if not value.strip():
        raise ValueError(f"must not be blank, got {value!r}")
    bad = [c for c in value if unicodedata.category(c) in {"Cc", "Cs", "Zl", "Zp"}]
    if bad:
        raise ValueError(f"must be printable (no control characters such as {bad[0]!r}), got {value!r}")
    return value


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS), AfterValidator(_printable)]
Source = Annotated[str | None, Field(default=None, description="Where the figures of this block come from.")]


def _registered_router(value: str) -> str:
    """A router's name known to the registry (:mod:`rackcost.model.queues.routers`), else a message naming them."""
    names = router_names()
    if value not in names:
        raise ValueError(f"must be one of {', '.join(names)}, got {value!r}")
    return str(value)


RouterName = Annotated[str, AfterValidator(_registered_router)]
"""The name of a registered router: the built-in ones (:class:`rackcost.model.strategies.Routing`) or any added by
:func:`rackcost.model.queues.routers.register`, checked when the scenario is read (so a registered router works in a
YAML file as the built-in ones do)."""


def raise_problems(problems: list[tuple[str, str]]) -> None:
    """Raise one ValueError listing cross-field problems, one ``path: message`` per line (nothing when empty).

    ``path`` is relative to the model being validated; the loader turns each line into its own problem with the
    full YAML path and line.
    """
    if problems:
        raise ValueError("\n".join(f"{path}: {message}" for path, message in problems))


class ScenarioBlock(BaseModel):
    """Base of every scenario block: unknown keys are errors, values are checked on assignment too."""

    # defer_build: a block's validator is built on its first validation, not when its class is defined; the
    # scenario's validation builds the blocks it holds in one go. Start-up time, measured (CPU time, 2-core machine):
    # the schema's import about 60 ms less, the first load about 40 ms more, a cold `rackcost evaluate` ~20 ms less
    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False, defer_build=True)
    # The schema's modules (this one, distributions, schema, systems and the *_blocks) do without ``from __future__
    # import annotations``: pydantic then takes each field's type as the object it is, rather than compiling and
    # evaluating its text (about 320 annotations); a method returning its own block says ``Self``. Measured (CPU time,
    # modules above preloaded, least of 8): importing rackcost.scenario.loading 64 -> 54 ms.


def model_in(annotation: Any) -> Any:
    """The pydantic model inside an annotation (``Model``, ``list[Model]``, ``Model | None``), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = model_in(arg)
        if found is not None:
            return found
    return None


def fields_at(loc: tuple[Any, ...], root: type[BaseModel]) -> list[str] | None:
    """The keys allowed beside the last part of ``loc`` (a pydantic error location) in ``root``: the field names (as
    YAML spells them, aliases first) of the model holding it, or None where no model is found on the way."""
    model: Any = root
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)) or part not in model.model_fields:
            return None
        model = model_in(model.model_fields[part].annotation)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return [f.alias or name for name, f in model.model_fields.items()]
    return None


DID_YOU_MEAN = "unknown key; did you mean `{}`?"
"""An unknown key's message where a field name is close to it (:func:`unknown_key`)."""


def unknown_key(key: object, allowed: list[str] | None) -> str:
    """The message of an unknown key: the allowed key it most likely misspells (difflib's closest, above difflib's
    default cutoff of 0.6, ignoring case, so that ``electricity_usd_per_kWh`` means ``electricity_usd_per_kwh``),
    else the keys allowed there.

    Examples
    --------
    >>> unknown_key("electricity_usd_per_kWh", ["pue", "electricity_usd_per_kwh"])
    'unknown key; did you mean `electricity_usd_per_kwh`?'
    >>> unknown_key("colour", ["pue", "electricity_usd_per_kwh"])
    'unknown key (allowed here: pue, electricity_usd_per_kwh)'
    """
    if not allowed:
        return "unknown key"
    lowered = {name.lower(): name for name in allowed}
    found = difflib.get_close_matches(str(key).lower(), lowered, n=1)
    return DID_YOU_MEAN.format(lowered[found[0]]) if found else f"unknown key (allowed here: {', '.join(allowed)})"
