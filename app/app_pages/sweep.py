"""Sweep page: a small sweep of the edited scenario, run here, shown as a winner map and Pareto fronts.

Every number comes from :mod:`rackcost.analysis.sweep.run` and :mod:`rackcost.analysis.sweep.summary` (through
:mod:`rackcost_app.sweep_view`, cached here on the scenario's JSON and the axes); this page only words and draws
them. The work is bounded (:data:`sweep_view.MAX_CONFIGURATIONS`, :data:`sweep_view.MAX_SIZINGS`): a larger sweep is
refused with a message, and runs with ``rackcost sweep FILE``.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

import rackcost
from rackcost import display
from rackcost.analysis.sweep.run import SweepError
from rackcost.evaluation.columns import BLENDED
from rackcost.scenario.loading import scenario_to_data
from rackcost_app import compute, state, sweep_view, tables
from rackcost_app.safe import md

# persisted settings (plain keys: widget state is dropped when the user leaves the page)
AXES, POINT, PARETO_POINT, AXES_GENERATION = "sweep_axes", "sweep_point", "sweep_pareto_point", "sweep_generation"
SLOTS = 3  # two axes, and an optional third
SCALES = ["linear", "log"]
CACHE_ENTRIES = 8

ss = st.session_state
key = compute.served_json(ss[state.VALID_JSON])  # without the systems the scenario cannot serve with
scenario = compute.scenario(key)
names = [s.name for s in scenario.systems]
points = [d.name for d in scenario.demand]
options = sweep_view.axis_options(scenario, scenario_to_data(scenario))
by_path = {o.path: o for o in options}


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def run_sweep(scenario_json: str, axes_json: str) -> dict[str, Any]:
    """The sweep of the scenario over the axes, or why it was refused (plain, picklable data).

    Returns
    -------
    dict
        ``refused``: the reason when over the bounds (nothing run), else None; ``configurations``, ``sizings``
        [count]; ``frame``: the tidy table of :func:`rackcost.analysis.sweep.run.run_sweep`; ``skipped``: its rows;
        ``seconds``: the library's time [s].

    Raises :class:`rackcost.ScenarioError` (not cached) for an axis the scenario cannot take.
    """
    import time

    axes = json.loads(axes_json)
    d = sweep_view.resolve(compute.scenario(scenario_json), axes)
    out: dict[str, Any] = {
        "configurations": d.configurations,
        "sizings": sweep_view.sizings(d),
        "refused": sweep_view.over_bound(d),
    }
    if out["refused"] is None:
        start = time.perf_counter()
        result = sweep_view.run(d)
        out["seconds"] = time.perf_counter() - start
        out["frame"] = result.frame
        out["skipped"] = list(result.skipped)
    return out


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def winner_table(scenario_json: str, axes_json: str, demand_point: str) -> Any:
    """:func:`sweep_view.winner_table` of the (cached) sweep."""
    axes = json.loads(axes_json)
    return sweep_view.winner_table(
        run_sweep(scenario_json, axes_json)["frame"], [a["path"] for a in axes], demand_point
    )


@st.cache_data(max_entries=2 * CACHE_ENTRIES, show_spinner=False)
def pareto_rows(scenario_json: str, axes_json: str, against: str, demand_point: str, higher: bool) -> Any:
    """:func:`sweep_view.pareto_rows` of the (cached) sweep."""
    axes = json.loads(axes_json)
    frame = run_sweep(scenario_json, axes_json)["frame"]
    return sweep_view.pareto_rows(frame, against, demand_point, higher, [a["path"] for a in axes])


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def table_csv(scenario_json: str, axes_json: str) -> str:
    """The sweep's table as CSV text, safe to open in a spreadsheet (made once per sweep, not on every run)."""
    return sweep_view.table_csv(run_sweep(scenario_json, axes_json)["frame"])


def show_problems(exc: rackcost.ScenarioError) -> None:
    for problem in exc.problems:
        where = f"{md(problem.path)}: " if problem.path else ""
        st.error(f"{where}{md(problem.message)}", icon=":material/error:")


def point_text(point: str) -> str:
    """Where the cost is judged, in words (plain text: for charts)."""
    return "blended over the day" if point == BLENDED else f"at {point} demand"


st.title("Sweep")
st.info(
    f"**A small sweep, run here.** The page evaluates a grid of the edited scenario in the dashboard's own process, "
    f"at most **{sweep_view.MAX_CONFIGURATIONS:,} configurations** (and {sweep_view.MAX_SIZINGS:,} fleet sizings: "
    "each system is sized anew for every combination of demand scale and SLO values), which takes about two "
    "seconds at most. Larger sweeps, Monte Carlo draws per configuration, system subsets or variants run with "
    "`rackcost sweep FILE` (Dask: every core, `--workers N`, or a cluster with `--scheduler tcp://host:8786`); "
    "the sweep file of these axes is offered for download below. Inputs given as distributions are swept at "
    "the values chosen here, every other input at its central value.",
    icon=":material/grid_on:",
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): this is the last valid scenario.",
        icon=":material/warning:",
    )

