"""Distributions a numeric scenario input may take instead of a plain number (docs/uncertainty.md).

``{dist: triangular, low, mode, high}``, ``{dist: uniform, low, high}``, ``{dist: normal, mean, sd,
truncate_at_zero}``, ``{dist: lognormal, median, sigma}``, ``{dist: choice, values, weights}``. Each has a
``central`` value, used by the deterministic :func:`rackcost.evaluate` (the mode of a triangular, the mean of a
normal, the median of a lognormal, the midpoint of a uniform, the most likely value of a choice), a quantile
function ``ppf`` (tornado ends, sampling) and the ends of its support (checked against the field's own bounds).
"""

from abc import ABC, abstractmethod
from typing import Annotated, Any, Literal, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

__all__ = ["NOT_BOOL", "Choice", "Distribution", "LogNormal", "Normal", "Triangular", "Uniform", "central_of"]


def _not_bool(value: Any) -> Any:
    """Refuse a YAML boolean where a number is expected (pydantic's lax mode would read ``true`` as 1)."""
    if isinstance(value, bool):
        raise ValueError(f"must be a number, got {'true' if value else 'false'}")
    return value


NOT_BOOL = BeforeValidator(_not_bool)
"""Put in an ``Annotated`` number: a boolean is an error ('must be a number, got true'), not 1 or 0."""

# parameters are finite and within 1e12 in size: every field a distribution may stand for is bounded far below that,
# and the quantile arithmetic (high - low, mean + 6 sd) then stays finite
Finite = Annotated[float, Field(ge=-1e12, le=1e12, allow_inf_nan=False), NOT_BOOL]
Positive = Annotated[float, Field(gt=0, le=1e12, allow_inf_nan=False), NOT_BOOL]

SIX_SIGMA_TAIL = 9.865876450376946e-10
"""Probability below six standard deviations of a normal, ``ndtr(-6)``: the quantile functions of the normal and
lognormal clip q to [SIX_SIGMA_TAIL, 1 - SIX_SIGMA_TAIL] (and the value to the support, against rounding), so every
draw lies inside ``support()``, which the schema checks against the field's range."""


