"""The Sweep page's data and charts: pure functions (plain data in, a DataFrame or an Altair chart out).

The page (``app_pages/sweep.py``) only draws what these return, so everything here is testable without Streamlit.
Every number comes from the library: :func:`rackcost.analysis.sweep.run.resolve` and
:func:`rackcost.analysis.sweep.run.run_sweep`
evaluate the configurations, :func:`rackcost.analysis.sweep.summary.winners` and
:func:`rackcost.analysis.sweep.summary.pareto_front`
say what the table means; this module picks the axes a user may sweep, bounds the work, and shapes the results for
Altair (costs per request shown per 1,000 requests, labels formatted by :mod:`rackcost.display`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rackcost import display, files
from rackcost.analysis.sweep.spec import DEMAND_SCALE
from rackcost.scenario.yaml_paths import MISSING, lookup
from rackcost_app.fields import label

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    import rackcost
    from rackcost.analysis.sweep.design import Design
    from rackcost.analysis.sweep.run import SweepResult

MAX_CONFIGURATIONS = 2_000
"""Most configurations the page runs in the dashboard's process [-]: a run of 2,000 configurations of the default
scenario over demand scale x electricity price takes about 0.2 s of library time and its winner table 0.3 s on
2 cores (see docs/dashboard.md); larger sweeps run with ``rackcost sweep FILE``."""
MAX_SIZINGS = 400
"""Most fleet sizings per run [-]: systems x combinations of the structural axes' values (demand scale, SLO). Each
combination validates, plans and sizes every system anew (about 3.5 ms per system measured, 2 cores), so 400 take
about 1.5 s, while prices, evaluated as one vectorised call, are nearly free."""
DEFAULT_STEPS = 9
"""Values per axis by default [-]."""
NO_AXIS = ""
"""The third axis's choice that means none."""
SCENARIO_NAME = "(edited scenario)"
"""The sweep's ``scenario`` field: the page sweeps the edited scenario, passed as ``base``."""
PER_1K = display.REQUESTS_PER_1K
COST_TITLE = "cost per 1,000 accepted requests [USD]"


@dataclass(frozen=True)
class AxisOption:
    """An input the page offers to sweep.

    Attributes
    ----------
    path
        Its YAML path (``facility.pue``), or ``demand.scale``.
    title
        Readable name with its unit, for labels and axis titles.
    central
        Its value in the scenario (the central value of a distribution) [the input's unit].
    minimum
        Smallest value the scenario accepts, when the default range must not go below it (PUE >= 1).
    """

    path: str
    title: str
    central: float
    minimum: float | None = None


def _title(path: str, names: list[str]) -> str:
    field = path.rsplit(".", 1)[-1]
    text = "PUE [-]" if field == "pue" else label(field)
    if path.startswith("systems["):
        index = int(path[len("systems[") : path.index("]")])
        return f"{names[index]}: {text}"
    if path.startswith("slo."):
        return f"SLO {text}"
    return text


def axis_options(scenario: rackcost.Scenario, data: dict[str, Any]) -> list[AxisOption]:
    """The inputs that make sense to sweep in this scenario, with their values.

    Demand scale; the facility's electricity price, PUE, colocation or build cost; the SLO's TTFT limit; and each
    system's own price: capex per accelerator and per rack when owned, the rental price when rented, the output
    token price of an API. Inputs the scenario does not give, or gives as 0 (a range around 0 has no default),
    are left out.

    Parameters
    ----------
    scenario
        The validated scenario (its distributions give the central value of an uncertain input).
    data
        Its plain data (:func:`rackcost.scenario.loading.scenario_to_data`).
    """
    names = [s.name for s in scenario.systems]
    paths = [
        "facility.electricity_usd_per_kwh",
        "facility.pue",
        "facility.colocation_usd_per_kw_month",
        "facility.build_usd_per_kw",
        "slo.ttft_limit_ms",
    ]
    for i, system in enumerate(scenario.systems):
        if system.api is not None:
            paths.append(f"systems[{i}].api.usd_per_million_output_tokens")
        elif system.rent is not None:
            paths.append(f"systems[{i}].rent.usd_per_accelerator_hour")
        else:
            paths += [f"systems[{i}].costs.capex_usd_per_accelerator", f"systems[{i}].costs.capex_usd_per_rack"]
    options = [AxisOption(DEMAND_SCALE, "demand scale [x scenario demand]", 1.0)]
    for path in paths:
        value = lookup(data, path)
        if isinstance(value, dict) and path in scenario.distributions:
            value = float(scenario.distributions[path].central)
        if value is MISSING or isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            continue
        options.append(AxisOption(path, _title(path, names), float(value), 1.0 if path.endswith(".pue") else None))
    return options


