"""Accelerator board power against requests in service: the law fitted to public measurements (docs/model.md, step 7).

Where a curve has no measured power, one accelerator of a serving replica draws::

    P(n) = P_idle + (P_top - P_idle) * (n / n_top) ** alpha

with ``n`` the requests in service per accelerator, ``n_top`` those at the operating point (every slot busy;
:func:`rackcost.model.energy.power.accelerator_power_w`) and
``P_top`` its power (``hardware.accelerator_busy_w``), so that ``n / n_top`` is the slot utilisation. ``alpha = 1`` is
the linear law rackcost used before; the public measurements say the rise is steep and flat: on the ML.ENERGY
leaderboard's steady-state vLLM runs an H100 at a batch of 8 already draws about three quarters of its maximum.

The exponents below were fitted, per accelerator, by least mean absolute percentage error over every measured batch
of every curve (model x task x GPU x GPUs) of the ML.ENERGY leaderboard's compiled data (ML.ENERGY initiative,
``ml-energy/leaderboard`` ``public/data/models/*.json``, Apache-2.0; 483 runs of 20 models on H100 and B200, retrieved
2026): ``rackcost power fit`` reproduces them from that CSV, ``rackcost power check`` measures a law's error on one.
Each measured curve is anchored at the top power that fits all its points best (:func:`anchor_power_w`, a weighted
median), not at its largest batch's power alone: many B200 curves draw less at their largest batch than below it,
and a law anchored at that one noisy point inherits its error at every other batch (held out, 13.9% on B200 against
7.8% with the fitted anchor). A scenario's one busy figure is still the anchor (``n = n_top``): a curve of one point.
The spread (the 5th and 95th percentiles of the exponent fitted to each curve alone) is the law's uncertainty, drawn
by the Monte Carlo where a system relies on the fitted law; its held-out error is drawn on the busy figure it anchors
(:mod:`rackcost.analysis.default_spreads`).

The fit hardly depends on the idle power (idle from 100 to 200 W moves the B200 exponent by 0.004 and its error by
less than 0.1 point): the measured batches start at 1-8 requests, where the law is already far from idle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rackcost.model.energy.power import accelerator_power_w

__all__ = [
    "EXPONENT_BOUNDS",
    "FITTED",
    "GENERIC",
    "LINEAR_EXPONENT",
    "MEASUREMENTS_SOURCE",
    "PowerCurve",
    "PowerLawFit",
    "anchor_power_w",
    "curve_errors",
    "family_of",
    "FitSummary",
    "DEFAULT_IDLE_W",
    "fit_exponent",
    "fit_family",
    "fit_for",
    "per_curve_exponents",
    "held_out_errors",
    "mean_absolute_percentage_error",
    "top_anchored_errors",
]

LINEAR_EXPONENT = 1.0
"""The exponent of the linear law (power proportional to slot utilisation) [-]."""
EXPONENT_BOUNDS = (0.0, 2.0)
"""The interval an exponent is fitted in [-]: 0 is flat at the top power, 2 convex."""
_GRID = 41
"""Exponents over :data:`EXPONENT_BOUNDS` evaluated before the minimisation refines the best of them [-]."""
MEASUREMENTS_SOURCE = (
    "ML.ENERGY initiative, ML.ENERGY leaderboard compiled data (github.com/ml-energy/leaderboard, "
    "public/data/models/*.json, Apache-2.0), steady-state vLLM runs on H100 and B200, retrieved 2026"
)
"""Where the fitted exponents come from."""


@dataclass(frozen=True)
class PowerLawFit:
    """One accelerator's fitted law and what it was fitted on.

    Attributes
    ----------
    family
        Accelerator family the fit is for (``H100``, ``B200``, ``generic``).
    exponent
        Fitted exponent ``alpha`` [-].
    exponent_low, exponent_high
        5th and 95th percentiles of the exponents fitted to each curve alone: the law's spread [-].
    idle_w
        Idle power per accelerator the fit used [W].
    idle_source
        Where that idle power comes from.
    curves, points
        Curves and measured points fitted [-].
    mape
        Mean absolute percentage error over every measured point of the fitted curves, each anchored at its fitted
        top power (:func:`anchor_power_w`) [-].
    mape_held_out
        The same on models left out of the fit: mean over 20 random halves of the models [-].
    """

    family: str
    exponent: float
    exponent_low: float
    exponent_high: float
    idle_w: float
    idle_source: str
    curves: int
    points: int
    mape: float
    mape_held_out: float


_H100_IDLE = "H100 idle about 70-75 W measured (Splitwise simulator's H100 profile: 75 W; Patel et al., 2024)"
_B200_IDLE = (
    "no public B200 idle measurement found; assumption: the H100's measured idle share of its rating "
    "(75 W of 700 W, 11%) x the B200's 1,000 W"
)

DEFAULT_IDLE_W: Mapping[str, float] = {"H100": 75.0, "B200": 110.0}
"""Idle power per accelerator of the fitted families, with the sources of :data:`FITTED` [W]."""

FITTED: Mapping[str, PowerLawFit] = {
    "H100": PowerLawFit("H100", 0.1113, 0.0, 0.1964, 75.0, _H100_IDLE, 34, 242, 0.0479, 0.0491),
    "B200": PowerLawFit("B200", 0.0306, 0.0, 0.2885, 110.0, _B200_IDLE, 29, 241, 0.0734, 0.0778),
}
"""Fitted laws by accelerator family (``rackcost power fit`` on the ML.ENERGY data reproduces them)."""
GENERIC = PowerLawFit("generic", 0.0589, 0.0, 0.2573, 0.0, "each family's idle power above", 63, 483, 0.0710, 0.0761)
"""The law for an accelerator without its own fit: both families' curves together."""

