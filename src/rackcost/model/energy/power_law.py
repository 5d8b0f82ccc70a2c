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
The spread (the 5th and 95th percentiles of the exponent fitted to each curve alone) is the law's uncertainty, drawn
by the Monte Carlo where a system relies on the fitted law.

The fit does not depend on the idle power to the precision shown (idle from 100 to 200 W moves the B200 exponent by
0.003 and its error by less than 0.1 point): the measured batches start at 1-8 requests, where the law is already
far from idle.
"""

from __future__ import annotations

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
]

LINEAR_EXPONENT = 1.0
"""The exponent of the linear law (power proportional to slot utilisation) [-]."""
EXPONENT_BOUNDS = (0.0, 2.0)
"""The interval an exponent is fitted in [-]: 0 is flat at the top power, 2 convex."""
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
        Mean absolute percentage error over every measured point of the fitted curves [-].
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
    "H100": PowerLawFit("H100", 0.0997, 0.0, 0.1866, 75.0, _H100_IDLE, 34, 242, 0.0748, 0.0756),
    "B200": PowerLawFit("B200", 0.0315, 0.0, 0.2783, 110.0, _B200_IDLE, 29, 241, 0.1259, 0.1392),
}
"""Fitted laws by accelerator family (``rackcost power fit`` on the ML.ENERGY data reproduces them)."""
GENERIC = PowerLawFit("generic", 0.0523, 0.0, 0.2438, 0.0, "each family's idle power above", 63, 483, 0.1136, 0.1211)
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


def curve_errors(curve: PowerCurve, exponent: float) -> NDArray[np.float64]:
    """Absolute percentage error of the law at each measured batch of a curve, predicted from the curve's power at
    its largest batch and its idle power [-] (0 at the largest batch, by construction)."""
    predicted = accelerator_power_w(curve.in_service / curve.in_service[-1], curve.idle_w, curve.power_w[-1], exponent)
    return np.asarray(np.abs(predicted - curve.power_w) / curve.power_w, dtype=float)


def mean_absolute_percentage_error(curves: Sequence[PowerCurve], exponent: float) -> float:
    """Mean absolute percentage error of the law over every measured batch of ``curves`` [-]."""
    if not curves:
        raise ValueError("no curves to measure the law on")
    return float(np.concatenate([curve_errors(c, exponent) for c in curves]).mean())


def fit_exponent(curves: Sequence[PowerCurve]) -> float:
    """The exponent in :data:`EXPONENT_BOUNDS` of least mean absolute percentage error over ``curves`` [-].

    A bounded scalar minimisation (Brent's method, scipy); the error is a sum of absolute values, so it is
    minimised directly rather than by least squares, which would favour the high-power points.
    """
    if not curves:
        raise ValueError("no curves to fit the law on")
    # one array of (relative batch, top power, measured power) over all curves: each evaluation is one numpy pass
    u = np.concatenate([c.in_service / c.in_service[-1] for c in curves])
    top = np.concatenate([np.full(c.in_service.size, c.power_w[-1]) for c in curves])
    idle = np.concatenate([np.full(c.in_service.size, c.idle_w) for c in curves])
    measured = np.concatenate([c.power_w for c in curves])

    def error(alpha: float) -> float:
        return float(np.mean(np.abs(idle + (top - idle) * np.power(u, alpha) - measured) / measured))

    # start-up time: scipy.optimize is about a third of a cold `rackcost evaluate` (-X importtime), and only a fit
    # (`rackcost power fit | check`) minimises
    from scipy.optimize import minimize_scalar

    result = minimize_scalar(error, bounds=EXPONENT_BOUNDS, method="bounded", options={"xatol": 1e-5})
    return float(result.x)


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
    """What :func:`fit_family` finds for one group of curves (attributes as :class:`PowerLawFit`)."""

    family: str
    exponent: float
    exponent_low: float
    exponent_high: float
    curves: int
    points: int
    mape: float
    mape_held_out: float
    mape_held_out_max: float


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
    )
