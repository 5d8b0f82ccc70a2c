"""The dashboard's cached calls (:mod:`rackcost_app.compute`) read the library's one evaluation
(:func:`rackcost.evaluation.chain.evaluation`): its JSON export of every bundled scenario is the text of
``rackcost evaluate --format json``, table for table (a demand profile's ``years`` and ``horizon`` included), and its
report is the library's report of that same evaluation.

The export page builds its JSON as ``compute.evaluate(key).to_json()``, ``key`` the canonical JSON that loading the
file gives (:func:`rackcost_app.state.evaluable_json`); these tests call that path directly, without a browser.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app as cli_app
from rackcost.evaluation import chain

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import compute  # noqa: E402
from rackcost_app.state import evaluable_json  # noqa: E402
from test_unserved_analyses import data as three_systems  # noqa: E402

pytestmark = pytest.mark.app
DATE = "2026-01-01"


def _loaded(path: Path) -> str:
    """The key the dashboard computes from after loading a scenario file (as the Scenario page loads it)."""
    return evaluable_json(rackcost.load_scenario(path))


@pytest.mark.parametrize("path", rackcost.bundled_scenarios(), ids=lambda p: p.name)
def test_the_json_export_is_the_cli_json(path: Path) -> None:
    cli = CliRunner().invoke(cli_app, ["evaluate", str(path), "--format", "json"])
    assert cli.exit_code == 0, cli.output
    exported = compute.evaluate(_loaded(path)).to_json()
    assert exported + "\n" == cli.stdout


def test_the_json_export_of_a_demand_profile_has_its_horizon_tables() -> None:
    """The three-year buying plan's export holds its ``years`` (one row per system and year) and ``horizon``
    tables, as ``rackcost evaluate`` does."""
    path = rackcost.bundled_scenario_path("deepseek-r1-three-year-buying-plan.yaml")
    records = compute.evaluate(_loaded(path)).records
    assert records["years"] and records["horizon"]
    assert records["years"] == rackcost.evaluate(rackcost.load_scenario(path)).records["years"]


def test_the_export_of_a_scenario_with_an_unserved_system_is_the_library_result(tmp_path: Path) -> None:
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump(three_systems()), encoding="utf-8")
    result = compute.evaluate(_loaded(path))
    assert result.unserved
    assert result.to_json() == rackcost.evaluate(rackcost.load_scenario(path)).to_json()


def test_an_edit_evaluates_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page's cached call reads one evaluation: the result, the outcomes and the scenario served (steps 4 to 8
    run once)."""
    calls: list[int] = []
    original = chain.run_samples
    monkeypatch.setattr(chain, "run_samples", lambda *a, **k: calls.append(1) or original(*a, **k))
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["name"] += " (evaluated once)"  # a key no earlier test cached
    key = evaluable_json(rackcost.scenario_from_dict(data, "once.yaml"))
    result, outcomes = compute.evaluate(key), compute.outcomes(key)
    compute.kv_limit_notes(key), compute.curves(key), compute.cliff(key)
    assert calls == [1]
    assert outcomes == list(compute.evaluation(key).outcomes)
    assert result.records == compute.evaluation(key).result.records


def test_an_edit_unpacks_each_system_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The draft's split (``evaluable_json``) unpacks each system's inputs in the canonical JSON's order, so the
    evaluation reads them rather than unpacking every system again (it did, the split having unpacked them in the
    draft's order); the result is still the library's, bit for bit."""
    from rackcost.evaluation import servable, steps

    unpacked: list[str] = []
    for module in (servable, steps):
        original = module.any_system_inputs
        monkeypatch.setattr(
            module, "any_system_inputs", lambda sc, s, _f=original: unpacked.append(s.name) or _f(sc, s)
        )
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["name"] += " (unpacked once)"  # a key no earlier test cached
    data["facility"] = dict(reversed(list(data["facility"].items())))  # not the JSON's order
    key = evaluable_json(rackcost.scenario_from_dict(data, "once.yaml"))
    result = compute.evaluate(key)
    assert sorted(unpacked) == sorted(s["name"] for s in data["systems"])
    assert result.to_json() == rackcost.evaluate(rackcost.scenario_from_dict(data, "once.yaml")).to_json()


def test_the_dashboard_report_is_the_report_of_its_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Export page's report words the evaluation the other pages show (it does not evaluate again), and is the
    library's report of the same scenario, byte for byte."""
    # the report's analyses (how sure, what would change, cost against demand) run the Monte Carlo, whose module
    # binds run_samples when first imported: imported here first, so that only the central chain's calls are counted
    # whatever ran before (alone, this test once imported it under the patch and counted the Monte Carlo's samples)
    importlib.import_module("rackcost.analysis.montecarlo")
    path = rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml")
    key = _loaded(path)
    compute.evaluate(key)
    calls: list[int] = []
    original = chain.run_samples
    monkeypatch.setattr(chain, "run_samples", lambda *a, **k: calls.append(1) or original(*a, **k))
    html = compute.report_html(key, 20, 0, DATE).decode("utf-8")
    assert calls == []
    monkeypatch.undo()
    assert html == rackcost.report(compute.scenario(key), samples=20, seed=0, date=DATE)