_FAMILIES = {"H100": "H100", "H200": "H100", "H800": "H100", "H20": "H100", "GH200": "H100"}
_FAMILIES.update({name: "B200" for name in ("B200", "B300", "GB200", "GB300", "B100")})


def family_of(accelerator: str | None) -> str:
    """The fitted family of an accelerator name (``"H200 SXM"`` -> ``"H100"``), else ``"generic"``.

    Hopper parts (H100, H200, H800, H20, GH200) take the H100 fit and Blackwell parts (B100, B200, B300, GB200,
    GB300) the B200 fit: an assumption that parts of one architecture share the shape of their rise (not the
    level: that is the system's own busy and idle power).

    Examples
    --------
    >>> family_of("H200 SXM"), family_of("gb300"), family_of("MI355X"), family_of(None)
    ('H100', 'B200', 'generic', 'generic')
    """
    if not accelerator:
        return GENERIC.family
    word = accelerator.strip().split()[0].upper() if accelerator.strip() else ""
    return _FAMILIES.get(word, GENERIC.family)


def fit_for(accelerator: str | None) -> PowerLawFit:
    """The fitted law for an accelerator name (:func:`family_of`)."""
    return FITTED.get(family_of(accelerator), GENERIC)


@dataclass(frozen=True)
class PowerCurve:
    """One measured curve: power against requests in service, per accelerator.

    Attributes
    ----------
    key
        What was measured (model, task, accelerator, accelerators per replica).
    family
        The accelerator's fitted family (:func:`family_of`).
    accelerator
        The accelerator as the data names it.
    in_service
        Requests in service per accelerator, ascending [requests].
    power_w
        Board power per accelerator at each [W].
    idle_w
        The accelerator's idle power, the law's other anchor [W].
    """

    key: tuple[str, ...]
    family: str
    accelerator: str
    in_service: NDArray[np.float64]
    power_w: NDArray[np.float64]
    idle_w: float


