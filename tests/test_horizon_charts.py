"""Charts of demand over time (rackcost.reporting.horizon_charts): each day's busiest hour and mean over a profile's
hours, and cost per accepted request year by year; and the dashboard pages that draw them (Results, the Scenario
page's Demand tab) on a scenario with a demand profile over years."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import rackcost
from rackcost import display
from rackcost.reporting import horizon_charts
from reference import DATA

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
sys.path.insert(0, str(ROOT / "app"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-6, 1e7), min_size=1, max_size=24 * 9))
def test_each_days_mean_and_peak_are_those_of_its_hours(hours: list[float]) -> None:
    # closed form: day d is hours 24d .. 24d + 23 (fewer for a last, partial day); its peak is their max, its
    # mean their arithmetic mean, and the busiest hour is never below the mean
    rows = horizon_charts.daily_demand_rows(hours)
    days = -(-len(hours) // 24)
    assert len(rows) == 2 * days
    for d in range(days):
        chunk = np.asarray(hours[24 * d : 24 * d + 24])
        by = {r["series"]: r["rps"] for r in rows if r["day"] == d + 1}
        assert by["busiest hour"] == chunk.max()
        assert by["day's mean"] == pytest.approx(chunk.mean(), rel=1e-12)
        assert by["busiest hour"] >= by["day's mean"] * (1 - 1e-12)


def test_a_three_year_profile_draws_one_line_pair_per_day_within_altairs_row_limit() -> None:
    scenario = rackcost.load_scenario(
        next(p for p in rackcost.bundled_scenarios() if p.name == "deepseek-r1-three-year-buying-plan.yaml")
    )
    assert scenario.demand_profile is not None
    hourly = scenario.demand_profile.hourly_rates_rps()
    spec = horizon_charts.demand_over_time_chart(hourly).to_dict()
    values = next(iter(spec["datasets"].values()))
    assert len(values) == 2 * 3 * 365 <= 5000  # 26,280 hours drawn as 1,095 days, two lines
    assert max(v["rps"] for v in values) == pytest.approx(float(np.max(hourly)))


def test_the_cost_by_year_chart_draws_the_years_table_in_dollars_per_1000() -> None:
    years = [
        {"system": "A", "year": 1, "usd_per_accepted_request": 0.002},
        {"system": "A", "year": 2, "usd_per_accepted_request": 0.0015},
        {"system": "B", "year": 1, "usd_per_accepted_request": 0.003},
        {"system": "C", "year": 1, "usd_per_accepted_request": 0.001},
        {"system": "B", "year": 2, "usd_per_accepted_request": None},  # nothing accepted: not drawn
    ]
    spec = horizon_charts.cost_by_year_chart(years, ["A", "B"]).to_dict()
    values = next(iter(spec["datasets"].values()))
    got = {(v["system"], v["year"]): v["usd_per_1k"] for v in values}
    assert got == pytest.approx({("A", 1): 2.0, ("A", 2): 1.5, ("B", 1): 3.0})
    assert spec["encoding"]["shape"]["field"] == "system"  # coincident lines still differ by their points' shape
    assert display.REQUESTS_PER_1K == 1000.0


@pytest.mark.app
def test_the_results_page_and_the_demand_tab_show_a_profile_over_its_years() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.session_state["pending_upload"] = ((DATA / "plan_small.yaml").read_bytes(), "mine.yaml")
    at.run()
    assert not at.exception and not at.session_state["load_problems"]
    at.switch_page("app_pages/results.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Demand and cost over the horizon, year by year" in [h.value for h in at.header]
    years = [df for df in (d.value for d in at.dataframe) if "year" in df.columns]
    assert years and len(years[0]) == 3 * 1  # three systems, one year
    at.switch_page("app_pages/scenario.py").run()
    at.session_state["scenario_tab"] = "Demand"  # the open tab is a keyed widget: open it as a click would
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Demand over the horizon" in [h.value for h in at.subheader]
    assert any("years of hourly rates" in c.value for c in at.caption)
