"""The dashboard's Sweep page (AppTest) and its helpers (``rackcost_app.sweep_view``, plain functions).

The charts are read back from the page's Vega-Lite elements (their datasets are Arrow tables), so the tests check
what the user is shown: the winner map against the per-cell minimum of the library's own table, the Pareto fronts
against :func:`rackcost.analysis.sweep.summary.pareto_front`, and every bad input as a message, never a traceback.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

import rackcost
from rackcost.analysis.sweep.run import resolve, run_sweep
from rackcost.analysis.sweep.summary import pareto_front
from rackcost.scenario.loading import scenario_to_data

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
SWEEP = "app_pages/sweep.py"
TIMEOUT_S = 120  # a hang guard per script run, generous for a busy machine
GAUDI = "llama-3.3-70b-gaudi25-tp-precision.yaml"  # six systems; the cheapest changes with demand scale

sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import sweep_view  # noqa: E402

pytestmark = pytest.mark.app


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def errors(at: AppTest) -> str:
    """The error messages as the browser shows them (user text comes backslash-escaped: rackcost_app.safe.md)."""
    return "\n".join(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", e.value) for e in at.error)


def sweep_page(scenario: str | None = None) -> AppTest:
    """The app on the Sweep page, after loading a bundled scenario when one is named."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.run()
    ok(at)
    if scenario is not None:
        at.switch_page("app_pages/scenario.py").run()  # the app opens on the Answer page
        at.selectbox(key="bundled").select(scenario)
        at.button(key="load_bundled").click().run()
        ok(at)
    at.switch_page(SWEEP).run()
    ok(at)
    return at


def charts(at: AppTest) -> list:
    return list(at.get("vega_lite_chart"))


def chart_data(chart) -> list:
    """The datasets of a Vega-Lite element, as DataFrames."""
    return [pa.ipc.open_stream(d.data.data).read_pandas() for d in chart.proto.datasets]


def axes_of(at: AppTest) -> list[dict]:
    return [a for a in at.session_state["sweep_axes"] if a is not None]


def set_axis(at: AppTest, slot: int, **values) -> None:
    """Set the from / to / steps of an axis slot's widgets, as typing would, and rerun."""
    axis = at.session_state["sweep_axes"][slot]
    generation = at.session_state["generation"]
    for name, value in values.items():
        at.number_input(key=f"w_sweep_{name}_{slot}_{generation}_{axis['path']}").set_value(value)
    at.run()
    ok(at)


def library_frame(at: AppTest):
    """run_sweep's table of the page's scenario and axes, computed here directly."""
    scenario = rackcost.scenario_from_dict(json.loads(at.session_state["valid_json"]), "<test>")
    d = resolve(sweep_view.spec(axes_of(at)), base=scenario)
    return run_sweep(d, scheduler="synchronous").frame


def per_cell_minimum(frame, x: str, y: str, point: str):
    """The cheapest system and its cost in each (x, y) cell: each system's minimum cost over the cell, then the
    smallest of those (ties to the system listed first)."""
    if point == "blended":
        rows, cost = (
            frame[frame["demand_point"] == frame["demand_point"].cat.categories[0]],
            "blended_usd_per_accepted_request",
        )
    else:
        rows, cost = frame[frame["demand_point"] == point], "usd_per_accepted_request"
    per_system = rows.groupby([x, y, "system"], observed=True)[cost].min().reset_index()
    per_system = per_system.sort_values([x, y, cost, "system"], kind="stable")
    best = per_system.drop_duplicates([x, y], keep="first")
    return {(round(r[x], 12), round(r[y], 12)): (str(r["system"]), float(r[cost])) for _, r in best.iterrows()}