def anchor_power_w(curve: PowerCurve, exponent: float) -> float:
    """The law's top power for a measured curve: the one of least mean absolute percentage error over every measured
    batch of the curve, with its idle power and ``exponent`` fixed [W].

    Each point implies a top power ``T_i = idle + (P_i - idle) / u_i ** alpha`` (``u_i`` its batch over the largest);
    the error of a top ``T`` at that point is ``|T - T_i| u_i ** alpha / P_i``, so the best top is the weighted median
    of the ``T_i`` with weights ``u_i ** alpha / P_i`` (where two tops share the least error, their midpoint). A
    median, not a mean: one noisy point (the top of a curve that falls at its largest batch) moves it only to its
    neighbour, never by its own error. A curve of one point is anchored at the top that point implies: a single
    figure measured with every slot busy is the anchor itself.

    Examples
    --------
    Three points on the law of top 600 W and a fourth, the largest batch, 20% low: the anchor stays at 600 W.

    >>> import numpy as np
    >>> n = np.array([8.0, 32.0, 128.0, 256.0])
    >>> p = 75 + 525 * (n / 256) ** 0.2
    >>> p[-1] *= 0.8
    >>> round(anchor_power_w(PowerCurve(("m",), "H100", "H100", n, p, 75.0), 0.2), 9)
    600.0
    """
    return float(_anchors([curve], exponent)[0])


def _anchors(curves: Sequence[PowerCurve], exponent: float) -> NDArray[np.float64]:
    """:func:`anchor_power_w` of each curve [W]."""
    out = np.empty(len(curves))
    for k, c in enumerate(curves):
        shape = np.power(c.in_service / c.in_service[-1], exponent)
        implied = c.idle_w + (c.power_w - c.idle_w) / shape
        out[k] = _weighted_median(implied, shape / c.power_w)
    return out


def _weighted_median(values: NDArray[np.float64], weights: NDArray[np.float64]) -> float:
    """The value ``x`` of least ``sum w_i |x - v_i|``: where a whole interval ties, its midpoint."""
    order = np.argsort(values, kind="stable")
    v, cumulative = values[order], np.cumsum(weights[order])
    half = 0.5 * cumulative[-1]
    k = int(np.searchsorted(cumulative, half))
    k = min(k, v.size - 1)
    if k + 1 < v.size and math.isclose(cumulative[k], half, rel_tol=1e-12):
        return float(0.5 * (v[k] + v[k + 1]))
    return float(v[k])


def curve_errors(curve: PowerCurve, exponent: float) -> NDArray[np.float64]:
    """Absolute percentage error of the law at each measured batch of a curve, anchored at the curve's fitted top
    power (:func:`anchor_power_w`) and its idle power [-]."""
    return _errors(curve, exponent, anchor_power_w(curve, exponent))


def top_anchored_errors(curve: PowerCurve, exponent: float) -> NDArray[np.float64]:
    """Absolute percentage error of the law at each measured batch of a curve, anchored at the curve's power at its
    largest batch alone (the law before its anchor was fitted: 0 at the largest batch, by construction) [-]."""
    return _errors(curve, exponent, float(curve.power_w[-1]))


def _errors(curve: PowerCurve, exponent: float, top_w: float) -> NDArray[np.float64]:
    predicted = accelerator_power_w(curve.in_service / curve.in_service[-1], curve.idle_w, top_w, exponent)
    return np.asarray(np.abs(predicted - curve.power_w) / curve.power_w, dtype=float)


def mean_absolute_percentage_error(
    curves: Sequence[PowerCurve], exponent: float, *, top_anchored: bool = False
) -> float:
    """Mean absolute percentage error of the law over every measured batch of ``curves`` [-]: each curve anchored at
    its fitted top power, or at its largest batch's power with ``top_anchored``."""
    if not curves:
        raise ValueError("no curves to measure the law on")
    errors = top_anchored_errors if top_anchored else curve_errors
    return float(np.concatenate([errors(c, exponent) for c in curves]).mean())


