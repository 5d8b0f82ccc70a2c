"""A demand point: its rate, hours, burstiness (a gap SCV or a measured dispersion), and its rate's movement within
the point (a swing or sub-hour windows, :mod:`rackcost.scenario.sub_hour_blocks`)."""

from typing import Self

from pydantic import Field, model_validator

from rackcost.scenario.fields import (
    ArrivalScv,
    DispersionIndex,
    DispersionScaleS,
    HoursPerDay,
    Name,
    Rps,
    ScenarioBlock,
    Source,
    raise_problems,
)
from rackcost.scenario.sub_hour_blocks import RateSwing, SubHour

__all__ = ["ArrivalDispersion", "DemandPoint"]


class ArrivalDispersion(ScenarioBlock):
    """How a demand point's arrivals bunch over time: the index of dispersion of counts at increasing time scales,
    as ``rackcost trace --into`` measures it (rackcost.model.queues.dispersion)."""

    time_scales_s: list[DispersionScaleS] = Field(
        min_length=1,
        max_length=64,
        description="Window lengths the index was counted in, strictly increasing; 1e-4 to 1e7 [s].",
    )
    index: list[DispersionIndex] = Field(
        min_length=1,
        max_length=64,
        description="Index of dispersion of counts (variance / mean of the arrivals in a window) at each time "
        "scale; 0 to 1e6 (1 is Poisson) [-].",
    )
    source: Source = None

    @model_validator(mode="after")
    def _matched(self) -> Self:
        problems: list[tuple[str, str]] = []
        if len(self.index) != len(self.time_scales_s):
            problems.append(
                ("index", f"needs one value per time scale: {len(self.time_scales_s)} scales, {len(self.index)} values")
            )
        scales = self.time_scales_s
        if any(b <= a for a, b in zip(scales, scales[1:], strict=False)):
            problems.append(("time_scales_s", f"must be strictly increasing, got {scales}"))
        raise_problems(problems)
        return self


class DemandPoint(ScenarioBlock):
    """One level of demand and how many hours a day the fleet sees it."""

    name: Name = Field(description="Name, conventionally quiet, normal or peak; printable, at most 200 characters.")
    # one request every 11.6 days to ten million a second
    arrival_rps: Rps = Field(
        description="Arrival rate of requests (Poisson unless arrival_scv says otherwise); 1e-6 to 1e7 [requests/s]."
    )
    hours_per_day: HoursPerDay = Field(
        description="Hours per day at this demand; 1e-3 (3.6 s) to 24 [h]; all points add up to 24."
    )
    arrival_scv: ArrivalScv = Field(
        default=1.0,
        description="Squared coefficient of variation of inter-arrival times: 1 is Poisson, above 1 burstier; "
        "the wait tail, sizing and acceptance use the G/G/c approximation of rackcost.model.queues.burstiness; "
        "0.05 to 100 (as rackcost simulate draws them) [-]. Not with arrival_dispersion.",
    )
    arrival_dispersion: ArrivalDispersion | None = Field(
        default=None,
        description="Burstiness measured from a trace, {time_scales_s, index, source}: the index of dispersion of "
        "counts over time scales; each system reads it at its own service time as an arrival SCV (the stream's "
        "peakedness, rackcost.model.queues.dispersion). Not with arrival_scv.",
    )
    rate_swing: RateSwing | None = Field(
        default=None,
        description="A short swing of the rate within the point (a peak within the peak), {amplitude_fraction, "
        "period_s}; sizing, acceptance and capacity at SLO average over its cycle (pointwise stationary "
        "approximation, rackcost.model.queues.rate_swing); absent: the rate is constant.",
    )
    sub_hour: SubHour | None = Field(
        default=None,
        description="The rates of the windows that make up the point's hour {window_s, rate_ratios, source?}; sizing "
        "and acceptance average over them as over a swing's cycle (docs/model.md, Sub-hour peaks in a profile).",
    )
    source: Source = None

    @model_validator(mode="after")
    def _one_movement(self) -> Self:
        if self.rate_swing is not None and self.sub_hour is not None:
            raise_problems([("sub_hour", "give a rate_swing or sub_hour windows, not both: each moves the rate")])
        return self

    @model_validator(mode="after")
    def _one_burstiness(self) -> Self:
        if self.arrival_dispersion is not None and "arrival_scv" in self.model_fields_set:
            raise_problems(
                [
                    (
                        "arrival_dispersion",
                        "give arrival_scv or arrival_dispersion, not both: the measured dispersion sets the SCV each "
                        "system sees at its own service time",
                    )
                ]
            )
        return self
