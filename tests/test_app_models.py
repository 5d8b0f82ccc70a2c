"""The dashboard's Several models page, driven by Streamlit's AppTest: a models document (bundled, or uploaded) in
the library's tables (rackcost.reporting.models_section of rackcost.evaluate_models, as ``rackcost models``), the
attribution rule and the placement reaching the library, its CSV, and a bad document as its problems at their YAML
paths, never a traceback."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

import rackcost
from app_editing import record_downloads
from rackcost import files
from rackcost.reporting import models_section

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
PAGE = "app_pages/models.py"
DOCUMENT = "deepseek-r1-and-gpt-oss-120b-on-gb200.yaml"
TIMEOUT_S = 120  # a hang guard per script run (the first imports pandas, altair and the library)
sys.path.insert(0, str(ROOT / "app"))

pytestmark = pytest.mark.app


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def shown(text: str) -> str:
    """Markdown as the browser shows it: user text comes backslash-escaped (rackcost_app.safe.md)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def on_models_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.run()
    ok(at)
    at.switch_page(PAGE).run()
    ok(at)
    return at


def tables_of(at: AppTest) -> list[list[list[str]]]:
    return [d.value.astype(str).values.tolist() for d in at.dataframe]


def test_a_bundled_document_is_the_librarys_in_its_tables_rules_and_csv(monkeypatch) -> None:
    downloads = record_downloads(monkeypatch)
    at = on_models_page()
    assert at.selectbox(key="models_bundled").value == DOCUMENT
    result = rackcost.evaluate_models(DOCUMENT)
    rows, fleets = models_section.model_rows(result), models_section.fleet_rows(result)
    assert [shown(s.value) for s in at.subheader][0] == models_section.models_title(
        result.name, result.placement, result.rule
    )
    assert tables_of(at) == [models_section.model_table(rows).rows, models_section.fleet_table(fleets).rows]
    # the decision's figures first (at 1,400 px they sat past the right edge), every column still shown once
    headers = dict(models_section.model_table(rows).columns)
    shown_order = list(at.dataframe[0].proto.column_order)
    assert shown_order[:4] == [headers[k] for k in ("model", "system", "blended_usd_per_accepted_request")] + [
        headers["blended_usd_per_accepted_request_alone"]
    ]
    assert sorted(shown_order) == sorted(headers.values())
    fleet_headers = dict(models_section.fleet_table(fleets).columns)
    fleet_order = list(at.dataframe[1].proto.column_order)
    assert fleet_order[2:4] == [fleet_headers["usd_per_day"], fleet_headers["usd_per_day_apart"]]
    assert sorted(fleet_order) == sorted(fleet_headers.values())
    assert downloads["deepseek-r1-and-gpt-oss-120b-on-one-gb200-nvl72-fleet-models.csv"] == files.csv_text(rows)
    # the report's bytes are the library's (rackcost report of the document), but for the day it was made
    report = downloads["deepseek-r1-and-gpt-oss-120b-on-one-gb200-nvl72-fleet-report.html"]
    assert isinstance(report, str)
    assert undated(report) == undated(rackcost.models_report(DOCUMENT))
    assert "reservation-based attribution" in report
    at.radio(key="models_rule").set_value("usage").run()
    ok(at)
    usage = rackcost.evaluate_models(DOCUMENT, rule="usage")
    assert usage.models["usd_per_day"].tolist() != result.models["usd_per_day"].tolist()  # the rule moves the split
    assert tables_of(at)[0] == models_section.model_table(models_section.model_rows(usage)).rows
    at.radio(key="models_placement").set_value("separate").run()
    ok(at)
    apart = rackcost.evaluate_models(DOCUMENT, rule="usage", placement="separate")
    assert tables_of(at)[1] == models_section.fleet_table(models_section.fleet_rows(apart)).rows
    # the report follows the page's rule and placement, and says how to make it again with them
    report = downloads["deepseek-r1-and-gpt-oss-120b-on-one-gb200-nvl72-fleet-report.html"]
    assert isinstance(report, str)
    assert undated(report) == undated(rackcost.models_report(DOCUMENT, rule="usage", placement="separate"))
    assert "--rule usage --placement separate" in report


def undated(html: str) -> str:
    """A report without the day it was made (the subtitle's and the closing line's ISO date)."""
    return re.sub(r"\d{4}-\d{2}-\d{2}", "DATE", html)


def test_an_uploaded_document_is_read_and_a_bad_one_shows_its_problems() -> None:
    text = (ROOT / "scenarios" / "models" / DOCUMENT).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data["name"] = "Mine"
    at = on_models_page()
    at.session_state["models_upload"] = ("mine.yaml", yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    at.run()
    ok(at)
    assert shown(at.subheader[0].value).startswith("Mine: each model's cost per accepted request")
    assert any("Showing the uploaded mine.yaml" in shown(c.value) for c in at.caption)
    data["workloads"][0]["slo"]["ttft_limit_ms"] = -5
    at.session_state["models_upload"] = ("bad.yaml", yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    at.run()
    ok(at)
    errors = [shown(e.value) for e in at.error]
    assert errors[0].startswith("bad.yaml cannot be evaluated")
    assert any(e.startswith("workloads[0].slo.ttft_limit_ms: ") for e in errors[1:]), errors
    assert list(at.dataframe) == []