def default_axis(option: AxisOption) -> dict[str, Any]:
    """The default range of an input: 0.5x to 2x its value (demand scale: 0.25x to 4x, log), 9 values.

    PUE starts at 1 at least (a PUE below 1 is not allowed). Returns ``{path, from, to, steps, scale}``.
    """
    if option.path == DEMAND_SCALE:
        return {"path": option.path, "from": 0.25, "to": 4.0, "steps": DEFAULT_STEPS, "scale": "log"}
    low = option.central * 0.5
    if option.minimum is not None:
        low = max(low, option.minimum)
    return {"path": option.path, "from": low, "to": option.central * 2.0, "steps": DEFAULT_STEPS, "scale": "linear"}


def spec(axes: list[dict[str, Any]]) -> dict[str, Any]:
    """The sweep's plain data for :func:`rackcost.analysis.sweep.run.resolve` (the base scenario is passed
    separately)."""
    return {
        "name": "dashboard",
        "scenario": SCENARIO_NAME,
        "axes": [
            {
                "axis": a["path"],
                "range": {
                    "from": float(a["from"]),
                    "to": float(a["to"]),
                    "steps": int(a["steps"]),
                    "scale": a["scale"],
                },
            }
            for a in axes
        ],
    }


def configurations(axes: list[dict[str, Any]]) -> int:
    """Configurations of a grid over the axes [-]: the product of their steps (before anything is resolved)."""
    return math.prod(max(0, int(a["steps"])) for a in axes)


def sizings(d: Design) -> int:
    """Fleet sizings of a resolved sweep [-]: its systems x the product of its structural axes' value counts."""
    return len(d.system_names) * math.prod(len(d.axes[a].labels) for a in d.structural_axes)


def over_bound(d: Design) -> str | None:
    """Why a resolved sweep is too large to run in the dashboard, or None when it is within the bounds."""
    if d.configurations > MAX_CONFIGURATIONS:
        return (
            f"{d.configurations:,} configurations is more than the {MAX_CONFIGURATIONS:,} the dashboard runs in "
            "its own process"
        )
    if sizings(d) > MAX_SIZINGS:
        return (
            f"{sizings(d):,} fleet sizings ({len(d.system_names)} systems x each combination of demand scale and SLO "
            f"values, each sized anew) is more than the {MAX_SIZINGS:,} the dashboard runs in its own process"
        )
    return None


def resolve(scenario: rackcost.Scenario, axes: list[dict[str, Any]]) -> Design:
    """The sweep of the edited scenario over ``axes``; raises :class:`rackcost.ScenarioError` for a bad axis."""
    from rackcost.analysis.sweep.run import resolve as resolve_sweep

    return resolve_sweep(spec(axes), base=scenario)


def run(d: Design) -> SweepResult:
    """Run a resolved sweep in this process (Dask's synchronous scheduler: no threads left behind)."""
    from rackcost.analysis.sweep.run import run_sweep

    return run_sweep(d, scheduler="synchronous")


def table_csv(frame: pd.DataFrame) -> str:
    """The sweep's table as CSV text that a spreadsheet cannot execute, written by the project's one CSV writer,
    :func:`rackcost.files.csv_text` (headers and text cells that begin like a formula, ``=``, ``+``, ``-``, ``@``,
    tab or CR, get a ``'`` in front; numbers are written as Python writes them), a missing figure (an API system's
    power) as an empty cell.

    Examples
    --------
    >>> import pandas as pd
    >>> print(table_csv(pd.DataFrame({"system": ["=1+1", "b"], "kw": [1.5, float("nan")]})), end="")
    system,kw
    '=1+1,1.5
    b,
    """
    plain = frame.astype(object).where(frame.notna(), None)  # NaN -> None: an empty cell
    return files.csv_text(plain.to_dict("records"), [str(c) for c in frame.columns])


