"""The Answer page's figures, pure: which system is cheapest (per demand point and over the day), by how much, what
each costs a year and over the service life, what share of requests it accepts, and which systems cannot serve.

Every cost comes from the library's tables (:meth:`rackcost.Result.records`); the arithmetic here is presentation:
a day's cost times 365, a year times a number of years, a ratio of two costs, and accepted over offered requests
weighted by each point's hours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rackcost import display
from rackcost.evaluation.columns import Column, column
from rackcost.reporting.result_sections import answer_sentence
from rackcost.units import HOURS_PER_YEAR

__all__ = ["DAYS_PER_YEAR", "RACK_POWER", "Answer", "answer", "unserved_of"]

RACK_POWER = ("mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw")
"""The library's power per rack beside the rack power limit, per system (columns of the ``systems`` table)."""

DAYS_PER_YEAR = 365.0
"""Days in a year of service (the library's ``margin_usd_per_year`` is also the day's margin x 365)."""


@dataclass(frozen=True)
class Answer:
    """What the Answer page shows.

    Attributes
    ----------
    sentence
        The report's first line (:func:`rackcost.reporting.decision.answer_sentence`).
    cheapest, runner_up
        The cheapest system over the day and the next one (None with one system).
    saving_fraction
        How much less the cheapest costs per accepted request than the runner-up, blended (0.44 = 44% less).
    horizon_years
        The years the totals are over: a demand profile's horizon (the library's ``horizon`` table), else the
        longest service life of the owned systems (None when there is neither).
    profile_horizon
        True when ``horizon_years`` is a demand profile's horizon: each total is then the library's cost over it,
        hour by hour with the demand's growth, not a year's cost times the years.
    systems
        One row per system, in the scenario's order (see :func:`answer`).
    points
        One row per demand point: the cheapest system there, its cost and the runner-up's.
    unserved
        The library's ``Result.unserved`` rows: systems that cannot be evaluated, with why.
    """

    sentence: str
    cheapest: str
    runner_up: str | None
    saving_fraction: float | None
    horizon_years: float | None
    profile_horizon: bool
    systems: list[dict[str, Any]]
    points: list[dict[str, Any]]
    unserved: list[dict[str, Any]]


def unserved_of(result: Any) -> list[dict[str, Any]]:
    """``result.unserved`` (systems the library could not evaluate, with why), or [] for a library without it."""
    return [dict(row) for row in getattr(result, "unserved", None) or []]


def service_life_years(system: dict[str, Any], finance: Any = None) -> float | None:
    """An owned system's service life from the scenario data (``costs.service_life_years``, else the scenario's
    ``finance.service_life_years``), else None."""
    costs = system.get("costs")
    if not isinstance(costs, dict) or system.get("rent") is not None or system.get("api") is not None:
        return None
    life = costs.get("service_life_years")
    if life is None and isinstance(finance, dict):
        life = finance.get("service_life_years")
    if isinstance(life, dict):  # a distribution: its central value is what evaluate uses
        return None
    return float(life) if isinstance(life, int | float) else None


def answer(result: Any, scenario_data: dict[str, Any]) -> Answer:
    """The Answer page's figures for an evaluated scenario.

    Parameters
    ----------
    result
        :func:`rackcost.evaluate` of the scenario (its ``records``, ``unserved`` when the library has it).
    scenario_data
        The scenario as plain data (the dashboard's valid draft): systems in order, their costs' service life.

    Returns
    -------
    Answer
        ``systems`` rows: ``system``, ``payment``, ``blended_usd_per_accepted_request``, ``versus_cheapest_fraction``
        (0 for the cheapest, 0.25 for 25% dearer), ``accepted_fraction`` (accepted / offered requests over the day),
        ``usd_per_year``, ``service_life_years`` (owned systems), ``usd_over_horizon``, ``capex_usd``, ``racks``,
        the :data:`RACK_POWER` columns, ``cheapest`` (bool). ``points`` rows: ``demand_point``, ``cheapest``,
        ``usd_per_accepted_request``, ``runner_up``, ``runner_up_usd_per_accepted_request``, ``saving_fraction``.
    """
    systems = result.records["systems"]
    points = result.records["points"]
    # a system that accepts nothing has no cost per accepted request (None): it sorts last and saves nothing
    by_cost = sorted(systems, key=lambda r: display.cost_order(r["blended_usd_per_accepted_request"]))
    cheapest = by_cost[0]
    runner_up = by_cost[1] if len(by_cost) > 1 else None
    saving = None
    defined = cheapest["blended_usd_per_accepted_request"] is not None
    if defined and runner_up is not None and (runner_up["blended_usd_per_accepted_request"] or 0.0) > 0:
        saving = 1.0 - cheapest["blended_usd_per_accepted_request"] / runner_up["blended_usd_per_accepted_request"]
    lives = {
        str(s.get("name")): service_life_years(s, scenario_data.get("finance"))
        for s in scenario_data.get("systems") or []
        if isinstance(s, dict)
    }
    owned_lives = [life for life in lives.values() if life is not None]
    horizon = max(owned_lives) if owned_lives else None
    # a demand profile: the library's cost over its horizon, every hour (the same horizon as the buying plan's)
    over_profile = {row["system"]: row for row in result.records.get("horizon") or []}
    if over_profile:
        horizon = max(row["hours"] for row in over_profile.values()) / HOURS_PER_YEAR
    rows = []
    for r in systems:
        mine = [p for p in points if p["system"] == r["system"]]
        offered = sum(p["offered_rps"] * p["hours_per_day"] for p in mine)
        accepted = sum(p["accepted_rps"] * p["hours_per_day"] for p in mine)
        per_year = r["usd_per_day"] * DAYS_PER_YEAR
        rows.append(
            {
                "system": r["system"],
                "payment": r["payment"],
                "blended_usd_per_accepted_request": r["blended_usd_per_accepted_request"],
                "versus_cheapest_fraction": None
                if r["blended_usd_per_accepted_request"] is None
                else r["blended_usd_per_accepted_request"] / cheapest["blended_usd_per_accepted_request"] - 1.0
                if defined and cheapest["blended_usd_per_accepted_request"] > 0
                else 0.0,
                "accepted_fraction": accepted / offered if offered > 0 else None,
                "blended_carbon_g_per_accepted_request": r.get("blended_carbon_g_per_accepted_request"),
                "usd_per_year": per_year,
                "service_life_years": lives.get(r["system"]),
                "usd_over_horizon": _over_horizon(r["system"], per_year, horizon, over_profile),
                "capex_usd": r.get("capex_usd"),
                "racks": r.get("racks"),
                **{name: r.get(name) for name in RACK_POWER},
                "cheapest": r["system"] == cheapest["system"],
            }
        )
    point_rows = []
    for name in dict.fromkeys(p["demand_point"] for p in points):
        here = sorted(
            (p for p in points if p["demand_point"] == name and p["usd_per_accepted_request"] is not None),
            key=lambda p: p["usd_per_accepted_request"],
        )
        if not here:
            continue
        best, second = here[0], (here[1] if len(here) > 1 else None)
        point_rows.append(
            {
                "demand_point": name,
                "cheapest": best["system"],
                "usd_per_accepted_request": best["usd_per_accepted_request"],
                "runner_up": None if second is None else second["system"],
                "runner_up_usd_per_accepted_request": None if second is None else second["usd_per_accepted_request"],
                "saving_fraction": None
                if second is None or second["usd_per_accepted_request"] <= 0
                else 1.0 - best["usd_per_accepted_request"] / second["usd_per_accepted_request"],
            }
        )
    return Answer(
        sentence=answer_sentence(systems),
        cheapest=cheapest["system"],
        runner_up=None if runner_up is None else runner_up["system"],
        saving_fraction=saving,
        horizon_years=horizon,
        profile_horizon=bool(over_profile),
        systems=rows,
        points=point_rows,
        unserved=unserved_of(result),
    )


