"""The building and the grid a scenario's fleet runs in: ``facility`` and its hourly grid ``facility.hourly``.

The facility's figures (PUE, electricity price, rack limits, colocation and build costs) and the grid's carbon:
a flat carbon intensity and carbon price, and optionally the price and intensity hour by hour (a day of 24 values
or a week of 168), which apply hour by hour where the scenario's demand has a clock (a demand profile): each hour
of the horizon reads its own, each named point the mean over its hours (:mod:`rackcost.model.energy.grid`).
"""

from typing import Annotated, Self

from pydantic import Field, model_validator

from rackcost.model.energy.grid import GRID_LENGTHS
from rackcost.scenario.fields import (
    CarbonGPerKwh,
    Count,
    Pue,
    RackKw,
    ScenarioBlock,
    SiteKw,
    Source,
    UsdPerKw,
    UsdPerKwh,
    UsdPerKwMonth,
    UsdPerTonne,
    Years,
    raise_problems,
)

__all__ = ["Facility", "HourlyGrid"]

_LENGTHS = f"{GRID_LENGTHS[0]} values (a day, 00:00 first) or {GRID_LENGTHS[1]} (a week, Monday 00:00 first)"


class HourlyGrid(ScenarioBlock):
    """The electricity price and carbon intensity hour by hour; each replaces the flat figure of the same name
    (hour by hour where the demand is a profile, else as the mean of its day or week), scaled by the flat figure's
    sampled / central value so that spreads, sweeps and break-evens of the flat figure move every hour alike."""

    electricity_usd_per_kwh: list[UsdPerKwh] | None = Field(
        default=None, description=f"Electricity price by hour, {_LENGTHS}; each 0 to 10 [USD/kWh]."
    )
    carbon_g_per_kwh: list[CarbonGPerKwh] | None = Field(
        default=None, description=f"Grid carbon intensity by hour, {_LENGTHS}; each 0 to 3,000 [g CO2e/kWh]."
    )
    source: Source = None

    @model_validator(mode="after")
    def _lengths(self) -> Self:
        problems = [
            (name, f"has {len(values):,} values; expected {_LENGTHS}")
            for name in ("electricity_usd_per_kwh", "carbon_g_per_kwh")
            if (values := getattr(self, name)) is not None and len(values) not in GRID_LENGTHS
        ]
        if self.electricity_usd_per_kwh is None and self.carbon_g_per_kwh is None:
            problems.append(("electricity_usd_per_kwh", "give electricity_usd_per_kwh, carbon_g_per_kwh or both"))
        raise_problems(problems)
        return self


Hourly = Annotated[
    HourlyGrid | None,
    Field(
        default=None,
        description="Electricity price and carbon intensity by hour {electricity_usd_per_kwh?: [...], "
        "carbon_g_per_kwh?: [...], source}, or {csv: FILE, source} (an hour column and either value column, read "
        "at load beside the scenario file): 24 or 168 values; with demand as a profile each named point reads "
        "the mean over its hours and each hour of the horizon its own; named points given by hand have no clock "
        "hours and read the mean of the day (or week).",
    ),
]


class Facility(ScenarioBlock):
    """The building the fleet stands in, and the grid that powers it."""

    pue: Pue = Field(description="Power usage effectiveness: facility power / IT power; 1 to 5 [-].")
    electricity_usd_per_kwh: UsdPerKwh = Field(description="Electricity price; 0 to 10 [USD/kWh].")
    rack_power_limit_kw: RackKw = Field(description="Power a rack position may be provisioned for; 0.1 to 1e4 [kW].")
    max_racks: Count | None = Field(
        default=None, description="Rack positions available; a fleet that needs more is flagged; 1 to 1e6."
    )
    max_it_power_kw: SiteKw | None = Field(
        default=None,
        description="IT power the site is provisioned for, on rated power (the rack rule); a sized fleet over it is "
        "flagged, and rackcost site finds the largest fleet of each system within it; 1 to 1e7 [kW].",
    )
    colocation_usd_per_kw_month: UsdPerKwMonth = Field(
        default=0.0, description="Colocation charge per provisioned (rated) IT kW per month; 0 to 1e5 [USD/kW-month]."
    )
    build_usd_per_kw: UsdPerKw = Field(
        default=0.0, description="Cost to build facility capacity per provisioned IT kW; 0 to 1e7 [USD/kW]."
    )
    build_life_years: Years = Field(
        default=15.0, description="Life over which facility build cost is recovered; 0.1 to 100 [years]."
    )
    carbon_g_per_kwh: CarbonGPerKwh = Field(
        default=0.0,
        description="Carbon intensity of the grid's electricity (location-based: the grid's average), counted on "
        "facility energy whoever pays for it; 0 (the default) counts none; 0 to 3,000 [g CO2e/kWh].",
    )
    carbon_usd_per_tonne: UsdPerTonne = Field(
        default=0.0,
        description="Price of carbon, added to every kWh of an energy bill the owner pays (intensity x price); "
        "0 to 1e4 [USD/t CO2e].",
    )
    hourly: Hourly
    source: Source = None
