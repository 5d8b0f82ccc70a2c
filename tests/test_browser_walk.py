"""A buyer's walk through the dashboard, in Chromium at 1,024 and 1,440 px, by the forms alone.

DeepSeek R1 on DGX B200 against GB200 NVL72 (the bundled InferenceX scenario): load it from the Scenario page, raise
the peak demand in the Demand tab's table, set the electricity price and the PUE, put every owned system on one set
of financial terms with one button and shorten their service life, add a rented GB200 NVL72 and type its price;
then read the Answer page (the decision, how sure it is, the kW per rack beside the rack limit), look at the Results
page's charts and export the report and the scenario. Every step is a click or a keystroke, as a user makes them (no
session state is set, no URL written). On every page: no metric, heading or metric value cut, nothing wider than
the page, every chart inside its column, no two tick labels of an axis overlapping. The exported YAML holds every
edit, and the library, given it, says what the Answer page said (the same sentence, the same how-sure sentence).

``RACKCOST_SCREENSHOTS=1`` writes the walk's screenshots to ``docs/screenshots/walk-<width>-<step>.png``
(committed; a plain test run writes them to its temporary folder, so it never rewrites tracked files).
Needs /usr/bin/chromium: ``bash scripts/bootstrap`` installs it (the test fails, it does not skip, when it is
missing).
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest
import yaml

import rackcost
from app_server import CHROMIUM, launch_chromium, missing_chromium_message, streamlit_app
from rackcost.evaluation.chain import evaluation
from rackcost.evaluation.columns import column
from rackcost.reporting.decision import decision
from rackcost.reporting.how_sure import how_sure
from test_browser import (
    AXIS_LABEL_BOXES_JS,
    CHART_WIDTHS_JS,
    CUT_METRICS_JS,
    REVISIT_MS,
    WAIT_MS,
    WIDER_THAN_MAIN_JS,
    answer_sentence_shown,
    draft_changed,
    go,
    load,
    number_input,
    open_tab,
    overlapping,
    selected_tab,
    settle,
    small_screenshot,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "deepseek-r1-b200-vs-gb200-inferencex.yaml"
WIDTHS_PX = (1024, 1440)
HEIGHT_PX = 900
RENTED = "GB200 NVL72 (rented)"
# the buyer's own figures, each typed into its form
PEAK_RPS = 300.0  # the file's peak is 240 requests/s
ELECTRICITY_USD_PER_KWH = 0.1  # the file's 0.081 (US industrial average)
PUE = 1.2  # the file's 1.15 (the DGX B200's air-cooled hall keeps its own 1.3)
SERVICE_LIFE_YEARS = 4.0  # the file gives each system 5 years
RENT_USD_PER_GPU_HOUR = 2.8  # the form starts at InferenceX's published GB200 price, $3.30
WALK_STEPS = ("1-demand", "2-facility", "3-rented", "4-answer", "5-rack-power", "6-report")
"""The walk's screenshots, ``walk-<width>-<step>.png``, in its order."""

# headings and metric values cut at their right: some element of them wider inside than it is shown, or reaching
# past the main column
CUT_HEADLINES_JS = """() => {
  const main = document.querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect();
  return [...document.querySelectorAll(
      '[data-testid=stMain] h1, [data-testid=stMain] h2, [data-testid=stMain] h3, [data-testid=stMetricValue]')]
    .filter(e => e.checkVisibility())
    .filter(e => [e, ...e.querySelectorAll('*')].some(x => x.scrollWidth > x.clientWidth + 1)
      || e.getBoundingClientRect().right > main.right + 1)
    .map(e => e.innerText);
}"""

# the headers of a grid's columns in view, and each row's cells in view (the grid's accessible table holds only the
# cells drawn)
GRID_JS = """grid => ({
  headers: [...grid.querySelectorAll('table th')].map(th => th.innerText),
  rows: [...grid.querySelectorAll('table tbody tr')].map(tr => [...tr.querySelectorAll('td')].map(td => td.innerText)),
})"""