def _over_horizon(
    system: str, per_year: float, horizon: float | None, over_profile: dict[str, dict[str, Any]]
) -> float | None:
    """A system's cost over the horizon: the library's over a demand profile's (None for a system it has no row of,
    a disaggregated one), else a year's cost times the years."""
    if over_profile:
        row = over_profile.get(system)
        return None if row is None else row["cost_usd"]
    return None if horizon is None else per_year * horizon


def _own(name: str, unit: str, label: str, meaning: str, kind: str) -> Column:
    """A column of the Answer page's own (not a table of the library's), shown as the registry shows its kind."""
    return Column(name, "answer", unit, label, meaning, kind)  # type: ignore[arg-type]


def columns(horizon_years: float | None = None) -> dict[str, Column]:
    """The Answer page's systems table: the registry's columns where it has them, its own beside them (each shown as
    the registry shows its kind); without the service life and the total when there is no horizon."""
    shown = {
        "system": column("systems", "system"),
        "payment": column("systems", "payment"),
        "blended_usd_per_accepted_request": column("systems", "blended_usd_per_accepted_request"),
        "versus_cheapest_fraction": _own(
            "versus_cheapest_fraction", "fraction", "more than the cheapest", "blended cost / the cheapest's - 1", "pct"
        ),
        "accepted_fraction": _own(
            "accepted_fraction", "fraction", "accepted within SLO over the day", "accepted / offered requests", "pct"
        ),
        "blended_carbon_g_per_accepted_request": column("systems", "blended_carbon_g_per_accepted_request"),
        "usd_per_year": _own("usd_per_year", "USD/year", "cost per year", "the day's cost x 365", "usd"),
        "service_life_years": _own("service_life_years", "years", "service life", "an owned system's", "num"),
        "usd_over_horizon": _own(
            "usd_over_horizon",
            "USD",
            f"cost over {display.num(horizon_years)} years" if horizon_years else "cost over the service life",
            "over the horizon",
            "usd",
        ),
        "capex_usd": column("systems", "capex_usd"),
        "racks": column("systems", "racks"),
        **{name: column("systems", name) for name in RACK_POWER},
    }
    if horizon_years is None:
        del shown["service_life_years"], shown["usd_over_horizon"]
    return shown


POINT_COLUMNS = {
    "demand_point": column("points", "demand_point"),
    "cheapest": _own("cheapest", "-", "cheapest", "the cheapest system at the point", "text"),
    "usd_per_accepted_request": _own(
        "usd_per_accepted_request", "USD/request", "its cost", "its cost per accepted request", "usd_per_request"
    ),
    "runner_up": _own("runner_up", "-", "next cheapest", "the next cheapest system", "text"),
    "runner_up_usd_per_accepted_request": _own(
        "runner_up_usd_per_accepted_request",
        "USD/request",
        "next cheapest's cost",
        "its cost per accepted request",
        "usd_per_request",
    ),
    "saving_fraction": _own("saving_fraction", "fraction", "saving", "1 - cheapest / next cheapest", "pct"),
}
"""The Answer page's table of the cheapest at each demand point."""
