"""How a fleet's replicas scale over a demand profile, with the minutes a replica takes to load
(``fleet.scaling``; docs/model.md, "Autoscaling with a delay"; the model is
:mod:`rackcost.model.fleets.autoscale`)."""

from typing import Annotated

from pydantic import Field

from rackcost.scenario.distributions import NOT_BOOL
from rackcost.scenario.fields import AcceleratorIdleW, PositiveFraction, ScenarioBlock, Source, SpareCount

__all__ = ["MAX_DELAY_S", "Scaling", "scaling_problems", "scaling_words"]

MAX_DELAY_S = 86_400.0
"""Longest scaling delay or forecast lead: a day [s]."""

DelayS = Annotated[float, Field(ge=0, le=MAX_DELAY_S, allow_inf_nan=False), NOT_BOOL]


class Scaling(ScenarioBlock):
    """Replicas started and stopped as a profile's rate moves, each taking time to load before it serves."""

    scale_up_delay_s: DelayS = Field(
        description="Time from starting a replica to its serving (loading the weights, warming up); 0 is park's "
        "instant scaling; 0 to 86,400 [s]."
    )
    scale_down_delay_s: DelayS = Field(
        default=0.0,
        description="Time a replica stays up after it is no longer needed (a scale-down stabilisation window); "
        "default 0; 0 to 86,400 [s].",
    )
    min_replicas: SpareCount = Field(
        default=0, description="Replicas kept serving at all times (at most the fleet); default 0; 0 to 1e6."
    )
    target_utilization_fraction: PositiveFraction | None = Field(
        default=None,
        description="Slot utilisation the scaler keeps each replica below (besides the SLO); default the fleet's "
        "max_utilization_fraction; 0.01 to 1.",
    )
    forecast_lead_s: DelayS = Field(
        default=0.0,
        description="How far ahead the scaler knows the rate (a forecast, taken as exact): replicas are started for "
        "the rate this far ahead; 0 (default) scales on the current rate; 0 to 86,400 [s].",
    )
    warmup_w_per_accelerator: AcceleratorIdleW | None = Field(
        default=None,
        description="Power of an accelerator of a replica that is loading (it does not serve); default the "
        "accelerator's idle power; 0 to 1e5 [W].",
    )
    source: Source = None


def scaling_problems(scaling: Scaling | None, has_profile: bool) -> list[tuple[str, str]]:
    """``fleet.scaling`` acts over the hours of a demand profile: without one there is no ramp to scale over."""
    if scaling is None or has_profile:
        return []
    return [("fleet.scaling", "scales replicas over a demand profile's hours: give demand.profile, or remove it")]


def scaling_words(scaling: Scaling) -> str:
    """The scaling policy in a sentence, for a report."""
    lead = f", started for the rate {scaling.forecast_lead_s:g} s ahead" if scaling.forecast_lead_s else ""
    return (
        f"Parking replicas scale over the profile's hours: a replica serves {scaling.scale_up_delay_s:g} s after it "
        f"is started and stops {scaling.scale_down_delay_s:g} s after it is last needed{lead}; at least "
        f"{scaling.min_replicas} serving."
    )
