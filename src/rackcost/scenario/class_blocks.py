"""The scenario blocks of request classes (docs/model.md, Request classes): ``workload.classes``, each class's token
counts (a number or a per-request length distribution ``{lengths: ...}``) and its optional SLO. Part of the scenario
schema (:mod:`rackcost.scenario.schema`); the numbers are :mod:`rackcost.model.workload.classes`'s.

Two kinds of distribution live in a scenario and must not be confused:

- ``{dist: ...}`` (:mod:`rackcost.scenario.distributions`) is *uncertainty about a parameter*: the value is one
  number we do not know exactly, and the Monte Carlo draws it;
- ``{lengths: ...}`` (:class:`Lengths`) is *how a class's requests vary*: every request draws its own length, and
  the deterministic model reads its mean and spread (``fixed``, ``lognormal`` or ``gamma`` by mean and cv, or an
  empirical ``cdf`` table ``[[tokens, cumulative_fraction], ...]``).
"""

import functools
import math
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Self

from pydantic import Discriminator, Field, Tag, model_validator

from rackcost.model.workload.classes import cdf_moments
from rackcost.scenario.fields import (
    AttainmentFraction,
    CvFraction,
    Fraction,
    LatencyMs,
    Name,
    ScenarioBlock,
    Source,
    Tokens,
    raise_problems,
)

__all__ = [
    "LENGTH_KINDS",
    "SHARE_TOLERANCE",
    "ClassSlo",
    "Lengths",
    "PrefixHitFraction",
    "RequestClass",
    "TokenCount",
    "class_problems",
    "token_moments",
]

LENGTH_KINDS = ("fixed", "lognormal", "gamma", "cdf")
"""The per-request length distributions a class's token count may be."""
SHARE_TOLERANCE = 1e-6
"""How far the classes' shares may add up from 1 (rounding in a file) [-]."""
CDF_END_TOLERANCE = 1e-6
"""How far a CDF table's last cumulative fraction may be from 1 [-]."""

# up to 0.999: a request always prefills its new tokens, and with nothing to prefill a request of one output token
# would hold no slot at all
# (each narrows its base type, whose own bounds, finiteness and refusal of booleans hold: written the other way round,
# ``Annotated[float, Field(gt=0), CvFraction]``, pydantic read the base as a note and a cv of 1e308 or .inf passed)
PrefixHitFraction = Annotated[Fraction, Field(le=0.999)]
"""Share of a request's input served from the prefix cache."""
PositiveCv = Annotated[CvFraction, Field(gt=0)]
"""A coefficient of variation above 0 (a fixed count is ``{lengths: fixed}``)."""

_KIND_FIELDS = {"fixed": ("tokens",), "lognormal": ("mean", "cv"), "gamma": ("mean", "cv"), "cdf": ("table",)}


class Lengths(ScenarioBlock):
    """A per-request length distribution: how the token counts of a class's requests vary.

    ``{lengths: fixed, tokens: N}``; ``{lengths: lognormal, mean: M, cv: V}`` and ``{lengths: gamma, mean: M, cv:
    V}``; ``{lengths: cdf, table: [[tokens, cumulative_fraction], ...]}``. The analytic model reads the mean and the
    variance (lognormal and gamma of the same mean and cv give the same figures there); the shape is the
    simulator's.
    """

    lengths: Literal["fixed", "lognormal", "gamma", "cdf"] = Field(
        description="fixed (every request the same), lognormal or gamma (by mean and cv), or cdf (an empirical "
        "table of cumulative fractions)."
    )
    tokens: Tokens | None = Field(default=None, description="fixed: tokens of every request; 1 to 1e7 [tokens].")
    mean: Tokens | None = Field(default=None, description="lognormal, gamma: mean tokens; 1 to 1e7 [tokens].")
    cv: PositiveCv | None = Field(
        default=None, description="lognormal, gamma: coefficient of variation of the length; above 0 to 10 [-]."
    )
    table: list[tuple[Tokens, Fraction]] | None = Field(
        default=None,
        min_length=1,
        description="cdf: rows [tokens, cumulative_fraction], tokens rising and fractions never falling, the last "
        "fraction 1; the first row's share is taken at its length and each later row's spread evenly since the "
        "row before [tokens, -].",
    )
    source: Source = None

    @model_validator(mode="after")
    def _kind_fields(self) -> Self:
        problems: list[tuple[str, str]] = []
        needed = _KIND_FIELDS[self.lengths]
        for name in ("tokens", "mean", "cv", "table"):
            given = getattr(self, name) is not None
            if name in needed and not given:
                problems.append((name, f"lengths: {self.lengths} needs {' and '.join(needed)}"))
            elif name not in needed and given:
                problems.append((name, f"not a field of lengths: {self.lengths} (it takes {', '.join(needed)})"))
        if self.table is not None:
            problems += _table_problems(self.table)
        raise_problems(problems)
        return self

    def moments(self) -> tuple[float, float]:
        """Mean and variance of the length [tokens, tokens^2]."""
        if self.lengths == "fixed":
            assert self.tokens is not None  # _kind_fields
            return float(self.tokens), 0.0
        if self.lengths == "cdf":
            assert self.table is not None
            return _table_moments(tuple((float(t), float(f)) for t, f in self.table))
        assert self.mean is not None and self.cv is not None
        return float(self.mean), float(self.cv * self.mean) ** 2


