"""The dashboard's Results page shows each request class and each prefill/decode pool (issue 23, item 1) with the
report's rows, only for a scenario that has them, and the Export page offers their CSV; driven by Streamlit's
AppTest (tests/test_app.py says how an upload is simulated)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import rackcost
from app_editing import record_downloads
from rackcost.reporting.breakdowns import class_view_rows, pool_fleet_rows
from reference import DATA, TWO_SYSTEMS

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
TIMEOUT_S = 120  # a hang guard per script run (the first imports pandas, altair and the library)
CLASSES_LABEL = "Request classes"
POOLS_LABEL = "Prefill and decode pools"

sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import tables  # noqa: E402

pytestmark = pytest.mark.app


def results_of(path: Path, monkeypatch) -> tuple[AppTest, dict[str, str]]:
    """The app with a scenario file uploaded, on its Results page and then its Export page, and the CSV files the
    Export page offers (file name -> text)."""
    downloads = record_downloads(monkeypatch)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.run()
    at.session_state["pending_upload"] = (path.read_bytes(), path.name)
    at.run()
    assert not at.exception and not at.session_state["load_problems"]
    at.switch_page("app_pages/export.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("app_pages/results.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at, {name: str(text) for name, text in downloads.items() if name.endswith(".csv")}


def section(at: AppTest, starts: str) -> list | None:
    """The tables of the page's section whose header starts with ``starts`` (up to the next header), None when the
    page has no such section. Request classes and pools are sections of their own, not expanders (a detail of the
    points table, they were half hidden)."""
    found, tables_in = None, []
    for node in at.main:  # depth first, in the page's order
        if node.type == "header":
            if found is not None:
                break
            found = node.value.startswith(starts) or None
        elif found and node.type == "dataframe":
            tables_in.append(node)
    assert not [e for e in at.expander if e.label.startswith(starts)]
    return tables_in if found else None


def test_the_results_page_shows_each_request_class_as_the_report_does(monkeypatch) -> None:
    path = DATA / "three_classes.yaml"
    at, csvs = results_of(path, monkeypatch)
    box = section(at, CLASSES_LABEL)
    assert box is not None and section(at, POOLS_LABEL) is None
    mix, per_class = (d.value for d in box)
    assert list(mix["class"]) == ["chat", "reasoning", "agentic"]
    assert list(mix["ttft_limit_ms"]) == [2000, 3000, 4000] and list(mix["attainment_fraction"]) == [0.99, 0.99, 0.95]
    scenario = rackcost.load_scenario(path)
    result = rackcost.evaluate(scenario)
    expected = class_view_rows(scenario, result.records["classes"])
    assert list(per_class.columns) == list(tables.CLASS_COLUMNS)
    assert len(per_class) == len(expected) == 2 * 3 * 4
    for shown, row in zip(per_class.to_dict("records"), expected, strict=True):
        for name in ("system", "demand_point", "class"):
            assert shown[name] == row[name]
        for name in ("accepted_fraction", "slot_time_fraction", "usd_per_accepted_request"):
            assert shown[name] == pytest.approx(row[name], rel=1e-12)  # the number; the registry writes its text
    # the export offers the classes table as the library writes it
    (classes_csv,) = [text for name, text in csvs.items() if name.endswith("-classes.csv")]
    assert classes_csv == result.to_csv("classes")
    assert not [name for name in csvs if name.endswith("-pools.csv")]


def test_the_results_page_shows_each_pool_of_a_disaggregated_system(monkeypatch) -> None:
    path = DATA / "disaggregated.yaml"
    at, csvs = results_of(path, monkeypatch)
    box = section(at, POOLS_LABEL)
    assert box is not None and section(at, CLASSES_LABEL) is None
    fleet, points = (d.value for d in box)
    result = rackcost.evaluate(rackcost.load_scenario(path))
    pools = result.records["pools"]
    shown = [
        {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()}
        for r in fleet.to_dict("records")
    ]  # a figure that does not apply (a prefill pool's TPOT) is empty: NaN
    expected = pool_fleet_rows(pools)
    assert len(shown) == len(expected)
    for got_row, want_row in zip(shown, expected, strict=True):
        for key, want in want_row.items():
            got = got_row[key]
            if isinstance(got, str) and not isinstance(want, str):
                # a column with an empty cell goes to the browser as the registry's text (no grey None drawn)
                assert got == tables.POOL_FLEET_COLUMNS[key].format(want), key
            else:
                assert got == want, key
    assert list(points.columns) == list(tables.POOL_POINT_COLUMNS)
    assert list(points["cost_share_fraction"]) == [r["cost_share_fraction"] for r in pools]
    assert list(points["utilization_fraction"]) == [r["utilization_fraction"] for r in pools]
    (pools_csv,) = [text for name, text in csvs.items() if name.endswith("-pools.csv")]
    assert pools_csv == result.to_csv("pools")


def test_a_scenario_of_one_class_and_no_pools_shows_neither(monkeypatch) -> None:
    at, csvs = results_of(TWO_SYSTEMS, monkeypatch)
    assert section(at, CLASSES_LABEL) is None and section(at, POOLS_LABEL) is None
    assert {name.rsplit("-", 1)[-1] for name in csvs} == {"points.csv", "systems.csv", "comparison.csv"}
