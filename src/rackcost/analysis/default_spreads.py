"""Default spreads: a distribution for every sampled input the scenario gives as a plain number
(docs/uncertainty.md, "Default spreads"), so that ``rackcost uncertainty`` shows a spread without hand-written YAML.

Each default is chosen from what is known about the figure, and each is cited:

- **its provenance class** (``figures:`` of the scenario, the longest key that covers the input's YAML path; else,
  for a system's figure, the system's ``provenance.class``; an input nobody labelled is read as an assumption):
  a lognormal of log-standard deviation :data:`PROVENANCE_SIGMA` around the value (:class:`LogSpread`);
- **the model's own fitted errors**: a throughput or measured power read between a curve's measured points carries
  the interpolation's leave-one-out error (:data:`INTERPOLATION_MAPE`, docs/validation.md), added to the point's
  provenance spread in quadrature; an accelerator's power exponent taken from the law fitted to public measurements
  is drawn over the per-curve fits' 5th to 95th percentiles (:data:`rackcost.model.energy.power_law.FITTED`), and
  the busy power that law is anchored at carries the law's held-out error (the scatter of measured points about
  the law's fitted anchor, docs/validation.md), added in quadrature as the interpolation's is.

A distribution the scenario gives wins: defaults go only where the YAML has a plain number. An input at a bound of
its field (a cost of 0, an availability of 1) has no default: nothing says which way it would move. The throughput
derate (``uncertainty.throughput_derate``) is a statement of belief, never given a default.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.energy.power_law import PowerLawFit, fit_for
from rackcost.scenario.distributions import SIX_SIGMA_TAIL, Triangular
from rackcost.scenario.schema import Scenario, annotation_at, is_uncertain_path

__all__ = [
    "INTERPOLATION_MAPE",
    "MAPE_TO_SIGMA",
    "PROVENANCE_SIGMA",
    "DefaultSpread",
    "LogSpread",
    "allowed_range",
    "default_spreads",
    "provenance_of",
    "spreads_for",
]

PROVENANCE_SIGMA: Mapping[str, float] = {
    "independent": 0.10,
    "collaborative": 0.15,
    "vendor": 0.20,
    "assumption": 0.30,
}
"""Log-standard deviation of the default spread of a figure of each provenance class [-]; why each width, and its
sources, in docs/uncertainty.md ("Default spreads"). P5 to P95 is the value divided and multiplied by
``exp(1.645 sigma)``: 1.18, 1.28, 1.39 and 1.64."""
UNLABELLED = "assumption"
"""The class of an input no ``figures:`` key or system provenance covers: nothing says where it came from."""
INTERPOLATION_MAPE: Mapping[str, float] = {"throughput_tokens_per_s": 0.0989, "power_w_per_accelerator": 0.0514}
"""Mean absolute error of a figure read between measured points, each interior point of the bundled scenarios'
distinct curves left out and predicted from the others (docs/validation.md, "Throughput interpolation, leave one
measured point out", overall row of the bundled scenarios: throughput MAPE 9.89%, power MAPE 5.14%) [-]."""
MAPE_TO_SIGMA = math.sqrt(math.pi / 2.0)
"""A lognormal error of small log-standard deviation ``s`` has a mean absolute relative error of ``s sqrt(2/pi)``
(the mean of ``|Z|``, Z standard normal, to first order in ``s``): a measured MAPE is ``s = MAPE x sqrt(pi/2)``."""
Z95 = 1.6448536269514722
"""The 95th percentile of the standard normal, ``ndtri(0.95)`` [-]."""
_SYSTEM = re.compile(r"systems\[(\d+)\]")
_BUSY = re.compile(r"systems\[(\d+)\]\.hardware\.accelerator_busy_w")
_POINT = re.compile(r"systems\[(\d+)\]\.performance\.points\[\d+\]\.(\w+)")


@dataclass(frozen=True)
class LogSpread:
    """A spread around ``value`` that stays inside the field's range ``[low, high]``: lognormal in the distance from
    ``low`` (log-sd ``sigma``), or, where the field has a finite upper bound, logit-normal in the value's position
    between the bounds (the same, to first order, for a value far below the upper bound; a fraction near 1 then
    spreads in its shortfall from 1). The median is ``value``; every quantile moves away from it as ``sigma``
    grows (monotone in ``sigma`` at every ``q``)."""

    value: float
    sigma: float
    low: float = 0.0
    high: float = math.inf

    @property
    def central(self) -> float:
        """The value itself: the deterministic evaluation is unchanged."""
        return self.value

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        """Quantile function (closed form), q clipped to six standard deviations as the schema's normals are."""
        from scipy.special import expit, logit, ndtri

        z = ndtri(np.clip(np.asarray(q, dtype=float), SIX_SIGMA_TAIL, 1.0 - SIX_SIGMA_TAIL))
        if math.isinf(self.high):
            out = self.low + (self.value - self.low) * np.exp(self.sigma * z)
        else:
            width = self.high - self.low
            out = self.low + width * expit(logit((self.value - self.low) / width) + self.sigma * z)
        return np.clip(out, self.low, self.high)

    def support(self) -> tuple[float, float]:
        """The quantiles at six standard deviations."""
        ends = self.ppf([0.0, 1.0])
        return float(ends[0]), float(ends[1])


@dataclass(frozen=True)
class DefaultSpread:
    """One input's default spread and why (:func:`default_spreads`).

    Attributes
    ----------
    path
        YAML path of the input.
    distribution
        What is drawn: a :class:`LogSpread`, or a triangular of a fitted law's exponent.
    basis
        What the width comes from: a provenance class, ``"<class> + interpolation"``, ``"<class> + law residual"``
        (a busy power the fitted law is anchored at), or ``"power law (<family>)"``.
    source
        The citation, in words.
    """

    path: str
    distribution: LogSpread | Triangular
    basis: str
    source: str

    @property
    def central(self) -> float:
        return float(self.distribution.central)

    def ppf(self, q: ArrayLike) -> NDArray[np.float64]:
        return np.asarray(self.distribution.ppf(q), dtype=float)

    def support(self) -> tuple[float, float]:
        return self.distribution.support()

    def to_dict(self) -> dict[str, Any]:
        """The row of ``UncertaintyResult.default_spreads``: path, value, basis, shape, P5, P95 and source."""
        p5, p95 = (float(v) for v in self.ppf([0.05, 0.95]))
        d = self.distribution
        shape = (
            f"lognormal, log-sd {d.sigma:.3g} (P5 / P95 about x{math.exp(-Z95 * d.sigma):.2f} / "
            f"x{math.exp(Z95 * d.sigma):.2f})"
            if isinstance(d, LogSpread)
            else f"triangular {d.low:g} / {d.mode:g} / {d.high:g}"
        )
        return {
            "input": self.path,
            "value": self.central,
            "basis": self.basis,
            "shape": shape,
            "p5": p5,
            "p95": p95,
            "source": self.source,
        }


def allowed_range(scenario: Scenario, path: str) -> tuple[float, float]:
    """The values an input allows, from its field's bounds in the schema (infinite where it has none)."""
    from pydantic import TypeAdapter

    annotation = annotation_at(scenario, path)
    if annotation is None:
        return -math.inf, math.inf
    schema = TypeAdapter(annotation).json_schema()
    schema = next((s for s in schema.get("anyOf", []) if s.get("type") in ("number", "integer")), schema)
    low = float(schema.get("minimum", schema.get("exclusiveMinimum", -math.inf)))
    high = float(schema.get("maximum", schema.get("exclusiveMaximum", math.inf)))
    if "exclusiveMinimum" in schema:
        low = math.nextafter(low, math.inf)
    if "exclusiveMaximum" in schema:
        high = math.nextafter(high, -math.inf)
    return low, high


def provenance_of(scenario: Scenario, path: str) -> str | None:
    """The provenance class of the figure at ``path``: the ``figures:`` entry of the longest key that is the path or
    a block around it, else the class of the system the path belongs to, else None (nobody labelled it).

    Examples
    --------
    >>> from rackcost.scenario.loading import bundled_scenario_path, load_scenario
    >>> sc = load_scenario(bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex.yaml"))
    >>> provenance_of(sc, "facility.pue"), provenance_of(sc, "systems[1].performance.points[0].throughput_tokens_per_s")
    ('independent', 'independent')
    >>> provenance_of(sc, "systems[0].hardware.rack_overhead_w")
    'assumption'
    """
    found, length = None, -1
    for key, figure in scenario.figures.items():
        if (path == key or path.startswith((key + ".", key + "["))) and len(key) > length:
            found, length = figure.provenance.value, len(key)
    if found is None and (m := _SYSTEM.match(path)):
        found = scenario.systems[int(m.group(1))].provenance.provenance_class.value
    return found


def default_spreads(
    scenario: Scenario, sigma: Mapping[str, float] | None = None, interpolation: bool = True
) -> dict[str, DefaultSpread]:
    """A default spread for every sampled input the scenario gives as a plain number (module docstring).

    Parameters
    ----------
    scenario
        A validated scenario.
    sigma
        Log-standard deviation by provenance class; default :data:`PROVENANCE_SIGMA` (a class left out keeps its
        default).
    interpolation
        Add the interpolation's error to the curves' points and the fitted law's spread to its exponent (True), or
        use the provenance classes alone (False).

    Returns
    -------
    dict
        YAML path -> :class:`DefaultSpread`, in path order: the inputs the scenario sets (a schema default is
        the model's, not a figure of the scenario's), none where it gives a distribution.
    """
    widths = {**PROVENANCE_SIGMA, **(sigma or {})}
    given = scenario.distributions
    out: dict[str, DefaultSpread] = {}
    for path, value in _numbers(scenario.model_dump(exclude_unset=True), ""):  # what the scenario gives
        if path in given or not is_uncertain_path(path) or path.startswith("uncertainty."):
            continue
        low, high = allowed_range(scenario, path)
        if not low < value < high or math.isinf(low):
            continue  # at a bound of its field: nothing says which way it would move
        label = provenance_of(scenario, path)
        cls = label or UNLABELLED
        width, basis = widths[cls], cls
        source = f"provenance {cls}" if label else f"no provenance given: read as {UNLABELLED}"
        source += f" (docs/uncertainty.md, Default spreads: log-sd {widths[cls]:g})"
        m = _POINT.fullmatch(path)
        if interpolation and m and m.group(2) in INTERPOLATION_MAPE and _points(scenario, int(m.group(1))) > 1:
            error = MAPE_TO_SIGMA * INTERPOLATION_MAPE[m.group(2)]
            width, basis = math.hypot(width, error), f"{cls} + interpolation"
            source += (
                f", and the interpolation's leave-one-out error {INTERPOLATION_MAPE[m.group(2)]:.2%} "
                f"(docs/validation.md) as log-sd {error:.3g}, in quadrature"
            )
        elif interpolation and (b := _BUSY.fullmatch(path)) and (law := _fitted_law(scenario, int(b.group(1)))):
            error = MAPE_TO_SIGMA * law.mape_held_out
            width, basis = math.hypot(width, error), f"{cls} + law residual"
            source += (
                f", and the fitted power law's held-out error {law.mape_held_out:.2%} ({law.family} fit, "
                f"docs/validation.md: measured points about the law's fitted anchor) as log-sd {error:.3g}, in "
                "quadrature"
            )
        out[path] = DefaultSpread(path, LogSpread(value, width, low, high), basis, source)
    if interpolation:
        out.update(_law_exponents(scenario))
    return dict(sorted(out.items()))


def spreads_for(scenario: Scenario, requested: bool | None) -> dict[str, DefaultSpread]:
    """The default spreads a Monte Carlo run draws: :func:`default_spreads` when ``requested`` is True, or when it
    is None and the scenario has no distribution of its own (a scenario that has some keeps its behaviour: only
    what it states is drawn); none when it is False."""
    if requested is False or (requested is None and scenario.distributions):
        return {}
    return default_spreads(scenario)


def _fitted_law(scenario: Scenario, index: int) -> PowerLawFit | None:
    """The law fitted to public measurements that hardware system ``index`` draws its accelerators' power from, or
    None: a system with an exponent of its own or the fleet's, a disaggregated one (its pools carry hardware of their
    own), or one whose curve measures power at every point (the measured power, not the busy figure, is then the
    law's anchor)."""
    if scenario.fleet.power_utilization_exponent is not None or index not in scenario.hardware_indices:
        return None
    system = scenario.systems[index]
    if system.pools is not None:
        return None
    performance, hardware = system.hardware_blocks()
    if hardware.power_exponent is not None:
        return None
    if performance.points and all(p.power_w_per_accelerator is not None for p in performance.points):
        return None
    return fit_for(hardware.accelerator)


def _law_exponents(scenario: Scenario) -> Iterator[tuple[str, DefaultSpread]]:
    """The fitted law's exponent of each hardware system that takes it (no exponent of its own or the fleet's),
    drawn at ``systems[i].hardware.power_exponent`` over the per-curve fits' 5th to 95th percentiles (not a
    disaggregated system's: its pools may carry hardware of their own)."""
    if scenario.fleet.power_utilization_exponent is not None:
        return
    for i in scenario.hardware_indices:
        system = scenario.systems[i]
        if system.pools is not None:  # a disaggregated system's pools: their own hardware (not drawn here)
            continue
        hardware = system.hardware_blocks()[1]
        if hardware.power_exponent is not None:
            continue
        law = fit_for(hardware.accelerator)
        dist = Triangular(dist="triangular", low=law.exponent_low, mode=law.exponent, high=law.exponent_high)
        source = (
            f"the power law fitted to public measurements ({law.family} fit, docs/model.md step 7): the 5th-95th "
            f"percentiles of per-curve fits (held-out error of the law {law.mape_held_out:.1%}, docs/validation.md)"
        )
        path = f"systems[{i}].hardware.power_exponent"
        yield path, DefaultSpread(path, dist, f"power law ({law.family})", source)


def _points(scenario: Scenario, index: int) -> int:
    """The measured points of system ``index``'s curve."""
    return len(scenario.systems[index].hardware_blocks()[0].points)


def _numbers(data: Any, path: str) -> Iterator[tuple[str, float]]:
    """Every number in plain data with its YAML path (booleans are not numbers)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _numbers(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _numbers(value, f"{path}[{i}]")
    elif isinstance(data, int | float) and not isinstance(data, bool) and math.isfinite(data):
        yield path, float(data)