def test_default_sweep_shows_the_count_the_winner_map_and_both_pareto_fronts():
    at = sweep_page()
    assert errors(at) == ""
    axes = axes_of(at)
    assert [a["path"] for a in axes] == ["demand.scale", "facility.electricity_usd_per_kwh"]
    count = axes[0]["steps"] * axes[1]["steps"]
    assert any(f"**{count:,} configurations**" in m.value for m in at.markdown)
    assert "at most **2,000 configurations**" in at.info[0].value
    assert "rackcost sweep FILE" in at.info[0].value
    found = charts(at)
    assert len(found) == 3  # winner map, cost vs interactivity, cost vs wall power
    winner_spec = json.loads(found[0].proto.spec)
    assert winner_spec["mark"]["type"] == "rect"
    assert winner_spec["encoding"]["color"]["field"] == "cheapest"
    (table,) = chart_data(found[0])
    assert len(table) == count
    assert {"cost_text", "runner_up", "margin_text"} <= set(table.columns)
    # units in every axis title
    assert "[x scenario demand]" in winner_spec["encoding"]["x"]["title"]
    assert "[USD/kWh]" in winner_spec["encoding"]["y"]["title"]
    for chart in found[1:]:
        spec = json.loads(chart.proto.spec)
        titles = [layer["encoding"]["y"]["title"] for layer in spec["layer"]]
        assert "cost per 1,000 accepted requests [USD]" in titles
    assert {b.label for b in at.get("download_button")} >= {"Sweep table (CSV)"}


@pytest.mark.parametrize(
    ("scenario", "point", "winners"),
    [
        (None, "blended", 1),  # Jalapeño everywhere
        (None, "peak", 1),
        (GAUDI, "blended", 2),  # TP8 FP8 at small scales, TP4 BF16 at large: the map changes colour
    ],
)
def test_the_winner_map_agrees_with_the_per_cell_minimum(scenario, point, winners):
    at = sweep_page(scenario)
    if point != "blended":
        at.radio(key="w_sweep_point").set_value(point).run()
        ok(at)
    (table,) = chart_data(charts(at)[0])
    expected = per_cell_minimum(library_frame(at), "demand.scale", "facility.electricity_usd_per_kwh", point)
    shown = {
        (round(r["x"], 12), round(r["y"], 12)): (r["cheapest"], r["usd_per_accepted_request"])
        for _, r in table.iterrows()
    }
    assert shown.keys() == expected.keys()
    assert len({system for system, _ in expected.values()}) == winners
    for cell, (system, cost) in expected.items():
        assert shown[cell][0] == system, cell
        assert shown[cell][1] == pytest.approx(cost, rel=1e-12), cell


def test_the_pareto_charts_mark_the_librarys_fronts():
    at = sweep_page()
    frame = library_frame(at)
    point = at.session_state["sweep_pareto_point"]
    for chart, (against, higher) in zip(
        charts(at)[1:], [("interactivity_tokens_per_s", True), ("facility_power_kw", False)], strict=True
    ):
        (rows,) = chart_data(chart)
        front = pareto_front(frame, against, point, higher)
        assert len(rows) == (frame["demand_point"] == point).sum()
        on_front = rows[rows["front"]]
        assert sorted(on_front["configuration"].tolist()) == sorted(front["configuration"].tolist())
        assert sorted(on_front["usd_per_1k"]) == pytest.approx(sorted(front["usd_per_accepted_request"] * 1000))


def test_a_sweep_over_the_bound_is_refused_with_no_chart():
    at = sweep_page()
    set_axis(at, 0, steps=50)
    set_axis(at, 1, steps=50)  # 2,500 configurations
    assert "Too large to run here" in errors(at)
    assert "2,500 configurations" in errors(at)
    assert not charts(at)


def test_too_many_fleet_sizings_are_refused_with_no_chart():
    at = sweep_page()
    set_axis(at, 0, steps=201)
    set_axis(at, 1, steps=2)  # 402 configurations, but 201 demand scales x 2 systems: 402 fleet sizings
    assert "402 fleet sizings" in errors(at)
    assert not charts(at)


@pytest.mark.parametrize(
    ("slot", "values", "message"),
    [
        (1, {"from": -0.1}, "electricity_usd_per_kwh"),  # a price below 0
        (0, {"from": 0.0}, "log range"),  # a log range through 0
        (0, {"steps": 0}, "steps"),
        (0, {"from": 2.0, "to": 2.0}, "repeat one value"),
    ],
)
def test_a_bad_axis_is_an_error_message_not_a_traceback(slot, values, message):
    at = sweep_page()
    set_axis(at, slot, **values)
    assert message in errors(at)
    assert not charts(at)


def test_a_pue_axis_below_one_is_refused_by_the_library():
    at = sweep_page()
    generation = at.session_state["generation"]
    at.selectbox(key=f"w_sweep_path_1_{generation}").select("facility.pue").run()
    ok(at)
    assert errors(at) == ""  # the default PUE range starts at 1
    set_axis(at, 1, **{"from": 0.5})
    assert "facility.pue" in errors(at)
    assert not charts(at)


