"""The report of a scenario larger than a chart shows (issue 19, item 5): 10,000 demand points (834 or more crashed
on Altair's row limit) and 40 systems give a report, in HTML and Markdown, whose charts say what they leave out and
whose tables keep every row. No test here times anything: ``benchmarks/bench_report.py`` measures the speed."""

from __future__ import annotations

import re
from typing import Any

import html5lib
import pytest

import rackcost
from large_scenarios import many_points, many_systems
from rackcost.reporting import charts
from rackcost.reporting.blocks import Chart, Paragraph, Report, Table
from rackcost.reporting.content import DEFAULT_SAMPLES, build_report, report_samples
from rackcost.reporting.html import render_html
from rackcost.reporting.markdown import render_markdown

DATE = "2026-01-02"
SAMPLES = 200  # few samples: the sizes under test are of systems and points, not of samples


def blocks(report: Report) -> list[Any]:
    """Every block of every section, in order."""
    return [b for s in report.sections for b in s.blocks]


def chart_rows(chart: Chart) -> int:
    """The most rows any dataset of a chart's specification holds."""
    spec = chart.chart.to_dict()
    datasets = spec.get("datasets", {})
    return max((len(rows) for rows in datasets.values()), default=0)


def table_of(report: Report, key: str) -> Table:
    found = [b for b in blocks(report) if isinstance(b, Table) and b.id == key]
    assert len(found) == 1, key
    return found[0]


@pytest.fixture(scope="module")
def points_report() -> Report:
    """At the samples the report chooses itself (fewer than the default, for so many points)."""
    return build_report(many_points(10_000), date=DATE)


@pytest.fixture(scope="module")
def systems_report() -> Report:
    return build_report(many_systems(40), samples=SAMPLES, date=DATE)


# ---- 10,000 demand points --------------------------------------------------------------------------------------


def test_ten_thousand_demand_points_give_charts_of_a_sample_of_them_and_tables_of_all(points_report: Report) -> None:
    found = [b for b in blocks(points_report) if isinstance(b, Chart)]
    assert len(found) >= 4
    for chart in found:  # every chart is far below Altair's 5,000 rows
        assert chart_rows(chart) < 5_000, chart.name
    by_key = {c.name: c for c in found}
    note = f"It shows {charts.MAX_CHART_POINTS} of the 10,000 demand points"
    for key in ("cost-by-component", "cliff-accepted", "cliff-ttft", "claim-0"):
        assert note in by_key[key].description, key
    assert len(table_of(points_report, "points").rows) == 2 * 10_000  # two systems at every point


def test_ten_thousand_demand_points_render_as_html_and_markdown(points_report: Report) -> None:
    html = render_html(points_report)
    html5lib.HTMLParser(strict=True).parse(html)
    assert html.count("<svg") >= 4
    assert f"It shows {charts.MAX_CHART_POINTS} of the 10,000 demand points" in html
    text, files = render_markdown(points_report, "r_files")  # what rackcost.report writes beside the .md
    assert len(files) >= 4 and all(data[:8] == b"\x89PNG\r\n\x1a\n" for data in files.values())
    assert f"It shows {charts.MAX_CHART_POINTS} of the 10,000 demand points" in text


def test_ten_thousand_demand_points_take_fewer_samples_and_say_why(points_report: Report) -> None:
    n, why = report_samples(many_points(10_000))
    assert n < DEFAULT_SAMPLES and f"{n:,} samples rather than the default" in why
    assert any(
        f"{n:,} samples (seed 0)" in p.text and why in p.text for p in blocks(points_report) if isinstance(p, Paragraph)
    )


# ---- 40 systems ------------------------------------------------------------------------------------------------