@functools.lru_cache(maxsize=256)
def _table_moments(table: tuple[tuple[float, float], ...]) -> tuple[float, float]:
    """A CDF table's mean and variance (:func:`rackcost.model.workload.classes.cdf_moments`), once per table: a
    scenario's classes are unpacked once an evaluation."""
    return cdf_moments([t for t, _ in table], [f for _, f in table])


def _table_problems(table: list[tuple[float, float]]) -> list[tuple[str, str]]:
    """A CDF table's rows must rise in tokens, never fall in fraction, and end at 1."""
    out = []
    for i in range(1, len(table)):
        (t0, f0), (t1, f1) = table[i - 1], table[i]
        if t1 <= t0:
            out.append((f"table[{i}]", f"tokens must rise from row to row: {t1:g} after {t0:g}"))
        if f1 < f0:
            out.append(
                (f"table[{i}]", f"a CDF is monotone: cumulative fraction {f1:g} after {f0:g} (it must never fall)")
            )
    last = table[-1][1]
    if abs(last - 1.0) > CDF_END_TOLERANCE:
        out.append((f"table[{len(table) - 1}]", f"a CDF ends at 1: the last cumulative fraction is {last:g}"))
    return out


def _token_kind(value: Any) -> str:
    """Which branch a token count takes: a mapping (or, when written back, a :class:`Lengths`) is a length
    distribution, anything else a number. The tags start with ``function-`` so that YAML paths leave them out, as
    they leave out pydantic's own validator branches."""
    return "function-lengths" if isinstance(value, dict | Lengths) else "function-number"


TokenCount = Annotated[
    Annotated[Tokens, Tag("function-number")] | Annotated[Lengths, Tag("function-lengths")],
    Discriminator(_token_kind),
]
"""A class's token count: a number (the class's mean length, its spread unstated) or a :class:`Lengths`."""


def token_moments(count: float | Lengths) -> tuple[float, float | None]:
    """Mean of a token count and its coefficient of variation, None for a plain number (spread unstated)
    [tokens, -]."""
    if isinstance(count, Lengths):
        mean, variance = count.moments()
        return mean, math.sqrt(variance) / mean
    return float(count), None


class ClassSlo(ScenarioBlock):
    """A class's own SLO: any limit it does not give is the workload's (the scenario's ``slo``)."""

    ttft_limit_ms: LatencyMs | None = Field(
        default=None, description="Time-to-first-token limit, queueing included; 1e-3 to 1e7 [ms]."
    )
    tpot_limit_ms: LatencyMs | None = Field(default=None, description="Time-per-output-token limit; 1e-3 to 1e7 [ms].")
    e2e_limit_ms: LatencyMs | None = Field(
        default=None, description="End-to-end latency limit, queueing included; 1e-3 to 1e7 [ms]."
    )
    attainment_fraction: AttainmentFraction | None = Field(
        default=None,
        description="Share of the class's requests that must be accepted at the sizing demand; 0.5 to 1 - 1e-9.",
    )
    source: Source = None


class RequestClass(ScenarioBlock):
    """One class of requests of the workload: its share of the arrivals, its shape and optionally its SLO."""

    name: Name = Field(description="Name of the class, e.g. chat, reasoning, agentic; printable, at most 200 chars.")
    share_fraction: Fraction = Field(description="Share of the arrivals in this class; the shares add up to 1 [-].")
    input_tokens: TokenCount = Field(
        description="Input (prompt) tokens per request, prefix-cached ones included: a number (the mean; its spread "
        "unstated, so the model's exponential service) or a per-request length distribution {lengths: fixed | "
        "lognormal | gamma | cdf, ...}; 1 to 1e7 [tokens]."
    )
    output_tokens: TokenCount = Field(
        description="Output tokens per request: a number or a per-request length distribution {lengths: ...}; "
        "1 to 1e7 [tokens]."
    )
    prefix_hit_fraction: PrefixHitFraction = Field(
        default=0.0,
        description="Share of each request's input served from the prefix cache: its prefill work is saved, and an "
        "API system bills it at its cached price; 0 to 0.999 [-].",
    )
    slo: ClassSlo | None = Field(default=None, description="The class's own SLO; absent: the workload's (slo).")
    source: Source = None

    @property
    def spread_stated(self) -> bool:
        """Whether the class gives a length distribution (then a plain number beside it is a fixed count)."""
        return isinstance(self.input_tokens, Lengths) or isinstance(self.output_tokens, Lengths)


def class_problems(classes: Sequence[RequestClass]) -> list[tuple[str, str]]:
    """Shares that do not add up to 1 and names that repeat, at ``classes`` (relative to the workload)."""
    out = []
    names = [c.name for c in classes]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        out.append(("classes", f"class names must be unique: {', '.join(repr(n) for n in repeated)} repeat"))
    total = math.fsum(c.share_fraction for c in classes)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        terms = " + ".join(f"{c.name} {c.share_fraction:g}" for c in classes)
        out.append(("classes", f"the classes' share_fraction must add up to 1, got {total:.6g} ({terms})"))
    return out
