"""Numbers for reading (k / M, dollars with sensible decimals) and the cost split of the dashboard's chart."""

from __future__ import annotations

import doctest

import pytest

import rackcost
from rackcost import display


def test_docstring_examples():
    failures, tried = doctest.testmod(display)
    assert tried > 0 and failures == 0


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0, "$0"),
        (0.000399, "$0.000399"),
        (0.5, "$0.500"),
        (1, "$1.00"),
        (999.994, "$999.99"),
        (1000, "$1,000"),
        (43_505_000, "$43,505,000"),
        (-2.5, "-$2.50"),
    ],
)
def test_money(x, text):
    assert display.money(x) == text


@pytest.mark.parametrize(
    ("x", "text"),
    [(0, "0"), (999, "999"), (1000, "1k"), (1413.69, "1.41k"), (2.5e6, "2.5M"), (7e9, "7G"), (-1200, "-1.2k")],
)
def test_num(x, text):
    assert display.num(x) == text


def test_column_formats_show_three_significant_digits_of_the_smallest_value():
    assert display.usd_column_format([0.00073, 0.0018]) == "$%.6f"
    assert display.usd_column_format([0.0, 0.0]) == "$%.0f"
    assert display.number_column_format([]) == "%.0f"
    assert display.number_column_format([0.2117, 0.85]) == "%.3f"


def test_cost_split_adds_up_to_the_library_figure():
    result = rackcost.evaluate(rackcost.load_scenario(rackcost.bundled_scenario_path()))
    parts = display.cost_components_per_request(result.records["points"])
    assert len(parts) == 3 * len(result.records["points"])
    for p in result.records["points"]:
        mine = [r for r in parts if r["system"] == p["system"] and r["demand_point"] == p["demand_point"]]
        assert [r["component"] for r in mine] == ["capital", "fixed opex", "energy"]
        assert sum(r["usd_per_accepted_request"] for r in mine) == pytest.approx(p["usd_per_accepted_request"])
        energy = mine[2]["usd_per_accepted_request"]
        assert energy == pytest.approx(p["energy_usd_per_hour"] / (p["accepted_rps"] * 3600))


def test_slo_interactivity_limit():
    assert display.slo_interactivity_limit(40) == 25.0