def test_forty_systems_chart_the_baseline_and_the_cheapest_and_say_so(systems_report: Report) -> None:
    scenario = many_systems(40)
    result = rackcost.evaluate(scenario)
    by_cost = sorted(
        (r for r in result.records["systems"] if r["system"] != scenario.baseline_name),
        key=lambda r: r["blended_usd_per_accepted_request"],
    )
    drawn = {scenario.baseline_name, *(r["system"] for r in by_cost[: charts.MAX_CHART_SYSTEMS - 1])}
    note = f"The chart shows {charts.MAX_CHART_SYSTEMS} of the 40 systems"
    found = {b.name: b for b in blocks(systems_report) if isinstance(b, Chart)}
    for key in ("operating-curves", "cost-by-component", "cost-against-demand-scale", "cost-distribution", "tornado"):
        assert note in found[key].description, key
        spec = str(found[key].chart.to_dict())
        assert all(name in spec for name in drawn), key
        left_out = [r["system"] for r in by_cost[charts.MAX_CHART_SYSTEMS - 1 :]]
        assert not any(f"'{name}'" in spec for name in left_out), key
    # a claim chart per charted system, a claim table per system
    assert len([k for k in found if k.startswith("claim-")]) == charts.MAX_CHART_SYSTEMS - 1
    assert len(table_of(systems_report, "systems").rows) == 40


def test_forty_systems_say_what_the_summary_tornado_and_break_even_leave_out(systems_report: Report) -> None:
    text = render_html(systems_report)
    assert "and 30 more systems, each at" in text  # the summary names the cheapest ten, counts the rest
    assert f"It draws the {charts.MAX_TORNADO_INPUTS} inputs of largest swing" in text
    assert "rackcost breakeven gives the value for any of the other 30." in text
    rows = table_of(systems_report, "breakeven").rows
    assert len({r[0] for r in rows}) == charts.MAX_CHART_SYSTEMS - 1


def test_a_break_even_on_the_pair_alone_is_that_of_the_whole_scenario() -> None:
    """The report finds each break-even on the system and the baseline alone: the same value as on all systems."""
    from rackcost.analysis.explore import path_in, with_systems

    scenario = many_systems(12)
    system = scenario.systems[7].name
    pair, index = with_systems(scenario, [scenario.baseline_name, system])
    assert [s.name for s in pair.systems] == [scenario.systems[0].name, system]
    path = "systems[1].costs.capex_usd_per_accelerator"
    assert path_in(path, index) == "systems[7].costs.capex_usd_per_accelerator"
    whole = rackcost.breakeven(scenario, path_in(path, index), system, "blended")
    alone = rackcost.breakeven(pair, path, system, "blended")
    assert alone.value == whole.value and alone.value is not None


# ---- the chosen subset -----------------------------------------------------------------------------------------


def test_the_sizing_point_and_the_baseline_are_always_charted() -> None:
    rows = [{"system": f"s{i}", "blended_usd_per_accepted_request": float(i)} for i in range(30)]
    demand = [{"name": f"p{i}", "arrival_rps": float(i)} for i in range(100)]
    sub = charts.chart_subset(rows, "s29", demand, "p50")
    assert "s29" in sub.systems and len(sub.systems) == charts.MAX_CHART_SYSTEMS
    assert sub.systems[:-1] == tuple(f"s{i}" for i in range(charts.MAX_CHART_SYSTEMS - 1))
    assert "p50" in sub.points and {"p0", "p99"} <= set(sub.points) and len(sub.points) == charts.MAX_CHART_POINTS
    assert re.search(r"12 of the 100 demand points", sub.points_note)
    small = charts.chart_subset(rows[:3], "s0", demand[:3], "p2")
    assert small.note(points=True) == ""


def test_a_curve_is_thinned_to_its_limit_with_the_chosen_point_kept() -> None:
    curves = [
        {"system": "a", "kind": "measured", "concurrency": c, "interactivity": 1.0 + c, "throughput": 1.0}
        for c in range(1, 1_001)
    ] + [{"system": "a", "kind": "chosen", "concurrency": 500, "interactivity": 501.0, "throughput": 1.0}]
    thinned = charts._thinned(curves, charts.MAX_CURVE_POINTS)
    measured = [r for r in thinned if r["kind"] == "measured"]
    assert len(measured) == charts.MAX_CURVE_POINTS
    assert measured[0]["concurrency"] == 1 and measured[-1]["concurrency"] == 1_000
    assert [r for r in thinned if r["kind"] != "measured"] == curves[-1:]
    assert charts._thinned(curves[:50], charts.MAX_CURVE_POINTS) == curves[:50]