def clipped(page) -> dict[str, list]:
    """What the page cuts or overlaps (each list empty on a page that reads whole)."""
    charts = page.evaluate(CHART_WIDTHS_JS)
    return {
        "cut metric labels": page.evaluate(CUT_METRICS_JS),
        "cut headlines": page.evaluate(CUT_HEADLINES_JS),
        "wider than the page": page.evaluate(WIDER_THAN_MAIN_JS),
        "charts outside their column": [c for c in charts if not 0 < c[0] <= c[1] + 1],
        "overlapping tick labels": [pair for axis in page.evaluate(AXIS_LABEL_BOXES_JS) for pair in overlapping(axis)],
    }


def whole(page, where: str) -> None:
    found = clipped(page)
    assert not any(found.values()), (where, found)


def shoot(page, out: Path, width: int, step: str) -> None:
    assert step in WALK_STEPS
    small_screenshot(page, out / f"walk-{width}-{step}.png")


def to_top(locator) -> None:
    """Scroll the page until ``locator`` is at the top of the window (for a screenshot of what follows it)."""
    locator.first.wait_for(timeout=WAIT_MS)
    locator.first.evaluate("e => e.scrollIntoView({block: 'start'})")


def type_into(page, path: str, value: float) -> None:
    """Type a value into the form field of a YAML path and press Enter; wait for the run it starts (the value is
    another than the field's: an unchanged value starts no run)."""
    field = number_input(page, path)
    with draft_changed(page):
        field.fill(f"{value:g}")
        field.press("Enter")
    assert float(number_input(page, path).input_value()) == value, path


def edit_cell(page, grid, row: int, column_index: int, value: float) -> None:
    """Type ``value`` into a cell of an editable grid with the keyboard, as a user does: click the first cell, move to
    the cell with the arrow keys, Enter to edit (the old value selected), type, Enter.

    The grid draws on a canvas; its accessible table (``glide-cell-<column>-<row>``, the row markers column 0) says
    which cell is selected and what each holds. A click that lands while a script run redraws the page is lost (the
    grid is drawn anew): then the user clicks again, and so does this.
    """
    from playwright.sync_api import expect

    cell = grid.get_by_test_id(f"glide-cell-{column_index + 1}-{row}")
    for _ in range(3):
        settle(page)
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        # the first cell of the first row: under the header row (35 px), right of the row markers (about 33 px)
        page.mouse.click(box["x"] + 60, box["y"] + 35 + 17)
        for _ in range(column_index):
            page.keyboard.press("ArrowRight")
        for _ in range(row):
            page.keyboard.press("ArrowDown")
        if cell.get_attribute("aria-selected") == "true":
            break
    expect(cell).to_have_attribute("aria-selected", "true", timeout=WAIT_MS)
    page.keyboard.press("Enter")
    editor = page.locator("input.gdg-input, textarea.gdg-input").first
    editor.wait_for(timeout=WAIT_MS)
    with draft_changed(page):
        editor.fill(f"{value:g}")
        editor.press("Enter")
    expect(cell).to_have_text(f"{value:g}", timeout=WAIT_MS)


def as_shown(cell: str, shown) -> str:
    """A cell of a grid's accessible table as the registry writes it: a number formatted, a text as it is."""
    try:
        return shown.format(float(cell))
    except ValueError:
        return cell


def grid_cells(page, grid) -> dict:
    grid.locator("table td").first.wait_for(state="attached", timeout=WAIT_MS)
    return grid.evaluate(GRID_JS)


def scroll_grid_to(page, grid, header: str) -> dict:
    """Scroll a wide grid sideways (the wheel over it, as a user does) until a header holding ``header`` is drawn."""
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    seen = grid_cells(page, grid)
    for _ in range(40):
        if any(header in h for h in seen["headers"]):
            return seen
        page.mouse.wheel(200, 0)
        page.wait_for_timeout(150)
        seen = grid_cells(page, grid)
    raise AssertionError(f"no column {header!r} after scrolling: {seen['headers']}")