def fit_exponent(curves: Sequence[PowerCurve]) -> float:
    """The exponent in :data:`EXPONENT_BOUNDS` of least mean absolute percentage error over ``curves``, each curve
    anchored at its own best top power for that exponent (:func:`anchor_power_w`) [-].

    The error is a sum of absolute values, so it is minimised directly rather than by least squares, which would
    favour the high-power points and let one noisy point pull the fit. With the anchors free the error need not be
    unimodal in the exponent: a grid of :data:`_GRID` exponents over the bounds finds the best bracket, and a
    bounded scalar minimisation (Brent's method, scipy) refines it.
    """
    if not curves:
        raise ValueError("no curves to fit the law on")
    n = sum(c.in_service.size for c in curves)

    def error(alpha: float) -> float:
        return float(sum(float(np.sum(curve_errors(c, alpha))) for c in curves) / n)

    # start-up time: scipy.optimize is about a third of a cold `rackcost evaluate` (-X importtime), and only a fit
    # (`rackcost power fit | check`) minimises
    from scipy.optimize import minimize_scalar

    grid = np.linspace(*EXPONENT_BOUNDS, _GRID)
    values = np.array([error(float(a)) for a in grid])
    k = int(np.argmin(values))
    bracket = (float(grid[max(k - 1, 0)]), float(grid[min(k + 1, grid.size - 1)]))
    result = minimize_scalar(error, bounds=bracket, method="bounded", options={"xatol": 1e-6})
    return float(result.x) if float(result.fun) <= float(values[k]) else float(grid[k])


def held_out_errors(curves: Sequence[PowerCurve], *, splits: int = 20, seed: int = 0) -> NDArray[np.float64]:
    """The law's error on models it was not fitted on: for each of ``splits`` random halves of the models, fit on one
    half and measure on the other [-] (one value per split).

    The split is by model (``key[0]``): the curves of one model on other tasks or GPU counts are never on both
    sides.
    """
    models = sorted({c.key[0] for c in curves})
    if len(models) < 2:
        raise ValueError("a held-out error needs curves of at least two models")
    rng = np.random.default_rng(seed)
    out = np.empty(splits)
    for k in range(splits):
        fitted = set(rng.permutation(models)[: len(models) // 2].tolist())
        fit_on = [c for c in curves if c.key[0] in fitted]
        test_on = [c for c in curves if c.key[0] not in fitted]
        out[k] = mean_absolute_percentage_error(test_on, fit_exponent(fit_on))
    return out


def per_curve_exponents(curves: Sequence[PowerCurve]) -> NDArray[np.float64]:
    """The exponent fitted to each curve alone (curves of two or more points) [-]: their spread is the law's."""
    return np.array([fit_exponent([c]) for c in curves if c.in_service.size > 1])


@dataclass(frozen=True)
class FitSummary:
    """What :func:`fit_family` finds for one group of curves (attributes as :class:`PowerLawFit`; ``mape_held_out_max``
    the worst half's held-out error, ``mape_top_anchored`` the in-sample error of the same exponent with each curve
    anchored at its largest batch alone, as a scenario's single busy figure anchors it)."""

    family: str
    exponent: float
    exponent_low: float
    exponent_high: float
    curves: int
    points: int
    mape: float
    mape_held_out: float
    mape_held_out_max: float
    mape_top_anchored: float


def fit_family(curves: Sequence[PowerCurve], family: str, *, splits: int = 20, seed: int = 0) -> FitSummary:
    """Fit the law to ``curves`` and state its error, in sample and on held-out models (:func:`held_out_errors`)."""
    exponent = fit_exponent(curves)
    spread = per_curve_exponents(curves)
    low, high = np.quantile(spread, [0.05, 0.95]) if spread.size else (exponent, exponent)
    held = held_out_errors(curves, splits=splits, seed=seed)
    return FitSummary(
        family,
        exponent,
        float(low),
        float(high),
        len(curves),
        int(sum(c.in_service.size for c in curves)),
        mean_absolute_percentage_error(curves, exponent),
        float(held.mean()),
        float(held.max()),
        mean_absolute_percentage_error(curves, exponent, top_anchored=True),
    )