def sweep_yaml(scenario_file: str, axes: list[dict[str, Any]]) -> str:
    """A sweep file of the same axes, to run with ``rackcost sweep`` (its ``scenario`` is ``scenario_file``)."""
    import yaml

    data = spec(axes)
    data["scenario"] = scenario_file
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


# ---- tables and charts ------------------------------------------------------------------------------------------


def axis_text(value: float, path: str) -> str:
    """An axis value as shown, with its unit: ``$0.081 per kWh``, ``2x`` for a demand scale."""
    if path == DEMAND_SCALE:
        return f"{display.num(value)}x"
    return display.input_value(value, path)


def winner_table(frame: pd.DataFrame, axes: list[str], demand_point: str) -> pd.DataFrame:
    """:func:`rackcost.analysis.sweep.summary.winners` over the axes, with columns for the winner map.

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``x``, ``y`` (and ``z`` with a third axis) the axis values, ``x_text`` ... their labels,
        ``cheapest``, ``usd_per_accepted_request`` [USD/request], ``usd_per_1k`` [USD per 1,000 requests],
        ``runner_up``, ``runner_up_usd_per_1k``, ``margin_fraction`` (runner-up / cheapest - 1), and the formatted
        ``cost_text``, ``runner_up_text``, ``margin_text`` for tooltips.
    """
    import pandas as pd

    from rackcost.analysis.sweep.summary import winners

    table = winners(frame, by=list(axes), demand_point=demand_point)
    out = pd.DataFrame()
    for name, path in zip("xyz", axes, strict=False):
        out[name] = table[path].to_numpy(float)
        out[f"{name}_text"] = [axis_text(v, path) for v in out[name]]
    out["cheapest"] = table["cheapest"].astype(str)
    out["usd_per_accepted_request"] = table["usd_per_accepted_request"].to_numpy(float)
    out["usd_per_1k"] = out["usd_per_accepted_request"] * PER_1K
    runner = table["runner_up_usd_per_accepted_request"].to_numpy(float, na_value=math.nan)
    margin = table["margin_fraction"].to_numpy(float, na_value=math.nan)
    out["runner_up"] = ["-" if r is None else str(r) for r in table["runner_up"]]
    out["runner_up_usd_per_1k"] = runner * PER_1K
    out["margin_fraction"] = margin
    out["cost_text"] = [display.usd_per_1k_requests(c) for c in out["usd_per_accepted_request"]]
    out["runner_up_text"] = ["-" if math.isnan(r) else display.usd_per_1k_requests(r) for r in runner]
    out["margin_text"] = ["-" if math.isnan(m) else display.pct(m) for m in margin]
    return out


def winner_map(table: pd.DataFrame, titles: list[str], systems: list[str], point_text: str) -> alt.Chart:
    """Heatmap of the cheapest system over the first two axes (one panel per value of a third), with the cost,
    the runner-up and the margin in the tooltip."""
    import altair as alt

    x_order = list(dict.fromkeys(table.sort_values("x")["x_text"]))
    y_order = list(dict.fromkeys(table.sort_values("y", ascending=False)["y_text"]))
    tooltip = [
        alt.Tooltip("x_text:N", title=titles[0]),
        alt.Tooltip("y_text:N", title=titles[1]),
    ]
    if "z" in table:
        tooltip.append(alt.Tooltip("z_text:N", title=titles[2]))
    tooltip += [
        alt.Tooltip("cheapest:N", title="cheapest system"),
        alt.Tooltip("cost_text:N", title=f"its cost [{display.PER_1K_ACCEPTED}]"),
        alt.Tooltip("runner_up:N", title="runner-up"),
        alt.Tooltip("runner_up_text:N", title=f"runner-up's cost [{display.PER_1K_ACCEPTED}]"),
        alt.Tooltip("margin_text:N", title="margin [% of the cheapest's cost]"),
    ]
    chart = (
        alt.Chart(table)
        .mark_rect(stroke="white", strokeWidth=0.5)
        .encode(
            x=alt.X("x_text:O", title=titles[0], sort=x_order, axis=alt.Axis(labelAngle=-45)),
            y=alt.Y("y_text:O", title=titles[1], sort=y_order),
            color=alt.Color(
                "cheapest:N",
                title=f"cheapest per accepted request ({point_text})",
                scale=alt.Scale(domain=systems, scheme="tableau10"),
                legend=alt.Legend(orient="bottom", labelLimit=320, titleLimit=480),
            ),
            tooltip=tooltip,
        )
    )
    if "z" in table:
        z_order = list(dict.fromkeys(table.sort_values("z")["z_text"]))
        return chart.properties(width=alt.Step(26), height=alt.Step(22)).facet(
            facet=alt.Facet("z_text:O", title=titles[2], sort=z_order), columns=3
        )
    return chart.properties(height=alt.Step(26))