class _Dist(BaseModel, ABC):
    """What every distribution provides (pydantic's model metaclass is an ABCMeta, so these are enforced)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @property
    @abstractmethod
    def central(self) -> float:
        """Value the deterministic evaluation uses."""

    @abstractmethod
    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        """Quantile function."""

    @abstractmethod
    def support(self) -> tuple[float, float]:
        """Lowest and highest value the distribution reaches (practically, for unbounded ones)."""


class Triangular(_Dist):
    """Triangular distribution on [low, high] with its peak at ``mode``."""

    dist: Literal["triangular"]
    low: Finite
    mode: Finite
    high: Finite

    @model_validator(mode="after")
    def _order(self) -> Self:
        if not (self.low <= self.mode <= self.high) or self.low == self.high:
            raise ValueError(
                f"needs low <= mode <= high and low < high, got {self.low:g}, {self.mode:g}, {self.high:g}"
            )
        return self

    @property
    def central(self) -> float:
        """The mode."""
        return self.mode

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        """Quantile function (closed form)."""
        q = np.asarray(q, dtype=float)
        width = self.high - self.low
        split = (self.mode - self.low) / width
        left = self.low + np.sqrt(q * width * (self.mode - self.low))
        right = self.high - np.sqrt((1.0 - q) * width * (self.high - self.mode))
        return np.where(q < split, left, right)

    def support(self) -> tuple[float, float]:
        return self.low, self.high


class Uniform(_Dist):
    """Uniform distribution on [low, high]."""

    dist: Literal["uniform"]
    low: Finite
    high: Finite

    @model_validator(mode="after")
    def _order(self) -> Self:
        if not self.low < self.high:
            raise ValueError(f"needs low < high, got {self.low:g}, {self.high:g}")
        return self

    @property
    def central(self) -> float:
        """The midpoint."""
        return 0.5 * (self.low + self.high)

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        return self.low + np.asarray(q, dtype=float) * (self.high - self.low)

    def support(self) -> tuple[float, float]:
        return self.low, self.high


class Normal(_Dist):
    """Normal distribution, optionally truncated at zero (for quantities that cannot be negative)."""

    dist: Literal["normal"]
    mean: Finite
    sd: Positive
    truncate_at_zero: bool = False

    @model_validator(mode="after")
    def _mean(self) -> Self:
        if self.truncate_at_zero and self.mean <= 0:
            raise ValueError(f"a normal truncated at zero needs mean > 0, got {self.mean:g}")
        return self

    @property
    def central(self) -> float:
        """The mean (also the mode of the untruncated part)."""
        return self.mean

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        from scipy.special import ndtr, ndtri

        q = np.asarray(q, dtype=float)
        if self.truncate_at_zero:
            p0 = ndtr(-self.mean / self.sd)  # mass below zero, redistributed over the rest
            q = p0 + q * (1.0 - p0)
        value = self.mean + self.sd * ndtri(np.clip(q, SIX_SIGMA_TAIL, 1 - SIX_SIGMA_TAIL))
        # rounding in ndtri can land a hair outside the support (below zero when truncated): never outside
        return np.clip(value, *self.support())

    def support(self) -> tuple[float, float]:
        """Practical support: six standard deviations; above zero (not at it) when truncated."""
        low = self.mean - 6 * self.sd
        if self.truncate_at_zero:
            low = max(low, float(np.nextafter(0.0, 1.0)))
        return low, self.mean + 6 * self.sd


class LogNormal(_Dist):
    """Lognormal distribution: ``log`` of the value is normal with median ``median`` and log-sd ``sigma``."""

    dist: Literal["lognormal"]
    median: Positive
    sigma: Annotated[float, Field(gt=0, le=5, allow_inf_nan=False), NOT_BOOL]

    @property
    def central(self) -> float:
        """The median."""
        return self.median

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        from scipy.special import ndtri

        clipped = np.clip(np.asarray(q, dtype=float), SIX_SIGMA_TAIL, 1 - SIX_SIGMA_TAIL)
        return np.clip(self.median * np.exp(self.sigma * ndtri(clipped)), *self.support())

    def support(self) -> tuple[float, float]:
        """Practical support: six log-standard deviations."""
        return self.median * float(np.exp(-6 * self.sigma)), self.median * float(np.exp(6 * self.sigma))


class Choice(_Dist):
    """A discrete set of values with weights (equal when omitted)."""

    dist: Literal["choice"]
    values: list[Finite] = Field(min_length=1)
    weights: list[Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False), NOT_BOOL]] | None = None

    @model_validator(mode="after")
    def _weights(self) -> Self:
        if self.weights is not None:
            if len(self.weights) != len(self.values):
                raise ValueError(
                    f"needs one weight per value, got {len(self.weights)} weights, {len(self.values)} values"
                )
            if sum(self.weights) <= 0:
                raise ValueError("weights must not all be zero")
        return self

    def _probabilities(self) -> NDArray[np.float64]:
        w = np.ones(len(self.values)) if self.weights is None else np.asarray(self.weights, dtype=float)
        return w / w.sum()

    @property
    def central(self) -> float:
        """The most likely value (the first of equals)."""
        return float(self.values[int(np.argmax(self._probabilities()))])

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        """Discrete quantile over the values sorted ascending."""
        order = np.argsort(self.values, kind="stable")
        values = np.asarray(self.values, dtype=float)[order]
        cdf = np.cumsum(self._probabilities()[order])
        index = np.searchsorted(cdf, np.asarray(q, dtype=float) * cdf[-1], side="left")
        return values[np.clip(index, 0, len(values) - 1)]

    def support(self) -> tuple[float, float]:
        return float(min(self.values)), float(max(self.values))


Distribution = Annotated[Triangular | Uniform | Normal | LogNormal | Choice, Field(discriminator="dist")]

_ADAPTER: TypeAdapter[Any] = TypeAdapter(Distribution)


def central_of(data: Any) -> float | None:
    """The central value of a distribution given as plain data, or None when it is not a valid distribution.

    Examples
    --------
    >>> central_of({"dist": "triangular", "low": 1.1, "mode": 1.15, "high": 1.3})
    1.15
    >>> central_of({"dist": "triangular", "low": 1.2, "mode": 1.15, "high": 1.3}) is None
    True
    """
    try:
        return float(_ADAPTER.validate_python(data).central)
    except ValidationError:
        return None
