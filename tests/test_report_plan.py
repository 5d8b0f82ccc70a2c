"""The report's Buying plan section and the plan's chart (issue 24, item 4), on the small plan fixture
(tests/data/plan_small.yaml, about a second a plan): the answer first, the tables' cells are ``plan_scenario``'s own
numbers as ``rackcost.display`` formats them, the chart's stack carries every busiest hour, HTML and Markdown both;
no section (and no plan run) for a scenario without a ``plan`` block. The bundled three-year scenario's report is
checked whole by tests/test_report.py."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import html5lib
import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost import display
from rackcost.evaluation import planning
from rackcost.evaluation.chain import evaluation
from rackcost.evaluation.planning import PlanResult, plan_scenario
from rackcost.reporting import plan_charts, plan_section
from rackcost.reporting.blocks import OPTIONAL_SECTIONS, SECTIONS, Chart, Paragraph, Report, Table
from rackcost.reporting.content import build_report
from rackcost.reporting.decision import decision
from rackcost.reporting.html import render_html
from rackcost.reporting.markdown import md_escape, render_markdown
from reference import DATA, TWO_SYSTEMS

SMALL = DATA / "plan_small.yaml"
DATE = "2026-01-02"
XHTML = "{http://www.w3.org/1999/xhtml}"


@pytest.fixture(scope="module")
def plan() -> PlanResult:
    return plan_scenario(rackcost.load_scenario(SMALL))


@pytest.fixture(scope="module")
def content() -> Report:
    return build_report(rackcost.load_scenario(SMALL), date=DATE)


def plan_blocks(report: Report) -> list:
    (found,) = [s for s in report.sections if s.id == "plan"]
    return found.blocks


def table_of(report: Report, key: str) -> Table:
    (found,) = [b for b in plan_blocks(report) if isinstance(b, Table) and b.id == key]
    return found


def cells_of(table: Table) -> list[dict[str, str]]:
    return [dict(zip([k for k, _ in table.columns], row, strict=True)) for row in table.rows]


# ---- the section's place and its answer -------------------------------------------------------------------------


def test_a_scenario_with_a_plan_has_the_section_after_the_claim_and_before_the_provenance(content: Report) -> None:
    ids = [s.id for s in content.sections]
    # a plan needs an hourly profile over years, so its scenario has the years section too
    assert ids == [k for k in SECTIONS if k not in OPTIONAL_SECTIONS or k in ("plan", "years")]
    assert SECTIONS["plan"] == "Buying plan"


def test_the_answer_comes_first_the_saving_against_the_best_single_source(content: Report, plan: PlanResult) -> None:
    first = plan_blocks(content)[0]
    assert isinstance(first, Paragraph) and first.strong
    assert plan.best_single_source == "spot A" and plan.single_realised is not None
    # the saving is 1 - plan / best single source, both at present value, hour by hour
    single = plan.best_single_source_cost_usd
    assert plan.saving_fraction == pytest.approx(1 - plan.total_cost_usd / single, rel=1e-12)
    assert 0 < plan.saving_fraction < 1
    assert first.text == plan_section.plan_sentence(plan)
    for figure in (
        display.money(plan.total_cost_usd),
        display.money(single),
        display.pct(plan.saving_fraction),
        f"{display.pct(plan.discount_fraction_per_year)} a year",
        display.usd_per_1k_requests(plan.to_json()["usd_per_accepted_request"]),
    ):
        assert figure in first.text, figure
    assert "less than the best single source, spot A alone" in first.text
    # and the summary leads with it, before the day's answer: the plan is the decision
    summary = content.sections[0].blocks
    assert isinstance(summary[0], Paragraph) and summary[0].text.startswith(first.text[:-1])
    assert "(section Buying plan)" in summary[0].text


def test_the_sentence_without_a_single_source_or_a_discount_rate_says_so(plan: PlanResult) -> None:
    alone = dataclasses.replace(plan, best_single_source=None, single=None, single_realised=None)
    assert alone.saving_fraction is None
    text = plan_section.plan_sentence(alone)
    assert "no single source can carry the demand alone" in text and "less than" not in text
    flat = dataclasses.replace(plan, discount_fraction_per_year=0.0)
    assert "as paid (no discount rate)" in plan_section.plan_sentence(flat)


def test_the_holdings_name_each_source_used_its_share_and_the_sources_not_used(plan: PlanResult) -> None:
    items = plan_section.holdings(plan)
    served = plan.realised.served_rps.sum(axis=1) / plan.hourly_rps.sum()
    names = [f.source.name for f in plan.sources]
    spot = names.index("spot A")
    assert items[0].startswith("spot A (spot, system A): up to 4 replicas")
    assert f"{display.pct(served[spot])} of the requests" in items[0]
    assert items[-1] == "Not used: owned A, reserved A, on-demand A."
    # what the plan carries is the demand: the shares add to one (every hour served)
    assert served.sum() == pytest.approx(1.0, abs=1e-12)
    assert plan.realised.unserved_rps.max() == 0


# ---- the tables: the plan's own numbers -------------------------------------------------------------------------


def test_the_quarter_tables_cells_are_the_plans_periods(content: Report, plan: PlanResult) -> None:
    table = table_of(content, "plan-quarters")
    periods = plan.periods.to_dict(orient="records")
    rows = cells_of(table)
    assert len(rows) == len(periods) == 4  # one year of 2,190-hour quarters
    assert [k for k, _ in table.columns] == [
        "quarter",
        "peak_demand_rps",
        "spot A: most replicas",
        "API: peak rps",
        "cost_usd",
        "cost_present_usd",
        "usd_per_accepted_request",
    ]
    for cells, period in zip(rows, periods, strict=True):
        assert cells["quarter"] == f"Y1 Q{period['quarter']}"
        assert cells["peak_demand_rps"] == display.num(period["peak_demand_rps"])
        assert cells["spot A: most replicas"] == display.count(period["spot A: most replicas"])
        assert cells["API: peak rps"] == display.num(period["API: peak rps"])
        assert cells["cost_usd"] == display.money(period["cost_usd"])
        assert cells["cost_present_usd"] == display.money(period["cost_present_usd"])
        # cost per accepted request = the quarter's cost / its accepted requests (both as the plan realised them)
        assert cells["usd_per_accepted_request"] == display.usd_per_1k_requests(
            period["cost_usd"] / period["accepted_requests"]
        )
    # the quarters are the hours: 2,190 each, their costs add to the plan's hour-by-hour cost
    assert sum(p["cost_usd"] for p in periods) == pytest.approx(plan.realised.cost_usd.sum(), rel=1e-12)
    at_quarter = plan.realised.cost_usd.sum(axis=0).reshape(4, 2190).sum(axis=1)
    assert [p["cost_usd"] for p in periods] == pytest.approx(at_quarter.tolist(), rel=1e-12)


def test_the_year_table_gives_each_year_and_the_horizon_per_accepted_request(content: Report, plan: PlanResult) -> None:
    rows = cells_of(table_of(content, "plan-years"))
    assert [r["year"] for r in rows] == ["Y1", "horizon"]
    year = plan.years.to_dict(orient="records")[0]
    whole = plan.to_json()
    for cells in rows:
        assert cells["cost_usd"] == display.money(year["cost_usd"])
        assert cells["cost_present_usd"] == display.money(year["cost_present_usd"])
        assert cells["cost_present_usd"] == display.money(plan.total_cost_usd)
        assert cells["usd_per_accepted_request"] == display.usd_per_1k_requests(year["usd_per_accepted_request"])
        assert cells["usd_per_accepted_request"] == display.usd_per_1k_requests(whole["usd_per_accepted_request"])
    # present value at 8 %/year, mid-quarter: each quarter's cost x (1 + r)^-((q + 0.5) / 4)
    quarters = plan.periods["cost_usd"].to_numpy()
    factors = 1.08 ** -((np.arange(4) + 0.5) / 4)
    assert year["cost_present_usd"] == pytest.approx(float((quarters * factors).sum()), rel=1e-9)


def test_the_solver_sentence_gives_the_status_the_bound_and_the_gap(content: Report, plan: PlanResult) -> None:
    (sentence,) = [b.text for b in plan_blocks(content) if isinstance(b, Paragraph) and b.text.startswith("The solver")]
    s = plan.solution
    assert s.status == "optimal"
    assert "found the optimal plan" in sentence
    assert f"a gap of {display.pct(s.relative_gap, 2)} (asked: {display.pct(1e-3, 2)})" in sentence
    assert display.money(s.dual_bound_usd) in sentence and display.money(s.objective_usd) in sentence
    assert f"after {plan.rounds} solves" in sentence
    assert s.relative_gap <= 1e-3  # within the gap asked (plan.mip_rel_gap_fraction's default)


# ---- the chart ------------------------------------------------------------------------------------------------


def test_the_chart_stacks_the_capacity_held_at_each_weeks_busiest_hour_above_its_demand(plan: PlanResult) -> None:
    capacity, demand = plan_charts.capacity_frame(plan)
    weeks = -(-8760 // 168)  # 52 weeks and a day: 53 buckets, the last of 24 hours
    assert len(demand) == weeks and plan_charts.bucket_hours(8760) == 168
    expected = [plan.hourly_rps[i : i + 168].max() for i in range(0, 8760, 168)]
    assert demand["demand_rps"].tolist() == expected
    assert demand["start_years"].tolist() == pytest.approx([i * 168 / 8760 for i in range(weeks)])
    assert set(capacity["source"]) == {"spot A", "API"}  # the sources the plan uses, no others
    stacked = capacity.groupby("start_years")["capacity_rps"].sum().to_numpy()
    assert (stacked >= demand["demand_rps"].to_numpy() * (1 - 1e-12)).all()  # every busiest hour is carried
    # spot's capacity is the exact capacity at SLO of the replicas held, times its serving share
    spot = next(f for f in plan.sources if f.source.name == "spot A")
    held = plan.realised.units[[f.source.name for f in plan.sources].index("spot A")]
    at = plan_charts.busiest_hours(plan.hourly_rps, 168)
    shown = capacity[capacity["source"] == "spot A"]["capacity_rps"].to_numpy()
    assert shown.tolist() == [spot.capacity_rps(int(n)) for n in held[at]]
    spec = plan_charts.capacity_chart(plan).to_dict()
    assert max(len(rows) for rows in spec["datasets"].values()) < 5_000  # Altair's row limit


def test_the_chart_is_in_the_report_and_drawn_in_html_and_markdown(content: Report, plan: PlanResult) -> None:
    (chart,) = [b for b in plan_blocks(content) if isinstance(b, Chart)]
    assert chart.name == "plan-capacity"
    assert "Not used by the plan, so not drawn: owned A, reserved A, on-demand A." in chart.description
    # the plan section alone (the other sections' charts are drawn by tests/test_report.py): one chart each way
    alone = dataclasses.replace(content, sections=[s for s in content.sections if s.id == "plan"])
    html = render_html(alone)
    doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(html)
    (section,) = [s for s in doc.iter(f"{XHTML}section") if s.get("id") == "plan"]
    (figure,) = [f for f in section.iter(f"{XHTML}figure")]
    assert figure.get("id") == "figure-plan-capacity"
    assert len(list(figure.iter("{http://www.w3.org/2000/svg}svg"))) == 1
    assert {t.get("id") for t in section.iter(f"{XHTML}table")} >= {"table-plan-quarters", "table-plan-years"}
    assert plan_section.plan_sentence(plan) in "".join(section.itertext())
    text, files = render_markdown(alone, "r_files")
    assert "## Buying plan" in text and f"**{md_escape(plan_section.plan_sentence(plan))}**" in text
    assert "| Y1 Q4 | " in text
    (png,) = files
    assert files[png][:8] == b"\x89PNG\r\n\x1a\n" and f"]({png})" in text


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=400),
    st.integers(1, 50),
)
def test_the_busiest_hour_of_each_bucket_is_its_maximum(rates: list[float], hours: int) -> None:
    values = np.array(rates)
    at = plan_charts.busiest_hours(values, hours)
    assert len(at) == -(-len(values) // hours)
    for k, i in enumerate(at):
        bucket = values[k * hours : (k + 1) * hours]
        assert k * hours <= i < (k + 1) * hours and values[i] == bucket.max()


# ---- no plan, or a plan that cannot be met --------------------------------------------------------------------


def test_a_scenario_without_a_plan_has_no_section_and_never_runs_a_plan(monkeypatch) -> None:
    def refuse(scenario):
        raise AssertionError("plan_scenario ran for a scenario without a plan block")

    monkeypatch.setattr(planning, "plan_scenario", refuse)
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    assert scenario.plan is None
    assert planning.plan_of(evaluation(scenario)) is None
    assert plan_section.plan_section(scenario, None) is None
    assert decision(evaluation(scenario)).plan is None


def test_a_plan_no_mix_can_meet_is_said_in_the_section_and_the_rest_of_the_report_stands(tmp_path: Path) -> None:
    data = yaml.safe_load(SMALL.read_text(encoding="utf-8"))
    capped = copy.deepcopy(data)
    # one spot replica at most, nothing else: about 10 requests/s against a busiest hour of 28
    capped["plan"]["sources"] = [dict(data["plan"]["sources"][3], max_units=1)]
    scenario = rackcost.scenario_from_dict(capped, str(tmp_path / "capped.yaml"))
    evaluated = evaluation(scenario)
    found = planning.plan_of(evaluated)
    assert isinstance(found, rackcost.ScenarioError)
    assert planning.plan_of(evaluated) is found  # kept with the evaluation: not solved again
    lead = decision(evaluated)
    assert lead.problem is found and lead.plan is None and lead.chosen == ()
    assert lead.sentence.startswith("This scenario has a buying plan, but no plan of its sources meets it: plan")
    section = plan_section.plan_section(scenario, found)
    assert section is not None and section.id == "plan"
    assert section.blocks[0].text == "No buying plan: the scenario's plan block cannot be met."
    problems = section.blocks[1].items
    assert problems and all(p.startswith("plan") for p in problems)


def test_the_three_year_plans_report_leads_with_the_decision_rackcost_plan_names(three_year_plan) -> None:
    """The bundled three-year buying plan: the report's summary opens with the plan's sentence (the one wording of
    rackcost.reporting.decision, which ``rackcost evaluate`` and the dashboard lead with too), over its 3 years, and
    names the sources the plan holds; the plan is found once, for the summary and the Buying plan section."""
    path, plan, calls = three_year_plan
    report = build_report(rackcost.load_scenario(path), samples=0, date=DATE)
    lead = decision(evaluation(rackcost.load_scenario(path)))
    assert lead.sentence == plan_section.plan_sentence(plan) and lead.horizon_years == 3.0
    assert lead.chosen == ("owned GB200 NVL72 racks", "spot GB200 NVL72", "DeepSeek API")
    first = report.sections[0].blocks[0]
    assert isinstance(first, Paragraph) and first.text == f"{lead.sentence[:-1]} (section {SECTIONS['plan']})."
    assert plan_blocks(report)[0].text == lead.sentence
    assert len(calls) == 2  # the report's, then the one of the evaluation above