def test_a_third_axis_draws_one_winner_map_per_value():
    at = sweep_page()
    generation = at.session_state["generation"]
    at.selectbox(key=f"w_sweep_path_2_{generation}").select("facility.pue").run()
    ok(at)
    set_axis(at, 2, steps=3)
    set_axis(at, 0, steps=5)
    assert errors(at) == ""
    spec = json.loads(charts(at)[0].proto.spec)
    assert spec["facet"]["field"] == "z_text"
    (table,) = chart_data(charts(at)[0])
    assert len(table) == 5 * 9 * 3


def test_the_page_runs_for_a_scenario_with_an_api_system():
    at = sweep_page("deepseek-r1-own-vs-rent-vs-api.yaml")
    assert errors(at) == ""
    assert len(charts(at)) == 3
    # the API system has no interactivity or power: it is on neither Pareto chart
    for chart in charts(at)[1:]:
        (rows,) = chart_data(chart)
        assert "DeepSeek API (deepseek-reasoner)" not in set(rows["system"])


def test_every_offered_axis_of_every_bundled_scenario_resolves_with_its_default_range():
    for path in rackcost.bundled_scenarios():
        scenario = rackcost.load_scenario(path)
        options = sweep_view.axis_options(scenario, scenario_to_data(scenario))
        assert options[0].path == "demand.scale"
        for option in options:
            axis = sweep_view.default_axis(option)
            assert "[" in option.title  # a unit
            d = sweep_view.resolve(scenario, [axis])
            assert d.configurations == sweep_view.DEFAULT_STEPS
            assert sweep_view.over_bound(d) is None


def test_the_largest_sweep_the_page_runs_sits_on_both_bounds_and_plans_each_fleet_once(monkeypatch):
    """The page bounds its work by counts, not by a clock (its speed at the bound is in docs/dashboard.md).

    The default scenario's 2 systems over 200 demand scales x 10 electricity prices are 2,000 configurations and
    400 fleet sizings, both bounds exactly: the sweep runs, one value more on either axis is refused, and the run
    plans each of the 200 demand scales once for both systems (the prices are evaluated as one vectorised call and
    plan nothing), so the page does the 400 sizings that MAX_SIZINGS allows, not one per configuration.
    """
    from rackcost.evaluation import chain

    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-jalapeno-vs-gb300.yaml"))

    def design(scales: int, prices: int):
        return sweep_view.resolve(
            scenario,
            [
                {"path": "demand.scale", "from": 0.25, "to": 4, "steps": scales, "scale": "log"},
                {
                    "path": "facility.electricity_usd_per_kwh",
                    "from": 0.04,
                    "to": 0.16,
                    "steps": prices,
                    "scale": "linear",
                },
            ],
        )

    d = design(200, 10)
    assert d.configurations == sweep_view.MAX_CONFIGURATIONS
    assert sweep_view.sizings(d) == sweep_view.MAX_SIZINGS
    assert sweep_view.over_bound(d) is None
    assert "2,200 configurations" in sweep_view.over_bound(design(200, 11))
    assert "402 fleet sizings" in sweep_view.over_bound(design(201, 9))  # 1,809 configurations, within that bound

    planned: list[int] = []
    choose = chain.choose_points
    monkeypatch.setattr(chain, "choose_points", lambda s: planned.append(len(s.systems)) or choose(s))
    frame = sweep_view.run(d).frame
    assert planned == [2] * 200
    assert frame["configuration"].nunique() == sweep_view.MAX_CONFIGURATIONS
    table = sweep_view.winner_table(frame, ["demand.scale", "facility.electricity_usd_per_kwh"], "blended")
    assert len(table) == sweep_view.MAX_CONFIGURATIONS  # one cell per configuration


def test_an_invalid_edit_keeps_the_sweep_on_the_last_valid_scenario_and_says_so():
    from test_app import widget  # the Scenario page's form widget of a YAML path, its tab opened

    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.run()
    at.switch_page("app_pages/scenario.py").run()  # the app opens on the Answer page
    widget(at, "number_input", "facility.rack_power_limit_kw").set_value(-5.0).run()  # must be > 0
    ok(at)
    assert at.session_state["problems"]
    at.switch_page(SWEEP).run()
    ok(at)
    assert "last valid scenario" in at.main.warning[0].value
    assert not at.main.error  # the sidebar says the edits have a problem; the page runs on
    assert len(charts(at)) == 3
