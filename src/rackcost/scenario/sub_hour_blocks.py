"""How the rate moves within a demand point: a periodic swing (``demand[i].rate_swing``) or the rates of the windows
inside its hour (``demand[i].sub_hour``, and a profile's ``sub_hour``; docs/model.md, "Rate swings within a demand
point" and "Sub-hour peaks in a profile"). The model serves both as
:class:`rackcost.model.queues.rate_swing.RateShape`."""

import math
from typing import Annotated, Self

import numpy as np
from pydantic import Field, model_validator

from rackcost.scenario.distributions import NOT_BOOL
from rackcost.scenario.fields import ScenarioBlock, Source, SwingAmplitudeFraction, SwingPeriodS, raise_problems
from rackcost.units import SECONDS_PER_HOUR

__all__ = ["MAX_WINDOW_RATIO", "MIN_WINDOW_S", "ProfileSubHour", "RateSwing", "SubHour", "windows_per_hour"]

MIN_MEAN_RATIO = 1e-6
"""Lowest mean of a point's windows: they are divided by it (a mean of 5e-324 is 0 to the division) [-]."""
MAX_LISTED = 5
"""Hours of the wrong length listed one by one; the rest are counted."""

MIN_WINDOW_S = 60.0
"""Shortest window within an hour [s]: the pointwise stationary approximation needs a window long against the
service time (at least 20 mean service times, docs/model.md "Sub-hour peaks"); LLM requests hold a slot 10-40 s."""
MAX_WINDOW_RATIO = 1e3
"""Highest rate a window may have over the hour's mean [-]."""

WindowS = Annotated[float, Field(ge=MIN_WINDOW_S, le=SECONDS_PER_HOUR / 2, allow_inf_nan=False), NOT_BOOL]
WindowRatio = Annotated[float, Field(ge=0, le=MAX_WINDOW_RATIO, allow_inf_nan=False), NOT_BOOL]


def windows_per_hour(window_s: float) -> int | None:
    """How many windows of ``window_s`` fill an hour exactly, or None [-].

    Examples
    --------
    >>> windows_per_hour(600.0), windows_per_hour(700.0)
    (6, None)
    """
    if not (math.isfinite(window_s) and window_s > 0):
        return None
    count = round(SECONDS_PER_HOUR / window_s)
    return count if math.isclose(count * window_s, SECONDS_PER_HOUR, rel_tol=1e-9) else None


class SubHour(ScenarioBlock):
    """The rates of the equal windows that make up a demand point's hour: the rate moves within the point.

    Sizing, acceptance and capacity at SLO average the stationary model over the windows, each weighted by its
    arrivals (the pointwise stationary approximation, :mod:`rackcost.model.queues.rate_swing`); the point's
    ``arrival_rps`` stays the hour's mean.
    """

    window_s: WindowS = Field(
        description="Length of each window; 60 to 1,800 s, a whole number of windows to the hour (600: six "
        "10-minute windows) [s]."
    )
    rate_ratios: list[WindowRatio] = Field(
        min_length=2,
        max_length=int(SECONDS_PER_HOUR / MIN_WINDOW_S),
        description="Each window's arrival rate, in order, relative to the hour's: divided by their mean, so "
        "[1.12, 1.14, 0.70, 0.89, 1.33, 0.82] and the windows' rates in requests/s say the same; 0 to 1e3 each, "
        "one per window of the hour [-].",
    )
    source: Source = None

    @model_validator(mode="after")
    def _fills_the_hour(self) -> Self:
        count = windows_per_hour(self.window_s)
        problems = []
        if count is None:
            problems.append(
                ("window_s", f"must divide an hour into whole windows (600, 300, 900, ...), got {self.window_s:g}")
            )
        elif len(self.rate_ratios) != count:
            problems.append(
                (
                    "rate_ratios",
                    f"has {len(self.rate_ratios)} windows; an hour holds {count} of {self.window_s:g} s: give one "
                    "rate per window",
                )
            )
        if not sum(self.rate_ratios) / max(len(self.rate_ratios), 1) >= MIN_MEAN_RATIO:
            problems.append(
                (
                    "rate_ratios",
                    f"every window is 0 (or their mean below {MIN_MEAN_RATIO:g}): the point's rate has no windows to "
                    "spread over",
                )
            )
        raise_problems(problems)
        return self


class ProfileSubHour(ScenarioBlock):
    """The rates of the equal windows inside every hour of a profile (``rackcost profile servegen`` writes them)."""

    window_s: WindowS = Field(
        description="Length of each window; 60 to 1,800 s, a whole number of windows to the hour [s]."
    )
    window_rps: list[list[WindowRatio]] = Field(
        description="For each hour of the profile, in order, its windows' arrival rates (or any multiple of them: "
        "only their ratios to the hour's mean are used, the hour's rate is hourly_arrival_rps); one list per "
        "hour, each of 3,600 / window_s values [requests/s]."
    )
    source: Source = None

    @model_validator(mode="after")
    def _whole_hours(self) -> Self:
        count = windows_per_hour(self.window_s)
        if count is None:
            raise_problems(
                [("window_s", f"must divide an hour into whole windows (600, 300, 900, ...), got {self.window_s:g}")]
            )
        bad = [i for i, w in enumerate(self.window_rps) if len(w) != count]
        raise_problems(
            [
                (
                    f"window_rps[{i}]",
                    f"has {len(self.window_rps[i])} windows; an hour holds {count} of {self.window_s:g} s",
                )
                for i in bad[:MAX_LISTED]
            ]
            + (
                [("window_rps", f"and {len(bad) - MAX_LISTED:,} more hours of the wrong length")]
                if len(bad) > MAX_LISTED
                else []
            )
        )
        return self

    def ratios_of_hour(self, hour: int) -> list[float] | None:
        """The windows of profile hour ``hour`` over their mean, or None where the hour is idle or flat [-]."""
        w = np.asarray(self.window_rps[hour], dtype=np.float64)
        mean = float(w.mean())
        if mean <= 0 or np.all(w == w[0]):
            return None
        return [float(x) for x in w / mean]


class RateSwing(ScenarioBlock):
    """A short, periodic swing of the arrival rate within a demand point: ``lambda (1 + a sin(2 pi t / T))``."""

    amplitude_fraction: SwingAmplitudeFraction = Field(
        description="Amplitude a of the swing as a share of the point's mean rate (0.2: +/-20%); 0 to 0.9 [-]."
    )
    period_s: SwingPeriodS = Field(
        description="Period T of the swing; 1e-3 to 1e7 [s]. The pointwise stationary approximation assumes it long "
        "against the service time (rackcost.model.queues.rate_swing)."
    )