# ---- axes -------------------------------------------------------------------------------------------------------

generation = ss.get(state.GENERATION, 0)
if ss.get(AXES_GENERATION) != generation or not isinstance(ss.get(AXES), list):
    # a newly loaded scenario starts from the default axes: demand scale x electricity price (or the next input)
    first = by_path[options[0].path]
    second = options[1] if len(options) > 1 else None
    ss[AXES] = [sweep_view.default_axis(first), sweep_view.default_axis(second) if second else None, None]
    ss[AXES_GENERATION] = generation

st.header("Axes")
st.caption(
    "Each axis runs from *from* to *to* (both included) in *steps* values, evenly spaced on a linear or log scale. "
    "The default range is half to twice the scenario's value (demand scale: a quarter to four times)."
)
choices = [o.path for o in options]
chosen: list[dict[str, Any]] = []
for slot in range(SLOTS):
    current = ss[AXES][slot] if slot < len(ss[AXES]) else None
    optional = slot == SLOTS - 1
    slot_choices = ([sweep_view.NO_AXIS] if optional else []) + choices
    if current is not None and current["path"] not in by_path:
        current = None  # the input is gone from the edited scenario
    if current is None and not optional:
        taken = {a["path"] for a in chosen}
        fallback = next((o for o in options if o.path not in taken), options[0])
        current = sweep_view.default_axis(fallback)
    path_now = current["path"] if current else sweep_view.NO_AXIS
    c0, c1, c2, c3, c4 = st.columns([4, 2, 2, 1, 1.4])
    path = c0.selectbox(
        "third axis (optional)" if optional else ("first axis (across)" if slot == 0 else "second axis (down)"),
        slot_choices,
        index=slot_choices.index(path_now),
        format_func=lambda p: "none" if p == sweep_view.NO_AXIS else by_path[p].title,
        key=f"w_sweep_path_{slot}_{generation}",
        help=None if not optional else "A third axis draws one winner map per value of it.",
    )
    if path == sweep_view.NO_AXIS:
        ss[AXES][slot] = None
        continue
    if current is None or current["path"] != path:
        current = sweep_view.default_axis(by_path[path])
    title = by_path[path].title
    wkey = f"{slot}_{generation}_{path}"
    low = c1.number_input(
        f"from [{title.rsplit('[', 1)[-1]}", value=float(current["from"]), format="%g", key=f"w_sweep_from_{wkey}"
    )
    high = c2.number_input(
        f"to [{title.rsplit('[', 1)[-1]}", value=float(current["to"]), format="%g", key=f"w_sweep_to_{wkey}"
    )
    steps = c3.number_input("steps [count]", value=int(current["steps"]), step=1, key=f"w_sweep_steps_{wkey}")
    scale = c4.selectbox("scale", SCALES, index=SCALES.index(current["scale"]), key=f"w_sweep_scale_{wkey}")
    current = {"path": path, "from": low, "to": high, "steps": int(steps), "scale": scale}
    ss[AXES][slot] = current
    chosen.append(current)

count = sweep_view.configurations(chosen)
rows_count = count * len(names) * len(points)
st.markdown(
    f"**{count:,} configurations** x {len(names)} systems x {len(points)} demand points = {rows_count:,} rows "
    f"(the dashboard runs at most {sweep_view.MAX_CONFIGURATIONS:,} configurations)."
)

result = None
axes_json = json.dumps(chosen, sort_keys=True)
if count > sweep_view.MAX_CONFIGURATIONS:
    st.error(
        f"**Too large to run here:** {count:,} configurations is more than the {sweep_view.MAX_CONFIGURATIONS:,} "
        "the dashboard runs in its own process. Use fewer steps, or download the sweep file below and run "
        "`rackcost sweep FILE` (Dask, in parallel or on a cluster).",
        icon=":material/block:",
    )
else:
    try:
        with st.spinner(f"Evaluating {count:,} configurations..."):
            result = run_sweep(key, axes_json)
    except rackcost.ScenarioError as exc:
        show_problems(exc)
    except SweepError as exc:
        st.error(f"The sweep could not run: {md(exc)}", icon=":material/error:")
    except (ValueError, ArithmeticError) as exc:  # a range outside what the model accepts
        st.error(
            f"The model cannot be evaluated over these ranges: {md(exc)}. Choose values the inputs can take.",
            icon=":material/error:",
        )
    if result is not None and result["refused"] is not None:
        st.error(
            f"**Too large to run here:** {md(result['refused'])}. Use fewer steps on the demand scale or SLO axes, or "
            "download the sweep file below and run `rackcost sweep FILE`.",
            icon=":material/block:",
        )
        result = None