def pareto_rows(
    frame: pd.DataFrame, against: str, demand_point: str, higher_is_better: bool, axes: list[str]
) -> pd.DataFrame:
    """Every row at a demand point with a value of ``against`` and whether it is on the Pareto front
    (:func:`rackcost.analysis.sweep.summary.pareto_front`), ready for :func:`pareto_chart`.

    Returns
    -------
    pandas.DataFrame
        ``system``, ``configuration``, ``usd_per_1k`` [USD per 1,000 accepted requests], ``against`` (the other
        objective, as a float), ``front`` (bool), ``cost_text``, ``against_text`` and ``where`` (the axis values
        as text).
    """
    import pandas as pd

    from rackcost.analysis.sweep.summary import pareto_front

    rows = frame[frame["demand_point"] == demand_point].dropna(subset=[against])
    front = pareto_front(frame, against, demand_point, higher_is_better)
    out = pd.DataFrame(
        {
            "system": rows["system"].astype(str).to_numpy(),
            "configuration": rows["configuration"].to_numpy(),
            "usd_per_1k": rows["usd_per_accepted_request"].to_numpy(float) * PER_1K,
            "against": rows[against].to_numpy(float),
        },
        index=rows.index,
    )
    out["front"] = out.index.isin(front.index)
    out["cost_text"] = [display.usd_per_1k_requests(v / PER_1K) for v in out["usd_per_1k"]]
    out["against_text"] = [display.num(v) for v in out["against"]]
    out["where"] = ""
    for k, axis in enumerate(axes):  # each distinct value formatted once (a sweep repeats few values many times)
        values = rows[axis].to_numpy(float).tolist()
        text = {v: axis_text(v, axis) for v in set(values)}
        out["where"] += ("" if k == 0 else ", ") + pd.Series([text[v] for v in values], index=rows.index, dtype=str)
    return out.reset_index(drop=True)


def pareto_chart(rows: pd.DataFrame, against_title: str, systems: list[str], higher_is_better: bool) -> alt.Chart:
    """Cost per 1,000 accepted requests against another objective: every row faded, the Pareto front as a line
    with its points coloured by system."""
    import altair as alt

    x = alt.X("against:Q", title=against_title, scale=alt.Scale(zero=False))
    y = alt.Y("usd_per_1k:Q", title=COST_TITLE, scale=alt.Scale(zero=False), axis=alt.Axis(format="$.3~g"))
    color = alt.Color("system:N", title="system", scale=alt.Scale(domain=systems, scheme="tableau10"))
    tooltip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("where:N", title="configuration"),
        alt.Tooltip("cost_text:N", title=f"cost [{display.PER_1K_ACCEPTED}]"),
        alt.Tooltip("against_text:N", title=against_title),
    ]
    base = alt.Chart(rows)
    every = base.mark_circle(size=14, opacity=0.25).encode(x=x, y=y, color=color, tooltip=tooltip)
    front = base.transform_filter(alt.datum.front)
    line = front.mark_line(color="black", strokeWidth=1.5).encode(
        x=x, y=y, order=alt.Order("against:Q", sort="ascending" if higher_is_better else "descending")
    )
    points = front.mark_point(size=70, filled=True, stroke="black", strokeWidth=1).encode(
        x=x, y=y, color=color, tooltip=tooltip
    )
    return (every + line + points).properties(height=340)
