"""The dashboard's Buying plan page (issue 24, item 4), driven by Streamlit's AppTest on the small plan fixture
(tests/data/plan_small.yaml, about a second a plan): the plan is found on the button, or by the Answer page that leads
with it, once per scenario, and the page shows the report's sentence, tables and chart and a CSV of the periods; a
scenario without a plan shows how to add one and no error."""

from __future__ import annotations

import csv
import io
import re
import sys
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

import rackcost
from app_editing import edit_table, editor, record_downloads
from rackcost.evaluation.planning import plan_scenario
from rackcost.reporting import plan_section
from reference import DATA

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
PAGE = "app_pages/plan.py"
SMALL = DATA / "plan_small.yaml"
TIMEOUT_S = 120  # a hang guard per script run (the first imports pandas, altair and the library)
sys.path.insert(0, str(ROOT / "app"))

pytestmark = pytest.mark.app


def shown(text: str) -> str:
    """Markdown as the browser shows it: user text comes backslash-escaped (rackcost_app.safe.md)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def on_plan_page(upload: Path | bytes | None = None) -> AppTest:
    """The app on the Plan page, with a scenario file (or its bytes) uploaded, else the default scenario."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.run()
    ok(at)
    if upload is not None:
        data = upload if isinstance(upload, bytes) else upload.read_bytes()
        at.session_state["pending_upload"] = (data, "mine.yaml")
        at.run()
        ok(at)
        assert not at.session_state["load_problems"]
    at.switch_page(PAGE).run()
    ok(at)
    return at


def test_a_scenario_without_a_plan_shows_how_to_add_one_and_no_error() -> None:
    at = on_plan_page()  # the default scenario: no plan block
    assert at.session_state["draft"].get("plan") is None
    assert [e.value for e in at.error] == []
    (note,) = [i.value for i in at.info]
    assert "has no buying plan" in note and "docs/model.md, *The buying plan*" in note
    assert "needs the demand hour by hour" in note  # the default scenario's demand is a day: no plan can be added
    assert [b for b in at.button if b.key == "plan_add"] == []
    assert [b for b in at.button if b.key == "plan_run"] == []
    assert list(at.get("download_button")) == []


def test_the_plan_shows_the_answer_the_tables_the_chart_and_a_csv(monkeypatch) -> None:
    downloads = record_downloads(monkeypatch)
    at = on_plan_page(SMALL)
    assert [i.value for i in at.info] == []
    plan = plan_scenario(rackcost.load_scenario(SMALL))
    # the Answer page the upload opened on leads with the plan, so it was found there: shown without the button
    assert [shown(s.value) for s in at.subheader] == [plan_section.plan_sentence(plan)]
    at.button(key="plan_run").click().run()
    ok(at)
    assert [e.value for e in at.error] == []
    assert [shown(s.value) for s in at.subheader] == [plan_section.plan_sentence(plan)]
    holdings = "\n".join(shown(m.value) for m in at.markdown)
    assert "Session key" not in holdings  # no string of the page's source shown by Streamlit's magic
    for item in plan_section.holdings(plan):
        assert f"- {item}" in holdings
    quarters, years = (d.value for d in at.dataframe if d.editing_mode == "read_only")  # (the sources' form aside)
    table = plan_section.quarter_table(plan)
    assert list(quarters.columns) == [header for _, header in table.columns]
    assert quarters.values.tolist() == table.rows  # the report's cells
    assert years.values.tolist() == plan_section.year_table(plan).rows
    assert len(list(at.get("vega_lite_chart"))) == 1
    # the CSV is the plan's periods, every column, one row per quarter
    (name,) = [n for n in downloads if n.endswith("-plan.csv")]
    rows = list(csv.DictReader(io.StringIO(downloads[name])))
    assert list(rows[0]) == list(plan.periods.columns)
    assert [float(r["cost_usd"]) for r in rows] == pytest.approx(plan.periods["cost_usd"].tolist(), rel=1e-12)
    assert [r["spot A: most replicas"] for r in rows] == ["3.0", "3.0", "3.0", "4.0"]
    # another page and back: the plan is kept for this scenario (cached), no button needed
    at.switch_page("app_pages/claim.py").run()
    at.switch_page(PAGE).run()
    ok(at)
    assert [shown(s.value) for s in at.subheader] == [plan_section.plan_sentence(plan)]