# ---- results ----------------------------------------------------------------------------------------------------

if result is not None:
    axis_paths = [a["path"] for a in chosen]
    titles = [by_path[p].title for p in axis_paths]
    st.caption(
        f"{result['configurations']:,} configurations ({result['sizings']:,} fleet sizings) evaluated in "
        f"{display.num(result['seconds'])} s."
    )
    for row in result["skipped"]:
        st.warning(
            f"{md(row['system'])} is left out of {row['configurations']:,} configurations: {md(row['reason'])}",
            icon=":material/warning:",
        )

    st.header("Winner map")
    point_choices = [BLENDED, *points]
    if ss.get(POINT) not in point_choices:
        ss[POINT] = BLENDED
    ss[POINT] = st.radio(
        "demand point the cheapest system is judged at",
        point_choices,
        index=point_choices.index(ss[POINT]),
        horizontal=True,
        key="w_sweep_point",
        format_func=lambda p: "blended over the day" if p == BLENDED else f"{md(p)} demand",
    )
    if len(chosen) < 2:
        st.info("Choose a second axis to draw the winner map.", icon=":material/info:")
    else:
        table = winner_table(key, axes_json, ss[POINT])
        st.altair_chart(sweep_view.winner_map(table, titles, names, point_text(ss[POINT])), width="stretch")
        st.caption(
            "Each cell is one combination of the axes' values, coloured by the system with the lowest cost per "
            f"accepted request {md(point_text(ss[POINT]))}; the tooltip gives its cost, the runner-up and the margin "
            "(runner-up's cost / cheapest's - 1)."
        )
        with st.expander("Winner table"):
            spec = {f"{n}_text": (t, "text") for n, t in zip("xyz", titles, strict=False)}
            spec |= {
                "cheapest": ("cheapest system", "text"),
                "usd_per_accepted_request": (sweep_view.COST_TITLE, "usd_per_1k"),
                "runner_up": ("runner-up", "text"),
                "runner_up_usd": ("runner-up's cost per 1,000 accepted requests [USD]", "usd_per_1k"),
                "margin_fraction": ("margin [% of the cheapest's cost]", "pct"),
            }
            records = [
                {**r, "runner_up_usd": r["runner_up_usd_per_1k"] / display.REQUESTS_PER_1K}
                for r in table.to_dict("records")
            ]
            tables.show(records, spec)

    st.header("Pareto fronts")
    pareto_choices = list(points)
    if ss.get(PARETO_POINT) not in pareto_choices:
        ss[PARETO_POINT] = pareto_choices[-1]
    ss[PARETO_POINT] = st.radio(
        "demand point of the fronts (interactivity and power are a demand point's)",
        pareto_choices,
        index=pareto_choices.index(ss[PARETO_POINT]),
        horizontal=True,
        key="w_sweep_pareto_point",
        format_func=lambda p: f"{md(p)} demand",
    )
    fronts = [
        ("interactivity_tokens_per_s", "interactivity [tokens/s per user]", True),
        ("facility_power_kw", "wall power [kW]", False),
    ]
    cols = st.columns(2)
    for col, (against, against_title, higher) in zip(cols, fronts, strict=True):
        rows = pareto_rows(key, axes_json, against, ss[PARETO_POINT], higher)
        worse = "higher" if higher else "lower"
        col.subheader(f"Cost vs {against_title.split(' [')[0]}")
        if not len(rows):
            col.info(f"No system here has a value of {against_title} (API systems have none).")
            continue
        col.altair_chart(sweep_view.pareto_chart(rows, against_title, names, higher), width="stretch")
        col.caption(
            f"Every row {md(point_text(ss[PARETO_POINT]))} (faded) and the Pareto front (outlined, joined): no other "
            f"configuration is both cheaper per accepted request and {worse} in {against_title}. "
            f"{int(rows['front'].sum()):,} of {len(rows):,} rows are on it."
        )

st.header("Download")
stem = state.export_stem(scenario.name)
c1, c2 = st.columns(2)
if result is not None:
    c1.download_button(
        "Sweep table (CSV)",
        table_csv(key, axes_json),
        file_name=f"{stem}-sweep.csv",
        mime="text/csv",
        help="One row per configuration x system x demand point; units in the column names (usd, kw, ms, rps).",
        key="w_sweep_csv",
        on_click="ignore",
    )
if chosen:
    c2.download_button(
        "Sweep file of these axes (YAML, for rackcost sweep)",
        sweep_view.sweep_yaml(f"{stem}.yaml", chosen),
        file_name=f"{stem}-sweep.yaml",
        mime="application/x-yaml",
        help="Its scenario is the edited scenario's file name: save the scenario there (Export page) to run it.",
        key="w_sweep_yaml",
        on_click="ignore",
    )
