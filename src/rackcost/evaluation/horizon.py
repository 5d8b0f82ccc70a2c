"""Every hour of a horizon, one vectorised pass per system (docs/model.md): :func:`evaluate_hours`.

Each hardware system is planned and sized as :func:`rackcost.evaluate` plans and sizes it, but for the busiest
hour: the scenario's demand is replaced by one point, the sizing point at ``max(hourly_rps)`` (its arrival SCV
kept, its rate swing dropped: an hour of a profile is stationary), and :func:`rackcost.evaluation.chain.choose_points`
chooses the operating point and the replicas for it. The fleet's steps 4 to 8
(:func:`rackcost.model.fleets.fleet.run_fleet`) then run once, the hours on the demand-point axis: every hour is one
demand point, so the Erlang arithmetic, the moving operating point, power and cost are one array operation over
all hours, never a Python loop over them. API systems serve every hour with :func:`rackcost.model.costs.api.serve_api`.
The calendar, the sums and the discounting are :mod:`rackcost.model.workload.horizon`'s.

Disaggregated systems (two pools) are left out with why (``HorizonResult.skipped``), as are systems the scenario
cannot serve (:func:`rackcost.evaluation.servable.servable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from rackcost.errors import Problem, ScenarioError, check_argument
from rackcost.evaluation.scaling import SCALING_COLUMNS, ScaledFleet, apply_scaling, scaled_fleet
from rackcost.evaluation.servable import servable
from rackcost.evaluation.steps import choose_points
from rackcost.model.costs.api import serve_api
from rackcost.model.fleets.fleet import minimum_hours_shortfall, run_fleet
from rackcost.model.inputs import SampledInputs, SystemInputs
from rackcost.model.strategies import IdlePolicy
from rackcost.model.workload import horizon as cal
from rackcost.scenario.fields import MAX_RPS, MIN_RPS
from rackcost.scenario.hardware_blocks import finance_term
from rackcost.scenario.schema import Scenario
from rackcost.scenario.sub_hour_blocks import SubHour
from rackcost.scenario.unpack import api_inputs, one_evaluation, sampled_inputs
from rackcost.scenario.unpack_grid import GridFigure, hourly_grid_values
from rackcost.units import GRAMS_PER_KG, HOURS_PER_DAY, SECONDS_PER_HOUR

__all__ = ["HOUR_COLUMNS", "HorizonResult", "evaluate_hours", "horizon_records", "hourly_figures", "sizing_scenario"]

Array = NDArray[np.float64]

SERVED_COLUMNS = (
    "offered_rps",
    "accepted_rps",
    "rejected_rps",
    "utilization_fraction",
    "active_replicas",
    "facility_power_kw",
)
"""Figures per hour of every served system [requests/s, -, -, kW]."""
RATE_COLUMNS = (*SERVED_COLUMNS, *SCALING_COLUMNS)
"""Figures per hour that the periods average: the served ones and a scaling fleet's
(:data:`rackcost.evaluation.scaling.SCALING_COLUMNS`)."""
SUM_COLUMNS = ("cost_usd", "accepted_requests", "carbon_kg")
"""Figures per hour that the periods add up [USD, requests, kg CO2e]."""
HOUR_COLUMNS = ("system", "hour", "year", "quarter", "month", "day", *RATE_COLUMNS, *SUM_COLUMNS)
"""Columns of ``HorizonResult.hours``, in order."""
MIN_HOURLY_RPS = MIN_RPS
"""The lowest arrival rate of an hour, a demand point's (one request every 11.6 days) [requests/s]."""
MAX_HOURLY_RPS = MAX_RPS
"""The highest arrival rate of an hour, a demand point's (ten million a second) [requests/s]."""