def buyer_walk(page, url: str, width: int, out: Path, downloads: Path) -> dict:
    """The buyer's task, at one window width (module docstring). Returns what the pages showed, the clipping found
    on each page and the downloaded files."""
    seen: dict = {"clipped": {}}
    page.set_viewport_size({"width": width, "height": HEIGHT_PX})
    page.goto(f"{url}/scenario")  # the app opens on the Answer page
    page.get_by_role("heading", name="Scenario", exact=True).first.wait_for(timeout=WAIT_MS)
    settle(page)
    load(page, SCENARIO)
    seen["clipped"]["Scenario"] = clipped(page)

    # the demand: the peak point's rate, typed into the Demand tab's table
    open_tab(page, "Demand")
    grid = page.get_by_test_id("stDataFrame").first
    edit_cell(page, grid, row=2, column_index=1, value=PEAK_RPS)
    page.get_by_test_id("stSidebar").get_by_text("(edited)").wait_for(timeout=WAIT_MS)
    seen["demand rows"] = grid_cells(page, grid)["rows"]
    shoot(page, out, width, "1-demand")

    # the facility: the electricity price and the PUE; the financial terms once, for every owned system
    open_tab(page, "Facility and fleet")
    type_into(page, "facility.electricity_usd_per_kwh", ELECTRICITY_USD_PER_KWH)
    type_into(page, "facility.pue", PUE)
    share = page.get_by_role("button", name="Use one set of terms for every owned system")
    with draft_changed(page):  # every widget is drawn anew, under new keys, in its run
        share.click()
    share.wait_for(state="detached", timeout=WAIT_MS)  # no system sets its own terms any more
    type_into(page, "finance.service_life_years", SERVICE_LIFE_YEARS)
    to_top(page.get_by_role("heading", name="Facility", exact=True))
    seen["clipped"]["Scenario, Facility and fleet"] = clipped(page)
    shoot(page, out, width, "2-facility")

    # a rented GB200 NVL72 beside the owned one, at the buyer's price
    open_tab(page, "System: GB200 NVL72")
    add = page.get_by_role("button", name="Add a rented system from this curve")
    with draft_changed(page):  # its run adds the system's tab and opens it
        add.click()
    tab = page.get_by_role("tab", name=f"System: {RENTED}", exact=True)
    tab.wait_for(timeout=WAIT_MS)
    if selected_tab(page) != f"System: {RENTED}":
        open_tab(page, f"System: {RENTED}")
    page.locator("[data-testid=stAlert]:visible", has_text="To be reviewed").first.wait_for(timeout=REVISIT_MS)
    settle(page)
    type_into(page, "systems[2].rent.usd_per_accelerator_hour", RENT_USD_PER_GPU_HOUR)
    to_top(page.get_by_role("heading", name="Rent (instead of owning)"))
    seen["clipped"]["Scenario, the rented system"] = clipped(page)
    shoot(page, out, width, "3-rented")

    # the answer: the decision, how sure, each system with its kW per rack beside the rack limit
    go(page, "Answer")
    table = page.get_by_test_id("stDataFrame").first
    table.locator("table td", has_text=RENTED).first.wait_for(state="attached", timeout=WAIT_MS)
    settle(page)
    seen["answer"] = answer_sentence_shown(page)
    seen["how sure"] = page.locator("[data-testid=stMain] p", has_text="How sure:").first.inner_text()
    seen["clipped"]["Answer"] = clipped(page)
    shoot(page, out, width, "4-answer")
    seen["rack power"] = scroll_grid_to(page, table, "kW per rack")
    # the rack limit is the last column: scrolled to it, each row still names its system (the pinned column)
    seen["rack power"] = scroll_grid_to(page, table, "rack power limit")
    seen["clipped"]["Answer, its table scrolled"] = clipped(page)
    shoot(page, out, width, "5-rack-power")

    # the Results page's charts, the rented copy's lines among them
    go(page, "Results")
    page.get_by_test_id("stVegaLiteChart").nth(4).locator("svg, canvas").first.wait_for(timeout=WAIT_MS)
    page.wait_for_function(
        f"(({CHART_WIDTHS_JS})()).every(([chart, column]) => 0 < chart && chart <= column + 1)", timeout=WAIT_MS
    )
    seen["charts"] = len(page.evaluate(CHART_WIDTHS_JS))
    seen["clipped"]["Results"] = clipped(page)

    # the report and the scenario, exported
    go(page, "Export")
    page.get_by_role("button", name="Build the report").click()
    download = page.get_by_role("button", name="Download report (HTML)")
    download.wait_for(timeout=WAIT_MS)
    settle(page)
    with page.expect_download(timeout=WAIT_MS) as report:
        download.click()
    seen["report"] = downloads / f"report-{width}.html"
    report.value.save_as(seen["report"])
    with page.expect_download(timeout=WAIT_MS) as scenario:
        page.get_by_role("button", name="Download the scenario (YAML)").click()
    seen["yaml"] = downloads / f"scenario-{width}.yaml"
    scenario.value.save_as(seen["yaml"])
    seen["clipped"]["Export"] = clipped(page)
    # the report as its reader opens it: its first screen
    reader = page.context.new_page()
    reader.set_viewport_size({"width": width, "height": HEIGHT_PX})
    reader.goto(seen["report"].as_uri())
    reader.get_by_role("heading").first.wait_for(timeout=WAIT_MS)
    shoot(reader, out, width, "6-report")
    return seen


