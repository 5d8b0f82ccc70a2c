"""The dashboard's result tables format numbers as the CLI does (issue 11: "$9.72e-05", "1.2K" vs "1.2k")."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import rackcost

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import fields, tables  # noqa: E402

pytestmark = pytest.mark.app


@pytest.fixture(scope="module")
def records() -> dict:
    return rackcost.evaluate(rackcost.load_scenario(rackcost.bundled_scenario_path())).records


def test_a_cost_per_request_is_shown_per_thousand_requests(records) -> None:
    points = records["points"]
    styler, columns, _ = tables.styled(points, tables.POINT_COLUMNS)
    shown = tables.shown_text(styler.data, columns)
    for row, out in zip(points, shown.to_dict("records"), strict=True):
        assert out["usd_per_accepted_request"] == rackcost.display.usd_per_1k_requests(row["usd_per_accepted_request"])
        assert out["total_usd_per_hour"] == rackcost.display.money(row["total_usd_per_hour"])
    assert styler.data["usd_per_accepted_request"].tolist() == [p["usd_per_accepted_request"] for p in points]
    assert "per 1,000 accepted requests" in tables.POINT_COLUMNS["usd_per_accepted_request"].header
    assert "per 1,000 accepted requests" in tables.SYSTEM_COLUMNS["blended_usd_per_accepted_request"].header


@pytest.mark.parametrize("which", ["points", "systems"])
def test_every_cell_is_the_registrys_text_over_its_number_and_the_system_is_pinned(records, which) -> None:
    """The browser shows the registry's text (the CLI's) and sorts by the number under it; no printf format."""
    columns = tables.POINT_COLUMNS if which == "points" else tables.SYSTEM_COLUMNS
    styler, shown, text = tables.styled(records[which], columns)
    styler._compute()
    body = styler._translate(False, False)["body"]
    for row, cells in zip(records[which], body, strict=True):
        texts = [cell["display_value"] for cell in cells if cell.get("type") == "td"]
        assert texts == [c.format(row[name]) for name, c in shown.items()]
    config = tables.column_config(shown, text)
    assert config["system"]["pinned"] is True
    assert not any(c.get("type_config", {}).get("format") for c in config.values())
    assert all(not c.get("pinned") for name, c in config.items() if name != "system")


# ---- every table and metric of every page, as the browser shows it ------------------------------------------------

APP = str(ROOT / "app" / "streamlit_app.py")
WALKED_PAGES = (
    "app_pages/answer.py",
    "app_pages/results.py",
    "app_pages/claim.py",
    "app_pages/uncertainty.py",
    "app_pages/plan.py",
)
# what the CLI never prints: a float's repr (more than 4 significant decimals: 66.50019731703927; the decimals a
# share near 0% or 100% needs to show it is not, 99.999996%, are not counted), a zero padded with zeros (0.00000),
# None or NaN, an enumerated word with its underscore (on_demand, least_outstanding)
LONG_DECIMALS = re.compile(r"\d\.(?:0+|9+)?[1-8]\d{4,}")
ZERO_PADDED = re.compile(r"(?<![\d.])0\.000+(?![\d])")
RAW_WORDS = re.compile(r"^(none|nan|null|inf|-inf)$", re.IGNORECASE)
ENUM_WORD = re.compile(r"^[a-z]+(?:_[a-z]+)+$")


FREE_TEXT = ("source", "why", "figure", "path")
"""Columns of a scenario's own sentences and YAML paths, where a field name (``capex_usd_per_rack``) is a word."""


def unreadable(text: str, column: str = "") -> list[str]:
    """What in a shown cell (of ``column``) or metric the CLI would never print (an empty list: nothing)."""
    found = [m.group(0) for m in (*LONG_DECIMALS.finditer(text), *ZERO_PADDED.finditer(text))]
    found += [word for word in text.split() if RAW_WORDS.match(word)]
    if column not in FREE_TEXT:
        found += [word for word in text.split() if ENUM_WORD.match(word.strip(".,;:()"))]
    return found


def test_unreadable_finds_what_the_issue_saw() -> None:
    """The check itself, on the figures the issue quotes and on their readable forms."""
    for bad in ("66.50019731703927", "7.454794520547945 h", "0.00000", "None", "nan", "rent on_demand"):
        assert unreadable(bad), bad
    for good in ("$0.0000972", "$5,722.21", "2.3 MW", "1,400", "45.6%", "99.999996%", "rent on demand", "$0", "-"):
        assert unreadable(good) == [], good