@dataclass(frozen=True)
class HorizonResult:
    """Every hour of a horizon for each system, its sums over periods, and the horizon's totals.

    Attributes
    ----------
    hours
        One row per system and hour (:data:`HOUR_COLUMNS`): ``system`` (categorical), ``hour``, ``year``,
        ``quarter``, ``month``, ``day`` (int32, from 0: :mod:`rackcost.model.workload.horizon`), ``offered_rps``,
        ``accepted_rps``, ``rejected_rps`` [requests/s], ``utilization_fraction`` [-], ``active_replicas`` [-],
        ``facility_power_kw`` [kW], ``ramp_lost_rps`` [requests/s], ``warm_headroom_replicas`` and
        ``warming_replicas`` [-] (a fleet under ``fleet.scaling``, else 0:
        :mod:`rackcost.evaluation.scaling`), ``cost_usd`` (capital + fixed opex + energy, or rent, or the API's, for the
        hour) [USD], ``accepted_requests`` [requests], ``carbon_kg`` (facility energy x the hour's carbon intensity;
        0 for an API) [kg CO2e].
    days, months, years
        One row per system and period (``day``, ``month`` or ``year``): ``hours`` in it, the sums of ``cost_usd``,
        ``accepted_requests`` and ``carbon_kg``, the means of the rates, ``usd_per_accepted_request`` (cost /
        accepted) and ``carbon_g_per_accepted_request``.
    horizon
        One row per system: ``hours``, ``cost_usd``, ``accepted_requests``, ``carbon_kg``,
        ``usd_per_accepted_request``, ``carbon_g_per_accepted_request``,
        ``discount_rate_fraction``, ``npv_cost_usd`` (each hour's cost discounted by ``(1 + r) ** (-h / 8760)``),
        ``discounted_accepted_requests`` and ``levelised_usd_per_accepted_request`` (the one over the other).
    discount_rate_fraction
        The rate every system is discounted at: the argument, else the first owned system's cost of capital,
        else 0 (:attr:`discount_rate_source` says which) [-/year].
    discount_rate_source
        Where the rate comes from (a YAML path, ``argument`` or ``none``).
    skipped
        Systems left out, name -> why (disaggregated, or not servable).
    """

    hours: pd.DataFrame
    days: pd.DataFrame
    months: pd.DataFrame
    years: pd.DataFrame
    horizon: pd.DataFrame
    discount_rate_fraction: float
    discount_rate_source: str
    skipped: dict[str, str] = field(default_factory=dict)


def evaluate_hours(
    scenario: Scenario,
    hourly_rps: ArrayLike,
    *,
    cost_of_capital_fraction: float | None = None,
    window_ratios: ArrayLike | None = None,
) -> HorizonResult:
    """Evaluate every hour of a horizon for each system of a scenario, sized for the busiest hour.

    Parameters
    ----------
    scenario
        A validated scenario (:func:`rackcost.load_scenario`); its demand points are not used, but for the sizing
        point's arrival SCV (every hour's).
    hourly_rps
        Arrival rate of each hour of the horizon, 1-D, hour 0 the first hour of year 1 [requests/s]; each at least
        1e-6, at most 1e7 (a demand point's bounds) and finite.
    cost_of_capital_fraction
        Discount rate per year for the net present values [-]; default the first owned system's cost of capital
        (its ``costs.cost_of_capital_fraction``, else the scenario's ``finance.cost_of_capital_fraction``: one
        rate for every system, so that they compare), else 0.
    window_ratios
        The rates of the equal windows inside each hour over the hour's mean, ``(hours, windows)`` (2 to 60
        windows; a demand profile's ``hourly_window_ratios()``): each hour is served as its windows' pointwise
        stationary average and the fleets are sized for the busiest hour's windows (docs/model.md, "Sub-hour peaks
        in a profile"); None: every hour at a constant rate.

    Returns
    -------
    HorizonResult

    Raises
    ------
    ScenarioError
        If no system can be evaluated, or if ``hourly_rps`` is not a 1-D array of finite rates of 1e-6 to 1e7.
    """
    check_argument("rackcost.evaluate_hours", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario)")
    rates = _checked_rates(hourly_rps)
    windows = None if window_ratios is None else _checked_windows(window_ratios, rates.size)
    rate, source = _discount_rate(scenario, cost_of_capital_fraction)
    with one_evaluation():
        names, figures, skipped = hourly_figures(scenario, rates, windows)
    return _tables(names, figures, rate, source, skipped)


