"""Numbers for reading (K / M, dollars with sensible decimals) and the cost split of the dashboard's chart."""

from __future__ import annotations

import doctest
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
        (43_505_000, "$43.5M"),
        (41_909_657, "$41.9M"),
        (999_999, "$999,999"),
        (-2.5, "-$2.50"),
        (9.72e-05, "$0.0000972"),
        (8.70e-05, "$0.0000870"),
        (0.000999, "$0.000999"),
        (0.0009996, "$0.00100"),
        (0.9996, "$1.00"),
        (1.5e9, "$1.5B"),
        (2e12, "$2T"),
        (1e-308, "<$0.000001"),
        (1e300, ">$1,000T"),
        (float("inf"), "n/a"),
    ],
)
def test_money(x, text):
    assert display.money(x) == text


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0, "0"),
        (999, "999"),
        (999.9, "1K"),
        (1000, "1K"),
        (1413.69, "1.41K"),
        (999_999, "1M"),
        (2.5e6, "2.5M"),
        (7e9, "7B"),
        (-1200, "-1.2K"),
        (0.0000123, "0.0000123"),
        (44948.2, "44.9K"),
        (1e-300, "<0.000001"),
        (1e300, ">1,000T"),
    ],
)
def test_num(x, text):
    assert display.num(x) == text


MONEY_TEXT = re.compile(r"^-?(<|>)?\$\d{1,3}(,\d{3})*(\.\d+)?[KMBT]?$")


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-1e308, max_value=1e308, allow_nan=False, allow_infinity=False))
def test_money_is_never_in_scientific_notation(x):
    """Issue 11: no formatted amount has an exponent ('e+'/'e-'), whatever its size; the text is a plain amount."""
    for text in (display.money(x), display.usd_per_1k_requests(x), display.num(x), display.ratio(abs(x))):
        assert "e+" not in text and "e-" not in text and "e" not in text.replace("n/a", ""), text
        assert len(text) <= 14, text
    assert MONEY_TEXT.match(display.money(x)), display.money(x)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-6, max_value=1e15 * 0.999))
def test_money_reads_back_within_its_rounding(x):
    """Round trip: the amount shown, read back (with its suffix), is within 0.5% of the amount (3 digits shown)."""
    text = display.money(x).lstrip("$")
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}.get(text[-1], 1.0)
    back = float(text.rstrip("KMBT").replace(",", "")) * scale
    assert math.isclose(back, x, rel_tol=5e-3)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-6, max_value=1e15 * 0.999))
def test_num_reads_back_within_its_rounding(x):
    text = display.num(x)
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}.get(text[-1], 1.0)
    assert math.isclose(float(text.rstrip("KMBT").replace(",", "")) * scale, x, rel_tol=5e-3)


def test_one_suffix_style_in_the_cli_and_the_dashboard():
    """Issue 11: '1.2k' in the CLI but '1.2K' in the dashboard's compact columns: K everywhere now."""
    assert display.num(1200) == "1.2K"
    assert display.money(47.5e6) == "$47.5M"


def test_counts_have_thousands_separators():
    assert display.count(4861) == "4,861"
    assert display.count(1000) == "1,000"


def test_per_request_cost_is_shown_per_thousand_requests():
    assert display.usd_per_1k_requests(9.72e-05) == "$0.0972"
    assert display.usd_per_1k_requests(0.00181) == "$1.81"
    assert "1,000 requests" in display.PER_1K_REQUESTS


@pytest.mark.parametrize(
    ("path", "value", "text"),
    [
        ("facility.electricity_usd_per_kwh", 0.0851, "$0.0851 per kWh"),
        ("systems[1].costs.capex_usd_per_rack", 44948.2, "$44,948 per rack"),
        ("systems[0].costs.software_usd_per_accelerator_year", 1200, "$1,200 per accelerator-year"),
        ("systems[1].hardware.accelerator_busy_w", 1200, "1,200 W"),
        ("systems[0].hardware.host_w_per_node", 800, "800 W per node"),
        ("demand[0].arrival_rps", 44948, "44.9K requests/s"),
        ("fleet.replica_availability_fraction", 0.95, "95.0%"),
        ("systems[0].costs.maintenance_fraction_per_year", 0.03, "3.0% per year"),
        ("systems[0].costs.service_life_years", 5, "5 years"),
        ("systems[0].performance.points[2].throughput_tokens_per_s", 5000, "5K tokens/s"),
        ("facility.pue", 1.3, "1.3 (dimensionless)"),
        ("fleet.power_utilization_exponent", 1.0, "1 (dimensionless)"),
        ("uncertainty.throughput_derate.vendor", 0.85, "0.85x"),
        ("facility.colocation_usd_per_kw_month", 150, "$150.00 per kW-month"),
        ("facility.build_usd_per_kw", 10000, "$10,000 per kW"),
    ],
)
def test_every_uncertain_input_has_its_unit(path, value, text):
    """Issue 11: break-even and tornado values without units: the unit comes from the field name's suffix."""
    assert display.input_value(value, path) == text


def test_milliseconds_and_watts_are_read_in_whole_units():
    """Issue 36: "1.4K ms" in the dashboard where the CLI prints 1,400: one rule for every face."""
    from rackcost.evaluation.columns import column

    assert display.whole(1412.6) == "1,413" and display.whole(12.34) == "12.3"
    assert column("points", "ttft_p99_ms").format(1412.6) == "1,413"
    assert column("points", "facility_power_kw").format(2300.0) == "2.3 MW"  # never 2.3K kW
    assert column("points", "facility_power_kw").header == "wall power"  # the unit is in each cell
    assert column("systems", "payment").format("rent on_demand") == "rent on demand"
    assert column("points", "tpot_ms").format(float("nan")) == "-"  # pandas' missing value, never nan


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
