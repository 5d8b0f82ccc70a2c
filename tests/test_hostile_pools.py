"""A disaggregated system that accepts nothing at a demand point: an outcome on every face, never a traceback.

The scenario: ``tests/data/disaggregated.yaml`` with its demand a thousand times larger and a prefill curve whose
prefill time rises from about 2 ms at 2 requests to 1e7 ms at 4 and falls to 25.55 ms at 1e6 (a hostile user's
curve). The decode pool sets the capacity; the prefill pool, at the batch the load sustains, misses every request's
SLO, so the system accepts 0 requests/s at every point. A cost per accepted request is then undefined: null in the
records and JSON, an empty CSV cell, ``-`` in a table (it was ``ValueError: points.usd_per_accepted_request is not
finite (inf)`` in evaluate, compare, report, uncertainty and the dashboard).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from rackcost.scenario.loading import scenario_from_dict
from reference import DATA, find_non_finite

runner = CliRunner()
NON_FINITE = re.compile(r"\b(nan|-?inf(inity)?)\b", re.IGNORECASE)
"""A non-finite number as Python, numpy, JSON or a CSV writer prints it."""
SYSTEM = "A disaggregated"


def _accepting_nothing() -> dict:
    data = yaml.safe_load((DATA / "disaggregated.yaml").read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    for point in data["demand"]:
        point["arrival_rps"] *= 1000
    pools = next(s for s in data["systems"] if "pools" in s)["pools"]
    pools["prefill"]["points"] = [
        {"concurrency": 2, "input_tokens_per_s": 1e6},
        {"concurrency": 4, "prefill_ms": 1e7},
        {"concurrency": 1e6, "prefill_ms": 25.55},
    ]
    return data


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "nothing_accepted.yaml"
    path.write_text(yaml.safe_dump(_accepting_nothing(), sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def uncertain_file(tmp_path: Path) -> Path:
    """The scenario with an uncertain electricity price: the Monte Carlo runs (without one it only evaluates)."""
    data = _accepting_nothing()
    data["facility"]["electricity_usd_per_kwh"] = {"dist": "uniform", "low": 0.05, "high": 0.15}
    path = tmp_path / "nothing_accepted_uncertain.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_nothing_accepted_is_an_undefined_cost_not_a_crash() -> None:
    result = rackcost.evaluate(scenario_from_dict(_accepting_nothing()))
    rows = [r for r in result.records["points"] if r["system"] == SYSTEM]
    assert rows and all(r["accepted_rps"] == 0.0 for r in rows)
    assert all(r["usd_per_accepted_request"] is None for r in rows)
    assert all(r["usd_per_million_accepted_output_tokens"] is None for r in rows)
    assert all(r["total_usd_per_hour"] > 0 for r in rows)  # the fleet still costs what it costs
    system = next(s for s in result.records["systems"] if s["system"] == SYSTEM)
    assert system["blended_usd_per_accepted_request"] is None and system["accepted_requests_per_day"] == 0.0
    pools = [p for p in result.records["pools"] if p["system"] == SYSTEM]
    assert pools and all(p["usd_per_accepted_request"] is None for p in pools)
    assert not find_non_finite(result.to_dict())
    assert any(SYSTEM in w and "accepts no request" in w for w in result.warnings)
    # the other system's figures are what they are alone
    other = next(s for s in result.records["systems"] if s["system"] == "A")
    assert other["blended_usd_per_accepted_request"] > 0


@pytest.mark.parametrize("command", ["evaluate", "compare"])
@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_every_format_of_evaluate_and_compare_shows_the_undefined_cost(
    scenario_file: Path, command: str, fmt: str
) -> None:
    out = runner.invoke(app, [command, str(scenario_file), "--format", fmt])
    assert out.exit_code == 0, out.output
    assert "Traceback" not in out.output and "not finite" not in out.output
    assert not NON_FINITE.search(out.output), NON_FINITE.search(out.output)
    if fmt == "json":
        json.loads(out.stdout)  # strict JSON: no NaN or Infinity


def test_the_report_and_the_uncertainty_run_to_the_end(uncertain_file: Path, tmp_path: Path) -> None:
    scenario_file = uncertain_file
    report = tmp_path / "report.html"
    out = runner.invoke(app, ["report", str(scenario_file), "--output", str(report), "--samples", "20"])
    assert out.exit_code == 0, out.output
    assert report.exists() and "Traceback" not in report.read_text(encoding="utf-8")
    for fmt in ("table", "json", "csv"):
        out = runner.invoke(app, ["uncertainty", str(scenario_file), "--samples", "20", "--format", fmt])
        assert out.exit_code == 0, out.output
        assert not NON_FINITE.search(out.output), NON_FINITE.search(out.output)
        if fmt == "json":
            rows = json.loads(out.stdout)["percentiles"]
            undefined = [r for r in rows if r["system"] == SYSTEM and r["column"] == "usd_per_accepted_request"]
            assert undefined and all(r["p50"] is None for r in undefined)


PAGES = (
    "app_pages/answer.py",
    "app_pages/scenario.py",
    "app_pages/results.py",
    "app_pages/claim.py",
    "app_pages/uncertainty.py",
    "app_pages/export.py",
)
"""The dashboard's pages that read an evaluation (the sweep and plan pages run their own inputs)."""


@pytest.mark.app
def test_every_dashboard_page_shows_the_undefined_cost() -> None:
    from streamlit.testing.v1 import AppTest

    data = _accepting_nothing()
    data["facility"]["electricity_usd_per_kwh"] = {"dist": "uniform", "low": 0.05, "high": 0.15}
    root = Path(__file__).resolve().parents[1]
    at = AppTest.from_file(str(root / "app" / "streamlit_app.py"), default_timeout=120)
    at.session_state["uncertainty_samples"] = 1_000
    at.run()
    at.session_state["pending_upload"] = (yaml.safe_dump(data).encode("utf-8"), "nothing_accepted.yaml")
    at.run()
    assert not at.exception and not at.session_state["load_problems"]
    for page in PAGES:
        at.switch_page(page)
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