@pytest.mark.parametrize("width", WIDTHS_PX)
def test_a_buyer_edits_demand_prices_terms_and_a_rented_copy_then_reads_and_exports_the_answer(tmp_path, width):
    """The buyer's walk (module docstring) at one window width."""
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from playwright.sync_api import sync_playwright

    out = ROOT / "docs" / "screenshots" if os.environ.get("RACKCOST_SCREENSHOTS") else tmp_path
    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            context = browser.new_context(accept_downloads=True)
            context.set_default_timeout(WAIT_MS)  # every action's hang guard, not Playwright's 30 s (a busy machine)
            seen = buyer_walk(context.new_page(), url, width, out, tmp_path)
        finally:
            browser.close()

    for where, found in seen["clipped"].items():
        assert not any(found.values()), (width, where, found)
    assert seen["charts"] >= 5
    assert seen["demand rows"][2][:2] == ["peak", f"{PEAK_RPS:g}"], seen["demand rows"]

    # every edit reached the scenario, by the forms alone: the exported YAML holds each, and no other system terms
    exported = rackcost.scenario_from_dict(yaml.safe_load(seen["yaml"].read_text(encoding="utf-8")), "exported.yaml")
    assert exported.demand[2].arrival_rps == PEAK_RPS
    assert exported.facility.electricity_usd_per_kwh == ELECTRICITY_USD_PER_KWH
    assert exported.facility.pue == PUE
    assert exported.finance.service_life_years == SERVICE_LIFE_YEARS
    assert exported.finance.cost_of_capital_fraction == 0.08  # the systems' own, moved to the scenario
    owned = [s for s in exported.systems if s.costs is not None]
    assert [s.name for s in owned] == ["DGX B200", "GB200 NVL72"]
    assert all(s.costs.service_life_years is None and s.costs.cost_of_capital_fraction is None for s in owned)
    rented = exported.systems[2]
    assert rented.name == RENTED and rented.rent is not None
    assert rented.rent.usd_per_accelerator_hour == RENT_USD_PER_GPU_HOUR

    # the Answer page said what the library says of that scenario: its decision and how sure, word for word
    evaluated = evaluation(exported)
    assert seen["answer"] == decision(evaluated).sentence
    assert seen["how sure"] == f"How sure: {how_sure(evaluated)}"

    # kW per rack beside the rack limit, each row named (the pinned column, the table scrolled), the library's
    # figures (the grid's accessible table holds a cell's value, a number or the registry's text, not its look)
    headers, rows = seen["rack power"]["headers"], seen["rack power"]["rows"]
    assert headers[0] == "system", headers
    systems = {r["system"]: r for r in evaluated.result.records["systems"]}
    names = [row[0].removeprefix("★ ") for row in rows]
    assert sorted(names) == sorted(systems), names
    for name in ("mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw"):
        shown = column("systems", name)
        at = next((i for i, h in enumerate(headers) if h.startswith(shown.label)), None)
        assert at is not None, (shown.label, headers)
        cells = [as_shown(row[at], shown) for row in rows]
        assert cells == [shown.format(systems[n][name]) for n in names], (name, rows)
    assert as_shown(rows[names.index(RENTED)][-1], shown) == "-"  # a rented rack has no limit of the buyer's

    # the report: one HTML file, leading with the same decision, as sure of it
    report = seen["report"].read_text(encoding="utf-8")
    assert "<html" in report[:500].lower() and len(report) > 50_000
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", report)))
    assert decision(evaluated).sentence in text
    assert how_sure(evaluated) in text
    assert RENTED in text
    if out != tmp_path:
        sizes = {step: (out / f"walk-{width}-{step}.png").stat().st_size for step in WALK_STEPS}
        assert all(size < 300_000 for size in sizes.values()), sizes