def test_a_plan_no_mix_can_meet_shows_why_and_no_exception() -> None:
    data = yaml.safe_load(SMALL.read_text(encoding="utf-8"))
    # one spot replica at most, nothing else: about 10 requests/s against a busiest hour of 28
    data["plan"]["sources"] = [dict(data["plan"]["sources"][3], max_units=1)]
    at = on_plan_page(yaml.safe_dump(data, sort_keys=False).encode("utf-8"))
    at.button(key="plan_run").click().run()
    ok(at)
    (message,) = [shown(e.value) for e in at.error]
    assert message.startswith("No plan: plan")
    assert [d for d in at.dataframe if d.editing_mode == "read_only"] == []
    assert list(at.get("download_button")) == []


def test_a_source_named_like_markdown_is_shown_as_written() -> None:
    from rackcost_app.safe import md

    data = yaml.safe_load(SMALL.read_text(encoding="utf-8"))
    hostile = "![x](http://a.example/p.png) *spot*"
    data["plan"]["sources"][3]["name"] = hostile
    at = on_plan_page(yaml.safe_dump(data, sort_keys=False).encode("utf-8"))
    at.button(key="plan_run").click().run()
    ok(at)
    texts = [s.value for s in at.subheader] + [m.value for m in at.markdown] + [c.value for c in at.caption]
    assert md(hostile) in at.subheader[0].value  # the best single source, by its name, escaped
    assert not [t for t in texts if "![" in t or "](http" in t]


def test_a_sources_limit_edited_in_the_plans_form_changes_the_plan() -> None:
    at = on_plan_page(SMALL)
    sources = editor(at, "plan.sources").value
    assert sources["name"].tolist() == ["owned A", "reserved A", "on-demand A", "spot A", "API"]
    assert sources["kind"].tolist() == ["owned", "reserved", "on_demand", "spot", "api"]
    assert sources["lead_time_quarters"].tolist()[0] == 1
    before = plan_scenario(rackcost.load_scenario(SMALL))
    assert before.periods["spot A: most replicas"].max() == 4
    edit_table(at, "plan.sources", {"edited_rows": {"3": {"max_units": 1}}})  # at most one spot replica
    assert at.session_state["problems"] == []
    assert at.session_state["draft"]["plan"]["sources"][3]["max_units"] == 1  # an int, as the schema has it
    assert [b for b in at.button if b.key == "plan_run"], "an edit asks for the plan again"
    at.button(key="plan_run").click().run()
    ok(at)
    data = yaml.safe_load(SMALL.read_text(encoding="utf-8"))
    data["plan"]["sources"][3]["max_units"] = 1
    after = plan_scenario(rackcost.scenario_from_dict(data))
    assert after.periods["spot A: most replicas"].max() == 1
    assert [shown(s.value) for s in at.subheader] == [plan_section.plan_sentence(after)]
    quarters = next(d.value for d in at.dataframe if d.editing_mode == "read_only")
    assert quarters.values.tolist() == plan_section.quarter_table(after).rows
    assert plan_section.quarter_table(after).rows != plan_section.quarter_table(before).rows


def test_add_a_plan_starts_one_source_per_system_for_a_scenario_with_a_profile() -> None:
    data = yaml.safe_load(SMALL.read_text(encoding="utf-8"))
    del data["plan"]
    at = on_plan_page(yaml.safe_dump(data, sort_keys=False).encode("utf-8"))
    assert [b for b in at.button if b.key == "plan_run"] == []
    at.button(key="plan_add").click().run()
    ok(at)
    assert at.session_state["problems"] == []
    assert at.session_state["draft"]["plan"]["sources"] == [
        {"name": "A owned", "kind": "owned", "system": "A"},
        {"name": "B owned", "kind": "owned", "system": "B"},
        {"name": "API", "kind": "api", "system": "API"},
    ]
    assert editor(at, "plan.sources").value["name"].tolist() == ["A owned", "B owned", "API"]
    at.button(key="plan_run").click().run()
    ok(at)
    assert [e.value for e in at.error] == []
    assert len(at.subheader) == 1  # the plan's decision
