"""Every system visible in every chart: a dash per system beside its colour, legends of lines drawn as lines, and
the pairs of systems that draw the same line found (issue 36: owned and rented GB200 NVL72, the same fleet, drew one
latency line over the other; a legend showed dots for line styles)."""

from __future__ import annotations

import rackcost
from rackcost.analysis.explore import latency_cliff, operating_curves
from rackcost.reporting import charts
from rackcost.reporting.chart_styles import SYSTEM_DASHES, same_lines, same_lines_note

PLAN = "deepseek-r1-three-year-buying-plan.yaml"  # GB200 NVL72 owned, rented reserved and rented on demand


def _encodings(spec: dict) -> list[dict]:
    return [layer.get("encoding", {}) for layer in spec.get("layer", [spec])]


def test_an_owned_and_a_rented_copy_of_one_fleet_draw_the_same_line_and_are_told_apart() -> None:
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path(PLAN))
    systems = [s.name for s in scenario.systems]
    cliff = latency_cliff(scenario)
    same = same_lines(cliff, ("arrival_rps", "accepted_fraction", "ttft_p99_ms"))
    owned = systems[0]
    assert {twin for _, twin in same} == {owned} and len(same) == 2, same  # both rented copies lie on the owned
    assert f"draws the same line as {owned}" in same_lines_note(same)
    curves = [r for r in operating_curves(scenario) if r["kind"] != "chosen"]
    assert same_lines(curves, ("interactivity_tokens_per_s", "total_tokens_per_s_per_accelerator"))
    demand = [{"name": d.name, "arrival_rps": d.arrival_rps} for d in scenario.demand]
    for chart in charts.cliff_charts(cliff, demand, scenario.slo.ttft_limit_ms, systems=systems):
        line = _encodings(chart.to_dict())[0]
        dash = line["strokeDash"]
        assert dash["field"] == "system" and dash["title"] == line["color"]["title"]  # one legend of both
        assert len({str(d) for d in dash["scale"]["range"]}) == len(dash["scale"]["domain"])  # a dash each
        assert line["color"]["legend"]["symbolType"] == "stroke"  # lines, not dots


def test_the_demand_scale_legends_show_lines() -> None:
    rows = [
        {"system": s, "payment": p, "demand_scale": k, "blended_usd_per_accepted_request": c * k}
        for s, p, c in (("a", "own", 1.0), ("b", "rent on_demand", 2.0))
        for k in (0.5, 1.0)
    ]
    encoding = charts.demand_scale_chart(rows, systems=["a", "b"]).to_dict()["encoding"]
    assert encoding["strokeDash"]["legend"]["symbolType"] == "stroke"
    assert encoding["color"]["legend"]["symbolType"] == "stroke"


def test_dashes_are_distinct() -> None:
    assert len({str(d) for d in SYSTEM_DASHES}) == len(SYSTEM_DASHES)
