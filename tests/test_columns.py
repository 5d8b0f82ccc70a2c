"""The registry of result columns (rackcost.evaluation.columns): every table the project writes has exactly its
columns, in its order, with a unit and a meaning each; headers and formats come from it."""

from __future__ import annotations

import pytest

import rackcost
from rackcost.analysis.site_budget import site_budget
from rackcost.evaluation.columns import KINDS, TABLES, column, column_names, columns, in_order, select
from rackcost.scenario.loading import bundled_scenario_path, scenario_from_dict, scenario_to_data
from reference import TWO_SYSTEMS

OWN_RENT_API = bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api")  # API and rented systems, and revenue


@pytest.mark.parametrize("path", [TWO_SYSTEMS, OWN_RENT_API], ids=["two_systems", "own-vs-rent-vs-api"])
def test_every_table_has_the_registry_columns_in_order(path) -> None:
    scenario = rackcost.load_scenario(path)
    result = rackcost.evaluate(scenario)
    revenue = scenario.revenue is not None
    swing = any(d.rate_swing is not None for d in scenario.demand)
    for table in ("points", "systems", "comparison"):
        rows = result.records[table]
        assert rows, table
        for row in rows:
            assert tuple(row) == column_names(table, revenue=revenue, rate_swing=swing), table
    assert list(result.comparison.columns) == list(column_names("comparison"))


def test_the_own_rent_api_scenario_has_revenue_and_api_rows() -> None:
    """So that the test above covers the revenue columns and an API system's rows (which are made apart)."""
    scenario = rackcost.load_scenario(OWN_RENT_API)
    assert scenario.revenue is not None and any(s.api is not None for s in scenario.systems)


def test_the_site_table_has_the_registry_columns_in_order() -> None:
    data = scenario_to_data(rackcost.load_scenario(TWO_SYSTEMS))
    data["facility"]["max_it_power_kw"] = 5000.0
    rows = site_budget(scenario_from_dict(data))
    assert rows and all(tuple(r) == column_names("site") for r in rows)


def test_an_api_system_has_no_value_where_the_registry_says_fleet_only() -> None:
    result = rackcost.evaluate(rackcost.load_scenario(OWN_RENT_API))
    api = [r for r in result.records["points"] if r["routing"] == "api"]
    assert api
    for row in api:
        for c in columns("points"):
            if c.fleet_only:
                assert row[c.name] in (None, 0, 0.0), c.name


def test_every_column_has_a_unit_a_label_a_meaning_and_a_known_kind() -> None:
    for table in TABLES:
        names = column_names(table)
        assert len(set(names)) == len(names), table  # one column per name in a table
        for c in columns(table):
            assert c.unit and c.label and c.meaning and c.kind in KINDS, c
            assert c.table == table and column(table, c.name) is c


def test_headers_carry_the_unit_the_value_is_shown_in() -> None:
    assert column("points", "accepted_rps").header == "accepted within SLO [requests/s]"
    assert column("points", "rejected_fraction").header == "rejected [% of offered]"
    assert column("points", "usd_per_accepted_request").header == "cost [$ per 1,000 accepted requests]"
    assert column("points", "status").header == "status"  # words: no unit
    assert column("points", "racks").header == "racks"  # a unit that repeats the label is not repeated
    assert column("systems", "racks").header == "racks [count]"


def test_formats_follow_the_kind() -> None:
    assert column("points", "usd_per_accepted_request").format(0.000792) == "$0.792"  # per 1,000 requests
    assert column("points", "rejected_fraction").format(0.25) == "25.0%"
    assert column("systems", "provisioned_replicas").format(4861) == "4,861"
    assert column("systems", "headline_is_vendor_claim").format(True) == "yes"
    assert column("points", "ttft_p99_ms").format(None) == "-"
    assert column("site", "unserved_rps").format({"peak": 2.0}) == "peak: 2"


def test_revenue_columns_only_with_revenue() -> None:
    with_revenue, without = column_names("points"), column_names("points", revenue=False)
    assert set(with_revenue) - set(without) == {"revenue_usd_per_hour", "margin_usd_per_hour"}
    assert with_revenue[: len(without)] == without  # added at the end, as the tables add them


def test_a_name_not_in_the_registry_is_refused() -> None:
    with pytest.raises(KeyError, match="no column 'not_a_column' in the points table"):
        column("points", "not_a_column")
    with pytest.raises(KeyError, match="no column 'capex_usd' in the points table"):
        select("points", ("offered_rps", "capex_usd"))
    with pytest.raises(AssertionError, match="extra \\['b'\\], missing \\['c'\\]"):
        in_order({"a": 1, "b": 2}, ("a", "c"))