def shown_cells(table) -> list[tuple[str, str]]:
    """(column, text) of every cell of an ``st.dataframe`` as the browser shows it: the Styler's display values where
    the table has them, else the values themselves, which the browser formats; a number column without display
    values is reported (its look would be the browser's printf, not the registry's)."""
    import pyarrow as pa

    frame = table.value
    arrow = table.proto.arrow_data
    if arrow.HasField("styler") and arrow.styler.display_values:
        display = pa.ipc.open_stream(arrow.styler.display_values).read_pandas()
        # Streamlit draws its own grey "None" over a missing value, whatever the Styler's display value for it
        return [
            (str(c), "None" if rackcost.display.undefined(value) else str(shown))
            for c in display.columns
            for value, shown in zip(frame[c], display[c], strict=True)
        ]
    configs = json.loads(table.proto.columns)
    formats = {name: (config.get("type_config") or {}).get("format") for name, config in configs.items()}
    # a select box column shows each value by its option's label (an editor's kind: "on demand" for on_demand)
    labels = {
        name: {o["value"]: o["label"] for o in (config.get("type_config") or {}).get("options") or [] if "label" in o}
        for name, config in configs.items()
    }
    cells = []
    for c in frame.columns:
        for v in frame[c]:
            if isinstance(v, str) and v in labels.get(str(c), {}):
                cells.append((str(c), labels[str(c)][v]))
            elif isinstance(v, float) and table.editing_mode == "read_only":
                cells.append((str(c), f"unformatted number {v!r}"))
            elif v is None and table.editing_mode != "read_only":
                cells.append((str(c), ""))  # an editor's empty cell, to type into
            elif isinstance(v, float) and formats.get(str(c)) == fields.INPUT_TABLE_FORMAT:
                cells.append((str(c), "-" if v != v else f"{v:,.3f}".rstrip("0").rstrip(".")))  # as the browser
            else:
                cells.append((str(c), str(v)))
    return cells


@pytest.mark.parametrize("path", rackcost.bundled_scenarios(), ids=lambda p: p.stem)
def test_every_table_and_metric_reads_as_the_cli_prints(path) -> None:
    """Issue: "$3848" beside "$5,722.21", "2.3K kW", "0.00000", raw None and on_demand, 66.50019731703927 rps: every
    table of every page formats its cells with the registry of columns (rackcost.evaluation.columns), as the CLI."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["uncertainty_samples"] = 1_000  # the fewest the page takes
    at.run()
    at.switch_page("app_pages/scenario.py").run()
    at.selectbox(key="bundled").select(path.name)
    at.button(key="load_bundled").click().run()
    assert not at.exception, [e.value for e in at.exception]
    found = []
    for tab in at.session_state["scenario_tab_labels"][:-1]:  # the Scenario page's forms (not the YAML text)
        at.session_state["scenario_tab"] = tab
        at.run()
        for i, table in enumerate(at.dataframe):
            found += [(tab, f"table {i}", c, text) for c, text in shown_cells(table) if unreadable(text, c)]
    for page in WALKED_PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        for i, table in enumerate(at.dataframe):
            found += [(page, f"table {i}", c, text) for c, text in shown_cells(table) if unreadable(text, c)]
        for metric in at.metric:
            for text in (metric.label, metric.value):
                if unreadable(text):
                    found.append((page, "metric", metric.label, text))
    assert found == [], found[:20]


def test_the_demand_scale_heading_names_only_the_payments_drawn() -> None:
    """Issue 36: a heading promised "rent on demand" on a scenario of owned systems only."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    (heading,) = [h.value for h in at.header if "against demand scale" in h.value]
    assert heading.endswith(": own") and "rent" not in heading, heading


def test_the_results_systems_table_shows_kw_per_rack_beside_the_rack_limit(records) -> None:
    """The rack in kW on the Results page: the registry's columns, with their unit in the header."""
    for name in ("mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw"):
        assert tables.SYSTEM_COLUMNS[name].header.endswith("[kW per rack]")
        assert all(r[name] is not None for r in records["systems"])  # two owned systems


def test_a_missing_value_reads_as_the_registrys_dash_not_streamlits_none() -> None:
    """A rented system has no rack power limit: the Answer page's table read "None" there, in Streamlit's grey,
    although the Styler's display value was the registry's "-" (Streamlit draws its placeholder over a missing cell
    whatever its display value). No cell handed to the browser is missing; each reads as the registry writes it."""
    rows = [
        {"system": "GB200 NVL72", "rack_power_limit_kw": 140.0, "racks": 7},
        {"system": "GB200 NVL72 (rented)", "rack_power_limit_kw": None, "racks": 7},
    ]
    columns = tables.from_registry("systems", ("system", "rack_power_limit_kw", "racks"))
    data, shown, text = tables.styled(rows, columns)
    frame = getattr(data, "data", data)
    assert not frame.isna().any().any(), frame
    assert text["rack_power_limit_kw"].tolist() == ["140", "-"]
    config = tables.column_config(shown, text)
    assert config["rack_power_limit_kw"]["alignment"] == "right"  # still a column of numbers to the eye
    assert frame["racks"].tolist() == [7, 7]  # a column without a gap keeps its numbers (sorted by value)
