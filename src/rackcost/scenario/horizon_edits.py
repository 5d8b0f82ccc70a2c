"""Pure edits of a scenario's inputs over time: its demand profile and its buying plan (plain dict in, plain dict out,
like :mod:`rackcost.scenario.system_edits`); the dashboard's Demand tab and Buying plan page apply them.

A scenario's data holds a profile as the loader dumps it (:mod:`rackcost.scenario.profile_blocks`): ``demand`` the
three named points derived from it, ``demand_profile`` the profile. :func:`points_follow_profile` keeps the two
together after an edit of the profile; :func:`with_flat_week_profile` starts a profile from a day's points, and
:func:`without_profile` goes back to them; :func:`with_starting_plan` starts a ``plan`` from the systems.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import ValidationError

from rackcost.model.workload.profile import HOURS_PER_WEEK
from rackcost.scenario.profile_blocks import DemandProfile
from rackcost.units import HOURS_PER_DAY

__all__ = [
    "FLAT_WEEK_SOURCE",
    "STARTING_PLAN_SOURCE",
    "flat_week_rps",
    "plan_sources_from_systems",
    "points_follow_profile",
    "with_flat_week_profile",
    "with_starting_plan",
    "without_profile",
]

FLAT_WEEK_SOURCE = (
    "the day's demand points laid end to end in rising rate from 00:00, each hour their time-weighted mean, every "
    "day of the week alike (started in the rackcost dashboard)"
)
"""``source`` of a profile started from a day's points."""
STARTING_PLAN_SOURCE = "one source per system as it is paid for (started in the rackcost dashboard)"
"""``source`` of a plan started from the systems."""


def points_follow_profile(data: dict[str, Any]) -> dict[str, Any]:
    """The data with ``demand`` the named points of its ``demand_profile`` (unchanged without a valid profile).

    A profile with problems leaves the points as they were: its problems are the scenario's, at
    ``demand_profile...`` (the points are derived again once it is valid).
    """
    profile = data.get("demand_profile")
    if not isinstance(profile, dict):
        return data
    try:
        points = DemandProfile.model_validate(copy.deepcopy(profile)).named_points()
    except (ValidationError, ValueError, TypeError):
        return data
    if data.get("demand") == points:
        return data
    out = dict(data)
    out["demand"] = points
    return out


def flat_week_rps(points: list[dict[str, Any]]) -> list[float]:
    """A week of hourly rates from a day's demand points: the points laid end to end in rising rate from 00:00 for
    their ``hours_per_day``, each hour the time-weighted mean of the rates it spans (so the day's mean rate is the
    points'), the same every day [requests/s].

    Examples
    --------
    >>> day = flat_week_rps([{"arrival_rps": 10, "hours_per_day": 12.5}, {"arrival_rps": 2, "hours_per_day": 11.5}])
    >>> day[:12] == [2.0] * 11 + [6.0] and day[12:24] == [10.0] * 12 and len(day) == 168
    True
    """
    spans = sorted((float(p["arrival_rps"]), float(p["hours_per_day"])) for p in points)
    total_h = sum(h for _, h in spans)
    if total_h <= 0:
        raise ValueError("the demand points have no hours to lay out")
    scale = HOURS_PER_DAY / total_h  # (hours that do not add up to 24 are stretched: validation says so too)
    day = [0.0] * int(HOURS_PER_DAY)
    start = 0.0
    for rate, hours in spans:
        end = start + hours * scale
        for hour in range(int(start), min(int(HOURS_PER_DAY), int(end) + 1)):
            overlap = min(end, hour + 1.0) - max(start, float(hour))
            if overlap > 0:
                day[hour] += rate * overlap
        start = end
    return day * (HOURS_PER_WEEK // int(HOURS_PER_DAY))


def with_flat_week_profile(data: dict[str, Any]) -> dict[str, Any]:
    """The data with an hourly profile in place of its day's points: a flat week (:func:`flat_week_rps`), one year,
    no growth; the points' one ``arrival_scv`` kept (each point's own, a rate swing or sub-hour windows are not: the
    profile's ``sub_hour`` gives windows). Then ``demand`` is its named points.

    Raises
    ------
    ValueError
        ``demand`` is not a list of points with rates and hours.
    """
    points = data.get("demand")
    if not isinstance(points, list) or not points or not all(isinstance(p, dict) for p in points):
        raise ValueError("demand must be a list of points to start a profile from")
    profile: dict[str, Any] = {
        "profile": {"hourly_arrival_rps": flat_week_rps(points)},
        "horizon_years": 1,
        "source": FLAT_WEEK_SOURCE,
        "provenance": "assumption",
    }
    scvs = {p.get("arrival_scv") for p in points}
    if len(scvs) == 1 and (scv := scvs.pop()) is not None:
        profile["arrival_scv"] = scv
    out = copy.deepcopy(data)
    out["demand_profile"] = profile
    return points_follow_profile(out)


def without_profile(data: dict[str, Any]) -> dict[str, Any]:
    """The data with its day's points alone (the ones its profile made), its profile and the profile's figures
    removed."""
    out = copy.deepcopy(data)
    out.pop("demand_profile", None)
    if isinstance(out.get("figures"), dict):
        out["figures"] = {k: v for k, v in out["figures"].items() if not str(k).startswith("demand_profile")}
    return out


def plan_sources_from_systems(systems: list[Any]) -> list[dict[str, Any]]:
    """One capacity source per system as it is paid for: owned racks of a system with ``costs``, on-demand rent at
    a rented system's price, an API system's API; a disaggregated system is left out (not planned yet)."""
    sources: list[dict[str, Any]] = []
    for system in systems:
        if not isinstance(system, dict) or system.get("pools") is not None:
            continue
        name = str(system.get("name"))
        rent = system.get("rent")
        if system.get("api") is not None:
            sources.append({"name": name, "kind": "api", "system": name})
        elif isinstance(rent, dict) and isinstance(rent.get("usd_per_accelerator_hour"), int | float):
            sources.append(
                {
                    "name": f"{name} on demand",
                    "kind": "on_demand",
                    "system": name,
                    "usd_per_accelerator_hour": rent["usd_per_accelerator_hour"],
                }
            )
        elif system.get("costs") is not None:
            sources.append({"name": f"{name} owned", "kind": "owned", "system": name})
    return sources


def with_starting_plan(data: dict[str, Any]) -> dict[str, Any]:
    """The data with a ``plan`` of :func:`plan_sources_from_systems` (the plan's other fields at their defaults)."""
    out = copy.deepcopy(data)
    out["plan"] = {"sources": plan_sources_from_systems(out.get("systems") or []), "source": STARTING_PLAN_SOURCE}
    return out