def _checked_windows(window_ratios: ArrayLike, hours: int) -> Array:
    """``window_ratios`` as a ``(hours, windows)`` float array of finite ratios >= 0, or a clear error."""
    try:
        ratios = np.asarray(window_ratios, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ScenarioError([Problem("window_ratios", f"expected an array of ratios: {exc}")]) from None
    if ratios.ndim != 2 or ratios.shape[0] != hours or not 2 <= ratios.shape[1] <= 60:
        raise ScenarioError(
            [Problem("window_ratios", f"expected {hours:,} hours of 2 to 60 windows each, got shape {ratios.shape}")]
        )
    bad = np.flatnonzero(~np.all(np.isfinite(ratios) & (ratios >= 0), axis=1) | ~(ratios.sum(axis=1) > 0))
    if bad.size:
        h = int(bad[0])
        raise ScenarioError(
            [Problem(f"window_ratios[{h}]", "each window must be a finite ratio >= 0, and some window above 0")]
        )
    return ratios


def _checked_rates(hourly_rps: ArrayLike) -> Array:
    """``hourly_rps`` as a float array, or a clear error naming what is wrong and where."""
    try:
        rates = np.asarray(hourly_rps, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ScenarioError([Problem("hourly_rps", f"expected an array of rates [requests/s]: {exc}")]) from None
    if rates.ndim != 1 or rates.size == 0:
        raise ScenarioError([Problem("hourly_rps", f"expected a 1-D array of hours, got shape {rates.shape}")])
    # a demand point's bounds (scenario.fields.Rps): beyond them the fleet's counts overflow int64 (an invalid cast)
    bad = np.flatnonzero(~(np.isfinite(rates) & (rates >= MIN_HOURLY_RPS) & (rates <= MAX_HOURLY_RPS)))
    if bad.size:
        h = int(bad[0])
        raise ScenarioError(
            [
                Problem(
                    f"hourly_rps[{h}]",
                    f"expected a finite rate of {MIN_HOURLY_RPS:g} to {MAX_HOURLY_RPS:g} requests/s (a demand "
                    f"point's), got {float(rates[h])!r} ({bad.size} such hour(s))",
                )
            ]
        )
    return rates


def _discount_rate(scenario: Scenario, given: float | None) -> tuple[float, str]:
    """The discount rate and where it comes from: the argument, the first owned system's cost of capital, or 0."""
    if given is not None:
        check_argument("rackcost.evaluate_hours", "cost_of_capital_fraction", given, (int, float), "a number")
        if not np.isfinite(given) or given <= -1.0:
            raise ScenarioError([Problem("cost_of_capital_fraction", f"expected a rate above -1, got {given!r}")])
        return float(given), "argument"
    for i, system in enumerate(scenario.systems):
        if system.costs is not None:
            rate, block = finance_term(system.costs, scenario.finance, "cost_of_capital_fraction")
            if block == "costs":
                return float(rate or 0.0), f"systems[{i}].costs.cost_of_capital_fraction"
            return float(rate or 0.0), "finance.cost_of_capital_fraction" if block == "finance" else "none"
    return 0.0, "none"


def sizing_scenario(scenario: Scenario, peak_rps: float, peak_windows: Array | None = None) -> Scenario:
    """The scenario with one demand point: its sizing point at ``peak_rps`` for 24 h, with no rate swing and the
    busiest hour's sub-hour windows ``peak_windows`` (over its mean) if given, else none (what :func:`hourly_figures`
    plans each fleet for; a copy, not validated again: only the rate and the windows change)."""
    sub_hour = None
    if peak_windows is not None and np.any(peak_windows != peak_windows[0]):
        sub_hour = SubHour.model_construct(
            window_s=SECONDS_PER_HOUR / peak_windows.size, rate_ratios=[float(x) for x in peak_windows], source=None
        )
    point = scenario.sizing_point.model_copy(
        update={"arrival_rps": peak_rps, "hours_per_day": HOURS_PER_DAY, "rate_swing": None, "sub_hour": sub_hour}
    )
    fleet = scenario.fleet.model_copy(update={"sizing_demand_point": point.name})
    return scenario.model_copy(update={"demand": [point], "fleet": fleet})


def hourly_figures(
    scenario: Scenario,
    rates: Array,
    window_ratios: Array | None = None,
    hour_index: ArrayLike | None = None,
    scaled_out: dict[str, ScaledFleet] | None = None,
) -> tuple[list[str], dict[str, Array], dict[str, str]]:
    """Each evaluated system's figures per hour, ``(systems, hours)`` by :data:`RATE_COLUMNS` and
    :data:`SUM_COLUMNS` name (views of one float64 block, written once), the systems' names in that order, and the
    systems left out with why. ``window_ratios`` (``(hours, windows)``, each hour's windows over its mean): every
    hour is served as its windows' pointwise stationary average, and the fleet sized for the busiest hour's.
    ``hour_index``: the hour of the horizon each rate is (default 0, 1, ...), where ``facility.hourly`` gives its
    price and carbon intensity. ``scaled_out``: filled with each scaling fleet's steps by system name
    (``fleet.scaling``: :func:`rackcost.evaluation.scaling.scaled_fleet`)."""
    busiest = int(np.argmax(rates))
    peak_windows = None if window_ratios is None else window_ratios[busiest]
    sized, unserved, inputs = servable(sizing_scenario(scenario, float(rates[busiest]), peak_windows))
    skipped = {u.system: u.reason for u in unserved}
    planned = choose_points(sized, inputs)
    hardware = dict(zip(planned.indices, zip(planned.systems, planned.chosen, strict=True), strict=True))
    for index, (inp, _) in hardware.items():
        if inp.pools is not None:
            skipped[sized.systems[index].name] = "a disaggregated system (two pools): not evaluated per hour yet"
    order = [i for i, s in enumerate(sized.systems) if s.api is not None or hardware[i][0].pools is None]
    if not order:
        raise ScenarioError([Problem("systems", "no system can be evaluated per hour: " + "; ".join(skipped.values()))])
    names = (*RATE_COLUMNS, *SUM_COLUMNS)
    scaling = scenario.fleet.scaling
    block = np.empty((len(names), len(order), rates.size))
    figures = {name: block[j] for j, name in enumerate(names)}
    lam = rates[None, :]
    # every hour is a demand point of the one sizing point's SCV, with no swing and one hour of the day (the
    # on-demand minimum is charged per calendar day below)
    hourly = replace(
        planned.policy,
        hours_per_day=(1.0,),
        rate_swing_amplitude_fraction=(0.0,),
        rate_swing_period_s=(0.0,),
        sub_hour_rate_ratios=() if window_ratios is None else tuple(map(tuple, window_ratios.tolist())),
    )
    if window_ratios is not None:  # the windows' count is checked again at the busiest hour, the planned one's
        scv = planned.policy.arrival_scv or (1.0,)
        hourly = replace(hourly, sizing_index=busiest, arrival_scv=scv * rates.size)
    for row, index in enumerate(order):
        out = {name: figures[name][row] for name in names}
        if sized.systems[index].api is not None:
            _, price, limit, _ = api_inputs(sized, index, {}, 1)
            api = serve_api(lam, price, limit)
            _write(out, api.offered_rps, api.accepted_rps, api.rejected_rps, 0.0, 0.0, 0.0, api.api_usd_per_hour)
            out["carbon_kg"][...] = 0.0  # an API publishes none of its power
            for name in SCALING_COLUMNS:
                out[name][...] = 0.0
            continue
        inp, chosen = hardware[index]
        sampled = replace(sampled_inputs(sized, index, inp, {}, 1), arrival_rps=lam)
        sampled = _hourly_grid(sized, index, sampled, np.arange(rates.size) if hour_index is None else hour_index)
        policy = hourly
        if inp.payment.active_only:  # rented on demand: only the replicas an hour needs run (chain.run_samples)
            policy = replace(policy, idle_policy=IdlePolicy.park)
        if chosen.service_scv is not None:
            policy = replace(policy, service_scv=chosen.service_scv)
        fleet = run_fleet(inp, chosen, sampled, policy, planned.slo, resize=False, percentiles=False)
        d = fleet.demand
        cost = fleet.capital_usd_per_hour + fleet.fixed_opex_usd_per_hour + fleet.energy_usd_per_hour
        rent = fleet.rent_usd_per_hour
        if inp.payment.active_only and inp.rent_minimum_hours_per_day > 0:
            rent = _rent_with_daily_minimum(
                d.active_replicas, sampled.rent_usd_per_accelerator_hour, inp, inp.rent_minimum_hours_per_day
            )
        utilization, active, power_kw = d.utilization_fraction, d.active_replicas, fleet.facility_power_kw
        _write(out, d.offered_rps, d.accepted_rps, d.rejected_rps, utilization, active, power_kw, cost + rent)
        out["carbon_kg"][...] = np.reshape(fleet.carbon_g_per_hour, -1) / GRAMS_PER_KG
        for name in SCALING_COLUMNS:
            out[name][...] = 0.0
        if scaling is not None and policy.idle_policy.parks:  # replicas that park scale with a delay
            scaled = scaled_fleet(scaling, chosen, fleet, policy, planned.slo, sampled, rates, window_ratios)
            apply_scaling(out, scaled, scaling, inp, sampled)
            if scaled_out is not None:
                scaled_out[sized.systems[index].name] = scaled
    return [sized.systems[i].name for i in order], figures, skipped


def _hourly_grid(scenario: Scenario, index: int, sampled: SampledInputs, hours: ArrayLike) -> SampledInputs:
    """The system's inputs with the hourly grid's price and carbon intensity at each of ``hours`` (of the horizon),
    where the grid is its (:func:`rackcost.scenario.unpack_grid.system_grid`: as the named points average it)."""
    system = scenario.systems[index]
    covered = system.rent is not None and system.rent.includes_power_and_facility
    update: dict[str, Any] = {}
    names: tuple[GridFigure, ...] = ("electricity_usd_per_kwh", "carbon_g_per_kwh")
    for name in names:
        values = hourly_grid_values(scenario, name, hours)
        if values is None or (covered and name == "electricity_usd_per_kwh"):
            continue  # no hourly figure, or a rental whose price covers power: no bill to spread over the hours
        if system.facility is not None and getattr(system.facility, name) is not None:
            continue  # the system's own tariff or grid
        update[name] = values.reshape(1, -1)
    return replace(sampled, **update) if update else sampled


def _write(out: dict[str, Array], *values: ArrayLike) -> None:
    """One system's figures per hour into its rows of the block (a 1 h hour: the cost per hour is the hour's cost
    in USD; accepted requests from the accepted rate): :data:`SERVED_COLUMNS` and the cost, in order."""
    for name, value in zip((*SERVED_COLUMNS, "cost_usd"), values, strict=True):
        out[name][...] = np.reshape(value, -1) if np.ndim(value) else value
    np.multiply(out["accepted_rps"], SECONDS_PER_HOUR, out=out["accepted_requests"])


def _rent_with_daily_minimum(active: ArrayLike, price: Array | None, inp: SystemInputs, minimum_h: float) -> Array:
    """On-demand rent per hour with a minimum of hours a day per started replica, each calendar day of 24 h on
    its own (:func:`rackcost.model.fleets.fleet.minimum_hours_shortfall` over the day's hours, spread over its 24 h)."""
    assert price is not None  # an on-demand system has a rental price
    apr = float(inp.accelerators_per_replica)
    a = np.asarray(active, dtype=float).reshape(-1)
    hours = a.size
    per_day = int(HOURS_PER_DAY)
    days = -(-hours // per_day)
    padded = np.zeros(days * per_day)
    padded[:hours] = a
    shortfall_h = minimum_hours_shortfall(padded.reshape(days, per_day), np.ones(per_day), minimum_h)
    spread = np.repeat(shortfall_h[:, 0] / HOURS_PER_DAY, per_day)[:hours]
    usd = float(np.asarray(price).reshape(-1)[0]) * apr
    return (usd * (a + spread)).reshape(1, -1)


def _tables(
    names: list[str], figures: dict[str, Array], rate: float, source: str, skipped: dict[str, str]
) -> HorizonResult:
    """The hours, the period sums and the horizon's totals as tables."""
    systems, hours = figures["cost_usd"].shape
    c = cal.calendar(hours)
    system = pd.Categorical.from_codes(np.repeat(np.arange(systems), hours), categories=pd.Index(names))
    hour_table = pd.DataFrame(
        {
            "system": system,
            **{p: np.tile(getattr(c, p), systems) for p in ("hour", "year", "quarter", "month", "day")},
            **{k: figures[k].reshape(-1) for k in (*RATE_COLUMNS, *SUM_COLUMNS)},
        },
        copy=False,
    )
    periods = {p: _period_table(names, figures, p, hours) for p in ("day", "month", "year")}
    factors = cal.discount_factors(hours, rate)
    cost = figures["cost_usd"].sum(axis=1)
    accepted = figures["accepted_requests"].sum(axis=1)
    npv = figures["cost_usd"] @ factors
    discounted = figures["accepted_requests"] @ factors
    horizon = pd.DataFrame(
        {
            "system": names,
            "hours": np.full(systems, hours),
            "cost_usd": cost,
            "accepted_requests": accepted,
            "carbon_kg": figures["carbon_kg"].sum(axis=1),
            "usd_per_accepted_request": cost / accepted,
            "carbon_g_per_accepted_request": figures["carbon_kg"].sum(axis=1) * GRAMS_PER_KG / accepted,
            "discount_rate_fraction": np.full(systems, rate),
            "npv_cost_usd": npv,
            "discounted_accepted_requests": discounted,
            "levelised_usd_per_accepted_request": npv / discounted,
        }
    )
    return HorizonResult(hour_table, periods["day"], periods["month"], periods["year"], horizon, rate, source, skipped)


def _period_table(names: list[str], figures: dict[str, Array], period: str, hours: int) -> pd.DataFrame:
    """One row per system and ``period``: its hours, sums and means (:mod:`rackcost.model.workload.horizon`)."""
    length = cal.PERIOD_HOURS[period]
    sums = {k: cal.period_sums(figures[k], length) for k in SUM_COLUMNS}
    means = {k: cal.period_means(figures[k], length) for k in RATE_COLUMNS}
    systems, count = sums["cost_usd"].shape
    in_period = np.minimum(length, hours - np.arange(count) * length)
    return pd.DataFrame(
        {
            "system": pd.Categorical.from_codes(np.repeat(np.arange(systems), count), categories=pd.Index(names)),
            period: np.tile(np.arange(count, dtype=np.int32), systems),
            "hours": np.tile(in_period, systems),
            **{k: v.reshape(-1) for k, v in sums.items()},
            **{k: v.reshape(-1) for k, v in means.items()},
            "usd_per_accepted_request": (sums["cost_usd"] / sums["accepted_requests"]).reshape(-1),
            "carbon_g_per_accepted_request": (sums["carbon_kg"] * GRAMS_PER_KG / sums["accepted_requests"]).reshape(-1),
        }
    )


def horizon_records(scenario: Scenario) -> dict[str, list[dict[str, Any]]]:
    """The ``years`` and ``horizon`` tables of a scenario whose ``demand`` is a profile (empty otherwise): every hour
    of its horizon (:func:`evaluate_hours`), per system and year (years from 1) and over the whole horizon, in the
    columns of :mod:`rackcost.evaluation.columns`."""
    if scenario.demand_profile is None:
        return {}
    from rackcost.evaluation.columns import column_names

    # an hour of no demand is evaluated at the floor a demand point has (one request every 11.6 days), as its points are
    rates = np.maximum(scenario.demand_profile.hourly_rates_rps(), MIN_HOURLY_RPS)
    result = evaluate_hours(scenario, rates, window_ratios=scenario.demand_profile.hourly_window_ratios())
    years = result.years.assign(year=result.years["year"] + 1, system=result.years["system"].astype(str))
    out = {}
    for table, frame in (("years", years), ("horizon", result.horizon)):
        names = column_names(table)
        out[table] = [
            {str(k): (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in frame[list(names)].to_dict(orient="records")
        ]
    return out
