"""The dashboard's result tables format numbers as the CLI does (issue 11: "$9.72e-05", "1.2K" vs "1.2k")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import rackcost

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import tables  # noqa: E402

pytestmark = pytest.mark.app


@pytest.fixture(scope="module")
def records() -> dict:
    return rackcost.evaluate(rackcost.load_scenario(rackcost.bundled_scenario_path())).records


def test_a_cost_per_request_is_shown_per_thousand_requests(records) -> None:
    points = records["points"]
    shown = tables.shown_rows(points, tables.POINT_COLUMNS)
    for row, out in zip(points, shown, strict=True):
        assert out["usd_per_accepted_request"] == pytest.approx(1000 * row["usd_per_accepted_request"])
        assert out["total_usd_per_hour"] == row["total_usd_per_hour"]
    header = tables.POINT_COLUMNS["usd_per_accepted_request"][0]
    assert "per 1,000 accepted requests" in header
    assert "per 1,000 accepted requests" in tables.SYSTEM_COLUMNS["blended_usd_per_accepted_request"][0]


@pytest.mark.parametrize("which", ["points", "systems"])
def test_no_column_is_scientific_and_counts_have_separators(records, which) -> None:
    columns = tables.POINT_COLUMNS if which == "points" else tables.SYSTEM_COLUMNS
    rows = tables.shown_rows(records[which], columns)
    config = tables.column_config(rows, columns)
    for column, (_, kind) in columns.items():
        fmt = config[column].get("type_config", {}).get("format")
        assert fmt not in ("scientific", "engineering"), column
        if kind == "int":
            assert fmt == "localized", column  # 4,861, as the CLI's counts
        if kind in ("usd", "usd_per_1k"):
            assert fmt is not None and fmt not in ("%d", "%.0f"), column
    # capex is money, in the suffix style of the CLI (K / M / B / T), not a bare number
    assert tables.SYSTEM_COLUMNS["capex_usd"][1] == "usd"
    if which == "systems":
        assert config["capex_usd"]["type_config"]["format"] == "compact"


def test_the_results_systems_table_shows_kw_per_rack_beside_the_rack_limit(records) -> None:
    """The rack in kW on the Results page: the registry's columns, with their unit in the header."""
    for name in ("mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw"):
        header, kind = tables.SYSTEM_COLUMNS[name]
        assert header.endswith("[kW per rack]") and kind == "num"
        assert all(r[name] is not None for r in records["systems"])  # two owned systems
