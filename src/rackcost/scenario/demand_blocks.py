"""A demand point's blocks: its rate, hours, burstiness (a gap SCV or a measured dispersion) and rate swing."""

from __future__ import annotations

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
    SwingAmplitudeFraction,
    SwingPeriodS,
    raise_problems,
)

__all__ = ["ArrivalDispersion", "DemandPoint", "RateSwing"]


class RateSwing(ScenarioBlock):
    """A short, periodic swing of the arrival rate within a demand point: ``lambda (1 + a sin(2 pi t / T))``."""

    amplitude_fraction: SwingAmplitudeFraction = Field(
        description="Amplitude a of the swing as a share of the point's mean rate (0.2: +/-20%); 0 to 0.9 [-]."
    )
    period_s: SwingPeriodS = Field(
        description="Period T of the swing; 1e-3 to 1e7 [s]. The pointwise stationary approximation assumes it long "
        "against the service time (rackcost.model.rate_swing)."
    )


class ArrivalDispersion(ScenarioBlock):
    """How a demand point's arrivals bunch over time: the index of dispersion of counts at increasing time scales,
    as ``rackcost trace --into`` measures it (rackcost.model.dispersion)."""

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
    def _matched(self) -> ArrivalDispersion:
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
        "the wait tail, sizing and acceptance use the G/G/c approximation of rackcost.model.burstiness; "
        "0.05 to 100 (as rackcost simulate draws them) [-]. Not with arrival_dispersion.",
    )
    arrival_dispersion: ArrivalDispersion | None = Field(
        default=None,
        description="Burstiness measured from a trace, {time_scales_s, index, source}: the index of dispersion of "
        "counts over time scales; each system reads it at its own service time as an arrival SCV (the stream's "
        "peakedness, rackcost.model.dispersion). Not with arrival_scv.",
    )
    rate_swing: RateSwing | None = Field(
        default=None,
        description="A short swing of the rate within the point (a peak within the peak), {amplitude_fraction, "
        "period_s}; sizing, acceptance and capacity at SLO average over its cycle (pointwise stationary "
        "approximation, rackcost.model.rate_swing); absent: the rate is constant.",
    )
    source: Source = None

    @model_validator(mode="after")
    def _one_burstiness(self) -> DemandPoint:
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
